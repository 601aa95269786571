// agentkit/visibility/menu.hpp — the two-level tool menu: ROOT lists modes, entering a
// mode shows its tools; taught by a prompt contract and a per-turn state line.
//
//   inline const auto box = agentkit::toolbox{browser_navigate, browser_click, web_search, bash};
//   auto menu = agentkit::menu_for<decltype(box)>(
//       agentkit::mode<"browser">(browser_navigate, browser_click)
//           .describe("Browser automation")
//           .when("Web browsing, clicking, forms, UI testing"),
//       agentkit::mode<"search">(web_search, browser_navigate).when("Web research, documentation lookup"),
//       agentkit::mode<"swe">(bash).when("Code changes, debugging, testing"),
//       agentkit::in_every_mode(browser_navigate),          // cross-cutting, read-only
//       agentkit::start_in<"swe">,                           // optional: start in a mode
//       agentkit::menu_options{.root_nudge = "..."});        // optional: wording and hooks
//
// The model starts at ROOT with six meta-tools (menu_list, menu_enter, menu_exit, complete,
// think, message_user) and reaches domain tools by entering a mode. Modes are listed in the
// order declared. Modes name their tools by the tool objects themselves (or by
// `agentkit::tool_ref<"name">`), so everything is checked at compile time against the
// toolbox: a tool in no mode, a mode naming a tool the toolbox lacks, two modes with one
// name, a start mode that is not declared, or a host tool named like a meta-tool is a
// compile error with a readable message. `agentkit::menu{...}` without a toolbox is checked
// when a session composes it with one (agentkit::check_masker<Box, M>()).
#pragma once

#include <agentkit/tools/toolbox.hpp>
#include <agentkit/core/error.hpp>
#include <agentkit/core/fixed_string.hpp>
#include <agentkit/core/json.hpp>
#include <agentkit/core/result.hpp>
#include <agentkit/core/strings.hpp>
#include <agentkit/tools/output.hpp>
#include <agentkit/tools/tool.hpp>
#include <agentkit/visibility/masker.hpp>
#include <agentkit/visibility/signal.hpp>

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <type_traits>
#include <unordered_map>
#include <utility>
#include <vector>

namespace agentkit {

/// A tool named by its name alone, for modes declared away from the tool objects.
template <fixed_string Name>
struct tool_ref_t {
    static_assert(is_valid_tool_name(Name.view()),
                  "agentkit: invalid tool name: a tool name must be 1-64 characters of [A-Za-z0-9_.-]");
    /// The tool name.
    static constexpr std::string_view name = Name.view();
};
/// Names a tool in a mode by its name alone: `agentkit::tool_ref<"browser_click">`.
template <fixed_string Name>
inline constexpr tool_ref_t<Name> tool_ref{};

namespace detail {
template <class T>
struct tool_name_of {
    static_assert(sizeof(T) == 0, "agentkit: a mode lists tools: pass tool objects or agentkit::tool_ref<\"name\">");
};
template <fixed_string N, class A, class F>
struct tool_name_of<tool_t<N, A, F>> {
    static constexpr auto value = N;
};
template <fixed_string N>
struct tool_name_of<tool_ref_t<N>> {
    static constexpr auto value = N;
};

template <std::size_t N>
[[nodiscard]] constexpr bool contains_name(const std::array<std::string_view, N>& a, std::string_view n) noexcept {
    for (auto x : a)
        if (x == n) return true;
    return false;
}
}  // namespace detail

/// The names of the menu's meta-tools, always visible.
inline constexpr std::array<std::string_view, 6> menu_meta_tool_names{"menu_list", "menu_enter", "menu_exit",
                                                                      "complete",  "think",      "message_user"};

/// A mode: a compile-time name and tool list, plus the host's description and intent line.
template <fixed_string Name, fixed_string... Tools>
struct mode_def {
    /// The mode's name (menu_enter's argument).
    static constexpr std::string_view name = Name.view();
    /// The names of the mode's tools, in declared order.
    static constexpr std::array<std::string_view, sizeof...(Tools)> tools{Tools.view()...};
    std::string_view description{};  ///< what the mode is for (menu_list, prompt)
    std::string_view intent{};       ///< the intent line of the prompt's intent → mode map

