// napkin/memory_as_run.hpp: the allocator's peak against published measured peaks
// (tests/data/measured-memory.json, a copy of the reference file: torchtitan's
// Llama 3.1 8B on H100, SimuMax's Megatron-LM runs on B200).
#include <napkin/catalog/models.hpp>
#include <napkin/memory_as_run.hpp>

#include "support.hpp"

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <fstream>
#include <sstream>
#include <string>

using namespace napkin;

namespace {

// torchtitan's Table 1 layout: Llama 3.1 8B, FSDP over 8 GPUs, b = 2, s = 8,192.
constexpr Parallelism titan_8b{.dp = 8,
                               .micro_batch = 2,
                               .global_batch = 16,
                               .sequence = 8192,
                               .sharding = Sharding::zero3,
                               .flash_attention = true};

// The rows of measured-memory.json as napkin sees them; the strings the rows
// point to live as long as the table.
struct MemoryTable {
    std::deque<std::string> text;
    std::vector<MemoryRow> rows;
};

std::string_view keep(MemoryTable& t, std::string s) { return t.text.emplace_back(std::move(s)); }

MemoryTable read_memory_table() {
    std::ifstream file(NAPKIN_TEST_DATA_DIR "/measured-memory.json");
    REQUIRE(file.good());
    const nlohmann::json doc = nlohmann::json::parse(file);
    MemoryTable t;
    for (const auto& r : doc.at("runs")) {
        const std::string id = r.at("id");
        const bool titan = id.starts_with("torchtitan");
        const auto& s = r.at("model_shape");
        const auto& lay = r.at("layout");
        TransformerShape m{.name = keep(t, r.at("model")),
                           .layers = s.at("layers"),
                           .hidden = s.at("hidden"),
                           .ffn = s.at("ffn"),
                           .heads = s.at("heads"),
                           .kv_heads = s.at("kv_heads"),
                           .vocabulary = s.at("vocab")};
        if (s.contains("moe")) {
            // DeepSeek-V2/V3 (SimuMax's configs): one shared expert of the
            // printed width, one dense layer in the rows (the file's note),
            // MLA heads of 128 + 64 for Q·K and 128 for V (DeepSeek-V2, Sec. 2.1.3).
            const auto& e = s.at("moe");
            m.experts = e.at("experts");
            m.experts_per_token = e.at("topk");
            m.expert_ffn = e.at("moe_ffn");
            m.shared_experts = 1;
            m.shared_expert_ffn = e.at("shared_expert_ffn");
            m.dense_layers = 1;
            m.q_lora_rank = e.at("q_lora_rank");
            m.kv_lora_rank = e.at("kv_lora_rank");
            m.qk_nope_head_dim = 128;
            m.qk_rope_head_dim = 64;
            m.v_head_dim = 128;
        }
        Parallelism p{.flash_attention = true};
        p.tp = lay.value("tp", 1LL);
        p.pp = lay.value("pp", 1LL);
        p.cp = lay.value("cp", 1LL);
        if (lay.contains("ep") && !lay.at("ep").is_null()) p.ep = lay.at("ep");
        p.micro_batch = r.at("micro_batch");
        p.sequence = r.at("seq_len");
        p.sequence_parallel = p.tp > 1;
        const std::string recompute = r.at("recompute");
        RunFramework fw = megatron_framework;
        if (titan) {
            // FSDP2 full shard over the dp_shard × cp mesh; the fp32 sharded
            // parameters, fp32 gradients and Adam's moments are 4 + 4 + 8 = 16
            // bytes, as the 2 + 2 + 12 of the default dtypes.
            p.dp = lay.at("fsdp");
            p.sharding = Sharding::zero3;
            fw = torchtitan_framework;
            if (recompute.find("full") != std::string::npos) {
                p.recompute = Recompute::full;
                fw.activations = ActivationPolicy::layout;
            }
            // One micro-batch a step (Table 2 states no global batch; memory does not depend on it at p = 1).
            p.global_batch = p.micro_batch * p.dp;
        } else {
            // Megatron-LM --use-distributed-optimizer with --bf16: fp32 main
            // gradients (6 + 12/d bytes), no layer recomputed (--recompute-num-layers 0);
            // the memory run is the 4-micro-batch one (the file's note).
            p.dp = lay.at("dp");
            p.sharding = Sharding::zero1;
            p.gradients = DType::fp32;
            p.global_batch = p.micro_batch * p.dp * 4;
        }
        const std::string what = r.at("what_is_measured");
        const bool reserved = what.find("reserved") != std::string::npos;
        const auto& extra = r.at("extra_measurements");
        MemoryRow row{.id = keep(t, id),
                      .source = keep(t, titan ? "torchtitan " + r.at("citation").at("section").get<std::string>()
                                              : std::string("SimuMax B200")),
                      .model = m,
                      .layout = p,
                      .framework = fw,
                      .kind = reserved ? MeasuredMemory::reserved : MeasuredMemory::allocated,
                      .measured = gibibytes(r.at("measured_peak_gib").get<double>())};
        if (extra.is_object() && extra.contains("real_reserved_gib"))
            row.measured_reserved = gibibytes(extra.at("real_reserved_gib").get<double>());
        t.rows.push_back(row);
    }
    return t;
}

using test::percent;

// The README's memory validation table, as memory_errors gives it.
std::string validation_table(const MemoryTable& t, const MemoryValidation& v) {
    std::ostringstream out;
    out << "| source | rows | measured | fitted mean | fitted max | left out mean | left out max |\n"
        << "|---|---|---|---|---|---|---|\n";
    for (const SourceMemoryErrors& s : v.sources) {
        const auto row =
            std::find_if(t.rows.begin(), t.rows.end(), [&](const MemoryRow& r) { return r.source == s.source; });
        out << "| " << s.source << " | " << s.rows << " | "
            << (row->kind == MeasuredMemory::reserved ? "reserved" : "allocated") << " | " << percent(s.fitted_mean)
            << " | " << percent(s.fitted_max) << " | " << percent(s.left_out_mean) << " | " << percent(s.left_out_max)
            << " |\n";
        if (s.reserved_rows > 0)
            out << "| " << s.source << " | " << s.reserved_rows << " | reserved (beside) | "
                << percent(s.reserved_fitted_mean) << " | | " << percent(s.reserved_left_out_mean) << " | |\n";
    }
    char share[64];
    std::snprintf(share, sizeof share, "%.4f", v.reserve_share);
    out << "| all | " << t.rows.size() << " | | " << percent(v.mean_abs()) << " | | " << percent(v.left_out_mean_abs())
        << " | |\n\nFitted reserve share (reserved − allocated over the transient memory): " << share << ".\n";
    return out.str();
}

}  // namespace

