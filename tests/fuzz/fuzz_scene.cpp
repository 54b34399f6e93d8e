// Fuzz target: the scene importer's walk of an Assimp scene (flattenAssimpScene: what importScene
// does after Assimp's parser), on scenes built from the input's bytes instead of parsed, so the
// fuzzer reaches our code without fuzzing Assimp's parsers (out of scope). A scene keeps the
// invariants Assimp's Triangulate, SortByPType and ValidateDataStructure steps guarantee (mesh,
// vertex and material indices in range, faces of 1 to 3 corners, a tree of nodes, at least one
// vertex and one face per mesh); everything else is the input's: node tree, names (the built-in
// tag rules' prefixes among them: links, ladders, doors, markers, ignore, obstacle, areas),
// transforms, vertices (non-finite and huge ones included), faces, materials, meshes shared by
// several nodes, the up axis, scale, winding and double-sidedness.
#include <assimp/material.h>
#include <assimp/scene.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <iterator>
#include <string>
#include <vector>

#include "lib/common/context.h"
#include "lib/importer/scene_import.h"
#include "tests/fuzz/fuzz_support.h"

namespace {

// The input read front to back; zeros once it runs out.
class Reader {
public:
    Reader(const uint8_t* data, size_t size) : data_(data), size_(size) {}
    uint8_t u8() { return pos_ < size_ ? data_[pos_++] : 0; }
    uint32_t u32() {
        uint32_t v = 0;
        for (int i = 0; i < 4; ++i) v |= uint32_t(u8()) << (8 * i);
        return v;
    }
    float f32() {
        const uint32_t bits = u32();
        float f;
        std::memcpy(&f, &bits, sizeof(f));
        return f;
    }
    // A coordinate: mostly on a small grid (so triangles are neither all degenerate nor all
    // apart), sometimes any float at all.
    float coordinate() {
        const uint8_t mode = u8();
        if ((mode & 7) == 0) return f32();
        return float(int(u8()) - 128) * (mode & 8 ? 0.25f : 1.0f);
    }
    std::string name() {
        static const char* const kNames[] = {"",
                                             "floor",
                                             "link_jump_1",
                                             "link_drop_twoway_2",
                                             "Link_Fly",
                                             "link_",
                                             "link_nosuchtype",
                                             "ladder_1",
                                             "door_main",
                                             "door_oak",
                                             "nav_bounds",
                                             "nav_volume_water",
                                             "nav_volume_forbid",
                                             "nav_seed",
                                             "nav_poi_health_2",
                                             "nav_waypoint_a",
                                             "nav_cluster_1",
                                             "water_pool",
                                             "mud",
                                             "ignore_me",
                                             "trigger_box",
                                             "obstacle_crate",
                                             "nowalk",
                                             "blocker",
                                             "link_jump_over_water",
                                             "door_mud_room",
                                             "Cube.001",
                                             "nonav"};
        const uint8_t pick = u8();
        if (pick < 2 * std::size(kNames)) return kNames[pick % std::size(kNames)];
        std::string s(u8() % 24, ' ');
        for (char& c : s) c = char(u8());
        return s;
    }

private:
    const uint8_t* data_;
    size_t size_;
    size_t pos_ = 0;
};

aiMatrix4x4 transform(Reader& in) {
    aiMatrix4x4 m;  // identity
    switch (in.u8() % 4) {
        case 0: break;
        case 1:  // translation
            m.a4 = in.coordinate(), m.b4 = in.coordinate(), m.c4 = in.coordinate();
            break;
        case 2:  // scale (mirrors and zero included) and translation
            m.a1 = in.coordinate() / 8, m.b2 = in.coordinate() / 8, m.c3 = in.coordinate() / 8;
            m.a4 = in.coordinate(), m.b4 = in.coordinate(), m.c4 = in.coordinate();
            break;
        default:  // any matrix
            for (unsigned r = 0; r < 4; ++r)
                for (unsigned c = 0; c < 4; ++c) m[r][c] = in.f32();
    }
    return m;
}

aiMesh* mesh(Reader& in, unsigned materials) {
    auto* m = new aiMesh();
    m->mName = aiString(in.name());
    m->mMaterialIndex = materials > 0 ? in.u8() % materials : 0;
    m->mNumVertices = 1 + in.u8() % 48;
    m->mVertices = new aiVector3D[m->mNumVertices];
    for (unsigned v = 0; v < m->mNumVertices; ++v)
        m->mVertices[v] = aiVector3D(in.coordinate(), in.coordinate(), in.coordinate());
    // One primitive type per mesh, as SortByPType leaves them (points are removed by the
    // importer's settings, but a stray one is harmless to keep).
    const uint8_t kind = in.u8();
    const unsigned corners = kind % 8 == 0 ? 2 : kind % 31 == 1 ? 1 : 3;
    m->mPrimitiveTypes = corners == 3   ? aiPrimitiveType_TRIANGLE
                         : corners == 2 ? aiPrimitiveType_LINE
                                        : aiPrimitiveType_POINT;
    m->mNumFaces = 1 + in.u8() % 48;
    m->mFaces = new aiFace[m->mNumFaces];
    for (unsigned f = 0; f < m->mNumFaces; ++f) {
        aiFace& face = m->mFaces[f];
        face.mNumIndices = corners;
        face.mIndices = new unsigned[corners];
        for (unsigned k = 0; k < corners; ++k) face.mIndices[k] = in.u8() % m->mNumVertices;
    }
    return m;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    auto assimp = nav::importer::assimpLibrary();
    if (!assimp) __builtin_trap();  // the fuzz build links Assimp: it must load
    Reader in(data, size);

    nav::importer::ImportParams params;
    const uint8_t flags = in.u8();
    params.up = flags & 1 ? nav::importer::UpAxis::z : nav::importer::UpAxis::y;
    params.flip_winding = (flags & 2) != 0;
    params.double_sided = (flags & 4) != 0;
    static const float kScales[] = {1.0f, 0.01f, 100.0f, 1e-30f, 1e30f, 3.5f};
    params.scale = kScales[(flags >> 3) % std::size(kScales)];
    params.threads = 1;

    auto* scene = new aiScene();
    scene->mNumMaterials = in.u8() % 4;
    if (scene->mNumMaterials > 0) {
        scene->mMaterials = new aiMaterial*[scene->mNumMaterials];
        for (unsigned i = 0; i < scene->mNumMaterials; ++i) {
            scene->mMaterials[i] = new aiMaterial();
            const aiString name(in.name());
            scene->mMaterials[i]->AddProperty(&name, AI_MATKEY_NAME);
        }
    }
    scene->mNumMeshes = 1 + in.u8() % 8;
    scene->mMeshes = new aiMesh*[scene->mNumMeshes];
    for (unsigned i = 0; i < scene->mNumMeshes; ++i)
        scene->mMeshes[i] = mesh(in, scene->mNumMaterials);

    // The node tree: node 0 is the root, each later node a child of an earlier one.
    const unsigned node_count = 1 + in.u8() % 24;
    std::vector<aiNode*> nodes;
    std::vector<std::vector<unsigned>> children(node_count);
    for (unsigned i = 0; i < node_count; ++i) {
        auto* node = new aiNode(in.name());
        node->mTransformation = transform(in);
        node->mNumMeshes = in.u8() % 4;
        if (node->mNumMeshes > 0) {
            node->mMeshes = new unsigned[node->mNumMeshes];
            for (unsigned k = 0; k < node->mNumMeshes; ++k)
                node->mMeshes[k] = in.u8() % scene->mNumMeshes;
        }
        if (i > 0) children[in.u8() % i].push_back(i);
        nodes.push_back(node);
    }
    for (unsigned i = 0; i < node_count; ++i) {
        if (children[i].empty()) continue;
        nodes[i]->mNumChildren = unsigned(children[i].size());
        nodes[i]->mChildren = new aiNode*[children[i].size()];
        for (size_t k = 0; k < children[i].size(); ++k) {
            nodes[i]->mChildren[k] = nodes[children[i][k]];
            nodes[children[i][k]]->mParent = nodes[i];
        }
    }
    scene->mRootNode = nodes[0];

    nav::Context context;
    auto geometry =
        nav::importer::flattenAssimpScene(**assimp, *scene, params, "fuzz.glb", context);
    if (geometry.ok()) {
        const auto& g = geometry.value();
        const size_t vertices = g.vertices.size() / 3;
        for (uint32_t index : g.triangles)
            if (index >= vertices) __builtin_trap();  // indices must be in range
        for (float v : g.vertices)
            if (!std::isfinite(v)) __builtin_trap();  // non-finite vertices are errors
        nav::fuzz::g_sink += g.triangles.size() + g.links.size() + g.markers.size();
    }
    delete scene;  // its nodes, meshes and materials with it
    return 0;
}
