// SPDX-License-Identifier: MIT
// napkin/training.hpp — one training iteration of a TP × PP × DP (× EP)
// layout: memory per GPU, the step time and where it goes, tokens per second
// and MFU, from one call:
//
//   const TrainingEstimate e = evaluate_training(catalog::gpt3_175b,
//       cluster_of(catalog::dgx_a100, 128),
//       Parallelism{.tp = 8, .pp = 16, .dp = 8, .global_batch = 1536, .recompute = Recompute::full});
//
// The step is Megatron-LM's (Narayanan et al. 2021, SC'21, Sec. 2–3): each
// of the m = B / (b·d) micro-batches runs forward and backward through the
// slowest stage's L/p layers, with tensor-parallel collectives inside every
// layer, activations handed between stages, the pipeline bubble, then the
// data-parallel gradient synchronisation and the optimizer step (with context
// parallelism, also ring attention's K/V exchange). The bubble is
// the one of the layout's pipeline schedule (Parallelism::schedule: 1F1B,
// interleaved, zero-bubble ZB-H1/H2, DualPipe/V), from napkin/pipeline.hpp.
// The parts are kept apart and add up to the total. No allocation, constexpr
// throughout.
//
// The model lives in napkin/training/, one idea per header, the entry point
// first:
//   evaluate.hpp     evaluate_training
//   options.hpp      TrainingOptions, StepBreakdown, TrainingEstimate
//   microbatch.hpp   one micro-batch's parts, the stage times, the bubble
//   step.hpp         gradient synchronisation and the optimizer step
//   matrix_work.hpp  the GEMM model or a flat share of peak, FP8
//   stages.hpp       a layer map's stages, each priced from its layers
//   ops.hpp          the step's ops and collectives one by one
#pragma once

#include <napkin/training/evaluate.hpp>
#include <napkin/training/ops.hpp>
#include <napkin/training/options.hpp>
