// The counting table of one worker ("run"): tokens interned in an open-addressing table,
// counts per (term, class) kept id-major, document frequencies kept in the slots.
//
// A slot is (w0, w1, meta, aux): meta = key bits << 32 | (id + 1), aux = (last document
// + 1) << 32 | document frequency. Tokenizing a block of text into a key buffer, then
// probing the buffered keys in a tight loop, lets the CPU overlap the cache misses of
// independent probes (the slots of later tokens are prefetched).
#pragma once

#include "common.hpp"
#include "scan.hpp"

namespace nbk {

struct Slot {
    u64 w0, w1, meta, aux;
};

// Hash of a stored key (equal to the one the scanners compute).
inline u64 key_hash(u64 w0, u64 w1, u64 key, const u32* pool, i64 p) {
    const i64 L = key_len(key);
    u64 h, k;
    if (key < KEY_LONG) {
        short_key(w0, w1, L, h, k);
        return h;
    }
    u64 x = 0xCBF29CE484222325ull;
    for (i64 j = 0; j < L; ++j) x = (x ^ static_cast<u64>(pool[p + j])) * 0x100000001B3ull;
    return mix2(x, static_cast<u64>(L));
}

struct Run {
    ZBuf<Slot> tab;  // power-of-two slots, >= 2 per term of capacity
    ZBuf<u32> pool;  // code points of the terms
    ZBuf<i64> tstart, tlen;  // per id; size = capacity in terms
    ZBuf<i32> c32;   // counts[id * n_classes + c] (int32 when small)
    ZBuf<i64> c64;
    i64 n_terms = 0, pool_used = 0, n_classes = 1;
    bool small = true;

    Run(i64 classes, bool small_counts, i64 expect) : n_classes(classes), small(small_counts) {
        i64 cap = 1024;
        while (cap < expect) cap *= 2;
        tab.alloc(static_cast<std::size_t>(2 * cap));
        pool.alloc(static_cast<std::size_t>(8 * cap));
        tstart.alloc(static_cast<std::size_t>(cap));
        tlen.alloc(static_cast<std::size_t>(cap));
        if (small)
            c32.alloc(static_cast<std::size_t>(cap * n_classes));
        else
            c64.alloc(static_cast<std::size_t>(cap * n_classes));
    }

    i64 capacity() const { return static_cast<i64>(tstart.size()); }

    void retable(i64 n_slots) {
        ZBuf<Slot> fresh(static_cast<std::size_t>(n_slots));
        const u64 mask = static_cast<u64>(n_slots - 1);
        for (std::size_t q = 0; q < tab.size(); ++q) {
            tick_every(static_cast<i64>(q));
            const Slot& s = tab[q];
            if (s.meta == 0) continue;
            const i64 t = static_cast<i64>(s.meta & LO32) - 1;
            u64 j = key_hash(s.w0, s.w1, s.meta, pool.data(), tstart[static_cast<std::size_t>(t)]) & mask;
            while (fresh[j].meta != 0) j = (j + 1) & mask;
            fresh[j] = s;
        }
        tab = std::move(fresh);
    }

