# napkin train: Korthikanti Fig. 1 and hand-derived step parts from the command line, and bad input.
napkin_check_output(cli.train.korthikanti_22b
  COMMAND $<TARGET_FILE:napkin-cli> train --model megatron-22b --tp 8 --pp 1 --dp 1 --micro-batch 4
          --global-batch 4 --seq-len 2048 --no-sequence-parallel --no-flash-attention
  # Fig. 1: 59.25 GiB of activations without recomputation, sequence parallelism or flash attention
  # (train's defaults turn both on: --no-...); Table 2 per layer × 48 layers.
  EXPECT "activations 59.25 GiB" "does not fit")
napkin_check_output(cli.train.korthikanti_22b_sp_selective
  COMMAND $<TARGET_FILE:napkin-cli> train --model megatron-22b --tp 8 --pp 1 --dp 1 --micro-batch 4
          --global-batch 4 --sequence-parallel --recompute selective --grad-dtype fp32 --json
  # Fig. 1: 9.5625 GiB = 10,267,656,192 bytes; TP by hand: 192 × (2·6.6 + 14·0.6 + 587.20256) µs.
  EXPECT "\"activations\": 10267656192" "\"tp\": 0.1168" "\"fits\": true" "\"step_s\"" "\"tokens_per_s\"" "\"mfu\"")
napkin_check_output(cli.train.gpt3_175b
  COMMAND $<TARGET_FILE:napkin-cli> train --model gpt3-175b --gpus-per-node 8 --intra-link nvlink3
          --inter-link ib-hdr --tp 8 --pp 16 --dp 8 --micro-batch 1 --global-batch 1536 --recompute full
          --zero distributed --json
  EXPECT "\"gpus\": 1024" "\"nodes\": 128" "\"microbatches\": 192" "\"bubble\"" "\"dp\"")
napkin_check_output(cli.train.error.heads
  COMMAND $<TARGET_FILE:napkin-cli> train --model gpt2-xl --tp 2 --global-batch 8
  EXPECT "napkin: error: Parallelism.tp = 2: must divide the model's attention heads (25)" EXIT_CODE 2)
napkin_check_output(cli.train.error.recompute
  COMMAND $<TARGET_FILE:napkin-cli> train --model gpt2-xl --recompute sometimes
  EXPECT "napkin: error: --recompute \"sometimes\": must be one of none, selective, full" EXIT_CODE 2)
napkin_check_output(cli.train.error.batch
  COMMAND $<TARGET_FILE:napkin-cli> train --model gpt2-small --dp 8 --micro-batch 4 --global-batch 20
  EXPECT "Parallelism.global_batch = 20: must be a multiple of micro_batch × dp = 32" EXIT_CODE 2)
# --schedule: the pipeline schedule by pipeline.hpp's names. GPT-2 medium t2 p4, m = 8, the flat compute
# model (--compute-model flat; the GEMM model is the default): the stage's compute is
# 8 × 3W with W = 142,892,597,248 FLOPs / (312 TFLOP/s × 0.677) + one element-wise pass, 6 layers ×
# 2.18 × 65,011,712 bytes / 2,039 GB/s (tests/unit/training.cpp): W = 1.093542 ms, i.e. 26.24501 ms.
napkin_check_output(cli.train.schedule_zb_h1
  COMMAND $<TARGET_FILE:napkin-cli> train --model gpt2-medium --tp 2 --pp 4 --dp 1 --micro-batch 1
          --global-batch 8 --seq-len 1024 --schedule zb-h1 --compute-model flat --no-flash-attention
          --no-sequence-parallel --json
  EXPECT "\"schedule\": \"zb-h1\"" "\"compute\": 0.026245")
napkin_check_output(cli.train.schedule_default_interleaved
  COMMAND $<TARGET_FILE:napkin-cli> train --model gpt2-medium --tp 2 --pp 4 --dp 1 --micro-batch 1
          --global-batch 8 --seq-len 1024 --vp 2
  EXPECT "8 micro-batches of 1, interleaved schedule")
