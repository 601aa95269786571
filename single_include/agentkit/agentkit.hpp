// agentkit v0.1.0 — single-header edition.
//
// GENERATED FILE — DO NOT EDIT. Produced by tools/amalgamate.py (configuration:
// tools/amalgamate.json) from the headers under include/agentkit/. Change those and
// regenerate with `python3 tools/amalgamate.py`; CI fails when this file is stale.
//
// SPDX-License-Identifier: MIT
#pragma once

#define AGENTKIT_SINGLE_HEADER 1

// agentkit/agentkit.hpp — the umbrella header: every public agentkit header.
//
// Keep this a plain, sorted list of includes (one per public header). It is also the root of
// the amalgamation: tools/amalgamate.py inlines everything reachable from here into
// single_include/agentkit/agentkit.hpp, and the umbrella_complete test fails when a header
// under include/agentkit/ is not reachable from this file.

// ---- begin <agentkit/browser/snapshot.hpp> ----
// agentkit/browser/snapshot.hpp — compact accessibility snapshots with element refs.
//
// Input: what the browser reports per frame — Accessibility.getFullAXTree (roles, accessible
// names, states, computed by Chromium itself) fused with DOMSnapshot.captureSnapshot (layout
// boxes, computed cursor, and Chromium's own `isClickable`, which covers JS click listeners).
// Output: one element per line, indentation for structure, the state that matters, and a
// short ref `[ref=e12]` on everything a model may act on:
//
//   h1 "Sign up"
//   navigation
//    link "Home" /home [ref=e1]
//   form
//    textbox "Name" = "Ann" [ref=e3]
//    checkbox "Subscribe" checked [ref=e5]
//    combobox = "Two" options: One|Two [ref=e6]
//    button "Send" [ref=e8]
//   clickable "Click me" [ref=e11]
//   Some paragraph text that is plain.
//
// Refs are identities (see ref_registry): one ref stands for one DOM node of one document.
// Rendering is a pure function of its inputs, so it is unit-tested on recorded CDP output.

// ---- begin <agentkit/core/json.hpp> ----
// agentkit/core/json.hpp — the JSON type agentkit speaks everywhere.

#include <nlohmann/json.hpp>

namespace agentkit {

/// The JSON value type used across agentkit (nlohmann::json, ordered by key).
using json = nlohmann::json;

}  // namespace agentkit
// ---- end <agentkit/core/json.hpp> ----
// ---- begin <agentkit/core/result.hpp> ----
// agentkit/core/result.hpp — result<T>: a value or a structured error.

// ---- begin <agentkit/core/error.hpp> ----
// agentkit/core/error.hpp — structured errors with stable codes.
//
// Every failure agentkit reports carries:
//   code     a stable dotted id ("args.invalid", "tool.unknown", ...) that hosts and
//            models can match on; codes never change meaning once published;
//   message  what went wrong, in one or two sentences;
//   hint     what the caller (usually the model) should do next;
//   details  optional structured JSON (the list of argument problems, candidate names, ...).


#include <string>
#include <string_view>
#include <utility>

namespace agentkit {

/// Stable error codes. Use these constants rather than string literals.
namespace errc {
// arguments and dispatch
inline constexpr std::string_view args_invalid = "args.invalid";        ///< arguments failed schema validation
inline constexpr std::string_view args_malformed = "args.malformed";    ///< arguments were not parseable JSON
inline constexpr std::string_view tool_unknown = "tool.unknown";        ///< no tool with that name
inline constexpr std::string_view tool_masked = "tool.masked";          ///< tool exists but is not visible now
inline constexpr std::string_view tool_exception = "tool.exception";    ///< the host handler threw
inline constexpr std::string_view tool_failed = "tool.failed";          ///< the handler reported a failure
inline constexpr std::string_view tool_timeout = "tool.timeout";        ///< the handler did not finish in time
inline constexpr std::string_view tool_cancelled = "tool.cancelled";    ///< the call was cancelled
inline constexpr std::string_view capability_unsupported = "capability.unsupported";  ///< deferred tool
inline constexpr std::string_view request_invalid = "request.invalid";  ///< a malformed request envelope
// protocol and transport
inline constexpr std::string_view protocol_error = "protocol.error";    ///< peer spoke malformed protocol
inline constexpr std::string_view transport_closed = "transport.closed";///< the connection is gone
inline constexpr std::string_view transport_io = "transport.io";        ///< an I/O error on the transport
inline constexpr std::string_view timeout = "timeout";                  ///< an operation ran out of time
inline constexpr std::string_view cdp_error = "cdp.error";              ///< the browser answered with an error
// browser
inline constexpr std::string_view browser_launch = "browser.launch";    ///< the browser could not be started
inline constexpr std::string_view browser_crashed = "browser.crashed";  ///< the browser or renderer died
inline constexpr std::string_view ref_stale = "ref.stale";              ///< an element ref no longer resolves
inline constexpr std::string_view ref_unknown = "ref.unknown";          ///< an element ref was never issued
inline constexpr std::string_view element_covered = "element.covered";  ///< another element takes the click
inline constexpr std::string_view element_not_visible = "element.not_visible";
inline constexpr std::string_view navigation_failed = "navigation.failed";
inline constexpr std::string_view policy_blocked = "policy.blocked";    ///< a policy rule refused the action
inline constexpr std::string_view not_found = "not_found";              ///< a looked-up item does not exist
inline constexpr std::string_view budget_exceeded = "budget.exceeded";
inline constexpr std::string_view internal = "internal";                ///< a bug in agentkit; please report
}  // namespace errc

/// A structured error. Cheap to move; compare by `code`.
struct error {
    std::string code;
    std::string message;
    std::string hint;
    json details;  ///< null when there is nothing structured to add

    error() = default;
    error(std::string_view code_, std::string message_, std::string hint_ = {}, json details_ = nullptr)
        : code(code_), message(std::move(message_)), hint(std::move(hint_)), details(std::move(details_)) {}

    /// True when this error has the given code.
    [[nodiscard]] bool is(std::string_view c) const noexcept { return code == c; }

    /// `{"code":..,"message":..,"hint":..,"details":..}` (hint/details omitted when empty).
    [[nodiscard]] json to_json() const {
        json j = json::object();
        j["code"] = code;
        j["message"] = message;
        if (!hint.empty()) j["hint"] = hint;
        if (!details.is_null()) j["details"] = details;
        return j;
    }

    /// One line for a model: `error[code]: message Hint: hint`.
    [[nodiscard]] std::string to_text() const {
        std::string s;
        s.reserve(code.size() + message.size() + hint.size() + 16);
        s += "error[";
        s += code;
        s += "]: ";
        s += message;
        if (!hint.empty()) {
            s += " Hint: ";
            s += hint;
        }
        return s;
    }

    /// Rebuild from the JSON produced by to_json(); unknown shapes become `internal`.
    [[nodiscard]] static error from_json(const json& j) {
        if (!j.is_object() || !j.contains("code") || !j["code"].is_string())
            return error(errc::internal, "malformed error object", {}, j);
        error e;
        e.code = j["code"].get<std::string>();
        if (auto it = j.find("message"); it != j.end() && it->is_string()) e.message = it->get<std::string>();
        if (auto it = j.find("hint"); it != j.end() && it->is_string()) e.hint = it->get<std::string>();
        if (auto it = j.find("details"); it != j.end()) e.details = *it;
        return e;
    }

    friend bool operator==(const error& a, const error& b) {
        return a.code == b.code && a.message == b.message && a.hint == b.hint && a.details == b.details;
    }
};

}  // namespace agentkit
// ---- end <agentkit/core/error.hpp> ----

#include <tl/expected.hpp>

#include <string>
#include <string_view>
#include <utility>

namespace agentkit {

/// A value of T, or an agentkit::error. Nothing in agentkit throws on bad input:
/// every fallible operation returns a result.
template <class T>
using result = tl::expected<T, error>;

/// The error side, for `return fail(...)`.
using unexpected_error = tl::unexpected<error>;

/// Build the error side of a result: `return agentkit::fail(errc::args_invalid, "...", "hint");`
[[nodiscard]] inline unexpected_error fail(std::string_view code, std::string message, std::string hint = {},
                                           json details = nullptr) {
    return unexpected_error(error(code, std::move(message), std::move(hint), std::move(details)));
}

/// Forward an existing error: `if (!r) return agentkit::fail(r.error());`
[[nodiscard]] inline unexpected_error fail(error e) { return unexpected_error(std::move(e)); }

}  // namespace agentkit
// ---- end <agentkit/core/result.hpp> ----
// ---- begin <agentkit/core/strings.hpp> ----
// agentkit/core/strings.hpp — small string utilities: edit distance, closest names, UTF-8 safety.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace agentkit {

namespace detail {
[[nodiscard]] inline char ascii_lower(char c) noexcept { return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c; }
}  // namespace detail

/// Levenshtein distance, case-insensitive (ASCII), O(|a|·|b|) with one row of memory.
[[nodiscard]] inline std::size_t edit_distance(std::string_view a, std::string_view b) {
    std::vector<std::size_t> row(b.size() + 1);
    for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
    for (std::size_t i = 1; i <= a.size(); ++i) {
        std::size_t diag = row[0];
        row[0] = i;
        for (std::size_t j = 1; j <= b.size(); ++j) {
            const std::size_t up = row[j];
            const std::size_t cost = detail::ascii_lower(a[i - 1]) == detail::ascii_lower(b[j - 1]) ? 0 : 1;
            row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + cost});
            diag = up;
        }
    }
    return row[b.size()];
}

/// The up-to-`limit` candidates closest to `name`: substring matches first, then by edit
/// distance; candidates farther than about half the name's length are dropped.
template <class Range>
[[nodiscard]] std::vector<std::string> closest_names(std::string_view name, const Range& candidates,
                                                     std::size_t limit = 3) {
    struct scored {
        std::size_t score;
        std::string_view s;
    };
    std::vector<scored> all;
    std::string lname(name);
    std::transform(lname.begin(), lname.end(), lname.begin(), detail::ascii_lower);
    for (const auto& c : candidates) {
        const std::string_view cv(c);
        std::string lc(cv);
        std::transform(lc.begin(), lc.end(), lc.begin(), detail::ascii_lower);
        std::size_t score;
        if (!lname.empty() && (lc.find(lname) != std::string::npos || lname.find(lc) != std::string::npos)) {
            score = 0;
        } else {
            score = edit_distance(lname, lc) + 1;
            if (score > std::max<std::size_t>(3, (lname.size() + 1) / 2 + 1)) continue;
        }
        all.push_back({score, cv});
    }
    std::stable_sort(all.begin(), all.end(), [](const scored& x, const scored& y) { return x.score < y.score; });
    std::vector<std::string> out;
    for (std::size_t i = 0; i < all.size() && i < limit; ++i) out.emplace_back(all[i].s);
    return out;
}

/// Length of the longest prefix of `s` (at most `max_bytes`) that does not split a UTF-8 sequence.
[[nodiscard]] inline std::size_t utf8_safe_prefix(std::string_view s, std::size_t max_bytes) noexcept {
    if (max_bytes >= s.size()) return s.size();
    std::size_t n = max_bytes;
    // Step back over continuation bytes so the cut lands on a character boundary.
    while (n > 0 && (static_cast<unsigned char>(s[n]) & 0xC0U) == 0x80U) --n;
    return n;
}

/// Start index of the longest suffix of `s` of at most `max_bytes` that starts on a character boundary.
[[nodiscard]] inline std::size_t utf8_safe_suffix_start(std::string_view s, std::size_t max_bytes) noexcept {
    if (max_bytes >= s.size()) return 0;
    std::size_t start = s.size() - max_bytes;
    while (start < s.size() && (static_cast<unsigned char>(s[start]) & 0xC0U) == 0x80U) ++start;
    return start;
}

/// Join strings with a separator.
template <class Range>
[[nodiscard]] std::string join(const Range& parts, std::string_view sep) {
    std::string out;
    bool first = true;
    for (const auto& p : parts) {
        if (!first) out += sep;
        first = false;
        out += std::string_view(p);
    }
    return out;
}

}  // namespace agentkit
// ---- end <agentkit/core/strings.hpp> ----
// ---- begin <agentkit/core/tokens.hpp> ----
// agentkit/core/tokens.hpp — token estimation behind a small interface.
//
// agentkit budgets everything it sends to a model in tokens. Counting exactly needs the
// model's tokenizer; the default here is a fast heuristic calibrated on o200k-style BPE
// (English prose, code, JSON, CJK). A host with an exact tokenizer plugs it in through
// `token_counter`.

#include <concepts>
#include <cstddef>
#include <functional>
#include <string_view>
#include <utility>

namespace agentkit {

/// Anything that counts the tokens of a UTF-8 string.
template <class T>
concept token_estimator = requires(const T& t, std::string_view s) {
    { t.count(s) } -> std::convertible_to<std::size_t>;
};

/// The default estimator: word pieces, digit groups and punctuation, without a vocabulary.
/// Typically within ±15% of o200k on prose, markup and JSON.
struct heuristic_tokens {
    [[nodiscard]] std::size_t count(std::string_view s) const noexcept {
        std::size_t tokens = 0;
        std::size_t i = 0;
        const std::size_t n = s.size();
        while (i < n) {
            const auto c = static_cast<unsigned char>(s[i]);
            if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')) {
                std::size_t j = i + 1;
                while (j < n) {
                    const auto d = static_cast<unsigned char>(s[j]);
                    if (!((d >= 'a' && d <= 'z') || (d >= 'A' && d <= 'Z'))) break;
                    ++j;
                }
                const std::size_t len = j - i;
                // Common words are one token; long ones split into pieces of ~5 letters.
                tokens += len <= 7 ? 1 : 1 + (len - 4) / 5;
                i = j;
            } else if (c >= '0' && c <= '9') {
                std::size_t j = i + 1;
                while (j < n && s[j] >= '0' && s[j] <= '9') ++j;
                tokens += (j - i + 2) / 3;  // digits group in threes
                i = j;
            } else if (c == ' ') {
                // A single space is absorbed by the following word; runs of spaces are tokens.
                std::size_t j = i + 1;
                while (j < n && s[j] == ' ') ++j;
                if (j - i > 1) tokens += 1 + (j - i) / 8;
                i = j;
            } else if (c == '\n' || c == '\r' || c == '\t') {
                std::size_t j = i + 1;
                while (j < n && (s[j] == '\n' || s[j] == '\r' || s[j] == '\t')) ++j;
                tokens += 1;
                i = j;
            } else if (c < 0x80) {
                // Punctuation: common pairs (`":`, `",`, `{"`, `</`, `/>`) merge into one token.
                std::size_t j = i + 1;
                while (j < n && j - i < 3) {
                    const auto d = static_cast<unsigned char>(s[j]);
                    const bool punct = d < 0x80 && d > ' ' && !((d >= 'a' && d <= 'z') || (d >= 'A' && d <= 'Z') ||
                                                                (d >= '0' && d <= '9'));
                    if (!punct) break;
                    ++j;
                }
                tokens += 1;
                i = j;
            } else {
                // Non-ASCII: count code points; CJK is about one token per character,
                // accented Latin and Cyrillic about one per two.
                std::size_t len = 1;
                if ((c & 0xE0U) == 0xC0U) len = 2;
                else if ((c & 0xF0U) == 0xE0U) len = 3;
                else if ((c & 0xF8U) == 0xF0U) len = 4;
                std::size_t cps = 0;
                std::size_t j = i;
                while (j < n && static_cast<unsigned char>(s[j]) >= 0x80) {
                    const auto d = static_cast<unsigned char>(s[j]);
                    if ((d & 0xC0U) != 0x80U) ++cps;
                    ++j;
                }
                tokens += len >= 3 ? cps : (cps + 1) / 2;
                i = j;
            }
        }
        return tokens;
    }
};

/// A type-erased token estimator. Default-constructed, it uses heuristic_tokens.
class token_counter {
public:
    token_counter() = default;
    template <token_estimator E>
        requires(!std::same_as<std::decay_t<E>, token_counter>)
    explicit token_counter(E e) : fn_([e = std::move(e)](std::string_view s) { return static_cast<std::size_t>(e.count(s)); }) {}
    /// Wrap a plain function `size_t(std::string_view)`.
    static token_counter from_function(std::function<std::size_t(std::string_view)> f) {
        token_counter t;
        t.fn_ = std::move(f);
        return t;
    }
    [[nodiscard]] std::size_t count(std::string_view s) const {
        return fn_ ? fn_(s) : heuristic_tokens{}.count(s);
    }

private:
    std::function<std::size_t(std::string_view)> fn_;
};

}  // namespace agentkit
// ---- end <agentkit/core/tokens.hpp> ----

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

namespace agentkit::browser {

// ---------------------------------------------------------------------------------------------
// DOM facts from DOMSnapshot.captureSnapshot
// ---------------------------------------------------------------------------------------------

/// What the layout/DOM snapshot says about one node.
struct dom_node_facts {
    bool clickable = false;  ///< Chromium's isClickable: a click listener, a link, a form control
    bool pointer = false;    ///< computed cursor: pointer
    bool has_box = false;    ///< has a layout box
    bool hidden = false;     ///< visibility:hidden/collapse or display:none
    double x = 0, y = 0, w = 0, h = 0;  ///< absolute bounds (CSS px, document coordinates)
    std::string tag;                    ///< lower-case element name
    std::vector<std::pair<std::string, std::string>> attributes;

