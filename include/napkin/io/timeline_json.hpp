// SPDX-License-Identifier: MIT
// napkin/io/timeline_json.hpp — a simulated step as JSON, streamed: the
// summary is an nlohmann document (dump(2)), and each stage's "operations"
// are written straight from the timeline, one pass an object on its own line,
// by worker threads in blocks of passes put out in order — a step of millions
// of passes never becomes a document in memory.
#pragma once

#include <napkin/io/json_number.hpp>
#include <napkin/schedule.hpp>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <bit>
#include <cerrno>
#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <exception>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <system_error>
#include <thread>
#include <vector>

namespace napkin::io {

namespace detail {
/// Room for a time's text, in whole 16-byte copies.
inline constexpr std::size_t time_text_room = json_number_room;

/// The last times written, kept with their bits and where their text is: a
/// pass mostly starts when its rank's previous one ended, and a pair's two
/// passes share their span, so a time is often one just written (copied then
/// from the text before it, in the same buffer).
struct RecentTimes {
    struct Text {
        std::uint64_t bits = 0;
        const char* text = nullptr;  // none yet
        std::size_t size = 0;
    };
    Text texts[2];
    unsigned newest = 0;

    // Writes x's text at `to` (time_text_room bytes free), copied when it is a recent one.
    char* write(char* to, double x) {
        const auto bits = std::bit_cast<std::uint64_t>(x);
        for (const Text& t : texts)
            if (t.text != nullptr && t.bits == bits) {
                std::memcpy(to, t.text, time_text_room);  // whole: a fixed-size copy is a few moves
                return to + t.size;
            }
        char* const end = write_json_number(to, x);
        newest ^= 1U;
        texts[newest] = {bits, to, static_cast<std::size_t>(end - to)};
        return end;
    }
};

/// A pass's line up to its micro-batch's number, by kind, padded to a fixed-size copy.
struct PassHead {
    char text[48];
    std::size_t size;
};
inline constexpr auto pass_heads = [] {
    struct Table {
        PassHead of[3];
    } t{};
    for (const Pass kind : {Pass::forward, Pass::backward, Pass::weight_grad}) {
        PassHead& h = t.of[static_cast<std::size_t>(kind)];
        for (const std::string_view piece :
             {std::string_view("        {\"pass\": \""), to_string(kind), std::string_view("\", \"microbatch\": ")})
            for (const char c : piece) h.text[h.size++] = c;
    }
    return t;
}();
/// A count from 1 (a micro-batch's or chunk's, below 2^26: at most 8 digits) in decimal.
[[nodiscard]] inline char* write_count(char* to, long long n) {
    const auto d = static_cast<std::uint64_t>(n);
    const int digits = digit_count(d);
    write_digits(to, d, digits);
    return to + digits;
}

/// The most one pass's line takes: 8 spaces, the keys and punctuation (93 with
/// "overlapped"), the kind (at most 11), two counts (at most 20 each) and two
/// times, and room for the fixed-size copies to run past its end.
inline constexpr std::size_t pass_line_room = 8 + 93 + 11 + 2 * 20 + 2 * time_text_room + time_text_room;

/// The passes first … stop − 1 of a rank (within the rank, see
/// Timeline::for_each_pass) as lines of its "operations" array, at `to`, which
/// has pass_line_room bytes for each pass the range can visit (one more than
/// it holds, for a pair cut at its end); the rank's last pass ends without a
/// comma.
[[nodiscard]] inline char* write_passes(char* to, const Timeline& t, long long rank, std::size_t first,
                                        std::size_t stop) {
    RecentTimes recent;
    char* const start = to;
    t.for_each_pass(rank, first, stop, [&](const Operation& op) {
        const PassHead& head = pass_heads.of[static_cast<std::size_t>(op.pass)];
        std::memcpy(to, head.text, sizeof head.text);  // whole: a fixed-size copy is a few moves
        to += head.size;
        to = write_count(to, op.microbatch + 1);
        to = copy_literal(to, ", \"chunk\": ");
        to = write_count(to, op.chunk + 1);
        to = copy_literal(to, ", \"start_s\": ");
        to = recent.write(to, op.start.value());
        to = copy_literal(to, ", \"end_s\": ");
        to = recent.write(to, op.end.value());
        if (op.overlapped) to = copy_literal(to, ", \"overlapped\": true");
        to = copy_literal(to, "},\n");
    });
    if (to != start && stop >= t.pass_count(rank)) to = copy_literal(to - 2, "\n");  // the array's last element
    return to;
}

/// A block of passes of one rank: the unit a worker writes.
struct PassBlock {
    long long rank;
    std::size_t first, stop;
};
/// Passes a block holds: about 1 MB of text, so that a few blocks a thread in flight bound the memory.
inline constexpr std::size_t passes_per_block = 8192;
/// Room for a block's text: a pair cut at its end adds one pass.
inline constexpr std::size_t block_room = (passes_per_block + 1) * pass_line_room;

/// Calls write(i, buffer) → end for i = 0 … count − 1 on `threads` threads,
/// each into a buffer of block_room bytes, and put(i, text, size) in order
/// on this thread as each is ready. A worker runs at most two blocks a thread
/// ahead of put, and buffers are reused, so memory stays a few blocks a
/// thread. An exception from a worker is thrown here once they have stopped.
template <class Write, class Put>
void write_in_order(std::size_t count, unsigned threads, const Write& write, const Put& put) {
    std::vector<std::unique_ptr<char[]>> spare;
    const auto buffer = [&spare] {
        if (spare.empty()) return std::unique_ptr<char[]>(new char[block_room]);
        auto b = std::move(spare.back());
        spare.pop_back();
        return b;
    };
    if (threads <= 1) {
        const auto b = buffer();
        for (std::size_t i = 0; i < count; ++i) put(i, b.get(), static_cast<std::size_t>(write(i, b.get()) - b.get()));
        return;
    }
    struct Slot {
        std::unique_ptr<char[]> text;
        std::size_t size = 0;
    };
    std::vector<Slot> slots(count);
    std::mutex mutex;
    std::condition_variable changed;
    std::size_t next = 0, taken = 0;
    const std::size_t ahead = 2 * std::size_t{threads};
    std::exception_ptr failure;
    bool stopping = false;
    const auto work = [&] {
        for (;;) {
            std::size_t i = 0;
            std::unique_ptr<char[]> text;
            {
                std::unique_lock lock(mutex);
                changed.wait(lock, [&] { return stopping || next >= count || next < taken + ahead; });
                if (stopping || next >= count) return;
                i = next++;
                text = buffer();
            }
            try {
                const auto size = static_cast<std::size_t>(write(i, text.get()) - text.get());
                const std::lock_guard lock(mutex);
                slots[i] = {std::move(text), size};
            } catch (...) {
                const std::lock_guard lock(mutex);
                if (!failure) failure = std::current_exception();
                stopping = true;
            }
            changed.notify_all();
        }
    };
    std::vector<std::thread> pool;
    const auto stop = [&] {
        {
            const std::lock_guard lock(mutex);
            stopping = true;
        }
        changed.notify_all();
        for (std::thread& w : pool) w.join();
    };
    try {
        // The system may give fewer threads than asked (a process limit): the started ones share the blocks.
        try {
            for (unsigned k = 0; k < threads; ++k) pool.emplace_back(work);
        } catch (const std::system_error&) {
            if (pool.empty()) {
                const auto b = buffer();
                for (std::size_t i = 0; i < count; ++i)
                    put(i, b.get(), static_cast<std::size_t>(write(i, b.get()) - b.get()));
                return;
            }
        }
        for (std::size_t i = 0; i < count; ++i) {
            Slot slot;
            {
                std::unique_lock lock(mutex);
                changed.wait(lock, [&] { return slots[i].text != nullptr || failure != nullptr; });
                if (failure) break;
                slot = std::move(slots[i]);
                taken = i + 1;
            }
            changed.notify_all();
            put(i, slot.text.get(), slot.size);
            const std::lock_guard lock(mutex);
            spare.push_back(std::move(slot.text));
        }
    } catch (...) {
        stop();
        throw;
    }
    stop();
    if (failure) std::rethrow_exception(failure);
}

/// Bytes to a FILE, checked: a short write (a full disk, a closed pipe) is an error, not a truncated file.
inline void write_all(std::FILE* out, std::string_view text) {
    if (!text.empty() && std::fwrite(text.data(), 1, text.size(), out) != text.size())
        throw std::system_error(errno, std::generic_category(), "writing the timeline's JSON");
}

inline std::string operations_marker(long long rank) {
    return "@@napkin operations of stage " + std::to_string(rank) + "@@";
}

/// The summary's text split at each stage's "operations" marker: ranks + 1 pieces.
[[nodiscard]] inline std::vector<std::string_view> split_at_markers(std::string_view text, long long ranks) {
    std::vector<std::string_view> pieces;
    std::size_t at = 0;
    for (long long r = 0; r < ranks; ++r) {
        std::string marker(1, '"');  // as dump() writes the string (appended: GCC 12 warns on a + chain here)
        marker.append(operations_marker(r)).push_back('"');
        const std::size_t found = text.find(marker, at);
        pieces.push_back(text.substr(at, found - at));
        at = found + marker.size();
    }
    pieces.push_back(text.substr(at));
    return pieces;
}
}  // namespace detail

/// Writes `summary` (whose "stages" array holds one object per rank) with each
/// stage's "operations" taken from the timeline, to `out`. `threads` write the
/// passes (0: every core, at most 16); the text is the same for any number of
/// them. Each pass is an object on a line of its own, its keys in the order
/// pass, microbatch, chunk, start_s, end_s (and overlapped: true for the two
/// passes of a block that runs a forward and a backward together); counts
/// from 1, times in seconds, each the shortest text that reads back to the
/// simulated double (io/json_number.hpp).
inline void write_timeline_json(std::FILE* out, nlohmann::json summary, const Timeline& t, unsigned threads = 0) {
    auto& stages = summary.at("stages");
    const auto ranks = static_cast<long long>(stages.size());
    for (long long r = 0; r < ranks; ++r)
        stages[static_cast<std::size_t>(r)]["operations"] = detail::operations_marker(r);
    const std::string text = summary.dump(2);
    const std::vector<std::string_view> pieces = detail::split_at_markers(text, ranks);

    std::vector<detail::PassBlock> blocks;
    for (long long r = 0; r < ranks; ++r)
        for (std::size_t i = 0; i < t.pass_count(r); i += detail::passes_per_block)
            blocks.push_back({r, i, i + detail::passes_per_block});
    // Each rank's piece before it, then "[" and its blocks and "]", or "[]" when it ran nothing.
    long long opened = -1;  // the rank whose array is open
    long long next_rank = 0;
    const auto open_through = [&](long long rank) {
        for (; next_rank <= rank; ++next_rank) {
            if (opened >= 0) detail::write_all(out, "      ]");
            opened = -1;
            detail::write_all(out, pieces[static_cast<std::size_t>(next_rank)]);
            if (t.pass_count(next_rank) != 0) {
                detail::write_all(out, "[\n");
                opened = next_rank;
            } else {
                detail::write_all(out, "[]");
            }
        }
    };
    // Every core, up to 16 (the output is one stream; more threads than that do not shorten it), and no
    // more threads than blocks.
    if (threads == 0) threads = std::clamp(std::thread::hardware_concurrency(), 1U, 16U);
    threads = static_cast<unsigned>(std::min<std::size_t>(threads, blocks.size()));
    detail::write_in_order(
        blocks.size(), threads,
        [&](std::size_t i, char* to) {
            return detail::write_passes(to, t, blocks[i].rank, blocks[i].first, blocks[i].stop);
        },
        [&](std::size_t i, const char* block, std::size_t size) {
            open_through(blocks[i].rank);
            detail::write_all(out, std::string_view(block, size));
        });
    open_through(ranks - 1);
    if (opened >= 0) detail::write_all(out, "      ]");
    detail::write_all(out, pieces.back());
    detail::write_all(out, "\n");
    if (std::fflush(out) != 0) throw std::system_error(errno, std::generic_category(), "writing the timeline's JSON");
}

}  // namespace napkin::io
