// A spam filter's tokens packed: their UTF-8 bytes one after the other and n + 1 offsets
// (token r is bytes[off[r], off[r + 1]): packed.hpp's packing, as a model file stores the
// tokens), with the token -> row index (mail_index.hpp's HashIndex on mail_tokens.hpp's
// code point hash, so that a body word is looked up from its text, without a str). A
// slot's key is its token's byte offset and length, so a hit is confirmed by comparing
// the code points of the token looked up with the bytes there (no Python object per
// token: ~20 bytes a token for the offsets, the slots and the hashes, plus its bytes, in
// place of ~150 for a str, its dict entry and a list's pointer).
//
// Plain C++ (no Python.h): bind_mail.cpp binds it to Python (nbayes._mail_native.TokenStore).
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <vector>

#include "mail_index.hpp"
#include "mail_tokens.hpp"
#include "packed.hpp"

namespace nbk_mail {

// The code point hash (mail_tokens.hpp's ref_hash) of the token of UTF-8 bytes p[0, n);
// false if they are not UTF-8 (surrogates allowed: packed.hpp).
inline bool utf8_hash(const std::uint8_t* p, std::int64_t n, std::uint64_t& h) {
    std::uint64_t v = 0;  // (one code point a step: the same polynomial as span_hash's)
    std::int64_t count = 0;
    for (std::int64_t i = 0; i < n; ++count) {
        std::uint32_t c = p[i];
        if (c < 0x80) {
            ++i;
        } else {
            const int len = nbk::utf8_step(p, i, n, c);
            if (len == 0) return false;
            i += len;
        }
        v = v * kBase + c;
    }
    h = finish_hash(v, count);
    return true;
}

// Reads UTF-8 bytes p[i, n) against code points, one at a time.
struct Utf8Cursor {
    const std::uint8_t* p;
    std::int64_t i, n;

    bool take(std::uint32_t c) {
        if (c < 0x80) {
            if (i >= n || p[i] != c) return false;
            ++i;
            return true;
        }
        std::uint8_t enc[4];
        const int len = nbk::utf8_encode(c, enc);
        if (i + len > n || std::memcmp(p + i, enc, static_cast<std::size_t>(len)) != 0) return false;
        i += len;
        return true;
    }

    template <class C>
    bool span(const C* s, std::int64_t a, std::int64_t b) {
        for (std::int64_t k = a; k < b; ++k)
            if (!take(static_cast<std::uint32_t>(s[k]))) return false;
        return true;
    }

    bool span(int kind, const void* d, std::int64_t a, std::int64_t b) {
        if (kind == 1) return span(static_cast<const std::uint8_t*>(d), a, b);
        if (kind == 2) return span(static_cast<const std::uint16_t*>(d), a, b);
        return span(static_cast<const std::uint32_t*>(d), a, b);
    }
};

// Whether the bytes p[0, n) are all ASCII (eight at a time).
inline bool all_ascii(const std::uint8_t* p, std::int64_t n) {
    std::uint64_t any = 0;
    std::int64_t k = 0;
    for (; k + 8 <= n; k += 8) {
        std::uint64_t w;
        std::memcpy(&w, p + k, 8);
        any |= w;
    }
    for (; k < n; ++k) any |= p[k];
    return (any & 0x8080808080808080ull) == 0;
}

// Whether the UTF-8 bytes p[0, n) are the code points of `r`.
inline bool same_utf8(const std::uint8_t* p, std::int64_t n, const TokenRef& r) {
    const std::int64_t m = r.size();
    if (m > n) return false;  // (a code point is at least a byte)
    if (r.kind == 1 && m == n) {
        // as many bytes as code points: equal only if the bytes are ASCII and the same
        const auto* d = static_cast<const std::uint8_t*>(r.data);
        if (r.b0 < 0)
            return std::memcmp(p, d + r.a0, static_cast<std::size_t>(n)) == 0 && all_ascii(p, n);
        const std::int64_t la = r.a1 - r.a0, lb = r.b1 - r.b0;  // (a bigram of a 1-byte text)
        return p[0] == 'b' && p[1] == 'i' && p[2] == ':' && p[3 + la] == ' ' &&
               std::memcmp(p + 3, d + r.a0, static_cast<std::size_t>(la)) == 0 &&
               std::memcmp(p + 4 + la, d + r.b0, static_cast<std::size_t>(lb)) == 0 &&
               all_ascii(p, n);
    }
    Utf8Cursor c{p, 0, n};
    if (r.b0 < 0) return c.span(r.kind, r.data, r.a0, r.a1) && c.i == n;
    return c.take('b') && c.take('i') && c.take(':') && c.span(r.kind, r.data, r.a0, r.a1) &&
           c.take(' ') && c.span(r.kind, r.data, r.b0, r.b1) && c.i == n;
}

class PackedTokens {
  public:
    using Index = HashIndex<std::uint64_t>;
    // a key: the byte offset << kLenBits | the length (kLenMask: read it from the offsets)
    static constexpr unsigned kLenBits = 24;
    static constexpr std::uint64_t kLenMask = (std::uint64_t{1} << kLenBits) - 1;

