// Scanning: documents -> tokens in a key buffer.
//
// A token is a maximal run of two or more word characters (scikit-learn's
// ``(?u)\b\w\w+\b``); which code points are word characters, and what each lowercases
// to, comes from a character table built from Python's own ``re`` and ``str.lower``
// (see nbayes/text/_tokenize.py: char_table), so the scanner agrees with them by
// construction.
#pragma once

#include "common.hpp"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace nbk {

// (hash, key) of a token of k <= 16 code points below U+0100 packed in w0, w1.
inline void short_key(u64 w0, u64 w1, i64 k, u64& h, u64& key) {
    h = mix2(w0 ^ (w1 * 0xC2B2AE3D27D4EB4Full), static_cast<u64>(k));
    key = static_cast<u64>(k) << 32;
}

// (hash, key) of any other token p[s:i] (code points through t): FNV-1a.
template <class T>
inline void long_key(const T* p, const u32* t, i64 s, i64 i, u64& h, u64& key) {
    u64 x = 0xCBF29CE484222325ull;
    for (i64 j = s; j < i; ++j) x = (x ^ static_cast<u64>(t[p[j]] & CPM)) * 0x100000001B3ull;
    const u64 k = static_cast<u64>(i - s);
    if (k > MAX_TOKEN) throw TokenTooLong{};
    h = mix2(x, k);
    key = (k | (1ull << 31)) << 32;
}

inline void put_token(KeyBuf& kb, i64 b, u64 w0, u64 w1, u64 key, u64 h, const void* src,
                      i64 d, i32 width) {
    Tok& t = kb.t.data()[b];
    t.w0 = w0;
    t.w1 = w1;
    t.key = key;
    t.h = h;
    t.src = src;
    t.doc = d;
    t.width = width;
    t.low = kb.low;
    kb.chars += key_len(key);
}

// Tokenize p[pos:n] into the key buffer from slot nb. Returns the position reached
// (< n when the buffer filled up first). Any code unit width (2- and 4-byte strings, and
// the uint32 term blobs).
template <class T>
inline i64 scan_into(const T* p, i64 n, i64 pos, const u32* t, i64 d, KeyBuf& kb, i64& nb) {
    const i64 cap = kb.cap;
    i64 i = pos;
    while (i < n) {
        u32 e = t[p[i]];
        if (e < WORD) {
            ++i;
            continue;
        }
        const i64 s = i;
        u64 w0 = 0, w1 = 0;
        u32 big = 0;
        i64 k = 0;
        while (true) {
            const u32 c = e & CPM;
            big |= c;
            if (k < 8)
                w0 |= static_cast<u64>(c) << (8 * k);
            else if (k < 16)
                w1 |= static_cast<u64>(c) << (8 * (k - 8));
            ++k;
            ++i;
            if (i >= n) break;
            e = t[p[i]];
            if (e < WORD) break;
        }
        if (k < 2) continue;
        u64 h, key;
        if (big >= 256 || k > 16)
            long_key(p, t, s, i, h, key);
        else
            short_key(w0, w1, k, h, key);
        put_token(kb, nb, w0, w1, key, h, p + s, d, static_cast<i32>(sizeof(T)));
        ++nb;
        if (nb == cap) return i;
    }
    return i;
}

constexpr u64 HI8 = 0x8080808080808080ull;
constexpr u64 ONES = 0x0101010101010101ull;

// High bit of every byte of x (all bytes < 0x80) that lies in [lo, hi].
inline u64 between(u64 x, u64 lo, u64 hi) {
    const u64 ge = x + ONES * (0x80 - lo);
    const u64 le = ONES * (0x80 + hi) - x;
    return ge & le & HI8;
}

// High bit of every byte of the 8 bytes v (at p) that is a word character.
inline u64 word_bits(u64 v, const u8* p, const u32* t) {
    if (v & HI8) {
        u64 m = 0;
        for (int j = 0; j < 8; ++j)
            if (t[p[j]] >= WORD) m |= 0x80ull << (8 * j);
        return m;
    }
    const u64 x = v | (ONES * 0x20);
    return between(x, 0x61, 0x7A) | between(v, 0x30, 0x39) | between(v, 0x5F, 0x5F);
}

// ASCII bytes v with A-Z lowered.
inline u64 lower8(u64 v) { return v | (between(v, 0x41, 0x5A) >> 2); }

// Bit j of the result: p[j] (j < len <= 64) is a word character. Blocks of 16 ASCII
// bytes are classified with SSE2 (x86-64's baseline) or 8 at a time with bit tricks; a
// block holding a byte >= 0x80 asks the table.
inline u64 word_mask(const u8* p, i64 len, const u32* t) {
    u64 m = 0;
    i64 j = 0;
#if defined(__SSE2__)
    for (; j + 16 <= len; j += 16) {
        const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + j));
        u32 w;
        if (_mm_movemask_epi8(v) == 0) {
            const __m128i low = _mm_or_si128(v, _mm_set1_epi8(0x20));
            const __m128i alpha = _mm_and_si128(_mm_cmpgt_epi8(low, _mm_set1_epi8('a' - 1)),
                                                _mm_cmplt_epi8(low, _mm_set1_epi8('z' + 1)));
            const __m128i digit = _mm_and_si128(_mm_cmpgt_epi8(v, _mm_set1_epi8('0' - 1)),
                                                _mm_cmplt_epi8(v, _mm_set1_epi8('9' + 1)));
            const __m128i under = _mm_cmpeq_epi8(v, _mm_set1_epi8('_'));
            w = static_cast<u32>(_mm_movemask_epi8(_mm_or_si128(_mm_or_si128(alpha, digit), under)));
        } else {
            w = 0;
            for (int q = 0; q < 16; ++q)
                if (t[p[j + q]] >= WORD) w |= 1u << q;
        }
        m |= static_cast<u64>(w) << j;
    }
