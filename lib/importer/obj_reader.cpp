// Streaming Wavefront OBJ reader (see obj_reader.h). Two steps, on two threads where there are
// two: a tokenizer reads the file in chunks of whole lines and parses their numbers in place with
// std::from_chars (positions; face indices resolved and range-checked; names; the first error),
// and the parser builds the scene from those tokens in file order (objects, meshes, triangulation,
// the sink). The tokens of a chunk are a few hundred KiB; two chunks' are alive at most.
#include "lib/importer/obj_reader.h"

#include <algorithm>
#include <array>
#include <atomic>
#include <charconv>
#include <cmath>
#include <condition_variable>
#include <cstdio>
#include <cstring>
#include <memory>
#include <mutex>
#include <thread>

#if defined(__unix__)
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#endif

#include "lib/common/file_io.h"
#include "lib/common/parallel.h"

namespace nav::importer {

namespace {

bool isSpace(char c) { return c == ' ' || c == '\t' || c == '\r'; }

// What the tokenizer makes of one chunk of whole lines, in file order: runs of positions, faces
// and polylines (their corners resolved to 0-based indices and checked), object, group and
// material names; an error ends the tokens (nothing after it is read).
struct Tokens {
    enum class Kind : uint8_t { vertices, face, line, object, group, material };
    struct Item {
        Kind kind;
        uint32_t count;  // vertices: positions; face, line: corners; names: characters
    };
    std::vector<Item> items;
    std::vector<float> positions;  // 3 per position
    std::vector<uint32_t> corners;
    std::string names;
    bool failed = false;  // `error` follows the items
    Error error;
    bool end = false;  // the file ended after these
    uint64_t bytes_read = 0, file_size = 0;

    void clear() {
        items.clear();
        positions.clear();
        corners.clear();
        names.clear();
        failed = false;
        end = false;
    }
};

class Tokenizer {
public:
    explicit Tokenizer(const std::filesystem::path& path)
        : path_(path), file_(path.string()), in_(nullptr, std::fclose) {}

    // Tokenizes the next chunk of whole lines into `out` (cleared first).
    void next(Tokens& out) {
        out.clear();
        if (!opened_) {
            opened_ = true;
            in_.reset(std::fopen(file_.c_str(), "rb"));
            if (!in_) return fail(out, makeError(ErrorKind::io, "{}: cannot open", file_));
            std::error_code ec;
            file_size_ = std::filesystem::file_size(path_, ec);
            if (ec) file_size_ = 0;
            buffer_.resize(kChunk);
        }
        const size_t got = std::fread(buffer_.data() + kept_, 1, buffer_.size() - kept_, in_.get());
        const size_t filled = kept_ + got;
        bytes_read_ += got;
        out.bytes_read = bytes_read_;
        out.file_size = file_size_;
        const bool last = got == 0 || std::feof(in_.get());
        size_t start = 0;
        while (start < filled) {
            const void* nl = std::memchr(buffer_.data() + start, '\n', filled - start);
            if (nl == nullptr && !last) break;  // an incomplete line: read more
            const size_t stop =
                nl != nullptr ? size_t(static_cast<const char*>(nl) - buffer_.data()) : filled;
            if (Status s = line(buffer_.data() + start, buffer_.data() + stop, ++number_, out); !s)
                return fail(out, s.error());
            start = stop + 1;
        }
        if (std::ferror(in_.get()))
            return fail(out, makeError(ErrorKind::io, "{}: read error", file_));
        if (last) {
            out.end = true;
            return;
        }
        kept_ = filled - std::min(start, filled);
        std::memmove(buffer_.data(), buffer_.data() + (filled - kept_), kept_);
        if (kept_ == buffer_.size()) buffer_.resize(2 * buffer_.size());  // a line longer than it
    }

private:
    // 128 KiB of text a chunk: against 256 KiB, import peak -0.8 MiB on city4 and -0.7 on city8 at
    // the same speed (64 KiB: -1.1 MiB, 3-5% slower).
    static constexpr size_t kChunk = size_t(1) << 17;

