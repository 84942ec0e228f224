// The copying path (n-grams, CountVectorizer's analysis): a joined, lowercased code point
// buffer is scanned into a token-id stream through an exact interning table; word pairs
// are interned by id pair; the streams become scikit-learn's column order, CSR rows or
// per-class sums.
#pragma once

#include <algorithm>
#include <stdexcept>

#include "common.hpp"

namespace nbk {

// The interning table's arrays (owned by an InternTable, below).
struct InternArrays {
    i32* slots;
    i64 n_slots;  // power of two
    u64* thash;
    i64* tstart;
    i32* tlen;
    u8* is_stop;
    i64 cap_terms;  // length of thash/tstart/tlen/is_stop
    u32* pool;
    i64 cap_pool;
    i64* counters;  // [n_terms, pool_used]
};

// Scan buf[spans] from pos = [doc, char, n_tok], interning tokens. Returns 0 when done,
// or 1 (term table full), 2 (pool full), 3 (token buffer full) with pos saved, so that
// the caller grows the arrays and resumes.
template <class B>
inline int intern_run(const B* buf, const i64* spans, i64 n_docs, const u8* is_word,
                      InternArrays& A, i32* tok, i64 cap_tok, i64* ptr, i64* pos) {
    i64 n_terms = A.counters[0];
    i64 pool_used = A.counters[1];
    i64 n_tok = pos[2];
    const u64 mask = static_cast<u64>(A.n_slots - 1);
    const i64 cap_terms = std::min(A.cap_terms, A.n_slots / 2);
    const u64 fnv = 0x100000001B3ull;
    const i64 d0 = pos[0];
    int status = 0;
    for (i64 d = d0; d < n_docs; ++d) {
        if ((d & 15) == 0) tick();  // 256 documents of a big vocabulary took ~20 ms a tick
        i64 i = spans[2 * d];
        if (d == d0 && pos[1] > i) i = pos[1];
        const i64 end = spans[2 * d + 1];
        while (i < end) {
            if (is_word[buf[i]] == 0) {
                ++i;
                continue;
            }
            const i64 s = i;
            u64 h = 0xCBF29CE484222325ull;
            while (i < end && is_word[buf[i]] != 0) {
                h = (h ^ static_cast<u64>(buf[i])) * fnv;
                ++i;
            }
            const i64 L = i - s;
            if (L < 2) continue;
            if (static_cast<u64>(L) > MAX_TOKEN) throw TokenTooLong{};
            if (n_tok >= cap_tok) {
                status = 3;
                i = s;
                break;
            }
            h = mix(h);
            u64 j = h & mask;
            i64 tid = -1;
            while (true) {
                const i64 t = A.slots[j];
                if (t == -1) break;
                auto cp = [&](i64 k) { return static_cast<u32>(buf[s + k]); };
                if (A.thash[t] == h && A.tlen[t] == L &&
                    same_code_points(A.pool, A.tstart[t], L, cp)) {
                    tid = t;
                    break;
                }
                j = (j + 1) & mask;
            }
            if (tid == -1) {
                if (n_terms >= cap_terms) {
                    status = 1;
                    i = s;
                    break;
                }
                if (pool_used + L > A.cap_pool) {
                    status = 2;
                    i = s;
                    break;
                }
                tid = n_terms;
                for (i64 k = 0; k < L; ++k) A.pool[pool_used + k] = static_cast<u32>(buf[s + k]);
                A.thash[tid] = h;
                A.tstart[tid] = pool_used;
                A.tlen[tid] = static_cast<i32>(L);
                A.is_stop[tid] = 0;
                pool_used += L;
                A.slots[j] = static_cast<i32>(tid);
                ++n_terms;
            }
            if (A.is_stop[tid] != 0) continue;
            tick_every_scattered(n_tok);  // one long document: Ctrl-C stays live within it
            tok[n_tok++] = static_cast<i32>(tid);
        }
        if (status != 0) {
            pos[0] = d;
            pos[1] = i;
            break;
        }
        ptr[d + 1] = n_tok;
    }
    pos[2] = n_tok;
    A.counters[0] = n_terms;
    A.counters[1] = pool_used;
    return status;
}

inline void rehash(i32* slots, i64 n_slots, const u64* thash, i64 n_terms) {
    const u64 mask = static_cast<u64>(n_slots - 1);
    for (i64 t = 0; t < n_terms; ++t) {
        if ((t & 0xFFF) == 0) tick();  // a table of millions of terms: Ctrl-C stays live
        u64 j = thash[t] & mask;
        while (slots[j] != -1) j = (j + 1) & mask;
        slots[j] = static_cast<i32>(t);
    }
}

// The interning table of the copying path, owned by a capsule (nbayes._native.Intern).
// Python never sees its arrays, so what intern_run relies on (one slot per term, at least
// half the slots free, every term inside the pool) holds by construction: a call checks
// what it is given, not the whole table. Ids are first-occurrence order.
struct InternTable {
    static constexpr i64 MAX_TERMS = i64{1} << 30;  // ids and lengths are int32

