// Whole-file reads and atomic writes, plus loading/saving navbake containers with errors that
// name the file.
#pragma once

#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <memory>
#include <new>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "formats/container.h"
#include "formats/container_writer.h"
#include "lib/common/result.h"

namespace nav {

Result<std::vector<uint8_t>> readFile(const std::filesystem::path& path);

// A text file's bytes as one string (no encoding conversion; line endings are the reader's job).
Result<std::string> readTextFile(const std::filesystem::path& path);

// XXH64 (seed 0) of a file's bytes, read a chunk at a time (a level's source files can be larger
// than what a stage may hold): the same value as xxhash64 over readFile's bytes.
Result<uint64_t> hashFile(const std::filesystem::path& path);

// Reads a text file and hands it to `parse(text, source_name)`, the shape of every text-format
// parser here (tags, MovingAI maps and scenarios): errors of either step come back as the Result.
template <class Parse>
auto parseTextFile(const std::filesystem::path& path, Parse&& parse)
    -> decltype(parse(std::string_view{}, std::string{})) {
    auto text = readTextFile(path);
    if (!text) return text.error();
    return parse(std::string_view(*text), path.string());
}

// Writes to a temporary file in the destination's folder, flushes it to disk, then renames it
// over `path`. On any failure the temporary is removed and `path` is left as it was.
Status writeFileAtomic(const std::filesystem::path& path, std::span<const uint8_t> bytes);
// The same for a file written piece by piece: `write` gets the temporary file's descriptor
// (writeAll below writes to it); its error fails the write as above.
Status writeFileAtomicBy(const std::filesystem::path& path,
                         const std::function<Status(int fd)>& write);
// Removes the files of `folder` named PREFIX + PID + "-" + anything whose process is gone (the
// spill files of a killed import: they can be hundreds of MB). Files of live processes, and
// names that do not parse, are left. Returns how many were removed.
size_t removeOrphanedTemporaries(const std::filesystem::path& folder, std::string_view prefix);
// The same for writeFileAtomic's temporary files (".NAME.tmp-PID-N") of processes that are gone,
// e.g. a build killed while writing; `navbake build` calls it on its folders under its lock.
size_t removeOrphanedAtomicTemporaries(const std::filesystem::path& folder);
// A temporary file a stage spills to, in `folder`: named PREFIX + pid + "-" + n + SUFFIX (so
// removeOrphanedTemporaries(folder, PREFIX), called first, knows a killed process's), opened for
// reading and writing. The caller closes and removes it.
struct SpillFile {
    int fd = -1;
    std::filesystem::path path;
};
Result<SpillFile> createSpillFile(const std::filesystem::path& folder, std::string_view prefix,
                                  std::string_view suffix = {});
// A spill file beside `output` (".NAME.WHAT-PID-N", a killed process's removed first) that
// blocks of bytes are appended to and read back from; closed and removed when it goes.
class SpillStore {
public:
    static Result<std::unique_ptr<SpillStore>> beside(const std::filesystem::path& output,
                                                      std::string_view what);
    ~SpillStore();
    SpillStore(const SpillStore&) = delete;
    SpillStore& operator=(const SpillStore&) = delete;
    // Appends `bytes` (any thread); `offset` is where they went.
    Status append(std::span<const uint8_t> bytes, uint64_t& offset);
    Status read(uint64_t offset, uint8_t* out, size_t size) const;  // any thread
    // A plain array's bytes appended (any thread), and `count` of them read back into `out`
    // (resized).
    template <class T>
    Status appendArray(std::span<const T> items, uint64_t& offset) {
        static_assert(std::is_trivially_copyable_v<T>);
        return append({reinterpret_cast<const uint8_t*>(items.data()), items.size_bytes()}, offset);
    }
    template <class T>
    Status readArray(uint64_t offset, size_t count, std::vector<T>& out) const {
        static_assert(std::is_trivially_copyable_v<T>);
        out.resize(count);
        return read(offset, reinterpret_cast<uint8_t*>(out.data()), count * sizeof(T));
    }
    uint64_t size() const;

private:
    SpillStore() = default;
    SpillFile file_;
    struct State;
    std::unique_ptr<State> state_;
};

// An exclusive advisory lock (flock) on a file, held while the object lives. The kernel drops it
// when the process ends, however it ends, so a killed holder leaves no stale lock; the file keeps
// the holder's pid for messages.
class FileLock {
public:
    // Takes the lock without waiting; when another process (or another FileLock) holds it, an
    // error naming `what`, the file and the holder's pid.
    static Result<std::unique_ptr<FileLock>> acquire(const std::filesystem::path& path,
                                                     std::string_view what);
    ~FileLock();
    FileLock(const FileLock&) = delete;
    FileLock& operator=(const FileLock&) = delete;

private:
    FileLock() = default;
    int fd_ = -1;
};

// All of `size` bytes at `offset` of `fd`, read or written (retrying short and interrupted
// calls); errors name `path` and the byte.
Status readAt(int fd, uint8_t* out, size_t size, uint64_t offset,
              const std::filesystem::path& path);
Status writeAt(int fd, const uint8_t* bytes, size_t size, uint64_t offset,
               const std::filesystem::path& path);
// Writes all of `bytes` to `fd` (retrying short writes); errors name `path`.
Status writeAll(int fd, std::span<const uint8_t> bytes, const std::filesystem::path& path);

// A container read from disk, header and table validated. Sections are decoded on demand.
struct LoadedContainer {
    std::filesystem::path path;
    std::vector<uint8_t> bytes;
    formats::Container container;

