// SPDX-License-Identifier: MIT
// napkin/serving/workload.hpp — the requests a serving simulation replays:
// when each arrives and how many tokens it reads and writes. Arrivals are
// Poisson, gamma (bursty: a coefficient of variation above 1), all at once
// (an offline benchmark), or given; lengths fixed or drawn from a
// distribution. The generator is napkin's own (SplitMix64, and inverse
// transforms written here), so one seed gives the same requests with every
// compiler and standard library (the <random> distributions are not
// specified bit for bit: [rand.dist.general]).
#pragma once

#include <napkin/error.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

namespace napkin {

/// One request: when it arrives (seconds), its prompt and output tokens, and how much of its prompt is cached.
struct Request {
    double arrival = 0.0;  // seconds from the start
    long long input = 1;   // prompt tokens
    long long output = 1;  // tokens to generate
    long long prefix = 0;  // leading prompt tokens already cached (a prefix-cache hit)
    // The whole prompt's KV cache comes with the request (sent by a disaggregated prefill
    // instance): it decodes from its first step.
    bool prompt_cached = false;
};

/// SplitMix64 (Steele, Lea and Flood 2014, "Fast splittable pseudorandom number
/// generators", OOPSLA): 64 bits per call, every seed a full-period stream.
class SplitMix64 {
public:
    explicit constexpr SplitMix64(std::uint64_t seed) : state_(seed) {}
    constexpr std::uint64_t next() {
        std::uint64_t z = (state_ += 0x9e3779b97f4a7c15ULL);
        z = (z ^ (z >> 30U)) * 0xbf58476d1ce4e5b9ULL;
        z = (z ^ (z >> 27U)) * 0x94d049bb133111ebULL;
        return z ^ (z >> 31U);
    }
    // Uniform on (0, 1): the top 53 bits, never 0 (so a logarithm is finite).
    constexpr double uniform() { return (static_cast<double>(next() >> 11U) + 0.5) * 0x1.0p-53; }
    // Standard normal by Box and Muller (1958, Ann. Math. Statist. 29(2)).
    double normal() {
        constexpr double two_pi = 6.283185307179586;
        return std::sqrt(-2.0 * std::log(uniform())) * std::cos(two_pi * uniform());
    }
    double exponential(double mean) { return -mean * std::log(uniform()); }
    // Gamma(shape k, scale θ) by Marsaglia and Tsang (2000, ACM TOMS 26(3)),
    // with their boost U^(1/k) for k < 1.
    double gamma(double shape, double scale) {
        const double boost = shape < 1.0 ? std::pow(uniform(), 1.0 / shape) : 1.0;
        const double d = (shape < 1.0 ? shape + 1.0 : shape) - 1.0 / 3.0, c = 1.0 / std::sqrt(9.0 * d);
        for (;;) {
            const double x = normal(), v = std::pow(1.0 + c * x, 3.0);
            if (v <= 0.0) continue;
            const double u = uniform();
            if (std::log(u) < 0.5 * x * x + d - d * v + d * std::log(v)) return d * v * scale * boost;
        }
    }

private:
    std::uint64_t state_;
};

/// How many tokens a request reads or writes.
struct LengthDistribution {
    enum class Kind { fixed, uniform, normal, lognormal, exponential };
    Kind kind = Kind::fixed;
    double a = 1.0;  // fixed: the length; uniform: the least; normal, lognormal, exponential: the mean
    double b = 0.0;  // uniform: the most; normal and lognormal: the standard deviation
    long long most = std::numeric_limits<long long>::max() / 4;  // draws are clipped to [1, most]

