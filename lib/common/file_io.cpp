#include "lib/common/file_io.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/file.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <charconv>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <mutex>

#include "formats/bytes.h"
#include "formats/xxhash64.h"

namespace nav {

namespace {
// A file opened for reading, or the error a reader gives (a directory, or cannot open).
Result<std::ifstream> openInput(const std::filesystem::path& path) {
    std::error_code ec;
    if (std::filesystem::is_directory(path, ec))
        return makeError(ErrorKind::io, "{}: is a directory, expected a file", path.string());
    std::ifstream in(path, std::ios::binary);
    if (!in)
        return makeError(ErrorKind::io, "{}: cannot open: {}", path.string(), std::strerror(errno));
    return in;
}
}  // namespace

Result<std::vector<uint8_t>> readFile(const std::filesystem::path& path) {
    auto opened = openInput(path);
    if (!opened) return opened.error();
    std::ifstream& in = *opened;
    std::error_code ec;
    // Read in chunks rather than by the size from seeking, so pipes and /dev/fd work too.
    std::vector<uint8_t> bytes;
    const size_t hint = std::filesystem::is_regular_file(path, ec)
                            ? size_t(std::filesystem::file_size(path, ec))
                            : 0;
    bytes.reserve(ec ? 0 : hint);
    char chunk[1 << 16];
    while (in.read(chunk, sizeof(chunk)) || in.gcount() > 0)
        bytes.insert(bytes.end(), chunk, chunk + in.gcount());
    if (in.bad()) return makeError(ErrorKind::io, "{}: read failed", path.string());
    return bytes;
}

Result<uint64_t> hashFile(const std::filesystem::path& path) {
    auto opened = openInput(path);
    if (!opened) return opened.error();
    std::ifstream& in = *opened;
    formats::XxHash64 state(0);
    std::vector<char> chunk(size_t(1) << 20);
    while (in.read(chunk.data(), std::streamsize(chunk.size())) || in.gcount() > 0)
        state.update(chunk.data(), size_t(in.gcount()));
    if (in.bad()) return makeError(ErrorKind::io, "{}: read failed", path.string());
    return state.digest();
}

Result<std::string> readTextFile(const std::filesystem::path& path) {
    auto bytes = readFile(path);
    if (!bytes) return bytes.error();
    return std::string(reinterpret_cast<const char*>(bytes->data()), bytes->size());
}

namespace {

// Removes the files of `folder` for which pidAt(name) gives the position of a pid followed by
// '-' (npos: not such a file) and that pid's process is gone.
template <class PidAt>
size_t removeOrphans(const std::filesystem::path& folder, PidAt&& pidAt) {
    size_t removed = 0;
    std::error_code ec;
    for (std::filesystem::directory_iterator it(folder, ec), end; !ec && it != end;
         it.increment(ec)) {
        const std::string name = it->path().filename().string();
        const size_t at = pidAt(name);
        if (at == std::string::npos || at >= name.size()) continue;
        long long pid = 0;
        const char* first = name.data() + at;
        const auto [next, error] = std::from_chars(first, name.data() + name.size(), pid);
        if (error != std::errc() || next == first || next == name.data() + name.size() ||
            *next != '-' || pid <= 0 || pid == ::getpid())
            continue;
        if (::kill(pid_t(pid), 0) == 0 || errno != ESRCH) continue;  // alive (or not ours)
        std::error_code remove_error;
        removed += std::filesystem::remove(it->path(), remove_error) ? 1 : 0;
    }
    return removed;
}

}  // namespace

size_t removeOrphanedTemporaries(const std::filesystem::path& folder, std::string_view prefix) {
    return removeOrphans(folder, [&](const std::string& name) {
        return name.size() > prefix.size() && name.compare(0, prefix.size(), prefix) == 0
                   ? prefix.size()
                   : std::string::npos;
    });
}

size_t removeOrphanedAtomicTemporaries(const std::filesystem::path& folder) {
    return removeOrphans(folder, [](const std::string& name) {
        const size_t tmp = name.rfind(".tmp-");
        return !name.empty() && name[0] == '.' && tmp != std::string::npos && tmp > 0
                   ? tmp + 5
                   : std::string::npos;
    });
}

Result<std::unique_ptr<FileLock>> FileLock::acquire(const std::filesystem::path& path,
                                                    std::string_view what) {
    const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0)
        return makeError(ErrorKind::io, "cannot open the lock file {}: {}", path.string(),
                         std::strerror(errno));
    if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
        const int err = errno;
        char buffer[32] = {};
        const ssize_t got = ::pread(fd, buffer, sizeof buffer - 1, 0);
        ::close(fd);
        if (err != EWOULDBLOCK)
            return makeError(ErrorKind::io, "cannot lock {}: {}", path.string(),
                             std::strerror(err));
        std::string holder(buffer, got > 0 ? size_t(got) : 0);
        while (!holder.empty() && (holder.back() == '\n' || holder.back() == ' '))
            holder.pop_back();
        return makeError(ErrorKind::io,
                         "another {} holds the lock {} (pid {}); wait for it to finish", what,
                         path.string(), holder.empty() ? std::string("unknown") : holder);
    }
    const std::string pid = std::to_string(::getpid()) + "\n";
    if (::ftruncate(fd, 0) != 0 || ::pwrite(fd, pid.data(), pid.size(), 0) < 0) {
        // The lock holds without the pid; only messages lose it.
    }
    std::unique_ptr<FileLock> lock(new FileLock());
    lock->fd_ = fd;
    return lock;
}

