// Points-of-visibility graphs: corners on hand-made grids, line of sight (touching allowed,
// pinches refused), multi-floor levels, ledges, pruning that keeps optimal lengths, artifact round
// trips and the runtime's edge cases. (The brute-force any-angle oracle lives in tests/pov/.)
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <set>
#include <tuple>

#include "lib/graph/graph.h"
#include "lib/importer/import.h"
#include "lib/query/query.h"
#include "lib/runtime/navrt_query.h"
#include "lib/voxel/voxel_grid.h"
#include "tests/test_support.h"

using namespace nav;

namespace {

importer::GridMap gridMap(const std::string& rows, uint32_t width, uint32_t height) {
    const std::string text = "type octile\nheight " + std::to_string(height) + "\nwidth " +
                             std::to_string(width) + "\nmap\n" + rows;
    auto map = importer::parseMovingAiMap(text, "t.map");
    REQUIRE(map.ok());
    return std::move(map).value();
}

graph::Graph povGraph(const voxel::VoxelGrid& grid, bool prune = true, unsigned threads = 0) {
    Context context;
    graph::PovParams params;
    params.prune = prune;
    params.threads = threads;
    auto g = graph::buildPovGraph(grid, params, context);
    REQUIRE(g.ok());
    return std::move(g).value();
}

// A baked graph packed into a .nav and loaded by navrt, with a query object.
struct Level {
    test::TempDir dir;
    graph::Graph graph;
    navrt::Asset asset;
    navrt::GraphView view;
    navrt::PathQuery query;
};

std::unique_ptr<Level> load(graph::Graph g) {
    auto level = std::make_unique<Level>();
    level->graph = std::move(g);
    const auto path = level->dir / "level.nav";
    REQUIRE(graph::saveGraph(path, level->graph, formats::kKindNav).ok());
    REQUIRE_FALSE(navrt::load(path.c_str(), level->asset));
    const navrt::Error e = navrt::viewGraph(level->asset, level->view);
    INFO(e.message);
    REQUIRE_FALSE(e);
    REQUIRE_FALSE(level->query.init(level->view));
    return level;
}

std::unique_ptr<Level> loadMap(const std::string& rows, uint32_t width, uint32_t height) {
    return load(povGraph(importer::gridFromMap(gridMap(rows, width, height))));
}

// Corners as (x, z, bx, bz) in cell units.
std::set<std::tuple<int, int, int, int>> cornerSet(const graph::Graph& g,
                                                   const voxel::VoxelGrid& grid) {
    std::set<std::tuple<int, int, int, int>> out;
    for (size_t i = 0; i < g.corners.size(); ++i)
        out.insert({int(std::lround((g.positions[3 * i] - grid.origin[0]) / grid.cell_size)),
                    int(std::lround((g.positions[3 * i + 2] - grid.origin[2]) / grid.cell_size)),
                    g.corners[i].bx, g.corners[i].bz});
    return out;
}

// Path between two points (grid maps: y = 0 is the floor).
struct Found {
    navrt::PathStatus status;
    double length = -1;
    std::vector<navrt::Vec3> points;
};
Found path(Level& level, navrt::Vec3 from, navrt::Vec3 to) {
    const uint32_t a = navrt::locate(level.view, from, 0.0f, 0.5f);
    const uint32_t b = navrt::locate(level.view, to, 0.0f, 0.5f);
    REQUIRE(a != navrt::kNoNode);
    REQUIRE(b != navrt::kNoNode);
    Found f;
    f.status = level.query.findPathBetween(from, a, to, b);
    if (f.status == navrt::PathStatus::found) {
        f.length = level.query.smoothedLength();
        CHECK(level.query.cost() == f.length);
        f.points.resize(level.query.pathLength());
        CHECK(level.query.smooth(f.points.data(), uint32_t(f.points.size())) == f.points.size());
    }
    return f;
}

bool visible(const Level& level, navrt::Vec3 from, navrt::Vec3 to) {
    const uint32_t a = navrt::locate(level.view, from, 0.0f, 0.5f);
    const uint32_t b = navrt::locate(level.view, to, 0.0f, 0.5f);
    REQUIRE(a != navrt::kNoNode);
    REQUIRE(b != navrt::kNoNode);
    return navrt::povLineOfSight(level.view, a, from, b, to);
}

double distance3(navrt::Vec3 a, navrt::Vec3 b) {
    return std::sqrt(double(a.x - b.x) * (a.x - b.x) + double(a.y - b.y) * (a.y - b.y) +
                     double(a.z - b.z) * (a.z - b.z));
}

// One walkable floor span [0, top) per listed column (x, z); everything else empty (no span).
struct Column {
    int x, z;
    std::vector<voxel::Span> spans;
};
voxel::VoxelGrid handGrid(uint32_t size_x, uint32_t size_z, uint32_t size_y,
                          std::vector<Column> columns) {
    voxel::VoxelGrid grid;
    grid.size_x = size_x;
    grid.size_z = size_z;
    grid.size_y = size_y;
    grid.cell_size = 1.0f;
    grid.cell_height = 1.0f;
    grid.agent.height = 2.0f;
    grid.agent.climb = 1.0f;
    grid.agent.radius = 0.0f;
    std::vector<std::vector<voxel::Span>> per_column(size_t(size_x) * size_z);
    for (Column& c : columns) per_column[size_t(c.z) * size_x + size_t(c.x)] = c.spans;
    grid.column_offsets.push_back(0);
    for (auto& spans : per_column) {
        grid.spans.insert(grid.spans.end(), spans.begin(), spans.end());
        grid.column_offsets.push_back(uint32_t(grid.spans.size()));
    }
    return grid;
}
voxel::Span floorSpan(uint16_t top) { return {0, top, 1, true}; }

}  // namespace

