# The validation page: every fitting row (Narayanan et al. 2021 Tables 1 and 2; the complete
# llm-foundry rows of tests/data/measured-training-runs.json) measured vs the GEMM model. The 1T row:
# 96·3072·2048·128·25600²·(1 + 2048/153600 + 51200/(16·128·25600)) = 5.139e19 FLOPs over 163e12 ×
# 3,072 = 102.63 s measured, napkin 106.44 s (−3.6 %). MPT-7B on 8 A100 80 GB: 96 × 2,048 tokens
# at 4,641 tokens/s per GPU × 8 = 5.30 s. The summary over the 26 rows: mean 3.4 %, max 11.3 %
# (MPT-13B on 8 A100 80 GB, over the issue's 10 %; tests/unit/training.cpp recomputes the fit).
napkin_check_output(example.megatron_throughput
  COMMAND $<TARGET_FILE:megatron_throughput>
  EXPECT "tensor-core share A100 0.6774"
         "1T (1008.0B), 3,072 GPUs      8  64     6    102.63s    106.44s   -3.6%"
         "MPT-7B, 8 GPUs                1   1     8      5.30s      5.17s   +2.5%"
         "MPT-13B, 8 GPUs               1   1     8      5.43s      4.88s  +11.3%"
         "fitting rows: 26, mean |error| 3.4 %, max 11.3 %"
         "partial rows: 13"
         "bubble       11.59 s   10.9 %")
