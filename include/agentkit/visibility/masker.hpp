// agentkit/visibility/masker.hpp — the masker concept: which tools the model sees now.
//
// A masker is a policy an agent_session is composed with at compile time. It never removes a
// tool from the catalogue; it decides what is visible, adds its meta-tools (menu_enter,
// tool_search, request_tools, ...), contributes a stable system-prompt section and a per-turn
// state message, and answers calls to hidden tools with an instructive error (or, for
// deferred tools, a normal `capability.unsupported` result).
#pragma once

#include <agentkit/core/error.hpp>
#include <agentkit/core/json.hpp>
#include <agentkit/core/result.hpp>
#include <agentkit/tools/output.hpp>
#include <agentkit/tools/tool.hpp>

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
