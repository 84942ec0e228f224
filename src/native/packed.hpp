// Packed vocabularies: terms as one array of UTF-8 bytes and n + 1 offsets (term i is
// bytes[off[i], off[i + 1])), as a model file stores them. Checked (offsets, UTF-8,
// duplicates), ordered and decoded here without a Python str per term; strings looked up
// in them (a batch's n-grams) by an exact hash index of the bytes or a binary search.
//
// "UTF-8" is Python's ``"utf-8"`` codec with the ``"surrogatepass"`` handler: strict
// UTF-8 (no overlong forms, nothing above U+10FFFF, no truncated sequences) except that
// the three-byte forms of U+D800..U+DFFF are accepted (a term of a Python str may hold a
// lone surrogate, and such a term is written so).
#pragma once

#include <algorithm>
#include <cstring>
#include <numeric>
#include <vector>

#include "common.hpp"

namespace nbk {

// The code point starting at p[i] (i < n) and its length in bytes, or 0 if the bytes
// there are not one (surrogates allowed, see above).
inline int utf8_step(const u8* p, i64 i, i64 n, u32& cp) {
    const u32 b0 = p[i];
    if (b0 < 0x80) {
        cp = b0;
        return 1;
    }
    int len;
    u32 lowest;
    if (b0 >= 0xC2 && b0 <= 0xDF) {
        len = 2;
        cp = b0 & 0x1F;
        lowest = 0x80;
    } else if (b0 >= 0xE0 && b0 <= 0xEF) {
        len = 3;
        cp = b0 & 0x0F;
        lowest = 0x800;
    } else if (b0 >= 0xF0 && b0 <= 0xF4) {
        len = 4;
        cp = b0 & 0x07;
        lowest = 0x10000;
    } else {
        return 0;
    }
    if (i + len > n) return 0;
    for (int k = 1; k < len; ++k) {
        const u32 b = p[i + k];
        if ((b & 0xC0) != 0x80) return 0;
        cp = (cp << 6) | (b & 0x3F);
    }
    if (cp < lowest || cp > 0x10FFFF) return 0;
    return len;
}

// Byte order of terms a and b (a shorter prefix first): code point order, the order of
// Python's str comparison.
inline int packed_cmp(const u8* d, const i64* off, i64 a, i64 b) {
    const i64 la = off[a + 1] - off[a], lb = off[b + 1] - off[b];
    const i64 m = std::min(la, lb);
    if (m > 0) {
        const int c = std::memcmp(d + off[a], d + off[b], static_cast<std::size_t>(m));
        if (c != 0) return c;
    }
    return la < lb ? -1 : (la > lb ? 1 : 0);
}

// cols (term indices) sorted by their terms, stably.
inline void packed_sort(const u8* d, const i64* off, std::vector<i64>& cols) {
    std::stable_sort(cols.begin(), cols.end(),
                     [&](i64 a, i64 b) { return packed_cmp(d, off, a, b) < 0; });
}

struct PackedCheck {
    int status = 0;  // 0 valid, 1 offsets, 2 UTF-8, 3 duplicate
    i64 at = -1;     // the offending term (1: the offending offset)
    i64 other = -1;  // 3: the earlier term it repeats
    bool sorted = true;
};

// The first of n_off offsets that does not cut n_bytes bytes into terms (offsets from 0,
// never decreasing, ending at n_bytes), or -1 if they all do.
inline i64 packed_bad_offset(i64 n_bytes, const i64* off, i64 n_off) {
    if (n_off < 1 || off[0] != 0) return 0;
    for (i64 i = 1; i < n_off; ++i)
        if (off[i] < off[i - 1] || off[i] > n_bytes) return i;
    return off[n_off - 1] != n_bytes ? n_off - 1 : -1;
}

// Whether d[from, to) is valid UTF-8 (surrogates allowed).
inline bool utf8_valid(const u8* d, i64 from, i64 to) {
    for (i64 p = from; p < to;) {
        u32 cp;
        const int L = utf8_step(d, p, to, cp);
        if (L == 0) return false;
        p += L;
    }
    return true;
}

// Whether n_off - 1 terms are well packed in n_bytes bytes: offsets from 0, never
// decreasing, ending at n_bytes; every term valid UTF-8; no term twice (strictly
// increasing terms are distinct; other orders are sorted to find repeats).
inline PackedCheck packed_check(const u8* d, i64 n_bytes, const i64* off, i64 n_off) {
    PackedCheck r;
    r.at = packed_bad_offset(n_bytes, off, n_off);
    if (r.at >= 0) {
        r.status = 1;
        return r;
    }
    const i64 n = n_off - 1;
    for (i64 t = 0; t < n; ++t) {
        if ((t & 4095) == 0) tick();
        if (!utf8_valid(d, off[t], off[t + 1])) {
            r.status = 2;
            r.at = t;
            return r;
        }
        if (t > 0 && r.sorted && packed_cmp(d, off, t - 1, t) >= 0) r.sorted = false;
    }
    if (r.sorted) return r;
    std::vector<i64> order(static_cast<std::size_t>(n));
    std::iota(order.begin(), order.end(), i64{0});
    packed_sort(d, off, order);
    for (std::size_t k = 1; k < order.size(); ++k) {
        if (packed_cmp(d, off, order[k - 1], order[k]) == 0) {
            r.status = 3;
            r.at = std::max(order[k - 1], order[k]);
            r.other = std::min(order[k - 1], order[k]);
            return r;
        }
    }
    return r;
}

// The code points of term t into cp (false if its bytes are not valid UTF-8).
inline bool packed_code_points(const u8* d, const i64* off, i64 t, std::vector<u32>& cp) {
    cp.clear();
    const i64 end = off[t + 1];
    for (i64 p = off[t]; p < end;) {
        u32 c;
        const int L = utf8_step(d, p, end, c);
        if (L == 0) return false;
        cp.push_back(c);
        p += L;
    }
    return true;
}

// ------------------------------------------------------------------------------------
// looking strings up: an exact hash index of the terms' bytes, a binary search
// ------------------------------------------------------------------------------------

// Hash of a term's UTF-8 bytes (8 at a time; the length seeds it, so zero padding of the
// last word cannot make two terms alike).
inline u64 bytes_hash(const u8* p, i64 n) {
    u64 h = mix(0x9E3779B97F4A7C15ull ^ static_cast<u64>(n));
    i64 i = 0;
    for (; i + 8 <= n; i += 8) h = mix2(h, load64(p + i));
    if (i < n) {
        u64 last = 0;
        std::memcpy(&last, p + i, static_cast<std::size_t>(n - i));
        h = mix2(h, last);
    }
    return h;
}

// Term t's bytes equal key[0, len)?
inline bool packed_equal(const u8* d, const i64* off, i64 t, const u8* key, i64 len) {
    return off[t + 1] - off[t] == len &&
           (len == 0 || std::memcmp(d + off[t], key, static_cast<std::size_t>(len)) == 0);
}

// The exact index of a packed vocabulary: open addressing with linear probing, at most
// 2/3 full; a slot is (the hash's high 32 bits) << 32 | (term + 1), 0 when empty, so
// 8 bytes a slot (~13 bytes a term) and the bytes are compared only when 32 bits of the
// hash agree. The terms stay where they are (the caller's arrays): the index is built
// from them and probed with them, and holds their number and size to tell them apart
// from others.
struct PackedIndex {
    ZBuf<u64> tab;
    i64 n_terms = 0;
    i64 n_bytes = 0;

