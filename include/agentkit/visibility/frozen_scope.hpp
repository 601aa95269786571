// agentkit/visibility/frozen_scope.hpp — a fixed exposed surface with deferred tools that answer
// with a structured capability.unsupported envelope instead of failing.
//
//   agentkit::frozen_scope scope(
//       {"browser_snapshot", "browser_click_ref"},
//       {{.name = "browser_navigate",
//         .reason = "the CLI covers it; an MCP duplicate adds attack surface without parity gain",
//         .alternative = "agbrowse navigate <url>",
//         .reference = "playwright-mcp:browser_navigate"}},
//       {.scope = "browser"});
//
// Only the exposed tools are visible, ever (the version never moves after bind). A deferred
// tool is one the product deliberately does not offer yet; it is carried as metadata (reason,
// alternative such as a CLI equivalent, competitor reference) and a call to it is answered
// with the `capability.unsupported` envelope as a NORMAL tool result — structured JSON plus a
// compact text line — so capability probers learn exactly what is missing and where to go.
#pragma once

#include <agentkit/visibility/signal.hpp>
#include <agentkit/core/error.hpp>
#include <agentkit/core/json.hpp>
#include <agentkit/core/result.hpp>
#include <agentkit/core/strings.hpp>
#include <agentkit/tools/output.hpp>
#include <agentkit/tools/tool.hpp>
#include <agentkit/visibility/masker.hpp>

#include <algorithm>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_set>
#include <utility>
#include <vector>

namespace agentkit {

/// A tool deliberately not offered, and what to use instead.
struct deferred_tool {
    std::string name{};         ///< the tool name a caller may try
    std::string reason{};       ///< why it is deferred
    std::string alternative{};  ///< what covers the use case today (e.g. a CLI command)
    std::string reference{};    ///< the closest competitor counterpart
    std::string since{};        ///< optional: when it was deferred (release, phase)
    std::string description{};  ///< optional: what the tool would do
};

/// How a frozen_scope reports deferred tools.
struct frozen_scope_options {
    std::string scope;               ///< optional label reported in envelopes ("browser")
    bool deferred_is_error = false;  ///< set tool_output::is_error on the envelope
    bool describe_deferred_in_prompt = false;  ///< list deferred tools and alternatives in the prompt
};

/// The `capability.unsupported` envelope for a deferred tool, as a normal tool result.
[[nodiscard]] inline tool_output capability_unsupported(const deferred_tool& d, std::string_view scope = {},
                                                        bool is_error = false) {
    json j = json::object();
    j["ok"] = false;
    j["error"] = std::string(errc::capability_unsupported);
    j["tool"] = d.name;
    j["reason"] = d.reason;
    j["alternative"] = d.alternative;
    j["reference"] = d.reference;
    if (!d.since.empty()) j["since"] = d.since;
    if (!scope.empty()) j["scope"] = std::string(scope);
    std::string line = std::string(errc::capability_unsupported) + ": " + d.name + " is not offered here";
    if (!d.reason.empty()) line += " (" + d.reason + ")";
    line += ".";
    if (!d.alternative.empty()) line += " Use instead: " + d.alternative + ".";
    if (!d.reference.empty()) line += " Reference: " + d.reference + ".";
    tool_output o;
    o.content.push_back(content_block::make_text(std::move(line)));
    o.content.push_back(content_block::make_structured(j));
    o.structured = std::move(j);
    o.is_error = is_error;
    return o;
}

/// A masker with a fixed visible set; calls to deferred tools get the capability.unsupported envelope.
class frozen_scope {
public:
    /// Expose `exposed` (host tool names) and answer calls to `deferred` with their envelope.
    frozen_scope(std::vector<std::string> exposed, std::vector<deferred_tool> deferred = {}, frozen_scope_options o = {})
        : exposed_(std::move(exposed)), deferred_(std::move(deferred)), opt_(std::move(o)) {}

