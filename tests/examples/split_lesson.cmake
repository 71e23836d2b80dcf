# The main example prints the split lesson's numbers (lesson-split-one-model-over-gpus.txt) and writes its figures.
napkin_check_output(example.split_lesson
  COMMAND $<TARGET_FILE:split_lesson> .
  EXPECT "131.42 GiB at 16 bits" "73.6 GiB (92% of 80 GiB)" "32.85 GiB of weights" "34.93 GiB"
         "35276853248 + 671088640 + 1560281088 = 37508222976 bytes"
         "755.96 GiB of weights, fewest GPUs that fit: 11" "49.60 GiB"
         "69.20 ms" "17.30 ms" "takes 10.24 µs" "160 swaps per token cost 1.64 ms"
         "18.94 ms per token, 8.7% of it waiting" "3.5%, 8.7%, 21.8% and 47.7%"
         "| 1 | 7.88 | 7.88 |" "| 2 | 4.44 | 4.50 |" "| 4 | 2.62 | 2.79 |" "| 8 | 1.95 | 2.32 |" "| 16 | 2.07 | 2.85 |"
         "11.3% 24.9% 49.4% 76.2%" "12.4% 29.4% 57.5% 82.7%" "1.77 1.69 1.35 0.94"
         "nvlink-a100: 10 / 8  pcie-gen4: 8 / 8" "nvlink-a100: 19 / 16  pcie-gen4: 15 / 16"
         "nvlink-a100: 36 / 32  pcie-gen4: 28 / 32"
         "| 1 | 11.06 | 12.02 |" "| 16 | 11.17 | 13.09 |" "| 64 | 11.54 | 16.53 |"
         "21.8% 22.6% 25.0%" "28.0% 33.9% 47.7%"
         "69.23 ms per token against 69.20 ms of reading alone, 0.03% of it waiting"
         "./weights-split.svg" "./time-per-token.svg" "./tokens-per-second.svg")
