# napkin serve: the serving model from the command line (numbers derived in tests/unit/serving.cpp).
# The hand derivations below are the roofline's (--kernels roofline: data-sheet bandwidth and peak, no
# engine overhead); the default prices the same passes at the kernel layer's measured rates (the last tests).
set(serve_70b serve --model llama3.1-70b --gpu h100-sxm --tp 8)
# 178 chats of 4,096 + 4,096 tokens: 17,638,426,624 B of weights, 59,726,888,960 B of KV cache
# (327,680 B/token x 8,192 x 178 / 8), 1,560,281,088 B of working memory; 179 do not fit.
napkin_check_output(cli.serve.llama70b_178_chats
  COMMAND $<TARGET_FILE:napkin-cli> ${serve_70b} --input-tokens 4096 --output-tokens 4096 --concurrency 178 --json
          --kernels roofline
  EXPECT "\"weights\": 17638426624" "\"kv_cache\": 59726888960" "\"activations\": 1560281088"
         "\"total\": 78925596672" "\"usable\": 79027398246" "\"fits\": true" "\"max_concurrency\": 178"
         "\"weights_read_s\": 0.005265201977" "\"ttft_s\"" "\"tpot_s\"" "\"e2e_s\"" "\"output_tokens_per_s\""
         "\"output_tokens_per_s_per_gpu\"" "\"requests_per_s\"" "\"kv_read_s\"" "\"compute_s\"" "\"tp_s\"" "\"pp_s\""
         "\"ep_s\"" "\"comm_s\"")
napkin_check_output(cli.serve.sweep
  COMMAND $<TARGET_FILE:napkin-cli> ${serve_70b} --input-tokens 4096 --output-tokens 4096 --concurrency 178
          --sweep 1,64,178,256
  EXPECT "at most 178 fit" "(reading the KV cache; math" "     178 yes" "     256 no")
napkin_check_output(cli.serve.sweep_json
  COMMAND $<TARGET_FILE:napkin-cli> ${serve_70b} --input-tokens 1024 --output-tokens 1024 --batch 8 --sweep 1,2 --json
  EXPECT "\"rows\"" "\"batching\": \"static\"" "\"concurrency\": 2")
napkin_check_output(cli.serve.svg
  COMMAND $<TARGET_FILE:napkin-cli> ${serve_70b} --input-tokens 1024 --output-tokens 1024 --concurrency 8 --svg frontier.svg
  EXPECT "frontier written to frontier.svg")
# Mixtral 8x7B on 2 H100, one chat: 12,879,925,248 active weights x 2 B / 2 GPUs / 3.35 TB/s = 3.84 ms, not the
# 13.94 ms of all 46.7 B weights.
napkin_check_output(cli.serve.mixtral
  COMMAND $<TARGET_FILE:napkin-cli> serve --model ${CMAKE_CURRENT_SOURCE_DIR}/data/mixtral_8x7b_config.json --gpu h100-sxm
          --tp 2 --input-tokens 512 --output-tokens 512 --concurrency 1 --kernels roofline
  EXPECT "weights 3.84 ms")
napkin_check_output(cli.serve.int4
  COMMAND $<TARGET_FILE:napkin-cli> serve --model llama3.1-70b --gpu a100-80gb-sxm --weight-dtype int4 --kv-dtype fp8
          --input-tokens 1024 --output-tokens 1024 --concurrency 1 --json
  EXPECT "\"weights\": 36379254912" "\"weight_dtype\": \"int4\"" "\"kv_dtype\": \"fp8\"")
# Bad input: one line naming the flag and its value, exit status 2.
foreach(bad IN ITEMS "concurrency_zero|--concurrency 0|--concurrency = 0: must be at least 1"
                     "batch_negative|--batch -1|--batch = -1: must be at least 1")
  string(REPLACE "|" ";" parts "${bad}")
  list(GET parts 0 name)
  list(GET parts 1 flags)
  list(GET parts 2 message)
  separate_arguments(flags)
  napkin_check_output(cli.serve.bad.${name}
    COMMAND $<TARGET_FILE:napkin-cli> ${serve_70b} --input-tokens 100 --output-tokens 100 ${flags}
    EXPECT "${message}" EXIT_CODE 2)
endforeach()
napkin_check_output(cli.serve.bad.input_tokens
  COMMAND $<TARGET_FILE:napkin-cli> ${serve_70b} --input-tokens 0 --output-tokens 100 --concurrency 1
  EXPECT "--input-tokens = 0: must be at least 1" EXIT_CODE 2)
napkin_check_output(cli.serve.bad.output_tokens
  COMMAND $<TARGET_FILE:napkin-cli> ${serve_70b} --input-tokens 10 --output-tokens -5 --concurrency 1
  EXPECT "--output-tokens = -5: must be at least 1" EXIT_CODE 2)
napkin_check_output(cli.serve.bad.context
  COMMAND $<TARGET_FILE:napkin-cli> serve --model ${CMAKE_CURRENT_SOURCE_DIR}/data/llama31_70b_config.json --gpu h100-sxm
          --tp 8 --input-tokens 130000 --output-tokens 2000 --concurrency 1
  EXPECT "--input-tokens + --output-tokens = 132000: exceeds the model's max_position_embeddings = 131072" EXIT_CODE 2)
napkin_check_output(cli.serve.bad.fp8_on_a100
  COMMAND $<TARGET_FILE:napkin-cli> serve --model llama3.1-70b --gpu a100-80gb-sxm --tp 8 --weight-dtype fp8
          --input-tokens 100 --output-tokens 100 --concurrency 1
  EXPECT "--weight-dtype = \"fp8\": a100-80gb-sxm has no FP8 tensor cores" EXIT_CODE 2)
napkin_check_output(cli.serve.bad.dtype
  COMMAND $<TARGET_FILE:napkin-cli> ${serve_70b} --kv-dtype int2 --input-tokens 100 --output-tokens 100 --concurrency 1
  EXPECT "--kv-dtype = \"int2\": must be bf16, fp8, int8 or int4" EXIT_CODE 2)
