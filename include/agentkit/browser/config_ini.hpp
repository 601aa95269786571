// agentkit/browser/config_ini.hpp — a Playwright MCP configuration file written as INI: one
// `dotted.key = value` per line (`[section]` prefixes the keys below it; `;` and `#` start
// comments), read into the JSON object a `.json` configuration file holds, so both take the
// same checks. Values take the type the key has in Playwright MCP's configuration (a size
// `640x480`, a list, a number, true/false); other keys take a number when the value is one,
// else the text.
//
//   auto j = agentkit::browser::ini_config("browser.contextOptions.viewport = 640x480\n");
//   // {"browser": {"contextOptions": {"viewport": {"width": 640, "height": 480}}}}
#pragma once

#include <agentkit/core/json.hpp>
#include <agentkit/core/result.hpp>
#include <agentkit/core/strings.hpp>

#include <array>
#include <charconv>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

namespace agentkit::browser {

namespace config_ini_detail {

enum class kind { text, number, boolean, list, size };

// The keys whose values are not plain text, as Playwright MCP's configuration types them.
inline constexpr std::array<std::pair<std::string_view, kind>, 38> typed_keys{{
    {"browser.isolated", kind::boolean},
    {"browser.cdpTimeout", kind::number},
    {"browser.initPage", kind::list},
    {"browser.initScript", kind::list},
    {"browser.launchOptions.headless", kind::boolean},
    {"browser.launchOptions.chromiumSandbox", kind::boolean},
    {"browser.launchOptions.args", kind::list},
    {"browser.launchOptions.handleSIGHUP", kind::boolean},
    {"browser.launchOptions.handleSIGINT", kind::boolean},
    {"browser.launchOptions.handleSIGTERM", kind::boolean},
    {"browser.launchOptions.slowMo", kind::number},
    {"browser.launchOptions.timeout", kind::number},
    {"browser.contextOptions.acceptDownloads", kind::boolean},
    {"browser.contextOptions.bypassCSP", kind::boolean},
    {"browser.contextOptions.deviceScaleFactor", kind::number},
    {"browser.contextOptions.hasTouch", kind::boolean},
    {"browser.contextOptions.ignoreHTTPSErrors", kind::boolean},
    {"browser.contextOptions.isMobile", kind::boolean},
    {"browser.contextOptions.javaScriptEnabled", kind::boolean},
    {"browser.contextOptions.offline", kind::boolean},
    {"browser.contextOptions.permissions", kind::list},
    {"browser.contextOptions.screen", kind::size},
    {"browser.contextOptions.strictSelectors", kind::boolean},
    {"browser.contextOptions.viewport", kind::size},
    {"extension", kind::boolean},
    {"capabilities", kind::list},
    {"saveSession", kind::boolean},
    {"saveVideo", kind::size},
    {"sharedBrowserContext", kind::boolean},
    {"outputMaxSize", kind::number},
    {"allowUnrestrictedFileAccess", kind::boolean},
    {"server.port", kind::number},
    {"server.allowedHosts", kind::list},
    {"network.allowedOrigins", kind::list},
    {"network.blockedOrigins", kind::list},
    {"timeouts.action", kind::number},
    {"timeouts.navigation", kind::number},
    {"snapshot.boxes", kind::boolean},
}};

inline std::optional<double> number_of(std::string_view v) {
    double d = 0;
    const auto* end = v.data() + v.size();
    auto [p, ec] = std::from_chars(v.data(), end, d);
    if (ec != std::errc() || p != end || v.empty()) return std::nullopt;
    return d;
}

inline json number_json(double d) {
    if (d == static_cast<double>(static_cast<long long>(d))) return static_cast<long long>(d);
    return d;
}

}  // namespace config_ini_detail

/// An INI configuration read into its JSON object; an error names the line that is not
/// `key = value`, a size that is not WxH, a number or boolean that is not one.
[[nodiscard]] inline result<json> ini_config(std::string_view text) {
    using namespace config_ini_detail;
    json out = json::object();
    std::string section;
    std::size_t line_no = 0;
    while (!text.empty()) {
        const auto nl = text.find('\n');
        std::string_view line = trim_ascii(text.substr(0, nl));
        text = nl == std::string_view::npos ? std::string_view() : text.substr(nl + 1);
        ++line_no;
        const std::string where = "line " + std::to_string(line_no);
        if (line.empty() || line.front() == ';' || line.front() == '#') continue;
        if (line.front() == '[') {
            if (line.back() != ']') return fail(errc::args_invalid, where + ": a section is [name]");
            section = std::string(trim_ascii(line.substr(1, line.size() - 2)));
            continue;
        }
        const auto eq = line.find('=');
        if (eq == std::string_view::npos) return fail(errc::args_invalid, where + " is not key = value: " + std::string(line.substr(0, 80)));
        std::string key(trim_ascii(line.substr(0, eq)));
        std::string_view value = trim_ascii(line.substr(eq + 1));
        if (value.size() >= 2 && (value.front() == '"' || value.front() == '\'') && value.back() == value.front())
            value = value.substr(1, value.size() - 2);
        bool append = false;  // key[] = value: one more list item
        if (key.size() > 2 && key.compare(key.size() - 2, 2, "[]") == 0) {
            key.resize(key.size() - 2);
            append = true;
        }
        if (!section.empty()) key = section + "." + key;
        if (key.empty() || key.front() == '.' || key.back() == '.' || key.find("..") != std::string::npos)
            return fail(errc::args_invalid, where + ": \"" + key + "\" is not a dotted key");
        kind k = kind::text;
        for (const auto& [name, type] : typed_keys)
            if (name == key) k = type;
        json v;
        switch (k) {
            case kind::boolean:
                if (value != "true" && value != "false" && value != "1" && value != "0")
                    return fail(errc::args_invalid, where + ": " + key + " is true or false, not \"" + std::string(value) + "\"");
                v = value == "true" || value == "1";
                break;
            case kind::number: {
                auto d = number_of(value);
                if (!d) return fail(errc::args_invalid, where + ": " + key + " is a number, not \"" + std::string(value) + "\"");
                v = number_json(*d);
                break;
            }
            case kind::size: {
                const auto x = value.find('x');
                auto w = x == std::string_view::npos ? std::nullopt : number_of(value.substr(0, x));
                auto h = x == std::string_view::npos ? std::nullopt : number_of(value.substr(x + 1));
                if (!w || !h || *w <= 0 || *h <= 0)
                    return fail(errc::args_invalid, where + ": " + key + " is WIDTHxHEIGHT, not \"" + std::string(value) + "\"");
                v = json{{"width", number_json(*w)}, {"height", number_json(*h)}};
                break;
            }
            case kind::list: v = json::array({std::string(value)}); break;
            case kind::text: {
                auto d = number_of(value);
                v = d ? number_json(*d) : json(std::string(value));
                break;
            }
        }
        // into the nested object the dotted key names
        json* node = &out;
        std::size_t from = 0;
        for (auto dot = key.find('.'); dot != std::string::npos; from = dot + 1, dot = key.find('.', from)) {
            json& child = (*node)[key.substr(from, dot - from)];
            if (!child.is_object()) child = json::object();
            node = &child;
        }
        json& slot = (*node)[key.substr(from)];
        if (append && slot.is_array()) slot.push_back(v.is_array() ? v[0] : v);
        else slot = append && !v.is_array() ? json::array({v}) : v;
    }
    return out;
}

}  // namespace agentkit::browser
