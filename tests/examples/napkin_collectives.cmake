# napkin allreduce / collective / crossover / calibrate: the communication lab's
# numbers from the command line (derivations in tests/unit/collectives.cpp), and bad input.
set(ib_ndr --bandwidth-gbps 50 --latency-us 5)
set(two_level --gpus 64 --gpus-per-node 8 --intra-bandwidth-gbps 900 --intra-latency-us 0.5
              --inter-bandwidth-gbps 50 --inter-latency-us 5)
# 280 GB on 64 GPUs: 1.96875 × 5.6 s + 126 × 5 µs = 11.02563 s.
napkin_check_output(cli.allreduce.ring
  COMMAND $<TARGET_FILE:napkin-cli> allreduce --algorithm ring --bytes 280GB --gpus 64 ${ib_ndr}
  EXPECT "ring all-reduce of 280 GB on 64 GPUs: 11.03 s" "latency 630.00 µs" "99.99% bandwidth")
napkin_check_output(cli.allreduce.json
  COMMAND $<TARGET_FILE:napkin-cli> allreduce --algorithm ring --bytes 280GB --gpus 64 ${ib_ndr} --json
  EXPECT "\"time_s\": 11.0256" "\"latency_s\": 0.00062999" "\"bandwidth_s\": 11.02499" "\"bytes\": 280000000000")
# 1 MiB on 256 GPUs: tree 16 × (5 + 20.97152) µs = 415.54 µs; ring 2,591.78 µs.
napkin_check_output(cli.allreduce.tree
  COMMAND $<TARGET_FILE:napkin-cli> allreduce --algorithm tree --bytes 1MiB --gpus 256 ${ib_ndr}
  EXPECT "tree all-reduce of 1.05 MB on 256 GPUs: 415.54 µs")
napkin_check_output(cli.allreduce.ring_1mib
  COMMAND $<TARGET_FILE:napkin-cli> allreduce --bytes 1MiB --gpus 256 ${ib_ndr}
  EXPECT "2.59 ms")
# 140 GB on 8 × 8, 2:1: 2 × 0.136111 s + 1.225 s + 77 µs = 1.4973 s.
napkin_check_output(cli.allreduce.hierarchical
  COMMAND $<TARGET_FILE:napkin-cli> allreduce --algorithm hierarchical --bytes 140GB ${two_level} --oversubscription 2 --json
  EXPECT "\"time_s\": 1.4972" "\"latency_s\": 7.7" "\"nodes\": 8" "\"nic\": \"per-gpu\"")
# One NIC per node: 0.272222 s + 4.9 s + 77 µs = 5.1723 s.
napkin_check_output(cli.allreduce.hierarchical_shared_nic
  COMMAND $<TARGET_FILE:napkin-cli> allreduce --algorithm hierarchical --bytes 140GB ${two_level} --nic shared
  EXPECT "hierarchical all-reduce of 140 GB on 64 GPUs: 5.17 s")
# NCCL-style, nothing to send on 8 NVLink GPUs: tree LL 6.8 + 6 × 0.6 µs = 10.4 µs.
napkin_check_output(cli.allreduce.nccl
  COMMAND $<TARGET_FILE:napkin-cli> allreduce --algorithm nccl --transport nvlink --bytes 0 --gpus 8
          --bandwidth-gbps 300 --latency-us 0.6
  EXPECT "(tree, LL)" "10.40 µs")
# 8 GB all-to-all on 8 ranks: 7 × 5 µs + 7/8 × 0.16 s = 140.035 ms.
napkin_check_output(cli.collective.all_to_all
  COMMAND $<TARGET_FILE:napkin-cli> collective --op all-to-all --bytes 8GB --gpus 8 ${ib_ndr} --json
  EXPECT "\"time_s\": 0.14003" "\"operation\": \"all-to-all\"")
