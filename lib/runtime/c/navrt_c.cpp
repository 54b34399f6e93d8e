// navrt C API (navrt.h) over navrt::Asset, navrt::GraphView and navrt::Navigator. Handles are
// allocated with the caller's allocator and constructed in place; nothing here throws (navrt is
// built with -fno-exceptions).
#include "lib/runtime/c/navrt.h"

#include <cstdio>
#include <cstring>
#include <new>

#include "lib/runtime/navrt_navigator.h"
#include "lib/runtime/navrt_world.h"

namespace fmt = nav::formats;

struct navrt_asset {
    navrt::Allocator allocator;
    navrt::Asset asset;
    navrt::GraphView view;
};

struct navrt_navigator {
    navrt::Allocator allocator;
    const navrt_asset* asset = nullptr;
    navrt::Navigator navigator;
    navrt::QueryFilter filter;  // the copy navrt_navigator_set_filter keeps
};

struct navrt_world {
    navrt::Allocator allocator;
    navrt::LoadOptions load;  // for the index and every tile
    navrt::World world;
};

struct navrt_blocking {
    navrt::Allocator allocator;
    const navrt_asset* asset = nullptr;
    navrt::Blocking blocking;
};

// Each status is the navrt::ErrorCode of the same value (checked here, so neither drifts).
static_assert(int(NAVRT_INVALID_ARGUMENT) == int(navrt::ErrorCode::invalid_argument));
static_assert(int(NAVRT_CHECKSUM_MISMATCH) == int(navrt::ErrorCode::checksum_mismatch));
static_assert(int(NAVRT_OUT_OF_MEMORY) == int(navrt::ErrorCode::out_of_memory));
static_assert(int(NAVRT_PATH_OUT_OF_NODES) == int(navrt::NavStatus::out_of_nodes));
static_assert(int(NAVRT_PATH_IN_PROGRESS) == int(navrt::NavStatus::in_progress));
static_assert(int(NAVRT_METHOD_EXACT) == int(navrt::Method::exact));
static_assert(int(NAVRT_GRAPH_DIRICHLET) == int(fmt::GraphType::dirichlet));
static_assert(sizeof(navrt_vec3) == sizeof(navrt::Vec3));
static_assert(NAVRT_MAX_AREAS == fmt::kMaxAreas);
// navrt::World's path statuses are the first four navrt_path_status values.
static_assert(int(NAVRT_PATH_NONE) == int(navrt::PathStatus::no_path));
static_assert(int(NAVRT_PATH_START_OFF_GRAPH) == int(navrt::PathStatus::invalid_start));
static_assert(int(NAVRT_PATH_GOAL_OFF_GRAPH) == int(navrt::PathStatus::invalid_goal));