    [[nodiscard]] std::string_view attr(std::string_view name) const noexcept {
        for (const auto& [k, v] : attributes)
            if (k == name) return v;
        return {};
    }
    [[nodiscard]] bool visible() const noexcept { return has_box && !hidden && w > 0 && h > 0; }
};

/// DOM facts of every document in one renderer session, keyed by backend node id.
struct dom_index {
    std::unordered_map<std::int64_t, dom_node_facts> nodes;
    /// <iframe> element backend id → the frame id of its content document (same-process frames).
    std::unordered_map<std::int64_t, std::string> frame_owners;
    double scroll_x = 0, scroll_y = 0;
    double viewport_w = 0, viewport_h = 0;  ///< set by the caller (Page.getLayoutMetrics)

    [[nodiscard]] const dom_node_facts* find(std::int64_t backend) const {
        auto it = nodes.find(backend);
        return it == nodes.end() ? nullptr : &it->second;
    }
    [[nodiscard]] bool in_viewport(const dom_node_facts& f) const noexcept {
        if (viewport_w <= 0 || viewport_h <= 0) return true;
        return f.x + f.w > scroll_x && f.x < scroll_x + viewport_w && f.y + f.h > scroll_y && f.y < scroll_y + viewport_h;
    }
};

namespace detail {
inline std::string snap_string(const json& strings, const json& idx) {
    if (!idx.is_number_integer()) return {};
    const auto i = idx.get<std::int64_t>();
    if (i < 0 || static_cast<std::size_t>(i) >= strings.size() || !strings[static_cast<std::size_t>(i)].is_string())
        return {};
    return strings[static_cast<std::size_t>(i)].get<std::string>();
}
inline std::string ascii_lower_copy(std::string s) {
    for (auto& c : s)
        if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
    return s;
}
}  // namespace detail

/// Build the DOM index from a DOMSnapshot.captureSnapshot result requested with
/// computedStyles ["cursor", "display", "visibility"] (in that order).
[[nodiscard]] inline dom_index parse_dom_snapshot(const json& capture) {
    dom_index out;
    if (!capture.is_object() || !capture.contains("documents") || !capture.contains("strings")) return out;
    const json& strings = capture["strings"];
    const json& docs = capture["documents"];
    for (std::size_t d = 0; d < docs.size(); ++d) {
        const json& doc = docs[d];
        if (d == 0) {
            out.scroll_x = doc.value("scrollOffsetX", 0.0);
            out.scroll_y = doc.value("scrollOffsetY", 0.0);
        }
        const json& nodes = doc.value("nodes", json::object());
        const json backend = nodes.value("backendNodeId", json::array());
        const json names = nodes.value("nodeName", json::array());
        const json attrs = nodes.value("attributes", json::array());
        const std::size_t n = backend.size();
        std::vector<std::int64_t> ids(n, 0);
        for (std::size_t i = 0; i < n; ++i) {
            ids[i] = backend[i].is_number_integer() ? backend[i].get<std::int64_t>() : 0;
            dom_node_facts f;
            if (i < names.size()) f.tag = detail::ascii_lower_copy(detail::snap_string(strings, names[i]));
            if (i < attrs.size() && attrs[i].is_array()) {
                const json& a = attrs[i];
                for (std::size_t k = 0; k + 1 < a.size(); k += 2)
                    f.attributes.emplace_back(detail::snap_string(strings, a[k]), detail::snap_string(strings, a[k + 1]));
            }
            out.nodes[ids[i]] = std::move(f);
        }
        if (auto it = nodes.find("isClickable"); it != nodes.end() && it->contains("index"))
            for (const auto& i : (*it)["index"])
                if (i.is_number_integer() && i.get<std::size_t>() < n) out.nodes[ids[i.get<std::size_t>()]].clickable = true;
        if (auto it = nodes.find("contentDocumentIndex"); it != nodes.end() && it->contains("index")) {
            const json& idx = (*it)["index"];
            const json& val = (*it)["value"];
            for (std::size_t k = 0; k < idx.size() && k < val.size(); ++k) {
                const auto node = idx[k].get<std::size_t>();
                const auto dj = val[k].get<std::size_t>();
                if (node < n && dj < docs.size())
                    out.frame_owners[ids[node]] = detail::snap_string(strings, docs[dj].value("frameId", json()));
            }
        }
        const json& layout = doc.value("layout", json::object());
        const json li = layout.value("nodeIndex", json::array());
        const json styles = layout.value("styles", json::array());
        const json bounds = layout.value("bounds", json::array());
        for (std::size_t k = 0; k < li.size(); ++k) {
            const auto ni = li[k].get<std::size_t>();
            if (ni >= n) continue;
            auto& f = out.nodes[ids[ni]];
            if (f.has_box) continue;  // first box wins (continuations repeat the node)
            f.has_box = true;
            if (k < bounds.size() && bounds[k].size() >= 4) {
                f.x = bounds[k][0].get<double>();
                f.y = bounds[k][1].get<double>();
                f.w = bounds[k][2].get<double>();
                f.h = bounds[k][3].get<double>();
            }
            if (k < styles.size() && styles[k].is_array()) {
                const json& s = styles[k];
                if (s.size() > 0) f.pointer = detail::snap_string(strings, s[0]) == "pointer";
                if (s.size() > 1 && detail::snap_string(strings, s[1]) == "none") f.hidden = true;
                if (s.size() > 2) {
                    const auto v = detail::snap_string(strings, s[2]);
                    if (v == "hidden" || v == "collapse") f.hidden = true;
                }
            }
        }
    }
    return out;
}

// ---------------------------------------------------------------------------------------------
// Refs
// ---------------------------------------------------------------------------------------------

/// What a ref stands for: one node of one document.
struct ref_target {
    std::string session_id;  ///< the CDP session of the node's renderer (empty: the page session)
    std::string frame_id;
    std::string loader_id;   ///< the document (a navigation makes a new loader)
    std::int64_t backend_node_id = 0;
    std::string role;
    std::string name;
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

    /// Retire every ref of a frame whose document is no longer `current_loader`.
    void frame_navigated(const std::string& frame_id, const std::string& current_loader) {
        std::lock_guard lock(mu_);
        for (auto it = targets_.begin(); it != targets_.end();) {
            if (it->second.frame_id == frame_id && it->second.loader_id != current_loader) {
                stale_.emplace(it->first, it->second.role + " \"" + it->second.name + "\"");
                by_node_.erase(key{it->second.session_id, it->second.loader_id, it->second.backend_node_id});
                it = targets_.erase(it);
            } else {
                ++it;
            }
        }
    }

