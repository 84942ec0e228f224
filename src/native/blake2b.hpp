// BLAKE2b (RFC 7693) with an 8-byte digest and no key: the hash by which a spam model
// file orders its tokens (nbayes.spam._table.token_hash, hashlib.blake2b(data,
// digest_size=8) read as a little-endian integer), so that the scorer finds a message's
// tokens without a Python hash object per token. tests/spam/test_scorer_counts.py compares
// it with hashlib.
//
// Plain C++ (no Python.h): bind_mail.cpp binds it to Python.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

namespace nbk_hash {

inline constexpr std::uint64_t kIv[8] = {
    0x6A09E667F3BCC908ULL, 0xBB67AE8584CAA73BULL, 0x3C6EF372FE94F82BULL,
    0xA54FF53A5F1D36F1ULL, 0x510E527FADE682D1ULL, 0x9B05688C2B3E6C1FULL,
    0x1F83D9ABFB41BD6BULL, 0x5BE0CD19137E2179ULL,
};

// RFC 7693's message schedule SIGMA: round r uses row r mod 10
inline constexpr std::uint8_t kSigma[10][16] = {
    {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15},
    {14, 10, 4, 8, 9, 15, 13, 6, 1, 12, 0, 2, 11, 7, 5, 3},
    {11, 8, 12, 0, 5, 2, 15, 13, 10, 14, 3, 6, 7, 1, 9, 4},
    {7, 9, 3, 1, 13, 12, 11, 14, 2, 6, 5, 10, 4, 0, 15, 8},
    {9, 0, 5, 7, 2, 4, 10, 15, 14, 1, 11, 12, 6, 8, 3, 13},
    {2, 12, 6, 10, 0, 11, 8, 3, 4, 13, 7, 5, 15, 14, 1, 9},
    {12, 5, 1, 15, 14, 13, 4, 10, 0, 7, 6, 3, 9, 2, 8, 11},
    {13, 11, 7, 14, 12, 1, 3, 9, 5, 0, 15, 4, 8, 6, 2, 10},
    {6, 15, 14, 9, 11, 3, 0, 8, 12, 2, 13, 7, 1, 4, 10, 5},
    {10, 2, 8, 4, 7, 6, 1, 5, 15, 11, 9, 14, 3, 12, 13, 0},
};

inline std::uint64_t rotr(std::uint64_t x, int n) { return (x >> n) | (x << (64 - n)); }

inline std::uint64_t load_le(const unsigned char* p) {
    std::uint64_t x = 0;
    for (int i = 7; i >= 0; --i) x = (x << 8) | p[i];
    return x;
}

// RFC 7693's F: one 128-byte block into the state `h`; `t` the bytes hashed so far (this
// block's included), `last` for the final block.
inline void compress(std::uint64_t h[8], const unsigned char block[128], std::uint64_t t,
                     bool last) {
    std::uint64_t v[16], m[16];
    for (int i = 0; i < 8; ++i) {
        v[i] = h[i];
        v[i + 8] = kIv[i];
    }
    v[12] ^= t;  // (the high 64 bits of the counter: a token is far shorter than 2^64 bytes)
    if (last) v[14] = ~v[14];
    for (int i = 0; i < 16; ++i) m[i] = load_le(block + 8 * i);
    auto g = [&v](int a, int b, int c, int d, std::uint64_t x, std::uint64_t y) {
        v[a] = v[a] + v[b] + x;
        v[d] = rotr(v[d] ^ v[a], 32);
        v[c] = v[c] + v[d];
        v[b] = rotr(v[b] ^ v[c], 24);
        v[a] = v[a] + v[b] + y;
        v[d] = rotr(v[d] ^ v[a], 16);
        v[c] = v[c] + v[d];
        v[b] = rotr(v[b] ^ v[c], 63);
    };
    for (int round = 0; round < 12; ++round) {
        const std::uint8_t* s = kSigma[round % 10];
        g(0, 4, 8, 12, m[s[0]], m[s[1]]);
        g(1, 5, 9, 13, m[s[2]], m[s[3]]);
        g(2, 6, 10, 14, m[s[4]], m[s[5]]);
        g(3, 7, 11, 15, m[s[6]], m[s[7]]);
        g(0, 5, 10, 15, m[s[8]], m[s[9]]);
        g(1, 6, 11, 12, m[s[10]], m[s[11]]);
        g(2, 7, 8, 13, m[s[12]], m[s[13]]);
        g(3, 4, 9, 14, m[s[14]], m[s[15]]);
    }
    for (int i = 0; i < 8; ++i) h[i] ^= v[i] ^ v[i + 8];
}

// int.from_bytes(hashlib.blake2b(data[0:n], digest_size=8).digest(), "little"): the first
// 8 bytes of the digest are the state's first word, little-endian.
inline std::uint64_t blake2b_64(const unsigned char* data, std::size_t n) {
    std::uint64_t h[8];
    for (int i = 0; i < 8; ++i) h[i] = kIv[i];
    h[0] ^= 0x01010000ULL ^ 8;  // parameter block: digest length 8, no key, fanout and depth 1
    std::uint64_t t = 0;
    while (n > 128) {
        t += 128;
        compress(h, data, t, false);
        data += 128;
        n -= 128;
    }
    unsigned char last[128] = {};
    if (n > 0) std::memcpy(last, data, n);
    t += n;
    compress(h, last, t, true);
    return h[0];
}

}  // namespace nbk_hash
