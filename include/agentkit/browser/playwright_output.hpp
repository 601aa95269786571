// agentkit/browser/playwright_output.hpp — results in Playwright MCP's layout (the compatible
// output mode, --output-mode playwright): its sections (### Result, ### Ran Playwright code,
// ### Page, ### Snapshot, ...), its Playwright code per action in four languages, and the
// locators that code names elements by. The engine decides what a result holds; this header
// only writes it (the default mode's writer is action_result::to_text()).
#pragma once

#include <agentkit/core/json.hpp>
#include <agentkit/core/strings.hpp>

#include <chrono>
#include <cstdio>
#include <ctime>
#include <optional>
#include <utility>
#include <string>
#include <string_view>
#include <vector>

namespace agentkit::browser {

/// How the browser tools write their results.
enum class output_mode {
    agentkit,    ///< agentkit's terse results (the default)
    playwright,  ///< Playwright MCP's sections, aria snapshot and refs, and generated code
};

/// The language of the code a result in Playwright's layout shows (--codegen).
enum class codegen_language { typescript, python, java, csharp, none };

/// Parse --codegen's value; false when it is none of typescript, python, java, csharp, none.
[[nodiscard]] inline bool parse_codegen(std::string_view v, codegen_language& out) {
    if (v == "typescript") out = codegen_language::typescript;
    else if (v == "python") out = codegen_language::python;
    else if (v == "java") out = codegen_language::java;
    else if (v == "csharp") out = codegen_language::csharp;
    else if (v == "none") out = codegen_language::none;
    else return false;
    return true;
}

/// Playwright MCP's layout: its sections, its code and its locators.
namespace pw {

/// `s` as a JavaScript string in single quotes ('Bob\'s'; double quotes stay as they are).
[[nodiscard]] inline std::string js_quote(std::string_view s) {
    std::string out = "'";
    for (const char c : s) {
        switch (c) {
            case '\\': out += "\\\\"; break;
            case '\'': out += "\\'"; break;
            case '\n': out += "\\n"; break;
            case '\r': out += "\\r"; break;
            case '\t': out += "\\t"; break;
            case '\b': out += "\\b"; break;
            case '\f': out += "\\f"; break;
            default:
                if (static_cast<unsigned char>(c) < 0x20) {
                    char buf[8];
                    std::snprintf(buf, sizeof buf, "\\u%04x", static_cast<unsigned>(static_cast<unsigned char>(c)));
                    out += buf;
                } else {
                    out += c;
                }
        }
    }
    return out + "'";
}

/// `s` as a string in double quotes (Python, Java, C#).
[[nodiscard]] inline std::string dq_quote(std::string_view s) { return json(std::string(s)).dump(); }

/// A string literal in `lang`.
[[nodiscard]] inline std::string quote(std::string_view s, codegen_language lang) {
    return lang == codegen_language::typescript ? js_quote(s) : dq_quote(s);
}

/// A secret's value as test code reads it: from the environment variable of its name
/// (`process.env['NAME']`, `os.environ["NAME"]`, ...), never the value itself.
[[nodiscard]] inline std::string secret_code(std::string_view name, codegen_language lang) {
    const std::string n(name);
    switch (lang) {
        case codegen_language::python: return "os.environ[\"" + n + "\"]";
        case codegen_language::java: return "System.getenv(\"" + n + "\")";
        case codegen_language::csharp: return "Environment.GetEnvironmentVariable(\"" + n + "\")";
        default: return "process.env['" + n + "']";
    }
}

namespace detail {
inline std::string camel_to_snake(std::string_view s) {
    std::string out;
    for (const char c : s) {
        if (c >= 'A' && c <= 'Z') (out += '_') += static_cast<char>(c - 'A' + 'a');
        else out += c;
    }
    return out;
}
inline std::string pascal(std::string_view s) {
    std::string out(s);
    if (!out.empty() && out[0] >= 'a' && out[0] <= 'z') out[0] = static_cast<char>(out[0] - 'a' + 'A');
    return out;
}
// getByRole(...) and the text-like getters in `lang`.
inline std::string getter(const json& part, codegen_language lang) {
    const std::string kind = part.value("kind", "css");
    const bool exact = part.value("exact", false);
    if (kind == "role") {
        const std::string role = part.value("role", "");
        const bool named = part.contains("name");
        const std::string name = part.value("name", "");
        switch (lang) {
            case codegen_language::python:
                return "get_by_role(" + dq_quote(role) + (named ? ", name=" + dq_quote(name) : "") + (exact ? ", exact=True" : "") + ")";
            case codegen_language::java:
                return "getByRole(AriaRole." + ascii_upper(role) +
                       (named ? ", new Page.GetByRoleOptions().setName(" + dq_quote(name) + ")" + (exact ? ".setExact(true)" : "") : "") + ")";
            case codegen_language::csharp:
                return "GetByRole(AriaRole." + pascal(role) +
                       (named ? ", new() { Name = " + dq_quote(name) + (exact ? ", Exact = true" : "") + " }" : "") + ")";
            default:
                return "getByRole(" + js_quote(role) + (named ? ", { name: " + js_quote(name) + (exact ? ", exact: true" : "") + " }" : "") +
                       ")";
        }
    }
    if (kind == "css") {
        const std::string v = part.value("value", "");
        if (lang == codegen_language::csharp) return "Locator(" + dq_quote(v) + ")";
        return "locator(" + quote(v, lang) + ")";
    }
    // testid, placeholder, label, alt, text, title
    static constexpr std::pair<std::string_view, std::string_view> names[] = {
        {"testid", "TestId"}, {"placeholder", "Placeholder"}, {"label", "Label"}, {"alt", "AltText"}, {"text", "Text"}, {"title", "Title"}};
    std::string what = "Text";
    for (const auto& [k, n] : names)
        if (kind == k) what = std::string(n);
    const std::string v = part.value("value", "");
    switch (lang) {
        case codegen_language::python:
            return "get_by" + camel_to_snake(what == "TestId" ? std::string("TestId") : what) + "(" + dq_quote(v) + (exact ? ", exact=True" : "") + ")";
        case codegen_language::java:
            return "getBy" + what + "(" + dq_quote(v) + (exact ? ", new Page.GetBy" + what + "Options().setExact(true)" : "") + ")";
        case codegen_language::csharp:
            return "GetBy" + what + "(" + dq_quote(v) + (exact ? ", new() { Exact = true }" : "") + ")";
        default:
            return "getBy" + what + "(" + js_quote(v) + (exact ? ", { exact: true }" : "") + ")";
    }
}
inline std::string nth(const json& part, codegen_language lang) {
    if (!part.contains("nth") || !part["nth"].is_number_integer()) return {};
    const auto n = part["nth"].get<long long>();
    const bool cs = lang == codegen_language::csharp;
    if (n == 0) return cs ? ".First" : lang == codegen_language::python ? ".first" : ".first()";
    if (n == -1) return cs ? ".Last" : lang == codegen_language::python ? ".last" : ".last()";
    return (cs ? ".Nth(" : ".nth(") + std::to_string(n) + ")";
}
}  // namespace detail

/// A locator (browser::aria_locator()'s JSON) as code after `page.`: frames first
/// (`locator('iframe').contentFrame().`), then the element's getter and its .first()/.nth(i).
[[nodiscard]] inline std::string locator(const json& loc, codegen_language lang) {
    std::string out;
    const bool cs = lang == codegen_language::csharp;
    if (loc.contains("frames") && loc["frames"].is_array())
        for (const auto& f : loc["frames"])
            out += detail::getter(f, lang) + detail::nth(f, lang) + (cs ? ".ContentFrame." : lang == codegen_language::python ? ".content_frame." : ".contentFrame().");
    const json& t = loc.contains("target") ? loc["target"] : loc;
    return out + detail::getter(t, lang) + detail::nth(t, lang);
}

/// One statement in `lang`: `await page.<what>;` (TypeScript), `page.<what>` (Python),
/// `page.<what>;` (Java), `await page.<What>;` (C#). `what` is already in the language.
[[nodiscard]] inline std::string statement(std::string_view what, codegen_language lang) {
    switch (lang) {
        case codegen_language::python: return "page." + std::string(what);
        case codegen_language::java: return "page." + std::string(what) + ";";
        case codegen_language::csharp: return "await page." + std::string(what) + ";";
        default: return "await page." + std::string(what) + ";";
    }
}

/// A method call in `lang`: click → click() / click() / click() / ClickAsync(). `args` is
/// already in the language.
[[nodiscard]] inline std::string call(std::string_view method, std::string_view args, codegen_language lang) {
    switch (lang) {
        case codegen_language::python: return detail::camel_to_snake(method) + "(" + std::string(args) + ")";
        case codegen_language::csharp: return detail::pascal(method) + "Async(" + std::string(args) + ")";
        default: return std::string(method) + "(" + std::string(args) + ")";
    }
}

/// An action on an element: `await page.getByRole('button', { name: 'Go' }).click();`.
[[nodiscard]] inline std::string element_action(const json& loc, std::string_view method, std::string_view args, codegen_language lang) {
    return statement(locator(loc, lang) + "." + call(method, args, lang), lang);
}

/// An assertion on an element in `lang`: `await expect(page.getByText('Hi')).toBeVisible();`
/// (TypeScript), `expect(page.get_by_text("Hi")).to_be_visible()` (Python),
/// `assertThat(page.getByText("Hi")).isVisible();` (Java),
/// `await Expect(page.GetByText("Hi")).ToBeVisibleAsync();` (C#). `matcher` is TypeScript's name
/// (toBeVisible, toBeChecked, toHaveValue, toMatchAriaSnapshot); `negate` asserts the opposite
/// (.not); `args` are already in the language.
[[nodiscard]] inline std::string assertion(const json& loc, std::string_view matcher, std::string_view args, bool negate, codegen_language lang) {
    const std::string target = "page." + locator(loc, lang);
    const std::string m(matcher);
    switch (lang) {
        case codegen_language::python:
            return "expect(" + target + ")." + (negate ? "not_" : "") + detail::camel_to_snake(m) + "(" + std::string(args) + ")";
        case codegen_language::java: {
            // toBeX → isX, toHaveX → hasX, toMatchX → matchesX
            std::string j = m;
            if (m.rfind("toBe", 0) == 0) j = "is" + m.substr(4);
            else if (m.rfind("toHave", 0) == 0) j = "has" + m.substr(6);
            else if (m.rfind("toMatch", 0) == 0) j = "matches" + m.substr(7);
            return "assertThat(" + target + ")." + (negate ? "not()." : "") + j + "(" + std::string(args) + ");";
        }
        case codegen_language::csharp:
            return "await Expect(" + target + ")." + (negate ? "Not." : "") + detail::pascal(m) + "Async(" + std::string(args) + ");";
        default:
            return "await expect(" + target + ")." + (negate ? "not." : "") + m + "(" + std::string(args) + ");";
    }
}

/// A multi-line text (an aria snapshot template) as a literal in `lang`: TypeScript's template
/// literal, its lines indented by two and the closing backtick on its own indented line; a
/// string in double quotes, its line breaks escaped, in the others.
[[nodiscard]] inline std::string block_literal(std::string_view text, codegen_language lang) {
    if (lang != codegen_language::typescript) return dq_quote(text);
    std::string out = "`\n  ";
    for (std::size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        if (c == '`' || c == '\\' || (c == '$' && i + 1 < text.size() && text[i + 1] == '{')) out += '\\';
        out += c;
        if (c == '\n') out += "  ";
    }
    return out + "\n  `";
}

/// `page.goto(url)` in `lang` (Java: navigate).
[[nodiscard]] inline std::string goto_url(std::string_view url, codegen_language lang) {
    if (lang == codegen_language::java) return statement("navigate(" + dq_quote(url) + ")", lang);
    if (lang == codegen_language::csharp) return statement("GotoAsync(" + dq_quote(url) + ")", lang);
    return statement("goto(" + quote(url, lang) + ")", lang);
}

/// The reason phrase of an HTTP status ("402 Payment Required"; the number alone when unknown).
[[nodiscard]] inline std::string http_status_line(int status) {
    static constexpr std::pair<int, std::string_view> phrases[] = {
        {100, "Continue"}, {101, "Switching Protocols"}, {200, "OK"}, {201, "Created"}, {202, "Accepted"}, {204, "No Content"},
        {206, "Partial Content"}, {300, "Multiple Choices"}, {301, "Moved Permanently"}, {302, "Found"}, {303, "See Other"},
        {304, "Not Modified"}, {307, "Temporary Redirect"}, {308, "Permanent Redirect"}, {400, "Bad Request"}, {401, "Unauthorized"},
        {402, "Payment Required"}, {403, "Forbidden"}, {404, "Not Found"}, {405, "Method Not Allowed"}, {406, "Not Acceptable"},
        {408, "Request Timeout"}, {409, "Conflict"}, {410, "Gone"}, {413, "Payload Too Large"}, {415, "Unsupported Media Type"},
        {418, "I'm a Teapot"}, {422, "Unprocessable Entity"}, {429, "Too Many Requests"}, {500, "Internal Server Error"},
        {501, "Not Implemented"}, {502, "Bad Gateway"}, {503, "Service Unavailable"}, {504, "Gateway Timeout"}};
    for (const auto& [code, phrase] : phrases)
        if (code == status) return std::to_string(status) + " " + std::string(phrase);
    return std::to_string(status);
}

/// `<prefix>-2026-11-30T01-02-03-456Z`: now in UTC, as Playwright MCP names its files.
[[nodiscard]] inline std::string file_stamp(std::string_view prefix) {
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

/// An error as Playwright MCP's results word it: "Error: <message>".
[[nodiscard]] inline std::string error_line(std::string_view message) {
    return message.rfind("Error:", 0) == 0 ? std::string(message) : "Error: " + std::string(message);
}

/// A result in Playwright MCP's layout: each section its lines, written in its order; empty
/// sections are left out, a section is `### Title` and its lines (code and inline snapshots
/// fenced), joined by single newlines.
struct response {
    std::vector<std::string> errors;   ///< ### Error
    std::vector<std::string> results;  ///< ### Result
    std::vector<std::string> code;     ///< ### Ran Playwright code (statements in `language`)
    codegen_language language = codegen_language::typescript;  ///< the code's language (none: no code section)
    std::vector<std::string> tabs;     ///< ### Open tabs (shown only with the page, when tabs != 1)
    std::vector<std::string> page;     ///< ### Page
    std::vector<std::string> modal;    ///< ### Modal state
    std::vector<std::string> snapshot;       ///< ### Snapshot as lines (a file link)
    std::optional<std::string> inline_yaml;  ///< ### Snapshot as a yaml block (browser_snapshot)
    std::vector<std::string> events;   ///< ### Events

    /// The text.
    [[nodiscard]] std::string text() const {
        std::vector<std::string> out;
        auto section = [&](std::string_view title, const std::vector<std::string>& lines, std::string_view fence = {}) {
            if (lines.empty()) return;
            out.push_back("### " + std::string(title));
            if (!fence.empty()) out.push_back("```" + std::string(fence));
            out.insert(out.end(), lines.begin(), lines.end());
            if (!fence.empty()) out.emplace_back("```");
        };
        section("Error", errors);
        section("Result", results);
        if (language != codegen_language::none) {
            static constexpr std::string_view fences[] = {"js", "python", "java", "csharp", ""};
            section("Ran Playwright code", code, fences[static_cast<int>(language)]);
        }
        if (!page.empty()) section("Open tabs", tabs);
        section("Page", page);
        section("Modal state", modal);
        if (inline_yaml) section("Snapshot", {*inline_yaml}, "yaml");
        else section("Snapshot", snapshot);
        section("Events", events);
        std::string s;
        for (std::size_t i = 0; i < out.size(); ++i) (s += i ? "\n" : "") += out[i];
        return s;
    }
};

}  // namespace pw
}  // namespace agentkit::browser
