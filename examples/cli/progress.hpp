// SPDX-License-Identifier: MIT
// examples/cli/progress.hpp — the napkin command's progress bar on the terminal
// for long searches (`napkin plan`). A front end's: it installs a signal handler
// and runs a thread, which no library header may do behind its caller.
//
// It draws on stderr only when stderr is a terminal and only once the work has
// run longer than a moment (0.4 s by default), so quick runs, pipes and test
// logs never see it. Thread-safe: workers call `advance(n)` as they finish
// points; one of them redraws at most every 100 ms. A ticker thread redraws
// every 100 ms too, so the bar appears within half a second and its clock
// moves even while no work reports (a search counting its space first).
// While a bar is on a terminal, Ctrl-C (SIGINT) clears its line and exits
// with 130 (128 + SIGINT, the shell's convention).
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <csignal>
#include <cstdio>
#include <mutex>
#include <string>
#include <thread>

#include <unistd.h>

namespace napkin::cli {

namespace detail {
// Whether a bar's line is on the terminal now: the SIGINT handler reads it.
inline std::atomic<bool> progress_line_drawn{false};

extern "C" inline void clear_progress_and_exit(int) {
    // Only async-signal-safe calls: write(2) and _exit(2).
    if (progress_line_drawn.load()) {
        constexpr char clear[] = "\r\033[K";
        (void)!::write(STDERR_FILENO, clear, sizeof clear - 1);
    }
    ::_exit(130);
}
}  // namespace detail

class ProgressBar {
public:
    using clock = std::chrono::steady_clock;

    explicit ProgressBar(std::string label, long long total = 0,
                         std::chrono::milliseconds delay = std::chrono::milliseconds(400),
                         bool enabled = ::isatty(STDERR_FILENO) != 0)
        : label_(std::move(label)), total_(total), delay_(delay), enabled_(enabled), start_(clock::now()) {
        if (!enabled_) return;
        struct sigaction action {};
        action.sa_handler = detail::clear_progress_and_exit;
        sigemptyset(&action.sa_mask);
        sigaction(SIGINT, &action, &previous_sigint_);
        ticker_ = std::thread([this] {
            std::unique_lock lock(ticker_mutex_);
            while (!ticker_cv_.wait_for(lock, std::chrono::milliseconds(100), [this] { return stopping_; }))
                maybe_draw(done_.load(std::memory_order_relaxed));
        });
    }
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

    // Stops the ticker, clears the bar's line if it was drawn, gives SIGINT back.
    void finish() {
        if (ticker_.joinable()) {
            {
                const std::lock_guard lock(ticker_mutex_);
                stopping_ = true;
            }
            ticker_cv_.notify_all();
            ticker_.join();
            sigaction(SIGINT, &previous_sigint_, nullptr);
        }
        std::lock_guard lock(mutex_);
        if (drawn_) std::fprintf(stderr, "\r\033[K");
        std::fflush(stderr);
        drawn_ = false;
        detail::progress_line_drawn = false;
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
        if (total > 0)
            std::fprintf(stderr, "\r%s [%s] %5.1f%%  %lld points  %.1f s", label_.c_str(), bar.c_str(),
                         100.0 * fraction, done, elapsed);
        else  // the total is still being counted
            std::fprintf(stderr, "\r%s [%s] counting the space  %.1f s", label_.c_str(), bar.c_str(), elapsed);
        std::fflush(stderr);
        drawn_ = drawn_ever_ = true;
        detail::progress_line_drawn = true;
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
    std::atomic<bool> drawn_ever_{false};  // read by drawn_once() from any thread
    struct sigaction previous_sigint_ {};
    std::thread ticker_;
    std::mutex ticker_mutex_;
    std::condition_variable ticker_cv_;
    bool stopping_ = false;
};

}  // namespace napkin::cli