    void fail(Tokens& out, Error error) {
        out.failed = true;
        out.error = std::move(error);
        out.end = true;
    }

    Status line(const char* p, const char* end, size_t number, Tokens& out) {
        while (p < end && isSpace(*p)) ++p;
        if (p == end || *p == '#') return {};
        const char* word = p;
        while (p < end && !isSpace(*p)) ++p;
        const std::string_view keyword(word, size_t(p - word));
        if (keyword == "v") return vertex(p, end, number, out);
        if (keyword == "f" || keyword == "l")
            return face(p, end, number, keyword == "l" ? Tokens::Kind::line : Tokens::Kind::face,
                        out);
        if (keyword == "o") return name(Tokens::Kind::object, p, end, out);
        if (keyword == "g") return name(Tokens::Kind::group, p, end, out);
        if (keyword == "usemtl") return name(Tokens::Kind::material, p, end, out);
        return {};  // vt, vn, s, mtllib, ...: not used
    }

    static Status name(Tokens::Kind kind, const char* p, const char* end, Tokens& out) {
        while (p < end && isSpace(*p)) ++p;
        while (end > p && isSpace(end[-1])) --end;
        out.items.push_back({kind, uint32_t(end - p)});
        out.names.append(p, size_t(end - p));
        return {};
    }

    Status vertex(const char* p, const char* end, size_t number, Tokens& out) {
        float xyz[3];
        for (float& value : xyz) {
            while (p < end && isSpace(*p)) ++p;
            const auto [next, ec] = std::from_chars(p, end, value);
            if (ec != std::errc())
                return inputError("{}:{}: a vertex needs three numbers ('v X Y Z')", file_, number);
            p = next;
        }
        out.positions.insert(out.positions.end(), xyz, xyz + 3);
        if (out.items.empty() || out.items.back().kind != Tokens::Kind::vertices)
            out.items.push_back({Tokens::Kind::vertices, 0});
        ++out.items.back().count;
        ++positions_;
        return {};
    }

    Status face(const char* p, const char* end, size_t number, Tokens::Kind kind, Tokens& out) {
        const long long count = (long long)positions_;
        uint32_t corners = 0;
        while (true) {
            while (p < end && isSpace(*p)) ++p;
            if (p == end) break;
            long long index = 0;
            const auto [next, ec] = std::from_chars(p, end, index);
            if (ec != std::errc())
                return inputError("{}:{}: '{}' is not a vertex index", file_, number,
                                  std::string(p, size_t(std::min<ptrdiff_t>(end - p, 20))));
            const long long resolved = index < 0 ? count + index : index - 1;
            if (index == 0 || resolved < 0 || resolved >= count)
                return inputError("{}:{}: vertex index {} is out of range ({} vertices so far)",
                                  file_, number, index, count);
            out.corners.push_back(uint32_t(resolved));
            ++corners;
            p = next;
            while (p < end && !isSpace(*p)) ++p;  // /texture/normal
        }
        out.items.push_back({kind, corners});
        return {};
    }

    std::filesystem::path path_;
    std::string file_;
    std::unique_ptr<FILE, int (*)(FILE*)> in_;
    bool opened_ = false;
    uint64_t file_size_ = 0, bytes_read_ = 0;
    std::vector<char> buffer_;
    size_t kept_ = 0, number_ = 0;
    uint64_t positions_ = 0;
};

class Parser {
public:
    Parser(std::string file, ObjSink* sink) : file_(std::move(file)), sink_(sink) {}

