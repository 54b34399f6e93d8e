#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <vector>

#include "lib/common/search.h"

using namespace nav;

TEST_SUITE("search") {
    TEST_CASE("radix queue: pops in key order under monotone pushes, duplicates included") {
        RadixQueue<uint64_t> q;
        std::mt19937_64 random(3);
        std::vector<uint64_t> popped;
        uint64_t last = 0;
        size_t pushed = 0;
        for (int round = 0; round < 2000; ++round) {
            const int pushes = int(random() % 4);
            for (int k = 0; k < pushes; ++k) {
                // Keys at or above the last popped one: near it, or far (high bits differ).
                const uint64_t key =
                    last + (random() % 3 == 0 ? random() % (uint64_t(1) << 40) : random() % 8);
                q.push(key, uint32_t(pushed++));
            }
            if (!q.empty() && random() % 2 == 0) {
                const auto [key, node] = q.pop();
                CHECK(key >= last);
                last = key;
                popped.push_back(key);
            }
        }
        while (!q.empty()) {
            const auto [key, node] = q.pop();
            CHECK(key >= last);
            last = key;
            popped.push_back(key);
        }
        CHECK(popped.size() == pushed);
        CHECK(std::is_sorted(popped.begin(), popped.end()));
        q.clear();
        CHECK(q.empty());
        q.push(5, 1);  // after clear() keys start from 0 again
        CHECK(q.pop().first == 5);
    }

    TEST_CASE("Dijkstra on the radix queue: the binary heap's distances and first-move labels") {
        std::mt19937 random(11);
        for (int trial = 0; trial < 30; ++trial) {
            const uint32_t n = 50 + uint32_t(random() % 400);
            std::vector<uint32_t> offsets(n + 1, 0), targets;
            std::vector<uint64_t> costs;
            for (uint32_t u = 0; u < n; ++u) {
                const int degree = int(random() % 6);
                for (int k = 0; k < degree; ++k) {
                    targets.push_back(uint32_t(random() % n));
                    // Many equal costs (ties decide labels), some large ones (high radix bits).
                    costs.push_back(random() % 4 == 0 ? 1 + random() % 1000000 : 1 + random() % 3);
                }
                offsets[u + 1] = uint32_t(targets.size());
            }
            const CsrGraph<uint64_t> g{offsets, targets, costs};
            Dijkstra<uint64_t, FirstMoveLabels> heap;
            Dijkstra<uint64_t, FirstMoveLabels, false, true> radix;
            for (uint32_t s = 0; s < n; s += 7) {
                heap.reset(n);
                radix.reset(n);
                heap.addSource(s);
                radix.addSource(s);
                heap.run(g);
                radix.run(g);
                for (uint32_t v = 0; v < n; ++v) {
                    REQUIRE(heap.dist(v) == radix.dist(v));
                    REQUIRE(heap.label(v) == radix.label(v));
                }
            }
        }
    }
}
