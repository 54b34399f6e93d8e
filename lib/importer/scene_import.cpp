// Assimp-based import. We flatten the node hierarchy ourselves (rather than with
// aiProcess_PreTransformVertices) so each triangle keeps the name of the node it came from,
// which the tag rules match against.
//
// Links from scene objects: a "link" tag rule makes an object a link instead of (or, for doors,
// besides) geometry. Assimp is asked to keep line primitives (points are still removed), and
// line segments are read only from objects a link rule matched; every other object's lines are
// skipped, so scenes without link objects import exactly as before. All meshes of one node that
// match the same link rule form one object: its segments, or its world bounding box for ladders
// and doors, in the same world space as the triangles (node transforms, --up, --scale).
#include <assimp/postprocess.h>
#include <assimp/scene.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <cstring>
#include <fstream>
#include <new>
#include <unordered_map>

#include "formats/bytes.h"
#include "formats/container.h"
#include "formats/xxhash64.h"
#include "lib/common/file_io.h"
#include "lib/importer/assimp_library.h"
#include "lib/importer/import.h"
#include "lib/importer/obj_reader.h"
#include "lib/importer/scene_import.h"

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

// Before link objects existed Assimp removed line and point meshes, and the .geo counted the
// meshes left: those with anything but points and lines.
bool hasSurfaces(const aiMesh& mesh) {
    return (mesh.mPrimitiveTypes & ~unsigned(aiPrimitiveType_POINT | aiPrimitiveType_LINE)) != 0;
}

// The two kinds of mesh the flattener reads, behind one face: an Assimp mesh, and a run of one
// OBJ object's faces from obj_reader (its triangles or its lines, each a mesh of its own as
// Assimp's SortByPType makes them), whose vertices are the positions its faces use in the order
// of first use, as Assimp's per-corner vertices weld to.
struct AssimpMesh {
    const AssimpLibrary& assimp;
    const aiScene& scene;
    const aiMesh& mesh;
    std::string name() const { return mesh.mName.C_Str(); }
    std::string material() const {
        aiString n;
        if (mesh.mMaterialIndex < scene.mNumMaterials &&
            assimp.get_material_string(scene.mMaterials[mesh.mMaterialIndex], AI_MATKEY_NAME, &n) ==
                AI_SUCCESS)
            return n.C_Str();
        return "";
    }
    unsigned vertexCount() const { return mesh.mNumVertices; }
    aiVector3D vertex(unsigned v) const { return mesh.mVertices[v]; }
    bool triangles() const { return (mesh.mPrimitiveTypes & aiPrimitiveType_TRIANGLE) != 0; }
    bool lines() const { return (mesh.mPrimitiveTypes & aiPrimitiveType_LINE) != 0; }
    unsigned faceCount() const { return mesh.mNumFaces; }
    unsigned faceSize(unsigned f) const { return mesh.mFaces[f].mNumIndices; }
    unsigned index(unsigned f, unsigned k) const { return mesh.mFaces[f].mIndices[k]; }
    void release(unsigned) const {}  // Assimp's scene stays whole
};

class ObjMeshView {
public:
    // `local` is scratch of positions / 3 entries, all kNone on entry and on return.
    ObjMeshView(const ObjScene& scene, ObjMesh& mesh, bool lines, std::vector<uint32_t>& local)
        : scene_(scene),
          mesh_(mesh),
          lines_(lines),
          list_(lines ? mesh.lines : mesh.triangles),
          local_(local) {
        for (size_t i = 0; i < list_.size(); ++i)
            if (const uint32_t g = list_[i]; local_[g] == kNone) {
                local_[g] = uint32_t(order_.size());
                order_.push_back(g);
            }
    }
    ~ObjMeshView() {
        for (uint32_t g : order_) local_[g] = kNone;
    }
    ObjMeshView(const ObjMeshView&) = delete;
    ObjMeshView& operator=(const ObjMeshView&) = delete;
    static constexpr uint32_t kNone = 0xFFFFFFFFu;

    std::string name() const { return mesh_.name; }
    std::string material() const { return mesh_.material; }
    unsigned vertexCount() const { return unsigned(order_.size()); }
    aiVector3D vertex(unsigned v) const {
        const std::array<float, 3> p = scene_.positions.at(order_[v]);
        return {p[0], p[1], p[2]};
    }
    bool triangles() const { return !lines_; }
    bool lines() const { return lines_; }
    unsigned faceCount() const { return unsigned(list_.size() / (lines_ ? 2 : 3)); }
    unsigned faceSize(unsigned) const { return lines_ ? 2 : 3; }
    unsigned index(unsigned f, unsigned k) const {
        return local_[list_[size_t(f) * (lines_ ? 2 : 3) + k]];
    }
    // Faces before f will not be read again: their index blocks go back.
    void release(unsigned f) const { list_.releaseBefore(size_t(f) * (lines_ ? 2 : 3)); }

private:
    const ObjScene& scene_;
    ObjMesh& mesh_;
    bool lines_;
    ObjIndexList& list_;
    std::vector<uint32_t>& local_;
    std::vector<uint32_t> order_;
};

bool containsNoCase(std::string_view text, std::string_view part) {
    const auto lower = [](char c) { return char(std::tolower(static_cast<unsigned char>(c))); };
    return std::search(text.begin(), text.end(), part.begin(), part.end(),
                       [&](char a, char b) { return lower(a) == lower(b); }) != text.end();
}

// One object (the meshes of a node that one link rule matched) on its way to becoming links.
struct LinkObject {
    const TagRule* rule = nullptr;
    std::string name;                                           // the name the rule matched
    std::vector<std::array<std::array<float, 3>, 2>> segments;  // world space, line faces in order
    float min[3] = {0, 0, 0}, max[3] = {0, 0, 0};               // world bounds of its vertices
    bool has_vertices = false;
};

// One marker object (the meshes of a node that one marker rule matched) on its way to becoming a
// geometry::SceneMarker.
struct MarkerObject {
    const TagRule* rule = nullptr;
    geometry::MarkerKind kind{};
    std::string name;                            // the name the rule matched
    std::vector<std::array<float, 3>> vertices;  // world space
};