    bool has(uint32_t id) const { return container.find(id) >= 0; }
    // Verifies the checksum and decodes one section; a missing section is an error.
    Result<std::vector<uint8_t>> section(uint32_t id) const;
    // section(id) decoded straight into an array of T (its bytes as stored, little-endian, as the
    // hosts this builds for are), without a byte copy beside it: raw_size must be a multiple of
    // sizeof(T). For the large arrays of big levels.
    template <class T>
    Result<std::vector<T>> array(uint32_t id) const;
    // The section's decoded size, and decoding into `size` bytes at `out` (size == raw_size).
    Result<uint64_t> rawSize(uint32_t id) const;
    Status decodeInto(uint32_t id, uint8_t* out, size_t size) const;
    // Decodes the header section `id` with its formats decoder (e.g. formats::decodeGraphHeader);
    // errors name the file.
    template <class Header>
    Status header(uint32_t id, formats::Error (*decode)(const uint8_t*, size_t, Header&),
                  Header& out) const;
};

// Turns a container-level error into a message naming the file, section and byte offset.
Error containerError(const std::filesystem::path& path, const formats::Error& error);

// Whether `path` is a whole container by its header and section table (sizes, bounds, the
// header checksum) without reading its sections: a build's check that a cached artifact is
// there and complete (a large level's .geo is not read into memory for it).
Status checkContainerFile(const std::filesystem::path& path);

// A file's bytes, read where asked (formats::SectionStream on a section left on disk).
class FileBytes : public formats::StoredBytes {
public:
    static Result<std::unique_ptr<FileBytes>> open(const std::filesystem::path& path);
    ~FileBytes() override;
    FileBytes(const FileBytes&) = delete;
    FileBytes& operator=(const FileBytes&) = delete;
    bool read(uint64_t offset, uint8_t* dst, size_t size) override;

private:
    FileBytes() = default;
    std::FILE* file_ = nullptr;
};

// A container's head: every byte before its last section, which stays on disk (a tail written
// with ContainerWriter::setTail; its reader reads and verifies it). Everything else is checked as
// loadContainer checks it; section() on the tail is an error.
// With `tail_sections` > 1, that many last sections stay on disk.
Result<LoadedContainer> loadContainerHead(const std::filesystem::path& path, uint32_t kind,
                                          uint32_t max_kind_version, uint32_t tail_sections = 1);
// Reads and validates a container. With kind != 0 also checks kind and kind version.
Result<LoadedContainer> loadContainer(const std::filesystem::path& path, uint32_t kind = 0,
                                      uint32_t max_kind_version = 0);
// Parses a container already in memory (`name` is used in messages).
Result<LoadedContainer> parseContainerBytes(std::vector<uint8_t> bytes,
                                            const std::filesystem::path& name, uint32_t kind = 0,
                                            uint32_t max_kind_version = 0);

// One header section of a container of `kind` (at most `max_kind_version`), decoded with its
// formats decoder: what memory estimates and plans read without decoding the rest. Errors name
// the file.
template <class Header>
Result<Header> loadHeader(const std::filesystem::path& path, uint32_t kind,
                          uint32_t max_kind_version, uint32_t section,
                          formats::Error (*decode)(const uint8_t*, size_t, Header&)) {
    // The head only (a large artifact's last section stays on disk), unless that is the header.
    auto c = loadContainerHead(path, kind, max_kind_version);
    if (!c) return c.error();
    if (const int i = c->container.find(section);
        i >= 0 && uint32_t(i) + 1 == c->container.section_count)
        c = loadContainer(path, kind, max_kind_version);
    if (!c) return c.error();
    Header h;
    if (Status s = c->header(section, decode, h); !s) return s.error();
    return h;
}

// Finishes the writer and writes the file atomically.
Status saveContainer(const std::filesystem::path& path, const formats::ContainerWriter& writer);
// The same for a writer with tails (ContainerWriter::setTail): their bytes are then copied from
// `tails` (one file each, in order, holding at least that many bytes), a chunk at a time.
Status saveContainer(const std::filesystem::path& path, const formats::ContainerWriter& writer,
                     const std::vector<std::filesystem::path>& tails);
inline Status saveContainer(const std::filesystem::path& path,
                            const formats::ContainerWriter& writer,
                            const std::filesystem::path& tail) {
    return saveContainer(path, writer, std::vector<std::filesystem::path>{tail});
}
// Writes a precomputed table of `kind` (sections appended by `add`) at zstd level 19: tables are
// baked once and loaded many times, so the slow level pays off.
Status saveTableContainer(const std::filesystem::path& path, uint32_t kind, uint32_t kind_version,
                          const std::function<void(formats::ContainerWriter&)>& add);

template <class T>
Result<std::vector<T>> LoadedContainer::array(uint32_t id) const {
    static_assert(std::is_trivially_copyable_v<T>);
    auto size = rawSize(id);
    if (!size) return size.error();
    if (*size % sizeof(T) != 0)
        return makeError(ErrorKind::bad_input,
                         "{}: section holds {} bytes, not whole {}-byte items", path.string(),
                         *size, sizeof(T));
    std::vector<T> out;
    try {
        out.resize(size_t(*size / sizeof(T)));
    } catch (const std::bad_alloc&) {
        return makeError(ErrorKind::bad_input, "{}: section decodes to {} bytes, too large",
                         path.string(), *size);
    }
    if (Status s = decodeInto(id, reinterpret_cast<uint8_t*>(out.data()), size_t(*size)); !s)
        return s.error();
    return out;
}

template <class Header>
Status LoadedContainer::header(uint32_t id,
                               formats::Error (*decode)(const uint8_t*, size_t, Header&),
                               Header& out) const {
    auto raw = section(id);
    if (!raw) return raw.error();
    if (formats::Error e = decode(raw->data(), raw->size(), out)) return containerError(path, e);
    return {};
}

}  // namespace nav
