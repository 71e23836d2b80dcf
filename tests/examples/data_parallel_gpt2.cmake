# GPT-2 small, 512 × 1,024 tokens: 32 serial micro-steps on one A100 vs 4 waves on eight.
# Compute under the GEMM model (the default; the flat model's hand derivation, 3.888 s and
# 485.95 ms, is in tests/unit/training.cpp): 4.03 s on one GPU, and exactly an eighth of it,
# 504.32 ms, on eight: the same micro-steps of 16 sequences, 4 instead of 32.
# All-reduce of 248,879,616 gradient bytes on 8 GPUs over nvlink3: 15 µs + 1.75·M/300 GB/s = 1.47 ms.
napkin_check_output(example.data_parallel_gpt2
  COMMAND $<TARGET_FILE:data_parallel_gpt2>
  EXPECT "524288 tokens" "32 micro-steps of 16" "4 micro-steps of 16" "compute 4.03 s" "compute 504.32 ms"
         "gradient all-reduce 1.47 ms")