    /// A copy with a description.
    [[nodiscard]] constexpr mode_def describe(std::string_view d) const {
        mode_def m = *this;
        m.description = d;
        return m;
    }
    /// A copy with the intent line ("Web browsing, clicking, forms, UI testing").
    [[nodiscard]] constexpr mode_def when(std::string_view i) const {
        mode_def m = *this;
        m.intent = i;
        return m;
    }
};

/// Declare a mode: `agentkit::mode<"browser">(browser_navigate, browser_click)`.
template <fixed_string Name, class... Tools>
[[nodiscard]] constexpr auto mode(const Tools&...) {
    static_assert(is_valid_tool_name(Name.view()),
                  "agentkit: invalid mode name: a mode name must be 1-64 characters of [A-Za-z0-9_.-]");
    static_assert(!iequals_ascii(Name.view(), "ROOT"), "agentkit: \"ROOT\" is reserved and cannot name a mode");
    static_assert(sizeof...(Tools) > 0, "agentkit: a mode needs at least one tool");
    return mode_def<Name, detail::tool_name_of<Tools>::value...>{};
}

/// Tools visible in every mode (read-only tools a model needs everywhere, such as navigate
/// and snapshot next to the domain tools). They count as covered.
template <fixed_string... Tools>
struct every_mode_def {
    /// The names of the tools visible in every mode.
    static constexpr std::array<std::string_view, sizeof...(Tools)> tools{Tools.view()...};
};
/// Declare tools visible in every mode: `agentkit::in_every_mode(browser_navigate)`.
template <class... Tools>
[[nodiscard]] constexpr auto in_every_mode(const Tools&...) {
    return every_mode_def<detail::tool_name_of<Tools>::value...>{};
}

/// Start in a mode instead of ROOT (saves the first menu_enter when the task is known).
template <fixed_string Name>
struct start_in_t {
    /// The start mode's name.
    static constexpr std::string_view name = Name.view();
};
/// Start the menu in this mode: `agentkit::start_in<"swe">`.
template <fixed_string Name>
inline constexpr start_in_t<Name> start_in{};

/// Run-time options of a menu (wording and hooks).
struct menu_options {
    /// The ROOT dead-end nudge (a model that answers in prose at ROOT is told how to act). "{modes}" is replaced by the mode list.
    std::string root_nudge =
        "You are at ROOT, where only the menu tools exist, and you answered without acting. If the task needs "
        "tools, call menu_enter with one of: {modes}. If it is finished, call complete.";
    /// How many nudges per stay at ROOT (entering a mode resets the count); 0 disables them.
    std::size_t max_nudges = 2;
    /// Also show the in_every_mode tools at ROOT.
    bool every_mode_tools_at_root = false;
    /// menu_enter results carry tool_reference blocks for the mode's tools (Anthropic
    /// defer_loading); strategy::adapt_output() drops them for the other strategies.
    bool reference_blocks = true;
    /// List the current mode's tool names in [MENU_STATE] (useful when the full tool list
    /// stays in the prompt and only allowed_tools restricts it).
    bool state_lists_tools = true;
    /// Replaces the prompt's opening paragraph when not empty.
    std::string prompt_intro;
    /// Replaces the first-action rule when not empty.
    std::string first_action_rule;
    /// Modes left out at run time (a capability the host has not turned on): not listed, not
    /// enterable, not in the prompt; a call to a tool that only they hold answers
    /// capability.unsupported with `omitted_hint` (what turns them on). Unknown names are
    /// problems() at bind.
    std::vector<std::string> omitted_modes;
    /// The hint of a call to a tool of an omitted mode.
    std::string omitted_hint = "This tool is not offered by this host.";
    /// Called with the model's summary when it calls complete.
    std::function<void(std::string_view)> on_complete;
    /// Called with the text when the model calls message_user.
    std::function<void(std::string_view)> on_message_user;
};

/// One mode at run time.
struct menu_mode {
    std::string name;                ///< the mode's name
    std::string description;         ///< what the mode is for (menu_list, prompt)
    std::string intent;              ///< the intent line of the prompt's intent → mode map
    std::vector<std::string> tools;  ///< in declared order
};

/// The run-time part of every menu<...>: state, visibility, meta-tools, prompt and state text.
class menu_runtime {
public:
    /// The name of the state outside every mode.
    static constexpr std::string_view root = "ROOT";

    menu_runtime() = default;
    /// A menu over these modes, in-every-mode tools, start mode ("" for ROOT) and options.
    menu_runtime(std::vector<menu_mode> modes, std::vector<std::string> every, std::string start, menu_options o)
        : modes_(std::move(modes)), every_(std::move(every)), start_(std::move(start)), opt_(std::move(o)) {
        for (const auto& name : opt_.omitted_modes) {
            auto it = std::find_if(modes_.begin(), modes_.end(), [&](const menu_mode& m) { return m.name == name; });
            if (it == modes_.end()) {
                unknown_omitted_.push_back(name);
                continue;
            }
            omitted_tools_.insert(it->tools.begin(), it->tools.end());
            modes_.erase(it);
        }
        for (const auto& m : modes_)
            for (const auto& t : m.tools) omitted_tools_.erase(t);  // still reachable through another mode
        if (std::find(opt_.omitted_modes.begin(), opt_.omitted_modes.end(), start_) != opt_.omitted_modes.end()) start_.clear();
        current_ = find_mode(start_);
    }

