// agentkit/browser/tools/support.hpp — what every browser tool uses: the element arguments
// (`ref` or `target`), browser_tool<"name">() that times, caps, redacts and counts each call, and
// storing text as an artifact.
#pragma once

#include <agentkit/browser/action_result.hpp>
#include <agentkit/browser/artifacts.hpp>
#include <agentkit/browser/browser.hpp>
#include <agentkit/browser/cancel.hpp>
#include <agentkit/browser/output_files.hpp>
#include <agentkit/browser/redaction.hpp>
#include <agentkit/browser/tool_state.hpp>
#include <agentkit/core/describe.hpp>
#include <agentkit/core/json.hpp>
#include <agentkit/core/result.hpp>
#include <agentkit/core/serialize.hpp>
#include <agentkit/core/strings.hpp>
#include <agentkit/format/artifacts.hpp>
#include <agentkit/format/budget.hpp>
#include <agentkit/tools/context.hpp>
#include <agentkit/tools/output.hpp>
#include <agentkit/tools/tool.hpp>

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <system_error>
#include <set>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

namespace agentkit::browser {

/// Traits of tools that act on the page (they reach the web: open world).
inline constexpr traits action_traits = open_world;
/// Traits of tools that only read the page.
inline constexpr traits reading_traits = read_only | open_world;

/// The three element arguments of a tool that acts on one element: `ref`, and, accepted but not
/// advertised (they would cost tokens in every tools/list), `target` (Playwright MCP's newer name
/// for it) and `element` (a description, accepted and ignored).
#define AGENTKIT_BROWSER_ELEMENT_FIELDS(T)                                                                         \
    AGENTKIT_FIELD(T, ref, ""), AGENTKIT_FIELD(T, target, "", hidden()),              \
        AGENTKIT_FIELD(T, element, "", hidden())

/// The tool that reads what the browser tools store (cut results, screenshots, logs).
inline constexpr std::string_view artifact_tool_name = "browser_artifact";

namespace detail {

/// The element of a call: `ref` or `target`, unwrapped from "[ref=…]".
inline result<std::string> element_of(const std::optional<std::string>& ref, const std::optional<std::string>& target,
                                      std::string_view what = "element") {
    const std::optional<std::string>& v = ref ? ref : target;
    if (!v || v->empty())
        return fail(errc::args_invalid, "missing the " + std::string(what) + ": pass `ref` (or `target`) from the snapshot",
                    "Use a ref exactly as the snapshot shows it, e.g. {\"ref\": \"e12\"}.");
    std::string s = *v;
    if (s.size() > 2 && s.front() == '[' && s.back() == ']') s = s.substr(1, s.size() - 2);
    if (s.rfind("ref=", 0) == 0) s = s.substr(4);
    return s;
}

/// The workspace (what printed paths are relative to: tools_options::workspace, else the working
/// directory) and the output directory (tools_options::output_dir, else <workspace>/.playwright-mcp).
inline std::pair<std::filesystem::path, std::filesystem::path> output_dirs(const tools_options& o) {
    namespace fs = std::filesystem;
    std::error_code ec;
    const fs::path workspace = o.workspace.empty() ? fs::current_path(ec) : fs::path(o.workspace);
    const fs::path dir = o.output_dir.empty() ? workspace / ".playwright-mcp" : fs::path(o.output_dir);
    return {workspace, dir};
}

/// Folders trim_output_dir leaves alone: the artifact store's own (it bounds itself).
inline std::vector<std::filesystem::path> store_dirs(const tool_state& st) {
    std::vector<std::filesystem::path> out;
    if (auto d = st.store.directory(); !d.empty()) out.emplace_back(std::move(d));
    return out;
}

/// Store an artifact from a call: its name, description and text (not base64 bytes) redacted
/// of the session's secrets first, as the call's result is (what the browser handed the call
/// is unredacted).
inline result<artifact_ref> store(tool_state& st, artifact_blob a) {
    a.name = st.b.redact(std::move(a.name));
    a.description = st.b.redact(std::move(a.description));
    if (!a.base64) a.data = st.b.redact(std::move(a.data));
    return st.store.put(std::move(a));
}

/// Store text as an artifact, redacted of the session's secrets first.
inline result<artifact_ref> store_text(tool_state& st, std::string name, std::string description, std::string text) {
    return store(st, {"text/plain", std::move(name), std::move(description), std::move(text), false});
}

/// Finish a call: redact every text block and the structured output (keys included) once (the
/// browser handed them over unredacted: the call ran in a redaction_scope), cap the text
/// (overflow to the store), count, report. The result is marked fitted: a result formatter (an
/// agent_session's) does not cut it again by another budget.
inline result<tool_output> finish(tool_state& st, std::string_view tool, std::chrono::steady_clock::time_point t0,
                                  const browser::counters& before, result<tool_output> r, call_metrics* metrics = nullptr) {
    call_metrics m;
    m.tool = std::string(tool);
    const auto after = st.b.totals();
    m.cdp_round_trips = after.cdp_commands - before.cdp_commands;
    m.wait_ms = after.wait_ms - before.wait_ms;
    m.ms = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - t0).count();
    m.ok = r.has_value() && !r->is_error;
    if (!r) r = fail(st.b.redact(r.error()));
    if (!r && st.options.output == output_mode::playwright) {  // Playwright's form: ### Error, then the message
        pw::response resp;
        resp.errors.push_back(pw::error_line(r.error().message));
        tool_output o = tool_output::text(resp.text());
        o.is_error = true;
        r = std::move(o);
    }
    if (r) {
        // evictions are reported once, in the result of the call that caused them
        if (auto ev = st.store.take_evictions(); !ev.empty()) {
            std::string line = "note: the artifact store is full; evicted (oldest first):";
            for (std::size_t i = 0; i < ev.size() && i < 10; ++i) line += " " + ev[i].id + " (" + ev[i].name + ")";
            if (ev.size() > 10) line += " and " + std::to_string(ev.size() - 10) + " more";
            r->add_text(line);
        }
        if (r->structured) r->structured = st.b.redact(std::move(*r->structured));
        for (auto& b : r->content) {
            if (b.type == content_block::kind::structured) b.data = st.b.redact(std::move(b.data));
            if (b.type != content_block::kind::text) continue;
            b.text = st.b.redact(std::move(b.text));
            std::size_t tokens = st.tokens.count(b.text);
            if (tokens > st.options.max_result_tokens) {
                const std::size_t keep = token_prefix(b.text, st.options.max_result_tokens, st.tokens);
                // stored as it is: redacted above
                auto ref = st.store.put({"text/plain", std::string(tool) + " result", "full text of a cut result", b.text, false});
                const std::string note =
                    "\n" + cut_note(keep, b.text.size(), std::string(tool) + " result",
                                    ref ? stored_rest(*ref, artifact_tool_name, keep) : "it could not be stored: " + ref.error().message);
                b.text.resize(keep);
                b.text += note;
                tokens = st.tokens.count(b.text);
            }
            m.bytes += b.text.size();
            m.tokens += tokens;
        }
        r->fitted = true;
    } else {
        m.bytes = r.error().message.size();
        m.tokens = st.tokens.count(r.error().to_text());
    }
    if (st.options.output_max_bytes > 0) {  // files a call (or a download) left: the oldest go, never the newest
        (void)trim_output_dir(output_dirs(st.options).second, st.options.output_max_bytes, 0, true, store_dirs(st));
    }
    {
        std::lock_guard lock(st.mu);
        st.total.add(m);
        st.per_tool[m.tool].add(m);
        st.recent.push_back(m);
        if (st.recent.size() > tool_state::recent_capacity) st.recent.pop_front();
    }
    if (st.options.on_call) {
        try {
            st.options.on_call(m);
        } catch (...) {
            // a host callback never throws into the tools
        }
    }
    if (metrics != nullptr) *metrics = std::move(m);
    return r;
}

inline result<tool_output> text_of(result<action_result> r) {
    if (!r) return fail(r.error());
    return tool_output::text(r->to_text());
}

/// Run a call's body in a redaction_scope (the browser hands it what it reads unredacted) and
/// finish it (which redacts the result once, caps, counts).
template <class F>
result<tool_output> timed(tool_state& st, std::string_view tool, F&& f, call_metrics* metrics = nullptr) {
    const auto t0 = std::chrono::steady_clock::now();
    const auto before = st.b.totals();
    result<tool_output> r = [&] {
        redaction_scope unredacted;
        return f();
    }();
    return finish(st, tool, t0, before, std::move(r), metrics);
}

/// A call through the state's hooks (tools_options::before_call and on_record, a live view's):
/// the gate first, then the call timed as `timed` does, the gate's text leading its result,
/// then the record. Without hooks, `timed` alone (the arguments are not even serialized).
template <class A, class F>
result<tool_output> hooked(tool_state& st, std::string_view tool, A&& args_of, tool_context& ctx, F&& f) {
    const auto& o = st.options;
    std::shared_ptr<trace_writer> tracer;
    if (tool != "browser_stop_tracing") {  // (the call that ends the trace is not in it)
        std::lock_guard lock(st.mu);
        tracer = st.trace;
    }
    if (!o.before_call && !o.on_record && !tracer) return timed(st, tool, std::forward<F>(f));
    call_start start{std::string(tool), st.b.redact(json(args_of()))};
    const std::string traced = tracer ? tracer->before(tool, start.args) : std::string();
    std::string lead;
    result<tool_output> gated = tool_output::text("");
    if (o.before_call) {
        try {
            auto g = o.before_call(start, ctx);
            if (g) lead = std::move(*g);
            else gated = fail(std::move(g.error()));
        } catch (...) {
        }
    }
    std::set<std::string> known;
    if (o.on_record)
        for (const auto& a : st.store.list()) known.insert(a.id);
    call_metrics m;
    auto r = gated ? timed(st, tool, std::forward<F>(f), &m) : timed(st, tool, [&] { return gated; }, &m);
    if (tracer) {  // the call's end in the trace, with its error when it failed
        std::optional<std::string> failed;
        if (!r) failed = r.error().message;
        else if (r->is_error)
            for (const auto& b : r->content)
                if (b.type == content_block::kind::text) failed = failed.value_or("") + b.text;
        tracer->after(traced, failed);
    }
    if (!lead.empty()) {  // the gate's own text, as it wrote it (a live view redacts its report)
        if (r) r->content.insert(r->content.begin(), content_block::make_text(lead + "\n"));
        else r.error().message = lead + "\n" + r.error().message;
    }
    if (o.on_record) {
        call_record rec{std::move(start.tool), std::move(start.args), std::move(m), {}, {}, {}};
        if (r) {
            for (const auto& b : r->content)
                if (b.type == content_block::kind::text) {
                    rec.head += b.text.substr(0, 400 - std::min<std::size_t>(400, rec.head.size()));
                    if (rec.head.size() >= 400) break;
                }
            rec.head.resize(utf8_safe_prefix(rec.head, 400));
            if (r->is_error) rec.error = rec.head;
        } else {
            rec.error = r.error().to_text();
        }
        for (const auto& a : st.store.list())
            if (known.count(a.id) == 0) rec.artifacts.push_back(a.id);
        try {
            o.on_record(rec);
        } catch (...) {
        }
    }
    return r;
}

/// An action that failed where the page was at fault (an element covered or not visible, a
/// wait or a navigation that failed) leaves a picture: a screenshot of the viewport stored as
/// an artifact (bounded like every artifact), its id in the error's hint and details
/// ("screenshot"). A failure to take it changes nothing else.
inline result<tool_output> with_failure_screenshot(tool_state& st, result<tool_output> r) {
    if (r || cancel_scope::requested()) return r;
    error e = r.error();
    if (!e.is(errc::element_covered) && !e.is(errc::element_not_visible) && !e.is(errc::timeout) && !e.is(errc::navigation_failed))
        return r;
    screenshot_options o;
    o.format = "jpeg";
    auto shot = st.b.screenshot(o);
    if (!shot) return r;
    auto ref = store(st, {shot->mime_type, "failure screenshot", "the page when the action failed: " + e.message, shot->base64, true});
    if (!ref) return r;
    e.hint += std::string(e.hint.empty() ? "" : " ") + "A screenshot of the page when it failed: artifact " + ref->id + " (" +
              std::string(artifact_tool_name) + ").";
    if (!e.details.is_object()) e.details = e.details.is_null() ? json::object() : json{{"cause", e.details}};
    e.details["screenshot"] = ref->id;
    return fail(std::move(e));
}

/// Whether a console message of CDP type `level` is at `min` (error, warning, info or debug) or
/// above: error and assert (and uncaught exceptions) are errors; warning; clear, debug, the group
/// markers, profile and trace are debug; every other type (log, info, dir, table, count, time, ...)
/// is info. The one rule of browser_console_messages' level, in both layouts.
[[nodiscard]] inline bool console_level_ok(std::string_view min, std::string_view level) {
    auto rank = [](std::string_view l) {
        if (l == "error" || l == "exception" || l == "assert") return 0;
        if (l == "warning") return 1;
        if (l == "debug" || l == "trace" || l == "clear" || l == "startGroup" || l == "startGroupCollapsed" || l == "endGroup" ||
            l == "profile" || l == "profileEnd")
            return 3;
        return 2;
    };
    return rank(level) <= rank(min);
}

/// With tools_options::uploads_from_workspace, let the browser take files from the workspace's
/// roots for this call (else the workspace) besides the policy's uploads directory; nothing
/// without it. An error only when asking for the roots failed (a stateless client's round).
inline result<void> admit_workspace_roots(tool_state& st, tool_context& ctx) {
    if (!st.options.uploads_from_workspace) return {};
    std::vector<std::string> roots;
    if (st.options.workspace_roots) {
        auto r = st.options.workspace_roots(ctx);
        if (!r) return fail(r.error());
        roots = std::move(*r);
    }
    if (roots.empty()) {
        std::error_code ec;
        roots.push_back(st.options.workspace.empty() ? std::filesystem::current_path(ec).string() : st.options.workspace);
    }
    st.b.set_upload_roots(std::move(roots));
    return {};
}

/// The page's modal states: the dialogs held open (dialog_policy::hold), and with hold the file
/// chooser the page opened (it waits for browser_file_upload).
struct modal_states {
    std::vector<dialog_record> dialogs;      ///< oldest first
    std::optional<file_chooser_info> chooser;  ///< held only with dialog_policy::hold
    [[nodiscard]] bool empty() const noexcept { return dialogs.empty() && !chooser; }
};

/// The modal states open on the current tab.
inline modal_states modal_of(tool_state& st) {
    modal_states m{st.b.open_dialogs(), std::nullopt};
    if (st.b.options().dialogs.hold) m.chooser = st.b.file_chooser();
    return m;
}

/// The modal states as Playwright's "Modal state" section lists them.
inline std::vector<std::string> modal_lines(const modal_states& m) {
    std::vector<std::string> lines;
    for (const auto& d : m.dialogs)
        lines.push_back("- [\"" + d.type + "\" dialog with message \"" + d.message + "\"]: can be handled by browser_handle_dialog");
    if (m.chooser) lines.emplace_back("- [File chooser]: can be handled by browser_file_upload");
    return lines;
}

/// While the page holds a modal state (a dialog, a file chooser), only the tools that answer it
/// (they check that theirs is open) or do not touch the page run, as Playwright MCP's tab tools
/// refuse: the others answer with what is open and how to go on. Nothing when none is open.
inline std::optional<result<tool_output>> modal_gate(tool_state& st, std::string_view tool) {
    static constexpr std::string_view free_tools[] = {"browser_handle_dialog", "browser_file_upload", "browser_navigate",
                                                      "browser_tabs",          "browser_close",       "browser_wait_for",
                                                      "browser_artifact",      "browser_metrics",     "web_search"};
    if (std::find(std::begin(free_tools), std::end(free_tools), tool) != std::end(free_tools)) return std::nullopt;
    const auto open = modal_of(st);
    if (open.empty()) return std::nullopt;
    if (st.options.output == output_mode::playwright) {
        pw::response resp;
        resp.errors.push_back("Error: Tool \"" + std::string(tool) + "\" does not handle the modal state.");
        resp.modal = modal_lines(open);
        tool_output o = tool_output::text(resp.text());
        o.is_error = true;
        return o;
    }
    if (open.dialogs.empty())
        return fail(errc::dialog_open, "a file chooser is open on the page: " + std::string(tool) + " waits for its answer",
                    "Answer it first with browser_file_upload (the files' paths; none cancels it).", json{{"file_chooser", true}});
    return fail(errc::dialog_open,
                "a " + open.dialogs.front().type + " dialog is open on the page: " + std::string(tool) + " waits for its answer",
                "Answer it first with browser_handle_dialog (accept true or false).", json{{"dialogs", open.dialogs.size()}});
}

}  // namespace detail

