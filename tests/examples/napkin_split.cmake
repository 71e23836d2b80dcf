# napkin split / fewest / best / list: the lesson's numbers from the command line, and bad input.
set(lesson_hw --gpu a100-80gb-sxm --link nvlink-a100)
napkin_check_output(cli.split.table
  COMMAND $<TARGET_FILE:napkin-cli> split --model llama3.1-70b ${lesson_hw}
  EXPECT "34.93 GiB" "18.94 ms" "8.7%" "does not fit")
napkin_check_output(cli.split.json
  COMMAND $<TARGET_FILE:napkin-cli> split --model llama3.1-70b ${lesson_hw} --gpus 4 --json
  EXPECT "\"total\": 37508222976" "\"weights\": 35276853248" "\"kv_cache\": 671088640" "\"working\": 1560281088"
         "\"usable\": 79027398246" "\"fits\": true" "\"read_s\": 0.0173" "\"total_s\": 0.0189" "\"waiting_share\": 0.08"
         "\"user_tokens_per_s\": 52.")
napkin_check_output(cli.split.pipeline
  COMMAND $<TARGET_FILE:napkin-cli> split --model llama3.1-70b ${lesson_hw} --gpus 4 --split pipeline
  EXPECT "69.23 ms")
napkin_check_output(cli.split.tokens
  COMMAND $<TARGET_FILE:napkin-cli> split --model llama3.1-70b --gpu a100-80gb-sxm --link pcie-gen4 --gpus 8 --tokens 64
  EXPECT "16.53 ms" "47.7%")
napkin_check_output(cli.split.config_json
  COMMAND $<TARGET_FILE:napkin-cli> split --model ${CMAKE_CURRENT_SOURCE_DIR}/data/llama31_70b_config.json ${lesson_hw} --gpus 4
  EXPECT "34.93 GiB" "18.94 ms")
napkin_check_output(cli.split.inline_hardware
  COMMAND $<TARGET_FILE:napkin-cli> split --model llama3.1-70b --gpu-memory-gib 80 --gpu-usable 0.92
          --gpu-bandwidth-gbps 2039 --gpu-tflops 312 --link-bandwidth-gbps 600 --link-step-us 0.6
          --base-latency-us 6.6 --gpus 4
  EXPECT "34.93 GiB" "18.94 ms")
napkin_check_output(cli.split.setup
  COMMAND $<TARGET_FILE:napkin-cli> split --model llama3.1-70b ${lesson_hw} --gpus 4 --context-tokens 0
          --working-tokens 0 --overhead-gib 0 --json
  EXPECT "\"total\": 35276853248")
napkin_check_output(cli.fewest
  COMMAND $<TARGET_FILE:napkin-cli> fewest --model llama3.1-405b --gpu a100-80gb-sxm
  EXPECT "fits on 11 x a100-80gb-sxm")
napkin_check_output(cli.best
  COMMAND $<TARGET_FILE:napkin-cli> best --model llama3.1-70b ${lesson_hw}
  EXPECT "best: 19 GPUs")
napkin_check_output(cli.best.divide_heads
  COMMAND $<TARGET_FILE:napkin-cli> best --model llama3.1-405b --gpu a100-80gb-sxm --link pcie-gen4 --divide-heads --json
  EXPECT "\"gpus\": 32")
napkin_check_output(cli.list
  COMMAND $<TARGET_FILE:napkin-cli> list
  EXPECT "llama3.1-8b" "llama3.1-70b" "llama3.1-405b" "a100-80gb-sxm" "nvlink-a100" "pcie-gen4")
# Bad input: one clear line naming what is wrong, a non-zero exit, never a crash.
napkin_check_output(cli.error.unknown_model
  COMMAND $<TARGET_FILE:napkin-cli> split --model llama9 ${lesson_hw}
  EXPECT "napkin: error: --model \"llama9\": not a catalog model" EXIT_CODE 2)
napkin_check_output(cli.error.unknown_gpu
  COMMAND $<TARGET_FILE:napkin-cli> fewest --model llama3.1-8b --gpu v100
  EXPECT "napkin: error: --gpu \"v100\": not in the catalog" EXIT_CODE 2)
napkin_check_output(cli.error.zero_gpus
  COMMAND $<TARGET_FILE:napkin-cli> split --model llama3.1-8b ${lesson_hw} --gpus 0
  EXPECT "napkin: error: --gpus = 0: must be at least 1" EXIT_CODE 2 REJECT "GPUs  fits")
napkin_check_output(cli.error.not_a_count
  COMMAND $<TARGET_FILE:napkin-cli> split --model llama3.1-8b ${lesson_hw} --gpus 2,x
  EXPECT "napkin: error: --gpus \"2,x\": \"x\" is not a whole number" EXIT_CODE 2)
napkin_check_output(cli.error.negative_bandwidth
  COMMAND $<TARGET_FILE:napkin-cli> split --model llama3.1-8b --gpu a100-80gb-sxm --link-bandwidth-gbps -64 --link-step-us 1
  EXPECT "napkin: error: --link-bandwidth-gbps = -64: must be positive" EXIT_CODE 2)
napkin_check_output(cli.error.malformed_config
  COMMAND $<TARGET_FILE:napkin-cli> split --model ${CMAKE_CURRENT_SOURCE_DIR}/data/malformed_config.json ${lesson_hw}
  EXPECT "malformed_config.json: not valid JSON" EXIT_CODE 2)
napkin_check_output(cli.error.missing_link
  COMMAND $<TARGET_FILE:napkin-cli> split --model llama3.1-8b --gpu a100-80gb-sxm
  EXPECT "napkin: error: --link is not given, so --link-bandwidth-gbps is required" EXIT_CODE 2)
napkin_check_output(cli.error.bad_split
  COMMAND $<TARGET_FILE:napkin-cli> split --model llama3.1-8b ${lesson_hw} --split diagonal
  EXPECT "napkin: error: --split \"diagonal\": must be tensor or pipeline" EXIT_CODE 2)
napkin_check_output(cli.error.usable
  COMMAND $<TARGET_FILE:napkin-cli> fewest --model llama3.1-8b --gpu a100-80gb-sxm --gpu-usable 1.5
  EXPECT "napkin: error: --gpu-usable = 1.5: must be in (0, 1" EXIT_CODE 2)  # no "]": CMake lists do not split inside brackets
