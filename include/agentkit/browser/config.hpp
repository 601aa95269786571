// agentkit/browser/config.hpp — agentkit-browser-mcp's command line and configuration file, as
// a library: Playwright MCP's options and its `Config` JSON, read into browser, tool and store
// options. Options with the same meaning take effect, options with no effect here are accepted
// with a note, the rest refuse the start by name (never silently dropped).
//
//   agentkit::browser::server_config c;
//   auto r = agentkit::browser::parse_command_line(argc, argv, c);   // --config, --policy, ...
//   if (!r) { print r.error().message; exit 2 }                       // a bad value, named
//   if (*r == command_line_outcome::help) { print server_usage; exit 0 }
//   if (auto f = agentkit::browser::finish_config(c); !f) { ... }     // refused options, channels
//   for (auto& n : c.notes) print n;                                  // accepted, no effect here
#pragma once

#include <agentkit/search/config.hpp>
#include <agentkit/browser/artifacts.hpp>
#include <agentkit/browser/capabilities.hpp>
#include <agentkit/browser/config_ini.hpp>
#include <agentkit/browser/config_usage.hpp>
#include <agentkit/browser/devices.hpp>
#include <agentkit/browser/options.hpp>
#include <agentkit/browser/policy.hpp>
#include <agentkit/browser/tool_state.hpp>
#include <agentkit/core/error.hpp>
#include <agentkit/core/json.hpp>
#include <agentkit/core/result.hpp>
#include <agentkit/version.hpp>

#include <algorithm>
#include <cctype>
#include <array>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <map>
#include <optional>
#include <sstream>
#include <set>
#include <string>
#include <string_view>
#include <system_error>
#include <tuple>
#include <utility>
#include <vector>

#include <unistd.h>  // access, geteuid

