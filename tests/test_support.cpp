#include "tests/test_support.h"

#include <doctest/doctest.h>
#include <fmt/format.h>

#include <algorithm>

#include <unistd.h>

#include <atomic>
#include <fstream>
#include <iterator>
#include <stdexcept>

namespace nav::test {

TempDir::TempDir() {
    static std::atomic<int> counter{0};
    path_ = std::filesystem::temp_directory_path() /
            ("navbake-test-" + std::to_string(::getpid()) + "-" + std::to_string(counter++));
    std::filesystem::remove_all(path_);
    std::filesystem::create_directories(path_);
}

TempDir::~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
}

std::filesystem::path sharedData() {
    const std::filesystem::path path = NAVBAKE_SHARED_DATA;
    std::error_code ec;
    return std::filesystem::is_directory(path, ec) ? path : std::filesystem::path();
}

std::filesystem::path sampleLevels() { return NAVBAKE_SAMPLE_LEVELS; }

void writeText(const std::filesystem::path& path, const std::string& text) {
    std::ofstream out(path, std::ios::binary);
    out << text;
    if (!out) throw std::runtime_error("cannot write " + path.string());
}

std::vector<uint8_t> readBytes(const std::filesystem::path& path) {
    std::ifstream in(path, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

std::vector<std::filesystem::path> movingAiMaps(const std::filesystem::path& data) {
    std::vector<std::filesystem::path> maps;
    for (const auto& entry : std::filesystem::directory_iterator(data / "movingai"))
        if (entry.path().extension() == ".map") maps.push_back(entry.path());
    std::sort(maps.begin(), maps.end());
    return maps;
}

uint64_t countOf(const StageResult& result, const std::string& name) {
    for (const auto& [n, v] : result.counts)
        if (n == name) return v;
    FAIL("no count " << name);
    return 0;
}

// An axis-aligned box as an OBJ object (12 triangles, counter-clockwise seen from outside;
// relative vertex indices, so boxes can be appended to any file).
std::string objBox(const std::string& name, float x0, float y0, float z0, float x1, float y1,
                   float z1) {
    std::string s = "o " + name + "\n";
    for (int k = 0; k < 8; ++k)
        s += fmt::format("v {} {} {}\n", (k & 1) ? x1 : x0, (k & 2) ? y1 : y0, (k & 4) ? z1 : z0);
    // Corner k = (x bit 1, y bit 2, z bit 4), as relative indices k - 8.
    const int quads[6][4] = {{0, 1, 5, 4}, {2, 6, 7, 3}, {0, 2, 3, 1},
                             {4, 5, 7, 6}, {0, 4, 6, 2}, {1, 3, 7, 5}};
    for (const auto& q : quads) {
        s += fmt::format("f {} {} {}\n", q[0] - 8, q[1] - 8, q[2] - 8);
        s += fmt::format("f {} {} {}\n", q[0] - 8, q[2] - 8, q[3] - 8);
    }
    return s;
}

std::string objQuad(const std::string& name, float x0, float z0, float x1, float z1, float y) {
    return fmt::format(
        "o {}\nv {} {} {}\nv {} {} {}\nv {} {} {}\nv {} {} {}\nf -4 -2 -3\nf -4 -1 -2\n", name, x0,
        y, z0, x1, y, z0, x1, y, z1, x0, y, z1);
}

}  // namespace nav::test
