// SPDX-License-Identifier: MIT
// napkin/io/timeline_json.hpp — a simulated step as JSON, streamed: the
// summary is an nlohmann document, each stage's passes are written straight
// from the timeline in the same layout (nlohmann's dump(2): keys in order, two
// spaces a level, its shortest round-trip numbers), so a step of millions of
// passes never becomes a document in memory.
#pragma once

#include <napkin/schedule.hpp>

#include <nlohmann/json.hpp>

#include <charconv>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>

namespace napkin::io {

namespace detail {
// Bytes to a FILE through one buffer, written out when full: a pass's object
// is a handful of fixed pieces and four numbers.
class BufferedOut {
public:
    explicit BufferedOut(std::FILE* file) : file_(file) {}
    BufferedOut(const BufferedOut&) = delete;
    BufferedOut& operator=(const BufferedOut&) = delete;
    ~BufferedOut() { flush(); }

    void put(const char* text, std::size_t size) {
        if (size > room()) {
            flush();
            if (size > capacity) return void(std::fwrite(text, 1, size, file_));
        }
        std::memcpy(buffer_.get() + used_, text, size);
        used_ += size;
    }
    void put(std::string_view text) { put(text.data(), text.size()); }
    template <std::size_t N>
    void put_literal(const char (&text)[N]) {
        put(text, N - 1);
    }
    void put_number(long long x) {
        char digits[24];
        put(digits, static_cast<std::size_t>(std::to_chars(digits, digits + sizeof digits, x).ptr - digits));
    }
    void flush() {
        if (used_ != 0) std::fwrite(buffer_.get(), 1, used_, file_);
        used_ = 0;
    }
    // Room for `size` bytes (at most the buffer's) written from the pointer
    // returned, then handed back with commit(the end of what was written).
    [[nodiscard]] char* reserve(std::size_t size) {
        if (size > room()) flush();
        return buffer_.get() + used_;
    }
    void commit(const char* end) { used_ = static_cast<std::size_t>(end - buffer_.get()); }

private:
    static constexpr std::size_t capacity = std::size_t{1} << 16;
    [[nodiscard]] std::size_t room() const { return capacity - used_; }
    std::FILE* file_;
    std::unique_ptr<char[]> buffer_ = std::unique_ptr<char[]>(new char[capacity]);
    std::size_t used_ = 0;
};

// A time as dump() writes it (nlohmann's shortest round-trip text), kept with its bits.
struct TimeText {
    std::uint64_t bits = 0;
    std::size_t size = 0;  // 0: none yet
    char text[64];

    // This time's text: copied from `a` or `b` when either holds the same time, else converted.
    void set(double x, const TimeText& a, const TimeText& b) {
        std::memcpy(&bits, &x, sizeof bits);
        for (const TimeText* t : {&a, &b})
            if (t->size != 0 && t->bits == bits) {
                size = t->size;
                std::memcpy(text, t->text, size);
                return;
            }
        size = static_cast<std::size_t>(nlohmann::detail::to_chars(text, text + sizeof text, x) - text);
    }
};

template <std::size_t N>
[[nodiscard]] char* copy_literal(char* to, const char (&text)[N]) {
    std::memcpy(to, text, N - 1);
    return to + N - 1;
}
// One stage's passes as the value of its "operations" key, objects at 8 spaces.
inline void write_operations(BufferedOut& out, const Timeline& t, long long rank) {
    const std::size_t n = t.pass_count(rank);
    if (n == 0) return out.put_literal("[]");
    out.put_literal("[\n");
    std::size_t i = 0;
    // A pass mostly starts when its rank's previous one ended, and a pair's two
    // passes share their span: about half the times are copied, not converted.
    TimeText last_end, last_start, end, start;
    t.for_each_pass(rank, [&](const Operation& op) {
        end.set(op.end.value(), last_end, last_start);
        start.set(op.start.value(), last_end, last_start);
        // One pass: 180 bytes of keys and spaces, two times of at most 64 and two integers of at most 20.
        char* w = out.reserve(512);
        w = copy_literal(w, "        {\n          \"chunk\": ");
        w = std::to_chars(w, w + 20, op.chunk + 1).ptr;
        w = copy_literal(w, ",\n          \"end_s\": ");
        w = static_cast<char*>(std::memcpy(w, end.text, end.size)) + end.size;
        w = copy_literal(w, ",\n          \"microbatch\": ");
        w = std::to_chars(w, w + 20, op.microbatch + 1).ptr;
        if (op.overlapped) w = copy_literal(w, ",\n          \"overlapped\": true");
        w = copy_literal(w, ",\n          \"pass\": \"");
        const std::string_view pass = to_string(op.pass);
        w = static_cast<char*>(std::memcpy(w, pass.data(), pass.size())) + pass.size();
        w = copy_literal(w, "\",\n          \"start_s\": ");
        w = static_cast<char*>(std::memcpy(w, start.text, start.size)) + start.size;
        w = ++i < n ? copy_literal(w, "\n        },\n") : copy_literal(w, "\n        }\n");
        out.commit(w);
        std::swap(last_end, end);
        std::swap(last_start, start);
    });
    out.put_literal("      ]");
}
inline std::string operations_marker(long long rank) { return "@@napkin operations of stage " + std::to_string(rank) + "@@"; }
}  // namespace detail

// Writes `summary` (whose "stages" array holds one object per rank) with each
// stage's "operations" taken from the timeline, to `out`.
inline void write_timeline_json(std::FILE* out, nlohmann::json summary, const Timeline& t) {
    auto& stages = summary.at("stages");
    for (long long r = 0; r < static_cast<long long>(stages.size()); ++r)
        stages[static_cast<std::size_t>(r)]["operations"] = detail::operations_marker(r);
    const std::string text = summary.dump(2);
    std::size_t at = 0;
    detail::BufferedOut buffered(out);
    for (long long r = 0; r < static_cast<long long>(stages.size()); ++r) {
        const std::string marker = "\"" + detail::operations_marker(r) + "\"";
        const std::size_t found = text.find(marker, at);
        if (found == std::string::npos) break;
        buffered.put(text.data() + at, found - at);
        detail::write_operations(buffered, t, r);
        at = found + marker.size();
    }
    buffered.put(text.data() + at, text.size() - at);
    buffered.put_literal("\n");
}

}  // namespace napkin::io
