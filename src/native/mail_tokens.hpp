// A spam filter's token as code points wherever they are: a whole string, one word of a
// message's body text, or the bigram "bi:" + word + " " + next word made of two spans of
// it. The bulk path looks the body's words and bigrams up in the token index straight from
// the text (no Python string per word), so every token is hashed and compared by its code
// points, whatever the storage width (1, 2 or 4 bytes) of the string holding it: a word of
// a 2-byte text equals the 1-byte key of the same characters.
//
// The hash is polynomial in the code points (h = h * B + c, modulo 2^64), so a bigram's
// hash is composed from its words' hashes without reading them again, then finished by a
// mixer (splitmix64's) mixing in the length. Collisions cost a comparison, never a wrong
// row: the index and the per-message set compare the code points on a hash match.
//
// Plain C++ (no Python.h): bind_mail.cpp binds it to Python.
#pragma once

#include <cstdint>
#include <cstring>

namespace nbk_mail {

constexpr std::uint64_t kBase = 0x100000001b3ull;

inline std::uint64_t finish_hash(std::uint64_t h, std::int64_t len) {
    std::uint64_t z = h ^ (static_cast<std::uint64_t>(len) * 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

// Code point i of text `data` of storage width `kind` (1, 2 or 4 bytes).
inline std::uint32_t code_point(int kind, const void* data, std::int64_t i) {
    if (kind == 1) return static_cast<const std::uint8_t*>(data)[i];
    if (kind == 2) return static_cast<const std::uint16_t*>(data)[i];
    return static_cast<const std::uint32_t*>(data)[i];
}

// The unfinished hash of data[start:end] and B**(end - start).
template <class C>
inline void span_hash(const C* s, std::int64_t start, std::int64_t end, std::uint64_t& h,
                      std::uint64_t& power) {
    // two code points a step (the same polynomial: h * B^2 + (c0 * B + c1)), so that the
    // chain of multiplications is half as long
    constexpr std::uint64_t kBase2 = kBase * kBase;
    std::uint64_t v = 0, p = 1;
    std::int64_t i = start;
    for (; i + 1 < end; i += 2) {
        v = v * kBase2 + (static_cast<std::uint32_t>(s[i]) * kBase + static_cast<std::uint32_t>(s[i + 1]));
        p *= kBase2;
    }
    if (i < end) {
        v = v * kBase + static_cast<std::uint32_t>(s[i]);
        p *= kBase;
    }
    h = v;
    power = p;
}

inline void span_hash(int kind, const void* data, std::int64_t start, std::int64_t end,
                      std::uint64_t& h, std::uint64_t& power) {
    if (kind == 1) span_hash(static_cast<const std::uint8_t*>(data), start, end, h, power);
    else if (kind == 2) span_hash(static_cast<const std::uint16_t*>(data), start, end, h, power);
    else span_hash(static_cast<const std::uint32_t*>(data), start, end, h, power);
}

// One token's code points: data[a0:a1] (a whole string or a word), or, when b0 >= 0, the
// bigram "bi:" + data[a0:a1] + " " + data[b0:b1].
struct TokenRef {
    const void* data;
    int kind;
    std::int64_t a0, a1, b0, b1;
    void* obj;  // the Python string it is (bind_mail.cpp), or nullptr for a span of a text

    std::int64_t size() const { return b0 < 0 ? a1 - a0 : 4 + (a1 - a0) + (b1 - b0); }

    std::uint32_t at(std::int64_t i) const {
        if (b0 < 0) return code_point(kind, data, a0 + i);
        if (i < 3) return static_cast<std::uint32_t>("bi:"[i]);
        i -= 3;
        std::int64_t la = a1 - a0;
        if (i < la) return code_point(kind, data, a0 + i);
        if (i == la) return ' ';
        return code_point(kind, data, b0 + i - la - 1);
    }
};

// The finished hash of a bigram of two words of unfinished hashes ha, hb (hb of B**lb).
inline std::uint64_t bigram_hash(std::uint64_t ha, std::uint64_t pa, std::uint64_t hb,
                                 std::uint64_t pb, std::int64_t len) {
    std::uint64_t h = ('b' * kBase + 'i') * kBase + ':';
    h = (h * pa + ha) * kBase + ' ';
    return finish_hash(h * pb + hb, len);
}

inline std::uint64_t ref_hash(const TokenRef& r) {
    std::uint64_t ha, pa;
    span_hash(r.kind, r.data, r.a0, r.a1, ha, pa);
    if (r.b0 < 0) return finish_hash(ha, r.a1 - r.a0);
    std::uint64_t hb, pb;
    span_hash(r.kind, r.data, r.b0, r.b1, hb, pb);
    return bigram_hash(ha, pa, hb, pb, r.size());
}

// Same code points.
inline bool same_tokens(const TokenRef& a, const TokenRef& b) {
    std::int64_t n = a.size();
    if (n != b.size()) return false;
    for (std::int64_t i = 0; i < n; ++i)
        if (a.at(i) != b.at(i)) return false;
    return true;
}

// data_a[a:a+n] and data_b[b:b+n] hold the same code points (storage widths ka, kb).
template <class A, class B>
inline bool same_span(const A* x, const B* y, std::int64_t n) {
    for (std::int64_t i = 0; i < n; ++i)
        if (static_cast<std::uint32_t>(x[i]) != static_cast<std::uint32_t>(y[i])) return false;
    return true;
}

template <class A>
inline bool same_span(const A* x, int kb, const void* db, std::int64_t n) {
    if (kb == 1) return same_span(x, static_cast<const std::uint8_t*>(db), n);
    if (kb == 2) return same_span(x, static_cast<const std::uint16_t*>(db), n);
    return same_span(x, static_cast<const std::uint32_t*>(db), n);
}

inline bool same_span(int ka, const void* da, std::int64_t a, int kb, const void* db,
                      std::int64_t b, std::int64_t n) {
    if (ka == kb) return std::memcmp(static_cast<const char*>(da) + a * ka,
                                     static_cast<const char*>(db) + b * kb,
                                     static_cast<std::size_t>(n) * ka) == 0;
    const void* y = static_cast<const char*>(db) + b * kb;
    if (ka == 1) return same_span(static_cast<const std::uint8_t*>(da) + a, kb, y, n);
    if (ka == 2) return same_span(static_cast<const std::uint16_t*>(da) + a, kb, y, n);
    return same_span(static_cast<const std::uint32_t*>(da) + a, kb, y, n);
}

// same_tokens of a whole string `key` (b0 < 0) and `r`, a span at a time.
inline bool same_key_tokens(const TokenRef& key, const TokenRef& r) {
    std::int64_t n = r.size();
    if (key.a1 - key.a0 != n) return false;
    if (r.b0 < 0) return same_span(key.kind, key.data, key.a0, r.kind, r.data, r.a0, n);
    std::int64_t la = r.a1 - r.a0;
    std::int64_t k = key.a0;
    return key.at(0) == 'b' && key.at(1) == 'i' && key.at(2) == ':' &&
           same_span(key.kind, key.data, k + 3, r.kind, r.data, r.a0, la) &&
           key.at(3 + la) == ' ' &&
           same_span(key.kind, key.data, k + 4 + la, r.kind, r.data, r.b0, r.b1 - r.b0);
}

// same_tokens where `b` is a word or bigram of a text and `a` one of the same text's too or
// a whole string (obj set).
inline bool same_text_tokens(const TokenRef& a, const TokenRef& b) {
    if (a.obj != nullptr) return same_key_tokens(a, b);
    if (a.size() != b.size()) return false;
    if ((a.b0 < 0) != (b.b0 < 0)) return same_tokens(a, b);
    if (a.b0 < 0) return same_span(a.kind, a.data, a.a0, b.kind, b.data, b.a0, a.a1 - a.a0);
    return a.a1 - a.a0 == b.a1 - b.a0 &&
           same_span(a.kind, a.data, a.a0, b.kind, b.data, b.a0, a.a1 - a.a0) &&
           same_span(a.kind, a.data, a.b0, b.kind, b.data, b.b0, a.b1 - a.b0);
}

// <0, 0, >0 as the code point sequences compare (Python's order of str).
inline int compare_tokens(const TokenRef& a, const TokenRef& b) {
    std::int64_t na = a.size(), nb = b.size();
    std::int64_t n = na < nb ? na : nb;
    for (std::int64_t i = 0; i < n; ++i) {
        std::uint32_t x = a.at(i), y = b.at(i);
        if (x != y) return x < y ? -1 : 1;
    }
    return na < nb ? -1 : (na > nb ? 1 : 0);
}

}  // namespace nbk_mail