#endif
    for (; j + 8 <= len; j += 8) {
        const u64 b = word_bits(load64(p + j), p + j, t);  // high bit of each word byte
        // gather the 8 high bits into 8 consecutive bits
        m |= (((b >> 7) * 0x0102040810204080ull) >> 56) << j;
    }
    for (; j < len; ++j)
        if (t[p[j]] >= WORD) m |= 1ull << j;
    return m;
}

// scan_into for 1-byte strings (code points < U+0100): token boundaries come from
// 64-character word masks (bit scans instead of a test per character), and tokens of at
// most 16 ASCII characters are packed straight from two 64-bit loads. Loads never reach
// past the string's end.
inline i64 scan_latin1(const u8* p, i64 n, i64 pos, const u32* t, i64 d, KeyBuf& kb,
                       i64& nb) {
    const i64 cap = kb.cap;
    const bool low = (t[0x41] & CPM) == 0x61;
    i64 i = pos;
    i64 base = -1;  // the window [base, base + 64) whose mask is m
    u64 m = 0;
    auto window = [&](i64 at) {
        base = at;
        m = word_mask(p + at, n - at < 64 ? n - at : 64, t);
    };
    while (i < n) {
        // -- the next token start at or after i
        if (base < 0 || i >= base + 64) window(i);
        u64 from = m & (~0ull << (i - base));
        while (from == 0) {
            if (base + 64 >= n) return n;
            window(base + 64);
            from = m;
        }
        const i64 s = base + low_bit(from);
        // -- its end: the first non-word character after s
        u64 rest = ~m & (s - base == 63 ? 0 : (~0ull << (s - base + 1)));
        while (rest == 0 && base + 64 < n) {
            window(base + 64);
            rest = ~m;
        }
        i = rest == 0 ? n : base + low_bit(rest);
        if (i > n) i = n;
        const i64 k = i - s;
        if (k < 2) continue;
        u64 h, key, w0 = 0, w1 = 0;
        if (k > 16) {
            long_key(p, t, s, i, h, key);
            for (int j = 0; j < 8; ++j) {
                w0 |= static_cast<u64>(t[p[s + j]] & CPM) << (8 * j);
                w1 |= static_cast<u64>(t[p[s + 8 + j]] & CPM) << (8 * j);
            }
        } else {
            bool slow = true;
            if (s + 16 <= n) {
                u64 v0 = load64(p + s);
                u64 v1 = load64(p + s + 8);
                if (((v0 | v1) & HI8) == 0) {
                    slow = false;
                    if (low) {
                        v0 = lower8(v0);
                        v1 = lower8(v1);
                    }
                    if (k < 8) {
                        w0 = v0 & ((1ull << (8 * k)) - 1);
                    } else {
                        w0 = v0;
                        w1 = k < 16 ? (v1 & ((1ull << (8 * (k - 8))) - 1)) : v1;
                    }
                }
            }
            if (slow) {
                const i64 a = k < 8 ? k : 8;
                for (i64 j = 0; j < a; ++j) w0 |= static_cast<u64>(t[p[s + j]] & CPM) << (8 * j);
                for (i64 j = 8; j < k; ++j)
                    w1 |= static_cast<u64>(t[p[s + j]] & CPM) << (8 * (j - 8));
            }
            short_key(w0, w1, k, h, key);
        }
        put_token(kb, nb, w0, w1, key, h, p + s, d, 1);
        ++nb;
        if (nb == cap) return i;
    }
    return i;
}

// Scan one string from pos into the buffer from slot nb; returns the position reached.
inline i64 scan_view(const StrView& v, const u32* t, i64 pos, i64 d, KeyBuf& kb, i64& nb) {
    if (v.n == 0) return 0;
    if (v.kind == 1) return scan_latin1(static_cast<const u8*>(v.data), v.n, pos, t, d, kb, nb);
    if (v.kind == 2) return scan_into(static_cast<const u16*>(v.data), v.n, pos, t, d, kb, nb);
    return scan_into(static_cast<const u32*>(v.data), v.n, pos, t, d, kb, nb);
}

// Tokenize documents from cur = {document, position} (up to hi) into the key buffer
// until it is full or the documents end; cur moves on. Returns the number of buffered
// tokens (0: done); each carries its width and whether it was read through tlow.
inline i64 fill_block(const DocSet& ds, i64 hi, const u32* tlow, const u32* tid, i64 cur[2],
                      KeyBuf& kb) {
    i64 nb = 0;
    kb.chars = 0;
    while (cur[0] < hi && nb < kb.cap) {
        const i64 d = cur[0];
        const StrView& v = ds.views[static_cast<std::size_t>(d)];
        const i32 low = ds.nolow[static_cast<std::size_t>(d)] ? 0 : 1;
        const u32* t = low ? tlow : tid;
        kb.low = low;  // the scanners stamp each token with it and with its width
        i64 pos = cur[1];
        if (v.n > 0) pos = scan_view(v, t, pos, d, kb, nb);
        if (pos >= v.n) {
            cur[0] = d + 1;
            cur[1] = 0;
        } else {
            cur[1] = pos;
        }
    }
    return nb;
}

}  // namespace nbk