    // --- masker ------------------------------------------------------------------------------
    /// Take the host's catalogue; tools a mode lists but the toolbox lacks, and tools in no mode, become
    /// problems(). Returns to the start mode.
    void bind(const std::vector<tool_info>& catalogue) {
        catalogue_.clear();
        index_.clear();
        for (const auto& t : catalogue) {
            index_.emplace(t.name, catalogue_.size());
            catalogue_.push_back(t.name);
        }
        problems_.clear();
        for (const auto& m : modes_)
            for (const auto& t : m.tools)
                if (!index_.count(t)) problems_.push_back("mode \"" + m.name + "\" lists unknown tool \"" + t + "\"");
        for (const auto& t : catalogue_)
            if (modes_of(t).empty() && !is_every(t) && !omitted_tools_.count(t)) problems_.push_back("tool \"" + t + "\" is in no mode");
        for (const auto& m : unknown_omitted_) problems_.push_back("omitted mode \"" + m + "\" is not a mode");
        current_ = find_mode(start_);
        nudges_ = 0;
        signal_.bump();
    }

    /// The six menu tools: menu_list, menu_enter, menu_exit, complete, think, message_user.
    [[nodiscard]] std::vector<tool_info> meta_tools() const {
        std::vector<tool_info> out;
        auto obj = [](json props, json required) {
            return json{{"type", "object"}, {"properties", std::move(props)}, {"required", std::move(required)},
                        {"additionalProperties", false}};
        };
        json mode_enum = json::array();
        for (const auto& m : modes_) mode_enum.push_back(m.name);
        std::string mode_list;
        for (const auto& m : modes_) mode_list += (mode_list.empty() ? "" : ", ") + m.name;

        tool_info list;
        list.name = "menu_list";
        list.description = "Show the current mode, the modes of the tool menu with what each is for, and their tools.";
        list.input_schema = obj(json::object(), json::array());
        list.traits = read_only;
        out.push_back(std::move(list));

        tool_info enter;
        enter.name = "menu_enter";
        enter.description = "Enter a mode of the tool menu to make its tools available. Modes: " + mode_list + ".";
        enter.input_schema = obj(json{{"mode", {{"type", "string"}, {"description", "The mode to enter"}, {"enum", mode_enum}}}},
                                 json::array({"mode"}));
        out.push_back(std::move(enter));

        tool_info exit_;
        exit_.name = "menu_exit";
        exit_.description = "Leave the current mode and return to ROOT.";
        exit_.input_schema = obj(json::object(), json::array());
        out.push_back(std::move(exit_));

        tool_info complete;
        complete.name = "complete";
        complete.description = "Signal that the task is finished, with a short summary of the outcome.";
        complete.input_schema = obj(json{{"summary", {{"type", "string"}, {"description", "What was done"}}}},
                                    json::array({"summary"}));
        out.push_back(std::move(complete));

        tool_info think;
        think.name = "think";
        think.description = "Think step by step before acting; the thought is recorded, nothing else happens.";
        think.input_schema = obj(json{{"thought", {{"type", "string"}, {"description", "Your reasoning"}}}},
                                 json::array({"thought"}));
        think.traits = read_only;
        out.push_back(std::move(think));

        tool_info msg;
        msg.name = "message_user";
        msg.description = "Send a message to the user (progress, a question, or the answer).";
        msg.input_schema = obj(json{{"message", {{"type", "string"}, {"description", "The message"}}}},
                               json::array({"message"}));
        out.push_back(std::move(msg));
        return out;
    }

    /// True for the menu tools and for the tools of the current mode (and in_every_mode tools, see menu_options).
    [[nodiscard]] bool is_visible(std::string_view name) const {
        if (detail::contains_name(menu_meta_tool_names, name)) return true;
        auto it = index_.find(std::string(name));
        if (it == index_.end()) return false;
        return visible_now(it->first);
    }

    /// The menu tools, then the tools visible in the current mode in catalogue order.
    [[nodiscard]] std::vector<std::string> visible() const {
        std::vector<std::string> out(menu_meta_tool_names.begin(), menu_meta_tool_names.end());
        for (const auto& t : catalogue_)
            if (visible_now(t)) out.push_back(t);
        return out;
    }

    /// The menu's prompt contract: how the menu works, the intent → mode map and the first-action rule (stable).
    [[nodiscard]] std::string prompt_section() const { return contract(true); }

    /// The same contract for an MCP client's model (the server's instructions): the menu tools
    /// without the session-only ones, and menu_list in place of the per-turn state message.
    [[nodiscard]] std::string mcp_instructions() const { return contract(false); }