namespace {

navrt_status fail(navrt_error* error, const navrt::Error& e) {
    if (error != nullptr) {
        error->status = navrt_status(e.code);
        error->offset = e.offset;
        error->section = e.section;
        std::memcpy(error->message, e.message, sizeof(error->message));
        error->message[sizeof(error->message) - 1] = 0;
    }
    return navrt_status(e.code);
}

navrt_status invalid(navrt_error* error, const char* what) {
    return fail(error, fmt::makeError(navrt::ErrorCode::invalid_argument, 0, 0, "%s", what));
}

void clear(navrt_error* error) {
    if (error != nullptr) *error = navrt_error{};
}

navrt::Allocator allocatorOf(const navrt_allocator* allocator) {
    navrt::Allocator a;
    if (allocator != nullptr) {
        a.allocate = allocator->allocate;
        a.release = allocator->release;
        a.user = allocator->user;
    }
    return navrt::resolveAllocator(a);
}

// The fields of `T` a caller of `struct_size` bytes set; the defaults for the rest.
template <class T>
T sized(const T* given, T defaults) {
    if (given == nullptr) return defaults;
    const size_t n = given->struct_size < sizeof(T) ? given->struct_size : sizeof(T);
    std::memcpy(static_cast<void*>(&defaults), given, n);
    defaults.struct_size = uint32_t(sizeof(T));
    return defaults;
}

navrt_load_options loadDefaults() {
    navrt_load_options o{};
    navrt_load_options_init(&o);
    return o;
}

navrt_status loadWith(bool from_file, const char* path, const void* data, size_t size,
                      const navrt_load_options* given, navrt_asset** out, navrt_error* error) {
    clear(error);
    if (out == nullptr) return invalid(error, "navrt_asset_load: out is NULL");
    *out = nullptr;
    if (from_file ? path == nullptr : (data == nullptr && size > 0))
        return invalid(error, from_file ? "navrt_asset_load: path is NULL"
                                        : "navrt_asset_load_memory: data is NULL");
    const navrt_load_options options = sized(given, loadDefaults());
    const navrt::Allocator allocator = allocatorOf(options.allocator);
    void* room = allocator.allocate(sizeof(navrt_asset), allocator.user);
    if (room == nullptr)
        return fail(error, fmt::makeError(navrt::ErrorCode::out_of_memory, 0, 0,
                                          "cannot allocate the asset handle"));
    auto* handle = new (room) navrt_asset;
    handle->allocator = allocator;
    navrt::LoadOptions load;
    load.allocator = allocator;
    load.max_memory = options.max_memory;
    navrt::Error e = from_file ? navrt::load(path, handle->asset, load)
                               : navrt::loadFromMemory(data, size, handle->asset, load);
    if (!e) e = navrt::viewGraph(handle->asset, handle->view);
    if (e) {
        handle->~navrt_asset();
        allocator.release(room, allocator.user);
        return fail(error, e);
    }
    *out = handle;
    return NAVRT_OK;
}

navrt::LocateOptions locateOptions(const navrt_locate_options* options) {
    navrt::LocateOptions o;
    if (options != nullptr) {
        o.horizontal = options->horizontal;
        o.vertical = options->vertical;
        o.snap = options->snap;
    }
    return o;
}

navrt_location locationOf(const navrt::Location& l) {
    return {l.node, {l.position.x, l.position.y, l.position.z}, l.moved};
}

navrt::Vec3 vec(navrt_vec3 v) { return {v.x, v.y, v.z}; }

// A link record as the C API gives it, with its type's name (`length` bytes, may be null).
navrt_link linkOf(const fmt::LinkRecord& l, const char* name, size_t length) {
    navrt_link out{};
    out.id = l.id;
    out.user_data = l.user_data;
    out.from_node = l.from_node;
    out.to_node = l.to_node;
    out.from = {l.from[0], l.from[1], l.from[2]};
    out.to = {l.to[0], l.to[1], l.to[2]};
    out.cost = l.cost;
    out.reverse_cost = l.reverse_cost;
    out.type = uint32_t(l.type);
    out.bidirectional = (l.flags & fmt::kLinkFlagBidirectional) ? 1 : 0;
    if (name != nullptr) {
        if (length >= sizeof(out.type_name)) length = sizeof(out.type_name) - 1;
        std::memcpy(out.type_name, name, length);
    }
    return out;
}

}  // namespace

