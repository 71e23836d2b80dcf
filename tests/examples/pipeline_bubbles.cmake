# pipeline_bubbles: p = 4, m = 8, F = 1 ms, B = 2 ms, W = 1 ms. By hand:
# GPipe and 1F1B bubble 3 × 3 = 9 ms of a 33 ms step (3/11 = 27.27%, 9/24 = 37.50% of ideal);
# interleaved v = 2: 4.5 ms of 28.5 (3/19 = 15.79%), v = 4: 2.25 ms of 26.25 (3/35 = 8.57%);
# ZB-H1: 3 × (1 + 2 − 2) = 3 ms of 27 (11.11%); DualPipe (4/2 − 1)(F&B + B − 3W) with F&B = F + B:
# 1 × (3 + 2 − 3) = 2 ms of 26 (7.69%, 2/24 = 8.33%); DualPipeV (p − 1)(3 + 2 − 3)/2 = 3 ms of 27.
# The simulated step must equal each closed form.
napkin_check_output(example.pipeline_bubbles
  COMMAND $<TARGET_FILE:pipeline_bubbles> .
  EXPECT "ideal step m(F + B) = 24.00 ms"
         "GPipe               9.00 ms   33.00 ms     27.27%     37.50%    33.00 ms"
         "1F1B                9.00 ms   33.00 ms     27.27%     37.50%    33.00 ms"
         "interleaved v=2     4.50 ms   28.50 ms     15.79%     18.75%    28.50 ms"
         "interleaved v=4     2.25 ms   26.25 ms      8.57%      9.38%    26.25 ms"
         "ZB-H1               3.00 ms   27.00 ms     11.11%     12.50%    27.00 ms"
         "DualPipe            2.00 ms   26.00 ms      7.69%      8.33%    26.00 ms"
         "DualPipeV           3.00 ms   27.00 ms     11.11%     12.50%    27.00 ms"
         "GPipe 8, 1F1B 4, interleaved v=2 5.5, ZB-H1 4"
         "DualPipe 5 with 2x parameters (each rank holds two stages), DualPipeV 4.5")

# napkin bubble / schedule: the same numbers from the command line, and bad input.
napkin_check_output(cli.bubble.1f1b
  COMMAND $<TARGET_FILE:napkin-cli> bubble --schedule 1f1b --stages 4 --microbatches 8 --json
  EXPECT "\"bubble_fraction_of_step\": 0.2727" "\"bubble_ratio_to_ideal\": 0.37" "\"bubble_s\": 0.009"
         "\"step_s\": 0.033")
napkin_check_output(cli.bubble.interleaved
  COMMAND $<TARGET_FILE:napkin-cli> bubble --schedule interleaved --stages 4 --microbatches 8 --chunks 2
  EXPECT "bubble 4.50 ms of a 28.50 ms step: 15.79% of the step," "18.75% of the ideal 24.00 ms")  # two lines in 80 columns
napkin_check_output(cli.bubble.zb_h2
  COMMAND $<TARGET_FILE:napkin-cli> bubble --schedule zb-h2 --stages 4 --microbatches 8 --forward-ms 2
          --backward-ms 3 --weight-grad-ms 1
  EXPECT "bubble 6.00 ms of a 46.00 ms step" "activations: 7 micro-batches")
napkin_check_output(cli.bubble.dualpipe
  COMMAND $<TARGET_FILE:napkin-cli> bubble --schedule dualpipe --stages 8 --microbatches 16 --json
  EXPECT "\"bubble_s\": 0.006" "\"parameter_memory_multiplier\": 2.0")
napkin_check_output(cli.schedule.1f1b_sends
  COMMAND $<TARGET_FILE:napkin-cli> schedule --schedule 1f1b --stages 2 --microbatches 2 --forward-ms 1
          --backward-ms 2 --send-ms 0.5 --svg t.svg
  EXPECT "step 10.00 ms (closed form 9.00 ms), idle 40.00%" "stage 1: busy 6.00 ms, idle 4.00 ms" "timeline: t.svg")