FileLock::~FileLock() {
    if (fd_ >= 0) ::close(fd_);  // closing drops the flock
}

Result<SpillFile> createSpillFile(const std::filesystem::path& folder, std::string_view prefix,
                                  std::string_view suffix) {
    static std::atomic<unsigned> counter{0};
    removeOrphanedTemporaries(folder, prefix);  // a killed process's
    SpillFile spill;
    spill.path = folder / fmt::format("{}{}-{}{}", prefix, ::getpid(), counter++, suffix);
    spill.fd = ::open(spill.path.c_str(), O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (spill.fd < 0)
        return makeError(ErrorKind::io, "cannot create a temporary file in '{}': {}",
                         folder.string(), std::strerror(errno));
    return spill;
}

struct SpillStore::State {
    std::mutex mutex;
    uint64_t end = 0;
};

Result<std::unique_ptr<SpillStore>> SpillStore::beside(const std::filesystem::path& output,
                                                       std::string_view what) {
    const std::filesystem::path folder =
        output.parent_path().empty() ? std::filesystem::path(".") : output.parent_path();
    auto file = createSpillFile(folder, fmt::format(".{}.{}-", output.filename().string(), what));
    if (!file) return file.error();
    std::unique_ptr<SpillStore> store(new SpillStore());
    store->file_ = *file;
    store->state_ = std::make_unique<State>();
    return store;
}

SpillStore::~SpillStore() {
    if (file_.fd >= 0) ::close(file_.fd);
    std::error_code ec;
    if (!file_.path.empty()) std::filesystem::remove(file_.path, ec);
}

Status SpillStore::append(std::span<const uint8_t> bytes, uint64_t& offset) {
    {
        std::lock_guard lock(state_->mutex);
        offset = state_->end;
        state_->end += bytes.size();
    }
    return writeAt(file_.fd, bytes.data(), bytes.size(), offset, file_.path);
}

Status SpillStore::read(uint64_t offset, uint8_t* out, size_t size) const {
    return readAt(file_.fd, out, size, offset, file_.path);
}

uint64_t SpillStore::size() const {
    std::lock_guard lock(state_->mutex);
    return state_->end;
}

Status readAt(int fd, uint8_t* out, size_t size, uint64_t offset,
              const std::filesystem::path& path) {
    for (size_t done = 0; done < size;) {
        const ssize_t n = ::pread(fd, out + done, size - done, off_t(offset + done));
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0)
            return makeError(ErrorKind::io, "{}: read failed at byte {}: {}", path.string(),
                             offset + done, n < 0 ? std::strerror(errno) : "the file ends");
        done += size_t(n);
    }
    return {};
}

