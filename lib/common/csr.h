// Compressed sparse rows (CSR): the entries of row r are items[offsets[r] .. offsets[r + 1]).
// One counting sort builds every such grouping of the baker (members of each cluster, reversed
// edges, spans per column, polygons per index cell, ...): count the entries of each row, prefix
// sums, then place every entry at its row's next free slot. Placing in a fixed pass order keeps
// each row in that order (stable), so the output does not depend on anything else.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace nav {

// Offsets (rows + 1) of a CSR: each(add) must call add(row) once per entry.
template <class Offset = uint32_t, class Each>
std::vector<Offset> csrOffsets(size_t rows, Each&& each) {
    std::vector<Offset> offsets(rows + 1, 0);
    each([&](size_t row) { ++offsets[row + 1]; });
    for (size_t r = 0; r < rows; ++r) offsets[r + 1] += offsets[r];
    return offsets;
}

// The slot of the next entry of a row: rows fill in the order their entries are placed.
template <class Offset = uint32_t>
class CsrCursor {
public:
    explicit CsrCursor(const std::vector<Offset>& offsets)
        : next_(offsets.begin(), offsets.end() - 1) {}
    Offset operator()(size_t row) { return next_[row]++; }

private:
    std::vector<Offset> next_;
};

// Builds a CSR of Items: each(emit) calls emit(row, item) for every entry. It is called twice
// (to count, then to place) and must emit the same rows in the same order both times; items keep
// that order inside their row.
template <class Item, class Offset = uint32_t, class Each>
void csrBuild(size_t rows, Each&& each, std::vector<Offset>& offsets, std::vector<Item>& items) {
    offsets = csrOffsets<Offset>(
        rows, [&](auto&& add) { each([&](size_t row, const Item&) { add(row); }); });
    items.resize(offsets[rows]);
    CsrCursor<Offset> slot(offsets);
    each([&](size_t row, const Item& item) { items[slot(row)] = item; });
}

// The elements of every group, ascending: group[i] (< count) is the group of element i.
template <class Offset = uint32_t>
void groupElements(std::span<const uint32_t> group, size_t count, std::vector<Offset>& offsets,
                   std::vector<uint32_t>& elements) {
    csrBuild<uint32_t>(
        count,
        [&](auto&& emit) {
            for (uint32_t i = 0; i < group.size(); ++i) emit(group[i], i);
        },
        offsets, elements);
}

// Edges of a graph in CSR form, owned (the graph's own arrays are viewed where they exist).
template <class Cost>
struct CsrEdges {
    std::vector<uint32_t> offsets, targets;
    std::vector<Cost> costs;
};

// The reversed edges of a CSR graph: every edge u -> v of cost c becomes v -> u of cost c,
// listed per v by ascending u (then u's edge order).
template <class Cost>
CsrEdges<Cost> reverseEdges(std::span<const uint32_t> offsets, std::span<const uint32_t> targets,
                            std::span<const Cost> costs) {
    const size_t n = offsets.empty() ? 0 : offsets.size() - 1;
    CsrEdges<Cost> r;
    r.offsets = csrOffsets(n, [&](auto&& add) {
        for (uint32_t v : targets) add(v);
    });
    r.targets.resize(targets.size());
    r.costs.resize(targets.size());
    CsrCursor slot(r.offsets);
    for (uint32_t u = 0; u < n; ++u)
        for (uint32_t e = offsets[u]; e < offsets[u + 1]; ++e) {
            const uint32_t at = slot(targets[e]);
            r.targets[at] = u;
            r.costs[at] = costs[e];
        }
    return r;
}

}  // namespace nav