# 50 MB point-to-point: 5 µs + 50 MB / 50 GB/s = 1.005 ms.
napkin_check_output(cli.collective.p2p
  COMMAND $<TARGET_FILE:napkin-cli> collective --op p2p --bytes 50MB --gpus 2 ${ib_ndr} --json
  EXPECT "\"time_s\": 0.001005" "\"bandwidth_s\": 0.001")
# Crossover, α·B = 250,000 B: 256 GPUs → 250,000 × 247·256/1,793 = 8,816,508.6 B; 3 GPUs → none.
napkin_check_output(cli.crossover
  COMMAND $<TARGET_FILE:napkin-cli> crossover --gpus 256 ${ib_ndr}
  EXPECT "8.82 MB (8816509 B) on 256 GPUs")
napkin_check_output(cli.crossover.json
  COMMAND $<TARGET_FILE:napkin-cli> crossover --gpus 1024 ${ib_ndr} --json
  EXPECT "\"bytes\": 28135835.9")
napkin_check_output(cli.crossover.none
  COMMAND $<TARGET_FILE:napkin-cli> crossover --gpus 3 ${ib_ndr} --json
  EXPECT "\"bytes\": null")
# The synthetic all_reduce_perf table was made with α = 5 µs, B = 50 GB/s on 16 ranks (times
# printed to 0.01 µs, so the fit is within 1e-5 of them).
napkin_check_output(cli.calibrate
  COMMAND $<TARGET_FILE:napkin-cli> calibrate ${CMAKE_CURRENT_SOURCE_DIR}/data/nccl_tests/all_reduce_perf_16_ranks.txt
  EXPECT "all-reduce on 16 ranks, 28 sizes: alpha = 5.000 µs per step, B = 50 GB/s" "rms 0.00%")
napkin_check_output(cli.calibrate.json
  COMMAND $<TARGET_FILE:napkin-cli> calibrate ${CMAKE_CURRENT_SOURCE_DIR}/data/nccl_tests/all_reduce_perf_16_ranks.txt --json
  EXPECT "\"ranks\": 16" "\"step_latency_s\": 4.9999" "\"bandwidth_bytes_per_s\": 500000")
# Sizes with units: 1.5 GiB = 1,610,612,736 B; 1 KB = 1,000 B; a bare number is bytes.
napkin_check_output(cli.size.binary
  COMMAND $<TARGET_FILE:napkin-cli> allreduce --bytes 1.5GiB --gpus 8 ${ib_ndr} --json
  EXPECT "\"bytes\": 1610612736")
napkin_check_output(cli.size.decimal
  COMMAND $<TARGET_FILE:napkin-cli> allreduce --bytes 1KB --gpus 8 ${ib_ndr} --json
  EXPECT "\"bytes\": 1000")
napkin_check_output(cli.size.plain
  COMMAND $<TARGET_FILE:napkin-cli> allreduce --bytes 4096 --gpus 8 ${ib_ndr} --json
  EXPECT "\"bytes\": 4096")
# Bad input names the flag and its value.
napkin_check_output(cli.error.gpus_per_node
  COMMAND $<TARGET_FILE:napkin-cli> allreduce --algorithm hierarchical --bytes 1GB --gpus 12 --gpus-per-node 8
          --intra-bandwidth-gbps 900 --intra-latency-us 0.5 ${ib_ndr}
  EXPECT "napkin: error: --gpus-per-node = 8: must divide --gpus = 12" EXIT_CODE 2)
napkin_check_output(cli.error.size
  COMMAND $<TARGET_FILE:napkin-cli> allreduce --bytes 12XB --gpus 8 ${ib_ndr}
  EXPECT "napkin: error: --bytes = \"12XB\": not a size" EXIT_CODE 2)
napkin_check_output(cli.error.negative_size
  COMMAND $<TARGET_FILE:napkin-cli> collective --op broadcast --bytes -1GB --gpus 8 ${ib_ndr}
  EXPECT "napkin: error: --bytes = \"-1GB\": not a size" EXIT_CODE 2)
