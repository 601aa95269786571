// agentkit/visibility/strategy.hpp — how a masker's visible set reaches the model.
//
// "Mask, don't remove" with a cache-stable prefix. Three ways to expose tools:
//
//   exposure::visible_only      send only the visible tools (meta-tools first). Smallest
//                               request; the tools part of the prefix changes with the set.
//   exposure::allowed_tools     send every tool, always in the same order, and restrict per
//                               turn through OpenAI's tool_choice
//                               {"type":"allowed_tools", ...} (Chat and Responses). The prefix
//                               (tools + system prompt) is byte-identical on every turn.
//   exposure::deferred_loading  Anthropic: send every tool, the ones not loaded at the start
//                               marked `defer_loading: true`; meta-tools (menu_enter,
//                               tool_search, request_tools) return tool_reference blocks that
//                               load them. The prefix is byte-identical on every turn.
//
// Either way the masker still enforces visibility on every call (answer_hidden).
//
//   agentkit::exposure_plan ex(masker, box.infos(), agentkit::dialect::openai_responses,
//                              agentkit::exposure::allowed_tools);
//   request["tools"] = ex.tools_for(masker);             // stable
//   if (auto c = ex.tool_choice_for(masker); !c.is_null()) request["tool_choice"] = c;
//   ex.adapt(output);                                     // per tool result
#pragma once

#include <agentkit/tools/export.hpp>
#include <agentkit/core/json.hpp>
#include <agentkit/tools/output.hpp>
#include <agentkit/tools/tool.hpp>
#include <agentkit/visibility/masker.hpp>

#include <algorithm>
#include <string>
#include <string_view>
#include <unordered_set>
#include <utility>
#include <vector>

namespace agentkit {

/// How a masker's tools reach the model (see the file comment): visible_only, allowed_tools or deferred_loading.
enum class exposure { visible_only, allowed_tools, deferred_loading };

/// The name of an exposure strategy ("visible_only", ...).
[[nodiscard]] constexpr std::string_view to_string(exposure e) noexcept {
    switch (e) {
        case exposure::visible_only: return "visible_only";
        case exposure::allowed_tools: return "allowed_tools";
        case exposure::deferred_loading: return "deferred_loading";
    }
    return "visible_only";
}

/// Every tool a session with masker `m` knows: its meta-tools first, then the host's tools in
/// toolbox order. The order never depends on the masker's state.
template <masker M>
[[nodiscard]] std::vector<tool_info> full_catalogue(const M& m, const std::vector<tool_info>& host) {
    std::vector<tool_info> all = m.meta_tools();
    all.insert(all.end(), host.begin(), host.end());
    return all;
}

/// The tools visible now, in full_catalogue order.
template <masker M>
[[nodiscard]] std::vector<tool_info> visible_catalogue(const M& m, const std::vector<tool_info>& host) {
    std::vector<tool_info> out;
    for (auto& t : full_catalogue(m, host))
        if (m.is_visible(t.name)) out.push_back(std::move(t));
    return out;
}

/// OpenAI `tool_choice` restricting the model to `names` (mode "auto" or "required").
/// Chat Completions: {"type":"allowed_tools","allowed_tools":{"mode":..,"tools":[{"type":"function","function":{"name":..}}]}}
/// Responses:        {"type":"allowed_tools","mode":..,"tools":[{"type":"function","name":..}]}
[[nodiscard]] inline json allowed_tools_choice(const std::vector<std::string>& names, dialect d,
                                               std::string_view mode = "auto") {
    json tools = json::array();
    for (const auto& n : names) {
        if (d == dialect::openai_chat) tools.push_back(json{{"type", "function"}, {"function", {{"name", n}}}});
        else tools.push_back(json{{"type", "function"}, {"name", n}});
    }
    if (d == dialect::openai_chat)
        return json{{"type", "allowed_tools"}, {"allowed_tools", {{"mode", std::string(mode)}, {"tools", std::move(tools)}}}};
    return json{{"type", "allowed_tools"}, {"mode", std::string(mode)}, {"tools", std::move(tools)}};
}

/// An Anthropic tool_result content block that loads a deferred tool.
[[nodiscard]] inline json anthropic_tool_reference(std::string_view tool_name) {
    return json{{"type", "tool_reference"}, {"tool_name", std::string(tool_name)}};
}

/// Anthropic tools with `defer_loading: true` on every tool not in `loaded`.
[[nodiscard]] inline json export_deferred(const std::vector<tool_info>& all, const std::vector<std::string>& loaded) {
    const std::unordered_set<std::string> keep(loaded.begin(), loaded.end());
    json a = json::array();
    for (const auto& t : all) {
        json j = to_anthropic(t);
        if (!keep.count(t.name)) j["defer_loading"] = true;
        a.push_back(std::move(j));
    }
    return a;
}

/// The cacheable prefix of a request as bytes: the serialized tools, a separator, the system
/// prompt. Byte equality across turns is what a prompt cache needs.
[[nodiscard]] inline std::string stable_prefix(const json& tools, std::string_view system_prompt) {
    std::string s = tools.dump();
    s += "\n\x1e\n";  // record separator: tools and prompt can never run together
    s += system_prompt;
    return s;
}

/// A session's exposure of a masker's tools in one dialect with one strategy. Construct it
/// once, right after the masker was bound (the deferred strategy records the tools loaded at
/// the start, which must stay fixed for the prefix to be stable).
class exposure_plan {
public:
    /// The plan for masker `m` (already bound) with the host's tools, in dialect `d` with strategy `e`.
    template <masker M>
    exposure_plan(const M& m, std::vector<tool_info> host, dialect d, exposure e, export_options o = {})
        : host_(std::move(host)), dialect_(d), requested_(e), effective_(effective_for(e, d)), opt_(o) {
        all_ = full_catalogue(m, host_);
        if (effective_ == exposure::deferred_loading) {
            initially_loaded_ = m.visible();
            stable_tools_ = export_deferred(all_, initially_loaded_);
        } else if (effective_ == exposure::allowed_tools) {
            stable_tools_ = export_tools(all_, dialect_, opt_);
        }
    }

