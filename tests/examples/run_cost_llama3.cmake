# The run lesson's numbers (examples/run_cost_llama3.cpp), each derived by hand:
#  - step: 6 x 405,853,388,800 parameters x 16,777,216 tokens / (16,384 x 400 TFLOP/s) = 6.2339 s;
#  - steps: ceil(15.6e12 / 16,777,216) = 929,833; 929,833 x 6.2339 s = 67.09 days;
#    16,384 GPUs x 67.09 days x 24 h x $2 per GPU-hour = $52.76M;
#  - power 16,384 x 700 W = 11.47 MW; x 67.09 days = 18,466 MWh;
#  - one GPU's MTBF 16,384 x 54 x 24 / 419 = 50,677 h; the job's 54 x 24 / 419 = 3.09 h = 11,135 s;
#  - Young sqrt(2 x 60 x 11,135) = 1,155.9 s = 19.3 min; Daly (x = 60 / 22,270 = 0.0027):
#    1,155.9 x (1 + 0.0173 + 0.0003) - 60 = 1,116.3 s = 18.6 min;
#  - a failure loses 1,116.3 / 2 + 600 = 1,158.1 s = 19.3 min;
#  - wall = 5,796,493 s x (1 + 60 / 1,116.3) / (1 - 1,158.1 / 11,135) = 78.9 days; W / M = 612 failures;
#    goodput 67.09 / 78.90 = 85.0 %; $62.1M; 21,718 MWh.
napkin_check_output(example.run_cost_llama3
  COMMAND $<TARGET_FILE:run_cost_llama3>
  EXPECT "= 6.23 s" "steps: 929833; without failures 67.1 days, $52.8M at $2.00 per GPU-hour"
         "16384 x 700 W = 11.47 MW (PUE 1.0); energy 18466 MWh"
         "one GPU fails every 50677 h; the job every 3.09 h"
         "every 18.6 min (Young 19.3 min, Daly 18.6 min)" "a failure loses 19.3 min; 612 failures over the run"
         "goodput 85.0%" "with failures: 78.9 days, $62.1M, 21718 MWh")
