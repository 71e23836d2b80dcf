# The catalog's Gemma 2/3, DeepSeek-V3 and Qwen3 MoE entries through napkin show
# and list (their weights derived by hand in tests/unit/catalog_models.cpp), and
# the unit spellings beside the schedule's per-layer, serve's and the GPU's
# bare-number flags. napkin_same_output comes from napkin_surface.cmake.

# Gemma 2 9B: 42 × 198,195,200 + 256,000 × 3,584 + 3,584 = 9,241,705,984; head_dim 256 (not 3,584 / 16);
# four norms a layer; local layers of 4,096 alternating with global ones: 21 each.
napkin_check_output(cli.show.gemma2_9b
  COMMAND $<TARGET_FILE:napkin-cli> show gemma2-9b
  EXPECT "model gemma2-9b: 9,241,705,984 weights" "16 heads (8 KV) of 256" "4 norms a layer"
         "sliding window of 4,096 tokens on 21 of 42 layers, 21 global" "source: config.json of google/gemma-2-9b")
# Gemma 3 4B: 3,880,263,168 text + 419,816,304 in the SigLIP tower and its projection = 4,300,079,472;
# 34 layers, every 6th global: 5 global, 29 local of 1,024.
napkin_check_output(cli.show.gemma3_4b
  COMMAND $<TARGET_FILE:napkin-cli> show gemma3-4b
  EXPECT "model gemma3-4b: 4,300,079,472 weights" "sliding window of 1,024 tokens on 29 of 34 layers, 5 global"
         "vision tower: 419,816,304 of the weights (its compute is not modelled)")
napkin_check_output(cli.show.gemma3_27b_json
  COMMAND $<TARGET_FILE:napkin-cli> show gemma3-27b --json
  EXPECT "\"parameters\": 27432406640" "\"sliding_window\": 1024" "\"global_every\": 6"
         "\"vision_parameters\": 423060336" "\"norms_per_layer\": 4")
# The mixtures' totals and active weights (tests/unit/hf_config.cpp, catalog_models.cpp).
napkin_check_output(cli.show.deepseek_v3
  COMMAND $<TARGET_FILE:napkin-cli> show deepseek-v3
  EXPECT "model deepseek-v3: 671,026,404,352 weights (37,552,282,624 active)"
         "128 heads of 128 + 64 (Q·K), 128 (V)" "latent 512, vocabulary 129,280"
         "source: config.json of deepseek-ai/DeepSeek-V3")
napkin_check_output(cli.show.qwen3_30b_a3b
  COMMAND $<TARGET_FILE:napkin-cli> show qwen3-30b-a3b
  EXPECT "model qwen3-30b-a3b: 30,532,122,624 weights (3,353,032,704 active)")
napkin_check_output(cli.show.qwen3_235b_a22b
  COMMAND $<TARGET_FILE:napkin-cli> show qwen3-235b-a22b
  EXPECT "model qwen3-235b-a22b: 235,093,634,560 weights (22,190,763,520 active)")
napkin_check_output(cli.list.new_models
  COMMAND $<TARGET_FILE:napkin-cli> list
  EXPECT "  gemma2-9b                 9.24B weights,  42 layers" "  gemma3-27b               27.43B weights,  62 layers"
         "  deepseek-v3             671.03B weights,  61 layers, 256 experts"
         "  qwen3-235b-a22b         235.09B weights,  94 layers, 128 experts"
         "  qwen3-coder-480b-a35b   480.15B weights,  62 layers, 160 experts"
         "  llama4-maverick         401.53B weights,  48 layers, 128 experts"
         # README ("MoE shapes and configs", "Gemma 2 and 3") rounds these: 1,026.4 B, 352.8 B, 122.6 B,
         # 116.8 B, 108.6 B; the hub's 2.61 B, 27.2 B, 1,000 M, 4.3 B, 12.2 B.
         "  kimi-k2                1026.41B weights" "  glm-4.5                 352.80B weights"
         "  mistral-large-2         122.61B weights" "  gpt-oss-120b            116.79B weights"
         "  llama4-scout            108.59B weights" "  gemma2-2b                 2.61B weights"
         "  gemma2-27b               27.23B weights" "  gemma3-1b                 1.00B weights"
         "  gemma3-4b                 4.30B weights" "  gemma3-12b               12.19B weights")
# The active weights README ("MoE shapes and configs") quotes: Kimi K2 32.9 B, GLM-4.5 32.1 B outside its two
# tables of 151,552 x 5,120 (33,632,251,904 - 1,551,892,480 = 32,080,359,424), Qwen3-Coder 35.5 B, Llama 4
# Maverick and Scout 17.2 B.
foreach(active IN ITEMS "kimi-k2|1,026,408,209,408 weights (32,861,477,888 active)"
                        "glm-4.5|352,797,814,784 weights (33,632,251,904 active)"
                        "qwen3-coder-480b-a35b|480,154,875,392 weights (35,474,765,312 active)"
                        "llama4-maverick|401,530,170,112 weights (17,184,691,200 active)"
                        "llama4-scout|108,588,182,272 weights (17,172,894,720 active)")
  string(REPLACE "|" ";" parts "${active}")
  list(GET parts 0 model)
  list(GET parts 1 line)
  napkin_check_output(cli.show.active_${model}
    COMMAND $<TARGET_FILE:napkin-cli> show ${model}
    EXPECT "model ${model}: ${line}")
endforeach()