class SceneFlattener final : public ObjSink {
public:
    SceneFlattener(const AssimpLibrary* assimp, const aiScene* scene, const ImportParams& params,
                   const std::string& file, double unit_scale, Context& context)
        : assimp_(assimp),
          scene_(scene),
          params_(params),
          file_(file),
          context_(context),
          scale_(float(double(params.scale) * unit_scale)) {
        geometry_.areas = params.tags.areas;
        geometry_.source_mesh_count = 0;
        if (scene != nullptr)
            for (unsigned m = 0; m < scene->mNumMeshes; ++m)
                geometry_.source_mesh_count += hasSurfaces(*scene->mMeshes[m]) ? 1 : 0;
        file_name_ = std::filesystem::path(file).filename().string();
    }

    // An Assimp scene (constructed with it).
    Status run() {
        total_meshes_ = countMeshInstances(scene_->mRootNode);
        return visit(scene_->mRootNode, aiMatrix4x4());
    }

    // An OBJ file read by obj_reader (constructed without a scene), as it is read (ObjSink):
    // each object a node under the root, its meshes in order, lines before triangles (as
    // SortByPType orders them). Each mesh is flattened as soon as its last face is read and its
    // index lists freed as they are used, so neither the file's index lists nor its meshes are
    // ever all in memory (only the positions read so far).
    Status mesh(const ObjScene& obj, ObjObject& object, ObjMesh& mesh) override {
        if (context_.cancelled()) return makeError(ErrorKind::cancelled, "import cancelled");
        geometry_.source_mesh_count += mesh.triangles.empty() && !mesh.direct ? 0 : 1;
        if (mesh.direct) {  // its triangles are in; its scratch entries back to kNone
            for (uint32_t g : direct_.order) local_[g] = ObjMeshView::kNone;
            direct_ = {};
        }
        if (mesh.lines.empty() && mesh.triangles.empty()) return {};  // (a direct mesh's are in)
        local_.resize(size_t(obj.positions.count()), ObjMeshView::kNone);
        const aiMatrix4x4 identity;
        for (bool lines : {true, false}) {
            if ((lines ? mesh.lines : mesh.triangles).empty()) continue;
            {
                const ObjMeshView view(obj, mesh, lines, local_);
                if (Status s = addMesh(object.name, view, identity, link_objects_, marker_objects_);
                    !s)
                    return s;
            }
            (lines ? mesh.lines : mesh.triangles).clear();
        }
        return {};
    }
    Status object(const ObjScene&, ObjObject& object) override {
        const aiMatrix4x4 identity;
        Status s = finishNode(object.name, identity, object.meshes.empty(), link_objects_,
                              marker_objects_);
        link_objects_.clear();
        marker_objects_.clear();
        return s;
    }
    // A mesh of ground (no link or marker rule: its triangles are the only thing it gives) is
    // flattened face by face as it is read, exactly as addMesh would at its end: its vertices
    // interned in the order of first use (addMesh's order for an OBJ mesh), then each triangle
    // dropped (ignored, degenerate) or kept. Its index lists are never made.
    bool direct(const ObjScene&, ObjObject& object, ObjMesh& mesh) override {
        const TagRule* rule = matchTagRule(params_.tags, object.name, mesh.name, mesh.material);
        geometry::MarkerKind kind{};
        if (rule != nullptr && (markerTag(rule->tag, kind) || rule->tag == kTagLink)) return false;
        direct_ = {};
        direct_.area = resolveTag(params_.tags, object.name, mesh.name, mesh.material);
        direct_.node = object.name;
        return true;
    }
    Status triangles(const ObjScene& obj, ObjMesh& mesh,
                     std::span<const uint32_t> corners) override {
        if (context_.cancelled()) return makeError(ErrorKind::cancelled, "import cancelled");
        if (strips_ != nullptr) return stripTriangles(obj, mesh, corners);
        const bool ignored = direct_.area < 0;
        if (local_.size() < obj.positions.count())
            local_.resize(size_t(obj.positions.count()), ObjMeshView::kNone);
        // The positions first used here, in order of first use, with their world points and
        // hashes; then interned in that order, each one's table slot (and the vertex in it)
        // fetched a few positions ahead: the table is far larger than the caches.
        pending_.clear();
        for (const uint32_t g : corners) {
            if (local_[g] != ObjMeshView::kNone) continue;
            const std::array<float, 3> q = obj.positions.at(g);
            const aiVector3D local(q[0], q[1], q[2]);
            Pending next{g, {}, 0};
            worldPoint(aiMatrix4x4() * local, next.p);  // as addMesh
            if (Status s =
                    checkFinite(mesh.name, direct_.node, direct_.order.size(), local, next.p);
                !s)
                return s;
            direct_.order.push_back(g);
            if (ignored) {
                local_[g] = 0;
                continue;
            }
            local_[g] = kPendingVertex;
            next.hash = VertexKeyHash{}(keyOf(next.p));
            pending_.push_back(next);
        }
        constexpr size_t kAhead = 8;
        for (size_t i = 0; i < pending_.size(); ++i) {
            const size_t mask = vertex_slots_.size() - 1;
            if (i + 2 * kAhead < pending_.size() && !vertex_slots_.empty())
                __builtin_prefetch(&vertex_slots_[pending_[i + 2 * kAhead].hash & mask]);
            if (i + kAhead < pending_.size() && !vertex_slots_.empty())
                if (const uint32_t slot = vertex_slots_[pending_[i + kAhead].hash & mask];
                    slot != 0)
                    __builtin_prefetch(&geometry_.vertices[3 * size_t(slot - 1)]);
            local_[pending_[i].g] = internVertex(pending_[i].p, pending_[i].hash);
        }
        if (ignored) {
            geometry_.dropped_ignored += uint32_t(corners.size() / 3);
            return {};
        }
        for (size_t k = 0; k + 2 < corners.size(); k += 3)
            if (Status s =
                    keepTriangle(local_[corners[k]], local_[corners[k + 1]], local_[corners[k + 2]],
                                 direct_.area, direct_.node, mesh.name, mesh.material,
                                 direct_.object_index, direct_.object_created);
                !s)
                return s;
        return {};
    }
    void progress(uint64_t bytes_read, uint64_t file_size) override {
        if (file_size > 0) context_.progress("import", bytes_read, file_size);
    }
    // Every vertex of an OBJ is one of its positions' world points: at most `count` of them.
    // A hint: where the room cannot be had, the arrays grow as they are filled.
    void expectPositions(uint64_t count) override {
        if (count >= (uint64_t(1) << 32) || strips_ != nullptr) return;
        try {
            geometry_.vertices.reserve(3 * size_t(count));
            local_.reserve(size_t(count));
            // internVertex's table at the size it would grow to (no rehash on the way).
            if (geometry_.vertices.empty()) {
                size_t slots = 1024;
                while (4 * (count + 1) > 3 * slots) slots *= 2;
                vertex_slots_.assign(slots, 0);
            }
        } catch (const std::bad_alloc&) {
        }
    }
    std::filesystem::path spillFolder() const override { return params_.spill_folder; }
    // After the whole OBJ file: the scratch back.
    void objDone() { local_ = std::vector<uint32_t>(); }