napkin_check_output(cli.train.error.schedule
  COMMAND $<TARGET_FILE:napkin-cli> train --model gpt2-medium --schedule zb --global-batch 8
  EXPECT "napkin: error: --schedule \"zb\": must be one of 1f1b, interleaved, zb-h1, zb-h2, dualpipe, dualpipev, gpipe"
  EXIT_CODE 2)
napkin_check_output(cli.train.error.interleaved_microbatches
  COMMAND $<TARGET_FILE:napkin-cli> train --model gpt2-medium --tp 2 --pp 4 --dp 1 --micro-batch 1
          --global-batch 6 --seq-len 1024 --vp 2
  EXPECT "= 6: must be a multiple of pp = 4 for the interleaved schedule" EXIT_CODE 2)
napkin_check_output(cli.train.error.schedule_chunks
  COMMAND $<TARGET_FILE:napkin-cli> train --model gpt2-medium --tp 2 --pp 4 --dp 1 --micro-batch 1
          --global-batch 8 --seq-len 1024 --vp 2 --schedule dualpipe
  EXPECT "Parallelism.virtual_stages = 2: must be 1 for the dualpipe schedule" EXIT_CODE 2)
# --tp-comm: GPT-3 t8 p16 d8, m = 192, 6 layers a stage, 4 collectives each of b·s·h·2 = 50,331,648
# bytes on nvlink3: all-reduce 6.6 + 14·0.6 = 15 µs + 1.75·M/300 GB/s = 293.60128 µs, so
# 4,608 × 308.60128 µs = 1.42203 s; reduce-scatter + all-gather pay the 6.6 µs base once more:
# 1.42203 + 4,608 × 6.6 µs = 1.45245 s. The JSON says which collectives ran. Without sequence
# parallelism (on by default with --tp > 1) auto means the all-reduce.
napkin_check_output(cli.train.tp_comm_default
  COMMAND $<TARGET_FILE:napkin-cli> train --model gpt3-175b --tp 8 --pp 16 --dp 8 --global-batch 1536
          --no-sequence-parallel --json
  EXPECT "\"tp\": 1.42203" "\"tp_communication\": \"all-reduce\"")
napkin_check_output(cli.train.tp_comm_rs_ag
  COMMAND $<TARGET_FILE:napkin-cli> train --model gpt3-175b --tp 8 --pp 16 --dp 8 --global-batch 1536
          --tp-comm rs-ag --json
  EXPECT "\"tp\": 1.45244" "\"tp_communication\": \"rs-ag\"")
napkin_check_output(cli.train.error.tp_comm
  COMMAND $<TARGET_FILE:napkin-cli> train --model gpt3-175b --tp 8 --pp 16 --dp 8 --global-batch 1536
          --tp-comm ring
  EXPECT "napkin: error: --tp-comm \"ring\": must be one of auto, all-reduce, rs-ag" EXIT_CODE 2)
napkin_check_output(cli.train.error.tp_comm_sequence_parallel
  COMMAND $<TARGET_FILE:napkin-cli> train --model gpt3-175b --tp 8 --pp 16 --dp 8 --global-batch 1536
          --sequence-parallel --tp-comm all-reduce
  EXPECT "sequence parallelism needs reduce-scatter + all-gather (rs-ag or auto)" EXIT_CODE 2)
# --no-scatter-gather: each of the 2 sends per micro-batch carries b·s·h·2 = 50,331,648 bytes over
# ib-hdr instead of 1/8 of it: 192 × 2 × (6.6 + 2.7 + 2,013.26592) µs = 0.776665 s (0.100208 s with it).
napkin_check_output(cli.train.no_scatter_gather
  COMMAND $<TARGET_FILE:napkin-cli> train --model gpt3-175b --tp 8 --pp 16 --dp 8 --global-batch 1536
          --no-scatter-gather --json
  EXPECT "\"pp\": 0.776665")
