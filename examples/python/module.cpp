// `import napkin`: napkin's models from Python. This file holds the module, its
// errors, units and formatting, the shapes (Gpu, Link, Node, Cluster,
// TransformerShape) and the catalog; the other parts are in bind_*.cpp.
#include "bindings.hpp"

#include <napkin/catalog/clusters.hpp>
#include <napkin/catalog/hardware.hpp>
#include <napkin/catalog/models.hpp>
#include <napkin/communication_budget.hpp>
#include <napkin/error.hpp>
#include <napkin/hardware.hpp>
#include <napkin/io/hf_config.hpp>
#include <napkin/model.hpp>
#include <napkin/units.hpp>

#include <pybind11/pybind11.h>

#include <string>
#include <tuple>

namespace napkin::python {

namespace {

template <class T, std::size_t N>
py::list copies(const std::array<const T*, N>& items) {
    py::list out;
    for (const T* item : items) out.append(*item);
    return out;
}

template <class T, std::size_t N>
T find_in(const std::array<const T*, N>& items, const std::string& name, const char* what) {
    for (const T* item : items)
        if (item->name == name) return *item;
    std::string known;
    for (const T* item : items) known += (known.empty() ? "" : ", ") + std::string(item->name);
    reject(what, name, "not in the catalog (" + known + ")");
}

void bind_catalog(py::module_& m) {
    py::module_ c = m.def_submodule("catalog", "napkin's catalog: data-sheet GPUs, links, nodes and models. "
                                               "Each function returns copies; change them freely.");
    c.def("gpus", [] { return copies(catalog::gpus); }, "Every catalog GPU (list of Gpu).");
    c.def("links", [] { return copies(catalog::links); }, "Every catalog link (list of Link).");
    c.def("models", [] { return copies(catalog::models); }, "Every catalog model (list of TransformerShape).");
    c.def("nodes", [] { return copies(catalog::nodes); }, "Every catalog node (list of Node: DGX A100, DGX H100).");
    c.def("compressions", [] { return copies(compression_examples::all); },
          "The communication lab's gradient compressions (list of Compression).");
    c.def("gpu", [](const std::string& name) { return find_in(catalog::gpus, name, "gpu"); }, py::arg("name"),
          "The catalog GPU of that name (ValueError when there is none).");
    c.def("link", [](const std::string& name) { return find_in(catalog::links, name, "link"); }, py::arg("name"),
          "The catalog link of that name (ValueError when there is none).");
    c.def("model", [](const std::string& name) { return find_in(catalog::models, name, "model"); },
          py::arg("name"), "The catalog model of that name (ValueError when there is none).");
    c.def("node", [](const std::string& name) { return find_in(catalog::nodes, name, "node"); }, py::arg("name"),
          "The catalog node of that name (ValueError when there is none).");
    c.attr("default_usable_fraction") = catalog::default_usable_fraction;
}

io::LoadedModel load_config(const py::object& source) {
    if (py::isinstance<py::dict>(source)) {
        const auto text = py::module_::import("json").attr("dumps")(source).cast<std::string>();
        const std::string name = source.contains("_name_or_path") ? py::str(source["_name_or_path"]).cast<std::string>()
                                                                 : std::string("config");
        return io::parse_hf_config(text, "config dict", name);
    }
    if (py::isinstance<py::str>(source) || py::hasattr(source, "__fspath__"))
        return io::read_hf_config(py::str(py::module_::import("os").attr("fspath")(source)).cast<std::string>());
    throw py::type_error("from_hf_config: expected a path (str or os.PathLike) or a dict, got " +
                         std::string(py::str(source.get_type().attr("__name__"))));
}

}  // namespace

void bind_shapes(py::module_& m) {
    Struct<Gpu>(m, "Gpu", "A GPU as numbers (napkin/hardware.hpp). Floats in SI units.")
        .name("name", &Gpu::name, "name")
        .quantity("memory", &Gpu::memory, Kind::bytes, "memory on the card")
        .value("usable_fraction", &Gpu::usable_fraction, "share of the memory a process may claim, in (0, 1]")
        .quantity("memory_bandwidth", &Gpu::memory_bandwidth, Kind::bytes_per_second, "reading its own memory")
        .quantity("peak_flops", &Gpu::peak_flops, Kind::flops_per_second, "dense 16-bit tensor throughput")
        .value("sm_count", &Gpu::sm_count, "streaming multiprocessors (AMD: compute units); 0: not known")
        .quantity("fp8_flops", &Gpu::fp8_flops, Kind::flops_per_second, "dense FP8 tensor throughput (0: none)")
        .choice("architecture", &Gpu::architecture,
                std::apply([](auto... a) { return choices_of(a...); }, architectures),
                "what the GEMM model needs with sm_count; unknown: training uses the flat model")
        .quantity("board_power", &Gpu::board_power, Kind::watts, "what the card may draw at full load (0: not given)")
        .quantity("fp6_flops", &Gpu::fp6_flops, Kind::flops_per_second, "dense FP6 tensor throughput (0: none)")
        .quantity("fp4_flops", &Gpu::fp4_flops, Kind::flops_per_second, "dense FP4 tensor throughput (0: none)")
        .quantity("int8_ops", &Gpu::int8_ops, Kind::ops_per_second, "dense INT8 tensor operations per second (0: none)")
        .name("source", &Gpu::source, "the data sheet (and column) its figures come from")
        .computed("usable_memory", [](const Gpu& g) { return usable_memory(g).value(); }, Kind::bytes,
                  "memory · usable_fraction, rounded down to whole bytes")
        .finish([](const Gpu& g) { (void)validated(g); });

    Struct<Link>(m, "Link", "A link as the alpha-beta model sees it: per-direction bandwidth, latency per step.")
        .name("name", &Link::name, "name")
        .quantity("bandwidth", &Link::bandwidth, Kind::bytes_per_second, "bandwidth one GPU sends at")
        .quantity("step_latency", &Link::step_latency, Kind::seconds, "latency every step of a collective pays")
        .finish([](const Link& l) { (void)validated(l); });

    Struct<Node>(m, "Node", "A server: its GPUs, the link between them, the link each NIC drives.")
        .name("name", &Node::name, "name")
        .value("gpu", &Node::gpu, "the GPU (Gpu)")
        .value("gpus", &Node::gpus, "GPUs in the node")
        .value("intra", &Node::intra, "GPU to GPU inside the node (Link, per direction, per GPU)")
        .value("inter", &Node::inter, "one NIC's link into the network (Link)")
        .choice("nic", &Node::nic, [] {
            Choices<Nic> c{{{Nic::per_gpu, "per-gpu"}, {Nic::per_node, "per-node"}}};
            c.aliases = {{"shared", Nic::per_node}};
            return c;
        }(), "one NIC per GPU or one shared by the node")
        .finish([](const Node& n) { (void)validated(n); });

    Struct<Cluster>(m, "Cluster", "Nodes of one kind.")
        .value("node", &Cluster::node, "the node (Node)")
        .value("nodes", &Cluster::nodes, "how many")
        .computed("gpus", [](const Cluster& c) { return gpus(c); }, Kind::plain, "nodes × node.gpus")
        .finish([](const Cluster& c) { (void)validated(c); });
    m.def("cluster_of", [](const Node& node, long long nodes) { return validated(cluster_of(node, nodes)); },
          py::arg("node"), py::arg("nodes"), "Cluster(node=node, nodes=nodes), validated.");
    m.def("network_link_per_gpu", &network_link_per_gpu, py::arg("node"),
          "The network link one GPU sees: its own NIC, or its share of the node's (bandwidth / gpus).");

    auto shape =
        Struct<TransformerShape>(m, "TransformerShape", "The shape of a decoder-only transformer (napkin/model.hpp).")
            .name("name", &TransformerShape::name, "name")
            .value("layers", &TransformerShape::layers, "transformer layers")
            .value("hidden", &TransformerShape::hidden, "model width h")
            .value("ffn", &TransformerShape::ffn, "feed-forward width")
            .value("heads", &TransformerShape::heads, "attention (query) heads")
            .value("kv_heads", &TransformerShape::kv_heads, "key/value heads (= heads without GQA)")
            .value("head_dim", &TransformerShape::head_dim, "head width; 0: hidden / heads")
            .value("vocabulary", &TransformerShape::vocabulary, "vocabulary size")
            .value("tied_embeddings", &TransformerShape::tied_embeddings,
                   "the output layer reuses the input embedding table")
            .choice("feed_forward", &TransformerShape::feed_forward,
                    Choices<FeedForward>{{{FeedForward::gated, "gated"}, {FeedForward::plain, "plain"}}},
                    "SwiGLU's three matrices or GPT's two")
            .value("biases", &TransformerShape::biases, "GPT-style biases on every linear layer and LayerNorm")
            .value("learned_positions", &TransformerShape::learned_positions,
                   "rows of a learned position table (0: none, RoPE)")
            .value("experts", &TransformerShape::experts, "experts per MoE layer (0: dense)")
            .value("experts_per_token", &TransformerShape::experts_per_token, "active experts per token")
            .value("expert_ffn", &TransformerShape::expert_ffn, "width of one expert")
            .value("shared_experts", &TransformerShape::shared_experts, "shared experts every token goes through")
            .value("shared_expert_ffn", &TransformerShape::shared_expert_ffn, "width of one shared expert")
            .value("dense_layers", &TransformerShape::dense_layers,
                   "dense layers before the first MoE layer (first_k_dense_replace)")
            .value("moe_every", &TransformerShape::moe_every,
                   "after the dense layers, MoE on every n-th layer (interleave_moe_layer_step; 1: every layer)")
            .value("shared_expert_gate", &TransformerShape::shared_expert_gate,
                   "Qwen2-MoE: a sigmoid gate on the shared expert")
            .value("q_lora_rank", &TransformerShape::q_lora_rank, "MLA: query latent rank (0: full projection)")
            .value("kv_lora_rank", &TransformerShape::kv_lora_rank, "MLA: key/value latent rank (0: no MLA)")
            .value("qk_nope_head_dim", &TransformerShape::qk_nope_head_dim, "MLA: Q·K width without RoPE")
            .value("qk_rope_head_dim", &TransformerShape::qk_rope_head_dim, "MLA: Q·K width with RoPE")
            .value("v_head_dim", &TransformerShape::v_head_dim, "MLA: value head width")
            .value("qkv_bias", &TransformerShape::qkv_bias, "Qwen2: biases on Q, K and V only")
            .value("qk_norm", &TransformerShape::qk_norm, "Qwen3: RMSNorm on Q and K")
            .value("max_position_embeddings", &TransformerShape::max_position_embeddings,
                   "longest trained sequence (0: not known)")
            .value("norms_per_layer", &TransformerShape::norms_per_layer, "norms in a layer (2; Gemma 2/3: 4)")
            .value("sliding_window", &TransformerShape::sliding_window,
                   "tokens a local layer attends to and caches (0: no window)")
            .value("global_every", &TransformerShape::global_every,
                   "every n-th layer attends globally (Gemma 2: 2, Gemma 3: 6; 0 with a window: none)")
            .value("vision_weights", &TransformerShape::vision_weights,
                   "a vision encoder's weights, in parameters but not in the FLOPs")
            .computed("parameters", [](const TransformerShape& s) { return parameter_count(s); }, Kind::plain,
                      "every weight (parameter_count)")
            .finish([](const TransformerShape& s) { (void)validated(s); });
    shape.def_static(
        "from_hf_config",
        [](const py::object& source) {
            io::LoadedModel loaded = load_config(source);
            TransformerShape s = loaded.shape;
            s.name = intern(*loaded.name);
            return s;
        },
        py::arg("path_or_dict"),
        "The shape a Hugging Face config.json describes: a path (str or os.PathLike) or the parsed dict. "
        "Missing or malformed fields raise ValueError naming the field.");

    m.def("parameter_count", [](const TransformerShape& s) { return parameter_count(validated(s)); },
          py::arg("model"), "Every weight of the model (int).");
    m.def("active_parameter_count", [](const TransformerShape& s) { return active_parameter_count(validated(s)); },
          py::arg("model"), "Weights one token passes through (MoE: the active experts only).");
    m.def("head_dim", [](const TransformerShape& s) { return head_dim(validated(s)); }, py::arg("model"),
          "The head width: head_dim, or hidden / heads.");
    m.def("weight_bytes", [](const TransformerShape& s, double b) {
              require_positive("bytes_per_weight", b);
              return weight_bytes(validated(s), b).value();
          }, py::arg("model"), py::arg("bytes_per_weight") = 2.0, "Bytes of every weight (float, bytes).");
    m.def("kv_cache_per_token", [](const TransformerShape& s, double b) {
              require_positive("bytes_per_value", b);
              return kv_cache_per_token(validated(s), b).value();
          }, py::arg("model"), py::arg("bytes_per_value") = 2.0,
          "KV cache per token: 2 · layers · kv_heads · head_dim values (float, bytes per token).");
    m.def("hidden_vector", [](const TransformerShape& s, double b) {
              require_positive("bytes_per_value", b);
              return hidden_vector(validated(s), b).value();
          }, py::arg("model"), py::arg("bytes_per_value") = 2.0,
          "One token's hidden vector (float, bytes per token).");
}

// The library's field in Python's spelling: the keyword of the constructor or
// function that takes it ("Parallelism.tp" → "tp", "Gpu.memory" → "memory";
// irregular names are listed). A product of fields, a file or a message the
// binding wrote itself has none: "".
std::string python_keyword(const std::string& field) {
    static const std::map<std::string, std::string, std::less<>> irregular{
        {"ranks", "gpus"},
        {"HierarchicalTopology.nodes", "nodes"},
        {"Cluster.nodes", "nodes"},
        {"Node.gpus", "gpus_per_node"},
        {"LayerMap.stages", "layer_map"},
        {"LayerMap.chunks", "layer_map"},
        {"LayerMap layers", "layer_map"},
    };
    if (const auto found = irregular.find(field); found != irregular.end()) return found->second;
    const std::string name = field.substr(field.rfind('.') == std::string::npos ? 0 : field.rfind('.') + 1);
    const bool identifier = !name.empty() && std::all_of(name.begin(), name.end(), [](char c) {
        return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
    });
    return identifier && field.find(' ') == std::string::npos ? name : "";
}

}  // namespace napkin::python

