// SPDX-License-Identifier: MIT
// napkin/io/progress.hpp — a progress bar on the terminal for long searches.
//
// It draws on stderr only when stderr is a terminal and only once the work has
// run longer than a moment (half a second by default), so quick runs, pipes and
// test logs never see it. Thread-safe: workers call `advance(n)` as they
// finish points; one of them redraws at most every 100 ms.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdio>
#include <mutex>
#include <string>

#include <unistd.h>

namespace napkin::io {

class ProgressBar {
public:
    using clock = std::chrono::steady_clock;

    explicit ProgressBar(std::string label, long long total = 0,
                         std::chrono::milliseconds delay = std::chrono::milliseconds(500),
                         bool enabled = ::isatty(STDERR_FILENO) != 0)
        : label_(std::move(label)), total_(total), delay_(delay), enabled_(enabled), start_(clock::now()) {}
    ProgressBar(const ProgressBar&) = delete;
    ProgressBar& operator=(const ProgressBar&) = delete;
    ~ProgressBar() { finish(); }

    void set_total(long long total) { total_.store(total, std::memory_order_relaxed); }

    // Add `n` finished units; redraws when due.
    void advance(long long n) { maybe_draw(done_.fetch_add(n, std::memory_order_relaxed) + n); }

    // `done` of `total` units finished (a search reporting its running count).
    void report(long long done, long long total) {
        total_.store(total, std::memory_order_relaxed);
        long long seen = done_.load(std::memory_order_relaxed);
        while (seen < done && !done_.compare_exchange_weak(seen, done, std::memory_order_relaxed)) {
        }
        maybe_draw(done);
    }

    void maybe_draw(long long done) {
        if (!enabled_) return;
        const auto now = clock::now();
        if (now - start_ < delay_) return;
        std::unique_lock lock(mutex_, std::try_to_lock);
        if (!lock.owns_lock() || now - last_draw_ < std::chrono::milliseconds(100)) return;
        last_draw_ = now;
        draw(done, now);
    }

    // Clears the bar's line if it was drawn.
    void finish() {
        std::lock_guard lock(mutex_);
        if (drawn_) std::fprintf(stderr, "\r\033[K");
        std::fflush(stderr);
        drawn_ = false;
    }

    [[nodiscard]] long long done() const { return done_.load(std::memory_order_relaxed); }
    [[nodiscard]] bool drawn_once() const { return drawn_ever_; }

private:
    void draw(long long done, clock::time_point now) {
        const long long total = total_.load(std::memory_order_relaxed);
        const double fraction = total > 0 ? static_cast<double>(done) / static_cast<double>(total) : 0.0;
        constexpr int width = 30;
        const int filled = static_cast<int>(fraction * width);
        std::string bar(static_cast<std::size_t>(filled < width ? filled : width), '#');
        bar.resize(width, '.');
        const double elapsed = std::chrono::duration<double>(now - start_).count();
        std::fprintf(stderr, "\r%s [%s] %5.1f%%  %lld points  %.1f s", label_.c_str(), bar.c_str(),
                     100.0 * fraction, done, elapsed);
        std::fflush(stderr);
        drawn_ = drawn_ever_ = true;
    }

    std::string label_;
    std::atomic<long long> total_;
    std::atomic<long long> done_{0};
    std::chrono::milliseconds delay_;
    bool enabled_;
    clock::time_point start_;
    clock::time_point last_draw_{};
    std::mutex mutex_;
    bool drawn_ = false;
    bool drawn_ever_ = false;
};

}  // namespace napkin::io
