// Replays fuzz inputs through the targets without libFuzzer: the g++ build's CTest entries
// fuzz.replay.T run every committed input (tests/fuzz/regressions/T/, tests/fuzz/corpus/T/ and,
// for the artifact targets, tests/data/) through target T, so a crash or hang the fuzzers once
// found fails `make test` in the product's own build too (without the sanitizers the clang
// build adds; `make fuzz-smoke` replays them under ASan and UBSan).
//   fuzz_replay TARGET FILE_OR_FOLDER...
// Each target's sources are compiled here with their entry point renamed (tests/CMakeLists.txt).
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

// fuzz_targets.inc holds one X(name) per target of tests/fuzz/targets.cmake (written at configure
// time), so the list of targets is kept in one place.
#define X(name) extern "C" int fuzz_entry_##name(const uint8_t* data, size_t size);
#include "fuzz_targets.inc"
#undef X

// The container mutator calls libFuzzer's; never called when replaying.
extern "C" size_t LLVMFuzzerMutate(uint8_t*, size_t size, size_t) { return size; }

namespace {

using Entry = int (*)(const uint8_t*, size_t);

struct Target {
    const char* name;
    Entry entry;
};
const Target kTargets[] = {
#define X(name) Target{#name, fuzz_entry_##name},
#include "fuzz_targets.inc"
#undef X
};

bool replay(Entry entry, const std::filesystem::path& file) {
    std::ifstream in(file, std::ios::binary);
    if (!in) {
        std::fprintf(stderr, "fuzz_replay: cannot read %s\n", file.c_str());
        return false;
    }
    const std::vector<char> bytes((std::istreambuf_iterator<char>(in)), {});
    entry(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
    return true;
}

}  // namespace

int main(int argc, char** argv) {
    if (argc < 3) {
        std::fprintf(stderr, "usage: fuzz_replay TARGET FILE_OR_FOLDER...\n");
        return 2;
    }
    Entry entry = nullptr;
    for (const Target& t : kTargets)
        if (std::strcmp(t.name, argv[1]) == 0) entry = t.entry;
    if (entry == nullptr) {
        std::fprintf(stderr, "fuzz_replay: no target '%s'\n", argv[1]);
        return 2;
    }
    size_t count = 0;
    for (int i = 2; i < argc; ++i) {
        const std::filesystem::path path = argv[i];
        std::vector<std::filesystem::path> files;
        if (std::filesystem::is_directory(path)) {
            for (const auto& e : std::filesystem::recursive_directory_iterator(path))
                if (e.is_regular_file()) files.push_back(e.path());
        } else if (std::filesystem::exists(path)) {
            files.push_back(path);
        }
        std::sort(files.begin(), files.end());
        for (const auto& f : files) {
            std::fprintf(stderr, "%s\n",
                         f.c_str());  // the input to blame if the next line is a crash
            if (!replay(entry, f)) return 1;
            ++count;
        }
    }
    std::printf("fuzz_replay %s: %zu inputs, none failed\n", argv[1], count);
    return count > 0 ? 0 : 1;
}
