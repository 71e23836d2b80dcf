// SPDX-License-Identifier: MIT
// napkin/kernels/hockney.hpp — a rate that grows with the problem's size n
// towards an asymptote, in Hockney's (r∞, n½) form (Hockney & Jesshope,
// "Parallel Computers 2", 1988, Sec. 1.3.3): r(n) = r∞ · n / (n + n½), n½
// the size at which half of r∞ is reached. 1/r = 1/r∞ + (n½/r∞)·(1/n) is
// linear in 1/n, so (r∞, n½) are a least-squares line through measured
// (1/n, 1/r) (hockney_fit; tests/unit/kernels.cpp refits every constant).
#pragma once

#include <napkin/error.hpp>

#include <cstddef>
#include <span>

namespace napkin {

/// A rate in Hockney's (r∞, n½) form.
struct Hockney {
    double r_infinity = 1.0;  // the asymptotic rate, as a share of a data-sheet figure
    double n_half = 0.0;      // the size reaching half of it (0: no dependence on the size)
};

/// The rate at size n: r∞ · n / (n + n½).
[[nodiscard]] constexpr double hockney_rate(const Hockney& h, double n) {
    require_positive("Hockney size n", n);
    return h.r_infinity * n / (n + h.n_half);
}

/// The least-squares line 1/r = a + b/n through the points: r∞ = 1/a, n½ = b/a.
[[nodiscard]] constexpr Hockney hockney_fit(std::span<const double> sizes, std::span<const double> rates) {
    require(sizes.size() == rates.size() && sizes.size() >= 2, "Hockney points (count)",
            static_cast<double>(sizes.size()), "need at least 2 sizes, one rate each");
    double mx = 0.0, my = 0.0;
    for (std::size_t i = 0; i < sizes.size(); ++i) {
        require_positive("Hockney size n", sizes[i]);
        require_positive("Hockney rate r", rates[i]);
        mx += 1.0 / sizes[i];
        my += 1.0 / rates[i];
    }
    const double n = static_cast<double>(sizes.size());
    mx /= n;
    my /= n;
    double sxy = 0.0, sxx = 0.0;
    for (std::size_t i = 0; i < sizes.size(); ++i) {
        const double dx = 1.0 / sizes[i] - mx;
        sxy += dx * (1.0 / rates[i] - my);
        sxx += dx * dx;
    }
    require_positive("Hockney sizes (spread of 1/n)", sxx);
    const double b = sxy / sxx;
    const double a = my - b * mx;
    require_positive("Hockney fit 1/r∞", a);
    return {1.0 / a, b / a};
}

}  // namespace napkin