    /// complete and message_user: they end or report an agent_session's run, and mean nothing
    /// to an MCP client (a server neither lists nor runs them).
    [[nodiscard]] static bool session_only(std::string_view name) noexcept { return name == "complete" || name == "message_user"; }

private:
    [[nodiscard]] std::string contract(bool session) const {
        std::string s = "## Tool menu\n";
        if (!opt_.prompt_intro.empty()) {
            s += opt_.prompt_intro;
        } else {
            s += std::string("Your tools are organised in a menu of modes. At ROOT only the menu tools are available (") +
                 (session ? "menu_list, menu_enter, menu_exit, complete, think, message_user" : "menu_list, menu_enter, menu_exit, think") +
                 "); a mode's tools become available once you enter it with menu_enter, and menu_exit returns to ROOT. "
                 "Every tool is reachable: if a tool you need is not available, enter the mode that has it.";
        }
        if (!start_.empty()) s += " You start in mode " + start_ + ".";
        s += "\n\nIntent -> mode:\n";
        for (const auto& m : modes_) {
            s += "- " + m.name + ": ";
            s += !m.intent.empty() ? m.intent : (!m.description.empty() ? m.description : "tools: " + join(m.tools, ", "));
            s += "\n";
        }
        s += "\nFirst action rule: ";
        if (!opt_.first_action_rule.empty()) {
            s += opt_.first_action_rule;
        } else {
            s += "unless the request needs no tools at all, your first action is menu_enter with the mode that fits "
                 "it (call menu_list if unsure). Switch modes when the task moves on; do not answer in prose that "
                 "you cannot do something before checking the menu.";
        }
        s += session ? "\nEach turn a [MENU_STATE] message tells you the current mode.\n" : "\nmenu_list tells you the current mode.\n";
        return s;
    }

public:

    /// "[MENU_STATE] mode: ...": the current mode, its tools and the other modes.
    [[nodiscard]] std::string state_message() const {
        std::string s = "[MENU_STATE] mode: ";
        if (current_ < 0) {
            s += "ROOT (menu tools only";
            if (opt_.every_mode_tools_at_root && !every_.empty()) s += " + " + join(every_, ", ");
            s += ") | modes: ";
            s += modes_summary(-1);
            s += " | call menu_enter to use a mode's tools";
        } else {
            const auto& m = modes_[static_cast<std::size_t>(current_)];
            const auto tools = mode_tools(current_);
            s += m.name + " (" + count_noun(tools.size(), "tool");
            if (opt_.state_lists_tools) s += ": " + join(tools, ", ");
            s += ") | other modes: " + modes_summary(current_) + " | menu_exit returns to ROOT";
        }
        return s;
    }

    /// Answer a call to one of the six menu tools; nullopt for any other name.
    [[nodiscard]] std::optional<result<tool_output>> handle_meta(std::string_view name, const json& args) {
        if (name == "menu_list") return list();
        if (name == "menu_enter") return enter_from_args(args);
        if (name == "menu_exit") return exit();
        if (name == "complete") {
            const std::string summary = string_arg(args, "summary");
            call_hook(opt_.on_complete, summary);
            tool_output o = tool_output::text("Task marked complete.");
            o.structured = json{{"complete", true}, {"summary", summary}};
            return o;
        }
        if (name == "think") return tool_output::text("Thought recorded.");
        if (name == "message_user") {
            const std::string message = string_arg(args, "message");
            if (message.empty())
                return result<tool_output>(fail(errc::args_invalid, "message_user: \"message\" is required and must be a non-empty string",
                                                "Call message_user with {\"message\": \"...\"}."));
            call_hook(opt_.on_message_user, message);
            return tool_output::text("Message delivered to the user.");
        }
        return std::nullopt;
    }

    /// tool.masked naming the mode to enter for the tool, or tool.unknown with the closest names.
    [[nodiscard]] result<tool_output> answer_hidden(std::string_view name) const {
        const std::string n(name);
        if (!index_.count(n)) {
            std::vector<std::string> all(menu_meta_tool_names.begin(), menu_meta_tool_names.end());
            all.insert(all.end(), catalogue_.begin(), catalogue_.end());
            auto close = closest_names(name, all, 3);
            std::string hint = close.empty() ? "Call menu_list to see the modes and their tools."
                                             : "Did you mean " + join(close, ", ") + "? Call menu_list to see every tool.";
            return fail(errc::tool_unknown, "no tool named \"" + n + "\"", std::move(hint), json{{"candidates", close}});
        }
        const auto modes = modes_of(n);
        if (modes.empty() && omitted_tools_.count(n))
            return fail(errc::capability_unsupported, n + " is not offered here", opt_.omitted_hint, json{{"tool", n}});
        std::string where = modes.empty() ? std::string("no mode") : "mode " + join(modes, ", ");
        std::string msg = n + " is not available in " + std::string(current_mode()) + "; it is in " + where + ".";
        std::string hint = modes.empty() ? "This tool cannot be reached from the menu."
                                         : "Call menu_enter with {\"mode\": \"" + modes.front() + "\"}, then call " + n + " again.";
        return fail(errc::tool_masked, std::move(msg), std::move(hint),
                    json{{"tool", n}, {"modes", modes}, {"current_mode", std::string(current_mode())}});
    }

    /// Ignores the call.
    void observe_call(std::string_view, const json&, bool) {}

