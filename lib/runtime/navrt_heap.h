// The open list of navrt's searches (internal): an indexed binary min-heap of record ids whose
// heap positions live in the records themselves, so a record's key can be lowered or raised in
// place. Records need `double f`, `double g` and `uint32_t heap_index`. Order: smaller f, then
// larger g (deeper node), then lower id, so every search is deterministic.
#pragma once

#include <cstdint>

namespace navrt::heap {

inline constexpr uint32_t kClosed = 0xFFFFFFFEu;     // heap_index of an expanded record
inline constexpr uint32_t kNotInHeap = 0xFFFFFFFDu;  // heap_index before the first push

template <class Record>
inline bool before(const Record* records, uint32_t a, uint32_t b) {
    const Record& ra = records[a];
    const Record& rb = records[b];
    if (ra.f != rb.f) return ra.f < rb.f;
    if (ra.g != rb.g) return ra.g > rb.g;
    return a < b;
}

// Moves `id` up from its heap_index (its key dropped).
template <class Record>
inline void siftUp(Record* records, uint32_t* heap, uint32_t id) {
    uint32_t i = records[id].heap_index;
    while (i > 0) {
        const uint32_t parent = (i - 1) / 2;
        if (!before(records, id, heap[parent])) break;
        heap[i] = heap[parent];
        records[heap[i]].heap_index = i;
        i = parent;
    }
    heap[i] = id;
    records[id].heap_index = i;
}

// Moves `id` down from its heap_index (its key rose) among the first `size` entries.
template <class Record>
inline void siftDown(Record* records, uint32_t* heap, uint32_t size, uint32_t id) {
    uint32_t i = records[id].heap_index;
    for (;;) {
        uint32_t child = 2 * i + 1;
        if (child >= size) break;
        if (child + 1 < size && before(records, heap[child + 1], heap[child])) ++child;
        if (!before(records, heap[child], id)) break;
        heap[i] = heap[child];
        records[heap[i]].heap_index = i;
        i = child;
    }
    heap[i] = id;
    records[id].heap_index = i;
}

template <class Record>
inline void push(Record* records, uint32_t* heap, uint32_t& size, uint32_t id) {
    records[id].heap_index = size++;
    siftUp(records, heap, id);
}

// Removes and returns the first record, marking it kClosed.
template <class Record>
inline uint32_t pop(Record* records, uint32_t* heap, uint32_t& size) {
    const uint32_t top = heap[0];
    const uint32_t last = heap[--size];
    if (size > 0) {
        records[last].heap_index = 0;
        siftDown(records, heap, size, last);
    }
    records[top].heap_index = kClosed;
    return top;
}

}  // namespace navrt::heap
