// An independent brute-force oracle for any-angle shortest paths on MovingAI grids, written
// without any of navbake's code: blocked cells (and everything outside the map) are closed
// squares; a segment may touch them (run along an edge with free space on one side, pass through
// a corner) but may not enter a blocked interior, run between two blocked cells, or pass through a
// grid vertex whose two diagonal cells are blocked (no squeezing through a pinch). Shortest paths
// come from Dijkstra over the full visibility graph of all convex obstacle corners plus start and
// goal (Lozano-Perez & Wesley 1979), visibility tested lazily.
#pragma once

#include <cstdint>
#include <vector>

#include "lib/importer/import.h"

namespace nav::test {

struct Point2 {
    double x, y;
};

class GridOracle {
public:
    explicit GridOracle(const importer::GridMap& map);

    bool blocked(long x, long y) const;
    // Line of sight between two points in cell units (MovingAI cell (x, y) is [x, x+1] x [y, y+1]).
    bool visible(Point2 a, Point2 b) const;
    // Length of the Euclidean shortest path, or -1 when there is none.
    double shortestPath(Point2 start, Point2 goal) const;
    // A directed connection beyond the grid (a drop, a teleport) between two free points, at a
    // cost of its own (which may be below its length).
    struct Link {
        Point2 from, to;
        double cost = 0;
        bool both_ways = false;
    };
    // The cheapest path when `links` may be taken too, over the corners, the link ends, start
    // and goal (Dijkstra: links may be shortcuts). -1 when there is none.
    double shortestPath(Point2 start, Point2 goal, const std::vector<Link>& links) const;
    size_t cornerCount() const { return corners_.size(); }

private:
    const importer::GridMap& map_;
    std::vector<Point2> corners_;
};

}  // namespace nav::test
