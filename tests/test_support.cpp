#include "tests/test_support.h"

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

}  // namespace nav::test
