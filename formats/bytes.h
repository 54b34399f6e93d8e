// Explicit little-endian field encoding. Nothing in navbake dumps a native struct to disk:
// every field is written and read one by one, so files are identical on any host.
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <string_view>
#include <vector>

namespace nav::formats {

inline void storeLe16(uint8_t* p, uint16_t v) {
    p[0] = uint8_t(v);
    p[1] = uint8_t(v >> 8);
}
inline void storeLe32(uint8_t* p, uint32_t v) {
    for (int i = 0; i < 4; ++i) p[i] = uint8_t(v >> (8 * i));
}
inline void storeLe64(uint8_t* p, uint64_t v) {
    for (int i = 0; i < 8; ++i) p[i] = uint8_t(v >> (8 * i));
}
inline uint16_t loadLe16(const uint8_t* p) { return uint16_t(p[0] | (p[1] << 8)); }
inline uint32_t loadLe32(const uint8_t* p) {
    return uint32_t(p[0]) | uint32_t(p[1]) << 8 | uint32_t(p[2]) << 16 | uint32_t(p[3]) << 24;
}
inline uint64_t loadLe64(const uint8_t* p) {
    return uint64_t(loadLe32(p)) | uint64_t(loadLe32(p + 4)) << 32;
}

// The bytes of an array of u8/u16/u32/u64/f32 values. Hosts are little-endian (navrt checks this at
// build time), so the in-memory representation is already the file's.
template <class T>
std::vector<uint8_t> arrayBytes(const std::vector<T>& values) {
    std::vector<uint8_t> bytes(values.size() * sizeof(T));
    if (!values.empty()) std::memcpy(bytes.data(), values.data(), bytes.size());
    return bytes;
}

// The bytes of an array of plain values, viewed in place (little-endian hosts, as arrayBytes).
template <class T>
std::span<const uint8_t> byteView(const std::vector<T>& values) {
    return {reinterpret_cast<const uint8_t*>(values.data()), values.size() * sizeof(T)};
}

// Appends little-endian fields to a growing byte vector (bake side only).
class ByteWriter {
public:
    void u8(uint8_t v) { bytes_.push_back(v); }
    void u16(uint16_t v) { storeLe16(grow(2), v); }
    void u32(uint32_t v) { storeLe32(grow(4), v); }
    void u64(uint64_t v) { storeLe64(grow(8), v); }
    void f32(float v) { u32(std::bit_cast<uint32_t>(v)); }
    void raw(const void* data, size_t size) {
        if (size > 0) std::memcpy(grow(size), data, size);
    }
    // A string as u32 byte length followed by its bytes (no terminator).
    void str(std::string_view s) {
        u32(uint32_t(s.size()));
        raw(s.data(), s.size());
    }
    void zeros(size_t count) { bytes_.resize(bytes_.size() + count, 0); }
    size_t size() const { return bytes_.size(); }
    std::vector<uint8_t>& bytes() { return bytes_; }
    std::vector<uint8_t> take() { return std::move(bytes_); }

private:
    uint8_t* grow(size_t n) {
        bytes_.resize(bytes_.size() + n);
        return bytes_.data() + bytes_.size() - n;
    }
    std::vector<uint8_t> bytes_;
};

// Bounds-checked little-endian reads. A read past the end sets the failure flag, returns zero
// and leaves the position where the failed read started, so callers can report the offset.
class ByteReader {
public:
    ByteReader(const uint8_t* data, size_t size) : data_(data), size_(size) {}

    bool ok() const { return ok_; }
    size_t position() const { return pos_; }
    size_t remaining() const { return size_ - pos_; }
    bool have(size_t n) const { return n <= size_ - pos_; }

    uint8_t u8() { return need(1) ? data_[pos_++] : 0; }
    uint16_t u16() { return need(2) ? advance(2, loadLe16(data_ + pos_)) : 0; }
    uint32_t u32() { return need(4) ? advance(4, loadLe32(data_ + pos_)) : 0; }
    uint64_t u64() { return need(8) ? advance(8, loadLe64(data_ + pos_)) : 0; }
    float f32() { return std::bit_cast<float>(u32()); }
    // Returns a view of the next `n` bytes, or nullptr (and fails) when fewer remain.
    const uint8_t* take(size_t n) {
        if (!need(n)) return nullptr;
        const uint8_t* p = data_ + pos_;
        pos_ += n;
        return p;
    }
    // A u32-length-prefixed string; `max_length` guards against absurd lengths.
    std::string_view str(uint32_t max_length = 1u << 20) {
        const size_t start = pos_;
        const uint32_t length = u32();
        if (!ok_) return {};
        if (length > max_length || !have(length)) {
            ok_ = false;
            pos_ = start;
            return {};
        }
        const auto* p = reinterpret_cast<const char*>(data_ + pos_);
        pos_ += length;
        return {p, length};
    }

private:
    bool need(size_t n) {
        if (ok_ && have(n)) return true;
        ok_ = false;
        return false;
    }
    template <class T>
    T advance(size_t n, T value) {
        pos_ += n;
        return value;
    }

    const uint8_t* data_;
    size_t size_;
    size_t pos_ = 0;
    bool ok_ = true;
};

}  // namespace nav::formats
