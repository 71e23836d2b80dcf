// SPDX-License-Identifier: MIT
// DESIGN.md's layering, checked against the headers: every header under
// include/napkin belongs to exactly one layer of DESIGN.md's table, includes
// only its own layer and those below (rule 1), and the catalog stays in layer 1
// or below (rule 2). Each broken rule is one line naming the file and line.
// Also here: every public declaration of those headers carries a `///`
// comment, the doc comments Doxygen extracts.
#include <doctest/doctest.h>

#include <algorithm>
#include <charconv>
#include <cstddef>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

namespace {

// One header pattern of DESIGN.md's table: "training.hpp" or "training/*.hpp"
// (relative to include/napkin; '*' matches within one directory).
struct LayerRow {
    std::string pattern;
    int layer = 0;
    std::string name;
};

// An include DESIGN.md allows against the rules, listed with its reason.
struct AllowedInclude {
    std::string from;
    std::string to;
};

struct DesignLayering {
    std::vector<LayerRow> rows;
    std::vector<AllowedInclude> exceptions;
    std::vector<std::string> problems;  // lines of DESIGN.md that could not be read
};

// A header as the checker sees it: its path relative to include/napkin and its text.
struct HeaderFile {
    std::string path;
    std::string text;
};

std::string_view trimmed(std::string_view s) {
    const auto first = s.find_first_not_of(" \t");
    if (first == std::string_view::npos) return {};
    const auto last = s.find_last_not_of(" \t\r");
    return s.substr(first, last - first + 1);
}

std::vector<std::string_view> lines_of(std::string_view text) {
    std::vector<std::string_view> lines;
    while (!text.empty()) {
        const auto end = text.find('\n');
        lines.push_back(text.substr(0, end));
        if (end == std::string_view::npos) break;
        text.remove_prefix(end + 1);
    }
    return lines;
}

// Every `quoted` item of a Markdown line, in order.
std::vector<std::string> code_spans(std::string_view line) {
    std::vector<std::string> spans;
    for (auto open = line.find('`'); open != std::string_view::npos; open = line.find('`')) {
        const auto close = line.find('`', open + 1);
        if (close == std::string_view::npos) break;
        spans.emplace_back(line.substr(open + 1, close - open - 1));
        line.remove_prefix(close + 1);
    }
    return spans;
}

// The lines between "<!-- NAME:begin -->" and "<!-- NAME:end -->"; nullopt when a marker is missing.
std::optional<std::vector<std::string_view>> marked_block(std::string_view text, std::string_view name) {
    const std::string begin = "<!-- " + std::string(name) + ":begin -->";
    const std::string end = "<!-- " + std::string(name) + ":end -->";
    const auto b = text.find(begin);
    const auto e = text.find(end);
    if (b == std::string_view::npos || e == std::string_view::npos || e < b) return std::nullopt;
    return lines_of(text.substr(b + begin.size(), e - b - begin.size()));
}

// DESIGN.md's layer table ("| layer | name | `pattern`, ... |") and its list of
// exceptions ("- `from` → `to`: why").
DesignLayering read_design(std::string_view design) {
    DesignLayering out;
    const auto table = marked_block(design, "layers");
    if (!table) out.problems.emplace_back("DESIGN.md: no <!-- layers:begin --> … <!-- layers:end --> table");
    for (const std::string_view line : table.value_or(std::vector<std::string_view>{})) {
        const std::string_view row = trimmed(line);
        if (row.empty() || row.starts_with("| layer") || row.starts_with("|---")) continue;
        std::vector<std::string_view> cells;
        for (std::string_view rest = row.substr(1); !rest.empty();) {
            const auto bar = rest.find('|');
            cells.push_back(trimmed(rest.substr(0, bar)));
            if (bar == std::string_view::npos) break;
            rest.remove_prefix(bar + 1);
        }
        int layer = -1;
        const bool numbered =
            cells.size() >= 3 &&
            std::from_chars(cells[0].data(), cells[0].data() + cells[0].size(), layer).ec == std::errc{};
        const std::vector<std::string> patterns = cells.size() >= 3 ? code_spans(cells[2]) : std::vector<std::string>{};
        if (!numbered || layer < 0 || cells[1].empty() || patterns.empty()) {
            out.problems.push_back("DESIGN.md: a layer row needs a number, a name and `header` items: " +
                                   std::string(row));
            continue;
        }
        for (const std::string& pattern : patterns) out.rows.push_back({pattern, layer, std::string(cells[1])});
    }
    const auto exceptions = marked_block(design, "layering-exceptions");
    if (!exceptions)
        out.problems.emplace_back(
            "DESIGN.md: no <!-- layering-exceptions:begin --> … <!-- layering-exceptions:end --> list");
    for (const std::string_view line : exceptions.value_or(std::vector<std::string_view>{})) {
        const std::string_view item = trimmed(line);
        if (item.empty() || item == "None.") continue;
        const std::vector<std::string> paths = code_spans(item);
        if (!item.starts_with("- ") || paths.size() < 2) {
            out.problems.push_back("DESIGN.md: an exception needs `from` → `to` and its reason: " + std::string(item));
            continue;
        }
        out.exceptions.push_back({paths[0], paths[1]});
    }
    return out;
}

// "training/*.hpp" matches "training/step.hpp", not "training/x/y.hpp"; a pattern without '*' matches itself.
bool matches(std::string_view pattern, std::string_view path) {
    const auto star = pattern.find('*');
    if (star == std::string_view::npos) return pattern == path;
    const std::string_view prefix = pattern.substr(0, star);
    const std::string_view suffix = pattern.substr(star + 1);
    if (path.size() < prefix.size() + suffix.size() || !path.starts_with(prefix) || !path.ends_with(suffix))
        return false;
    return path.substr(prefix.size(), path.size() - prefix.size() - suffix.size()).find('/') == std::string_view::npos;
}

std::vector<const LayerRow*> rows_matching(const DesignLayering& design, std::string_view path) {
    std::vector<const LayerRow*> found;
    for (const LayerRow& row : design.rows)
        if (matches(row.pattern, path)) found.push_back(&row);
    return found;
}

// The target of an `#include <napkin/...>` (or "napkin/...") line, relative to include/napkin.
std::optional<std::string> napkin_include(std::string_view line) {
    line = trimmed(line);
    if (!line.starts_with('#')) return std::nullopt;
    line = trimmed(line.substr(1));
    if (!line.starts_with("include")) return std::nullopt;
    line = trimmed(line.substr(std::string_view("include").size()));
    if (!line.starts_with("<napkin/") && !line.starts_with("\"napkin/")) return std::nullopt;
    const char close = line.front() == '<' ? '>' : '"';
    const auto end = line.find(close, 1);
    if (end == std::string_view::npos) return std::nullopt;
    return std::string(line.substr(std::string_view("<napkin/").size(), end - std::string_view("<napkin/").size()));
}

std::string layer_words(const LayerRow& row) { return "layer " + std::to_string(row.layer) + " (" + row.name + ")"; }

// One line per broken rule, table row or exception, in header order; empty when the headers keep DESIGN.md.
std::vector<std::string> layering_violations(const DesignLayering& design, const std::vector<HeaderFile>& headers) {
    std::vector<std::string> out = design.problems;
    for (const LayerRow& row : design.rows) {
        const bool used = std::any_of(headers.begin(), headers.end(),
                                      [&row](const HeaderFile& h) { return matches(row.pattern, h.path); });
        if (!used)
            out.push_back("DESIGN.md: `" + row.pattern + "` (" + layer_words(row) +
                          ") matches no header under include/napkin: a row names headers that exist");
    }
    std::vector<bool> exception_used(design.exceptions.size(), false);
    for (const HeaderFile& header : headers) {
        const std::string where = "include/napkin/" + header.path;
        const auto own = rows_matching(design, header.path);
        if (own.empty()) {
            out.push_back(where + ": in no layer of DESIGN.md's table: every header belongs to one layer");
            continue;
        }
        if (own.size() > 1) {
            out.push_back(where + ": matched by both `" + own[0]->pattern + "` and `" + own[1]->pattern +
                          "` in DESIGN.md's table: every header belongs to one layer");
            continue;
        }
        const LayerRow& from = *own.front();
        if (header.path.starts_with("catalog/") && from.layer > 1)
            out.push_back(where + ": in " + layer_words(from) +
                          ": the catalog is data, in layer 1 or below (DESIGN.md, rule 2)");
        const auto lines = lines_of(header.text);
        for (std::size_t i = 0; i < lines.size(); ++i) {
            const auto target = napkin_include(lines[i]);
            if (!target) continue;
            const std::string at = where + ":" + std::to_string(i + 1) + ": includes <napkin/" + *target + ">";
            const auto to = rows_matching(design, *target);
            if (to.size() != 1) {
                out.push_back(at + ", in no single layer of DESIGN.md's table: every header belongs to one layer");
                continue;
            }
            if (to.front()->layer <= from.layer) continue;
            const auto allowed = std::find_if(
                design.exceptions.begin(), design.exceptions.end(),
                [&header, &target](const AllowedInclude& a) { return a.from == header.path && a.to == *target; });
            if (allowed != design.exceptions.end()) {
                exception_used[static_cast<std::size_t>(allowed - design.exceptions.begin())] = true;
                continue;
            }
            out.push_back(at + ", " + layer_words(*to.front()) + ", from " + layer_words(from) +
                          ": a header includes only its own layer and those below (DESIGN.md, rule 1)");
        }
    }
    for (std::size_t i = 0; i < design.exceptions.size(); ++i)
        if (!exception_used[i])
            out.push_back("DESIGN.md: the exception `" + design.exceptions[i].from + "` → `" + design.exceptions[i].to +
                          "` allows no upward include that exists: remove it");
    return out;
}

std::string file_text(const std::filesystem::path& path) {
    std::ifstream in(path);
    std::stringstream buf;
    buf << in.rdbuf();
    return buf.str();
}

const std::filesystem::path source_dir{NAPKIN_SOURCE_DIR};

// Every header under include/napkin, sorted by path.
std::vector<HeaderFile> napkin_headers() {
    const std::filesystem::path root = source_dir / "include" / "napkin";
    std::vector<HeaderFile> headers;
    for (const auto& entry : std::filesystem::recursive_directory_iterator(root))
        if (entry.is_regular_file() && entry.path().extension() == ".hpp")
            headers.push_back({entry.path().lexically_relative(root).generic_string(), file_text(entry.path())});
    std::sort(headers.begin(), headers.end(), [](const HeaderFile& a, const HeaderFile& b) { return a.path < b.path; });
    return headers;
}

DesignLayering repository_design() { return read_design(file_text(source_dir / "DESIGN.md")); }

// Lines one to a line, so a failed comparison prints them (doctest prints a vector as {?}).
std::string joined(const std::vector<std::string>& lines) {
    std::string text;
    for (const std::string& line : lines) text += line + "\n";
    return text;
}

// A small DESIGN.md for the checker's own tests.
constexpr std::string_view small_design = R"(
<!-- layers:begin -->
| layer | name | headers |
|---|---|---|
| 0 | units and errors | `units.hpp` |
| 1 | shapes | `model.hpp`, `catalog/*.hpp` |
| 3 | composite models | `training.hpp` |
<!-- layers:end -->
<!-- layering-exceptions:begin -->
None.
<!-- layering-exceptions:end -->
)";

