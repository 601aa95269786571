// agentkit/format/artifacts.hpp — where large things go: the artifact_sink concept and an
// in-memory store.
//
// Budgets never silently drop data: when a result is cut, the full text can be parked in an
// artifact sink and the cut result names the artifact id. Screenshots and logs live there too
// (seed 002: large artifacts out of band, results carry ids and counts).
//
//   agentkit::memory_artifacts store;                  // thread-safe, bounded
//   auto ref = store.put({"text/plain", "page text", "full text of https://...", big_string});
//   // ref->id == "a1", ref->uri == "agentkit://artifacts/a1"
//   auto blob = store.get("a1");                        // std::optional<artifact_blob>
//
// Any type with `put(artifact_blob) -> result<artifact_ref>` is a sink; a browser's screenshot
// store, a disk store or an MCP resource registry can implement it. Components that only need
// to write take an `artifact_sink_ref` (non-owning, type-erased).
#pragma once

#include <agentkit/core/result.hpp>
#include <agentkit/tools/output.hpp>

#include <concepts>
#include <cstddef>
#include <deque>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

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

/// The default store: in memory, thread-safe, bounded by total bytes (oldest evicted first).
class memory_artifacts {
public:
    explicit memory_artifacts(std::size_t max_bytes = 64U * 1024U * 1024U, std::string uri_prefix = "agentkit://artifacts/")
        : max_bytes_(max_bytes), prefix_(std::move(uri_prefix)) {}

    memory_artifacts(const memory_artifacts&) = delete;
    memory_artifacts& operator=(const memory_artifacts&) = delete;

    [[nodiscard]] result<artifact_ref> put(artifact_blob b) {
        const std::size_t bytes = b.data.size();
        if (bytes > max_bytes_)
            return fail(errc::budget_exceeded,
                        "artifact of " + std::to_string(bytes) + " bytes exceeds the store's limit of " +
                            std::to_string(max_bytes_) + " bytes");
        std::lock_guard lock(mu_);
        while (!order_.empty() && used_ + bytes > max_bytes_) {
            auto it = items_.find(order_.front());
            if (it != items_.end()) {
                used_ -= it->second.blob.data.size();
                items_.erase(it);
                ++evicted_;
            }
            order_.pop_front();
        }
        artifact_ref ref;
        ref.id = "a" + std::to_string(++next_);
        ref.uri = prefix_ + ref.id;
        ref.mime_type = b.mime_type;
        ref.name = b.name;
        ref.size = bytes;
        ref.description = b.description;
        used_ += bytes;
        order_.push_back(ref.id);
        items_.emplace(ref.id, entry{ref, std::move(b)});
        return ref;
    }

    [[nodiscard]] std::optional<artifact_blob> get(std::string_view id) const {
        std::lock_guard lock(mu_);
        auto it = items_.find(std::string(id));
        if (it == items_.end()) return std::nullopt;
        return it->second.blob;
    }

    /// References to every stored artifact, oldest first.
    [[nodiscard]] std::vector<artifact_ref> list() const {
        std::lock_guard lock(mu_);
        std::vector<artifact_ref> out;
        out.reserve(order_.size());
        for (const auto& id : order_)
            if (auto it = items_.find(id); it != items_.end()) out.push_back(it->second.ref);
        return out;
    }

    [[nodiscard]] std::size_t size() const {
        std::lock_guard lock(mu_);
        return items_.size();
    }
    [[nodiscard]] std::size_t bytes() const {
        std::lock_guard lock(mu_);
        return used_;
    }
    /// How many artifacts were evicted to stay within the byte limit.
    [[nodiscard]] std::size_t evicted() const {
        std::lock_guard lock(mu_);
        return evicted_;
    }

private:
    struct entry {
        artifact_ref ref;
        artifact_blob blob;
    };
    std::size_t max_bytes_;
    std::string prefix_;
    mutable std::mutex mu_;
    std::map<std::string, entry, std::less<>> items_;
    std::deque<std::string> order_;
    std::size_t used_ = 0;
    std::size_t next_ = 0;
    std::size_t evicted_ = 0;
};

static_assert(artifact_store<memory_artifacts>);

/// A non-owning, type-erased handle to any artifact_sink (or none). Cheap to copy. The sink
/// must outlive the handle. A sink that throws is reported as an `internal` error.
class artifact_sink_ref {
public:
    artifact_sink_ref() = default;
    template <artifact_sink S>
        requires(!std::same_as<std::remove_cvref_t<S>, artifact_sink_ref>)
    artifact_sink_ref(S& s) noexcept  // NOLINT(google-explicit-constructor): a handle, like std::span
        : obj_(&s), put_([](void* o, artifact_blob b) -> result<artifact_ref> { return static_cast<S*>(o)->put(std::move(b)); }) {}

    [[nodiscard]] explicit operator bool() const noexcept { return obj_ != nullptr; }

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
    std::size_t images = 0;
    std::size_t texts = 0;
    std::size_t other = 0;
    std::size_t bytes = 0;
    [[nodiscard]] std::size_t total() const noexcept { return images + texts + other; }
};

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