    // The scene from one chunk's tokens, in order; their error, if any, at its place.
    Status consume(const Tokens& tokens) {
        const float* positions = tokens.positions.data();
        const uint32_t* corners = tokens.corners.data();
        const char* names = tokens.names.data();
        for (const Tokens::Item& item : tokens.items) {
            Status s;
            switch (item.kind) {
                case Tokens::Kind::vertices:
                    s = scene_.positions.append(positions, item.count);
                    positions += 3 * size_t(item.count);
                    break;
                case Tokens::Kind::face:
                case Tokens::Kind::line:
                    corners_.assign(corners, corners + item.count);
                    corners += item.count;
                    s = face(item.kind == Tokens::Kind::line);
                    break;
                default: {
                    std::string name(names, item.count);
                    names += item.count;
                    s = flush();
                    if (s) s = named(item.kind, std::move(name));
                }
            }
            if (!s) return s;
        }
        if (Status s = flush(); !s) return s;
        if (tokens.failed) return tokens.error;
        return {};
    }

    Status named(Tokens::Kind kind, std::string name) {
        if (kind == Tokens::Kind::object) return startObject(std::move(name));
        if (kind == Tokens::Kind::group) {
            if (name != group_)
                if (Status s = startObject(name); !s) return s;
            group_ = std::move(name);
            return {};
        }
        material_ = std::move(name);  // usemtl
        if (!scene_.objects.empty()) {
            ObjObject& object = scene_.objects.back();
            if (object.meshes.empty()) return {};
            ObjMesh& mesh = object.meshes.back();
            if (mesh.empty()) {
                mesh.material = material_;
            } else if (mesh.material != material_) {
                if (Status s = meshDone(); !s) return s;
                object.meshes.push_back({material_, material_, {}, {}});
            }
        }
        return {};
    }

    // The file ended: the last mesh and object are complete.
    Status end() {
        if (Status s = flush(); !s) return s;
        return objectDone();
    }
    size_t meshesHandedOver() const { return handed_over_; }
    Status spillTo(const std::filesystem::path& folder) { return scene_.positions.spillTo(folder); }

    ObjScene take() {
        // Spare capacity back (up to half of each array after growth by doubling): the importer
        // builds the geometry beside these.
        scene_.positions.shrinkToFit();
        for (ObjObject& object : scene_.objects) {
            std::erase_if(object.meshes, [](const ObjMesh& m) { return m.empty(); });
            for (ObjMesh& mesh : object.meshes) {
                mesh.triangles.shrinkToFit();
                mesh.lines.shrinkToFit();
            }
        }
        return std::move(scene_);
    }

private:
    Status startObject(std::string name) {
        if (Status s = objectDone(); !s) return s;
        scene_.objects.push_back({name, {{name, material_, {}, {}}}});
        return {};
    }
    // The last mesh of the last object has all its faces: to the sink (when not empty).
    Status meshDone() {
        if (sink_ == nullptr || scene_.objects.empty()) return {};
        ObjObject& object = scene_.objects.back();
        if (object.meshes.empty()) return {};
        ObjMesh& mesh = object.meshes.back();
        if (mesh.empty()) return {};
        ++handed_over_;
        ++object_meshes_;
        return sink_->mesh(scene_, object, mesh);
    }
    // The last object has all its meshes.
    Status objectDone() {
        if (sink_ == nullptr || scene_.objects.empty()) return {};
        if (Status s = meshDone(); !s) return s;
        // The sink sees meshes only if one was handed over (it may have emptied them).
        ObjObject& object = scene_.objects.back();
        if (object_meshes_ == 0) object.meshes.clear();
        object_meshes_ = 0;
        return sink_->object(scene_, object);
    }

    // The face (or polyline) in corners_.
    Status face(bool line) {
        if (scene_.objects.empty())
            if (Status s = startObject("defaultobject"); !s) return s;
        ObjObject& object = scene_.objects.back();
        ObjMesh& mesh = object.meshes.back();
        if (line || corners_.size() == 2) {  // a polyline: one segment per pair of points
            for (size_t k = 1; k < corners_.size(); ++k)
                mesh.lines.push({corners_[k - 1], corners_[k]});
            return {};
        }
        if (sink_ != nullptr && !mesh.direct && mesh.triangles.empty())
            mesh.direct = sink_->direct(scene_, object, mesh);
        if (!mesh.direct) {
            triangulate(mesh.triangles);
            return {};
        }
        const size_t before = face_.values.size();
        triangulate(face_);
        mesh.direct_triangles += (face_.values.size() - before) / 3;
        return face_.values.size() >= kBatch ? flush() : Status{};
    }

