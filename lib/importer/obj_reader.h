// A lean Wavefront OBJ reader for large levels: one streaming pass, positions and index lists
// only (no per-corner vertex copies, no per-face allocations), about 25 bytes per triangle where
// Assimp's OBJ importer needed ~200. It reproduces the scene Assimp builds from an OBJ file as the
// flattener sees it (scene_import.cpp): one node per object (`o NAME`, or `g NAME` when the name
// changes; "defaultobject" for faces before either), within it one mesh per run of faces with one
// material (the first named after the object, later ones after their material; `usemtl` persists
// across objects; "DefaultMaterial" before any), triangles and quads cut as Assimp's Triangulate
// step cuts them (a quad from its concave corner), larger polygons by ear clipping, faces of two
// corners and `l` polylines as line segments, points dropped. Numbers are read correctly rounded
// (std::from_chars; Assimp's fast_atof can be an ulp off). Texture coordinates, normals, smoothing
// groups and material libraries are skipped (navbake uses positions and names only).
#pragma once

#include <algorithm>
#include <array>
#include <filesystem>
#include <initializer_list>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "lib/common/result.h"

namespace nav::importer {

// Position indices in blocks of 2^18 (1 MiB each at most), so that a reader of the list can
// give back the part it has used (the importer frees each block once the geometry holds its
// faces: the OBJ's index lists and the geometry's are then not both whole in memory).
class ObjIndexList {
public:
    static constexpr size_t kBlock = size_t(1) << 18;
    void push(std::initializer_list<uint32_t> values) {
        for (uint32_t v : values) {
            if (size_ % kBlock == 0) {
                blocks_.emplace_back();
                // Past the first block the list is large: whole blocks at once, no regrowth.
                if (size_ > 0) blocks_.back().reserve(kBlock);
            }
            blocks_.back().push_back(v);
            ++size_;
        }
    }
    size_t size() const { return size_; }
    bool empty() const { return size_ == 0; }
    uint32_t operator[](size_t i) const { return blocks_[i / kBlock][i % kBlock]; }
    // Frees the blocks wholly before index i (they must not be read again).
    void releaseBefore(size_t i) {
        for (size_t b = released_; b < i / kBlock; ++b) std::vector<uint32_t>().swap(blocks_[b]);
        released_ = std::max(released_, i / kBlock);
    }
    void clear() { *this = ObjIndexList{}; }
    void shrinkToFit() {
        if (!blocks_.empty()) blocks_.back().shrink_to_fit();
    }
    std::vector<uint32_t> toVector() const {
        std::vector<uint32_t> out;
        out.reserve(size_);
        for (const std::vector<uint32_t>& block : blocks_)
            out.insert(out.end(), block.begin(), block.end());
        return out;
    }

private:
    std::vector<std::vector<uint32_t>> blocks_;
    size_t size_ = 0;
    size_t released_ = 0;
};

struct ObjMesh {
    std::string name;
    std::string material;
    ObjIndexList triangles;  // 0-based position indices, 3 per triangle
    ObjIndexList lines;      // 2 per segment
    // Streamed reads: the sink took this mesh's triangles face by face (ObjSink::direct), so
    // `triangles` stays empty; how many it took.
    bool direct = false;
    uint64_t direct_triangles = 0;
    bool empty() const { return triangles.empty() && lines.empty() && direct_triangles == 0; }
};
struct ObjObject {
    std::string name;
    std::vector<ObjMesh> meshes;  // in the order they were started; none empty
};
// The positions read so far (3 floats per `v`), in blocks of kBlock. With a spill folder the
// blocks older than the last kResident are written to a temporary file there (removed when the
// store goes) and read back a chunk at a time through a small cache when a face names them: an
// import then holds a bounded window of positions however many the file has (an OBJ's faces
// mostly name positions just read). Without one, every block stays in memory.
class ObjPositions {
public:
    static constexpr size_t kBlock = size_t(1) << 16;  // positions a block (768 KiB)
    static constexpr size_t kResident = 2;             // blocks held when spilling (1.5 MiB)
    static constexpr size_t kChunk = 1024;             // positions a cached chunk (12 KiB)
    static constexpr size_t kCachedChunks = 128;       // the spilled reads' cache (1.5 MiB)
    ObjPositions() = default;
    ObjPositions(ObjPositions&&) noexcept;
    ObjPositions& operator=(ObjPositions&&) noexcept;
    ~ObjPositions();
    // Spill to a temporary file in `folder` from now on (before any position is added). Errors:
    // the file cannot be made.
    Status spillTo(const std::filesystem::path& folder);
    uint64_t count() const { return count_; }
    uint64_t spilled() const { return spilled_blocks_ * kBlock; }
    Status append(const float* xyz, size_t n);  // n positions
    // Position i (< count()). A spilled one is read back (the cache's chunk, or a read).
    std::array<float, 3> at(uint64_t i) const {
        const uint64_t block = i / kBlock;
        if (block >= spilled_blocks_) {
            const float* p = blocks_[block - first_block_].get() + 3 * (i % kBlock);
            return {p[0], p[1], p[2]};
        }
        return spilledAt(i);
    }
    void shrinkToFit();

private:
    std::array<float, 3> spilledAt(uint64_t i) const;
    std::vector<std::unique_ptr<float[]>> blocks_;  // blocks first_block_ .. (the last partial)
    uint64_t first_block_ = 0, spilled_blocks_ = 0, count_ = 0;
    int fd_ = -1;
    std::filesystem::path spill_path_;
    struct Chunk {
        uint64_t number = UINT64_MAX;
        std::vector<float> values;
    };
    mutable std::vector<Chunk> cache_;
    mutable Status read_error_;  // the first failed read-back (reported by append's caller)
public:
    // The first read-back that failed (spilled positions then read as 0): the importer checks it.
    const Status& readError() const { return read_error_; }
};

struct ObjScene {
    ObjPositions positions;
    std::vector<ObjObject> objects;
};

// What a streaming read hands over as it goes, in file order: each mesh (not empty) as soon as
// its last face has been read (the next mesh or object began, or the file ended), then each object
// once its last mesh has been; `scene` holds the positions read so far. The sink may empty the
// mesh's index lists (the importer frees them as it flattens them). A sink's error stops the read.
class ObjSink {
public:
    virtual ~ObjSink() = default;
    virtual Status mesh(const ObjScene& scene, ObjObject& object, ObjMesh& mesh) = 0;
    virtual Status object(const ObjScene& scene, ObjObject& object) = 0;
    // At a mesh's first triangle: whether the sink takes its triangles as they are read
    // (triangles(), in file order, a few hundred at a time, 3 corners each; then the mesh keeps no
    // triangle lists and mesh() comes at its end as before) instead of whole at its end.
    virtual bool direct(const ObjScene& scene, ObjObject& object, ObjMesh& mesh) {
        (void)scene, (void)object, (void)mesh;
        return false;
    }
    virtual Status triangles(const ObjScene& scene, ObjMesh& mesh,
                             std::span<const uint32_t> corners) {
        (void)scene, (void)mesh, (void)corners;
        return {};
    }
    virtual void progress(uint64_t bytes_read, uint64_t file_size) {
        (void)bytes_read, (void)file_size;
    }
    // Before the read: how many positions the file holds (its `v` lines, counted by a quick pass
    // over a regular file), for the sink to size what it makes per position (a hint: an array
    // grown by doubling holds its old and new copies at once). (The reader's own positions grow
    // by doubling: reserving them too measured 9 MiB more at the peak on a 3 M triangle town.)
    virtual void expectPositions(uint64_t count) { (void)count; }
    // Where the positions may be spilled (ObjPositions::spillTo); empty (the default): held.
    virtual std::filesystem::path spillFolder() const { return {}; }
};

// Errors name the file and the line: a malformed number, a vertex index out of range.
// The whole scene, empty meshes dropped.
Result<ObjScene> readObj(const std::filesystem::path& path);
// Streamed to `sink`: only the positions and the index lists of the mesh being read are held
// (what the sink keeps aside). Returns the number of meshes handed over. With `threads` other
// than 1 (0 = every core) the file is read and its numbers parsed on a second thread while the
// sink works on the calling one (the same calls either way; the sink is only called there).
Result<size_t> readObj(const std::filesystem::path& path, ObjSink& sink, int threads = 0);

}  // namespace nav::importer
