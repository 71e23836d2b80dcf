# Errors from a library check name the flag that set the field (issue: hardening).
# An empty number is an error naming the flag, not 0 (cmake drops a "" argument: the = form).
napkin_check_output(cli.flags.empty_number
  COMMAND $<TARGET_FILE:napkin-cli> schedule --schedule 1f1b --stages 4 --microbatches 8 --forward-ms= --backward-ms 2
  EXPECT "napkin: error: --forward-ms = \"\": not a number" EXIT_CODE 2)
napkin_check_output(cli.flags.empty_whole_number
  COMMAND $<TARGET_FILE:napkin-cli> train --model llama3.1-8b --tp=
  EXPECT "napkin: error: --tp = \"\": not a whole number" EXIT_CODE 2)
# A struct field: PipelineShape.chunks is set by --chunks.
napkin_check_output(cli.flags.struct_field
  COMMAND $<TARGET_FILE:napkin-cli> bubble --schedule interleaved --stages 4 --microbatches 8 --chunks 0 --forward-ms 1 --backward-ms 2
  EXPECT "napkin: error: PipelineShape.chunks = 0: must be at least 1 (set by --chunks)" EXIT_CODE 2)
# A plain field name: top_k is --top (the table), max_gpus is --max-gpus (the rule).
napkin_check_output(cli.flags.plain_field
  COMMAND $<TARGET_FILE:napkin-cli> plan --model llama3.1-8b --gpu h100-sxm --gpus 8 --global-batch 32 --top 4294967296
  EXPECT "top_k = 4294967296: must be at most 1000000 (set by --top)" EXIT_CODE 2)
napkin_check_output(cli.flags.max_gpus
  COMMAND $<TARGET_FILE:napkin-cli> best --model llama3.1-8b --gpu h100-sxm --link nvlink4 --max-gpus 10000000000000
  EXPECT "max_gpus = 10000000000000: must be at most 1048576 (set by --max-gpus)" EXIT_CODE 2)
# A product names the factors the user typed.
napkin_check_output(cli.flags.product
  COMMAND $<TARGET_FILE:napkin-cli> train --model llama3.1-8b --gpu h100-sxm --tp 4294967296 --dp 4294967296
  EXPECT "the product overflows a 64-bit count (set by --tp, --dp)" EXIT_CODE 2)
# The disaggregated split is searched one count at a time: a cap, named by flag.
napkin_check_output(cli.flags.disaggregate_cap
  COMMAND $<TARGET_FILE:napkin-cli> serve --model llama3.1-8b --gpu h100-sxm --input-tokens 512 --output-tokens 128 --concurrency 8 --disaggregate 4294967296
  EXPECT "instances = 4294967296: must be at most 2^20 = 1048576 (the split is searched one by one) (set by --disaggregate)" EXIT_CODE 2)
