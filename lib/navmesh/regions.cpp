// Region partitioning of the compact field.
//
// Methods after Recast (M. Mononen, RecastRegion.cpp; re-implemented from the description):
//   * Distance field (rcBuildDistanceField): chamfer distance 2 (edge) / 3 (diagonal) to the
//     nearest boundary span (one with a missing link or a linked neighbour of another area), then
//     one 3x3 box blur of the spans farther than 2 from the boundary.
//   * Watershed (rcBuildRegions): levels go down from the largest distance in steps of 2. At each
//     level the existing regions first grow (up to 8 rounds) into the unassigned spans at or above
//     the level, each span taking the linked neighbour region that is cheapest to reach (growth
//     cost + 2); then every span still unassigned at that level seeds a new region flood-filled
//     over spans down to level - 2, a flood that stops at spans whose 8-neighbourhood already
//     touches another region (so basins meet without merging). Finally regions grow until no span
//     can be reached.
//   * Monotone (rcBuildRegionsMonotone): rows are swept in +x runs ("sweeps"); a sweep continues
//     the region of the row before when it is the only sweep touching that region, otherwise it
//     starts a new region. Much faster, longer thinner regions.
//   * Filtering and merging (mergeAndFilterRegions): connected groups of regions of one area
//     smaller than min_area cells are removed unless they touch the tile border; regions smaller
//     than merge_area (or not touching a wall) merge into their smallest neighbour when that
//     keeps the region outline simple (they share one boundary stretch) and the two never share a
//     column (a region must not overlap itself in plan). Regions are renumbered 1..n in order of
//     their first span.
// Area changes always separate regions (floods and growth only follow spans of one area), and
// spans of the tile's border zone get kBorderRegion | side so that no region enters them.
// Every loop runs in span order, so the result depends on the field alone.
#include <algorithm>
#include <limits>

#include "navmesh_internal.h"

namespace nav::navmesh::internal {
namespace {

constexpr uint16_t kFar = 0xFFFF;

bool isRegion(uint32_t r) { return r != 0 && (r & kBorderRegion) == 0; }

// ---- Distance field ------------------------------------------------------------------------------

void chamferPass(CompactField& f, std::vector<uint16_t>& d, bool forward) {
    // Forward: relax from (-x) then (-x,-z), and (-z) then (+x,-z); backward mirrors it.
    const int first_dir = forward ? 0 : 2;
    const int second_dir = forward ? 3 : 1;
    auto relax = [&](int cell, uint32_t i, int dir, int diagonal_dir) {
        if (f.link(i, dir) == kNoLink) return;
        const int ncell = cell + f.dirOffset(dir);
        const uint32_t n = f.cells[size_t(ncell)] + f.link(i, dir);
        uint32_t best = std::min<uint32_t>(d[i], uint32_t(d[n]) + 2);
        if (f.link(n, diagonal_dir) != kNoLink) {
            const uint32_t m = f.cells[size_t(ncell + f.dirOffset(diagonal_dir))] +
                               f.link(n, diagonal_dir);
            best = std::min<uint32_t>(best, uint32_t(d[m]) + 3);
        }
        d[i] = uint16_t(best);
    };
    if (forward) {
        for (int z = 0; z < f.depth; ++z)
            for (int x = 0; x < f.width; ++x) {
                const int cell = z * f.width + x;
                for (uint32_t i = f.cells[size_t(cell)]; i < f.cells[size_t(cell) + 1]; ++i) {
                    relax(cell, i, first_dir, 3);
                    relax(cell, i, second_dir, 2);
                }
            }
    } else {
        for (int z = f.depth - 1; z >= 0; --z)
            for (int x = f.width - 1; x >= 0; --x) {
                const int cell = z * f.width + x;
                for (uint32_t i = f.cells[size_t(cell)]; i < f.cells[size_t(cell) + 1]; ++i) {
                    relax(cell, i, first_dir, 1);
                    relax(cell, i, second_dir, 0);
                }
            }
    }
}

}  // namespace

void buildDistanceField(CompactField& f) {
    const size_t n = f.spanCount();
    std::vector<uint16_t> d(n, kFar);
    for (int cell = 0; cell < f.width * f.depth; ++cell) {
        for (uint32_t i = f.cells[size_t(cell)]; i < f.cells[size_t(cell) + 1]; ++i) {
            int same = 0;
            for (int dir = 0; dir < 4; ++dir) {
                if (f.link(i, dir) == kNoLink) break;
                if (f.area[f.neighbour(cell, i, dir)] != f.area[i]) break;
                ++same;
            }
            if (same != 4) d[i] = 0;
        }
    }
    chamferPass(f, d, true);
    chamferPass(f, d, false);

    // 3x3 box blur; a missing neighbour counts as the centre value.
    f.dist.resize(n);
    uint16_t max_dist = 0;
    for (int cell = 0; cell < f.width * f.depth; ++cell) {
        for (uint32_t i = f.cells[size_t(cell)]; i < f.cells[size_t(cell) + 1]; ++i) {
            const uint32_t centre = d[i];
            if (centre <= 2) {
                f.dist[i] = uint16_t(centre);
                max_dist = std::max<uint16_t>(max_dist, uint16_t(centre));
                continue;
            }
            uint32_t sum = centre;
            for (int dir = 0; dir < 4; ++dir) {
                if (f.link(i, dir) == kNoLink) {
                    sum += 2 * centre;
                    continue;
                }
                const int ncell = cell + f.dirOffset(dir);
                const uint32_t a = f.cells[size_t(ncell)] + f.link(i, dir);
                sum += d[a];
                const int dir2 = (dir + 1) & 3;
                if (f.link(a, dir2) != kNoLink)
                    sum += d[f.cells[size_t(ncell + f.dirOffset(dir2))] + f.link(a, dir2)];
                else
                    sum += centre;
            }
            const uint16_t v = uint16_t(std::min<uint32_t>((sum + 5) / 9, kFar - 1));
            f.dist[i] = v;
            max_dist = std::max(max_dist, v);
        }
    }
    f.max_dist = max_dist;
}

namespace {

// ---- Watershed -----------------------------------------------------------------------------------

struct SpanRef {
    uint32_t span;
    int32_t cell;
};

class Watershed {
public:
    explicit Watershed(CompactField& f) : f_(f), reg_(f.regions), cost_(f.spanCount(), 0) {}