    // The strips layout (stripTo): a direct mesh's triangles go to the strips with their corners'
    // world points, face by face; nothing is kept per position (no welding: the strips hold
    // points, and a triangle is degenerate by its points exactly as by welded corners).
    Status stripTriangles(const ObjScene& obj, ObjMesh& mesh, std::span<const uint32_t> corners) {
        float p[3][3];
        for (size_t k = 0; k + 2 < corners.size(); k += 3) {
            for (int c = 0; c < 3; ++c) {
                const uint32_t g = corners[k + size_t(c)];
                const std::array<float, 3> q = obj.positions.at(g);
                const aiVector3D local(q[0], q[1], q[2]);
                worldPoint(aiMatrix4x4() * local, p[c]);
                if (Status s = checkFinite(mesh.name, direct_.node, g, local, p[c]); !s) return s;
            }
            if (direct_.area < 0) {
                ++geometry_.dropped_ignored;
                continue;
            }
            if (Status s =
                    keepTrianglePoints(p[0], p[1], p[2], direct_.area, direct_.node, mesh.name,
                                       mesh.material, direct_.object_index, direct_.object_created);
                !s)
                return s;
        }
        return obj.positions.readError();
    }

    // Returns the geometry with vertices that no kept triangle uses removed (those of ignored
    // or degenerate triangles), keeping the remaining vertices in their original order.
    // Streamed triangles (streamTo) are renumbered in their streams when vertices were dropped.
    Result<geometry::Geometry> take() {
        vertex_slots_ = std::vector<uint32_t>();  // (`= {}` would keep the room)
        if (strips_ != nullptr) {  // the triangles are the strips' (with their points)
            geometry_.vertices = std::vector<float>();
            return std::move(geometry_);
        }
        const size_t count = geometry_.vertexCount();
        std::vector<uint32_t> new_index(count, UINT32_MAX);
        if (streams_ != nullptr) {
            used_.resize(count, 0);
            for (size_t v = 0; v < count; ++v)
                if (used_[v]) new_index[v] = 0;
            used_ = std::vector<uint8_t>();
        }
        for (uint32_t v : geometry_.triangles) new_index[v] = 0;
        // In place: a kept vertex only moves down (no second copy of the vertex array).
        std::vector<float>& vertices = geometry_.vertices;
        size_t kept = 0;
        for (size_t v = 0; v < count; ++v) {
            if (new_index[v] == UINT32_MAX) continue;
            new_index[v] = uint32_t(kept);
            std::copy_n(vertices.begin() + ptrdiff_t(3 * v), 3,
                        vertices.begin() + ptrdiff_t(3 * kept));
            ++kept;
        }
        for (uint32_t& v : geometry_.triangles) v = new_index[v];
        if (streams_ != nullptr && kept < count)
            if (Status s = streams_->renumber(new_index); !s) return s.error();
        vertices.resize(3 * kept);
        if (kept < count) vertices.shrink_to_fit();
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
        std::vector<LinkObject> link_objects;  // of this node, in the order first matched
        std::vector<MarkerObject> marker_objects;
        for (unsigned i = 0; i < node->mNumMeshes; ++i) {
            const unsigned mesh_index = node->mMeshes[i];
            if (mesh_index >= scene_->mNumMeshes)
                return inputError("{}: node '{}' references missing mesh {}", file_,
                                  node->mName.C_Str(), mesh_index);
            if (Status s = addMesh(node->mName.C_Str(),
                                   AssimpMesh{*assimp_, *scene_, *scene_->mMeshes[mesh_index]},
                                   transform, link_objects, marker_objects);
                !s)
                return s;
            context_.progress("import", ++done_meshes_, total_meshes_);
        }
        if (Status s = finishNode(node->mName.C_Str(), transform,
                                  node->mNumMeshes == 0 && node != scene_->mRootNode, link_objects,
                                  marker_objects);
            !s)
            return s;
        for (unsigned i = 0; i < node->mNumChildren; ++i)
            if (Status s = visit(node->mChildren[i], transform); !s) return s;
        return {};
    }

    // After a node's meshes: its link objects become links, an empty node (one without meshes,
    // not the root) a marker if a rule names it, its marker objects markers.
    Status finishNode(const std::string& name, const aiMatrix4x4& transform, bool empty,
                      const std::vector<LinkObject>& link_objects,
                      const std::vector<MarkerObject>& marker_objects) {
        for (const LinkObject& object : link_objects)
            if (Status s = addLinks(object); !s) return s;
        if (empty)
            if (Status s = addEmpty(name, transform); !s) return s;
        for (const MarkerObject& object : marker_objects)
            if (Status s = addMarker(object, nullptr); !s) return s;
        return {};
    }