# FP4 weights need FP4 tensor cores, NVFP4 NVIDIA's: each refusal names what the GPU's data sheet lacks.
napkin_check_output(cli.serve.bad.nvfp4_on_h100
  COMMAND $<TARGET_FILE:napkin-cli> ${serve_70b} --weight-dtype nvfp4 --input-tokens 100 --output-tokens 100 --concurrency 1
  EXPECT "--weight-dtype = \"nvfp4\": h100-sxm has no FP4 tensor cores (its data sheet gives no FP4 rate); use bf16, fp16, fp8, int8 or int4" EXIT_CODE 2)
napkin_check_output(cli.serve.bad.nvfp4_on_mi355x
  COMMAND $<TARGET_FILE:napkin-cli> serve --model llama3.1-70b --gpu mi355x --weight-dtype nvfp4
          --input-tokens 100 --output-tokens 100 --concurrency 1
  EXPECT "--weight-dtype = \"nvfp4\": mi355x has no NVFP4 (its data sheet gives FP4 as MXFP4); use bf16, fp16, fp8, int8, int4, mxfp4 or mxfp6" EXIT_CODE 2)
# FP6 weights need FP6 tensor cores: Blackwell's and CDNA 4's data sheets give them, Hopper's none; a GPU
# typed inline states its rate with --gpu-fp6-peak.
napkin_check_output(cli.serve.bad.mxfp6_on_h100
  COMMAND $<TARGET_FILE:napkin-cli> ${serve_70b} --weight-dtype mxfp6 --input-tokens 100 --output-tokens 100 --concurrency 1
  EXPECT "--weight-dtype = \"mxfp6\": h100-sxm has no FP6 tensor cores (its data sheet gives no FP6 rate); use bf16, fp16, fp8, int8 or int4" EXIT_CODE 2)
napkin_check_output(cli.serve.mxfp6_on_mi355x
  COMMAND $<TARGET_FILE:napkin-cli> serve --model llama3.1-70b --gpu mi355x --weight-dtype mxfp6
          --input-tokens 100 --output-tokens 100 --concurrency 1
  EXPECT "mxfp6 weights")
napkin_check_output(cli.serve.mxfp6_peak_inline
  COMMAND $<TARGET_FILE:napkin-cli> serve --model llama3.1-8b --gpu h100-sxm --gpu-fp6-peak 1979TFLOP/s
          --weight-dtype mxfp6 --input-tokens 100 --output-tokens 100 --concurrency 1
  EXPECT "mxfp6 weights")
# A KV cache that fits for no N, within the 131,072 positions: 70B on 2 H100 keeps 79,027,398,246
# - 70,553,706,496 (weights) - 1,560,281,088 (working) = 6,913,410,662 B (6.44 GiB) for the cache; one sequence of
# 131,000 tokens (131,008 paged) needs 327,680 / 2 x 131,008 = 21,464,350,720 B (19.99 GiB).
napkin_check_output(cli.serve.bad.no_room
  COMMAND $<TARGET_FILE:napkin-cli> serve --model llama3.1-70b --gpu h100-sxm --tp 2 --input-tokens 130000
          --output-tokens 1000 --concurrency 1
  EXPECT "--input-tokens + --output-tokens = 131000: one sequence's KV cache (19.99 GiB per GPU) does not fit in the 6.44 GiB"
  EXIT_CODE 2)
napkin_check_output(cli.serve.bad.weights_overflow
  COMMAND $<TARGET_FILE:napkin-cli> serve --model llama3.1-405b --gpu h100-sxm --input-tokens 100 --output-tokens 100
          --concurrency 1
  EXPECT "--tp x --pp x --ep (GPUs) = 1: the weights (755.96 GiB per GPU)" EXIT_CODE 2)
napkin_check_output(cli.serve.bad.tp
  COMMAND $<TARGET_FILE:napkin-cli> serve --model llama3.1-70b --gpu h100-sxm --tp 3 --input-tokens 100 --output-tokens 100
          --concurrency 1
  EXPECT "--tp = 3: must divide the model's 64 attention heads" EXIT_CODE 2)
# plan-inference with the serving engine: the layout and concurrency with the most output tokens/s per GPU
# under the bounds (the search is checked against brute force in tests/unit/serving.cpp).
napkin_check_output(cli.plan_inference.serving
  COMMAND $<TARGET_FILE:napkin-cli> plan-inference --model llama3.1-70b --gpu h100-sxm --link nvlink4 --max-gpus 8
          --tpot-ms 50 --ttft-ms 2000 --input-tokens 2048 --output-tokens 512
  EXPECT "fastest: t8 x p1 = 8 GPUs" "serving: t4 x p1 x e1 = 4 GPUs at concurrency 88")
napkin_check_output(cli.plan_inference.serving_json
  COMMAND $<TARGET_FILE:napkin-cli> plan-inference --model llama3.1-70b --gpu h100-sxm --link nvlink4 --max-gpus 8
          --tpot-ms 50 --json
  EXPECT "\"serving\"" "\"tpot_bound_s\": 0.05" "\"ttft_bound_s\": null" "\"output_tokens_per_s_per_gpu\"" "\"fewest\"")
napkin_check_output(cli.plan_inference.bad_tpot
  COMMAND $<TARGET_FILE:napkin-cli> plan-inference --model llama3.1-70b --gpu h100-sxm --link nvlink4 --tpot-ms -1
  EXPECT "--tpot-ms = -1: must be positive" EXIT_CODE 2)
# Disaggregated prefill and decode (the split is checked against every split by hand in tests/unit/serving.cpp):
# 8B, one H100 per instance, TTFT <= 200 ms and TPOT <= 20 ms; the KV transfer of 131,072 B x 2,048 tokens
# = 268,435,456 B over NVLink 4: 6.6 + 0.6 µs + 596.52 µs = 603.72 µs.
napkin_check_output(cli.serve.disaggregated
  COMMAND $<TARGET_FILE:napkin-cli> serve --model llama3.1-8b --gpu h100-sxm --input-tokens 2048 --output-tokens 256
          --concurrency 64 --disaggregate 4 --ttft-ms 200 --tpot-ms 20
  EXPECT "disaggregated over 4 instances: 2 prefill + 2 decode" "KV transfer 603.72 µs")
