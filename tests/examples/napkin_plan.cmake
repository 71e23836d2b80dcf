# napkin plan-inference (and plan): the planners from the command line.
# 70B on A100s over NVLink: the split lesson needs 2 GPUs to hold it and finds
# 16 (of the counts dividing its 64 heads) fastest for one user.
napkin_check_output(cli.plan_inference.lesson
  COMMAND $<TARGET_FILE:napkin-cli> plan-inference --model llama3.1-70b --gpu a100-80gb-sxm --link nvlink-a100
          --max-tokens 1
  EXPECT "fewest:  t2 x p1 = 2 GPUs" "fastest: t16 x p1 = 16 GPUs" "35.85 ms per token")
# 405B: 11 GPUs hold it (the lesson), but 11 is no t x p split of 128 heads and 126 layers; 12 = t4 x p3 is.
napkin_check_output(cli.plan_inference.json
  COMMAND $<TARGET_FILE:napkin-cli> plan-inference --model llama3.1-405b --gpu a100-80gb-sxm --link nvlink-a100
          --latency-ms 30 --json
  EXPECT "\"fewest\": {" "\"gpus\": 12" "\"objective\": \"throughput\"" "\"latency_bound_s\": 0.03"
         "\"points_evaluated\":" "\"points_rejected\":" "\"seconds\":" "\"points_per_second\":")
napkin_check_output(cli.plan_inference.bad_input
  COMMAND $<TARGET_FILE:napkin-cli> plan-inference --model llama3.1-70b --gpu a100-80gb-sxm --link nvlink-a100
          --max-gpus 0
  EXPECT "--max-gpus = 0: must be at least 1" EXIT_CODE 2)
# t16 and t32 with any pp dividing 96 and 1,024/16: 6 + 6 = 12 layouts above --max-tp 8.
# napkin plan: GPT-3 175B on 1,024 A100s (the issue's case). 1,160,320 points,
# recounted outside napkin (see tests/unit/planner.cpp); t1 p1 (dp 1,024) is the
# one layout whose data-parallel size does not divide the batch of 1,536.
set(gpt3_cluster --gpu a100-80gb-sxm --gpus 1024 --gpus-per-node 8 --intra-link nvlink3 --inter-link ib-hdr
    --global-batch 1536 --seq-len 2048)
napkin_check_output(cli.plan.table
  COMMAND $<TARGET_FILE:napkin-cli> plan --model gpt3-175b ${gpt3_cluster} --top 3
  EXPECT "search: 1,160,320 points =" "batch 1," "rank" "   1  t" "   3  t" REJECT "   4  t")
napkin_check_output(cli.plan.json
  COMMAND $<TARGET_FILE:napkin-cli> plan --model gpt3-175b ${gpt3_cluster} --top 1 --json
  EXPECT "\"points_evaluated\":" "\"points_rejected\":" "\"seconds\":" "\"points_per_second\":"
         "\"points\": 1160320" "\"step_s\":" "\"breakdown\":" "\"tokens_per_s\":" "\"mfu\":" "\"pareto\":"
         "\"fits\": true")
napkin_check_output(cli.plan.max_tp
  COMMAND $<TARGET_FILE:napkin-cli> plan --model gpt3-175b ${gpt3_cluster} --max-tp 8 --schedules 1f1b --json
  EXPECT "\"max_tp\": 12" "\"schedule\": \"1f1b\"" REJECT "\"schedule\": \"interleaved\"" "\"tp\": 16," "\"tp\": 32,")
napkin_check_output(cli.plan.bad_input
  COMMAND $<TARGET_FILE:napkin-cli> plan --model gpt3-175b ${gpt3_cluster} --schedules 1f1b,bogus
  EXPECT "--schedules \"1f1b,bogus\": \"bogus\" is not one of 1f1b, interleaved, zb-h1, zb-h2, dualpipe, dualpipev, gpipe" EXIT_CODE 2)
# A framework's own choices: full recomputation, ZeRO-1, no sequence parallelism leave 1,444 of the 32,960
# points (tests/unit/planner.cpp counts them by hand); a choice not in a set is one error line.
napkin_check_output(cli.plan.framework_choices
  COMMAND $<TARGET_FILE:napkin-cli> plan --model gpt2-small --gpus 8 --global-batch 16 --seq-len 1024
          --recomputes full --zero-stages 1 --no-sequence-parallel --json
  EXPECT "\"points\": 1444" "\"recompute\": \"full\"" "\"zero\": \"1\""
  REJECT "\"recompute\": \"none\"" "\"sequence_parallel\": true")
napkin_check_output(cli.plan.error.recomputes
  COMMAND $<TARGET_FILE:napkin-cli> plan --model gpt2-small --gpus 8 --global-batch 16 --recomputes none,partial
  EXPECT "napkin: error: --recomputes \"none,partial\": \"partial\" is not one of none, selective, full" EXIT_CODE 2)