    /// Moves whenever the visible set changes (entering or leaving a mode, bind(), a restore_state() to another mode).
    [[nodiscard]] std::uint64_t version() const noexcept { return signal_.version(); }

    // --- optional capabilities -----------------------------------------------------------------
    /// Install the callback run when version() moves.
    void set_on_change(std::function<void(std::uint64_t)> cb) { signal_.set_on_change(std::move(cb)); }

    /// The ROOT dead-end nudge: the configured text when the model is at ROOT and the nudge
    /// budget is not spent, else nullopt. Call it when a model turn ended in prose.
    [[nodiscard]] std::optional<std::string> dead_end_nudge() {
        if (current_ >= 0 || nudges_ >= opt_.max_nudges || opt_.root_nudge.empty()) return std::nullopt;
        ++nudges_;
        std::string s = opt_.root_nudge;
        const std::string names = mode_names_joined();
        for (std::size_t p = s.find("{modes}"); p != std::string::npos; p = s.find("{modes}", p + names.size()))
            s.replace(p, 7, names);
        return s;
    }

    /// The same nudge under the name agent_session looks for.
    [[nodiscard]] std::optional<std::string> on_prose_answer() { return dead_end_nudge(); }

    /// The conversation's state, to save with a session: {"masker": "menu", "mode": "ROOT" or the current mode's
    /// name, "nudges": ROOT nudges given since the last mode change}.
    [[nodiscard]] json save_state() const {
        return json{{"masker", "menu"}, {"mode", std::string(current_mode())}, {"nudges", nudges_}};
    }

    /// Return to a state save_state() returned; args.invalid, the menu unchanged, for another masker's state, a
    /// malformed one or a mode this menu does not offer.
    [[nodiscard]] result<void> restore_state(const json& saved) {
        if (auto ok = detail::check_state_kind(saved, "menu"); !ok) return ok;
        auto mode = detail::state_string(saved, "mode", "menu state");
        if (!mode) return fail(mode.error());
        const auto n = saved.find("nudges");
        if (n == saved.end() || !n->is_number_integer() || (!n->is_number_unsigned() && n->get<std::int64_t>() < 0))
            return fail(errc::args_invalid, "menu state: \"nudges\" is missing or not a non-negative integer",
                        std::string(detail::state_hint));
        int idx = -1;
        if (*mode != root) {
            idx = find_mode(*mode);
            if (idx < 0 && std::find(opt_.omitted_modes.begin(), opt_.omitted_modes.end(), *mode) != opt_.omitted_modes.end())
                return fail(errc::args_invalid, "menu state: mode \"" + *mode + "\" is not offered here (menu_options::omitted_modes)",
                            "Restore into a menu that offers " + *mode + ", or start the session afresh.");
            if (idx < 0)
                return fail(errc::args_invalid, "menu state: this menu has no mode named \"" + *mode + "\"",
                            "Restore a state saved by a menu with the same modes (" + mode_names_joined() +
                                "), or start the session afresh.");
        }
        const bool changed = idx != current_;
        current_ = idx;
        nudges_ = n->get<std::size_t>();
        if (changed) signal_.bump();
        return {};
    }

    // --- menu API ------------------------------------------------------------------------------
    /// "ROOT" or the current mode's name.
    [[nodiscard]] std::string_view current_mode() const noexcept {
        return current_ < 0 ? root : std::string_view(modes_[static_cast<std::size_t>(current_)].name);
    }
    /// True when no mode is entered.
    [[nodiscard]] bool at_root() const noexcept { return current_ < 0; }
    /// The modes, in declared order.
    [[nodiscard]] const std::vector<menu_mode>& modes() const noexcept { return modes_; }
    /// The names of the in_every_mode tools.
    [[nodiscard]] const std::vector<std::string>& every_mode_tools() const noexcept { return every_; }
    /// The mode the menu starts in ("ROOT" when none).
    [[nodiscard]] std::string_view start_mode() const noexcept { return start_.empty() ? root : std::string_view(start_); }
    /// The run-time options.
    [[nodiscard]] const menu_options& options() const noexcept { return opt_; }
    /// Binding problems (only possible for menus never checked against their toolbox).
    [[nodiscard]] const std::vector<std::string>& problems() const noexcept { return problems_; }

    /// The modes a tool is in, in declared order.
    [[nodiscard]] std::vector<std::string> modes_of(std::string_view tool) const {
        std::vector<std::string> out;
        for (const auto& m : modes_)
            if (std::find(m.tools.begin(), m.tools.end(), tool) != m.tools.end()) out.push_back(m.name);
        return out;
    }