# --peak-share 0.5 --half-width 0 --memory-passes 0: every matrix product at half of 312 TFLOP/s and
# no element-wise time. GPT-2 small on one GPU, 512 × 1,024 tokens: 447,971,799,859,200 FLOPs
# (tests/unit/training.cpp) / 156e12 = 2.871614 s.
napkin_check_output(cli.train.efficiency
  COMMAND $<TARGET_FILE:napkin-cli> train --model gpt2-small --gpus-per-node 1 --micro-batch 16
          --global-batch 512 --seq-len 1024 --peak-share 0.5 --half-width 0 --memory-passes 0 --json
  EXPECT "\"compute\": 2.871614")
# (The expectation stops before the closing bracket: CMake lists do not split inside brackets.)
napkin_check_output(cli.train.error.efficiency
  COMMAND $<TARGET_FILE:napkin-cli> train --model gpt2-small --gpus-per-node 1 --global-batch 8 --peak-share 1.5
  EXPECT "napkin: error: EfficiencyModel.peak_share = 1.5: must be in (0, 1" EXIT_CODE 2)
# --cp: ring attention's K/V exchange on two DGX A100 nodes, 22B t8 c2 b1 s2048 (the context
# ranks in different nodes), with the flat compute model's attention time: 48 × (135.12912 − 30.5006 +
# 260.95824 − 2 × 30.5006) µs = 14.620 ms (tests/unit/training.cpp derives it).
napkin_check_output(cli.train.context_parallel
  COMMAND $<TARGET_FILE:napkin-cli> train --model megatron-22b --tp 8 --cp 2 --pp 1 --dp 1 --micro-batch 1
          --global-batch 1 --seq-len 2048 --compute-model flat --json
  EXPECT "\"cp\": 0.01462" "\"gpus\": 16" "\"nodes\": 2")
napkin_check_output(cli.train.error.context_parallel
  COMMAND $<TARGET_FILE:napkin-cli> train --model megatron-22b --tp 8 --cp 3 --global-batch 1 --seq-len 2048
  EXPECT "napkin: error: Parallelism.sequence = 2048: must be a multiple of cp = 3" EXIT_CODE 2)
# FP8 MFU is stated against both peaks, labelled: H100 SXM's FP8 peak (1,978.9 TFLOP/s) is twice its
# BF16 one (989), so the FP8-peak MFU is 989 / 1,978.9 = 0.49977 of the BF16-peak one.
napkin_check_output(cli.train.fp8_mfu_both_peaks
  COMMAND $<TARGET_FILE:napkin-cli> train --model llama3.1-8b --gpu h100-sxm --gpus-per-node 8 --tp 1 --dp 8
          --micro-batch 1 --global-batch 8 --seq-len 8192 --compute-dtype fp8
  EXPECT "FP8 GEMMs: MFU " "% of the BF16 peak, " "% of the FP8 peak")
napkin_check_output(cli.train.fp8_mfu_json_keys
  COMMAND $<TARGET_FILE:napkin-cli> train --model llama3.1-8b --gpu h100-sxm --gpus-per-node 8 --tp 1 --dp 8
          --micro-batch 1 --global-batch 8 --seq-len 8192 --compute-dtype fp8 --json
  EXPECT "\"mfu\"" "\"mfu_bf16_peak\"" "\"mfu_fp8_peak\"")
# Without FP8 tensor cores there is no FP8 peak: the key is null.
napkin_check_output(cli.train.fp8_mfu_null_on_a100
  COMMAND $<TARGET_FILE:napkin-cli> train --model gpt2-small --global-batch 8 --json
  EXPECT "\"mfu_fp8_peak\": null")
# --compute-dtype fp8 on a GPU without FP8 tensor cores is rejected naming the GPU.
napkin_check_output(cli.train.error.fp8_on_a100
  COMMAND $<TARGET_FILE:napkin-cli> train --model gpt3-175b --tp 8 --pp 16 --dp 8 --global-batch 1536
          --compute-dtype fp8
  EXPECT "napkin: error: --compute-dtype \"fp8\": a100-80gb-sxm has no FP8 tensor cores (use bf16 or fp16)"
  EXIT_CODE 2)