std::vector<HeaderFile> small_headers() {
    return {{"units.hpp", "#pragma once\n"},
            {"model.hpp", "#pragma once\n#include <napkin/units.hpp>\n"},
            {"catalog/models.hpp",
             "#pragma once\n// #include <napkin/training.hpp> in a comment is no include\n"
             "#include <napkin/model.hpp>\n"},
            {"training.hpp", "#pragma once\n#include \"napkin/model.hpp\"\n"}};
}

// --- Doc comments: every public declaration carries a `///` comment --------
//
// clang-format keeps namespace scope at column 0 (NamespaceIndentation: None),
// so a namespace-scope declaration is a line that starts at column 0 with a
// declaration's first word: template, an attribute, constexpr, inline, struct,
// class, enum, concept, `using X =`, or `Type name(`. One outside every
// `namespace detail` is public; Doxygen documents it from a `///` line right
// above it (above its template or attribute line) or a trailing `///<`.

bool is_identifier_char(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

// "namespace detail {", "namespace napkin::detail {" opens one; "}  // namespace detail" closes it.
bool names_detail(std::string_view after_namespace) {
    const auto end = after_namespace.find_first_of(" {");
    const std::string_view name = after_namespace.substr(0, end);
    return name == "detail" || name.ends_with("::detail");
}

// `Type name(` or `Type<...> ns::name(` at column 0: an identifier first, a
// space, and an identifier right before the first '('.
bool starts_function(std::string_view line) {
    if (line.empty() || !is_identifier_char(line.front())) return false;
    const auto paren = line.find('(');
    if (paren == std::string_view::npos) return false;
    const std::string_view head = trimmed(line.substr(0, paren));
    const auto space = head.rfind(' ');
    return space != std::string_view::npos && !head.empty() && is_identifier_char(head.back()) &&
           head.find('=') == std::string_view::npos;
}

bool starts_declaration(std::string_view line) {
    if (line.starts_with("using namespace")) return false;
    if ((line.starts_with("struct ") || line.starts_with("class ")) && line.ends_with(";") &&
        line.find('{') == std::string_view::npos)
        return false;  // a forward declaration
    for (const std::string_view word :
         {"template", "[[", "constexpr ", "consteval ", "inline ", "struct ", "class ", "enum ", "concept "})
        if (line.starts_with(word)) return true;
    if (line.starts_with("using ")) return line.find(" = ") != std::string_view::npos;
    return starts_function(line);
}

// One line per public declaration of `header` with no `///` comment.
std::vector<std::string> undocumented_declarations(const HeaderFile& header) {
    std::vector<std::string> out;
    const std::vector<std::string_view> lines = lines_of(header.text);
    int detail_depth = 0;
    bool in_raw_string = false;
    bool continues_declaration = false;  // the line before was a declaration's template or attribute line
    for (std::size_t i = 0; i < lines.size(); ++i) {
        const std::string_view line = lines[i];
        if (in_raw_string) {
            in_raw_string = line.find(")\"") == std::string_view::npos;
            continue;
        }
        if (line.starts_with("namespace ") && names_detail(line.substr(10))) ++detail_depth;
        const auto close = line.find("// namespace ");
        if (line.starts_with("}") && close != std::string_view::npos && names_detail(line.substr(close + 13)))
            --detail_depth;
        const std::string_view code = trimmed(line);
        const bool declaration = !line.empty() && line.front() != ' ' && starts_declaration(code);
        if (declaration && !continues_declaration && detail_depth == 0) {
            const bool documented =
                code.find("///<") != std::string_view::npos || (i > 0 && trimmed(lines[i - 1]).starts_with("///"));
            if (!documented)
                out.push_back("include/napkin/" + header.path + ":" + std::to_string(i + 1) + ": " +
                              std::string(code.substr(0, 60)) + ": a public declaration has a /// comment");
        }
        continues_declaration = declaration && (code.starts_with("template") || code.starts_with("[[")) &&
                                !code.ends_with(";") && !code.ends_with("}");
        const auto raw = line.find("R\"(");
        if (raw != std::string_view::npos && line.find(")\"", raw + 3) == std::string_view::npos) in_raw_string = true;
    }
    return out;
}

// A small header for the doc-comment checker's own test: two bare public
// declarations (lines 9 and 13) among documented, private and forward ones.
constexpr std::string_view small_documented_header = R"(#pragma once
namespace napkin {
struct Forward;
/// Documented.
struct Gpu {
    int bare_member = 0;
};
inline constexpr int limit = 3;  ///< trailing
[[nodiscard]] constexpr int bare(int x) { return x; }
/// A template, documented above its template line.
template <class T>
[[nodiscard]] constexpr T twice(T x) { return 2 * x; }
template <class T>
struct Bare {};
using Alias = int;  ///< trailing
using napkin::Gpu;
namespace detail {
constexpr int hidden(int x) { return x; }
}  // namespace detail
}  // namespace napkin
)";
}  // namespace