# No TTFT bound and no offered rate: the prefill pool runs saturated, so the M/D/1 wait has no bound; the line
# says so instead of "TTFT inf s", and --json writes null.
napkin_check_output(cli.serve.disaggregated_unbounded_ttft
  COMMAND $<TARGET_FILE:napkin-cli> serve --model llama3.1-8b --gpu h100-sxm --input-tokens 1000 --output-tokens 100
          --concurrency 8 --disaggregate 4
  EXPECT "unbounded (the prefill pool runs saturated: bound it with --ttft or give" REJECT "inf s")
# A 29.4 ms TTFT bound admits a prefill load of 0.022 (x = 2(29.4 − 29.07)/29.07): the split serves about
# 2.3 requests/s, less than the 5 offered, so the queue grows without end.
napkin_check_output(cli.serve.disaggregated_overloaded
  COMMAND $<TARGET_FILE:napkin-cli> serve --model llama3.1-8b --gpu h100-sxm --input-tokens 1000 --output-tokens 100
          --concurrency 8 --disaggregate 4 --arrival-rate 5 --ttft 29.4ms
  EXPECT "unbounded (--arrival-rate offers more than the split's goodput" REJECT "inf s")
napkin_check_output(cli.serve.disaggregated_unbounded_ttft_json
  COMMAND $<TARGET_FILE:napkin-cli> serve --model llama3.1-8b --gpu h100-sxm --input-tokens 1000 --output-tokens 100
          --concurrency 8 --disaggregate 4 --json
  EXPECT "\"ttft_s\": null")
napkin_check_output(cli.serve.disaggregated_json
  COMMAND $<TARGET_FILE:napkin-cli> serve --model llama3.1-8b --gpu h100-sxm --input-tokens 2048 --output-tokens 256
          --concurrency 64 --disaggregate 4 --tpot-ms 0.5 --json
  EXPECT "\"disaggregated\": null")
napkin_check_output(cli.serve.bad.disaggregate
  COMMAND $<TARGET_FILE:napkin-cli> serve --model llama3.1-8b --gpu h100-sxm --input-tokens 2048 --output-tokens 256
          --concurrency 64 --disaggregate 1
  EXPECT "--disaggregate = 1: must be at least 2" EXIT_CODE 2)
# The M/D/1 queue: arrivals at or above what the server completes are refused by name.
napkin_check_output(cli.serve.bad.arrival_rate
  COMMAND $<TARGET_FILE:napkin-cli> serve --model llama3.1-8b --gpu h100-sxm --input-tokens 2048 --output-tokens 256
          --concurrency 8 --arrival-rate 1000
  EXPECT "--arrival-rate = 1000: must be below the" EXIT_CODE 2)
# At 1 request/s against the 4.6786 requests/s 8 chats complete: ρ = 0.21374, W = ρ/(2(1 − ρ))/μ = 29.05 ms.
napkin_check_output(cli.serve.queue
  COMMAND $<TARGET_FILE:napkin-cli> serve --model llama3.1-8b --gpu h100-sxm --input-tokens 2048 --output-tokens 256
          --concurrency 8 --arrival-rate 1 --json --kernels roofline
  EXPECT "\"queue_s\": 0.02905" "\"requests_per_s\": 4.6785")
napkin_check_output(cli.serve.bad.bounds_without_split
  COMMAND $<TARGET_FILE:napkin-cli> serve --model llama3.1-8b --gpu h100-sxm --input-tokens 2048 --output-tokens 256
          --concurrency 8 --tpot-ms 20
  EXPECT "give --disaggregate N" EXIT_CODE 2)
# DeepSeek-V3 (tests/data/deepseek_v3_config.json) on 8 H200 in FP8, 64 chats of 1,024 + 1,024 tokens. By hand
# (tests/unit/serving.cpp): weights 671,026,404,352 B / 8 = 83,878,300,544; the MLA cache, 61 x (512 + 64) x 2 B
# = 70,272 B per token, whole on every tp GPU: 70,272 x 2,048 x 64 = 9,210,691,584; working memory
# 2,048 x (3 x 18,432 + 4 x 7,168) x 2 B + 1 GiB = 1,417,674,752; total 94,506,666,880 of 141 GB x 0.92 usable;
# (129,720,000,000 - 83,878,300,544 - 1,417,674,752) / (70,272 x 2,048) = 308.7 chats fit. A decode step at mean
# context 1,536 reads 70,272 x 1,536 x 64 B / 4.8 TB/s = 1.43917056 ms of cache; 64 tokens hit
# 256 x (1 - (31/32)^64) = 222.4 of 256 experts per MoE layer: 17,117,633,536 / 8 + (222.4 / 256) x
# 653,908,770,816 / 8 = 73,163,675,726 B, / 4.8 TB/s = 15.24 ms.
set(serve_deepseek serve --model ${CMAKE_CURRENT_SOURCE_DIR}/data/deepseek_v3_config.json --gpu h200-sxm --tp 8
    --weight-dtype fp8 --input-tokens 1024 --output-tokens 1024 --concurrency 64 --kernels roofline)
napkin_check_output(cli.serve.deepseek_v3_json
  COMMAND $<TARGET_FILE:napkin-cli> ${serve_deepseek} --json
  EXPECT "\"weights\": 83878300544" "\"kv_cache\": 9210691584" "\"activations\": 1417674752"
         "\"total\": 94506666880" "\"usable\": 129720000000" "\"fits\": true" "\"max_concurrency\": 308"
         "\"kv_read_s\": 0.00143917056" "\"weights_read_s\": 0.0152424")
napkin_check_output(cli.serve.deepseek_v3
  COMMAND $<TARGET_FILE:napkin-cli> ${serve_deepseek}
  EXPECT "at most 308 fit" "weights 15.24 ms + KV cache 1.44 ms" "(memory-bound)"
         "weights 78.12 GiB + KV cache 8.58 GiB")
# README ("Serving", DeepSeek-V3 on 8 H200) quotes the weights' read at 1 and 256 sequences too: one
# sequence reads its 37,552,282,624 active weights x 1 B / 8 GPUs / 4.8 TB/s = 0.98 ms; 256 nearly all experts.
napkin_check_output(cli.serve.deepseek_v3_one
  COMMAND $<TARGET_FILE:napkin-cli> serve --model ${CMAKE_CURRENT_SOURCE_DIR}/data/deepseek_v3_config.json
          --gpu h200-sxm --tp 8 --weight-dtype fp8 --input-tokens 1024 --output-tokens 1024 --concurrency 1
          --kernels roofline
  EXPECT "weights 977.92 µs")
