// napkin/collectives.hpp — collective communication in the alpha-beta model.
//
// Conventions: n ranks, message M, link bandwidth B (what one rank sends per
// second in one direction), step latency α paid by every step of the
// algorithm, and a base latency paid once per call (NCCL's launch and
// synchronisation cost). Every result keeps its latency and bandwidth terms
// apart, so a caller can see which one dominates.
#pragma once

#include <napkin/error.hpp>
#include <napkin/hardware.hpp>
#include <napkin/units.hpp>

#include <concepts>

namespace napkin {

struct CollectiveTime {
    Seconds latency;    // base + steps × α
    Seconds bandwidth;  // bytes on the wire ÷ B
    [[nodiscard]] constexpr Seconds total() const { return latency + bandwidth; }
};

namespace detail {
constexpr void check_collective(Bytes message, long long ranks, const Link& link, Seconds base_latency) {
    require_non_negative("message (bytes)", message.value());
    require_at_least_one("ranks", ranks);
    (void)validated(link);
    require_non_negative("base_latency (s)", base_latency.value());
}
}  // namespace detail

// Ring all-reduce (Patarasuk & Yuan 2009; NCCL tests doc/PERFORMANCE.md):
// 2(n−1) steps, each rank sends 2(n−1)/n · M. Zero on one rank.
//   T = base + 2(n−1)·α + 2(n−1)/n · M/B
[[nodiscard]] constexpr CollectiveTime ring_allreduce(Bytes message, long long ranks, const Link& link,
                                                      Seconds base_latency = Seconds{}) {
    detail::check_collective(message, ranks, link, base_latency);
    if (ranks == 1) return {};
    const double steps = 2.0 * count(ranks - 1);
    return {base_latency + steps * link.step_latency, steps / count(ranks) * (message / link.bandwidth)};
}

// One message from one rank to another: T = base + α + M/B.
[[nodiscard]] constexpr CollectiveTime point_to_point(Bytes message, const Link& link,
                                                      Seconds base_latency = Seconds{}) {
    detail::check_collective(message, 2, link, base_latency);
    return {base_latency + link.step_latency, message / link.bandwidth};
}

// A collective algorithm as a policy: the composite models (the inference
// split, the training step) are templates over it, so a lesson can swap the
// ring for another algorithm in one word.
template <class P>
concept CollectivePolicy = requires(const P& policy, Bytes message, long long ranks, const Link& link) {
    { policy.all_reduce(message, ranks, link) } -> std::same_as<CollectiveTime>;
    { policy.point_to_point(message, link) } -> std::same_as<CollectiveTime>;
};

// The ring with an NCCL-style base latency per call.
struct Ring {
    Seconds base_latency{};
    [[nodiscard]] constexpr CollectiveTime all_reduce(Bytes message, long long ranks, const Link& link) const {
        return ring_allreduce(message, ranks, link, base_latency);
    }
    [[nodiscard]] constexpr CollectiveTime point_to_point(Bytes message, const Link& link) const {
        return napkin::point_to_point(message, link, base_latency);
    }
};
static_assert(CollectivePolicy<Ring>);

}  // namespace napkin
