// SPDX-License-Identifier: MIT
// napkin/io/svg.hpp — a small SVG document builder and two charts for lessons:
// horizontal/vertical stacked bars (with a hatched "waiting" part) and line
// charts. Plain text output, no dependencies; colours from the Okabe–Ito
// palette (Okabe & Ito 2008, "Color Universal Design"), readable in grey.
#pragma once

#include <napkin/io/text_file.hpp>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace napkin::io::svg {

namespace palette {
inline constexpr const char* green = "#009E73";       ///< Okabe–Ito bluish green.
inline constexpr const char* orange = "#E69F00";      ///< Okabe–Ito orange.
inline constexpr const char* sky = "#56B4E9";         ///< Okabe–Ito sky blue.
inline constexpr const char* blue = "#0072B2";        ///< Okabe–Ito blue.
inline constexpr const char* vermillion = "#D55E00";  ///< Okabe–Ito vermillion.
inline constexpr const char* purple = "#CC79A7";      ///< Okabe–Ito reddish purple.
inline constexpr const char* yellow = "#F0E442";      ///< Okabe–Ito yellow.
inline constexpr const char* ink = "#222222";         ///< Near-black: the text colour and the default hatching.
inline constexpr const char* grid = "#DDDDDD";        ///< Light grey for grid lines.
/// The colours given to successive series, in this order.
inline constexpr const char* series[] = {blue, vermillion, green, orange, purple, sky, yellow};
}  // namespace palette

/// Escapes the five XML special characters.
inline std::string escape(std::string_view text) {
    std::string out;
    out.reserve(text.size());
    for (char c : text) {
        switch (c) {
            case '&': out += "&amp;"; break;
            case '<': out += "&lt;"; break;
            case '>': out += "&gt;"; break;
            case '"': out += "&quot;"; break;
            case '\'': out += "&apos;"; break;
            default: out += c;
        }
    }
    return out;
}

/// A coordinate or label as text: at most two decimals, trailing zeros dropped.
inline std::string number(double v) {
    char buffer[32];
    std::snprintf(buffer, sizeof buffer, "%.2f", v);
    std::string text = buffer;
    while (text.back() == '0') text.pop_back();
    if (text.back() == '.') text.pop_back();
    return text;
}

/// An SVG document: shapes are appended in drawing order.
class Document {
public:
    Document(double width, double height) : width_(width), height_(height) {}

    Document& rect(double x, double y, double w, double h, std::string_view fill, std::string_view extra = "") {
        body_ << "<rect x=\"" << number(x) << "\" y=\"" << number(y) << "\" width=\"" << number(std::max(0.0, w))
              << "\" height=\"" << number(std::max(0.0, h)) << "\" fill=\"" << fill << "\"" << spaced(extra)
              << "/>\n";
        return *this;
    }
    // A rectangle hatched with diagonal lines over a light fill (idle or waiting time).
    Document& hatched_rect(double x, double y, double w, double h, std::string_view colour = palette::ink) {
        rect(x, y, w, h, "white", "stroke=\"" + std::string(colour) + "\" stroke-width=\"0.8\"");
        return rect(x, y, w, h, "url(#" + hatch_id(colour) + ")");
    }
    Document& line(double x1, double y1, double x2, double y2, std::string_view stroke, double width = 1.0,
                   std::string_view extra = "") {
        body_ << "<line x1=\"" << number(x1) << "\" y1=\"" << number(y1) << "\" x2=\"" << number(x2) << "\" y2=\""
              << number(y2) << "\" stroke=\"" << stroke << "\" stroke-width=\"" << number(width) << "\""
              << spaced(extra) << "/>\n";
        return *this;
    }
    Document& polyline(const std::vector<std::pair<double, double>>& points, std::string_view stroke,
                       double width = 2.0) {
        body_ << "<polyline fill=\"none\" stroke=\"" << stroke << "\" stroke-width=\"" << number(width)
              << "\" points=\"";
        for (const auto& [x, y] : points) body_ << number(x) << "," << number(y) << " ";
        body_ << "\"/>\n";
        return *this;
    }
    Document& circle(double cx, double cy, double r, std::string_view fill) {
        body_ << "<circle cx=\"" << number(cx) << "\" cy=\"" << number(cy) << "\" r=\"" << number(r) << "\" fill=\""
              << fill << "\"/>\n";
        return *this;
    }
    // anchor: start, middle or end.
    Document& text(double x, double y, std::string_view content, double size = 12, std::string_view anchor = "start",
                   std::string_view extra = "") {
        body_ << "<text x=\"" << number(x) << "\" y=\"" << number(y) << "\" font-size=\"" << number(size)
              << "\" text-anchor=\"" << anchor << "\"" << spaced(extra) << ">" << escape(content) << "</text>\n";
        return *this;
    }
    Document& title(std::string_view content) {
        return text(width_ / 2, 22, content, 15, "middle", "font-weight=\"bold\"");
    }
    Document& raw(std::string_view markup) {
        body_ << markup;
        return *this;
    }

