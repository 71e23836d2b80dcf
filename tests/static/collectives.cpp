// napkin/collectives.hpp: exact facts checked at compile time (this file passes by compiling).
#include <napkin/collectives.hpp>

namespace {
using namespace napkin;

// A link with round numbers: 1 GB/s, 1 µs per step.
constexpr Link unit_link{"unit", gigabytes_per_second(1), microseconds(1)};

// One rank: nothing to communicate, for every collective.
static_assert(ring_all_reduce(gigabytes(1), 1, unit_link).total() == Seconds{});
static_assert(tree_all_reduce(gigabytes(1), 1, unit_link).total() == Seconds{});
static_assert(reduce_scatter(gigabytes(1), 1, unit_link).total() == Seconds{});
static_assert(all_gather(gigabytes(1), 1, unit_link).total() == Seconds{});
static_assert(all_to_all(gigabytes(1), 1, unit_link).total() == Seconds{});
static_assert(broadcast(gigabytes(1), 1, unit_link).total() == Seconds{});

// ⌈log₂ n⌉ is the depth of a binary tree.
static_assert(detail::ceil_log2(1) == 0 && detail::ceil_log2(2) == 1 && detail::ceil_log2(3) == 2);
static_assert(detail::ceil_log2(256) == 8 && detail::ceil_log2(257) == 9);

// The 0.1 spelling of NCCL's ring LL base latency still names it, from collectives.hpp.
static_assert(catalog::nccl_ring_ll_base_latency == nccl::ring_ll_base_latency);
static_assert(nccl::ring_ll_base_latency == microseconds(6.6));

// Ring all-reduce on 4 ranks, 4 GB at 1 GB/s: 2·3 = 6 steps of 1 µs, 2·3/4 · 4 s = 6 s on the wire.
static_assert(ring_all_reduce(gigabytes(4), 4, unit_link).latency == microseconds(6));
static_assert(ring_all_reduce(gigabytes(4), 4, unit_link).bandwidth == seconds(6));
// Tree on 4 ranks: 2·⌈log₂ 4⌉ = 4 levels of (1 µs + 4 s).
static_assert(tree_all_reduce(gigabytes(4), 4, unit_link).latency == microseconds(4));
static_assert(tree_all_reduce(gigabytes(4), 4, unit_link).bandwidth == seconds(16));
// Reduce-scatter and all-gather are each half the ring all-reduce: 3 steps, 3/4 · 4 s.
static_assert(reduce_scatter(gigabytes(4), 4, unit_link).bandwidth == seconds(3));
static_assert(all_gather(gigabytes(4), 4, unit_link).latency == microseconds(3));
static_assert((reduce_scatter(gigabytes(4), 4, unit_link) + all_gather(gigabytes(4), 4, unit_link)).total() ==
              ring_all_reduce(gigabytes(4), 4, unit_link).total());
// Broadcast: 3 hops, the whole 4 GB once. Point-to-point: one step, the whole message.
static_assert(broadcast(gigabytes(4), 4, unit_link).latency == microseconds(3));
static_assert(broadcast(gigabytes(4), 4, unit_link).bandwidth == seconds(4));
static_assert(point_to_point(gigabytes(4), unit_link, microseconds(2)).latency == microseconds(3));
// The base latency is paid once per call.
static_assert(ring_all_reduce(bytes(0), 4, unit_link, microseconds(10)).latency == microseconds(16));

// No crossover on 1, 2 or 3 ranks (the ring never has more steps than the tree there)
// nor without a step latency; on 4 ranks: α·B·(3 − 2)/(2 − 3/4) = 1,000 B × 0.8 = 800 B.
static_assert(!ring_tree_crossover(1, unit_link).has_value());
static_assert(!ring_tree_crossover(2, unit_link).has_value());
static_assert(!ring_tree_crossover(3, unit_link).has_value());
static_assert(!ring_tree_crossover(64, Link{"no latency", gigabytes_per_second(1), Seconds{}}).has_value());
static_assert(*ring_tree_crossover(4, unit_link) == bytes(800));

// nccl-tests bus factors.
static_assert(bus_bandwidth_factor(Collective::all_reduce, 8) == 1.75);
static_assert(bus_bandwidth_factor(Collective::all_gather, 8) == 0.875);
static_assert(bus_bandwidth_factor(Collective::broadcast, 8) == 1.0);

// Every policy satisfies the concepts the composite models are written against.
static_assert(ShardingCollectivePolicy<Ring> && ShardingCollectivePolicy<Tree>);
static_assert(ShardingCollectivePolicy<Hierarchical> && ShardingCollectivePolicy<NcclModel>);

// Policies are constexpr: the hierarchical one on one node is the ring inside it.
constexpr Hierarchical two_level{8, Link{"ib", gigabytes_per_second(50), microseconds(5)}};
static_assert(two_level.all_reduce(gigabytes(8), 8, unit_link).total() ==
              ring_all_reduce(gigabytes(8), 8, unit_link).total());
}  // namespace
