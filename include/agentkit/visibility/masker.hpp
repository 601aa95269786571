// agentkit/visibility/masker.hpp — the masker concept: which tools the model sees now.
//
// A masker is a policy an agent_session is composed with at compile time. It never removes a
// tool from the catalogue; it decides what is visible, adds its meta-tools (menu_enter,
// tool_search, request_tools, ...), contributes a stable system-prompt section and a per-turn
// state message, and answers calls to hidden tools with an instructive error (or, for
// deferred tools, a normal `capability.unsupported` result).
//
// Thread safety: a masker is not thread-safe; the session (or MCP backend) holding one calls it
// from one thread at a time.
#pragma once

#include <agentkit/core/error.hpp>
#include <agentkit/core/json.hpp>
#include <agentkit/core/result.hpp>
#include <agentkit/tools/output.hpp>
#include <agentkit/tools/tool.hpp>

#include <concepts>
#include <cstdint>
#include <functional>
#include <optional>
#include <set>
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

/// A masker that says how its meta-tools work to an MCP client's model (`mcp_instructions()`,
/// sent as the server's instructions) in other words than its session prompt section, which may
/// name session-only tools and per-turn state messages an MCP client never gets. Without it, a
/// server sends prompt_section().
template <class M>
concept masker_with_mcp_instructions = requires(const M& m) {
    { m.mcp_instructions() } -> std::convertible_to<std::string>;
};

/// A masker whose meta-tools include some that mean something inside an agent_session only
/// (`session_only(name)`: the menu's complete and message_user): an MCP server neither lists
/// nor runs them.
template <class M>
concept masker_with_session_only_tools = requires(const M& m, std::string_view name) {
    { m.session_only(name) } -> std::convertible_to<bool>;
};

/// A masker whose state (what the conversation made callable: the menu's mode, the tools a
/// search surfaced, the intent classes chosen, ...) can be saved with a session and restored in
/// another process (agent_session::save / restore). `save_state()` is JSON; `restore_state()`
/// takes what save_state() of a masker bound to the same catalogue returned, and refuses
/// anything else with `args.invalid` naming the problem, leaving the masker as it was. A masker
/// without them is taken to have no state worth keeping.
template <class M>
concept masker_with_state = requires(const M& cm, M& m, const json& saved) {
    { cm.save_state() } -> std::convertible_to<json>;
    { m.restore_state(saved) } -> std::same_as<result<void>>;
};

namespace detail {
// The hint of every refused masker state.
inline constexpr std::string_view state_hint =
    "Pass what save_state() of the same kind of masker, bound to the same tools, returned, unchanged; or start the session afresh.";

// The check every restore_state() starts with: `saved` is an object whose "masker" is `kind`.
[[nodiscard]] inline result<void> check_state_kind(const json& saved, std::string_view kind) {
    const std::string k(kind);
    if (!saved.is_object())
        return fail(errc::args_invalid, k + " state: expected a JSON object, got " + std::string(saved.type_name()),
                    std::string(state_hint));
    const auto it = saved.find("masker");
    if (it == saved.end() || !it->is_string())
        return fail(errc::args_invalid, k + " state: \"masker\" is missing or not a string", std::string(state_hint));
    if (it->get_ref<const std::string&>() != kind)
        return fail(errc::args_invalid, k + " state: this is a \"" + it->get<std::string>() + "\" masker's state",
                    "Restore a state into the kind of masker that saved it (did the session's masker type change?).");
    return {};
}

// Field `key` of object `obj` (`where` names it in messages) as a string.
[[nodiscard]] inline result<std::string> state_string(const json& obj, const std::string& key, const std::string& where) {
    const auto it = obj.find(key);
    if (it == obj.end() || !it->is_string())
        return fail(errc::args_invalid, where + ": \"" + key + "\" is missing or not a string", std::string(state_hint));
    return it->get<std::string>();
}

// Field `key` of object `obj` as a list of distinct strings (args.invalid when missing, not an
// array of strings, or repeating one).
[[nodiscard]] inline result<std::vector<std::string>> state_strings(const json& obj, const std::string& key,
                                                                   const std::string& where) {
    const auto it = obj.find(key);
    if (it == obj.end() || !it->is_array())
        return fail(errc::args_invalid, where + ": \"" + key + "\" is missing or not an array of strings", std::string(state_hint));
    std::vector<std::string> out;
    std::set<std::string> seen;
    for (const auto& v : *it) {
        if (!v.is_string())
            return fail(errc::args_invalid, where + ": \"" + key + "\" holds a " + std::string(v.type_name()) + " where a string belongs",
                        std::string(state_hint));
        auto s = v.get<std::string>();
        if (!seen.insert(s).second)
            return fail(errc::args_invalid, where + ": \"" + key + "\" names \"" + s + "\" twice", std::string(state_hint));
        out.push_back(std::move(s));
    }
    return out;
}
}  // namespace detail

/// What an MCP client's model is told about masker `m`'s meta-tools: mcp_instructions() when
/// it has them, else its prompt section.
template <class M>
[[nodiscard]] std::string mcp_instructions_of(const M& m) {
    if constexpr (masker_with_mcp_instructions<M>) {
        return m.mcp_instructions();
    } else {
        return m.prompt_section();
    }
}

