// agentkit/format/artifacts.hpp — where large things go: the artifact_sink concept and an
// in-memory store.
//
// Budgets never silently drop data: when a result is cut, the full text can be parked in an
// artifact sink and the cut result names the artifact id. Screenshots and logs live there too
// (large things out of band: results carry ids and counts, never the bytes).
//
//   agentkit::bounded_artifacts store;                 // thread-safe, bounded; memory or a directory
//   auto ref = store.put({"text/plain", "page text", "full text of https://...", big_string});
//   // ref->id == "a1", ref->uri == "agentkit://artifacts/a1"
//   auto blob = store.get("a1");                        // std::optional<artifact_blob>
//   auto part = store.read("a1", {.offset = 6000});     // a slice, for an artifact-reading tool
//
// Any type with `put(artifact_blob) -> result<artifact_ref>` is a sink; a browser's screenshot
// store, a disk store or an MCP resource registry can implement it. Components that only need
// to write take an `artifact_sink_ref` (non-owning, type-erased).
#pragma once

#include <agentkit/core/base64.hpp>
#include <agentkit/core/result.hpp>
#include <agentkit/core/strings.hpp>
#include <agentkit/tools/output.hpp>

#include <atomic>
#include <cctype>
#include <concepts>
#include <cstddef>
#include <deque>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <unistd.h>  // getpid

namespace agentkit {

/// One artifact's payload and labels.
struct artifact_blob {
    std::string mime_type;    ///< "text/plain", "image/png", ...
    std::string name;         ///< short human name ("page text", "screenshot 3")
    std::string description;  ///< one line: what it is
    std::string data;         ///< the bytes (base64 for images that arrived as base64)
    bool base64 = false;      ///< true when `data` is base64-encoded binary
};

/// Anything that accepts artifacts and answers with a reference.
template <class S>
concept artifact_sink = requires(S& s, artifact_blob b) {
    { s.put(std::move(b)) } -> std::same_as<result<artifact_ref>>;
};

/// A sink that can also hand artifacts back (what a `get_artifact` tool needs).
template <class S>
concept artifact_store = artifact_sink<S> && requires(const S& cs, std::string_view id) {
    { cs.get(id) } -> std::same_as<std::optional<artifact_blob>>;
    { cs.list() } -> std::convertible_to<std::vector<artifact_ref>>;
};

/// Bounds and location of a bounded_artifacts.
struct store_options {
    std::size_t max_count = 200;                 ///< artifacts kept at once
    std::size_t max_bytes = 64U * 1024U * 1024U;  ///< bytes kept at once (payload bytes)
    std::string dir{};    ///< empty: in memory; else a per-session subdirectory of this directory
    bool keep = false;  ///< keep the directory's files after the store is destroyed
    std::string uri_prefix = "agentkit://artifacts/";  ///< artifact URIs are this prefix and the id
};

/// An artifact that was evicted to stay within the bounds.
struct eviction {
    std::string id;        ///< the evicted artifact's id
    std::string name;      ///< its name
    std::size_t size = 0;  ///< its size in bytes
};

/// What a read returns: a slice of a text artifact (or the whole of a binary one).
struct artifact_slice {
    artifact_ref ref;         ///< the artifact read
    std::string text;         ///< the slice (text artifacts)
    std::size_t offset = 0;   ///< where it starts
    std::size_t total = 0;    ///< the artifact's size
    std::size_t next = 0;     ///< offset of the rest (== total when nothing is left)
    bool binary = false;      ///< base64 payload in `text` (images)
};

/// Which slice of a text artifact read() returns.
struct read_options {
    std::size_t offset = 0;  ///< where the slice starts, in bytes of the text
    std::size_t length = 20000;  ///< the longest slice returned
    std::string section{};  ///< start at the first line containing this text (instead of offset)
};

namespace store_detail {

inline std::string ext_of(std::string_view mime) {
    if (mime == "image/png") return ".png";
    if (mime == "image/jpeg") return ".jpg";
    if (mime == "application/json") return ".json";
    if (mime.rfind("text/", 0) == 0) return ".txt";
    return ".bin";
}

inline std::string safe_name(std::string_view n) {
    std::string o;
    for (char c : n) o += (std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_') ? c : '-';
    if (o.size() > 40) o.resize(40);
    return o;
}

}  // namespace store_detail

/// The artifact store: bounded by count and bytes (oldest evicted first; evictions are reported
/// once through take_evictions()), readable by slices (read(id, {offset, length} or {section})).
/// In memory by default; with `dir` each artifact is a file (0600) in a fresh per-session
/// subdirectory (0700) of it (images decoded to binary files), removed with the store unless
/// `keep`. Thread-safe.
///
///   agentkit::bounded_artifacts store{{.max_count = 100, .max_bytes = 32 << 20}};
///   auto ref = store.put({"text/plain", "snapshot", "full snapshot", text, false});
///   auto part = store.read(ref->id, {.offset = 6000, .length = 4000});   // or {.section = "Results"}
class bounded_artifacts {
public:
    /// An empty store with these options (its directory is made with the first artifact).
    explicit bounded_artifacts(store_options o = {}) : opt_(std::move(o)) {}
    bounded_artifacts(const bounded_artifacts&) = delete;
    bounded_artifacts& operator=(const bounded_artifacts&) = delete;
    ~bounded_artifacts() { clear(); }

