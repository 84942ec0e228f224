// Shared definitions of the nbayes text kernels: integer types, the per-token key
// buffer, hashing mixers, prefetch, and cooperative interruption.
//
// The kernel headers are plain C++ (no Python.h): module.cpp binds them to Python, and
// a fuzz or sanitizer harness can call them directly.
#pragma once

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <vector>

#if defined(__linux__)
#include <sys/mman.h>
#endif

namespace nbk {

using u8 = std::uint8_t;
using u16 = std::uint16_t;
using u32 = std::uint32_t;
using u64 = std::uint64_t;
using i8 = std::int8_t;
using i32 = std::int32_t;
using i64 = std::int64_t;

// A character-table entry: the (lowercased) code point | WORD if it is a word character.
constexpr u32 WORD = 1u << 31;
constexpr u32 CPM = 0x1FFFFF;
constexpr i64 MAX_CP = 0x110000;
constexpr i64 BLOCK = 4096;  // tokens scanned before they are probed ("blocked")
constexpr i64 AHEAD = 32;    // prefetch distance in tokens
constexpr u64 LO32 = 0xFFFFFFFFull;
constexpr u64 KEY_LONG = 1ull << 63;        // key flag: compare code points in the pool
constexpr u64 MAX_TOKEN = 0x7FFFFFFFull;    // lengths are kept in 31 bits

// Raised by a kernel that stops because the caller asked it to (Ctrl-C).
struct Interrupted {};

// A token longer than MAX_TOKEN code points cannot be stored.
struct TokenTooLong {};

// Set by the binding when the user interrupts; every kernel polls it once per block.
inline std::atomic<bool> g_cancel{false};

// Polled by long-running kernels: the shared cancel flag on every tick, and ``check``
// (the binding's signal check, main thread only; it takes the GIL) at most once per
// CHECK_EVERY of wall time. A kernel ticks about every 10-300 microseconds of work; the
// clock is read every 4th tick (a read costs ~20 ns, more on a machine without a TSC
// clock source). Counting ticks instead of time let a kernel with slow ticks (a radix
// pass over millions of terms) go half a second without looking at Ctrl-C.
struct Poll {
    static constexpr std::chrono::milliseconds CHECK_EVERY{5};
    int (*check)() = nullptr;
    unsigned n = 0;
    std::chrono::steady_clock::time_point next{};
    inline void tick() {
        if (g_cancel.load(std::memory_order_relaxed)) throw Interrupted{};
        if (check == nullptr || (++n & 3u) != 0) return;
        const auto now = std::chrono::steady_clock::now();
        if (now < next) return;
        next = now + CHECK_EVERY;
        if (check() != 0) throw Interrupted{};
    }
};

// The poll of the kernel running on this thread (set by the binding around each call).
inline thread_local Poll* tl_poll = nullptr;

inline void tick() {
    if (tl_poll != nullptr) tl_poll->tick();
}

// tick() once every 2**14 calls: for loops whose steps take nanoseconds.
inline void tick_every(i64 i) {
    if ((i & 0x3FFF) == 0) tick();
}

// tick() once every 2**10 calls: for loops that write at random into large arrays. Where
// memory is lent lazily (a virtual machine), the first write to a page can cost ~10 us,
// and 2**14 such steps went half a second without a look at Ctrl-C.
inline void tick_every_scattered(i64 i) {
    if ((i & 0x3FF) == 0) tick();
}

// The UTF-8 bytes of code point cp (a surrogate too, as "surrogatepass" writes it) in
// out[0..n), and n (1 to 4).
inline int utf8_encode(u32 cp, u8* out) {
    if (cp < 0x80) {
        out[0] = static_cast<u8>(cp);
        return 1;
    }
    if (cp < 0x800) {
        out[0] = static_cast<u8>(0xC0 | (cp >> 6));
        out[1] = static_cast<u8>(0x80 | (cp & 0x3F));
        return 2;
    }
    if (cp < 0x10000) {
        out[0] = static_cast<u8>(0xE0 | (cp >> 12));
        out[1] = static_cast<u8>(0x80 | ((cp >> 6) & 0x3F));
        out[2] = static_cast<u8>(0x80 | (cp & 0x3F));
        return 3;
    }
    out[0] = static_cast<u8>(0xF0 | (cp >> 18));
    out[1] = static_cast<u8>(0x80 | ((cp >> 12) & 0x3F));
    out[2] = static_cast<u8>(0x80 | ((cp >> 6) & 0x3F));
    out[3] = static_cast<u8>(0x80 | (cp & 0x3F));
    return 4;
}

inline void prefetch(const void* p) { __builtin_prefetch(p, 0, 3); }

inline int low_bit(u64 x) { return __builtin_ctzll(x); }

inline u64 load64(const void* p) {
    u64 v;
    std::memcpy(&v, p, 8);
    return v;
}

inline u64 mix(u64 h) {
    h ^= h >> 33;
    h *= 0xFF51AFD7ED558CCDull;
    h ^= h >> 33;
    return h;
}

inline u64 mix2(u64 a, u64 b) {
    u64 h = a * 0x9E3779B97F4A7C15ull + b;
    h ^= h >> 32;
    h *= 0xD6E8FEB86659FD93ull;
    h ^= h >> 32;
    h *= 0xD6E8FEB86659FD93ull;
    h ^= h >> 32;
    return h;
}

inline i64 key_len(u64 key) { return static_cast<i64>((key >> 32) & MAX_TOKEN); }

// One scanned token. ``key`` = (long flag << 31 | length) << 32; a token of at most 16
// code points below U+0100 is packed exactly into ``w0, w1`` (its key *is* the token);
// any other is compared code point by code point from ``src`` (its first code unit,
// ``width`` bytes each) read through the character table (``low``: the lowering one).
struct Tok {
    u64 w0, w1, key, h;
    const void* src;
    i64 doc;
    i32 width;
    i32 low;
};

// A fixed-capacity buffer of scanned tokens.
struct KeyBuf {
    std::vector<Tok> t;
    i64 cap;
    i32 low = 1;    // the Tok::low of the tokens scanned next (fill_block sets it per document)
    i64 chars = 0;  // code points of the tokens put since fill_block began (pool room)
    explicit KeyBuf(i64 capacity) : t(static_cast<std::size_t>(capacity)), cap(capacity) {}
};

// A string's code units, as CPython stores them (1, 2 or 4 bytes each).
struct StrView {
    const void* data;
    i64 n;
    i32 kind;
};

// Documents to read: views of str objects the binding keeps alive, and per document
// whether it was lowercased by Python already (``nolow``: read with the identity table).
struct DocSet {
    std::vector<StrView> views;
    std::vector<u8> nolow;
};

// The code point at ``k`` of a token (through table ``t``).
inline u32 src_cp(const void* src, i32 width, const u32* t, i64 k) {
    if (width == 1) return t[static_cast<const u8*>(src)[k]] & CPM;
    if (width == 2) return t[static_cast<const u16*>(src)[k]] & CPM;
    return t[static_cast<const u32*>(src)[k]] & CPM;
}

// Whether the ``L`` code points of a stored term (``pool[p]`` on) are those ``cp(0..L-1)``
// gives: how a probe of an open-addressing table of terms tells a match from a collision.
template <class CodePoint>
inline bool same_code_points(const u32* pool, i64 p, i64 L, CodePoint cp) {
    for (i64 q = 0; q < L; ++q)
        if (pool[p + q] != cp(q)) return false;
    return true;
}

// Large buffers ask Linux for transparent huge pages (as numpy does for its arrays of 4 MiB
// and more): a table of tens of MiB is then first touched in 2 MiB faults instead of
// thousands of 4 KiB ones (the second fit of a process paid ~2x the page faults without).
inline void advise_huge(void* p, std::size_t bytes) {
#if defined(__linux__) && defined(MADV_HUGEPAGE)
    constexpr std::uintptr_t HUGE = std::uintptr_t{1} << 21;
    if (bytes < 2 * HUGE) return;
    const auto b = reinterpret_cast<std::uintptr_t>(p);
    const std::uintptr_t lo = (b + HUGE - 1) & ~(HUGE - 1), hi = (b + bytes) & ~(HUGE - 1);
    if (hi > lo) madvise(reinterpret_cast<void*>(lo), hi - lo, MADV_HUGEPAGE);  // advice only
#else
    (void)p;
    (void)bytes;
#endif
}

// A zero-filled buffer of trivially copyable T from calloc: the pages of a large table
// are zeroed by the kernel when first touched (spread over the work, not paid up front,
// and never for slots a table does not reach). Growing keeps the contents.
template <class T>
struct ZBuf {
    T* p = nullptr;
    std::size_t n = 0;