    /// Enter a mode (the menu_enter meta-tool). Unknown modes fail with the list of modes.
    [[nodiscard]] result<tool_output> enter(std::string_view mode) {
        int idx = find_mode(mode);
        if (idx < 0) {
            for (std::size_t i = 0; i < modes_.size(); ++i)
                if (iequals_ascii(modes_[i].name, mode)) idx = static_cast<int>(i);
        }
        if (idx < 0) {
            for (const auto& m : opt_.omitted_modes)
                if (iequals_ascii(m, mode))
                    return fail(errc::capability_unsupported, "mode \"" + m + "\" is not offered here",
                                opt_.omitted_hint + " Call menu_enter with one of: " + mode_names_joined() + ".");
            json names = json::array();
            for (const auto& m : modes_) names.push_back(m.name);
            std::vector<std::string> all;
            for (const auto& m : modes_) all.push_back(m.name);
            auto close = closest_names(mode, all, 1);
            std::string hint = "Call menu_enter with one of: " + mode_names_joined() + ".";
            if (!close.empty()) hint = "Did you mean \"" + close.front() + "\"? " + hint;
            return fail(errc::args_invalid, "no mode named \"" + std::string(mode) + "\"", std::move(hint),
                        json{{"modes", std::move(names)}});
        }
        const bool changed = idx != current_;
        current_ = idx;
        nudges_ = 0;
        if (changed) signal_.bump();
        const auto& m = modes_[static_cast<std::size_t>(idx)];
        const auto tools = mode_tools(idx);
        tool_output o = tool_output::text((changed ? "Entered mode " : "Already in mode ") + m.name + ". " +
                                          count_noun(tools.size(), "tool") + " available: " + join(tools, ", ") + ".");
        if (opt_.reference_blocks)
            for (const auto& t : tools) o.content.push_back(content_block::make_tool_reference(t));
        o.structured = json{{"mode", m.name}, {"tools", tools}};
        return o;
    }

    /// Return to ROOT (the menu_exit meta-tool).
    [[nodiscard]] result<tool_output> exit() {
        if (current_ < 0) return tool_output::text("Already at ROOT. Modes: " + mode_names_joined() + ".");
        const std::string left = modes_[static_cast<std::size_t>(current_)].name;
        current_ = -1;
        nudges_ = 0;
        signal_.bump();
        return tool_output::text("Left mode " + left + "; now at ROOT. Modes: " + mode_names_joined() + ".");
    }

    /// The menu_list meta-tool.
    [[nodiscard]] result<tool_output> list() const {
        std::string s = "Current mode: " + std::string(current_mode()) + "\nModes:";
        json modes = json::array();
        for (std::size_t i = 0; i < modes_.size(); ++i) {
            const auto& m = modes_[i];
            const auto tools = mode_tools(static_cast<int>(i));
            s += "\n- " + m.name;
            if (!m.description.empty()) s += " — " + m.description;
            if (!m.intent.empty() && m.intent != m.description) s += " (use for: " + m.intent + ")";
            s += ": " + join(tools, ", ");
            modes.push_back(json{{"name", m.name}, {"description", m.description}, {"intent", m.intent}, {"tools", tools}});
        }
        if (!every_.empty()) s += "\nIn every mode: " + join(every_, ", ");
        tool_output o = tool_output::text(std::move(s));
        o.structured = json{{"current_mode", std::string(current_mode())}, {"modes", std::move(modes)}};
        return o;
    }

    /// Host tools visible in mode `idx` (-1: ROOT): the mode's own tools in declared order,
    /// then the every-mode tools it does not already list.
    [[nodiscard]] std::vector<std::string> mode_tools(int idx) const {
        std::vector<std::string> out;
        if (idx >= 0) out = modes_[static_cast<std::size_t>(idx)].tools;
        if (idx >= 0 || opt_.every_mode_tools_at_root)
            for (const auto& t : every_)
                if (std::find(out.begin(), out.end(), t) == out.end()) out.push_back(t);
        return out;
    }

private:
    static std::string string_arg(const json& args, const char* key) {
        if (!args.is_object()) return {};
        auto it = args.find(key);
        return it != args.end() && it->is_string() ? it->get<std::string>() : std::string();
    }
    static void call_hook(const std::function<void(std::string_view)>& f, std::string_view s) noexcept {
        if (!f) return;
        try {
            f(s);
        } catch (...) {  // user callbacks never throw into the library
        }
    }
    result<tool_output> enter_from_args(const json& args) {
        if (!args.is_object() || !args.contains("mode") || !args["mode"].is_string()) {
            json names = json::array();
            for (const auto& m : modes_) names.push_back(m.name);
            return fail(errc::args_invalid, "menu_enter: \"mode\" is required and must be a string",
                        "Call menu_enter with {\"mode\": one of " + mode_names_joined() + "}.",
                        json{{"modes", std::move(names)}});
        }
        return enter(args["mode"].get<std::string>());
    }
    [[nodiscard]] int find_mode(std::string_view name) const {
        for (std::size_t i = 0; i < modes_.size(); ++i)
            if (modes_[i].name == name) return static_cast<int>(i);
        return -1;
    }
    [[nodiscard]] bool is_every(std::string_view t) const {
        return std::find(every_.begin(), every_.end(), t) != every_.end();
    }
    [[nodiscard]] bool visible_now(std::string_view t) const {
        if (is_every(t) && (current_ >= 0 || opt_.every_mode_tools_at_root)) return true;
        if (current_ < 0) return false;
        const auto& m = modes_[static_cast<std::size_t>(current_)].tools;
        return std::find(m.begin(), m.end(), t) != m.end();
    }
    [[nodiscard]] std::string mode_names_joined() const {
        std::string s;
        for (const auto& m : modes_) s += (s.empty() ? "" : ", ") + m.name;
        return s;
    }
    [[nodiscard]] std::string modes_summary(int except) const {
        std::string s;
        for (std::size_t i = 0; i < modes_.size(); ++i) {
            if (static_cast<int>(i) == except) continue;
            if (!s.empty()) s += ", ";
            s += modes_[i].name + " (" + std::to_string(mode_tools(static_cast<int>(i)).size()) + ")";
        }
        return s;
    }