TEST_SUITE("layering") {
    TEST_CASE("DESIGN.md's table reads: numbered layers from 0 with no gap, each with a name and headers") {
        const DesignLayering design = repository_design();
        for (const std::string& problem : design.problems) FAIL_CHECK(problem);
        REQUIRE_FALSE(design.rows.empty());
        std::vector<int> layers;
        for (const LayerRow& row : design.rows) layers.push_back(row.layer);
        std::sort(layers.begin(), layers.end());
        layers.erase(std::unique(layers.begin(), layers.end()), layers.end());
        CHECK(layers.front() == 0);
        CHECK(layers.back() == static_cast<int>(layers.size()) - 1);
    }

    TEST_CASE("every header under include/napkin keeps DESIGN.md's layers (rules 1 and 2)") {
        const std::vector<HeaderFile> headers = napkin_headers();
        REQUIRE(headers.size() > 50);  // the scan found the tree, not an empty folder
        for (const std::string& violation : layering_violations(repository_design(), headers)) FAIL_CHECK(violation);
    }

    TEST_CASE("a forbidden include planted in the catalog is reported as exactly that arrow") {
        std::vector<HeaderFile> headers = napkin_headers();
        const auto catalog_models = std::find_if(headers.begin(), headers.end(),
                                                 [](const HeaderFile& h) { return h.path == "catalog/models.hpp"; });
        REQUIRE(catalog_models != headers.end());
        const std::string anchor = "#include <napkin/model.hpp>\n";
        const auto at = catalog_models->text.find(anchor);
        REQUIRE(at != std::string::npos);
        catalog_models->text.insert(at + anchor.size(), "#include <napkin/training.hpp>\n");
        const auto planted_line =
            std::count(catalog_models->text.begin(),
                       catalog_models->text.begin() + static_cast<std::ptrdiff_t>(at + anchor.size()), '\n') +
            1;
        const std::vector<std::string> expected{"include/napkin/catalog/models.hpp:" + std::to_string(planted_line) +
                                                ": includes <napkin/training.hpp>, layer 3 (composite models), from "
                                                "layer 1 (shapes): a header includes only "
                                                "its own layer and those below (DESIGN.md, rule 1)"};
        CHECK(joined(layering_violations(repository_design(), headers)) == joined(expected));
    }

    TEST_CASE("the checker: a clean small tree passes, one upward include is one line naming file and line") {
        const DesignLayering design = read_design(small_design);
        std::vector<HeaderFile> headers = small_headers();
        CHECK(layering_violations(design, headers).empty());
        headers[1].text += "#include <napkin/training.hpp>\n";
        const std::vector<std::string> expected{
            "include/napkin/model.hpp:3: includes <napkin/training.hpp>, layer 3 (composite models), from layer 1 "
            "(shapes): a header includes only its own layer and those below (DESIGN.md, rule 1)"};
        CHECK(joined(layering_violations(design, headers)) == joined(expected));
    }

    TEST_CASE("the checker: a header in no layer, in two, and a row that matches nothing are each one line") {
        DesignLayering design = read_design(small_design);
        std::vector<HeaderFile> headers = small_headers();
        headers.push_back({"planner.hpp", "#pragma once\n"});
        headers.erase(headers.begin() + 3);  // training.hpp: its row now matches nothing
        design.rows.push_back({"catalog/models.hpp", 1, "shapes"});
        const std::vector<std::string> expected{
            "DESIGN.md: `training.hpp` (layer 3 (composite models)) matches no header under include/napkin: a row "
            "names "
            "headers that exist",
            "include/napkin/catalog/models.hpp: matched by both `catalog/*.hpp` and `catalog/models.hpp` in "
            "DESIGN.md's "
            "table: every header belongs to one layer",
            "include/napkin/planner.hpp: in no layer of DESIGN.md's table: every header belongs to one layer"};
        CHECK(joined(layering_violations(design, headers)) == joined(expected));
    }

    TEST_CASE("the checker: a catalog header placed above layer 1 breaks rule 2 without any include") {
        DesignLayering design = read_design(small_design);
        design.rows[2].layer = 3;  // `catalog/*.hpp`
        design.rows[2].name = "composite models";
        const std::vector<std::string> expected{
            "include/napkin/catalog/models.hpp: in layer 3 (composite models): the catalog is data, in layer 1 or "
            "below "
            "(DESIGN.md, rule 2)"};
        CHECK(joined(layering_violations(design, small_headers())) == joined(expected));
    }

    TEST_CASE("the checker: a listed exception allows exactly its arrow, and one no include needs is reported") {
        std::string text(small_design);
        const std::string none = "None.\n";
        text.replace(text.find(none), none.size(),
                     "- `model.hpp` → `training.hpp`: planted for this test\n"
                     "- `units.hpp` → `training.hpp`: no such include\n");
        const DesignLayering design = read_design(text);
        REQUIRE(design.exceptions.size() == 2);
        std::vector<HeaderFile> headers = small_headers();
        headers[1].text += "#include <napkin/training.hpp>\n";
        const std::vector<std::string> expected{
            "DESIGN.md: the exception `units.hpp` → `training.hpp` allows no upward include that exists: remove it"};
        CHECK(joined(layering_violations(design, headers)) == joined(expected));
    }

    TEST_CASE("the checker: a table that is missing or malformed is reported, not read as empty") {
        CHECK(joined(layering_violations(read_design("no table here"), {})) ==
              "DESIGN.md: no <!-- layers:begin --> … <!-- layers:end --> table\n"
              "DESIGN.md: no <!-- layering-exceptions:begin --> … <!-- layering-exceptions:end --> list\n");
        std::string text(small_design);
        const std::string row = "| 0 | units and errors | `units.hpp` |";
        text.replace(text.find(row), row.size(), "| zero | units and errors | `units.hpp` |");
        CHECK(joined(read_design(text).problems) ==
              "DESIGN.md: a layer row needs a number, a name and `header` items: | zero | units and errors | "
              "`units.hpp` |\n");
    }

    TEST_CASE("every public declaration under include/napkin has a /// comment (Doxygen extracts it)") {
        const std::vector<HeaderFile> headers = napkin_headers();
        REQUIRE(headers.size() > 50);
        std::size_t declarations_checked = 0;
        for (const HeaderFile& header : headers) {
            for (const std::string& bare : undocumented_declarations(header)) FAIL_CHECK(bare);
            for (const std::string_view line : lines_of(header.text))
                declarations_checked += !line.empty() && line.front() != ' ' && starts_declaration(trimmed(line));
        }
        CHECK(declarations_checked > 1000);  // the scan saw the declarations, not an empty tree
    }

    TEST_CASE(
        "the doc-comment checker: bare public declarations are one line each, while detail, members, trailing ///< "
        "and forward declarations pass") {
        const std::vector<std::string> expected{
            "include/napkin/small.hpp:9: [[nodiscard]] constexpr int bare(int x) { return x; }: a public "
            "declaration has a /// comment",
            "include/napkin/small.hpp:13: template <class T>: a public declaration has a /// comment"};
        CHECK(joined(undocumented_declarations({"small.hpp", std::string(small_documented_header)})) ==
              joined(expected));
    }
}