    ZBuf() = default;
    explicit ZBuf(std::size_t count) { alloc(count); }
    ZBuf(const ZBuf&) = delete;
    ZBuf& operator=(const ZBuf&) = delete;
    ZBuf(ZBuf&& o) noexcept : p(o.p), n(o.n) {
        o.p = nullptr;
        o.n = 0;
    }
    ZBuf& operator=(ZBuf&& o) noexcept {
        if (this != &o) {
            std::free(p);
            p = o.p;
            n = o.n;
            o.p = nullptr;
            o.n = 0;
        }
        return *this;
    }
    ~ZBuf() { std::free(p); }

    // Fresh zeros (the old contents are dropped).
    void alloc(std::size_t count) {
        T* q = static_cast<T*>(std::calloc(count > 0 ? count : 1, sizeof(T)));
        if (q == nullptr) throw std::bad_alloc();
        advise_huge(q, count * sizeof(T));
        std::free(p);
        p = q;
        n = count;
    }
    // Room for count elements, keeping the first n (the rest zero).
    void grow(std::size_t count) {
        if (count <= n) return;
        T* q = static_cast<T*>(std::calloc(count, sizeof(T)));
        if (q == nullptr) throw std::bad_alloc();
        advise_huge(q, count * sizeof(T));
        if (n > 0) std::memcpy(q, p, n * sizeof(T));
        std::free(p);
        p = q;
        n = count;
    }
    // Room for count elements, keeping the first n, in place where the allocator can
    // (realloc: a large block is remapped, not copied). ``zero``: the new elements are
    // zero; else they are left unset (for arrays written before they are read). On
    // bad_alloc the buffer is unchanged.
    void extend(std::size_t count, bool zero) {
        if (count <= n) return;
        if (count > SIZE_MAX / sizeof(T)) throw std::bad_alloc();
        T* q = static_cast<T*>(std::realloc(p, count * sizeof(T)));
        if (q == nullptr) throw std::bad_alloc();
        if (zero) std::memset(static_cast<void*>(q + n), 0, (count - n) * sizeof(T));
        p = q;
        n = count;
    }
    // Fresh room for count elements whose values are unset (written before they are read).
    void alloc_unset(std::size_t count) {
        if (count > SIZE_MAX / sizeof(T)) throw std::bad_alloc();
        T* q = static_cast<T*>(std::malloc((count > 0 ? count : 1) * sizeof(T)));
        if (q == nullptr) throw std::bad_alloc();
        std::free(p);
        p = q;
        n = count;
    }
    // A copy with room for count elements (the rest zero); this buffer is unchanged.
    ZBuf grown(std::size_t count) const {
        ZBuf out(count > n ? count : n);
        if (n > 0) std::memcpy(out.p, p, n * sizeof(T));
        return out;
    }
    // Hand the memory over (to a numpy array that frees it with std::free).
    T* release() {
        T* q = p;
        p = nullptr;
        n = 0;
        return q;
    }
    std::size_t size() const { return n; }
    T* data() { return p; }
    const T* data() const { return p; }
    T& operator[](std::size_t i) { return p[i]; }
    const T& operator[](std::size_t i) const { return p[i]; }
};

}  // namespace nbk