    ZBuf<i32> slots;  // 2 * cap_terms, -1: free
    ZBuf<u64> thash;
    ZBuf<i64> tstart;
    ZBuf<i32> tlen;
    ZBuf<u8> is_stop;
    ZBuf<u32> pool;
    i64 cap_terms = 0;  // room of thash, tstart, tlen, is_stop
    i64 counters[2] = {0, 0};  // n_terms, pool_used
    bool busy = false;  // a call is under way without the GIL
    bool broken = false;  // a scan stopped midway (Ctrl-C, an error): its slots may hold
                          // terms the counters do not, so the table is not used again

    explicit InternTable(i64 capacity) {
        i64 cap = 16;
        while (cap < capacity && cap < MAX_TERMS) cap *= 2;
        slots.alloc_unset(static_cast<std::size_t>(2 * cap));
        std::fill(slots.p, slots.p + 2 * cap, -1);
        thash.alloc_unset(static_cast<std::size_t>(cap));
        tstart.alloc_unset(static_cast<std::size_t>(cap));
        tlen.alloc_unset(static_cast<std::size_t>(cap));
        is_stop.alloc(static_cast<std::size_t>(cap));
        pool.alloc_unset(static_cast<std::size_t>(8 * cap));
        cap_terms = cap;
    }
    i64 n_terms() const { return counters[0]; }
    i64 pool_used() const { return counters[1]; }
    InternArrays arrays() {
        return InternArrays{slots.p, static_cast<i64>(slots.n), thash.p, tstart.p, tlen.p,
                            is_stop.p, cap_terms, pool.p, static_cast<i64>(pool.n), counters};
    }
    // Room for twice the terms, the slots rehashed (on bad_alloc or Ctrl-C the table is
    // unchanged but for spare room).
    void grow_terms() {
        const i64 cap = 2 * cap_terms;
        if (cap > MAX_TERMS) throw std::length_error("the interning table holds 2**30 terms, its most");
        const auto c = static_cast<std::size_t>(cap);
        thash.extend(c, false);
        tstart.extend(c, false);
        tlen.extend(c, false);
        is_stop.extend(c, true);
        ZBuf<i32> s;
        s.alloc_unset(2 * c);
        std::fill(s.p, s.p + 2 * cap, -1);
        rehash(s.p, 2 * cap, thash.p, counters[0]);
        slots = std::move(s);
        cap_terms = cap;
    }
    void grow_pool() { pool.extend(2 * pool.n + 64, false); }