napkin_check_output(cli.error.no_gpus
  COMMAND $<TARGET_FILE:napkin-cli> allreduce --bytes 1GB --gpus 0 ${ib_ndr}
  EXPECT "napkin: error: --gpus = 0: must be at least 1" EXIT_CODE 2)
napkin_check_output(cli.error.zero_bandwidth
  COMMAND $<TARGET_FILE:napkin-cli> crossover --gpus 8 --bandwidth-gbps 0 --latency-us 5
  EXPECT "napkin: error: --bandwidth-gbps = 0: must be positive" EXIT_CODE 2)
napkin_check_output(cli.error.algorithm
  COMMAND $<TARGET_FILE:napkin-cli> allreduce --algorithm butterfly --bytes 1GB --gpus 8 ${ib_ndr}
  EXPECT "napkin: error: --algorithm \"butterfly\": must be ring, tree, hierarchical or nccl" EXIT_CODE 2)
napkin_check_output(cli.error.calibrate_file
  COMMAND $<TARGET_FILE:napkin-cli> calibrate /nonexistent/all_reduce_perf.txt
  EXPECT "napkin: error: nccl-tests file = \"/nonexistent/all_reduce_perf.txt\": cannot be opened" EXIT_CODE 2)
# NCCL-style across 16 nodes × 8 GPUs (NVLink 300 GB/s inside, a 25 GB/s NIC per GPU): each hop at
# its transport's latency. 0 bytes: tree LL 6.8 + 2·(7 × 0.6 + 4 × 5.0) = 55.2 µs. 1 GB: ring Simple
# 8.4 + 224 × 3.4 + 30 × 14 = 1,190 µs + 254/128 × 1 GB / 25 GB/s = 79.375 ms, 80.565 ms in all.
napkin_check_output(cli.allreduce.nccl_across_nodes_tiny
  COMMAND $<TARGET_FILE:napkin-cli> allreduce --algorithm nccl --bytes 0 --gpus 128 --gpus-per-node 8
          --intra-bandwidth-gbps 300 --inter-bandwidth-gbps 25 --json
  EXPECT "\"nccl_algorithm\": \"tree\"" "\"nccl_protocol\": \"LL\"" "\"time_s\": 5.52e-05" "\"transport\": \"nvlink\"")
napkin_check_output(cli.allreduce.nccl_across_nodes_large
  COMMAND $<TARGET_FILE:napkin-cli> allreduce --algorithm nccl --bytes 1GB --gpus 128 --gpus-per-node 8
          --intra-bandwidth-gbps 300 --inter-bandwidth-gbps 25 --json
  EXPECT "\"nccl_algorithm\": \"ring\"" "\"nccl_protocol\": \"Simple\"" "\"time_s\": 0.080565")
napkin_check_output(cli.allreduce.error.nccl_across_nodes
  COMMAND $<TARGET_FILE:napkin-cli> allreduce --algorithm nccl --bytes 1GB --gpus 128 --gpus-per-node 8
          --inter-bandwidth-gbps 25
  EXPECT "napkin: error: --algorithm nccl needs --intra-bandwidth-gbps" EXIT_CODE 2)
# As NCCL runs it (nccl_cluster.hpp), with the fitted shares λ = 3.426, η_net = 0.7920.
# 8 H100s, ring: Simple, 1.75 × 1 GiB / 370.8 GB/s (NCCL's 18 × 20.6 GB/s) = 5.0676 ms
# + 3.426 × (8.4 + 14 × 3.4) µs = 191.9 µs: 5.2594 ms; busbw 1.75 × 1 GiB / t = 357.27 GB/s.
napkin_check_output(cli.collective.cluster_ring_one_node
  COMMAND $<TARGET_FILE:napkin-cli> collective --op all-reduce --bytes 1GiB --gpus 8 --gpu h100-sxm --algorithm ring --json
  EXPECT "\"time_s\": 0.0052594" "\"busbw_bytes_per_s\": 357273" "\"protocol\": \"Simple\"" "\"algorithm\": \"ring\"")