    std::vector<menu_mode> modes_;
    std::set<std::string> omitted_tools_;         // tools only omitted modes hold (menu_options::omitted_modes)
    std::vector<std::string> unknown_omitted_;    // omitted_modes naming no mode (problems at bind)
    std::vector<std::string> every_;
    std::string start_;
    menu_options opt_;
    std::vector<std::string> catalogue_;
    std::unordered_map<std::string, std::size_t> index_;
    std::vector<std::string> problems_;
    int current_ = -1;
    std::size_t nudges_ = 0;
    visibility_signal signal_;
};

namespace detail {
template <class T> struct is_mode_def : std::false_type {};
template <fixed_string N, fixed_string... T> struct is_mode_def<mode_def<N, T...>> : std::true_type {};
template <class T> struct is_every_def : std::false_type {};
template <fixed_string... T> struct is_every_def<every_mode_def<T...>> : std::true_type {};
template <class T> struct is_start_def : std::false_type {};
template <fixed_string N> struct is_start_def<start_in_t<N>> : std::true_type {};

template <class P>
inline constexpr bool is_menu_part_v = is_mode_def<P>::value || is_every_def<P>::value || is_start_def<P>::value ||
                                       std::is_same_v<P, menu_options>;

template <class P>
constexpr bool part_lists(std::string_view tool) {
    if constexpr (is_mode_def<P>::value || is_every_def<P>::value) return contains_name(P::tools, tool);
    else return false;
}

template <class P>
constexpr std::string_view mode_name_or_empty() {
    if constexpr (is_mode_def<P>::value) return P::name;
    else return {};
}

template <class... Parts>
constexpr bool mode_names_unique() {
    constexpr std::array<std::string_view, sizeof...(Parts)> names{mode_name_or_empty<Parts>()...};
    for (std::size_t i = 0; i < names.size(); ++i)
        for (std::size_t j = i + 1; j < names.size(); ++j)
            if (!names[i].empty() && names[i] == names[j]) return false;
    return true;
}

template <class... Parts>
struct part_list {};

template <class S, class List>
struct start_declared_one : std::true_type {};
template <fixed_string N, class... Parts>
struct start_declared_one<start_in_t<N>, part_list<Parts...>>
    : std::bool_constant<((mode_name_or_empty<Parts>() == N.view()) || ...)> {};

template <class... Parts>
constexpr bool start_is_declared() {
    return (start_declared_one<Parts, part_list<Parts...>>::value && ...);
}

template <class... Parts>
constexpr std::size_t count_starts() {
    return (std::size_t{is_start_def<Parts>::value ? 1U : 0U} + ... + 0U);
}
template <class... Parts>
constexpr std::size_t count_options() {
    return (std::size_t{std::is_same_v<Parts, menu_options> ? 1U : 0U} + ... + 0U);
}
template <class... Parts>
constexpr std::size_t count_modes() {
    return (std::size_t{is_mode_def<Parts>::value ? 1U : 0U} + ... + 0U);
}

// One check per host tool. The failing check's type spells the tool's name one character at a
// time, which every compiler prints legibly: tool_in_no_mode<'b', 'a', 's', 'h'>.
template <char... Name>
struct tool_in_no_mode {
    static constexpr bool value = sizeof...(Name) == 0;  // false: instantiated only for a tool in no mode
    static_assert(value, "agentkit: a tool is in no mode: list it in a mode<...>(...) or in in_every_mode(...); "
                         "the diagnostic spells its name in tool_in_no_mode<...>");
};
template <fixed_string S, class Seq>
struct no_mode_for;
template <fixed_string S, std::size_t... I>
struct no_mode_for<S, std::index_sequence<I...>> {
    using type = tool_in_no_mode<S.data[I]...>;
};
struct tool_in_a_mode {
    static constexpr bool value = true;
};
template <fixed_string Tool, class... Parts>
struct menu_tool_covered {
    static constexpr bool covered = (part_lists<Parts>(Tool.view()) || ...);
    static constexpr bool value =
        std::conditional_t<covered, tool_in_a_mode, typename no_mode_for<Tool, std::make_index_sequence<Tool.size()>>::type>::value;
};
template <fixed_string Tool>
struct menu_tool_not_meta {
    static constexpr bool value = !contains_name(menu_meta_tool_names, Tool.view());
    static_assert(value, "agentkit: a host tool uses the name of a menu meta-tool (menu_list, menu_enter, menu_exit, "
                         "complete, think, message_user)");
};
template <class Box, fixed_string Tool>
struct menu_listed_tool_exists {
    static constexpr bool value = Box::contains(Tool.view());
    static_assert(value, "agentkit: a mode lists a tool that is not in the toolbox");
};

template <class Box, class P>
struct check_listed : std::true_type {};
template <class Box, fixed_string N, fixed_string... T>
struct check_listed<Box, mode_def<N, T...>> : std::bool_constant<(menu_listed_tool_exists<Box, T>::value && ...)> {};
template <class Box, fixed_string... T>
struct check_listed<Box, every_mode_def<T...>> : std::bool_constant<(menu_listed_tool_exists<Box, T>::value && ...)> {};

template <class Box, class... Parts>
struct menu_box_check {
    static_assert(sizeof(Box) == 0, "agentkit: a menu is checked against an agentkit::toolbox<...>");
};
template <class... Tools, class... Parts>
struct menu_box_check<toolbox<Tools...>, Parts...> {
    static constexpr bool covered = (menu_tool_covered<tool_name_of<Tools>::value, Parts...>::value && ...);
    static constexpr bool no_meta = (menu_tool_not_meta<tool_name_of<Tools>::value>::value && ...);
    static constexpr bool listed = (check_listed<toolbox<Tools...>, Parts>::value && ...);
    static constexpr bool value = covered && no_meta && listed;
};

template <std::size_t N>
std::vector<std::string> to_strings(const std::array<std::string_view, N>& a) {
    std::vector<std::string> v;
    v.reserve(N);
    for (auto s : a) v.emplace_back(s);
    return v;
}
}  // namespace detail

/// A menu over modes declared at compile time. Parts: mode<...>(...), in_every_mode(...),
/// start_in<...>, menu_options{...}, in any order; modes keep their declared order.
template <class... Parts>
class menu : public menu_runtime {
    static_assert((detail::is_menu_part_v<Parts> && ...),
                  "agentkit: a menu takes mode<...>(...), in_every_mode(...), start_in<...> and menu_options");
    static_assert(detail::count_modes<Parts...>() > 0, "agentkit: a menu needs at least one mode");
    static_assert(detail::mode_names_unique<Parts...>(), "agentkit: duplicate mode name: every mode needs a unique name");
    static_assert(detail::count_starts<Parts...>() <= 1, "agentkit: a menu has at most one start_in<...>");
    static_assert(detail::count_options<Parts...>() <= 1, "agentkit: a menu has at most one menu_options");
    static_assert(detail::start_is_declared<Parts...>(), "agentkit: start_in names a mode that is not declared");

public:
    /// A menu of these parts (modes, in_every_mode, start_in, menu_options), checked at compile time.
    explicit menu(Parts... parts) : menu_runtime(collect(parts...)) {}

