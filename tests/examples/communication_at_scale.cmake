# The communication lab's five parts (shared reference lab-communication-at-scale.py), by hand:
# A  280 GB on 64 GPUs over IB NDR (50 GB/s, 5 µs): 1.96875 × 5.6 s + 126 × 5 µs = 11.02563 s,
#    bandwidth share 11.025 / 11.02563 = 99.994 %.
# B  1,048,576 B on 256 GPUs: tree 16 × (5 + 20.97152) µs = 415.54 µs < ring 2.59 ms; crossovers
#    250,000 B × (n − 1 − L)/(L − (n − 1)/n) = 2,841,121 / 8,816,509 / 28,135,836 B for n = 64 / 256 / 1,024.
# C  140 GB, 8 × 8: flat 5.5125 s + 0.63 ms; hierarchical 2 × 0.136111 s + 0.6125·r s + 77 µs
#    → 6.23x, 3.68x, 2.03x for r = 1, 2, 4; one NIC per node 0.272222 + 4.9 s → 1.07x; the lab's
#    order lacks an all-gather of 7/8 × 140/900 s = 0.136 s.
# D  50 GB/s, 5 s compute: INT8 1.15 × (5 + 1.378125 + 0.00063)/(5 + 5.5125 + 0.00063) = 0.698 → −30.2 %;
#    FP16 1.05 × 7.75688/10.51313 → −22.5 %; Top-K 1.3 × 5.055755/10.51313 → −37.5 %.
# E  723 calls of (6.6 + 630) µs = 0.46026 s of latency: raw 11.48589 s, 37.7 % of 30.49 s;
#    overlap hides 0.85 × 11.48589 s → 1.7229 s exposed, 8.3 %; hierarchical alone
#    1.769444 + 723 × 83.6 µs = 1.82989 s, 8.8 %; with a shared NIC and no overlap the best is
#    hierarchical + FP16, 5.2327 s = 21.6 %: none reaches 20 %.
napkin_check_output(example.communication_at_scale
  COMMAND $<TARGET_FILE:communication_at_scale>
  EXPECT "message      280 GB" "ring all-reduce 11.03 s, bandwidth share 99.994%"
         "tree 415.54 µs (16 levels): the tree wins"
         "2.84 MB (2841121 B)" "8.82 MB (8816509 B)" "28.14 MB (28135836 B)" "ring_vs_tree.svg"
         "1:1   0.885 s  speed-up 6.23x" "2:1   1.497 s  speed-up 3.68x" "4:1   2.722 s  speed-up 2.03x"
         "one NIC per node   5.172 s  speed-up 1.07x" "0.136 s more"
         "50 GB/s        +0.0%      -22.5%      -30.2%      -37.5%"
         "none                       exposed  11.49 s  share  37.7%"
         "overlap                    exposed   1.72 s  share   8.3%"
         "smallest stack under 20%: overlap, 8.3%" "without overlap: hierarchical, 8.8%"
         "without overlap: none reaches it")