    // The triangles of the current mesh not yet handed to the sink, to it (in batches: it can
    // look ahead at the positions they use).
    static constexpr size_t kBatch = 3 * 512;
    Status flush() {
        if (face_.values.empty()) return {};
        Status s = sink_->triangles(scene_, scene_.objects.back().meshes.back(), face_.values);
        face_.values.clear();
        return s;
    }

    // The triangles of direct meshes' faces, for flush.
    struct FaceTriangles {
        std::vector<uint32_t> values;
        void push(std::initializer_list<uint32_t> list) {
            values.insert(values.end(), list.begin(), list.end());
        }
    };

    // Triangles of the face in corners_, as Assimp's Triangulate step makes them for triangles
    // and quads (a quad is fanned from its concave corner, if any); larger polygons by ear
    // clipping in the plane their normal is closest to, so concave ones stay inside their
    // outline (Assimp clips ears too, not always the same ones: the same surface).
    template <class Out>
    void triangulate(Out& out) const {
        const size_t n = corners_.size();
        if (n < 3) return;
        auto at = [&](size_t k) {
            const std::array<float, 3> p = scene_.positions.at(corners_[k % n]);
            return std::array<double, 3>{p[0], p[1], p[2]};
        };
        if (n == 3) {
            out.push({corners_[0], corners_[1], corners_[2]});
            return;
        }
        if (n == 4) {
            size_t start = 0;
            for (size_t i = 0; i < 4; ++i) {
                const auto v = at(i);
                auto unit = [&](const std::array<double, 3>& a) {
                    std::array<float, 3> d{float(a[0] - v[0]), float(a[1] - v[1]),
                                           float(a[2] - v[2])};
                    const float len = std::sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
                    if (len > 0)
                        for (float& c : d) c /= len;
                    return d;
                };
                const auto left = unit(at(i + 3)), diag = unit(at(i + 2)), right = unit(at(i + 1));
                auto dot = [](const std::array<float, 3>& a, const std::array<float, 3>& b) {
                    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];  // acos(> 1): NaN, not concave
                };
                if (std::acos(dot(left, diag)) + std::acos(dot(right, diag)) > 3.14159265f) {
                    start = i;  // the concave corner
                    break;
                }
            }
            const uint32_t c[4] = {corners_[0], corners_[1], corners_[2], corners_[3]};
            out.push({c[start], c[(start + 1) % 4], c[(start + 2) % 4], c[start],
                      c[(start + 2) % 4], c[(start + 3) % 4]});
            return;
        }
        // Ear clipping on the projection that drops the normal's (Newell's) largest axis.
        double normal[3] = {0, 0, 0};
        for (size_t k = 0; k < n; ++k) {
            const auto a = at(k), b = at(k + 1);
            normal[0] += (a[1] - b[1]) * (a[2] + b[2]);
            normal[1] += (a[2] - b[2]) * (a[0] + b[0]);
            normal[2] += (a[0] - b[0]) * (a[1] + b[1]);
        }
        const int drop = std::fabs(normal[0]) > std::fabs(normal[1])
                             ? (std::fabs(normal[0]) > std::fabs(normal[2]) ? 0 : 2)
                             : (std::fabs(normal[1]) > std::fabs(normal[2]) ? 1 : 2);
        const int u = drop == 0 ? 1 : 0, w = drop == 2 ? 1 : 2;
        double area2 = 0;  // twice the projection's signed area: its orientation
        for (size_t k = 0; k < n; ++k) {
            const auto a = at(k), b = at(k + 1);
            area2 += a[size_t(u)] * b[size_t(w)] - b[size_t(u)] * a[size_t(w)];
        }
        const double sign = area2 >= 0 ? 1 : -1;
        auto turn = [&](size_t a, size_t b, size_t c) {
            const auto pa = at(a), pb = at(b), pc = at(c);
            return sign * ((pb[size_t(u)] - pa[size_t(u)]) * (pc[size_t(w)] - pa[size_t(w)]) -
                           (pb[size_t(w)] - pa[size_t(w)]) * (pc[size_t(u)] - pa[size_t(u)]));
        };
        std::vector<size_t> ring(n);
        for (size_t k = 0; k < n; ++k) ring[k] = k;
        while (ring.size() > 3) {
            bool clipped = false;
            for (size_t i = 0; i < ring.size() && !clipped; ++i) {
                const size_t a = ring[(i + ring.size() - 1) % ring.size()], b = ring[i],
                             c = ring[(i + 1) % ring.size()];
                if (turn(a, b, c) <= 0) continue;  // reflex or flat: not an ear
                bool inside = false;
                for (size_t p : ring)
                    inside = inside || (p != a && p != b && p != c && turn(a, b, p) >= 0 &&
                                        turn(b, c, p) >= 0 && turn(c, a, p) >= 0);
                if (inside) continue;
                out.push({corners_[a], corners_[b], corners_[c]});
                ring.erase(ring.begin() + ptrdiff_t(i));
                clipped = true;
            }
            if (!clipped) break;  // a self-touching outline: fan what is left
        }
        for (size_t k = 2; k < ring.size(); ++k)
            out.push({corners_[ring[0]], corners_[ring[k - 1]], corners_[ring[k]]});
    }

