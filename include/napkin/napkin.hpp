// SPDX-License-Identifier: MIT
// napkin/napkin.hpp — every model header (no I/O: readers and writers are in napkin/io/).
#pragma once

#include <napkin/units.hpp>
#include <napkin/error.hpp>
#include <napkin/hardware.hpp>
#include <napkin/model.hpp>
#include <napkin/catalog/hardware.hpp>
#include <napkin/catalog/models.hpp>
#include <napkin/catalog/clusters.hpp>
#include <napkin/catalog/megatron_runs.hpp>
#include <napkin/catalog/measured_runs.hpp>
#include <napkin/collectives.hpp>
#include <napkin/nccl_cluster.hpp>
#include <napkin/communication_budget.hpp>
#include <napkin/parallelism.hpp>
#include <napkin/memory.hpp>
#include <napkin/compute.hpp>
#include <napkin/gemm.hpp>
#include <napkin/kernels.hpp>
#include <napkin/measured_run.hpp>
#include <napkin/training.hpp>
#include <napkin/inference.hpp>
#include <napkin/serving.hpp>
#include <napkin/serving/engine.hpp>
#include <napkin/serving/measured.hpp>
#include <napkin/pipeline.hpp>
#include <napkin/schedule.hpp>
#include <napkin/inference_planner.hpp>
#include <napkin/planner.hpp>
