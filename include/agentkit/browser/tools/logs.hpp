// agentkit/browser/tools/logs.hpp — browser tools: the tab's console and network logs.
// Part of browser/tools.hpp (include that): each tool, its argument struct and a factory;
// tools.hpp registers them in browser_tools().
#pragma once

#include <agentkit/browser/tools/playwright.hpp>
#include <agentkit/browser/tools/support.hpp>
#include <agentkit/core/strings.hpp>

#include <regex>

namespace agentkit::browser {

/// Arguments of browser_console_messages.
struct console_args {
    std::optional<std::string> level;  ///< lowest level kept (default: the server's, info unless set)
    std::optional<int> recent;  ///< how many of the newest messages to show (default 10); the whole log is an artifact
    std::optional<bool> clear;  ///< empty the tab's console buffer after reading it
    std::optional<bool> all;    ///< Playwright's layout: every page's messages, not only the current one's (agentkit's lists all)
    std::optional<std::string> filename;  ///< Playwright's layout: the messages to this file (workspace-relative)
    static constexpr auto agentkit_fields() {
        return fields(AGENTKIT_FIELD(console_args, level, "Lowest level shown", one_of("error", "warning", "info", "debug")),
                      AGENTKIT_FIELD(console_args, recent, "Newest N", range(0, 100)),
                      AGENTKIT_FIELD(console_args, clear, ""),
                      AGENTKIT_FIELD(console_args, all, "", hidden()),
                      AGENTKIT_FIELD(console_args, filename, "", hidden()));
    }
};

/// Arguments of browser_network_requests.
struct network_args {
    std::optional<bool> static_;  ///< `static`: include images, fonts, scripts and styles
    std::optional<std::string> filter;  ///< only URLs containing this text
    std::optional<int> recent;  ///< how many of the newest requests to show (default 10); the whole log is an artifact
    std::optional<bool> clear;  ///< empty the tab's request buffer after reading it
    std::optional<std::string> filename;  ///< Playwright's layout: the list to this file (workspace-relative)
    static constexpr auto agentkit_fields() {
        return fields(field(&network_args::static_, "static", "Also images, fonts, scripts, styles"),
                      AGENTKIT_FIELD(network_args, filter, "Only URLs containing this"),
                      AGENTKIT_FIELD(network_args, recent, "Newest N", range(0, 100)),
                      AGENTKIT_FIELD(network_args, clear, ""),
                      AGENTKIT_FIELD(network_args, filename, "", hidden()));
    }
};

namespace detail {

/// A log (console or network) kept whole in the artifact store; the result carries counts, the
/// newest lines within a small budget, and the artifact id with how to read the rest.
inline result<tool_output> log_result(tool_state& st, std::string_view what, const std::vector<std::string>& lines,
                                      const std::string& counts, std::size_t dropped, std::size_t capacity,
                                      std::size_t recent, std::string_view section_hint) {
    constexpr std::size_t line_chars = 300;    // one line shown inline
    constexpr std::size_t recent_chars = 3000;  // all lines shown inline
    std::string head = std::string(what) + ": " + counts + "\n";
    if (dropped > 0)
        head += "the tab keeps the newest " + std::to_string(capacity) + "; " + std::to_string(dropped) +
                " older were dropped\n";
    if (lines.empty()) return tool_output::text(head);
    std::string full;
    for (const auto& l : lines) full += l + "\n";
    auto ref = store_text(st, std::string(what) + " log", std::string(what) + " log, " + std::to_string(lines.size()) + " lines", full);
    // the newest lines, oldest of them first, within the budget
    std::vector<std::string> shown;
    std::size_t used = 0;
    for (auto it = lines.rbegin(); it != lines.rend() && shown.size() < recent; ++it) {
        std::string l = *it;
        if (l.size() > line_chars) {
            l.resize(utf8_safe_prefix(l, line_chars));
            l += "…";
        }
        if (used + l.size() + 1 > recent_chars && !shown.empty()) break;
        used += l.size() + 1;
        shown.push_back(std::move(l));
    }
    std::string body;
    for (auto it = shown.rbegin(); it != shown.rend(); ++it) body += *it + "\n";
    std::string text = head;
    if (!shown.empty())
        text += (shown.size() == lines.size() ? std::string("all ") + std::to_string(shown.size())
                                               : "newest " + std::to_string(shown.size()) + " of " + std::to_string(lines.size())) +
                ":\n" + page_data(body, st.b.boundary());
    tool_output out;
    if (ref) {
        text += "whole log (" + count_noun(lines.size(), "line") + ", " + count_noun(full.size(), "character") + "): artifact " +
                ref->id + "; read it with browser_artifact {\"id\": \"" + ref->id + "\", \"offset\": 0} or from a line with {\"id\": \"" +
                ref->id + "\", \"section\": \"" + std::string(section_hint) + "\"}\n";
        out.add_text(std::move(text));
        out.add_artifact(*ref);
    } else {
        out.add_text(text + "whole log not stored: " + ref.error().message + "\n");
    }
    return out;
}

}  // namespace detail

/// Arguments of browser_network_request.
struct network_request_args {
    int index = 0;                        ///< 1-based, as browser_network_requests numbers the requests
    std::optional<std::string> part;      ///< only this part: request-headers, request-body, response-headers, response-body
    std::optional<std::string> filename;  ///< Playwright's layout: the result to this file (workspace-relative)
    static constexpr auto agentkit_fields() {
        return fields(AGENTKIT_FIELD(network_request_args, index, "As numbered in the list", minimum(1)),
                      AGENTKIT_FIELD(network_request_args, part, "",
                                     one_of("request-headers", "request-body", "response-headers", "response-body")),
                      AGENTKIT_FIELD(network_request_args, filename, "", hidden()));
    }
};

namespace detail {

/// Whether a body of this MIME type is text (shown as it is) rather than bytes (kept in a file
/// or an artifact).
inline bool textual_mime(std::string_view mime) {
    const std::string m = ascii_lower(mime.substr(0, mime.find(';')));
    return m.rfind("text/", 0) == 0 || m == "application/json" || m == "application/javascript" || m == "application/xml" ||
           m == "application/x-www-form-urlencoded" || m == "image/svg+xml" || m.ends_with("+json") || m.ends_with("+xml");
}

/// One request in full (browser_network_request without a part): its line, general facts,
/// headers, and how to read its bodies. `n` is its number in the list.
inline std::string request_details(std::size_t n, const network_entry& e) {
    std::string out = "#" + std::to_string(n) + " [" + e.method + "] " + e.url + "\n\n  General\n";
    if (!e.error.empty()) out += "    status:    [FAILED] " + e.error + "\n";
    else if (e.status > 0) out += "    status:    [" + std::to_string(e.status) + "] " + e.status_text + "\n";
    if (e.finished && e.duration_ms > 0) out += "    duration:  " + std::to_string(static_cast<long long>(e.duration_ms + 0.5)) + "ms\n";
    out += "    type:      " + ascii_lower(e.resource_type) + "\n";
    if (!e.mime_type.empty()) out += "    mimeType:  " + e.mime_type + "\n";
    auto section = [&](const char* title, const std::vector<std::pair<std::string, std::string>>& hs) {
        if (hs.empty()) return;
        out += std::string("\n  ") + title + "\n";
        for (const auto& [k, v] : hs) out += "    " + k + ": " + v + "\n";
    };
    section("Request headers", e.request_headers);
    section("Response headers", e.response_headers);
    std::string hints;
    if (e.post_data) hints += "Call browser_network_request with part=\"request-body\" to read the request body.\n";
    if (e.status > 0 && e.status != 204 && e.status != 304 && e.status >= 200)
        hints += "Call browser_network_request with part=\"response-body\" to read the response body.\n";
    if (!hints.empty()) out += "\n" + hints;
    while (!out.empty() && out.back() == '\n') out.pop_back();
    return out;
}

/// browser_network_requests in Playwright's layout: `<n>. [GET] url => [200] OK`, numbered by
/// position in the tab's log; unless `static`, requests that are neither fetch nor XHR and
/// succeeded are left out and counted in a note. `filter` is a regular expression on the URL.
inline result<tool_output> pw_network(tool_state& st, const network_args& a, const std::vector<network_entry>& entries, std::size_t dropped) {
    std::optional<std::regex> re;
    if (a.filter) {
        try {
            re.emplace(*a.filter);
        } catch (const std::regex_error&) {
            return fail(errc::args_invalid, "Invalid regular expression: " + *a.filter, "Give `filter` as a regular expression.");
        }
    }
    std::vector<std::string> lines;
    std::size_t hidden = 0;
    for (std::size_t i = 0; i < entries.size(); ++i) {
        const auto& e = entries[i];
        const bool api = e.resource_type == "Fetch" || e.resource_type == "XHR";
        const bool ok = e.error.empty() && e.status < 400;
        if (!a.static_.value_or(false) && !api && ok) {
            ++hidden;
            continue;
        }
        if (re && !std::regex_search(e.url, *re)) continue;
        std::string url = e.url;
        if (url.rfind("data:", 0) == 0)
            if (const auto c = url.find(','); c != std::string::npos) url = url.substr(0, c + 1) + "…";
        std::string line = std::to_string(dropped + i + 1) + ". [" + e.method + "] " + url;
        if (!e.error.empty()) line += " => [FAILED] " + e.error;
        else if (e.status > 0) {
            const std::string status = pw::http_status_line(e.status);
            line += " => [" + std::to_string(e.status) + "]" + (status.size() > 3 ? status.substr(3) : std::string());
        }
        lines.push_back(std::move(line));
    }
    std::string text;
    for (const auto& l : lines) text += (text.empty() ? "" : "\n") + l;
    if (hidden > 0)
        text += std::string(text.empty() ? "" : "\n\n") + "Note: " + count_noun(hidden, "static request") +
                " not shown, run with \"static\" option to see " + (hidden == 1 ? "it" : "them") + ".";
    pw::response resp;
    if (a.filename) {
        auto file = pw_model_file(st, *a.filename);
        if (!file) return fail(file.error());
        auto path = pw_write(st, *file, text);
        if (!path) return fail(path.error());
        resp.results.push_back("- [Network](" + *path + ")");
    } else if (!text.empty()) {
        resp.results.push_back(std::move(text));
    }
    return pw_finish(st, std::move(resp), {});
}

}  // namespace detail

/// Make the browser_console_messages tool: console messages of the current tab: counts by level and the
/// newest few; the whole log is stored as an artifact (read it with browser_artifact by offset or section).
template <class State>
auto console_tool(State& st) {
    tool_state* s = &st;
    return browser_tool<"browser_console_messages">(
        st,
        "Console messages: counts by level and the newest few; the whole log is an artifact.",
        [s](const console_args& a) -> result<tool_output> {
            std::size_t dropped = 0;
            // Playwright's layout lists the current page's messages unless asked for all
            auto r = s->b.console_messages(a.clear.value_or(false), &dropped, detail::pw_mode(*s) && !a.all.value_or(false));
            if (!r) return fail(r.error());
            if (detail::pw_mode(*s)) {
                // Playwright's form: the totals, how many of them the level keeps, then each
                // message (uncaught exceptions last, as their stacks)
                const std::string min = a.level.value_or("info");
                std::size_t errors = 0, warnings = 0;
                std::vector<std::string> kept, thrown;
                for (const auto& m : *r) {
                    errors += m.level == "error" || m.level == "exception";
                    warnings += m.level == "warning";
                    if (!detail::console_level_ok(min, m.level)) continue;
                    (m.level == "exception" ? thrown : kept).push_back(detail::pw_console_entry(m));
                }
                kept.insert(kept.end(), thrown.begin(), thrown.end());
                std::string text = "Total messages: " + std::to_string(r->size()) + " (Errors: " + std::to_string(errors) +
                                   ", Warnings: " + std::to_string(warnings) + ")";
                if (kept.size() != r->size())
                    text += "\nReturning " + std::to_string(kept.size()) + " messages for level \"" + min + "\"";
                if (!kept.empty()) text += "\n";
                for (const auto& k : kept) text += "\n" + k;
                pw::response resp;
                if (a.filename) {
                    auto file = detail::pw_model_file(*s, *a.filename);
                    if (!file) return fail(file.error());
                    auto path = detail::pw_write(*s, *file, text);
                    if (!path) return fail(path.error());
                    resp.results.push_back("- [Console](" + *path + ")");
                } else {
                    resp.results.push_back(std::move(text));
                }
                return detail::pw_finish(*s, std::move(resp), {});
            }
            const std::string min = a.level.value_or(s->options.console_level);
            std::vector<std::string> lines;
            std::map<std::string, std::size_t> by_level;
            std::size_t hidden = 0;
            for (const auto& m : *r) {
                if (!detail::console_level_ok(min, m.level)) {
                    ++hidden;
                    continue;
                }
                ++by_level[m.level];
                std::string line = "[" + m.level + "] " + m.text;
                if (!m.url.empty()) line += " (" + m.url + ":" + std::to_string(m.line) + ")";
                std::replace(line.begin(), line.end(), '\n', ' ');
                lines.push_back(std::move(line));
            }
            std::string counts = std::to_string(lines.size()) + (lines.size() == 1 ? " message" : " messages");
            if (!by_level.empty()) {
                counts += " (";
                bool first = true;
                for (const char* l : {"exception", "error", "assert", "warning", "log", "info", "debug", "trace"})
                    if (auto it = by_level.find(l); it != by_level.end()) {
                        counts += (first ? "" : ", ") + it->first + " " + std::to_string(it->second);
                        first = false;
                        by_level.erase(it);
                    }
                for (const auto& [l, n] : by_level) {
                    counts += (first ? "" : ", ") + l + " " + std::to_string(n);
                    first = false;
                }
                counts += ")";
            }
            if (hidden > 0) counts += "; " + std::to_string(hidden) + " below " + min + " not shown";
            if (a.clear.value_or(false)) counts += "; buffer cleared";
            return detail::log_result(*s, "console", lines, counts, dropped, s->b.options().console_capacity,
                                      static_cast<std::size_t>(a.recent.value_or(10)), "[error]");
        },
        reading_traits);
}

/// Make the browser_network_requests tool: network requests of the current tab (documents, XHR/fetch; static
/// assets with static: true): counts by status class and the newest few; the whole log is stored as an
/// artifact (read it with browser_artifact).
template <class State>
auto network_tool(State& st) {
    tool_state* s = &st;
    return browser_tool<"browser_network_requests">(
        st,
        "Network requests: counts by status and the newest few; the whole log is an artifact.",
        [s](const network_args& a) -> result<tool_output> {
            std::size_t dropped = 0;
            auto r = s->b.network_requests(a.clear.value_or(false), &dropped);
            if (!r) return fail(r.error());
            if (detail::pw_mode(*s)) return detail::pw_network(*s, a, *r, dropped);
            std::vector<std::string> lines;
            std::size_t by_class[5] = {0, 0, 0, 0, 0};  // 1xx-2xx, 3xx, 4xx, 5xx (index: class - 1)
            std::size_t failed = 0, pending = 0, static_skipped = 0, filter_skipped = 0;
            std::size_t idx = 0;  // each line numbered as browser_network_request takes it
            for (const auto& e : *r) {
                ++idx;
                const bool is_static = e.resource_type == "Image" || e.resource_type == "Font" ||
                                       e.resource_type == "Stylesheet" || e.resource_type == "Script" ||
                                       e.resource_type == "Media";
                if (is_static && !a.static_.value_or(false)) {
                    ++static_skipped;
                    continue;
                }
                if (a.filter && e.url.find(*a.filter) == std::string::npos) {
                    ++filter_skipped;
                    continue;
                }
                std::string line = std::to_string(dropped + idx) + ". " + e.method + " " + e.url + " → ";
                if (!e.error.empty()) {
                    ++failed;
                    line += "failed " + e.error;
                } else if (e.status >= 100 && e.status < 600) {
                    ++by_class[static_cast<std::size_t>(e.status / 100 - 1)];
                    line += std::to_string(e.status);
                } else {
                    ++pending;
                    line += "pending";
                }
                line += " " + e.resource_type;
                if (e.finished && e.duration_ms > 0) line += " " + std::to_string(static_cast<long long>(e.duration_ms + 0.5)) + " ms";
                lines.push_back(std::move(line));
            }
            std::string counts = std::to_string(lines.size()) + (lines.size() == 1 ? " request" : " requests");
            if (!lines.empty()) {
                std::string parts;
                auto part = [&](const std::string& name, std::size_t n) {
                    if (n > 0) parts += (parts.empty() ? "" : ", ") + name + " " + std::to_string(n);
                };
                part("1xx", by_class[0]);
                part("2xx", by_class[1]);
                part("3xx", by_class[2]);
                part("4xx", by_class[3]);
                part("5xx", by_class[4]);
                part("failed", failed);
                part("pending", pending);
                counts += " (" + parts + ")";
            }
            if (static_skipped > 0) counts += "; " + std::to_string(static_skipped) + " static assets not listed (static: true lists them)";
            if (filter_skipped > 0) counts += "; " + std::to_string(filter_skipped) + " not matching the filter";
            if (a.clear.value_or(false)) counts += "; buffer cleared";
            return detail::log_result(*s, "network", lines, counts, dropped, s->b.options().network_capacity,
                                      static_cast<std::size_t>(a.recent.value_or(10)), "→ 404");
        },
        reading_traits);
}

/// Make the browser_network_request tool: one request of browser_network_requests in full, or one
/// part of it (headers, or a body: text shown, bytes kept in a file or an artifact).
template <class State>
auto network_request_tool(State& st) {
    tool_state* s = &st;
    return browser_tool<"browser_network_request">(
        st, "One listed request in full: headers; bodies by part.",
        [s](const network_request_args& a) -> result<tool_output> {
            std::size_t dropped = 0;
            auto r = s->b.network_requests(false, &dropped);
            if (!r) return fail(r.error());
            const auto n = static_cast<std::size_t>(std::max(a.index, 0));
            if (n <= dropped || n > dropped + r->size())
                return detail::pw_reported(*s, error{errc::not_found,
                                                     "Request #" + std::to_string(a.index) +
                                                         " not found. Use browser_network_requests to see available indexes.",
                                                     "Number it as browser_network_requests does."});
            const std::size_t position = n - dropped - 1;
            const network_entry& e = (*r)[position];
            const std::string part = a.part.value_or("");
            const bool pw = detail::pw_mode(*s);
            auto headers = [](const std::vector<std::pair<std::string, std::string>>& hs) {
                std::string t;
                for (const auto& [k, v] : hs) t += (t.empty() ? "" : "\n") + k + ": " + v;
                return t;
            };
            std::string text;
            if (part.empty()) text = detail::request_details(n, e);
            else if (part == "request-headers") text = headers(e.request_headers);
            else if (part == "response-headers") text = headers(e.response_headers);
            else if (part == "request-body") text = e.post_data.value_or("");
            else {  // response-body: text as it is; bytes to a file (Playwright's layout) or an artifact
                auto body = s->b.response_body(position);
                if (!body) return fail(body.error());
                if (detail::textual_mime(e.mime_type)) {
                    text = std::move(*body);
                } else if (pw) {
                    std::string ext = e.mime_type.substr(e.mime_type.find('/') + 1);
                    ext = ext.substr(0, ext.find_first_of(";+ "));
                    auto path = detail::pw_write_file(*s, detail::pw_file_stamp("response") + "." + (ext.empty() ? "bin" : ext), *body);
                    if (!path) return fail(path.error());
                    text = *path;
                } else {
                    auto ref = detail::store(*s, {e.mime_type.empty() ? "application/octet-stream" : e.mime_type, "response body",
                                                  "the body of " + e.method + " " + e.url, base64_encode(s->b.redact(*body)), true});
                    if (!ref) return fail(ref.error());
                    return tool_output::text(std::to_string(body->size()) + " bytes of " + e.mime_type + ": artifact " + ref->id + " (" +
                                             std::string(artifact_tool_name) + ")");
                }
            }
            if (pw) {
                pw::response resp;
                if (a.filename && !a.filename->empty()) {
                    auto file = detail::pw_model_file(*s, *a.filename);
                    if (!file) return fail(file.error());
                    auto path = detail::pw_write(*s, *file, text);
                    if (!path) return fail(path.error());
                    text = "- [" + std::string(part.empty() ? "Request" : "Request part") + "](" + *path + ")";
                }
                if (!text.empty()) resp.results.push_back(std::move(text));
                return detail::pw_finish(*s, std::move(resp), {});
            }
            if (text.empty()) return tool_output::text(part.empty() ? "no details" : "no " + part);
            return tool_output::text(detail::page_data(text, s->b.boundary()));  // the page's requests and the server's answers
        },
        reading_traits);
}

}  // namespace agentkit::browser
