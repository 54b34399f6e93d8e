#include "tests/pov/pov_oracle.h"

#include <algorithm>
#include <cmath>
#include <queue>

namespace nav::test {

GridOracle::GridOracle(const importer::GridMap& map) : map_(map) {
    // Convex corners: grid vertices with exactly one blocked cell among the four around them.
    for (long j = 0; j <= long(map.height); ++j)
        for (long i = 0; i <= long(map.width); ++i) {
            const int count =
                blocked(i - 1, j - 1) + blocked(i, j - 1) + blocked(i - 1, j) + blocked(i, j);
            if (count == 1) corners_.push_back({double(i), double(j)});
        }
}

bool GridOracle::blocked(long x, long y) const {
    if (x < 0 || y < 0 || x >= long(map_.width) || y >= long(map_.height)) return true;
    return !map_.isPassable(uint32_t(x), uint32_t(y));
}

bool GridOracle::visible(Point2 a, Point2 b) const {
    const double dx = b.x - a.x, dy = b.y - a.y;
    // Every parameter where the segment crosses a grid line, plus its ends.
    std::vector<double> ts = {0.0, 1.0};
    if (dx != 0)
        for (long i = long(std::ceil(std::min(a.x, b.x)));
             i <= long(std::floor(std::max(a.x, b.x))); ++i)
            ts.push_back((double(i) - a.x) / dx);
    if (dy != 0)
        for (long j = long(std::ceil(std::min(a.y, b.y)));
             j <= long(std::floor(std::max(a.y, b.y))); ++j)
            ts.push_back((double(j) - a.y) / dy);
    std::sort(ts.begin(), ts.end());
    auto isInteger = [](double v) { return std::fabs(v - std::round(v)) < 1e-9; };
    for (size_t k = 0; k + 1 < ts.size(); ++k) {
        const double t0 = std::clamp(ts[k], 0.0, 1.0), t1 = std::clamp(ts[k + 1], 0.0, 1.0);
        // Grid crossing point: a vertex crossed strictly inside the segment must not be a pinch.
        if (k > 0 && t0 > 1e-12 && t0 < 1 - 1e-12) {
            const double px = a.x + t0 * dx, py = a.y + t0 * dy;
            if (isInteger(px) && isInteger(py)) {
                const long i = long(std::round(px)), j = long(std::round(py));
                const bool ll = blocked(i - 1, j - 1), lr = blocked(i, j - 1),
                           ul = blocked(i - 1, j), ur = blocked(i, j);
                if ((ll && ur && !lr && !ul) || (lr && ul && !ll && !ur)) return false;
            }
        }
        if (t1 - t0 < 1e-12) continue;
        const double mx = a.x + 0.5 * (t0 + t1) * dx, my = a.y + 0.5 * (t0 + t1) * dy;
        const bool on_vertical = dx == 0 && isInteger(a.x);
        const bool on_horizontal = dy == 0 && isInteger(a.y);
        if (on_vertical) {  // along x = i: blocked only between two blocked cells
            const long i = long(std::round(a.x)), j = long(std::floor(my));
            if (blocked(i - 1, j) && blocked(i, j)) return false;
        } else if (on_horizontal) {
            const long j = long(std::round(a.y)), i = long(std::floor(mx));
            if (blocked(i, j - 1) && blocked(i, j)) return false;
        } else if (blocked(long(std::floor(mx)), long(std::floor(my)))) {
            return false;
        }
    }
    return true;
}

double GridOracle::shortestPath(Point2 start, Point2 goal) const {
    return shortestPath(start, goal, {});
}

double GridOracle::shortestPath(Point2 start, Point2 goal, const std::vector<Link>& links) const {
    if (blocked(long(std::floor(start.x)), long(std::floor(start.y))) ||
        blocked(long(std::floor(goal.x)), long(std::floor(goal.y))))
        return -1;
    std::vector<Point2> nodes = corners_;
    const size_t first_link = nodes.size();
    for (const Link& l : links) {
        nodes.push_back(l.from);
        nodes.push_back(l.to);
    }
    nodes.push_back(start);
    nodes.push_back(goal);
    const size_t s = nodes.size() - 2, g = nodes.size() - 1;
    std::vector<double> dist(nodes.size(), 1e300);
    std::vector<char> closed(nodes.size(), 0);
    using Item = std::pair<double, size_t>;
    std::priority_queue<Item, std::vector<Item>, std::greater<>> open;
    // A* with the straight-line distance when there are no links (which may be shortcuts), else
    // Dijkstra.
    auto heuristic = [&](size_t v) {
        return links.empty() ? std::hypot(nodes[v].x - goal.x, nodes[v].y - goal.y) : 0.0;
    };
    dist[s] = 0;
    open.push({heuristic(s), s});
    auto relax = [&](size_t v, double d) {
        if (closed[v] || d >= dist[v]) return;
        dist[v] = d;
        open.push({d + heuristic(v), v});
    };
    while (!open.empty()) {
        const size_t u = open.top().second;
        open.pop();
        if (closed[u]) continue;
        closed[u] = 1;
        if (u == g) return dist[g];
        for (size_t k = 0; k < links.size(); ++k) {
            const size_t a = first_link + 2 * k, b = a + 1;
            if (u == a) relax(b, dist[u] + links[k].cost);
            if (u == b && links[k].both_ways) relax(a, dist[u] + links[k].cost);
        }
        for (size_t v = 0; v < nodes.size(); ++v) {
            if (closed[v]) continue;
            const double d = dist[u] + std::hypot(nodes[v].x - nodes[u].x, nodes[v].y - nodes[u].y);
            if (d >= dist[v] || !visible(nodes[u], nodes[v])) continue;
            relax(v, d);
        }
    }
    return -1;
}

}  // namespace nav::test