napkin_check_output(cli.schedule.json
  COMMAND $<TARGET_FILE:napkin-cli> schedule --schedule interleaved --stages 4 --microbatches 8 --chunks 2
          --forward-ms 1 --backward-ms 2 --json
  EXPECT "\"step_s\": 0.0285" "\"idle_fraction\": 0.1578" "\"pass\": \"forward\"" "\"microbatch\": 8"
         "\"chunk\": 2" "\"start_s\": 0.0" "\"end_s\": 0.0285")
# The same step's JSON written by three threads (blocks of passes put out in order): one pass a line.
napkin_check_output(cli.schedule.json_threads
  COMMAND $<TARGET_FILE:napkin-cli> schedule --schedule interleaved --stages 4 --microbatches 8 --chunks 2
          --forward-ms 1 --backward-ms 2 --json --threads 3
  EXPECT "\"step_s\": 0.0285" "{\"pass\": \"forward\", \"microbatch\": 1, \"chunk\": 1, \"start_s\": 0.0, \"end_s\": 0.0005},")
napkin_check_output(cli.bubble.zero_microbatches
  COMMAND $<TARGET_FILE:napkin-cli> bubble --schedule 1f1b --stages 4 --microbatches 0
  EXPECT "microbatches = 0: must be at least 1" EXIT_CODE 2)
napkin_check_output(cli.bubble.interleaved_not_multiple
  COMMAND $<TARGET_FILE:napkin-cli> bubble --schedule interleaved --stages 4 --microbatches 6 --chunks 2
  EXPECT "microbatches = 6: must be a multiple of PipelineShape.stages = 4" EXIT_CODE 2)
napkin_check_output(cli.schedule.negative_forward
  COMMAND $<TARGET_FILE:napkin-cli> schedule --schedule gpipe --stages 4 --microbatches 8 --forward-ms -1
          --backward-ms 2
  EXPECT "--forward-ms = -1: must not be negative" EXIT_CODE 2)
napkin_check_output(cli.schedule.unknown
  COMMAND $<TARGET_FILE:napkin-cli> schedule --schedule pipedream --stages 4 --microbatches 8 --forward-ms 1
          --backward-ms 2
  EXPECT "schedule = \"pipedream\"" EXIT_CODE 2)
# DualPipe simulated, p = 4, m = 8, F = 1, B = 2, W = 1 ms (default half of B), no overlap:
# every rank idles (4/2 − 1)(3 + 2 − 3) = 2 ms of 26 ms, 2/26 = 7.69%.
napkin_check_output(cli.schedule.dualpipe
  COMMAND $<TARGET_FILE:napkin-cli> schedule --schedule dualpipe --stages 4 --microbatches 8 --forward-ms 1
          --backward-ms 2
  EXPECT "dualpipe, p = 4, m = 8, v = 1: 74 passes" "step 26.00 ms (closed form 26.00 ms), idle 7.69%"
         "stage 1: busy 24.00 ms, idle 2.00 ms" "stage 4: busy 24.00 ms, idle 2.00 ms")
# DualPipeV p = 4, m = 8 with F&B = 2.5 ms: the last rank idles (p − 1)(2.5 + 2 − 3)/2 = 2.25 ms and runs
# 2(m − p) − 1 = 7 pairs of half-size chunks, each 0.25 ms shorter than F/2 + B/2: step 24 − 1.75 + 2.25 = 24.5 ms.
# Its pairs are marked "overlapped"; stage 1 starts with micro-batch 1's forward on chunk 1.
napkin_check_output(cli.schedule.dualpipev_json
  COMMAND $<TARGET_FILE:napkin-cli> schedule --schedule dualpipev --stages 4 --microbatches 8 --forward-ms 1
          --backward-ms 2 --overlapped-ms 2.5 --json
  EXPECT "\"schedule\": \"dualpipev\"" "\"step_s\": 0.0245" "\"idle_s\": 0.00225" "\"overlapped\": true"
         "\"pass\": \"weight_grad\"" "\"chunk\": 2")
