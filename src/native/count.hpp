// Counting: documents -> per-(term, class) counts and document frequencies in a run's
// table (table.hpp).
//
// Tokenizing a block of text into a key buffer, then probing the buffered keys in a tight
// loop, lets the CPU overlap the cache misses of independent probes (the slots of later
// tokens are prefetched).
#pragma once

#include "common.hpp"
#include "scan.hpp"
#include "table.hpp"

namespace nbk {

// Prefetch distance of the probes, in tokens: one token in five is a rare term whose slot
// and count row are cache misses; 64 tokens ahead keeps about a dozen of them in flight.
constexpr i64 PROBE_AHEAD = 64;

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
        if (b + PROBE_AHEAD < nb) prefetch(tab + (bt[b + PROBE_AHEAD].h & mask));
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
                auto cp = [&](i64 q) { return src_cp(k.src, k.width, t, q); };
                if (same_code_points(pool, tstart[cand], tlen[cand], cp)) {
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
        // first time in this document: one more document for the term (branch-free: the
        // test is a coin toss the predictor loses)
        const u64 d1 = static_cast<u64>(k.doc + 1) << 32;
        const u64 aux = tab[j].aux;
        const bool first = (aux & ~LO32) != d1;
        tab[j].aux = d1 | ((aux & LO32) + static_cast<u64>(first));
        bid[b] = (first || !binary) ? term : -1;
    }
    for (i64 b = 0; b < nb; ++b) {
        if (b + PROBE_AHEAD < nb && bid[b + PROBE_AHEAD] >= 0)
            prefetch(counts + bid[b + PROBE_AHEAD] * nc + y[bt[b + PROBE_AHEAD].doc]);
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
        const i64 need_pool = r.pool_used + kb.chars;  // if every token were new
        if (need_pool > static_cast<i64>(r.pool.size())) {
            i64 size = static_cast<i64>(r.pool.size());
            if (size < 64) size = 64;
            while (size < need_pool) size *= 2;
            r.pool.extend(static_cast<std::size_t>(size), false);  // written before read
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
