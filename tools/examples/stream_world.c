/* stream_world.c: navrt's C API streaming a tiled world (navbake build with "world":
 * {"tile_size": M}). Loads the index, asks its portal graph which tiles a trip crosses, loads only
 * those from the folder beside the index (AGENT.tile.X_Z.nav), finds the exact path over them and
 * prints it; then unloads the tiles again.
 *
 *   stream_world_c OUT/AGENT.tile.world sx sy sz gx gy gz
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <navrt.h>

int main(int argc, char** argv) {
    if (argc != 8) {
        fprintf(stderr, "usage: %s AGENT.tile.world sx sy sz gx gy gz\n", argv[0]);
        return 2;
    }
    const char* index = argv[1];
    const navrt_vec3 from = {strtof(argv[2], NULL), strtof(argv[3], NULL), strtof(argv[4], NULL)};
    const navrt_vec3 to = {strtof(argv[5], NULL), strtof(argv[6], NULL), strtof(argv[7], NULL)};
    navrt_error error;
    navrt_world* world = NULL;
    if (navrt_world_load(index, NULL, &world, &error) != NAVRT_OK) {
        fprintf(stderr, "%s: %s (%s)\n", index, error.message, navrt_status_name(error.status));
        return 1;
    }
    uint32_t tiles_x = 0, tiles_z = 0;
    navrt_world_tiles(world, &tiles_x, &tiles_z);
    /* The tiles' files: the index's name with ".world" replaced by ".X_Z.nav". */
    const size_t stem = strlen(index) >= 6 ? strlen(index) - 6 : 0;
    if (strcmp(index + stem, ".world") != 0) {
        fprintf(stderr, "%s: expected AGENT.tile.world\n", index);
        navrt_world_free(world);
        return 2;
    }
    uint32_t planned[4096];
    uint32_t count = 0;
    if (navrt_world_plan_tiles(world, from, to, planned, 4096, &count) != NAVRT_PATH_FOUND ||
        count > 4096) {
        printf("no route between the points in the portal graph\n");
        navrt_world_free(world);
        return 0;
    }
    printf("world: %u x %u tiles; the trip crosses %u\n", tiles_x, tiles_z, count);
    for (uint32_t i = 0; i < count; ++i) {
        const uint32_t tx = planned[i] % tiles_x, tz = planned[i] / tiles_x;
        if (navrt_world_tile_loaded(world, tx, tz)) continue;
        char path[4096];
        snprintf(path, sizeof(path), "%.*s.%u_%u.nav", (int)stem, index, tx, tz);
        if (navrt_world_add_tile(world, path, &error) != NAVRT_OK) {
            fprintf(stderr, "%s: %s (%s)\n", path, error.message, navrt_status_name(error.status));
            navrt_world_free(world);
            return 1;
        }
    }
    printf("loaded %u tiles, %zu bytes\n", navrt_world_loaded_count(world),
           navrt_world_memory_bytes(world));
    const navrt_path_status status = navrt_world_find_path(world, from, to);
    printf("path: %s", navrt_path_status_name(status));
    if (status == NAVRT_PATH_FOUND) {
        const uint32_t n = navrt_world_path(world, NULL, 0);
        navrt_vec3* points = malloc(sizeof(navrt_vec3) * (n > 0 ? n : 1));
        if (points == NULL) {
            navrt_world_free(world);
            return 1;
        }
        navrt_world_path(world, points, n);
        printf(", cost %.3f, %u points, %u expanded; from (%.2f, %.2f, %.2f) to (%.2f, %.2f, %.2f)",
               navrt_world_path_cost(world), n, navrt_world_expanded(world), points[0].x,
               points[0].y, points[0].z, points[n - 1].x, points[n - 1].y, points[n - 1].z);
        free(points);
    }
    printf("\n");
    for (uint32_t i = 0; i < count; ++i)
        navrt_world_remove_tile(world, planned[i] % tiles_x, planned[i] / tiles_x);
    printf("unloaded: %u tiles left\n", navrt_world_loaded_count(world));
    navrt_world_free(world);
    return 0;
}