    /// Retire one ref (its node is gone from the document).
    void retire(std::string_view ref) {
        std::lock_guard lock(mu_);
        auto id = parse(ref);
        if (!id) return;
        if (auto it = targets_.find(*id); it != targets_.end()) {
            stale_.emplace(it->first, it->second.role + " \"" + it->second.name + "\"");
            by_node_.erase(key{it->second.session_id, it->second.loader_id, it->second.backend_node_id});
            targets_.erase(it);
        }
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
    mutable std::mutex mu_;
    std::map<key, std::uint64_t> by_node_;
    std::map<std::uint64_t, ref_target> targets_;
    std::map<std::uint64_t, std::string> stale_;
    std::uint64_t next_ = 1;
};

// ---------------------------------------------------------------------------------------------
// Rendering
// ---------------------------------------------------------------------------------------------

/// One frame's accessibility tree, as Accessibility.getFullAXTree returned it.
struct ax_frame {
    std::string session_id;  ///< CDP session of the frame's renderer (empty: the page session)
    std::string frame_id;
    std::string loader_id;
    std::string url;
    json nodes;  ///< the `nodes` array
    /// For an out-of-process frame: its <iframe> element in the parent (session, backend id).
    std::string owner_session_id;
    std::int64_t owner_backend_id = 0;
};

struct snapshot_options {
    /// Token budget for the snapshot text (0: unlimited).
    std::size_t token_budget = 6000;
    /// Render only the subtree of this ref.
    std::string root_ref;
    /// Only elements whose box intersects the viewport (and their structure).
    bool viewport_only = false;
    /// Only elements a model can act on (and the structure around them).
    bool interactive_only = false;
    /// Longest accessible name or text run kept on one line (characters).
    std::size_t max_text = 160;
    /// Options of a select listed inline up to this many.
    std::size_t max_inline_options = 12;
};

/// One rendered line.
struct snapshot_line {
    std::size_t depth = 0;
    std::string text;  ///< without indentation
    std::string ref;   ///< empty for structure and text
    bool interactive = false;
    bool structural = false;  ///< a container line (kept when any descendant is kept)
    std::size_t parent = static_cast<std::size_t>(-1);  ///< index of the enclosing structural line
};

struct snapshot {
    std::vector<snapshot_line> lines;  ///< every line, before the budget
    std::string text;                  ///< what the model sees (within budget, with the cut note)
    std::size_t tokens = 0;            ///< tokens of `text`
    std::size_t total_tokens = 0;      ///< tokens of all lines, had nothing been cut
    std::size_t shown_lines = 0;
    std::size_t cut_text_lines = 0;
    std::size_t cut_controls = 0;
    std::string full_text;  ///< every line (what a budget cut can be read back from)
    [[nodiscard]] bool truncated() const noexcept { return cut_text_lines + cut_controls > 0; }
};

namespace detail {

inline bool role_in(std::string_view role, std::initializer_list<std::string_view> set) {
    for (auto r : set)
        if (r == role) return true;
    return false;
}

inline bool is_interactive_role(std::string_view r) {
    return role_in(r, {"button", "link", "textbox", "searchbox", "combobox", "listbox", "checkbox", "radio", "switch",
                       "slider", "spinbutton", "menuitem", "menuitemcheckbox", "menuitemradio", "tab", "treeitem",
                       "option", "DisclosureTriangle", "scrollbar", "ComboBoxMenuButton", "ComboBoxSelect",
                       "PopUpButton", "ToggleButton", "MenuListOption", "colorwell", "ColorWell", "InputTime", "Date",
                       "DateTime", "textbox", "columnheader", "gridcell"}) &&
           r != "columnheader" && r != "gridcell";
}

/// Roles whose line adds nothing: their children are rendered in their place.
inline bool is_transparent_role(std::string_view r) {
    return role_in(r, {"generic", "none", "presentation", "GenericContainer", "Section", "paragraph", "LabelText",
                       "Div", "group", "list", "Pre", "Abbr", "Ruby", "Mark", "emphasis", "strong", "subscript",
                       "superscript", "time", "code", "Canvas", "Legend", "Caption", "Figcaption", "blockquote",
                       "DescriptionList", "term", "definition", "insertion", "deletion", "Unknown", "RootWebArea",
                       "WebArea", "article", "figure", "Details", "SectionFooter", "SectionHeader", "sectionheader",
                       "sectionfooter", "MenuListPopup", "log", "status", "timer", "marquee", "note", "math",
                       "LayoutTable", "LayoutTableRow", "LayoutTableCell", "Iframe", "IframePresentational",
                       "Audio", "Video", "EmbeddedObject", "PluginObject", "ListMarker", "listitem", "Label"});
}

/// Landmarks and containers that get a one-word line of their own.
inline bool is_structural_role(std::string_view r) {
    return role_in(r, {"navigation", "main", "banner", "contentinfo", "complementary", "form", "search", "region",
                       "dialog", "alertdialog", "alert", "menu", "menubar", "tablist", "tabpanel", "toolbar", "tree",
                       "grid", "table", "radiogroup", "listbox", "feed"});
}

inline std::string clip(std::string s, std::size_t max) {
    for (auto& c : s)
        if (c == '\n' || c == '\r' || c == '\t') c = ' ';
    // collapse runs of spaces
    std::string out;
    out.reserve(s.size());
    bool sp = false;
    for (char c : s) {
        if (c == ' ') {
            if (!sp && !out.empty()) out += ' ';
            sp = true;
        } else {
            out += c;
            sp = false;
        }
    }
    while (!out.empty() && out.back() == ' ') out.pop_back();
    if (out.size() > max) {
        out.resize(utf8_safe_prefix(out, max));
        out += "…";
    }
    return out;
}

inline std::string quote_text(std::string_view s) {
    std::string o = "\"";
    for (char c : s) {
        if (c == '"') o += "\\\"";
        else o += c;
    }
    o += '"';
    return o;
}

inline std::string prop_value(const json& node, std::string_view name) {
    auto it = node.find("properties");
    if (it == node.end()) return {};
    for (const auto& p : *it) {
        if (p.value("name", "") != name) continue;
        const json& v = p.contains("value") ? p["value"] : json();
        if (!v.contains("value")) return "";
        const json& vv = v["value"];
        if (vv.is_string()) return vv.get<std::string>();
        if (vv.is_boolean()) return vv.get<bool>() ? "true" : "false";
        if (vv.is_number_integer()) return std::to_string(vv.get<std::int64_t>());
        if (vv.is_number()) return json(vv).dump();
        return "";
    }
    return {};
}

inline std::string str_field(const json& node, const char* field) {
    auto it = node.find(field);
    if (it == node.end() || !it->is_object()) return {};
    auto v = it->find("value");
    if (v == it->end()) return {};
    if (v->is_string()) return v->get<std::string>();
    if (v->is_number()) return v->dump();
    return {};
}

/// Shorten a URL relative to the page: same origin → path; same page → #fragment.
inline std::string short_url(std::string_view url, std::string_view page) {
    auto origin_of = [](std::string_view u) -> std::string_view {
        auto s = u.find("://");
        if (s == std::string_view::npos) return {};
        auto e = u.find('/', s + 3);
        return u.substr(0, e == std::string_view::npos ? u.size() : e);
    };
    auto o = origin_of(page);
    if (!o.empty() && url.size() >= o.size() && url.substr(0, o.size()) == o) {
        std::string_view rest = url.substr(o.size());
        if (rest.empty()) return "/";
        auto page_rest = page.substr(o.size());
        auto hash = rest.find('#');
        if (hash != std::string_view::npos) {
            auto ph = page_rest.find('#');
            if (rest.substr(0, hash) == page_rest.substr(0, ph)) return std::string(rest.substr(hash));
        }
        return std::string(rest);
    }
    if (url.rfind("javascript:", 0) == 0) return {};
    return std::string(url);
}

/// A label for a control the page left unnamed: DOM hints first, then a positional one.
inline std::string fallback_label(const dom_node_facts* f) {
    if (f == nullptr) return {};
    for (auto a : {"title", "aria-describedby", "data-testid", "data-test", "name", "id", "alt", "placeholder"}) {
        auto v = f->attr(a);
        if (!v.empty() && v.size() < 60) return std::string(v);
    }
    auto cls = f->attr("class");
    // class tokens that say what an icon is: icon-close, fa-search, btn-menu ...
    std::string best;
    std::size_t i = 0;
    while (i < cls.size()) {
        auto j = cls.find(' ', i);
        auto tok = cls.substr(i, j == std::string_view::npos ? std::string_view::npos : j - i);
        for (auto pre : {"icon-", "fa-", "bi-", "glyph-", "btn-", "ico-", "mdi-"})
            if (tok.rfind(pre, 0) == 0 && tok.size() > std::string_view(pre).size()) best = std::string(tok.substr(std::string_view(pre).size()));
        if (j == std::string_view::npos) break;
        i = j + 1;
    }
    return best;
}

struct render_ctx {
    const std::vector<ax_frame>* frames;
    const std::map<std::string, dom_index>* dom;
    ref_registry* refs;
    const snapshot_options* opt;
    std::vector<snapshot_line>* lines;
    std::unordered_map<std::string, std::size_t> frame_by_id;
    std::set<std::string> visited_frames;
    std::size_t unnamed_counter = 0;
    int suppress_text = 0;
};

struct frame_view {
    const ax_frame* frame;
    const dom_index* dom;
    std::unordered_map<std::string, const json*> by_id;
};

inline void render_node(render_ctx& c, const frame_view& fv, const json& node, std::size_t depth, std::size_t parent,
                        bool inside_interactive, std::string& pending_prefix);

inline void render_children(render_ctx& c, const frame_view& fv, const json& node, std::size_t depth,
                            std::size_t parent, bool inside_interactive, std::string& pending_prefix) {
    auto it = node.find("childIds");
    if (it == node.end()) return;
    for (const auto& cid : *it) {
        if (!cid.is_string()) continue;
        auto f = fv.by_id.find(cid.get<std::string>());
        if (f != fv.by_id.end()) render_node(c, fv, *f->second, depth, parent, inside_interactive, pending_prefix);
    }
}

/// Concatenated static text below a node (for rows and names of clickable containers).
inline void collect_text(const frame_view& fv, const json& node, std::string& out, std::size_t limit) {
    if (out.size() > limit) return;
    const std::string role = str_field(node, "role");
    if (role == "StaticText") {
        auto t = str_field(node, "name");
        if (!t.empty()) {
            if (!out.empty() && out.back() != ' ') out += ' ';
            out += t;
        }
        return;
    }
    auto it = node.find("childIds");
    if (it == node.end()) return;
    for (const auto& cid : *it) {
        if (!cid.is_string()) continue;
        auto f = fv.by_id.find(cid.get<std::string>());
        if (f != fv.by_id.end()) collect_text(fv, *f->second, out, limit);
    }
}

inline bool has_interactive_descendant(const frame_view& fv, const json& node, int budget = 400) {
    auto it = node.find("childIds");
    if (it == node.end()) return false;
    for (const auto& cid : *it) {
        if (--budget < 0) return true;
        if (!cid.is_string()) continue;
        auto f = fv.by_id.find(cid.get<std::string>());
        if (f == fv.by_id.end()) continue;
        const json& ch = *f->second;
        if (is_interactive_role(str_field(ch, "role"))) return true;
        if (ch.contains("backendDOMNodeId") && fv.dom != nullptr) {
            if (auto* df = fv.dom->find(ch["backendDOMNodeId"].get<std::int64_t>()); df != nullptr && df->clickable &&
                                                                                    df->tag != "label")
                return true;
        }
        if (has_interactive_descendant(fv, ch, budget)) return true;
    }
    return false;
}

inline std::size_t push_line(render_ctx& c, std::size_t depth, std::string text, std::string ref, bool interactive,
                             bool structural, std::size_t parent, std::string& pending_prefix) {
    snapshot_line l;
    l.depth = depth;
    l.text = pending_prefix.empty() ? std::move(text) : pending_prefix + text;
    pending_prefix.clear();
    l.ref = std::move(ref);
    l.interactive = interactive;
    l.structural = structural;
    l.parent = parent;
    c.lines->push_back(std::move(l));
    return c.lines->size() - 1;
}

inline void render_frame(render_ctx& c, std::size_t frame_index, std::size_t depth, std::size_t parent,
                         std::string& pending_prefix);

inline void render_node(render_ctx& c, const frame_view& fv, const json& node, std::size_t depth, std::size_t parent,
                        bool inside_interactive, std::string& pending_prefix) {
    const snapshot_options& opt = *c.opt;
    const std::string role = str_field(node, "role");
    const bool ignored = node.value("ignored", false);
    std::int64_t backend = 0;
    if (auto b = node.find("backendDOMNodeId"); b != node.end() && b->is_number_integer()) backend = b->get<std::int64_t>();
    const dom_node_facts* df = (backend != 0 && fv.dom != nullptr) ? fv.dom->find(backend) : nullptr;

    if (role == "InlineTextBox") return;
    if (ignored) {
        render_children(c, fv, node, depth, parent, inside_interactive, pending_prefix);
        return;
    }
    if (opt.viewport_only && df != nullptr && df->has_box && fv.dom != nullptr && !fv.dom->in_viewport(*df) &&
        role != "RootWebArea")
        return;

    // Frames: render the child document in place.
    if ((role == "Iframe" || role == "IframePresentational") && fv.dom != nullptr) {
        if (auto fo = fv.dom->frame_owners.find(backend); fo != fv.dom->frame_owners.end()) {
            if (auto fi = c.frame_by_id.find(fo->second); fi != c.frame_by_id.end()) {
                const std::size_t l = push_line(c, depth, "iframe", "", false, true, parent, pending_prefix);
                render_frame(c, fi->second, depth + 1, l, pending_prefix);
                return;
            }
        }
    }
    if (role == "Iframe" || role == "IframePresentational") {
        // an out-of-process frame: matched by its owner element
        for (std::size_t i = 1; i < c.frames->size(); ++i) {
            const auto& fr = (*c.frames)[i];
            if (fr.owner_backend_id == backend && fr.owner_session_id == fv.frame->session_id) {
                const std::size_t l = push_line(c, depth, "iframe", "", false, true, parent, pending_prefix);
                render_frame(c, i, depth + 1, l, pending_prefix);
                return;
            }
        }
        return;
    }

    if (role == "StaticText") {
        if (inside_interactive || opt.interactive_only || c.suppress_text > 0) return;
        std::string t = clip(str_field(node, "name"), opt.max_text * 4);
        if (t.empty()) return;
        // Merge with a preceding text line of the same parent (inline runs).
        auto& L = *c.lines;
        if (!L.empty() && pending_prefix.empty() && !L.back().interactive && !L.back().structural &&
            L.back().depth == depth && L.back().parent == parent && L.back().text.size() + t.size() < opt.max_text * 4) {
            L.back().text += ' ';
            L.back().text += t;
            return;
        }
        push_line(c, depth, std::move(t), "", false, false, parent, pending_prefix);
        return;
    }

    std::string name = clip(str_field(node, "name"), opt.max_text);
    const bool dom_clickable = df != nullptr && ((df->clickable && df->tag != "label" && df->tag != "body" &&
                                                  df->tag != "html") ||
                                                 (df->pointer && !inside_interactive));
    const bool interactive_role = is_interactive_role(role) && !(role == "option" && inside_interactive);
    const bool interactive = !inside_interactive && (interactive_role || (dom_clickable && !is_structural_role(role)));

    if (role == "heading") {
        std::string lvl = prop_value(node, "level");
        std::string text = "h" + (lvl.empty() ? std::string("") : lvl) + " " + quote_text(name);
        if (interactive) {
            text += " [ref=" + c.refs->ref_for(fv.frame->session_id, fv.frame->frame_id, fv.frame->loader_id, backend,
                                                role, name) + "]";
        }
        if (!opt.interactive_only || interactive) push_line(c, depth, std::move(text), "", interactive, false, parent, pending_prefix);
        // links inside headings still need refs
        if (has_interactive_descendant(fv, node)) {
            std::string none;
            render_children(c, fv, node, depth + 1, parent, false, none);
        }
        return;
    }

    if (role == "row" || role == "LayoutTableRow") {
        if (!has_interactive_descendant(fv, node)) {
            if (opt.interactive_only) return;
            std::string cells;
            auto it = node.find("childIds");
            if (it != node.end()) {
                for (const auto& cid : *it) {
                    auto f = fv.by_id.find(cid.get<std::string>());
                    if (f == fv.by_id.end()) continue;
                    std::string cell;
                    collect_text(fv, *f->second, cell, opt.max_text);
                    if (!cells.empty()) cells += " | ";
                    cells += clip(cell, opt.max_text);
                }
            }
            if (!cells.empty()) push_line(c, depth, "row: " + cells, "", false, false, parent, pending_prefix);
            return;
        }
    }

    if (role == "LabelText" || role == "Label") {
        // A label's text is the accessible name of its control: render only the controls.
        ++c.suppress_text;
        render_children(c, fv, node, depth, parent, inside_interactive, pending_prefix);
        --c.suppress_text;
        return;
    }

    if (role == "listitem") {
        std::string prefix = "- ";
        std::string& pp = pending_prefix.empty() ? prefix : pending_prefix;
        render_children(c, fv, node, depth, parent, inside_interactive, pp);
        if (&pp == &prefix) prefix.clear();
        return;
    }

    if (interactive) {
        std::string shown_role = role;
        if (!interactive_role) shown_role = "clickable";
        if (role == "DisclosureTriangle") shown_role = "summary";
        if (role == "ComboBoxSelect" || role == "ComboBoxMenuButton" || role == "PopUpButton") shown_role = "combobox";
        if (role == "ToggleButton") shown_role = "button";
        if (name.empty() && !interactive_role) {
            std::string t;
            collect_text(fv, node, t, opt.max_text);
            name = clip(t, opt.max_text);
        }
        std::string text = shown_role;
        if (!name.empty()) {
            text += ' ';
            text += quote_text(name);
        } else if (role != "textbox" && role != "combobox" && role != "searchbox" && role != "ComboBoxSelect") {
            std::string hint = fallback_label(df);
            if (hint.empty()) hint = "unlabeled #" + std::to_string(++c.unnamed_counter);
            text += " [" + clip(hint, 40) + "]";
        }
        // state
        const std::string checked = prop_value(node, "checked");
        if (checked == "true") text += " checked";
        else if (checked == "mixed") text += " mixed";
        else if (checked == "false" && (role == "checkbox" || role == "radio" || role == "switch" ||
                                        role == "menuitemcheckbox" || role == "menuitemradio"))
            text += " unchecked";
        const std::string pressed = prop_value(node, "pressed");
        if (pressed == "true") text += " pressed";
        const std::string expanded = prop_value(node, "expanded");
        if (expanded == "true") text += " expanded";
        else if (expanded == "false" && role != "combobox") text += " collapsed";
        if (prop_value(node, "selected") == "true") text += " selected";
        if (prop_value(node, "disabled") == "true") text += " disabled";
        if (prop_value(node, "required") == "true") text += " required";
        if (prop_value(node, "readonly") == "true" && role != "link" && role != "button") text += " readonly";
        if (prop_value(node, "focused") == "true") text += " focused";
        if (prop_value(node, "invalid") == "true") text += " invalid";
        if (role == "textbox" && prop_value(node, "multiline") == "true") text += " multiline";
        std::string value = str_field(node, "value");
        if (role == "link") {
            std::string url = short_url(prop_value(node, "url"), fv.frame->url);
            if (!url.empty()) text += " " + clip(url, 120);
        } else if (!value.empty() || role == "textbox" || role == "searchbox") {
            if (role == "textbox" || role == "searchbox" || role == "combobox" || role == "spinbutton" ||
                role == "slider" || role == "ComboBoxSelect") {
                if (!value.empty()) text += " = " + quote_text(clip(value, opt.max_text));
                else if (df != nullptr) {
                    auto ph = df->attr("placeholder");
                    if (!ph.empty() && ph != name) text += " placeholder=" + quote_text(clip(std::string(ph), 60));
                }
            }
        }
        if (role == "combobox" || role == "listbox" || role == "ComboBoxSelect") {
            // list the options inline
            std::vector<std::string> opts;
            std::size_t total = 0;
            std::vector<const json*> stack{&node};
            while (!stack.empty()) {
                const json* n = stack.back();
                stack.pop_back();
                auto it = n->find("childIds");
                if (it == n->end()) continue;
                for (auto ci = it->rbegin(); ci != it->rend(); ++ci) {
                    auto f = fv.by_id.find(ci->get<std::string>());
                    if (f == fv.by_id.end()) continue;
                    if (str_field(*f->second, "role") == "option") {
                        ++total;
                        opts.push_back(clip(str_field(*f->second, "name"), 40));
                    } else {
                        stack.push_back(f->second);
                    }
                }
            }
            if (!opts.empty()) {
                std::reverse(opts.begin(), opts.end());
                if (opts.size() <= opt.max_inline_options) text += " options: " + join(opts, "|");
                else text += " (" + std::to_string(total) + " options)";
            }
        }
        std::string ref = c.refs->ref_for(fv.frame->session_id, fv.frame->frame_id, fv.frame->loader_id, backend,
                                          shown_role, name);
        text += " [ref=" + ref + "]";
        const std::size_t me = push_line(c, depth, std::move(text), ref, true, false, parent, pending_prefix);
        // Controls inside a clickable/link/button (rare): render them below it.
        if (role != "combobox" && role != "listbox" && role != "ComboBoxSelect" && has_interactive_descendant(fv, node)) {
            std::string none;
            render_children(c, fv, node, depth + 1, me, false, none);
        }
        return;
    }

    if (is_structural_role(role)) {
        std::string text = role;
        if (!name.empty() && role != "form") text += " " + quote_text(name);
        const std::size_t me = push_line(c, depth, std::move(text), "", false, true, parent, pending_prefix);
        render_children(c, fv, node, depth + 1, me, inside_interactive, pending_prefix);
        return;
    }

    if (role == "img" || role == "image" || role == "graphics-document" || role == "graphics-symbol" || role == "svg") {
        if (opt.interactive_only || inside_interactive) return;
        if (!name.empty()) push_line(c, depth, "img " + quote_text(name), "", false, false, parent, pending_prefix);
        return;
    }

    if (!is_transparent_role(role) && !name.empty() && !opt.interactive_only && !inside_interactive) {
        // other named semantic nodes (e.g. cell, term, tooltip): role "name", then children
        push_line(c, depth, role + " " + quote_text(name), "", false, false, parent, pending_prefix);
        if (has_interactive_descendant(fv, node)) render_children(c, fv, node, depth + 1, parent, false, pending_prefix);
        return;
    }
    render_children(c, fv, node, depth, parent, inside_interactive, pending_prefix);
}

inline void render_frame(render_ctx& c, std::size_t frame_index, std::size_t depth, std::size_t parent,
                         std::string& pending_prefix) {
    const ax_frame& fr = (*c.frames)[frame_index];
    if (!c.visited_frames.insert(fr.frame_id + "|" + fr.session_id).second) return;
    frame_view fv;
    fv.frame = &fr;
    auto d = c.dom->find(fr.session_id);
    fv.dom = d == c.dom->end() ? nullptr : &d->second;
    if (!fr.nodes.is_array() || fr.nodes.empty()) return;
    for (const auto& n : fr.nodes)
        if (n.contains("nodeId") && n["nodeId"].is_string()) fv.by_id.emplace(n["nodeId"].get<std::string>(), &n);
    // the root: the node without a parent
    const json* root = &fr.nodes[0];
    for (const auto& n : fr.nodes)
        if (!n.contains("parentId")) {
            root = &n;
            break;
        }
    render_node(c, fv, *root, depth, parent, false, pending_prefix);
}

}  // namespace detail

/// Render frames (index 0 is the main frame; child frames are placed where their owner
/// <iframe> appears, found through `dom[session].frame_owners` for same-process frames and
/// `ax_frame::owner_*` for out-of-process ones).
[[nodiscard]] inline snapshot render_snapshot(const std::vector<ax_frame>& frames, const std::map<std::string, dom_index>& dom,
                                              ref_registry& refs, const snapshot_options& opt,
                                              const token_counter& tokens = {}) {
    snapshot out;
    if (frames.empty()) return out;
    detail::render_ctx c;
    c.frames = &frames;
    c.dom = &dom;
    c.refs = &refs;
    c.opt = &opt;
    c.lines = &out.lines;
    for (std::size_t i = 0; i < frames.size(); ++i) c.frame_by_id.emplace(frames[i].frame_id, i);
    std::string prefix;
    detail::render_frame(c, 0, 0, static_cast<std::size_t>(-1), prefix);
    // Frames nobody placed (out-of-process frames whose owner was not matched): append them.
    for (std::size_t i = 1; i < frames.size(); ++i) {
        if (c.visited_frames.count(frames[i].frame_id + "|" + frames[i].session_id) != 0) continue;
        const std::size_t l = detail::push_line(c, 0, "iframe " + detail::quote_text(detail::short_url(frames[i].url, frames[0].url)),
                                                "", false, true, static_cast<std::size_t>(-1), prefix);
        detail::render_frame(c, i, 1, l, prefix);
    }

    // Structural lines with nothing under them are noise.
    {
        std::vector<bool> used(out.lines.size(), false);
        for (std::size_t i = 0; i < out.lines.size(); ++i) {
            if (out.lines[i].structural) continue;
            for (std::size_t p = out.lines[i].parent; p != static_cast<std::size_t>(-1) && !used[p]; p = out.lines[p].parent)
                used[p] = true;
        }
        std::vector<snapshot_line> kept;
        std::vector<std::size_t> remap(out.lines.size(), static_cast<std::size_t>(-1));
        for (std::size_t i = 0; i < out.lines.size(); ++i) {
            if (out.lines[i].structural && !used[i]) continue;
            remap[i] = kept.size();
            kept.push_back(out.lines[i]);
        }
        for (auto& l : kept)
            if (l.parent != static_cast<std::size_t>(-1)) l.parent = remap[l.parent];
        out.lines = std::move(kept);
    }

    // Root subtree: keep only the lines below the ref's line.
    if (!opt.root_ref.empty()) {
        std::vector<snapshot_line> sub;
        for (std::size_t i = 0; i < out.lines.size(); ++i) {
            if (out.lines[i].ref != opt.root_ref) continue;
            const std::size_t base = out.lines[i].depth;
            sub.push_back(out.lines[i]);
            sub.back().depth = 0;
            for (std::size_t j = i + 1; j < out.lines.size() && out.lines[j].depth > base; ++j) {
                sub.push_back(out.lines[j]);
                sub.back().depth -= base;
            }
            break;
        }
        for (auto& l : sub) l.parent = static_cast<std::size_t>(-1);
        out.lines = std::move(sub);
    }

    auto render_line = [](const snapshot_line& l) {
        std::string s(l.depth, ' ');
        s += l.text;
        s += '\n';
        return s;
    };
    std::vector<std::size_t> cost(out.lines.size());
    for (std::size_t i = 0; i < out.lines.size(); ++i) {
        std::string s = render_line(out.lines[i]);
        cost[i] = tokens.count(s);
        out.total_tokens += cost[i];
        out.full_text += s;
    }

    std::vector<bool> keep(out.lines.size(), true);
    if (opt.token_budget > 0 && out.total_tokens > opt.token_budget) {
        // Interactive lines (and the structure above them) first, in document order; then text.
        std::fill(keep.begin(), keep.end(), false);
        std::size_t used = 0;
        const std::size_t reserve = std::min<std::size_t>(60, opt.token_budget / 3);  // room for the cut note
        const std::size_t budget = opt.token_budget - reserve;
        auto take = [&](std::size_t i) -> bool {
            std::vector<std::size_t> chain;
            for (std::size_t p = out.lines[i].parent; p != static_cast<std::size_t>(-1) && !keep[p]; p = out.lines[p].parent)
                chain.push_back(p);
            std::size_t need = cost[i];
            for (auto p : chain) need += cost[p];
            if (used + need > budget) return false;
            used += need;
            keep[i] = true;
            for (auto p : chain) keep[p] = true;
            return true;
        };
        // Controls: the first ones in document order, up to the first that does not fit (a
        // contiguous prefix is predictable: "everything after X was cut").
        bool full = false;
        for (std::size_t i = 0; i < out.lines.size(); ++i)
            if (out.lines[i].interactive && (full || !take(i))) {
                full = true;
                ++out.cut_controls;
            }
        // headings next, then text in document order
        for (int pass = 0; pass < 2; ++pass)
            for (std::size_t i = 0; i < out.lines.size(); ++i) {
                const auto& l = out.lines[i];
                if (l.interactive || l.structural || keep[i]) continue;
                const bool heading = l.text.size() > 1 && l.text[0] == 'h' && l.text[1] >= '1' && l.text[1] <= '6';
                if ((pass == 0) != heading) continue;
                if (!take(i)) ++out.cut_text_lines;
            }
    }
    for (std::size_t i = 0; i < out.lines.size(); ++i) {
        if (!keep[i]) continue;
        out.text += render_line(out.lines[i]);
        ++out.shown_lines;
    }
    if (out.truncated()) {
        std::string note = "[snapshot cut to ~" + std::to_string(opt.token_budget) + " tokens: " +
                           std::to_string(out.cut_text_lines) + " text lines";
        if (out.cut_controls > 0) note += " and " + std::to_string(out.cut_controls) + " controls";
        note += " hidden of " + std::to_string(out.lines.size()) +
                ". To see them: snapshot a subtree by ref, use viewport_only, or search the page text]\n";
        out.text += note;
    }
    out.tokens = tokens.count(out.text);
    return out;
}

// ---------------------------------------------------------------------------------------------
// Deltas
// ---------------------------------------------------------------------------------------------

struct snapshot_delta {
    std::vector<std::string> added;
    std::vector<std::string> removed;
    std::vector<std::pair<std::string, std::string>> changed;  ///< same ref, new text (old, new)
    [[nodiscard]] bool empty() const noexcept { return added.empty() && removed.empty() && changed.empty(); }
};

/// What changed between two snapshots of the same page: lines matched by ref where they have
/// one, by text otherwise (a multiset difference, so repeated lines are counted).
[[nodiscard]] inline snapshot_delta diff_snapshots(const std::vector<snapshot_line>& before,
                                                   const std::vector<snapshot_line>& after) {
    snapshot_delta d;
    std::map<std::string, const snapshot_line*> before_ref;
    std::map<std::string, int> before_text;
    for (const auto& l : before) {
        if (!l.ref.empty()) before_ref[l.ref] = &l;
        else if (!l.structural) ++before_text[l.text];
    }
    std::set<std::string> seen_refs;
    for (const auto& l : after) {
        if (!l.ref.empty()) {
            seen_refs.insert(l.ref);
            auto it = before_ref.find(l.ref);
            if (it == before_ref.end()) d.added.push_back(l.text);
            else if (it->second->text != l.text) d.changed.emplace_back(it->second->text, l.text);
        } else if (!l.structural) {
            auto it = before_text.find(l.text);
            if (it != before_text.end() && it->second > 0) --it->second;
            else d.added.push_back(l.text);
        }
    }
    for (const auto& l : before) {
        if (!l.ref.empty()) {
            if (seen_refs.count(l.ref) == 0) d.removed.push_back(l.text);
        }
    }
    for (const auto& [text, n] : before_text)
        for (int i = 0; i < n; ++i) d.removed.push_back(text);
    return d;
}

/// The delta as compact text within a token budget: "+ line", "- line", "~ old → new".
[[nodiscard]] inline std::string format_delta(const snapshot_delta& d, std::size_t token_budget = 800,
                                              const token_counter& tokens = {}) {
    if (d.empty()) return "no visible change";
    std::string out;
    std::size_t used = 0;
    std::size_t dropped = 0;
    auto add = [&](std::string line) {
        const std::size_t t = tokens.count(line);
        if (token_budget > 0 && used + t > token_budget) {
            ++dropped;
            return;
        }
        used += t;
        out += line;
    };
    for (const auto& [a, b] : d.changed) add("~ " + a + " → " + b + "\n");
    for (const auto& a : d.added) add("+ " + a + "\n");
    for (const auto& r : d.removed) add("- " + r + "\n");
    if (dropped > 0) out += "(" + std::to_string(dropped) + " more changes; take a snapshot to see the page)\n";
    return out;
}

}  // namespace agentkit::browser
// ---- end <agentkit/browser/snapshot.hpp> ----
// ---- begin <agentkit/core/describe.hpp> ----
// agentkit/core/describe.hpp — describe a C++ struct once; agentkit derives its JSON Schema,
// its parser/validator and its serializer from that one description.
//
//   struct search_args {
//       std::string query;
//       std::optional<int> limit;
//       sort_order order = sort_order::relevance;
//
//       static constexpr auto agentkit_fields() {
//           namespace ak = agentkit;
//           return ak::fields(
//               AGENTKIT_FIELD(search_args, query, "What to search for", ak::min_length(1)),
//               AGENTKIT_FIELD(search_args, limit, "Maximum results", ak::range(1, 100)),
//               ak::field(&search_args::order, "order", "Sort order"));
//       }
//   };
//   AGENTKIT_ENUM(sort_order, relevance, newest);   // enums are described by their names
//
// Types you cannot change are described by specialising agentkit::describe<T> with a static
// `fields()` function returning the same thing.


#include <array>
#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <unordered_map>
#include <utility>
#include <vector>

namespace agentkit {

// ---------------------------------------------------------------------------------------------
// Constraints. Each is a small literal type that adds keywords to a schema; the validator in
// core/parse.hpp checks the same keywords, so the schema and the checks cannot drift apart.
// ---------------------------------------------------------------------------------------------
namespace constraint {
struct minimum_t { double value; bool exclusive; };
struct maximum_t { double value; bool exclusive; };
struct min_length_t { std::size_t value; };
struct max_length_t { std::size_t value; };
struct pattern_t { std::string_view regex; };
struct format_t { std::string_view name; };
struct min_items_t { std::size_t value; };
struct max_items_t { std::size_t value; };
template <std::size_t N>
struct one_of_t { std::array<std::string_view, N> values; };
struct default_t {
    enum class kind : std::uint8_t { boolean, integer, number, string } k;
    bool b = false;
    long long i = 0;
    double d = 0;
    std::string_view s{};
};
struct example_t { std::string_view json_text; };
}  // namespace constraint

/// Inclusive lower bound for a number.
[[nodiscard]] constexpr constraint::minimum_t minimum(double v) noexcept { return {v, false}; }
/// Inclusive upper bound for a number.
[[nodiscard]] constexpr constraint::maximum_t maximum(double v) noexcept { return {v, false}; }
/// Exclusive lower bound for a number.
[[nodiscard]] constexpr constraint::minimum_t exclusive_minimum(double v) noexcept { return {v, true}; }
/// Exclusive upper bound for a number.
[[nodiscard]] constexpr constraint::maximum_t exclusive_maximum(double v) noexcept { return {v, true}; }
/// Inclusive bounds for a number: `range(1, 100)`.
[[nodiscard]] constexpr std::pair<constraint::minimum_t, constraint::maximum_t> range(double lo, double hi) noexcept {
    return {{lo, false}, {hi, false}};
}
/// Minimum string length in Unicode code points.
[[nodiscard]] constexpr constraint::min_length_t min_length(std::size_t n) noexcept { return {n}; }
/// Maximum string length in Unicode code points.
[[nodiscard]] constexpr constraint::max_length_t max_length(std::size_t n) noexcept { return {n}; }
/// An ECMAScript regular expression the string must match (searched, as JSON Schema does).
[[nodiscard]] constexpr constraint::pattern_t pattern(std::string_view re) noexcept { return {re}; }
/// A JSON Schema format: "uri", "email", "date-time", "date", "time", "uuid", "hostname", "ipv4".
[[nodiscard]] constexpr constraint::format_t format(std::string_view name) noexcept { return {name}; }
/// Minimum number of array items.
[[nodiscard]] constexpr constraint::min_items_t min_items(std::size_t n) noexcept { return {n}; }
/// Maximum number of array items.
[[nodiscard]] constexpr constraint::max_items_t max_items(std::size_t n) noexcept { return {n}; }
/// The string must be one of these values: `one_of("png", "jpeg")`.
template <class... S>
[[nodiscard]] constexpr constraint::one_of_t<sizeof...(S)> one_of(const S&... values) noexcept {
    return {{std::string_view(values)...}};
}
/// A default shown in the schema (the C++ default member initializer is what applies).
[[nodiscard]] constexpr constraint::default_t default_value(bool v) noexcept {
    return {constraint::default_t::kind::boolean, v, 0, 0, {}};
}
[[nodiscard]] constexpr constraint::default_t default_value(int v) noexcept {
    return {constraint::default_t::kind::integer, false, v, 0, {}};
}
[[nodiscard]] constexpr constraint::default_t default_value(long long v) noexcept {
    return {constraint::default_t::kind::integer, false, v, 0, {}};
}
[[nodiscard]] constexpr constraint::default_t default_value(double v) noexcept {
    return {constraint::default_t::kind::number, false, 0, v, {}};
}
[[nodiscard]] constexpr constraint::default_t default_value(const char* v) noexcept {
    return {constraint::default_t::kind::string, false, 0, 0, std::string_view(v)};
}
/// An example value, as JSON text, listed in the schema's `examples`.
[[nodiscard]] constexpr constraint::example_t example(std::string_view json_text) noexcept { return {json_text}; }

// ---------------------------------------------------------------------------------------------
// Fields
// ---------------------------------------------------------------------------------------------

/// One described data member: pointer to member, JSON name, description, constraints.
template <class Class, class Member, class... Cs>
struct field_t {
    using class_type = Class;
    using member_type = Member;
    Member Class::*ptr;
    std::string_view name;
    std::string_view description;
    std::tuple<Cs...> constraints;
};

namespace detail {
template <class T>
struct flatten_constraint {
    static constexpr auto get(const T& c) { return std::tuple<T>(c); }
};
template <class A, class B>
struct flatten_constraint<std::pair<A, B>> {
    static constexpr auto get(const std::pair<A, B>& p) { return std::tuple<A, B>(p.first, p.second); }
};
}  // namespace detail

/// Describe one data member. `name` is its JSON property name; `description` tells the model
/// what it means. Constraints follow: `field(&args::limit, "limit", "Max results", range(1, 50))`.
template <class Class, class Member, class... Cs>
[[nodiscard]] constexpr auto field(Member Class::*ptr, std::string_view name, std::string_view description,
                                   const Cs&... cs) {
    auto flat = std::tuple_cat(detail::flatten_constraint<Cs>::get(cs)...);
    return std::apply(
        [&](const auto&... c) {
            return field_t<Class, Member, std::decay_t<decltype(c)>...>{ptr, name, description, {c...}};
        },
        flat);
}

/// The list of a type's fields, in the order the schema lists them.
template <class... Fs>
[[nodiscard]] constexpr std::tuple<Fs...> fields(const Fs&... fs) {
    return std::tuple<Fs...>(fs...);
}

/// `AGENTKIT_FIELD(type, member, "description", constraints...)`: a field whose JSON name is the
/// member's own name.
#define AGENTKIT_FIELD(Type, member, ...) ::agentkit::field(&Type::member, #member, __VA_ARGS__)

/// Specialise to describe a type you cannot modify: `static constexpr auto fields()` returning
/// `agentkit::fields(...)`; optionally `static constexpr std::string_view description`.
template <class T>
struct describe {};

/// Specialise (or use AGENTKIT_ENUM) to give an enum its JSON names:
/// `static constexpr std::array<std::pair<E, std::string_view>, N> values`.
template <class E>
struct enum_names {};

template <class T>
concept described = std::is_class_v<T> && (requires { describe<T>::fields(); } || requires { T::agentkit_fields(); });

template <class E>
concept named_enum = std::is_enum_v<E> && requires { enum_names<E>::values; };

/// The fields tuple of a described type.
template <described T>
[[nodiscard]] constexpr auto fields_of() {
    if constexpr (requires { describe<T>::fields(); })
        return describe<T>::fields();
    else
        return T::agentkit_fields();
}

/// The JSON name of an enumerator, or empty when it has none.
template <named_enum E>
[[nodiscard]] constexpr std::string_view enum_to_string(E v) noexcept {
    for (const auto& [value, name] : enum_names<E>::values)
        if (value == v) return name;
    return {};
}

/// The enumerator with that JSON name.
template <named_enum E>
[[nodiscard]] constexpr std::optional<E> enum_from_string(std::string_view s) noexcept {
    for (const auto& [value, name] : enum_names<E>::values)
        if (name == s) return value;
    return std::nullopt;
}

// ---------------------------------------------------------------------------------------------
// Type classification shared by schema, parse and serialize.
// ---------------------------------------------------------------------------------------------
namespace detail {
template <class T> struct is_optional : std::false_type {};
template <class T> struct is_optional<std::optional<T>> : std::true_type { using value_type = T; };
template <class T> struct is_vector : std::false_type {};
template <class T, class A> struct is_vector<std::vector<T, A>> : std::true_type { using value_type = T; };
template <class T> struct is_string_map : std::false_type {};
template <class V, class C, class A> struct is_string_map<std::map<std::string, V, C, A>> : std::true_type { using mapped_type = V; };
template <class V, class H, class E, class A> struct is_string_map<std::unordered_map<std::string, V, H, E, A>> : std::true_type { using mapped_type = V; };

template <class T>
inline constexpr bool is_integer_v = std::is_integral_v<T> && !std::is_same_v<T, bool> && !std::is_same_v<T, char>;

/// True when agentkit knows how to map T to JSON Schema.
template <class T>
constexpr bool is_supported() {
    if constexpr (std::is_same_v<T, bool> || is_integer_v<T> || std::is_floating_point_v<T> ||
                  std::is_same_v<T, std::string> || std::is_same_v<T, json>)
        return true;
    else if constexpr (std::is_enum_v<T>)
        return named_enum<T>;
    else if constexpr (is_optional<T>::value)
        return is_supported<typename is_optional<T>::value_type>();
    else if constexpr (is_vector<T>::value)
        return is_supported<typename is_vector<T>::value_type>();
    else if constexpr (is_string_map<T>::value)
        return is_supported<typename is_string_map<T>::mapped_type>();
    else
        return described<T>;
}

template <class C>
inline constexpr bool is_default_v = std::is_same_v<C, constraint::default_t>;

/// A field is required unless it is std::optional or has a default_value.
template <class F>
constexpr bool field_required() {
    using M = typename F::member_type;
    if constexpr (is_optional<M>::value) {
        return false;
    } else {
        return []<class... Cs>(std::tuple<Cs...>*) { return !(is_default_v<Cs> || ...); }(
            static_cast<decltype(F::constraints)*>(nullptr));
    }
}

}  // namespace detail

/// Fails to compile, with a readable message, when T cannot be used as a tool argument or result.
template <class T>
constexpr void require_describable() {
    if constexpr (std::is_enum_v<T>) {
        static_assert(named_enum<T>,
                      "agentkit: this enum has no JSON names: use AGENTKIT_ENUM(Enum, a, b, ...) or specialise "
                      "agentkit::enum_names<Enum>");
    } else if constexpr (std::is_class_v<T> && !std::is_same_v<T, std::string> && !std::is_same_v<T, json> &&
                         !detail::is_optional<T>::value && !detail::is_vector<T>::value &&
                         !detail::is_string_map<T>::value) {
        static_assert(described<T>,
                      "agentkit: argument type has no description: add `static constexpr auto agentkit_fields()` "
                      "returning agentkit::fields(...), or specialise agentkit::describe<T>");
    } else {
        static_assert(detail::is_supported<T>(),
                      "agentkit: unsupported member type: use bool, integers, floating point, std::string, "
                      "enums with names, std::optional, std::vector, std::map<std::string, T>, agentkit::json, "
                      "or a described struct");
    }
}

}  // namespace agentkit

// ---------------------------------------------------------------------------------------------
// AGENTKIT_ENUM(Enum, a, b, c): JSON names equal to the enumerator names (up to 32).
// ---------------------------------------------------------------------------------------------
#define AGENTKIT_DETAIL_ENUM_PAIR(E, v) std::pair<E, std::string_view>{E::v, #v}
#define AGENTKIT_DETAIL_EXPAND(x) x
#define AGENTKIT_DETAIL_FE_1(E, a) AGENTKIT_DETAIL_ENUM_PAIR(E, a)
#define AGENTKIT_DETAIL_FE_2(E, a, ...) AGENTKIT_DETAIL_ENUM_PAIR(E, a), AGENTKIT_DETAIL_EXPAND(AGENTKIT_DETAIL_FE_1(E, __VA_ARGS__))
#define AGENTKIT_DETAIL_FE_3(E, a, ...) AGENTKIT_DETAIL_ENUM_PAIR(E, a), AGENTKIT_DETAIL_EXPAND(AGENTKIT_DETAIL_FE_2(E, __VA_ARGS__))
#define AGENTKIT_DETAIL_FE_4(E, a, ...) AGENTKIT_DETAIL_ENUM_PAIR(E, a), AGENTKIT_DETAIL_EXPAND(AGENTKIT_DETAIL_FE_3(E, __VA_ARGS__))
#define AGENTKIT_DETAIL_FE_5(E, a, ...) AGENTKIT_DETAIL_ENUM_PAIR(E, a), AGENTKIT_DETAIL_EXPAND(AGENTKIT_DETAIL_FE_4(E, __VA_ARGS__))
#define AGENTKIT_DETAIL_FE_6(E, a, ...) AGENTKIT_DETAIL_ENUM_PAIR(E, a), AGENTKIT_DETAIL_EXPAND(AGENTKIT_DETAIL_FE_5(E, __VA_ARGS__))
#define AGENTKIT_DETAIL_FE_7(E, a, ...) AGENTKIT_DETAIL_ENUM_PAIR(E, a), AGENTKIT_DETAIL_EXPAND(AGENTKIT_DETAIL_FE_6(E, __VA_ARGS__))
#define AGENTKIT_DETAIL_FE_8(E, a, ...) AGENTKIT_DETAIL_ENUM_PAIR(E, a), AGENTKIT_DETAIL_EXPAND(AGENTKIT_DETAIL_FE_7(E, __VA_ARGS__))
#define AGENTKIT_DETAIL_FE_9(E, a, ...) AGENTKIT_DETAIL_ENUM_PAIR(E, a), AGENTKIT_DETAIL_EXPAND(AGENTKIT_DETAIL_FE_8(E, __VA_ARGS__))
#define AGENTKIT_DETAIL_FE_10(E, a, ...) AGENTKIT_DETAIL_ENUM_PAIR(E, a), AGENTKIT_DETAIL_EXPAND(AGENTKIT_DETAIL_FE_9(E, __VA_ARGS__))
#define AGENTKIT_DETAIL_FE_11(E, a, ...) AGENTKIT_DETAIL_ENUM_PAIR(E, a), AGENTKIT_DETAIL_EXPAND(AGENTKIT_DETAIL_FE_10(E, __VA_ARGS__))
#define AGENTKIT_DETAIL_FE_12(E, a, ...) AGENTKIT_DETAIL_ENUM_PAIR(E, a), AGENTKIT_DETAIL_EXPAND(AGENTKIT_DETAIL_FE_11(E, __VA_ARGS__))
#define AGENTKIT_DETAIL_FE_13(E, a, ...) AGENTKIT_DETAIL_ENUM_PAIR(E, a), AGENTKIT_DETAIL_EXPAND(AGENTKIT_DETAIL_FE_12(E, __VA_ARGS__))
#define AGENTKIT_DETAIL_FE_14(E, a, ...) AGENTKIT_DETAIL_ENUM_PAIR(E, a), AGENTKIT_DETAIL_EXPAND(AGENTKIT_DETAIL_FE_13(E, __VA_ARGS__))
#define AGENTKIT_DETAIL_FE_15(E, a, ...) AGENTKIT_DETAIL_ENUM_PAIR(E, a), AGENTKIT_DETAIL_EXPAND(AGENTKIT_DETAIL_FE_14(E, __VA_ARGS__))
#define AGENTKIT_DETAIL_FE_16(E, a, ...) AGENTKIT_DETAIL_ENUM_PAIR(E, a), AGENTKIT_DETAIL_EXPAND(AGENTKIT_DETAIL_FE_15(E, __VA_ARGS__))
#define AGENTKIT_DETAIL_FE_17(E, a, ...) AGENTKIT_DETAIL_ENUM_PAIR(E, a), AGENTKIT_DETAIL_EXPAND(AGENTKIT_DETAIL_FE_16(E, __VA_ARGS__))
#define AGENTKIT_DETAIL_FE_18(E, a, ...) AGENTKIT_DETAIL_ENUM_PAIR(E, a), AGENTKIT_DETAIL_EXPAND(AGENTKIT_DETAIL_FE_17(E, __VA_ARGS__))
#define AGENTKIT_DETAIL_FE_19(E, a, ...) AGENTKIT_DETAIL_ENUM_PAIR(E, a), AGENTKIT_DETAIL_EXPAND(AGENTKIT_DETAIL_FE_18(E, __VA_ARGS__))
#define AGENTKIT_DETAIL_FE_20(E, a, ...) AGENTKIT_DETAIL_ENUM_PAIR(E, a), AGENTKIT_DETAIL_EXPAND(AGENTKIT_DETAIL_FE_19(E, __VA_ARGS__))
#define AGENTKIT_DETAIL_FE_21(E, a, ...) AGENTKIT_DETAIL_ENUM_PAIR(E, a), AGENTKIT_DETAIL_EXPAND(AGENTKIT_DETAIL_FE_20(E, __VA_ARGS__))
#define AGENTKIT_DETAIL_FE_22(E, a, ...) AGENTKIT_DETAIL_ENUM_PAIR(E, a), AGENTKIT_DETAIL_EXPAND(AGENTKIT_DETAIL_FE_21(E, __VA_ARGS__))
#define AGENTKIT_DETAIL_FE_23(E, a, ...) AGENTKIT_DETAIL_ENUM_PAIR(E, a), AGENTKIT_DETAIL_EXPAND(AGENTKIT_DETAIL_FE_22(E, __VA_ARGS__))
#define AGENTKIT_DETAIL_FE_24(E, a, ...) AGENTKIT_DETAIL_ENUM_PAIR(E, a), AGENTKIT_DETAIL_EXPAND(AGENTKIT_DETAIL_FE_23(E, __VA_ARGS__))
#define AGENTKIT_DETAIL_FE_25(E, a, ...) AGENTKIT_DETAIL_ENUM_PAIR(E, a), AGENTKIT_DETAIL_EXPAND(AGENTKIT_DETAIL_FE_24(E, __VA_ARGS__))
#define AGENTKIT_DETAIL_FE_26(E, a, ...) AGENTKIT_DETAIL_ENUM_PAIR(E, a), AGENTKIT_DETAIL_EXPAND(AGENTKIT_DETAIL_FE_25(E, __VA_ARGS__))
#define AGENTKIT_DETAIL_FE_27(E, a, ...) AGENTKIT_DETAIL_ENUM_PAIR(E, a), AGENTKIT_DETAIL_EXPAND(AGENTKIT_DETAIL_FE_26(E, __VA_ARGS__))
#define AGENTKIT_DETAIL_FE_28(E, a, ...) AGENTKIT_DETAIL_ENUM_PAIR(E, a), AGENTKIT_DETAIL_EXPAND(AGENTKIT_DETAIL_FE_27(E, __VA_ARGS__))
#define AGENTKIT_DETAIL_FE_29(E, a, ...) AGENTKIT_DETAIL_ENUM_PAIR(E, a), AGENTKIT_DETAIL_EXPAND(AGENTKIT_DETAIL_FE_28(E, __VA_ARGS__))
#define AGENTKIT_DETAIL_FE_30(E, a, ...) AGENTKIT_DETAIL_ENUM_PAIR(E, a), AGENTKIT_DETAIL_EXPAND(AGENTKIT_DETAIL_FE_29(E, __VA_ARGS__))
#define AGENTKIT_DETAIL_FE_31(E, a, ...) AGENTKIT_DETAIL_ENUM_PAIR(E, a), AGENTKIT_DETAIL_EXPAND(AGENTKIT_DETAIL_FE_30(E, __VA_ARGS__))
#define AGENTKIT_DETAIL_FE_32(E, a, ...) AGENTKIT_DETAIL_ENUM_PAIR(E, a), AGENTKIT_DETAIL_EXPAND(AGENTKIT_DETAIL_FE_31(E, __VA_ARGS__))
#define AGENTKIT_DETAIL_COUNT(_1, _2, _3, _4, _5, _6, _7, _8, _9, _10, _11, _12, _13, _14, _15, _16, _17, _18, _19, _20, \
                              _21, _22, _23, _24, _25, _26, _27, _28, _29, _30, _31, _32, N, ...) N