    [[nodiscard]] double mean() const { return kind == Kind::uniform ? (a + b) / 2.0 : a; }
    /// The longest length a draw can give: the fixed length, the uniform's most, else the clip.
    [[nodiscard]] double longest() const {
        const double bound = kind == Kind::fixed ? a : kind == Kind::uniform ? b : static_cast<double>(most);
        return std::min(bound, static_cast<double>(most));
    }
    [[nodiscard]] long long draw(SplitMix64& rng) const {
        double x = a;
        switch (kind) {
            case Kind::fixed:
                break;
            case Kind::uniform:  // whole numbers a..b, each equally likely
                x = a + std::floor(rng.uniform() * (b - a + 1.0));
                break;
            case Kind::normal:
                x = std::round(a + b * rng.normal());
                break;
            case Kind::lognormal: {  // the log's parameters from the mean and deviation asked for
                const double s2 = std::log(1.0 + (b * b) / (a * a));
                x = std::round(std::exp(std::log(a) - s2 / 2.0 + std::sqrt(s2) * rng.normal()));
                break;
            }
            case Kind::exponential:  // geometric on 1, 2, …: P(n) = p(1 − p)^(n−1), mean 1/p = a
                x = 1.0 + std::floor(std::log(rng.uniform()) / std::log(1.0 - 1.0 / a));
                break;
        }
        if (!(x >= 1.0)) return 1;
        return x >= static_cast<double>(most) ? most : static_cast<long long>(x);
    }
};

/// A length of exactly `n` tokens.
[[nodiscard]] constexpr LengthDistribution fixed_length(long long n) {
    return {LengthDistribution::Kind::fixed, static_cast<double>(n), 0.0};
}

/// A checked distribution, named by `argument` in its error.
inline const LengthDistribution& validated(const LengthDistribution& d, std::string_view argument) {
    using K = LengthDistribution::Kind;
    require(std::isfinite(d.a) && d.a >= 1.0 && d.a <= 1e12, argument, d.a, "must be from 1 to 10^12 tokens");
    if (d.kind == K::uniform)
        require(std::isfinite(d.b) && d.b >= d.a && d.b <= 1e12, argument, d.b,
                "the most must be at least the least and at most 10^12");
    if (d.kind == K::normal || d.kind == K::lognormal)
        require(std::isfinite(d.b) && d.b >= 0.0 && d.b <= 1e12, argument, d.b,
                "the standard deviation must be from 0 to 10^12");
    if (d.kind == K::exponential) require(d.a > 1.0, argument, d.a, "an exponential's mean must be above 1 token");
    require_at_least_one(argument, d.most);
    return d;
}

/// When requests arrive: Poisson at `rate` requests/s, gamma (bursty) at that rate, or all at once.
struct Arrivals {
    enum class Kind { poisson, gamma, at_once };
    Kind kind = Kind::poisson;
    double rate = 1.0;        // requests/s (poisson, gamma)
    double burstiness = 1.0;  // gamma: the inter-arrival times' coefficient of variation (1: Poisson)
};

/// What generate_requests makes: how many requests, their arrivals and lengths, the share starting
/// with a shared prefix of `prefix_tokens`, and the seed.
struct TrafficSpec {
    Arrivals arrivals;
    long long requests = 1000;
    LengthDistribution input = fixed_length(128);
    LengthDistribution output = fixed_length(128);
    double prefix_share = 0.0;  // requests whose prompt starts with the shared prefix
    long long prefix_tokens = 0;
    std::uint64_t seed = 1;
};

/// The requests, in arrival order. Poisson: exponential gaps of mean 1/rate;
/// gamma: gaps Γ(k = 1/cv², θ = 1/(rate·k)), the same mean and a coefficient of
/// variation cv; at once: every request at 0.
[[nodiscard]] inline std::vector<Request> generate_requests(const TrafficSpec& t) {
    require_at_least_one("requests", t.requests);
    require(t.requests <= (1LL << 26), "requests", static_cast<double>(t.requests),
            "must be at most 2^26 = 67108864 (each is kept in memory)");
    if (t.arrivals.kind != Arrivals::Kind::at_once)
        require(std::isfinite(t.arrivals.rate) && t.arrivals.rate > 0.0, "arrival rate (requests/s)", t.arrivals.rate,
                "must be positive and finite");
    if (t.arrivals.kind == Arrivals::Kind::gamma)
        require(std::isfinite(t.arrivals.burstiness) && t.arrivals.burstiness > 0.0 && t.arrivals.burstiness <= 100.0,
                "burstiness", t.arrivals.burstiness, "must be in (0, 100]");
    (void)validated(t.input, "input tokens");
    (void)validated(t.output, "output tokens");
    require(t.prefix_share >= 0.0 && t.prefix_share <= 1.0, "prefix share", t.prefix_share, "must be in [0, 1]");
    require(t.prefix_tokens >= 0, "prefix tokens", static_cast<double>(t.prefix_tokens), "must not be negative");
    // A hit's prompt is the prefix and at least one token of its own (a trace row says so too,
    // io/serving_trace.hpp): a prefix no prompt can exceed would lengthen every hit's prompt.
    if (t.prefix_tokens > 0 && t.prefix_share > 0.0 && !(static_cast<double>(t.prefix_tokens) < t.input.longest()))
        reject("prefix tokens", static_cast<double>(t.prefix_tokens),
               "must be below the longest prompt the input lengths give (" +
                   std::to_string(static_cast<long long>(t.input.longest())) + " tokens)",
               {"input tokens"});
    SplitMix64 rng(t.seed);
    std::vector<Request> requests(static_cast<std::size_t>(t.requests));
    double clock = 0.0;
    const double k = 1.0 / (t.arrivals.burstiness * t.arrivals.burstiness);
    for (Request& r : requests) {
        if (t.arrivals.kind == Arrivals::Kind::poisson) clock += rng.exponential(1.0 / t.arrivals.rate);
        if (t.arrivals.kind == Arrivals::Kind::gamma) clock += rng.gamma(k, 1.0 / (t.arrivals.rate * k));
        r.arrival = clock;
        r.input = t.input.draw(rng);
        r.output = t.output.draw(rng);
        // A hit reuses the prefix's cache; the prompt is the prefix and at least one token of its own.
        if (t.prefix_tokens > 0 && rng.uniform() < t.prefix_share) {
            r.prefix = t.prefix_tokens;
            r.input = std::max(r.input, t.prefix_tokens + 1);
        }
    }
    return requests;
}

}  // namespace napkin