napkin_check_output(cli.bubble.dualpipev_overlapped
  COMMAND $<TARGET_FILE:napkin-cli> bubble --schedule dualpipev --stages 4 --microbatches 8 --overlapped-ms 2.5
  EXPECT "bubble 2.25 ms of a 26.25 ms step")
napkin_check_output(cli.schedule.dualpipe_too_few
  COMMAND $<TARGET_FILE:napkin-cli> schedule --schedule dualpipe --stages 4 --microbatches 6 --forward-ms 1
          --backward-ms 2
  EXPECT "microbatches = 6: must be even and at least 2 × PipelineShape.stages = 8" EXIT_CODE 2)
napkin_check_output(cli.schedule.overlapped_not_dualpipe
  COMMAND $<TARGET_FILE:napkin-cli> schedule --schedule 1f1b --stages 4 --microbatches 8 --forward-ms 1
          --backward-ms 2 --overlapped-ms 2
  EXPECT "--overlapped-ms = 2: only dualpipe and dualpipev take it" EXIT_CODE 2)

# napkin schedule --reference: the 1,024-GPU MoE step (tests/data/moe-training-step-1024-gpus.json) simulated
# from its own op and send times (Megatron's interleaved 1F1B with paired F&B blocks, head and tail): the step
# 1.797498 s and the idle fraction 0.265493 to 1e-4 relative, every pass within 1 µs (tests/unit/schedule.cpp).
napkin_check_output(cli.schedule.reference
  COMMAND $<TARGET_FILE:napkin-cli> schedule --reference ${CMAKE_CURRENT_SOURCE_DIR}/data/moe-training-step-1024-gpus.json
  EXPECT "interleaved, p = 4, m = 8, v = 2: 128 passes" "step 1.80 s, idle 26.55% of p x step"
         "loss times: 0.269988 0.349450 0.426513 0.511188 0.927749 1.010034" "1.091640 1.176315 s"
         "reference: step 1.797498 s, idle 26.5493%")
napkin_check_output(cli.schedule.reference_json
  COMMAND $<TARGET_FILE:napkin-cli> schedule --reference ${CMAKE_CURRENT_SOURCE_DIR}/data/moe-training-step-1024-gpus.json --json
  EXPECT "\"step_s\": 1.79749" "\"idle_fraction\": 0.26549" "\"overlapped\": true" "\"kind\": \"gradient reduce-scatter\""
         "\"kind\": \"parameter all-gather\"" "\"kind\": \"optimizer step\"" "\"loss_times_s\"")
# napkin schedule --times: p = 2, m = 2, F = 1 ms, B = 2 ms, paired with half of 0.5 + 0.5 ms all-to-all hidden
# (a pair 2.5 ms): rank 2 runs F0 [1, 2], the pair [2, 4.5], B1 [4.5, 6.5]; rank 1 B0 [4.5, 6.5], B1 [6.5, 8.5].
# Step 8.5 ms; idle (2.5 + 3) / 17 = 32.35%; losses at 2 and 4.5 ms (tests/unit/schedule.cpp, by hand).
napkin_check_output(cli.schedule.times
  COMMAND $<TARGET_FILE:napkin-cli> schedule --times ${CMAKE_CURRENT_SOURCE_DIR}/data/schedule_times_paired.json
  EXPECT "step 8.50 ms, idle 32.35% of p x step" "stage 2: busy 5.50 ms, idle 3.00 ms" "loss times: 0.002000 0.004500 s")
napkin_check_output(cli.schedule.times_missing
  COMMAND $<TARGET_FILE:napkin-cli> schedule --times no-such-file.json
  EXPECT "--times = \"no-such-file.json\": cannot be opened" EXIT_CODE 2)