    uint32_t run() {
        // Bucket the spans (not in the border zone) by level = dist / 2, in span order.
        const uint32_t levels = uint32_t(f_.max_dist) / 2 + 1;
        std::vector<uint32_t> start(size_t(levels) + 1, 0);
        for (int cell = 0; cell < f_.width * f_.depth; ++cell)
            for (uint32_t i = f_.cells[size_t(cell)]; i < f_.cells[size_t(cell) + 1]; ++i)
                if (reg_[i] == 0) ++start[f_.dist[i] / 2 + 1];
        for (uint32_t l = 0; l < levels; ++l) start[l + 1] += start[l];
        std::vector<SpanRef> sorted(start[levels]);
        {
            std::vector<uint32_t> cursor(start.begin(), start.end() - 1);
            for (int cell = 0; cell < f_.width * f_.depth; ++cell)
                for (uint32_t i = f_.cells[size_t(cell)]; i < f_.cells[size_t(cell) + 1]; ++i)
                    if (reg_[i] == 0) sorted[cursor[f_.dist[i] / 2]++] = {i, cell};
        }

        uint32_t next_region = 1;
        int level = (int(f_.max_dist) + 1) & ~1;
        if (level == 0) level = 2;  // every span on the boundary: still flood at level 0
        uint32_t added_from = levels;  // buckets >= added_from are in `pending`
        std::vector<SpanRef> pending;
        while (level > 0) {
            level = std::max(level - 2, 0);
            const uint32_t bucket = uint32_t(level / 2);
            while (added_from > bucket) {
                --added_from;
                for (uint32_t k = start[added_from]; k < start[added_from + 1]; ++k)
                    if (reg_[sorted[k].span] == 0) pending.push_back(sorted[k]);
            }
            grow(pending, level, 8);
            for (const SpanRef& s : pending) {
                if (reg_[s.span] != 0 || f_.dist[s.span] < level) continue;
                if (flood(s, level, next_region)) ++next_region;
            }
            pending.erase(std::remove_if(pending.begin(), pending.end(),
                                         [&](const SpanRef& s) { return reg_[s.span] != 0; }),
                          pending.end());
        }
        // Everything left (level 0 spans are all in `pending` by now).
        grow(pending, 0, 0);
        return next_region - 1;
    }

private:
    // Grows existing regions into the unassigned spans of `list` whose distance is >= level;
    // max_rounds 0 = until nothing changes. Changes of a round apply together.
    void grow(std::vector<SpanRef>& list, int level, int max_rounds) {
        list.erase(std::remove_if(list.begin(), list.end(),
                                  [&](const SpanRef& s) { return reg_[s.span] != 0; }),
                   list.end());
        struct Change {
            uint32_t span, region;
            uint16_t cost;
        };
        std::vector<Change> changes;
        for (int round = 0; max_rounds == 0 || round < max_rounds; ++round) {
            changes.clear();
            for (const SpanRef& s : list) {
                const uint32_t i = s.span;
                if (reg_[i] != 0 || f_.dist[i] < level) continue;
                uint32_t best_region = 0;
                uint32_t best_cost = std::numeric_limits<uint32_t>::max();
                for (int dir = 0; dir < 4; ++dir) {
                    if (f_.link(i, dir) == kNoLink) continue;
                    const uint32_t a = f_.neighbour(s.cell, i, dir);
                    if (f_.area[a] != f_.area[i] || !isRegion(reg_[a])) continue;
                    if (uint32_t(cost_[a]) + 2 < best_cost) {
                        best_cost = uint32_t(cost_[a]) + 2;
                        best_region = reg_[a];
                    }
                }
                if (best_region != 0)
                    changes.push_back({i, best_region, uint16_t(std::min<uint32_t>(best_cost, kFar))});
            }
            if (changes.empty()) break;
            for (const Change& c : changes) {
                reg_[c.span] = c.region;
                cost_[c.span] = c.cost;
            }
            list.erase(std::remove_if(list.begin(), list.end(),
                                      [&](const SpanRef& s) { return reg_[s.span] != 0; }),
                       list.end());
        }
    }

