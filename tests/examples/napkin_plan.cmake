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