extern "C" {

const char* navrt_status_name(navrt_status status) {
    if (status < NAVRT_OK || status > NAVRT_INVALID_ARGUMENT) return "unknown";
    return navrt::errorName(navrt::ErrorCode(status));
}

uint32_t navrt_version(void) { return NAVRT_VERSION; }

void navrt_load_options_init(navrt_load_options* options) {
    if (options == nullptr) return;
    *options = navrt_load_options{};
    options->struct_size = sizeof(navrt_load_options);
    options->max_memory = navrt::LoadOptions{}.max_memory;
}

navrt_status navrt_asset_load(const char* path, const navrt_load_options* options,
                              navrt_asset** out, navrt_error* error) {
    return loadWith(true, path, nullptr, 0, options, out, error);
}

navrt_status navrt_asset_load_memory(const void* data, size_t size,
                                     const navrt_load_options* options, navrt_asset** out,
                                     navrt_error* error) {
    return loadWith(false, nullptr, data, size, options, out, error);
}

void navrt_asset_free(navrt_asset* asset) {
    if (asset == nullptr) return;
    const navrt::Allocator allocator = asset->allocator;
    asset->~navrt_asset();
    allocator.release(asset, allocator.user);
}

navrt_graph_type navrt_asset_graph_type(const navrt_asset* asset) {
    return asset != nullptr ? navrt_graph_type(asset->view.header.type) : navrt_graph_type(0);
}

uint32_t navrt_asset_node_count(const navrt_asset* asset) {
    return asset != nullptr ? asset->view.nodeCount() : 0;
}

uint32_t navrt_asset_link_count(const navrt_asset* asset) {
    return asset != nullptr ? asset->view.link_count : 0;
}

int navrt_asset_node_position(const navrt_asset* asset, uint32_t node, navrt_vec3* out) {
    if (asset == nullptr || out == nullptr || node >= asset->view.nodeCount()) return 0;
    const navrt::Vec3 p = asset->view.position(node);
    *out = {p.x, p.y, p.z};
    return 1;
}

navrt_status navrt_asset_link(const navrt_asset* asset, uint32_t index, navrt_link* out) {
    if (asset == nullptr || out == nullptr || index >= asset->view.link_count)
        return NAVRT_INVALID_ARGUMENT;
    const fmt::LinkRecord l = asset->view.link(index);
    size_t length = 0;
    const char* name = asset->view.linkTypeName(l.type, length);
    *out = linkOf(l, name, length);
    return NAVRT_OK;
}

uint32_t navrt_asset_find_link(const navrt_asset* asset, uint32_t id) {
    if (asset == nullptr) return NAVRT_NONE;
    return navrt::findLink(asset->view, id);
}

navrt_status navrt_blocking_create(const navrt_asset* asset, const navrt_allocator* allocator,
                                   navrt_blocking** out, navrt_error* error) {
    clear(error);
    if (out == nullptr) return invalid(error, "navrt_blocking_create: out is NULL");
    *out = nullptr;
    if (asset == nullptr) return invalid(error, "navrt_blocking_create: asset is NULL");
    const navrt::Allocator hooks = allocatorOf(allocator);
    void* room = hooks.allocate(sizeof(navrt_blocking), hooks.user);
    if (room == nullptr)
        return fail(error, fmt::makeError(navrt::ErrorCode::out_of_memory, 0, 0,
                                          "cannot allocate the blocking handle"));
    auto* handle = new (room) navrt_blocking;
    handle->allocator = hooks;
    handle->asset = asset;
    if (navrt::Error e = handle->blocking.init(asset->view, hooks)) {
        handle->~navrt_blocking();
        hooks.release(room, hooks.user);
        return fail(error, e);
    }
    *out = handle;
    return NAVRT_OK;
}

void navrt_blocking_free(navrt_blocking* blocking) {
    if (blocking == nullptr) return;
    const navrt::Allocator hooks = blocking->allocator;
    blocking->~navrt_blocking();
    hooks.release(blocking, hooks.user);
}

void navrt_blocking_set_node(navrt_blocking* blocking, uint32_t node, int blocked) {
    if (blocking != nullptr) blocking->blocking.setNode(node, blocked != 0);
}

void navrt_blocking_set_link(navrt_blocking* blocking, uint32_t link, int blocked) {
    if (blocking != nullptr) blocking->blocking.setLink(link, blocked != 0);
}

void navrt_blocking_set_area(navrt_blocking* blocking, uint32_t area, int blocked) {
    if (blocking != nullptr) blocking->blocking.setArea(area, blocked != 0);
}

void navrt_blocking_clear(navrt_blocking* blocking) {
    if (blocking != nullptr) blocking->blocking.clear();
}

uint32_t navrt_blocking_count(const navrt_blocking* blocking) {
    return blocking != nullptr ? blocking->blocking.count() : 0;
}

navrt_status navrt_navigator_set_blocking(navrt_navigator* navigator,
                                          const navrt_blocking* blocking) {
    if (navigator == nullptr) return NAVRT_INVALID_ARGUMENT;
    if (blocking != nullptr && blocking->asset != navigator->asset) return NAVRT_INVALID_ARGUMENT;
    if (navrt::Error e =
            navigator->navigator.setBlocking(blocking != nullptr ? &blocking->blocking : nullptr))
        return navrt_status(e.code);
    return NAVRT_OK;
}

void navrt_filter_init(navrt_filter* filter) {
    if (filter == nullptr) return;
    for (float& m : filter->area_multiplier) m = 1.0f;
}

navrt_status navrt_navigator_set_filter(navrt_navigator* navigator, const navrt_filter* filter,
                                        navrt_error* error) {
    clear(error);
    if (navigator == nullptr)
        return invalid(error, "navrt_navigator_set_filter: navigator is NULL");
    if (filter == nullptr) {
        (void)navigator->navigator.setFilter(nullptr);
        return NAVRT_OK;
    }
    navrt::QueryFilter copy;
    std::memcpy(copy.area_multiplier, filter->area_multiplier, sizeof(copy.area_multiplier));
    navigator->filter = copy;
    if (navrt::Error e = navigator->navigator.setFilter(&navigator->filter)) return fail(error, e);
    return NAVRT_OK;
}

const char* navrt_method_name(navrt_method method) {
    return navrt::methodName(navrt::Method(method));
}

int navrt_method_parse(const char* name, navrt_method* out) {
    navrt::Method m{};
    if (name == nullptr || out == nullptr || !navrt::parseMethod(name, std::strlen(name), m))
        return 0;
    *out = navrt_method(m);
    return 1;
}

navrt_status navrt_asset_supports(const navrt_asset* asset, navrt_method method,
                                  navrt_error* error) {
    clear(error);
    if (asset == nullptr) return invalid(error, "navrt_asset_supports: asset is NULL");
    if (uint32_t(method) >= navrt::kMethodCount)
        return invalid(error, "navrt_asset_supports: unknown method");
    if (navrt::Error e = navrt::checkMethod(asset->view, navrt::Method(method)))
        return fail(error, e);
    return NAVRT_OK;
}

void navrt_navigator_options_init(navrt_navigator_options* options) {
    if (options == nullptr) return;
    *options = navrt_navigator_options{};
    options->struct_size = sizeof(navrt_navigator_options);
    options->method = NAVRT_METHOD_ASTAR;
    options->next_hop_cache_bytes = navrt::NavigatorOptions{}.next_hop_cache_bytes;
}

navrt_status navrt_navigator_create(const navrt_asset* asset, const navrt_navigator_options* given,
                                    navrt_navigator** out, navrt_error* error) {
    clear(error);
    if (out == nullptr) return invalid(error, "navrt_navigator_create: out is NULL");
    *out = nullptr;
    if (asset == nullptr) return invalid(error, "navrt_navigator_create: asset is NULL");
    navrt_navigator_options defaults{};
    navrt_navigator_options_init(&defaults);
    const navrt_navigator_options options = sized(given, defaults);
    if (uint32_t(options.method) >= navrt::kMethodCount)
        return invalid(error, "navrt_navigator_create: unknown method");
    const navrt::Allocator allocator = allocatorOf(options.allocator);
    void* room = allocator.allocate(sizeof(navrt_navigator), allocator.user);
    if (room == nullptr)
        return fail(error, fmt::makeError(navrt::ErrorCode::out_of_memory, 0, 0,
                                          "cannot allocate the navigator handle"));
    auto* handle = new (room) navrt_navigator;
    handle->allocator = allocator;
    handle->asset = asset;
    navrt::NavigatorOptions o;
    o.method = navrt::Method(options.method);
    o.max_expansions = options.max_expansions;
    o.next_hop_cache_bytes = options.next_hop_cache_bytes;
    o.allocator = allocator;
    if (navrt::Error e = handle->navigator.init(asset->view, o)) {
        handle->~navrt_navigator();
        allocator.release(room, allocator.user);
        return fail(error, e);
    }
    *out = handle;
    return NAVRT_OK;
}

void navrt_navigator_free(navrt_navigator* navigator) {
    if (navigator == nullptr) return;
    const navrt::Allocator allocator = navigator->allocator;
    navigator->~navrt_navigator();
    allocator.release(navigator, allocator.user);
}

void navrt_locate_options_init(navrt_locate_options* options) {
    if (options == nullptr) return;
    const navrt::LocateOptions o;
    *options = {o.horizontal, o.vertical, o.snap};
}

navrt_location navrt_locate(const navrt_navigator* navigator, navrt_vec3 point,
                            const navrt_locate_options* options, uint32_t hint) {
    if (navigator == nullptr) return locationOf(navrt::Location{});
    return locationOf(navigator->navigator.locate(vec(point), locateOptions(options), hint));
}

const char* navrt_path_status_name(navrt_path_status status) {
    if (status == NAVRT_PATH_INVALID) return "invalid";
    if (status < NAVRT_PATH_FOUND || status > NAVRT_PATH_IN_PROGRESS) return "unknown";
    return navrt::navStatusName(navrt::NavStatus(status));
}

navrt_location navrt_random_point(const navrt_navigator* navigator, float u0, float u1, float u2) {
    if (navigator == nullptr) return locationOf(navrt::Location{});
    return locationOf(navigator->navigator.randomPoint(u0, u1, u2));
}

navrt_raycast_hit navrt_raycast(const navrt_navigator* navigator, navrt_vec3 from, navrt_vec3 to,
                                const navrt_locate_options* options, uint32_t hint) {
    navrt_raycast_hit out{};
    out.t = 1.0f;
    out.last_poly = NAVRT_NONE;
    if (navigator == nullptr) return out;
    const navrt::RaycastHit h =
        navigator->navigator.raycast(vec(from), vec(to), locateOptions(options), hint);
    out.hit = h.hit ? 1u : 0u;
    out.t = h.t;
    out.normal = {h.normal.x, h.normal.y, h.normal.z};
    out.last_poly = h.last_poly;
    out.visited = h.visited;
    return out;
}

navrt_location navrt_closest_point(const navrt_navigator* navigator, uint32_t poly,
                                   navrt_vec3 point) {
    if (navigator == nullptr) return locationOf(navrt::Location{});
    return locationOf(navigator->navigator.closestPoint(poly, vec(point)));
}

navrt_surface_move navrt_move_along_surface(const navrt_navigator* navigator, uint32_t start,
                                            navrt_vec3 from, navrt_vec3 to) {
    navrt_surface_move out{};
    out.position = from;
    out.poly = NAVRT_NONE;
    if (navigator == nullptr) return out;
    const navrt::SurfaceMove m = navigator->navigator.moveAlongSurface(start, vec(from), vec(to));
    out.position = {m.position.x, m.position.y, m.position.z};
    out.poly = m.poly;
    out.visited = m.visited;
    out.reached = m.reached ? 1u : 0u;
    return out;
}

navrt_path_status navrt_find_path_to_any(navrt_navigator* navigator, navrt_vec3 from,
                                         const navrt_vec3* goals, uint32_t count,
                                         const navrt_locate_options* options, uint32_t start_hint,
                                         uint32_t* winner) {
    if (winner != nullptr) *winner = NAVRT_NONE;
    if (navigator == nullptr || (goals == nullptr && count > 0)) return NAVRT_PATH_INVALID;
    const navrt_path_status status = navrt_path_status(
        navigator->navigator.findPathToAny(vec(from), reinterpret_cast<const navrt::Vec3*>(goals),
                                           count, locateOptions(options), start_hint));
    if (winner != nullptr) *winner = navigator->navigator.goalIndex();
    return status;
}

navrt_path_status navrt_begin_path(navrt_navigator* navigator, navrt_vec3 from, navrt_vec3 to,
                                   const navrt_locate_options* options, uint32_t start_hint,
                                   uint32_t goal_hint) {
    if (navigator == nullptr) return NAVRT_PATH_INVALID;
    return navrt_path_status(navigator->navigator.beginPath(
        vec(from), vec(to), locateOptions(options), start_hint, goal_hint));
}

navrt_path_status navrt_step(navrt_navigator* navigator, uint32_t max_iterations) {
    if (navigator == nullptr) return NAVRT_PATH_INVALID;
    return navrt_path_status(navigator->navigator.step(max_iterations));
}

navrt_path_status navrt_finish(navrt_navigator* navigator) {
    if (navigator == nullptr) return NAVRT_PATH_INVALID;
    return navrt_path_status(navigator->navigator.finish());
}

navrt_path_status navrt_find_path(navrt_navigator* navigator, navrt_vec3 from, navrt_vec3 to,
                                  const navrt_locate_options* options, uint32_t start_hint,
                                  uint32_t goal_hint) {
    if (navigator == nullptr) return NAVRT_PATH_INVALID;
    return navrt_path_status(navigator->navigator.findPath(
        vec(from), vec(to), locateOptions(options), start_hint, goal_hint));
}

navrt_path_info navrt_path_result(const navrt_navigator* navigator) {
    navrt_path_info info{};
    if (navigator == nullptr) {
        info.status = NAVRT_PATH_INVALID;
        return info;
    }
    const navrt::Navigator& n = navigator->navigator;
    info.status = navrt_path_status(n.status());
    info.start = locationOf(n.start());
    info.goal = locationOf(n.goal());
    info.cost = n.cost();
    info.length = n.pathLength();
    info.expansions = n.expansions();
    info.node_count = n.nodeCount();
    info.point_count = n.straightPath(nullptr, 0);
    info.link_count = n.pathLinks(nullptr, 0);
    info.partial = n.partial() ? 1u : 0u;
    return info;
}

uint32_t navrt_path_nodes(const navrt_navigator* navigator, uint32_t* nodes, uint32_t capacity) {
    if (navigator == nullptr) return 0;
    const navrt::Navigator& n = navigator->navigator;
    for (uint32_t i = 0; i < n.nodeCount() && i < capacity && nodes != nullptr; ++i)
        nodes[i] = n.nodes()[i];
    return n.nodeCount();
}

uint32_t navrt_straight_path(const navrt_navigator* navigator, navrt_vec3* points, uint32_t* links,
                             uint32_t capacity) {
    if (navigator == nullptr) return 0;
    if (points == nullptr) capacity = 0;
    return navigator->navigator.straightPath(reinterpret_cast<navrt::Vec3*>(points), capacity,
                                             capacity > 0 ? links : nullptr);
}

uint32_t navrt_path_links(const navrt_navigator* navigator, navrt_path_link* links,
                          uint32_t capacity) {
    if (navigator == nullptr) return 0;
    if (links == nullptr) capacity = 0;
    // Through a small buffer: the C struct and navrt::PathLink differ in layout.
    navrt::PathLink chunk[32];
    const navrt::Navigator& n = navigator->navigator;
    const uint32_t total = n.pathLinks(nullptr, 0);
    if (capacity == 0 || total == 0) return total;
    if (total <= 32) {
        n.pathLinks(chunk, 32);
        for (uint32_t i = 0; i < total && i < capacity; ++i)
            links[i] = {chunk[i].link, chunk[i].step, chunk[i].segment, chunk[i].reverse ? 1u : 0u};
        return total;
    }
    // Longer lists: through memory from the navigator's allocator.
    auto* all = static_cast<navrt::PathLink*>(
        navigator->allocator.allocate(sizeof(navrt::PathLink) * total, navigator->allocator.user));
    if (all == nullptr) return 0;
    n.pathLinks(all, total);
    for (uint32_t i = 0; i < total && i < capacity; ++i)
        links[i] = {all[i].link, all[i].step, all[i].segment, all[i].reverse ? 1u : 0u};
    navigator->allocator.release(all, navigator->allocator.user);
    return total;
}

}  // extern "C"

