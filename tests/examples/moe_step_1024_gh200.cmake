# moe_step_1024_gh200: the reference's 1,024-GPU MoE step (tests/data/moe-training-step-1024-gpus.json). By hand:
# - weights: 45 × 625,741,824 + 2·131,072·2048 + 2048 = 28,695,255,040 (tests/unit/model.cpp), 28.70 B;
# - the pipeline send: 8,192 × 2048 × 2 B = 33,554,432 B over Slingshot-11 at 25 GB/s = 1.3422 ms, plus NCCL's
#   6.6 µs base and 2.7 µs hop: 1.351 ms against the reference's 1.535 (−12 %, within 15 %: no note);
# - part 1 is layer_ops under the flat model: the dispatch all-to-all (collectives.hpp) sends 3/4 of 7 copies of
#   8,192 × 2048 × 2 B = 234,881,024 B at 150 GB/s = 1.1744 ms + NCCL's 6.6 µs base + 3 steps of 0.6 µs
#   = 1.183 ms against 0.714 (+66 %: the note);
# - the experts: 2 · 8,192 · 8 · 3 · 2048 · 768 = 618,475,290,624 FLOP at 0.677 × 989 TFLOP/s = 0.924 ms;
# - part 3 gives back the reference's step 1.797498 s and idle 0.265493 from its own times;
# - part 4 states the layout to evaluate_training: expert data parallelism dp / ep = 256 / 4 = 64; the dispatch
#   all-to-all by collectives.hpp: 3/4 of 234,881,024 B at 150 GB/s = 1.1744 ms + NCCL's 6.6 µs base + 3 steps of 0.6 µs = 1.183 ms.
napkin_check_output(example.moe_step_1024_gh200
  COMMAND $<TARGET_FILE:moe_step_1024_gh200> ${CMAKE_CURRENT_SOURCE_DIR}/data/moe-training-step-1024-gpus.json
  EXPECT "28.70 B weights, 3.00 B active per token"
         "On 256 x gh200-quad (1024 GPUs): nvlink4-gh200-pair pairs at 150 GB/s each way, slingshot-11 at 25 GB/s"
         "pipeline send: 33.55 MB"
         "pipeline send                           1.351      1.535     -12%"
         "Part 1: one MoE layer, one micro-batch (8192 tokens), one GPU, the flat model"
         "dispatch all-to-all                     1.183      0.714     +66%"
         "sends 3/4 of the buffer through one 150 GB/s pair link"
         "experts (7 routed + 1 shared), fwd      0.924      2.178     -58%"
         "expert GEMMs: napkin prices the 768-wide grouped GEMMs like dense ones"
         "optimizer step (Muon)"
         "tokens per second: napkin"
         "step 1.797498 s (reference 1.797498 s), idle 0.265493 (reference 0.265493)"
         "Part 4: the layout through evaluate_training (GEMM model, expert DP 64)"
         "dispatch all-to-all                     1.183      0.714     +66%"
         "step parts (ms): compute"
         "memory per GPU (fullest stage, Muon)"
  REJECT "      -> napkin's Slingshot-11 runs at its 200 Gb/s line rate")