    /// Store an artifact (evicting the oldest to stay within the bounds).
    [[nodiscard]] result<artifact_ref> put(artifact_blob b) { return store(std::move(b), {}); }

    /// Store an artifact under `id` (one a restored conversation refers to: agent_session::restore),
    /// replacing one of that id; artifacts put later get ids after it.
    [[nodiscard]] result<artifact_ref> put_as(std::string_view id, artifact_blob b) {
        if (id.empty()) return fail(errc::args_invalid, "an artifact id cannot be empty");
        return store(std::move(b), std::string(id));
    }

private:
    [[nodiscard]] result<artifact_ref> store(artifact_blob b, std::string id) {
        std::optional<std::string> bin;
        std::size_t bytes = b.data.size();
        if (!opt_.dir.empty() && b.base64) {
            bin = base64_decode(b.data);
            if (bin) bytes = bin->size();
        }
        if (bytes > opt_.max_bytes)
            return fail(errc::budget_exceeded, "artifact of " + std::to_string(bytes) + " bytes exceeds the store's limit of " +
                                                   std::to_string(opt_.max_bytes) + " bytes");
        std::lock_guard lock(mu_);
        if (!id.empty()) {
            if (auto old = items_.find(id); old != items_.end()) {  // replaced: gone from the bounds too
                used_ -= std::min(used_, old->second.charged);
                if (!old->second.file.empty()) {
                    std::error_code ec;
                    std::filesystem::remove(old->second.file, ec);
                }
                items_.erase(old);
                std::erase(order_, id);
            }
            if (id.size() > 1 && id[0] == 'a' && id.find_first_not_of("0123456789", 1) == std::string::npos && id.size() < 19)
                next_ = std::max<std::size_t>(next_, std::stoull(id.substr(1)));
        }
        while (!order_.empty() && (used_ + bytes > opt_.max_bytes || order_.size() + 1 > std::max<std::size_t>(1, opt_.max_count)))
            evict_oldest();
        entry e;
        e.ref.id = id.empty() ? "a" + std::to_string(++next_) : std::move(id);
        e.ref.uri = opt_.uri_prefix + e.ref.id;
        e.ref.mime_type = b.mime_type;
        e.ref.name = b.name;
        e.ref.size = b.base64 && !bin ? base64_decoded_size(b.data) : bytes;  // the payload's bytes, not its base64 text's
        e.ref.description = b.description;
        e.base64 = b.base64;
        if (!opt_.dir.empty()) {
            auto d = session_dir();
            if (!d) return fail(d.error());
            e.file = (*d / (e.ref.id + "-" + store_detail::safe_name(b.name) + store_detail::ext_of(b.mime_type))).string();
            std::ofstream out(e.file, std::ios::binary | std::ios::trunc);
            const std::string& payload = bin ? *bin : b.data;
            out.write(payload.data(), static_cast<std::streamsize>(payload.size()));
            out.close();
            if (!out) return fail(errc::internal, "cannot write artifact file " + e.file);
            // the owner's only (screenshots and page text); the directory is already private
            std::error_code pec;
            std::filesystem::permissions(e.file, std::filesystem::perms::owner_read | std::filesystem::perms::owner_write,
                                         std::filesystem::perm_options::replace, pec);
            e.ref.uri = "file://" + e.file;
            e.base64_on_disk = !bin && b.base64;
            b.data.clear();
            b.data.shrink_to_fit();
        }
        e.blob = std::move(b);
        e.charged = bytes;
        used_ += bytes;
        order_.push_back(e.ref.id);
        auto ref = e.ref;
        items_.emplace(ref.id, std::move(e));
        return ref;
    }

public:

    /// The artifact with this id (read back from its file when on disk); nullopt when unknown or evicted.
    [[nodiscard]] std::optional<artifact_blob> get(std::string_view id) const {
        std::lock_guard lock(mu_);
        auto it = items_.find(std::string(id));
        if (it == items_.end()) return std::nullopt;
        artifact_blob b = it->second.blob;
        if (!it->second.file.empty()) {
            std::ifstream in(it->second.file, std::ios::binary);
            std::string data((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
            b.data = it->second.base64 && !it->second.base64_on_disk ? base64_encode(data) : std::move(data);
        }
        return b;
    }

    /// A slice of an artifact: text from an offset (or from the line holding `section`).
    [[nodiscard]] result<artifact_slice> read(std::string_view id, const read_options& o = {}) const {
        auto b = get(id);
        if (!b)
            return fail(errc::not_found, "no artifact " + std::string(id),
                        "Artifacts are named in the results that created them; old ones may have been evicted (the store keeps " +
                            (opt_.max_count == static_cast<std::size_t>(-1) ? std::string() : std::to_string(opt_.max_count) + " items / ") +
                            std::to_string(opt_.max_bytes / 1024) + " KB).");
        artifact_slice s;
        {
            std::lock_guard lock(mu_);  // it may have gone meanwhile (evicted, replaced)
            auto it = items_.find(std::string(id));
            if (it == items_.end()) return fail(errc::not_found, "artifact " + std::string(id) + " was evicted while it was read", "Read it again.");
            s.ref = it->second.ref;
        }
        s.total = b->data.size();
        if (b->base64) {
            s.binary = true;
            s.text = std::move(b->data);
            s.next = s.total;
            return s;
        }
        std::size_t start = std::min(o.offset, b->data.size());
        if (!o.section.empty()) {
            const auto at = b->data.find(o.section);
            if (at == std::string::npos)
                return fail(errc::not_found, "no section \"" + o.section + "\" in artifact " + std::string(id),
                            "Read it by offset instead.");
            const auto line = b->data.rfind('\n', at);
            start = line == std::string::npos ? 0 : line + 1;
        } else if (start > 0) {
            start = utf8_safe_suffix_start(b->data, b->data.size() - start);
        }
        std::string_view rest = std::string_view(b->data).substr(start);
        const std::size_t n = utf8_safe_prefix(rest, std::max<std::size_t>(1, o.length));
        s.text = std::string(rest.substr(0, n));
        s.offset = start;
        s.next = start + n;
        return s;
    }

    /// References to every stored artifact, oldest first.
    [[nodiscard]] std::vector<artifact_ref> list() const {
        std::lock_guard lock(mu_);
        std::vector<artifact_ref> out;
        for (const auto& id : order_)
            if (auto it = items_.find(id); it != items_.end()) out.push_back(it->second.ref);
        return out;
    }

    /// Evictions since the last call (each reported once).
    [[nodiscard]] std::vector<eviction> take_evictions() {
        std::lock_guard lock(mu_);
        return std::exchange(pending_evictions_, {});
    }

    /// The number of artifacts held.
    [[nodiscard]] std::size_t size() const {
        std::lock_guard lock(mu_);
        return items_.size();
    }
    /// The payload bytes held.
    [[nodiscard]] std::size_t bytes() const {
        std::lock_guard lock(mu_);
        return used_;
    }
    /// How many artifacts have been evicted so far.
    [[nodiscard]] std::size_t evicted() const {
        std::lock_guard lock(mu_);
        return evicted_;
    }
    /// The per-session directory ("" in memory or before the first artifact).
    [[nodiscard]] std::string directory() const {
        std::lock_guard lock(mu_);
        return dir_.string();
    }
    /// The options it was made with.
    [[nodiscard]] const store_options& options() const noexcept { return opt_; }

    /// Remove every artifact (and the session directory unless kept).
    void clear() {
        std::lock_guard lock(mu_);
        items_.clear();
        order_.clear();
        used_ = 0;
        if (!dir_.empty() && !opt_.keep) {
            std::error_code ec;
            std::filesystem::remove_all(dir_, ec);
            dir_.clear();
        }
    }

private:
    struct entry {
        artifact_ref ref;
        artifact_blob blob;
        std::size_t charged = 0;  ///< what it counts against max_bytes (used_)
        std::string file;
        bool base64 = false;
        bool base64_on_disk = false;
    };

    void evict_oldest() {  // mutex held
        auto it = items_.find(order_.front());
        if (it != items_.end()) {
            used_ -= std::min(used_, it->second.charged);
            pending_evictions_.push_back(eviction{it->second.ref.id, it->second.ref.name, it->second.ref.size});
            if (pending_evictions_.size() > 1000) pending_evictions_.erase(pending_evictions_.begin());
            if (!it->second.file.empty()) {
                std::error_code ec;
                std::filesystem::remove(it->second.file, ec);
            }
            items_.erase(it);
            ++evicted_;
        }
        order_.pop_front();
    }

    result<std::filesystem::path> session_dir() {  // mutex held
        if (!dir_.empty()) return dir_;
        namespace fs = std::filesystem;
        std::error_code ec;
        fs::create_directories(opt_.dir, ec);
        if (ec) return fail(errc::internal, "cannot create artifact directory " + opt_.dir + ": " + ec.message());
        static std::atomic<unsigned> counter{0};
        for (int i = 0; i < 1000; ++i) {
            fs::path p = fs::absolute(opt_.dir, ec) /
                         ("session-" + std::to_string(::getpid()) + "-" + std::to_string(counter.fetch_add(1)));
            if (fs::create_directory(p, ec)) {
                // private: what the session keeps (screenshots, page text) is not for other users
                fs::permissions(p, fs::perms::owner_all, fs::perm_options::replace, ec);
                if (ec) return fail(errc::internal, "cannot make " + p.string() + " private: " + ec.message());
                dir_ = p;
                return dir_;
            }
        }
        return fail(errc::internal, "cannot create a session directory under " + opt_.dir);
    }

    store_options opt_;
    mutable std::mutex mu_;
    std::map<std::string, entry, std::less<>> items_;
    std::deque<std::string> order_;
    std::vector<eviction> pending_evictions_;
    std::filesystem::path dir_;
    std::size_t used_ = 0, next_ = 0, evicted_ = 0;
};

static_assert(artifact_store<bounded_artifacts>);

/// Deprecated (removed in 0.2): the artifact store's old name; it held artifacts, not a session.
using session_store [[deprecated("agentkit::bounded_artifacts")]] = bounded_artifacts;

/// The session's default store: in memory, bounded by bytes only.
class memory_artifacts : public bounded_artifacts {
public:
    /// An in-memory store of at most `max_bytes` payload bytes, with artifact URIs under `uri_prefix`.
    explicit memory_artifacts(std::size_t max_bytes = 64U * 1024U * 1024U, std::string uri_prefix = "agentkit://artifacts/")
        : bounded_artifacts(options_for(max_bytes, std::move(uri_prefix))) {}

private:
    static store_options options_for(std::size_t max_bytes, std::string uri_prefix) {
        store_options o;
        o.max_count = static_cast<std::size_t>(-1);
        o.max_bytes = max_bytes;
        o.uri_prefix = std::move(uri_prefix);
        return o;
    }
};

static_assert(artifact_store<memory_artifacts>);

/// A non-owning, type-erased handle to any artifact_sink (or none). Cheap to copy. The sink
/// must outlive the handle. A sink that throws is reported as an `internal` error.
class artifact_sink_ref {
public:
    artifact_sink_ref() = default;
    /// A handle to `s` (implicit, like std::span).
    template <artifact_sink S>
        requires(!std::same_as<std::remove_cvref_t<S>, artifact_sink_ref>)
    artifact_sink_ref(S& s) noexcept  // NOLINT(google-explicit-constructor): a handle, like std::span
        : obj_(&s), put_([](void* o, artifact_blob b) -> result<artifact_ref> { return static_cast<S*>(o)->put(std::move(b)); }) {}

    /// True when the handle refers to a sink.
    [[nodiscard]] explicit operator bool() const noexcept { return obj_ != nullptr; }

    /// Store `b` in the sink: not_found when there is none, internal when it throws.
    [[nodiscard]] result<artifact_ref> put(artifact_blob b) const {
        if (!obj_) return fail(errc::not_found, "no artifact store is configured");
        try {
            return put_(obj_, std::move(b));
        } catch (...) {
            return fail(errc::internal, "the artifact store raised an exception");
        }
    }

private:
    void* obj_ = nullptr;
    result<artifact_ref> (*put_)(void*, artifact_blob) = nullptr;
};

/// Counts of artifacts by broad kind ("screenshot"/"image", "text", "log", other mime types).
struct artifact_counts {
    std::size_t images = 0;  ///< image artifacts (image/*)
    std::size_t texts = 0;   ///< text artifacts (text/*, application/json)
    std::size_t other = 0;   ///< every other kind
    std::size_t bytes = 0;   ///< their total size in bytes
    /// The number of artifacts counted.
    [[nodiscard]] std::size_t total() const noexcept { return images + texts + other; }
};

/// Count artifacts by broad kind, with their total size.
[[nodiscard]] inline artifact_counts count_artifacts(const std::vector<artifact_ref>& refs) {
    artifact_counts c;
    for (const auto& r : refs) {
        c.bytes += r.size;
        if (r.mime_type.rfind("image/", 0) == 0) ++c.images;
        else if (r.mime_type.rfind("text/", 0) == 0 || r.mime_type == "application/json") ++c.texts;
        else ++c.other;
    }
    return c;
}

}  // namespace agentkit
