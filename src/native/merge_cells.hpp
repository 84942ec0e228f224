// Merging the statistics of several text models without laying any of them out densely:
// the union of their sorted vocabularies, and the sum of their count tables given as
// non-zero cells (nbayes/text/_textstats.py, the reduce step of a distributed fit).
//
// A vocabulary is packed: UTF-8 bytes and n + 1 offsets (nbayes/text/_vocabulary.py's
// PackedTerms); byte order of UTF-8 is code point order, so comparing bytes is comparing
// Python str. A table is its cells
// by flat index (column * n_rows + row over the merged layout).
#pragma once

#include <algorithm>
#include <cstring>
#include <vector>

#include "common.hpp"

namespace nbk {

// A packed vocabulary: n terms, term i = p[off[i] : off[i + 1]] (UTF-8).
struct TermRun {
    const char* p;
    const i64* off;
    i64 n;
};

inline int compare_terms(const char* a, i64 la, const char* b, i64 lb) {
    const i64 m = la < lb ? la : lb;
    const int c = m > 0 ? std::memcmp(a, b, static_cast<std::size_t>(m)) : 0;
    if (c != 0) return c;
    return la < lb ? -1 : (la > lb ? 1 : 0);
}

// The first 8 bytes of a term, big-endian, zero-padded: a smaller key is a smaller term
// (equal keys are compared in full).
inline u64 term_key(const char* p, i64 len) {
    u64 k = 0;
    const i64 m = len < 8 ? len : 8;
    for (i64 i = 0; i < m; ++i) k |= static_cast<u64>(static_cast<u8>(p[i])) << (56 - 8 * i);
    return k;
}

// A run with the key of each term.
struct SplitRun {
    const char* p = nullptr;
    const i64* off = nullptr;
    i64 n = 0;
    std::vector<u64> key;
    const char* at(i64 i) const { return p + off[i]; }
    i64 len(i64 i) const { return off[i + 1] - off[i]; }
};

inline int compare_in(const SplitRun& a, i64 i, const SplitRun& b, i64 j) {
    const u64 ka = a.key[i], kb = b.key[j];
    if (ka != kb) return ka < kb ? -1 : 1;
    return compare_terms(a.at(i), a.len(i), b.at(j), b.len(j));
}

// The keys of a run: false if its terms are not in strictly increasing order.
inline bool split_run(const TermRun& r, SplitRun& out) {
    out.p = r.p;
    out.off = r.off;
    out.n = r.n;
    out.key.resize(static_cast<std::size_t>(r.n));
    for (i64 i = 0; i < r.n; ++i) out.key[i] = term_key(out.at(i), out.len(i));
    for (i64 i = 1; i < r.n; ++i) {
        if (compare_in(out, i - 1, out, i) >= 0) return false;
        tick_every(i);
    }
    return true;
}

// The sorted union of the runs (packed into ``data``/``offsets``) and the column of every
// term of every run in it (``cols``, run after run). False: some run is not strictly
// increasing.
inline bool union_runs(const std::vector<TermRun>& runs, std::vector<u8>& data,
                       std::vector<i64>& offsets, std::vector<i64>& cols) {
    const std::size_t k = runs.size();
    std::vector<SplitRun> split(k);
    std::vector<i64> base(k + 1, 0);
    i64 total_bytes = 0;
    for (std::size_t r = 0; r < k; ++r) {
        if (!split_run(runs[r], split[r])) return false;
        base[r + 1] = base[r] + runs[r].n;
        total_bytes += runs[r].n > 0 ? runs[r].off[runs[r].n] : 0;
    }
    cols.assign(static_cast<std::size_t>(base[k]), 0);
    data.clear();
    data.reserve(static_cast<std::size_t>(total_bytes));
    offsets.assign(1, 0);
    // a min-heap of (current key, run); ties of keys are compared in full, then by run
    struct Head {
        u64 key;
        std::size_t run;
        i64 i;
    };
    auto later = [&](const Head& a, const Head& b) {
        if (a.key != b.key) return a.key > b.key;
        const int c = compare_terms(split[a.run].at(a.i), split[a.run].len(a.i),
                                    split[b.run].at(b.i), split[b.run].len(b.i));
        return c > 0 || (c == 0 && a.run > b.run);
    };
    std::vector<Head> heap;
    heap.reserve(k);
    for (std::size_t r = 0; r < k; ++r)
        if (runs[r].n > 0) heap.push_back(Head{split[r].key[0], r, 0});
    std::make_heap(heap.begin(), heap.end(), later);
    i64 n_out = 0;
    std::size_t last_run = 0;
    i64 last_i = -1;
    i64 step = 0;
    while (!heap.empty()) {
        std::pop_heap(heap.begin(), heap.end(), later);
        Head h = heap.back();
        const SplitRun& s = split[h.run];
        if (last_i < 0 || compare_in(split[last_run], last_i, s, h.i) != 0) {
            const u8* p = reinterpret_cast<const u8*>(s.at(h.i));
            data.insert(data.end(), p, p + s.len(h.i));
            offsets.push_back(static_cast<i64>(data.size()));
            last_run = h.run;
            last_i = h.i;
            ++n_out;
        }
        cols[static_cast<std::size_t>(base[h.run] + h.i)] = n_out - 1;
        if (++h.i < s.n) {
            h.key = s.key[h.i];
            heap.back() = h;
            std::push_heap(heap.begin(), heap.end(), later);
        } else {
            heap.pop_back();
        }
        tick_every(++step);
    }
    return true;
}

// The non-zero cells of a table read in memory order: their flat indices and values
// (without branches: a table is ~90 % zeros in no predictable pattern).
inline void nonzero_cells(const double* flat, i64 n, std::vector<i64>& index,
                          std::vector<double>& values) {
    constexpr i64 STEP = 1 << 16;
    i64 count = 0;
    for (i64 lo = 0; lo < n; lo += STEP) {
        const i64 hi = lo + STEP < n ? lo + STEP : n;
        for (i64 i = lo; i < hi; ++i) count += flat[i] != 0.0;
        tick();
    }
    index.resize(static_cast<std::size_t>(count) + 1);  // + 1: the slot written past the last
    values.resize(static_cast<std::size_t>(count) + 1);
    i64* idx = index.data();
    double* val = values.data();
    i64 o = 0;
    for (i64 lo = 0; lo < n && o < count; lo += STEP) {
        const i64 hi = lo + STEP < n ? lo + STEP : n;
        for (i64 i = lo; i < hi && o < count; ++i) {
            idx[o] = i;
            val[o] = flat[i];
            o += flat[i] != 0.0;
        }
        tick();
    }
    index.resize(static_cast<std::size_t>(count));
    values.resize(static_cast<std::size_t>(count));
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
