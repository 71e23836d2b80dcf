# napkin train: Korthikanti Fig. 1 and hand-derived step parts from the command line, and bad input.
napkin_check_output(cli.train.korthikanti_22b
  COMMAND $<TARGET_FILE:napkin-cli> train --model megatron-22b --tp 8 --pp 1 --dp 1 --micro-batch 4
          --global-batch 4 --seq-len 2048
  # Fig. 1: 59.25 GiB of activations without recomputation; Table 2 per layer × 48 layers.
  EXPECT "activations 59.25 GiB" "does not fit")
napkin_check_output(cli.train.korthikanti_22b_sp_selective
  COMMAND $<TARGET_FILE:napkin-cli> train --model megatron-22b --tp 8 --pp 1 --dp 1 --micro-batch 4
          --global-batch 4 --sequence-parallel --recompute selective --grad-dtype fp32 --json
  # Fig. 1: 9.5625 GiB = 10,267,656,192 bytes; TP by hand: 192 × (2·6.6 + 14·0.6 + 587.20256) µs.
  EXPECT "\"activations\": 10267656192" "\"tp\": 0.1168" "\"fits\": true" "\"step_s\"" "\"tokens_per_s\"" "\"mfu\"")
napkin_check_output(cli.train.gpt3_175b
  COMMAND $<TARGET_FILE:napkin-cli> train --model gpt3-175b --gpus-per-node 8 --intra-link nvlink3
          --inter-link ib-hdr --tp 8 --pp 16 --dp 8 --micro-batch 1 --global-batch 1536 --recompute full
          --zero distributed --json
  EXPECT "\"gpus\": 1024" "\"nodes\": 128" "\"microbatches\": 192" "\"bubble\"" "\"dp\"")
napkin_check_output(cli.train.error.heads
  COMMAND $<TARGET_FILE:napkin-cli> train --model gpt2-xl --tp 2 --global-batch 8
  EXPECT "napkin: error: Parallelism.tp = 2: must divide the model's attention heads (25)" EXIT_CODE 2)
napkin_check_output(cli.train.error.recompute
  COMMAND $<TARGET_FILE:napkin-cli> train --model gpt2-xl --recompute sometimes
  EXPECT "napkin: error: --recompute \"sometimes\": must be one of none, selective, full" EXIT_CODE 2)
napkin_check_output(cli.train.error.batch
  COMMAND $<TARGET_FILE:napkin-cli> train --model gpt2-small --dp 8 --micro-batch 4 --global-batch 20
  EXPECT "Parallelism.global_batch = 20: must be a multiple of micro_batch × dp = 32" EXIT_CODE 2)
# --schedule: the pipeline schedule by pipeline.hpp's names. GPT-2 medium t2 p4, m = 8: the stage's compute is
# 8 × 3W with W = 142,892,597,248 FLOPs / (312 TFLOP/s × 0.699·512/778) = 0.9956062 ms, i.e. 23.89455 ms.
napkin_check_output(cli.train.schedule_zb_h1
  COMMAND $<TARGET_FILE:napkin-cli> train --model gpt2-medium --tp 2 --pp 4 --dp 1 --micro-batch 1
          --global-batch 8 --seq-len 1024 --schedule zb-h1 --json
  EXPECT "\"schedule\": \"zb-h1\"" "\"compute\": 0.0238945")
napkin_check_output(cli.train.schedule_default_interleaved
  COMMAND $<TARGET_FILE:napkin-cli> train --model gpt2-medium --tp 2 --pp 4 --dp 1 --micro-batch 1
          --global-batch 8 --seq-len 1024 --vp 2
  EXPECT "8 micro-batches of 1, interleaved schedule")
napkin_check_output(cli.train.error.schedule
  COMMAND $<TARGET_FILE:napkin-cli> train --model gpt2-medium --schedule zb --global-batch 8
  EXPECT "napkin: error: --schedule \"zb\": must be one of 1f1b, interleaved, zb-h1, zb-h2, dualpipe, dualpipev, gpipe"
  EXIT_CODE 2)
napkin_check_output(cli.train.error.interleaved_microbatches
  COMMAND $<TARGET_FILE:napkin-cli> train --model gpt2-medium --tp 2 --pp 4 --dp 1 --micro-batch 1
          --global-batch 6 --seq-len 1024 --vp 2
  EXPECT "= 6: must be a multiple of pp = 4 for the interleaved schedule" EXIT_CODE 2)
napkin_check_output(cli.train.error.schedule_chunks
  COMMAND $<TARGET_FILE:napkin-cli> train --model gpt2-medium --tp 2 --pp 4 --dp 1 --micro-batch 1
          --global-batch 8 --seq-len 1024 --vp 2 --schedule dualpipe
  EXPECT "Parallelism.virtual_stages = 2: must be 1 for the dualpipe schedule" EXIT_CODE 2)
