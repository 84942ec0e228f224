// Sparse document rows times a dense weight matrix: out[i] += X[i] @ W for rows lo..hi-1,
// in the order of additions scipy uses (so results are equal bit for bit).
#pragma once

#include "common.hpp"

namespace nbk {

template <class I>
inline void rows_dot(const i64* indptr, const I* indices, const double* data, const double* W,
                     i64 k, double* out, i64 lo, i64 hi) {
    for (i64 i = lo; i < hi; ++i) {
        double* o = out + i * k;
        for (i64 jj = indptr[i]; jj < indptr[i + 1]; ++jj) {
            const double a = data[jj];
            const double* w = W + static_cast<i64>(indices[jj]) * k;
            for (i64 c = 0; c < k; ++c) o[c] += a * w[c];
        }
    }
}

}  // namespace nbk
