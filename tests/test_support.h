// Helpers shared by the unit tests: temporary folders, reference-data lookup, file helpers.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "lib/common/stage.h"

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

// A stage's count by name; fails the test (and returns 0) when the stage has no such count.
uint64_t countOf(const StageResult& result, const std::string& name);

// OBJ text for scene tests (relative vertex indices, so objects can be appended to any file):
// an axis-aligned box (12 triangles, counter-clockwise seen from outside) and a horizontal quad
// at height y facing up.
std::string objBox(const std::string& name, float x0, float y0, float z0, float x1, float y1,
                   float z1);
std::string objQuad(const std::string& name, float x0, float z0, float x1, float z1, float y);

}  // namespace nav::test
