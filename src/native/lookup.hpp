// Fixed vocabularies: an exact term -> column lookup table, and documents -> CSR rows
// over it (the scoring path), one document -> (columns, counts).
//
// A slot is (w0, w1, key | column + 1, pool offset << 32 | length); keys and hashes are
// the scanners', so a scanned token is looked up without being copied.
#pragma once

#include <algorithm>

#include "common.hpp"
#include "packed.hpp"
#include "scan.hpp"
#include "table.hpp"

namespace nbk {

struct Lookup {
    ZBuf<Slot> tab;
    std::vector<u32> pool;
    i64 n_terms = 0;
    i64 max_col = -1;

    explicit Lookup(i64 n) {
        i64 n_slots = 16;
        while (n_slots < 2 * n) n_slots *= 2;
        tab.alloc(static_cast<std::size_t>(n_slots));
    }

    // Put token kb[b] (a term not in the table yet) in with column col.
    void insert(const Tok& k, i32 width, const u32* t, i64 col) {
        const i64 L = key_len(k.key);
        const i64 used = static_cast<i64>(pool.size());
        for (i64 q = 0; q < L; ++q) pool.push_back(src_cp(k.src, width, t, q));
        const u64 mask = static_cast<u64>(tab.size() - 1);
        u64 j = k.h & mask;
        while (tab[j].meta != 0) j = (j + 1) & mask;
        tab[j].w0 = k.w0;
        tab[j].w1 = k.w1;
        tab[j].meta = k.key | static_cast<u64>(col + 1);
        tab[j].aux = (static_cast<u64>(used) << 32) | static_cast<u64>(L);
        ++n_terms;
        max_col = std::max(max_col, col);
    }

    // Column of a scanned token, or -1.
    inline i64 find(const Tok& k, i32 width, const u32* t) const {
        const Slot* tb = tab.data();
        const u64 mask = static_cast<u64>(tab.size() - 1);
        u64 j = k.h & mask;
        while (true) {
            const u64 m = tb[j].meta;
            if (m == 0) return -1;
            if ((m >> 32) == (k.key >> 32) && tb[j].w0 == k.w0 && tb[j].w1 == k.w1) {
                if (k.key < KEY_LONG) return static_cast<i64>(m & LO32) - 1;
                const u64 aux = tb[j].aux;
                const i64 p = static_cast<i64>(aux >> 32);
                const i64 L = static_cast<i64>(aux & LO32);
                bool same = true;
                for (i64 q = 0; q < L; ++q) {
                    if (pool[static_cast<std::size_t>(p + q)] != src_cp(k.src, width, t, q)) {
                        same = false;
                        break;
                    }
                }
                if (same) return static_cast<i64>(m & LO32) - 1;
            }
            j = (j + 1) & mask;
        }
    }

