// Packed vocabularies: terms as one array of UTF-8 bytes and n + 1 offsets (term i is
// bytes[off[i], off[i + 1])), as a model file stores them. Checked (offsets, UTF-8,
// duplicates), ordered and decoded here without a Python str per term.
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

// Whether n_off - 1 terms are well packed in n_bytes bytes: offsets from 0, never
// decreasing, ending at n_bytes; every term valid UTF-8; no term twice (strictly
// increasing terms are distinct; other orders are sorted to find repeats).
inline PackedCheck packed_check(const u8* d, i64 n_bytes, const i64* off, i64 n_off) {
    PackedCheck r;
    if (n_off < 1 || off[0] != 0) {
        r.status = 1;
        r.at = 0;
        return r;
    }
    for (i64 i = 1; i < n_off; ++i) {
        if (off[i] < off[i - 1] || off[i] > n_bytes) {
            r.status = 1;
            r.at = i;
            return r;
        }
    }
    if (off[n_off - 1] != n_bytes) {
        r.status = 1;
        r.at = n_off - 1;
        return r;
    }
    const i64 n = n_off - 1;
    for (i64 t = 0; t < n; ++t) {
        if ((t & 4095) == 0) tick();
        const i64 end = off[t + 1];
        for (i64 p = off[t]; p < end;) {
            u32 cp;
            const int L = utf8_step(d, p, end, cp);
            if (L == 0) {
                r.status = 2;
                r.at = t;
                return r;
            }
            p += L;
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

}  // namespace nbk