TEST_SUITE("memory_as_run") {
    TEST_CASE("torchtitan's every-other-matmul checkpointing, Llama 3.1 8B: 63,616 B a token, 16,384 tokens") {
        // 2·(4,096 input + 4,096 wq + 1,024 wv + 4,096 attention out + 14,336 w1 + 4,096 w2) + 4·32 lse = 63,616 B.
        CHECK(every_other_matmul_bytes_per_layer(catalog::llama3_1_8b, titan_8b) == bytes(63'616.0 * 16'384.0));
        const RunMemory m = memory_as_run(catalog::llama3_1_8b, titan_8b, torchtitan_framework);
        CHECK(m.activations == 32.0 * bytes(63'616.0 * 16'384.0));
        // The recomputed layer holds its unrecomputed activations less what it kept.
        CHECK(m.recompute == unrecomputed_layer_bytes(catalog::llama3_1_8b, titan_8b) - bytes(63'616.0 * 16'384.0));
    }

    TEST_CASE("an unfused loss keeps 12 bytes a logit: 2 · 8,192 · 128,256 · 12 = 25,216,155,648 B") {
        const RunMemory m = memory_as_run(catalog::llama3_1_8b, titan_8b, torchtitan_framework);
        CHECK(m.logits == bytes(25'216'155'648.0));
        // Megatron's vocab-parallel loss keeps the fp32 logits alone: 4 bytes, cut by t; none off the last stage.
        Parallelism tp2 = titan_8b;
        tp2.tp = 2;
        CHECK(run_logits(catalog::llama3_1_8b, tp2, megatron_framework) == bytes(2.0 * 8192 * 128'256 * 4 / 2));
        tp2.pp = 2;
        CHECK(run_logits(catalog::llama3_1_8b, tp2, megatron_framework) == Bytes{});
    }

    TEST_CASE("FSDP gather buffers, Llama 3.1 8B: 2 blocks + the root's tables and the output gradient") {
        // A block: 2·4,096² + 2·4,096·1,024 + 3·4,096·14,336 + 2·4,096 = 218,112,000 weights, 16 bits.
        // The root: 2 · 128,256 · 4,096 + 4,096 weights and the output layer's gradient, 16 bits.
        const double blocks = 2.0 * 218'112'000.0 * 2.0;
        const double root = (2.0 * 525'336'576.0 + 4'096.0) * 2.0 + 525'336'576.0 * 2.0;
        CHECK(fsdp_gather_buffers(catalog::llama3_1_8b, titan_8b, torchtitan_framework) == bytes(blocks + root));
        RunFramework no_prefetch = torchtitan_framework;
        no_prefetch.fsdp_prefetch = 0;
        no_prefetch.fsdp_root_gathered = false;
        CHECK(fsdp_gather_buffers(catalog::llama3_1_8b, titan_8b, no_prefetch) == bytes(218'112'000.0 * 2.0));
        Parallelism zero1 = titan_8b;
        zero1.sharding = Sharding::zero1;
        CHECK(fsdp_gather_buffers(catalog::llama3_1_8b, zero1, torchtitan_framework) == Bytes{});
    }

    TEST_CASE("reserved adds the share of the transient memory — states are not transient") {
        const RunMemory m = memory_as_run(catalog::llama3_1_8b, titan_8b, torchtitan_framework);
        CHECK(m.allocated() == m.states + m.activations + m.recompute + m.gathered + m.logits);
        CHECK(m.reserved(0.1) == m.allocated() + 0.1 * m.transient());
        CHECK(m.states == training_memory(catalog::llama3_1_8b, titan_8b).states());
        RunFramework bad = torchtitan_framework;
        bad.fsdp_prefetch = -1;
        CHECK_THROWS_WITH_AS((void)memory_as_run(catalog::llama3_1_8b, titan_8b, bad),
                             doctest::Contains("RunFramework.fsdp_prefetch"), invalid_argument);
    }

    TEST_CASE("measured-memory.json: every row, mean |error| at most 8 %, each source left out reported") {
        const MemoryTable t = read_memory_table();
        REQUIRE(t.rows.size() == 29);
        const MemoryValidation v = memory_errors(t.rows);
        for (std::size_t i = 0; i < t.rows.size(); ++i)
            MESSAGE(t.rows[i].id << ": fitted " << percent(v.errors[i]) << ", left out " << percent(v.left_out[i]));
        MESSAGE("reserve share " << v.reserve_share << ", mean |error| " << percent(v.mean_abs()) << ", left out "
                                 << percent(v.left_out_mean_abs()));
        CHECK(v.mean_abs() <= 0.08);
        // The fit is a minimum: a step either way is no better.
        const double at = detail::reserve_loss(t.rows, v.reserve_share, {});
        CHECK(at <= detail::reserve_loss(t.rows, v.reserve_share + 0.01, {}));
        CHECK(at <= detail::reserve_loss(t.rows, std::max(0.0, v.reserve_share - 0.01), {}));
        CHECK(v.reserve_share > 0.0);
        CHECK(v.reserve_share < max_reserve_share);
        CHECK(v.sources.size() == 4);
    }

    TEST_CASE("the README's memory validation table is the one memory_errors gives") {
        const MemoryTable t = read_memory_table();
        const std::string table = validation_table(t, memory_errors(t.rows));
        const test::ReadmeBlock block = test::readme_block("memory-validation", table);
        REQUIRE(block.found);
        CHECK(block.current == table);
    }
}