    const Slot* slot_of(const Tok& k) const { return tab.data() + (k.h & (tab.size() - 1)); }
};

// The lookup table of the strings of ``terms`` (a vocabulary): term i maps to column
// cols[i] (left out when < 0). Strings that are not exactly one token are left out (no
// token can equal them).
inline Lookup build_lookup(const DocSet& terms, const i64* cols, const u32* tid) {
    const i64 n = static_cast<i64>(terms.views.size());
    Lookup lk(n);
    KeyBuf kb(2);
    for (i64 i = 0; i < n; ++i) {
        if (cols[i] < 0) continue;
        const StrView& v = terms.views[static_cast<std::size_t>(i)];
        i64 got = 0;
        const i64 pos = scan_view(v, tid, 0, i, kb, got);
        if (got != 1 || pos < v.n) continue;
        if (key_len(kb.t[0].key) != v.n) continue;  // surrounded by non-word characters
        lk.insert(kb.t[0], v.kind, tid, cols[i]);
    }
    return lk;
}

// The lookup table of the terms of a "\n"-joined code point blob (each term one token,
// as the sorted vocabularies make them): term i maps to column cols[i] (out when < 0).
inline Lookup build_lookup_blob(const u32* blob, i64 N, const i64* cols, i64 n,
                                const u32* tid) {
    Lookup lk(n);
    lk.pool.reserve(static_cast<std::size_t>(N));
    const u64 mask = static_cast<u64>(lk.tab.size() - 1);
    KeyBuf kb(1024);
    i64 pos = 0, term = 0;
    while (pos < N && term < n) {
        i64 nb = 0;
        pos = scan_into(blob, N, pos, tid, 0, kb, nb);
        for (i64 b = 0; b < nb && term < n; ++b) {
            if (b + AHEAD < nb) prefetch(lk.tab.data() + (kb.t[static_cast<std::size_t>(b + AHEAD)].h & mask));
            const i64 c = cols[term++];
            if (c < 0) continue;
            lk.insert(kb.t[static_cast<std::size_t>(b)], 4, tid, c);
        }
    }
    return lk;
}

// The lookup table of a packed vocabulary (UTF-8 bytes, n + 1 offsets: packed.hpp), read
// straight from the bytes: term i maps to column cols[i] (left out when < 0). As in
// build_lookup, a term that is not exactly one token is left out (no token can equal it),
// and so is one whose bytes are not UTF-8 (a model file's are checked before).
inline Lookup build_lookup_packed(const u8* data, const i64* off, i64 n, const i64* cols,
                                  const u32* tid) {
    Lookup lk(n);
    lk.pool.reserve(static_cast<std::size_t>(off[n]));
    KeyBuf kb(2);
    std::vector<u32> cp;
    for (i64 i = 0; i < n; ++i) {
        if ((i & 4095) == 0) tick();
        if (cols[i] < 0 || off[i + 1] == off[i]) continue;
        if (!packed_code_points(data, off, i, cp)) continue;
        const StrView v{cp.data(), static_cast<i64>(cp.size()), 4};
        i64 got = 0;
        const i64 pos = scan_view(v, tid, 0, i, kb, got);
        if (got != 1 || pos < v.n) continue;
        if (key_len(kb.t[0].key) != v.n) continue;  // surrounded by non-word characters
        lk.insert(kb.t[0], 4, tid, cols[i]);
    }
    return lk;
}

// The row being built: a two-level bitmap of its columns and their values, read back in
// column order (no per-row sort).
struct RowBits {
    std::vector<i64> cnt;
    std::vector<u64> bits, summary;
    explicit RowBits(i64 n_cols) {
        const i64 m = n_cols > 1 ? n_cols : 1;
        cnt.assign(static_cast<std::size_t>(m), 0);
        bits.assign(static_cast<std::size_t>((m + 63) / 64), 0);
        summary.assign((bits.size() + 63) / 64, 0);
    }
    // Add v to column c; 1 if c is new in the row.
    inline i64 mark(i64 c, i64 v) {
        const i64 w = c >> 6;
        const u64 bit = 1ull << (c & 63);
        if (bits[static_cast<std::size_t>(w)] & bit) {
            cnt[static_cast<std::size_t>(c)] += v;
            return 0;
        }
        bits[static_cast<std::size_t>(w)] |= bit;
        summary[static_cast<std::size_t>(w >> 6)] |= 1ull << (w & 63);
        cnt[static_cast<std::size_t>(c)] = v;
        return 1;
    }
    // Append the row (n_row columns) to indices/values, clearing the bitmap.
    void flush(std::vector<i64>& indices, std::vector<i64>& values, i64 n_row) {
        std::size_t k = indices.size();
        indices.resize(k + static_cast<std::size_t>(n_row));
        values.resize(k + static_cast<std::size_t>(n_row));
        for (std::size_t si = 0; si < summary.size(); ++si) {
            u64 sw = summary[si];
            while (sw) {
                const std::size_t w = si * 64 + static_cast<std::size_t>(low_bit(sw));
                sw &= sw - 1;
                u64 x = bits[w];
                bits[w] = 0;
                while (x) {
                    const std::size_t c = w * 64 + static_cast<std::size_t>(low_bit(x));
                    x &= x - 1;
                    indices[k] = static_cast<i64>(c);
                    values[k] = cnt[c];
                    ++k;
                }
            }
            summary[si] = 0;
        }
    }
};

// The row being built, for very wide rows (hashing into millions of buckets): the
// (column, value) pairs, sorted and summed when the row ends; memory follows the row.
struct RowPairs {
    std::vector<std::pair<i64, i64>> e;
    explicit RowPairs(i64) {}
    inline i64 mark(i64 c, i64 v) {
        e.emplace_back(c, v);
        return 0;
    }
    void flush(std::vector<i64>& indices, std::vector<i64>& values, i64) {
        std::sort(e.begin(), e.end(),
                  [](const auto& a, const auto& b) { return a.first < b.first; });
        const std::size_t start = indices.size();
        for (const auto& cv : e) {
            if (indices.size() > start && indices.back() == cv.first) {
                values.back() += cv.second;  // sums are kept even when they cancel to 0
            } else {
                indices.push_back(cv.first);
                values.push_back(cv.second);
            }
        }
        e.clear();
    }
};

// Rows wider than this are built as sorted pairs instead of a dense bitmap (whose memory
// and per-row scan grow with the number of columns).
constexpr i64 DENSE_ROW_MAX = i64{1} << 22;

struct Csr {
    std::vector<i64> indptr, indices, values, first;
};

// CSR rows of documents lo..hi-1: each block of a document's tokens is handed to
// on_block(kb, nb, width, table, row), which marks the row's columns and returns how many
// are new, and at the document's end on_end(row) may mark more (what it held back: the
// last n-grams); a row's columns are read back in order from the bitmap (no per-row
// sort), or for very wide rows sorted from their pairs.
template <class Row, class F, class E>
inline Csr doc_rows(const DocSet& ds, i64 lo, i64 hi, const u32* tlow, const u32* tid,
                    i64 n_cols, F&& on_block, E&& on_end) {
    Csr out;
    KeyBuf kb(BLOCK);
    Row row(n_cols);
    out.indptr.assign(static_cast<std::size_t>(hi - lo + 1), 0);
    out.indices.reserve(1024);
    out.values.reserve(1024);
    for (i64 d = lo; d < hi; ++d) {
        tick();
        const StrView& v = ds.views[static_cast<std::size_t>(d)];
        const u32* t = ds.nolow[static_cast<std::size_t>(d)] ? tid : tlow;
        i64 pos = 0, n_row = 0;
        while (true) {
            i64 nb = 0;
            pos = scan_view(v, t, pos, d, kb, nb);
            n_row += on_block(kb, nb, v.kind, t, row);
            if (pos >= v.n) break;
            tick();
        }
        n_row += on_end(row);
        row.flush(out.indices, out.values, n_row);
        out.indptr[static_cast<std::size_t>(d - lo + 1)] = static_cast<i64>(out.indices.size());
    }
    return out;
}

template <class Row, class F>
inline Csr doc_rows(const DocSet& ds, i64 lo, i64 hi, const u32* tlow, const u32* tid,
                    i64 n_cols, F&& on_block) {
    return doc_rows<Row>(ds, lo, hi, tlow, tid, n_cols, on_block, [](auto&) { return i64{0}; });
}

// CSR rows of documents lo..hi-1 over the fixed vocabulary lk (indices sorted within each
// row); with track, ``first`` lists the columns in the order their first token appears.
inline Csr transform_run(const DocSet& ds, i64 lo, i64 hi, const u32* tlow, const u32* tid,
                         const Lookup& lk, i64 n_cols, bool track) {
    ZBuf<u8> seen(static_cast<std::size_t>(track ? std::max<i64>(n_cols, 1) : 0));
    std::vector<i64> first;
    auto on_block = [&](const KeyBuf& kb, i64 nb, i32 width, const u32* t, auto& row) {
        i64 added = 0;
        for (i64 b = 0; b < nb; ++b) {
            if (b + AHEAD < nb) prefetch(lk.slot_of(kb.t[static_cast<std::size_t>(b + AHEAD)]));
            const i64 c = lk.find(kb.t[static_cast<std::size_t>(b)], width, t);
            if (c < 0) continue;
            if (track && seen[static_cast<std::size_t>(c)] == 0) {
                seen[static_cast<std::size_t>(c)] = 1;
                first.push_back(c);
            }
            added += row.mark(c, 1);
        }
        return added;
    };
    Csr out = n_cols > DENSE_ROW_MAX
                  ? doc_rows<RowPairs>(ds, lo, hi, tlow, tid, n_cols, on_block)
                  : doc_rows<RowBits>(ds, lo, hi, tlow, tid, n_cols, on_block);
    out.first = std::move(first);
    return out;
}

// Known columns (sorted) and their counts in one string.
inline void count_one(const StrView& v, const u32* t, const Lookup& lk, std::vector<i64>& uniq,
                      std::vector<i64>& counts) {
    KeyBuf kb(64);
    std::vector<i64> cols;
    i64 pos = 0;
    while (pos < v.n) {
        i64 nb = 0;
        pos = scan_view(v, t, pos, 0, kb, nb);
        for (i64 b = 0; b < nb; ++b) {
            const i64 c = lk.find(kb.t[static_cast<std::size_t>(b)], v.kind, t);
            if (c >= 0) cols.push_back(c);
        }
        tick();
    }
    std::sort(cols.begin(), cols.end());
    uniq.clear();
    counts.clear();
    for (i64 c : cols) {
        if (!uniq.empty() && uniq.back() == c)
            ++counts.back();
        else {
            uniq.push_back(c);
            counts.push_back(1);
        }
    }
}

}  // namespace nbk
