// agentkit/browser/refs.hpp — element refs as identities: the registry that issues "e12" for one
// DOM node of one document, resolves it back, and retires the refs of navigated frames.
#pragma once

#include <agentkit/core/json.hpp>
#include <agentkit/core/result.hpp>
#include <agentkit/core/strings.hpp>
#include <agentkit/core/tokens.hpp>

#include <algorithm>
#include <cctype>
#include <cstddef>
#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <tuple>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

namespace agentkit::browser {

/// What a ref stands for: one node of one document.
struct ref_target {
    std::string session_id;  ///< the CDP session of the node's renderer (empty: the page session)
    std::string frame_id;    ///< the frame the node's document is in
    std::string loader_id;   ///< the document (a navigation makes a new loader)
    std::int64_t backend_node_id = 0;  ///< the node's DOM.BackendNodeId
    std::string role;        ///< its accessibility role when the ref was issued
    std::string name;        ///< its accessible name when the ref was issued
};

/// Issues refs and resolves them. A ref is never rebound: the same node of the same document
/// keeps its ref across snapshots; a node of a new document gets a new ref; refs of a
/// navigated frame are retired and resolve to `ref.stale`. Thread-safe.
class ref_registry {
public:
    /// The ref for a node, issuing a new one when this node of this document has none.
    std::string ref_for(const std::string& session_id, const std::string& frame_id, const std::string& loader_id,
                        std::int64_t backend, std::string_view role, std::string_view name) {
        std::lock_guard lock(mu_);
        key k{session_id, loader_id, backend};
        if (auto it = by_node_.find(k); it != by_node_.end()) {
            auto& t = targets_[it->second];
            t.role = std::string(role);
            t.name = std::string(name);
            return "e" + std::to_string(it->second);
        }
        const std::uint64_t id = next_++;
        by_node_.emplace(std::move(k), id);
        targets_.emplace(id, ref_target{session_id, frame_id, loader_id, backend, std::string(role), std::string(name)});
        return "e" + std::to_string(id);
    }

    /// The live ref of a node, when it has one (never issues a new ref).
    [[nodiscard]] std::optional<std::string> find(const std::string& session_id, const std::string& loader_id,
                                                  std::int64_t backend) const {
        std::lock_guard lock(mu_);
        auto it = by_node_.find(key{session_id, loader_id, backend});
        if (it == by_node_.end()) return std::nullopt;
        return "e" + std::to_string(it->second);
    }

    /// Retire every ref of a frame whose document is no longer `current_loader`.
    void frame_navigated(const std::string& frame_id, const std::string& current_loader) {
        std::lock_guard lock(mu_);
        for (auto it = targets_.begin(); it != targets_.end();) {
            if (it->second.frame_id == frame_id && it->second.loader_id != current_loader) it = retire_locked(it);
            else ++it;
        }
    }

    /// Retire every ref of these frames (their tab was closed).
    void retire_frames(const std::set<std::string>& frame_ids) {
        std::lock_guard lock(mu_);
        for (auto it = targets_.begin(); it != targets_.end();) {
            if (frame_ids.count(it->second.frame_id) != 0) it = retire_locked(it);
            else ++it;
        }
    }

    /// Retire every ref (the browser was closed or replaced: none of its nodes is reachable).
    void retire_all() {
        std::lock_guard lock(mu_);
        for (auto it = targets_.begin(); it != targets_.end();) it = retire_locked(it);
    }

    /// Retire one ref (its node is gone from the document).
    void retire(std::string_view ref) {
        std::lock_guard lock(mu_);
        auto id = parse(ref);
        if (!id) return;
        if (auto it = targets_.find(*id); it != targets_.end()) retire_locked(it);
    }

    /// Resolve a ref: `ref.unknown` when never issued (or malformed), `ref.stale` when retired.
    [[nodiscard]] result<ref_target> resolve(std::string_view ref) const {
        std::lock_guard lock(mu_);
        auto id = parse(ref);
        if (!id || *id == 0 || *id >= next_)
            return fail(errc::ref_unknown, "no element has ref \"" + std::string(ref) + "\"",
                        "Use a ref exactly as it appears in the latest snapshot, e.g. e12; take a snapshot if you "
                        "have none.",
                        json{{"ref", ref}});
        if (auto it = targets_.find(*id); it != targets_.end()) return it->second;
        std::string what = "the element";
        if (auto s = stale_.find(*id); s != stale_.end()) what = s->second;
        return fail(errc::ref_stale,
                    "ref " + std::string(ref) + " (" + what + ") is stale: its element is gone or the page navigated",
                    "Take a new snapshot and use the refs it shows.", json{{"ref", ref}});
    }

    /// Number of live refs.
    [[nodiscard]] std::size_t size() const {
        std::lock_guard lock(mu_);
        return targets_.size();
    }

    /// Number of retired refs whose description is remembered (bounded by kMaxRemembered).
    [[nodiscard]] std::size_t remembered_stale() const {
        std::lock_guard lock(mu_);
        return stale_.size();
    }

    /// Descriptions of retired refs kept for their `ref.stale` message (the newest; older
    /// retired refs still resolve to `ref.stale`, described as "the element"). Bounds the
    /// registry's memory in a long session: it held every ref ever retired.
    static constexpr std::size_t kMaxRemembered = 4096;

    /// Parse "e12" (also "[ref=e12]" and "ref=e12") to 12.
    [[nodiscard]] static std::optional<std::uint64_t> parse(std::string_view ref) noexcept {
        if (ref.size() > 2 && ref.front() == '[' && ref.back() == ']') ref = ref.substr(1, ref.size() - 2);
        if (ref.rfind("ref=", 0) == 0) ref.remove_prefix(4);
        if (ref.size() < 2 || ref[0] != 'e' || ref.size() > 20) return std::nullopt;
        std::uint64_t v = 0;
        for (std::size_t i = 1; i < ref.size(); ++i) {
            if (ref[i] < '0' || ref[i] > '9') return std::nullopt;
            v = v * 10 + static_cast<std::uint64_t>(ref[i] - '0');
        }
        return v;
    }

private:
    struct key {
        std::string session;
        std::string loader;
        std::int64_t backend;
        bool operator<(const key& o) const {
            return std::tie(session, loader, backend) < std::tie(o.session, o.loader, o.backend);
        }
    };
    // Under mu_: retire one live ref, remember its description (bounded); the next target.
    std::map<std::uint64_t, ref_target>::iterator retire_locked(std::map<std::uint64_t, ref_target>::iterator it) {
        stale_.emplace(it->first, it->second.role + " \"" + it->second.name + "\"");
        while (stale_.size() > kMaxRemembered) stale_.erase(stale_.begin());  // the oldest ids first
        by_node_.erase(key{it->second.session_id, it->second.loader_id, it->second.backend_node_id});
        return targets_.erase(it);
    }

    mutable std::mutex mu_;
    std::map<key, std::uint64_t> by_node_;
    std::map<std::uint64_t, ref_target> targets_;
    std::map<std::uint64_t, std::string> stale_;
    std::uint64_t next_ = 1;
};

}  // namespace agentkit::browser
