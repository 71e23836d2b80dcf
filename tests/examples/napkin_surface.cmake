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
