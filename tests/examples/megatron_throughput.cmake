# The validation page: every fitting row (Narayanan et al. 2021 Tables 1 and 2; the complete
# llm-foundry rows of tests/data/measured-training-runs.json) measured vs the GEMM model. The 1T row:
# 96·3072·2048·128·25600²·(1 + 2048/153600 + 51200/(16·128·25600)) = 5.139e19 FLOPs over 163e12 ×
# 3,072 = 102.63 s measured, napkin 109.65 s (−6.4 %). MPT-7B on 8 A100 80 GB: 96 × 2,048 tokens
# at 4,641 tokens/s per GPU × 8 = 5.30 s. The summary over the 26 rows: mean 3.6 %, max 8.5 %
# (MPT-70B on 128 A100 40 GB; the issue's goals are 5 % and 10 %; tests/unit/training.cpp
# recomputes the fit).
napkin_check_output(example.megatron_throughput
  COMMAND $<TARGET_FILE:megatron_throughput>
  EXPECT "tensor-core share A100 0.6520"
         "1T (1008.0B), 3,072 GPUs      8  64     6    102.63s    109.65s   -6.4%"
         "MPT-7B, 8 GPUs                1   1     8      5.30s      5.34s   -0.8%"
         "MPT-70B, 128 GPUs             1   1   128     21.79s     20.09s   +8.5%"
         "fitting rows: 26, mean |error| 3.6 %, max 8.5 %"
         "partial rows: 13"
         "one iteration 109.65 s")
