// Collectives (napkin/collectives.hpp) and the communication budget
// (napkin/communication_budget.hpp) from Python: the communication lab.
#include "bindings.hpp"

#include <napkin/collectives.hpp>
#include <napkin/communication_budget.hpp>
#include <napkin/inference.hpp>
#include <napkin/parallelism.hpp>

#include <string>
#include <variant>

namespace napkin::python {

namespace {

const char* const message_doc = "message: bytes (float); ranks: int; link: Link; base_latency: seconds paid once "
                                "per call (float, default 0). Returns CollectiveTime (seconds).";

// The collective policies a Python caller may pass where C++ takes a CollectivePolicy.
using Policy = std::variant<Ring, Tree, Hierarchical, NcclModel>;

template <class F>
CollectiveTime with_policy(const Policy& p, F&& f) {
    return std::visit([&](const auto& policy) { return f(policy); }, p);
}

}  // namespace

void bind_collectives(py::module_& m) {
    Struct<CollectiveTime>(m, "CollectiveTime", "A collective's time: latency + bandwidth (seconds).")
        .quantity("latency", &CollectiveTime::latency, Kind::seconds, "base + steps × α")
        .quantity("bandwidth", &CollectiveTime::bandwidth, Kind::seconds, "bytes on the wire ÷ B")
        .computed("total", [](const CollectiveTime& t) { return t.total().value(); }, Kind::seconds,
                  "latency + bandwidth")
        .computed("bandwidth_share", &CollectiveTime::bandwidth_share, Kind::plain, "bandwidth ÷ total")
        .finish()
        .def("__add__", [](const CollectiveTime& a, const CollectiveTime& b) { return a + b; });

    const auto collective_choices = choices_of(Collective::all_reduce, Collective::reduce_scatter,
                                               Collective::all_gather, Collective::all_to_all, Collective::broadcast);
    const auto nic_choices = [] {
        Choices<Nic> c{{{Nic::per_gpu, "per-gpu"}, {Nic::per_node, "per-node"}}};
        c.aliases = {{"shared", Nic::per_node}};
        return c;
    }();

    // The free functions, with C++'s names and arguments.
    m.def("ring_allreduce", [](double message, long long ranks, const Link& link, double base) {
              return ring_all_reduce(bytes(message), ranks, link, seconds(base));
          }, py::arg("message"), py::arg("ranks"), py::arg("link"), py::arg("base_latency") = 0.0,
          (std::string("Ring all-reduce: 2(n−1) steps, 2(n−1)/n · M/B. ") + message_doc).c_str());
    m.def("tree_allreduce", [](double message, long long ranks, const Link& link, double base) {
              return tree_all_reduce(bytes(message), ranks, link, seconds(base));
          }, py::arg("message"), py::arg("ranks"), py::arg("link"), py::arg("base_latency") = 0.0,
          (std::string("Tree all-reduce: 2⌈log₂ n⌉ levels, each α + M/B. ") + message_doc).c_str());
    m.def("reduce_scatter", [](double message, long long ranks, const Link& link, double base) {
              return reduce_scatter(bytes(message), ranks, link, seconds(base));
          }, py::arg("full_buffer"), py::arg("ranks"), py::arg("link"), py::arg("base_latency") = 0.0,
          (std::string("Ring reduce-scatter of the full buffer: n−1 steps, (n−1)/n · M/B. ") + message_doc).c_str());
    m.def("all_gather", [](double message, long long ranks, const Link& link, double base) {
              return all_gather(bytes(message), ranks, link, seconds(base));
          }, py::arg("full_buffer"), py::arg("ranks"), py::arg("link"), py::arg("base_latency") = 0.0,
          (std::string("Ring all-gather of the full buffer: n−1 steps, (n−1)/n · M/B. ") + message_doc).c_str());
    m.def("all_to_all", [](double message, long long ranks, const Link& link, double base) {
              return all_to_all(bytes(message), ranks, link, seconds(base));
          }, py::arg("per_rank_buffer"), py::arg("ranks"), py::arg("link"), py::arg("base_latency") = 0.0,
          (std::string("All-to-all: n−1 steps, (n−1)/n of each rank's buffer. ") + message_doc).c_str());
    m.def("broadcast", [](double message, long long ranks, const Link& link, double base) {
              return broadcast(bytes(message), ranks, link, seconds(base));
          }, py::arg("message"), py::arg("ranks"), py::arg("link"), py::arg("base_latency") = 0.0,
          (std::string("Pipelined broadcast: n−1 hops, M/B. ") + message_doc).c_str());
    m.def("point_to_point", [](double message, const Link& link, double base) {
              return point_to_point(bytes(message), link, seconds(base));
          }, py::arg("message"), py::arg("link"), py::arg("base_latency") = 0.0,
          "One send: α + M/B. message: bytes; base_latency: seconds. Returns CollectiveTime.");
    m.def("ring_tree_crossover", [](long long ranks, const Link& link, double base) -> std::optional<double> {
              const auto m_star = ring_tree_crossover(ranks, link, seconds(base));
              if (!m_star) return std::nullopt;
              return m_star->value();
          }, py::arg("ranks"), py::arg("link"), py::arg("base_latency") = 0.0,
          "The message size (bytes, float) at which ring and tree all-reduce cost the same; the tree wins "
          "below it. None where one always wins.");
    m.def("collective_time", [collective_choices](const py::object& op, double message, long long ranks,
                                                  const Link& link, double base) {
              return collective_time(collective_choices.parse(op, "op"), bytes(message), ranks, link, seconds(base));
          }, py::arg("op"), py::arg("message"), py::arg("ranks"), py::arg("link"), py::arg("base_latency") = 0.0,
          ("A collective by name (" + collective_choices.listing() + "), ring algorithms. " + message_doc).c_str());
    m.def("latency_steps", [collective_choices](const py::object& op, long long ranks) {
              return latency_steps(collective_choices.parse(op, "op"), ranks);
          }, py::arg("op"), py::arg("ranks"), "Latency steps of the ring form: 2(n−1) for all-reduce, n−1 otherwise.");
    m.def("bus_bandwidth_factor", [collective_choices](const py::object& op, long long ranks) {
              return bus_bandwidth_factor(collective_choices.parse(op, "op"), ranks);
          }, py::arg("op"), py::arg("ranks"), "nccl-tests' busbw ÷ algbw: 2(n−1)/n for all-reduce.");
    m.def("algorithm_bandwidth", [](double size, double time) {
              return algorithm_bandwidth(bytes(size), seconds(time)).value();
          }, py::arg("size"), py::arg("time"), "size (bytes) ÷ time (seconds): nccl-tests' algbw, bytes/s.");
    m.def("bus_bandwidth", [collective_choices](const py::object& op, long long ranks, double size, double time) {
              return bus_bandwidth(collective_choices.parse(op, "op"), ranks, bytes(size), seconds(time)).value();
          }, py::arg("op"), py::arg("ranks"), py::arg("size"), py::arg("time"),
          "nccl-tests' busbw (bytes/s) from size (bytes) and time (seconds).");

    Struct<HierarchicalTopology>(m, "HierarchicalTopology", "nodes × gpus_per_node GPUs, two link levels.")
        .value("nodes", &HierarchicalTopology::nodes, "nodes")
        .value("gpus_per_node", &HierarchicalTopology::gpus_per_node, "GPUs per node")
        .value("intra", &HierarchicalTopology::intra, "GPU to GPU inside a node (Link)")
        .value("inter", &HierarchicalTopology::inter, "node to node, per NIC (Link)")
        .choice("nic", &HierarchicalTopology::nic, nic_choices, "one NIC per GPU or one per node")
        .value("oversubscription", &HierarchicalTopology::oversubscription, "r in r:1; 1 is full bisection")
        .finish([](const HierarchicalTopology& t) { (void)validated(t); });
    m.def("inter_node_link", &inter_node_link, py::arg("topology"),
          "The link one GPU's traffic sees across nodes: NIC bandwidth ÷ sharers ÷ oversubscription.");
    m.def("hierarchical_allreduce", [](double message, const HierarchicalTopology& t, double base) {
              return hierarchical_all_reduce(bytes(message), t, seconds(base));
          }, py::arg("message"), py::arg("topology"), py::arg("base_latency") = 0.0,
          "Reduce-scatter inside each node, ring all-reduce of 1/g across nodes, all-gather inside. "
          "message: bytes; base_latency: seconds. Returns CollectiveTime.");
    m.def("lab_hierarchical_allreduce", [](double message, const HierarchicalTopology& t) {
              return all_reduce_inside_then_shard_across(bytes(message), t);
          }, py::arg("message"), py::arg("topology"),
          "The communication lab's formula: ring all-reduce inside, then across of M/g (no closing all-gather).");
    m.def("hierarchical_reduce_scatter", [](double message, const HierarchicalTopology& t, double base) {
              return hierarchical_reduce_scatter(bytes(message), t, seconds(base));
          }, py::arg("full_buffer"), py::arg("topology"), py::arg("base_latency") = 0.0,
          "Two-level reduce-scatter. full_buffer: bytes; base_latency: seconds.");
    m.def("hierarchical_all_gather", [](double message, const HierarchicalTopology& t, double base) {
              return hierarchical_all_gather(bytes(message), t, seconds(base));
          }, py::arg("full_buffer"), py::arg("topology"), py::arg("base_latency") = 0.0,
          "Two-level all-gather. full_buffer: bytes; base_latency: seconds.");

    // The policies.
    py::class_<Ring>(m, "Ring", "Ring algorithms with a base latency (seconds) per call.")
        .def(py::init([](double base) { return Ring{seconds(base)}; }), py::arg("base_latency") = 0.0)
        .def_property_readonly("base_latency", [](const Ring& r) { return r.base_latency.value(); })
        .def("__repr__", [](const Ring& r) { return "Ring(base_latency=" + to_string(r.base_latency) + ")"; });
    py::class_<Tree>(m, "Tree", "Tree all-reduce, ring reduce-scatter/all-gather, base latency (seconds).")
        .def(py::init([](double base) {
                 Tree t;
                 t.base_latency = seconds(base);
                 return t;
             }), py::arg("base_latency") = 0.0)
        .def_property_readonly("base_latency", [](const Tree& r) { return r.base_latency.value(); })
        .def("__repr__", [](const Tree& r) { return "Tree(base_latency=" + to_string(r.base_latency) + ")"; });
    py::class_<Hierarchical>(m, "Hierarchical",
                             "Two-level collectives: the ranks fill nodes of gpus_per_node; the link a call gets is "
                             "the one inside a node, `inter` the one across.")
        .def(py::init([nic_choices](long long g, const Link& inter, const py::object& nic, double r, double base) {
                 return Hierarchical{g, validated(inter), nic_choices.parse(nic, "Hierarchical.nic"), r, seconds(base)};
             }), py::arg("gpus_per_node") = 8, py::arg("inter"), py::arg("nic") = "per-gpu",
             py::arg("oversubscription") = 1.0, py::arg("base_latency") = 0.0)
        .def("__repr__", [](const Hierarchical& h) {
            return "Hierarchical(gpus_per_node=" + std::to_string(h.gpus_per_node) + ", inter=" +
                   std::string(h.inter.name) + ")";
        });
    const auto transport_choices = choices_of(Transport::nvlink, Transport::pcie, Transport::network);
    py::class_<NcclModel>(m, "NcclModel",
                          "NCCL's choice: the fastest of ring/tree × LL/LL128/Simple by NCCL's tuning tables.")
        .def(py::init([transport_choices](const py::object& t) {
                 return NcclModel{transport_choices.parse(t, "transport")};
             }), py::arg("transport") = "nvlink", ("transport: " + transport_choices.listing()).c_str())
        .def_property_readonly("transport", [](const NcclModel& n) { return std::string(to_string(n.transport)); })
        .def("choose", [](const NcclModel& n, double message, long long ranks, const Link& link) {
                 return n.choose(bytes(message), ranks, link);
             }, py::arg("message"), py::arg("ranks"), py::arg("link"),
             "The fastest algorithm and protocol on one link. message: bytes. Returns NcclChoice.")
        .def("choose", [](const NcclModel& n, double message, const HierarchicalTopology& t) {
                 return n.choose(bytes(message), t);
             }, py::arg("message"), py::arg("topology"),
             "The fastest algorithm and protocol across nodes. message: bytes. Returns NcclChoice.")
        .def("__repr__", [](const NcclModel& n) { return "NcclModel(transport='" + std::string(to_string(n.transport)) + "')"; });

    py::class_<NcclChoice>(m, "NcclChoice", "NCCL's pick: algorithm, protocol and the time it takes.")
        .def_property_readonly("algorithm", [](const NcclChoice& c) { return std::string(to_string(c.algorithm)); })
        .def_property_readonly("protocol", [](const NcclChoice& c) { return std::string(to_string(c.protocol)); })
        .def_readonly("time", &NcclChoice::time, "CollectiveTime (seconds)")
        .def("__repr__", [](const NcclChoice& c) {
            return "NcclChoice(algorithm='" + std::string(to_string(c.algorithm)) + "', protocol='" +
                   std::string(to_string(c.protocol)) + "', time=" + to_string(c.time.total()) + ")";
        });

    const auto algorithm_choices = choices_of(NcclAlgorithm::ring, NcclAlgorithm::tree);
    const auto protocol_choices = choices_of(NcclProtocol::ll, NcclProtocol::ll128, NcclProtocol::simple);
    m.def("nccl_allreduce", [=](double message, long long ranks, const Link& link, const py::object& transport,
                                const py::object& algorithm, const py::object& protocol) {
              return nccl_all_reduce(bytes(message), ranks, link, transport_choices.parse(transport, "transport"),
                                    algorithm_choices.parse(algorithm, "algorithm"),
                                    protocol_choices.parse(protocol, "protocol"));
          }, py::arg("message"), py::arg("ranks"), py::arg("link"), py::arg("transport"), py::arg("algorithm"),
          py::arg("protocol"),
          "NCCL's all-reduce on one link for one algorithm (ring, tree) and protocol (LL, LL128, Simple); "
          "transport nvlink, pcie or network. message: bytes. Returns CollectiveTime.");
    m.def("nccl_allreduce", [=](double message, const HierarchicalTopology& t, const py::object& transport,
                                const py::object& algorithm, const py::object& protocol) {
              return nccl_all_reduce(bytes(message), t, transport_choices.parse(transport, "intra_transport"),
                                    algorithm_choices.parse(algorithm, "algorithm"),
                                    protocol_choices.parse(protocol, "protocol"));
          }, py::arg("message"), py::arg("topology"), py::arg("intra_transport"), py::arg("algorithm"),
          py::arg("protocol"), "NCCL's all-reduce across nodes (hops at their own transports' latencies).");
    m.def("nccl_choice", [=](double message, long long ranks, const Link& link, const py::object& transport) {
              return NcclModel{transport_choices.parse(transport, "transport")}.choose(bytes(message), ranks, link);
          }, py::arg("message"), py::arg("ranks"), py::arg("link"), py::arg("transport") = "nvlink",
          "The NCCL-style choice on one link: NcclModel(transport).choose(message, ranks, link).");
    m.def("nccl_choice", [=](double message, const HierarchicalTopology& t, const py::object& transport) {
              return NcclModel{transport_choices.parse(transport, "transport")}.choose(bytes(message), t);
          }, py::arg("message"), py::arg("topology"), py::arg("transport") = "nvlink",
          "The NCCL-style choice across nodes: NcclModel(transport).choose(message, topology).");

    // A policy's collectives, as methods.
    const auto policy_methods = [](auto& cls) {
        using P = typename std::remove_reference_t<decltype(cls)>::type;
        cls.def("all_reduce", [](const P& p, double message, long long ranks, const Link& link) {
               return p.all_reduce(bytes(message), ranks, link);
           }, py::arg("message"), py::arg("ranks"), py::arg("link"), "All-reduce (bytes in, CollectiveTime out).")
            .def("reduce_scatter", [](const P& p, double buffer, long long ranks, const Link& link) {
                return p.reduce_scatter(bytes(buffer), ranks, link);
            }, py::arg("buffer"), py::arg("ranks"), py::arg("link"), "Reduce-scatter of the full buffer (bytes).")
            .def("all_gather", [](const P& p, double buffer, long long ranks, const Link& link) {
                return p.all_gather(bytes(buffer), ranks, link);
            }, py::arg("buffer"), py::arg("ranks"), py::arg("link"), "All-gather of the full buffer (bytes).")
            .def("point_to_point", [](const P& p, double message, const Link& link) {
                return p.point_to_point(bytes(message), link);
            }, py::arg("message"), py::arg("link"), "One send (bytes).");
    };
    auto ring = py::reinterpret_borrow<py::class_<Ring>>(m.attr("Ring"));
    auto tree = py::reinterpret_borrow<py::class_<Tree>>(m.attr("Tree"));
    auto hierarchical = py::reinterpret_borrow<py::class_<Hierarchical>>(m.attr("Hierarchical"));
    auto nccl = py::reinterpret_borrow<py::class_<NcclModel>>(m.attr("NcclModel"));
    policy_methods(ring);
    policy_methods(tree);
    policy_methods(hierarchical);
    policy_methods(nccl);

    // --- the communication budget (the lab's parts D and E) ---------------------
    const auto dtype_choices = choices_of(DType::none, DType::fp8, DType::bf16, DType::fp16, DType::fp32);
    m.def("gradient_bytes", [dtype_choices](long long parameters, const py::object& dtype) {
              return gradient_bytes(parameters, dtype_choices.parse(dtype, "gradients (dtype)")).value();
          }, py::arg("parameters"), py::arg("gradients"), "Gradient bytes of `parameters` in a format (fp32, bf16, ...).");
    m.def("fused_calls", [](double gradients, long long tensors, double bucket) {
              return fused_calls(bytes(gradients), tensors, bytes(bucket));
          }, py::arg("gradients"), py::arg("tensors"), py::arg("bucket"),
          "All-reduce calls when tensors are fused into buckets (gradients and bucket in bytes).");
    m.def("split_allreduce", [](double gradients, long long calls, long long ranks, const Link& link,
                                const Policy& policy) {
              return with_policy(policy, [&](const auto& p) {
                  return split_all_reduce(bytes(gradients), calls, ranks, link, p);
              });
          }, py::arg("gradients"), py::arg("calls"), py::arg("ranks"), py::arg("link"), py::arg("policy") = Ring{},
          "`calls` all-reduces of gradients/calls bytes each with a policy (Ring, Tree, Hierarchical, NcclModel).");
    m.def("hidden_communication", [](double communication, double backward, double efficiency) {
              return hidden_communication(seconds(communication), seconds(backward), efficiency).value();
          }, py::arg("communication"), py::arg("backward"), py::arg("efficiency"),
          "Communication (seconds) hidden under the backward pass: min(η · communication, backward).");

    Struct<StepTime>(m, "StepTime", "A step: compute plus the communication that is not hidden (seconds).")
        .quantity("compute", &StepTime::compute, Kind::seconds, "forward + backward + optimizer")
        .quantity("communication", &StepTime::communication, Kind::seconds, "the whole gradient synchronisation")
        .quantity("hidden", &StepTime::hidden, Kind::seconds, "the part running under the backward pass")
        .computed("exposed", [](const StepTime& s) { return s.exposed().value(); }, Kind::seconds,
                  "communication − hidden")
        .computed("total", [](const StepTime& s) { return s.total().value(); }, Kind::seconds, "compute + exposed")
        .computed("communication_share", &StepTime::communication_share, Kind::plain, "exposed ÷ total")
        .finish();
    m.def("step_time", [](double compute, double communication, double backward, double efficiency) {
              return step_time(seconds(compute), seconds(communication), seconds(backward), efficiency);
          }, py::arg("compute"), py::arg("communication"), py::arg("backward") = 0.0,
          py::arg("overlap_efficiency") = 0.0,
          "A data-parallel step (communication budget): compute, communication and backward in seconds. "
          "Returns StepTime. (With a schedule name first, step_time is the pipeline's closed form.)");
    m.def("communication_for_share", [](double compute, double share) {
              return communication_for_share(seconds(compute), share).value();
          }, py::arg("compute"), py::arg("share"),
          "The communication (seconds) that is `share` of the step next to `compute` seconds.");

    Struct<Compression>(m, "Compression", "A gradient compression: bytes ratio and convergence penalty.")
        .name("name", &Compression::name, "name")
        .value("ratio", &Compression::ratio, "compressed bytes ÷ uncompressed bytes, in (0, 1]")
        .value("convergence_penalty", &Compression::convergence_penalty, "steps to the same loss ÷ steps without")
        .finish([](const Compression& c) { (void)validated(c); });
    m.def("training_time_ratio", &training_time_ratio, py::arg("before"), py::arg("after"),
          py::arg("convergence_penalty"), "penalty × after.total ÷ before.total.");
    m.def("compression_time_ratio", [](double gradients, const Compression& c, long long ranks, const Link& link,
                                       const Policy& policy, double compute) {
              return std::visit([&](const auto& p) {
                  return compression_time_ratio(bytes(gradients), c, ranks, link, p, seconds(compute));
              }, policy);
          }, py::arg("gradients"), py::arg("compression"), py::arg("ranks"), py::arg("link"),
          py::arg("policy") = Ring{}, py::arg("compute") = 0.0,
          "Training time with compression ÷ without (gradients in bytes, compute in seconds).");

    py::module_ opt = m.def_submodule("optimization", "The communication lab's four optimizations, as bit flags.");
    opt.attr("hierarchical") = optimization::hierarchical;
    opt.attr("half_precision") = optimization::half_precision;
    opt.attr("bucket_fusion") = optimization::bucket_fusion;
    opt.attr("overlap") = optimization::overlap;
    opt.attr("all") = optimization::all;
    m.def("describe_optimizations", &describe_optimizations, py::arg("optimizations"),
          "'hierarchical + overlap' for those flags; 'none' for 0.");

    Struct<CommunicationPlan>(m, "CommunicationPlan", "A data-parallel gradient synchronisation to optimise.")
        .value("parameters", &CommunicationPlan::parameters, "parameters")
        .choice("gradients", &CommunicationPlan::gradients, dtype_choices, "gradient format")
        .choice("reduced_gradients", &CommunicationPlan::reduced_gradients, dtype_choices,
                "format with the half-precision optimization")
        .value("tensors", &CommunicationPlan::tensors, "gradient tensors")
        .quantity("bucket", &CommunicationPlan::bucket, Kind::bytes, "fusion bucket")
        .value("topology", &CommunicationPlan::topology, "nodes × g GPUs (HierarchicalTopology)")
        .quantity("compute", &CommunicationPlan::compute, Kind::seconds, "one step's compute")
        .quantity("backward", &CommunicationPlan::backward, Kind::seconds, "the part the communication can hide under")
        .value("overlap_efficiency", &CommunicationPlan::overlap_efficiency, "η")
        .quantity("base_latency", &CommunicationPlan::base_latency, Kind::seconds, "paid once per call")
        .finish();
    m.def("plan_step", &plan_step, py::arg("plan"), py::arg("optimizations"),
          "The step with a combination of optimization flags. Returns StepTime.");
    py::class_<OptimizationStack>(m, "OptimizationStack", "A combination of optimizations and its step.")
        .def_readonly("optimizations", &OptimizationStack::optimizations)
        .def_readonly("step", &OptimizationStack::step)
        .def_property_readonly("size", &OptimizationStack::size)
        .def("__repr__", [](const OptimizationStack& s) {
            return "OptimizationStack(" + describe_optimizations(s.optimizations) + ", communication_share=" +
                   format_fixed(100 * s.step.communication_share(), 2) + " %)";
        });
    m.def("optimization_stacks", &optimization_stacks, py::arg("plan"),
          "All 16 combinations, fewest optimizations first, then lowest share.");
    m.def("smallest_stack_under", &smallest_stack_under, py::arg("plan"), py::arg("target"),
          "The first stack whose communication share is under `target`, or None.");
}

// --- inference: the split lesson ---------------------------------------------
void bind_inference(py::module_& m) {
    Struct<InferenceSetup>(m, "InferenceSetup", "The lesson's serving setup: number formats, the chat to fit, "
                                                "working memory.")
        .value("bytes_per_weight", &InferenceSetup::bytes_per_weight, "2 for BF16")
        .value("bytes_per_cache_value", &InferenceSetup::bytes_per_cache_value, "2 for a 16-bit KV cache")
        .value("bytes_per_activation", &InferenceSetup::bytes_per_activation, "hidden vectors, also on the wire")
        .quantity("context", &InferenceSetup::context, Kind::tokens, "the chat whose KV cache must fit")
        .quantity("working_tokens", &InferenceSetup::working_tokens, Kind::tokens, "tokens of working memory")
        .quantity("working_allowance", &InferenceSetup::working_allowance, Kind::bytes, "fixed working allowance")
        .value("all_reduces_per_layer", &InferenceSetup::all_reduces_per_layer, "tensor split: all-reduces a layer")
        .finish();
    // T{} is all zeros for a struct without defaults, but InferenceSetup has the lesson's.
    m.attr("lesson_setup") = lesson_setup;

    Struct<InferenceMemory>(m, "InferenceMemory", "Memory on one GPU while serving (bytes).")
        .quantity("weights", &InferenceMemory::weights, Kind::bytes, "the GPU's share of the weights")
        .quantity("kv_cache", &InferenceMemory::kv_cache, Kind::bytes, "its share of the chat's KV cache")
        .quantity("working", &InferenceMemory::working, Kind::bytes, "working memory")
        .computed("total", [](const InferenceMemory& x) { return x.total().value(); }, Kind::bytes,
                  "weights + kv_cache + working")
        .finish();
    Struct<TokenTime>(m, "TokenTime", "Time per generated token (seconds).")
        .quantity("read", &TokenTime::read, Kind::seconds, "busy: the longer of reading the weights and computing")
        .quantity("transfer", &TokenTime::transfer, Kind::seconds, "waiting on the link")
        .computed("total", [](const TokenTime& t) { return t.total().value(); }, Kind::seconds, "read + transfer")
        .computed("waiting_share", &TokenTime::waiting_share, Kind::plain, "transfer ÷ total")
        .computed("user_tokens_per_second", [](const TokenTime& t) { return t.user_tokens_per_second().value(); },
                  Kind::tokens_per_second, "1 token ÷ total")
        .finish();
    Struct<BestCount>(m, "BestCount", "The GPU count with the lowest time per token.")
        .value("gpus", &BestCount::gpus, "GPUs")
        .value("time", &BestCount::time, "TokenTime")
        .finish();

    const auto split_choices = choices_of(Split::tensor, Split::pipeline);
    const char* setup_doc = " setup: InferenceSetup (default napkin.lesson_setup).";
    m.def("memory_per_gpu", [](const TransformerShape& model, long long gpus, const InferenceSetup& setup) {
              return memory_per_gpu(model, gpus, setup);
          }, py::arg("model"), py::arg("gpus"), py::arg("setup") = lesson_setup,
          (std::string("Weights, KV cache and working memory on each of `gpus` GPUs (InferenceMemory, bytes).") +
           setup_doc).c_str());
    m.def("weights_per_gpu", [](const TransformerShape& model, long long gpus, const InferenceSetup& setup) {
              return weights_per_gpu(validated(model), gpus, setup).value();
          }, py::arg("model"), py::arg("gpus"), py::arg("setup") = lesson_setup,
          "Each GPU's share of the weights, rounded up to whole bytes (float, bytes).");
    m.def("kv_cache_per_gpu", [](const TransformerShape& model, long long gpus, const InferenceSetup& setup) {
              return kv_cache_per_gpu(validated(model), gpus, setup).value();
          }, py::arg("model"), py::arg("gpus"), py::arg("setup") = lesson_setup,
          "Each GPU's share of the chat's KV cache, split by KV head (float, bytes).");
    m.def("working_memory", [](const TransformerShape& model, const InferenceSetup& setup) {
              return working_memory(validated(model), setup).value();
          }, py::arg("model"), py::arg("setup") = lesson_setup, "Working memory per GPU (float, bytes).");
    m.def("fits", [](const TransformerShape& model, const Gpu& gpu, long long gpus, const InferenceSetup& setup) {
              return fits(model, gpu, gpus, setup);
          }, py::arg("model"), py::arg("gpu"), py::arg("gpus"), py::arg("setup") = lesson_setup,
          "Whether memory_per_gpu fits in the GPU's usable memory.");
    m.def("fewest_gpus", [](const TransformerShape& model, const Gpu& gpu, const InferenceSetup& setup,
                            long long max_gpus) {
              require(max_gpus <= 1'000'000, "max_gpus", count(max_gpus), "must be at most 1,000,000");
              return fewest_gpus(model, gpu, setup, max_gpus);
          }, py::arg("model"), py::arg("gpu"), py::arg("setup") = lesson_setup, py::arg("max_gpus") = 4096,
          "The fewest GPUs the model fits on (int), or None up to max_gpus.");
    m.def("weight_read_time", [](const TransformerShape& model, const Gpu& gpu, long long gpus,
                                 const InferenceSetup& setup) {
              return weight_read_time(validated(model), validated(gpu), gpus, setup).value();
          }, py::arg("model"), py::arg("gpu"), py::arg("gpus"), py::arg("setup") = lesson_setup,
          "Seconds to read each GPU's share of the weights once.");
    m.def("token_compute_time", [](const TransformerShape& model, const Gpu& gpu, long long gpus,
                                   long long tokens_in_flight) {
              return token_compute_time(validated(model), validated(gpu), gpus, tokens_in_flight).value();
          }, py::arg("model"), py::arg("gpu"), py::arg("gpus"), py::arg("tokens_in_flight") = 1,
          "Seconds of compute per step at peak: 2 FLOP per active weight per token, split over `gpus`.");
    m.def("token_time", [split_choices](const TransformerShape& model, const Gpu& gpu, const Link& link,
                                        long long gpus, const py::object& split, long long tokens_in_flight,
                                        const InferenceSetup& setup, const Policy& collective) {
              const Deployment where{gpus, split_choices.parse(split, "split"), tokens_in_flight};
              return std::visit([&](const auto& p) { return token_time(model, gpu, link, where, setup, p); },
                                collective);
          }, py::arg("model"), py::arg("gpu"), py::arg("link"), py::arg("gpus") = 1, py::arg("split") = "tensor",
          py::arg("tokens_in_flight") = 1, py::arg("setup") = lesson_setup,
          py::arg("collective") = lesson_collective,
          "Time per token on `gpus` GPUs split by `split` ('tensor': slices, two all-reduces a layer; 'pipeline': "
          "groups of layers). collective: Ring (default: the lesson's, 6.6 µs base latency), Tree, Hierarchical "
          "or NcclModel. Returns TokenTime (seconds).");
    m.def("best_gpu_count", [split_choices](const TransformerShape& model, const Gpu& gpu, const Link& link,
                                            long long max_gpus, bool divide_heads, const py::object& split,
                                            long long tokens_in_flight, const InferenceSetup& setup,
                                            const Policy& collective) -> std::optional<BestCount> {
              require(max_gpus <= 1'000'000, "max_gpus", count(max_gpus), "must be at most 1,000,000");
              const BestCountQuery query{max_gpus, divide_heads, split_choices.parse(split, "split"), tokens_in_flight};
              return std::visit([&](const auto& p) { return best_gpu_count(model, gpu, link, query, setup, p); },
                                collective);
          }, py::arg("model"), py::arg("gpu"), py::arg("link"), py::arg("max_gpus") = 64,
          py::arg("divide_heads") = false, py::arg("split") = "tensor", py::arg("tokens_in_flight") = 1,
          py::arg("setup") = lesson_setup, py::arg("collective") = lesson_collective,
          "The GPU count (up to max_gpus, fitting in memory) with the lowest time per token (BestCount), or None.");

    // C++ 0.2 spells all_reduce as all_gather and reduce_scatter; Python keeps
    // both spellings (the 0.1 ones are the names the first module shipped).
    for (const char* name : {"ring", "tree", "hierarchical", "lab_hierarchical", "nccl", "split"})
        m.attr((std::string(name) + "_all_reduce").c_str()) = m.attr((std::string(name) + "_allreduce").c_str());
}

}  // namespace napkin::python
