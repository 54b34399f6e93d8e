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
//     column (a region must not overlap itself in plan). Regions are renumbered 1..n in the order
//     they were created.
// Area changes always separate regions (floods and growth only follow spans of one area), and
// spans of the tile's border zone get kBorderRegion | side so that no region enters them.
// Every loop runs in span order, so the result depends on the field alone.
#include <algorithm>
#include <limits>

#include "lib/common/csr.h"
#include "lib/navmesh/navmesh_internal.h"

namespace nav::navmesh::internal {
namespace {

constexpr uint16_t kFar = 0xFFFF;

bool isRegion(uint32_t r) { return r != 0 && (r & kBorderRegion) == 0; }

// ---- Distance field ----------------------------------------------------------------------------

void chamferPass(const CompactField& f, std::vector<uint16_t>& d, bool forward) {
    // Spans are stored in raster order, so span order is the raster scan. Forward: relax from
    // (-x) then (-x, -z), and from (-z) then (+x, -z); backward mirrors it.
    auto relax = [&](uint32_t i, int dir, int diagonal_dir) {
        const uint32_t n = f.next(i, dir);
        if (n == kNoSpan) return;
        uint32_t best = std::min<uint32_t>(d[i], uint32_t(d[n]) + 2);
        const uint32_t m = f.next(n, diagonal_dir);
        if (m != kNoSpan) best = std::min<uint32_t>(best, uint32_t(d[m]) + 3);
        d[i] = uint16_t(best);
    };
    const uint32_t n = uint32_t(f.spanCount());
    if (forward) {
        for (uint32_t i = 0; i < n; ++i) {
            relax(i, 0, 3);
            relax(i, 3, 2);
        }
    } else {
        for (uint32_t i = n; i-- > 0;) {
            relax(i, 2, 1);
            relax(i, 1, 0);
        }
    }
}

}  // namespace

void buildDistanceField(CompactField& f, int threads) {
    const size_t n = f.spanCount();
    const size_t bands = size_t((f.depth + kBandRows - 1) / kBandRows);
    auto bandSpans = [&](size_t band, uint32_t& begin, uint32_t& end) {
        const int z0 = int(band) * kBandRows, z1 = std::min(f.depth, z0 + kBandRows);
        begin = f.cells[size_t(z0) * size_t(f.width)];
        end = f.cells[size_t(z1) * size_t(f.width)];
    };
    std::vector<uint16_t> d(n);
    parallelFor(bands, threads, [&](size_t band, int) {
        uint32_t begin, end;
        bandSpans(band, begin, end);
        for (uint32_t i = begin; i < end; ++i) {
            bool inner = true;
            for (int dir = 0; dir < 4 && inner; ++dir) {
                const uint32_t a = f.next(i, dir);
                inner = a != kNoSpan && f.area[a] == f.area[i];
            }
            d[i] = inner ? kFar : 0;
        }
    });
    chamferPass(f, d, true);
    chamferPass(f, d, false);

    // 3x3 box blur; a missing neighbour counts as the centre value.
    f.dist.resize(n);
    std::vector<uint16_t> band_max(bands, 0);
    parallelFor(bands, threads, [&](size_t band, int) {
        uint32_t begin, end;
        bandSpans(band, begin, end);
        uint16_t max_dist = 0;
        for (uint32_t i = begin; i < end; ++i) {
            const uint32_t centre = d[i];
            uint16_t v = uint16_t(centre);
            if (centre > 2) {
                uint32_t sum = centre;
                for (int dir = 0; dir < 4; ++dir) {
                    const uint32_t a = f.next(i, dir);
                    if (a == kNoSpan) {
                        sum += 2 * centre;
                        continue;
                    }
                    sum += d[a];
                    const uint32_t b = f.next(a, (dir + 1) & 3);
                    sum += b != kNoSpan ? d[b] : centre;
                }
                v = uint16_t(std::min<uint32_t>((sum + 5) / 9, kFar - 1));
            }
            f.dist[i] = v;
            max_dist = std::max(max_dist, v);
        }
        band_max[band] = max_dist;
    });
    f.max_dist = bands ? *std::max_element(band_max.begin(), band_max.end()) : 0;
}

namespace {

// ---- Watershed ---------------------------------------------------------------------------------

class Watershed {
public:
    explicit Watershed(CompactField& f) : f_(f), reg_(f.regions), cost_(f.spanCount(), 0) {}

