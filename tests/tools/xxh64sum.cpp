// xxh64sum FILE: prints the XXH64 (seed 0) of a file's bytes as 16 hex digits. A test helper for
// the golden-hash test (tests/golden/), so it needs no xxhash package on the machine.
#include <cstdio>
#include <vector>

#include "formats/xxhash64.h"

int main(int argc, char** argv) {
    if (argc != 2) {
        std::fprintf(stderr, "usage: xxh64sum FILE\n");
        return 2;
    }
    std::FILE* file = std::fopen(argv[1], "rb");
    if (file == nullptr) {
        std::fprintf(stderr, "xxh64sum: cannot open %s\n", argv[1]);
        return 1;
    }
    nav::formats::XxHash64 hash;
    std::vector<unsigned char> buffer(1 << 16);
    size_t got = 0;
    while ((got = std::fread(buffer.data(), 1, buffer.size(), file)) > 0)
        hash.update(buffer.data(), got);
    const bool failed = std::ferror(file) != 0;
    std::fclose(file);
    if (failed) {
        std::fprintf(stderr, "xxh64sum: cannot read %s\n", argv[1]);
        return 1;
    }
    std::printf("%016llx\n", static_cast<unsigned long long>(hash.digest()));
    return 0;
}
