// Shared pieces of the libFuzzer targets (tests/fuzz/README in the top README's "Fuzzing").
//
// Container-aware mutation: a navbake container guards every section with an XXH64 checksum and
// its header and table with another, so a byte-level mutator almost never gets past
// parseContainer. mutateContainers() instead decodes the input's containers, mutates one
// section's *decoded* bytes (or the section list, the kind version, a codec, or the raw bytes of
// header and table) and writes the containers back with sizes, offsets and checksums recomputed,
// so mutations reach the section decoders and the code behind them. Inputs may hold several
// containers one after the other (a world index followed by its tiles); each header's file_size
// says where the next starts.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <span>
#include <string>
#include <vector>

namespace nav::fuzz {

// What the targets read from their results goes here, so the reads are not optimised away.
extern uint64_t g_sink;

// The containers of `data` in order: each is (offset, size) of a well-formed container header
// whose declared file_size fits; the rest of the input (if any) is not split further.
struct Piece {
    size_t offset = 0;
    size_t size = 0;
};
std::vector<Piece> splitContainers(std::span<const uint8_t> data);

// libFuzzer custom mutator body: mutates `data` (size bytes, room for max_size) in place and
// returns the new size. Falls back to LLVMFuzzerMutate for inputs that hold no container.
size_t mutateContainers(uint8_t* data, size_t size, size_t max_size, unsigned seed);

// Recomputes every section checksum and the header checksum of each container in `bytes`
// whose table lies inside its declared size (after a mutation of header or table bytes).
void fixChecksums(std::span<uint8_t> bytes);

// A file in this process's own temporary folder ($TMPDIR or /tmp), rewritten on every call with
// `bytes`: for entry points that read files. The folder is removed at exit.
std::filesystem::path writeTempFile(std::span<const uint8_t> bytes, const std::string& name);

}  // namespace nav::fuzz

// Defines LLVMFuzzerCustomMutator with mutateContainers (in a target's .cpp).
#define NAVBAKE_FUZZ_CONTAINER_MUTATOR()                                                   \
    extern "C" size_t LLVMFuzzerCustomMutator(uint8_t* data, size_t size, size_t max_size, \
                                              unsigned int seed) {                         \
        return nav::fuzz::mutateContainers(data, size, max_size, seed);                    \
    }