# The GEMM model is the default and says so; --peak-share (and --half-width, --memory-passes) select
# the flat model.
napkin_check_output(cli.train.compute_model
  COMMAND $<TARGET_FILE:napkin-cli> train --model gpt3-175b --tp 8 --pp 16 --dp 8 --global-batch 1536 --json
  EXPECT "\"compute_model\": \"gemm\"")
napkin_check_output(cli.train.compute_model_flat
  COMMAND $<TARGET_FILE:napkin-cli> train --model gpt3-175b --tp 8 --pp 16 --dp 8 --global-batch 1536
          --peak-share 0.6 --json
  EXPECT "\"compute_model\": \"flat\"")
# calibrate-training: the three GPT-3 rows of Narayanan et al. 2021 Table 2 (t8 p12, batch 1,536 on
# 384 / 768 / 1,536 A100s at 153 / 149 / 141 TFLOP/s per GPU: 96·B·s·l·h²(1 + s/6h + V/16lh)
# = 4.4999e18 FLOPs over those rates and GPUs = 76.780, 39.421, 20.829 s) fit the Ampere share and
# the element-wise passes (the Hopper share has no run and is not fitted).
napkin_check_output(cli.calibrate_training
  COMMAND $<TARGET_FILE:napkin-cli> calibrate-training ${CMAKE_CURRENT_SOURCE_DIR}/data/training-runs-gpt3.csv
  EXPECT "GPT-3 t8 p12 384 GPUs" "76.780s" "ampere share 0.6816" "(not fitted: no run on a later GPU)" "RMS 0.8")
# --cross-validate: each source (a row's label when it names none) left out and predicted by the rest.
napkin_check_output(cli.calibrate_training.cross_validate
  COMMAND $<TARGET_FILE:napkin-cli> calibrate-training ${CMAKE_CURRENT_SOURCE_DIR}/data/training-runs-gpt3.csv
          --cross-validate
  EXPECT "left out" "cross-validation: each source left out of the fit and predicted" "GPT-3 t8 p12 1536 GPUs"
         "left out: mean |error|")
# --defaults: napkin's own fitting rows (Narayanan Tables 1 and 2, the complete published runs: 26).
napkin_check_output(cli.calibrate_training.defaults_cross_validate
  COMMAND $<TARGET_FILE:napkin-cli> calibrate-training --defaults --cross-validate --json
  EXPECT "\"cross_validation\"" "\"left_out_mean\"" "\"source\": \"Narayanan 2021, Table 1\"" "\"rows\": 10")
napkin_check_output(cli.calibrate_training.error.runs_and_defaults
  COMMAND $<TARGET_FILE:napkin-cli> calibrate-training ${CMAKE_CURRENT_SOURCE_DIR}/data/training-runs-gpt3.csv
          --defaults
  EXPECT "napkin: error: RUNS \"" "give RUNS or --defaults, not both" EXIT_CODE 2)
napkin_check_output(cli.calibrate_training.error.rows
  COMMAND $<TARGET_FILE:napkin-cli> calibrate-training ${CMAKE_CURRENT_SOURCE_DIR}/data/training-runs-one-row.csv
  EXPECT "1 rows for 2 free parameters: give at least as many rows as parameters" EXIT_CODE 2)
napkin_check_output(cli.calibrate_training.error.field
  COMMAND $<TARGET_FILE:napkin-cli> calibrate-training
          ${CMAKE_CURRENT_SOURCE_DIR}/data/training-runs-unknown-field.csv
  EXPECT "napkin: error: row 1: unknown field \"speed\"" EXIT_CODE 2)
napkin_check_output(cli.calibrate_training.error.step
  COMMAND $<TARGET_FILE:napkin-cli> calibrate-training ${CMAKE_CURRENT_SOURCE_DIR}/data/training-runs-zero-step.csv
  EXPECT "napkin: error: row 2: field \"step_s\" = 0: must be positive" EXIT_CODE 2)