    // A source vertex in world space: the node's transform, then Z-up -> Y-up, then the scale.
    // Errors (non-finite results) name the mesh, node and vertex.
    template <class Mesh>
    Status worldVertex(const std::string& node_name, const Mesh& mesh, unsigned v,
                       const aiMatrix4x4& transform, float p[3]) const {
        const aiVector3D local = mesh.vertex(v);
        worldPoint(transform * local, p);
        return checkFinite(mesh.name(), node_name, v, local, p);
    }
    // An error naming the mesh, node and vertex when the world point p of `local` is not finite.
    Status checkFinite(const std::string& mesh_name, const std::string& node_name, size_t v,
                       const aiVector3D& local, const float p[3]) const {
        for (int k = 0; k < 3; ++k)
            if (!std::isfinite(p[k]))
                return inputError(
                    "{}: mesh '{}' (node '{}'): vertex {} has a non-finite coordinate ({}, {}, {})",
                    file_, mesh_name, node_name, v, local.x, local.y, local.z);
        return {};
    }
    // A point of the file's world in ours: Z-up -> Y-up, then the scale.
    void worldPoint(const aiVector3D& world, float p[3]) const {
        p[0] = world.x;
        p[1] = world.y;
        p[2] = world.z;
        if (params_.up == UpAxis::z) {
            const float y = p[1];
            p[1] = p[2];
            p[2] = -y;
        }
        for (int k = 0; k < 3; ++k) p[k] *= scale_;
    }

    // A node without meshes that a marker rule of a point kind matches (by its name): a marker
    // at its origin. Empties other rules match are left alone (they have nothing to tag).
    Status addEmpty(const std::string& name, const aiMatrix4x4& transform) {
        const TagRule* rule = matchTagRule(params_.tags, name, "", "");
        geometry::MarkerKind kind{};
        if (rule == nullptr || !markerTag(rule->tag, kind)) return {};
        if (kind == geometry::MarkerKind::bounds || kind == geometry::MarkerKind::volume ||
            kind == geometry::MarkerKind::cluster)
            return inputError(
                "{}: object '{}' is a {} marker without a mesh: model its box (or hull) as a mesh",
                file_, name, geometry::markerKindName(kind));
        float origin[3];
        worldPoint(transform * aiVector3D(0, 0, 0), origin);
        MarkerObject object{rule, kind, name, {{origin[0], origin[1], origin[2]}}};
        return addMarker(object, origin);
    }

    // The marker of one marker object; `origin` is an empty's (null for meshes).
    Status addMarker(const MarkerObject& object, const float* origin) {
        using geometry::MarkerKind;
        const MarkerRule& rule = object.rule->marker;
        geometry::SceneMarker m;
        m.kind = object.kind;
        m.name = fmt::format("{}: object '{}'", file_name_, object.name);
        m.object = object.name;
        if (object.vertices.empty())
            return inputError("{} is a {} marker without vertices", m.name,
                              geometry::markerKindName(m.kind));
        m.box = geometry::boundsOf(object.vertices);
        for (size_t a = 0; a < 3; ++a)  // an empty's transform may hold anything
            if (!std::isfinite(m.box.min[a]) || !std::isfinite(m.box.max[a]))
                return inputError("{}: a non-finite position", m.name);
        if (origin != nullptr)
            m.position = {origin[0], origin[1], origin[2]};
        else
            m.position = {(m.box.min[0] + m.box.max[0]) / 2, m.box.min[1],
                          (m.box.min[2] + m.box.max[2]) / 2};
        const bool region = m.kind == MarkerKind::bounds || m.kind == MarkerKind::volume ||
                            m.kind == MarkerKind::cluster;
        if (region) {
            for (size_t a = 0; a < 3; ++a)
                if (!(m.box.min[a] < m.box.max[a]))
                    return inputError(
                        "{}: a {} marker must have a volume, but it is flat along {} "
                        "(at {} m): give it some height or depth",
                        m.name, geometry::markerKindName(m.kind), "XYZ"[a], m.box.min[a]);
            if (rule.hull) {
                auto planes = geometry::convexHullPlanes(object.vertices);
                if (!planes) return inputError("{}: {}", m.name, planes.error().message);
                m.planes = std::move(planes).value();
            }
        }
        if (m.kind == MarkerKind::volume) {
            m.area = rule.area;
            m.cost_factor = rule.cost_factor;
            m.forbid = rule.forbid;
            m.agents = rule.agents;
            m.walkable_for = rule.walkable_for;
            if (m.area.empty() && m.cost_factor == 1 && !m.forbid && m.walkable_for.empty()) {
                // No settings in the rule: the name says what the volume does.
                const std::string word = wordAfter(object.name, "volume_");
                if (word == "forbid") {
                    m.forbid = true;
                } else if (std::any_of(
                               params_.tags.areas.begin() + 1, params_.tags.areas.end(),
                               [&](const geometry::AreaType& a) { return a.name == word; })) {
                    m.area = word;
                } else {
                    std::string areas;
                    for (size_t a = 1; a < params_.tags.areas.size(); ++a)
                        areas += (a > 1 ? ", " : "") + params_.tags.areas[a].name;
                    return inputError(
                        "{} is a volume marker that changes nothing: name it volume_<area> ({}) "
                        "or volume_forbid, or give its rule a \"marker\" with \"area\", "
                        "\"cost_factor\", \"forbid\" or \"walkable_for\"",
                        m.name, areas);
                }
            }
        }
        if (m.kind == MarkerKind::point_of_interest) {
            m.label = rule.kind.empty() ? wordAfter(object.name, "poi_") : rule.kind;
            if (m.label.empty()) m.label = "poi";
        }
        if (m.kind == MarkerKind::cluster) m.label = object.name;
        if (m.kind == MarkerKind::waypoint) m.weight = rule.weight;
        geometry_.markers.push_back(std::move(m));
        return {};
    }