    [[nodiscard]] std::string str() const {
        std::ostringstream out;
        out << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << number(width_) << "\" height=\""
            << number(height_) << "\" viewBox=\"0 0 " << number(width_) << " " << number(height_)
            << "\" font-family=\"DejaVu Sans, Arial, sans-serif\" fill=\"" << palette::ink << "\">\n<defs>\n";
        for (const auto& colour : hatches_)
            out << "<pattern id=\"" << hatch_id(colour)
                << "\" patternUnits=\"userSpaceOnUse\" width=\"6\" height=\"6\" patternTransform=\"rotate(45)\">"
                << "<line x1=\"0\" y1=\"0\" x2=\"0\" y2=\"6\" stroke=\"" << colour << "\" stroke-width=\"2\"/>"
                << "</pattern>\n";
        out << "</defs>\n<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n" << body_.str() << "</svg>\n";
        return out.str();
    }

    // Writes the document to `path`, given by `argument` (checked through the close).
    void save(const std::string& path, std::string_view argument = "svg file") const {
        write_text_file(argument, path, str());
    }

    [[nodiscard]] double width() const { return width_; }
    [[nodiscard]] double height() const { return height_; }

private:
    static std::string spaced(std::string_view extra) {
        std::string out;
        if (!extra.empty()) out.append(" ").append(extra);
        return out;
    }
    std::string hatch_id(std::string_view colour) {
        if (std::find(hatches_.begin(), hatches_.end(), colour) == hatches_.end()) hatches_.emplace_back(colour);
        return static_cast<const Document*>(this)->hatch_id(colour);
    }
    std::string hatch_id(std::string_view colour) const {
        std::string id = "hatch";
        for (char c : colour)
            if (std::isalnum(static_cast<unsigned char>(c))) id += c;
        return id;
    }

    double width_, height_;
    std::ostringstream body_;
    std::vector<std::string> hatches_;
};

/// A "nice" axis maximum and tick step for values up to `top` (1, 2, 2.5, 5 × 10^k).
struct Ticks {
    double max;
    double step;
};
/// The Ticks for values up to `top`, about `wanted` steps; nan, inf or tiny values get {1, 0.25}.
inline Ticks nice_ticks(double top, int wanted = 5) {
    // nan, inf and values too small for a decimal step get the default axis:
    // every tick loop then runs a handful of times, never forever.
    if (!(top >= 1e-300) || !(top <= 1e300)) return {1, 0.25};
    const double raw = top / wanted;
    const double magnitude = std::pow(10.0, std::floor(std::log10(raw)));
    double step = magnitude;
    for (double f : {1.0, 2.0, 2.5, 5.0, 10.0})
        if (f * magnitude >= raw) {
            step = f * magnitude;
            break;
        }
    return {std::ceil(top / step - 1e-9) * step, step};
}

/// One bar of a stacked bar chart: labelled, with parts drawn left to right
/// (or bottom to top); a part with `hatched` set is drawn hatched.
struct BarPart {
    double value;
    std::string colour;
    bool hatched = false;
};
/// One bar: its label, its parts, and a note printed after it.
struct Bar {
    std::string label;
    std::vector<BarPart> parts;
    std::string note;  // printed after the bar, e.g. "18.94 ms"
};
/// One legend entry: a label beside a swatch of its colour, hatched or not.
struct LegendEntry {
    std::string label;
    std::string colour;
    bool hatched = false;
};