napkin_check_output(cli.serve.deepseek_v3_256
  COMMAND $<TARGET_FILE:napkin-cli> serve --model ${CMAKE_CURRENT_SOURCE_DIR}/data/deepseek_v3_config.json
          --gpu h200-sxm --tp 8 --weight-dtype fp8 --input-tokens 1024 --output-tokens 1024 --concurrency 256
          --kernels roofline
  EXPECT "weights 17.47 ms")
# A catalog name knows its context too: Llama 3.1's config.json has max_position_embeddings = 131072.
napkin_check_output(cli.serve.bad.context_catalog
  COMMAND $<TARGET_FILE:napkin-cli> ${serve_70b} --input-tokens 130000 --output-tokens 2000 --concurrency 1
  EXPECT "--input-tokens + --output-tokens = 132000: exceeds the model's max_position_embeddings = 131072" EXIT_CODE 2)
# The default prices the same passes through the kernel layer's measured rates and adds the fitted engine
# overheads (tests/unit/serving_validation.cpp): Mixtral's one-sequence step reads its weights at the
# bandwidth vLLM's decode-shaped BF16 GEMMs reach on an H100, 3.84 ms x 3,350 / 2,898 = 4.44 ms (its GEMMs'
# math is shorter), and pays 32 layers x 66.49 us = 2.13 ms of engine time; a profile file saying "roofline" is --kernels roofline.
set(serve_mixtral serve --model ${CMAKE_CURRENT_SOURCE_DIR}/data/mixtral_8x7b_config.json --gpu h100-sxm
    --tp 2 --input-tokens 512 --output-tokens 512 --concurrency 1)
napkin_check_output(cli.serve.measured_default
  COMMAND $<TARGET_FILE:napkin-cli> ${serve_mixtral}
  EXPECT "GEMMs 4.44 ms (reading the weights;" "engine 2.13 ms")
# --decode-attention per-query-head: a decode kernel without GQA support (TensorRT-LLM 0.9's masked multi-head
# attention) reads Mistral's 8 KV heads once for each of their 32 query heads, 4 times the grouped kernel's
# 2.94 ms of cache: 11.78 ms (tests/unit/serving.cpp derives the factor).
set(serve_mistral serve --model mistral-7b --gpu h100-sxm --input-tokens 128 --output-tokens 2048 --batch 120
    --weight-dtype fp8 --kv-dtype fp8)
napkin_check_output(cli.serve.decode_attention_per_query_head
  COMMAND $<TARGET_FILE:napkin-cli> ${serve_mistral} --decode-attention per-query-head
  EXPECT "fp8 KV cache, read per query head" "attention 11.78 ms (reading the KV cache;")
napkin_check_output(cli.serve.decode_attention_grouped
  COMMAND $<TARGET_FILE:napkin-cli> ${serve_mistral}
  EXPECT "attention 2.94 ms (reading the KV cache;" REJECT "read per query head")
napkin_check_output(cli.serve.bad.decode_attention
  COMMAND $<TARGET_FILE:napkin-cli> ${serve_mistral} --decode-attention xqa
  EXPECT "napkin: error: --decode-attention = \"xqa\": must be grouped or per-query-head" EXIT_CODE 2)
napkin_check_output(cli.serve.profile_roofline
  COMMAND $<TARGET_FILE:napkin-cli> ${serve_mixtral} --profile ${CMAKE_CURRENT_SOURCE_DIR}/data/serving-profile-roofline.json
  EXPECT "weights 3.84 ms" "engine 0 s")
napkin_check_output(cli.serve.bad.profile_field
  COMMAND $<TARGET_FILE:napkin-cli> ${serve_mixtral} --profile ${CMAKE_CURRENT_SOURCE_DIR}/data/serving-profile-bad.json
  EXPECT "unknown field \"launch_us\" (kernels, pass_overhead_us, layer_overhead_us, gemm_share)" EXIT_CODE 2)
napkin_check_output(cli.serve.bad.kernels
  COMMAND $<TARGET_FILE:napkin-cli> ${serve_mixtral} --kernels fast
  EXPECT "napkin: error: --kernels = \"fast\": must be measured or roofline" EXIT_CODE 2)
napkin_check_output(cli.serve.bad.kernels_and_profile
  COMMAND $<TARGET_FILE:napkin-cli> ${serve_mixtral} --kernels roofline
          --profile ${CMAKE_CURRENT_SOURCE_DIR}/data/serving-profile-roofline.json
  EXPECT "napkin: error: --kernels = \"roofline\": give --kernels or --profile, not both" EXIT_CODE 2)
# calibrate-serving on napkin's own fitting set finds the defaults (66.49 us a layer, GEMMs at 0.8215 of the
# best GEMM), over its 192 fixed-batch measurements, and the decode attention kernel TensorRT-LLM 0.9's XQA
# builds leave unstated: XQA's (grouped) for Llama-2-70B, the per-query-head kernel for Falcon-180B.
napkin_check_output(cli.calibrate_serving
  COMMAND $<TARGET_FILE:napkin-cli> calibrate-serving ${CMAKE_CURRENT_SOURCE_DIR}/data/measured-serving-runs.json
          --cross-validate
  EXPECT "layer overhead 66.49 us a layer and pass" "GEMM share 0.8215" "over 192 measurements (438 not compared)"
         "decode attention of Llama-2-70B (NVIDIA TensorRT-LLM performance doc (v0.9.0 data)), searched: grouped"
         "decode attention of Falcon-180B (NVIDIA TensorRT-LLM performance doc (v0.9.0 data)), searched: per query head"
         "left out (each source): mean |error| 15.7 %")
napkin_check_output(cli.calibrate_serving.bad_file
  COMMAND $<TARGET_FILE:napkin-cli> calibrate-serving ${CMAKE_CURRENT_SOURCE_DIR}/data/serving-profile-bad.json
  EXPECT "napkin: error: RUNS = \"${CMAKE_CURRENT_SOURCE_DIR}/data/serving-profile-bad.json\": must be an object with a \"runs\" array"
  EXIT_CODE 2)
