// SPDX-License-Identifier: MIT
// napkin/napkin.hpp — every model and planner header (DESIGN.md, layers 0 to 4):
// no validation (the measured runs, napkin/validation/) and no I/O (napkin/io/).
#pragma once

#include <napkin/catalog/clusters.hpp>
#include <napkin/catalog/hardware.hpp>
#include <napkin/catalog/models.hpp>
#include <napkin/collectives.hpp>
#include <napkin/communication_budget.hpp>
#include <napkin/compute.hpp>
#include <napkin/error.hpp>
#include <napkin/gemm.hpp>
#include <napkin/hardware.hpp>
#include <napkin/inference.hpp>
#include <napkin/inference_planner.hpp>
#include <napkin/kernels.hpp>
#include <napkin/memory.hpp>
#include <napkin/model.hpp>
#include <napkin/nccl_cluster.hpp>
#include <napkin/parallelism.hpp>
#include <napkin/pipeline.hpp>
#include <napkin/planner.hpp>
#include <napkin/schedule.hpp>
#include <napkin/serving.hpp>
#include <napkin/serving/disaggregation.hpp>
#include <napkin/serving/engine.hpp>
#include <napkin/training.hpp>
#include <napkin/units.hpp>