    /// The strategy in force: deferred_loading needs the Anthropic dialect and allowed_tools
    /// an OpenAI one; otherwise the closest one that works is used (OpenAI: allowed_tools,
    /// Anthropic: deferred_loading, MCP: visible_only with list_changed).
    [[nodiscard]] static constexpr exposure effective_for(exposure e, dialect d) noexcept {
        const bool openai = d == dialect::openai_chat || d == dialect::openai_responses;
        if (e == exposure::visible_only) return e;
        if (openai) return exposure::allowed_tools;
        if (d == dialect::anthropic) return exposure::deferred_loading;
        return exposure::visible_only;
    }

    /// The strategy asked for.
    [[nodiscard]] exposure requested() const noexcept { return requested_; }
    /// The strategy in force (effective_for(requested(), target())).
    [[nodiscard]] exposure effective() const noexcept { return effective_; }
    /// The dialect the tools are exported in.
    [[nodiscard]] dialect target() const noexcept { return dialect_; }
    /// Every tool, meta-tools first (what the stable strategies send).
    [[nodiscard]] const std::vector<tool_info>& catalogue() const noexcept { return all_; }
    /// Tools not deferred at the start (deferred_loading only).
    [[nodiscard]] const std::vector<std::string>& initially_loaded() const noexcept { return initially_loaded_; }

    /// The `tools` array to send this turn.
    template <masker M>
    [[nodiscard]] json tools_for(const M& m) const {
        if (effective_ == exposure::visible_only) return export_tools(visible_catalogue(m, host_), dialect_, opt_);
        return stable_tools_;
    }

    /// The `tool_choice` to send this turn, or null for "leave the provider default".
    template <masker M>
    [[nodiscard]] json tool_choice_for(const M& m, std::string_view mode = "auto") const {
        if (effective_ != exposure::allowed_tools) return json();
        return allowed_tools_choice(m.visible(), dialect_, mode);
    }

    /// Adjust a tool result for the strategy: tool_reference blocks only mean something with
    /// Anthropic's deferred loading; elsewhere they are dropped (the text already names the
    /// tools) so they cost no tokens.
    void adapt(tool_output& out) const {
        if (effective_ == exposure::deferred_loading) return;
        auto& c = out.content;
        c.erase(std::remove_if(c.begin(), c.end(),
                               [](const content_block& b) { return b.type == content_block::kind::tool_reference; }),
                c.end());
    }

    /// The stable prefix this turn: tools_for(m) and the system prompt.
    template <masker M>
    [[nodiscard]] std::string prefix_for(const M& m, std::string_view system_prompt) const {
        return stable_prefix(tools_for(m), system_prompt);
    }

private:
    std::vector<tool_info> host_;
    dialect dialect_;
    exposure requested_;
    exposure effective_;
    export_options opt_;
    std::vector<tool_info> all_;
    std::vector<std::string> initially_loaded_;
    json stable_tools_;
};

/// The system prompt a session builds: the host's own text, then the masker's section.
template <masker M>
[[nodiscard]] std::string system_prompt_with(const M& m, std::string_view host_prompt) {
    std::string s(host_prompt);
    const std::string section = m.prompt_section();
    if (!section.empty()) {
        if (!s.empty() && s.back() != '\n') s += '\n';
        if (!s.empty()) s += '\n';
        s += section;
    }
    return s;
}

}  // namespace agentkit
