// Generated links on known-answer levels.
#include <doctest/doctest.h>

#include <cstdio>

#include "lib/graph/graph.h"
#include "lib/graph/links.h"
#include "tests/level_builder.h"

using namespace nav;

TEST_SUITE("links") {
    TEST_CASE("generate: explore") {
        test::LevelBuilder b;
        b.box({0, -0.2, 0}, {20, 0, 12});
        b.box({2, 0, 2}, {5, 1.5, 5});
        b.box({8, 0, 2}, {11, 2.5, 5});
        b.box({14, 0, 2}, {17, 4.0, 5});
        const voxel::VoxelGrid grid = test::voxelizeOk(b.g, test::voxelParams());
        graph::LinkGenParams p;
        p.drop_height = 3;
        p.jump_up_height = 1.6f;
        Context context;
        auto made = graph::generateLinks(grid, p, context);
        REQUIRE(made.ok());
        for (const auto& l : made->links)
            std::printf("%s w=%.2f bi=%d to=(%.2f %.2f %.2f) rc=%.2f\n", l.name.c_str(), l.width,
                        l.bidirectional, l.to[0], l.to[1], l.to[2], l.reverse_cost);
        const auto& st = made->stats;
        std::printf("samples %llu linked %llu rejected %llu %llu %llu %llu\n",
                    (unsigned long long)st.ledge_samples, (unsigned long long)st.samples_linked,
                    (unsigned long long)st.rejected[0], (unsigned long long)st.rejected[1],
                    (unsigned long long)st.rejected[2], (unsigned long long)st.rejected[3]);
    }
}