#define AGENTKIT_DETAIL_NARGS(...)                                                                                     \
    AGENTKIT_DETAIL_EXPAND(AGENTKIT_DETAIL_COUNT(__VA_ARGS__, 32, 31, 30, 29, 28, 27, 26, 25, 24, 23, 22, 21, 20, 19, 18, \
                                                 17, 16, 15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0))
#define AGENTKIT_DETAIL_CAT2(a, b) a##b
#define AGENTKIT_DETAIL_CAT(a, b) AGENTKIT_DETAIL_CAT2(a, b)

/// Give an enum JSON names equal to its enumerators' names. Use at namespace scope (global or
/// any namespace): `AGENTKIT_ENUM(my::color, red, green, blue);`
#define AGENTKIT_ENUM(Enum, ...)                                                                                   \
    template <>                                                                                                    \
    struct agentkit::enum_names<Enum> {                                                                            \
        static constexpr std::array values{                                                                        \
            AGENTKIT_DETAIL_EXPAND(AGENTKIT_DETAIL_CAT(AGENTKIT_DETAIL_FE_, AGENTKIT_DETAIL_NARGS(__VA_ARGS__))(Enum, __VA_ARGS__))}; \
    }
// ---- end <agentkit/core/describe.hpp> ----
// ---- begin <agentkit/core/fixed_string.hpp> ----
// agentkit/core/fixed_string.hpp — a string usable as a template argument.

