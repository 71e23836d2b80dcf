# GPT-2 small, 512 × 1,024 tokens: 32 serial micro-steps on one A100 vs 4 waves on eight.
# Compute by hand (tests/unit/training.cpp): 447,971,799,859,200 FLOPs / (312 TFLOP/s · 0.677) =
# 2.121 s, plus element-wise work 32 micro-steps × 3 passes × 2.18 × 12 layers × 1,434,451,968 bytes
# / 2,039 GB/s = 1.767 s: 3.888 s; / 8 = 485.95 ms.
# All-reduce of 248,879,616 gradient bytes on 8 GPUs over nvlink3: 15 µs + 1.75·M/300 GB/s = 1.47 ms.
napkin_check_output(example.data_parallel_gpt2
  COMMAND $<TARGET_FILE:data_parallel_gpt2>
  EXPECT "524288 tokens" "32 micro-steps of 16" "4 micro-steps of 16" "compute 3.89 s" "compute 485.95 ms"
         "gradient all-reduce 1.47 ms")