    template <class Mesh>
    Status addMesh(const std::string& node_name, const Mesh& mesh, const aiMatrix4x4& transform,
                   std::vector<LinkObject>& link_objects,
                   std::vector<MarkerObject>& marker_objects) {
        const std::string mesh_name = mesh.name();
        const std::string material_name = mesh.material();
        std::string_view matched;
        const TagRule* rule =
            matchTagRule(params_.tags, node_name, mesh_name, material_name, &matched);
        geometry::MarkerKind marker_kind{};
        if (rule != nullptr && markerTag(rule->tag, marker_kind)) {
            auto object = std::find_if(
                marker_objects.begin(), marker_objects.end(),
                [&](const MarkerObject& o) { return o.rule == rule && o.name == matched; });
            if (object == marker_objects.end()) {
                marker_objects.push_back({rule, marker_kind, std::string(matched), {}});
                object = marker_objects.end() - 1;
            }
            for (unsigned v = 0; v < mesh.vertexCount(); ++v) {
                float p[3];
                if (Status s = worldVertex(node_name, mesh, v, transform, p); !s) return s;
                object->vertices.push_back({p[0], p[1], p[2]});
            }
            if (mesh.triangles())  // a proxy: its triangles are dropped
                for (unsigned f = 0; f < mesh.faceCount(); ++f)
                    geometry_.dropped_ignored += mesh.faceSize(f) == 3 ? 1 : 0;
            return {};
        }
        if (rule != nullptr && rule->tag == kTagLink) {
            auto object = std::find_if(
                link_objects.begin(), link_objects.end(),
                [&](const LinkObject& o) { return o.rule == rule && o.name == matched; });
            if (object == link_objects.end()) {
                link_objects.push_back({rule, std::string(matched), {}, {}, {}, false});
                object = link_objects.end() - 1;
            }
            if (Status s = addLinkMesh(node_name, mesh, transform, *object); !s) return s;
            if (rule->link.shape != LinkShape::door) {  // a proxy: its triangles are dropped
                if (mesh.triangles())
                    for (unsigned f = 0; f < mesh.faceCount(); ++f)
                        geometry_.dropped_ignored += mesh.faceSize(f) == 3 ? 1 : 0;
                return {};
            }
        }
        const int area = resolveTag(params_.tags, node_name, mesh_name, material_name);
        if (!mesh.triangles()) return {};  // points/lines only

        // Transform all vertices first so a non-finite one is reported even if unused.
        std::vector<uint32_t> remap(mesh.vertexCount());
        const bool ignored = area < 0;
        for (unsigned v = 0; v < mesh.vertexCount(); ++v) {
            float p[3];
            if (Status s = worldVertex(node_name, mesh, v, transform, p); !s) return s;
            if (!ignored) remap[v] = internVertex(p);
        }

        uint32_t object_index = 0;
        bool object_created = false;
        for (unsigned f = 0; f < mesh.faceCount(); ++f) {
            if ((f & 0xffff) == 0) mesh.release(f);  // faces read once from here on
            if (mesh.faceSize(f) != 3) continue;     // points and lines left by SortByPType
            for (unsigned k = 0; k < 3; ++k)
                if (mesh.index(f, k) >= mesh.vertexCount())
                    return inputError("{}: mesh '{}' face {} uses vertex {}, only {} exist", file_,
                                      mesh_name, f, mesh.index(f, k), mesh.vertexCount());
            if (ignored) {
                ++geometry_.dropped_ignored;
                continue;
            }
            if (Status s = keepTriangle(remap[mesh.index(f, 0)], remap[mesh.index(f, 1)],
                                        remap[mesh.index(f, 2)], area, node_name, mesh_name,
                                        material_name, object_index, object_created);
                !s)
                return s;
        }
        return {};
    }

    // A triangle of a mesh with area `area` (not ignored), its corners interned: dropped when
    // degenerate, else added (the mesh's object made at its first kept triangle), turned as
    // flip_winding and double_sided say.
    Status keepTriangle(uint32_t a, uint32_t b, uint32_t c, int area, const std::string& node_name,
                        const std::string& mesh_name, const std::string& material_name,
                        uint32_t& object_index, bool& object_created) {
        if (strips_ != nullptr)
            return keepTrianglePoints(&geometry_.vertices[3 * size_t(a)],
                                      &geometry_.vertices[3 * size_t(b)],
                                      &geometry_.vertices[3 * size_t(c)], area, node_name,
                                      mesh_name, material_name, object_index, object_created);
        if (isDegenerate(a, b, c)) {
            ++geometry_.dropped_degenerate;
            return {};
        }
        noteObject(node_name, mesh_name, material_name, object_index, object_created);
        if (flips(normalY(a, b, c))) std::swap(b, c);
        if (streams_ != nullptr) {
            if (used_.size() < geometry_.vertexCount()) used_.resize(geometry_.vertexCount(), 0);
            used_[a] = used_[b] = used_[c] = 1;
            streams_->add(a, b, c, uint8_t(area), object_index);
            return {};
        }
        geometry_.triangles.insert(geometry_.triangles.end(), {a, b, c});
        geometry_.triangle_areas.push_back(uint8_t(area));
        geometry_.triangle_objects.push_back(object_index);
        return {};
    }

    // The mesh's object, made at its first kept triangle.
    void noteObject(const std::string& node_name, const std::string& mesh_name,
                    const std::string& material_name, uint32_t& object_index,
                    bool& object_created) {
        if (object_created) return;
        object_index = uint32_t(geometry_.objects.size());
        geometry_.objects.push_back({node_name.empty() ? mesh_name : node_name, material_name});
        object_created = true;
    }
    // Whether a kept triangle with this normal Y is reversed: flip_winding reverses every
    // triangle; double_sided then turns those facing down (counted).
    bool flips(double normal_y) {
        bool flip = params_.flip_winding;
        if (params_.double_sided && normal_y * (flip ? -1.0 : 1.0) < 0) {
            flip = !flip;
            ++turned_up_;
        }
        return flip;
    }

    // keepTriangle for the strips layout: the corners' world points.
    Status keepTrianglePoints(const float* pa, const float* pb, const float* pc, int area,
                              const std::string& node_name, const std::string& mesh_name,
                              const std::string& material_name, uint32_t& object_index,
                              bool& object_created) {
        if (keyOf(pa) == keyOf(pb) || keyOf(pb) == keyOf(pc) || keyOf(pa) == keyOf(pc) ||
            isSliver(pa, pb, pc)) {
            ++geometry_.dropped_degenerate;
            return {};
        }
        noteObject(node_name, mesh_name, material_name, object_index, object_created);
        if (flips(normalY(pa, pb, pc))) std::swap(pb, pc);
        geometry::StripTriangle t;
        std::copy_n(pa, 3, t.p.begin());
        std::copy_n(pb, 3, t.p.begin() + 3);
        std::copy_n(pc, 3, t.p.begin() + 6);
        t.area = uint8_t(area);
        return strips_->add(t);
    }

