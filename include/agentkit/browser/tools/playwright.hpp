// agentkit/browser/tools/playwright.hpp — browser tools: writing a result in Playwright MCP's
// layout (tools_options::output == output_mode::playwright): the page header, the aria snapshot
// in a file of the output directory, the generated code and Playwright's error form.
// Part of browser/tools.hpp (include that).
#pragma once

#include <agentkit/browser/playwright_output.hpp>
#include <agentkit/browser/tools/support.hpp>

#include <chrono>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <system_error>

namespace agentkit::browser::detail {

/// Whether the tools write Playwright MCP's layout.
[[nodiscard]] inline bool pw_mode(const tool_state& st) { return st.options.output == output_mode::playwright; }

/// The locator of an element ref, for the code an action shows (taken before the action: the
/// element may be gone after it).
inline result<json> pw_locator(tool_state& st, const std::optional<std::string>& ref, const std::optional<std::string>& target) {
    auto el = element_of(ref, target);
    if (!el) return fail(el.error());
    return st.b.aria_locator(*el);
}

/// "page-2026-11-30T01-02-03-456Z" (UTC, as Playwright names its files).
inline std::string pw_file_stamp(std::string_view prefix) {
    const auto now = std::chrono::system_clock::now();
    const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(now.time_since_epoch()).count() % 1000;
    const std::time_t t = std::chrono::system_clock::to_time_t(now);
    std::tm tm{};
    gmtime_r(&t, &tm);
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.*s-%04d-%02d-%02dT%02d-%02d-%02d-%03dZ", static_cast<int>(prefix.size()), prefix.data(),
                  tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, static_cast<int>(ms));
    return buf;
}

/// Write `text` to a new file of the output directory; the path as results print it (relative
/// to the workspace: "./x" beside it, ".playwright-mcp/x" below it).
inline result<std::string> pw_write_file(tool_state& st, const std::string& name, const std::string& text) {
    namespace fs = std::filesystem;
    std::error_code ec;
    const fs::path workspace = st.options.workspace.empty() ? fs::current_path(ec) : fs::path(st.options.workspace);
    const fs::path dir = st.options.output_dir.empty() ? workspace / ".playwright-mcp" : fs::path(st.options.output_dir);
    fs::create_directories(dir, ec);
    if (ec) return fail(errc::tool_failed, "cannot create the output directory " + dir.string() + ": " + ec.message());
    const fs::path file = dir / name;
    std::ofstream out(file, std::ios::binary);
    out << st.b.policy().redact(text);
    if (!out) return fail(errc::tool_failed, "cannot write " + file.string());
    auto rel = fs::relative(file, workspace, ec);
    if (ec || rel.empty()) return file.string();
    std::string r = rel.generic_string();
    if (rel.parent_path().empty() && r.rfind('.', 0) != 0) r = "./" + r;
    return r;
}

/// The `### Page` lines of the current tab.
inline std::vector<std::string> pw_page_lines(const std::string& url, const std::string& title, int http_status) {
    std::vector<std::string> lines{"- Page URL: " + url};
    if (!title.empty() && title != url) lines.push_back("- Page Title: " + title);  // (a page without a title shows its URL as one)
    if (http_status != 0 && (http_status < 200 || http_status > 299)) lines.push_back("- HTTP status: " + pw::http_status_line(http_status));
    return lines;
}

/// The tab list as Playwright writes it: `- 0: (current) [title](url)`.
inline std::vector<std::string> pw_tab_lines(const std::vector<tab_info>& tabs) {
    if (tabs.empty()) return {"No open tabs. Navigate to a URL to create one."};
    std::vector<std::string> lines;
    for (std::size_t i = 0; i < tabs.size(); ++i)
        lines.push_back("- " + std::to_string(i) + ":" + (tabs[i].active ? " (current)" : "") + " [" + tabs[i].title + "](" + tabs[i].url + ")");
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
};

inline result<tool_output> pw_finish(tool_state& st, pw::response resp, pw_page_view v) {
    resp.language = st.options.codegen;
    v.aria.test_id_attribute = st.options.test_id_attribute;
    auto tabs = st.b.tabs();
    std::string url, title;
    if (tabs)
        for (const auto& t : *tabs)
            if (t.active) url = t.url, title = t.title;
    if (tabs && !tabs->empty()) {
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
            if (tabs->size() != 1) resp.tabs = pw_tab_lines(*tabs);
        }
        if (v.snapshot || v.inline_snapshot) {
            auto yaml = st.b.aria_snapshot(v.aria);
            if (!yaml) return fail(yaml.error());
            if (v.inline_snapshot) {
                resp.inline_yaml = *yaml;
            } else {
                auto path = pw_write_file(st, pw_file_stamp("page") + ".yml", *yaml);
                if (!path) return fail(path.error());
                resp.snapshot.push_back("- [Snapshot](" + *path + ")");
            }
        }
    }
    return tool_output::text(resp.text());
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
    if (r->navigated) v.http_status = r->http_status;
    return pw_finish(st, std::move(resp), v);
}

}  // namespace agentkit::browser::detail