# A gradient format the data-parallel collectives do not carry (row 2's fp8) is named by row and field.
napkin_check_output(cli.calibrate_training.error.grad_reduce_dtype
  COMMAND $<TARGET_FILE:napkin-cli> calibrate-training ${CMAKE_CURRENT_SOURCE_DIR}/data/training-runs-fp8-reduce.csv
  EXPECT "napkin: error: row 2: field \"grad_reduce_dtype\" = \"fp8\": unknown" EXIT_CODE 2)
# --profile: a profile file replaces the defaults; an unknown field is named.
napkin_check_output(cli.train.profile
  COMMAND $<TARGET_FILE:napkin-cli> train --model gpt3-175b --tp 8 --pp 16 --dp 8 --global-batch 1536
          --profile ${CMAKE_CURRENT_SOURCE_DIR}/data/efficiency-profile-bad.json
  EXPECT "unknown field \"speed\" (ampere_share, hopper_share, memory_passes, eager_layer_overhead_ms)" EXIT_CODE 2)
napkin_check_output(cli.train.memory_allowances
  COMMAND $<TARGET_FILE:napkin-cli> train --model megatron-22b --tp 8 --pp 1 --dp 1 --micro-batch 4
          --global-batch 4 --sequence-parallel --recompute selective --grad-dtype fp32 --fragmentation 0.5 --json
  # 512 + 32 MiB = 570,425,344 B; one communicator (TP): 32 × 9,633,792 B = 308,281,344 B;
  # fp32 logits 4 · 2048 · 51,200/8 · 4 B = 209,715,200 B; fragmentation 0.5 × 10,267,656,192 B.
  EXPECT "\"cuda_context\": 570425344" "\"nccl_buffers\": 308281344" "\"loss_logits\": 209715200"
         "\"fragmentation\": 5133828096" "\"fits\": true")
napkin_check_output(cli.train.no_memory_allowances
  COMMAND $<TARGET_FILE:napkin-cli> train --model megatron-22b --tp 8 --pp 1 --dp 1 --micro-batch 4
          --global-batch 4 --sequence-parallel --recompute selective --grad-dtype fp32 --no-memory-allowances --json
  EXPECT "\"cuda_context\": 0" "\"nccl_buffers\": 0" "\"loss_logits\": 0" "\"activations\": 10267656192")
napkin_check_output(cli.train.error.fragmentation
  COMMAND $<TARGET_FILE:napkin-cli> train --model megatron-22b --tp 8 --global-batch 8 --fragmentation -0.1
  EXPECT "napkin: error: --fragmentation = -0.1: must not be negative" EXIT_CODE 2)
# Uneven pipelines (issue 15): GPT-2 XL's 48 layers on 5 stages need a layer map, and the error says so.
napkin_check_output(cli.train.error.layer_map_needed
  COMMAND $<TARGET_FILE:napkin-cli> train --model gpt2-xl --pp 5 --global-batch 5
  EXPECT "must divide the model's layers (48) unless a layer map places them (a layer_map, or first_stage_layers"
  EXIT_CODE 2)
# 1-30/31-48: stage 1 holds 30 layers, stage 2 the other 18 (and the LM head).
napkin_check_output(cli.train.layer_map
  COMMAND $<TARGET_FILE:napkin-cli> train --model gpt2-xl --pp 2 --global-batch 8 --layer-map 1-30/31-48
  EXPECT "stage 1: 30 layers (30 dense, 0 MoE)" "stage 2: 18 layers (18 dense, 0 MoE)")
napkin_check_output(cli.train.error.layer_map_repeat
  COMMAND $<TARGET_FILE:napkin-cli> train --model gpt2-xl --pp 2 --global-batch 8 --layer-map 1-30/30-48
  EXPECT "--layer-map stage 2 chunk 1 = \"30-48\": repeats layer 30" EXIT_CODE 2)
# The layer-map flags are one registration and one resolution (examples/cli/layer_map_flags.hpp): train, plan
# and schedule refuse a map with the shorthand in one shape, and a map's chunks against --vp or --chunks.
napkin_check_output(cli.train.error.layer_map_and_shorthand
  COMMAND $<TARGET_FILE:napkin-cli> train --model gpt2-xl --pp 2 --global-batch 8 --layer-map 1-30/31-48 --first-stage-layers 20
  EXPECT "napkin: error: --layer-map = \"1-30/31-48\": give --layer-map or --first-stage-layers/--last-stage-layers, not both"
  EXIT_CODE 2)