# The request-level simulator: --arrival-rate alone. 64 requests of 500 + 200 tokens at once in one static
# batch of 64: one prefill step and 199 decode steps (tests/unit/serving_simulator.cpp replays evaluate_serving).
set(serve_8b serve --model llama3.1-8b --gpu h100-sxm --input-tokens 500 --output-tokens 200)
napkin_check_output(cli.serve.simulate_static_batch
  COMMAND $<TARGET_FILE:napkin-cli> ${serve_8b} --arrival-rate inf --requests 64 --scheduler static --max-num-seqs 64
          --json
  EXPECT "\"scheduler\": \"static\"" "\"steps\": 200" "\"preemptions\": 0" "\"ttft_s\"" "\"p99\"" "\"itl_s\""
         "\"goodput_requests_per_s\"" "\"schema\": \"napkin.serve/1\"")
napkin_check_output(cli.serve.simulate
  COMMAND $<TARGET_FILE:napkin-cli> ${serve_8b} --arrival-rate 8 --requests 200 --slo-ttft 2s --slo-tpot 50ms
          --output-distribution uniform:100:300 --csv requests.csv
  EXPECT "simulated: 200 requests of 500 + 200 tokens (fixed, uniform:100:300)" "Poisson at 8.000 requests/s, seed 1"
         "continuous batching" "TTFT" "p99" "end to end" "200 of 200 requests" "requests written to requests.csv")
foreach(bad IN ITEMS "scheduler|--arrival-rate 4 --scheduler fifo|--scheduler = \"fifo\": must be continuous, prefill-first, inflight or static"
                     "distribution|--arrival-rate 4 --input-distribution uniform:5|--input-distribution = \"uniform:5\": must be fixed, uniform:LO:HI"
                     "rate_negative|--arrival-rate -1|--arrival-rate = -1: must not be negative"
                     "rate_inf_closed_form|--arrival-rate inf --concurrency 4|--arrival-rate = inf: must be finite with --batch or --concurrency"
                     "none|--prefill-chunk 0|give one of --batch (static batching) or --concurrency (continuous), or --arrival-rate or --clients alone"
                     "requests|--arrival-rate 4 --requests 0|--requests = 0: must be from 1 to 2^24"
                     "too_many_tokens|--arrival-rate 4 --requests 16000000|--requests = 16000000: times the mean output tokens must be at most 2^28"
                     "slo|--arrival-rate 4 --slo-ttft 2|--slo-ttft = \"2\": not a time"
                     "csv_full|--arrival-rate 4 --requests 10 --csv /dev/full|--csv = \"/dev/full\": cannot be written"
                     "draft_alone|--arrival-rate 4 --draft-model llama3.2-1b|--draft-model = \"llama3.2-1b\": needs --draft-tokens k"
                     "acceptance|--arrival-rate 4 --draft-tokens 2 --acceptance 1.5|--acceptance = 1.5: must be in [0, 1]"
                     "front_end_unit|--arrival-rate 4 --front-end-latency 3|--front-end-latency = \"3\": not a time"
                     "front_end_long|--arrival-rate 4 --front-end-latency 2h|--front-end-latency = \"2h\": must be from 0 to 1 h"
                     "front_end_closed|--concurrency 4 --front-end-latency 3ms|--front-end-latency = \"3ms\": applies to the simulator only"
                     "clients_and_rate|--clients 8 --arrival-rate 4|--clients = \"8\": send each request as an answer ends: give no --arrival-rate"
                     "clients_zero|--clients 0|--clients = 0: must be from 1 to 2^24"
                     "clients_closed|--concurrency 4 --clients 8|--clients = \"8\": applies to the simulator only"
                     "prefill_chunk|--arrival-rate 4 --prefill-chunk 512|--prefill-chunk = \"512\": is the closed forms' chunk"
                     "ttft_alone|--arrival-rate 4 --ttft 2s|--ttft bounds the disaggregated split: give --disaggregate N"
                     "decode_gpu_alone|--arrival-rate 4 --decode-gpu h200-sxm|--decode-gpu = \"h200-sxm\": chooses a pool's GPU: give --disaggregate N"
                     "no_split|--arrival-rate 4 --disaggregate 4 --ttft 1ms|--disaggregate = \"4\": no split of the instances into prefill and decode pools meets"
                     "flag_with_closed_form|--concurrency 8 --scheduler inflight|--scheduler = \"inflight\": applies to the simulator only")
  string(REPLACE "|" ";" parts "${bad}")
  list(GET parts 0 name)
  list(GET parts 1 flags)
  list(GET parts 2 message)
  separate_arguments(flags)
  napkin_check_output(cli.serve.simulate.bad.${name}
    COMMAND $<TARGET_FILE:napkin-cli> ${serve_8b} ${flags}
    EXPECT "${message}" EXIT_CODE 2)
endforeach()
# Speculative decoding: 4 drafts at acceptance 0.8 give (1 - 0.8^5) / 0.2 = 3.362 tokens a step.
napkin_check_output(cli.serve.simulate_speculative
  COMMAND $<TARGET_FILE:napkin-cli> ${serve_8b} --arrival-rate 4 --requests 50 --draft-tokens 4 --acceptance 0.8
          --draft-model llama3.2-1b
  EXPECT "3.362 tokens a step expected" "drafts by llama3.2-1b")
# A trace replayed: its three requests, whatever --requests says; its lengths, so --input-tokens is not needed.
napkin_check_output(cli.serve.simulate_trace
  COMMAND $<TARGET_FILE:napkin-cli> serve --model llama3.1-8b --gpu h100-sxm
          --trace ${CMAKE_CURRENT_SOURCE_DIR}/data/serving_trace.csv --json
  EXPECT "\"requests\": 3" "\"arrival_rate\": null" "serving_trace.csv")
napkin_check_output(cli.serve.simulate.bad.trace_disaggregate_lengths
  COMMAND $<TARGET_FILE:napkin-cli> serve --model llama3.1-8b --gpu h100-sxm
          --trace ${CMAKE_CURRENT_SOURCE_DIR}/data/serving_trace.csv --disaggregate 3
  EXPECT "--disaggregate = \"3\": chooses its split for one length: give --input-tokens and --output-tokens" EXIT_CODE 2)