/// True when `name` is one of masker `m`'s session-only meta-tools.
template <class M>
[[nodiscard]] bool session_only_tool(const M& m, std::string_view name) {
    if constexpr (masker_with_session_only_tools<M>) {
        return m.session_only(name);
    } else {
        (void)m;
        (void)name;
        return false;
    }
}

/// The meta-tools of masker `m` an MCP server lists: all but its session-only ones.
template <class M>
[[nodiscard]] std::vector<tool_info> served_meta_tools(const M& m) {
    std::vector<tool_info> out;
    for (auto& t : m.meta_tools())
        if (!session_only_tool(m, t.name)) out.push_back(std::move(t));
    return out;
}

/// The answer of an MCP server to a call of a session-only meta-tool: as for a tool it does
/// not have, with a hint that says why.
[[nodiscard]] inline error session_only_refusal(std::string_view name) {
    return error(errc::tool_unknown, "no tool named \"" + std::string(name) + "\" here",
                 std::string(name) + " belongs to an agent session's own loop; an MCP client ends or reports its task itself. "
                                     "Call one of the listed tools.");
}

/// The baseline: every tool visible, no meta-tools, nothing to say.
class all_visible {
public:
    /// Record the names of the host's tools.
    void bind(const std::vector<tool_info>& catalogue) {
        names_.clear();
        for (const auto& t : catalogue) names_.push_back(t.name);
    }
    /// None: this masker adds no meta-tools.
    [[nodiscard]] std::vector<tool_info> meta_tools() const { return {}; }
    /// True for every host tool.
    [[nodiscard]] bool is_visible(std::string_view name) const {
        for (const auto& n : names_)
            if (n == name) return true;
        return false;
    }
    /// Every host tool, in catalogue order.
    [[nodiscard]] std::vector<std::string> visible() const { return names_; }
    /// Empty: nothing to add to the system prompt.
    [[nodiscard]] std::string prompt_section() const { return {}; }
    /// Empty: no per-turn state.
    [[nodiscard]] std::string state_message() const { return {}; }
    /// Always nullopt: there are no meta-tools.
    [[nodiscard]] std::optional<result<tool_output>> handle_meta(std::string_view, const json&) { return std::nullopt; }
    /// A tool.unknown error (a name that is not a host tool).
    [[nodiscard]] result<tool_output> answer_hidden(std::string_view name) const {
        return fail(errc::tool_unknown, "no tool named \"" + std::string(name) + "\"", "Call one of the listed tools.");
    }
    /// Ignores the call.
    void observe_call(std::string_view, const json&, bool) {}
    /// Always 0: the visible set never changes.
    [[nodiscard]] std::uint64_t version() const noexcept { return 0; }

private:
    std::vector<std::string> names_;
};

static_assert(masker<all_visible>);

// ---------------------------------------------------------------------------------------------
// Optional capabilities. A masker may offer any of these on top of the `masker` concept; a
// session uses the free functions below, which do the right thing (usually nothing) for
// maskers that lack them, so `all_visible` and host maskers stay valid unchanged.

/// The masker reports visible-set changes through a callback (MCP list_changed).
template <class M>
concept observable_masker = masker<M> && requires(M& m, std::function<void(std::uint64_t)> cb) {
    { m.set_on_change(std::move(cb)) } -> std::same_as<void>;
};

/// The masker wants each new user message (intent classes classify it).
template <class M>
concept message_aware_masker = masker<M> && requires(M& m, std::string_view text) {
    { m.on_user_message(text) } -> std::same_as<void>;
};

/// The masker can nudge a model that answered in prose where it should have acted (the
/// menu's ROOT dead end). The session calls it when a model turn ends without a tool call;
/// a returned text is injected as the next user-side message.
template <class M>
concept nudging_masker = masker<M> && requires(M& m) {
    { m.dead_end_nudge() } -> std::same_as<std::optional<std::string>>;
};

/// Install a change callback when the masker supports one; returns whether it does.
template <masker M>
bool on_visibility_change(M& m, std::function<void(std::uint64_t)> cb) {
    if constexpr (observable_masker<M>) {
        m.set_on_change(std::move(cb));
        return true;
    } else {
        (void)m;
        (void)cb;
        return false;
    }
}

/// Hand a new user message to the masker (no-op for maskers that do not want it).
template <masker M>
void notify_user_message(M& m, std::string_view text) {
    if constexpr (message_aware_masker<M>) m.on_user_message(text);
    else {
        (void)m;
        (void)text;
    }
}

/// The masker's nudge after a prose-only model turn, if it has one now.
template <masker M>
std::optional<std::string> dead_end_nudge(M& m) {
    if constexpr (nudging_masker<M>) return m.dead_end_nudge();
    else {
        (void)m;
        return std::nullopt;
    }
}

/// Compile-time check of a masker against the toolbox it will be composed with: a masker
/// type may declare `template <class Box> static constexpr bool agentkit_check_toolbox()`,
/// whose static_asserts reject misuse (e.g. a menu with a tool in no mode). A session calls
/// this in its constructor: `agentkit::check_masker<Box, M>();`.
template <class Box, class M>
constexpr bool check_masker() {
    if constexpr (requires { M::template agentkit_check_toolbox<Box>(); })
        return M::template agentkit_check_toolbox<Box>();
    else
        return true;
}

}  // namespace agentkit