    uint32_t run() {
        // Bucket the spans (not in the border zone) by level = dist / 2, in span order.
        const uint32_t n = uint32_t(f_.spanCount());
        const uint32_t levels = uint32_t(f_.max_dist) / 2 + 1;
        std::vector<uint32_t> start, sorted;
        csrBuild<uint32_t>(
            levels,
            [&](auto&& emit) {
                for (uint32_t i = 0; i < n; ++i)
                    if (reg_[i] == 0) emit(f_.dist[i] / 2, i);
            },
            start, sorted);

        uint32_t next_region = 1;
        int level = (int(f_.max_dist) + 1) & ~1;
        if (level == 0) level = 2;     // every span on the boundary: still flood at level 0
        uint32_t added_from = levels;  // buckets >= added_from are in `pending`
        std::vector<uint32_t> pending;
        while (level > 0) {
            level = std::max(level - 2, 0);
            const uint32_t bucket = uint32_t(level / 2);
            while (added_from > bucket) {
                --added_from;
                for (uint32_t k = start[added_from]; k < start[added_from + 1]; ++k)
                    if (reg_[sorted[k]] == 0) pending.push_back(sorted[k]);
            }
            grow(pending, level, 8);
            for (uint32_t i : pending) {
                if (reg_[i] != 0 || f_.dist[i] < level) continue;
                if (flood(i, level, next_region)) ++next_region;
            }
            dropAssigned(pending);
        }
        // Everything left (level 0 spans are all in `pending` by now).
        grow(pending, 0, 0);
        return next_region - 1;
    }

private:
    void dropAssigned(std::vector<uint32_t>& list) const {
        list.erase(
            std::remove_if(list.begin(), list.end(), [&](uint32_t i) { return reg_[i] != 0; }),
            list.end());
    }

    // Grows existing regions into the unassigned spans of `list` whose distance is >= level;
    // max_rounds 0 = until nothing changes. Changes of a round apply together.
    void grow(std::vector<uint32_t>& list, int level, int max_rounds) {
        dropAssigned(list);
        for (int round = 0; max_rounds == 0 || round < max_rounds; ++round) {
            changes_.clear();
            for (uint32_t i : list) {
                if (f_.dist[i] < level) continue;
                uint32_t best_region = 0;
                uint32_t best_cost = std::numeric_limits<uint32_t>::max();
                for (int dir = 0; dir < 4; ++dir) {
                    const uint32_t a = f_.next(i, dir);
                    if (a == kNoSpan || f_.area[a] != f_.area[i] || !isRegion(reg_[a])) continue;
                    if (uint32_t(cost_[a]) + 2 < best_cost) {
                        best_cost = uint32_t(cost_[a]) + 2;
                        best_region = reg_[a];
                    }
                }
                if (best_region != 0)
                    changes_.push_back(
                        {i, best_region, uint16_t(std::min<uint32_t>(best_cost, kFar))});
            }
            if (changes_.empty()) break;
            for (const Change& c : changes_) {
                reg_[c.span] = c.region;
                cost_[c.span] = c.cost;
            }
            dropAssigned(list);
        }
    }

    // The region of a linked neighbour (or diagonal neighbour) of span i that is neither
    // unassigned, the border, nor `region`; 0 when there is none.
    uint32_t otherRegionNear(uint32_t i, uint32_t region) const {
        for (int dir = 0; dir < 4; ++dir) {
            const uint32_t a = f_.next(i, dir);
            if (a == kNoSpan || f_.area[a] != f_.area[i]) continue;
            const uint32_t ra = reg_[a];
            if (ra & kBorderRegion) continue;
            if (ra != 0 && ra != region) return ra;
            const uint32_t b = f_.next(a, (dir + 1) & 3);
            if (b == kNoSpan || f_.area[b] != f_.area[i]) continue;
            const uint32_t rb = reg_[b];
            if (rb != 0 && rb != region && !(rb & kBorderRegion)) return rb;
        }
        return 0;
    }

    bool flood(uint32_t seed, int level, uint32_t region) {
        const int low = std::max(level - 2, 0);
        const uint8_t area = f_.area[seed];
        stack_.clear();
        stack_.push_back(seed);
        reg_[seed] = region;
        cost_[seed] = 0;
        size_t count = 0;
        while (!stack_.empty()) {
            const uint32_t i = stack_.back();
            stack_.pop_back();
            if (otherRegionNear(i, region) != 0) {
                reg_[i] = 0;  // a basin boundary: leave it to growth
                continue;
            }
            ++count;
            for (int dir = 0; dir < 4; ++dir) {
                const uint32_t a = f_.next(i, dir);
                if (a == kNoSpan || f_.area[a] != area || reg_[a] != 0 || f_.dist[a] < low)
                    continue;
                reg_[a] = region;
                cost_[a] = 0;
                stack_.push_back(a);
            }
        }
        return count > 0;
    }

    struct Change {
        uint32_t span, region;
        uint16_t cost;
    };

