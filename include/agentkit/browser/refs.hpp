// agentkit/browser/refs.hpp — element refs as identities: the registry that issues "e12" (the
// prefix names the document, the number counts within it) for one DOM node of one document,
// resolves it back, and retires the refs of navigated frames.
#pragma once

#include <agentkit/core/strings.hpp>
#include <agentkit/core/json.hpp>
#include <agentkit/core/result.hpp>
#include <agentkit/core/tokens.hpp>

#include <algorithm>
#include <cctype>
#include <cstddef>
#include <cstdint>
#include <deque>
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

/// Issues refs and resolves them. A ref is a short prefix of letters naming its document and a
/// number counted within it: `e12`, then `b7` on the next document, `c31` on the one after. A
/// ref is never rebound: the same node of the same document keeps its ref across snapshots; a
/// node of a new document gets a new ref; refs of a navigated frame are retired and resolve to
/// `ref.stale`. Prefixes are reused once every one has served a document, but each prefix counts
/// on where its last document stopped (the generation table `next_`), so no ref text is ever
/// issued twice in a registry's life and an old ref can never resolve to a node of a later
/// document. Thread-safe.
class ref_registry {
public:
    /// The prefixes, in the order documents take them. Each is one o200k token alone, before a
    /// number and after `ref=` (a run of up to 3 digits is one token too, so a ref costs 2 tokens
    /// while its prefix has counted fewer than 1,000). No `i`, `l` or `o` (they read as digits),
    /// no `h` (`h1` reads as a heading) and no `a` (artifact ids are `a3`).
    static constexpr std::string_view kPrefixes = "ebcdfgjkmnpqrstuvwxyz";

    /// The ref for a node, issuing a new one when this node of this document has none.
    std::string ref_for(const std::string& session_id, const std::string& frame_id, const std::string& loader_id,
                        std::int64_t backend, std::string_view role, std::string_view name) {
        std::lock_guard lock(mu_);
        key k{session_id, loader_id, backend};
        if (auto it = by_node_.find(k); it != by_node_.end()) {
            auto& t = targets_[it->second];
            t.role = std::string(role);
            t.name = std::string(name);
            return text(it->second);
        }
        const std::size_t prefix = prefix_for_locked(session_id, frame_id, loader_id);
        const ref_id id{prefix, next_[prefix]++};
        by_node_.emplace(std::move(k), id);
        targets_.emplace(id, ref_target{session_id, frame_id, loader_id, backend, std::string(role), std::string(name)});
        return text(id);
    }

    /// The live ref of a node, when it has one (never issues a new ref).
    [[nodiscard]] std::optional<std::string> find(const std::string& session_id, const std::string& loader_id,
                                                  std::int64_t backend) const {
        std::lock_guard lock(mu_);
        auto it = by_node_.find(key{session_id, loader_id, backend});
        if (it == by_node_.end()) return std::nullopt;
        return text(it->second);
    }

    /// Retire every ref of a frame whose document is no longer `current_loader`.
    void frame_navigated(const std::string& frame_id, const std::string& current_loader) {
        std::lock_guard lock(mu_);
        for (auto it = targets_.begin(); it != targets_.end();) {
            if (it->second.frame_id == frame_id && it->second.loader_id != current_loader) it = retire_locked(it);
            else ++it;
        }
        std::erase_if(docs_, [&](const auto& d) { return d.second.frame_id == frame_id && d.first.second != current_loader; });
    }

    /// Retire every ref of these frames (their tab was closed).
    void retire_frames(const std::set<std::string>& frame_ids) {
        std::lock_guard lock(mu_);
        for (auto it = targets_.begin(); it != targets_.end();) {
            if (frame_ids.count(it->second.frame_id) != 0) it = retire_locked(it);
            else ++it;
        }
        std::erase_if(docs_, [&](const auto& d) { return frame_ids.count(d.second.frame_id) != 0; });
    }