Status writeAt(int fd, const uint8_t* bytes, size_t size, uint64_t offset,
               const std::filesystem::path& path) {
    for (size_t done = 0; done < size;) {
        const ssize_t n = ::pwrite(fd, bytes + done, size - done, off_t(offset + done));
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0)
            return makeError(ErrorKind::io, "{}: write failed: {}", path.string(),
                             std::strerror(n < 0 ? errno : ENOSPC));
        done += size_t(n);
    }
    return {};
}

Status writeAll(int fd, std::span<const uint8_t> bytes, const std::filesystem::path& path) {
    size_t written = 0;
    while (written < bytes.size()) {
        const ssize_t n = ::write(fd, bytes.data() + written, bytes.size() - written);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0)
            return makeError(ErrorKind::io, "{}: write failed: {}", path.string(),
                             std::strerror(n < 0 ? errno : ENOSPC));
        written += size_t(n);
    }
    return {};
}

Status writeFileAtomicBy(const std::filesystem::path& path,
                         const std::function<Status(int fd)>& write) {
    static std::atomic<unsigned> counter{0};
    const std::filesystem::path folder =
        path.has_parent_path() ? path.parent_path() : std::filesystem::path(".");
    const std::filesystem::path temp =
        folder / fmt::format(".{}.tmp-{}-{}", path.filename().string(), ::getpid(), counter++);
    const int fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0)
        return makeError(ErrorKind::io, "{}: cannot create temporary file in '{}': {}",
                         path.string(), folder.string(), std::strerror(errno));
    if (Status s = write(fd); !s) {
        ::close(fd);
        ::unlink(temp.c_str());
        return s;
    }
    if (::fsync(fd) != 0 || ::close(fd) != 0) {
        const int saved = errno;
        ::unlink(temp.c_str());
        return makeError(ErrorKind::io, "{}: flushing to disk failed: {}", path.string(),
                         std::strerror(saved));
    }
    if (::rename(temp.c_str(), path.c_str()) != 0) {
        const int saved = errno;
        ::unlink(temp.c_str());
        return makeError(ErrorKind::io, "{}: cannot move the finished file into place: {}",
                         path.string(), std::strerror(saved));
    }
    return {};
}

Status writeFileAtomic(const std::filesystem::path& path, std::span<const uint8_t> bytes) {
    return writeFileAtomicBy(path, [&](int fd) { return writeAll(fd, bytes, path); });
}

Error containerError(const std::filesystem::path& path, const formats::Error& error) {
    std::string where = fmt::format("{}: byte {}", path.string(), error.offset);
    if (error.section != 0) {
        char name[5];
        formats::fourccToString(error.section, name);
        where += fmt::format(" (section '{}')", name);
    }
    return makeError(ErrorKind::bad_input, "{}: {} [{}]", where, error.message,
                     formats::errorName(error.code));
}

Result<uint64_t> LoadedContainer::rawSize(uint32_t id) const {
    const int index = container.find(id);
    if (index < 0) {
        char name[5];
        formats::fourccToString(id, name);
        return makeError(ErrorKind::bad_input, "{}: required section '{}' is missing",
                         path.string(), name);
    }
    return container.sections[index].raw_size;
}

Status LoadedContainer::decodeInto(uint32_t id, uint8_t* out, size_t size) const {
    if (auto raw = rawSize(id); !raw) return raw.error();  // missing: named
    const formats::SectionEntry& entry = container.sections[container.find(id)];
    if (entry.offset + entry.stored_size > bytes.size()) {  // a head's tail (loadContainerHead)
        char name[5];
        formats::fourccToString(id, name);
        return makeError(ErrorKind::internal, "{}: section '{}' was left on disk", path.string(),
                         name);
    }
    if (formats::Error error = formats::decodeSection(bytes.data(), entry, out, size))
        return containerError(path, error);
    return {};
}

Result<std::vector<uint8_t>> LoadedContainer::section(uint32_t id) const {
    return array<uint8_t>(id);
}

