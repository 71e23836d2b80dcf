# The napkin command's surface: exit codes (0 answered, 2 invalid input or usage
# in one line, 1 internal error), "did you mean …?", --version, grouped help,
# values with units.
napkin_check_output(cli.surface.version
  COMMAND $<TARGET_FILE:napkin-cli> --version
  EXPECT "napkin ${PROJECT_VERSION}")
napkin_check_output(cli.surface.bare
  COMMAND $<TARGET_FILE:napkin-cli>
  EXPECT "inference:" "collectives:" "pipeline:" "training:" "planning:" "calibration:" "  allreduce")
napkin_check_output(cli.surface.help
  COMMAND $<TARGET_FILE:napkin-cli> help
  EXPECT "usage: napkin <command> [options]")
# A usage error: a required flag missing.
napkin_check_output(cli.surface.usage_error
  COMMAND $<TARGET_FILE:napkin-cli> allreduce --gpus 64 --bandwidth 50GB/s --latency 5us
  EXPECT "napkin: error: allreduce: --bytes is required" REJECT "Run with --help" EXIT_CODE 2)
# An invalid value: CLI11's conversion error as one line naming the flag and the value.
napkin_check_output(cli.surface.invalid_value
  COMMAND $<TARGET_FILE:napkin-cli> allreduce --bytes 1GB --gpus sixty --bandwidth 50GB/s --latency 5us
  EXPECT "napkin: error: --gpus = \"sixty\": not a whole number" REJECT "Run with --help" EXIT_CODE 2)
napkin_check_output(cli.surface.invalid_rate
  COMMAND $<TARGET_FILE:napkin-cli> allreduce --bytes 1GB --gpus 64 --bandwidth 400 --latency 5us
  EXPECT "napkin: error: --bandwidth = \"400\": not a rate" EXIT_CODE 2)
# Typos with their suggestions.
napkin_check_output(cli.surface.typo_command
  COMMAND $<TARGET_FILE:napkin-cli> splitt --model llama3.1-70b
  EXPECT "napkin: error: unknown command \"splitt\"; did you mean \"split\"?" EXIT_CODE 2)
napkin_check_output(cli.surface.typo_flag
  COMMAND $<TARGET_FILE:napkin-cli> allreduce --byts 1GB --gpus 8 --bandwidth 50GB/s --latency 5us
  EXPECT "napkin: error: allreduce: unknown flag \"--byts\"; did you mean \"--bytes\"?" EXIT_CODE 2)
# 400 Gb/s is 50 GB/s: the same 11.0256 s as cli.allreduce.json (1.96875 × 5.6 s + 126 × 5 µs).
napkin_check_output(cli.surface.bandwidth_in_bits
  COMMAND $<TARGET_FILE:napkin-cli> allreduce --bytes 280GB --gpus 64 --bandwidth 400Gb/s --latency 5us --json
  EXPECT "\"time_s\": 11.0256" "\"bytes\": 280000000000")
# Every example answers --help (and exits 0) instead of taking it for a folder.
foreach(example communication_at_scale data_parallel_gpt2 megatron_memory megatron_throughput pipeline_bubbles
                plan_gpt3_on_1024_a100 split_lesson tensor_parallel_mlp)
  napkin_check_output(example.${example}.help
    COMMAND $<TARGET_FILE:${example}> --help
    EXPECT "usage: ${example}")
endforeach()
# Files go where --out says, and the example says where it wrote.
napkin_check_output(example.split_lesson.out
  COMMAND $<TARGET_FILE:split_lesson> --out figures
  EXPECT "figures/weights-split.svg" "figures/time-per-token.svg" "figures/tokens-per-second.svg")
napkin_check_output(example.unknown_argument
  COMMAND $<TARGET_FILE:megatron_memory> --bogus
  EXPECT "megatron_memory: error: unexpected argument \"--bogus\"" EXIT_CODE 2)
# napkin show and list: one entry with its source; the catalog with nodes.
# Mistral 7B, by hand: 32 × 218,112,000 + 2 × 32,000 × 4,096 + 4,096 = 7,241,732,096.
napkin_check_output(cli.show.model
  COMMAND $<TARGET_FILE:napkin-cli> show mistral-7b
  EXPECT "model mistral-7b: 7,241,732,096 weights" "source: config.json of mistralai/Mistral-7B-v0.1")
napkin_check_output(cli.show.link
  COMMAND $<TARGET_FILE:napkin-cli> show nvlink-a100
  EXPECT "bandwidth: the lesson's figure as the data sheet writes it (both directions")
napkin_check_output(cli.show.typo
  COMMAND $<TARGET_FILE:napkin-cli> show mixtral-8x7
  EXPECT "napkin: error: show \"mixtral-8x7\": not in the catalog; did you mean \"mixtral-8x7b\"" EXIT_CODE 2)
napkin_check_output(cli.list.json
  COMMAND $<TARGET_FILE:napkin-cli> list --json
  EXPECT "\"schema\": \"napkin.list/1\"" "\"nodes\"" "\"dgx-b200\"" "\"bandwidth_convention\": \"per direction per GPU\"")
# train with an H100 follows it: NVLink 4 and InfiniBand NDR, printed.
napkin_check_output(cli.train.links_follow_gpu
  COMMAND $<TARGET_FILE:napkin-cli> train --model gpt2-small --gpu h100-sxm --tp 2 --dp 4 --micro-batch 4 --global-batch 16
          --seq-len 1024
  EXPECT "links: nvlink4 inside a node, ib-ndr between (the DGX H100/H200 default)")
