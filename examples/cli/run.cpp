// SPDX-License-Identifier: MIT
// The napkin command's driver: grouped help, --version, and one exit convention
// (0 answered, 2 invalid input or usage in one line, 1 internal error) with
// "did you mean …?" for mistyped subcommands and flags.
#include "run.hpp"

#include "command.hpp"
#include "suggest.hpp"

#include <napkin/error.hpp>

#include <nlohmann/json.hpp>

#include <cstdio>
#include <iostream>
#include <algorithm>
#include <map>
#include <regex>
#include <sstream>
#include <unistd.h>

#ifndef NAPKIN_VERSION
#error "NAPKIN_VERSION (the project version) must be defined by the build"
#endif

namespace napkin::cli {
namespace {

constexpr const char* description = "analytical performance models for distributed GPU training and inference";

// The help's groups, in the order they are listed; a subcommand not named here
// is listed under "other".
const std::vector<std::pair<std::string, std::vector<std::string>>>& groups() {
    static const std::vector<std::pair<std::string, std::vector<std::string>>> all{
        {"inference", {"split", "fewest", "best", "serve"}},
        {"collectives", {"allreduce", "collective", "crossover"}},
        {"pipeline", {"bubble", "schedule"}},
        {"training", {"train"}},
        {"planning", {"plan", "plan-inference"}},
        {"calibration", {"calibrate"}},
        {"catalog", {"list", "show"}},
    };
    return all;
}

std::string group_of(const std::string& name) {
    for (const auto& [group, names] : groups())
        if (std::find(names.begin(), names.end(), name) != names.end()) return group;
    return "other";
}

void build(CLI::App& app) {
    app.name("napkin");
    app.description(std::string("napkin ") + NAPKIN_VERSION + ": " + description);
    app.require_subcommand(0, 1);
    app.set_version_flag("--version", std::string("napkin ") + NAPKIN_VERSION, "print the version and exit");
    for (const auto& setup : commands()) setup(app);
    for (CLI::App* sub : app.get_subcommands([](CLI::App*) { return true; })) {
        sub->group(group_of(sub->get_name()));
        sub->preparse_callback([name = sub->get_name()](std::size_t) { current_command() = name; });
    }
}

// The subcommand called `name`, or nullptr (CLI11 2.1 throws for an unknown name).
CLI::App* find_subcommand(CLI::App& app, const std::string& name) {
    for (CLI::App* sub : app.get_subcommands([](CLI::App*) { return true; }))
        if (sub->get_name() == name) return sub;
    return nullptr;
}

std::vector<std::string> subcommand_names(CLI::App& app) {
    std::vector<std::string> names;
    for (const CLI::App* sub : app.get_subcommands([](CLI::App*) { return true; })) names.push_back(sub->get_name());
    return names;
}

// napkin, napkin help, napkin --help: the subcommands by group, in 80 columns.
std::string overview(CLI::App& app) {
    std::ostringstream out;
    out << "napkin " << NAPKIN_VERSION << ": " << description << "\n\n"
        << "usage: napkin <command> [options]   (napkin <command> --help for its options)\n";
    std::map<std::string, std::vector<const CLI::App*>> by_group;
    for (const CLI::App* sub : app.get_subcommands([](CLI::App*) { return true; }))
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

// CLI11's parse errors as one line naming the flag and the value.
std::string parse_error_line(const CLI::ParseError& e, CLI::App& app, const std::vector<std::string>& args) {
    const std::string what = e.what();
    CLI::App* sub = chosen_subcommand(app, args);
    const std::string where = sub != nullptr ? sub->get_name() + ": " : "";
    std::smatch m;
    if (std::regex_match(what, m, std::regex("Could not convert: (\\S+) = (.*)"))) {
        return m[1].str() + " = \"" + m[2].str() + "\": not " + kind_of(option_named(sub, m[1].str()));
    }
    if (std::regex_match(what, m, std::regex("(\\S+): (\\d+) required (\\S+) missing"))) {
        return m[1].str() + ": needs a value (" + kind_of(option_named(sub, m[1].str())) + ")";
    }
    if (std::regex_match(what, m, std::regex("The following arguments? (?:was|were) not expected: (.*)"))) {
        std::istringstream words(m[1].str());
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
    if (std::regex_match(what, m, std::regex("(\\S+) is required"))) return where + m[1].str() + " is required";
    return where + what;
}

// A library check names the field it guards ("Parallelism.tp = 2: ..."); the
// line then also names the flag that set it, when the subcommand has one.
// Irregular names are in the table; any other "Struct.field" or "field" maps
// to --field with '_' and ' ' as '-', when the subcommand has that flag; a
// product ("tp × cp × pp × dp") names the flags of its factors.
std::vector<std::string> flags_of(const std::string& field) {
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
        {"top_k", {"--top"}},
        {"instances", {"--disaggregate"}},
        {"ttft bound", {"--ttft-ms", "--tpot-ms"}},
        {"tpot bound", {"--tpot-ms", "--ttft-ms"}},
        {"message", {"--bytes", "--concurrency", "--batch"}},
        {"sequence length", {"--input-tokens", "--output-tokens", "--seq-len"}},
        {"passes to simulate", {"--stages", "--microbatches", "--chunks"}},
    };
    if (const auto found = table.find(field); found != table.end()) return found->second;
    // Only a "Struct.field" (capitalised) or a plain lower-case name, not a file name.
    const std::size_t dot = field.find('.');
    if (dot != std::string::npos && (field.front() < 'A' || field.front() > 'Z' || field.find('.', dot + 1) != std::string::npos))
        return {};
    std::string name = field.substr(dot == std::string::npos ? 0 : dot + 1);
    if (name.empty() || !std::all_of(name.begin(), name.end(), [](char c) { return (c >= 'a' && c <= 'z') || c == '_' || c == ' '; }))
        return {};
    std::replace(name.begin(), name.end(), '_', '-');
    std::replace(name.begin(), name.end(), ' ', '-');
    return {"--" + name};
}

// The flags that set `field` in this run: those typed, else the subcommand's own.
std::vector<std::string> flags_for(const std::string& field, const CLI::App& sub, const std::vector<std::string>& args) {
    const auto flags = flags_of(field);
    std::vector<std::string> typed;
    for (const auto& flag : flags)
        for (const auto& a : args)
            if ((a == flag || a.starts_with(flag + "=")) && std::find(typed.begin(), typed.end(), flag) == typed.end())
                typed.push_back(flag);
    if (!typed.empty()) return typed;
    for (const auto& flag : flags)
        if (option_named(&sub, flag) != nullptr) return {flag};
    return {};
}

std::string with_flag(const std::string& message, CLI::App& app, const std::vector<std::string>& args) {
    const CLI::App* sub = chosen_subcommand(app, args);
    if (sub == nullptr || message.starts_with("-")) return message;
    // The argument's name: what comes before " = " or ":", less a unit in parentheses.
    std::string name = message.substr(0, std::min(message.find(" = "), message.find(':')));
    if (const std::size_t unit = name.find(" ("); unit != std::string::npos) name.resize(unit);
    if (name.empty() || name.size() > 80) return message;
    std::vector<std::string> typed, fallback;
    std::size_t from = 0;
    const std::string times = " × ";
    while (from <= name.size()) {
        std::size_t to = name.find(times, from);
        if (to == std::string::npos) to = name.size();
        for (const auto& flag : flags_for(name.substr(from, to - from), *sub, args)) {
            const bool was_typed = std::any_of(args.begin(), args.end(),
                                               [&](const std::string& a) { return a == flag || a.starts_with(flag + "="); });
            auto& into = was_typed ? typed : fallback;
            if (std::find(into.begin(), into.end(), flag) == into.end()) into.push_back(flag);
        }
        from = to + times.size();
    }
    if (typed.empty()) typed = fallback;  // a product names its typed factors, else the subcommand's flags
    if (typed.empty()) return message;
    std::string set_by;
    for (const auto& flag : typed) set_by += (set_by.empty() ? "" : ", ") + flag;
    return message + " (set by " + set_by + ")";
}

int dispatch(const std::vector<std::string>& args) {
    CLI::App app;
    build(app);
    // napkin, napkin help [command]
    if (args.empty() || (args.size() == 1 && args[0] == "help")) {
        std::cout << overview(app);
        return exit_answered;
    }
    if (args[0] == "help") {
        CLI::App* sub = find_subcommand(app, args[1]);
        if (sub == nullptr) {
            std::cerr << "napkin: error: help \"" << args[1] << "\": not a command"
                      << did_you_mean(args[1], subcommand_names(app)) << " (napkin help lists them)\n";
            return exit_invalid_input;
        }
        std::cout << wrap_help(sub->help());
        return exit_answered;
    }
    if (!args[0].starts_with("-") && find_subcommand(app, args[0]) == nullptr) {
        std::cerr << "napkin: error: unknown command \"" << args[0] << "\""
                  << did_you_mean(args[0], subcommand_names(app)) << " (napkin help lists them)\n";
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
            std::cerr << "napkin: error: " << sub->get_name() << ": unknown flag \"" << flag << "\""
                      << did_you_mean(flag, known) << " (napkin " << sub->get_name() << " --help lists them)\n";
            return exit_invalid_input;
        }
        // An empty number ("--forward-ms ''", "--tp=") is an error naming the flag, not 0.
        for (std::size_t i = 1; i < args.size(); ++i) {
            if (args[i] == "--") break;
            if (!args[i].starts_with("-")) continue;
            const std::size_t eq = args[i].find('=');
            const std::string flag = args[i].substr(0, eq);
            const bool empty = eq != std::string::npos ? eq + 1 == args[i].size() : i + 1 < args.size() && args[i + 1].empty();
            const CLI::Option* opt = option_named(sub, flag);
            if (!empty || opt == nullptr || opt->get_type_size() == 0 || kind_of(opt) == "a value") continue;
            std::cerr << "napkin: error: " << flag << " = \"\": not " << kind_of(opt) << "\n";
            return exit_invalid_input;
        }
    }
    try {
        std::vector<std::string> reversed(args.rbegin(), args.rend());  // CLI11 reads a vector back to front
        app.parse(reversed);
        if (app.get_subcommands().empty()) {
            std::cout << overview(app);
            return exit_answered;
        }
    } catch (const CLI::CallForHelp&) {
        if (chosen_subcommand(app, args) == nullptr) std::cout << overview(app);
        else std::cout << wrap_help(app.help());
        return exit_answered;
    } catch (const CLI::CallForAllHelp&) {
        std::cout << wrap_help(app.help("", CLI::AppFormatMode::All));
        return exit_answered;
    } catch (const CLI::CallForVersion& e) {
        std::cout << e.what() << "\n";
        return exit_answered;
    } catch (const CLI::ParseError& e) {
        std::cerr << "napkin: error: " << parse_error_line(e, app, args) << "\n";
        return exit_invalid_input;
    } catch (const napkin::invalid_argument& e) {
        std::cerr << "napkin: error: " << with_flag(e.what(), app, args) << "\n";
        return exit_invalid_input;
    } catch (const nlohmann::json::parse_error& e) {
        std::cerr << "napkin: error: not JSON: " << e.what() << "\n";
        return exit_invalid_input;
    } catch (const std::exception& e) {
        std::cerr << "napkin: internal error: " << e.what() << "\n";
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
    const int code = dispatch(args);
    std::cout.flush();
    std::fflush(stdout);
    return code;
}

RunResult run(const std::vector<std::string>& args) {
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
    result.exit_code = dispatch(args);
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
