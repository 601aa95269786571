// agentkit/browser/server_config.hpp — agentkit-browser-mcp's options as a library: the
// server_config they fill, and what each Playwright MCP command-line option means here (taken,
// accepted with a note, or refused by name). Read by browser/config.hpp (the command line) and
// browser/config_file.hpp (a configuration file); include config.hpp.
#pragma once

#include <agentkit/search/config.hpp>
#include <agentkit/browser/artifacts.hpp>
#include <agentkit/browser/capabilities.hpp>
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
    /// --save-session: every tool call, its arguments and its result, in session-<time>/session.md
    /// in the output directory (browser/output_files.hpp), a folder per MCP session.
    bool save_session = false;
    /// --isolated (or the config file's browser.isolated): with --cdp-endpoint, a browser context of
    /// the server's own instead of the browser's default context and open tabs.
    bool isolated = false;
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

inline constexpr std::array<playwright_option, 15> kPlaywrightOptions{{
    {"--extension", false, true, "the Playwright browser extension is not supported; --cdp-endpoint connects to a running browser"},
    {"--profile-dir-name", true, true, "it belongs to --extension, which is not supported"},
    {"--endpoint", true, true, "a Playwright bound-browser endpoint is not CDP; --cdp-endpoint connects to a browser over CDP"},
    {"--save-trace", false, true, "a trace of the whole session is not supported; with --caps tracing, browser_start_tracing records one on demand"},
    {"--save-video", true, true, "videos are not supported; browser_recording_start records a screencast"},
    {"--init-page", true, true, "init pages (TypeScript run on a Playwright page) are not supported"},
    {"--block-service-workers", false, true, "blocking service workers is not supported"},
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
        c.tools.output_max_bytes = static_cast<std::uintmax_t>(*n);
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
    } else if (name == "--save-session") {
        c.save_session = true;
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
                      "--save-session", "--vision", "--snapshot-boxes"}))
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

}  // namespace config_detail

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

/// Whether the DEBUG environment variable's value `spec` turns on the debug namespace `ns`, as
/// Node's `debug` package reads it (Playwright MCP's servers use it, and so do scripts that run
/// them): names separated by commas or spaces, `*` matching any run of characters, a leading `-`
/// turning a name off whatever else matches ("pw:mcp:*,-pw:mcp:backend").
[[nodiscard]] inline bool debug_enabled(std::string_view spec, std::string_view ns) {
    const auto glob = [](std::string_view p, std::string_view s) {  // `*` only; backtracks to the last star
        std::size_t pi = 0, si = 0, star = std::string_view::npos, mark = 0;
        while (si < s.size()) {
            if (pi < p.size() && p[pi] == '*') {
                star = pi++;
                mark = si;
            } else if (pi < p.size() && p[pi] == s[si]) {
                ++pi;
                ++si;
            } else if (star != std::string_view::npos) {
                pi = star + 1;
                si = ++mark;
            } else {
                return false;
            }
        }
        while (pi < p.size() && p[pi] == '*') ++pi;
        return pi == p.size();
    };
    bool on = false;
    std::size_t i = 0;
    while (i < spec.size()) {
        const std::size_t end = std::min(spec.find_first_of(", \t", i), spec.size());
        std::string_view name = spec.substr(i, end - i);
        i = end + 1;
        if (name.empty()) continue;
        if (name[0] == '-') {
            if (glob(name.substr(1), ns)) return false;
        } else {
            on = on || glob(name, ns);
        }
    }
    return on;
}

}  // namespace agentkit::browser
