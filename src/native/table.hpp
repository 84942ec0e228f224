// The interning table of one counting worker ("run"): terms in an open-addressing table
// of 32-byte slots, their code points in a pool, counts per (term, class) id-major; and
// its growth. Counting into it is count.hpp.
//
// A slot is (w0, w1, meta, aux): meta = key bits << 32 | (id + 1), aux = (last document
// + 1) << 32 | document frequency.
#pragma once

#include <algorithm>

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
        if (static_cast<std::size_t>(cap) > SIZE_MAX / 8 / static_cast<std::size_t>(n_classes))
            throw std::bad_alloc();
        tab.alloc(static_cast<std::size_t>(2 * cap));
        // written before they are read: not zeroed
        pool.alloc_unset(static_cast<std::size_t>(8 * cap));
        tstart.alloc_unset(static_cast<std::size_t>(cap));
        tlen.alloc_unset(static_cast<std::size_t>(cap));
        if (small)
            c32.alloc(static_cast<std::size_t>(cap * n_classes));
        else
            c64.alloc(static_cast<std::size_t>(cap * n_classes));
    }

    // Terms the run has room for: every per-id array, and 2 slots per term.
    i64 capacity() const {
        i64 cap = static_cast<i64>(tab.size()) / 2;
        cap = std::min(cap, static_cast<i64>(tstart.size()));
        cap = std::min(cap, static_cast<i64>(tlen.size()));
        const i64 nc = n_classes > 0 ? n_classes : 1;
        return std::min(cap, static_cast<i64>(small ? c32.size() : c64.size()) / nc);
    }

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
    // The per-id arrays grow in place (realloc: a large block is remapped, not copied;
    // the code point and start/length arrays are written before they are read, so only
    // the counts are zeroed); the table is re-inserted into a fresh one, swapped in last.
    // A bad_alloc (or an interrupt) leaves a run that still works: capacity() is the
    // room every array has.
    void reserve(i64 expect) {
        const i64 cap = capacity();
        if (expect <= cap) return;
        i64 new_cap = cap > 0 ? cap : 1;
        while (new_cap < expect) new_cap *= 2;
        const auto nc = static_cast<std::size_t>(new_cap);
        if (nc > SIZE_MAX / 8 / static_cast<std::size_t>(n_classes)) throw std::bad_alloc();
        if (small)
            c32.extend(nc * static_cast<std::size_t>(n_classes), true);
        else
            c64.extend(nc * static_cast<std::size_t>(n_classes), true);
        tstart.extend(nc, false);
        tlen.extend(nc, false);
        if (2 * new_cap > static_cast<i64>(tab.size())) tab = rehashed(2 * new_cap);
    }
};

}  // namespace nbk