    // The region of a linked neighbour (or diagonal neighbour) of `s` that is neither unassigned,
    // the border, nor `region`; 0 when there is none.
    uint32_t otherRegionNear(const SpanRef& s, uint32_t region) const {
        const uint32_t i = s.span;
        for (int dir = 0; dir < 4; ++dir) {
            if (f_.link(i, dir) == kNoLink) continue;
            const int acell = s.cell + f_.dirOffset(dir);
            const uint32_t a = f_.cells[size_t(acell)] + f_.link(i, dir);
            if (f_.area[a] != f_.area[i]) continue;
            const uint32_t ra = reg_[a];
            if (ra & kBorderRegion) continue;
            if (ra != 0 && ra != region) return ra;
            const int dir2 = (dir + 1) & 3;
            if (f_.link(a, dir2) == kNoLink) continue;
            const uint32_t b = f_.cells[size_t(acell + f_.dirOffset(dir2))] + f_.link(a, dir2);
            if (f_.area[b] != f_.area[i]) continue;
            const uint32_t rb = reg_[b];
            if (rb != 0 && rb != region && !(rb & kBorderRegion)) return rb;
        }
        return 0;
    }

    bool flood(const SpanRef& seed, int level, uint32_t region) {
        const int low = std::max(level - 2, 0);
        const uint8_t area = f_.area[seed.span];
        stack_.clear();
        stack_.push_back(seed);
        reg_[seed.span] = region;
        cost_[seed.span] = 0;
        size_t count = 0;
        while (!stack_.empty()) {
            const SpanRef s = stack_.back();
            stack_.pop_back();
            if (otherRegionNear(s, region) != 0) {
                reg_[s.span] = 0;  // a basin boundary: leave it to growth
                continue;
            }
            ++count;
            for (int dir = 0; dir < 4; ++dir) {
                if (f_.link(s.span, dir) == kNoLink) continue;
                const int acell = s.cell + f_.dirOffset(dir);
                const uint32_t a = f_.cells[size_t(acell)] + f_.link(s.span, dir);
                if (f_.area[a] != area || reg_[a] != 0 || f_.dist[a] < low) continue;
                reg_[a] = region;
                cost_[a] = 0;
                stack_.push_back({a, acell});
            }
        }
        return count > 0;
    }

