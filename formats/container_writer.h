// Builds a navbake container in memory (bake side only; the runtime never writes).
// Output depends only on the sections added and their order: no timestamps, no paths.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "formats/container.h"

namespace nav::formats {

class ContainerWriter {
public:
    ContainerWriter(uint32_t kind, uint32_t kind_version)
        : kind_(kind), kind_version_(kind_version) {}

    // Adds a section. With Codec::zstd the bytes are compressed, unless compression does not make
    // them smaller, in which case they are stored raw. Section ids must be unique. `level` > 0
    // compresses this section at that zstd level instead of the writer's.
    void add(uint32_t id, std::vector<uint8_t> bytes, Codec codec = Codec::zstd, int level = 0);

    // zstd level used for compressed sections (1..19). Single-threaded, hence deterministic.
    void setCompressionLevel(int level) { level_ = level; }

    // Serialises header, table and sections. Returns false and sets `error` on failure
    // (duplicate id, too many sections, compression failure).
    bool finish(std::vector<uint8_t>& out, std::string& error) const;

private:
    struct Pending {
        uint32_t id;
        Codec codec;
        std::vector<uint8_t> bytes;
        int level;
    };
    uint32_t kind_;
    uint32_t kind_version_;
    int level_ = 9;
    std::vector<Pending> sections_;
};

}  // namespace nav::formats
