// libFuzzer target: random shapes, layouts, clusters and options fed to the
// public model functions. Counts are drawn from small ranges, from powers of
// two up to 2^62 and from all of int64; reals from normal ranges and from the
// edges (0, denormals, 1e308, ±inf, nan). Each call ends in a result that
// passes the invariants (finite, non-negative, parts adding up to their
// totals) or in a napkin::invalid_argument; anything else aborts.
#include <napkin/catalog/hardware.hpp>
#include <napkin/collectives.hpp>
#include <napkin/inference.hpp>
#include <napkin/inference_planner.hpp>
#include <napkin/memory.hpp>
#include <napkin/pipeline.hpp>
#include <napkin/schedule.hpp>
#include <napkin/training.hpp>

#include <fuzzer/FuzzedDataProvider.h>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <limits>

using namespace napkin;

namespace {
long long any_count(FuzzedDataProvider& in, long long small = 64) {
    switch (in.ConsumeIntegralInRange(0, 7)) {
        case 0: return in.ConsumeIntegral<long long>();
        case 1: return 1LL << in.ConsumeIntegralInRange(0, 62);
        case 2: return (1LL << in.ConsumeIntegralInRange(0, 62)) + in.ConsumeIntegralInRange(-1, 1);
        default: return in.ConsumeIntegralInRange<long long>(0, small);
    }
}
double any_real(FuzzedDataProvider& in, double low, double high) {
    switch (in.ConsumeIntegralInRange(0, 9)) {
        case 0: return in.PickValueInArray({0.0, -0.0, 1e-320, -1.0, 1e308, std::numeric_limits<double>::infinity(),
                                            -std::numeric_limits<double>::infinity(),
                                            std::numeric_limits<double>::quiet_NaN(), 2.3e-308, 1e18, 1e21});
        case 1: return in.ConsumeFloatingPoint<double>();
        default: return in.ConsumeFloatingPointInRange(low, high);
    }
}
void check(bool ok) {
    if (!ok) std::abort();
}
void check_time(Seconds t) { check(std::isfinite(t.value()) && t.value() >= 0.0); }
void check_bytes(Bytes b) { check(std::isfinite(b.value()) && b.value() >= 0.0); }
bool close(double a, double b) { return std::abs(a - b) <= 1e-9 * std::max({1.0, std::abs(a), std::abs(b)}); }

TransformerShape any_model(FuzzedDataProvider& in) {
    TransformerShape m{.name = "fuzz", .layers = any_count(in, 96), .hidden = any_count(in, 8192),
                       .ffn = any_count(in, 32768), .heads = any_count(in, 64), .kv_heads = any_count(in, 64),
                       .head_dim = in.ConsumeBool() ? 0 : any_count(in, 256), .vocabulary = any_count(in, 200000)};
    m.tied_embeddings = in.ConsumeBool();
    m.feed_forward = in.ConsumeBool() ? FeedForward::gated : FeedForward::plain;
    m.biases = in.ConsumeBool();
    m.learned_positions = in.ConsumeBool() ? 0 : any_count(in, 4096);
    if (in.ConsumeBool()) {
        m.experts = any_count(in, 64);
        m.experts_per_token = any_count(in, 8);
        m.expert_ffn = any_count(in, 16384);
    }
    return m;
}
Link any_link(FuzzedDataProvider& in) {
    return Link{"fuzz", bytes_per_second(any_real(in, 1e8, 1e13)), seconds(any_real(in, 0.0, 1e-3))};
}
Gpu any_gpu(FuzzedDataProvider& in) {
    return Gpu{"fuzz", bytes(any_real(in, 1e9, 1e12)), any_real(in, 0.01, 1.0), bytes_per_second(any_real(in, 1e11, 1e13)),
               flops_per_second(any_real(in, 1e12, 1e16))};
}
Parallelism any_layout(FuzzedDataProvider& in) {
    Parallelism p{.tp = any_count(in, 8), .pp = any_count(in, 8), .dp = any_count(in, 8), .ep = any_count(in, 4),
                  .cp = any_count(in, 4), .virtual_stages = any_count(in, 4), .micro_batch = any_count(in, 8),
                  .global_batch = any_count(in, 512), .sequence = any_count(in, 8192)};
    p.schedule = static_cast<ScheduleKind>(in.ConsumeIntegralInRange(0, 7));
    p.sequence_parallel = in.ConsumeBool();
    p.recompute = static_cast<Recompute>(in.ConsumeIntegralInRange(0, 2));
    p.sharding = static_cast<Sharding>(in.ConsumeIntegralInRange(0, 4));
    p.flash_attention = in.ConsumeBool();
    p.weights = static_cast<DType>(in.ConsumeIntegralInRange(0, 4));
    p.gradients = static_cast<DType>(in.ConsumeIntegralInRange(0, 4));
    return p;
}

void collectives(FuzzedDataProvider& in) {
    const Link link = any_link(in);
    const Bytes m = bytes(any_real(in, 0.0, 1e11));
    const long long n = any_count(in, 4096);
    for (int op = 0; op < 5; ++op) {
        const CollectiveTime t = collective_time(static_cast<Collective>(op), m, n, link);
        check_time(t.latency);
        check_time(t.bandwidth);
    }
    check_time(tree_all_reduce(m, n, link).total());
    if (const auto x = ring_tree_crossover(n, link)) check_bytes(*x);
    const HierarchicalTopology h{.nodes = any_count(in, 64), .gpus_per_node = any_count(in, 16), .intra = link,
                                 .inter = any_link(in), .nic = in.ConsumeBool() ? Nic::per_gpu : Nic::per_node,
                                 .oversubscription = any_real(in, 1.0, 8.0)};
    check_time(hierarchical_all_reduce(m, h).total());
}

void pipelines(FuzzedDataProvider& in) {
    const PipelineShape s{any_count(in, 16), any_count(in, 64), any_count(in, 4)};
    const Seconds f = seconds(any_real(in, 0.0, 10.0));
    const StageTimes t{f, f * any_real(in, 1.0, 3.0), Seconds{}};
    const long long extra = in.ConsumeBool() ? 0 : any_count(in, 8);
    const Seconds closed = step_time(Interleaved{.extra_warmup = extra}, s, t);
    check_time(closed);
    check_time(step_time(OneFOneB{}, PipelineShape{s.stages, s.microbatches, 1}, t));
    long long passes = 0;
    if (!__builtin_mul_overflow(s.stages, s.microbatches, &passes) &&
        !__builtin_mul_overflow(passes, s.chunks, &passes) && passes <= 4096) {
        const Timeline sim = simulate(Interleaved{.extra_warmup = extra}, s, t);
        check_time(sim.step_time());
        if (extra == 0 && (s.chunks == 1 || s.microbatches % s.stages == 0))
            check(close(sim.step_time().value(), closed.value()));  // the closed form on uniform stages
    }
}

void training(FuzzedDataProvider& in) {
    const TransformerShape m = any_model(in);
    const Parallelism par = any_layout(in);
    Node node{"fuzz", any_gpu(in), any_count(in, 8), any_link(in), any_link(in),
              in.ConsumeBool() ? Nic::per_gpu : Nic::per_node};
    const Cluster c{node, any_count(in, 16)};
    TrainingOptions o;
    o.overlap_dp = in.ConsumeBool();
    o.causal = in.ConsumeBool();
    o.tp_communication = static_cast<TpCommunication>(in.ConsumeIntegralInRange(0, 2));
    const TrainingEstimate e = evaluate_training(m, c, par, o);
    const StepBreakdown& b = e.breakdown;
    double sum = 0.0;
    for (const Seconds& part : {b.compute, b.recompute, b.tp, b.pp, b.bubble, b.dp, b.ep, b.cp, b.optimizer}) {
        check_time(part);
        sum += part.value();
    }
    check(close(e.step.value(), sum));
    check(e.step.value() > 0.0);
    // The total is every part: the model's four and the allowances a real run adds (memory.hpp's
    // MemoryAllowances: CUDA context, NCCL buffers, the loss's logits, fragmentation).
    double memory = 0.0;
    for (const Bytes& part : {e.memory.weights, e.memory.gradients, e.memory.optimizer, e.memory.activations,
                              e.memory.cuda_context, e.memory.nccl_buffers, e.memory.loss_logits,
                              e.memory.fragmentation}) {
        check_bytes(part);
        memory += part.value();
    }
    check(close(e.memory.total().value(), memory));
    check(std::isfinite(e.tokens_per_second.value()) && e.tokens_per_second.value() > 0.0);
    check(std::isfinite(e.mfu) && e.mfu >= 0.0);
}

void inference(FuzzedDataProvider& in) {
    const TransformerShape m = any_model(in);
    const Gpu gpu = any_gpu(in);
    const Link link = any_link(in);
    InferenceSetup setup = lesson_setup;
    setup.context = tokens(any_real(in, 1.0, 1e7));
    const long long n = any_count(in, 64);
    const InferenceMemory mem = memory_per_gpu(m, n, setup);
    check_bytes(mem.weights);
    check_bytes(mem.kv_cache);
    check(close(mem.total().value(), mem.weights.value() + mem.kv_cache.value() + mem.working.value()));
    const TokenTime t = token_time(m, gpu, link, {n, in.ConsumeBool() ? Split::tensor : Split::pipeline,
                                                  any_count(in, 64)}, setup);
    check_time(t.read);
    check_time(t.transfer);
    const auto fewest = fewest_gpus(m, gpu, setup, any_count(in, 4096));
    if (fewest) check(*fewest >= 1 && fits(m, gpu, *fewest, setup));
    // The scan tries every count up to its cap (2^20); beyond it is rejected at once.
    const long long scan = any_count(in, 64);
    if (scan <= 256 || scan > limits::gpu_scan) {
        const auto best = best_gpu_count(m, gpu, link, {.max_gpus = scan}, setup);
        if (best) check_time(best->time.total());
    }
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    FuzzedDataProvider in(data, size);
    try {
        switch (in.ConsumeIntegralInRange(0, 3)) {
            case 0: collectives(in); break;
            case 1: pipelines(in); break;
            case 2: training(in); break;
            default: inference(in); break;
        }
    } catch (const napkin::invalid_argument&) {
    }
    return 0;
}
