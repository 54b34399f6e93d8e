// Helpers shared by the unit tests: temporary folders, reference-data lookup, file helpers.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace nav::test {

// A fresh folder under the system temp dir, removed with its contents on destruction.
class TempDir {
public:
    TempDir();
    ~TempDir();
    TempDir(const TempDir&) = delete;
    TempDir& operator=(const TempDir&) = delete;
    const std::filesystem::path& path() const { return path_; }
    std::filesystem::path operator/(const std::string& name) const { return path_ / name; }

private:
    std::filesystem::path path_;
};

// ../shared/data beside the repository, or empty when absent (tests then skip with a message).
std::filesystem::path sharedData();
std::filesystem::path sampleLevels();
// The MovingAI grid maps (*.map) under `data`/movingai, sorted by name.
std::vector<std::filesystem::path> movingAiMaps(const std::filesystem::path& data);

void writeText(const std::filesystem::path& path, const std::string& text);
std::vector<uint8_t> readBytes(const std::filesystem::path& path);

}  // namespace nav::test
