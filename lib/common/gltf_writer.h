// The one glTF 2.0 binary (GLB) writer, for the debug views (lib/view) and the sample-level
// generator (tools/levelgen). Layout (https://registry.khronos.org/glTF/specs/2.0/): a 12-byte
// header ("glTF", version 2, total length), a JSON chunk padded with spaces and, when there is
// binary data, a BIN chunk padded with zeros, both to 4 bytes; all numbers little-endian. The
// caller builds the document (asset, scenes, nodes, meshes, materials); the writer owns the one
// buffer and its views and accessors, and appends them to the document when it finishes, so
// every file has the same structure and the same bytes for the same content.
#pragma once

#include <nlohmann/json.hpp>

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace nav {

class GltfWriter {
public:
    static constexpr int kArrayBuffer = 34962;         // vertex attributes
    static constexpr int kElementArrayBuffer = 34963;  // indices
    static constexpr int kFloat = 5126, kUnsignedInt = 5125;

    // POSITION: float VEC3 (xyz per vertex) with the per-axis min / max the spec requires.
    // Returns the accessor index.
    size_t addPositions(std::span<const float> xyz);
    // A float attribute of `components` per element (COLOR_0: 4). Returns the accessor index.
    size_t addFloats(std::span<const float> values, int components);
    // Triangle or line indices (uint32 SCALAR). Returns the accessor index.
    size_t addIndices(std::span<const uint32_t> indices);
    size_t accessorCount() const { return accessors_.size(); }

    // The GLB file: `document` gets "accessors", "bufferViews" and "buffers" (when any data was
    // added), then the JSON and BIN chunks are framed.
    std::vector<uint8_t> finish(nlohmann::ordered_json document);

private:
    size_t addView(const void* data, size_t bytes, int target);
    std::vector<uint8_t> bin_;
    nlohmann::ordered_json views_ = nlohmann::ordered_json::array();
    nlohmann::ordered_json accessors_ = nlohmann::ordered_json::array();
};

}  // namespace nav