    // Scan buf[spans] from pos (see intern_run), growing the table as it fills: 0 when
    // done, 3 when the token buffer is full (pos saved for the caller to resume).
    template <class B>
    int scan(const B* buf, const i64* spans, i64 n_docs, const u8* is_word, i32* tok,
             i64 cap_tok, i64* ptr, i64* pos) {
        while (true) {
            InternArrays A = arrays();
            const int status = intern_run(buf, spans, n_docs, is_word, A, tok, cap_tok, ptr, pos);
            if (status == 1)
                grow_terms();
            else if (status == 2)
                grow_pool();
            else
                return status;
        }
    }
};

struct Pairs {
    std::vector<i32> out;
    std::vector<i64> optr;
    std::vector<i32> first, second;
};

// Intern consecutive token pairs within each document.
inline Pairs pair_ids(const i32* tok, const i64* ptr, i64 n_docs) {
    Pairs P;
    i64 n_out = 0;
    for (i64 d = 0; d < n_docs; ++d) {
        const i64 m = ptr[d + 1] - ptr[d];
        if (m > 1) n_out += m - 1;
    }
    P.out.resize(static_cast<std::size_t>(n_out));
    P.optr.assign(static_cast<std::size_t>(n_docs + 1), 0);
    i64 cap = 1024;
    while (cap < 2 * std::max<i64>(n_out, 1)) cap *= 2;
    std::vector<u64> keys(static_cast<std::size_t>(cap));
    std::vector<i32> ids(static_cast<std::size_t>(cap), -1);
    const u64 mask = static_cast<u64>(cap - 1);
    i64 n_pairs = 0, o = 0;
    for (i64 d = 0; d < n_docs; ++d) {
        for (i64 i = ptr[d]; i < ptr[d + 1] - 1; ++i) {
            const i32 a = tok[i], b = tok[i + 1];
            const u64 key = (static_cast<u64>(static_cast<u32>(a)) << 32) | static_cast<u32>(b);
            u64 j = mix(key) & mask;
            while (true) {
                if (ids[j] == -1) {
                    ids[j] = static_cast<i32>(n_pairs);
                    keys[j] = key;
                    P.first.push_back(a);
                    P.second.push_back(b);
                    P.out[static_cast<std::size_t>(o)] = static_cast<i32>(n_pairs);
                    ++n_pairs;
                    break;
                }
                if (keys[j] == key) {
                    P.out[static_cast<std::size_t>(o)] = ids[j];
                    break;
                }
                j = (j + 1) & mask;
            }
            tick_every_scattered(o);
            ++o;
        }
        P.optr[static_cast<std::size_t>(d + 1)] = o;
    }
    return P;
}

// The two id streams (unigrams tok/ptr, pairs ptok/pptr offset by n_uni).
struct Streams {
    const i32* tok;
    const i64* ptr;
    const i32* ptok;
    const i64* pptr;
    i64 n_docs, n_uni;
    bool use_uni, use_pair;

    template <class F>
    inline void each(i64 d, F&& f) const {
        if (use_uni)
            for (i64 i = ptr[d]; i < ptr[d + 1]; ++i) f(static_cast<i64>(tok[i]));
        if (use_pair)
            for (i64 i = pptr[d]; i < pptr[d + 1]; ++i) f(n_uni + static_cast<i64>(ptok[i]));
    }

