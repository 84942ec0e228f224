// Sorting and merging vocabularies: term ids in code point order (Python's str order),
// and the union of several workers' sorted vocabularies.
//
// Terms are (pool, tstart, tlen): term t is pool[tstart[t] : tstart[t] + tlen[t]].
// Order-preserving 64-bit prefix keys pack 8 code points when all are below U+0100, 4
// below U+10000, else 3; ties are broken by comparing code points.
#pragma once

#include <algorithm>
#include <numeric>
#include <utility>

#include "common.hpp"

namespace nbk {

struct Terms {
    const u32* pool;
    i64 pool_n;
    const i64* tstart;
    const i64* tlen;
    i64 n;
};

// Code points per key and bits per code point.
inline std::pair<int, int> prefix_width(const u32* pool, i64 n) {
    u32 maxcp = 0;
    for (i64 i = 0; i < n; ++i) maxcp = pool[i] > maxcp ? pool[i] : maxcp;
    if (maxcp < 256) return {8, 8};
    if (maxcp < 65536) return {4, 16};
    return {3, 21};
}

// The key of code points depth .. depth + per - 1 of a term (0-padded).
inline u64 prefix(const u32* pool, i64 start, i64 length, i64 depth, int per, int bits) {
    u64 k = 0;
    for (int r = 0; r < per; ++r) {
        k <<= bits;
        if (depth + r < length) k |= static_cast<u64>(pool[start + depth + r]);
    }
    return k;
}

// Sort keys[lo:hi] in place, stably, permuting order[lo:hi] alike: least significant
// byte first, skipping the bytes all keys share.
inline void radix_sort(u64* keys, i64* order, i64 lo, i64 hi) {
    const i64 n = hi - lo;
    if (n <= 1) return;
    std::vector<i64> hist(8 * 256, 0);
    for (i64 i = lo; i < hi; ++i) {
        tick_every(i);
        const u64 v = keys[i];
        for (int d = 0; d < 8; ++d) ++hist[d * 256 + ((v >> (8 * d)) & 255)];
    }
    u64* k0 = keys + lo;
    i64* o0 = order + lo;
    std::vector<u64> ks(static_cast<std::size_t>(n));
    std::vector<i64> os(static_cast<std::size_t>(n));
    u64* k1 = ks.data();
    i64* o1 = os.data();
    i64 pos[256];
    int flips = 0;
    for (int d = 0; d < 8; ++d) {
        if (hist[d * 256 + ((k0[0] >> (8 * d)) & 255)] == n) continue;  // every key has it
        i64 s = 0;
        for (int b = 0; b < 256; ++b) {
            pos[b] = s;
            s += hist[d * 256 + b];
        }
        for (i64 i = 0; i < n; ++i) {
            tick_every(i);
            const u64 v = k0[i];
            const i64 j = pos[(v >> (8 * d)) & 255]++;
            k1[j] = v;
            o1[j] = o0[i];
        }
        std::swap(k0, k1);
        std::swap(o0, o1);
        ++flips;
    }
    if (flips % 2 == 1) {  // the result is in the scratch arrays
        std::copy(k0, k0 + n, keys + lo);
        std::copy(o0, o0 + n, order + lo);
    }
}

// Word and word-pair ids in the order of their strings. ``order`` holds the n word ids in
// string order; an id i >= n is the pair first[i - n], second[i - n] ("a b"). A pair sorts
// as the key (rank(a), 1 + rank(b)) and a word as (rank(w), 0): the space sorts below every
// word character, so a word that is a prefix of another sorts first, followed by a space
// or not, exactly as Python compares the strings. One radix sort of the packed keys.
inline std::vector<i64> ngram_order(const i64* order, i64 n, const i32* first, const i32* second,
                                    const i64* ids, i64 m) {
    std::vector<i64> rank(static_cast<std::size_t>(n));
    for (i64 q = 0; q < n; ++q) {
        tick_every_scattered(q);
        rank[static_cast<std::size_t>(order[q])] = q;
    }
    std::vector<u64> keys(static_cast<std::size_t>(m));
    std::vector<i64> out(ids, ids + m);
    for (i64 q = 0; q < m; ++q) {
        tick_every(q);
        const i64 i = ids[q];
        if (i < n) {
            keys[static_cast<std::size_t>(q)] = static_cast<u64>(rank[static_cast<std::size_t>(i)]) << 32;
        } else {
            const auto a = static_cast<std::size_t>(first[i - n]), b = static_cast<std::size_t>(second[i - n]);
            keys[static_cast<std::size_t>(q)] = (static_cast<u64>(rank[a]) << 32) | static_cast<u64>(rank[b] + 1);
        }
    }
    radix_sort(keys.data(), out.data(), 0, m);
    return out;
}

struct SortOut {
    std::vector<i64> order;
    std::vector<u64> first;  // every term's first key, by id
    int per = 8;
    std::vector<u64> skeys;  // first keys in sorted order
    std::vector<i64> slen;   // lengths in sorted order
};

// Term ids in code point order, by MSD passes over packed prefixes.
inline SortOut sort_terms(const Terms& T) {
    SortOut out;
    const i64 n = T.n;
    const auto pw = prefix_width(T.pool, T.pool_n);
    const int per = pw.first, bits = pw.second;
    out.per = per;
    out.order.resize(static_cast<std::size_t>(n));
    std::iota(out.order.begin(), out.order.end(), i64{0});
    std::vector<u64> keys(static_cast<std::size_t>(n));
    i64* order = out.order.data();
    struct Range {
        i64 lo, hi, depth;
    };
    std::vector<Range> stack{{0, n, 0}};
    std::vector<std::pair<u64, i64>> small;
    i64 steps = 0;
    while (!stack.empty()) {
        const Range g = stack.back();
        stack.pop_back();
        tick_every(++steps);
        for (i64 q = g.lo; q < g.hi; ++q) {
            tick_every(q);
            const i64 t = order[q];
            keys[q] = prefix(T.pool, T.tstart[t], T.tlen[t], g.depth, per, bits);
        }
        if (g.depth == 0) out.first = keys;
        if (g.hi - g.lo > 64) {
            radix_sort(keys.data(), order, g.lo, g.hi);
        } else {
            small.clear();
            for (i64 q = g.lo; q < g.hi; ++q) small.emplace_back(keys[q], order[q]);
            std::stable_sort(small.begin(), small.end(),
                             [](const auto& a, const auto& b) { return a.first < b.first; });
            for (i64 q = g.lo; q < g.hi; ++q) {
                keys[q] = small[static_cast<std::size_t>(q - g.lo)].first;
                order[q] = small[static_cast<std::size_t>(q - g.lo)].second;
            }
        }
        if (g.depth == 0) out.skeys = keys;
        i64 q = g.lo;
        while (q < g.hi) {
            i64 r = q + 1;
            i64 longest = T.tlen[order[q]];
            while (r < g.hi && keys[r] == keys[q]) {
                longest = std::max(longest, T.tlen[order[r]]);
                ++r;
            }
            // equal terms (never two in one vocabulary) would recurse forever: stop when
            // no term of the group has code points beyond this key
            if (r - q > 1 && longest > g.depth + per) stack.push_back({q, r, g.depth + per});
            q = r;
        }
    }
    if (n == 0) {
        out.first.clear();
        out.skeys.clear();
    }
    out.slen.resize(static_cast<std::size_t>(n));
    for (i64 q = 0; q < n; ++q) {
        tick_every(q);
        out.slen[static_cast<std::size_t>(q)] = T.tlen[order[q]];
    }
    return out;
}

inline int cmp_terms(const u32* pool, i64 sa, i64 la, i64 sb, i64 lb) {
    const i64 m = la < lb ? la : lb;
    for (i64 k = 0; k < m; ++k) {
        const u32 x = pool[sa + k], z = pool[sb + k];
        if (x != z) return x < z ? -1 : 1;
    }
    if (la == lb) return 0;
    return la < lb ? -1 : 1;
}

// -1, 0, 1 as term a sorts before, equal to, or after term b.
inline int before(const Terms& T, const u64* keys, i64 a, i64 b) {
    if (keys[a] != keys[b]) return keys[a] < keys[b] ? -1 : 1;
    return cmp_terms(T.pool, T.tstart[a], T.tlen[a], T.tstart[b], T.tlen[b]);
}

inline std::vector<u64> prefix_keys(const Terms& T) {
    const auto pw = prefix_width(T.pool, T.pool_n);
    std::vector<u64> keys(static_cast<std::size_t>(T.n));
    for (i64 t = 0; t < T.n; ++t) {
        tick_every(t);
        keys[static_cast<std::size_t>(t)] = prefix(T.pool, T.tstart[t], T.tlen[t], 0, pw.first, pw.second);
    }
    return keys;
}

// First position q in [lo, hi) whose term does not sort before term t.
inline i64 lower_bound_term(const Terms& T, const u64* keys, const i64* order, i64 lo, i64 hi,
                            i64 t) {
    while (lo < hi) {
        const i64 mid = (lo + hi) / 2;
        if (before(T, keys, order[mid], t) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

// Cut points cuts[i * k + r] splitting every sorted run r (order[bounds[r]:bounds[r+1]])
// into n_pieces pieces of the term range (pivots at quantiles of run 0); equal terms
// always fall in the same piece.
inline std::vector<i64> split_sorted(const Terms& T, const u64* keys, const i64* order,
                                     const i64* bounds, i64 k, i64 n_pieces) {
    std::vector<i64> cuts(static_cast<std::size_t>((n_pieces + 1) * k));
    auto at = [&](i64 i, i64 r) -> i64& { return cuts[static_cast<std::size_t>(i * k + r)]; };
    for (i64 r = 0; r < k; ++r) {
        at(0, r) = bounds[r];
        at(n_pieces, r) = bounds[r + 1];
    }
    const i64 n0 = bounds[1] - bounds[0];
    for (i64 i = 1; i < n_pieces; ++i) {
        const i64 q = bounds[0] + (n0 * i) / n_pieces;
        for (i64 r = 0; r < k; ++r) {
            const i64 lo = at(i - 1, r);
            if (q >= bounds[1])
                at(i, r) = bounds[r + 1];
            else
                at(i, r) = lower_bound_term(T, keys, order, lo, bounds[r + 1], order[q]);
        }
    }
    return cuts;
}

// Union of the sorted runs order[starts[r]:ends[r]]: sel[j * k + r] = id of the j-th
// term of the union in run r, or -1; returns the union's size and sets ``chars`` to its
// code points + 1 per term. pkeys/plen are first keys and lengths by position; equal keys
// whose last code point slot (``low`` bits) is 0 hold whole terms.
inline i64 merge_piece(const Terms& T, const u64* keys, const i64* order, const i64* starts,
                       const i64* ends, i64 k, const u64* pkeys, const i64* plen, u64 low,
                       std::vector<i64>& sel, i64& chars) {
    i64 total = 0;
    for (i64 r = 0; r < k; ++r) total += ends[r] - starts[r];
    chars = 0;
    if (k == 1) {
        sel.assign(order + starts[0], order + ends[0]);
        for (i64 q = 0; q < total; ++q) chars += T.tlen[sel[static_cast<std::size_t>(q)]] + 1;
        return total;
    }
    sel.assign(static_cast<std::size_t>(total * k), -1);
    i64 n = 0;
    if (k == 2) {
        i64 i = starts[0], ie = ends[0], j = starts[1], je = ends[1];
        while (i < ie && j < je) {
            tick_every(n);
            const u64 ka = pkeys[i], kb = pkeys[j];
            int c;
            if (ka != kb)
                c = ka < kb ? -1 : 1;
            else if ((ka & low) == 0)
                c = 0;
            else {
                const i64 a = order[i], b = order[j];
                c = cmp_terms(T.pool, T.tstart[a], T.tlen[a], T.tstart[b], T.tlen[b]);
            }
            if (c <= 0) {
                sel[static_cast<std::size_t>(2 * n)] = order[i];
                chars += plen[i] + 1;
                ++i;
            }
            if (c >= 0) {
                sel[static_cast<std::size_t>(2 * n + 1)] = order[j];
                if (c > 0) chars += plen[j] + 1;
                ++j;
            }
            ++n;
        }
        for (; i < ie; ++i, ++n) {
            sel[static_cast<std::size_t>(2 * n)] = order[i];
            chars += plen[i] + 1;
        }
        for (; j < je; ++j, ++n) {
            sel[static_cast<std::size_t>(2 * n + 1)] = order[j];
            chars += plen[j] + 1;
        }
        sel.resize(static_cast<std::size_t>(2 * n));
        return n;
    }
    std::vector<i64> head(starts, starts + k);
    while (true) {
        tick_every(n);
        i64 best = -1, tb = 0;
        for (i64 r = 0; r < k; ++r) {
            if (head[static_cast<std::size_t>(r)] < ends[r]) {
                const i64 t = order[head[static_cast<std::size_t>(r)]];
                if (best == -1 || before(T, keys, t, tb) < 0) {
                    best = r;
                    tb = t;
                }
            }
        }
        if (best == -1) break;
        for (i64 r = 0; r < k; ++r) {
            if (head[static_cast<std::size_t>(r)] < ends[r]) {
                const i64 t = order[head[static_cast<std::size_t>(r)]];
                if (r == best || before(T, keys, t, tb) == 0) {
                    sel[static_cast<std::size_t>(n * k + r)] = t;
                    ++head[static_cast<std::size_t>(r)];
                }
            }
        }
        chars += T.tlen[tb] + 1;
        ++n;
    }
    sel.resize(static_cast<std::size_t>(n * k));
    return n;
}

// Write the code points of sel's terms, each followed by sep, from blob[o].
// sel's terms come in sorted order, their ids at random: the start and length of a term
// some rows ahead, and its code points nearer, are prefetched.
inline void fill_blob(const Terms& T, const i64* sel, i64 n, i64 k, u32* blob, i64 o, u32 sep) {
    constexpr i64 FAR = 16, NEAR = 8;
    auto term_at = [&](i64 j) {
        i64 r = 0;
        while (sel[j * k + r] < 0 && r < k - 1) ++r;
        return sel[j * k + r];
    };
    for (i64 j = 0; j < n; ++j) {
        tick_every(j);
        if (j + FAR < n) {
            const i64 f = term_at(j + FAR);
            prefetch(T.tstart + f);
            prefetch(T.tlen + f);
        }
        if (j + NEAR < n) prefetch(T.pool + T.tstart[term_at(j + NEAR)]);
        const i64 t = term_at(j);
        const i64 p = T.tstart[t];
        for (i64 q = 0; q < T.tlen[t]; ++q) blob[o++] = T.pool[p + q];
        blob[o++] = sep;
    }
}

// Rows col0.. of the dense (n_union, n_classes) counts ``out``, of out_df and (when not
// null) of out_tf (each term's total over the classes, summed while its row is in cache)
// from the id-major counts and df of each run r (counts[r], df[r]; its ids start at
// off[r]), for sel's terms. Every row is written (``out`` and ``out_df`` need not be
// zeroed first: a row no run names is zero). The runs' arrays are read where they are (no
// concatenated copy); their rows, gathered in sorted order, are prefetched ahead.
template <class C, class O>
inline void fill_counts(const C* const* counts, const i64* const* df, const i64* off,
                        const i64* sel, i64 n, i64 k, i64 n_classes, O* out, i64* out_df,
                        double* out_tf, i64 col0) {
    constexpr i64 AHEAD_ROWS = 8;
    const i64 row_bytes = n_classes * static_cast<i64>(sizeof(C));
    for (i64 j = 0; j < n; ++j) {
        tick_every(j);
        if (j + AHEAD_ROWS < n) {
            for (i64 r = 0; r < k; ++r) {
                const i64 g = sel[(j + AHEAD_ROWS) * k + r];
                if (g < 0) continue;
                const i64 t = g - off[r];
                const char* src = reinterpret_cast<const char*>(counts[r] + t * n_classes);
                prefetch(src);
                if (row_bytes > 64) prefetch(src + row_bytes - 1);
                prefetch(df[r] + t);
            }
        }
        O* row = out + (col0 + j) * n_classes;
        i64 total = 0, freq = 0;
        bool first = true;
        for (i64 r = 0; r < k; ++r) {
            const i64 g = sel[j * k + r];
            if (g < 0) continue;
            const i64 t = g - off[r];
            freq += df[r][t];
            const C* src = counts[r] + t * n_classes;
            if (first) {
                for (i64 c = 0; c < n_classes; ++c) {
                    row[c] = static_cast<O>(src[c]);
                    total += static_cast<i64>(src[c]);
                }
                first = false;
            } else {
                for (i64 c = 0; c < n_classes; ++c) {
                    row[c] += static_cast<O>(src[c]);
                    total += static_cast<i64>(src[c]);
                }
            }
        }
        if (first)
            for (i64 c = 0; c < n_classes; ++c) row[c] = 0;
        out_df[col0 + j] = freq;
        if (out_tf != nullptr) out_tf[col0 + j] = static_cast<double>(total);
    }
}

}  // namespace nbk