/// True for the tools whose failure leaves no screenshot: browser_take_screenshot (it failed to
/// take one) and web_search (it never touches the page).
[[nodiscard]] constexpr bool leaves_no_picture(std::string_view tool) noexcept {
    return tool == "browser_take_screenshot" || tool == "web_search";
}

/// A browser tool: the name is written once, here. The handler takes its argument struct (or
/// nothing) and returns result<tool_output>; every call is timed, its text capped (the rest
/// stored as an artifact), redacted of secrets and counted in the state's metrics.
/// The call's cancellation reaches the browser: a cancel_scope of the call's stop token is in
/// place while the handler runs (a cancelled call releases the browser within ~20 ms). A
/// handler that takes the tool_context too gets it. A call that fails where the page was at
/// fault (a covered element, a wait or a navigation that failed) leaves a screenshot artifact
/// named in its error.
template <fixed_string Name, class F>
auto browser_tool(tool_state& st, std::string_view description, F handler, traits t) {
    tool_state* s = &st;
    if constexpr (agentkit::detail::handler_sig<F>::arity == 0) {
        return tool<Name>(description, [s, handler](const no_args&, tool_context& ctx) {
            cancel_scope scope(ctx.stop);
            return detail::hooked(*s, Name.view(), [] { return json::object(); }, ctx, [&] {
                if (auto refused = detail::modal_gate(*s, Name.view())) return std::move(*refused);
                auto r = handler();
                return leaves_no_picture(Name.view()) ? r : detail::with_failure_screenshot(*s, std::move(r));
            });
        }, t);
    } else {
        using Args = agentkit::detail::handler_args_t<F>;
        return tool<Name>(description, [s, handler](const Args& a, tool_context& ctx) {
            cancel_scope scope(ctx.stop);
            return detail::hooked(*s, Name.view(), [&a] { return to_json_value(a); }, ctx, [&] {
                if (auto refused = detail::modal_gate(*s, Name.view())) return std::move(*refused);
                result<tool_output> r = [&] {
                    if constexpr (agentkit::detail::handler_sig<F>::arity == 2) return handler(a, ctx);
                    else return handler(a);
                }();
                return leaves_no_picture(Name.view()) ? r : detail::with_failure_screenshot(*s, std::move(r));
            });
        }, t);
    }
}

}  // namespace agentkit::browser
