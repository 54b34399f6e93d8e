// Assimp-based import. We flatten the node hierarchy ourselves (rather than with
// aiProcess_PreTransformVertices) so each triangle keeps the name of the node it came from,
// which the tag rules match against.
#include <assimp/postprocess.h>
#include <assimp/scene.h>
#include <assimp/Importer.hpp>

#include <cmath>
#include <cstring>
#include <unordered_map>

#include "formats/bytes.h"
#include "formats/container.h"
#include "lib/common/file_io.h"
#include "lib/importer/import.h"

namespace nav::importer {
namespace {

struct VertexKey {
    uint32_t bits[3];
    bool operator==(const VertexKey&) const = default;
};
struct VertexKeyHash {
    size_t operator()(const VertexKey& k) const {
        uint64_t h = 0xcbf29ce484222325ull;
        for (uint32_t b : k.bits) h = (h ^ b) * 0x100000001b3ull;
        return size_t(h ^ (h >> 29));
    }
};

class SceneFlattener {
public:
    SceneFlattener(const aiScene& scene, const ImportParams& params, const std::string& file,
                   Context& context)
        : scene_(scene), params_(params), file_(file), context_(context) {
        geometry_.areas = params.tags.areas;
        geometry_.source_mesh_count = scene.mNumMeshes;
    }

    Status run() {
        total_meshes_ = countMeshInstances(scene_.mRootNode);
        return visit(scene_.mRootNode, aiMatrix4x4());
    }
    // Returns the geometry with vertices that no kept triangle uses removed (those of ignored
    // or degenerate triangles), keeping the remaining vertices in their original order.
    geometry::Geometry take() {
        const size_t count = geometry_.vertexCount();
        std::vector<uint32_t> new_index(count, UINT32_MAX);
        for (uint32_t v : geometry_.triangles) new_index[v] = 0;
        std::vector<float> kept;
        kept.reserve(geometry_.vertices.size());
        for (size_t v = 0; v < count; ++v) {
            if (new_index[v] == UINT32_MAX) continue;
            new_index[v] = uint32_t(kept.size() / 3);
            kept.insert(kept.end(), geometry_.vertices.begin() + ptrdiff_t(3 * v),
                        geometry_.vertices.begin() + ptrdiff_t(3 * v + 3));
        }
        for (uint32_t& v : geometry_.triangles) v = new_index[v];
        geometry_.vertices = std::move(kept);
        return std::move(geometry_);
    }

private:
    size_t countMeshInstances(const aiNode* node) const {
        size_t count = node->mNumMeshes;
        for (unsigned i = 0; i < node->mNumChildren; ++i)
            count += countMeshInstances(node->mChildren[i]);
        return count;
    }

    Status visit(const aiNode* node, const aiMatrix4x4& parent) {
        if (context_.cancelled()) return makeError(ErrorKind::cancelled, "import cancelled");
        const aiMatrix4x4 transform = parent * node->mTransformation;
        for (unsigned i = 0; i < node->mNumMeshes; ++i) {
            const unsigned mesh_index = node->mMeshes[i];
            if (mesh_index >= scene_.mNumMeshes)
                return inputError("{}: node '{}' references missing mesh {}", file_,
                                  node->mName.C_Str(), mesh_index);
            if (Status s = addMesh(*node, *scene_.mMeshes[mesh_index], transform); !s) return s;
            context_.progress("import", ++done_meshes_, total_meshes_);
        }
        for (unsigned i = 0; i < node->mNumChildren; ++i)
            if (Status s = visit(node->mChildren[i], transform); !s) return s;
        return {};
    }

    Status addMesh(const aiNode& node, const aiMesh& mesh, const aiMatrix4x4& transform) {
        const std::string node_name = node.mName.C_Str();
        const std::string mesh_name = mesh.mName.C_Str();
        std::string material_name;
        if (mesh.mMaterialIndex < scene_.mNumMaterials) {
            aiString name;
            if (scene_.mMaterials[mesh.mMaterialIndex]->Get(AI_MATKEY_NAME, name) == AI_SUCCESS)
                material_name = name.C_Str();
        }
        const int area = resolveTag(params_.tags, node_name, mesh_name, material_name);
        if (!(mesh.mPrimitiveTypes & aiPrimitiveType_TRIANGLE)) return {};  // points/lines only

        // Transform all vertices first so a non-finite one is reported even if unused.
        std::vector<uint32_t> remap(mesh.mNumVertices);
        const bool ignored = area < 0;
        for (unsigned v = 0; v < mesh.mNumVertices; ++v) {
            const aiVector3D world = transform * mesh.mVertices[v];
            float p[3] = {world.x, world.y, world.z};
            if (params_.up == UpAxis::z) {
                const float y = p[1];
                p[1] = p[2];
                p[2] = -y;
            }
            for (float& c : p) c *= params_.scale;
            for (float c : p) {
                if (!std::isfinite(c))
                    return inputError(
                        "{}: mesh '{}' (node '{}'): vertex {} has a non-finite coordinate "
                        "({}, {}, {})",
                        file_, mesh_name, node_name, v, mesh.mVertices[v].x, mesh.mVertices[v].y,
                        mesh.mVertices[v].z);
            }
            if (!ignored) remap[v] = internVertex(p);
        }

        uint32_t object_index = 0;
        bool object_created = false;
        for (unsigned f = 0; f < mesh.mNumFaces; ++f) {
            const aiFace& face = mesh.mFaces[f];
            if (face.mNumIndices != 3) continue;  // points and lines left by SortByPType
            for (int k = 0; k < 3; ++k)
                if (face.mIndices[k] >= mesh.mNumVertices)
                    return inputError("{}: mesh '{}' face {} uses vertex {}, only {} exist", file_,
                                      mesh_name, f, face.mIndices[k], mesh.mNumVertices);
            if (ignored) {
                ++geometry_.dropped_ignored;
                continue;
            }
            const uint32_t a = remap[face.mIndices[0]];
            const uint32_t b = remap[face.mIndices[1]];
            const uint32_t c = remap[face.mIndices[2]];
            if (isDegenerate(a, b, c)) {
                ++geometry_.dropped_degenerate;
                continue;
            }
            if (!object_created) {
                object_index = uint32_t(geometry_.objects.size());
                geometry_.objects.push_back(
                    {node_name.empty() ? mesh_name : node_name, material_name});
                object_created = true;
            }
            geometry_.triangles.insert(geometry_.triangles.end(), {a, b, c});
            geometry_.triangle_areas.push_back(uint8_t(area));
            geometry_.triangle_objects.push_back(object_index);
        }
        return {};
    }