    // Adds a mesh of a link object: its line segments (faces of two indices) and the bounds of
    // all its vertices.
    template <class Mesh>
    Status addLinkMesh(const std::string& node_name, const Mesh& mesh, const aiMatrix4x4& transform,
                       LinkObject& object) {
        std::vector<std::array<float, 3>> world(mesh.vertexCount());
        for (unsigned v = 0; v < mesh.vertexCount(); ++v) {
            if (Status s = worldVertex(node_name, mesh, v, transform, world[v].data()); !s)
                return s;
            for (int k = 0; k < 3; ++k) {
                object.min[k] = object.has_vertices ? std::min(object.min[k], world[v][size_t(k)])
                                                    : world[v][size_t(k)];
                object.max[k] = object.has_vertices ? std::max(object.max[k], world[v][size_t(k)])
                                                    : world[v][size_t(k)];
            }
            object.has_vertices = true;
        }
        if (!mesh.lines()) return {};
        for (unsigned f = 0; f < mesh.faceCount(); ++f) {
            if (mesh.faceSize(f) != 2) continue;
            for (unsigned k = 0; k < 2; ++k)
                if (mesh.index(f, k) >= mesh.vertexCount())
                    return inputError("{}: mesh '{}' line {} uses vertex {}, only {} exist", file_,
                                      mesh.name(), f, mesh.index(f, k), mesh.vertexCount());
            object.segments.push_back({world[mesh.index(f, 0)], world[mesh.index(f, 1)]});
        }
        return {};
    }

    // The links of one link object (see LinkShape).
    Status addLinks(const LinkObject& object) {
        const LinkRule& rule = object.rule->link;
        const std::string object_text = fmt::format("{}: object '{}'", file_, object.name);
        std::string word = rule.type;
        if (word.empty()) {
            if (rule.shape == LinkShape::ladder) word = "ladder";
            if (rule.shape == LinkShape::door) word = "door";
            if (rule.shape == LinkShape::line) word = linkTypeWordFromName(object.name);
        }
        geometry::LinkSpec base;
        if (word.empty())
            return inputError(
                "{} matches the link rule '{}' but its name gives no link type: name it "
                "link_<type>_... (e.g. link_drop_1) or give the rule a \"type\"",
                object_text, object.rule->pattern);
        if (!geometry::resolveLinkType(word, params_.tags.link_types, base))
            return inputError("{}: {}", object_text,
                              geometry::notALinkType(word, params_.tags.link_types));
        base.scene = true;
        base.snap = geometry::kSnapAuto;
        base.bidirectional = rule.bidirectional.value_or(rule.shape != LinkShape::line ||
                                                         containsNoCase(object.name, "_twoway"));
        base.width = rule.width;
        base.cost = rule.cost;
        base.reverse_cost = rule.reverse_cost;
        base.user_data = rule.user_data;
        const std::string name_text = fmt::format("{}: object '{}'", file_name_, object.name);
        auto add = [&](std::string name, const float from[3], const float to[3]) {
            geometry::LinkSpec link = base;
            link.id = sceneLinkId(name);
            link.name = std::move(name);
            std::copy(from, from + 3, link.from);
            std::copy(to, to + 3, link.to);
            geometry_.links.push_back(std::move(link));
        };
        const float centre[3] = {0.5f * (object.min[0] + object.max[0]),
                                 0.5f * (object.min[1] + object.max[1]),
                                 0.5f * (object.min[2] + object.max[2])};
        switch (rule.shape) {
            case LinkShape::line: {
                if (object.segments.empty())
                    return inputError(
                        "{} has no line: draw the link as a line (first point = start) or use a "
                        "ladder_ or door_ box",
                        object_text);
                for (size_t k = 0; k < object.segments.size(); ++k)
                    add(object.segments.size() == 1
                            ? name_text
                            : fmt::format("{} segment {}", name_text, k + 1),
                        object.segments[k][0].data(), object.segments[k][1].data());
                break;
            }
            case LinkShape::ladder: {
                const float bottom[3] = {centre[0], object.min[1], centre[2]};
                const float top[3] = {centre[0], object.max[1], centre[2]};
                add(name_text, bottom, top);
                break;
            }
            case LinkShape::door: {
                // Through the box along its thinner horizontal axis (X on a tie), at its floor.
                const int axis =
                    object.max[0] - object.min[0] <= object.max[2] - object.min[2] ? 0 : 2;
                float from[3] = {centre[0], object.min[1], centre[2]};
                float to[3] = {centre[0], object.min[1], centre[2]};
                from[axis] = object.min[axis];
                to[axis] = object.max[axis];
                add(name_text, from, to);
                break;
            }
        }
        return {};
    }

    // The id of the vertex at p (bit-exact, -0 = +0), added when new. An open-addressing table
    // of vertex ids + 1 (0 = empty) over geometry_.vertices: 4 bytes a slot, at most 3/4 full
    // (linear probes stay short and mostly in one cache line; at most half full, twice the table).
    uint32_t internVertex(const float p[3]) { return internVertex(p, VertexKeyHash{}(keyOf(p))); }
    // The same with the hash of p's key already computed.
    uint32_t internVertex(const float p[3], size_t hash) {
        const VertexKey key = keyOf(p);
        const size_t count = geometry_.vertices.size() / 3;
        if (4 * (count + 1) > 3 * vertex_slots_.size()) {
            vertex_slots_.assign(std::max<size_t>(1024, 2 * vertex_slots_.size()), 0);
            for (size_t v = 0; v < count; ++v) {
                size_t i =
                    VertexKeyHash{}(keyOf(&geometry_.vertices[3 * v])) & (vertex_slots_.size() - 1);
                while (vertex_slots_[i] != 0) i = (i + 1) & (vertex_slots_.size() - 1);
                vertex_slots_[i] = uint32_t(v + 1);
            }
        }
        const size_t mask = vertex_slots_.size() - 1;
        for (size_t i = hash & mask;; i = (i + 1) & mask) {
            const uint32_t slot = vertex_slots_[i];
            if (slot == 0) {
                vertex_slots_[i] = uint32_t(count + 1);
                geometry_.vertices.insert(geometry_.vertices.end(), {p[0], p[1], p[2]});
                return uint32_t(count);
            }
            if (keyOf(&geometry_.vertices[3 * size_t(slot - 1)]) == key) return slot - 1;
        }
    }
    static VertexKey keyOf(const float p[3]) {
        VertexKey key;
        for (int i = 0; i < 3; ++i) {
            const float c = p[i] == 0.0f ? 0.0f : p[i];  // fold -0 into +0
            std::memcpy(&key.bits[i], &c, 4);
        }
        return key;
    }