napkin_check_output(cli.schedule.overlap_moe_not_interleaved
  COMMAND $<TARGET_FILE:napkin-cli> schedule --schedule 1f1b --stages 2 --microbatches 2 --forward-ms 1
          --backward-ms 2 --overlap-moe-expert-parallel-comm
  EXPECT "--overlap-moe-expert-parallel-comm = 1: only the interleaved schedule takes it" EXIT_CODE 2)
napkin_check_output(cli.schedule.forward_required
  COMMAND $<TARGET_FILE:napkin-cli> schedule --schedule 1f1b --stages 2 --microbatches 2 --backward-ms 2
  EXPECT "--forward-ms is required (or give --times)" EXIT_CODE 2)
# Uneven stages from the command line: the reference's layer map at 5.272 ms / 9.414 ms a layer, the LM head
# 8.144 ms forward on the last chunk, 1.535 ms sends. Micro-batch 1's loss, by hand: it crosses virtual stages of
# 6, 6, 6, 6, 5, 6, 6 layers and 4 + the head: 4·31.632 + 26.36 + 2·31.632 + 29.232 = 245.384 ms, plus 7 sends
# (10.745 ms) = 256.129 ms, never waiting for a busy rank (each chunk-2 input arrives after the rank's fourth
# chunk-1 forward).
napkin_check_output(cli.schedule.layer_map
  COMMAND $<TARGET_FILE:napkin-cli> schedule --schedule interleaved --stages 4 --microbatches 8 --chunks 2
          --layers 45 --layer-map 1-6,25-29/7-12,30-35/13-18,36-41/19-24,42-45 --layer-forward-ms 5.272
          --layer-backward-ms 9.414 --head-forward-ms 8.144 --head-backward-ms 16.288 --send-ms 1.535
          --overlap-moe-expert-parallel-comm --forward-all-to-all-share 0.270663 --backward-all-to-all-share 0.151579
          --pair-hidden 0.38
  EXPECT "interleaved, p = 4, m = 8, v = 2: 128 passes" "loss times: 0.256129 ")
napkin_check_output(cli.schedule.layer_map_missing_layer
  COMMAND $<TARGET_FILE:napkin-cli> schedule --schedule interleaved --stages 4 --microbatches 8 --chunks 2
          --layers 45 --layer-map 1-6,25-29/7-12,30-35/13-18,36-41/19-24,43-45 --layer-forward-ms 5
          --layer-backward-ms 9
  EXPECT "--layer-map = 42: this layer is on no stage" EXIT_CODE 2)
napkin_check_output(cli.schedule.layer_map_stages
  COMMAND $<TARGET_FILE:napkin-cli> schedule --schedule interleaved --stages 4 --microbatches 8 --chunks 2
          --layers 36 --layer-map 1-6,7-12/13-24,25-30/31-36,31-36 --layer-forward-ms 5 --layer-backward-ms 9
  EXPECT "has 3 stages; the pipeline has 4" EXIT_CODE 2)
# Megatron's shorthand: 45 layers, first 3, last 6, the other 6 virtual stages 6 each.
napkin_check_output(cli.schedule.first_last_stage_layers
  COMMAND $<TARGET_FILE:napkin-cli> schedule --schedule interleaved --stages 4 --microbatches 8 --chunks 2
          --layers 45 --first-stage-layers 4 --last-stage-layers 6 --layer-forward-ms 5 --layer-backward-ms 9
  EXPECT "--first-stage-layers = 4: with last_stage_layers = 6 must leave the other 6 virtual stages an equal share"
  EXIT_CODE 2)
# README ("Per-op times, paired blocks, …") shows one line of this JSON: each time the shortest text that reads
# back to the simulated double.
napkin_check_output(cli.schedule.readme_json_line
  COMMAND $<TARGET_FILE:napkin-cli> schedule --schedule interleaved --stages 2 --microbatches 8 --chunks 2
          --forward 1ms --backward 2ms --json
  EXPECT "{\"pass\": \"forward\", \"microbatch\": 3, \"chunk\": 2, \"start_s\": 0.0055000000000000005, \"end_s\": 0.006},")