    CompactField& f_;
    std::vector<uint32_t>& reg_;
    std::vector<uint16_t> cost_;
    std::vector<SpanRef> stack_;
};

// ---- Monotone ------------------------------------------------------------------------------------

uint32_t partitionMonotone(CompactField& f) {
    std::vector<uint32_t>& reg = f.regions;
    struct Sweep {
        uint32_t below = 0;  // region of the row before it touches (kMixed when several)
        uint32_t touches = 0;
        uint32_t id = 0;
    };
    constexpr uint32_t kMixed = 0xFFFFFFFFu;
    std::vector<Sweep> sweeps;
    std::vector<uint32_t> touches_of_region(1, 0);  // per region: links from the current row
    std::vector<uint32_t> touched;                  // regions whose count to reset after a row
    std::vector<uint32_t> sweep_of(f.spanCount(), 0);
    uint32_t next_region = 1;
    for (int z = 0; z < f.depth; ++z) {
        sweeps.assign(1, Sweep{});
        for (int x = 0; x < f.width; ++x) {
            const int cell = z * f.width + x;
            for (uint32_t i = f.cells[size_t(cell)]; i < f.cells[size_t(cell) + 1]; ++i) {
                if (reg[i] != 0) continue;  // border zone
                uint32_t sweep = 0;
                if (f.link(i, 0) != kNoLink) {
                    const uint32_t a = f.neighbour(cell, i, 0);
                    if (reg[a] == 0 && f.area[a] == f.area[i]) sweep = sweep_of[a];
                }
                if (sweep == 0) {
                    sweep = uint32_t(sweeps.size());
                    sweeps.push_back(Sweep{});
                }
                sweep_of[i] = sweep;
                if (f.link(i, 3) != kNoLink) {
                    const uint32_t b = f.neighbour(cell, i, 3);
                    if (reg[b] == 0 && f.area[b] == f.area[i] && sweep_of[b] != 0) {
                        const uint32_t r = sweep_of[b];  // the final region of the row before
                        Sweep& s = sweeps[sweep];
                        if (s.below == 0 || s.below == r) {
                            s.below = r;
                            ++s.touches;
                            if (touches_of_region[r]++ == 0) touched.push_back(r);
                        } else {
                            s.below = kMixed;
                        }
                    }
                }
            }
        }
        for (size_t s = 1; s < sweeps.size(); ++s) {
            Sweep& sw = sweeps[s];
            if (sw.below != 0 && sw.below != kMixed && touches_of_region[sw.below] == sw.touches) {
                sw.id = sw.below;
            } else {
                sw.id = next_region++;
                touches_of_region.push_back(0);
            }
        }
        // Row done: sweep numbers become region ids; reset the touch counts for the next row.
        for (int x = 0; x < f.width; ++x) {
            const int cell = z * f.width + x;
            for (uint32_t i = f.cells[size_t(cell)]; i < f.cells[size_t(cell) + 1]; ++i)
                if (reg[i] == 0) sweep_of[i] = sweeps[sweep_of[i]].id;
        }
        for (uint32_t r : touched) touches_of_region[r] = 0;
        touched.clear();
    }
    for (size_t i = 0; i < reg.size(); ++i)
        if (reg[i] == 0) reg[i] = sweep_of[i];
    return next_region - 1;
}

// ---- Filtering and merging -----------------------------------------------------------------------

struct RegionInfo {
    uint32_t span_count = 0;
    uint32_t id = 0;  // current id (after merges)
    uint8_t area = 0;
    bool overlap = false;
    bool touches_tile_border = false;
    bool visited = false;
    std::vector<uint32_t> neighbours;  // around the outline, cyclic, no adjacent repeats;
                                       //   0 = wall, kBorderRegion = tile border
    std::vector<uint32_t> floors;      // regions sharing a column
};

void addUnique(std::vector<uint32_t>& list, uint32_t v) {
    if (std::find(list.begin(), list.end(), v) == list.end()) list.push_back(v);
}

void removeAdjacentRepeats(std::vector<uint32_t>& list) {
    if (list.size() <= 1) return;
    std::vector<uint32_t> out;
    out.reserve(list.size());
    for (uint32_t v : list)
        if (out.empty() || out.back() != v) out.push_back(v);
    while (out.size() > 1 && out.front() == out.back()) out.pop_back();
    list.swap(out);
}

// Walks the outline of the region of span `start` (column `cell`) from edge `dir`, listing what
// lies across each boundary edge.
void walkRegionOutline(const CompactField& f, int cell, uint32_t start, int dir,
                       std::vector<uint32_t>& out) {
    const uint32_t region = f.regions[start];
    auto across = [&](int c, uint32_t i, int d) -> uint32_t {
        if (f.link(i, d) == kNoLink) return 0;
        const uint32_t r = f.regions[f.neighbour(c, i, d)];
        return (r & kBorderRegion) ? kBorderRegion : r;
    };
    const int start_dir = dir;
    uint32_t i = start;
    size_t guard = 4 * f.spanCount() + 16;
    while (guard-- > 0) {
        const uint32_t r = across(cell, i, dir);
        if (r != region) {
            if (out.empty() || out.back() != r) out.push_back(r);
            dir = (dir + 1) & 3;
        } else {
            const int ncell = cell + f.dirOffset(dir);
            i = f.cells[size_t(ncell)] + f.link(i, dir);
            cell = ncell;
            dir = (dir + 3) & 3;
        }
        if (i == start && dir == start_dir) break;
    }
    removeAdjacentRepeats(out);
}

bool canMerge(const std::vector<RegionInfo>& regions, const RegionInfo& a, const RegionInfo& b) {
    if (a.area != b.area) return false;
    int shared = 0;
    for (uint32_t n : a.neighbours)
        if (n == b.id) ++shared;
    if (shared != 1) return false;  // several contact stretches would leave a hole
    for (uint32_t fl : a.floors)
        if (regions[fl].id == b.id) return false;
    return true;
}

// Merges b into a: a's outline continues into b's at their shared stretch.
bool mergeInto(RegionInfo& a, RegionInfo& b) {
    const auto ia = std::find(a.neighbours.begin(), a.neighbours.end(), b.id);
    const auto ib = std::find(b.neighbours.begin(), b.neighbours.end(), a.id);
    if (ia == a.neighbours.end() || ib == b.neighbours.end()) return false;
    const size_t na = a.neighbours.size(), nb = b.neighbours.size();
    const size_t pa = size_t(ia - a.neighbours.begin()), pb = size_t(ib - b.neighbours.begin());
    std::vector<uint32_t> merged;
    merged.reserve(na + nb);
    for (size_t k = 1; k < na; ++k) merged.push_back(a.neighbours[(pa + k) % na]);
    for (size_t k = 1; k < nb; ++k) merged.push_back(b.neighbours[(pb + k) % nb]);
    a.neighbours.swap(merged);
    removeAdjacentRepeats(a.neighbours);
    for (uint32_t fl : b.floors) addUnique(a.floors, fl);
    a.span_count += b.span_count;
    a.overlap = a.overlap || b.overlap;
    a.touches_tile_border = a.touches_tile_border || b.touches_tile_border;
    b.span_count = 0;
    b.neighbours.clear();
    return true;
}

void mergeAndFilter(CompactField& f, uint32_t count, const RegionSettings& settings) {
    std::vector<RegionInfo> regions(size_t(count) + 1);
    for (uint32_t r = 0; r <= count; ++r) regions[r].id = r;
    std::vector<uint32_t>& reg = f.regions;
    std::vector<uint32_t> column_regions;
    for (int cell = 0; cell < f.width * f.depth; ++cell) {
        column_regions.clear();
        for (uint32_t i = f.cells[size_t(cell)]; i < f.cells[size_t(cell) + 1]; ++i) {
            const uint32_t r = reg[i];
            if (!isRegion(r)) continue;
            RegionInfo& info = regions[r];
            ++info.span_count;
            info.area = f.area[i];
            for (uint32_t other : column_regions) {
                if (other == r) {
                    info.overlap = true;
                } else {
                    addUnique(info.floors, other);
                    addUnique(regions[other].floors, r);
                }
            }
            column_regions.push_back(r);
            if (!info.neighbours.empty() || info.visited) continue;
            // First span of the region in span order: its outline starts at a boundary edge.
            for (int dir = 0; dir < 4; ++dir) {
                uint32_t across = 0;
                if (f.link(i, dir) != kNoLink) across = reg[f.neighbour(cell, i, dir)];
                if (across != r) {
                    walkRegionOutline(f, cell, i, dir, info.neighbours);
                    break;
                }
            }
            info.visited = true;
        }
    }
    for (RegionInfo& info : regions) {
        info.visited = false;
        for (uint32_t n : info.neighbours)
            if (n == kBorderRegion) info.touches_tile_border = true;
    }

    // Remove small groups of connected regions (of one area) that do not reach the tile border.
    std::vector<uint32_t> stack, group;
    for (uint32_t r = 1; r <= count; ++r) {
        RegionInfo& seed = regions[r];
        if (seed.span_count == 0 || seed.visited) continue;
        stack.assign(1, r);
        group.clear();
        seed.visited = true;
        uint64_t spans = 0;
        bool border = false;
        while (!stack.empty()) {
            const uint32_t c = stack.back();
            stack.pop_back();
            group.push_back(c);
            spans += regions[c].span_count;
            border = border || regions[c].touches_tile_border;
            for (uint32_t n : regions[c].neighbours) {
                if (n == 0 || n == kBorderRegion) continue;
                RegionInfo& nr = regions[n];
                if (nr.visited || nr.area != seed.area || nr.span_count == 0) continue;
                nr.visited = true;
                stack.push_back(n);
            }
        }
        if (spans < uint64_t(settings.min_area) && !border)
            for (uint32_t c : group) {
                regions[c].span_count = 0;
                regions[c].id = 0;
            }
    }

    // Merge small regions into their smallest mergeable neighbour until nothing changes.
    for (bool changed = true; changed;) {
        changed = false;
        for (uint32_t r = 1; r <= count; ++r) {
            RegionInfo& info = regions[r];
            if (info.id == 0 || info.overlap || info.span_count == 0) continue;
            const bool touches_wall =
                std::find(info.neighbours.begin(), info.neighbours.end(), 0u) != info.neighbours.end();
            if (info.span_count > uint32_t(settings.merge_area) && touches_wall) continue;
            uint32_t target = info.id;
            uint32_t smallest = std::numeric_limits<uint32_t>::max();
            for (uint32_t n : info.neighbours) {
                if (n == 0 || n == kBorderRegion) continue;
                const RegionInfo& other = regions[n];
                if (other.id == 0 || other.overlap || other.span_count == 0) continue;
                if (other.span_count < smallest && canMerge(regions, info, other) &&
                    canMerge(regions, other, info)) {
                    smallest = other.span_count;
                    target = other.id;
                }
            }
            if (target == info.id) continue;
            const uint32_t old_id = info.id;
            if (!mergeInto(regions[target], info)) continue;
            // Everything that pointed at the old id now points at the target.
            for (uint32_t k = 1; k <= count; ++k) {
                RegionInfo& other = regions[k];
                if (other.id == old_id) other.id = target;
                for (uint32_t& n : other.neighbours)
                    if (n == old_id) n = target;
                removeAdjacentRepeats(other.neighbours);
                for (uint32_t& fl : other.floors)
                    if (fl == old_id) fl = target;
            }
            changed = true;
        }
    }

    // Renumber 1..n in order of the surviving ids.
    std::vector<uint32_t> remap(size_t(count) + 1, 0);
    uint32_t next = 0;
    for (uint32_t r = 1; r <= count; ++r) {
        const uint32_t id = regions[r].id;
        if (id == 0) continue;
        if (remap[id] == 0) remap[id] = ++next;
    }
    for (uint32_t& r : reg)
        if (isRegion(r)) r = regions[r].id == 0 ? 0 : remap[regions[r].id];
    f.region_count = next;
}

void paintBorder(CompactField& f) {
    for (int z = 0; z < f.depth; ++z) {
        for (int x = 0; x < f.width; ++x) {
            int side = -1;
            if (x < f.inner_x0) side = 0;
            else if (z >= f.inner_z1) side = 1;
            else if (x >= f.inner_x1) side = 2;
            else if (z < f.inner_z0) side = 3;
            const int cell = z * f.width + x;
            for (uint32_t i = f.cells[size_t(cell)]; i < f.cells[size_t(cell) + 1]; ++i)
                f.regions[i] = side < 0 ? 0 : (kBorderRegion | uint32_t(side));
        }
    }
}

}  // namespace

void buildRegions(CompactField& f, const RegionSettings& settings) {
    f.regions.assign(f.spanCount(), 0);
    paintBorder(f);
    uint32_t count = 0;
    if (settings.partition == Partition::watershed) {
        Watershed watershed(f);
        count = watershed.run();
    } else {
        count = partitionMonotone(f);
    }
    mergeAndFilter(f, count, settings);
}

}  // namespace nav::navmesh::internal
