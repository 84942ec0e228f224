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
    struct Slot {
        std::uint64_t hash;
        Key key;
        std::int64_t row;  // -1: empty
    };

    std::size_t size() const { return used_; }

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
        while ((used_ + more) * 4 > slots_.size() * 3) grow();
    }

    // Adds (hash, key, row); the caller adds each row once.
    void insert(std::uint64_t hash, Key key, std::int64_t row) {
        if ((used_ + 1) * 4 > slots_.size() * 3) grow();
        place(hash, key, row);
        ++used_;
    }

    void clear() {
        slots_.clear();
        used_ = 0;
        mask_ = 0;
        shift_ = 0;
    }

  private:
    std::vector<Slot> slots_;
    std::size_t used_ = 0;
    std::size_t mask_ = 0;
    unsigned shift_ = 0;

    void place(std::uint64_t hash, Key key, std::int64_t row) {
        std::size_t pos = home(hash);
        while (slots_[pos].row >= 0) pos = next(pos);
        slots_[pos] = Slot{hash, key, row};
    }

    void grow() {
        std::size_t cap = slots_.empty() ? 1024 : slots_.size() * 2;
        std::vector<Slot> old;
        old.swap(slots_);
        slots_.assign(cap, Slot{0, Key{}, -1});
        mask_ = cap - 1;
        unsigned bits = 0;
        while ((std::size_t{1} << bits) < cap) ++bits;
        shift_ = 64 - bits;
        for (const Slot& s : old)
            if (s.row >= 0) place(s.hash, s.key, s.row);
    }
};

}  // namespace nbk_mail
