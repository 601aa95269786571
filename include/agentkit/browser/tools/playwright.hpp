// agentkit/browser/tools/playwright.hpp — browser tools: writing a result in Playwright MCP's
// layout (tools_options::output == output_mode::playwright): the page header, the aria snapshot
// in a file of the output directory, the generated code and Playwright's error form.
// Part of browser/tools.hpp (include that).
#pragma once

#include <agentkit/browser/capabilities.hpp>
#include <agentkit/browser/playwright_output.hpp>
#include <agentkit/browser/tools/support.hpp>

#include <algorithm>
#include <chrono>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <optional>
#include <system_error>

namespace agentkit::browser::detail {

/// Whether the tools write Playwright MCP's layout.
[[nodiscard]] inline bool pw_mode(const tool_state& st) { return st.options.output == output_mode::playwright; }

/// Text a model typed in Playwright's layout: a text that is exactly a secret's name stands for
/// the secret (Playwright MCP's --secrets contract), so it becomes agentkit's placeholder (the
/// policy's origin rules still decide where it may be typed) and the code reads it from the
/// environment; any other text as it is.
struct pw_typed {
    std::string text;  ///< what the engine types (a placeholder for a secret)
    std::string code;  ///< the argument in the generated code
};
[[nodiscard]] inline pw_typed pw_text(const tool_state& st, const std::string& text) {
    const auto& secrets = st.b.policy().secrets;
    if (pw_mode(st) && secrets.count(text) != 0) return {"<secret>" + text + "</secret>", pw::secret_code(text, st.options.codegen)};
    return {text, pw::quote(text, st.options.codegen)};
}

/// A number as Playwright's code writes it: 1, not 1.0; 1.5 as 1.5.
inline std::string pw_number(double v) {
    if (v == static_cast<double>(static_cast<long long>(v))) return std::to_string(static_cast<long long>(v));
    return json(v).dump();
}

/// "page-2026-11-30T01-02-03-456Z" (pw::file_stamp).
inline std::string pw_file_stamp(std::string_view prefix) { return pw::file_stamp(prefix); }

/// The workspace (what printed paths are relative to) and the output directory (output_dirs).
inline std::pair<std::filesystem::path, std::filesystem::path> pw_dirs(const tool_state& st) { return output_dirs(st.options); }

/// A path as results print it: relative to the workspace ("./x" beside it, ".playwright-mcp/x"
/// below it).
inline std::string pw_printable(const tool_state& st, const std::filesystem::path& file) {
    namespace fs = std::filesystem;
    std::error_code ec;
    auto rel = fs::relative(file, pw_dirs(st).first, ec);
    if (ec || rel.empty()) return file.string();
    std::string r = rel.generic_string();
    if (rel.parent_path().empty() && r.rfind('.', 0) != 0) r = "./" + r;
    return r;
}

/// Where a file name a model gave goes: resolved against the workspace, and inside the workspace
/// or the output directory unless unrestricted (Playwright's rule and words).
inline result<std::filesystem::path> pw_model_file(const tool_state& st, const std::string& name) {
    namespace fs = std::filesystem;
    auto [workspace, dir] = pw_dirs(st);
    std::error_code ec;
    const fs::path resolved = fs::weakly_canonical(fs::path(name).is_absolute() ? fs::path(name) : workspace / name, ec);
    if (st.options.unrestricted_files) return resolved;
    auto inside = [&](const fs::path& root) {
        const fs::path r = fs::weakly_canonical(root, ec);
        auto rel = resolved.lexically_relative(r);
        return !rel.empty() && rel.native().rfind("..", 0) != 0;
    };
    if (inside(dir) || inside(workspace)) return resolved;
    return fail(errc::args_invalid,
                "File access denied: " + resolved.string() + " is outside allowed roots. Allowed roots: " + dir.string() + ", " +
                    workspace.string(),
                "Name a file inside the workspace or the output directory.");
}

/// Where a tool's file goes: the file the model named (pw_model_file's rule), else
/// `<prefix>-<time>.<ext>` in the output directory.
inline result<std::filesystem::path> pw_output_file(const tool_state& st, const std::optional<std::string>& named, std::string_view prefix,
                                                    std::string_view ext) {
    if (named && !named->empty()) return pw_model_file(st, *named);
    return pw_dirs(st).second / (pw_file_stamp(prefix) + "." + std::string(ext));
}

/// What pw_write writes: text, redacted of the session's secrets, or bytes as they are (a PDF).
enum class pw_content { text, bytes };

/// Write `text` (redacted of the session's secrets, unless `kind` says bytes) to `file`
/// (appended to when `append`); the path as results print it.
inline result<std::string> pw_write(tool_state& st, const std::filesystem::path& file, const std::string& text, bool append = false,
                                    pw_content kind = pw_content::text) {
    std::error_code ec;
    std::filesystem::create_directories(file.parent_path(), ec);
    if (ec) return fail(errc::tool_failed, "cannot create the directory " + file.parent_path().string() + ": " + ec.message());
    if (st.options.output_max_bytes > 0)  // room for it first: the oldest files go
        (void)trim_output_dir(pw_dirs(st).second, st.options.output_max_bytes, text.size(), false, store_dirs(st));
    std::ofstream out(file, append ? std::ios::binary | std::ios::app : std::ios::binary);
    if (kind == pw_content::bytes) out << text;
    else out << st.b.redact(text);
    if (!out) return fail(errc::tool_failed, "cannot write " + file.string());
    return pw_printable(st, file);
}

/// Write `text` to a new file of the output directory.
inline result<std::string> pw_write_file(tool_state& st, const std::string& name, const std::string& text) {
    return pw_write(st, pw_dirs(st).second / name, text);
}

/// A console message as Playwright's logs write it: `[LOG] text @ url:line` (its line counted
/// from 0); an uncaught exception as its stack.
inline std::string pw_console_entry(const console_message& m) {
    if (m.level == "exception") return m.text;
    return "[" + ascii_upper(m.level) + "] " + m.text + " @ " + m.url + ":" + std::to_string(m.line > 0 ? m.line - 1 : 0);
}

/// The tab's new console messages appended to its log file; the `### Events` line linking
/// them ("" when there are none).
inline std::string pw_console_events(tool_state& st, bool new_document) {
    std::size_t dropped = 0;
    auto msgs = st.b.console_messages(false, &dropped);
    if (!msgs) return {};
    std::lock_guard lock(st.mu);
    auto& log = st.pw_console;
    const std::size_t seen = dropped + msgs->size();
    if (new_document) log.file.clear();
    if (seen < log.seen) log.seen = 0;  // the tab (or browser) is a new one
    std::size_t fresh = std::min(seen - log.seen, msgs->size());
    log.seen = seen;
    std::string text;
    std::size_t lines = 0;
    const auto now = std::chrono::steady_clock::now();
    for (std::size_t i = msgs->size() - fresh; i < msgs->size(); ++i) {
        const auto& m = (*msgs)[i];
        if (!console_level_ok(st.options.console_level, m.level)) continue;
        if (log.file.empty()) {
            log.file = pw_file_stamp("console") + ".log";
            log.lines = 0;
            log.started = now;
        }
        char stamp[32];
        std::snprintf(stamp, sizeof stamp, "[%8lldms] ",
                      static_cast<long long>(std::chrono::duration_cast<std::chrono::milliseconds>(now - log.started).count()));
        const std::string entry = pw_console_entry(m);
        text += stamp + entry + "\n";
        lines += 1 + static_cast<std::size_t>(std::count(entry.begin(), entry.end(), '\n'));
    }
    if (lines == 0) return {};
    auto path = pw_write(st, pw_dirs(st).second / log.file, text, true);
    if (!path) return {};
    const std::size_t from = log.lines + 1, to = log.lines + lines;
    log.lines = to;
    return "- New console entries: " + *path + "#L" + std::to_string(from) + (to == from ? std::string() : "-L" + std::to_string(to));
}

/// The `### Page` lines of the current tab.
inline std::vector<std::string> pw_page_lines(const std::string& url, const std::string& title, int http_status) {
    std::vector<std::string> lines{"- Page URL: " + url};
    if (!title.empty()) lines.push_back("- Page Title: " + title);
    if (http_status != 0 && (http_status < 200 || http_status > 299)) lines.push_back("- HTTP status: " + pw::http_status_line(http_status));
    return lines;
}

/// A tab's title as Playwright shows it: Chromium names a page without a title by its URL or
/// host; Playwright shows an empty title then.
inline std::string pw_tab_title(const std::string& title, const std::string& url) {
    if (title == url) return {};
    const auto scheme = url.find("://");
    if (scheme != std::string::npos) {
        const std::string rest = url.substr(scheme + 3);
        if (rest == title || rest == title + "/" || rest.rfind(title + "/", 0) == 0) return {};
    }
    return title;
}

/// The tab list as Playwright writes it: `- 0: (current) [title](url)`; the current tab's
/// title is its document's (`current_title`), the others' as Chromium reports them.
inline std::vector<std::string> pw_tab_lines(const std::vector<tab_info>& tabs, const std::string& current_url = {},
                                             const std::optional<std::string>& current_title = std::nullopt) {
    if (tabs.empty()) return {"No open tabs. Navigate to a URL to create one."};
    std::vector<std::string> lines;
    for (std::size_t i = 0; i < tabs.size(); ++i) {
        const bool cur = tabs[i].active;
        const std::string title = cur && current_title && tabs[i].url == current_url ? *current_title : pw_tab_title(tabs[i].title, tabs[i].url);
        lines.push_back("- " + std::to_string(i) + ":" + (cur ? " (current)" : "") + " [" + title + "](" + tabs[i].url + ")");
    }
    return lines;
}

/// What a result in Playwright's layout adds after the tool's own sections: the page header
/// (always with a snapshot, else when it changed), the tabs when there are several, and the
/// snapshot (a file, or inline for browser_snapshot).
struct pw_page_view {
    bool snapshot = false;      ///< the snapshot, in a file
    bool inline_snapshot = false;  ///< the snapshot inline (browser_snapshot)
    aria_snapshot_options aria;    ///< its options
    int http_status = 0;           ///< of the document an action loaded
    bool new_document = false;     ///< the action loaded a new document (a new console log)
    std::string filename;          ///< the snapshot to this file the model named (browser_snapshot)
};

/// The downloads that began or ended since the last result, as Playwright's `### Events` says
/// them: "- Downloading file x.txt ...", then "- Downloaded file x.txt to "<path>"" (a download
/// refused or cut short says so, with the rule).
inline std::vector<std::string> pw_download_events(tool_state& st) {
    std::vector<std::string> lines;
    const auto all = st.b.downloads(true);
    std::lock_guard lock(st.mu);
    for (const auto& d : all) {
        if (d.id.empty()) continue;
        if (d.state != "refused" && st.pw_downloads_begun.insert(d.id).second)
            lines.push_back("- Downloading file " + d.suggested_name + " ...");
        if (d.state == "in progress" || !st.pw_downloads_ended.insert(d.id).second) continue;
        if (d.state == "completed")
            lines.push_back("- Downloaded file " + d.suggested_name + " to \"" + pw_printable(st, d.path) + "\"");
        else
            lines.push_back("- Download of " + d.suggested_name + " " + d.state + (d.rule.empty() ? std::string() : " (policy " + d.rule + ")"));
    }
    return lines;
}

inline result<tool_output> pw_finish(tool_state& st, pw::response resp, pw_page_view v) {
    resp.language = st.options.codegen;
    v.aria.test_id_attribute = st.options.test_id_attribute;
    v.aria.boxes = v.aria.boxes || st.options.snapshot_boxes;
    if (!st.b.options().snapshot_after_navigation) v.snapshot = false;  // --snapshot-mode none: the page header only
    auto tabs = st.b.tabs();
    std::string url, title;
    if (tabs)
        for (const auto& t : *tabs)
            if (t.active) {
                url = t.url;
                title = pw_tab_title(t.title, t.url);
            }
    // a dialog held open holds the page's scripts: no snapshot (nor the document's title) until answered
    const auto open = modal_of(st);
    if (!open.empty()) {
        v.snapshot = v.inline_snapshot = false;
        resp.modal = modal_lines(open);
    }
    if (tabs && !tabs->empty()) {
        if (open.empty())
            if (auto dt = st.b.document_title()) title = *dt;
        auto lines = pw_page_lines(url, title, v.http_status);
        std::string joined;
        for (const auto& l : lines) joined += l + "\n";
        bool changed = false;
        {
            std::lock_guard lock(st.mu);
            changed = joined != st.pw_last_page;
            st.pw_last_page = joined;
        }
        if (v.snapshot || v.inline_snapshot || changed) {
            resp.page = std::move(lines);
            if (tabs->size() != 1) resp.tabs = pw_tab_lines(*tabs, url, title);
        }
        if (v.snapshot || v.inline_snapshot) {
            auto yaml = st.b.aria_snapshot(v.aria);
            if (!yaml) return fail(yaml.error());
            if (!v.filename.empty()) {
                auto file = pw_model_file(st, v.filename);
                if (!file) return fail(file.error());
                auto path = pw_write(st, *file, *yaml);
                if (!path) return fail(path.error());
                resp.snapshot.push_back("- [Snapshot](" + *path + ")");
            } else if (v.inline_snapshot) {
                resp.inline_yaml = *yaml;
            } else {
                auto path = pw_write_file(st, pw_file_stamp("page") + ".yml", *yaml);
                if (!path) return fail(path.error());
                resp.snapshot.push_back("- [Snapshot](" + *path + ")");
            }
        }
        if (auto ev = pw_console_events(st, v.new_document); !ev.empty()) resp.events.push_back(std::move(ev));
    }
    for (auto& line : pw_download_events(st)) resp.events.push_back(std::move(line));
    return tool_output::text(resp.text());
}

/// A failure a tool reports itself (an assertion that does not hold, arguments it refuses): in
/// Playwright's layout its message alone under ### Error (a thrown error's message has
/// "Error: " before it, finish() writes those); in agentkit's the error as it is.
inline result<tool_output> pw_reported(tool_state& st, error e) {
    if (!pw_mode(st)) return fail(std::move(e));
    pw::response resp;
    resp.errors.push_back(std::move(e.message));
    tool_output o = tool_output::text(resp.text());
    o.is_error = true;
    return o;
}

/// An action's result in Playwright's layout: its code, then the page (and its snapshot).
inline result<tool_output> pw_action(tool_state& st, result<action_result> r, std::vector<std::string> code, bool snapshot,
                                     std::vector<std::string> results = {}) {
    if (!r) return fail(r.error());
    pw::response resp;
    resp.code = std::move(code);
    resp.results = std::move(results);
    pw_page_view v;
    v.snapshot = snapshot;
    if (r->navigated) {
        v.http_status = r->http_status;
        v.new_document = true;
    }
    return pw_finish(st, std::move(resp), v);
}

}  // namespace agentkit::browser::detail