# The schedule's per-layer times with their units: cli.schedule.layer_map's layer map, the same JSON
# (times whole in ms and 4 s, so that 4000ms and 4s are the same double).
napkin_same_output(cli.schedule.layer_times_same_json
  COMMAND $<TARGET_FILE:napkin-cli> schedule --schedule interleaved --stages 4 --microbatches 8 --chunks 2
          --layers 45 --layer-map 1-6,25-29/7-12,30-35/13-18,36-41/19-24,42-45 --layer-forward 5ms
          --layer-backward 9ms --head-forward 8ms --head-backward 4s --send 2ms --json
  VERSUS $<TARGET_FILE:napkin-cli> schedule --schedule interleaved --stages 4 --microbatches 8 --chunks 2
         --layers 45 --layer-map 1-6,25-29/7-12,30-35/13-18,36-41/19-24,42-45 --layer-forward-ms 5
         --layer-backward-ms 9 --head-forward-ms 8 --head-backward-ms 4000 --send-ms 2 --json)
# 1F1B, p = 2, m = 1, 2 layers a stage at 1 ms forward and 2 ms backward: the forward 2 + 2 ms, the backward
# 4 + 4 ms, no sends: 12 ms, given as 1000us and 0.002s.
napkin_check_output(cli.schedule.layer_times_units
  COMMAND $<TARGET_FILE:napkin-cli> schedule --schedule 1f1b --stages 2 --microbatches 1 --layers 4
          --layer-forward 1000us --layer-backward 0.002s --json
  EXPECT "\"step_s\": 0.012")
napkin_check_output(cli.schedule.layer_time_without_unit
  COMMAND $<TARGET_FILE:napkin-cli> schedule --schedule 1f1b --stages 4 --microbatches 8 --layers 8
          --layer-forward 5 --layer-backward 9ms
  EXPECT "--layer-forward = \"5\": not a time" EXIT_CODE 2)
napkin_check_output(cli.schedule.layer_time_both_spellings
  COMMAND $<TARGET_FILE:napkin-cli> schedule --schedule 1f1b --stages 4 --microbatches 8 --layers 8
          --layer-forward 5ms --layer-forward-ms 5 --layer-backward 9ms
  EXPECT "--layer-forward = \"5ms\": give --layer-forward or --layer-forward-ms, not both" EXIT_CODE 2)
napkin_check_output(cli.schedule.layer_time_negative
  COMMAND $<TARGET_FILE:napkin-cli> schedule --schedule 1f1b --stages 4 --microbatches 8 --layers 8
          --layer-forward 5ms --layer-backward 9ms --head-forward-ms -1
  EXPECT "--head-forward-ms = -1" EXIT_CODE 2)
# serve's latency bounds with their units: cli.serve.disaggregated's run.
napkin_same_output(cli.serve.bounds_same_json
  COMMAND $<TARGET_FILE:napkin-cli> serve --model llama3.1-8b --gpu h100-sxm --input-tokens 2048 --output-tokens 256
          --concurrency 64 --disaggregate 4 --ttft 0.2s --tpot 20ms --json
  VERSUS $<TARGET_FILE:napkin-cli> serve --model llama3.1-8b --gpu h100-sxm --input-tokens 2048 --output-tokens 256
         --concurrency 64 --disaggregate 4 --ttft-ms 200 --tpot-ms 20 --json)
# A GPU's peak with its unit: 989 TFLOP/s is --gpu-tflops 989.
napkin_same_output(cli.gpu.peak_same_json
  COMMAND $<TARGET_FILE:napkin-cli> serve --model llama3.1-8b --gpu-memory 80GiB --gpu-bandwidth 3.35TB/s
          --gpu-peak 989TFLOP/s --link nvlink4 --input-tokens 1024 --output-tokens 256 --concurrency 8 --json
  VERSUS $<TARGET_FILE:napkin-cli> serve --model llama3.1-8b --gpu-memory 80GiB --gpu-bandwidth 3.35TB/s
         --gpu-tflops 989 --link nvlink4 --input-tokens 1024 --output-tokens 256 --concurrency 8 --json)
napkin_check_output(cli.gpu.peak_without_unit
  COMMAND $<TARGET_FILE:napkin-cli> serve --model llama3.1-8b --gpu-memory 80GiB --gpu-bandwidth 3.35TB/s
          --gpu-peak 989 --link nvlink4 --input-tokens 1024 --output-tokens 256 --concurrency 8
  EXPECT "--gpu-peak = \"989\": not a compute rate" EXIT_CODE 2)
# A B200 gets NVLink 5 and ConnectX-7 NDR, and says why (the DGX B200 data sheet).
napkin_check_output(cli.train.b200_links
  COMMAND $<TARGET_FILE:napkin-cli> train --model gpt2-small --gpu b200 --tp 2 --dp 4 --micro-batch 4 --global-batch 16
          --seq-len 1024
  EXPECT "links: nvlink5 inside a node, ib-ndr between (the DGX B200 default:" "ConnectX-7")
# Serving Gemma 3 27B on one H100 at 32,000 + 768 = 32,768 tokens (whole 16-token blocks): the 52 local layers
# cache 1,024 tokens, the 10 global ones all: 8,192 B × (10 · 32,768 + 52 · 1,024) = 3,120,562,176 B a
# sequence (62 · 32,768 · 8,192 = 16,642,998,272 without the window); the weights, the SigLIP tower's
# included, 2 × 27,432,406,640 = 54,864,813,280 B; (79,027,398,246 usable − the weights − 1,426,063,360 of
# activations) / 3,120,562,176 = 7.29: 7 sequences fit.
napkin_check_output(cli.serve.gemma3_window
  COMMAND $<TARGET_FILE:napkin-cli> serve --model gemma3-27b --gpu h100-sxm --input-tokens 32000 --output-tokens 768
          --concurrency 1 --json
  EXPECT "\"kv_cache\": 3120562176" "\"weights\": 54864813280" "\"max_concurrency\": 7")