    uint32_t internVertex(const float p[3]) {
        VertexKey key;
        for (int i = 0; i < 3; ++i) {
            const float c = p[i] == 0.0f ? 0.0f : p[i];  // fold -0 into +0
            std::memcpy(&key.bits[i], &c, 4);
        }
        auto [it, inserted] = vertex_ids_.try_emplace(key, uint32_t(geometry_.vertices.size() / 3));
        if (inserted) geometry_.vertices.insert(geometry_.vertices.end(), {p[0], p[1], p[2]});
        return it->second;
    }

    // A triangle is degenerate when two corners coincide or its area is negligible against its
    // longest edge (a sliver with collinear corners).
    bool isDegenerate(uint32_t a, uint32_t b, uint32_t c) const {
        if (a == b || b == c || a == c) return true;
        const float* pa = &geometry_.vertices[size_t(a) * 3];
        const float* pb = &geometry_.vertices[size_t(b) * 3];
        const float* pc = &geometry_.vertices[size_t(c) * 3];
        double e0[3], e1[3], e2[3];
        for (int i = 0; i < 3; ++i) {
            e0[i] = double(pb[i]) - pa[i];
            e1[i] = double(pc[i]) - pa[i];
            e2[i] = double(pc[i]) - pb[i];
        }
        const double cross[3] = {e0[1] * e1[2] - e0[2] * e1[1], e0[2] * e1[0] - e0[0] * e1[2],
                                 e0[0] * e1[1] - e0[1] * e1[0]};
        const double twice_area =
            std::sqrt(cross[0] * cross[0] + cross[1] * cross[1] + cross[2] * cross[2]);
        auto len2 = [](const double* e) { return e[0] * e[0] + e[1] * e[1] + e[2] * e[2]; };
        const double longest2 = std::max({len2(e0), len2(e1), len2(e2)});
        return twice_area <= 1e-6 * longest2;
    }

    const aiScene& scene_;
    const ImportParams& params_;
    const std::string& file_;
    Context& context_;
    geometry::Geometry geometry_;
    std::unordered_map<VertexKey, uint32_t, VertexKeyHash> vertex_ids_;
    size_t total_meshes_ = 0;
    size_t done_meshes_ = 0;
};

}  // namespace

Result<geometry::Geometry> importScene(const std::filesystem::path& path,
                                       const ImportParams& params, Context& context) {
    const std::string file = path.string();
    if (!(params.scale > 0) || !std::isfinite(params.scale))
        return makeError(ErrorKind::usage, "scale must be a positive finite number, got {}",
                         params.scale);
    std::error_code ec;
    if (!std::filesystem::exists(path, ec))
        return makeError(ErrorKind::io, "{}: no such file", file);
    if (std::filesystem::is_directory(path, ec))
        return makeError(ErrorKind::io, "{}: is a directory, expected a file", file);

    if (auto head = readFile(path); head && head->size() >= formats::kHeaderSize &&
                                    std::memcmp(head->data(), formats::kMagic, 8) == 0) {
        char kind[5];
        formats::fourccToString(formats::loadLe32(head->data() + 12), kind);
        return inputError(
            "{}: this is a navbake '{}' artifact, not level geometry; import reads "
            "source files (OBJ, glTF, FBX, ... or a MovingAI .map)",
            file, kind);
    }

    Assimp::Importer importer;
    importer.SetPropertyInteger(AI_CONFIG_PP_SBP_REMOVE,
                                aiPrimitiveType_POINT | aiPrimitiveType_LINE);
    const unsigned flags =
        aiProcess_Triangulate | aiProcess_SortByPType | aiProcess_ValidateDataStructure;
    const aiScene* scene = importer.ReadFile(file, flags);
    if (scene == nullptr)
        return inputError("{}: cannot import: {}", file, importer.GetErrorString());
    if (scene->mRootNode == nullptr || scene->mNumMeshes == 0)
        return inputError("{}: the scene is empty (no meshes)", file);

    SceneFlattener flattener(*scene, params, file, context);
    if (Status s = flattener.run(); !s) return s.error();
    geometry::Geometry geometry = flattener.take();
    if (geometry.triangleCount() == 0)
        return inputError(
            "{}: the scene has no usable triangles ({} meshes, {} degenerate and {} "
            "ignored triangles dropped)",
            file, geometry.source_mesh_count, geometry.dropped_degenerate,
            geometry.dropped_ignored);
    return geometry;
}

}  // namespace nav::importer