napkin_check_output(cli.plan.error.layer_map_and_shorthand
  COMMAND $<TARGET_FILE:napkin-cli> plan --model gpt2-xl --gpus 8 --global-batch 8 --layer-map 1-30/31-48 --last-stage-layers 20
  EXPECT "napkin: error: --layer-map = \"1-30/31-48\": give --layer-map or --first-stage-layers/--last-stage-layers, not both"
  EXIT_CODE 2)
napkin_check_output(cli.schedule.error.layer_map_and_shorthand
  COMMAND $<TARGET_FILE:napkin-cli> schedule --schedule 1f1b --stages 2 --microbatches 4 --layers 48 --layer-forward-ms 1
          --layer-backward-ms 2 --layer-map 1-30/31-48 --first-stage-layers 20
  EXPECT "napkin: error: --layer-map = \"1-30/31-48\": give --layer-map or --first-stage-layers/--last-stage-layers, not both"
  EXIT_CODE 2)
napkin_check_output(cli.train.error.layer_map_chunks
  COMMAND $<TARGET_FILE:napkin-cli> train --model gpt2-xl --pp 2 --vp 2 --global-batch 8 --layer-map 1-30/31-48
  EXPECT "napkin: error: --layer-map = \"1-30/31-48\": has 1 chunk per stage; --vp is 2" EXIT_CODE 2)
napkin_check_output(cli.schedule.error.layer_map_chunks
  COMMAND $<TARGET_FILE:napkin-cli> schedule --schedule interleaved --stages 2 --chunks 2 --microbatches 4 --layers 48
          --layer-forward-ms 1 --layer-backward-ms 2 --layer-map 1-30/31-48
  EXPECT "napkin: error: --layer-map = \"1-30/31-48\": has 1 chunk per stage; --chunks is 2" EXIT_CODE 2)
# Megatron's shorthand on 5 stages: 12 first, 12 last, (48 − 24) / 3 = 8 on each of the others.
napkin_check_output(cli.train.first_last_stage_layers
  COMMAND $<TARGET_FILE:napkin-cli> train --model gpt2-xl --pp 5 --global-batch 5 --first-stage-layers 12
          --last-stage-layers 12
  EXPECT "stage 1: 12 layers" "stage 2: 8 layers" "stage 5: 12 layers")
# DeepSeek-V3 (61 layers: 3 dense, 58 MoE) on 4 stages of 16/15/15/15, EP 8 inside the node, DP 32: expert
# data parallelism 32 / 8 = 4; Muon; the JSON lists the shared experts' op and the expert gradient sync.
napkin_check_output(cli.train.deepseek_v3_uneven_muon
  COMMAND $<TARGET_FILE:napkin-cli> train --model ${CMAKE_CURRENT_SOURCE_DIR}/data/deepseek_v3_config.json
          --pp 4 --dp 32 --ep 8 --global-batch 128 --seq-len 4096 --first-stage-layers 16 --last-stage-layers 15
          --optimizer muon --zero distributed --json
  EXPECT "\"optimizer\": \"muon\"" "\"expert_dp\": 4" "\"dense_layers\": 3" "\"op\": \"shared experts\""
         "\"name\": \"expert gradient sync\"" "\"name\": \"expert all-to-all\"")
napkin_check_output(cli.train.error.optimizer
  COMMAND $<TARGET_FILE:napkin-cli> train --model gpt2-small --optimizer sgd
  EXPECT "--optimizer = \"sgd\": must be adam or muon" EXIT_CODE 2)