namespace agentkit::browser {

/// A call to a tool of an optional capability that is off, in Playwright's layout: its words
/// (`Tool "x" not found`) and, as the result, how to turn the capability on.
[[nodiscard]] inline tool_output pw_capability_off(std::string_view tool, const optional_capability& c) {
    pw::response resp;
    resp.language = codegen_language::none;
    resp.errors.push_back("Tool \"" + std::string(tool) + "\" not found");
    resp.results.push_back(capability_off_reason(c) + ": " + capability_off_alternative(c) + ".");
    tool_output o = tool_output::text(resp.text());
    o.is_error = true;
    return o;
}

/// Arguments a tool refused (errc::args_invalid with details.problems, as parse_as reports
/// them), in Playwright's layout: `Invalid arguments for tool "x": Invalid input: expected
/// string, received number at url`. `input_schema` (the tool's, when known) names the type a
/// missing property takes. nullopt for any other error.
[[nodiscard]] inline std::optional<tool_output> pw_invalid_arguments(std::string_view tool, const error& e, const json& input_schema = {}) {
    if (!e.is(errc::args_invalid) || !e.details.is_object() || !e.details.contains("problems") || !e.details["problems"].is_array())
        return std::nullopt;
    std::string text = "Invalid arguments for tool \"" + std::string(tool) + "\":";
    for (const auto& p : e.details["problems"]) {
        std::string path = p.value("path", std::string());
        if (!path.empty() && path.front() == '/') path.erase(0, 1);
        std::replace(path.begin(), path.end(), '/', '.');
        std::string message = p.value("message", std::string());
        if (message == "missing required property") {
            // Playwright (zod) names the type it expected: the schema's, when the problem says it
            std::string type;
            if (input_schema.is_object() && input_schema.contains("properties") && input_schema["properties"].contains(path))
                type = input_schema["properties"][path].value("type", std::string());
            if (type == "integer") type = "number";
            message = "expected " + (type.empty() ? std::string("a value") : type) + ", received undefined";
        }
        else if (const auto got = message.find(", got "); got != std::string::npos) {
            // "expected string, got number 5" → "expected string, received number"
            std::string kind = message.substr(got + 6);
            kind = kind.substr(0, kind.find(' '));
            if (kind == "integer" || kind == "float" || kind == "unsigned") kind = "number";  // JSON has numbers
            message = message.substr(0, got) + ", received " + kind;
        }
        text += "\n  Invalid input: " + message + (path.empty() ? std::string() : " at " + path);
    }
    pw::response resp;
    resp.language = codegen_language::none;
    resp.errors.push_back(std::move(text));
    tool_output o = tool_output::text(resp.text());
    o.is_error = true;
    return o;
}

}  // namespace agentkit::browser
