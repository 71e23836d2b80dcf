# The validation page: every fitting row (catalog::fitting_runs: Narayanan et al. 2021 Tables 1 and 2,
# every row of tests/data/measured-training-runs.json) measured vs the GEMM model at its defaults, the fit
# to these 44 rows (tests/unit/cross_validation.cpp recomputes it). The 1T row:
# 96·3072·2048·128·25600²·(1 + 2048/153600 + 51200/(16·128·25600)) = 5.139e19 FLOPs over 163e12 ×
# 3,072 = 102.63 s measured, napkin 106.08 s (−3.2 %). MPT-7B on 8 A100 80 GB: 96 × 2,048 tokens at
# 4,641 tokens/s per GPU × 8 = 5.30 s. The summary: mean 2.9 %, max 10.8 % (the Megatron-LM README's
# GPT 7.1B on 96 H100s; the issue's goals are 5 % and 12 %).
napkin_check_output(example.megatron_throughput
  COMMAND $<TARGET_FILE:megatron_throughput>
  EXPECT "0.6839, H100 0.5785; element-wise work 1.3664 passes"
         "1T (1008.0B), 3,072 GPUs      8  64     6    102.63s    106.08s   -3.2%"
         "MPT-7B, 8 GPUs                1   1     8      5.30s      5.54s   -4.5%"
         "GPT 7.1B, 96 GPUs             2   1    48      0.80s      0.90s  -10.8%"
         # README ("How accurate is it?") quotes these rows and what each source's search covers.
         "7.5B, 128 GPUs                4   1    32      3.70s      4.01s   -7.9%"
         "MPT-7B s8192, 8 GPUs          1   1     8     40.88s     37.88s   +7.9%"
         "MPT-1B, 64 GPUs               1   1    64      0.92s      0.84s   +9.6%"
         "searched: micro-batch, recomputation and interleaving not printed"
         "searched: interconnect not printed" "searched: recomputation not printed"
         "fitting rows: 44, mean |error| 2.9 %, max 10.8 %"
         "one iteration 106.08 s")
