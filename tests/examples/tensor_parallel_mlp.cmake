# GPT-3 175B at t = 8: Y is 2048·12288·2 bytes = 48 MiB; a ring all-reduce over nvlink3 costs
# 6.6 + 14·0.6 = 15 µs of latency and 1.75 · 48 MiB / 300 GB/s = 293.60 µs of bandwidth.
napkin_check_output(example.tensor_parallel_mlp
  COMMAND $<TARGET_FILE:tensor_parallel_mlp>
  EXPECT "A[:, 6144 cols]" "1 all-reduce forward (g), 1 backward (f), 48.00 MiB each" "4 all-reduces, 192.00 MiB"
         "15.00 µs latency + 293.60 µs bandwidth" "384 all-reduces")
