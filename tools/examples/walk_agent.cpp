// walk_agent.cpp: navrt's C++ API in a game loop: the same walk as walk_agent.c with
// navrt::Navigator (load, view, locate with a hint, find a path, follow its straight path and
// announce the links it takes).
//
//   walk_agent_cpp ASSET.nav [sx sy sz gx gy gz] [--method astar|exact|cluster|hier|nexthop]
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include <navrt.hpp>

int main(int argc, char** argv) {
    if (argc < 2) {
        std::fprintf(stderr, "usage: %s ASSET.nav [sx sy sz gx gy gz] [--method NAME]\n", argv[0]);
        return 2;
    }
    navrt::NavigatorOptions options;
    std::vector<float> coords;
    for (int i = 2; i < argc; ++i) {
        if (std::strcmp(argv[i], "--method") == 0 && i + 1 < argc) {
            ++i;
            if (!navrt::parseMethod(argv[i], std::strlen(argv[i]), options.method)) {
                std::fprintf(stderr, "unknown method '%s'\n", argv[i]);
                return 2;
            }
        } else {
            coords.push_back(std::strtof(argv[i], nullptr));
        }
    }
    navrt::Asset asset;
    navrt::GraphView graph;
    navrt::Navigator navigator;
    if (navrt::Error e = navrt::load(argv[1], asset)) {
        std::fprintf(stderr, "%s: %s\n", argv[1], e.message);
        return 1;
    }
    if (navrt::Error e = navrt::viewGraph(asset, graph)) {
        std::fprintf(stderr, "%s: %s\n", argv[1], e.message);
        return 1;
    }
    if (navrt::Error e = navigator.init(graph, options)) {
        std::fprintf(stderr, "%s: %s\n", argv[1], e.message);
        return 1;
    }
    navrt::Vec3 from = graph.position(0), to = graph.position(graph.nodeCount() - 1);
    if (coords.size() >= 6) {
        from = {coords[0], coords[1], coords[2]};
        to = {coords[3], coords[4], coords[5]};
    }
    navrt::LocateOptions locate;
    locate.snap = 2.0f;
    const navrt::NavStatus status = navigator.findPath(from, to, locate);
    std::printf("method %s: %s\n", navrt::methodName(options.method), navrt::navStatusName(status));
    if (status != navrt::NavStatus::found) return 3;
    std::vector<navrt::Vec3> points(navigator.straightPath(nullptr, 0));
    std::vector<uint32_t> links(points.size());
    navigator.straightPath(points.data(), uint32_t(points.size()), links.data());
    std::printf("path: %zu points, length %.2f m, cost %.2f, %u expansions, %u link steps\n",
                points.size(), navigator.pathLength(), navigator.cost(), navigator.expansions(),
                navigator.pathLinks(nullptr, 0));

    const float speed = 4.0f, tick = 0.1f;
    navrt::Vec3 agent = points[0];
    uint32_t node = navigator.start().node;
    size_t segment = 0;
    float clock = 0.0f;
    int ticks = 0;
    auto distance = [](navrt::Vec3 a, navrt::Vec3 b) {
        return std::sqrt((b.x - a.x) * (b.x - a.x) + (b.y - a.y) * (b.y - a.y) +
                         (b.z - a.z) * (b.z - a.z));
    };
    while (segment + 1 < points.size()) {
        if (links[segment] != nav::formats::kNoLink) {
            const nav::formats::LinkRecord link = graph.link(links[segment]);
            size_t length = 0;
            const char* type = graph.linkTypeName(link.type, length);
            std::printf("  t=%5.1fs takes %.*s link %u to (%.1f, %.1f, %.1f)\n", clock, int(length),
                        type != nullptr ? type : "", link.id, points[segment + 1].x,
                        points[segment + 1].y, points[segment + 1].z);
            agent = points[++segment];
            continue;
        }
        float step = speed * tick;
        while (step > 0.0f && segment + 1 < points.size() &&
               links[segment] == nav::formats::kNoLink) {
            const float left = distance(agent, points[segment + 1]);
            if (left <= step) {
                agent = points[++segment];
                step -= left;
            } else {
                const float t = step / left;
                agent = {agent.x + (points[segment + 1].x - agent.x) * t,
                         agent.y + (points[segment + 1].y - agent.y) * t,
                         agent.z + (points[segment + 1].z - agent.z) * t};
                step = 0.0f;
            }
        }
        clock += tick;
        const navrt::Location here = navigator.locate(agent, locate, node);  // coherence hint
        if (here.node != navrt::kNoNode) node = here.node;
        if (++ticks % 10 == 0)
            std::printf("  t=%5.1fs at (%.1f, %.1f, %.1f) on node %u\n", clock, agent.x, agent.y,
                        agent.z, node);
    }
    std::printf("arrived at (%.2f, %.2f, %.2f) after %.1f s\n", agent.x, agent.y, agent.z, clock);
    return 0;
}
