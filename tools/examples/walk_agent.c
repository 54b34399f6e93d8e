/* walk_agent.c: navrt's C API in a game loop. Loads a .nav asset, finds a path between two points
 * (default: the first and the last node) and walks an agent along the straight path at 4 m/s in
 * ticks of 0.1 s, re-locating it every tick with the last node as the hint, and announcing the
 * links (drops, ladders, doors) it takes.
 *
 *   walk_agent_c ASSET.nav [sx sy sz gx gy gz] [--method astar|exact|cluster|hier|nexthop]
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <navrt.h>

static float distance(navrt_vec3 a, navrt_vec3 b) {
    const float dx = b.x - a.x, dy = b.y - a.y, dz = b.z - a.z;
    return sqrtf(dx * dx + dy * dy + dz * dz);
}

int main(int argc, char** argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: %s ASSET.nav [sx sy sz gx gy gz] [--method NAME]\n", argv[0]);
        return 2;
    }
    if (navrt_version() / 10000 != NAVRT_VERSION_MAJOR) {
        fprintf(stderr, "navrt library %u does not match header %u\n", navrt_version(),
                (unsigned)NAVRT_VERSION);
        return 1;
    }
    navrt_navigator_options options;
    navrt_navigator_options_init(&options);
    float coords[6];
    int given = 0;
    for (int i = 2; i < argc; ++i) {
        if (strcmp(argv[i], "--method") == 0 && i + 1 < argc) {
            if (!navrt_method_parse(argv[++i], &options.method)) {
                fprintf(stderr, "unknown method '%s'\n", argv[i]);
                return 2;
            }
        } else if (given < 6) {
            coords[given++] = strtof(argv[i], NULL);
        }
    }
    navrt_error error;
    navrt_asset* asset = NULL;
    if (navrt_asset_load(argv[1], NULL, &asset, &error) != NAVRT_OK) {
        fprintf(stderr, "%s: %s (%s)\n", argv[1], error.message, navrt_status_name(error.status));
        return 1;
    }
    navrt_navigator* navigator = NULL;
    if (navrt_navigator_create(asset, &options, &navigator, &error) != NAVRT_OK) {
        fprintf(stderr, "%s: %s\n", argv[1], error.message);
        navrt_asset_free(asset);
        return 1;
    }
    navrt_vec3 from, to;
    if (given == 6) {
        from = (navrt_vec3){coords[0], coords[1], coords[2]};
        to = (navrt_vec3){coords[3], coords[4], coords[5]};
    } else {
        navrt_asset_node_position(asset, 0, &from);
        navrt_asset_node_position(asset, navrt_asset_node_count(asset) - 1, &to);
    }
    navrt_locate_options locate;
    navrt_locate_options_init(&locate);
    locate.snap = 2.0f; /* a point up to 2 m off the surface is moved onto it */
    const navrt_path_status status =
        navrt_find_path(navigator, from, to, &locate, NAVRT_NONE, NAVRT_NONE);
    const navrt_path_info info = navrt_path_result(navigator);
    printf("method %s: %s\n", navrt_method_name(options.method), navrt_path_status_name(status));
    if (status != NAVRT_PATH_FOUND) {
        navrt_navigator_free(navigator);
        navrt_asset_free(asset);
        return 3;
    }
    navrt_vec3* points = malloc(sizeof(navrt_vec3) * info.point_count);
    uint32_t* links = malloc(sizeof(uint32_t) * info.point_count);
    navrt_straight_path(navigator, points, links, info.point_count);
    printf("path: %u points, length %.2f m, cost %.2f, %u expansions, %u link steps\n",
           info.point_count, info.length, info.cost, info.expansions, info.link_count);

    const float speed = 4.0f, tick = 0.1f;
    navrt_vec3 agent = points[0];
    uint32_t node = info.start.node, segment = 0;
    float clock = 0.0f;
    int ticks = 0;
    while (segment + 1 < info.point_count) {
        if (links[segment] != NAVRT_NONE) {
            navrt_link link;
            navrt_asset_link(asset, links[segment], &link);
            printf("  t=%5.1fs takes %s link %u to (%.1f, %.1f, %.1f)\n", clock, link.type_name,
                   link.id, points[segment + 1].x, points[segment + 1].y, points[segment + 1].z);
            agent = points[++segment]; /* an animation would play here */
            continue;
        }
        float step = speed * tick;
        while (step > 0.0f && segment + 1 < info.point_count && links[segment] == NAVRT_NONE) {
            const float left = distance(agent, points[segment + 1]);
            if (left <= step) {
                agent = points[++segment];
                step -= left;
            } else {
                const float t = step / left;
                agent.x += (points[segment + 1].x - agent.x) * t;
                agent.y += (points[segment + 1].y - agent.y) * t;
                agent.z += (points[segment + 1].z - agent.z) * t;
                step = 0.0f;
            }
        }
        clock += tick;
        /* Where the agent is on the graph, starting from where it was (coherence). */
        const navrt_location here = navrt_locate(navigator, agent, &locate, node);
        if (here.node != NAVRT_NONE) node = here.node;
        if (++ticks % 10 == 0)
            printf("  t=%5.1fs at (%.1f, %.1f, %.1f) on node %u\n", clock, agent.x, agent.y,
                   agent.z, node);
    }
    printf("arrived at (%.2f, %.2f, %.2f) after %.1f s\n", agent.x, agent.y, agent.z, clock);
    free(points);
    free(links);
    navrt_navigator_free(navigator);
    navrt_asset_free(asset);
    return 0;
}
