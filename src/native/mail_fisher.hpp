// Fisher's chi-square combining of a message's clues in log space, bit for bit as
// nbayes/spam/_combining.py's fisher_log_scores computes it from math.fsum of the clues'
// ln f and ln(1 - f) (with its tail_weight term): the same operations in the same order in IEEE double precision
// (CMakeLists.txt builds this module with -ffp-contract=off), log, log1p and exp from the
// C library as Python's math module's, math.lgamma's values passed in by the caller (a
// table of lgamma(0..n-1): CPython computes lgamma its own way), and math.fsum's
// correctly rounded sum by CPython's algorithm (Shewchuk's partials, half-even fix-up).
//
// Plain C++ (no Python.h): bind_mail.cpp binds it to Python.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

namespace nbk_mail {

// math.fsum of finite `xs`; false if a value or an intermediate sum is not finite (the
// caller then takes the Python path).
inline bool fsum(const std::vector<double>& xs, std::vector<double>& partials, double& out) {
    partials.clear();
    for (double x : xs) {
        if (!std::isfinite(x)) return false;
        std::size_t i = 0;
        for (std::size_t j = 0; j < partials.size(); ++j) {
            double y = partials[j];
            if (std::fabs(x) < std::fabs(y)) std::swap(x, y);
            double hi = x + y;
            double yr = hi - x;
            double lo = y - yr;
            if (lo != 0.0) partials[i++] = lo;
            x = hi;
        }
        partials.resize(i);
        if (x != 0.0) {
            if (!std::isfinite(x)) return false;  // (intermediate overflow)
            partials.push_back(x);
        }
    }
    double hi = 0.0, lo = 0.0;
    std::size_t n = partials.size();
    if (n > 0) {
        hi = partials[--n];
        while (n > 0) {  // sum from the top until the sum is inexact
            double x = hi;
            double y = partials[--n];
            hi = x + y;
            double yr = hi - x;
            lo = y - yr;
            if (lo != 0.0) break;
        }
        if (n > 0 && ((lo < 0.0 && partials[n - 1] < 0.0) || (lo > 0.0 && partials[n - 1] > 0.0))) {
            double y = lo * 2.0;  // half-even rounding across the partials
            double x = hi + y;
            double yr = x - hi;
            if (y == yr) hi = x;
        }
    }
    out = hi;
    return true;
}

struct Lgamma {
    const double* values;  // lgamma(i) for i < size
    std::int64_t size;
};

// chi2_log_sf(chi2, k); false where lgamma's table is too short.
inline bool chi2_log_sf(double chi2, std::int64_t k, const Lgamma& lg, double& out) {
    if (k <= 0) {
        out = -INFINITY;
        return true;
    }
    double m = chi2 / 2.0;
    if (m <= 0.0) {
        out = 0.0;
        return true;
    }
    if (!std::isfinite(m)) return false;
    std::int64_t top = m >= static_cast<double>(k - 1) ? k - 1 : static_cast<std::int64_t>(m);
    if (top + 1 >= lg.size) return false;
    double total = 1.0, term = 1.0;
    for (std::int64_t i = top; i > 0; --i) {
        term *= static_cast<double>(i) / m;
        total += term;
        if (term < 1e-17 * total) break;
    }
    term = 1.0;
    for (std::int64_t i = top + 1; i < k; ++i) {
        term *= m / static_cast<double>(i);
        total += term;
        if (term < 1e-17 * total) break;
    }
    double log_top = static_cast<double>(top) * std::log(m) - lg.values[top + 1];
    out = -m + log_top + std::log(total);
    return true;
}

// chi2_log_cdf(chi2, k).
inline bool chi2_log_cdf(double chi2, std::int64_t k, const Lgamma& lg, double& out) {
    if (k <= 0) {
        out = 0.0;
        return true;
    }
    double m = chi2 / 2.0;
    if (m <= 0.0) {
        out = -INFINITY;
        return true;
    }
    if (!std::isfinite(m)) return false;
    if (m > static_cast<double>(k)) {
        double sf;
        if (!chi2_log_sf(chi2, k, lg, sf)) return false;
        out = std::log1p(-std::exp(sf));
        return true;
    }
    if (k + 1 >= lg.size) return false;
    double total = 1.0, term = 1.0;
    for (std::int64_t i = k + 1;; ++i) {
        term *= m / static_cast<double>(i);
        total += term;
        if (term < 1e-17 * total) break;
    }
    out = -m + static_cast<double>(k) * std::log(m) - lg.values[k + 1] + std::log(total);
    return true;
}

inline double logaddexp(double a, double b) {
    if (a < b) std::swap(a, b);
    if (b == -INFINITY) return a;
    return a + std::log1p(std::exp(b - a));
}

// _log1pexp: log(1 + exp(z)) without overflow.
inline double log1pexp(double z) {
    return z > 0 ? z + std::log1p(std::exp(-z)) : std::log1p(std::exp(z));
}

// fisher_log_scores(sum_log_f, sum_log_1mf, k, tail_weight, ham_bias) -> (log spamicity,
// log(1 - spamicity)).
inline bool fisher_log_scores(double sum_log_f, double sum_log_1mf, std::int64_t k,
                              double tail_weight, double ham_bias, const Lgamma& lg,
                              double& log_spam, double& log_ham) {
    const double ln2 = std::log(2.0);
    if (k == 0) {  // no clues: 1/2, whatever the bias
        log_spam = log_ham = -ln2;
        return true;
    }
    double h_chi2 = -2.0 * sum_log_f;
    double s_chi2 = -2.0 * sum_log_1mf;
    double log_h_tail, log_s_tail, a, c;
    if (!chi2_log_sf(h_chi2, k, lg, log_h_tail) || !chi2_log_sf(s_chi2, k, lg, log_s_tail) ||
        !chi2_log_cdf(s_chi2, k, lg, a) || !chi2_log_cdf(h_chi2, k, lg, c))
        return false;
    // (each at most log 1: H <= 1 and S >= 0, but the sums can round a few ulps above)
    log_spam = std::min(logaddexp(a, log_h_tail) - ln2, 0.0);
    log_ham = std::min(logaddexp(c, log_s_tail) - ln2, 0.0);
    if (tail_weight == 0.0 && ham_bias == 0.0) return true;
    double z = log_spam - log_ham;
    if (tail_weight != 0.0) z += tail_weight * (log_h_tail - log_s_tail);
    if (ham_bias != 0.0) z -= ham_bias / static_cast<double>(k);
    log_spam = -log1pexp(-z);
    log_ham = -log1pexp(z);
    return true;
}

// mean_log_odds of nbayes/spam/_combining.py (combining="mean": MEAN_SCALE 2, YOUNG_CLASS
// 10, YOUNG_ALL 30 there), as (log spamicity, log(1 - spamicity)): the same operations in
// the same order, so the same doubles.
inline void mean_log_scores(double sum_log_f, double sum_log_1mf, std::int64_t k, double ham_bias,
                            std::int64_t n_ham, std::int64_t n_spam, double& log_spam,
                            double& log_ham) {
    double z = 0.0;
    if (k != 0) {
        const double kd = static_cast<double>(k);
        z = 2.0 * (sum_log_f - sum_log_1mf) / kd - ham_bias / kd;
        const double n = static_cast<double>(n_ham + n_spam);
        const double every = n / (n + 30.0);
        const double seen = static_cast<double>(z > 0 ? n_ham : n_spam);
        const double own = seen / (seen + 10.0);
        z = z * (every > own ? every : own);  // (Python's max(own, every))
    }
    log_spam = -log1pexp(-z);
    log_ham = -log1pexp(z);
}

}  // namespace nbk_mail