# 2 nodes × 8 on NVLink 4, 4 NICs of 400 Gb/s: one channel per NIC, 0.7920 × 4 × 50 GB/s = 158.4 GB/s;
# 1.875 × 1 GiB / 158.4 GB/s = 12.710 ms + 3.426 × (8.4 + 28 × 3.4 + 2 × 14) µs = 450.9 µs: 13.161 ms.
napkin_check_output(cli.allreduce.cluster_rails
  COMMAND $<TARGET_FILE:napkin-cli> allreduce --bytes 1GiB --gpus 16 --intra-link nvlink4 --nics-per-node 4
          --nic-bandwidth 400Gb/s --algorithm ring --json
  EXPECT "\"time_s\": 0.013160" "\"nics_per_node\": 4" "\"nodes\": 2")
# 8 GPUs are one node: the NCCL-style model's default transport is the link inside it.
napkin_check_output(cli.allreduce.nccl_one_node_transport
  COMMAND $<TARGET_FILE:napkin-cli> allreduce --algorithm nccl --bytes 0 --gpus 8 --bandwidth-gbps 300
          --latency-us 0.6 --json
  EXPECT "\"transport\": \"nvlink\"")
napkin_check_output(cli.collective.sweep
  COMMAND $<TARGET_FILE:napkin-cli> collective --op all-reduce --sweep 8B:16GiB --gpus 16 --node dgx-h100
  EXPECT "# all-reduce on 16 GPUs (2 × 8, 8 NICs a node)" "     17179869184  nvls-tree  Simple")
napkin_check_output(cli.collective.error.node
  COMMAND $<TARGET_FILE:napkin-cli> collective --op all-reduce --bytes 1GiB --gpus 16 --node dgx-h900
  EXPECT "napkin: error: --node \"dgx-h900\": not in the catalog" EXIT_CODE 2)
napkin_check_output(cli.collective.error.sweep
  COMMAND $<TARGET_FILE:napkin-cli> collective --op all-reduce --sweep 16GiB:8B --gpus 16 --node dgx-h100
  EXPECT "napkin: error: --sweep = \"16GiB:8B\": must end at or after its start" EXIT_CODE 2)
napkin_check_output(cli.collective.error.nvls_a100
  COMMAND $<TARGET_FILE:napkin-cli> collective --op all-reduce --bytes 1GiB --gpus 8 --gpu a100-80gb-sxm --algorithm nvls
  EXPECT "napkin: error: algorithm = \"nvls\": is not one NCCL runs for this op on this fabric" EXIT_CODE 2)
# Node-limited MoE dispatch, 16 nodes × 8 H100, M = 4, k = 8: 4 · 15/16 = 3.75 of 8 copies cross the
# network, at 0.7920 × 8 × 50 GB/s / 8 a GPU: 3.75/8 × 1 GiB / 39.6 GB/s = 12.7100 ms, beside
# 7/8 × 1 GiB / 370.8 GB/s on NVLink; + 3.426 × (8.4 + 14) µs = 76.74 µs: 12.7868 ms.
napkin_check_output(cli.collective.moe_dispatch
  COMMAND $<TARGET_FILE:napkin-cli> collective --op all-to-all --bytes 1GiB --gpus 128 --gpu h100-sxm
          --node-limit 4 --top-k 8 --json
  EXPECT "\"time_s\": 0.012786" "\"algorithm\": \"p2p\"")
napkin_check_output(cli.collective.error.node_limit_op
  COMMAND $<TARGET_FILE:napkin-cli> collective --op all-reduce --bytes 1GiB --gpus 128 --gpu h100-sxm --node-limit 4
  EXPECT "napkin: error: --node-limit = 4: needs --op all-to-all" EXIT_CODE 2)