// ---- Worlds -------------------------------------------------------------------------------------

static navrt_status worldLoad(bool from_file, const char* path, const void* data, size_t size,
                              const navrt_load_options* given, navrt_world** out,
                              navrt_error* error) {
    clear(error);
    if (out == nullptr) return invalid(error, "navrt_world_load: out is NULL");
    *out = nullptr;
    if (from_file ? path == nullptr : (data == nullptr && size > 0))
        return invalid(error, from_file ? "navrt_world_load: path is NULL"
                                        : "navrt_world_load_memory: data is NULL");
    const navrt_load_options options = sized(given, loadDefaults());
    const navrt::Allocator allocator = allocatorOf(options.allocator);
    void* room = allocator.allocate(sizeof(navrt_world), allocator.user);
    if (room == nullptr)
        return fail(error, fmt::makeError(navrt::ErrorCode::out_of_memory, 0, 0,
                                          "cannot allocate the world handle"));
    auto* handle = new (room) navrt_world;
    handle->allocator = allocator;
    handle->load.allocator = allocator;
    handle->load.max_memory = options.max_memory;
    const navrt::Error e = from_file ? handle->world.initFile(path, handle->load)
                                     : handle->world.init(data, size, handle->load);
    if (e) {
        handle->~navrt_world();
        allocator.release(room, allocator.user);
        return fail(error, e);
    }
    *out = handle;
    return NAVRT_OK;
}

