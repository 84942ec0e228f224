// Hashed bag of words: scikit-learn's buckets computed in the scanner.
//
// A token's bucket is MurmurHash3 (x86, 32-bit, seed 0) of its UTF-8 bytes, as
// sklearn.utils.murmurhash3_32: column |h| % n_features (sign h >= 0). No term is ever
// interned.
#pragma once

#include "common.hpp"
#include "lookup.hpp"
#include "scan.hpp"

namespace nbk {

inline u32 rotl32(u32 x, int r) { return (x << r) | (x >> (32 - r)); }

inline u32 murmur_block(u32 h, u32 k) {
    k *= 0xCC9E2D51u;
    k = rotl32(k, 15);
    k *= 0x1B873593u;
    h ^= k;
    h = rotl32(h, 13);
    return h * 5u + 0xE6546B64u;
}

inline u32 murmur_tail(u32 h, u32 k) {
    k *= 0xCC9E2D51u;
    k = rotl32(k, 15);
    k *= 0x1B873593u;
    return h ^ k;
}

// MurmurHash3's finalisation, as a signed 32-bit value.
inline i64 murmur_final(u32 h, u64 n_bytes) {
    h ^= static_cast<u32>(n_bytes);
    h ^= h >> 16;
    h *= 0x85EBCA6Bu;
    h ^= h >> 13;
    h *= 0xC2B2AE35u;
    h ^= h >> 16;
    return static_cast<i64>(static_cast<i32>(h));
}

// scikit-learn's murmurhash3_32(token, seed=0) of one buffered token.
inline i64 murmur_token(const Tok& k, i32 width, const u32* t) {
    const i64 L = key_len(k.key);
    const bool packed = k.key < KEY_LONG;
    u32 h = 0;
    if (packed && ((k.w0 | k.w1) & HI8) == 0) {  // ASCII: the packed code points are the bytes
        i64 q = 0;
        while (q + 4 <= L) {
            const u64 w = q < 8 ? k.w0 : k.w1;
            h = murmur_block(h, static_cast<u32>((w >> (8 * (q & 7))) & LO32));
            q += 4;
        }
        if (q < L) {
            const u64 w = q < 8 ? k.w0 : k.w1;
            const u64 v = (w >> (8 * (q & 7))) & ((1ull << (8 * (L - q))) - 1);
            h = murmur_tail(h, static_cast<u32>(v));
        }
        return murmur_final(h, static_cast<u64>(L));
    }
    u32 acc = 0;
    int nacc = 0;
    u64 n_bytes = 0;
    u8 enc[4];
    for (i64 j = 0; j < L; ++j) {
        u32 cp;
        if (packed) {
            const u64 w = j < 8 ? k.w0 : k.w1;
            cp = static_cast<u32>((w >> (8 * (j & 7))) & 0xFF);
        } else {
            cp = src_cp(k.src, width, t, j);
        }
        int nbytes;
        if (cp < 0x80) {
            nbytes = 1;
            enc[0] = static_cast<u8>(cp);
        } else if (cp < 0x800) {
            nbytes = 2;
            enc[0] = static_cast<u8>(0xC0 | (cp >> 6));
            enc[1] = static_cast<u8>(0x80 | (cp & 0x3F));
        } else if (cp < 0x10000) {
            nbytes = 3;
            enc[0] = static_cast<u8>(0xE0 | (cp >> 12));
            enc[1] = static_cast<u8>(0x80 | ((cp >> 6) & 0x3F));
            enc[2] = static_cast<u8>(0x80 | (cp & 0x3F));
        } else {
            nbytes = 4;
            enc[0] = static_cast<u8>(0xF0 | (cp >> 18));
            enc[1] = static_cast<u8>(0x80 | ((cp >> 12) & 0x3F));
            enc[2] = static_cast<u8>(0x80 | ((cp >> 6) & 0x3F));
            enc[3] = static_cast<u8>(0x80 | (cp & 0x3F));
        }
        for (int q = 0; q < nbytes; ++q) {
            acc |= static_cast<u32>(enc[q]) << (8 * nacc);
            if (++nacc == 4) {
                h = murmur_block(h, acc);
                acc = 0;
                nacc = 0;
            }
        }
        n_bytes += static_cast<u64>(nbytes);
    }
    if (nacc > 0) h = murmur_tail(h, acc);
    return murmur_final(h, n_bytes);
}

// scikit-learn's column of a signed hash: abs(h) % n_features (2**31 for -2**31).
inline i64 hash_column(i64 s, i64 n_features) {
    if (s == -(i64{1} << 31)) return ((i64{1} << 31) - 1 - (n_features - 1)) % n_features;
    return (s >= 0 ? s : -s) % n_features;
}

// Add the hashed unigram counts of every document into fc[y[d] * stride + column] in
// place; tokens found in the stop-word table (when given) are skipped. aux[column]
// (zeros on the first call) = (last document + 1) << 32 | document frequency: counts are
// clipped per (document, column) when binary. The columns of a block of tokens are
// computed first, then added with prefetching. Returns the number of tokens counted.
inline i64 hash_run(const DocSet& ds, const i64* y, const u32* tlow, const u32* tid,
                    bool binary, i64 n_features, double* fc, i64 stride, u64* aux,
                    const Lookup* stop) {
    KeyBuf kb(BLOCK);
    std::vector<i64> bcol(static_cast<std::size_t>(BLOCK));
    const i64 n_docs = static_cast<i64>(ds.views.size());
    i64 total = 0;
    i64 cur[2] = {0, 0};
    while (true) {
        tick();
        const i64 nb = fill_block(ds, n_docs, tlow, tid, cur, kb);
        if (nb == 0) break;
        for (i64 b = 0; b < nb; ++b) {
            const Tok& k = kb.t[static_cast<std::size_t>(b)];
            const u32* tb = k.low ? tlow : tid;
            if (stop != nullptr && stop->find(k, k.width, tb) >= 0) {
                bcol[static_cast<std::size_t>(b)] = -1;
                continue;
            }
            bcol[static_cast<std::size_t>(b)] = hash_column(murmur_token(k, k.width, tb), n_features);
        }
        for (i64 b = 0; b < nb; ++b) {
            if (b + AHEAD < nb && bcol[static_cast<std::size_t>(b + AHEAD)] >= 0) {
                const i64 ca = bcol[static_cast<std::size_t>(b + AHEAD)];
                prefetch(aux + ca);
                prefetch(fc + y[kb.t[static_cast<std::size_t>(b + AHEAD)].doc] * stride + ca);
            }
            const i64 col = bcol[static_cast<std::size_t>(b)];
            if (col < 0) continue;
            const i64 d = kb.t[static_cast<std::size_t>(b)].doc;
            const u64 d1 = static_cast<u64>(d + 1) << 32;
            const u64 a = aux[col];
            if ((a & ~LO32) != d1)
                aux[col] = d1 | ((a & LO32) + 1);
            else if (binary)
                continue;
            fc[y[d] * stride + col] += 1.0;
            ++total;
        }
    }
    return total;
}

// CSR rows of documents lo..hi-1 as scikit-learn's FeatureHasher makes them: every
// token adds sign(h) (or 1) to column |h| % n_features, sums are kept even when they
// cancel to 0, and the indices of a row are sorted.
inline Csr hash_transform_run(const DocSet& ds, i64 lo, i64 hi, const u32* tlow,
                              const u32* tid, i64 n_features, bool alternate,
                              const Lookup* stop) {
    auto on_block = [&](const KeyBuf& kb, i64 nb, i32 width, const u32* t, auto& row) {
        i64 added = 0;
        for (i64 b = 0; b < nb; ++b) {
            const Tok& k = kb.t[static_cast<std::size_t>(b)];
            if (stop != nullptr && stop->find(k, width, t) >= 0) continue;
            const i64 s = murmur_token(k, width, t);
            added += row.mark(hash_column(s, n_features), (alternate && s < 0) ? -1 : 1);
        }
        return added;
    };
    return n_features > DENSE_ROW_MAX
               ? doc_rows<RowPairs>(ds, lo, hi, tlow, tid, n_features, on_block)
               : doc_rows<RowBits>(ds, lo, hi, tlow, tid, n_features, on_block);
}

}  // namespace nbk
