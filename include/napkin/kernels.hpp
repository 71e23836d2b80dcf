// SPDX-License-Identifier: MIT
// napkin/kernels.hpp — the kernel layer: what one GPU kernel takes, from its
// shape, precision and GPU, at the ceilings of published kernel measurements
// (KernelProfile::measured) or at the data sheet's (KernelProfile::roofline,
// the lesson's closed forms):
//   kernel_gemm_time        a GEMM of M × N × K (skinny ones bound by the weight read),
//   flash_attention_times   training/prefill attention, forward and backward,
//   decode_attention_time   paged decode attention over the KV cache,
//   memory_pass_time        an element-wise or normalisation pass,
//   launch_cost             what each kernel adds.
#pragma once

#include <napkin/kernels/attention.hpp>
#include <napkin/kernels/gemm.hpp>
#include <napkin/kernels/gemm_ceiling.hpp>
#include <napkin/kernels/hockney.hpp>
#include <napkin/kernels/launch.hpp>
#include <napkin/kernels/memory_pass.hpp>
#include <napkin/kernels/profile.hpp>