extern "C" {

navrt_status navrt_world_load(const char* index_path, const navrt_load_options* options,
                              navrt_world** out, navrt_error* error) {
    return worldLoad(true, index_path, nullptr, 0, options, out, error);
}

navrt_status navrt_world_load_memory(const void* data, size_t size,
                                     const navrt_load_options* options, navrt_world** out,
                                     navrt_error* error) {
    return worldLoad(false, nullptr, data, size, options, out, error);
}

void navrt_world_free(navrt_world* world) {
    if (world == nullptr) return;
    const navrt::Allocator allocator = world->allocator;
    world->~navrt_world();
    allocator.release(world, allocator.user);
}

navrt_status navrt_world_add_tile(navrt_world* world, const char* path, navrt_error* error) {
    clear(error);
    if (world == nullptr) return invalid(error, "navrt_world_add_tile: world is NULL");
    if (path == nullptr) return invalid(error, "navrt_world_add_tile: path is NULL");
    if (const navrt::Error e = world->world.addTileFile(path, world->load)) return fail(error, e);
    return NAVRT_OK;
}

navrt_status navrt_world_add_tile_memory(navrt_world* world, const void* data, size_t size,
                                         navrt_error* error) {
    clear(error);
    if (world == nullptr) return invalid(error, "navrt_world_add_tile_memory: world is NULL");
    if (data == nullptr && size > 0)
        return invalid(error, "navrt_world_add_tile_memory: data is NULL");
    if (const navrt::Error e = world->world.addTile(data, size, world->load)) return fail(error, e);
    return NAVRT_OK;
}

int navrt_world_remove_tile(navrt_world* world, uint32_t tile_x, uint32_t tile_z) {
    return world != nullptr && world->world.removeTile(tile_x, tile_z) ? 1 : 0;
}

int navrt_world_tile_loaded(const navrt_world* world, uint32_t tile_x, uint32_t tile_z) {
    return world != nullptr && world->world.loaded(tile_x, tile_z) ? 1 : 0;
}

uint32_t navrt_world_loaded_count(const navrt_world* world) {
    return world != nullptr ? world->world.loadedCount() : 0;
}

void navrt_world_tiles(const navrt_world* world, uint32_t* tiles_x, uint32_t* tiles_z) {
    if (tiles_x != nullptr) *tiles_x = world != nullptr ? world->world.tilesX() : 0;
    if (tiles_z != nullptr) *tiles_z = world != nullptr ? world->world.tilesZ() : 0;
}

int navrt_world_tile_at(const navrt_world* world, navrt_vec3 p, uint32_t* tile_x,
                        uint32_t* tile_z) {
    uint32_t x = 0, z = 0;
    if (world == nullptr || !world->world.tileAt(vec(p), x, z)) return 0;
    if (tile_x != nullptr) *tile_x = x;
    if (tile_z != nullptr) *tile_z = z;
    return 1;
}

void navrt_world_extent(const navrt_world* world, float out[4]) {
    if (out == nullptr) return;
    out[0] = out[1] = out[2] = out[3] = 0;
    if (world != nullptr) world->world.extent(out[0], out[1], out[2], out[3]);
}

size_t navrt_world_memory_bytes(const navrt_world* world) {
    return world != nullptr ? world->world.memoryBytes() : 0;
}

navrt_path_status navrt_world_find_path(navrt_world* world, navrt_vec3 from, navrt_vec3 to) {
    if (world == nullptr) return NAVRT_PATH_INVALID;
    return navrt_path_status(world->world.findPath(vec(from), vec(to)));
}

uint32_t navrt_world_path(const navrt_world* world, navrt_vec3* points, uint32_t capacity) {
    if (world == nullptr) return 0;
    const std::vector<navrt::Vec3>& path = world->world.path();
    if (points != nullptr)
        for (uint32_t i = 0; i < path.size() && i < capacity; ++i)
            points[i] = {path[i].x, path[i].y, path[i].z};
    return uint32_t(path.size());
}

float navrt_world_path_cost(const navrt_world* world) {
    return world != nullptr ? world->world.cost() : 0.0f;
}

uint32_t navrt_world_path_links(const navrt_world* world, navrt_world_path_link* links,
                                uint32_t capacity) {
    if (world == nullptr) return 0;
    const std::vector<navrt::WorldPathLink>& steps = world->world.pathLinks();
    if (links != nullptr)
        for (uint32_t i = 0; i < steps.size() && i < capacity; ++i) {
            const navrt::WorldPathLink& s = steps[i];
            size_t length = 0;
            const char* name = world->world.linkTypeName(s.tile_x, s.tile_z, s.link.type, length);
            links[i] = {s.segment, s.tile_x, s.tile_z, s.reverse ? 1u : 0u,
                        linkOf(s.link, name, length)};
        }
    return uint32_t(steps.size());
}

uint32_t navrt_world_expanded(const navrt_world* world) {
    return world != nullptr ? world->world.expanded() : 0;
}

navrt_path_status navrt_world_plan_tiles(const navrt_world* world, navrt_vec3 from, navrt_vec3 to,
                                         uint32_t* tiles, uint32_t capacity, uint32_t* count) {
    if (count != nullptr) *count = 0;
    if (world == nullptr) return NAVRT_PATH_INVALID;
    std::vector<uint32_t> planned;
    const navrt::PathStatus status = world->world.planTiles(vec(from), vec(to), planned);
    if (tiles != nullptr)
        for (uint32_t i = 0; i < planned.size() && i < capacity; ++i) tiles[i] = planned[i];
    if (count != nullptr) *count = uint32_t(planned.size());
    return navrt_path_status(status);
}

}  // extern "C"