# The reference's node stated inline (issue 15's flag names): GH200s, 4 a node, 150 GB/s NVLink pairs at
# 0.6 µs a step and one Slingshot-11 NIC per GPU, 200 Gb/s at 2.7 µs, are the catalog's nvlink4-gh200-pair
# and slingshot-11 (catalog/hardware.hpp): the three spellings print the same step (napkin's 1.8930 s for
# this layout; the equality is the check). By hand: the pipeline send is b·s·h·2 B = 2·4096·2048·2 =
# 33,554,432 B; the router GEMM (T, E, h) moves (8192·2048 + 2048·128 + 8192·128)·2 B = 36,175,872 B.
set(reference_train train --model ${CMAKE_CURRENT_SOURCE_DIR}/data/reference_moe_config.json --gpu gh200
    --gpus-per-node 4 --tp 1 --pp 4 --vp 2 --dp 256 --ep 4 --micro-batch 2 --global-batch 4096 --seq-len 4096
    --flash-attention --zero distributed --grad-dtype fp32 --optimizer muon --json
    --layer-map 1-6,25-29/7-12,30-35/13-18,36-41/19-24,42-45)
napkin_check_output(cli.train.reference_node_catalog
  COMMAND $<TARGET_FILE:napkin-cli> ${reference_train} --intra-link nvlink4-gh200-pair --inter-link slingshot-11
  EXPECT "\"step_s\": 1.89295437" "\"gpus_per_node\": 4" "\"bytes\": 33554432" "\"bytes\": 36175872")
napkin_check_output(cli.train.reference_node_inline
  COMMAND $<TARGET_FILE:napkin-cli> ${reference_train} --intra-link-bandwidth 150GB/s --intra-link-latency 0.6us
          --inter-link-bandwidth 200Gb/s --inter-link-latency 2.7us
  EXPECT "\"step_s\": 1.89295437" "\"gpus_per_node\": 4" "inline 25 GB/s, 2.70 µs" "inline 150 GB/s, 600.00 ns")
napkin_check_output(cli.train.reference_node_inline_short
  COMMAND $<TARGET_FILE:napkin-cli> ${reference_train} --intra-bandwidth 150GB/s --intra-latency 0.6us
          --inter-bandwidth 200Gb/s --inter-latency 2.7us
  EXPECT "\"step_s\": 1.89295437")
napkin_check_output(cli.train.error.link_both_spellings
  COMMAND $<TARGET_FILE:napkin-cli> train --model gpt2-small --intra-bandwidth 150GB/s --intra-link-bandwidth 150GB/s
          --intra-link-latency 1us
  EXPECT "napkin: error: --intra-link-bandwidth = \"150GB/s\": give --intra-bandwidth or --intra-link-bandwidth, not both"
  EXIT_CODE 2)
napkin_check_output(cli.train.error.link_latency_missing
  COMMAND $<TARGET_FILE:napkin-cli> train --model gpt2-small --inter-link-bandwidth 200Gb/s
  EXPECT "napkin: error: --inter-link-bandwidth needs --inter-link-latency" EXIT_CODE 2)
# PyTorch's early-stopping recomputation and the gradients' format on the wire, echoed in the options;
# a format the collectives do not carry is rejected naming the flag.
napkin_check_output(cli.train.recompute_early_stop
  COMMAND $<TARGET_FILE:napkin-cli> train --model gpt2-small --dp 8 --global-batch 64 --recompute full
          --recompute-early-stop --grad-dtype fp32 --grad-reduce-dtype bf16 --json
  EXPECT "\"recompute_early_stop\": true" "\"gradient_reduce_dtype\": \"bf16\"")
napkin_check_output(cli.train.error.grad_reduce_dtype
  COMMAND $<TARGET_FILE:napkin-cli> train --model gpt2-small --grad-reduce-dtype fp8
  EXPECT "--grad-reduce-dtype \"fp8\": must be bf16, fp16 or fp32" EXIT_CODE 2)
# --comm-sms: the SMs a collective holds while it overlaps compute must leave the GPU some (an A100
# has 108, its data sheet); the flag as typed and its value in one line.
napkin_check_output(cli.train.error.comm_sms
  COMMAND $<TARGET_FILE:napkin-cli> train --model gpt2-small --comm-sms 108
  EXPECT "--comm-sms 108: must be at least 0 and below a100-80gb-sxm's 108 SMs" EXIT_CODE 2)