#include <cstddef>
#include <string_view>

namespace agentkit {

/// A compile-time string literal usable as a non-type template parameter:
/// `agentkit::tool<"get_weather">(...)`.
template <std::size_t N>
struct fixed_string {
    char data[N]{};

    constexpr fixed_string(const char (&s)[N]) noexcept {  // NOLINT(google-explicit-constructor)
        for (std::size_t i = 0; i < N; ++i) data[i] = s[i];
    }
    [[nodiscard]] constexpr std::size_t size() const noexcept { return N - 1; }
    [[nodiscard]] constexpr std::string_view view() const noexcept { return {data, N - 1}; }
    constexpr operator std::string_view() const noexcept { return view(); }  // NOLINT
};

template <std::size_t N>
fixed_string(const char (&)[N]) -> fixed_string<N>;

/// True when `name` is a valid tool name: 1–64 characters from [A-Za-z0-9_.-].
[[nodiscard]] constexpr bool is_valid_tool_name(std::string_view name) noexcept {
    if (name.empty() || name.size() > 64) return false;
    for (char c : name) {
        const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
                        c == '.' || c == '-';
        if (!ok) return false;
    }
    return true;
}

}  // namespace agentkit
// ---- end <agentkit/core/fixed_string.hpp> ----
// ---- begin <agentkit/core/parse.hpp> ----
// agentkit/core/parse.hpp — parse and validate JSON into described types, reporting every problem
// with its JSON Pointer path; and serialize described types back to JSON.


#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <map>
#include <memory>
#include <mutex>
#include <regex>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

