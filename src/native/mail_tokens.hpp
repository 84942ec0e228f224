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
    std::uint64_t v = 0, p = 1;
    for (std::int64_t i = start; i < end; ++i) {
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
