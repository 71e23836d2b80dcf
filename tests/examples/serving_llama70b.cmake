# The serving lesson's numbers (examples/serving_llama70b.cpp), each derived by hand:
#  - 70,553,706,496 weights x 2 B / 8 GPUs = 17,638,426,624 B (16.43 GiB), / 3.35 TB/s = 5.27 ms per step;
#  - the ridge point 989 TFLOP/s / 3.35 TB/s = 295 FLOP/byte;
#  - the cache, 327,680 B per token / 8 GPUs = 40,960 B per token per GPU, overtakes the weights when
#    B x context x 40,960 >= 17,638,426,624: B = 421 at 1,024 tokens, 106 at 4,096, 53 at 8,192;
#  - 178 chats x 8,192 tokens x 40,960 B = 59,726,888,960 B, / 3.35 TB/s = 17.83 ms;
#  - (79,027,398,246 usable − 17,638,426,624 weights − 1,560,281,088 working) / (2,560 x 40,960 B) = 570.6: 570 chats.
napkin_check_output(example.serving_llama70b
  COMMAND $<TARGET_FILE:serving_llama70b> .
  EXPECT "16.43 GiB of weights per step: 5.27 ms" "295 FLOP/byte"
         "at  1024 tokens of context the cache reads overtake the weight reads at 421 sequences"
         "at  4096 tokens of context the cache reads overtake the weight reads at 106 sequences"
         "at  8192 tokens of context the cache reads overtake the weight reads at  53 sequences"
         "weights 5.27 ms, KV cache 17.83 ms per step"
         "memory-bound up to the" "compute-bound from" "it is compute-bound"
         # README ("Serving") quotes these: 0.3 % busy at 1 FLOP/byte, compute from 323 sequences at 128 tokens,
         # never at 4,096, 8 FLOP/byte of cache, prefill at 34,137 tokens/s against 130.
         "1 FLOP/byte" "one sequence leaves it 0.3% busy" "at   128 tokens of context: compute-bound from 323 sequences"
         "at  4096 tokens of context: memory-bound up to the" "8 FLOP/byte" "34137 tokens/s"
         "against 130 tokens/s decoding one sequence"
         "At most 570 chats of 2,560 tokens fit" "| 570 |" "wrote ./serving-frontier.svg")