namespace agentkit {

/// One validation problem: where (a JSON Pointer into the arguments) and what.
struct problem {
    std::string path;
    std::string message;
};

namespace detail {

template <class>
inline constexpr bool dependent_false = false;

/// A lazily materialised JSON Pointer: segments live on the stack while the walk descends.
struct path_seg {
    const path_seg* parent = nullptr;
    std::string_view key{};
    std::size_t index = 0;
    bool is_index = false;
};

inline void append_escaped(std::string& out, std::string_view key) {
    for (char c : key) {
        if (c == '~') out += "~0";
        else if (c == '/') out += "~1";
        else out += c;
    }
}

inline std::string to_pointer(const path_seg* p) {
    std::vector<const path_seg*> segs;
    for (; p != nullptr; p = p->parent) segs.push_back(p);
    std::string out;
    for (auto it = segs.rbegin(); it != segs.rend(); ++it) {
        out += '/';
        if ((*it)->is_index) out += std::to_string((*it)->index);
        else append_escaped(out, (*it)->key);
    }
    return out;
}

struct problems {
    std::vector<problem> list;
    std::size_t limit = 50;  // after this many, stop collecting (a huge bad array should not balloon)
    bool truncated = false;
    void add(const path_seg* p, std::string msg) {
        if (list.size() >= limit) {
            truncated = true;
            return;
        }
        list.push_back({to_pointer(p), std::move(msg)});
    }
};

inline const char* json_type_name(const json& j) noexcept {
    switch (j.type()) {
        case json::value_t::null: return "null";
        case json::value_t::boolean: return "boolean";
        case json::value_t::number_integer:
        case json::value_t::number_unsigned: return "integer";
        case json::value_t::number_float: return "number";
        case json::value_t::string: return "string";
        case json::value_t::array: return "array";
        case json::value_t::object: return "object";
        default: return "value";
    }
}

/// A short rendering of a JSON value for error messages (never the whole of a large value).
inline std::string preview(const json& j) {
    std::string s = j.dump(-1, ' ', false, json::error_handler_t::replace);
    if (s.size() > 40) {
        s.resize(utf8_safe_prefix(s, 37));
        s += "...";
    }
    return s;
}

inline std::string got(const json& j) {
    std::string s = "got ";
    s += json_type_name(j);
    if (!j.is_object() && !j.is_array() && !j.is_null()) {
        s += ' ';
        s += preview(j);
    }
    return s;
}

inline std::size_t utf8_length(std::string_view s) noexcept {
    std::size_t n = 0;
    for (char c : s)
        if ((static_cast<unsigned char>(c) & 0xC0U) != 0x80U) ++n;
    return n;
}

// ---- formats ------------------------------------------------------------------------------
inline bool is_digit(char c) noexcept { return c >= '0' && c <= '9'; }
inline bool is_hex(char c) noexcept { return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); }
inline bool digits(std::string_view s, std::size_t pos, std::size_t n) noexcept {
    if (pos + n > s.size()) return false;
    for (std::size_t i = pos; i < pos + n; ++i)
        if (!is_digit(s[i])) return false;
    return true;
}
inline bool check_date(std::string_view s) noexcept {
    return s.size() == 10 && digits(s, 0, 4) && s[4] == '-' && digits(s, 5, 2) && s[7] == '-' && digits(s, 8, 2) &&
           !(s[5] == '0' && s[6] == '0') && !(s[8] == '0' && s[9] == '0');
}
inline bool check_time(std::string_view s) noexcept {
    if (s.size() < 8 || !digits(s, 0, 2) || s[2] != ':' || !digits(s, 3, 2) || s[5] != ':' || !digits(s, 6, 2))
        return false;
    std::size_t i = 8;
    if (i < s.size() && s[i] == '.') {
        ++i;
        const std::size_t start = i;
        while (i < s.size() && is_digit(s[i])) ++i;
        if (i == start) return false;
    }
    if (i == s.size()) return false;  // RFC 3339 requires an offset
    if (s[i] == 'Z' || s[i] == 'z') return i + 1 == s.size();
    if (s[i] != '+' && s[i] != '-') return false;
    return s.size() == i + 6 && digits(s, i + 1, 2) && s[i + 3] == ':' && digits(s, i + 4, 2);
}
inline bool check_format(std::string_view fmt, std::string_view v) {
    if (fmt == "date") return check_date(v);
    if (fmt == "time") return check_time(v);
    if (fmt == "date-time") {
        const auto t = v.find_first_of("Tt ");
        return t == 10 && check_date(v.substr(0, 10)) && check_time(v.substr(11));
    }
    if (fmt == "email") {
        const auto at = v.find('@');
        return at != std::string_view::npos && at > 0 && v.find('@', at + 1) == std::string_view::npos &&
               v.find('.', at) != std::string_view::npos && v.back() != '.' && v.find(' ') == std::string_view::npos;
    }
    if (fmt == "uri" || fmt == "url") {
        if (v.empty() || !((v[0] >= 'a' && v[0] <= 'z') || (v[0] >= 'A' && v[0] <= 'Z'))) return false;
        std::size_t i = 1;
        while (i < v.size() && (std::isalnum(static_cast<unsigned char>(v[i])) || v[i] == '+' || v[i] == '-' || v[i] == '.'))
            ++i;
        if (i >= v.size() || v[i] != ':') return false;
        for (char c : v)
            if (static_cast<unsigned char>(c) <= 0x20) return false;
        return i + 1 < v.size();
    }
    if (fmt == "uuid") {
        if (v.size() != 36) return false;
        for (std::size_t i = 0; i < 36; ++i) {
            const bool dash = i == 8 || i == 13 || i == 18 || i == 23;
            if (dash ? v[i] != '-' : !is_hex(v[i])) return false;
        }
        return true;
    }
    if (fmt == "ipv4") {
        int parts = 0;
        std::size_t i = 0;
        while (i <= v.size()) {
            std::size_t j = i;
            while (j < v.size() && is_digit(v[j])) ++j;
            if (j == i || j - i > 3) return false;
            const int n = std::stoi(std::string(v.substr(i, j - i)));
            if (n > 255 || (j - i > 1 && v[i] == '0')) return false;
            ++parts;
            if (j == v.size()) break;
            if (v[j] != '.') return false;
            i = j + 1;
        }
        return parts == 4;
    }
    if (fmt == "hostname") {
        if (v.empty() || v.size() > 253) return false;
        std::size_t label = 0;
        for (std::size_t i = 0; i < v.size(); ++i) {
            const char c = v[i];
            if (c == '.') {
                if (label == 0 || v[i - 1] == '-') return false;
                label = 0;
            } else if (std::isalnum(static_cast<unsigned char>(c)) || (c == '-' && label > 0)) {
                if (++label > 63) return false;
            } else {
                return false;
            }
        }
        return label > 0;
    }
    return true;  // unknown formats are annotations only, as JSON Schema says
}

/// Compiled patterns, shared by all threads; a pattern is compiled on first use only.
inline const std::regex* cached_regex(std::string_view pattern) {
    static std::mutex mu;
    static std::map<std::string, std::unique_ptr<std::regex>, std::less<>> cache;
    std::lock_guard<std::mutex> lock(mu);
    auto it = cache.find(pattern);
    if (it != cache.end()) return it->second.get();
    std::unique_ptr<std::regex> re;
    try {
        re = std::make_unique<std::regex>(std::string(pattern), std::regex::ECMAScript);
    } catch (const std::regex_error&) {
        re = nullptr;
    }
    return cache.emplace(std::string(pattern), std::move(re)).first->second.get();
}

// ---- constraint checks -----------------------------------------------------------------------
template <class V>
double as_double(const V& v) {
    return static_cast<double>(v);
}

template <class V>
void check(const V& v, const constraint::minimum_t& c, const path_seg* p, problems& ps) {
    static_assert(std::is_arithmetic_v<V>, "agentkit: minimum/maximum/range apply to numbers only");
    const double d = as_double(v);
    if (c.exclusive ? !(d > c.value) : !(d >= c.value))
        ps.add(p, std::string("must be ") + (c.exclusive ? "> " : ">= ") + json(c.value).dump() + ", got " + json(v).dump());
}
template <class V>
void check(const V& v, const constraint::maximum_t& c, const path_seg* p, problems& ps) {
    static_assert(std::is_arithmetic_v<V>, "agentkit: minimum/maximum/range apply to numbers only");
    const double d = as_double(v);
    if (c.exclusive ? !(d < c.value) : !(d <= c.value))
        ps.add(p, std::string("must be ") + (c.exclusive ? "< " : "<= ") + json(c.value).dump() + ", got " + json(v).dump());
}
template <class V>
void check(const V& v, const constraint::min_length_t& c, const path_seg* p, problems& ps) {
    static_assert(std::is_same_v<V, std::string>, "agentkit: min_length applies to strings only");
    if (utf8_length(v) < c.value) ps.add(p, "must have at least " + std::to_string(c.value) + " characters");
}
template <class V>
void check(const V& v, const constraint::max_length_t& c, const path_seg* p, problems& ps) {
    static_assert(std::is_same_v<V, std::string>, "agentkit: max_length applies to strings only");
    if (utf8_length(v) > c.value) ps.add(p, "must have at most " + std::to_string(c.value) + " characters");
}
template <class V>
void check(const V& v, const constraint::pattern_t& c, const path_seg* p, problems& ps) {
    static_assert(std::is_same_v<V, std::string>, "agentkit: pattern applies to strings only");
    const std::regex* re = cached_regex(c.regex);
    if (re == nullptr) {
        ps.add(p, "the tool's schema has an invalid pattern (a host bug): " + std::string(c.regex));
        return;
    }
    if (!std::regex_search(v, *re)) ps.add(p, "must match the pattern " + std::string(c.regex));
}
template <class V>
void check(const V& v, const constraint::format_t& c, const path_seg* p, problems& ps) {
    static_assert(std::is_same_v<V, std::string>, "agentkit: format applies to strings only");
    if (!check_format(c.name, v)) ps.add(p, "must be a valid " + std::string(c.name) + ", got " + preview(json(v)));
}
template <class V>
void check(const V& v, const constraint::min_items_t& c, const path_seg* p, problems& ps) {
    static_assert(is_vector<V>::value, "agentkit: min_items applies to arrays only");
    if (v.size() < c.value) ps.add(p, "must have at least " + std::to_string(c.value) + " items");
}
template <class V>
void check(const V& v, const constraint::max_items_t& c, const path_seg* p, problems& ps) {
    static_assert(is_vector<V>::value, "agentkit: max_items applies to arrays only");
    if (v.size() > c.value) ps.add(p, "must have at most " + std::to_string(c.value) + " items");
}
template <class V, std::size_t N>
void check(const V& v, const constraint::one_of_t<N>& c, const path_seg* p, problems& ps) {
    static_assert(std::is_same_v<V, std::string>, "agentkit: one_of applies to strings only");
    for (auto s : c.values)
        if (s == v) return;
    ps.add(p, "must be one of: " + join(c.values, ", ") + "; got " + preview(json(v)));
}
template <class V>
void check(const V&, const constraint::default_t&, const path_seg*, problems&) {}
template <class V>
void check(const V&, const constraint::example_t&, const path_seg*, problems&) {}

// ---- readers -------------------------------------------------------------------------------
template <class T>
bool read(const json& j, T& out, const path_seg* p, problems& ps);

template <class T>
bool read_integer(const json& j, T& out, const path_seg* p, problems& ps) {
    if (j.is_number_integer() || j.is_number_unsigned()) {
        if (j.is_number_unsigned()) {
            const auto u = j.get<std::uint64_t>();
            if (u > static_cast<std::uint64_t>(std::numeric_limits<T>::max())) {
                ps.add(p, "integer out of range, got " + j.dump());
                return false;
            }
            out = static_cast<T>(u);
            return true;
        }
        const auto i = j.get<std::int64_t>();
        if constexpr (std::is_unsigned_v<T>) {
            if (i < 0) {
                ps.add(p, "must be >= 0, got " + j.dump());
                return false;
            }
            if (static_cast<std::uint64_t>(i) > static_cast<std::uint64_t>(std::numeric_limits<T>::max())) {
                ps.add(p, "integer out of range, got " + j.dump());
                return false;
            }
        } else {
            if (i < static_cast<std::int64_t>(std::numeric_limits<T>::min()) ||
                i > static_cast<std::int64_t>(std::numeric_limits<T>::max())) {
                ps.add(p, "integer out of range, got " + j.dump());
                return false;
            }
        }
        out = static_cast<T>(i);
        return true;
    }
    if (j.is_number_float()) {
        const double d = j.get<double>();
        double ip = 0;
        if (std::isfinite(d) && std::modf(d, &ip) == 0.0 && d >= static_cast<double>(std::numeric_limits<T>::min()) &&
            d <= static_cast<double>(std::numeric_limits<T>::max())) {
            out = static_cast<T>(d);
            return true;
        }
    }
    ps.add(p, "expected integer, " + got(j));
    return false;
}

template <class V, class Tuple, std::size_t... I>
void check_all(const V& v, const Tuple& cs, const path_seg* p, problems& ps, std::index_sequence<I...>) {
    (void)v;
    (void)cs;
    (void)p;
    (void)ps;
    (check(v, std::get<I>(cs), p, ps), ...);
}

template <class V, class... Cs>
void check_all(const V& v, const std::tuple<Cs...>& cs, const path_seg* p, problems& ps) {
    check_all(v, cs, p, ps, std::index_sequence_for<Cs...>{});
}

template <class T, class F>
bool read_field(const json& j, T& out, const F& f, const path_seg* p, problems& ps, std::size_t& found) {
    using M = typename F::member_type;
    path_seg seg{p, f.name, 0, false};
    auto it = j.find(f.name);
    if (it != j.end()) ++found;
    if (it == j.end() || it->is_null()) {
        if constexpr (is_optional<M>::value) {
            (out.*(f.ptr)).reset();
            return true;
        } else if constexpr (!field_required<F>()) {
            return true;  // keep the C++ default member initializer
        } else {
            ps.add(&seg, it == j.end() ? "missing required property" : "expected a value, got null");
            return false;
        }
    }
    if constexpr (is_optional<M>::value) {
        typename is_optional<M>::value_type v{};
        if (!read(*it, v, &seg, ps)) return false;
        check_all(v, f.constraints, &seg, ps);
        out.*(f.ptr) = std::move(v);
        return true;
    } else {
        if (!read(*it, out.*(f.ptr), &seg, ps)) return false;
        check_all(out.*(f.ptr), f.constraints, &seg, ps);
        return true;
    }
}

template <class Tuple, std::size_t... I>
bool is_known_field(const Tuple& fs, std::string_view key, std::index_sequence<I...>) {
    (void)fs;
    (void)key;
    return ((std::get<I>(fs).name == key) || ...);
}

template <class T, class Tuple, std::size_t... I>
bool read_fields(const json& j, T& out, const Tuple& fs, const path_seg* p, problems& ps, std::size_t& found,
                 std::index_sequence<I...>) {
    (void)j;
    (void)out;
    (void)fs;
    (void)p;
    (void)ps;
    (void)found;
    bool ok = true;
    ((ok = read_field(j, out, std::get<I>(fs), p, ps, found) && ok), ...);
    return ok;
}

template <class T>
bool read_object(const json& j, T& out, const path_seg* p, problems& ps) {
    if (!j.is_object()) {
        ps.add(p, "expected object, " + got(j));
        return false;
    }
    static constexpr auto fs = fields_of<T>();
    constexpr std::size_t n = std::tuple_size_v<std::decay_t<decltype(fs)>>;
    std::size_t found = 0;
    bool ok = read_fields(j, out, fs, p, ps, found, std::make_index_sequence<n>{});
    // Unknown properties are errors: a misspelt optional argument must not be silently ignored.
    if (found < j.size()) {
        for (auto it = j.begin(); it != j.end(); ++it) {
            if (is_known_field(fs, it.key(), std::make_index_sequence<n>{})) continue;
            std::vector<std::string_view> names;
            std::apply([&](const auto&... f) { (names.push_back(f.name), ...); }, fs);
            path_seg seg{p, it.key(), 0, false};
            auto close = closest_names(it.key(), names, 1);
            std::string msg = "unknown property";
            if (!close.empty()) msg += "; did you mean \"" + close.front() + "\"?";
            msg += " Known properties: " + join(names, ", ");
            ps.add(&seg, std::move(msg));
            ok = false;
        }
    }
    return ok;
}

template <class T>
bool read(const json& j, T& out, const path_seg* p, problems& ps) {
    if constexpr (std::is_same_v<T, bool>) {
        if (!j.is_boolean()) {
            ps.add(p, "expected boolean, " + got(j));
            return false;
        }
        out = j.get<bool>();
        return true;
    } else if constexpr (is_integer_v<T>) {
        return read_integer(j, out, p, ps);
    } else if constexpr (std::is_floating_point_v<T>) {
        if (!j.is_number()) {
            ps.add(p, "expected number, " + got(j));
            return false;
        }
        out = j.get<T>();
        return true;
    } else if constexpr (std::is_same_v<T, std::string>) {
        if (!j.is_string()) {
            ps.add(p, "expected string, " + got(j));
            return false;
        }
        out = j.get_ref<const std::string&>();
        return true;
    } else if constexpr (std::is_same_v<T, json>) {
        out = j;
        return true;
    } else if constexpr (std::is_enum_v<T>) {
        if (j.is_string()) {
            if (auto v = enum_from_string<T>(j.get_ref<const std::string&>())) {
                out = *v;
                return true;
            }
        }
        std::vector<std::string_view> names;
        for (const auto& [value, name] : enum_names<T>::values) names.push_back(name);
        ps.add(p, "must be one of: " + join(names, ", ") + "; " + got(j));
        return false;
    } else if constexpr (is_optional<T>::value) {
        if (j.is_null()) {
            out.reset();
            return true;
        }
        typename is_optional<T>::value_type v{};
        if (!read(j, v, p, ps)) return false;
        out = std::move(v);
        return true;
    } else if constexpr (is_vector<T>::value) {
        if (!j.is_array()) {
            ps.add(p, "expected array, " + got(j));
            return false;
        }
        out.clear();
        out.reserve(j.size());
        bool ok = true;
        std::size_t i = 0;
        for (const auto& e : j) {
            path_seg seg{p, {}, i++, true};
            typename is_vector<T>::value_type v{};
            if (read(e, v, &seg, ps)) out.push_back(std::move(v));
            else ok = false;
        }
        return ok;
    } else if constexpr (is_string_map<T>::value) {
        if (!j.is_object()) {
            ps.add(p, "expected object, " + got(j));
            return false;
        }
        out.clear();
        bool ok = true;
        for (auto it = j.begin(); it != j.end(); ++it) {
            path_seg seg{p, it.key(), 0, false};
            typename is_string_map<T>::mapped_type v{};
            if (read(*it, v, &seg, ps)) out.emplace(it.key(), std::move(v));
            else ok = false;
        }
        return ok;
    } else {
        require_describable<T>();
        return read_object(j, out, p, ps);
    }
}

// ---- writers -------------------------------------------------------------------------------
template <class T>
json write(const T& v) {
    if constexpr (std::is_same_v<T, bool> || is_integer_v<T> || std::is_floating_point_v<T> ||
                  std::is_same_v<T, std::string> || std::is_same_v<T, json>) {
        return json(v);
    } else if constexpr (std::is_enum_v<T>) {
        return json(std::string(enum_to_string(v)));
    } else if constexpr (is_optional<T>::value) {
        return v ? write(*v) : json(nullptr);
    } else if constexpr (is_vector<T>::value) {
        json a = json::array();
        for (const auto& e : v) a.push_back(write(e));
        return a;
    } else if constexpr (is_string_map<T>::value) {
        json o = json::object();
        for (const auto& [k, e] : v) o[k] = write(e);
        return o;
    } else {
        require_describable<T>();
        json o = json::object();
        std::apply(
            [&](const auto&... f) {
                (
                    [&] {
                        const auto& m = v.*(f.ptr);
                        if constexpr (is_optional<std::decay_t<decltype(m)>>::value) {
                            if (!m) return;
                        }
                        o[std::string(f.name)] = write(m);
                    }(),
                    ...);
            },
            fields_of<T>());
        return o;
    }
}

}  // namespace detail

/// Parse and validate `j` as a T. On failure the error is `args.invalid` with every problem
/// (`details.problems`: [{path, message}]) so the model can fix all of them in one retry.
template <class T>
[[nodiscard]] result<T> parse_as(const json& j) {
    T out{};
    detail::problems ps;
    detail::read(j, out, nullptr, ps);
    if (ps.list.empty()) return out;
    json list = json::array();
    std::string msg = std::to_string(ps.list.size()) + (ps.list.size() == 1 ? " problem" : " problems");
    if (ps.truncated) msg += " (more not shown)";
    msg += " in arguments: ";
    bool first = true;
    for (const auto& pr : ps.list) {
        list.push_back({{"path", pr.path}, {"message", pr.message}});
        if (!first) msg += "; ";
        first = false;
        msg += (pr.path.empty() ? std::string("(root)") : pr.path) + ": " + pr.message;
    }
    return fail(errc::args_invalid, std::move(msg), "Fix every listed argument and call again.",
                json{{"problems", std::move(list)}});
}

/// Parse JSON text and validate it as a T: `args.malformed` when the text is not JSON.
template <class T>
[[nodiscard]] result<T> parse_as(std::string_view text) {
    json j = json::parse(text, nullptr, false);
    if (j.is_discarded())
        return fail(errc::args_malformed, "arguments are not valid JSON",
                    "Send the arguments as one JSON object, e.g. {\"name\": \"value\"}.");
    return parse_as<T>(j);
}

/// Serialize a described value (or any supported type) to JSON; empty optionals are omitted.
template <class T>
[[nodiscard]] json to_json_value(const T& v) {
    return detail::write(v);
}

}  // namespace agentkit
// ---- end <agentkit/core/parse.hpp> ----
// ---- begin <agentkit/core/schema.hpp> ----
// agentkit/core/schema.hpp — JSON Schema (draft 2020-12 subset) generated from described types.


#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>

namespace agentkit {

namespace detail {

inline void apply_schema(json& s, const constraint::minimum_t& c) {
    s[c.exclusive ? "exclusiveMinimum" : "minimum"] = c.value;
}
inline void apply_schema(json& s, const constraint::maximum_t& c) {
    s[c.exclusive ? "exclusiveMaximum" : "maximum"] = c.value;
}
inline void apply_schema(json& s, const constraint::min_length_t& c) { s["minLength"] = c.value; }
inline void apply_schema(json& s, const constraint::max_length_t& c) { s["maxLength"] = c.value; }
inline void apply_schema(json& s, const constraint::pattern_t& c) { s["pattern"] = std::string(c.regex); }
inline void apply_schema(json& s, const constraint::format_t& c) { s["format"] = std::string(c.name); }
inline void apply_schema(json& s, const constraint::min_items_t& c) { s["minItems"] = c.value; }
inline void apply_schema(json& s, const constraint::max_items_t& c) { s["maxItems"] = c.value; }
template <std::size_t N>
void apply_schema(json& s, const constraint::one_of_t<N>& c) {
    json e = json::array();
    for (auto v : c.values) e.push_back(std::string(v));
    s["enum"] = std::move(e);
}
inline void apply_schema(json& s, const constraint::default_t& c) {
    switch (c.k) {
        case constraint::default_t::kind::boolean: s["default"] = c.b; break;
        case constraint::default_t::kind::integer: s["default"] = c.i; break;
        case constraint::default_t::kind::number: s["default"] = c.d; break;
        case constraint::default_t::kind::string: s["default"] = std::string(c.s); break;
    }
}
inline void apply_schema(json& s, const constraint::example_t& c) {
    json v = json::parse(c.json_text, nullptr, false);
    if (v.is_discarded()) v = std::string(c.json_text);
    s["examples"].push_back(std::move(v));
}

/// Unwrap std::optional<T> to T for the schema of a property.
template <class T>
struct strip_optional { using type = T; };
template <class T>
struct strip_optional<std::optional<T>> { using type = T; };

template <class T>
json make_schema();

template <class T>
json make_object_schema() {
    json props = json::object();
    json required = json::array();
    std::apply(
        [&](const auto&... f) {
            (
                [&] {
                    using M = typename std::decay_t<decltype(f)>::member_type;
                    using V = typename strip_optional<M>::type;
                    json p = make_schema<V>();
                    if (!f.description.empty()) p["description"] = std::string(f.description);
                    std::apply([&](const auto&... c) { (apply_schema(p, c), ...); }, f.constraints);
                    props[std::string(f.name)] = std::move(p);
                    if constexpr (field_required<std::decay_t<decltype(f)>>()) required.push_back(std::string(f.name));
                }(),
                ...);
        },
        fields_of<T>());
    json s = json::object();
    s["type"] = "object";
    if constexpr (requires { describe<T>::description; })
        s["description"] = std::string(describe<T>::description);
    else if constexpr (requires { T::agentkit_description; })
        s["description"] = std::string(T::agentkit_description);
    s["properties"] = std::move(props);
    if (!required.empty()) s["required"] = std::move(required);
    s["additionalProperties"] = false;
    return s;
}

template <class T>
json make_schema() {
    require_describable<T>();
    if constexpr (std::is_same_v<T, bool>) {
        return json{{"type", "boolean"}};
    } else if constexpr (is_integer_v<T>) {
        json s{{"type", "integer"}};
        if constexpr (std::is_unsigned_v<T>) s["minimum"] = 0;
        return s;
    } else if constexpr (std::is_floating_point_v<T>) {
        return json{{"type", "number"}};
    } else if constexpr (std::is_same_v<T, std::string>) {
        return json{{"type", "string"}};
    } else if constexpr (std::is_same_v<T, json>) {
        return json::object();  // any JSON value
    } else if constexpr (std::is_enum_v<T>) {
        json e = json::array();
        for (const auto& [value, name] : enum_names<T>::values) e.push_back(std::string(name));
        return json{{"type", "string"}, {"enum", std::move(e)}};
    } else if constexpr (is_optional<T>::value) {
        return make_schema<typename is_optional<T>::value_type>();
    } else if constexpr (is_vector<T>::value) {
        return json{{"type", "array"}, {"items", make_schema<typename is_vector<T>::value_type>()}};
    } else if constexpr (is_string_map<T>::value) {
        return json{{"type", "object"}, {"additionalProperties", make_schema<typename is_string_map<T>::mapped_type>()}};
    } else {
        return make_object_schema<T>();
    }
}

}  // namespace detail

/// The JSON Schema of T, generated once and cached. Thread-safe.
template <class T>
[[nodiscard]] const json& schema_of() {
    static const json s = detail::make_schema<T>();
    return s;
}

}  // namespace agentkit
// ---- end <agentkit/core/schema.hpp> ----
// ---- begin <agentkit/tools/context.hpp> ----
// agentkit/tools/context.hpp — per-call context a handler may take as its second parameter.