napkin_check_output(cli.serve.simulate.bad.trace_and_rate
  COMMAND $<TARGET_FILE:napkin-cli> serve --model llama3.1-8b --gpu h100-sxm
          --trace ${CMAKE_CURRENT_SOURCE_DIR}/data/serving_trace.csv --arrival-rate 3
  EXPECT "replays its own arrivals: give no --arrival-rate, --batch or --concurrency" EXIT_CODE 2)
napkin_check_output(cli.serve.bad.no_input_tokens
  COMMAND $<TARGET_FILE:napkin-cli> serve --model llama3.1-8b --gpu h100-sxm --output-tokens 4 --concurrency 1
  EXPECT "serve: --input-tokens is required" EXIT_CODE 2)
napkin_check_output(cli.serve.simulate_svg_timeline
  COMMAND $<TARGET_FILE:napkin-cli> ${serve_8b} --arrival-rate 8 --requests 40 --svg load.svg --timeline steps.csv
  EXPECT "load over time written to load.svg" "engine steps written to steps.csv")
# plan-inference's two models say which is which, and the serving engine answers even where the lesson
# model's one 16-bit chat does not fit: 70.55 B weights are 141 GB in BF16, over one H100's 73.6 GiB usable,
# but 70.6 GB in FP8, which --weight-dtype gives the serving engine only.
napkin_check_output(cli.plan_inference.two_models_labelled
  COMMAND $<TARGET_FILE:napkin-cli> plan-inference --model llama3.1-70b --gpu h100-sxm --link nvlink4 --max-gpus 1
          --max-tokens 16 --tpot 50ms --weight-dtype fp8
  EXPECT "lesson model (as split/fewest/best: one chat, 16-bit, data-sheet peaks):"
         "does not fit on any split of up to 1 GPUs"
         "serving engine (as serve: --weight-dtype, --kv-dtype, --input/--output-tokens):"
         "serving: t1 x p1 x e1 = 1 GPUs")
# The latency targets go through one helper (add_latency_targets): an error names the flag as typed,
# --tpot with its unit or the older --tpot-ms, in plan-inference as in serve.
napkin_check_output(cli.plan_inference.error.tpot_zero_with_unit
  COMMAND $<TARGET_FILE:napkin-cli> plan-inference --model llama3.1-70b --gpu h100-sxm --link nvlink4 --tpot 0ms
  EXPECT "napkin: error: --tpot = \"0ms\": must be positive" EXIT_CODE 2)
napkin_check_output(cli.serve.error.ttft_zero_with_unit
  COMMAND $<TARGET_FILE:napkin-cli> serve --model llama3.1-8b --gpu h100-sxm --concurrency 8 --disaggregate 2
          --ttft 0s
  EXPECT "napkin: error: --ttft = \"0s\": must be positive" EXIT_CODE 2)
napkin_check_output(cli.serve.error.targets_without_disaggregate
  COMMAND $<TARGET_FILE:napkin-cli> serve --model llama3.1-8b --gpu h100-sxm --input-tokens 2048 --output-tokens 256
          --concurrency 8 --tpot 50ms
  EXPECT "napkin: error: --tpot bounds the disaggregated split: give --disaggregate N" EXIT_CODE 2)
# --expert-skew: the experts' popularity as a power law (tests/unit/serving.cpp derives its counts); a
# dense model has no experts to skew, and the exponent is kept in [0, 10].
napkin_check_output(cli.serve.expert_skew
  COMMAND $<TARGET_FILE:napkin-cli> serve --model mixtral-8x7b --gpu h100-sxm --ep 2 --input-tokens 512
          --output-tokens 512 --concurrency 64 --expert-skew 1 --json
  EXPECT "\"ttft_s\"" "\"tpot_s\"")
napkin_check_output(cli.serve.error.expert_skew_dense
  COMMAND $<TARGET_FILE:napkin-cli> serve --model llama3.1-8b --gpu h100-sxm --input-tokens 512 --output-tokens 512
          --concurrency 8 --expert-skew 1
  EXPECT "napkin: error: --expert-skew = 1: needs a mixture-of-experts model" EXIT_CODE 2)
napkin_check_output(cli.serve.error.expert_skew_range
  COMMAND $<TARGET_FILE:napkin-cli> serve --model mixtral-8x7b --gpu h100-sxm --input-tokens 512 --output-tokens 512
          --concurrency 8 --expert-skew -1
  EXPECT "napkin: error: --expert-skew = -1: must be in [0, 10]" EXIT_CODE 2)
# Across nodes (tests/unit/serving.cpp derives the hops): TP inside a node of --gpus-per-node GPUs, the
# stage hand-offs between nodes on --inter-link; --link keeps every GPU on one link, so both are refused.
napkin_check_output(cli.serve.across_nodes
  COMMAND $<TARGET_FILE:napkin-cli> serve --model llama3.1-70b --gpu h100-sxm --tp 8 --pp 2 --input-tokens 1000
          --output-tokens 200 --concurrency 32 --json
  EXPECT "\"gpus_per_node\": 8" "\"inter_link\": \"ib-ndr\"" "\"link\": \"nvlink4\"")
napkin_check_output(cli.serve.across_nodes_text
  COMMAND $<TARGET_FILE:napkin-cli> serve --model llama3.1-70b --gpu h100-sxm --tp 8 --pp 2 --input-tokens 1000
          --output-tokens 200 --concurrency 32
  EXPECT "over nvlink4 inside a node," "ib-ndr between (8 GPUs a node)")
napkin_check_output(cli.serve.error.link_and_node_links
  COMMAND $<TARGET_FILE:napkin-cli> serve --model llama3.1-70b --gpu h100-sxm --tp 8 --pp 2 --input-tokens 1000
          --output-tokens 200 --concurrency 32 --link nvlink4 --inter-link ib-ndr
  EXPECT "napkin: error: --inter-link = \"ib-ndr\": give --link (one link for every GPU) or the node's links, not both"
  EXIT_CODE 2)
# GB200's node is its NVL72 rack: tp 8 × pp 4 = 32 GPUs stay on NVLink 5 (8-GPU nodes would cross IB).
napkin_check_output(cli.serve.nvl72_domain
  COMMAND $<TARGET_FILE:napkin-cli> serve --model llama3.1-70b --gpu gb200 --tp 8 --pp 4 --input-tokens 1000
          --output-tokens 200 --concurrency 32 --json
  EXPECT "\"gpus_per_node\": 72" "\"link\": \"nvlink5\"")
