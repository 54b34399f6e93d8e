// navrt::Navigator: locate, then search with the asset's method (see navrt_navigator.h).
#include "lib/runtime/navrt_navigator.h"

#include <cmath>
#include <cstring>

namespace navrt {

namespace fmt = nav::formats;

namespace {

constexpr const char* kMethodNames[kMethodCount] = {"astar",   "cluster", "hier",
                                                    "nexthop", "exact",   "jps"};

}  // namespace

const char* methodName(Method method) {
    const auto i = uint32_t(method);
    return i < kMethodCount ? kMethodNames[i] : "?";
}

bool parseMethod(const char* name, size_t length, Method& out) {
    if (name == nullptr) return false;
    for (uint32_t i = 0; i < kMethodCount; ++i)
        if (std::strlen(kMethodNames[i]) == length &&
            std::memcmp(kMethodNames[i], name, length) == 0) {
            out = Method(i);
            return true;
        }
    return false;
}

Error checkMethod(const GraphView& graph, Method method) {
    bool present = true;
    const char* sections = "";
    switch (method) {
        case Method::astar: return {};
        case Method::exact:
            if (!graph.isNavmesh())
                return makeError(ErrorCode::invalid_argument, 0, 0,
                                 "method exact needs a navigation mesh asset");
            return {};
        case Method::cluster:
            present = graph.hasClusters();
            sections = "cluster";
            break;
        case Method::hier:
            present = graph.hasHierarchy();
            sections = "hierarchy";
            break;
        case Method::nexthop:
            present = graph.hasNextHop();
            sections = "next-hop";
            break;
        case Method::jps:
            present = graph.jump_entries != nullptr;
            sections = "jump point";
            break;
        default:
            return makeError(ErrorCode::invalid_argument, 0, 0, "unknown method %u",
                             unsigned(method));
    }
    if (!present)
        return makeError(ErrorCode::missing_section, 0, 0,
                         "method %s needs %s sections, and this asset has none", methodName(method),
                         sections);
    if (graph.header.type != fmt::GraphType::tile)
        return makeError(ErrorCode::invalid_argument, 0, 0,
                         "method %s applies to tile graphs; navmesh and POV point queries use "
                         "their own costs",
                         methodName(method));
    return {};
}

bool returnsShortestPaths(const GraphView& graph, Method method) {
    if (method == Method::hier) return false;
    return method != Method::nexthop || graph.next_hop_ranks != nullptr;
}

const char* navStatusName(NavStatus status) {
    switch (status) {
        case NavStatus::found: return "found";
        case NavStatus::no_path: return "no_path";
        case NavStatus::start_off_graph: return "start_off_graph";
        case NavStatus::goal_off_graph: return "goal_off_graph";
        case NavStatus::out_of_nodes: return "out_of_nodes";
        case NavStatus::in_progress: return "in_progress";
    }
    return "?";
}

uint32_t findLink(const GraphView& graph, uint32_t id) {
    for (uint32_t i = 0; i < graph.link_count; ++i)
        if (graph.link(i).id == id) return i;
    return kNoNode;
}

MeshPoint locatePoint(const GraphView& graph, Vec3 point, float horizontal, float vertical,
                      uint32_t hint) {
    if (graph.isNavmesh()) return locateOnMesh(graph, point, horizontal, vertical, hint);
    // Tile and volume graphs: the node under the point. POV graphs: the layer cell under it
    // (findPathBetween places the point on that cell and connects it to the corners).
    MeshPoint m{locate(graph, point, horizontal, vertical), point};
    if (m.poly == kNoNode) return m;
    if (graph.isPov()) {
        const fmt::NodeCell c =
            fmt::decodeNodeCell(graph.layer_cells + size_t(m.poly) * fmt::kNodeCellSize);
        const fmt::GraphHeader& h = graph.header;
        m.position = {h.origin[0] + (float(c.column % h.size_x) + 0.5f) * h.cell_size,
                      h.origin[1] + float(c.y) * h.cell_height,
                      h.origin[2] + (float(c.column / h.size_x) + 0.5f) * h.cell_size};
    } else {
        m.position = graph.position(m.poly);
    }
    return m;
}

Navigator::~Navigator() { release(); }

void Navigator::release() {
    if (cumulative_areas_ != nullptr) allocator_.release(cumulative_areas_, allocator_.user);
    if (surface_marks_ != nullptr) allocator_.release(surface_marks_, allocator_.user);
    if (surface_queue_ != nullptr) allocator_.release(surface_queue_, allocator_.user);
    cumulative_areas_ = nullptr;
    surface_marks_ = nullptr;
    surface_queue_ = nullptr;
    surface_stamp_ = 0;
    if (goal_scratch_ != nullptr) allocator_.release(goal_scratch_, allocator_.user);
    goal_scratch_ = nullptr;
    goal_capacity_ = 0;
    if (hops_ != nullptr) allocator_.release(hops_, allocator_.user);
    hops_ = nullptr;
    hop_capacity_ = 0;
    via_astar_ = false;
    if (pulled_ != nullptr) allocator_.release(pulled_, allocator_.user);
    if (pulled_links_ != nullptr) allocator_.release(pulled_links_, allocator_.user);
    pulled_ = nullptr;
    pulled_links_ = nullptr;
    pulled_capacity_ = 0;
    pulled_count_ = kNoNode;
    graph_ = nullptr;
    query_ = &own_query_;
    status_ = NavStatus::no_path;
    partial_ = false;
    nodes_ = nullptr;
    node_count_ = 0;
}

Error Navigator::init(const GraphView& graph, const NavigatorOptions& options) {
    release();
    allocator_ = resolveAllocator(options.allocator);
    if (Error e = checkMethod(graph, options.method)) return e;
    if (Error e = own_query_.init(graph, options.max_expansions, allocator_)) return e;
    if (options.method == Method::cluster)
        if (Error e = own_query_.setHeuristic(Heuristic::cluster)) return e;
    if (options.method == Method::hier)
        if (Error e = hierarchical_.init(graph, allocator_)) return e;
    if (options.method == Method::nexthop)
        if (Error e = next_hop_.init(graph, options.next_hop_cache_bytes, allocator_,
                                     options.next_hop_form))
            return e;
    if (options.method == Method::exact)
        if (Error e = exact_.init(graph)) return e;
    method_ = options.method;
    hier_options_ = options.hier;
    graph_ = &graph;
    findShortcuts();
    return {};
}

void Navigator::findShortcuts() {
    shortcuts_ = false;
    for (uint32_t i = 0; i < graph_->link_count && !shortcuts_; ++i) {
        const fmt::LinkRecord l = graph_->link(i);
        const double dx = double(l.to[0]) - l.from[0], dz = double(l.to[2]) - l.from[2];
        const double floor = std::sqrt(dx * dx + dz * dz) * graph_->header.min_cost_multiplier;
        shortcuts_ = double(l.cost) < floor ||
                     ((l.flags & fmt::kLinkFlagBidirectional) && double(l.reverse_cost) < floor);
    }
}

Error Navigator::initWith(const GraphView& graph, PathQuery& query, Method method) {
    release();
    allocator_ = resolveAllocator({});
    if (method != Method::astar && method != Method::cluster)
        return makeError(ErrorCode::invalid_argument, 0, 0,
                         "a navigator on a caller's PathQuery runs astar or cluster, not %s",
                         methodName(method));
    if (Error e = checkMethod(graph, method)) return e;
    query_ = &query;
    method_ = method;
    graph_ = &graph;
    findShortcuts();
    return {};
}

Error Navigator::setFilter(const QueryFilter* filter) {
    if (graph_ == nullptr)
        return makeError(ErrorCode::invalid_argument, 0, 0, "the navigator is not initialised");
    if (Error e = query_->setFilter(filter)) return e;
    if (method_ == Method::hier) (void)hierarchical_.setFilter(filter);
    return {};
}

Error Navigator::setBlocking(const Blocking* blocking) {
    if (graph_ == nullptr)
        return makeError(ErrorCode::invalid_argument, 0, 0, "the navigator is not initialised");
    if (Error e = query_->setBlocking(blocking)) return e;
    if (method_ == Method::hier) (void)hierarchical_.setBlocking(blocking);
    return {};
}

Location Navigator::locate(Vec3 point, const LocateOptions& options, uint32_t hint) const {
    Location out;
    if (graph_ == nullptr) return out;
    MeshPoint m = locatePoint(*graph_, point, options.horizontal, options.vertical, hint);
    if (m.poly != kNoNode) {
        out.node = m.poly;
        // Navmesh points are projected onto their polygon's floor, the others stay as given
        // (findPathBetween connects them).
        out.position = graph_->isNavmesh() ? m.position : point;
        return out;
    }
    if (!(options.snap > 0)) return out;
    m = locatePoint(*graph_, point,
                    options.horizontal > options.snap ? options.horizontal : options.snap,
                    options.vertical > options.snap ? options.vertical : options.snap, hint);
    if (m.poly == kNoNode) return out;
    out.node = m.poly;
    out.position = m.position;
    const double dx = double(m.position.x) - point.x, dy = double(m.position.y) - point.y,
                 dz = double(m.position.z) - point.z;
    out.moved = std::sqrt(dx * dx + dy * dy + dz * dz);
    return out;
}

bool Navigator::startSearch(Vec3 from, Vec3 to, const LocateOptions& options, uint32_t start_hint,
                            uint32_t goal_hint) {
    status_ = NavStatus::no_path;
    partial_ = false;
    via_astar_ = false;
    pulled_count_ = kNoNode;
    cost_ = 0;
    expansions_ = 0;
    nodes_ = nullptr;
    node_count_ = 0;
    if (graph_ == nullptr) return false;
    start_ = locate(from, options, start_hint);
    goal_ = locate(to, options, goal_hint);
    if (start_.node == kNoNode) {
        status_ = NavStatus::start_off_graph;
        return false;
    }
    if (goal_.node == kNoNode) {
        status_ = NavStatus::goal_off_graph;
        return false;
    }
    return true;
}

NavStatus Navigator::findPath(Vec3 from, Vec3 to, const LocateOptions& options, uint32_t start_hint,
                              uint32_t goal_hint) {
    if (beginPath(from, to, options, start_hint, goal_hint) == NavStatus::in_progress)
        return step(UINT32_MAX);
    return status_;
}

NavStatus Navigator::findPathToAny(Vec3 from, const Vec3* goals, uint32_t count,
                                   const LocateOptions& options, uint32_t start_hint) {
    goal_index_ = kNoNode;
    if (graph_ == nullptr || goals == nullptr || count == 0) {
        startSearch(from, from, options, start_hint, kNoNode);
        if (status_ != NavStatus::start_off_graph) status_ = NavStatus::goal_off_graph;
        return status_;
    }
    const Location start = locate(from, options, start_hint);
    if (start.node == kNoNode) {
        startSearch(from, goals[0], options, start_hint, kNoNode);
        return status_ = NavStatus::start_off_graph;
    }
    // Lower bounds of each goal's cost, smallest first (an insertion sort into the navigator's
    // goal scratch, which only grows).
    if (goal_capacity_ < count) {
        if (goal_scratch_ != nullptr) allocator_.release(goal_scratch_, allocator_.user);
        goal_scratch_ =
            static_cast<uint32_t*>(allocator_.allocate(8 * size_t(count), allocator_.user));
        goal_capacity_ = goal_scratch_ != nullptr ? count : 0;
        if (goal_scratch_ == nullptr) return status_ = NavStatus::no_path;
    }
    uint32_t* const order = goal_scratch_;
    float* const bound = reinterpret_cast<float*>(goal_scratch_ + count);
    // The XZ distance times the cheapest area cost, a little under (the float rounding).
    const double scale =
        double(graph_->header.min_cost_multiplier) * (1.0 - 2e-6) * query_->heuristicScale();
    for (uint32_t k = 0; k < count; ++k) {
        const double dx = double(goals[k].x) - start.position.x,
                     dz = double(goals[k].z) - start.position.z;
        bound[k] = shortcuts_ ? 0.0f : float(std::sqrt(dx * dx + dz * dz) * scale);
        uint32_t i = k;  // goals 0..k-1 are in order
        while (i > 0 && bound[order[i - 1]] > bound[k]) {
            order[i] = order[i - 1];
            --i;
        }
        order[i] = k;
    }
    double best = HUGE_VAL;
    uint32_t winner = kNoNode, last = kNoNode, total = 0;
    bool any_on_graph = false, out_of_nodes = false;
    for (uint32_t i = 0; i < count; ++i) {
        const uint32_t k = order[i];
        if (double(bound[k]) >= best) break;  // sorted: no later goal can be cheaper
        const NavStatus status = findPath(from, goals[k], options, start_hint, kNoNode);
        total += expansions_;
        last = k;
        any_on_graph = any_on_graph || status != NavStatus::goal_off_graph;
        out_of_nodes = out_of_nodes || status == NavStatus::out_of_nodes;
        if (status == NavStatus::found && (cost_ < best || (cost_ == best && k < winner))) {
            best = cost_;
            winner = k;
        }
    }
    if (winner == kNoNode) {
        expansions_ = total;
        status_ = !any_on_graph  ? NavStatus::goal_off_graph
                  : out_of_nodes ? NavStatus::out_of_nodes
                                 : NavStatus::no_path;
        return status_;
    }
    if (winner != last) {  // the winner's path back into the buffers
        findPath(from, goals[winner], options, start_hint, kNoNode);
        total += expansions_;
    }
    expansions_ = total;
    goal_index_ = winner;
    return status_;
}

NavStatus Navigator::beginPath(Vec3 from, Vec3 to, const LocateOptions& options,
                               uint32_t start_hint, uint32_t goal_hint) {
    if (!startSearch(from, to, options, start_hint, goal_hint)) return status_;
    if (!sliced()) return runWhole();
    (void)query_->setHeuristic(method_ == Method::cluster ? Heuristic::cluster
                                                          : Heuristic::standard);
    const PathStatus status =
        query_->beginPathBetween(start_.position, start_.node, goal_.position, goal_.node);
    if (status != PathStatus::in_progress) return endAStar(status);
    return status_ = NavStatus::in_progress;
}

NavStatus Navigator::step(uint32_t max_iterations) {
    if (status_ != NavStatus::in_progress) return status_;
    // UINT32_MAX: no limit (findPath's own call).
    const PathStatus status =
        query_->step(max_iterations == UINT32_MAX ? UINT64_MAX : uint64_t(max_iterations));
    expansions_ = query_->expansions();
    if (status == PathStatus::in_progress) return status_;
    return endAStar(status);
}

NavStatus Navigator::finish() {
    if (status_ != NavStatus::in_progress) return status_;
    return endAStar(PathStatus::out_of_nodes);
}

NavStatus Navigator::endAStar(PathStatus status) {
    expansions_ = query_->expansions();
    if (status == PathStatus::out_of_nodes && query_->finishPartial() == PathStatus::found) {
        partial_ = true;
        cost_ = query_->cost();
        nodes_ = query_->path();
        node_count_ = query_->pathLength();
        return status_ = NavStatus::out_of_nodes;
    }
    status_ = status == PathStatus::found          ? NavStatus::found
              : status == PathStatus::out_of_nodes ? NavStatus::out_of_nodes
                                                   : NavStatus::no_path;
    if (status_ == NavStatus::found) {
        cost_ = query_->cost();
        nodes_ = query_->path();
        node_count_ = query_->pathLength();
    }
    return status_;
}

NavStatus Navigator::runAStar() {
    via_astar_ = true;
    (void)query_->setHeuristic(Heuristic::standard);
    PathStatus status =
        query_->beginPathBetween(start_.position, start_.node, goal_.position, goal_.node);
    if (status == PathStatus::in_progress) status = query_->step(UINT64_MAX);
    return endAStar(status);
}

bool Navigator::reserveHops(uint32_t need) {
    if (hop_capacity_ >= need) return true;
    // Grown keeping what it holds (the path so far).
    const uint32_t room = need < 64 ? 64 : need + need / 2;
    auto* grown = static_cast<uint32_t*>(allocator_.allocate(4 * size_t(room), allocator_.user));
    if (grown == nullptr) return false;
    if (hops_ != nullptr) {
        std::memcpy(grown, hops_, 4 * size_t(hop_capacity_));
        allocator_.release(hops_, allocator_.user);
    }
    hops_ = grown;
    hop_capacity_ = room;
    return true;
}

NavStatus Navigator::runNextHopAround() {
    const GraphView& g = *graph_;
    const Blocking* blocking = query_->blocking();
    uint32_t count = 0;
    double cost = 0;
    uint32_t lookups = 0;
    auto push = [&](uint32_t v) {
        if (!reserveHops(count + 1)) return false;
        hops_[count++] = v;
        return true;
    };
    uint32_t current = start_.node;
    if (!push(current)) return status_ = NavStatus::no_path;
    while (current != goal_.node) {
        const uint32_t edge = next_hop_.nextEdge(current, goal_.node);
        ++lookups;
        if (edge == kNoNode || count > g.nodeCount()) return status_ = NavStatus::no_path;
        const uint32_t e = g.edge_offsets[current] + edge;
        const uint32_t v = g.edgeTarget(current, e);
        const uint32_t link = g.edgeLink(e);
        if (!query_->canEnter(v) || (link != fmt::kNoLink && blocking->link(link))) {
            // A blocked move: search the rest of the way.
            const PathStatus status = query_->findPath(current, goal_.node);
            lookups += query_->expansions();
            if (status != PathStatus::found) {
                expansions_ = lookups;
                return status_ = status == PathStatus::out_of_nodes ? NavStatus::out_of_nodes
                                                                    : NavStatus::no_path;
            }
            for (uint32_t i = 1; i < query_->pathLength(); ++i)
                if (!push(query_->path()[i])) return status_ = NavStatus::no_path;
            cost += query_->cost();
            break;
        }
        if (!push(v)) return status_ = NavStatus::no_path;
        cost += double(g.edge_costs[e]);
        current = v;
    }
    expansions_ = lookups;
    cost_ = cost;
    nodes_ = hops_;
    node_count_ = count;
    return status_ = NavStatus::found;
}

NavStatus Navigator::runWhole() {
    PathStatus status = PathStatus::no_path;
    const bool restricted = query_->restricted();
    if (restricted &&
        (method_ == Method::exact || (method_ == Method::nexthop && query_->filter() != nullptr)))
        return runAStar();
    if (restricted && method_ == Method::nexthop) return runNextHopAround();
    switch (method_) {
        case Method::hier:
            status = hierarchical_.findPath(start_.node, goal_.node, hier_options_);
            if (restricted && status != PathStatus::found) return runAStar();
            expansions_ = hierarchical_.expansions();
            cost_ = hierarchical_.cost();
            nodes_ = hierarchical_.path();
            node_count_ = hierarchical_.pathLength();
            break;
        case Method::nexthop:
            status = next_hop_.pathByNextHop(start_.node, goal_.node);
            expansions_ = next_hop_.pathLength() > 0 ? next_hop_.pathLength() - 1 : 0;
            cost_ = next_hop_.cost();
            nodes_ = next_hop_.path();
            node_count_ = next_hop_.pathLength();
            break;
        case Method::exact:
            status = exact_.findPath(start_.position, start_.node, goal_.position, goal_.node);
            expansions_ = exact_.expansions();
            cost_ = exact_.cost();
            break;
        case Method::jps:
            // JPS+ (A* with a filter or blocking): a node path in the query, pulled as A*'s.
            status = query_->findPathJumping(start_.node, goal_.node);
            via_astar_ = true;
            expansions_ = query_->expansions();
            cost_ = query_->cost();
            nodes_ = query_->path();
            node_count_ = query_->pathLength();
            break;
        case Method::astar:
        case Method::cluster: return NavStatus::no_path;  // sliced: beginPath
    }
    status_ = status == PathStatus::found          ? NavStatus::found
              : status == PathStatus::out_of_nodes ? NavStatus::out_of_nodes
                                                   : NavStatus::no_path;
    if (status_ != NavStatus::found) {
        cost_ = 0;
        nodes_ = nullptr;
        node_count_ = 0;
    }
    return status_;
}

namespace {

// Tables return nodes: the link of the cheapest edge from `from` to `to` (kNoLink: none).
uint32_t tableStepLink(const GraphView& g, uint32_t from, uint32_t to) {
    if (g.link_count == 0 || g.edge_offsets == nullptr) return fmt::kNoLink;
    uint32_t edge = kNoNode;
    float best = HUGE_VALF;
    for (uint32_t e = g.edge_offsets[from]; e < g.edge_offsets[from + 1]; ++e)
        if (g.edgeTarget(from, e) == to && g.edge_costs[e] < best) best = g.edge_costs[e], edge = e;
    return edge != kNoNode ? g.edgeLink(edge) : fmt::kNoLink;
}

}  // namespace

uint32_t Navigator::straightPath(Vec3* points, uint32_t capacity, uint32_t* links) const {
    if (status_ != NavStatus::found && !partial_) return 0;
    if (method_ == Method::exact && !via_astar_) {
        const uint32_t n = exact_.pointCount();
        for (uint32_t i = 0; i < n && i < capacity; ++i) {
            points[i] = exact_.points()[i];
            if (links != nullptr) links[i] = i + 1 < n ? exact_.segmentLink(i) : fmt::kNoLink;
        }
        return n;
    }
    if (tableMethod() && !via_astar_) {
        for (uint32_t i = 0; i < node_count_ && i < capacity; ++i) {
            points[i] = graph_->position(nodes_[i]);
            if (links != nullptr)
                links[i] = i + 1 < node_count_ ? tableStepLink(*graph_, nodes_[i], nodes_[i + 1])
                                               : fmt::kNoLink;
        }
        return node_count_;
    }
    // A* paths are pulled once, into the scratch, and copied from there.
    const uint32_t count = pull();
    for (uint32_t i = 0; i < count && i < capacity; ++i) {
        points[i] = pulled_[i];
        if (links != nullptr) links[i] = pulled_links_[i];
    }
    return count;
}

uint32_t Navigator::pull() const {
    if (pulled_count_ != kNoNode) return pulled_count_;
    if (!reservePulled(2 * node_count_ + 4)) return 0;
    pulled_count_ = query_->smooth(pulled_, pulled_capacity_, pulled_links_);
    return pulled_count_;
}

bool Navigator::reservePulled(uint32_t need) const {
    if (pulled_capacity_ >= need) return true;
    if (pulled_ != nullptr) allocator_.release(pulled_, allocator_.user);
    if (pulled_links_ != nullptr) allocator_.release(pulled_links_, allocator_.user);
    const uint32_t room = need < 64 ? 64 : need + need / 2;
    pulled_ = static_cast<Vec3*>(allocator_.allocate(sizeof(Vec3) * room, allocator_.user));
    pulled_links_ = static_cast<uint32_t*>(allocator_.allocate(4 * size_t(room), allocator_.user));
    pulled_capacity_ = pulled_ != nullptr && pulled_links_ != nullptr ? room : 0;
    return pulled_capacity_ >= need;
}

double Navigator::pathLength() const {
    if (status_ != NavStatus::found && !partial_) return 0;
    auto length = [](uint32_t count, auto&& point) {
        double sum = 0;
        for (uint32_t i = 1; i < count; ++i) {
            const Vec3 a = point(i - 1), b = point(i);
            const double dx = double(b.x) - a.x, dy = double(b.y) - a.y, dz = double(b.z) - a.z;
            sum += std::sqrt(dx * dx + dy * dy + dz * dz);
        }
        return sum;
    };
    // A* paths: the pulled straight path (the points and the sum PathQuery::smoothedLength
    // makes, without pulling the path again).
    if (sliced() || via_astar_) return length(pull(), [&](uint32_t i) { return pulled_[i]; });
    if (method_ == Method::exact)
        return length(exact_.pointCount(), [&](uint32_t i) { return exact_.points()[i]; });
    return length(node_count_, [&](uint32_t i) { return graph_->position(nodes_[i]); });
}

uint32_t Navigator::pathLinks(PathLink* out, uint32_t capacity) const {
    if ((status_ != NavStatus::found && !partial_) || graph_->link_count == 0) return 0;
    const GraphView& g = *graph_;
    uint32_t count = 0;
    auto add = [&](uint32_t link, uint32_t step, uint32_t segment, bool reverse) {
        if (count < capacity) out[count] = {link, step, segment, reverse};
        ++count;
    };
    if (method_ == Method::exact && !via_astar_) {
        // No node path: a step is a segment of the straight path.
        for (uint32_t i = 0; i + 1 < exact_.pointCount(); ++i) {
            const uint32_t link = exact_.segmentLink(i);
            if (link == fmt::kNoLink) continue;
            const fmt::LinkRecord record = g.link(link);
            add(link, i, i,
                exact_.points()[i].x != record.from[0] || exact_.points()[i].z != record.from[2]);
        }
        return count;
    }
    const bool table = tableMethod() && !via_astar_;
    for (uint32_t k = 0; k + 1 < node_count_; ++k) {
        const uint32_t link =
            table ? tableStepLink(g, nodes_[k], nodes_[k + 1]) : query_->pathLink(k);
        if (link != fmt::kNoLink) add(link, k, k, nodes_[k] != g.link(link).from_node);
    }
    if (table || count == 0) return count;
    // The straight path has one segment per link step, in order: number them.
    const uint32_t points = pull();  // 0 when out of memory: segments left as the steps
    uint32_t next = 0;
    for (uint32_t i = 0; i + 1 < points && i < pulled_capacity_ && next < count; ++i)
        if (pulled_links_[i] != fmt::kNoLink) {
            if (next < capacity) out[next].segment = i;
            ++next;
        }
    return count;
}

// ---- Surface queries ----------------------------------------------------------------------------

namespace {

Vec3 meshVertex(const GraphView& g, uint32_t v) {
    return {g.mesh_vertices[3 * size_t(v)], g.mesh_vertices[3 * size_t(v) + 1],
            g.mesh_vertices[3 * size_t(v) + 2]};
}

// Twice the XZ area of the triangle (a, b, c), unsigned.
double area2(Vec3 a, Vec3 b, Vec3 c) {
    return std::fabs((double(b.x) - a.x) * (double(c.z) - a.z) -
                     (double(b.z) - a.z) * (double(c.x) - a.x));
}

// The point of segment ab nearest to p in XZ, and the squared distance.
Vec3 nearestOnSegment(Vec3 a, Vec3 b, Vec3 p, double& d2) {
    const double ex = double(b.x) - a.x, ez = double(b.z) - a.z;
    const double len2 = ex * ex + ez * ez;
    double t = len2 > 0 ? ((double(p.x) - a.x) * ex + (double(p.z) - a.z) * ez) / len2 : 0;
    t = t < 0 ? 0 : (t > 1 ? 1 : t);
    const Vec3 q{float(a.x + t * ex), float(a.y + t * (double(b.y) - a.y)), float(a.z + t * ez)};
    const double dx = double(q.x) - p.x, dz = double(q.z) - p.z;
    d2 = dx * dx + dz * dz;
    return q;
}

// The height of `p` on polygon `poly` (its floor; the point's own when outside).
Vec3 onFloor(const GraphView& g, uint32_t poly, Vec3 p) {
    float y = p.y;
    if (polyHeight(g, poly, p.x, p.z, y)) p.y = y;
    return p;
}

}  // namespace

Location Navigator::randomPoint(float u0, float u1, float u2) const {
    Location out;
    if (graph_ == nullptr || graph_->nodeCount() == 0) return out;
    const GraphView& g = *graph_;
    auto clamp01 = [](float u) { return u < 0.0f ? 0.0f : (u >= 1.0f ? 0.99999994f : u); };
    u0 = clamp01(u0), u1 = clamp01(u1), u2 = clamp01(u2);
    const uint32_t n = g.nodeCount();
    if (g.isNavmesh()) {
        if (cumulative_areas_ == nullptr) {
            cumulative_areas_ =
                static_cast<double*>(allocator_.allocate(8 * size_t(n), allocator_.user));
            if (cumulative_areas_ == nullptr) return out;
            double total = 0;
            for (uint32_t p = 0; p < n; ++p) {
                const uint32_t first = g.poly_offsets[p], count = g.poly_offsets[p + 1] - first;
                const Vec3 a = meshVertex(g, g.poly_vertices[first]);
                for (uint32_t k = 1; k + 1 < count; ++k)
                    total += area2(a, meshVertex(g, g.poly_vertices[first + k]),
                                   meshVertex(g, g.poly_vertices[first + k + 1]));
                cumulative_areas_[p] = total;
            }
        }
        // The polygon: the first whose cumulative area passes u0 of the total.
        const double target = double(u0) * cumulative_areas_[n - 1];
        uint32_t lo = 0, hi = n - 1;
        while (lo < hi) {
            const uint32_t mid = (lo + hi) / 2;
            if (cumulative_areas_[mid] > target)
                hi = mid;
            else
                lo = mid + 1;
        }
        const uint32_t p = lo;
        // A triangle of its fan in proportion to its area (u1 reused: the remainder of the
        // choice, rescaled), then a uniform point in it (the square-root rule).
        const uint32_t first = g.poly_offsets[p], count = g.poly_offsets[p + 1] - first;
        const Vec3 a = meshVertex(g, g.poly_vertices[first]);
        double poly_area = 0;
        for (uint32_t k = 1; k + 1 < count; ++k)
            poly_area += area2(a, meshVertex(g, g.poly_vertices[first + k]),
                               meshVertex(g, g.poly_vertices[first + k + 1]));
        double pick = double(u1) * poly_area;
        uint32_t k = 1;
        for (; k + 2 < count; ++k) {
            const double t = area2(a, meshVertex(g, g.poly_vertices[first + k]),
                                   meshVertex(g, g.poly_vertices[first + k + 1]));
            if (pick < t) break;
            pick -= t;
        }
        const Vec3 b = meshVertex(g, g.poly_vertices[first + k]);
        const Vec3 c = meshVertex(g, g.poly_vertices[first + k + 1]);
        const double t_here = area2(a, b, c);
        const double v = t_here > 0 ? pick / t_here : 0.5;  // uniform in [0, 1) again
        const double r = std::sqrt(v < 0 ? 0 : (v > 1 ? 1 : v)), w = u2;
        const double wa = 1 - r, wb = r * (1 - w), wc = r * w;
        Vec3 q{float(wa * a.x + wb * b.x + wc * c.x), 0.0f, float(wa * a.z + wb * b.z + wc * c.z)};
        q.y = float(wa * a.y + wb * b.y + wc * c.y);
        out.node = p;
        out.position = onFloor(g, p, q);
        return out;
    }
    if (g.implicitVolume()) {
        // Rejection over voxels (the free ones are most of a level's air), then a scan.
        uint32_t v = uint32_t(double(u0) * n);
        const uint32_t step = 2654435761u % n == 0 ? 1 : 2654435761u % n;
        for (uint32_t tries = 0; tries < 64 && !g.isFree(v); ++tries) v = (v + step) % n;
        for (uint32_t i = 0; i < n && !g.isFree(v); ++i) v = (v + 1) % n;
        if (!g.isFree(v)) return out;
        out.node = v;
        out.position = g.position(v);
        return out;
    }
    if (g.isPov()) {
        if (g.layer_cell_count == 0) return out;
        const uint32_t cell = uint32_t(double(u0) * g.layer_cell_count);
        const fmt::NodeCell c =
            fmt::decodeNodeCell(g.layer_cells + size_t(cell) * fmt::kNodeCellSize);
        const fmt::GraphHeader& h = g.header;
        out.node = cell;
        out.position = {h.origin[0] + (float(c.column % h.size_x) + u1) * h.cell_size,
                        h.origin[1] + float(c.y) * h.cell_height,
                        h.origin[2] + (float(c.column / h.size_x) + u2) * h.cell_size};
        return out;
    }
    // Tile (and Dirichlet) graphs: a node, a point in its cell.
    const uint32_t v = uint32_t(double(u0) * n);
    const Vec3 p = g.position(v);
    const float half = 0.5f * g.header.cell_size;
    out.node = v;
    out.position = {p.x + (2 * u1 - 1) * half, p.y, p.z + (2 * u2 - 1) * half};
    return out;
}

RaycastHit Navigator::raycast(Vec3 from, Vec3 to, const LocateOptions& options,
                              uint32_t hint) const {
    RaycastHit none;
    if (graph_ == nullptr || !graph_->isNavmesh()) return none;
    const Location start = locate(from, options, hint);
    if (start.node == kNoNode) return none;
    return navrt::raycast(*graph_, start.node, start.position, to);
}

Location Navigator::closestPoint(uint32_t poly, Vec3 point) const {
    Location out;
    if (graph_ == nullptr || !graph_->isNavmesh() || poly >= graph_->nodeCount()) return out;
    const float p[3] = {point.x, point.y, point.z};
    float q[3] = {point.x, point.y, point.z};
    const double d = fmt::meshPolyDistance(meshArrays(*graph_), poly, p, q);
    out.node = poly;
    out.position = onFloor(*graph_, poly, {q[0], q[1], q[2]});
    const double dy = double(out.position.y) - point.y;
    out.moved = std::sqrt(d * d + dy * dy);
    return out;
}

SurfaceMove Navigator::moveAlongSurface(uint32_t start, Vec3 from, Vec3 to) const {
    SurfaceMove out;
    out.position = from;
    if (graph_ == nullptr || !graph_->isNavmesh() || start >= graph_->nodeCount()) return out;
    const GraphView& g = *graph_;
    const uint32_t n = g.nodeCount();
    if (surface_marks_ == nullptr) {
        surface_marks_ =
            static_cast<uint32_t*>(allocator_.allocate(4 * size_t(n), allocator_.user));
        if (surface_marks_ == nullptr) return out;
        std::memset(surface_marks_, 0, 4 * size_t(n));
        surface_stamp_ = 0;
    }
    if (++surface_stamp_ == 0) {
        std::memset(surface_marks_, 0, 4 * size_t(n));
        surface_stamp_ = 1;
    }
    // Breadth-first over the polygons whose portals touch the circle over from-to (Detour's
    // moveAlongSurface): the target when a visited polygon holds it, else the nearest point on
    // a visited wall.
    const Vec3 centre{0.5f * (from.x + to.x), 0, 0.5f * (from.z + to.z)};
    const double rx = double(to.x) - from.x, rz = double(to.z) - from.z;
    const double radius2 = 0.25 * (rx * rx + rz * rz) + 1e-6;
    const Blocking* blocking = query_->blocking();
    const fmt::MeshArrays mesh = meshArrays(g);
    const float target[3] = {to.x, to.y, to.z};
    Vec3 best = from;
    uint32_t best_poly = start;
    double best_d2 = HUGE_VAL;
    // The queue: a polygon enters it once, so the polygon count bounds it.
    if (surface_queue_ == nullptr) {
        surface_queue_ =
            static_cast<uint32_t*>(allocator_.allocate(4 * size_t(n), allocator_.user));
        if (surface_queue_ == nullptr) return out;
    }
    uint32_t head = 0, tail = 0;
    surface_queue_[tail++] = start;
    surface_marks_[start] = surface_stamp_;
    while (head < tail) {
        const uint32_t cur = surface_queue_[head++];
        ++out.visited;
        float inside[3];
        if (fmt::meshPolyDistance(mesh, cur, target, inside) == 0.0) {
            out.position = onFloor(g, cur, to);
            out.poly = cur;
            out.reached = true;
            return out;
        }
        const uint32_t first = g.poly_offsets[cur], count = g.poly_offsets[cur + 1] - first;
        for (uint32_t k = 0; k < count; ++k) {
            const Vec3 a = meshVertex(g, g.poly_vertices[first + k]);
            const Vec3 b = meshVertex(g, g.poly_vertices[first + (k + 1) % count]);
            const uint32_t next = g.poly_neighbours[first + k];
            const bool wall = next == kNoNode || (blocking != nullptr && blocking->count() > 0 &&
                                                  !query_->canEnter(next));
            if (wall) {
                double d2 = 0;
                const Vec3 q = nearestOnSegment(a, b, to, d2);
                if (d2 < best_d2) best_d2 = d2, best = q, best_poly = cur;
                continue;
            }
            if (surface_marks_[next] == surface_stamp_) continue;
            double d2 = 0;
            nearestOnSegment(a, b, centre, d2);
            if (d2 > radius2) continue;
            surface_marks_[next] = surface_stamp_;
            surface_queue_[tail++] = next;
        }
    }
    out.position = onFloor(g, best_poly, best);
    out.poly = best_poly;
    return out;
}

}  // namespace navrt
