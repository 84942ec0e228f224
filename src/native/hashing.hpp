// Hashed bag of words: scikit-learn's buckets computed in the scanner.
//
// A token's bucket is MurmurHash3 (x86, 32-bit, seed 0) of its UTF-8 bytes, as
// sklearn.utils.murmurhash3_32: column |h| % n_features (sign h >= 0). A word n-gram's
// is that of its tokens' bytes joined by one space, hashed from a window of the
// document's last tokens (NgramWindow). No term is ever interned.
#pragma once

#include <algorithm>

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

// Code point j of token k: from the words it is packed in (packed: up to 16 code points
// below 256), or from the text through t.
inline u32 tok_cp(const Tok& k, bool packed, i32 width, const u32* t, i64 j) {
    if (packed) {
        const u64 w = j < 8 ? k.w0 : k.w1;
        return static_cast<u32>((w >> (8 * (j & 7))) & 0xFF);
    }
    return src_cp(k.src, width, t, j);
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
        const int nbytes = utf8_encode(tok_cp(k, packed, width, t, j), enc);
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

// One (document d, column col) count into fc's row of d's class y[d], counted once per
// document when binary: aux[col] holds the last document + 1 that counted the column (high
// half) and the number of documents that did (low half, the document frequency). 1 if it
// was counted, else 0.
inline i64 count_cell(i64 d, i64 col, const i64* y, bool binary, double* fc, i64 stride, u64* aux) {
    const u64 d1 = static_cast<u64>(d + 1) << 32;
    const u64 a = aux[col];
    if ((a & ~LO32) != d1)
        aux[col] = d1 | ((a & LO32) + 1);
    else if (binary)
        return 0;
    fc[y[d] * stride + col] += 1.0;
    return 1;
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
            total += count_cell(kb.t[static_cast<std::size_t>(b)].doc, col, y, binary, fc, stride, aux);
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

// The UTF-8 bytes of a buffered token (code points through t) appended to out.
inline void put_utf8(const Tok& k, const u32* t, std::vector<u8>& out) {
    const i64 L = key_len(k.key);
    const bool packed = k.key < KEY_LONG;
    if (packed && ((k.w0 | k.w1) & HI8) == 0) {  // ASCII: the packed code points are the bytes
        const std::size_t at = out.size();
        out.resize(at + static_cast<std::size_t>(L));
        u8 w[16];
        std::memcpy(w, &k.w0, 8);  // little-endian, as the scanner packed them
        std::memcpy(w + 8, &k.w1, 8);
        std::memcpy(out.data() + at, w, static_cast<std::size_t>(L));
        return;
    }
    u8 enc[4];
    for (i64 j = 0; j < L; ++j) {
        const int n = utf8_encode(tok_cp(k, packed, k.width, t, j), enc);
        out.insert(out.end(), enc, enc + n);
    }
}

// The little-endian word of the 4 bytes at p.
inline u32 le32(const u8* p) {
    return static_cast<u32>(p[0]) | static_cast<u32>(p[1]) << 8 | static_cast<u32>(p[2]) << 16 |
           static_cast<u32>(p[3]) << 24;
}

// The word n-grams (min_n..max_n tokens, scikit-learn's _word_ngrams) of one document,
// hashed as scikit-learn hashes " ".join(tokens) without making the string: the kept
// tokens' UTF-8 bytes are written one after the other, each followed by one space, so
// the n-gram of tokens j..j+n-1 is the contiguous span from token j's first byte to token
// j+n-1's last. The n-grams that start at token j share their prefix: MurmurHash's
// 4-byte blocks are mixed once for the longest, and each shorter one is finished (tail,
// length) from the state reached at its end. Token j's n-grams are hashed as soon as
// max_n tokens from j are known (or the document ends); the bytes before the oldest
// token still needed are dropped, so memory is that of a window of max_n tokens.
struct NgramWindow {
    i64 min_n, max_n;
    std::vector<u8> bytes;
    std::vector<i64> start, end;  // token i: bytes[start[i], end[i])
    std::size_t head = 0;         // the first token whose n-grams are not hashed yet

    NgramWindow(i64 lo, i64 hi) : min_n(lo), max_n(hi) {}

    // The signed hashes of the n-grams that start at token j (of the avail tokens
    // known from j on), each handed to emit.
    template <class F>
    void hash_from(std::size_t j, i64 avail, F&& emit) const {
        const u8* p = bytes.data() + start[j];
        const i64 top = std::min(avail, max_n);
        u32 h = 0;
        i64 done = 0;
        for (i64 n = 1; n <= top; ++n) {
            const i64 L = end[j + static_cast<std::size_t>(n - 1)] - start[j];
            for (; done + 4 <= L; done += 4) h = murmur_block(h, le32(p + done));
            if (n < min_n) continue;
            u32 hn = h;
            const i64 rem = L - done;
            if (rem > 0) {
                u32 k = p[done];
                if (rem > 1) k |= static_cast<u32>(p[done + 1]) << 8;
                if (rem > 2) k |= static_cast<u32>(p[done + 2]) << 16;
                hn = murmur_tail(hn, k);
            }
            emit(murmur_final(hn, static_cast<u64>(L)));
        }
    }

    // Add a kept token of the document (code points through t).
    template <class F>
    void push(const Tok& k, const u32* t, F&& emit) {
        start.push_back(static_cast<i64>(bytes.size()));
        put_utf8(k, t, bytes);
        end.push_back(static_cast<i64>(bytes.size()));
        bytes.push_back(0x20);
        if (static_cast<i64>(start.size() - head) < max_n) return;
        hash_from(head, max_n, emit);
        ++head;
        if (start[head] >= (i64{1} << 16)) drop();
    }

    // The document ended: hash the n-grams of its last tokens, and start afresh.
    template <class F>
    void finish(F&& emit) {
        const std::size_t n = start.size();
        for (std::size_t j = head; j < n; ++j) hash_from(j, static_cast<i64>(n - j), emit);
        bytes.clear();
        start.clear();
        end.clear();
        head = 0;
    }

    // Forget the tokens before head (their n-grams are hashed).
    void drop() {
        const i64 off = start[head];
        bytes.erase(bytes.begin(), bytes.begin() + off);
        start.erase(start.begin(), start.begin() + static_cast<std::ptrdiff_t>(head));
        end.erase(end.begin(), end.begin() + static_cast<std::ptrdiff_t>(head));
        for (std::size_t i = 0; i < start.size(); ++i) {
            start[i] -= off;
            end[i] -= off;
        }
        head = 0;
    }
};

// hash_run of word n-grams (min_n..max_n tokens, stop words left out before the n-grams
// are formed): every n-gram of a document adds 1 to fc[y[d] * stride + column] (clipped
// per (document, column) when binary), aux as hash_run's. The columns of a block are
// gathered first, then added with prefetching. Returns the number of n-grams counted.
inline i64 hash_ngram_run(const DocSet& ds, const i64* y, const u32* tlow, const u32* tid,
                          bool binary, i64 n_features, double* fc, i64 stride, u64* aux,
                          const Lookup* stop, i64 min_n, i64 max_n) {
    KeyBuf kb(BLOCK);
    NgramWindow win(min_n, max_n);
    std::vector<i64> bcol, bdoc;
    // (room for a block of tokens' n-grams of up to 8 lengths; a wider range, say (1, 10**6)
    // of short documents, grows it as needed: reserving BLOCK times the width was a
    // MemoryError, and overflowed for a huge max_n)
    bcol.reserve(static_cast<std::size_t>(BLOCK * std::min<i64>(max_n - min_n + 1, 8)));
    bdoc.reserve(bcol.capacity());
    const i64 n_docs = static_cast<i64>(ds.views.size());
    i64 total = 0;
    i64 cur[2] = {0, 0};
    i64 doc = -1;  // the document in the window
    auto emit = [&](i64 s) {
        bcol.push_back(hash_column(s, n_features));
        bdoc.push_back(doc);
    };
    auto add = [&]() {
        const i64 n = static_cast<i64>(bcol.size());
        for (i64 b = 0; b < n; ++b) {
            if (b + AHEAD < n) {
                const i64 ca = bcol[static_cast<std::size_t>(b + AHEAD)];
                prefetch(aux + ca);
                prefetch(fc + y[bdoc[static_cast<std::size_t>(b + AHEAD)]] * stride + ca);
            }
            total += count_cell(bdoc[static_cast<std::size_t>(b)], bcol[static_cast<std::size_t>(b)], y,
                                binary, fc, stride, aux);
        }
        bcol.clear();
        bdoc.clear();
    };
    while (true) {
        tick();
        const i64 nb = fill_block(ds, n_docs, tlow, tid, cur, kb);
        for (i64 b = 0; b < nb; ++b) {
            const Tok& k = kb.t[static_cast<std::size_t>(b)];
            const u32* tb = k.low ? tlow : tid;
            if (k.doc != doc) {
                win.finish(emit);
                doc = k.doc;
            }
            if (stop != nullptr && stop->find(k, k.width, tb) >= 0) continue;
            win.push(k, tb, emit);
        }
        if (nb == 0) win.finish(emit);
        add();
        if (nb == 0) break;
    }
    return total;
}

// hash_transform_run of word n-grams (min_n..max_n tokens, stop words left out before the
// n-grams are formed).
inline Csr hash_ngram_transform_run(const DocSet& ds, i64 lo, i64 hi, const u32* tlow,
                                    const u32* tid, i64 n_features, bool alternate,
                                    const Lookup* stop, i64 min_n, i64 max_n) {
    NgramWindow win(min_n, max_n);
    auto on_block = [&](const KeyBuf& kb, i64 nb, i32 width, const u32* t, auto& row) {
        i64 added = 0;
        auto emit = [&](i64 s) {
            added += row.mark(hash_column(s, n_features), (alternate && s < 0) ? -1 : 1);
        };
        for (i64 b = 0; b < nb; ++b) {
            const Tok& k = kb.t[static_cast<std::size_t>(b)];
            if (stop != nullptr && stop->find(k, width, t) >= 0) continue;
            win.push(k, t, emit);
        }
        return added;
    };
    auto on_end = [&](auto& row) {
        i64 added = 0;
        win.finish([&](i64 s) {
            added += row.mark(hash_column(s, n_features), (alternate && s < 0) ? -1 : 1);
        });
        return added;
    };
    return n_features > DENSE_ROW_MAX
               ? doc_rows<RowPairs>(ds, lo, hi, tlow, tid, n_features, on_block, on_end)
               : doc_rows<RowBits>(ds, lo, hi, tlow, tid, n_features, on_block, on_end);
}

}  // namespace nbk
