// The spam filter's token table as an open-addressing hash table: each token's (full,
// 64-bit) hash and its row, probed linearly. A message's few hundred look-ups in a table
// of a million tokens are memory-bound (a Python dict costs ~6 cache misses per token:
// index, entry, key, value object, two count columns); here the caller prefetches each
// token's slot, then its row's key and counts, a few tokens ahead of where it reads them
// (bind_mail.cpp's lookup_rows), so that the misses of a message overlap instead of
// following one another.
//
// Plain C++ (no Python.h): bind_mail.cpp binds it to Python, with the keys (which a hit
// is compared with, so that two tokens of one hash are never mixed up) as `Key`.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace nbk_mail {

template <class Key>
class HashIndex {
  public:
    // A slot of 16 bytes (four to a cache line, none across two): the low 32 bits of its
    // token's hash (a hit is confirmed by comparing the key), its row and its key.
    struct Slot {
        std::uint32_t tag;
        std::uint32_t row;  // kEmpty: an empty slot
        Key key;
    };
    static constexpr std::uint32_t kEmpty = 0xFFFFFFFFu;
    // The most rows an index holds (rows are 32-bit; kEmpty marks an empty slot).
    static constexpr std::size_t kMostRows = kEmpty;

    static std::uint32_t tag(std::uint64_t hash) { return static_cast<std::uint32_t>(hash); }

    std::size_t size() const { return hashes_.size(); }
    std::size_t slot_count() const { return slots_.size(); }

    // The first slot a hash probes (the hash multiplied by a constant: hashes of a
    // weak hash function, an int's, spread too).
    std::size_t home(std::uint64_t hash) const {
        return static_cast<std::size_t>((hash * 0x9E3779B97F4A7C15ull) >> shift_) & mask_;
    }

    const Slot& slot(std::size_t pos) const { return slots_[pos & mask_]; }
    const Slot* slot_address(std::size_t pos) const { return &slots_[pos & mask_]; }
    std::size_t next(std::size_t pos) const { return (pos + 1) & mask_; }
    bool empty() const { return slots_.empty(); }

    // Room for `more` insertions without a rehash.
    void reserve(std::size_t more) {
        hashes_.reserve(hashes_.size() + more);
        while ((size() + more) * 4 > slots_.size() * 3) grow();
    }

    // Adds (hash, key) as the next row, size() (rows are 0, 1, 2, ... in order: the full
    // hashes kept by row rehash the slots when they grow).
    // (Strong guarantee: an allocation that fails leaves the index as it was.)
    void insert(std::uint64_t hash, Key key) {
        if ((size() + 1) * 4 > slots_.size() * 3) grow();
        hashes_.push_back(hash);
        place(hash, key, static_cast<std::uint32_t>(hashes_.size() - 1));
    }

    // The full hash of `row`'s key.
    std::uint64_t hash_of(std::size_t row) const { return hashes_[row]; }

    // Drops the rows from `n` on (those a failed update added), in place: it allocates
    // nothing, so it cannot fail (it undoes a failure, often a MemoryError's). Their slots
    // are emptied, then every other slot is taken out and placed again, cluster by cluster
    // from an empty slot, so that no probe stops at a hole before its key (a pass over
    // the table: a failure's path only).
    void truncate(std::size_t n) noexcept {
        if (n >= hashes_.size()) return;
        hashes_.resize(n);  // (shrinking: no allocation)
        if (slots_.empty()) return;
        std::size_t start = slots_.size();
        for (std::size_t pos = 0; pos < slots_.size(); ++pos) {
            if (slots_[pos].row != kEmpty && slots_[pos].row >= n) slots_[pos].row = kEmpty;
            if (slots_[pos].row == kEmpty && start == slots_.size()) start = pos;
        }
        // (the load factor is at most 3/4: an empty slot exists)
        for (std::size_t k = 1; k <= slots_.size(); ++k) {
            std::size_t pos = (start + k) & mask_;
            Slot s = slots_[pos];
            if (s.row == kEmpty) continue;
            slots_[pos].row = kEmpty;
            place(hashes_[s.row], s.key, s.row);
        }
    }

    void clear() {
        slots_.clear();
        hashes_.clear();
        mask_ = 0;
        shift_ = 0;
    }

  private:
    std::vector<Slot> slots_;
    std::vector<std::uint64_t> hashes_;  // by row
    std::size_t mask_ = 0;
    unsigned shift_ = 0;

    void place(std::uint64_t hash, Key key, std::uint32_t row) {
        std::size_t pos = home(hash);
        while (slots_[pos].row != kEmpty) pos = next(pos);
        slots_[pos] = Slot{tag(hash), row, key};
    }

    void grow() {
        std::size_t cap = slots_.empty() ? 1024 : slots_.size() * 2;
        std::vector<Slot> old(cap, Slot{0, kEmpty, Key{}});  // (may throw: nothing changed)
        old.swap(slots_);
        mask_ = cap - 1;
        unsigned bits = 0;
        while ((std::size_t{1} << bits) < cap) ++bits;
        shift_ = 64 - bits;
        for (const Slot& s : old)
            if (s.row != kEmpty) place(hashes_[s.row], s.key, s.row);
    }
};

}  // namespace nbk_mail
