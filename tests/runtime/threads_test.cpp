// Threads sharing one asset (issue 16): navrt_threads ASSET METHOD [ASSET METHOD ...]
//
// Loads each asset once, computes reference answers for a set of random point pairs on one
// thread, then runs the same queries on 4 threads at once, each with its own Navigator, all
// sharing the asset, its view and one Blocking (two nodes blocked before the threads start; they
// only read it). Every thread must get the reference answers (status, cost, straight path). Built
// with ThreadSanitizer by tests/CMakeLists.txt, so a data race in navrt fails the test too.
#include <cmath>
#include <cstdio>
#include <cstring>
#include <random>
#include <thread>
#include <vector>

#include "lib/runtime/navrt_navigator.h"

namespace {

struct Answer {
    navrt::NavStatus status = navrt::NavStatus::no_path;
    double cost = 0;
    std::vector<navrt::Vec3> points;
};

Answer ask(navrt::Navigator& n, navrt::Vec3 a, navrt::Vec3 b) {
    Answer out;
    navrt::LocateOptions locate;
    locate.snap = 2.0f;
    out.status = n.findPath(a, b, locate);
    out.cost = n.cost();
    out.points.resize(n.straightPath(nullptr, 0));
    n.straightPath(out.points.data(), uint32_t(out.points.size()));
    return out;
}

bool same(const Answer& x, const Answer& y) {
    if (x.status != y.status || x.cost != y.cost || x.points.size() != y.points.size())
        return false;
    for (size_t i = 0; i < x.points.size(); ++i)
        if (std::memcmp(&x.points[i], &y.points[i], sizeof(navrt::Vec3)) != 0) return false;
    return true;
}

int run(const char* path, const char* method_name) {
    navrt::Method method{};
    if (!navrt::parseMethod(method_name, std::strlen(method_name), method)) {
        std::fprintf(stderr, "unknown method %s\n", method_name);
        return 2;
    }
    navrt::Asset asset;
    navrt::GraphView graph;
    if (navrt::Error e = navrt::load(path, asset)) {
        std::fprintf(stderr, "%s: %s\n", path, e.message);
        return 1;
    }
    if (navrt::Error e = navrt::viewGraph(asset, graph)) {
        std::fprintf(stderr, "%s: %s\n", path, e.message);
        return 1;
    }
    navrt::Blocking blocking;
    if (navrt::Error e = blocking.init(graph)) {
        std::fprintf(stderr, "%s: %s\n", path, e.message);
        return 1;
    }
    std::mt19937 random(5);
    std::uniform_int_distribution<uint32_t> node(0, graph.nodeCount() - 1);
    blocking.setNode(node(random));
    blocking.setNode(node(random));
    auto pick = [&] {
        uint32_t v = node(random);
        while (!graph.isFree(v)) v = node(random);
        return graph.position(v);
    };
    constexpr int kQueries = 60, kThreads = 4;
    std::vector<std::pair<navrt::Vec3, navrt::Vec3>> pairs;
    for (int i = 0; i < kQueries; ++i) pairs.push_back({pick(), pick()});
    navrt::NavigatorOptions options;
    options.method = method;
    std::vector<Answer> reference;
    {
        navrt::Navigator n;
        if (navrt::Error e = n.init(graph, options)) {
            std::fprintf(stderr, "%s: %s\n", path, e.message);
            return 1;
        }
        (void)n.setBlocking(&blocking);
        for (const auto& [a, b] : pairs) reference.push_back(ask(n, a, b));
    }
    int found = 0;
    for (const Answer& r : reference) found += r.status == navrt::NavStatus::found;
    std::vector<int> wrong(kThreads, 0);
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t)
        threads.emplace_back([&, t] {
            navrt::Navigator n;
            if (n.init(graph, options) || n.setBlocking(&blocking)) {
                wrong[size_t(t)] = kQueries;
                return;
            }
            for (int round = 0; round < 2; ++round)
                for (int k = 0; k < kQueries; ++k) {
                    const int i = (k * (t + 1) + round * 7) % kQueries;  // each its own order
                    if (!same(ask(n, pairs[size_t(i)].first, pairs[size_t(i)].second),
                              reference[size_t(i)]))
                        ++wrong[size_t(t)];
                }
        });
    for (std::thread& t : threads) t.join();
    int total = 0;
    for (int w : wrong) total += w;
    std::printf("%s %s: %d threads x %d queries (%d found): %d differ from one thread's\n", path,
                method_name, kThreads, 2 * kQueries, found, total);
    return total == 0 && found > 0 ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
    if (argc < 3 || argc % 2 == 0) {
        std::fprintf(stderr, "usage: %s ASSET METHOD [ASSET METHOD ...]\n", argv[0]);
        return 2;
    }
    for (int i = 1; i + 1 < argc; i += 2)
        if (int code = run(argv[i], argv[i + 1])) return code;
    return 0;
}