TEST_SUITE("graph") {
    TEST_CASE("pov corners: a single block has four, each facing it") {
        const voxel::VoxelGrid grid = importer::gridFromMap(gridMap("...\n.@.\n...\n", 3, 3));
        const graph::Graph g = povGraph(grid);
        CHECK(cornerSet(g, grid) ==
              std::set<std::tuple<int, int, int, int>>{
                  {1, 1, 1, 1}, {2, 1, -1, 1}, {1, 2, 1, -1}, {2, 2, -1, -1}});
        // The four faces are visible and taut; the two diagonals cross the block.
        CHECK(g.pov_stats.visibility_edges == 8);
        CHECK(g.pov_stats.taut_edges == 8);
        CHECK(g.pov_stats.layer_cell_count == 8);
        CHECK(g.header.type == formats::GraphType::pov);
        CHECK(g.header.heuristic == formats::HeuristicKind::euclidean);

        auto level = load(g);
        // Around the block over two of its corners: (0.5, 1.5) -> (1, 1) -> (2, 1) -> (2.5, 1.5).
        const Found f = path(*level, {0.5f, 0, 1.5f}, {2.5f, 0, 1.5f});
        REQUIRE(f.status == navrt::PathStatus::found);
        CHECK(f.length == doctest::Approx(1.0 + 2 * std::sqrt(0.5)).epsilon(1e-12));
        REQUIRE(f.points.size() == 4);
        // Touching is allowed: through the block's corner (1, 1) diagonally, and along its face x
        // = 1.
        CHECK(visible(*level, {0.5f, 0, 1.5f}, {1.5f, 0, 0.5f}));
        CHECK(visible(*level, {1.0f, 0, 0.25f}, {1.0f, 0, 2.75f}));
        CHECK_FALSE(visible(*level, {0.5f, 0, 0.5f}, {2.5f, 0, 2.5f}));
        CHECK_FALSE(visible(*level, {1.5f, 0, 0.25f}, {1.5f, 0, 2.75f}));
    }

    TEST_CASE("pov corners: an L-shaped obstacle has only its convex corners") {
        // .....
        // .@@..
        // .@...
        // .....
        const voxel::VoxelGrid grid =
            importer::gridFromMap(gridMap(".....\n.@@..\n.@...\n.....\n", 5, 4));
        const graph::Graph g = povGraph(grid);
        // (2, 2) is the concave inner corner: three blocked cells around it, no corner.
        CHECK(cornerSet(g, grid) ==
              std::set<std::tuple<int, int, int, int>>{
                  {1, 1, 1, 1}, {3, 1, -1, 1}, {3, 2, -1, -1}, {1, 3, 1, -1}, {2, 3, -1, -1}});
        auto level = load(g);
        // From inside the L's notch to beyond its lower-left: around (2, 3) and (1, 3).
        const Found f = path(*level, {2.5f, 0, 2.5f}, {0.5f, 0, 1.5f});
        REQUIRE(f.status == navrt::PathStatus::found);
        CHECK(f.length ==
              doctest::Approx(std::hypot(0.5, 0.5) + 1.0 + std::hypot(0.5, 1.5)).epsilon(1e-12));
    }

    TEST_CASE("pov: no path squeezes through a pinch between two diagonal obstacles") {
        // ......
        // .@....
        // ..@...
        // ......
        auto level = loadMap("......\n.@....\n..@...\n......\n", 6, 4);
        // The straight line passes the vertex (2, 2) between the two blocks: refused.
        CHECK_FALSE(visible(*level, {1.5f, 0, 2.5f}, {2.5f, 0, 1.5f}));
        const Found f = path(*level, {1.5f, 0, 2.5f}, {2.5f, 0, 1.5f});
        REQUIRE(f.status == navrt::PathStatus::found);
        CHECK(f.length == doctest::Approx(2.0 + std::sqrt(2.0)).epsilon(1e-12));  // around a block
        // A pinch that is the only connection: the two sides are separate.
        auto closed = loadMap("@.\n.@\n", 2, 2);
        const uint32_t a = navrt::locate(closed->view, {0.5f, 0, 1.5f});
        const uint32_t b = navrt::locate(closed->view, {1.5f, 0, 0.5f});
        CHECK(closed->query.findPathBetween({0.5f, 0, 1.5f}, a, {1.5f, 0, 0.5f}, b) ==
              navrt::PathStatus::no_path);
        CHECK_FALSE(navrt::povLineOfSight(closed->view, a, {0.5f, 0, 1.5f}, b, {1.5f, 0, 0.5f}));
        // Along a grid line between two blocked cells (z = 1 at x = 2..3): refused; along a line
        // with a blocked cell on one side only (the wall's lower face z = 2): allowed.
        auto wall = loadMap("..@..\n..@..\n.....\n", 5, 3);
        CHECK_FALSE(visible(*wall, {1.5f, 0, 1.0f}, {3.5f, 0, 1.0f}));
        CHECK(visible(*wall, {0.5f, 0, 2.0f}, {4.5f, 0, 2.0f}));
    }

    TEST_CASE("pov on two floors: corners on both, line of sight up the ramp") {
        // Cell size and height 1, climb 1, agent height 2. Rows (z):
        //   z = 0: ground (top 1) everywhere; from x = 4 a slab [4, 6) above it is the upper floor.
        //   z = 1: ground at x = 0; a tall wall at x = 1..4; ground + slab at x = 5..7.
        //   z = 2: ground at x = 0, a ramp with tops 2, 3, 4, 5 at x = 1..4, ground + slab at 5..7.
        std::vector<Column> columns;
        for (int x = 0; x < 8; ++x) {
            std::vector<voxel::Span> both = {floorSpan(1), {4, 6, 1, true}};
            columns.push_back({x, 0, x >= 4 ? both : std::vector<voxel::Span>{floorSpan(1)}});
            if (x == 0)
                columns.push_back({x, 1, {floorSpan(1)}});
            else if (x <= 4)
                columns.push_back({x, 1, {{0, 10, 0, false}}});
            else
                columns.push_back({x, 1, both});
            if (x == 0)
                columns.push_back({x, 2, {floorSpan(1)}});
            else if (x <= 4)
                columns.push_back({x, 2, {floorSpan(uint16_t(1 + x))}});
            else
                columns.push_back({x, 2, both});
        }
        const voxel::VoxelGrid grid = handGrid(8, 3, 12, columns);
        const graph::Graph g = povGraph(grid);
        std::set<float> corner_floors;
        for (size_t i = 0; i < g.corners.size(); ++i) corner_floors.insert(g.positions[3 * i + 1]);
        CHECK(corner_floors.count(1.0f) == 1);  // ground floor
        CHECK(corner_floors.count(6.0f) == 1);  // upper floor
        CHECK(g.pov_stats.layer_component_count == 1);
        // The vertex (5, 1) is a corner on both floors (the wall's end seen from each).
        size_t at_5_1 = 0;
        for (size_t i = 0; i < g.corners.size(); ++i)
            at_5_1 += g.positions[3 * i] == 5.0f && g.positions[3 * i + 2] == 1.0f;
        CHECK(at_5_1 == 2);

        auto level = load(g);
        const navrt::Vec3 ground_start{0.5f, 1, 2.5f}, upper{6.5f, 6, 2.5f},
            ground_below{6.5f, 1, 2.5f};
        // Straight up the ramp from the ground cell (0, 2) to the slab: visible, and it ends on the
        // upper floor, so the ground cell under the slab is not.
        CHECK(visible(*level, ground_start, upper));
        CHECK_FALSE(visible(*level, ground_start, ground_below));
        // Ground floor (under the slab) to the upper floor right above it: around the wall's west
        // end and up the ramp: (6.5, 1, 0.5) -> (1, 1, 1) -> (1, 1, 2) -> (5, 6, 2) -> (6.5, 6,
        // 0.5).
        const Found f = path(*level, {6.5f, 1, 0.5f}, {6.5f, 6, 0.5f});
        REQUIRE(f.status == navrt::PathStatus::found);
        const double expected =
            std::hypot(5.5, 0.5) + 1.0 + std::sqrt(16.0 + 25.0) + std::hypot(1.5, 1.5);
        CHECK(f.length == doctest::Approx(expected).epsilon(1e-9));
        REQUIRE(f.points.size() == 5);
        CHECK(f.points[1].y == 1.0f);
        CHECK(f.points[3].y == 6.0f);
        // The same column, two floors: no straight line between them.
        CHECK_FALSE(visible(*level, {6.5f, 1, 0.5f}, {6.5f, 6, 0.5f}));
    }

    TEST_CASE("pov: a ledge ending at a vertex keeps every direction at its end") {
        // Rows z = 0, 1 at floor 1; row z = 2 rises 1, 2, 3, 3, 3, 3: the plateau (x >= 2) is 2
        // above row 1 (more than the climb), so a ledge runs along z = 2 from x = 2 on, and the
        // only way up is around its end at the vertex (2, 2).
        std::vector<Column> columns;
        for (int x = 0; x < 6; ++x) {
            columns.push_back({x, 0, {floorSpan(1)}});
            columns.push_back({x, 1, {floorSpan(1)}});
            columns.push_back({x, 2, {floorSpan(uint16_t(std::min(3, 1 + x)))}});
        }
        const voxel::VoxelGrid grid = handGrid(6, 3, 8, columns);
        const graph::Graph g = povGraph(grid);
        REQUIRE(g.pov_stats.any_direction_corners >= 1);
        for (const formats::PovCorner& c : g.corners)
            CHECK((c.flags & formats::kPovCornerAnyDirection) != 0);
        auto level = load(g);
        const Found f = path(*level, {5.5f, 1, 1.5f}, {5.5f, 3, 2.5f});
        REQUIRE(f.status == navrt::PathStatus::found);
        // Wrapping the ledge's end (2, 2). Two corners stand there, on row 1 (y = 1) and on the
        // ramp cell (1, 2) (y = 2); in 3D the ramp one is shorter: twice sqrt(3.5^2 + 1^2 + 0.5^2).
        const double expected = 2 * std::sqrt(3.5 * 3.5 + 1.0 + 0.5 * 0.5);
        CHECK(f.length == doctest::Approx(expected).epsilon(1e-9));
        CHECK_FALSE(visible(*level, {5.5f, 1, 1.5f}, {5.5f, 3, 2.5f}));
    }

    TEST_CASE("pov pruning keeps optimal lengths on random grids") {
        std::mt19937 rng(7);
        std::uniform_real_distribution<double> unit(0, 1);
        for (int round = 0; round < 12; ++round) {
            const uint32_t w = 14 + uint32_t(round % 4) * 3, h = 12 + uint32_t(round % 3) * 4;
            const double density = 0.12 + 0.04 * (round % 5);
            importer::GridMap map;
            map.width = w;
            map.height = h;
            map.passable.resize(size_t(w) * h);
            for (auto& p : map.passable) p = unit(rng) >= density;
            const voxel::VoxelGrid grid = importer::gridFromMap(map);
            auto pruned = load(povGraph(grid, true));
            auto full = load(povGraph(grid, false));
            CHECK(full->graph.pov_stats.taut_edges == full->graph.pov_stats.visibility_edges);
            CHECK(pruned->graph.pov_stats.visibility_edges ==
                  full->graph.pov_stats.visibility_edges);
            CHECK(pruned->graph.edgeCount() <= full->graph.edgeCount());
            std::vector<navrt::Vec3> cells;
            for (uint32_t z = 0; z < h; ++z)
                for (uint32_t x = 0; x < w; ++x)
                    if (map.isPassable(x, z))
                        cells.push_back({float(x) + 0.5f, 0, float(z) + 0.5f});
            std::uniform_int_distribution<size_t> pick(0, cells.size() - 1);
            for (int q = 0; q < 60; ++q) {
                const navrt::Vec3 a = cells[pick(rng)], b = cells[pick(rng)];
                const Found p = path(*pruned, a, b), f = path(*full, a, b);
                REQUIRE(p.status == f.status);
                if (p.status != navrt::PathStatus::found) continue;
                CHECK(p.length == doctest::Approx(f.length).epsilon(1e-9));
                // Every leg of the pruned path is a sight line.
                for (size_t i = 1; i < p.points.size(); ++i) {
                    const uint32_t ca =
                        i == 1 ? navrt::locate(pruned->view, a)
                               : navrt::povCornerCell(pruned->view, pruned->query.path()[i - 1]);
                    const uint32_t cb =
                        i + 1 == p.points.size()
                            ? navrt::locate(pruned->view, b)
                            : navrt::povCornerCell(pruned->view, pruned->query.path()[i]);
                    CHECK(
                        navrt::povLineOfSight(pruned->view, ca, p.points[i - 1], cb, p.points[i]));
                }
            }
        }
    }

    TEST_CASE("pov graph save/load round trip, deterministic bytes at any thread count") {
        test::TempDir dir;
        const voxel::VoxelGrid grid = importer::gridFromMap(
            gridMap("........\n.@@..@..\n.@...@..\n....@@..\n........\n", 8, 5));
        const graph::Graph one = povGraph(grid, true, 1);
        const graph::Graph two = povGraph(grid, true, 2);
        REQUIRE(graph::saveGraph(dir / "a.graph", one).ok());
        REQUIRE(graph::saveGraph(dir / "b.graph", two).ok());
        CHECK(test::readBytes(dir / "a.graph") == test::readBytes(dir / "b.graph"));
        auto loaded = graph::loadGraph(dir / "a.graph");
        REQUIRE(loaded.ok());
        CHECK(loaded->header.type == formats::GraphType::pov);
        CHECK(loaded->positions == one.positions);
        CHECK(loaded->edge_offsets == one.edge_offsets);
        CHECK(loaded->edge_targets == one.edge_targets);
        CHECK(loaded->edge_costs == one.edge_costs);
        CHECK(loaded->components == one.components);
        CHECK(loaded->layer_columns == one.layer_columns);
        CHECK(loaded->layer_neighbours == one.layer_neighbours);
        CHECK(loaded->layer_components == one.layer_components);
        REQUIRE(loaded->corners.size() == one.corners.size());
        for (size_t i = 0; i < one.corners.size(); ++i) {
            CHECK(loaded->corners[i].cell == one.corners[i].cell);
            CHECK(loaded->corners[i].bx == one.corners[i].bx);
            CHECK(loaded->corners[i].bz == one.corners[i].bz);
        }
        CHECK(loaded->pov_stats.visibility_edges == one.pov_stats.visibility_edges);
        CHECK(loaded->pov_stats.taut_edges == one.pov_stats.taut_edges);
        // Saving what was loaded gives the same bytes; packing gives an asset navrt accepts.
        REQUIRE(graph::saveGraph(dir / "c.graph", *loaded).ok());
        CHECK(test::readBytes(dir / "a.graph") == test::readBytes(dir / "c.graph"));
        auto level = load(std::move(loaded).value());
        CHECK(level->view.isPov());
        CHECK(level->view.layer_cell_count == one.layer_cells.size());
    }

    TEST_CASE("pov assets with broken sections are refused by navrt and the loader") {
        test::TempDir dir;
        const voxel::VoxelGrid grid = importer::gridFromMap(gridMap("....\n.@..\n....\n", 4, 3));
        const graph::Graph good = povGraph(grid);
        auto refused = [&](graph::Graph g, const char* what) {
            INFO(what);
            REQUIRE(graph::saveGraph(dir / "bad.nav", g, formats::kKindNav).ok());
            navrt::Asset asset;
            REQUIRE_FALSE(navrt::load((dir / "bad.nav").c_str(), asset));
            navrt::GraphView view;
            const navrt::Error e = navrt::viewGraph(asset, view);
            CHECK(e.code == navrt::ErrorCode::bad_section);
            REQUIRE(graph::saveGraph(dir / "bad.graph", g).ok());
            CHECK_FALSE(graph::loadGraph(dir / "bad.graph").ok());
        };
        graph::Graph g = good;
        g.layer_neighbours[0] = 2;  // cell 0's +X link to a cell that is not its +X neighbour
        refused(g, "LNB4 link to a non-adjacent cell");
        g = good;
        g.layer_neighbours[1] = uint32_t(good.layer_cells.size());
        refused(g, "LNB4 index out of range");
        g = good;
        g.corners[0].cell = uint32_t(good.layer_cells.size());
        refused(g, "PCRN cell out of range");
        g = good;
        g.corners[0].bx = 0;
        refused(g, "PCRN direction 0");
        g = good;
        g.layer_components[0] = g.pov_stats.layer_component_count;
        refused(g, "LCMP id out of range");
        g = good;
        g.pov_stats.taut_edges += 2;
        g.pov_stats.visibility_edges += 2;
        refused(g, "PSTA edge count");
    }

    TEST_CASE("pov assets with random damage: refused, or safe to query") {
        test::TempDir dir;
        const voxel::VoxelGrid grid =
            importer::gridFromMap(gridMap("......\n.@@.@.\n.@....\n...@@.\n......\n", 6, 5));
        const graph::Graph good = povGraph(grid);
        std::mt19937 rng(99);
        size_t refused = 0, accepted = 0;
        for (int round = 0; round < 300; ++round) {
            graph::Graph g = good;
            auto pick = [&](size_t n) {
                return std::uniform_int_distribution<size_t>(0, n - 1)(rng);
            };
            const uint32_t value = rng() % 4 == 0 ? 0xFFFFFFFFu : uint32_t(rng() % 64);
            switch (round % 5) {
                case 0: g.layer_neighbours[pick(g.layer_neighbours.size())] = value; break;
                case 1: g.corners[pick(g.corners.size())].cell = value; break;
                case 2: g.layer_columns[pick(g.layer_columns.size())] = value; break;
                case 3: g.layer_cells[pick(g.layer_cells.size())].column = value; break;
                default: g.layer_components[pick(g.layer_components.size())] = value % 4; break;
            }
            REQUIRE(graph::saveGraph(dir / "d.nav", g, formats::kKindNav).ok());
            navrt::Asset asset;
            REQUIRE_FALSE(navrt::load((dir / "d.nav").c_str(), asset));
            navrt::GraphView view;
            if (navrt::viewGraph(asset, view)) {
                ++refused;
                continue;
            }
            ++accepted;  // e.g. a link set to what it already was, or a component id still in range
            navrt::PathQuery query;
            REQUIRE_FALSE(query.init(view));
            for (int q = 0; q < 20; ++q) {
                const navrt::Vec3 a{float(rng() % 60) / 10.0f, 0, float(rng() % 50) / 10.0f};
                const navrt::Vec3 b{float(rng() % 60) / 10.0f, 0, float(rng() % 50) / 10.0f};
                const uint32_t ca = navrt::locate(view, a), cb = navrt::locate(view, b);
                if (ca == navrt::kNoNode || cb == navrt::kNoNode) continue;
                (void)query.findPathBetween(a, ca, b, cb);
                (void)query.smoothedLength();
            }
        }
        CHECK(refused > 200);
        MESSAGE(refused, " damaged assets refused, ", accepted, " still valid and queried");
    }

    TEST_CASE("pov queries: open level, start inside an obstacle, coincident start and goal") {
        // No obstacles at all: no corners, every query is one straight segment.
        auto open = loadMap("........\n........\n........\n", 8, 3);
        CHECK(open->graph.corners.empty());
        CHECK(open->view.nodeCount() == 0);
        const Found f = path(*open, {0.5f, 0, 0.5f}, {7.5f, 0, 2.5f});
        REQUIRE(f.status == navrt::PathStatus::found);
        CHECK(f.length == doctest::Approx(std::hypot(7.0, 2.0)).epsilon(1e-12));
        CHECK(open->query.pathLength() == 2);
        CHECK(open->query.expansions() == 0);
        // Arbitrary points (not cell centres) work too.
        const Found g = path(*open, {0.1f, 0, 2.9f}, {7.3f, 0, 0.2f});
        REQUIRE(g.status == navrt::PathStatus::found);
        CHECK(g.length == doctest::Approx(std::hypot(7.2, 2.7)).epsilon(1e-6));

        auto level = loadMap("....\n.@@.\n....\n", 4, 3);
        // Start inside an obstacle: not on the navigation data.
        const query::QueryRecord r =
            query::runQuery(level->view, level->query, {1.5f, 0, 1.5f}, {3.5f, 0, 2.5f}, {});
        CHECK(r.outcome == query::Outcome::start_off_graph);
        const query::QueryRecord r2 =
            query::runQuery(level->view, level->query, {0.5f, 0, 0.5f}, {2.5f, 0, 1.5f}, {});
        CHECK(r2.outcome == query::Outcome::goal_off_graph);
        // Invalid cell ids given straight to the runtime.
        CHECK(level->query.findPathBetween({0.5f, 0, 0.5f}, 999, {0.5f, 0, 0.5f}, 0) ==
              navrt::PathStatus::invalid_start);
        CHECK(level->query.findPathBetween({0.5f, 0, 0.5f}, 0, {0.5f, 0, 0.5f}, 999) ==
              navrt::PathStatus::invalid_goal);
        // Coincident start and goal: found, length 0.
        const Found same = path(*level, {0.5f, 0, 0.5f}, {0.5f, 0, 0.5f});
        REQUIRE(same.status == navrt::PathStatus::found);
        CHECK(same.length == 0.0);
        // A found query through runQuery reports the any-angle length as cost and smoothed length.
        const query::QueryRecord r3 =
            query::runQuery(level->view, level->query, {0.5f, 0, 1.5f}, {3.5f, 0, 1.5f}, {});
        REQUIRE(r3.outcome == query::Outcome::found);
        CHECK(r3.cost == doctest::Approx(2.0 + 2 * std::sqrt(0.5)).epsilon(1e-12));
        CHECK(r3.smoothed_length == r3.cost);
        // Corner-to-corner findPath is the point query between their vertices.
        REQUIRE(level->view.nodeCount() >= 2);
        CHECK(level->query.findPath(0, 1) == navrt::PathStatus::found);
        CHECK(level->query.lineOfSight(0, 0));
    }

    TEST_CASE("pov bake stops when cancelled") {
        const voxel::VoxelGrid grid = importer::gridFromMap(gridMap("....\n.@..\n....\n", 4, 3));
        Context context;
        context.requestCancel();
        auto g = graph::buildPovGraph(grid, {}, context);
        REQUIRE_FALSE(g.ok());
        CHECK(g.error().kind == ErrorKind::cancelled);
    }
}