napkin_check_output(cli.serve.error.gpus_per_node_zero
  COMMAND $<TARGET_FILE:napkin-cli> serve --model llama3.1-70b --gpu h100-sxm --tp 8 --input-tokens 1000
          --output-tokens 200 --concurrency 32 --gpus-per-node 0
  EXPECT "napkin: error: --gpus-per-node = 0: must be at least 1" EXIT_CODE 2)
# --sweep alone is continuous batching, its first concurrency printed in full (as --concurrency 1 --sweep …).
napkin_check_output(cli.serve.sweep_alone
  COMMAND $<TARGET_FILE:napkin-cli> serve --model llama3.1-70b --gpu h100-sxm --tp 8 --input-tokens 4096
          --output-tokens 4096 --sweep 1,8,64,178
  EXPECT "continuous batching: 1 requests of 4096 + 4096 tokens" "     178 yes" "4742.3")
napkin_check_output(cli.serve.error.sweep_with_simulator
  COMMAND $<TARGET_FILE:napkin-cli> serve --model llama3.1-70b --gpu h100-sxm --tp 8 --input-tokens 4096
          --output-tokens 4096 --sweep 1,8 --arrival-rate 0.5
  EXPECT "napkin: error: --sweep = \"1,8\": is the closed forms' frontier: give no --arrival-rate or --trace with it"
  EXIT_CODE 2)
# Pipelined stages (tests/unit/serving.cpp derives the step): 32 sequences over pp 4 run as
# 4 micro-batches of 8 by default; 1 is the stages in turn; more than --pp is refused.
napkin_check_output(cli.serve.pipelined
  COMMAND $<TARGET_FILE:napkin-cli> serve --model llama3.1-70b --gpu h100-sxm --tp 2 --pp 4 --input-tokens 1000
          --output-tokens 200 --concurrency 32
  EXPECT "pipeline: 4 stages, 4 micro-batches of 8 sequences, one in each stage at once")
napkin_check_output(cli.serve.pipelined_in_turn
  COMMAND $<TARGET_FILE:napkin-cli> serve --model llama3.1-70b --gpu h100-sxm --tp 2 --pp 4 --input-tokens 1000
          --output-tokens 200 --concurrency 32 --pipeline-micro-batches 1 --json
  EXPECT "\"micro_batches\": 1")
napkin_check_output(cli.serve.error.micro_batches_beyond_stages
  COMMAND $<TARGET_FILE:napkin-cli> serve --model llama3.1-70b --gpu h100-sxm --tp 2 --pp 4 --input-tokens 1000
          --output-tokens 200 --concurrency 32 --pipeline-micro-batches 5
  EXPECT "napkin: error: --pipeline-micro-batches = \"5\": must be at most --pp = 4 (a stage works on one micro-batch at a time)"
  EXIT_CODE 2)
napkin_check_output(cli.serve.error.micro_batches_word
  COMMAND $<TARGET_FILE:napkin-cli> serve --model llama3.1-70b --gpu h100-sxm --tp 2 --pp 4 --input-tokens 1000
          --output-tokens 200 --concurrency 32 --pipeline-micro-batches all
  EXPECT "napkin: error: --pipeline-micro-batches = \"all\": not a whole number" EXIT_CODE 2)
napkin_check_output(cli.plan_inference.error.micro_batches_without_engine
  COMMAND $<TARGET_FILE:napkin-cli> plan-inference --model llama3.1-70b --gpu h100-sxm --pipeline-micro-batches 1
  EXPECT "napkin: error: --pipeline-micro-batches = \"1\": sets the serving engine" EXIT_CODE 2)
# plan-inference's serving engine searches on the same nodes (its lesson model keeps one link).
napkin_check_output(cli.plan_inference.across_nodes
  COMMAND $<TARGET_FILE:napkin-cli> plan-inference --model llama3.1-70b --gpu h100-sxm --max-gpus 16 --tpot 50ms
          --gpus-per-node 4 --json
  EXPECT "\"gpus_per_node\": 4" "\"inter_link\": \"ib-ndr\"")
# Disaggregated pools on two kinds of GPU (tests/unit/serving.cpp derives the prices); the pool flags
# need --disaggregate.
napkin_check_output(cli.serve.disaggregate_two_gpus
  COMMAND $<TARGET_FILE:napkin-cli> serve --model llama3.1-70b --gpu h100-sxm --tp 8 --input-tokens 2048
          --output-tokens 256 --concurrency 32 --disaggregate 4 --ttft 2s --tpot 50ms --decode-gpu h200-sxm
  EXPECT "3 prefill (h100-sxm) + 1 decode (h200-sxm)")
# A closed loop waits for each answer from the decode pool; each instance is simulated alone, so it is refused.
napkin_check_output(cli.serve.error.clients_with_disaggregate
  COMMAND $<TARGET_FILE:napkin-cli> serve --model llama3.1-8b --gpu h100-sxm --input-tokens 100 --output-tokens 10
          --requests 20 --clients 4 --disaggregate 3
  EXPECT "napkin: error: --clients = \"4\": runs one engine: give --arrival-rate with --disaggregate" EXIT_CODE 2)
napkin_check_output(cli.serve.error.decode_gpu_without_disaggregate
  COMMAND $<TARGET_FILE:napkin-cli> serve --model llama3.1-70b --gpu h100-sxm --tp 8 --input-tokens 2048
          --output-tokens 256 --concurrency 32 --decode-gpu h200-sxm
  EXPECT "napkin: error: --decode-gpu = \"h200-sxm\": chooses a pool's GPU: give --disaggregate N" EXIT_CODE 2)
napkin_check_output(cli.serve.error.prefill_gpu_no_fp8
  COMMAND $<TARGET_FILE:napkin-cli> serve --model llama3.1-70b --gpu h100-sxm --tp 8 --input-tokens 2048
          --output-tokens 256 --concurrency 32 --disaggregate 4 --weight-dtype fp8 --prefill-gpu a100-80gb-sxm
  EXPECT "napkin: error: --prefill-gpu = \"a100-80gb-sxm\": has no FP8 tensor cores" EXIT_CODE 2)