Result<LoadedContainer> parseContainerBytes(std::vector<uint8_t> bytes,
                                            const std::filesystem::path& name, uint32_t kind,
                                            uint32_t max_kind_version) {
    LoadedContainer loaded;
    loaded.path = name;
    loaded.bytes = std::move(bytes);
    if (formats::Error error =
            formats::parseContainer(loaded.bytes.data(), loaded.bytes.size(), loaded.container))
        return containerError(name, error);
    if (kind != 0) {
        if (formats::Error error = formats::checkKind(loaded.container, kind, max_kind_version))
            return containerError(name, error);
    }
    return loaded;
}

Result<LoadedContainer> loadContainer(const std::filesystem::path& path, uint32_t kind,
                                      uint32_t max_kind_version) {
    auto bytes = readFile(path);
    if (!bytes) return bytes.error();
    return parseContainerBytes(std::move(bytes).value(), path, kind, max_kind_version);
}

Status saveContainer(const std::filesystem::path& path, const formats::ContainerWriter& writer) {
    std::vector<uint8_t> bytes;
    std::string error;
    if (!writer.finish(bytes, error))
        return makeError(ErrorKind::internal, "{}: {}", path.string(), error);
    return writeFileAtomic(path, bytes);
}

Status saveContainer(const std::filesystem::path& path, const formats::ContainerWriter& writer,
                     const std::vector<std::filesystem::path>& tails) {
    std::vector<uint8_t> head;
    std::string error;
    if (!writer.finish(head, error))
        return makeError(ErrorKind::internal, "{}: {}", path.string(), error);
    const std::vector<uint64_t> sizes = writer.tailSizes();
    if (sizes.size() != tails.size())
        return makeError(ErrorKind::internal, "{}: {} tails set, {} files given", path.string(),
                         sizes.size(), tails.size());
    return writeFileAtomicBy(path, [&](int fd) -> Status {
        if (Status s = writeAll(fd, head, path); !s) return s;
        uint64_t at = head.size();
        std::vector<uint8_t> chunk(size_t(1) << 20);
        for (size_t k = 0; k < tails.size(); ++k) {
            // Zero bytes up to the tail's aligned start (finish laid them out so).
            const uint64_t start = (at + formats::kSectionAlignment - 1) /
                                   formats::kSectionAlignment * formats::kSectionAlignment;
            if (start > at) {
                const uint8_t zeros[formats::kSectionAlignment] = {};
                if (Status s =
                        writeAll(fd, std::span<const uint8_t>(zeros, size_t(start - at)), path);
                    !s)
                    return s;
            }
            const int in = ::open(tails[k].c_str(), O_RDONLY | O_CLOEXEC);
            if (in < 0)
                return makeError(ErrorKind::io, "{}: cannot open: {}", tails[k].string(),
                                 std::strerror(errno));
            Status s;
            for (uint64_t done = 0; s && done < sizes[k];) {
                const ssize_t n = ::read(in, chunk.data(),
                                         size_t(std::min<uint64_t>(chunk.size(), sizes[k] - done)));
                if (n < 0 && errno == EINTR) continue;
                if (n <= 0) {
                    s = makeError(ErrorKind::io, "{}: read failed at byte {}: {}",
                                  tails[k].string(), done,
                                  n < 0 ? std::strerror(errno) : "the file ends");
                    break;
                }
                s = writeAll(fd, std::span<const uint8_t>(chunk.data(), size_t(n)), path);
                done += uint64_t(n);
            }
            ::close(in);
            if (!s) return s;
            at = start + sizes[k];
        }
        return Status{};
    });
}

Status checkContainerFile(const std::filesystem::path& path) {
    auto opened = openInput(path);
    if (!opened) return opened.error();
    std::error_code ec;
    const uint64_t file_size = std::filesystem::file_size(path, ec);
    if (ec)
        return makeError(ErrorKind::io, "{}: cannot read its size: {}", path.string(),
                         ec.message());
    std::vector<uint8_t> head(std::min<uint64_t>(file_size, formats::kHeaderSize));
    if (!opened->read(reinterpret_cast<char*>(head.data()), std::streamsize(head.size())))
        return makeError(ErrorKind::io, "{}: read failed", path.string());
    if (head.size() == formats::kHeaderSize) {
        const uint32_t count =
            std::min<uint32_t>(formats::loadLe32(head.data() + 20), formats::kMaxSections);
        const uint64_t end = std::min<uint64_t>(
            file_size, formats::kHeaderSize + uint64_t(count) * formats::kSectionEntrySize);
        const size_t at = head.size();
        head.resize(size_t(end));
        if (!opened->read(reinterpret_cast<char*>(head.data() + at), std::streamsize(end - at)))
            return makeError(ErrorKind::io, "{}: read failed", path.string());
    }
    formats::Container table;
    if (formats::Error error =
            formats::parseContainerTable(head.data(), head.size(), file_size, table))
        return containerError(path, error);
    return {};
}