/// Horizontal stacked bars with an x axis in `unit`, optional vertical marker
/// lines (e.g. the usable memory).
struct Marker {
    double value;
    std::string label;
};
/// A chart of `bars` as horizontal stacked bars, with `legend` below and `markers` as dashed lines.
inline Document horizontal_bars(std::string_view title, const std::vector<Bar>& bars, std::string_view unit,
                                const std::vector<LegendEntry>& legend = {}, const std::vector<Marker>& markers = {},
                                double width = 720) {
    const double left = 150, right = 180, top = 48, bar_height = 30, gap = 16;
    const double plot_width = width - left - right;
    const double height = top + static_cast<double>(bars.size()) * (bar_height + gap) + 70;
    double biggest = 0;
    for (const auto& bar : bars) {
        double sum = 0;
        for (const auto& part : bar.parts) sum += part.value;
        biggest = std::max(biggest, sum);
    }
    for (const auto& m : markers) biggest = std::max(biggest, m.value);
    const Ticks ticks = nice_ticks(biggest);
    const auto x_of = [&](double v) { return left + plot_width * v / ticks.max; };

    Document doc(width, height);
    doc.title(title);
    const double axis_y = top + static_cast<double>(bars.size()) * (bar_height + gap);
    for (double t = 0; t <= ticks.max + ticks.step / 2; t += ticks.step) {
        doc.line(x_of(t), top - 6, x_of(t), axis_y, palette::grid);
        doc.text(x_of(t), axis_y + 16, number(t), 11, "middle");
    }
    doc.text(left + plot_width / 2, axis_y + 34, unit, 12, "middle");
    double y = top;
    for (const auto& bar : bars) {
        doc.text(left - 8, y + bar_height / 2 + 4, bar.label, 12, "end");
        double x = 0;
        for (const auto& part : bar.parts) {
            if (part.hatched)
                doc.hatched_rect(x_of(x), y, x_of(x + part.value) - x_of(x), bar_height, part.colour);
            else
                doc.rect(x_of(x), y, x_of(x + part.value) - x_of(x), bar_height, part.colour);
            x += part.value;
        }
        if (!bar.note.empty()) doc.text(x_of(x) + 6, y + bar_height / 2 + 4, bar.note, 12);
        y += bar_height + gap;
    }
    for (const auto& m : markers) {
        doc.line(x_of(m.value), top - 8, x_of(m.value), axis_y, palette::vermillion, 2, "stroke-dasharray=\"6 4\"");
        doc.text(x_of(m.value), top - 12, m.label, 11, "middle");
    }
    double lx = left;
    for (const auto& entry : legend) {
        if (entry.hatched)
            doc.hatched_rect(lx, height - 24, 14, 14, entry.colour);
        else
            doc.rect(lx, height - 24, 14, 14, entry.colour);
        doc.text(lx + 20, height - 12, entry.label, 12);
        lx += 30 + 7.0 * static_cast<double>(entry.label.size());
    }
    return doc;
}

/// A line chart of several series over shared x values (drawn as categories
/// evenly spaced, labelled with `x_labels`).
struct Series {
    std::string label;
    std::vector<double> values;
    std::string colour;
};
/// A line chart of `series` over the categories `x_labels`, each point labelled with its rounded value.
inline Document line_chart(std::string_view title, const std::vector<std::string>& x_labels,
                           const std::vector<Series>& series, std::string_view x_unit, std::string_view y_unit,
                           double width = 720, double height = 420) {
    const double left = 70, right = 150, top = 48, bottom = 60;
    const double plot_w = width - left - right, plot_h = height - top - bottom;
    double biggest = 0;
    for (const auto& s : series)
        for (double v : s.values) biggest = std::max(biggest, v);
    const Ticks ticks = nice_ticks(biggest);
    const auto n = static_cast<double>(std::max<std::size_t>(1, x_labels.size() - 1));
    const auto x_of = [&](std::size_t i) { return left + plot_w * static_cast<double>(i) / n; };
    const auto y_of = [&](double v) { return top + plot_h * (1 - v / ticks.max); };

    Document doc(width, height);
    doc.title(title);
    for (double t = 0; t <= ticks.max + ticks.step / 2; t += ticks.step) {
        doc.line(left, y_of(t), left + plot_w, y_of(t), palette::grid);
        doc.text(left - 8, y_of(t) + 4, number(t), 11, "end");
    }
    for (std::size_t i = 0; i < x_labels.size(); ++i) doc.text(x_of(i), top + plot_h + 18, x_labels[i], 11, "middle");
    doc.text(left + plot_w / 2, height - 18, x_unit, 12, "middle");
    doc.text(18, top + plot_h / 2, y_unit, 12, "middle",
             "transform=\"rotate(-90 18 " + number(top + plot_h / 2) + ")\"");
    double ly = top + 10;
    for (const auto& s : series) {
        std::vector<std::pair<double, double>> points;
        for (std::size_t i = 0; i < s.values.size(); ++i) points.emplace_back(x_of(i), y_of(s.values[i]));
        doc.polyline(points, s.colour, 2.5);
        for (std::size_t i = 0; i < points.size(); ++i) {
            doc.circle(points[i].first, points[i].second, 3.5, s.colour);
            doc.text(points[i].first, points[i].second - 8, number(std::round(s.values[i])), 10, "middle");
        }
        doc.line(left + plot_w + 14, ly, left + plot_w + 34, ly, s.colour, 3);
        doc.text(left + plot_w + 40, ly + 4, s.label, 12);
        ly += 20;
    }
    return doc;
}

}  // namespace napkin::io::svg