napkin_check_output(cli.plan.error.zero_stages
  COMMAND $<TARGET_FILE:napkin-cli> plan --model gpt2-small --gpus 8 --global-batch 16 --zero-stages distributed
  EXPECT "napkin: error: --zero-stages \"distributed\": \"distributed\" is not one of 0, 1, 2, 3" EXIT_CODE 2)
# --max-cp 2: the GPT-2 small space on 8 GPUs with context parallelism, 32,960 + 23,424 points
# (tests/unit/planner.cpp counts them by hand); the layouts that do not divide 8 GPUs: 28 + 30.
napkin_check_output(cli.plan.context_parallel
  COMMAND $<TARGET_FILE:napkin-cli> plan --model gpt2-small --gpus 8 --global-batch 16 --seq-len 1024 --max-cp 2 --json
  EXPECT "\"points\": 56384" "\"gpus\": 58" "\"cp\":")
napkin_check_output(cli.plan.error.max_cp
  COMMAND $<TARGET_FILE:napkin-cli> plan --model gpt2-small --gpus 8 --global-batch 16 --max-cp 0
  EXPECT "napkin: error: --max-cp = 0: must be at least 1" EXIT_CODE 2)
# A mixture of experts from its config.json (Mixtral 8x7B on two DGX A100 nodes): expert-parallel
# sizes are searched (ep dividing 8 experts and dp: an ep = 2 layout is among the 3 fastest under the
# GEMM model); --max-ep 1 keeps every layout at ep = 1.
napkin_check_output(cli.plan.mixture_of_experts
  COMMAND $<TARGET_FILE:napkin-cli> plan --model ${CMAKE_CURRENT_SOURCE_DIR}/data/mixtral_8x7b_config.json
          --gpus 16 --global-batch 64 --seq-len 4096 --schedules 1f1b --top 3 --json
  EXPECT "\"model\": \"mixtral_8x7b_config\"" "\"ep\": 2")
napkin_check_output(cli.plan.mixture_of_experts_max_ep
  COMMAND $<TARGET_FILE:napkin-cli> plan --model ${CMAKE_CURRENT_SOURCE_DIR}/data/mixtral_8x7b_config.json
          --gpus 16 --global-batch 64 --seq-len 4096 --schedules 1f1b --top 3 --max-ep 1 --json
  EXPECT "\"ep\": 1" REJECT "\"ep\": 2," "\"ep\": 4," "\"ep\": 8,")
# napkin plan with the reference's layer map (45 layers: no even pp = 4 split exists): every layout has the
# map's 4 stages of 2 chunks, dp = 1,024 / 4 = 256; the node given inline with issue 15's flag names.
napkin_check_output(cli.plan.layer_map
  COMMAND $<TARGET_FILE:napkin-cli> plan --model ${CMAKE_CURRENT_SOURCE_DIR}/data/reference_moe_config.json
          --gpu gh200 --gpus 1024 --gpus-per-node 4 --intra-link-bandwidth 150GB/s --intra-link-latency 0.6us
          --inter-link-bandwidth 200Gb/s --inter-link-latency 2.7us --global-batch 4096 --seq-len 4096
          --max-tp 1 --max-ep 4 --layer-map 1-6,25-29/7-12,30-35/13-18,36-41/19-24,42-45 --top 1 --threads 1
  EXPECT "t1  p4   d256  c1" "v2" "interleaved")
napkin_check_output(cli.plan.layer_map_shorthand
  COMMAND $<TARGET_FILE:napkin-cli> plan --model ${CMAKE_CURRENT_SOURCE_DIR}/data/reference_moe_config.json
          --gpu gh200 --gpus 1024 --gpus-per-node 4 --global-batch 4096 --seq-len 4096 --max-tp 1 --max-ep 4
          --pp 4 --vp 2 --first-stage-layers 6 --last-stage-layers 3 --top 1 --threads 1 --json
  EXPECT "\"pp\": 4" "\"vp\": 2" "\"dp\": 256")
napkin_check_output(cli.plan.error.layer_map_max_pp
  COMMAND $<TARGET_FILE:napkin-cli> plan --model ${CMAKE_CURRENT_SOURCE_DIR}/data/reference_moe_config.json
          --gpu gh200 --gpus 1024 --gpus-per-node 4 --global-batch 4096 --seq-len 4096 --max-pp 2
          --layer-map 1-6,25-29/7-12,30-35/13-18,36-41/19-24,42-45
  EXPECT "napkin: error: LayerMap.stages = 4: must be at most max_pp = 2 (set by --layer-map, --max-pp)" EXIT_CODE 2)
napkin_check_output(cli.plan.error.layer_map_gpus
  COMMAND $<TARGET_FILE:napkin-cli> plan --model ${CMAKE_CURRENT_SOURCE_DIR}/data/reference_moe_config.json
          --gpu gh200 --gpus 6 --gpus-per-node 6 --global-batch 4096 --seq-len 4096
          --layer-map 1-6,25-29/7-12,30-35/13-18,36-41/19-24,42-45
  EXPECT "napkin: error: LayerMap.stages = 4: has this many stages, which do not divide the 6 GPUs (set by --layer-map)" EXIT_CODE 2)