    /// Compile-time check against the toolbox the menu is used with (see check_masker).
    template <class Box>
    static constexpr bool agentkit_check_toolbox() {
        return detail::menu_box_check<std::remove_cvref_t<Box>, Parts...>::value;
    }

private:
    static menu_runtime collect(const Parts&... parts) {
        std::vector<menu_mode> modes;
        std::vector<std::string> every;
        std::string start;
        menu_options opt;
        auto take = [&]<class P>(const P& p) {
            if constexpr (detail::is_mode_def<P>::value) {
                modes.push_back(menu_mode{std::string(P::name), std::string(p.description), std::string(p.intent),
                                          detail::to_strings(P::tools)});
            } else if constexpr (detail::is_every_def<P>::value) {
                for (auto t : P::tools)
                    if (std::find(every.begin(), every.end(), t) == every.end()) every.emplace_back(t);
            } else if constexpr (detail::is_start_def<P>::value) {
                start = std::string(P::name);
            } else {
                opt = p;
            }
        };
        (take(parts), ...);
        return menu_runtime(std::move(modes), std::move(every), std::move(start), std::move(opt));
    }
};

template <class... Parts>
menu(Parts...) -> menu<Parts...>;

/// A menu checked at compile time against the toolbox type `Box`: every tool of `Box` is in
/// some mode (or in_every_mode), every listed tool exists in `Box`, and no host tool is named
/// like a meta-tool.
template <class Box, class... Parts>
[[nodiscard]] auto menu_for(Parts... parts) {
    static_assert(menu<Parts...>::template agentkit_check_toolbox<Box>(), "agentkit: the menu does not fit the toolbox");
    return menu<Parts...>(std::move(parts)...);
}

}  // namespace agentkit
