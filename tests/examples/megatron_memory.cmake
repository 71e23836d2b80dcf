# Korthikanti et al. 2022, Fig. 1, to the printed digits; the figure's states at 18 bytes per
# parameter of 12·L·h²/(t·p); GPT-3 175B (124 layers in flight, sbh = 25,165,824): selective
# 13·sbh·124 = 37.78 GiB, full 2·sbh·124 = 5.81 GiB.
napkin_check_output(example.megatron_memory
  COMMAND $<TARGET_FILE:megatron_memory>
  EXPECT "59.25         9.56" "66.84        12.35" "114.02        23.08" "131.25        26.56"
         "45.56" "31.64" "32.96" "selective           37.78" "full                 5.81")