#include <chrono>
#include <functional>
#include <optional>
#include <stop_token>
#include <string>
#include <string_view>

namespace agentkit {

/// Passed to handlers that accept it: `[](const args& a, agentkit::tool_context& ctx) { ... }`.
struct tool_context {
    /// Requested when the call is cancelled (MCP notifications/cancelled, a session time limit).
    std::stop_token stop{};
    /// The provider's or client's id for this call, when it has one.
    std::string call_id{};
    /// When the call should give up; max() means no deadline.
    std::chrono::steady_clock::time_point deadline = std::chrono::steady_clock::time_point::max();
    /// Receives progress reports (MCP notifications/progress when the client asked for them).
    std::function<void(double progress, std::optional<double> total, std::string_view message)> on_progress{};

    [[nodiscard]] bool cancelled() const noexcept { return stop.stop_requested(); }
    [[nodiscard]] bool expired() const noexcept { return std::chrono::steady_clock::now() >= deadline; }
    void progress(double done, std::optional<double> total = std::nullopt, std::string_view message = {}) const {
        if (on_progress) on_progress(done, total, message);
    }
};

}  // namespace agentkit
// ---- end <agentkit/tools/context.hpp> ----
// ---- begin <agentkit/tools/export.hpp> ----
// agentkit/tools/export.hpp — tool definitions in the three dialects models and clients speak:
// MCP (tools/list), Anthropic Messages `tools`, OpenAI function tools (Chat Completions and
// Responses), with OpenAI's strict mode.

// ---- begin <agentkit/tools/tool.hpp> ----
// agentkit/tools/tool.hpp — turn a C++ callable and an argument struct into a tool.
//
//   struct weather_args {
//       std::string city;
//       std::optional<std::string> unit;
//       static constexpr auto agentkit_fields() {
//           return agentkit::fields(AGENTKIT_FIELD(weather_args, city, "City name", agentkit::min_length(1)),
//                                   AGENTKIT_FIELD(weather_args, unit, "c or f", agentkit::one_of("c", "f")));
//       }
//   };
//   inline constexpr auto get_weather = agentkit::tool<"get_weather">(
//       "Current weather for a city.",
//       [](const weather_args& a) { return "Sunny in " + a.city; },
//       agentkit::read_only | agentkit::parallel_safe);
//
// A handler takes `const Args&` (and optionally `agentkit::tool_context&`) and returns any of:
// tool_output, std::string, a described struct (typed output: MCP outputSchema and
// structuredContent), result<...> of those, or std::future<...> of those. Exceptions thrown
// by a handler become `tool.exception` errors; they never leave agentkit.

// ---- begin <agentkit/tools/output.hpp> ----
// agentkit/tools/output.hpp — what a tool returns: content blocks plus is_error.


#include <cstddef>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace agentkit {

/// A reference to an artifact kept out of band (a screenshot, a log, text a budget cut).
struct artifact_ref {
    std::string id;           ///< the store's id, e.g. "a7"
    std::string uri;          ///< how a client fetches it, e.g. "agentkit://artifacts/a7"
    std::string mime_type;    ///< "image/png", "text/plain", ...
    std::string name;         ///< a short human name
    std::size_t size = 0;     ///< bytes
    std::string description;  ///< one line: what it is
};

/// One block of tool output.
struct content_block {
    enum class kind { text, image, artifact, structured, tool_reference };
    kind type = kind::text;
    std::string text;       ///< text, base64 data for images, or the tool name of a tool_reference
    std::string mime_type;  ///< images
    artifact_ref artifact;  ///< artifacts
    json data;              ///< structured JSON

    [[nodiscard]] static content_block make_text(std::string t) {
        content_block b;
        b.type = kind::text;
        b.text = std::move(t);
        return b;
    }
    [[nodiscard]] static content_block make_image(std::string base64, std::string mime) {
        content_block b;
        b.type = kind::image;
        b.text = std::move(base64);
        b.mime_type = std::move(mime);
        return b;
    }
    [[nodiscard]] static content_block make_artifact(artifact_ref ref) {
        content_block b;
        b.type = kind::artifact;
        b.mime_type = ref.mime_type;
        b.artifact = std::move(ref);
        return b;
    }
    /// A reference to a tool that becomes available (Anthropic `tool_reference`; other
    /// providers see a line of text naming it).
    [[nodiscard]] static content_block make_tool_reference(std::string tool_name) {
        content_block b;
        b.type = kind::tool_reference;
        b.text = std::move(tool_name);
        return b;
    }
    [[nodiscard]] static content_block make_structured(json j) {
        content_block b;
        b.type = kind::structured;
        b.data = std::move(j);
        return b;
    }
};

/// The result of a tool call as the model will see it.
struct tool_output {
    std::vector<content_block> content;
    std::optional<json> structured;  ///< typed output (MCP structuredContent), when the tool has one
    bool is_error = false;

    [[nodiscard]] static tool_output text(std::string t) {
        tool_output o;
        o.content.push_back(content_block::make_text(std::move(t)));
        return o;
    }
    /// A failure the model should see and act on (not a transport error).
    [[nodiscard]] static tool_output from_error(const error& e) {
        tool_output o;
        o.is_error = true;
        o.content.push_back(content_block::make_text(e.to_text()));
        o.structured = json{{"error", e.to_json()}};
        return o;
    }
    tool_output& add_text(std::string t) {
        content.push_back(content_block::make_text(std::move(t)));
        return *this;
    }
    tool_output& add_image(std::string base64, std::string mime) {
        content.push_back(content_block::make_image(std::move(base64), std::move(mime)));
        return *this;
    }
    tool_output& add_artifact(artifact_ref ref) {
        content.push_back(content_block::make_artifact(std::move(ref)));
        return *this;
    }
    /// All text blocks joined with newlines (images and artifacts as one-line mentions).
    [[nodiscard]] std::string joined_text() const {
        std::string s;
        for (const auto& b : content) {
            if (!s.empty()) s += '\n';
            switch (b.type) {
                case content_block::kind::text: s += b.text; break;
                case content_block::kind::image: s += "[image " + b.mime_type + "]"; break;
                case content_block::kind::artifact:
                    s += "[artifact " + b.artifact.id + " " + b.artifact.mime_type + " " +
                         std::to_string(b.artifact.size) + " bytes]";
                    break;
                case content_block::kind::structured: s += b.data.dump(); break;
                case content_block::kind::tool_reference: s += "[tool " + b.text + " is now available]"; break;
            }
        }
        return s;
    }
};

}  // namespace agentkit
// ---- end <agentkit/tools/output.hpp> ----
// ---- begin <agentkit/tools/traits.hpp> ----
// agentkit/tools/traits.hpp — what a tool promises about its effects.

#include <cstdint>

namespace agentkit {

/// A set of tool traits, combined with `|`: `agentkit::read_only | agentkit::parallel_safe`.
struct traits {
    std::uint8_t bits = 0;

    [[nodiscard]] constexpr bool has(traits t) const noexcept { return (bits & t.bits) == t.bits && t.bits != 0; }
    [[nodiscard]] constexpr bool is_read_only() const noexcept { return (bits & 1U) != 0; }
    [[nodiscard]] constexpr bool is_destructive() const noexcept { return (bits & 2U) != 0 && !is_read_only(); }
    /// Read-only tools are idempotent by nature.
    [[nodiscard]] constexpr bool is_idempotent() const noexcept { return (bits & 4U) != 0 || is_read_only(); }
    [[nodiscard]] constexpr bool is_open_world() const noexcept { return (bits & 8U) != 0; }
    [[nodiscard]] constexpr bool is_parallel_safe() const noexcept { return (bits & 16U) != 0; }

    friend constexpr traits operator|(traits a, traits b) noexcept {
        return traits{static_cast<std::uint8_t>(a.bits | b.bits)};
    }
    friend constexpr bool operator==(traits a, traits b) noexcept = default;
};

/// The tool only reads: it changes nothing in its environment.
inline constexpr traits read_only{1};
/// The tool may destroy or overwrite data (ignored together with read_only).
inline constexpr traits destructive{2};
/// Calling the tool twice with the same arguments has no further effect.
inline constexpr traits idempotent{4};
/// The tool reaches an open world (the web, other systems) beyond the host.
inline constexpr traits open_world{8};
/// The tool may run concurrently with other parallel-safe tools of the same turn.
inline constexpr traits parallel_safe{16};
/// No traits.
inline constexpr traits no_traits{0};

}  // namespace agentkit
// ---- end <agentkit/tools/traits.hpp> ----

#include <exception>
#include <future>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

namespace agentkit {

/// The argument type of a tool that takes none.
struct no_args {
    static constexpr auto agentkit_fields() { return fields(); }
};

/// What a masker, an exporter or the MCP server needs to know about a tool at run time.
struct tool_info {
    std::string name;
    std::string title;
    std::string description;
    json input_schema;
    std::optional<json> output_schema;
    agentkit::traits traits{};
    /// Example requests or argument objects; the retrieval router indexes them.
    std::vector<std::string> examples;
};

namespace detail {

template <class T> struct is_result : std::false_type {};
template <class T> struct is_result<tl::expected<T, error>> : std::true_type { using value_type = T; };
template <class T> struct is_future : std::false_type {};
template <class T> struct is_future<std::future<T>> : std::true_type { using value_type = T; };

/// Strip future<> and result<> to the payload type a handler produces.
template <class R>
struct payload {
    using type = R;
};
template <class R>
struct payload<std::future<R>> : payload<R> {};
template <class R>
struct payload<tl::expected<R, error>> : payload<R> {};

template <class P>
inline constexpr bool is_typed_output_v =
    !std::is_same_v<P, tool_output> && !std::is_same_v<P, std::string> && !std::is_void_v<P> && described<P>;

template <class P>
result<tool_output> to_output(P&& value) {
    using T = std::decay_t<P>;
    if constexpr (std::is_same_v<T, tool_output>) {
        return std::forward<P>(value);
    } else if constexpr (std::is_same_v<T, std::string> || std::is_convertible_v<T, std::string_view>) {
        return tool_output::text(std::string(std::forward<P>(value)));
    } else {
        static_assert(described<T>, "agentkit: a handler must return tool_output, std::string, a described struct, "
                                    "or result<>/std::future<> of one of these");
        tool_output o;
        json j = to_json_value(value);
        o.content.push_back(content_block::make_text(j.dump()));
        o.structured = std::move(j);
        return o;
    }
}

template <class R>
result<tool_output> normalize(R&& r) {
    using T = std::decay_t<R>;
    if constexpr (is_future<T>::value) {
        return normalize(r.get());
    } else if constexpr (is_result<T>::value) {
        if (!r) return fail(std::move(r).error());
        if constexpr (std::is_void_v<typename is_result<T>::value_type>)
            return tool_output::text("ok");
        else
            return to_output(*std::forward<R>(r));
    } else {
        return to_output(std::forward<R>(r));
    }
}

/// Deduce the argument type of a handler from its call operator.
template <class F>
struct handler_sig : handler_sig<decltype(&F::operator())> {};
template <class R, class... A>
struct handler_sig<R (*)(A...)> {
    using ret = R;
    static constexpr std::size_t arity = sizeof...(A);
    using first = std::decay_t<std::tuple_element_t<0, std::tuple<A..., void>>>;
};
template <class R, class... A>
struct handler_sig<R (*)(A...) noexcept> : handler_sig<R (*)(A...)> {};
template <class C, class R, class... A>
struct handler_sig<R (C::*)(A...) const> : handler_sig<R (*)(A...)> {};
template <class C, class R, class... A>
struct handler_sig<R (C::*)(A...) const noexcept> : handler_sig<R (*)(A...)> {};
template <class C, class R, class... A>
struct handler_sig<R (C::*)(A...)> : handler_sig<R (*)(A...)> {};
template <class C, class R, class... A>
struct handler_sig<R (C::*)(A...) noexcept> : handler_sig<R (*)(A...)> {};

template <class Fn>
using handler_args_t = std::conditional_t<handler_sig<Fn>::arity == 0, no_args, typename handler_sig<Fn>::first>;

}  // namespace detail

/// A tool: compile-time name, description, handler, traits. Build with agentkit::tool<"name">(...).
template <fixed_string Name, class Args, class Fn>
class tool_t {
public:
    static constexpr std::string_view name = Name.view();
    using args_type = Args;
    using handler_type = Fn;
    static constexpr bool takes_context = detail::handler_sig<Fn>::arity == 2;
    using raw_return = typename detail::handler_sig<Fn>::ret;
    using output_type = typename detail::payload<std::decay_t<raw_return>>::type;
    static constexpr bool has_typed_output = detail::is_typed_output_v<output_type>;

    constexpr tool_t(std::string_view description, Fn fn, traits t, std::string_view title = {})
        : description_(description), title_(title), fn_(std::move(fn)), traits_(t) {}

    [[nodiscard]] constexpr std::string_view description() const noexcept { return description_; }
    [[nodiscard]] constexpr std::string_view title() const noexcept { return title_; }
    [[nodiscard]] constexpr traits tool_traits() const noexcept { return traits_; }

    /// A copy with a human-readable title (MCP `title`).
    [[nodiscard]] constexpr tool_t with_title(std::string_view t) const { return tool_t(description_, fn_, traits_, t); }

    /// The JSON Schema of the arguments.
    [[nodiscard]] static const json& input_schema() { return schema_of<Args>(); }

    /// Run-time description of this tool.
    [[nodiscard]] tool_info info() const {
        tool_info i;
        i.name = std::string(name);
        i.title = std::string(title_);
        i.description = std::string(description_);
        i.input_schema = input_schema();
        if constexpr (has_typed_output) i.output_schema = schema_of<output_type>();
        i.traits = traits_;
        return i;
    }

    /// Validate `args` and run the handler. Never throws.
    [[nodiscard]] result<tool_output> invoke(const json& args, tool_context& ctx) const {
        auto parsed = parse_as<Args>(args);
        if (!parsed) {
            error e = std::move(parsed).error();
            e.message = std::string(name) + ": " + e.message;
            e.hint = "Fix every listed argument and call " + std::string(name) + " again.";
            return fail(std::move(e));
        }
        return run(*parsed, ctx);
    }

    /// Run the handler on already-validated arguments. Never throws.
    [[nodiscard]] result<tool_output> run(const Args& a, tool_context& ctx) const {
        try {
            if constexpr (detail::handler_sig<Fn>::arity == 0) {
                (void)a;
                (void)ctx;
                return detail::normalize(fn_());
            } else if constexpr (takes_context) {
                return detail::normalize(fn_(a, ctx));
            } else {
                (void)ctx;
                return detail::normalize(fn_(a));
            }
        } catch (const std::exception& ex) {
            return fail(errc::tool_exception, std::string(name) + " failed: " + ex.what(),
                        "The tool raised an error; check the arguments or try a different approach.");
        } catch (...) {
            return fail(errc::tool_exception, std::string(name) + " failed with an unknown exception",
                        "Try a different approach.");
        }
    }

private:
    std::string_view description_;
    std::string_view title_;
    Fn fn_;
    traits traits_;
};

/// Make a tool. The name is checked at compile time: 1–64 characters of [A-Za-z0-9_.-].
template <fixed_string Name, class Fn>
[[nodiscard]] constexpr auto tool(std::string_view description, Fn fn, traits t = no_traits) {
    static_assert(is_valid_tool_name(Name.view()),
                  "agentkit: invalid tool name: a tool name must be 1-64 characters of [A-Za-z0-9_.-]");
    static_assert(detail::handler_sig<Fn>::arity <= 2,
                  "agentkit: a handler takes (const Args&) or (const Args&, agentkit::tool_context&)");
    using Args = detail::handler_args_t<Fn>;
    require_describable<Args>();
    static_assert(described<Args>, "agentkit: a tool's argument type must be a described struct");
    return tool_t<Name, Args, Fn>(description, std::move(fn), t);
}

}  // namespace agentkit
// ---- end <agentkit/tools/tool.hpp> ----

