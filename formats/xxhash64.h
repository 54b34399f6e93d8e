// XXH64: the 64-bit non-cryptographic hash of the xxHash family (Yann Collet),
// written from the public specification (doc/xxhash_spec.md of the xxHash project).
// Used as the per-section and header checksum of the navbake container.
#pragma once

#include <cstddef>
#include <cstdint>

namespace nav::formats {

// Hash of `size` bytes at `data` (may be null when size is 0) with the given seed.
uint64_t xxhash64(const void* data, size_t size, uint64_t seed = 0) noexcept;

// Streaming form, for hashing data that is not contiguous (header + section table).
class XxHash64 {
public:
    explicit XxHash64(uint64_t seed = 0) noexcept;
    void update(const void* data, size_t size) noexcept;
    uint64_t digest() const noexcept;

private:
    uint64_t acc_[4];
    uint64_t seed_;
    uint64_t total_ = 0;
    uint8_t buffer_[32];
    size_t buffered_ = 0;
};

}  // namespace nav::formats