napkin_check_output(cli.train.inline_links
  COMMAND $<TARGET_FILE:napkin-cli> train --model gpt2-small --tp 2 --dp 4 --micro-batch 4 --global-batch 16 --seq-len 1024
          --intra-bandwidth 900GB/s --intra-latency 0.6us --json
  EXPECT "\"bandwidth_bytes_per_s\": 900000000000.0" "\"schema\": \"napkin.train/1\"" "\"layout\"")
# Times with their units beside the bare milliseconds: both spellings give the
# same JSON (napkin_same_output runs both and compares what they print, less the
# lines matching IGNORE, such as the planner's own timing).
function(napkin_same_output name)
  cmake_parse_arguments(PARSE_ARGV 1 arg "" "IGNORE" "COMMAND;VERSUS")
  set(spec "")
  foreach(item IN LISTS arg_COMMAND)
    string(APPEND spec "a\t${item}\n")
  endforeach()
  foreach(item IN LISTS arg_VERSUS)
    string(APPEND spec "b\t${item}\n")
  endforeach()
  if(DEFINED arg_IGNORE)
    string(APPEND spec "ignore\t${arg_IGNORE}\n")
  endif()
  set(spec_file "${PROJECT_BINARY_DIR}/output_checks/${name}.txt")
  file(GENERATE OUTPUT "${spec_file}" CONTENT "${spec}")
  add_test(NAME ${name} COMMAND "${CMAKE_COMMAND}" -DSPEC=${spec_file} -P "${PROJECT_SOURCE_DIR}/cmake/same_output.cmake")
endfunction()
# 1F1B, p = 4, m = 8, F = 1.5 ms, B = 3 ms: bubble (p − 1)(F + B) = 13.5 ms,
# step m(F + B) + bubble = 36 + 13.5 = 49.5 ms.
napkin_check_output(cli.bubble.times_with_units
  COMMAND $<TARGET_FILE:napkin-cli> bubble --schedule 1f1b --stages 4 --microbatches 8 --forward 1.5ms
          --backward 3ms --json
  EXPECT "\"forward_s\": 0.0015" "\"backward_s\": 0.003" "\"bubble_s\": 0.0135" "\"step_s\": 0.0495")
napkin_same_output(cli.bubble.units_same_json
  COMMAND $<TARGET_FILE:napkin-cli> bubble --schedule zb-h2 --stages 4 --microbatches 8 --forward 2ms
          --backward 3000us --weight-grad 1ms --json
  VERSUS $<TARGET_FILE:napkin-cli> bubble --schedule zb-h2 --stages 4 --microbatches 8 --forward-ms 2
         --backward-ms 3 --weight-grad-ms 1 --json)
# cli.schedule.1f1b_sends with its times in units: the same 10 ms step.
napkin_same_output(cli.schedule.units_same_json
  COMMAND $<TARGET_FILE:napkin-cli> schedule --schedule 1f1b --stages 2 --microbatches 2 --forward 1ms
          --backward 2ms --send 0.5ms --json
  VERSUS $<TARGET_FILE:napkin-cli> schedule --schedule 1f1b --stages 2 --microbatches 2 --forward-ms 1
         --backward-ms 2 --send-ms 0.5 --json)
napkin_check_output(cli.schedule.times_with_units
  COMMAND $<TARGET_FILE:napkin-cli> schedule --schedule 1f1b --stages 2 --microbatches 2 --forward 1ms
          --backward 2ms --send 500us
  EXPECT "step 10.00 ms (closed form 9.00 ms), idle 40.00%")
napkin_check_output(cli.schedule.both_spellings
  COMMAND $<TARGET_FILE:napkin-cli> schedule --schedule 1f1b --stages 2 --microbatches 2 --forward 1ms
          --forward-ms 1 --backward 2ms
  EXPECT "--forward = \"1ms\": give --forward or --forward-ms, not both" EXIT_CODE 2)
napkin_check_output(cli.schedule.time_without_unit
  COMMAND $<TARGET_FILE:napkin-cli> bubble --schedule 1f1b --stages 4 --microbatches 8 --forward 1.5
  EXPECT "--forward = \"1.5\": not a time" EXIT_CODE 2)
# plan-inference's latency bound: cli.plan_inference.json with --latency 30ms.
napkin_same_output(cli.plan_inference.latency_same_json
  COMMAND $<TARGET_FILE:napkin-cli> plan-inference --model llama3.1-405b --gpu a100-80gb-sxm --link nvlink-a100
          --latency 30ms --json
  VERSUS $<TARGET_FILE:napkin-cli> plan-inference --model llama3.1-405b --gpu a100-80gb-sxm --link nvlink-a100
         --latency-ms 30 --json
  IGNORE "\"(seconds|points_per_second)\":")
napkin_same_output(cli.plan_inference.tpot_same_json
  COMMAND $<TARGET_FILE:napkin-cli> plan-inference --model llama3.1-70b --gpu h100-sxm --link nvlink4 --max-gpus 8
          --tpot 50ms --ttft 2s --json
  VERSUS $<TARGET_FILE:napkin-cli> plan-inference --model llama3.1-70b --gpu h100-sxm --link nvlink4 --max-gpus 8
         --tpot-ms 50 --ttft-ms 2000 --json
  IGNORE "\"(seconds|points_per_second)\":")
# A check names the flags as typed: W of 3 ms cannot exceed B of 2 ms.
napkin_check_output(cli.bubble.flag_as_typed
  COMMAND $<TARGET_FILE:napkin-cli> bubble --schedule zb-h1 --stages 4 --microbatches 8 --backward 2ms
          --weight-grad 3ms
  EXPECT "--weight-grad = 3: must not exceed --backward, of which it is a part" EXIT_CODE 2)