    static constexpr u64 HI = ~LO32;

    // Term of the bytes key[0, len) with hash h, or -1.
    inline i64 find(const u8* d, const i64* off, const u8* key, i64 len, u64 h) const {
        const u64* tb = tab.data();
        const u64 mask = static_cast<u64>(tab.size() - 1);
        for (u64 j = h & mask;; j = (j + 1) & mask) {
            const u64 s = tb[j];
            if (s == 0) return -1;
            if ((s & HI) != (h & HI)) continue;
            const i64 t = static_cast<i64>(s & LO32) - 1;
            if (packed_equal(d, off, t, key, len)) return t;
        }
    }

    const u64* slot_of(u64 h) const { return tab.data() + (h & (tab.size() - 1)); }
};

// The index of the n terms of a packing (n < 2**32 - 1: the caller checks). A term that
// repeats (a checked packing has none) maps to its last index, as a dict made from the
// pairs (term, index) in order does.
inline PackedIndex packed_index(const u8* d, const i64* off, i64 n) {
    PackedIndex ix;
    ix.n_terms = n;
    ix.n_bytes = off[n];
    i64 n_slots = 16;
    while (n_slots < n + n / 2 + 1) n_slots *= 2;
    ix.tab.alloc(static_cast<std::size_t>(n_slots));
    u64* tb = ix.tab.data();
    const u64 mask = static_cast<u64>(n_slots - 1);
    std::vector<u64> hs(static_cast<std::size_t>(std::min<i64>(n, BLOCK)));
    for (i64 lo = 0; lo < n; lo += BLOCK) {  // hashed a block ahead: slots prefetched
        tick();
        const i64 hi = std::min(n, lo + BLOCK);
        for (i64 t = lo; t < hi; ++t)
            hs[static_cast<std::size_t>(t - lo)] = bytes_hash(d + off[t], off[t + 1] - off[t]);
        for (i64 t = lo; t < hi; ++t) {
            if (t + AHEAD < hi) prefetch(tb + (hs[static_cast<std::size_t>(t + AHEAD - lo)] & mask));
            const u64 h = hs[static_cast<std::size_t>(t - lo)];
            const i64 len = off[t + 1] - off[t];
            u64 j = h & mask;
            while (tb[j] != 0) {
                if ((tb[j] & PackedIndex::HI) == (h & PackedIndex::HI)) {
                    const i64 u = static_cast<i64>(tb[j] & LO32) - 1;
                    if (packed_equal(d, off, u, d + off[t], len)) break;  // a repeat: replaced
                }
                j = (j + 1) & mask;
            }
            tb[j] = (h & PackedIndex::HI) | static_cast<u64>(t + 1);
        }
    }
    return ix;
}

// The UTF-8 bytes of a str view as Python's "utf-8" codec with "surrogatepass" writes
// them (a packed vocabulary's encoding), appended to out.
inline void append_utf8(const StrView& v, std::vector<u8>& out) {
    for (i64 k = 0; k < v.n; ++k) {
        const u32 c = v.kind == 1 ? static_cast<const u8*>(v.data)[k]
                    : v.kind == 2 ? static_cast<const u16*>(v.data)[k]
                                  : static_cast<const u32*>(v.data)[k];
        u8 enc[4];
        out.insert(out.end(), enc, enc + utf8_encode(c, enc));
    }
}

// Whether a 1-byte str view is ASCII (its bytes are then its UTF-8).
inline bool view_ascii(const StrView& v) {
    if (v.kind != 1) return false;
    const u8* p = static_cast<const u8*>(v.data);
    u8 any = 0;
    for (i64 k = 0; k < v.n; ++k) any |= p[k];
    return any < 0x80;
}

// The UTF-8 of strings[lo, hi) (views of str objects): a pointer to each one's bytes (in
// place for ASCII, else in buf) and its length.
struct Utf8Block {
    std::vector<u8> buf;
    std::vector<const u8*> ptr;
    std::vector<i64> len;
    std::vector<i64> at;  // offset in buf, -1: in place

