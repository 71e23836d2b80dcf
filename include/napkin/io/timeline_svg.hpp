// SPDX-License-Identifier: MIT
// napkin/io/timeline_svg.hpp — the picture people draw to explain pipeline
// bubbles: one row per stage, time to the right, forward blocks light and
// backward blocks dark in one colour per micro-batch, weight-gradient blocks
// outlined, idle time hatched; an overlapped forward + backward pair (DualPipe's
// F&B) fills one span, its forward in the top half and its backward in the
// bottom half. Labels count micro-batches from 1.
#pragma once

#include <napkin/io/svg.hpp>
#include <napkin/schedule.hpp>
#include <napkin/units.hpp>

#include <cmath>
#include <cstdio>
#include <iterator>
#include <string>

namespace napkin::io {

/// The picture's title, its width and each stage row's height, in SVG pixels.
struct TimelineSvgOptions {
    std::string title = "pipeline timeline";
    double width = 1000;
    double row_height = 30;
};

namespace detail {
/// `colour` (#RRGGBB) mixed with white: share 0 is the colour, 1 is white.
inline std::string tint(const std::string& colour, double share) {
    unsigned rgb[3] = {0, 0, 0};
    std::sscanf(colour.c_str(), "#%02x%02x%02x", &rgb[0], &rgb[1], &rgb[2]);
    char out[8];
    const auto mix = [share](unsigned c) { return static_cast<unsigned>(std::lround(c + (255.0 - c) * share)); };
    std::snprintf(out, sizeof out, "#%02X%02X%02X", mix(rgb[0]) & 0xFFu, mix(rgb[1]) & 0xFFu, mix(rgb[2]) & 0xFFu);
    return out;
}
/// Dark text on light fills, white on dark ones (Rec. 709 luma weights).
inline bool is_light(const std::string& colour) {
    unsigned rgb[3] = {0, 0, 0};
    std::sscanf(colour.c_str(), "#%02x%02x%02x", &rgb[0], &rgb[1], &rgb[2]);
    return 0.2126 * rgb[0] + 0.7152 * rgb[1] + 0.0722 * rgb[2] > 150.0;
}
inline std::string microbatch_colour(long long microbatch) {
    constexpr auto n = static_cast<long long>(std::size(svg::palette::series));
    return svg::palette::series[static_cast<std::size_t>(microbatch % n)];
}
}  // namespace detail

/// The timeline as an SVG document: one row per stage, the time axis in milliseconds.
[[nodiscard]] inline svg::Document timeline_svg(const Timeline& timeline, const TimelineSvgOptions& o = {}) {
    const PipelineShape& shape = timeline.shape();
    const double left = 80, right = 24, top = 48, gap = 6;
    const double plot_w = o.width - left - right;
    const double rows = count(shape.stages);
    const double axis_y = top + rows * (o.row_height + gap);
    const double height = axis_y + 78;
    const double step_ms = in(timeline.step_time(), units::ms);
    const svg::Ticks ticks = svg::nice_ticks(step_ms, 8);
    const auto x_of = [&](Seconds t) { return left + plot_w * in(t, units::ms) / ticks.max; };

    svg::Document doc(o.width, height);
    char subtitle[160];
    std::snprintf(subtitle, sizeof subtitle, "%s — step %s, idle %.1f%%", o.title.c_str(),
                  to_string(timeline.step_time()).c_str(), 100.0 * timeline.idle_fraction());
    doc.title(subtitle);
    for (double t = 0; t <= ticks.max + ticks.step / 2; t += ticks.step) {
        const double x = left + plot_w * t / ticks.max;
        doc.line(x, top - 4, x, axis_y, svg::palette::grid);
        doc.text(x, axis_y + 14, svg::number(t), 11, "middle");
    }
    doc.text(left + plot_w / 2, axis_y + 32, "time (ms)", 12, "middle");

    // Chunks are labelled when ranks hold several (interleaved v > 1, DualPipe's two directions, DualPipeV's V).
    bool several_chunks = shape.chunks > 1, any_overlapped = false;
    for (const Operation& op : timeline.operations()) {
        several_chunks = several_chunks || op.chunk > 0;
        any_overlapped = any_overlapped || op.overlapped;
    }
    for (long long r = 0; r < shape.stages; ++r) {
        const double y = top + count(r) * (o.row_height + gap);
        doc.text(left - 8, y + o.row_height / 2 + 4, "stage " + std::to_string(r + 1), 12, "end");
        doc.hatched_rect(x_of(Seconds{}), y, x_of(timeline.step_time()) - x_of(Seconds{}), o.row_height, "#999999");
        for (const Operation& op : timeline.stage(r)) {
            const double x = x_of(op.start), w = x_of(op.end) - x;
            // An overlapped pair: forward on top, backward below, in the same span.
            const double h = op.overlapped ? o.row_height / 2 : o.row_height;
            const double y0 = op.overlapped && op.pass == Pass::backward ? y + h : y;
            const std::string base = detail::microbatch_colour(op.microbatch);
            const std::string fill = op.pass == Pass::forward ? detail::tint(base, 0.55) : base;
            const std::string stroke = op.pass == Pass::weight_grad ? "stroke=\"#222222\" stroke-width=\"1.5\""
                                                                    : "stroke=\"white\" stroke-width=\"0.5\"";
            const std::string shown = op.pass == Pass::weight_grad ? detail::tint(base, 0.25) : fill;
            doc.rect(x, y0, w, h, shown, stroke);
            if (w >= 14) {
                char label[48];
                if (several_chunks && w >= 26)
                    std::snprintf(label, sizeof label, "%lld.%lld", op.microbatch + 1, op.chunk + 1);
                else
                    std::snprintf(label, sizeof label, "%lld", op.microbatch + 1);
                doc.text(x + w / 2, y0 + h / 2 + (op.overlapped ? 3.5 : 4), label, op.overlapped ? 9 : 10, "middle",
                         detail::is_light(shown) ? "" : "fill=\"white\"");
            }
        }
    }
    // The step's head and tail, a strip under each row: beside the compute, not busy time.
    const auto sync_colour = [](SyncKind kind) {
        return kind == SyncKind::param_all_gather      ? std::string("#7A9CC6")
               : kind == SyncKind::grad_reduce_scatter ? std::string("#C69A7A")
                                                       : std::string("#555555");
    };
    for (const SyncSpan& span : timeline.syncs()) {
        const double y = top + count(span.rank) * (o.row_height + gap) + o.row_height + 0.5;
        doc.rect(x_of(span.start), y, x_of(span.end) - x_of(span.start), gap - 1, sync_colour(span.kind), "");
    }
    // Legend, with micro-batch 1's colour.
    const std::string first = detail::microbatch_colour(0);
    double lx = left;
    const double ly = height - 24;
    const auto entry = [&](const std::string& fill, const std::string& extra, const std::string& label) {
        doc.rect(lx, ly, 14, 14, fill, extra);
        doc.text(lx + 20, ly + 12, label, 12);
        lx += 34 + 7.0 * static_cast<double>(label.size());
    };
    entry(detail::tint(first, 0.55), "", "forward");
    entry(first, "", "backward");
    entry(detail::tint(first, 0.25), "stroke=\"#222222\" stroke-width=\"1.5\"", "weight gradient");
    if (any_overlapped) {
        doc.rect(lx, ly, 14, 7, detail::tint(first, 0.55), "stroke=\"white\" stroke-width=\"0.5\"");
        doc.rect(lx, ly + 7, 14, 7, first, "stroke=\"white\" stroke-width=\"0.5\"");
        doc.text(lx + 20, ly + 12, "F&B overlapped", 12);
        lx += 34 + 7.0 * 15;
    }
    doc.hatched_rect(lx, ly, 14, 14, "#999999");
    doc.text(lx + 20, ly + 12, "idle", 12);
    lx += 60;
    if (!timeline.syncs().empty()) {
        for (const SyncKind kind : {SyncKind::param_all_gather, SyncKind::grad_reduce_scatter, SyncKind::optimizer}) {
            doc.rect(lx, ly + 4, 14, 6, sync_colour(kind), "");
            doc.text(lx + 20, ly + 12, std::string(to_string(kind)), 12);
            lx += 34 + 7.0 * static_cast<double>(to_string(kind).size());
        }
    }
    doc.text(lx, ly + 12,
             several_chunks ? "one colour per micro-batch; labels micro-batch.chunk"
                            : "one colour per micro-batch; labels the micro-batch",
             12);
    return doc;
}

/// Writes timeline_svg's picture of `timeline` to `path`.
inline void write_timeline_svg(const Timeline& timeline, const std::string& path, const TimelineSvgOptions& o = {}) {
    timeline_svg(timeline, o).save(path);
}

}  // namespace napkin::io
