// agentkit/search/searcher.hpp — what a web search tool calls: the query checked
// (check_query), an identical recent query answered from the cache, else the backend asked and
// its answer kept. Empty (no backend): every search answers `search.unconfigured`.
//
//   agentkit::search::searcher s{backend, {.max_entries = 64, .max_age = std::chrono::seconds(120)}};
//   auto r = s.search(q);     // result<results>; r->from_cache on a repeat
#pragma once

#include <agentkit/search/cache.hpp>
#include <agentkit/core/result.hpp>
#include <agentkit/search/backend.hpp>
#include <agentkit/search/query.hpp>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <stop_token>
#include <string_view>
#include <utility>

namespace agentkit::search {

/// A backend with its cache.
class searcher {
public:
    /// No backend: searches answer `search.unconfigured`.
    searcher() = default;
    /// Search with `b`, caching answers within `c`'s bounds.
    explicit searcher(any_backend b, cache_options c = {}) : backend_(std::move(b)), cache_(std::make_unique<cache>(std::move(c))) {}

    /// True when a backend is configured.
    [[nodiscard]] bool configured() const noexcept { return static_cast<bool>(backend_); }
    /// The backend's name ("" when none).
    [[nodiscard]] std::string_view backend_name() const noexcept { return backend_.name(); }

    /// Check `q`, answer it from the cache or the backend (at most q.count hits).
    [[nodiscard]] result<results> search(const query& q, std::stop_token stop = {}) {
        if (auto ok = check_query(q); !ok) return fail(ok.error());
        if (cache_)
            if (auto hit = cache_->get(q)) {
                cache_hits_.fetch_add(1);
                return std::move(*hit);
            }
        auto r = backend_.search(q, std::move(stop));
        if (!r) return r;
        backend_calls_.fetch_add(1);
        if (r->hits.size() > static_cast<std::size_t>(q.count)) r->hits.resize(static_cast<std::size_t>(q.count));
        if (r->backend.empty()) r->backend = std::string(backend_.name());
        if (cache_) cache_->put(q, *r);
        return r;
    }

    /// Searches answered by the backend (successfully) so far.
    [[nodiscard]] std::uint64_t backend_calls() const noexcept { return backend_calls_.load(); }
    /// Searches answered from the cache so far.
    [[nodiscard]] std::uint64_t cache_hits() const noexcept { return cache_hits_.load(); }

private:
    any_backend backend_;
    std::unique_ptr<cache> cache_;
    std::atomic<std::uint64_t> backend_calls_{0};
    std::atomic<std::uint64_t> cache_hits_{0};
};

}  // namespace agentkit::search