Result<std::unique_ptr<FileBytes>> FileBytes::open(const std::filesystem::path& path) {
    std::unique_ptr<FileBytes> bytes(new FileBytes());
    bytes->file_ = std::fopen(path.c_str(), "rb");
    if (bytes->file_ == nullptr)
        return makeError(ErrorKind::io, "{}: cannot open it: {}", path.string(),
                         std::strerror(errno));
    return bytes;
}

FileBytes::~FileBytes() {
    if (file_ != nullptr) std::fclose(file_);
}

bool FileBytes::read(uint64_t offset, uint8_t* dst, size_t size) {
    if (fseeko(file_, off_t(offset), SEEK_SET) != 0) return false;
    return std::fread(dst, 1, size, file_) == size;
}

Result<LoadedContainer> loadContainerHead(const std::filesystem::path& path, uint32_t kind,
                                          uint32_t max_kind_version, uint32_t tail_sections) {
    auto opened = openInput(path);
    if (!opened) return opened.error();
    std::ifstream& in = *opened;
    std::error_code ec;
    const uint64_t file_size = std::filesystem::file_size(path, ec);
    if (ec)
        return makeError(ErrorKind::io, "{}: cannot read its size: {}", path.string(),
                         ec.message());
    // The header and table first (their sizes are in the header), then up to the last section.
    LoadedContainer loaded;
    loaded.path = path;
    auto readTo = [&](uint64_t end) -> Status {
        end = std::min(end, file_size);
        const size_t at = loaded.bytes.size();
        if (end <= at) return {};
        loaded.bytes.resize(size_t(end));
        if (!in.read(reinterpret_cast<char*>(loaded.bytes.data() + at), std::streamsize(end - at)))
            return makeError(ErrorKind::io, "{}: read failed", path.string());
        return {};
    };
    if (Status s = readTo(formats::kHeaderSize); !s) return s.error();
    uint64_t head = formats::kHeaderSize;
    if (loaded.bytes.size() == formats::kHeaderSize) {
        const uint32_t count = formats::loadLe32(loaded.bytes.data() + 20);
        head +=
            uint64_t(std::min<uint32_t>(count, formats::kMaxSections)) * formats::kSectionEntrySize;
        if (Status s = readTo(head); !s) return s.error();
        if (count > 0 && count <= formats::kMaxSections && tail_sections >= 1 &&
            tail_sections <= count &&
            loaded.bytes.size() ==
                head) {  // the tail's first entry's offset (checked by the parse)
            const uint8_t* last = loaded.bytes.data() + formats::kHeaderSize +
                                  size_t(count - tail_sections) * formats::kSectionEntrySize;
            head = std::max(head, formats::loadLe64(last + 8));
            if (Status s = readTo(head); !s) return s.error();
        }
    }
    if (formats::Error error = formats::parseContainerHead(
            loaded.bytes.data(), loaded.bytes.size(), file_size, loaded.container, tail_sections))
        return containerError(path, error);
    if (kind != 0)
        if (formats::Error error = formats::checkKind(loaded.container, kind, max_kind_version))
            return containerError(path, error);
    return loaded;
}

Status saveTableContainer(const std::filesystem::path& path, uint32_t kind, uint32_t kind_version,
                          const std::function<void(formats::ContainerWriter&)>& add) {
    formats::ContainerWriter writer(kind, kind_version);
    writer.setCompressionLevel(19);
    add(writer);
    return saveContainer(path, writer);
}

}  // namespace nav