    /// Retire every ref (the browser was closed or replaced: none of its nodes is reachable).
    void retire_all() {
        std::lock_guard lock(mu_);
        for (auto it = targets_.begin(); it != targets_.end();) it = retire_locked(it);
        docs_.clear();
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
        if (!id || id->number == 0 || id->number >= next_[id->prefix])
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

    /// A ref as numbers: which prefix (an index into kPrefixes) and the number after it.
    struct ref_id {
        std::size_t prefix = 0;     ///< index into kPrefixes
        std::uint64_t number = 0;   ///< counted within the prefix, from 1
        /// Ordered by prefix, then number.
        bool operator<(const ref_id& o) const { return std::tie(prefix, number) < std::tie(o.prefix, o.number); }
    };

    /// Parse "e12" (also "[ref=e12]" and "ref=e12") to its prefix and number; nullopt when the
    /// text is no ref this registry could have issued.
    [[nodiscard]] static std::optional<ref_id> parse(std::string_view ref) noexcept {
        if (ref.size() > 2 && ref.front() == '[' && ref.back() == ']') ref = ref.substr(1, ref.size() - 2);
        if (ref.rfind("ref=", 0) == 0) ref.remove_prefix(4);
        if (ref.size() < 2 || ref.size() > 20) return std::nullopt;
        const std::size_t prefix = kPrefixes.find(ref[0]);
        if (prefix == std::string_view::npos) return std::nullopt;
        std::uint64_t v = 0;
        for (std::size_t i = 1; i < ref.size(); ++i) {
            if (ref[i] < '0' || ref[i] > '9') return std::nullopt;
            v = v * 10 + static_cast<std::uint64_t>(ref[i] - '0');
        }
        return ref_id{prefix, v};
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
    struct doc_rec {
        std::string frame_id;
        std::size_t prefix = 0;
    };
    static std::string text(const ref_id& id) { return kPrefixes[id.prefix] + std::to_string(id.number); }

    // Under mu_: the prefix of a document, choosing one for a document seen for the first time:
    // a prefix no live document has, the one that has counted least (the first in kPrefixes on
    // a tie); when every prefix has a live document, the one that has counted least.
    std::size_t prefix_for_locked(const std::string& session_id, const std::string& frame_id, const std::string& loader_id) {
        auto d = docs_.find({session_id, loader_id});
        if (d != docs_.end()) return d->second.prefix;
        std::vector<bool> taken(kPrefixes.size(), false);
        for (const auto& live : docs_) taken[live.second.prefix] = true;
        std::size_t best = kPrefixes.size();
        for (int pass = 0; pass < 2 && best == kPrefixes.size(); ++pass)
            for (std::size_t p = 0; p < kPrefixes.size(); ++p)
                if ((pass == 1 || !taken[p]) && (best == kPrefixes.size() || next_[p] < next_[best])) best = p;
        docs_.emplace(std::pair{session_id, loader_id}, doc_rec{frame_id, best});
        return best;
    }

    // Under mu_: retire one live ref, remember its description (bounded); the next target.
    std::map<ref_id, ref_target>::iterator retire_locked(std::map<ref_id, ref_target>::iterator it) {
        if (stale_.emplace(it->first, it->second.role + " \"" + it->second.name + "\"").second) stale_order_.push_back(it->first);
        while (stale_.size() > kMaxRemembered) {  // the oldest retired first
            stale_.erase(stale_order_.front());
            stale_order_.pop_front();
        }
        by_node_.erase(key{it->second.session_id, it->second.loader_id, it->second.backend_node_id});
        return targets_.erase(it);
    }

    mutable std::mutex mu_;
    std::map<key, ref_id> by_node_;
    std::map<ref_id, ref_target> targets_;
    std::map<ref_id, std::string> stale_;
    std::deque<ref_id> stale_order_;
    std::map<std::pair<std::string, std::string>, doc_rec> docs_;  // live documents: (session, loader)
    std::vector<std::uint64_t> next_ = std::vector<std::uint64_t>(kPrefixes.size(), 1);  // the generation table
};

}  // namespace agentkit::browser