    // A triangle is degenerate when two corners coincide or its area is negligible against its
    // longest edge (a sliver with collinear corners).
    bool isDegenerate(uint32_t a, uint32_t b, uint32_t c) const {
        if (a == b || b == c || a == c) return true;
        return isSliver(&geometry_.vertices[size_t(a) * 3], &geometry_.vertices[size_t(b) * 3],
                        &geometry_.vertices[size_t(c) * 3]);
    }
    // Whether the triangle's area is negligible against its longest edge.
    static bool isSliver(const float* pa, const float* pb, const float* pc) {
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

    // The Y component of the normal of triangle (a, b, c), counter-clockwise = front.
    double normalY(uint32_t a, uint32_t b, uint32_t c) const {
        return normalY(&geometry_.vertices[size_t(a) * 3], &geometry_.vertices[size_t(b) * 3],
                       &geometry_.vertices[size_t(c) * 3]);
    }
    static double normalY(const float* pa, const float* pb, const float* pc) {
        return (double(pb[2]) - pa[2]) * (double(pc[0]) - pa[0]) -
               (double(pb[0]) - pa[0]) * (double(pc[2]) - pa[2]);
    }

public:
    uint64_t turnedUp() const { return turned_up_; }
    // Triangles go to `streams` instead of the geometry's arrays.
    void streamTo(geometry::TriangleStreams* streams) { streams_ = streams; }
    // Triangles go to `strips` with their points (the strips layout; no vertex arrays).
    void stripTo(geometry::StripWriter* strips) { strips_ = strips; }

private:
    const AssimpLibrary* assimp_;  // null for OBJ files read by obj_reader
    const aiScene* scene_;         // null for OBJ files read by obj_reader
    const ImportParams& params_;
    const std::string& file_;
    Context& context_;
    const float scale_;  // params.scale x the file's unit
    uint64_t turned_up_ = 0;
    std::string file_name_;  // the file's base name: scene link names and ids never hold a path
    geometry::Geometry geometry_;
    std::vector<uint32_t> vertex_slots_;  // internVertex's table (power-of-two size)
    // triangles(): the positions a batch uses first, and the mark of those not yet interned.
    struct Pending {
        uint32_t g;
        float p[3];
        size_t hash;
    };
    std::vector<Pending> pending_;
    static constexpr uint32_t kPendingVertex = ObjMeshView::kNone - 1;
    geometry::TriangleStreams* streams_ = nullptr;
    geometry::StripWriter* strips_ = nullptr;
    std::vector<uint8_t> used_;  // streamed: per vertex, whether a triangle uses it
    // OBJ: the mesh views' scratch (one entry per position) and the current object's link and
    // marker objects.
    std::vector<uint32_t> local_;
    std::vector<LinkObject> link_objects_;
    std::vector<MarkerObject> marker_objects_;
    struct DirectMesh {  // the OBJ mesh being flattened face by face (direct)
        int area = 0;
        std::string node;
        std::vector<uint32_t> order;  // its positions in the order of first use
        uint32_t object_index = 0;
        bool object_created = false;
    } direct_;
    size_t total_meshes_ = 0;
    size_t done_meshes_ = 0;
};

}  // namespace

uint32_t sceneLinkId(std::string_view name) {
    const uint64_t hash = formats::xxhash64(name.data(), name.size());
    return geometry::kSceneLinkIdFirst + uint32_t(hash & ((uint64_t(1) << 30) - 1));
}

Status checkSceneLinkIds(const std::vector<geometry::LinkSpec>& links) {
    std::vector<const geometry::LinkSpec*> by_id;
    for (const geometry::LinkSpec& l : links)
        if (l.scene) by_id.push_back(&l);
    std::stable_sort(by_id.begin(), by_id.end(),
                     [](const auto* a, const auto* b) { return a->id < b->id; });
    for (size_t i = 1; i < by_id.size(); ++i)
        if (by_id[i]->id == by_id[i - 1]->id)
            return inputError(
                "scene links '{}' and '{}' have the same id {}: rename one of the objects (the id "
                "is a hash of the file and object name)",
                by_id[i - 1]->name, by_id[i]->name, by_id[i]->id);
    return {};
}