    std::string file_;
    ObjSink* sink_;  // null: the whole scene is kept
    size_t handed_over_ = 0;
    size_t object_meshes_ = 0;  // meshes of the last object handed over
    ObjScene scene_;
    std::string material_ = "DefaultMaterial";
    std::string group_;
    std::vector<uint32_t> corners_;
    FaceTriangles face_;
};

}  // namespace

namespace {

// Reads and parses the file. With `threads` > 1 the tokenizer runs on a thread of its own, at
// most one chunk ahead of the parser; else the two take turns on the calling thread. The same
// scene (and the same first error) either way.
Status parseFile(const std::filesystem::path& path, Parser& parser, ObjSink* sink, int threads) {
    Tokenizer tokenizer(path);
    auto handOver = [&](const Tokens& tokens) -> Status {
        if (sink != nullptr) sink->progress(tokens.bytes_read, tokens.file_size);
        return parser.consume(tokens);
    };
    if (threads <= 1) {
        Tokens tokens;
        do {
            tokenizer.next(tokens);
            if (Status s = handOver(tokens); !s) return s;
        } while (!tokens.end);
        return parser.end();
    }
    constexpr size_t kSlots = 2;
    std::array<Tokens, kSlots> slots;
    std::mutex mutex;
    std::condition_variable changed;
    size_t produced = 0, consumed = 0;
    bool stop = false;
    std::vector<std::thread> reader;
    reader.emplace_back([&] {
        for (size_t i = 0;; ++i) {
            {
                std::unique_lock lock(mutex);
                changed.wait(lock, [&] { return stop || i < consumed + kSlots; });
                if (stop) return;
            }
            Tokens& tokens = slots[i % kSlots];
            try {
                tokenizer.next(tokens);
            } catch (const std::bad_alloc&) {
                tokens.clear();
                tokens.failed = tokens.end = true;
                tokens.error = makeError(ErrorKind::internal, "{}: out of memory", path.string());
            }
            {
                std::lock_guard lock(mutex);
                produced = i + 1;
            }
            changed.notify_all();
            if (tokens.end) return;
        }
    });
    // The reader stops and is joined however the parser leaves (an error, an exception).
    const StopAndJoin join{reader, mutex, changed, stop};
    for (size_t i = 0;; ++i) {
        {
            std::unique_lock lock(mutex);
            changed.wait(lock, [&] { return i < produced; });
        }
        const Tokens& tokens = slots[i % kSlots];
        if (Status s = handOver(tokens); !s) return s;
        if (tokens.end) break;
        {
            std::lock_guard lock(mutex);
            consumed = i + 1;
        }
        changed.notify_all();
    }
    return parser.end();
}

// The newlines in [p, scan_end) that begin a `v` line ("\nv " or "\nv\t"), the bytes after them
// readable up to data_end.
uint64_t countPositionLines(const char* p, const char* scan_end, const char* data_end) {
    uint64_t n = 0;
    for (const char* nl;
         (nl = static_cast<const char*>(std::memchr(p, '\n', size_t(scan_end - p)))); p = nl + 1)
        if (data_end - nl > 2 && nl[1] == 'v' && isSpace(nl[2])) ++n;
    return n;
}

// The `v` lines of a regular file (0 for anything else, which cannot be read twice): a pass of
// memchr over the bytes, a few percent of parsing them — over the file mapped into memory where
// it can be (no copy of it), else read a chunk at a time.
uint64_t countPositions(const std::filesystem::path& path, int threads) {
    std::error_code ec;
    if (!std::filesystem::is_regular_file(path, ec)) return 0;
#if defined(__unix__)
    // Mapped a window of 4 MiB at a time (each with the two bytes after it, for a "\nv " across
    // its end): resident pages of a mapping count as the process's, so never the whole file. The
    // windows are counted on `threads` threads (the parser's and the tokenizer's are idle yet);
    // the sum does not depend on which counted what.
    if (const int fd = ::open(path.c_str(), O_RDONLY); fd >= 0) {
        struct stat st {};
        const bool opened = ::fstat(fd, &st) == 0;
        const uint64_t size = opened ? uint64_t(st.st_size) : 0;
        constexpr uint64_t kWindow = uint64_t(1) << 22;
        std::atomic<uint64_t> n{0};
        std::atomic<bool> mapped{opened};
        parallelFor(size_t((size + kWindow - 1) / kWindow), threads, [&](size_t window, int) {
            if (!mapped.load(std::memory_order_relaxed)) return;
            const uint64_t offset = uint64_t(window) * kWindow;
            const uint64_t own = std::min(kWindow, size - offset);
            const size_t length = size_t(std::min(own + 2, size - offset));
            void* at = ::mmap(nullptr, length, PROT_READ, MAP_PRIVATE, fd, off_t(offset));
            if (at == MAP_FAILED) {
                mapped = false;
                return;
            }
            const char* const bytes = static_cast<const char*>(at);
            // The file begins a line; a window's first line is counted with the one before.
            uint64_t here = 0;
            if (offset == 0 && length >= 2 && bytes[0] == 'v' && isSpace(bytes[1])) ++here;
            here += countPositionLines(bytes, bytes + own, bytes + length);
            ::munmap(at, length);
            n += here;
        });
        ::close(fd);
        if (mapped) return n;
    }
#endif
    std::unique_ptr<FILE, int (*)(FILE*)> in(std::fopen(path.string().c_str(), "rb"), std::fclose);
    if (!in) return 0;
    // Each chunk is read after the last two bytes of the one before (a newline first: the file
    // begins a line), so "\nv " split across chunks is seen, each newline once.
    std::vector<char> buffer((size_t(1) << 20) + 2);
    buffer[0] = '\n';
    size_t carried = 1;
    uint64_t n = 0;
    while (true) {
        const size_t got =
            std::fread(buffer.data() + carried, 1, buffer.size() - carried, in.get());
        if (got == 0) break;
        const char* const end = buffer.data() + carried + got;
        n += countPositionLines(buffer.data(), end, end);
        carried = std::min<size_t>(2, carried + got);
        std::memmove(buffer.data(), end - carried, carried);
    }
    return n;
}

}  // namespace

