// agentkit/search/cache.hpp — a small cache of recent searches: an identical query within a
// short window is answered from it, without a request. Bounded in entries and in age (the
// least recently used entry goes first); thread-safe.
//
//   agentkit::search::cache c{{.max_entries = 64, .max_age = std::chrono::seconds(120)}};
//   if (auto hit = c.get(q)) return *hit;    // results::from_cache is true
//   c.put(q, fresh);
#pragma once

#include <agentkit/search/query.hpp>

#include <chrono>
#include <cstddef>
#include <functional>
#include <list>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>

namespace agentkit::search {

/// The cache's bounds.
struct cache_options {
    std::size_t max_entries = 64;               ///< queries kept (0: no cache)
    std::chrono::milliseconds max_age{120000};  ///< an entry older than this is not used (0: no cache)
    /// The clock (a test moves it; default: steady_clock::now).
    std::function<std::chrono::steady_clock::time_point()> now;
};

/// Recent results by query (search::cache_key).
class cache {
public:
    /// A cache with these bounds.
    explicit cache(cache_options o = {}) : o_(std::move(o)) {}

    /// The results of an identical query stored less than max_age ago (from_cache set), or nothing.
    [[nodiscard]] std::optional<results> get(const query& q) {
        if (!enabled()) return std::nullopt;
        std::lock_guard lock(mu_);
        auto it = index_.find(cache_key(q));
        if (it == index_.end()) return std::nullopt;
        if (now() - it->second->stored > o_.max_age) {
            order_.erase(it->second);
            index_.erase(it);
            return std::nullopt;
        }
        order_.splice(order_.begin(), order_, it->second);  // most recently used first
        results r = it->second->value;
        r.from_cache = true;
        return r;
    }

    /// Store the results of `q` (the least recently used entry makes room).
    void put(const query& q, results r) {
        if (!enabled()) return;
        std::lock_guard lock(mu_);
        std::string key = cache_key(q);
        if (auto it = index_.find(key); it != index_.end()) {
            order_.erase(it->second);
            index_.erase(it);
        }
        r.from_cache = false;
        order_.push_front(entry{key, std::move(r), now()});
        index_.emplace(std::move(key), order_.begin());
        while (order_.size() > o_.max_entries) {
            index_.erase(order_.back().key);
            order_.pop_back();
        }
    }

    /// Entries held now (expired ones included until looked up or pushed out).
    [[nodiscard]] std::size_t size() const {
        std::lock_guard lock(mu_);
        return order_.size();
    }

    /// Forget every entry.
    void clear() {
        std::lock_guard lock(mu_);
        order_.clear();
        index_.clear();
    }

private:
    struct entry {
        std::string key;
        results value;
        std::chrono::steady_clock::time_point stored;
    };
    [[nodiscard]] bool enabled() const noexcept { return o_.max_entries > 0 && o_.max_age.count() > 0; }
    [[nodiscard]] std::chrono::steady_clock::time_point now() const { return o_.now ? o_.now() : std::chrono::steady_clock::now(); }

    cache_options o_;
    mutable std::mutex mu_;
    std::list<entry> order_;
    std::unordered_map<std::string, std::list<entry>::iterator> index_;
};

}  // namespace agentkit::search