# With free overlap (--comm-sms 0) GPT-3 175B on 1,024 A100s ranks ZeRO-3 first (t4 p1 d256: every
# weight gather hidden under the layers' compute); at the default 20 SMs ZeRO-2 with t4 p4 d64 wins. README
# ("Why the plan's row beats the published layout") quotes the free-overlap row's 63.0 % MFU.
napkin_check_output(cli.plan.comm_sms_free_overlap
  COMMAND $<TARGET_FILE:napkin-cli> plan --model gpt3-175b --gpu a100-80gb-sxm --gpus 1024 --gpus-per-node 8
          --intra-link nvlink3 --inter-link ib-hdr --global-batch 1536 --top 1 --comm-sms 0
  EXPECT "1  t4  p1   d256" "zero 3" "63.0%")
napkin_check_output(cli.plan.comm_sms_default
  COMMAND $<TARGET_FILE:napkin-cli> plan --model gpt3-175b --gpu a100-80gb-sxm --gpus 1024 --gpus-per-node 8
          --intra-link nvlink3 --inter-link ib-hdr --global-batch 1536 --top 1
  EXPECT "1  t4  p4   d64" "zero 2")
# train's defaults follow current practice and are printed: Llama 3.1 8B states 131,072 positions, so
# sequences of 8,192 tokens (Llama 3's pretraining length); flash attention; sequence parallelism
# with --tp 2. GPT-3 states no context: 2,048 tokens (its n_ctx), and at --tp 1 no sequence parallelism.
napkin_check_output(cli.train.defaults_current_practice
  COMMAND $<TARGET_FILE:napkin-cli> train --model llama3.1-8b --tp 2 --dp 4 --global-batch 64
  EXPECT "seq 8,192, flash on, sp on, recompute none, zero 0")
napkin_check_output(cli.train.defaults_unstated_context
  COMMAND $<TARGET_FILE:napkin-cli> train --model gpt3-175b --tp 1 --pp 96 --dp 1 --global-batch 96
  EXPECT "seq 2,048, flash on, sp off, recompute none, zero 0")
napkin_check_output(cli.train.defaults_turned_off
  COMMAND $<TARGET_FILE:napkin-cli> train --model llama3.1-8b --tp 2 --dp 4 --global-batch 64 --seq-len 4096
          --no-flash-attention --no-sequence-parallel --json
  EXPECT "\"sequence\": 4096" "\"flash_attention\": false" "\"sequence_parallel\": false")
# --tp-comm all-reduce without a word on sequence parallelism: the default gives way (it needs rs-ag).
napkin_check_output(cli.train.defaults_all_reduce
  COMMAND $<TARGET_FILE:napkin-cli> train --model llama3.1-8b --tp 2 --dp 4 --global-batch 64
          --tp-comm all-reduce
  EXPECT "sp off")
napkin_check_output(cli.train.error.flash_both
  COMMAND $<TARGET_FILE:napkin-cli> train --model llama3.1-8b --flash-attention --no-flash-attention
  EXPECT "--flash-attention excludes --no-flash-attention" EXIT_CODE 2)
# plan's --seq-len defaults the same way: the header says the batch in tokens, 256 × 8,192.
napkin_check_output(cli.plan.default_sequence
  COMMAND $<TARGET_FILE:napkin-cli> plan --model llama3.1-8b --gpus 16 --global-batch 256 --top 1
  EXPECT "batch 256 x 8,192 tokens")
# A --seq-len beyond the config's max_position_embeddings (Gemma 2 2B: 8,192) is priced as asked, and said.
napkin_check_output(cli.train.seq_len_beyond_positions
  COMMAND $<TARGET_FILE:napkin-cli> train --model ${CMAKE_CURRENT_SOURCE_DIR}/data/gemma2_2b_config.json --tp 2 --dp 4
          --micro-batch 1 --global-batch 8 --seq-len 16384
  EXPECT "note: seq 16,384 is beyond the model's 8,192 positions (context extension)")