ObjPositions::ObjPositions(ObjPositions&& other) noexcept { *this = std::move(other); }

ObjPositions& ObjPositions::operator=(ObjPositions&& other) noexcept {
    if (this == &other) return *this;
    if (fd_ >= 0) ::close(fd_);
    if (!spill_path_.empty()) {
        std::error_code ec;
        std::filesystem::remove(spill_path_, ec);
    }
    blocks_ = std::move(other.blocks_);
    first_block_ = other.first_block_;
    spilled_blocks_ = other.spilled_blocks_;
    count_ = other.count_;
    fd_ = std::exchange(other.fd_, -1);
    spill_path_ = std::exchange(other.spill_path_, {});
    cache_ = std::move(other.cache_);
    read_error_ = std::move(other.read_error_);
    return *this;
}

ObjPositions::~ObjPositions() {
    if (fd_ >= 0) ::close(fd_);
    if (!spill_path_.empty()) {
        std::error_code ec;
        std::filesystem::remove(spill_path_, ec);
    }
}

Status ObjPositions::spillTo(const std::filesystem::path& folder) {
    auto spill = createSpillFile(folder, ".positions-", ".tmp");
    if (!spill) return spill.error();
    fd_ = spill->fd;
    spill_path_ = std::move(spill->path);
    cache_.assign(kCachedChunks, Chunk{});
    return {};
}