    // --- masker ------------------------------------------------------------------------------
    /// Take the host's catalogue: the exposed tools that exist become visible; the rest are problems().
    void bind(const std::vector<tool_info>& catalogue) {
        catalogue_.clear();
        for (const auto& t : catalogue) catalogue_.push_back(t.name);
        const std::unordered_set<std::string> known(catalogue_.begin(), catalogue_.end());
        visible_.clear();
        problems_.clear();
        for (const auto& e : exposed_) {
            if (known.count(e)) visible_.insert(e);
            else problems_.push_back("exposed tool \"" + e + "\" is not in the toolbox");
        }
        for (const auto& d : deferred_)
            if (visible_.count(d.name)) problems_.push_back("tool \"" + d.name + "\" is both exposed and deferred");
        signal_.bump();
    }
    /// None: this masker adds no meta-tools.
    [[nodiscard]] std::vector<tool_info> meta_tools() const { return {}; }
    /// True for an exposed tool that is in the toolbox.
    [[nodiscard]] bool is_visible(std::string_view name) const { return visible_.count(std::string(name)) != 0; }
    /// The exposed tools that are in the toolbox, in catalogue order.
    [[nodiscard]] std::vector<std::string> visible() const {
        std::vector<std::string> out;
        for (const auto& n : catalogue_)
            if (visible_.count(n)) out.push_back(n);
        return out;
    }
    /// With describe_deferred_in_prompt, a list of the deferred tools and their alternatives; else empty.
    [[nodiscard]] std::string prompt_section() const {
        if (!opt_.describe_deferred_in_prompt || deferred_.empty()) return {};
        std::string s = "## Not available here\nThese tools are deliberately not offered; use the alternative:\n";
        for (const auto& d : deferred_) {
            s += "- " + d.name;
            if (!d.alternative.empty()) s += ": " + d.alternative;
            s += "\n";
        }
        return s;
    }
    /// Empty: the visible set never changes.
    [[nodiscard]] std::string state_message() const { return {}; }
    /// Always nullopt: there are no meta-tools.
    [[nodiscard]] std::optional<result<tool_output>> handle_meta(std::string_view, const json&) { return std::nullopt; }

    /// The capability.unsupported envelope (a normal result) for a deferred tool, else tool.unknown with the
    /// closest names.
    [[nodiscard]] result<tool_output> answer_hidden(std::string_view name) const {
        if (const auto* d = find_deferred(name)) return capability_unsupported(*d, opt_.scope, opt_.deferred_is_error);
        std::vector<std::string> offered = visible();
        auto close = closest_names(name, offered, 3);
        return fail(errc::tool_unknown, "no tool named \"" + std::string(name) + "\"",
                    close.empty() ? "Call one of: " + join(offered, ", ") + "." : "Did you mean " + join(close, ", ") + "?",
                    json{{"candidates", close}});
    }
    /// Ignores the call.
    void observe_call(std::string_view, const json&, bool) {}
    /// Moves only when bind() runs.
    [[nodiscard]] std::uint64_t version() const noexcept { return signal_.version(); }
    /// Install the callback run when version() moves.
    void set_on_change(std::function<void(std::uint64_t)> cb) { signal_.set_on_change(std::move(cb)); }

    // --- API -----------------------------------------------------------------------------------
    /// The deferred tool of that name, or null.
    [[nodiscard]] const deferred_tool* find_deferred(std::string_view name) const {
        for (const auto& d : deferred_)
            if (d.name == name) return &d;
        return nullptr;
    }
    /// The deferred tools, as given.
    [[nodiscard]] const std::vector<deferred_tool>& deferred() const noexcept { return deferred_; }
    /// The exposed tool names, as given.
    [[nodiscard]] const std::vector<std::string>& exposed() const noexcept { return exposed_; }
    /// What bind() found wrong: exposed names missing from the toolbox, tools both exposed and deferred.
    [[nodiscard]] const std::vector<std::string>& problems() const noexcept { return problems_; }
    /// The deferred tools as JSON (a machine-readable decision record).
    [[nodiscard]] json deferred_json() const {
        json a = json::array();
        for (const auto& d : deferred_) {
            json j{{"tool", d.name}, {"reason", d.reason}, {"alternative", d.alternative}, {"reference", d.reference}};
            if (!d.since.empty()) j["since"] = d.since;
            if (!d.description.empty()) j["description"] = d.description;
            a.push_back(std::move(j));
        }
        return a;
    }

private:
    std::vector<std::string> exposed_;
    std::vector<deferred_tool> deferred_;
    frozen_scope_options opt_;
    std::vector<std::string> catalogue_;
    std::unordered_set<std::string> visible_;
    std::vector<std::string> problems_;
    visibility_signal signal_;
};

static_assert(masker<frozen_scope>);

}  // namespace agentkit