    PackedTokens() : offsets_(1, 0) {}

    std::size_t rows() const { return offsets_.size() - 1; }
    const std::vector<std::uint8_t>& bytes() const { return bytes_; }
    const std::vector<std::int64_t>& offsets() const { return offsets_; }
    const Index& index() const { return index_; }
    std::uint64_t hash_of(std::size_t row) const { return index_.hash_of(row); }

    const std::uint8_t* key_bytes(std::uint64_t key) const {
        return bytes_.data() + (key >> kLenBits);
    }
    std::int64_t key_length(std::uint64_t key, std::uint32_t row) const {
        const std::uint64_t n = key & kLenMask;
        return n != kLenMask ? static_cast<std::int64_t>(n) : offsets_[row + 1] - offsets_[row];
    }
    // The slot `s` holds the token `r`.
    bool same(const Index::Slot& s, const TokenRef& r) const {
        return same_utf8(key_bytes(s.key), key_length(s.key, s.row), r);
    }
    // The slot `s` holds the token of UTF-8 bytes p[0, n).
    bool same(const Index::Slot& s, const std::uint8_t* p, std::int64_t n) const {
        return key_length(s.key, s.row) == n &&
               (n == 0 || std::memcmp(key_bytes(s.key), p, static_cast<std::size_t>(n)) == 0);
    }

    // The row of the token `r` (hash h), or -1.
    std::int64_t find(const TokenRef& r, std::uint64_t h) const { return find_if(h, r); }
    // The row of the token of UTF-8 bytes p[0, n) (hash h), or -1.
    std::int64_t find(const std::uint8_t* p, std::int64_t n, std::uint64_t h) const {
        return find_if(h, p, n);
    }

    // Appends the token of UTF-8 bytes p[0, n) (code point hash h) as the next row (no
    // check that it is new: find first). Strong guarantee; std::length_error past the
    // rows an index holds.
    void append(const std::uint8_t* p, std::int64_t n, std::uint64_t h) {
        if (rows() + 1 >= Index::kMostRows) throw std::length_error("too many tokens");
        const auto at = static_cast<std::uint64_t>(bytes_.size());
        bytes_.insert(bytes_.end(), p, p + n);
        try {
            offsets_.push_back(static_cast<std::int64_t>(at) + n);
            try {
                index_.insert(h, (at << kLenBits) | std::min(static_cast<std::uint64_t>(n), kLenMask));
            } catch (...) {
                offsets_.pop_back();
                throw;
            }
        } catch (...) {
            bytes_.resize(at);
            throw;
        }
    }

    // Room for `rows` more rows of `bytes` more bytes.
    void reserve(std::size_t more_rows, std::size_t more_bytes) {
        bytes_.reserve(bytes_.size() + more_bytes);
        offsets_.reserve(offsets_.size() + more_rows);
        index_.reserve(more_rows);
    }

    // Drops the rows from `n` on (those a failed update added).
    void truncate(std::size_t n) noexcept {  // (shrinking only: no allocation)
        if (n >= rows()) return;
        bytes_.resize(static_cast<std::size_t>(offsets_[n]));
        offsets_.resize(n + 1);
        index_.truncate(n);
    }

    // The tokens packed in d (n_bytes) at off (n_off = n + 1) appended: 0 if done, else
    // nothing changed and 1 (the offsets do not cut the bytes: `at` the offset), 2 (token
    // `at` is not UTF-8) or 3 (token `at` repeats token `other`), as packed_check says.
    int extend(const std::uint8_t* d, std::int64_t n_bytes, const std::int64_t* off,
               std::int64_t n_off, std::int64_t& at, std::int64_t& other) {
        at = nbk::packed_bad_offset(n_bytes, off, n_off);
        if (at >= 0) return 1;
        const std::size_t first = rows();
        const std::int64_t n = n_off - 1;
        reserve(static_cast<std::size_t>(n), static_cast<std::size_t>(n_bytes));
        for (std::int64_t t = 0; t < n; ++t) {
            const std::uint8_t* p = d + off[t];
            const std::int64_t len = off[t + 1] - off[t];
            std::uint64_t h;
            if (!utf8_hash(p, len, h)) {
                truncate(first);
                at = t;
                return 2;
            }
            const std::int64_t seen = find(p, len, h);
            if (seen >= 0) {
                truncate(first);
                at = t;
                other = seen - static_cast<std::int64_t>(first);
                return 3;
            }
            append(p, len, h);
        }
        return 0;
    }

  private:
    std::vector<std::uint8_t> bytes_;
    std::vector<std::int64_t> offsets_;
    Index index_;

    template <class... Token>
    std::int64_t find_if(std::uint64_t h, const Token&... token) const {
        if (index_.empty()) return -1;
        for (std::size_t pos = index_.home(h);; pos = index_.next(pos)) {
            const Index::Slot& s = index_.slot(pos);
            if (s.row == Index::kEmpty) return -1;
            if (s.tag == Index::tag(h) && same(s, token...)) return s.row;
        }
    }
};

}  // namespace nbk_mail
