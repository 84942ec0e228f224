// The interning table of one counting worker ("run"): terms in an open-addressing table
// of 32-byte slots, their code points in a pool, counts per (term, class) id-major; and
// its growth. Counting into it is count.hpp.
//
// A slot is (w0, w1, meta, aux): meta = key bits << 32 | (id + 1), aux = (last document
// + 1) << 32 | document frequency.
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

    // The slots re-inserted into a table of n_slots (allocated first: on bad_alloc the
    // run is unchanged).
    ZBuf<Slot> rehashed(i64 n_slots) const {
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
        return fresh;
    }

    // Room for ``expect`` terms (one re-insertion now instead of several doublings).
    // Every new buffer is made before any is swapped in: a bad_alloc (or an interrupt)
    // leaves the run as it was.
    void reserve(i64 expect) {
        const i64 cap = capacity();
        if (expect <= cap) return;
        i64 new_cap = cap;
        while (new_cap < expect) new_cap *= 2;
        const auto nc = static_cast<std::size_t>(new_cap);
        ZBuf<i64> ns = tstart.grown(nc), nl = tlen.grown(nc);
        ZBuf<i32> n32;
        ZBuf<i64> n64;
        if (small)
            n32 = c32.grown(nc * static_cast<std::size_t>(n_classes));
        else
            n64 = c64.grown(nc * static_cast<std::size_t>(n_classes));
        ZBuf<Slot> ntab;
        const bool more_slots = 2 * new_cap > static_cast<i64>(tab.size());
        if (more_slots) ntab = rehashed(2 * new_cap);
        tstart = std::move(ns);
        tlen = std::move(nl);
        if (small)
            c32 = std::move(n32);
        else
            c64 = std::move(n64);
        if (more_slots) tab = std::move(ntab);
    }
};

}  // namespace nbk
