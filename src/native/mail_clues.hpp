// The spam filter's clues of one message: Robinson's f(w) of each token from its ham and
// spam document counts, the tokens far enough from 0.5 kept, the `cap` farthest when there
// are more (ties by the token, as Python's sort of (d, token) tuples breaks them).
//
// The same expressions in the same order as SpamFilter._clue_values (nbayes/spam/
// _filter.py) in IEEE double precision, so the values are bit for bit those of the
// Python reading (tests/spam check it): no fused multiply-add (CMakeLists.txt builds this
// module with -ffp-contract=off), logs from the C library as Python's math module's.
//
// Plain C++ (no Python.h): bind_mail.cpp binds it to Python.
#pragma once

#include <cmath>
#include <cstdint>

namespace nbk_mail {

struct ClueParams {
    std::int64_t n_ham;
    std::int64_t n_spam;
    double s;
    double x;
    double c;  // the smoothing toward the pooled frequency
    double min_dev;
};

// f(w) of a token in g ham and b spam messages; false if the Python reading would
// divide by zero (the caller then takes the Python path, which raises as it always did).
inline bool robinson_f(std::int64_t g, std::int64_t b, const ClueParams& p, double& f) {
    std::int64_t n = g + b;
    if (n == 0) {
        f = p.x;
        return true;
    }
    double spam_ratio, ham_ratio;
    if (p.c != 0.0 && p.n_ham != 0 && p.n_spam != 0) {
        double m = p.c * static_cast<double>(n) / static_cast<double>(p.n_ham + p.n_spam);
        spam_ratio = (static_cast<double>(b) + m) / (static_cast<double>(p.n_spam) + p.c);
        ham_ratio = (static_cast<double>(g) + m) / (static_cast<double>(p.n_ham) + p.c);
    } else {
        spam_ratio = p.n_spam ? static_cast<double>(b) / static_cast<double>(p.n_spam) : 0.0;
        ham_ratio = p.n_ham ? static_cast<double>(g) / static_cast<double>(p.n_ham) : 0.0;
    }
    double both = spam_ratio + ham_ratio;
    double sn = p.s + static_cast<double>(n);
    if (both == 0.0 || sn == 0.0) return false;
    f = (p.s * p.x + static_cast<double>(n) * (spam_ratio / both)) / sn;
    return true;
}

// |f - 0.5| as the Python reading computes it.
inline double deviation(double f) { return f > 0.5 ? f - 0.5 : 0.5 - f; }

}  // namespace nbk_mail
