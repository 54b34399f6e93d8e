#include "lib/common/gltf_writer.h"

#include <algorithm>
#include <bit>
#include <string>

namespace nav {
namespace {

static_assert(std::endian::native == std::endian::little, "the GLB writer assumes little-endian");

constexpr uint32_t kGltfMagic = 0x46546C67;  // "glTF"
constexpr uint32_t kGltfVersion = 2;
constexpr uint32_t kChunkJson = 0x4E4F534A;  // "JSON"
constexpr uint32_t kChunkBin = 0x004E4942;   // "BIN\0"

void appendBytes(std::vector<uint8_t>& out, const void* data, size_t size) {
    const auto* p = static_cast<const uint8_t*>(data);
    out.insert(out.end(), p, p + size);
}
void appendU32(std::vector<uint8_t>& out, uint32_t v) { appendBytes(out, &v, 4); }

}  // namespace

size_t GltfWriter::addView(const void* data, size_t bytes, int target) {
    views_.push_back(
        {{"buffer", 0}, {"byteOffset", bin_.size()}, {"byteLength", bytes}, {"target", target}});
    appendBytes(bin_, data, bytes);
    return views_.size() - 1;
}

size_t GltfWriter::addPositions(std::span<const float> xyz) {
    const size_t count = xyz.size() / 3;
    float lo[3] = {0, 0, 0}, hi[3] = {0, 0, 0};
    for (size_t v = 0; v < count; ++v)
        for (size_t k = 0; k < 3; ++k) {
            const float f = xyz[3 * v + k];
            lo[k] = v == 0 ? f : std::min(lo[k], f);
            hi[k] = v == 0 ? f : std::max(hi[k], f);
        }
    const size_t view = addView(xyz.data(), xyz.size() * sizeof(float), kArrayBuffer);
    accessors_.push_back({{"bufferView", view},
                          {"componentType", kFloat},
                          {"count", count},
                          {"type", "VEC3"},
                          {"min", {lo[0], lo[1], lo[2]}},
                          {"max", {hi[0], hi[1], hi[2]}}});
    return accessors_.size() - 1;
}

size_t GltfWriter::addFloats(std::span<const float> values, int components) {
    const size_t view = addView(values.data(), values.size() * sizeof(float), kArrayBuffer);
    const char* type = components == 1   ? "SCALAR"
                       : components == 2 ? "VEC2"
                       : components == 3 ? "VEC3"
                                         : "VEC4";
    accessors_.push_back({{"bufferView", view},
                          {"componentType", kFloat},
                          {"count", values.size() / size_t(components)},
                          {"type", type}});
    return accessors_.size() - 1;
}

size_t GltfWriter::addIndices(std::span<const uint32_t> indices) {
    const size_t view =
        addView(indices.data(), indices.size() * sizeof(uint32_t), kElementArrayBuffer);
    accessors_.push_back({{"bufferView", view},
                          {"componentType", kUnsignedInt},
                          {"count", indices.size()},
                          {"type", "SCALAR"}});
    return accessors_.size() - 1;
}

std::vector<uint8_t> GltfWriter::finish(nlohmann::ordered_json document) {
    if (!accessors_.empty()) {
        document["accessors"] = accessors_;
        document["bufferViews"] = views_;
        document["buffers"] = nlohmann::ordered_json::array({{{"byteLength", bin_.size()}}});
    }
    std::string text = document.dump();
    while (text.size() % 4) text += ' ';
    while (bin_.size() % 4) bin_.push_back(0);
    const bool with_bin = !bin_.empty();
    const size_t total = 12 + 8 + text.size() + (with_bin ? 8 + bin_.size() : 0);
    std::vector<uint8_t> out;
    out.reserve(total);
    appendU32(out, kGltfMagic);
    appendU32(out, kGltfVersion);
    appendU32(out, uint32_t(total));
    appendU32(out, uint32_t(text.size()));
    appendU32(out, kChunkJson);
    appendBytes(out, text.data(), text.size());
    if (with_bin) {
        appendU32(out, uint32_t(bin_.size()));
        appendU32(out, kChunkBin);
        appendBytes(out, bin_.data(), bin_.size());
    }
    return out;
}

}  // namespace nav