namespace agentkit::browser {

/// Which tools a client sees (--tools).
enum class tool_set { all, core, menu, router };

/// Everything the command line and --config decide.
struct server_config {
    tool_set tools_set = tool_set::all;  ///< --tools: which tools a client sees
    browser_options browser;  ///< the browser's options (launch, policy, viewport, ...)
    tools_options tools;  ///< the browser tools' options
    store_options store;  ///< the artifact store's options (--output-dir)
    bool quiet = false;  ///< --quiet: no per-call metrics on stderr
    /// The optional capabilities turned on (--caps; --vision): "vision" offers the coordinate
    /// tools, "testing" the assertion tools, "storage" cookies and storage, "network" routes and
    /// the network state (browser/capabilities.hpp).
    std::set<std::string> caps;
    /// Whether `--caps` turned on `cap`.
    [[nodiscard]] bool has_cap(std::string_view cap) const { return caps.count(std::string(cap)) > 0; }
    std::vector<std::string> unsupported;  ///< options whose enforcement is not available: the start is refused
    std::vector<std::string> notes;        ///< accepted options that change nothing here, and why
    std::set<std::string> empty_secrets;   ///< secrets given with an empty value: ignored (drop_empty_secrets)
    std::string channel;                   ///< --browser: a browser channel to find when no executable is given
    bool image_responses_given = false;    ///< --image-responses was given (else Playwright's layout shows images, as Playwright MCP does)
    std::optional<std::uint64_t> max_download_bytes;  ///< applied after --policy/--config (the flag wins)
    /// --timeout-settle: browser_options::min_settle (unset: 500 ms in Playwright's layout, as there; else 0)
    std::optional<std::chrono::milliseconds> settle;
    bool timeout_action_given = false;  ///< --timeout-action was given (else Playwright's layout waits 5 s for an element)
    bool codegen_given = false;         ///< --codegen was given (else $PW_LANG_NAME names the language)
    std::string device;  ///< --device (or --mobile's device): its viewport is browser.viewport
    std::optional<std::string> proxy_server;         ///< --proxy-server (wins over the configuration file's proxy)
    std::optional<std::string> proxy_bypass;         ///< --proxy-bypass
    std::optional<json> config_proxy;                ///< the configuration file's browser.(context|launch)Options.proxy  ///< --codegen was given (else $PW_LANG_NAME names the language, as for Playwright MCP)  ///< --timeout-action was given (else Playwright's layout waits 5 s for an element, as there)
    std::optional<std::size_t> max_downloads;  ///< --max-downloads, applied after --policy/--config (the flag wins)
    bool ignore_https_errors = false;  ///< --ignore-https-errors (launched browsers only)
    /// --allow-downloads: downloads saved in the output directory, as Playwright MCP saves them
    /// (unless --downloads-dir or the policy names another directory).
    bool allow_downloads = false;
    ///@{
    /// --no-sandbox / --sandbox (chromiumSandbox false / true).
    bool no_sandbox = false, sandbox = false;
    ///@}
    bool policy_given = false;  ///< --policy was given (a second one is refused)
    // Streamable HTTP (--port): the transport's settings
    std::optional<int> port;               ///< serve over HTTP on this port (0: any free one); none: stdio
    std::optional<std::string> host;       ///< --host (127.0.0.1 when not given)
    /// --allowed-hosts: host names accepted in the Host and Origin headers (HTTP).
    std::vector<std::string> allowed_hosts;
    bool shared_browser_context = false;   ///< one browser for every HTTP session
    std::size_t max_sessions = 8;  ///< --max-sessions: HTTP sessions at once (more are refused)
    bool max_sessions_given = false;  ///< --max-sessions was given (a note without --port)
    std::chrono::milliseconds idle_timeout{0};  ///< 0: the transport's default
    /// --dashboard[=PORT]: serve the live view on this port (0: any free one); none: no dashboard.
    std::optional<int> dashboard;
    std::string dashboard_host = "127.0.0.1";  ///< --dashboard-host (refused at start unless loopback)
    /// web_search's backend, from --search and --search-url ("" backend: none); its timeout is
    /// the bound of --timeout-action (set by finish_config).
    search::settings web_search;
    bool search_url_given = false;  ///< --search-url was given (a note without --search)
};

/// What the command line asked for beyond the options.
enum class command_line_outcome { run, help, version };

namespace config_detail {

/// A Playwright MCP option that agentkit-browser-mcp has no switch of its own for: refused (the
/// server will not start rather than ignore it) or accepted with no effect here, and why.
struct playwright_option {
    std::string_view name;
    bool takes_value;
    bool refused;
    std::string_view why;
};

inline constexpr std::array<playwright_option, 18> kPlaywrightOptions{{
    {"--extension", false, true, "the Playwright browser extension is not supported; --cdp-endpoint connects to a running browser"},
    {"--profile-dir-name", true, true, "it belongs to --extension, which is not supported"},
    {"--endpoint", true, true, "a Playwright bound-browser endpoint is not CDP; --cdp-endpoint connects to a browser over CDP"},
    {"--save-session", false, true, "sessions are not saved; every call's metrics go to stderr and browser_metrics"},
    {"--save-trace", false, true, "Playwright traces are not supported; browser_recording_start records a screencast"},
    {"--save-video", true, true, "videos are not supported; browser_recording_start records a screencast"},
    {"--init-page", true, true, "init pages (TypeScript run on a Playwright page) are not supported"},
    {"--grant-permissions", true, true, "granting permissions is not supported"},
    {"--block-service-workers", false, true, "blocking service workers is not supported"},
    {"--cdp-header", true, true, "headers on the CDP connection are not supported"},
    {"--remote-header", true, true, "headers on the remote connection are not supported"},
    {"--no-webmcp", false, false, "page-registered WebMCP tools are never exposed"},
    {"--file-paths", true, false, "artifacts are read by id (browser_artifact)"},
    {"--cdp-timeout", true, false, "the connection to --cdp-endpoint is bounded at 10 s"},
}};

inline bool one_of(const std::string& v, std::initializer_list<std::string_view> allowed) {
    return std::find(allowed.begin(), allowed.end(), v) != allowed.end();
}

/// Where a Chromium-family browser channel lives on Linux (the vendors' packages).
inline std::optional<std::string> channel_executable(const std::string& ch) {
    static const std::array<std::pair<std::string_view, std::string_view>, 8> paths{{
        {"chrome", "/opt/google/chrome/chrome"},
        {"chrome-beta", "/opt/google/chrome-beta/chrome"},
        {"chrome-dev", "/opt/google/chrome-unstable/chrome"},
        {"chrome-canary", "/opt/google/chrome-canary/chrome"},
        {"msedge", "/opt/microsoft/msedge/msedge"},
        {"msedge-beta", "/opt/microsoft/msedge-beta/msedge"},
        {"msedge-dev", "/opt/microsoft/msedge-dev/msedge"},
        {"msedge-canary", "/opt/microsoft/msedge-canary/msedge"},
    }};
    for (const auto& [name, path] : paths)
        if (ch == name) return std::string(path);
    return std::nullopt;
}

/// A whole number ≥ 0, all of `v` (milliseconds, bytes, counts); nothing for anything else.
inline std::optional<long long> parse_count(const std::string& v) {
    try {
        std::size_t used = 0;
        const long long n = std::stoll(v, &used);
        if (used != v.size() || n < 0) return std::nullopt;
        return n;
    } catch (...) {
        return std::nullopt;
    }
}

/// Playwright MCP's options that have an effect here, or that are refused or accepted by
/// kPlaywrightOptions. Returns true when handled, false when `name` is not one of them, an error on a bad
/// value. Shared by the command line and --config.
inline result<bool> playwright_option_apply(server_config& c, const std::string& name, const std::optional<std::string>& v) {
    auto bad = [&](const char* expected) -> result<bool> {
        return fail(errc::args_invalid, name + " takes " + expected + ", not \"" + (v ? *v : std::string()) + "\"");
    };
    if (name == "--no-sandbox") {
        c.no_sandbox = true;
    } else if (name == "--sandbox") {
        c.sandbox = true;
    } else if (name == "--browser") {
        if (one_of(*v, {"firefox", "webkit"})) {
            c.unsupported.push_back("--browser " + *v + " (agentkit drives Chromium-family browsers over CDP)");
        } else if (*v == "chromium") {
            c.channel.clear();
        } else if (channel_executable(*v)) {
            c.channel = *v;
        } else {
            return bad("chromium, chrome, chrome-beta, chrome-dev, chrome-canary, msedge, msedge-beta, msedge-dev or msedge-canary");
        }
    } else if (name == "--user-agent") {
        c.browser.viewport.user_agent = *v;  // every tab, also in a browser reached by --cdp-endpoint
    } else if (name == "--device" || name == "--mobile") {  // a device's viewport, scale, touch and user agent
        if (!c.device.empty()) return fail(errc::args_invalid, "--device and --mobile name one device: give one of them, once");
        const std::string wanted = name == "--mobile" ? std::string(default_mobile_device) : *v;
        const auto* d = find_device(wanted);
        if (d == nullptr) {
            std::string some;
            for (const auto& k : devices)
                if (k.name.rfind("iPhone 1", 0) == 0 || k.name.rfind("Pixel", 0) == 0 || k.name.rfind("Desktop", 0) == 0)
                    some += (some.empty() ? "" : ", ") + std::string(k.name);
            return fail(errc::args_invalid, "--device: no device called \"" + wanted + "\"", "Known devices include " + some + ".");
        }
        c.device = wanted;
        c.browser.viewport = d->viewport();
    } else if (name == "--init-script") {  // the operator's script, in every page before its own (read now)
        std::ifstream in(*v, std::ios::binary);
        if (!in) return fail(errc::args_invalid, "--init-script: cannot read " + *v, "Name a JavaScript file.");
        std::ostringstream text;
        text << in.rdbuf();
        c.browser.init_scripts.push_back(text.str());
    } else if (name == "--proxy-server" || name == "--proxy-bypass") {
        // the browser's own proxy; the origin lists still decide every request before it leaves
        if (v->empty() || v->find_first_of(" \t\r\n") != std::string::npos) return bad(name == "--proxy-server" ? "a proxy (host:port or scheme://host:port)" : "a comma-separated list of hosts");
        (name == "--proxy-server" ? c.proxy_server : c.proxy_bypass) = *v;
    } else if (name == "--storage-state") {
        // read at every browser start (a file written later counts); one that is there now and
        // cannot be used stops the start at once
        std::error_code ec;
        if (std::filesystem::exists(*v, ec)) {
            auto st = read_storage_state_file(*v);
            if (!st) return fail(errc::args_invalid, "--storage-state: " + st.error().message, st.error().hint);
        } else {
            c.notes.push_back("--storage-state: " + *v + " does not exist yet; it is read when the browser starts");
        }
        c.browser.initial_storage_file = *v;
    } else if (name == "--ignore-https-errors") {
        c.ignore_https_errors = true;
    } else if (name == "--timeout-action" || name == "--timeout-navigation") {
        auto ms = parse_count(*v);
        if (!ms || *ms == 0) return bad("a positive number of milliseconds");
        (name == "--timeout-action" ? c.browser.call_timeout : c.browser.navigation_timeout) = std::chrono::milliseconds(*ms);
        if (name == "--timeout-action") c.timeout_action_given = true;
    } else if (name == "--timeout-settle") {
        auto ms = parse_count(*v);
        if (!ms) return bad("a number of milliseconds");
        c.settle = std::chrono::milliseconds(*ms);
    } else if (name == "--image-responses") {
        if (!one_of(*v, {"allow", "omit", "only"})) return bad("allow, omit or only");
        c.tools.inline_screenshots = *v != "omit";
        c.image_responses_given = true;
    } else if (name == "--snapshot-mode") {
        if (!one_of(*v, {"full", "incremental", "none"})) return bad("full, incremental or none");
        c.browser.snapshot_after_navigation = *v != "none";
        c.browser.collapse_repeated_regions = *v == "incremental";
    } else if (name == "--output-max-size") {
        auto n = parse_count(*v);
        if (!n || *n == 0) return bad("a positive number of bytes");
        c.store.max_bytes = static_cast<std::size_t>(*n);
    } else if (name == "--allow-unrestricted-file-access") {
        c.browser.policy.allow_file_access = true;
        c.tools.unrestricted_files = true;
    } else if (name == "--snapshot-boxes") {
        c.tools.snapshot_boxes = true;
    } else if (name == "--output-mode") {
        if (!one_of(*v, {"agentkit", "playwright"})) return bad("agentkit or playwright");
        c.tools.output = *v == "playwright" ? output_mode::playwright : output_mode::agentkit;
        c.browser.aria_refs = c.tools.output == output_mode::playwright;
        c.browser.dialogs.hold = c.tools.output == output_mode::playwright;  // dialogs as its modal state
    } else if (name == "--codegen") {
        if (!parse_codegen(*v, c.tools.codegen)) return bad("typescript, python, java, csharp or none");
        c.codegen_given = true;
        if (c.tools.output != output_mode::playwright)
            c.notes.push_back("--codegen shows code only with --output-mode playwright (agentkit's results say what changed instead)");
    } else if (name == "--test-id-attribute") {
        if (v->empty()) return bad("an attribute name");
        c.tools.test_id_attribute = *v;
    } else if (name == "--console-level") {
        if (!one_of(*v, {"error", "warning", "info", "debug"})) return bad("error, warning, info or debug");
        c.tools.console_level = *v;
    } else if (name == "--idle-timeout") {
        auto ms = parse_count(*v);
        if (!ms) return bad("a number of milliseconds");
        c.idle_timeout = std::chrono::milliseconds(*ms);  // HTTP sessions; without --port only 0 (finish_config)
    } else if (name == "--port") {
        auto p = parse_count(*v);
        if (!p || *p > 65535) return bad("a port number from 0 to 65535");
        c.port = static_cast<int>(*p);
    } else if (name == "--host") {
        if (v->empty()) return bad("an address to bind");
        c.host = *v;
    } else if (name == "--allowed-hosts") {
        for (auto h : policy_detail::split_list(json(*v))) {
            h.erase(0, h.find_first_not_of(' '));
            h.erase(h.find_last_not_of(' ') + 1);
            if (!h.empty()) c.allowed_hosts.push_back(h);
        }
    } else if (name == "--shared-browser-context") {
        c.shared_browser_context = true;
    } else if (name == "--vision") {  // Playwright MCP's older switch for --caps vision
        c.caps.insert("vision");
    } else if (name == "--caps") {
        std::string missing;
        for (auto cap : policy_detail::split_list(json(*v))) {
            cap.erase(0, cap.find_first_not_of(' '));
            cap.erase(cap.find_last_not_of(' ') + 1);
            if (is_optional_capability(cap)) {
                c.caps.insert(cap);
                continue;
            }
            if (cap.empty() || one_of(cap, {"core", "core-navigation", "core-tabs", "core-input"})) continue;
            missing += (missing.empty() ? "" : ", ") + cap;
        }
        if (!missing.empty()) c.notes.push_back("--caps: " + missing + " tools are not offered (console, network log and recording tools are always listed)");
    } else {
        auto it = std::find_if(kPlaywrightOptions.begin(), kPlaywrightOptions.end(), [&](const auto& o) { return o.name == name; });
        if (it == kPlaywrightOptions.end()) return false;
        if (it->refused) c.unsupported.push_back(name + " (" + std::string(it->why) + ")");
        else c.notes.push_back(name + " has no effect here: " + std::string(it->why));
        if (name == "--file-paths" && !one_of(*v, {"relative", "absolute"})) return bad("relative or absolute");
    }
    return true;
}

/// Whether a Playwright MCP option takes a value (options with an effect, then the table).
inline std::optional<bool> playwright_option_takes_value(const std::string& name) {
    if (one_of(name, {"--no-sandbox", "--sandbox", "--ignore-https-errors", "--mobile", "--allow-unrestricted-file-access", "--shared-browser-context",
                      "--vision", "--snapshot-boxes"}))
        return false;
    if (one_of(name, {"--browser", "--user-agent", "--storage-state", "--proxy-server", "--proxy-bypass", "--init-script", "--device", "--timeout-action", "--timeout-navigation", "--timeout-settle", "--image-responses",
                      "--snapshot-mode", "--output-max-size", "--console-level", "--idle-timeout", "--caps", "--port", "--host",
                      "--output-mode", "--codegen", "--test-id-attribute",
                      "--allowed-hosts"}))
        return true;
    for (const auto& o : kPlaywrightOptions)
        if (o.name == name) return o.takes_value;
    return std::nullopt;
}

inline std::optional<std::pair<int, int>> parse_size(const std::string& s) {
    const auto sep = s.find_first_of(",x");
    if (sep == std::string::npos) return std::nullopt;
    try {
        return std::make_pair(std::stoi(s.substr(0, sep)), std::stoi(s.substr(sep + 1)));
    } catch (...) {
        return std::nullopt;
    }
}

/// A secret with an empty value (a dotenv line `NAME=`, a variable not set here) has nothing to
/// type or redact: the server ignores it, as Playwright MCP does, with a note, and the origins
/// given for it with it. (browser_policy::validate() refuses one: a program that sets an empty
/// secret is told so.) Called where secrets are read, before anything validates them.
inline void drop_empty_secrets(server_config& c) {
    for (auto it = c.browser.policy.secrets.begin(); it != c.browser.policy.secrets.end();) {
        if (!it->second.empty() || it->first.empty()) {
            ++it;
            continue;
        }
        if (c.empty_secrets.insert(it->first).second)
            c.notes.push_back("secret " + it->first + " has an empty value: ignored ({{secret:" + it->first + "}} is not typed)");
        it = c.browser.policy.secrets.erase(it);
    }
    // origins given for an ignored secret (before or after it) go with it
    for (const auto& name : c.empty_secrets)
        if (c.browser.policy.secrets.count(name) == 0) c.browser.policy.secret_origins.erase(name);
}

inline result<void> load_secrets(server_config& c, const std::string& path) {
    std::ifstream in(path);
    if (!in) {
        return fail(errc::args_invalid, "cannot read secrets file " + path);
    }
    std::stringstream ss;
    ss << in.rdbuf();
    auto parsed = parse_dotenv(ss.str());
    if (!parsed) {
        return fail(errc::args_invalid, path + ": " + parsed.error().message);
    }
    for (auto& [k, v] : *parsed) c.browser.policy.secrets[k] = v;
    drop_empty_secrets(c);
    return {};
}

inline result<void> load_policy(server_config& c, const std::string& path) {
    std::ifstream in(path);
    if (!in) {
        return fail(errc::args_invalid, "cannot read policy file " + path);
    }
    json j = json::parse(in, nullptr, false);
    auto p = browser_policy::from_json(j);
    if (!p) {
        return fail(errc::args_invalid, path + ": " + p.error().message);
    }
    // The file joins what the options before it set (they are not dropped, whatever the order):
    // origin lists and secrets add up, a switch turned on stays on, a directory named twice
    // must be the same.
    browser_policy& before = c.browser.policy;
    browser_policy merged = std::move(*p);
    merged.allowed_origins.insert(merged.allowed_origins.end(), before.allowed_origins.begin(), before.allowed_origins.end());
    merged.blocked_origins.insert(merged.blocked_origins.end(), before.blocked_origins.begin(), before.blocked_origins.end());
    merged.allow_file_access = merged.allow_file_access || before.allow_file_access;
    merged.allow_evaluate = merged.allow_evaluate || before.allow_evaluate;
    for (const auto& [name, value] : before.secrets) {
        auto [it, added] = merged.secrets.emplace(name, value);
        if (!added && it->second != value) {
            return fail(errc::args_invalid, path + ": secret " + name + " is also given by an earlier option, with another value");
        }
    }
    for (const auto& [name, list] : before.secret_origins) {
        auto& dst = merged.secret_origins[name];
        dst.insert(dst.end(), list.begin(), list.end());
    }
    for (auto [dir, given, key] : {std::tuple{&merged.downloads_dir, &before.downloads_dir, "downloadsDir"},
                                   std::tuple{&merged.uploads_dir, &before.uploads_dir, "uploadsDir"}}) {
        if (given->empty()) continue;
        if (!dir->empty() && *dir != *given) {
            return fail(errc::args_invalid, path + ": " + key + " is " + *dir + " but an earlier option set " + *given);
        }
        *dir = *given;
    }
    if (auto v = merged.validate(); !v) {
        return fail(errc::args_invalid, path + ": " + v.error().message);
    }
    before = std::move(merged);
    return {};
}

/// What is wrong with a BCP 47 language tag ("fr-FR", "zh-Hant-TW"), if anything.
inline std::optional<std::string> locale_problem(const std::string& v) {
    std::size_t part = 0, len = 0;
    for (std::size_t i = 0; i <= v.size(); ++i) {
        if (i == v.size() || v[i] == '-' || v[i] == '_') {
            if (len == 0 || len > 8 || (part == 0 && (len < 2 || len > 3))) return "\"" + v + "\" is not a language tag such as fr-FR";
            ++part;
            len = 0;
        } else if (!std::isalnum(static_cast<unsigned char>(v[i])) || (part == 0 && !std::isalpha(static_cast<unsigned char>(v[i])))) {
            return "\"" + v + "\" is not a language tag such as fr-FR";
        } else {
            ++len;
        }
    }
    return std::nullopt;
}

/// What is wrong with an IANA time zone ("Europe/Paris"), if anything: one the system's
/// zone database (/usr/share/zoneinfo) does not have, when it has one.
inline std::optional<std::string> timezone_problem(const std::string& v) {
    const bool shape = !v.empty() && v.find("..") == std::string::npos && v.front() != '/' &&
                       std::all_of(v.begin(), v.end(), [](char ch) { return std::isalnum(static_cast<unsigned char>(ch)) || ch == '/' || ch == '_' || ch == '-' || ch == '+'; });
    if (!shape) return "\"" + v + "\" is not a time zone such as Europe/Paris";
    std::error_code ec;
    if (std::filesystem::is_directory("/usr/share/zoneinfo", ec) && !std::filesystem::is_regular_file("/usr/share/zoneinfo/" + v, ec))
        return "\"" + v + "\" is not a time zone this system knows (/usr/share/zoneinfo)";
    return std::nullopt;
}

/// Top-level keys of a Playwright MCP configuration file that are its command-line options.
inline constexpr std::array<std::pair<std::string_view, std::string_view>, 11> kConfigKeyFlags{{
    {"outputMode", "--output-mode"},
    {"capabilities", "--caps"},
    {"imageResponses", "--image-responses"},
    {"outputMaxSize", "--output-max-size"},
    {"codegen", "--codegen"},
    {"testIdAttribute", "--test-id-attribute"},
    {"filePaths", "--file-paths"},
    {"allowUnrestrictedFileAccess", "--allow-unrestricted-file-access"},
    {"sharedBrowserContext", "--shared-browser-context"},
    {"saveSession", "--save-session"},
    {"extension", "--extension"},
}};

}  // namespace config_detail

/// A Playwright MCP configuration file (its `Config` type). Every key is honoured, refused or
/// accepted as it is on the command line; a key this server does not know is refused (it will
/// not start rather than ignore it), so what a file asks for is never silently dropped.
/// --search BACKEND and --search-url URL (config file: "search": {"backend", "url"}): the
/// checks of both, in one place. A key is never an option: it is read from the environment.
inline result<void> search_option_apply(server_config& c, const std::string& name, const std::string& v) {
    if (name == "--search") {
        bool known = false;
        std::string names;
        for (const auto& b : search::builtin_backends) {
            known = known || b.name == v;
            names += (names.empty() ? "" : ", ") + std::string(b.name);
        }
        if (!known) return fail(errc::args_invalid, name + " takes " + names + ", not \"" + v.substr(0, 64) + "\"");
        c.web_search.backend = v;
        return {};
    }
    const auto u = parse_url(v);
    if (!u || !u->has_authority || (u->scheme != "http" && u->scheme != "https") || u->host.empty())
        return fail(errc::args_invalid, name + " takes an http:// or https:// URL, not " + net::redact_url(v));
    c.web_search.url = v;
    c.search_url_given = true;
    return {};
}

/// Read a --config file (JSON, Playwright MCP's layout; or INI, config_ini.hpp: a `.ini` file,
/// or one that is not JSON and does not start with `{`) into `c`: every key through the command
/// line's own handling (the same values, checks and notes); errc::args_invalid names the key.
inline result<void> apply_config_file(server_config& c, const std::string& path) {
    using namespace config_detail;
    std::string err;
    std::ifstream in(path, std::ios::binary);
    if (!in) {
        return fail(errc::args_invalid, "cannot read config file " + path);
    }
    std::ostringstream raw;
    raw << in.rdbuf();
    std::string text = raw.str();
    if (text.rfind("\xEF\xBB\xBF", 0) == 0) text.erase(0, 3);  // a byte order mark
    const bool ini_name = path.size() > 4 && path.compare(path.size() - 4, 4, ".ini") == 0;
    json j = ini_name ? json(nullptr) : json::parse(text, nullptr, false);
    if (ini_name || (j.is_discarded() && trim_ascii(text).rfind('{', 0) != 0)) {
        auto ini = ini_config(text);
        if (!ini) return fail(errc::args_invalid, "config file " + path + " (INI): " + ini.error().message);
        j = std::move(*ini);
    }
    if (j.is_discarded() || !j.is_object()) {
        return fail(errc::args_invalid, "config file " + path + " is not a JSON object");
    }
    bool ok = true;
    auto wrong = [&](const std::string& key, const char* expected) {
        if (ok) err = "config " + path + ": " + key + " must be " + expected;
        ok = false;
    };
    auto unknown = [&](const std::string& key) { c.unsupported.push_back("config key " + key); };
    auto object = [&](const std::string& key, const json& v) {
        if (!v.is_object()) wrong(key, "an object");
        return v.is_object();
    };
    // through the command line's handling: the same values, checks and notes
    auto option = [&](const std::string& key, const std::string& flag, const json& v) {
        const auto takes = playwright_option_takes_value(flag);
        if (!takes) {  // a flag name this file's handling does not know: a defect, never dropped
            if (ok) err = "config " + path + ": " + key + " has no handling (" + flag + ")";
            ok = false;
            return;
        }
        std::optional<std::string> value;
        if (!*takes) {
            // a switch: only a boolean turns it on or off ("false" or 0 must not turn it on)
            if (!v.is_boolean()) return wrong(key, "true or false");
            if (!v.get<bool>()) return;
        } else if (v.is_string()) {
            value = v.get<std::string>();
        } else if (v.is_number_integer()) {
            value = std::to_string(v.get<long long>());
        } else if (v.is_array()) {
            std::string list;
            for (const auto& e : v) {
                if (!e.is_string()) return wrong(key, "a list of strings");
                list += (list.empty() ? "" : ",") + e.get<std::string>();
            }
            value = list;
        } else {
            return wrong(key, "a string, a number or a list of strings");
        }
        const std::size_t refused = c.unsupported.size(), noted = c.notes.size();
        if (auto applied = playwright_option_apply(c, flag, value); !applied) {
            if (ok) err = "config " + path + ": " + key + ": " + applied.error().message;
            ok = false;
        }
        // say it with the file's name for it
        for (auto* list : {&c.unsupported, &c.notes})
            for (std::size_t i = list == &c.unsupported ? refused : noted; i < list->size(); ++i)
                if ((*list)[i].rfind(flag, 0) == 0) (*list)[i] = "config " + key + (*list)[i].substr(flag.size());
    };
    auto str = [&](const json& o, const char* k, const std::string& key, std::string& dst) {
        if (!o[k].is_string()) return wrong(key, "a string");
        dst = o[k].get<std::string>();
    };
    for (const auto& [k, v] : j.items()) {
        if (k == "browser") {
            if (!object(k, v)) continue;
            for (const auto& [bk, bv] : v.items()) {
                const std::string key = "browser." + bk;
                if (bk == "browserName") {
                    option(key, "--browser", bv);
                } else if (bk == "isolated") {
                    if (!bv.is_boolean()) wrong(key, "a boolean");  // a temporary profile is the default
                } else if (bk == "userDataDir") {
                    str(v, "userDataDir", key, c.browser.launch.user_data_dir);
                } else if (bk == "cdpEndpoint") {
                    str(v, "cdpEndpoint", key, c.browser.cdp_endpoint);
                } else if (bk == "cdpTimeout") {
                    option(key, "--cdp-timeout", bv);
                } else if (bk == "cdpHeaders") {
                    option(key, "--cdp-header", json("headers"));
                } else if (bk == "remoteEndpoint") {
                    option(key, "--endpoint", json("endpoint"));
                } else if (bk == "initScript") {  // files, relative to the configuration file
                    if (!bv.is_array() || !std::all_of(bv.begin(), bv.end(), [](const json& x) { return x.is_string(); })) {
                        wrong(key, "a list of JavaScript files");
                        continue;
                    }
                    for (const auto& f : bv) {
                        std::filesystem::path file = f.get<std::string>();
                        if (file.is_relative()) file = std::filesystem::path(path).parent_path() / file;
                        option(key, "--init-script", json(file.string()));
                    }
                } else if (bk == "initPage") {
                    option(key, "--init-page", json("page"));
                } else if (bk == "launchOptions") {
                    if (!object(key, bv)) continue;
                    for (const auto& [lk, lv] : bv.items()) {
                        const std::string lkey = key + "." + lk;
                        if (lk == "executablePath") {
                            str(bv, "executablePath", lkey, c.browser.launch.executable);
                        } else if (lk == "headless") {
                            if (!lv.is_boolean()) wrong(lkey, "a boolean");
                            else c.browser.launch.headless = lv.get<bool>();
                        } else if (lk == "args") {
                            if (!lv.is_array()) {
                                wrong(lkey, "a list of strings");
                                continue;
                            }
                            for (const auto& a : lv) {
                                if (!a.is_string()) {
                                    wrong(lkey, "a list of strings");
                                    break;
                                }
                                c.browser.launch.extra_args.push_back(a.get<std::string>());
                            }
                        } else if (lk == "proxy") {
                            if (!lv.is_object() || !lv.value("server", json()).is_string() ||
                                (lv.contains("bypass") && !lv["bypass"].is_string())) {
                                wrong(lkey, "{\"server\": \"host:port\", \"bypass\": \"a.com,b.com\"}");
                                continue;
                            }
                            if (!c.config_proxy) c.config_proxy = lv;
                        } else if (lk == "channel") {
                            option(lkey, "--browser", lv);
                        } else if (lk == "chromiumSandbox") {
                            if (!lv.is_boolean()) wrong(lkey, "a boolean");
                            else option(lkey, lv.get<bool>() ? "--sandbox" : "--no-sandbox", true);
                        } else {
                            unknown(lkey);
                        }
                    }
                } else if (bk == "contextOptions") {
                    if (!object(key, bv)) continue;
                    for (const auto& [ck, cv] : bv.items()) {
                        const std::string ckey = key + "." + ck;
                        if (ck == "viewport") {
                            if (!cv.is_object() || !cv.value("width", json()).is_number_integer() ||
                                !cv.value("height", json()).is_number_integer()) {
                                wrong(ckey, "{\"width\": W, \"height\": H}");
                                continue;
                            }
                            c.browser.viewport.width = cv["width"].get<int>();
                            c.browser.viewport.height = cv["height"].get<int>();
                        } else if (ck == "deviceScaleFactor") {
                            if (!cv.is_number() || cv.get<double>() <= 0 || cv.get<double>() > 10) {
                                wrong(ckey, "a number of device pixels per CSS pixel, above 0 and at most 10");
                                continue;
                            }
                            c.browser.viewport.device_scale_factor = cv.get<double>();
                        } else if (ck == "isMobile" || ck == "hasTouch") {
                            if (!cv.is_boolean()) {
                                wrong(ckey, "true or false");
                                continue;
                            }
                            (ck == "isMobile" ? c.browser.viewport.mobile : c.browser.viewport.touch) = cv.get<bool>();
                        } else if (ck == "locale" || ck == "timezoneId") {
                            if (!cv.is_string()) {
                                wrong(ckey, "a string");
                                continue;
                            }
                            const std::string val = cv.get<std::string>();
                            if (auto bad = ck == "locale" ? config_detail::locale_problem(val) : config_detail::timezone_problem(val)) {
                                if (ok) err = "config " + path + ": " + ckey + ": " + *bad;
                                ok = false;
                                continue;
                            }
                            (ck == "locale" ? c.browser.emulation.locale : c.browser.emulation.timezone_id) = val;
                        } else if (ck == "colorScheme" || ck == "reducedMotion" || ck == "forcedColors" || ck == "contrast") {
                            static const std::map<std::string, std::vector<std::string>> allowed{
                                {"colorScheme", {"light", "dark", "no-preference"}}, {"reducedMotion", {"reduce", "no-preference"}},
                                {"forcedColors", {"active", "none"}}, {"contrast", {"more", "no-preference"}}};
                            const auto& list = allowed.at(ck);
                            if (!cv.is_string() || std::find(list.begin(), list.end(), cv.get<std::string>()) == list.end()) {
                                wrong(ckey, "one of the CSS values of that media feature");
                                continue;
                            }
                            auto& m = c.browser.emulation.media;
                            (ck == "colorScheme" ? m.color_scheme : ck == "reducedMotion" ? m.reduced_motion : ck == "forcedColors" ? m.forced_colors : m.contrast) = cv.get<std::string>();
                        } else if (ck == "javaScriptEnabled" || ck == "bypassCSP") {
                            if (!cv.is_boolean()) {
                                wrong(ckey, "true or false");
                                continue;
                            }
                            (ck == "javaScriptEnabled" ? c.browser.emulation.javascript_enabled : c.browser.emulation.bypass_csp) = cv.get<bool>();
                        } else if (ck == "userAgent") {
                            option(ckey, "--user-agent", cv);
                        } else if (ck == "proxy") {
                            if (!cv.is_object() || !cv.value("server", json()).is_string() ||
                                (cv.contains("bypass") && !cv["bypass"].is_string())) {
                                wrong(ckey, "{\"server\": \"host:port\", \"bypass\": \"a.com,b.com\"}");
                                continue;
                            }
                            c.config_proxy = cv;
                        } else if (ck == "storageState") {  // a file's path, or the state itself
                            if (cv.is_string()) {
                                option(ckey, "--storage-state", cv);
                            } else if (auto st = parse_storage_state(cv); st) {
                                c.browser.initial_storage = std::move(*st);
                            } else {
                                if (ok) err = "config " + path + ": " + ckey + ": " + st.error().message;
                                ok = false;
                            }
                        } else if (ck == "ignoreHTTPSErrors") {
                            option(ckey, "--ignore-https-errors", cv);
                        } else {
                            unknown(ckey);
                        }
                    }
                } else {
                    unknown(key);
                }
            }
        } else if (k == "network") {
            if (!object(k, v)) continue;
            for (const auto& [nk, nv] : v.items()) {
                if (nk != "allowedOrigins" && nk != "blockedOrigins") {
                    unknown("network." + nk);
                    continue;
                }
                auto list = policy_detail::read_origin_list(nv);
                if (!list) {  // an unreadable list must not become "no list" (every origin allowed)
                    wrong("network." + nk, "a list of origins (strings)");
                    continue;
                }
                auto& dst = nk == "allowedOrigins" ? c.browser.policy.allowed_origins : c.browser.policy.blocked_origins;
                dst.insert(dst.end(), list->begin(), list->end());
            }
        } else if (k == "outputDir") {
            str(j, "outputDir", k, c.store.dir);
            c.store.keep = true;
        } else if (k == "secrets") {
            if (v.is_object()) {
                for (auto it = v.begin(); it != v.end(); ++it) {
                    if (!it.value().is_string() && !it.value().is_object()) {  // a secret that is not redacted is worse than no start
                        wrong("secrets." + it.key(), "a string");
                        continue;
                    }
                    if (auto one = browser_policy::read_secret(c.browser.policy, it.key(), it.value()); !one) {
                        wrong("secrets." + it.key(), "a string or {\"value\": string, \"origins\": [origins]}");
                        continue;
                    }
                }
                drop_empty_secrets(c);
            } else if (v.is_string()) {
                if (auto s = load_secrets(c, v.get<std::string>()); !s) return fail(s.error());
            } else {
                wrong(k, "an object or a dotenv file path");
            }
        } else if (k == "timeouts") {
            if (!object(k, v)) continue;
            for (const auto& [tk, tv] : v.items()) {
                const std::string key = "timeouts." + tk;
                if (tk == "action") option(key, "--timeout-action", tv);
                else if (tk == "navigation") option(key, "--timeout-navigation", tv);
                else if (tk == "settle") option(key, "--timeout-settle", tv);
                else if (tk == "idle") option(key, "--idle-timeout", tv);
                else if (tk == "expect") c.notes.push_back(key + " has no effect here: there are no expect (testing) tools");
                else unknown(key);
            }
        } else if (k == "snapshot") {
            if (!object(k, v)) continue;
            for (const auto& [sk, sv] : v.items()) {
                if (sk == "mode") option("snapshot.mode", "--snapshot-mode", sv);
                else if (sk == "boxes") option("snapshot.boxes", "--snapshot-boxes", sv);
                else unknown("snapshot." + sk);
            }
        } else if (k == "console") {
            if (!object(k, v)) continue;
            for (const auto& [ck, cv] : v.items()) {
                if (ck == "level") option("console.level", "--console-level", cv);
                else unknown("console." + ck);
            }
        } else if (k == "search") {
            if (!object(k, v)) continue;
            for (const auto& [sk, sv] : v.items()) {
                const std::string key = "search." + sk;
                if (sk != "backend" && sk != "url") {
                    // keys come from the environment only: a file with one is refused, not read
                    if (sk.find("key") != std::string::npos || sk.find("Key") != std::string::npos) {
                        if (ok) err = "config " + path + ": " + key + ": search keys are read from the environment only "
                                      "(BRAVE_API_KEY, TAVILY_API_KEY, SERPER_API_KEY), never from a file";
                        ok = false;
                    } else {
                        unknown(key);
                    }
                } else if (!sv.is_string()) {
                    wrong(key, "a string");
                } else if (auto r = search_option_apply(c, sk == "backend" ? "--search" : "--search-url", sv.get<std::string>()); !r) {
                    if (ok) err = "config " + path + ": " + key + ": " + r.error().message;
                    ok = false;
                }
            }
        } else if (k == "server") {
            if (!object(k, v)) continue;
            for (const auto& [sk, sv] : v.items()) {
                if (sk == "port") option("server.port", "--port", sv);
                else if (sk == "host") option("server.host", "--host", sv);
                else if (sk == "allowedHosts") option("server.allowedHosts", "--allowed-hosts", sv);
                else unknown("server." + sk);
            }
        } else if (auto f = std::find_if(kConfigKeyFlags.begin(), kConfigKeyFlags.end(),
                                         [&key = k](const auto& kf) { return kf.first == key; });  // (clang 14: no binding captures)
                   f != kConfigKeyFlags.end()) {
            option(k, std::string(f->second), v);
        } else if (k == "webmcp") {
            if (!v.is_boolean()) wrong(k, "a boolean");  // never exposed: false is what it is, true cannot be
            else if (v.get<bool>()) c.notes.push_back("webmcp has no effect here: page-registered WebMCP tools are never exposed");
        } else {
            unknown(k);
        }
    }
    if (!ok) return fail(errc::args_invalid, err);
    if (auto p = c.browser.policy.validate(); !p) return fail(errc::args_invalid, p.error().message);
    return {};
}

/// Read agentkit-browser-mcp's command line into `c` (--config and --policy files where they
/// appear); `help` or `version` when one was asked for. Then finish_config() judges the whole.
inline result<command_line_outcome> parse_command_line(int argc, const char* const* argv, server_config& c) {
    using namespace config_detail;
    std::string missing;  // the option whose value is missing
    auto need = [&](int& i) -> std::optional<std::string> {
        if (i + 1 >= argc) {
            missing = argv[i];
            return std::nullopt;
        }
        return std::string(argv[++i]);
    };
    auto no_value = [&]() { return fail(errc::args_invalid, missing + " needs a value"); };
    for (int i = 1; i < argc; ++i) {
        std::string a = argv[i];
        std::optional<std::string> inline_value;
        if (auto eq = a.find('='); a.rfind("--", 0) == 0 && eq != std::string::npos) {
            inline_value = a.substr(eq + 1);
            a = a.substr(0, eq);
        }
        auto value = [&]() -> std::optional<std::string> { return inline_value ? inline_value : need(i); };
        if (a == "--help" || a == "-h") {
            return command_line_outcome::help;
        } else if (a == "--version") {
            return command_line_outcome::version;
        } else if (a == "--headless") {
            c.browser.launch.headless = true;
        } else if (a == "--headed") {
            c.browser.launch.headless = false;
        } else if (a == "--isolated") {
            // a fresh temporary profile is the default
        } else if (a == "--executable-path") {
            auto v = value();
            if (!v) return no_value();
            c.browser.launch.executable = *v;
        } else if (a == "--user-data-dir") {
            auto v = value();
            if (!v) return no_value();
            c.browser.launch.user_data_dir = *v;
        } else if (a == "--viewport-size") {
            auto v = value();
            if (!v) return no_value();
            auto sz = parse_size(*v);
            if (!sz) {
                return fail(errc::args_invalid, "--viewport-size takes W,H (e.g. 1280,720)");
            }
            c.browser.viewport.width = sz->first;
            c.browser.viewport.height = sz->second;
        } else if (a == "--cdp-endpoint") {
            auto v = value();
            if (!v) return no_value();
            c.browser.cdp_endpoint = *v;
        } else if (a == "--webdriver") {
            auto v = value();
            if (!v) return no_value();
            if (v->rfind("http://", 0) != 0)
                return fail(errc::args_invalid, "--webdriver takes an http:// URL (e.g. http://127.0.0.1:4444), not \"" + *v + "\"",
                            "For an https endpoint, put a TLS-terminating proxy in front of it.");
            c.browser.webdriver.url = *v;
        } else if (a == "--webdriver-capabilities") {
            auto v = value();
            if (!v) return no_value();
            json caps = json::parse(*v, nullptr, false);
            if (caps.is_discarded() || !caps.is_object())
                return fail(errc::args_invalid, "--webdriver-capabilities takes a JSON object, e.g. '{\"se:name\": \"agent\"}'");
            c.browser.webdriver.capabilities = std::move(caps);
        } else if (a == "--config") {
            auto v = value();
            if (!v) return no_value();
            if (auto r = apply_config_file(c, *v); !r) return fail(r.error());
        } else if (a == "--allow-evaluate") {
            c.browser.allow_evaluate = true;
        } else if (a == "--allow-uploads") {
            c.tools.uploads_from_workspace = true;
        } else if (a == "--allow-downloads") {
            c.allow_downloads = true;
        } else if (a == "--inline-screenshots") {
            c.tools.inline_screenshots = true;
        } else if (a == "--quiet") {
            c.quiet = true;
        } else if (a == "--dashboard") {
            // the port only as --dashboard=PORT: a bare --dashboard takes no value (any free port)
            long long p = 0;
            if (inline_value) {
                auto n = parse_count(*inline_value);
                if (!n || *n > 65535) return fail(errc::args_invalid, "--dashboard takes a port from 0 to 65535 (--dashboard=PORT)");
                p = *n;
            }
            c.dashboard = static_cast<int>(p);
        } else if (a == "--dashboard-host") {
            auto v = value();
            if (!v) return no_value();
            c.dashboard_host = *v;
        } else if (a == "--tools") {
            auto v = value();
            if (!v) return no_value();
            if (*v == "all") c.tools_set = tool_set::all;
            else if (*v == "core") c.tools_set = tool_set::core;
            else if (*v == "menu") c.tools_set = tool_set::menu;
            else if (*v == "router") c.tools_set = tool_set::router;
            else {
                return fail(errc::args_invalid, "--tools takes all, core, menu or router (not \"" + *v + "\")");
            }
        } else if (a == "--allowed-origins" || a == "--blocked-origins") {
            auto v = value();
            if (!v) return no_value();
            auto list = policy_detail::split_list(json(*v));
            auto& dst = a == "--allowed-origins" ? c.browser.policy.allowed_origins : c.browser.policy.blocked_origins;
            dst.insert(dst.end(), list.begin(), list.end());
            if (auto ok = c.browser.policy.validate(); !ok) {
                return fail(errc::args_invalid, a + ": " + ok.error().message);
            }
        } else if (a == "--secret-origins") {
            auto v = value();
            if (!v) return no_value();
            const auto eq = v->find('=');
            if (eq == std::string::npos || eq == 0)
                return fail(errc::args_invalid, "--secret-origins " + *v + ": expected NAME=origin[;origin...]");
            auto list = policy_detail::split_list(json(v->substr(eq + 1)));
            if (list.empty()) return fail(errc::args_invalid, "--secret-origins " + *v + ": no origins after '='");
            auto& dst = c.browser.policy.secret_origins[v->substr(0, eq)];
            dst.insert(dst.end(), list.begin(), list.end());
            for (const auto& o : list)
                if (auto pat = policy_detail::parse_pattern(o); !pat) return fail(errc::args_invalid, a + ": " + pat.error().message);
        } else if (a == "--output-dir") {
            auto v = value();
            if (!v) return no_value();
            c.store.dir = *v;
            c.store.keep = true;
        } else if (a == "--secrets" || a == "--policy") {
            auto v = value();
            if (!v) return no_value();
            if (a == "--policy" && c.policy_given) {
                // a second file's defaults would silently undo the first's bounds
                return fail(errc::args_invalid, "--policy is given twice; merge the files into one");
            }
            if (a == "--policy") c.policy_given = true;
            if (auto r = a == "--secrets" ? load_secrets(c, *v) : load_policy(c, *v); !r)
                return fail(r.error());
        } else if (a == "--downloads-dir" || a == "--uploads-dir") {
            auto v = value();
            if (!v) return no_value();
            auto& dir = a == "--downloads-dir" ? c.browser.policy.downloads_dir : c.browser.policy.uploads_dir;
            if (!dir.empty() && dir != *v) {
                return fail(errc::args_invalid, a + " " + *v + ": it is already " + dir + " (from an earlier option or --policy)");
            }
            dir = *v;
        } else if (a == "--max-download-bytes" || a == "--max-downloads" || a == "--max-artifacts" || a == "--max-artifact-bytes") {
            auto v = value();
            if (!v) return no_value();
            auto n = parse_count(*v);  // (stoull took "-1" as 2^64-1 and "5x" as 5)
            if (!n) {
                return fail(errc::args_invalid, a + " takes a whole number, not \"" + *v + "\"");
            }
            const auto u = static_cast<std::size_t>(*n);
            if (a == "--max-downloads") c.max_downloads = u;
            else if (a == "--max-download-bytes") c.max_download_bytes = u;
            else if (a == "--max-artifacts") c.store.max_count = u;
            else c.store.max_bytes = u;
        } else if (a == "--max-sessions") {
            auto v = value();
            if (!v) return no_value();
            auto n = parse_count(*v);
            if (!n || *n == 0) return fail(errc::args_invalid, "--max-sessions takes a whole number of at least 1, not \"" + *v + "\"");
            c.max_sessions = static_cast<std::size_t>(*n);
            c.max_sessions_given = true;
        } else if (a == "--allow-file-access") {
            c.browser.policy.allow_file_access = true;
        } else if (a == "--search" || a == "--search-url") {
            auto v = value();
            if (!v) return no_value();
            if (auto r = search_option_apply(c, a, *v); !r) return fail(r.error());
        } else if (a == "--websockets") {
            auto v = value();
            if (!v) return no_value();
            if (*v == "auto") c.browser.websockets = websocket_enforcement::automatic;
            else if (*v == "proxy") c.browser.websockets = websocket_enforcement::proxy;
            else if (*v == "script") c.browser.websockets = websocket_enforcement::script_only;
            else {
                return fail(errc::args_invalid, "--websockets takes auto, proxy or script, not \"" + *v + "\"");
            }
        } else if (auto takes = playwright_option_takes_value(a)) {
            std::optional<std::string> v;
            if (*takes) {
                v = value();
                if (!v) return no_value();
            } else if (inline_value) {
                return fail(errc::args_invalid, a + " takes no value");
            }
            if (auto r = playwright_option_apply(c, a, v); !r) return fail(r.error());
        } else {
            return fail(errc::args_invalid, "unknown option " + std::string(argv[i]) + " (see --help)");
        }
    }
    return command_line_outcome::run;
}

/// What the options decide together, once all are read: the channel's executable, HTTPS errors.
inline result<void> finish_config(server_config& c) {
    using namespace config_detail;
    if (c.tools.output_dir.empty()) c.tools.output_dir = c.store.dir;  // Playwright's layout writes its files there too
    if (c.allow_downloads && c.browser.policy.downloads_dir.empty()) {
        std::error_code ec;
        const std::filesystem::path ws = c.tools.workspace.empty() ? std::filesystem::current_path(ec) : std::filesystem::path(c.tools.workspace);
        c.browser.policy.downloads_dir = (c.tools.output_dir.empty() ? ws / ".playwright-mcp" : std::filesystem::path(c.tools.output_dir)).string();
    }
    if (c.tools.output == output_mode::playwright && !c.image_responses_given) c.tools.inline_screenshots = true;
    c.browser.min_settle = c.settle ? *c.settle : c.tools.output == output_mode::playwright ? std::chrono::milliseconds(500) : std::chrono::milliseconds(0);
    if (c.tools.output == output_mode::playwright && !c.timeout_action_given) c.browser.element_wait = std::chrono::milliseconds(5000);
    {  // the browser's proxy: the command line's, else the configuration file's
        std::optional<std::string> server = c.proxy_server, bypass = c.proxy_bypass;
        if (!server && c.config_proxy) {
            server = c.config_proxy->value("server", std::string());
            if (!c.proxy_bypass && c.config_proxy->contains("bypass")) bypass = c.config_proxy->value("bypass", std::string());
        }
        if (server && !server->empty()) {
            if (!c.browser.cdp_endpoint.empty() || !c.browser.webdriver.url.empty())
                c.unsupported.push_back("--proxy-server with a browser this server does not launch (set the proxy where it is started)");
            c.browser.launch.extra_args.push_back("--proxy-server=" + *server);
            if (bypass && !bypass->empty()) {
                std::string list = *bypass;  // Playwright's commas, Chromium's semicolons
                std::replace(list.begin(), list.end(), ',', ';');
                c.browser.launch.extra_args.push_back("--proxy-bypass-list=" + list);
            }
        } else if (bypass) {
            c.notes.push_back("--proxy-bypass has no effect without --proxy-server");
        }
    }
    if (const char* lang = std::getenv("PW_LANG_NAME"); !c.codegen_given && lang != nullptr && *lang != '\0') {
        codegen_language from_env = c.tools.codegen;
        if (parse_codegen(lang, from_env)) c.tools.codegen = from_env;
        else c.notes.push_back(std::string("PW_LANG_NAME=") + lang + " is not typescript, python, java, csharp or none: ignored");
    }
    if (c.sandbox && c.no_sandbox) {
        return fail(errc::args_invalid, "--sandbox and --no-sandbox (or chromiumSandbox) contradict each other");
    }
    if (c.no_sandbox) c.browser.launch.extra_args.emplace_back("--no-sandbox");
    if (c.sandbox) {
        if (::geteuid() == 0)
            c.unsupported.push_back("--sandbox as root (Chromium runs as root only with --no-sandbox, which agentkit then passes)");
        else
            c.notes.push_back("--sandbox has no effect here: Chromium's own sandbox is on by default");
    }
    if (c.max_download_bytes) c.browser.policy.max_download_bytes = *c.max_download_bytes;
    if (c.max_downloads) c.browser.policy.max_downloads = *c.max_downloads;
    drop_empty_secrets(c);
    if (auto p = c.browser.policy.validate(); !p) return fail(errc::args_invalid, p.error().message);  // e.g. --secret-origins of no secret
    if (!c.channel.empty() && c.browser.launch.executable.empty() && c.browser.cdp_endpoint.empty()) {
        const std::string exe = *channel_executable(c.channel);
        if (::access(exe.c_str(), X_OK) != 0) {
            return fail(errc::args_invalid, "--browser " + c.channel + ": no browser at " + exe + " (install it, or pass --executable-path)");
        }
        c.browser.launch.executable = exe;
    }
    if (c.ignore_https_errors) {
        // A launch flag: it covers every frame and worker. A browser reached over --cdp-endpoint
        // is not ours to loosen for everyone using it.
        if (!c.browser.cdp_endpoint.empty()) c.unsupported.push_back("--ignore-https-errors with --cdp-endpoint (only for a browser this server launches)");
        else c.browser.launch.extra_args.emplace_back("--ignore-certificate-errors");
    }
    if (!c.browser.viewport.user_agent.empty() && c.browser.cdp_endpoint.empty())
        c.browser.launch.extra_args.push_back("--user-agent=" + c.browser.viewport.user_agent);  // also workers and iframes
    if (!c.browser.webdriver.url.empty()) {
        if (!c.browser.cdp_endpoint.empty())
            c.unsupported.push_back("--cdp-endpoint with --webdriver (one browser: the WebDriver session's or the endpoint's)");
        if (!c.browser.launch.user_data_dir.empty())
            c.unsupported.push_back("--user-data-dir with --webdriver (the profile would be on the grid's machine)");
    } else if (!c.browser.webdriver.capabilities.empty()) {
        c.notes.push_back("--webdriver-capabilities has no effect without --webdriver");
    }
    c.web_search.options.timeout = c.browser.call_timeout;  // --timeout-action bounds a search too
    if (c.web_search.backend.empty() && c.search_url_given) c.notes.push_back("--search-url has no effect without --search");
    if (c.web_search.backend == search::searxng::name && c.web_search.url.empty())
        return fail(errc::args_invalid, "--search searxng needs --search-url (the instance's URL, e.g. http://127.0.0.1:8888)");
    if (!c.port) {
        if (c.idle_timeout.count() != 0)
            c.unsupported.push_back("--idle-timeout " + std::to_string(c.idle_timeout.count()) +
                                    " (without --port the browser stays open until the server ends; 0 is accepted)");
        for (const auto& [given, flag] : {std::pair{c.host.has_value(), "--host"}, std::pair{!c.allowed_hosts.empty(), "--allowed-hosts"},
                                          std::pair{c.shared_browser_context, "--shared-browser-context"},
                                          std::pair{c.max_sessions_given, "--max-sessions"}})
            if (given) c.notes.push_back(std::string(flag) + " has no effect without --port (the server speaks stdio)");
    }
    // --user-data-dir with --port: a browser per session, on the one profile; a session that
    // starts one while another session's holds it is told so (cdp/launch.hpp), as Playwright MCP
    // does (--shared-browser-context shares one browser instead)
    if (!c.unsupported.empty()) {
        // Fail closed: a safety or storage option that is not enforced must not be ignored.
        std::string list;
        for (const auto& u : c.unsupported) list += (list.empty() ? "" : ", ") + u;
        return fail(errc::args_invalid, "not supported: " + list + ". Refusing to start rather than ignore them.");
    }
    return {};
}

/// The resolved configuration in Playwright MCP's configuration layout (what
/// browser_get_config shows): the keys this server honours, with the values in force. Secrets'
/// values never appear (their names do).
[[nodiscard]] inline json playwright_config_json(const server_config& c) {
    const auto& b = c.browser;
    json launch = {{"headless", b.launch.headless}};
    if (!b.launch.executable.empty()) launch["executablePath"] = b.launch.executable;
    if (!c.channel.empty()) launch["channel"] = c.channel;
    if (!b.launch.extra_args.empty()) launch["args"] = b.launch.extra_args;
    json context = {{"viewport", {{"width", b.viewport.width}, {"height", b.viewport.height}}},
                    {"deviceScaleFactor", b.viewport.device_scale_factor},
                    {"isMobile", b.viewport.mobile},
                    {"hasTouch", b.viewport.touch},
                    {"javaScriptEnabled", b.emulation.javascript_enabled},
                    {"bypassCSP", b.emulation.bypass_csp}};
    if (!b.viewport.user_agent.empty()) context["userAgent"] = b.viewport.user_agent;
    if (!b.emulation.locale.empty()) context["locale"] = b.emulation.locale;
    if (!b.emulation.timezone_id.empty()) context["timezoneId"] = b.emulation.timezone_id;
    for (auto [key, value] : {std::pair{"colorScheme", &b.emulation.media.color_scheme}, std::pair{"reducedMotion", &b.emulation.media.reduced_motion},
                              std::pair{"forcedColors", &b.emulation.media.forced_colors}, std::pair{"contrast", &b.emulation.media.contrast}})
        if (!value->empty()) context[key] = *value;
    json browser = {{"browserName", "chromium"}, {"isolated", b.launch.user_data_dir.empty()}, {"launchOptions", std::move(launch)},
                    {"contextOptions", std::move(context)}};
    if (!b.launch.user_data_dir.empty()) browser["userDataDir"] = b.launch.user_data_dir;
    if (!b.cdp_endpoint.empty()) browser["cdpEndpoint"] = b.cdp_endpoint;
    json caps = json::array();
    for (const auto& cap : c.caps) caps.push_back(cap);
    json secrets = json::array();
    for (const auto& [name, value] : b.policy.secrets) secrets.push_back(name);
    json out = {{"browser", std::move(browser)},
                {"capabilities", std::move(caps)},
                {"console", {{"level", c.tools.console_level.empty() ? std::string("info") : c.tools.console_level}}},
                {"network", {{"allowedOrigins", b.policy.allowed_origins}, {"blockedOrigins", b.policy.blocked_origins}}},
                {"timeouts", {{"action", b.call_timeout.count()}, {"navigation", b.navigation_timeout.count()}}},
                {"outputMode", c.tools.output == output_mode::playwright ? "playwright" : "agentkit"},
                {"testIdAttribute", c.tools.test_id_attribute},
                {"secrets", std::move(secrets)}};
    if (!c.tools.output_dir.empty()) out["outputDir"] = c.tools.output_dir;
    json server = json::object();
    if (c.host) server["host"] = *c.host;
    if (c.port) server["port"] = *c.port;
    if (!c.allowed_hosts.empty()) server["allowedHosts"] = c.allowed_hosts;
    if (!server.empty()) out["server"] = std::move(server);
    return out;
}

}  // namespace agentkit::browser