    CompactField& f_;
    std::vector<uint32_t>& reg_;
    std::vector<uint16_t> cost_;
    std::vector<uint32_t> stack_;
    std::vector<Change> changes_;
};

// ---- Monotone ----------------------------------------------------------------------------------

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
                const uint32_t a = f.next(i, 0);
                if (a != kNoSpan && reg[a] == 0 && f.area[a] == f.area[i]) sweep = sweep_of[a];
                if (sweep == 0) {
                    sweep = uint32_t(sweeps.size());
                    sweeps.push_back(Sweep{});
                }
                sweep_of[i] = sweep;
                const uint32_t b = f.next(i, 3);
                if (b != kNoSpan) {
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

// ---- Filtering and merging ---------------------------------------------------------------------

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

// Walks the outline of the region of span `start` from edge `dir`, listing what lies across each
// boundary edge.
void walkRegionOutline(const CompactField& f, uint32_t start, int dir, std::vector<uint32_t>& out) {
    const uint32_t region = f.regions[start];
    auto across = [&](uint32_t i, int d) -> uint32_t {
        const uint32_t n = f.next(i, d);
        if (n == kNoSpan) return 0;
        const uint32_t r = f.regions[n];
        return (r & kBorderRegion) ? kBorderRegion : r;
    };
    const int start_dir = dir;
    uint32_t i = start;
    size_t guard = 4 * f.spanCount() + 16;
    while (guard-- > 0) {
        const uint32_t r = across(i, dir);
        if (r != region) {
            if (out.empty() || out.back() != r) out.push_back(r);
            dir = (dir + 1) & 3;
        } else {
            i = f.next(i, dir);
            dir = (dir + 3) & 3;
        }
        if (i == start && dir == start_dir) break;
    }
    removeAdjacentRepeats(out);
}

// Current id of region r after merges (0 when removed); wall (0) and border pass through.
uint32_t resolve(std::vector<RegionInfo>& regions, uint32_t r) {
    if (r == 0 || r == kBorderRegion) return r;
    uint32_t root = r;
    while (regions[root].id != root && regions[root].id != 0) root = regions[root].id;
    if (regions[root].id == 0) root = 0;
    while (r != root && regions[r].id != 0 && regions[r].id != r) {  // path compression
        const uint32_t up = regions[r].id;
        regions[r].id = root;
        r = up;
    }
    return root;
}

// Brings a region's neighbour list up to date with the merges so far.
void normalize(std::vector<RegionInfo>& regions, RegionInfo& info) {
    for (uint32_t& n : info.neighbours) n = resolve(regions, n);
    std::erase(info.neighbours, info.id);
    removeAdjacentRepeats(info.neighbours);
}

bool canMerge(std::vector<RegionInfo>& regions, const RegionInfo& a, const RegionInfo& b) {
    if (a.area != b.area) return false;
    int shared = 0;
    for (uint32_t n : a.neighbours)
        if (n == b.id) ++shared;
    if (shared != 1) return false;  // several contact stretches would leave a hole
    for (uint32_t fl : a.floors)
        if (resolve(regions, fl) == b.id) return false;
    return true;
}

// Merges b into a: a's outline continues into b's at their shared stretch. Both lists must be
// normalized.
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
    b.id = a.id;
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
                const uint32_t n = f.next(i, dir);
                const uint32_t across = n == kNoSpan ? 0 : reg[n];
                if (across != r) {
                    walkRegionOutline(f, i, dir, info.neighbours);
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

    // Merge small regions into their smallest mergeable neighbour until nothing changes. Ids
    // of merged regions forward to their target (resolve), and neighbour lists are brought up to
    // date when read, so a merge costs only the two lists involved.
    for (bool changed = true; changed;) {
        changed = false;
        for (uint32_t r = 1; r <= count; ++r) {
            RegionInfo& info = regions[r];
            if (info.id != r || info.overlap || info.span_count == 0) continue;
            normalize(regions, info);
            const bool touches_wall = std::find(info.neighbours.begin(), info.neighbours.end(),
                                                0u) != info.neighbours.end();
            if (info.span_count > uint32_t(settings.merge_area) && touches_wall) continue;
            uint32_t target = 0;
            uint32_t smallest = std::numeric_limits<uint32_t>::max();
            for (uint32_t n : info.neighbours) {
                if (n == 0 || n == kBorderRegion) continue;
                RegionInfo& other = regions[n];
                if (other.overlap || other.span_count == 0 || other.span_count >= smallest)
                    continue;
                normalize(regions, other);
                if (canMerge(regions, info, other) && canMerge(regions, other, info)) {
                    smallest = other.span_count;
                    target = n;
                }
            }
            if (target == 0) continue;
            if (mergeInto(regions[target], info)) changed = true;
        }
    }

    // Renumber 1..n in the order the surviving regions were created.
    std::vector<uint32_t> remap(size_t(count) + 1, 0);
    uint32_t next = 0;
    for (uint32_t r = 1; r <= count; ++r)
        if (regions[r].id == r && regions[r].span_count > 0) remap[r] = ++next;
    for (uint32_t& r : reg)
        if (isRegion(r)) r = remap[resolve(regions, r)];
    f.region_count = next;
}

void paintBorder(CompactField& f) {
    for (int z = 0; z < f.depth; ++z) {
        for (int x = 0; x < f.width; ++x) {
            int side = -1;
            if (x < f.inner_x0)
                side = 0;
            else if (z >= f.inner_z1)
                side = 1;
            else if (x >= f.inner_x1)
                side = 2;
            else if (z < f.inner_z0)
                side = 3;
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
