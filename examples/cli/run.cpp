// SPDX-License-Identifier: MIT
// The napkin command's driver: grouped help, --version, and one exit convention
// (0 answered, 2 invalid input or usage in one line, 1 internal error) with
// "did you mean …?" for mistyped subcommands and flags.
#include "run.hpp"

#include "command.hpp"
#include "suggest.hpp"

#include <napkin/error.hpp>

#include <nlohmann/json.hpp>

#include <unistd.h>
#include <algorithm>
#include <charconv>
#include <cstdio>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>

#ifndef NAPKIN_VERSION
#error "NAPKIN_VERSION (the project version) must be defined by the build"
#endif

namespace napkin::cli {
namespace {

constexpr const char* description = "analytical performance models for distributed GPU training and inference";

// An error as one line: a value typed with a newline, a tab or an escape
// sequence in it is echoed with those characters written out (\n, \t,
// \x1b), so the message stays the one line the exit convention promises and
// cannot move the terminal's cursor. Bytes from 0x80 up (UTF-8: ×, µ) pass.
std::string one_line(std::string_view text) {
    static constexpr char hex[] = "0123456789abcdef";
    std::string out;
    out.reserve(text.size());
    for (const char c : text) {
        const auto u = static_cast<unsigned char>(c);
        if (c == '\n')
            out += "\\n";
        else if (c == '\r')
            out += "\\r";
        else if (c == '\t')
            out += "\\t";
        else if (u < 0x20 || u == 0x7f)
            out += std::string("\\x") + hex[u >> 4] + hex[u & 0xf];
        else
            out += c;
    }
    return out;
}

// "napkin: error: " and the message, on one line of standard error.
void print_error(std::string_view message) { std::cerr << "napkin: error: " << one_line(message) << "\n"; }

// The help's groups, in the order they are listed; a subcommand not named here
// is listed under "other".
const std::vector<std::pair<std::string, std::vector<std::string>>>& groups() {
    static const std::vector<std::pair<std::string, std::vector<std::string>>> all{
        {"inference", {"split", "fewest", "best", "serve"}},
        {"collectives", {"allreduce", "collective", "crossover"}},
        {"pipeline", {"bubble", "schedule"}},
        {"training", {"train"}},
        {"planning", {"plan", "plan-inference"}},
        {"calibration", {"calibrate", "calibrate-training", "calibrate-serving"}},
        {"catalog", {"list", "show"}},
    };
    return all;
}

std::string group_of(const std::string& name) {
    for (const auto& [group, names] : groups())
        if (std::find(names.begin(), names.end(), name) != names.end()) return group;
    return "other";
}

// The top-level app: name, description, --version, at most one subcommand.
void build_base(CLI::App& app) {
    app.name("napkin");
    app.description(std::string("napkin ") + NAPKIN_VERSION + ": " + description);
    app.require_subcommand(0, 1);
    app.set_version_flag("--version", std::string("napkin ") + NAPKIN_VERSION, "print the version and exit");
}

// Each subcommand's help group, and the name its JSON output carries.
void finish(CLI::App& app) {
    for (CLI::App* sub : app.get_subcommands([](CLI::App*) { return true; })) {
        sub->group(group_of(sub->get_name()));
        sub->preparse_callback([name = sub->get_name()](std::size_t) { current_command() = name; });
    }
}

// The app with every subcommand (for the overview, help and unknown names).
std::shared_ptr<CLI::App> every_command() {
    auto app = std::make_shared<CLI::App>();
    build_base(*app);
    for (const auto& setup : commands()) setup(*app);
    options_snapshots().clear();
    finish(*app);
    return app;
}

std::vector<std::string> subcommand_names(CLI::App& app) {
    std::vector<std::string> names;
    for (const CLI::App* sub : app.get_subcommands([](CLI::App*) { return true; })) names.push_back(sub->get_name());
    return names;
}

// Building every subcommand's options costs more than most commands take to
// answer (and ~20 ms a run under the fuzzer's sanitizers), so a run builds only
// the subcommand it names. Which registered setup adds which subcommand is
// learned by building the setups alone, in order, until the name turns up;
// what was learned is kept for the next run in the same process.
struct Learned {
    std::optional<std::vector<std::string>> names;
    // With RunOptions::reuse_built_commands: the app built with this setup, and
    // how to put its options back as the setup left them.
    std::shared_ptr<CLI::App> app;
    std::vector<std::function<void()>> restores;
};

std::vector<Learned>& learned() {
    static std::vector<Learned> all(commands().size());
    return all;
}

// The index of the setup that adds subcommand `name`, learning setups' names
// (by building each alone) only as far as needed; npos when none adds it.
std::size_t setup_of(const std::string& name) {
    auto& setups = learned();
    for (std::size_t i = 0; i < commands().size(); ++i) {
        Learned& setup = setups[i];
        if (!setup.names) {
            CLI::App scratch;
            commands()[i](scratch);
            options_snapshots().clear();
            setup.names = subcommand_names(scratch);
        }
        if (std::find(setup.names->begin(), setup.names->end(), name) != setup.names->end()) return i;
    }
    return std::string::npos;
}

// The top level with the subcommands of the setups `indices`.
std::shared_ptr<CLI::App> app_with(const std::vector<std::size_t>& indices) {
    auto app = std::make_shared<CLI::App>();
    build_base(*app);
    for (const std::size_t i : indices) commands()[i](*app);
    options_snapshots().clear();
    finish(*app);
    return app;
}

// The app with just the subcommand `name` (nullptr when no setup adds it);
// with `reuse`, the one built for an earlier run, its options put back.
std::shared_ptr<CLI::App> app_with(const std::string& name, bool reuse) {
    const std::size_t i = setup_of(name);
    if (i == std::string::npos) return nullptr;
    Learned& setup = learned()[i];
    if (reuse && setup.app != nullptr) {
        setup.app->clear();
        for (const auto& restore : setup.restores) restore();
        return setup.app;
    }
    auto app = std::make_shared<CLI::App>();
    build_base(*app);
    options_snapshots().clear();
    commands()[i](*app);
    finish(*app);
    if (reuse) {
        setup.restores.clear();
        for (const auto& snapshot : options_snapshots()) setup.restores.push_back(snapshot());
        setup.app = app;
    }
    options_snapshots().clear();
    return app;
}

// Every subcommand's name, in the order they are registered.
std::vector<std::string> all_subcommand_names() {
    setup_of("");  // learns every setup's names
    std::vector<std::string> all;
    for (const auto& setup : learned()) all.insert(all.end(), setup.names->begin(), setup.names->end());
    return all;
}

// The subcommand called `name`, or nullptr (CLI11 2.1 throws for an unknown name).
CLI::App* find_subcommand(CLI::App& app, const std::string& name) {
    for (CLI::App* sub : app.get_subcommands([](CLI::App*) { return true; }))
        if (sub->get_name() == name) return sub;
    return nullptr;
}

// napkin, napkin help, napkin --help: the subcommands by group, in 80 columns.
// (The same every time: made once per process.)
const std::string& overview() {
    static const std::string text = [] {
        const std::shared_ptr<CLI::App> app = every_command();
        std::ostringstream out;
        out << "napkin " << NAPKIN_VERSION << ": " << description << "\n\n"
            << "usage: napkin <command> [options]   (napkin <command> --help for its options)\n";
        std::map<std::string, std::vector<const CLI::App*>> by_group;
        for (const CLI::App* sub : app->get_subcommands([](CLI::App*) { return true; }))
            by_group[group_of(sub->get_name())].push_back(sub);
        auto list = [&](const std::string& group) {
            const auto found = by_group.find(group);
            if (found == by_group.end()) return;
            out << "\n" << group << ":\n";
            for (const CLI::App* sub : found->second) {
                std::string name = "  " + sub->get_name();
                name.resize(std::max<std::size_t>(name.size() + 2, 18), ' ');
                out << name << sub->get_description() << "\n";
            }
        };
        for (const auto& [group, names] : groups()) list(group);
        list("other");
        out << "\noptions:\n  -h, --help      this list\n  --version       print the version and exit\n"
            << "\nexit status: 0 answered (\"does not fit\" is an answer), 2 invalid input or\n"
            << "usage (one line naming the flag and its value), 1 internal error.\n";
        return wrap_help(out.str());
    }();
    return text;
}

// The subcommand the arguments name (the first one not starting with '-').
CLI::App* chosen_subcommand(CLI::App& app, const std::vector<std::string>& args) {
    for (const auto& a : args)
        if (!a.starts_with("-")) return find_subcommand(app, a);
    return nullptr;
}

std::vector<std::string> flag_names(const CLI::App& sub) {
    std::vector<std::string> names{"--help"};
    for (const CLI::Option* opt : sub.get_options()) {
        for (const auto& l : opt->get_lnames()) names.push_back("--" + l);
        for (const auto& s : opt->get_snames()) names.push_back("-" + s);
    }
    return names;
}

const CLI::Option* option_named(const CLI::App* sub, const std::string& flag) {
    if (sub == nullptr) return nullptr;
    for (const CLI::Option* opt : sub->get_options())
        if (opt->check_name(flag)) return opt;
    return nullptr;
}

// What a value of the option must look like, from CLI11's type name.
std::string kind_of(const CLI::Option* opt) {
    const std::string type = opt != nullptr ? opt->get_type_name() : "";
    if (type.find("INT") != std::string::npos || type.find("UINT") != std::string::npos) return "a whole number";
    if (type.find("FLOAT") != std::string::npos) return "a number";
    return "a value";
}

// A whole number written out: "-12", "+7", "99999999999999999999".
bool integer_literal(const std::string& text) {
    const std::size_t digits = !text.empty() && (text.front() == '+' || text.front() == '-') ? 1 : 0;
    return text.size() > digits && std::all_of(text.begin() + static_cast<std::ptrdiff_t>(digits), text.end(),
                                               [](char c) { return c >= '0' && c <= '9'; });
}
// One that no long long holds.
bool beyond_long_long(const std::string& text) {
    if (!integer_literal(text)) return false;
    long long x = 0;
    const char* first = text.data() + (text.front() == '+' ? 1 : 0);
    return std::from_chars(first, text.data() + text.size(), x).ec == std::errc::result_out_of_range;
}
// Why a whole number is outside its flag's type: below zero for an unsigned count, else its size.
std::string out_of_range(const std::string& text, const CLI::Option* opt) {
    if (text.front() != '-') return "too large a whole number";
    const bool is_unsigned = opt != nullptr && opt->get_type_name().find("UINT") != std::string::npos;
    return is_unsigned ? "must not be negative" : "too small a whole number";
}

// CLI11's parse errors as one line naming the flag and the value.
std::string parse_error_line(const CLI::ParseError& e, CLI::App& app, const std::vector<std::string>& args) {
    // Written out first, so that a value with a newline in it still matches below.
    const std::string what = one_line(e.what());
    CLI::App* sub = chosen_subcommand(app, args);
    const std::string where = sub != nullptr ? sub->get_name() + ": " : "";
    // CLI11's exception types carry no fields: the flag and the value are read
    // from its fixed message shapes (CLI11 2.x Error.hpp), without a pattern library.
    const auto no_space = [](std::string_view word) { return !word.empty() && word.find(' ') == word.npos; };
    if (const std::string_view convert = "Could not convert: "; what.starts_with(convert)) {
        const std::string rest = what.substr(convert.size());
        if (const std::size_t eq = rest.find(" = "); eq != std::string::npos && no_space(rest.substr(0, eq))) {
            const std::string flag = rest.substr(0, eq), value = rest.substr(eq + 3);
            const CLI::Option* opt = option_named(sub, flag);
            const std::string head = flag + " = \"" + value + "\": ";
            // A whole number the flag's type cannot hold.
            if (kind_of(opt) == "a whole number" && integer_literal(value)) return head + out_of_range(value, opt);
            return head + "not " + kind_of(opt);
        }
    }
    // "--tp: 1 required INT missing"
    if (const std::size_t colon = what.find(": "); colon != std::string::npos && what.ends_with(" missing") &&
                                                   what.find(" required ", colon) != std::string::npos &&
                                                   no_space(what.substr(0, colon))) {
        const std::string flag = what.substr(0, colon);
        return flag + ": needs a value (" + kind_of(option_named(sub, flag)) + ")";
    }
    std::string extras;
    for (const std::string_view unexpected :
         {"The following argument was not expected: ", "The following arguments were not expected: "})
        if (what.starts_with(unexpected)) extras = what.substr(unexpected.size());
    if (!extras.empty()) {
        std::istringstream words(extras);
        std::string first;
        words >> first;
        if (first.starts_with("-")) {
            const std::string flag = first.substr(0, first.find('='));
            return where + "unknown flag \"" + first + "\"" +
                   (sub != nullptr ? did_you_mean(flag, flag_names(*sub)) : "") + " (napkin " +
                   (sub != nullptr ? sub->get_name() + " " : "") + "--help lists them)";
        }
        return where + "unexpected argument \"" + first + "\"";
    }
    return where + what;  // "--model is required" and any other shape, as CLI11 wrote it
}

// A library error names the field it guards (napkin::invalid_argument::field():
// "Parallelism.tp"); the line then also names the flag that set it, when the
// subcommand has one. This table is the CLI's spelling of the library's fields:
// irregular names are listed; any other "Struct.field" or "field" maps to
// --field with '_' and ' ' as '-', when the subcommand has that flag; a product
// ("tp × cp × pp × dp") names the flags of its factors.
const std::map<std::string, std::vector<std::string>>& field_flags() {
    static const std::map<std::string, std::vector<std::string>> table{
        {"Parallelism.virtual_stages", {"--vp", "--chunks"}},
        {"virtual_stages", {"--vp", "--chunks"}},
        {"Parallelism.micro_batch", {"--micro-batch"}},
        {"Parallelism.sequence", {"--seq-len"}},
        {"sequence", {"--seq-len"}},
        {"PipelineShape.stages", {"--stages", "--pp"}},
        {"stages", {"--stages", "--pp"}},
        {"PipelineShape.microbatches", {"--microbatches"}},
        {"PipelineShape.chunks", {"--chunks", "--vp"}},
        {"chunks", {"--chunks", "--vp"}},
        {"StageTimes.forward", {"--forward-ms", "--layer-forward-ms"}},
        {"StageTimes.backward", {"--backward-ms", "--layer-backward-ms"}},
        {"StageTimes.weight_grad", {"--weight-grad-ms"}},
        {"ScheduleTimes.send", {"--send-ms"}},
        {"DualPipe.overlapped_forward_backward", {"--overlapped-ms"}},
        {"DualPipeV.overlapped_forward_backward", {"--overlapped-ms"}},
        {"Interleaved.extra_warmup", {"--extra-warmup"}},
        {"Gpu.memory", {"--gpu-memory", "--gpu-memory-gib"}},
        {"Gpu.memory_bandwidth", {"--gpu-bandwidth", "--gpu-bandwidth-gbps"}},
        {"Gpu.peak_flops", {"--gpu-tflops"}},
        {"Gpu.usable_fraction", {"--gpu-usable"}},
        {"Gpu.sm_count", {"--gpu-sms"}},
        {"Gpu.fp8_flops", {"--gpu-fp8-peak"}},
        {"Gpu.fp6_flops", {"--gpu-fp6-peak"}},
        {"Gpu.fp4_flops", {"--gpu-fp4-peak"}},
        {"Gpu.board_power", {"--gpu-power"}},
        {"Link.bandwidth", {"--bandwidth-gbps", "--bandwidth", "--link-bandwidth-gbps"}},
        {"Link.step_latency", {"--latency-us", "--latency", "--link-step-us", "--latency-ms"}},
        {"HierarchicalTopology.intra.bandwidth", {"--intra-bandwidth-gbps", "--intra-bandwidth"}},
        {"HierarchicalTopology.intra.step_latency", {"--intra-latency-us", "--intra-latency"}},
        {"HierarchicalTopology.inter.bandwidth", {"--inter-bandwidth-gbps", "--inter-bandwidth"}},
        {"HierarchicalTopology.inter.step_latency", {"--inter-latency-us", "--inter-latency"}},
        {"HierarchicalTopology.nodes", {"--gpus"}},
        {"Node.gpus", {"--gpus-per-node"}},
        {"Cluster.nodes", {"--gpus"}},
        {"ranks", {"--gpus", "--ranks"}},
        {"MegatronRun.gpus", {"--gpus"}},
        {"InferenceSetup.context", {"--context-tokens"}},
        {"InferenceSetup.working_allowance", {"--overhead", "--overhead-gib"}},
        {"ServingSetup.working_allowance", {"--overhead", "--overhead-gib"}},
        {"tokens_in_flight", {"--tokens", "--context-tokens"}},
        {"max_tokens_in_flight", {"--max-tokens"}},
        {"TensorPipelineSplit.tokens_in_flight", {"--tokens", "--context-tokens"}},
        {"CalibrationOptions.base_latency", {"--base-latency-us", "--base-latency"}},
        {"LayerMap.stages", {"--layer-map"}},
        {"LayerMap.chunks", {"--layer-map"}},
        {"LayerMap layers", {"--layer-map"}},
        {"top_k", {"--top"}},
        {"instances", {"--disaggregate"}},
        {"ttft bound", {"--ttft-ms", "--tpot-ms"}},
        {"tpot bound", {"--tpot-ms", "--ttft-ms"}},
        {"message", {"--bytes", "--concurrency", "--batch"}},
        {"sequence length", {"--input-tokens", "--output-tokens", "--seq-len"}},
        {"passes to simulate", {"--stages", "--microbatches", "--chunks"}},
    };
    return table;
}

// Fields the CLI spells as its flag in the message itself (a file the flag
// named, a value the flag gave whole): "times file = …" reads "--times = …",
// "layer_map stage 2 chunk 1 = …" reads "--layer-map stage 2 chunk 1 = …".
const std::map<std::string, std::string, std::less<>>& field_spelled_as_flag() {
    static const std::map<std::string, std::string, std::less<>> table{
        {"times file", "--times"},
        {"reference file", "--reference"},
        {"svg file", "--svg"},
        {"optimizer", "--optimizer"},
        {"layer_map", "--layer-map"},
        {"first_stage_layers", "--first-stage-layers"},
        {"last_stage_layers", "--last-stage-layers"},
    };
    return table;
}

std::vector<std::string> flags_of(const std::string& field) {
    if (const auto found = field_flags().find(field); found != field_flags().end()) return found->second;
    if (const auto spelled = field_spelled_as_flag().find(field); spelled != field_spelled_as_flag().end())
        return {spelled->second};
    // Only a "Struct.field" (capitalised) or a plain lower-case name, not a file name.
    const std::size_t dot = field.find('.');
    if (dot != std::string::npos &&
        (field.front() < 'A' || field.front() > 'Z' || field.find('.', dot + 1) != std::string::npos))
        return {};
    std::string name = field.substr(dot == std::string::npos ? 0 : dot + 1);
    if (name.empty() ||
        !std::all_of(name.begin(), name.end(), [](char c) { return (c >= 'a' && c <= 'z') || c == '_' || c == ' '; }))
        return {};
    std::replace(name.begin(), name.end(), '_', '-');
    std::replace(name.begin(), name.end(), ' ', '-');
    return {"--" + name};
}

bool typed_flag(const std::string& flag, const std::vector<std::string>& args) {
    return std::any_of(args.begin(), args.end(),
                       [&](const std::string& a) { return a == flag || a.starts_with(flag + "="); });
}

// The flags that set `field` in this run: those typed, else the subcommand's own.
std::vector<std::string> flags_for(const std::string& field, const CLI::App& sub,
                                   const std::vector<std::string>& args) {
    const auto flags = flags_of(field);
    std::vector<std::string> typed;
    for (const auto& flag : flags)
        if (typed_flag(flag, args) && std::find(typed.begin(), typed.end(), flag) == typed.end()) typed.push_back(flag);
    if (!typed.empty()) return typed;
    for (const auto& flag : flags)
        if (option_named(&sub, flag) != nullptr) return {flag};
    return {};
}

// The factors of a product of fields: "tp × cp × pp × dp" → tp, cp, pp, dp.
std::vector<std::string> factors_of(const std::string& product) {
    static const std::string times = " × ";
    std::vector<std::string> factors;
    for (std::size_t at = 0; at <= product.size();) {
        std::size_t end = product.find(times, at);
        if (end == std::string::npos) end = product.size();
        factors.push_back(product.substr(at, end - at));
        at = end + times.size();
    }
    return factors;
}

// The field in the CLI's spelling where a flag stands for it whole ("times file" → --times,
// "layer_map stage 2 chunk 1" → --layer-map stage 2 chunk 1), or "".
std::string flag_spelling(const std::string& field) {
    for (const std::string& prefix : {field, field.substr(0, field.find(' '))})
        if (const auto spelled = field_spelled_as_flag().find(prefix); spelled != field_spelled_as_flag().end())
            return spelled->second + field.substr(prefix.size());
    return "";
}

std::string with_flag(const napkin::invalid_argument& e, CLI::App& app, const std::vector<std::string>& args) {
    const CLI::App* sub = chosen_subcommand(app, args);
    // A message a front end wrote names its flag already.
    if (sub == nullptr || e.field().empty() || e.field().starts_with("-")) return e.what();
    std::string name = e.field();
    // A field the flag stands for whole is written as the flag: "--layer-map stage 2 chunk 1 = …".
    const std::string spelling = flag_spelling(name);
    std::string message = spelling.empty()
                              ? std::string(e.what())
                              : spelling + (e.value().empty() ? "" : " = " + e.value()) + ": " + e.requirement();
    // "micro-batches per step (global_batch / (micro_batch × dp))": the name, less what the parentheses say.
    if (const std::size_t paren = name.find(" ("); paren != std::string::npos) name.resize(paren);
    std::vector<std::string> typed, fallback;
    for (const std::string& factor : spelling.empty() ? factors_of(name) : std::vector<std::string>{})
        for (const auto& flag : flags_for(factor, *sub, args)) {
            auto& into = typed_flag(flag, args) ? typed : fallback;
            if (std::find(into.begin(), into.end(), flag) == into.end()) into.push_back(flag);
        }
    if (typed.empty()) typed = fallback;  // a product names its typed factors, else the subcommand's flags
    // A reader's error names the file it read, as its field ("cfg.json: not valid JSON (…)") or as its
    // value ("config file = \"cfg/\": is a directory, not a file"): the flag that gave that file is named too.
    if (typed.empty() && spelling.empty()) {
        std::string value = e.value();
        if (value.size() >= 2 && value.front() == '"' && value.back() == '"') value = value.substr(1, value.size() - 2);
        const auto is_given = [&](const std::string& given) {
            return !given.empty() && (given == e.field() || given == value);
        };
        for (std::size_t i = 1; i < args.size(); ++i) {
            if (args[i] == "--") break;
            const std::size_t eq = args[i].find('=');
            if (args[i].starts_with("--") && eq != std::string::npos && is_given(args[i].substr(eq + 1)))
                return message + " (set by " + args[i].substr(0, eq) + ")";
            if (is_given(args[i]) && args[i - 1].starts_with("--") && args[i - 1].find('=') == std::string::npos)
                return message + " (set by " + args[i - 1] + ")";
        }
    }
    const auto join = [](const std::vector<std::string>& flags) {
        std::string text;
        for (const auto& flag : flags) text += (text.empty() ? "" : ", ") + flag;
        return text;
    };
    // The other fields the requirement states with their values ("must be a multiple of
    // micro_batch × dp = 4294967296") add the flags typed for them.
    for (const std::string& related : e.related())
        for (const auto& flag : flags_of(related))
            if (typed_flag(flag, args) && std::find(typed.begin(), typed.end(), flag) == typed.end())
                typed.push_back(flag);
    if (!typed.empty()) return message + " (set by " + join(typed) + ")";
    // A value the library derives from several flags (a stage's time from the
    // model, the sequence, the micro-batch, the GPU and the efficiency) names
    // the flags typed among those it comes from, else the model's.
    static const std::vector<std::string> stage_time_inputs{"--seq-len",
                                                            "--micro-batch",
                                                            "--tp",
                                                            "--cp",
                                                            "--ep",
                                                            "--pp",
                                                            "--vp",
                                                            "--gpu-tflops",
                                                            "--gpu-bandwidth-gbps",
                                                            "--gpu-bandwidth",
                                                            "--peak-share",
                                                            "--half-width",
                                                            "--memory-passes",
                                                            "--compute-dtype",
                                                            "--recompute",
                                                            "--layer-map",
                                                            "--first-stage-layers",
                                                            "--last-stage-layers",
                                                            "--gpu"};
    static const std::map<std::string, const std::vector<std::string>*> derived{
        {"StageTimes.forward", &stage_time_inputs},
        {"StageTimes.backward", &stage_time_inputs},
        {"StageTimes.weight_grad", &stage_time_inputs},
        {"efficiency", &stage_time_inputs},
        {"width", &stage_time_inputs}};
    const auto inputs = derived.find(name);
    if (inputs == derived.end()) return message;
    std::vector<std::string> sources;
    for (const auto& flag : *inputs->second)
        if (typed_flag(flag, args)) sources.push_back(flag);
    if (sources.empty() && option_named(sub, "--model") != nullptr) sources.push_back("--model");
    return sources.empty() ? message : message + " (from " + join(sources) + ")";
}

// The app a run needs. When the first argument is a word, CLI11 takes it for
// the subcommand (the top level has no positional arguments) or it is an
// unknown command (an error before parsing): the app holds that subcommand
// alone, or none. After a leading flag, the app holds the subcommands named
// anywhere in the arguments (CLI11 matches no other; after "--" too).
std::shared_ptr<CLI::App> app_for(const std::vector<std::string>& args, const RunOptions& options) {
    if (options.build_every_command) return every_command();
    if (!args.empty() && !args[0].starts_with("-")) {
        if (auto app = app_with(args[0], options.reuse_built_commands)) return app;
        return app_with(std::vector<std::size_t>{});
    }
    std::vector<std::size_t> indices;
    for (const auto& a : args)
        if (const std::size_t i = setup_of(a);
            i != std::string::npos && std::find(indices.begin(), indices.end(), i) == indices.end())
            indices.push_back(i);
    std::sort(indices.begin(), indices.end());  // the order they are registered in
    if (indices.size() == 1) {
        for (const auto& a : args)
            if (setup_of(a) == indices[0]) return app_with(a, options.reuse_built_commands);
    }
    return app_with(indices);
}

int dispatch(const std::vector<std::string>& args, const RunOptions& options) {
    // napkin, napkin help [command]
    if (args.empty() || (args.size() == 1 && args[0] == "help")) {
        std::cout << overview();
        return exit_answered;
    }
    if (args[0] == "help") {
        const std::shared_ptr<CLI::App> app = options.build_every_command ? every_command() : app_with(args[1], false);
        CLI::App* sub = app != nullptr ? find_subcommand(*app, args[1]) : nullptr;
        if (sub == nullptr) {
            print_error("help \"" + args[1] + "\": not a command" + did_you_mean(args[1], all_subcommand_names()) +
                        " (napkin help lists them)");
            return exit_invalid_input;
        }
        std::cout << wrap_help(sub->help());
        return exit_answered;
    }
    const std::shared_ptr<CLI::App> built = app_for(args, options);
    CLI::App& app = *built;
    if (!args[0].starts_with("-") && find_subcommand(app, args[0]) == nullptr) {
        print_error("unknown command \"" + args[0] + "\"" + did_you_mean(args[0], all_subcommand_names()) +
                    " (napkin help lists them)");
        return exit_invalid_input;
    }
    // A mistyped flag is named before CLI11 would complain of a required one missing.
    if (CLI::App* sub = find_subcommand(app, args[0])) {
        const auto known = flag_names(*sub);
        for (const auto& a : args) {
            if (a == "--") break;
            if (!a.starts_with("--")) continue;
            const std::string flag = a.substr(0, a.find('='));
            if (std::find(known.begin(), known.end(), flag) != known.end()) continue;
            print_error(sub->get_name() + ": unknown flag \"" + flag + "\"" + did_you_mean(flag, known) + " (napkin " +
                        sub->get_name() + " --help lists them)");
            return exit_invalid_input;
        }
        // An empty number ("--forward-ms ''", "--tp=") is an error naming the flag, not 0; so is a whole
        // number beyond 2^63 − 1, which CLI11 would clamp to it.
        for (std::size_t i = 1; i < args.size(); ++i) {
            if (args[i] == "--") break;
            if (!args[i].starts_with("-")) continue;
            const std::size_t eq = args[i].find('=');
            const std::string flag = args[i].substr(0, eq);
            if (eq == std::string::npos && i + 1 == args.size()) continue;
            const std::string value = eq != std::string::npos ? args[i].substr(eq + 1) : args[i + 1];
            const CLI::Option* opt = option_named(sub, flag);
            if (opt == nullptr || opt->get_type_size() == 0 || kind_of(opt) == "a value") continue;
            if (value.empty()) {
                print_error(flag + " = \"\": not " + kind_of(opt));
                return exit_invalid_input;
            }
            if (kind_of(opt) == "a whole number" && beyond_long_long(value)) {
                print_error(flag + " = \"" + value + "\": " + out_of_range(value, opt));
                return exit_invalid_input;
            }
        }
    }
    try {
        std::vector<std::string> reversed(args.rbegin(), args.rend());  // CLI11 reads a vector back to front
        app.parse(reversed);
        if (app.get_subcommands().empty()) {
            std::cout << overview();
            return exit_answered;
        }
    } catch (const CLI::CallForHelp&) {
        if (chosen_subcommand(app, args) == nullptr)
            std::cout << overview();
        else if (app.get_subcommands().empty())  // asked before the subcommand: the top level's, with every one
            std::cout << wrap_help(every_command()->help());
        else
            std::cout << wrap_help(app.help());
        return exit_answered;
    } catch (const CLI::CallForAllHelp&) {
        std::cout << wrap_help(app.help("", CLI::AppFormatMode::All));
        return exit_answered;
    } catch (const CLI::CallForVersion& e) {
        std::cout << e.what() << "\n";
        return exit_answered;
    } catch (const CLI::ParseError& e) {
        print_error(parse_error_line(e, app, args));
        return exit_invalid_input;
    } catch (const napkin::invalid_argument& e) {
        print_error(with_flag(e, app, args));
        return exit_invalid_input;
    } catch (const nlohmann::json::parse_error& e) {
        print_error(std::string("not JSON: ") + e.what());
        return exit_invalid_input;
    } catch (const std::exception& e) {
        std::cerr << "napkin: internal error: " << one_line(e.what()) << "\n";
        return exit_internal_error;
    }
    return exit_answered;
}

// Columns a UTF-8 string takes: its code points (µ and × are one column each).
std::size_t columns_of(std::string_view s) {
    return static_cast<std::size_t>(
        std::count_if(s.begin(), s.end(), [](char c) { return (static_cast<unsigned char>(c) & 0xC0U) != 0x80U; }));
}

}  // namespace

std::string wrap_help(const std::string& text, std::size_t columns) {
    std::istringstream lines(text);
    std::string out, line;
    while (std::getline(lines, line)) {
        if (columns_of(line) <= columns) {
            out += line + "\n";
            continue;
        }
        // Continuation indent: where the description starts (after the first run of
        // two or more spaces past the leading indent), else the leading indent.
        const std::size_t lead = line.find_first_not_of(' ');
        std::size_t indent = lead == std::string::npos ? 0 : lead;
        if (const std::size_t gap = line.find("  ", lead); gap != std::string::npos && lead != std::string::npos) {
            const std::size_t start = line.find_first_not_of(' ', gap);
            if (start != std::string::npos && columns_of(line.substr(0, start)) < columns / 2)
                indent = columns_of(line.substr(0, start));
        }
        std::string rest = line;
        while (columns_of(rest) > columns) {
            // The last space (or the place after the last comma) within the limit, past the indent.
            std::size_t cut = std::string::npos, seen = 0;
            for (std::size_t i = 0; i < rest.size(); ++i) {
                if ((static_cast<unsigned char>(rest[i]) & 0xC0U) != 0x80U) ++seen;
                if (i > indent && rest[i] == ' ' && seen <= columns + 1) cut = i;
                if (i > indent && rest[i] == ',' && seen < columns) cut = i + 1;
                if (seen > columns) break;
            }
            if (cut == std::string::npos || cut <= indent) break;
            out += rest.substr(0, cut) + "\n";
            const std::size_t next = rest.find_first_not_of(' ', cut);
            rest = std::string(indent, ' ') + (next == std::string::npos ? "" : rest.substr(next));
        }
        out += rest + "\n";
    }
    return out;
}

int execute(const std::vector<std::string>& args) {
    const int code = dispatch(args, RunOptions{});
    std::cout.flush();
    // An answer that never reached its reader (`napkin list > /dev/full`, a closed
    // pipe) is not an answer: said on stderr, exit 2 like any output that cannot be written.
    if (std::fflush(stdout) != 0 || std::ferror(stdout) != 0 || !std::cout) {
        std::fputs("napkin: error: standard output cannot be written\n", stderr);
        return code == exit_answered ? exit_invalid_input : code;
    }
    return code;
}

RunResult run(const std::vector<std::string>& args) { return run(args, RunOptions{}); }

RunResult run(const std::vector<std::string>& args, const RunOptions& options) {
    // Both streams into one temporary file, so printf and iostream output keep their order.
    std::cout.flush();
    std::cerr.flush();
    std::fflush(stdout);
    std::fflush(stderr);
    std::FILE* capture = std::tmpfile();
    if (capture == nullptr) return {exit_internal_error, "napkin: internal error: no temporary file for the output\n"};
    const int saved_out = ::dup(STDOUT_FILENO), saved_err = ::dup(STDERR_FILENO);
    ::dup2(::fileno(capture), STDOUT_FILENO);
    ::dup2(::fileno(capture), STDERR_FILENO);
    RunResult result;
    result.exit_code = dispatch(args, options);
    std::cout.flush();
    std::cerr.flush();
    std::fflush(stdout);
    std::fflush(stderr);
    ::dup2(saved_out, STDOUT_FILENO);
    ::dup2(saved_err, STDERR_FILENO);
    ::close(saved_out);
    ::close(saved_err);
    std::rewind(capture);
    char buffer[4096];
    std::size_t got = 0;
    while ((got = std::fread(buffer, 1, sizeof buffer, capture)) > 0) result.output.append(buffer, got);
    std::fclose(capture);
    return result;
}

}  // namespace napkin::cli
