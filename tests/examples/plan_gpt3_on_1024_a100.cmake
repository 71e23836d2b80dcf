# The planner on GPT-3 175B, 1,024 A100s, batch 1,536 x 2,048: the space has
# 1,160,320 points (recounted outside napkin, tests/unit/planner.cpp) and the
# example reports where Megatron-LM's t8 p16 ranks.
add_test(NAME example.plan_gpt3_on_1024_a100 COMMAND plan_gpt3_on_1024_a100)
set_tests_properties(example.plan_gpt3_on_1024_a100 PROPERTIES
  PASS_REGULAR_EXPRESSION "space: 1160320 points.*Megatron-LM's t8 p16, best variant, ranks [0-9]+ of [0-9]+ fitting points")