    // Room for ``expect`` terms (one re-insertion now instead of several doublings).
    void reserve(i64 expect) {
        const i64 cap = capacity();
        if (expect <= cap) return;
        i64 new_cap = cap;
        while (new_cap < expect) new_cap *= 2;
        tstart.grow(static_cast<std::size_t>(new_cap));
        tlen.grow(static_cast<std::size_t>(new_cap));
        if (small)
            c32.grow(static_cast<std::size_t>(new_cap * n_classes));
        else
            c64.grow(static_cast<std::size_t>(new_cap * n_classes));
        if (2 * new_cap > static_cast<i64>(tab.size())) retable(2 * new_cap);
    }
};

// Intern and count the buffered tokens; the caller guarantees room for nb new terms and
// their code points. Pass 1 resolves ids (prefetching the slots of later tokens), pass 2
// counts (prefetching count rows).
template <class C>
inline void probe_block(i64 nb, const KeyBuf& kb, i64* bid, const u32* tlow, const u32* tid,
                        Run& r, C* counts, const i64* y, bool binary) {
    Slot* tab = r.tab.data();
    const u64 mask = static_cast<u64>(r.tab.size() - 1);
    i64 n_terms = r.n_terms;
    i64 pool_used = r.pool_used;
    u32* pool = r.pool.data();
    i64* tstart = r.tstart.data();
    i64* tlen = r.tlen.data();
    const i64 nc = r.n_classes;
    const Tok* bt = kb.t.data();
    for (i64 b = 0; b < nb; ++b) {
        if (b + AHEAD < nb) prefetch(tab + (bt[b + AHEAD].h & mask));
        const Tok& k = bt[b];
        u64 j = k.h & mask;
        i64 term = -1;
        while (true) {
            const u64 m = tab[j].meta;
            if (m == 0) break;
            if ((m >> 32) == (k.key >> 32) && tab[j].w0 == k.w0 && tab[j].w1 == k.w1) {
                const i64 cand = static_cast<i64>(m & LO32) - 1;
                if (k.key < KEY_LONG) {
                    term = cand;
                    break;
                }
                const u32* t = k.low ? tlow : tid;
                const i64 p = tstart[cand];
                const i64 L = tlen[cand];
                bool same = true;
                for (i64 q = 0; q < L; ++q) {
                    if (pool[p + q] != src_cp(k.src, k.width, t, q)) {
                        same = false;
                        break;
                    }
                }
                if (same) {
                    term = cand;
                    break;
                }
            }
            j = (j + 1) & mask;
        }
        if (term == -1) {
            term = n_terms;
            const i64 L = key_len(k.key);
            const u32* t = k.low ? tlow : tid;
            for (i64 q = 0; q < L; ++q) pool[pool_used + q] = src_cp(k.src, k.width, t, q);
            tstart[term] = pool_used;
            tlen[term] = L;
            pool_used += L;
            tab[j].w0 = k.w0;
            tab[j].w1 = k.w1;
            tab[j].meta = k.key | static_cast<u64>(term + 1);
            tab[j].aux = 0;
            ++n_terms;
        }
        const u64 d1 = static_cast<u64>(k.doc + 1) << 32;
        const u64 aux = tab[j].aux;
        if ((aux & ~LO32) != d1) {
            tab[j].aux = d1 | ((aux & LO32) + 1);
            bid[b] = term;
        } else {
            bid[b] = binary ? -1 : term;
        }
    }
    for (i64 b = 0; b < nb; ++b) {
        if (b + AHEAD < nb && bid[b + AHEAD] >= 0)
            prefetch(counts + bid[b + AHEAD] * nc + y[bt[b + AHEAD].doc]);
        const i64 term = bid[b];
        if (term >= 0) counts[term * nc + y[bt[b].doc]] += 1;
    }
    r.n_terms = n_terms;
    r.pool_used = pool_used;
}

// Intern and count the tokens of documents lo..hi-1 into the run. Counts are id-major
// (ids in first-occurrence order within the run); document frequencies are kept in the
// table slots (see run_df).
inline void count_run(const DocSet& ds, i64 lo, i64 hi, const i64* y, const u32* tlow,
                      const u32* tid, bool binary, Run& r) {
    KeyBuf kb(BLOCK);
    std::vector<i64> bid(static_cast<std::size_t>(BLOCK));
    i64 cur[2] = {lo, 0};
    while (true) {
        tick();
        const i64 nb = fill_block(ds, hi, tlow, tid, cur, kb);
        if (nb == 0) break;
        const i64 need_terms = r.n_terms + nb;
        if (need_terms > r.capacity()) r.reserve(need_terms);  // keeps 2 slots per term
        i64 need_pool = r.pool_used;
        for (i64 b = 0; b < nb; ++b) need_pool += key_len(kb.t[static_cast<std::size_t>(b)].key);
        if (need_pool > static_cast<i64>(r.pool.size())) {
            i64 size = static_cast<i64>(r.pool.size());
            if (size < 64) size = 64;
            while (size < need_pool) size *= 2;
            r.pool.grow(static_cast<std::size_t>(size));
        }
        if (r.small)
            probe_block(nb, kb, bid.data(), tlow, tid, r, r.c32.data(), y, binary);
        else
            probe_block(nb, kb, bid.data(), tlow, tid, r, r.c64.data(), y, binary);
    }
}

// Document frequency of every id of a run (kept in the table slots).
inline std::vector<i64> run_df(const Run& r) {
    std::vector<i64> df(static_cast<std::size_t>(r.n_terms), 0);
    for (std::size_t q = 0; q < r.tab.size(); ++q) {
        tick_every(static_cast<i64>(q));
        const Slot& s = r.tab[q];
        if (s.meta != 0) df[static_cast<std::size_t>((s.meta & LO32) - 1)] = static_cast<i64>(s.aux & LO32);
    }
    return df;
}

}  // namespace nbk
