// The spam filter's body words: a lower-cased text split on white space as Python's
// str.split() splits it, words of min..max code points kept in order (for the words and
// their bigrams), longer ones set apart (the tokenizer summarises them).
//
// Plain C++ (no Python.h): bind_mail.cpp binds it to Python.
#pragma once

#include <cstdint>
#include <vector>

namespace nbk_mail {

struct Span {
    std::int64_t start;
    std::int64_t end;
    std::uint32_t maxchar;  // the largest code point in the word
};

// Python's str.isspace(): ASCII \t \n \v \f \r, 0x1c..0x1f and space, and the Unicode
// white space characters (categories Zs, Zl, Zp and bidirectional classes WS, B, S).
constexpr bool is_space(std::uint32_t c) {
    if (c < 128) return c == ' ' || (c >= 0x09 && c <= 0x0d) || (c >= 0x1c && c <= 0x1f);
    if (c < 0x85) return false;
    return c == 0x85 || c == 0xa0 || c == 0x1680 || (c >= 0x2000 && c <= 0x200a) ||
           c == 0x2028 || c == 0x2029 || c == 0x202f || c == 0x205f || c == 0x3000;
}

// is_space of each of the 256 code points of a 1-byte text, looked up (most text is)
struct SpaceTable {
    bool space[256];
    constexpr SpaceTable() : space{} {
        for (std::uint32_t c = 0; c < 256; ++c) space[c] = is_space(c);
    }
};
inline constexpr SpaceTable kSpaces{};

template <class C>
inline bool is_space_of(C c) {
    if constexpr (sizeof(C) == 1) return kSpaces.space[static_cast<std::uint8_t>(c)];
    else return is_space(c);
}

// Splits s[0:n] into words; those of lo..hi code points go to `kept`, longer ones to
// `longs` (in text order); shorter ones are dropped.
template <class C>
void split_words(const C* s, std::int64_t n, std::int64_t lo, std::int64_t hi,
                 std::vector<Span>& kept, std::vector<Span>& longs) {
    std::int64_t i = 0;
    while (i < n) {
        while (i < n && is_space_of(s[i])) ++i;
        if (i >= n) break;
        std::int64_t start = i;
        std::uint32_t top = 0;
        while (i < n && !is_space_of(s[i])) {
            if (static_cast<std::uint32_t>(s[i]) > top) top = s[i];
            ++i;
        }
        std::int64_t len = i - start;
        if (len < lo) continue;
        (len <= hi ? kept : longs).push_back(Span{start, i, top});
    }
}

}  // namespace nbk_mail