#include <string>
#include <string_view>
#include <vector>

namespace agentkit {

enum class dialect { mcp, anthropic, openai_chat, openai_responses };

struct export_options {
    /// OpenAI strict function calling (Structured Outputs). When a schema cannot be made strict
    /// (maps or untyped values), the tool is exported with `strict: false`.
    bool strict = true;
};

namespace detail {

/// Keywords OpenAI's strict mode rejects; they are dropped (the validator still enforces them
/// on our side, so nothing is lost but the hint to the model).
inline bool strict_unsupported_keyword(std::string_view k) noexcept {
    return k == "default" || k == "examples" || k == "minLength" || k == "maxLength";
}

inline result<json> strictify(const json& s, std::string_view path);

inline result<json> strict_nullable(json s) {
    // Make an optional property nullable: add "null" to its type (and to its enum).
    if (s.contains("type") && s["type"].is_string() && s["type"] != "object" && s["type"] != "array") {
        std::string t = s["type"].get<std::string>();
        s["type"] = json::array({t, "null"});
        if (s.contains("enum") && s["enum"].is_array()) s["enum"].push_back(nullptr);
        return s;
    }
    return json{{"anyOf", json::array({std::move(s), json{{"type", "null"}}})}};
}

inline result<json> strictify(const json& s, std::string_view path) {
    if (!s.is_object() || s.empty() || !s.contains("type"))
        return fail(errc::internal, std::string(path) + ": untyped value cannot be strict");
    json out = json::object();
    for (auto it = s.begin(); it != s.end(); ++it)
        if (!strict_unsupported_keyword(it.key())) out[it.key()] = *it;
    const json& type = s["type"];
    if (type == "object") {
        if (!s.contains("properties")) return fail(errc::internal, std::string(path) + ": a map cannot be strict");
        json req = s.value("required", json::array());
        json props = json::object();
        json all = req;  // the declared required ones first, in their order; then the rest
        for (auto it = s["properties"].begin(); it != s["properties"].end(); ++it) {
            auto sub = strictify(*it, std::string(path) + "/" + it.key());
            if (!sub) return sub;
            bool required = false;
            for (const auto& r : req)
                if (r == it.key()) required = true;
            if (!required) {
                auto n = strict_nullable(std::move(*sub));
                if (!n) return n;
                props[it.key()] = std::move(*n);
                all.push_back(it.key());
            } else {
                props[it.key()] = std::move(*sub);
            }
        }
        out["properties"] = std::move(props);
        out["required"] = std::move(all);
        out["additionalProperties"] = false;
    } else if (type == "array" && s.contains("items")) {
        auto sub = strictify(s["items"], std::string(path) + "/items");
        if (!sub) return sub;
        out["items"] = std::move(*sub);
    }
    return out;
}

}  // namespace detail

/// The schema rewritten for OpenAI strict mode: every object closed (additionalProperties
/// false), every property required, optional ones nullable. Fails for maps and untyped values.
[[nodiscard]] inline result<json> strict_schema(const json& schema) { return detail::strictify(schema, ""); }

/// An MCP tool definition (tools/list entry).
[[nodiscard]] inline json to_mcp(const tool_info& t) {
    json j = json::object();
    j["name"] = t.name;
    if (!t.title.empty()) j["title"] = t.title;
    j["description"] = t.description;
    j["inputSchema"] = t.input_schema;
    if (t.output_schema) j["outputSchema"] = *t.output_schema;
    json ann = json::object();
    if (!t.title.empty()) ann["title"] = t.title;
    ann["readOnlyHint"] = t.traits.is_read_only();
    ann["destructiveHint"] = t.traits.is_destructive();
    ann["idempotentHint"] = t.traits.is_idempotent();
    ann["openWorldHint"] = t.traits.is_open_world();
    j["annotations"] = std::move(ann);
    return j;
}

/// An Anthropic Messages API tool.
[[nodiscard]] inline json to_anthropic(const tool_info& t) {
    return json{{"name", t.name}, {"description", t.description}, {"input_schema", t.input_schema}};
}

namespace detail {
inline void openai_parameters(json& target, const tool_info& t, const export_options& o) {
    if (o.strict) {
        if (auto s = strict_schema(t.input_schema)) {
            target["parameters"] = std::move(*s);
            target["strict"] = true;
            return;
        }
    }
    target["parameters"] = t.input_schema;
    target["strict"] = false;
}
}  // namespace detail

/// An OpenAI Chat Completions function tool: {"type":"function","function":{...}}.
[[nodiscard]] inline json to_openai_chat(const tool_info& t, const export_options& o = {}) {
    json fn{{"name", t.name}, {"description", t.description}};
    detail::openai_parameters(fn, t, o);
    return json{{"type", "function"}, {"function", std::move(fn)}};
}

/// An OpenAI Responses API function tool: {"type":"function","name":...,"parameters":...}.
[[nodiscard]] inline json to_openai_responses(const tool_info& t, const export_options& o = {}) {
    json j{{"type", "function"}, {"name", t.name}, {"description", t.description}};
    detail::openai_parameters(j, t, o);
    return j;
}

/// One tool in the given dialect.
[[nodiscard]] inline json export_tool(const tool_info& t, dialect d, const export_options& o = {}) {
    switch (d) {
        case dialect::mcp: return to_mcp(t);
        case dialect::anthropic: return to_anthropic(t);
        case dialect::openai_chat: return to_openai_chat(t, o);
        case dialect::openai_responses: return to_openai_responses(t, o);
    }
    return json();
}

/// Every tool of a list in the given dialect, as a JSON array.
[[nodiscard]] inline json export_tools(const std::vector<tool_info>& tools, dialect d, const export_options& o = {}) {
    json a = json::array();
    for (const auto& t : tools) a.push_back(export_tool(t, d, o));
    return a;
}

}  // namespace agentkit
// ---- end <agentkit/tools/export.hpp> ----
// ---- begin <agentkit/tools/toolbox.hpp> ----
// agentkit/tools/toolbox.hpp — a compile-time set of tools with name dispatch.
//
//   agentkit::toolbox tools{get_weather, search, send_mail};
//   agentkit::tool_context ctx;
//   auto out = tools.call("get_weather", agentkit::json{{"city", "Oslo"}}, ctx);
//
// Two tools with one name are a compile error. Unknown names are answered with the closest
// names. Dispatch is a binary search over a name table sorted at compile time.


#include <algorithm>
#include <array>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

namespace agentkit {

namespace detail {
template <class... Tools>
constexpr bool names_unique() {
    constexpr std::size_t n = sizeof...(Tools);
    if constexpr (n < 2) {
        return true;
    } else {
        std::array<std::string_view, n> names{Tools::name...};
        std::sort(names.begin(), names.end());
        for (std::size_t i = 1; i < n; ++i)
            if (names[i] == names[i - 1]) return false;
        return true;
    }
}

struct name_index {
    std::string_view name;
    std::size_t index;
};
}  // namespace detail

template <class... Tools>
class toolbox {
    static_assert(detail::names_unique<Tools...>(), "agentkit: duplicate tool name: every tool in a toolbox needs a unique name");

public:
    static constexpr std::size_t count = sizeof...(Tools);

    explicit toolbox(Tools... tools) : tools_(std::move(tools)...) {
        infos_.reserve(count);
        std::apply([&](const auto&... t) { (infos_.push_back(t.info()), ...); }, tools_);
    }

    [[nodiscard]] static constexpr std::size_t size() noexcept { return count; }

    /// The tools, in declaration order.
    [[nodiscard]] constexpr const std::tuple<Tools...>& tools() const noexcept { return tools_; }

    /// The names, in declaration order.
    [[nodiscard]] static constexpr std::array<std::string_view, count> names() noexcept { return {Tools::name...}; }

    /// The index of a tool by name, or nullopt.
    [[nodiscard]] static constexpr std::optional<std::size_t> find(std::string_view name) noexcept {
        constexpr auto& table = sorted_;
        auto it = std::lower_bound(table.begin(), table.end(), name,
                                   [](const detail::name_index& e, std::string_view n) { return e.name < n; });
        if (it != table.end() && it->name == name) return it->index;
        return std::nullopt;
    }

    [[nodiscard]] static constexpr bool contains(std::string_view name) noexcept { return find(name).has_value(); }

    /// Run-time descriptions of every tool, in declaration order.
    [[nodiscard]] const std::vector<tool_info>& infos() const noexcept { return infos_; }

    /// Call a tool by index with JSON arguments. Never throws.
    [[nodiscard]] result<tool_output> call_at(std::size_t index, const json& args, tool_context& ctx) const {
        if (index >= count) return fail(errc::internal, "tool index out of range");
        return dispatch_[index](tools_, args, ctx);
    }

    /// Call a tool by name with JSON arguments. Never throws.
    [[nodiscard]] result<tool_output> call(std::string_view name, const json& args, tool_context& ctx) const {
        auto i = find(name);
        if (!i) return unknown(name);
        return dispatch_[*i](tools_, args, ctx);
    }

    /// Call a tool by name with arguments as JSON text (`args.malformed` when it is not JSON;
    /// an empty string means no arguments).
    [[nodiscard]] result<tool_output> call(std::string_view name, std::string_view args_json, tool_context& ctx) const {
        auto i = find(name);
        if (!i) return unknown(name);
        json args = args_json.empty() ? json::object() : json::parse(args_json, nullptr, false);
        if (args.is_discarded())
            return fail(errc::args_malformed, std::string(name) + ": arguments are not valid JSON",
                        "Send the arguments of " + std::string(name) + " as one JSON object.");
        return dispatch_[*i](tools_, args, ctx);
    }

    /// Convenience: call without a context.
    [[nodiscard]] result<tool_output> call(std::string_view name, const json& args) const {
        tool_context ctx;
        return call(name, args, ctx);
    }

    /// The error for an unknown tool name, with the closest known names.
    [[nodiscard]] static unexpected_error unknown(std::string_view name) {
        const auto all = names();
        auto close = closest_names(name, all, 3);
        std::string hint = close.empty() ? "Call one of the listed tools." : "Did you mean " + join_quoted(close) + "?";
        return fail(errc::tool_unknown, "no tool named \"" + std::string(name) + "\"", std::move(hint),
                    json{{"candidates", close}});
    }

private:
    using thunk = result<tool_output> (*)(const std::tuple<Tools...>&, const json&, tool_context&);

    template <std::size_t I>
    static result<tool_output> invoke_at(const std::tuple<Tools...>& ts, const json& args, tool_context& ctx) {
        return std::get<I>(ts).invoke(args, ctx);
    }
    template <std::size_t... I>
    static constexpr std::array<thunk, count> make_dispatch(std::index_sequence<I...>) {
        return {&invoke_at<I>...};
    }
    static constexpr std::array<detail::name_index, count> make_sorted() {
        std::array<detail::name_index, count> t{};
        constexpr std::array<std::string_view, count> n{Tools::name...};
        for (std::size_t i = 0; i < count; ++i) t[i] = {n[i], i};
        std::sort(t.begin(), t.end(), [](const detail::name_index& a, const detail::name_index& b) { return a.name < b.name; });
        return t;
    }
    static std::string join_quoted(const std::vector<std::string>& v) {
        std::string s;
        for (std::size_t i = 0; i < v.size(); ++i) {
            if (i > 0) s += i + 1 == v.size() ? " or " : ", ";
            s += "\"" + v[i] + "\"";
        }
        return s;
    }

    static constexpr std::array<thunk, count> dispatch_ = make_dispatch(std::index_sequence_for<Tools...>{});
    static constexpr std::array<detail::name_index, count> sorted_ = make_sorted();

    std::tuple<Tools...> tools_;
    std::vector<tool_info> infos_;
};

template <class... Tools>
toolbox(Tools...) -> toolbox<Tools...>;

/// One toolbox holding the tools of several (a compile error if a name repeats).
template <class... A, class... B>
[[nodiscard]] auto merge(const toolbox<A...>& a, const toolbox<B...>& b) {
    return std::apply(
        [&](const auto&... ta) {
            return std::apply([&](const auto&... tb) { return toolbox<A..., B...>(ta..., tb...); }, b.tools());
        },
        a.tools());
}

}  // namespace agentkit
// ---- end <agentkit/tools/toolbox.hpp> ----
// ---- begin <agentkit/version.hpp> ----
// agentkit/version.hpp — the library version, the single source of truth.
//
// CMake (project VERSION), the Conan recipe and the consistency test of the vcpkg
// manifests all read these three numbers; change them here and nowhere else.

#define AGENTKIT_VERSION_MAJOR 0
#define AGENTKIT_VERSION_MINOR 1
#define AGENTKIT_VERSION_PATCH 0

/// MAJOR * 10000 + MINOR * 100 + PATCH, for `#if AGENTKIT_VERSION >= 100`.
#define AGENTKIT_VERSION (AGENTKIT_VERSION_MAJOR * 10000 + AGENTKIT_VERSION_MINOR * 100 + AGENTKIT_VERSION_PATCH)

namespace agentkit {

/// The version agentkit was built from, as numbers and as "MAJOR.MINOR.PATCH".
struct version_info {
    int major;
    int minor;
    int patch;
    const char* string;
};

#define AGENTKIT_DETAIL_STR2(x) #x
#define AGENTKIT_DETAIL_STR(x) AGENTKIT_DETAIL_STR2(x)

inline constexpr version_info version{
    AGENTKIT_VERSION_MAJOR, AGENTKIT_VERSION_MINOR, AGENTKIT_VERSION_PATCH,
    AGENTKIT_DETAIL_STR(AGENTKIT_VERSION_MAJOR) "." AGENTKIT_DETAIL_STR(AGENTKIT_VERSION_MINOR) "." AGENTKIT_DETAIL_STR(
        AGENTKIT_VERSION_PATCH)};

#undef AGENTKIT_DETAIL_STR
#undef AGENTKIT_DETAIL_STR2

}  // namespace agentkit
// ---- end <agentkit/version.hpp> ----
// ---- begin <agentkit/visibility/masker.hpp> ----
// agentkit/visibility/masker.hpp — the masker concept: which tools the model sees now.
//
// A masker is a policy an agent_session is composed with at compile time. It never removes a
// tool from the catalogue; it decides what is visible, adds its meta-tools (menu_enter,
// tool_search, request_tools, ...), contributes a stable system-prompt section and a per-turn
// state message, and answers calls to hidden tools with an instructive error (or, for
// deferred tools, a normal `capability.unsupported` result).


#include <concepts>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace agentkit {

/// Requirements on a visibility policy. `catalogue` is every host tool's tool_info, in
/// toolbox order; it is handed over once, before any other call.
template <class M>
concept masker = requires(M& m, const M& cm, const std::vector<tool_info>& catalogue, std::string_view name,
                          const json& args, bool ok) {
    /// Receive the host's tool catalogue (once, at session construction).
    { m.bind(catalogue) } -> std::same_as<void>;
    /// The meta-tools this masker adds, always in the catalogue (may be empty).
    { cm.meta_tools() } -> std::convertible_to<std::vector<tool_info>>;
    /// True when `name` (a host tool or a meta-tool) may be called now.
    { cm.is_visible(name) } -> std::same_as<bool>;
    /// Names visible now: meta-tools first, then host tools in catalogue order.
    { cm.visible() } -> std::convertible_to<std::vector<std::string>>;
    /// The masker's section of the stable system prompt (identical on every turn).
    { cm.prompt_section() } -> std::convertible_to<std::string>;
    /// The per-turn state message (e.g. "[MENU_STATE] ..."), or empty.
    { cm.state_message() } -> std::convertible_to<std::string>;
    /// Handle a call to one of this masker's meta-tools; nullopt when `name` is not one.
    { m.handle_meta(name, args) } -> std::same_as<std::optional<result<tool_output>>>;
    /// Answer a call to a tool that is not visible now: an error naming how to reach it, or a
    /// normal result (deferred tools' capability.unsupported envelope).
    { cm.answer_hidden(name) } -> std::same_as<result<tool_output>>;
    /// Observe a host tool call that ran (routers learn from successful calls).
    { m.observe_call(name, args, ok) } -> std::same_as<void>;
    /// A counter that changes whenever the visible set changes (MCP list_changed).
    { cm.version() } -> std::convertible_to<std::uint64_t>;
};

/// The baseline: every tool visible, no meta-tools, nothing to say.
class all_visible {
public:
    void bind(const std::vector<tool_info>& catalogue) {
        names_.clear();
        for (const auto& t : catalogue) names_.push_back(t.name);
    }
    [[nodiscard]] std::vector<tool_info> meta_tools() const { return {}; }
    [[nodiscard]] bool is_visible(std::string_view name) const {
        for (const auto& n : names_)
            if (n == name) return true;
        return false;
    }
    [[nodiscard]] std::vector<std::string> visible() const { return names_; }
    [[nodiscard]] std::string prompt_section() const { return {}; }
    [[nodiscard]] std::string state_message() const { return {}; }
    [[nodiscard]] std::optional<result<tool_output>> handle_meta(std::string_view, const json&) { return std::nullopt; }
    [[nodiscard]] result<tool_output> answer_hidden(std::string_view name) const {
        return fail(errc::tool_unknown, "no tool named \"" + std::string(name) + "\"", "Call one of the listed tools.");
    }
    void observe_call(std::string_view, const json&, bool) {}
    [[nodiscard]] std::uint64_t version() const noexcept { return 0; }

private:
    std::vector<std::string> names_;
};

static_assert(masker<all_visible>);

}  // namespace agentkit
// ---- end <agentkit/visibility/masker.hpp> ----