    // f(c, first) for the column c = col[id] of each id of document d that has one (-1:
    // none), first when c is new to the document (mark[c] holds the last document that
    // had it). ``step`` counts the ids for Ctrl-C: the writes go to columns at random.
    template <class F>
    inline void each_column(i64 d, const i64* col, std::vector<i64>& mark, i64& step, F&& f) const {
        each(d, [&](i64 t) {
            tick_every_scattered(++step);
            const i64 c = col[t];
            if (c < 0) return;
            const bool first = mark[static_cast<std::size_t>(c)] != d;
            if (first) mark[static_cast<std::size_t>(c)] = d;
            f(c, first);
        });
    }
};

// Column of each id in scikit-learn's fit order (first occurrence; -1 if never emitted).
inline i64 first_occurrence(const Streams& S, i64 n_ids, std::vector<i64>& col) {
    col.assign(static_cast<std::size_t>(n_ids), -1);
    i64 n = 0, step = 0;
    for (i64 d = 0; d < S.n_docs; ++d)
        S.each(d, [&](i64 t) {
            tick_every_scattered(++step);
            if (col[static_cast<std::size_t>(t)] == -1) col[static_cast<std::size_t>(t)] = n++;
        });
    return n;
}

// CSR pieces with indices sorted within each row; col maps ids to columns (-1: ignore).
inline void build_rows(const Streams& S, const i64* col, i64 n_cols, std::vector<i64>& indptr,
                       std::vector<i64>& indices, std::vector<i32>& values) {
    indptr.assign(static_cast<std::size_t>(S.n_docs + 1), 0);
    std::vector<i64> mark(static_cast<std::size_t>(std::max<i64>(n_cols, 1)), -1);
    std::vector<i32> cnt(static_cast<std::size_t>(std::max<i64>(n_cols, 1)), 0);
    i64 step = 0;
    for (i64 d = 0; d < S.n_docs; ++d) {
        const std::size_t start = indices.size();
        S.each_column(d, col, mark, step, [&](i64 c, bool first) {
            if (first) {
                cnt[static_cast<std::size_t>(c)] = 1;
                indices.push_back(c);
            } else {
                ++cnt[static_cast<std::size_t>(c)];
            }
        });
        std::sort(indices.begin() + static_cast<std::ptrdiff_t>(start), indices.end());
        for (std::size_t k = start; k < indices.size(); ++k)
            values.push_back(cnt[static_cast<std::size_t>(indices[k])]);
        indptr[static_cast<std::size_t>(d + 1)] = static_cast<i64>(indices.size());
    }
}

// Per-class sums Y^T X and document frequencies straight from the id streams.
template <class O>
inline void stream_class_sums(const Streams& S, const i64* col, i64 n_cols, const i64* y,
                              bool binary, O* out, i64* df) {
    std::vector<i64> mark(static_cast<std::size_t>(std::max<i64>(n_cols, 1)), -1);
    i64 step = 0;
    for (i64 d = 0; d < S.n_docs; ++d) {
        O* row = out + y[d] * n_cols;
        S.each_column(d, col, mark, step, [&](i64 c, bool first) {
            if (first) ++df[c];
            if (first || !binary) row[c] += 1;
        });
    }
}

// Code points of the terms ids (< n_uni: a word; else the word pair first/second of
// id - n_uni joined by a space), "\n"-separated.
inline std::vector<u32> ngram_blob(const u32* pool, const i64* tstart, const i64* tlen,
                                   i64 n_uni, const i32* first, const i32* second,
                                   const i64* ids, i64 n_ids) {
    i64 total = 0;
    for (i64 q = 0; q < n_ids; ++q) {
        tick_every(q);  // two passes over millions of terms: ~0.5 s without a look at Ctrl-C
        const i64 i = ids[q];
        if (i < n_uni)
            total += tlen[i] + 1;
        else
            total += tlen[first[i - n_uni]] + tlen[second[i - n_uni]] + 2;
    }
    std::vector<u32> out;
    out.reserve(static_cast<std::size_t>(std::max<i64>(total - 1, 0)));
    for (i64 q = 0; q < n_ids; ++q) {
        tick_every(q);
        const i64 i = ids[q];
        if (q > 0) out.push_back(10);
        i64 a = i, b = -1;
        if (i >= n_uni) {
            a = first[i - n_uni];
            b = second[i - n_uni];
        }
        out.insert(out.end(), pool + tstart[a], pool + tstart[a] + tlen[a]);
        if (b >= 0) {
            out.push_back(32);
            out.insert(out.end(), pool + tstart[b], pool + tstart[b] + tlen[b]);
        }
    }
    return out;
}

// Sort the entries of CSR rows lo..hi-1 by key[column], in place (keys unique).
template <class I, class V>
inline void order_rows(const i64* indptr, I* indices, V* values, const i64* key, i64 lo,
                       i64 hi) {
    std::vector<std::pair<i64, std::pair<I, V>>> tmp;
    for (i64 r = lo; r < hi; ++r) {
        const i64 a = indptr[r], b = indptr[r + 1];
        if (b - a < 2) continue;
        tmp.clear();
        for (i64 k = a; k < b; ++k) tmp.push_back({key[indices[k]], {indices[k], values[k]}});
        std::sort(tmp.begin(), tmp.end(),
                  [](const auto& x, const auto& z) { return x.first < z.first; });
        for (i64 k = a; k < b; ++k) {
            indices[k] = tmp[static_cast<std::size_t>(k - a)].second.first;
            values[k] = tmp[static_cast<std::size_t>(k - a)].second.second;
        }
    }
}

}  // namespace nbk
