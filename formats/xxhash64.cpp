#include "formats/xxhash64.h"

#include <cstring>

namespace nav::formats {
namespace {

constexpr uint64_t kPrime1 = 0x9E3779B185EBCA87ull;
constexpr uint64_t kPrime2 = 0xC2B2AE3D27D4EB4Full;
constexpr uint64_t kPrime3 = 0x165667B19E3779F9ull;
constexpr uint64_t kPrime4 = 0x85EBCA77C2B2AE63ull;
constexpr uint64_t kPrime5 = 0x27D4EB2F165667C5ull;

inline uint64_t rotl(uint64_t x, int r) { return (x << r) | (x >> (64 - r)); }

// Little-endian loads, independent of the host byte order.
inline uint64_t load64(const uint8_t* p) {
    uint64_t v = 0;
    for (int i = 7; i >= 0; --i) v = (v << 8) | p[i];
    return v;
}
inline uint32_t load32(const uint8_t* p) {
    return uint32_t(p[0]) | uint32_t(p[1]) << 8 | uint32_t(p[2]) << 16 | uint32_t(p[3]) << 24;
}

inline uint64_t round(uint64_t acc, uint64_t lane) {
    acc += lane * kPrime2;
    acc = rotl(acc, 31);
    return acc * kPrime1;
}

inline uint64_t mergeAccumulator(uint64_t h, uint64_t acc) {
    h ^= round(0, acc);
    return h * kPrime1 + kPrime4;
}

// Consumes the tail (< 32 bytes) and applies the final avalanche.
uint64_t finish(uint64_t h, const uint8_t* p, size_t remaining) {
    while (remaining >= 8) {
        h ^= round(0, load64(p));
        h = rotl(h, 27) * kPrime1 + kPrime4;
        p += 8;
        remaining -= 8;
    }
    if (remaining >= 4) {
        h ^= uint64_t(load32(p)) * kPrime1;
        h = rotl(h, 23) * kPrime2 + kPrime3;
        p += 4;
        remaining -= 4;
    }
    while (remaining > 0) {
        h ^= uint64_t(*p) * kPrime5;
        h = rotl(h, 11) * kPrime1;
        ++p;
        --remaining;
    }
    h ^= h >> 33;
    h *= kPrime2;
    h ^= h >> 29;
    h *= kPrime3;
    h ^= h >> 32;
    return h;
}

uint64_t convergeAccumulators(const uint64_t acc[4]) {
    uint64_t h = rotl(acc[0], 1) + rotl(acc[1], 7) + rotl(acc[2], 12) + rotl(acc[3], 18);
    for (int i = 0; i < 4; ++i) h = mergeAccumulator(h, acc[i]);
    return h;
}

}  // namespace

XxHash64::XxHash64(uint64_t seed) noexcept
    : acc_{seed + kPrime1 + kPrime2, seed + kPrime2, seed, seed - kPrime1}, seed_(seed) {}

void XxHash64::update(const void* data, size_t size) noexcept {
    const auto* p = static_cast<const uint8_t*>(data);
    total_ += size;
    if (buffered_ + size < 32) {
        if (size > 0) std::memcpy(buffer_ + buffered_, p, size);
        buffered_ += size;
        return;
    }
    if (buffered_ > 0) {
        const size_t fill = 32 - buffered_;
        std::memcpy(buffer_ + buffered_, p, fill);
        for (int i = 0; i < 4; ++i) acc_[i] = round(acc_[i], load64(buffer_ + 8 * i));
        p += fill;
        size -= fill;
        buffered_ = 0;
    }
    while (size >= 32) {
        for (int i = 0; i < 4; ++i) acc_[i] = round(acc_[i], load64(p + 8 * i));
        p += 32;
        size -= 32;
    }
    if (size > 0) std::memcpy(buffer_, p, size);
    buffered_ = size;
}

uint64_t XxHash64::digest() const noexcept {
    uint64_t h = total_ >= 32 ? convergeAccumulators(acc_) : seed_ + kPrime5;
    h += total_;
    return finish(h, buffer_, buffered_);
}

uint64_t xxhash64(const void* data, size_t size, uint64_t seed) noexcept {
    XxHash64 state(seed);
    state.update(data, size);
    return state.digest();
}

}  // namespace nav::formats
