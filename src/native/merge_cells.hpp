// Merging the statistics of several text models without laying any of them out densely:
// the union of their sorted vocabularies, and the sum of their count tables given as
// non-zero cells (nbayes/text/_textstats.py, the reduce step of a distributed fit).
//
// A vocabulary is a run of terms in UTF-8 joined by '\n' (n terms); byte order of UTF-8
// is code point order, so comparing bytes is comparing Python str. A table is its cells
// by flat index (column * n_rows + row over the merged layout).
#pragma once

#include <algorithm>
#include <cstring>
#include <vector>

#include "common.hpp"

namespace nbk {

// A vocabulary: n terms, UTF-8, joined by '\n'.
struct TermRun {
    const char* p;
    i64 nbytes;
    i64 n;
};

inline int compare_terms(const char* a, i64 la, const char* b, i64 lb) {
    const i64 m = la < lb ? la : lb;
    const int c = m > 0 ? std::memcmp(a, b, static_cast<std::size_t>(m)) : 0;
    if (c != 0) return c;
    return la < lb ? -1 : (la > lb ? 1 : 0);
}

// Where each term of a run starts, and nbytes + 1 after the last: false if the run does
// not hold exactly n terms or they are not in strictly increasing order.
inline bool split_run(const TermRun& r, std::vector<i64>& start) {
    start.clear();
    if (r.n == 0) return r.nbytes == 0;
    start.reserve(static_cast<std::size_t>(r.n) + 1);
    start.push_back(0);
    const char* p = r.p;
    const char* end = r.p + r.nbytes;
    while (p < end) {
        const void* q = std::memchr(p, '\n', static_cast<std::size_t>(end - p));
        if (q == nullptr) break;
        p = static_cast<const char*>(q) + 1;
        start.push_back(p - r.p);
        if (static_cast<i64>(start.size()) > r.n) return false;
    }
    if (static_cast<i64>(start.size()) != r.n) return false;
    start.push_back(r.nbytes + 1);
    for (i64 i = 1; i < r.n; ++i) {
        const i64 a = start[i - 1], b = start[i], c = start[i + 1];
        if (compare_terms(r.p + a, b - a - 1, r.p + b, c - b - 1) >= 0) return false;
        tick_every(i);
    }
    return true;
}

// The first 8 bytes of a term, big-endian, zero-padded: keys in the order of the terms
// (a smaller key is a smaller term; equal keys are compared in full).
inline u64 term_key(const char* p, i64 len) {
    u64 k = 0;
    const i64 m = len < 8 ? len : 8;
    for (i64 i = 0; i < m; ++i) k |= static_cast<u64>(static_cast<u8>(p[i])) << (56 - 8 * i);
    return k;
}

// The sorted union of the runs (joined by '\n' into ``blob``, ``n_out`` terms) and the
// column of every term of every run in it (``cols``, run after run). False: some run is
// not a strictly increasing vocabulary of its n terms.
inline bool union_runs(const std::vector<TermRun>& runs, std::vector<char>& blob,
                       std::vector<i64>& cols, i64& n_out) {
    const std::size_t k = runs.size();
    std::vector<std::vector<i64>> start(k);
    std::vector<std::vector<u64>> keys(k);
    std::vector<i64> base(k + 1, 0);
    i64 total_bytes = 0;
    for (std::size_t r = 0; r < k; ++r) {
        if (!split_run(runs[r], start[r])) return false;
        base[r + 1] = base[r] + runs[r].n;
        total_bytes += runs[r].nbytes + 1;
        keys[r].resize(static_cast<std::size_t>(runs[r].n));
        for (i64 i = 0; i < runs[r].n; ++i)
            keys[r][i] = term_key(runs[r].p + start[r][i], start[r][i + 1] - start[r][i] - 1);
    }
    cols.assign(static_cast<std::size_t>(base[k]), 0);
    blob.clear();
    blob.reserve(static_cast<std::size_t>(total_bytes));
    std::vector<i64> pos(k, 0);
    auto compare = [&](std::size_t a, i64 i, std::size_t b, i64 j) {
        const u64 ka = keys[a][i], kb = keys[b][j];
        if (ka != kb) return ka < kb ? -1 : 1;
        const char* pa = runs[a].p + start[a][i];
        const char* pb = runs[b].p + start[b][j];
        return compare_terms(pa, start[a][i + 1] - start[a][i] - 1, pb,
                             start[b][j + 1] - start[b][j] - 1);
    };
    // a min-heap of runs by their current term (ties: the earlier run first)
    auto later = [&](std::size_t a, std::size_t b) {
        const int c = compare(a, pos[a], b, pos[b]);
        return c > 0 || (c == 0 && a > b);
    };
    std::vector<std::size_t> heap;
    for (std::size_t r = 0; r < k; ++r)
        if (runs[r].n > 0) heap.push_back(r);
    std::make_heap(heap.begin(), heap.end(), later);
    n_out = 0;
    std::size_t last_run = 0;
    i64 last_i = -1;
    i64 step = 0;
    while (!heap.empty()) {
        std::pop_heap(heap.begin(), heap.end(), later);
        const std::size_t r = heap.back();
        heap.pop_back();
        const i64 i = pos[r];
        if (last_i < 0 || compare(last_run, last_i, r, i) != 0) {
            if (n_out > 0) blob.push_back('\n');
            const char* p = runs[r].p + start[r][i];
            blob.insert(blob.end(), p, p + (start[r][i + 1] - start[r][i] - 1));
            last_run = r;
            last_i = i;
            ++n_out;
        }
        cols[static_cast<std::size_t>(base[r] + i)] = n_out - 1;
        if (++pos[r] < runs[r].n) {
            heap.push_back(r);
            std::push_heap(heap.begin(), heap.end(), later);
        }
        tick_every(++step);
    }
    return true;
}

// A table of n_rows rows given as cells: flat indices column * n_rows + row, increasing,
// and values; ``rows`` and ``cols`` say where its rows and columns go in the sum.
struct CellRun {
    const i64* index;
    const double* values;
    i64 n;
    const i64* rows;
    i64 n_rows;
    const i64* cols;
};

// The sum of the tables over n_rows_out rows and size / n_rows_out columns: ``dense``
// (zero-filled, size cells, column by column) gets every sum, in table order per cell
// (((0 + a) + b) + c, as adding the tables one after the other would), and
// ``index``/``values`` the cells any table holds, increasing, with their sums. ``seen`` is
// a zero-filled bitmap of (size + 63) / 64 words.
inline void sum_cells(const std::vector<CellRun>& runs, i64 n_rows_out, i64 size, double* dense,
                      u64* seen, std::vector<i64>& index, std::vector<double>& values) {
    for (const CellRun& r : runs) {
        i64 c = 0, col0 = 0;  // the column of the current cell, and its first flat index
        for (i64 i = 0; i < r.n; ++i) {
            const i64 f = r.index[i];
            while (f >= col0 + r.n_rows) {
                ++c;
                col0 += r.n_rows;
            }
            const i64 j = r.cols[c] * n_rows_out + r.rows[f - col0];
            dense[j] += r.values[i];
            seen[j >> 6] |= 1ull << (j & 63);
            tick_every(i);
        }
    }
    const i64 words = (size + 63) / 64;
    i64 count = 0;
    for (i64 w = 0; w < words; ++w) count += __builtin_popcountll(seen[w]);
    index.resize(static_cast<std::size_t>(count));
    values.resize(static_cast<std::size_t>(count));
    i64 o = 0;
    for (i64 w = 0; w < words; ++w) {
        u64 bits = seen[w];
        while (bits != 0) {
            const i64 j = (w << 6) + low_bit(bits);
            bits &= bits - 1;
            index[static_cast<std::size_t>(o)] = j;
            values[static_cast<std::size_t>(o)] = dense[j];
            ++o;
        }
        tick_every(w);
    }
}

}  // namespace nbk