    template <class View>
    void fill(View&& view, i64 lo, i64 hi) {
        buf.clear();
        ptr.resize(static_cast<std::size_t>(hi - lo));
        len.resize(static_cast<std::size_t>(hi - lo));
        at.resize(static_cast<std::size_t>(hi - lo));
        for (i64 i = lo; i < hi; ++i) {
            const StrView v = view(i);
            const auto k = static_cast<std::size_t>(i - lo);
            if (view_ascii(v)) {
                ptr[k] = static_cast<const u8*>(v.data);
                len[k] = v.n;
                at[k] = -1;
            } else {
                at[k] = static_cast<i64>(buf.size());
                append_utf8(v, buf);
                len[k] = static_cast<i64>(buf.size()) - at[k];
            }
        }
        for (std::size_t k = 0; k < at.size(); ++k)
            if (at[k] >= 0) ptr[k] = buf.data() + at[k];
    }
};

constexpr i64 LOOKUP_BLOCK = 4096;

// The term of each of n strings (view(i): a StrView of string i) in the index ix of the
// packing (d, off), -1 for a string that is none, into out[0, n).
template <class View>
inline void packed_index_lookup(const PackedIndex& ix, const u8* d, const i64* off, View&& view,
                                i64 n, i64* out) {
    Utf8Block blk;
    std::vector<u64> h;
    for (i64 lo = 0; lo < n; lo += LOOKUP_BLOCK) {
        tick();
        const i64 hi = std::min(n, lo + LOOKUP_BLOCK);
        blk.fill(view, lo, hi);
        const i64 m = hi - lo;
        h.resize(static_cast<std::size_t>(m));
        for (i64 k = 0; k < m; ++k) h[static_cast<std::size_t>(k)] = bytes_hash(blk.ptr[static_cast<std::size_t>(k)], blk.len[static_cast<std::size_t>(k)]);
        for (i64 k = 0; k < m; ++k) {  // the home slots prefetched AHEAD strings ahead
            if (k + AHEAD < m) prefetch(ix.slot_of(h[static_cast<std::size_t>(k + AHEAD)]));
            const auto q = static_cast<std::size_t>(k);
            out[lo + k] = ix.find(d, off, blk.ptr[q], blk.len[q], h[q]);
        }
    }
}

// The index of the bytes key[0, len) among the n sorted (strictly increasing) terms of a
// packing, -1 if absent: a binary search (byte order is code point order).
inline i64 packed_bsearch(const u8* d, const i64* off, i64 n, const u8* key, i64 len) {
    i64 lo = 0, hi = n;
    while (lo < hi) {
        const i64 mid = lo + (hi - lo) / 2;
        const i64 lm = off[mid + 1] - off[mid];
        const i64 m = std::min(lm, len);
        int c = m > 0 ? std::memcmp(d + off[mid], key, static_cast<std::size_t>(m)) : 0;
        if (c == 0) c = lm < len ? -1 : (lm > len ? 1 : 0);
        if (c < 0)
            lo = mid + 1;
        else if (c > 0)
            hi = mid;
        else
            return mid;
    }
    return -1;
}

// packed_index_lookup by binary searches of the n sorted terms (no index: a few strings).
template <class View>
inline void packed_search_lookup(const u8* d, const i64* off, i64 n_terms, View&& view, i64 n,
                                 i64* out) {
    Utf8Block blk;
    for (i64 lo = 0; lo < n; lo += LOOKUP_BLOCK) {
        tick();
        const i64 hi = std::min(n, lo + LOOKUP_BLOCK);
        blk.fill(view, lo, hi);
        for (i64 k = 0; k < hi - lo; ++k) {
            const auto q = static_cast<std::size_t>(k);
            out[lo + k] = packed_bsearch(d, off, n_terms, blk.ptr[q], blk.len[q]);
        }
    }
}

}  // namespace nbk