Status ObjPositions::append(const float* xyz, size_t n) {
    while (n > 0) {
        const size_t at = size_t(count_ % kBlock);
        if (at == 0) {
            blocks_.push_back(std::make_unique_for_overwrite<float[]>(3 * kBlock));
            // Spilling: the oldest whole block out once more than kResident are held.
            if (fd_ >= 0 && blocks_.size() > kResident) {
                const size_t size = 3 * kBlock * sizeof(float);
                if (Status s = writeAt(fd_, reinterpret_cast<const uint8_t*>(blocks_.front().get()),
                                       size, spilled_blocks_ * size, spill_path_);
                    !s)
                    return s;
                blocks_.erase(blocks_.begin());
                ++first_block_;
                ++spilled_blocks_;
            }
        }
        const size_t take = std::min(n, kBlock - at);
        std::memcpy(blocks_.back().get() + 3 * at, xyz, 3 * take * sizeof(float));
        xyz += 3 * take;
        n -= take;
        count_ += take;
    }
    return {};
}

std::array<float, 3> ObjPositions::spilledAt(uint64_t i) const {
    const uint64_t number = i / kChunk;
    Chunk& chunk = cache_[size_t(number % kCachedChunks)];
    if (chunk.number != number) {
        chunk.values.resize(3 * kChunk);
        const size_t size = 3 * kChunk * sizeof(float);
        if (Status s = readAt(fd_, reinterpret_cast<uint8_t*>(chunk.values.data()), size,
                              number * size, spill_path_);
            !s) {
            if (read_error_) read_error_ = s;
            std::fill(chunk.values.begin(), chunk.values.end(), 0.0f);
        }
        chunk.number = number;
    }
    const float* p = chunk.values.data() + 3 * (i % kChunk);
    return {p[0], p[1], p[2]};
}

void ObjPositions::shrinkToFit() {
    if (blocks_.empty() || count_ % kBlock == 0) return;
    const size_t used = size_t(count_ % kBlock);
    auto last = std::make_unique_for_overwrite<float[]>(3 * used);
    std::memcpy(last.get(), blocks_.back().get(), 3 * used * sizeof(float));
    blocks_.back() = std::move(last);
}

Result<ObjScene> readObj(const std::filesystem::path& path) {
    Parser parser(path.string(), nullptr);
    if (Status s = parseFile(path, parser, nullptr, resolveThreads(0)); !s) return s.error();
    return parser.take();
}

Result<size_t> readObj(const std::filesystem::path& path, ObjSink& sink, int threads) {
    const uint64_t positions = countPositions(path, resolveThreads(threads));
    if (positions > 0) sink.expectPositions(positions);
    Parser parser(path.string(), &sink);
    if (const std::filesystem::path folder = sink.spillFolder(); !folder.empty())
        if (Status s = parser.spillTo(folder); !s) return s.error();
    if (Status s = parseFile(path, parser, &sink, resolveThreads(threads)); !s) return s.error();
    return parser.meshesHandedOver();
}

}  // namespace nav::importer