namespace {

Status checkScale(const ImportParams& params) {
    if (!(params.scale > 0) || !std::isfinite(params.scale))
        return makeError(ErrorKind::usage, "scale must be a positive finite number, got {}",
                         params.scale);
    return {};
}

// The source read into geometry: an OBJ file (obj_path, read as it is flattened) or an Assimp
// scene, then the scene links checked and the empty result refused.
Result<geometry::Geometry> flatten(const AssimpLibrary* assimp, const aiScene* scene,
                                   const std::filesystem::path* obj_path,
                                   const ImportParams& params, const std::string& file, double unit,
                                   Context& context, geometry::TriangleStreams* streams,
                                   geometry::StripWriter* strips, uint64_t& turned_up) {
    SceneFlattener flattener(assimp, scene, params, file, unit, context);
    flattener.streamTo(strips != nullptr ? nullptr : streams);
    flattener.stripTo(strips);
    const uint64_t strips_before = strips != nullptr ? strips->count() : 0;
    if (obj_path != nullptr) {
        // Flattened as it is read (the OBJ's unit is the file's: metres).
        auto meshes = readObj(*obj_path, flattener, params.threads);
        if (!meshes) return meshes.error();
        flattener.objDone();
        if (*meshes == 0) return inputError("{}: the scene is empty (no meshes)", file);
    } else {
        if (scene->mRootNode == nullptr || scene->mNumMeshes == 0)
            return inputError("{}: the scene is empty (no meshes)", file);
        if (Status s = flattener.run(); !s) return s.error();
    }
    turned_up = flattener.turnedUp();
    auto taken = flattener.take();
    if (!taken) return taken.error();
    geometry::Geometry geometry = std::move(taken).value();
    if (Status s = checkSceneLinkIds(geometry.links); !s) return s.error();
    ParamCheck link_check;
    geometry::checkLinkSpecs(geometry.links, link_check);
    if (Status s = paramError("scene links", link_check.issues); !s)
        return inputError("{}: {}", file, s.error().message);
    if ((strips != nullptr    ? strips->count() - strips_before
         : streams != nullptr ? streams->count()
                              : geometry.triangleCount()) == 0)
        return inputError(
            "{}: the scene has no usable triangles ({} meshes, {} degenerate and {} "
            "ignored triangles dropped)",
            file, geometry.source_mesh_count, geometry.dropped_degenerate,
            geometry.dropped_ignored);
    return geometry;
}

Result<geometry::Geometry> importWith(const std::filesystem::path& path, const ImportParams& params,
                                      Context& context, ImportReport* report, bool assimp_for_obj,
                                      geometry::TriangleStreams* streams,
                                      geometry::StripWriter* strips) {
    const std::string file = path.string();
    if (Status s = checkScale(params); !s) return s.error();
    std::error_code ec;
    if (!std::filesystem::exists(path, ec))
        return makeError(ErrorKind::io, "{}: no such file", file);
    if (std::filesystem::is_directory(path, ec))
        return makeError(ErrorKind::io, "{}: is a directory, expected a file", file);

    // Only the first bytes: a navbake artifact's magic and kind (the file may be gigabytes).
    uint8_t head[16] = {};
    std::ifstream probe(path, std::ios::binary);
    if (probe.read(reinterpret_cast<char*>(head), sizeof(head)) &&
        std::memcmp(head, formats::kMagic, 8) == 0) {
        char kind[5];
        formats::fourccToString(formats::loadLe32(head + 12), kind);
        return inputError(
            "{}: this is a navbake '{}' artifact, not level geometry; import reads "
            "source files (OBJ, glTF, FBX, ... or a MovingAI .map)",
            file, kind);
    }

    std::string ext = path.extension().string();
    for (char& ch : ext) ch = char(std::tolower(static_cast<unsigned char>(ch)));
    const bool own_obj = ext == ".obj" && !assimp_for_obj;
    // An Assimp scene, released with the library's own function.
    struct ImportedScene {
        const AssimpLibrary* assimp = nullptr;
        const aiScene* scene = nullptr;
        ~ImportedScene() {
            if (scene != nullptr) assimp->release_import(scene);
        }
    } imported;
    const aiScene* scene = nullptr;
    if (!own_obj) {
        // Lines stay: link objects are drawn as lines (the flattener skips every other
        // object's).
        auto assimp = assimpLibrary();
        if (!assimp) return makeError(assimp.error().kind, "{}: {}", file, assimp.error().message);
        imported.assimp = *assimp;
        aiPropertyStore* properties = (*assimp)->create_property_store();
        (*assimp)->set_import_property_integer(properties, AI_CONFIG_PP_SBP_REMOVE,
                                               aiPrimitiveType_POINT);
        const unsigned flags =
            aiProcess_Triangulate | aiProcess_SortByPType | aiProcess_ValidateDataStructure;
        imported.scene = (*assimp)->import_file(file.c_str(), flags, nullptr, properties);
        (*assimp)->release_property_store(properties);
        scene = imported.scene;
        if (scene == nullptr)
            return inputError("{}: cannot import: {}", file, (*assimp)->error_string());
    }

    // The file's unit.
    double unit = 1.0;
    std::string units;
    auto metaNumber = [&](const char* key, double& out) {
        if (scene == nullptr || scene->mMetaData == nullptr) return false;
        float f = 0;
        double d = 0;
        int32_t i = 0;
        if (scene->mMetaData->Get(key, f)) return out = f, true;
        if (scene->mMetaData->Get(key, d)) return out = d, true;
        if (scene->mMetaData->Get(key, i)) return out = i, true;
        return false;
    };
    if (ext == ".fbx") {
        double factor = 0;
        if (metaNumber("UnitScaleFactor", factor) && std::isfinite(factor) && factor > 0) {
            if (params.units == Units::file) {
                unit = factor / 100.0;
                units = fmt::format("FBX UnitScaleFactor {} (1 unit = {} cm): coordinates x {}",
                                    factor, factor, unit);
            } else {
                units = fmt::format("FBX UnitScaleFactor {} ignored: coordinates taken as metres",
                                    factor);
            }
        } else {
            units = "FBX without a UnitScaleFactor: coordinates taken as metres";
        }
        double up = 1;
        if (metaNumber("UpAxis", up) && up != 1)
            units += fmt::format("; the file says its up axis is {} (pass --up z for a Z-up level)",
                                 up == 0 ? "X" : "Z");
    } else if (ext == ".dae") {
        // Assimp 5.2's Collada reader always applies <unit> (no switch to turn it off).
        units = "Collada: the file's <unit> applied by the reader (always; --scale undoes it)";
    } else if (ext == ".gltf" || ext == ".glb") {
        units = "glTF: metres by definition";
    } else {
        units = fmt::format("{}: the format states no unit, coordinates taken as metres",
                            ext.empty() ? "no extension" : ext);
    }
    uint64_t turned_up = 0;
    auto geometry = flatten(imported.assimp, scene, own_obj ? &path : nullptr, params, file, unit,
                            context, streams, strips, turned_up);
    if (!geometry) return geometry.error();
    if (report != nullptr) {
        report->unit_scale = unit;
        report->units = units;
        report->turned_up = turned_up;
    }
    return geometry;
}

}  // namespace

Result<geometry::Geometry> importScene(const std::filesystem::path& path,
                                       const ImportParams& params, Context& context,
                                       ImportReport* report, geometry::TriangleStreams* streams,
                                       geometry::StripWriter* strips) {
    return importWith(path, params, context, report, false, streams, strips);
}

Result<geometry::Geometry> flattenAssimpScene(const AssimpLibrary& assimp, const aiScene& scene,
                                              const ImportParams& params, const std::string& file,
                                              Context& context) {
    if (Status s = checkScale(params); !s) return s.error();
    uint64_t turned_up = 0;
    return flatten(&assimp, &scene, nullptr, params, file, 1.0, context, nullptr, nullptr,
                   turned_up);
}

Result<geometry::Geometry> importSceneAssimp(const std::filesystem::path& path,
                                             const ImportParams& params, Context& context,
                                             ImportReport* report) {
    return importWith(path, params, context, report, true, nullptr, nullptr);
}

}  // namespace nav::importer