# KV offload to host memory (tests/unit/serving.cpp derives the step): 400 sequences of 9,216 tokens
# do not fit 70B's 8 H100 alone, and fit with 512 GiB of host memory per GPU, the rest over PCIe 5.
napkin_check_output(cli.serve.kv_offload
  COMMAND $<TARGET_FILE:napkin-cli> serve --model llama3.1-70b --gpu h100-sxm --tp 8 --input-tokens 8192
          --output-tokens 1024 --concurrency 400 --kv-offload 512GiB
  EXPECT "73.60 GiB of 73.60 GiB usable: fits" "KV offload: 84.91 GiB of the cache in host memory" "decode step: 1.36 s"
         "offloaded KV 1.31 s over")
napkin_check_output(cli.serve.error.kv_offload_bandwidth_alone
  COMMAND $<TARGET_FILE:napkin-cli> serve --model llama3.1-70b --gpu h100-sxm --tp 8 --input-tokens 8192
          --output-tokens 1024 --concurrency 40 --kv-offload-bandwidth 10GB/s
  EXPECT "napkin: error: --kv-offload-bandwidth = \"10GB/s\": sets the link of --kv-offload: give it too"
  EXIT_CODE 2)
napkin_check_output(cli.serve.error.kv_offload_huge
  COMMAND $<TARGET_FILE:napkin-cli> serve --model llama3.1-70b --gpu h100-sxm --tp 8 --input-tokens 8192
          --output-tokens 1024 --concurrency 40 --kv-offload 1e30B
  EXPECT "napkin: error: --kv-offload = \"1e30B\": must be positive and at most 1PiB per GPU" EXIT_CODE 2)
# plan-inference's serving engine takes --expert-skew as serve does; its flags alone are refused, the
# lesson's model having no use for them.
napkin_check_output(cli.plan_inference.expert_skew
  COMMAND $<TARGET_FILE:napkin-cli> plan-inference --model mixtral-8x7b --gpu h100-sxm --max-gpus 8 --tpot 50ms
          --expert-skew 1
  EXPECT "serving: t4 x p1 x e1 = 4 GPUs")
napkin_check_output(cli.plan_inference.error.engine_flag_alone
  COMMAND $<TARGET_FILE:napkin-cli> plan-inference --model mixtral-8x7b --gpu h100-sxm --max-gpus 8 --expert-skew 1
  EXPECT "napkin: error: --expert-skew = \"1\": sets the serving engine: give --tpot, --ttft, --arrival-rate or --objective cost too"
  EXIT_CODE 2)
# --decode-attention per-query-head reads Mistral's cache 4 times a step (32 query heads over 8 KV heads):
# within 50 ms a token, fewer sequences pay (142 against 256 with a GQA-aware kernel).
napkin_check_output(cli.plan_inference.decode_attention
  COMMAND $<TARGET_FILE:napkin-cli> plan-inference --model mistral-7b --gpu h100-sxm --max-gpus 8 --tpot 50ms
          --decode-attention per-query-head
  EXPECT "serving: t1 x p1 x e1 = 1 GPUs at concurrency 142")
napkin_check_output(cli.plan_inference.decode_attention_grouped
  COMMAND $<TARGET_FILE:napkin-cli> plan-inference --model mistral-7b --gpu h100-sxm --max-gpus 8 --tpot 50ms
  EXPECT "serving: t1 x p1 x e1 = 1 GPUs at concurrency 256")
napkin_check_output(cli.plan_inference.expert_skew_layouts
  COMMAND $<TARGET_FILE:napkin-cli> plan-inference --model mixtral-8x7b --gpu h100-sxm --max-gpus 8 --tpot 50ms
  EXPECT "serving: t1 x p1 x e8 = 8 GPUs")
# README ("Request level: the serving simulator") names the in-flight validation's largest errors: TensorRT-LLM
# 0.14's 202 + 214 tokens at an infinite rate, 500 requests, printed 8,291 output tokens/s on H100 and 9,189 on
# H200; the simulator, in-flight batching at the searched limit of 512 (the fitted front end adds 4 ms to a run
# of 7 s, 0.05 %), gives 14,865.3 (+79.3 %, the table's max) and 15,782.7 (+71.8 %).
foreach(gpu_share IN ITEMS "h100-sxm|served: 69.464 requests/s, 14865.3 output tokens/s"
                           "h200-sxm|served: 73.751 requests/s, 15782.7 output tokens/s")
  string(REPLACE "|" ";" parts "${gpu_share}")
  list(GET parts 0 gpu)
  list(GET parts 1 line)
  napkin_check_output(cli.serve.simulate.trt014_202_214_inf_${gpu}
    COMMAND $<TARGET_FILE:napkin-cli> serve --model llama3.1-8b --gpu ${gpu} --input-tokens 202 --output-tokens 214
            --arrival-rate inf --requests 500 --max-num-seqs 512 --scheduler inflight
    EXPECT "${line}")
endforeach()
# A front end of 3.2 ms: said, and in the JSON.
napkin_check_output(cli.serve.simulate_front_end
  COMMAND $<TARGET_FILE:napkin-cli> ${serve_8b} --arrival-rate 4 --requests 20 --front-end-latency 3.2ms
  EXPECT "front end: 3.20 ms a request, in its TTFT and end to end")
# A closed loop: 8 clients, each sending its next request as its last answer ends (a benchmark's concurrency).
napkin_check_output(cli.serve.simulate_clients
  COMMAND $<TARGET_FILE:napkin-cli> ${serve_8b} --clients 8 --requests 40 --json
  EXPECT "\"clients\": 8" "\"arrival_rate\": null" "\"requests\": 40")
# --disaggregate with the simulator: the split best_disaggregation chooses for 3 instances (2 prefill on the
# H100, 1 decode on the H200; tests/unit/serving_simulator.cpp checks the pools by hand), simulated.
napkin_check_output(cli.serve.simulate_disaggregated
  COMMAND $<TARGET_FILE:napkin-cli> ${serve_8b} --arrival-rate 4 --requests 50 --disaggregate 3 --decode-gpu h200-sxm
          --json
  EXPECT "\"prefill_instances\": 2" "\"decode_instances\": 1" "\"decode_gpu\": \"h200-sxm\"" "\"requests\": 50")