PYBIND11_MODULE(napkin, m) {
    namespace py = pybind11;
    using namespace napkin;
    using namespace napkin::python;
    m.doc() = "napkin: analytical performance models for distributed GPU training and inference.\n\n"
              "Every float is in SI units: bytes, seconds, bytes/s, FLOP, FLOP/s, tokens. Bad input raises "
              "ValueError (napkin.InvalidArgument) naming the argument and its value; a wrong type raises "
              "TypeError.";
    m.attr("__version__") = "0.2.0";

    // napkin::invalid_argument is a ValueError with napkin's own message and its
    // data: .field ("Parallelism.tp"), .value, .requirement, .related, and
    // .keyword, the field in Python's spelling (python_keyword).
    static py::exception<napkin::invalid_argument> invalid_argument_type(m, "InvalidArgument", PyExc_ValueError);
    // pybind11's ExceptionTranslator is void (*)(std::exception_ptr): the pointer is taken by value.
    // NOLINTNEXTLINE(performance-unnecessary-value-param)
    py::register_exception_translator([](std::exception_ptr thrown) {
        try {
            if (thrown) std::rethrow_exception(thrown);
        } catch (const napkin::invalid_argument& e) {
            const py::object type = py::reinterpret_borrow<py::object>(invalid_argument_type);
            py::object error = type(e.what());
            error.attr("field") = e.field();
            error.attr("value") = e.value();
            error.attr("requirement") = e.requirement();
            error.attr("related") = py::cast(e.related());
            error.attr("keyword") = python_keyword(e.field());
            PyErr_SetObject(invalid_argument_type.ptr(), error.ptr());
        }
    });

    // Units: multiply to give a number in SI units (80 * napkin.GiB), divide to read one.
    const std::pair<const char*, double> constants[] = {
        {"KiB", in(kibibytes(1), units::B)},  {"MiB", in(mebibytes(1), units::B)},
        {"GiB", in(gibibytes(1), units::B)},  {"TiB", in(tebibytes(1), units::B)},
        {"KB", 1e3},                          {"MB", 1e6},
        {"GB", 1e9},                          {"TB", 1e12},
        {"ms", in(milliseconds(1), units::s)}, {"us", in(microseconds(1), units::s)},
        {"ns", in(nanoseconds(1), units::s)},  {"GBps", in(gigabytes_per_second(1), units::Bps)},
        {"TBps", in(terabytes_per_second(1), units::Bps)}, {"Gbps", in(gigabits_per_second(1), units::Bps)},
        {"TFLOPps", in(teraflops_per_second(1), units::FLOPps)},
        {"PFLOPps", in(petaflops_per_second(1), units::FLOPps)}};
    for (const auto& [name, value] : constants) m.attr(name) = value;

    m.def("format_bytes", [](double v) { return to_string(bytes(v)); }, py::arg("bytes"),
          "Bytes in binary units with two decimals: format_bytes(37508222976) == '34.93 GiB'.");
    m.def("format_seconds", [](double v) { return to_string(seconds(v)); }, py::arg("seconds"),
          "Seconds in the largest unit under 1,000, two decimals: format_seconds(0.01894) == '18.94 ms'.");
    m.def("format_bandwidth", [](double v) { return to_string(bytes_per_second(v)); }, py::arg("bytes_per_second"),
          "Bytes/s in decimal units: format_bandwidth(600e9) == '600 GB/s'.");
    m.def("format_flops_per_second", [](double v) { return to_string(flops_per_second(v)); },
          py::arg("flops_per_second"), "FLOP/s in decimal units: format_flops_per_second(312e12) == '312 TFLOP/s'.");
    m.def("format_flops", [](double v) { return to_string(flops(v)); }, py::arg("flops"),
          "FLOP in decimal units: '1.5 PFLOP'.");

    bind_shapes(m);
    bind_catalog(m);
    bind_collectives(m);
    bind_inference(m);
    bind_pipeline(m);
    bind_training(m);
    bind_serving(m);
    bind_cost(m);
    bind_io(m);
}
