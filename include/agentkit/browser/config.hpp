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
//
// Layout: server_config.hpp holds the options and each Playwright MCP option's meaning here,
// config_file.hpp a configuration file; this header the command line, the final judgement
// (finish_config) and the configuration shown back (playwright_config_json).
#pragma once

#include <agentkit/browser/config_file.hpp>
#include <agentkit/browser/server_config.hpp>
#include <agentkit/core/http.hpp>

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace agentkit::browser {

/// Where PLAYWRIGHT_MCP_* settings are read from (parse_command_line): a variable's value, or
/// nothing when it is not set.
using env_lookup = std::function<std::optional<std::string>(const std::string& name)>;

/// The process environment as an env_lookup.
[[nodiscard]] inline env_lookup process_environment() {
    return [](const std::string& name) -> std::optional<std::string> {
        const char* v = std::getenv(name.c_str());
        if (v == nullptr) return std::nullopt;
        return std::string(v);
    };
}

namespace config_detail {

/// A PLAYWRIGHT_MCP_* variable and the option it stands for: a value, or a switch ("true" or "1"
/// gives `flag`, "false" or "0" gives `off_flag` when there is one).
struct env_option {
    std::string_view var;
    std::string_view flag;
    bool takes_value;
    std::string_view off_flag;
};

/// The variables Playwright MCP reads, by the options they stand for.
inline constexpr std::array<env_option, 40> kEnvOptions{{
    {"PLAYWRIGHT_MCP_ALLOWED_HOSTS", "--allowed-hosts", true, {}},
    {"PLAYWRIGHT_MCP_ALLOWED_ORIGINS", "--allowed-origins", true, {}},
    {"PLAYWRIGHT_MCP_ALLOW_UNRESTRICTED_FILE_ACCESS", "--allow-unrestricted-file-access", false, {}},
    {"PLAYWRIGHT_MCP_BLOCKED_ORIGINS", "--blocked-origins", true, {}},
    {"PLAYWRIGHT_MCP_BLOCK_SERVICE_WORKERS", "--block-service-workers", false, {}},
    {"PLAYWRIGHT_MCP_BROWSER", "--browser", true, {}},
    {"PLAYWRIGHT_MCP_CAPS", "--caps", true, {}},
    {"PLAYWRIGHT_MCP_CDP_ENDPOINT", "--cdp-endpoint", true, {}},
    {"PLAYWRIGHT_MCP_CDP_HEADERS", "--cdp-header", true, {}},
    {"PLAYWRIGHT_MCP_CDP_TIMEOUT", "--cdp-timeout", true, {}},
    {"PLAYWRIGHT_MCP_CODEGEN", "--codegen", true, {}},
    {"PLAYWRIGHT_MCP_CONSOLE_LEVEL", "--console-level", true, {}},
    {"PLAYWRIGHT_MCP_DEVICE", "--device", true, {}},
    {"PLAYWRIGHT_MCP_EXECUTABLE_PATH", "--executable-path", true, {}},
    {"PLAYWRIGHT_MCP_EXTENSION", "--extension", false, {}},
    {"PLAYWRIGHT_MCP_GRANT_PERMISSIONS", "--grant-permissions", true, {}},
    {"PLAYWRIGHT_MCP_HEADLESS", "--headless", false, "--headed"},
    {"PLAYWRIGHT_MCP_HOST", "--host", true, {}},
    {"PLAYWRIGHT_MCP_IGNORE_HTTPS_ERRORS", "--ignore-https-errors", false, {}},
    {"PLAYWRIGHT_MCP_INIT_PAGE", "--init-page", true, {}},
    {"PLAYWRIGHT_MCP_INIT_SCRIPT", "--init-script", true, {}},
    {"PLAYWRIGHT_MCP_ISOLATED", "--isolated", false, {}},
    {"PLAYWRIGHT_MCP_IMAGE_RESPONSES", "--image-responses", true, {}},
    {"PLAYWRIGHT_MCP_MOBILE", "--mobile", false, {}},
    {"PLAYWRIGHT_MCP_SANDBOX", "--sandbox", false, "--no-sandbox"},
    {"PLAYWRIGHT_MCP_OUTPUT_DIR", "--output-dir", true, {}},
    {"PLAYWRIGHT_MCP_OUTPUT_MAX_SIZE", "--output-max-size", true, {}},
    {"PLAYWRIGHT_MCP_PORT", "--port", true, {}},
    {"PLAYWRIGHT_MCP_PROXY_BYPASS", "--proxy-bypass", true, {}},
    {"PLAYWRIGHT_MCP_PROXY_SERVER", "--proxy-server", true, {}},
    {"PLAYWRIGHT_MCP_REMOTE_HEADERS", "--remote-header", true, {}},
    {"PLAYWRIGHT_MCP_SECRETS_FILE", "--secrets", true, {}},
    {"PLAYWRIGHT_MCP_STORAGE_STATE", "--storage-state", true, {}},
    {"PLAYWRIGHT_MCP_TEST_ID_ATTRIBUTE", "--test-id-attribute", true, {}},
    {"PLAYWRIGHT_MCP_TIMEOUT_ACTION", "--timeout-action", true, {}},
    {"PLAYWRIGHT_MCP_TIMEOUT_NAVIGATION", "--timeout-navigation", true, {}},
    {"PLAYWRIGHT_MCP_TIMEOUT_SETTLE", "--timeout-settle", true, {}},
    {"PLAYWRIGHT_MCP_USER_AGENT", "--user-agent", true, {}},
    {"PLAYWRIGHT_MCP_USER_DATA_DIR", "--user-data-dir", true, {}},
    {"PLAYWRIGHT_MCP_VIEWPORT_SIZE", "--viewport-size", true, {}},
}};

/// The arguments the set PLAYWRIGHT_MCP_* variables stand for (values trimmed; empty ones and
/// switches that are neither true, false, 1 nor 0 are left out), and a note naming them (never
/// their values: a header or a path may be private).
inline std::vector<std::string> env_arguments(const env_lookup& env, std::vector<std::string>& notes) {
    std::vector<std::string> out;
    std::string read, ignored;
    for (const auto& o : kEnvOptions) {
        auto v = env(std::string(o.var));
        if (!v) continue;
        std::string value(trim_ascii(*v));
        if (value.empty()) continue;
        if (o.takes_value) {
            out.emplace_back(o.flag);
            out.push_back(std::move(value));
        } else if (value == "true" || value == "1") {
            out.emplace_back(o.flag);
        } else if (value == "false" || value == "0") {
            if (!o.off_flag.empty()) out.emplace_back(o.off_flag);
        } else {
            ignored += (ignored.empty() ? "" : ", ") + std::string(o.var);
            continue;
        }
        read += (read.empty() ? "" : ", ") + std::string(o.var);
    }
    if (!read.empty()) notes.push_back("from the environment, before the command line: " + read);
    if (!ignored.empty()) notes.push_back(ignored + ": not true, false, 1 or 0; ignored");
    return out;
}

inline result<command_line_outcome> parse_arguments(int argc, const char* const* argv, server_config& c);

}  // namespace config_detail

/// Read agentkit-browser-mcp's command line into `c` (--config and --policy files where they
/// appear); `help` or `version` when one was asked for. Then finish_config() judges the whole.
/// The PLAYWRIGHT_MCP_* variables Playwright MCP reads (config_detail::kEnvOptions; from `env`)
/// count as options given after the configuration file and before the command line: a file's
/// value gives way to the environment's, which gives way to the command line's.
/// PLAYWRIGHT_MCP_CONFIG names the configuration file when the command line names none.
inline result<command_line_outcome> parse_command_line(int argc, const char* const* argv, server_config& c,
                                                       const env_lookup& env = process_environment()) {
    std::vector<std::string> config, rest;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        if (a == "--config" && i + 1 < argc) {
            config.push_back(a);
            config.emplace_back(argv[++i]);
        } else if (a.rfind("--config=", 0) == 0) {
            config.push_back(a);
        } else {
            rest.push_back(a);
        }
    }
    if (config.empty())
        if (auto file = env("PLAYWRIGHT_MCP_CONFIG"); file && !trim_ascii(*file).empty()) config = {"--config", std::string(trim_ascii(*file))};
    std::vector<std::string> all = std::move(config);
    for (auto& a : config_detail::env_arguments(env, c.notes)) all.push_back(std::move(a));
    for (auto& a : rest) all.push_back(std::move(a));
    std::vector<const char*> args{argc > 0 ? argv[0] : "agentkit-browser-mcp"};
    for (const auto& a : all) args.push_back(a.c_str());
    return config_detail::parse_arguments(static_cast<int>(args.size()), args.data(), c);
}

namespace config_detail {

/// parse_command_line() on arguments in their final order.
inline result<command_line_outcome> parse_arguments(int argc, const char* const* argv, server_config& c) {
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
            c.isolated = true;  // a fresh temporary profile is the default; with --cdp-endpoint, a context of our own
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
        } else if (a == "--grant-permissions") {
            auto v = value();
            if (!v) return no_value();
            for (const auto& item : policy_detail::split_list(json(*v)))
                if (auto name = std::string(trim_ascii(item)); !name.empty()) c.browser.permissions.push_back(std::move(name));
        } else if (a == "--cdp-header") {
            auto v = value();
            if (!v) return no_value();
            auto h = net::parse_header_line(*v);
            if (!h) return fail(errc::args_invalid, "--cdp-header: " + h.error().message);
            c.browser.cdp_headers.push_back(std::move(*h));
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

}  // namespace config_detail

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
    if (auto p = permission_types(c.browser.permissions); !p) return fail(errc::args_invalid, "--grant-permissions: " + p.error().message, p.error().hint);
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
    // --cdp-endpoint drives the browser's own default context and open tabs, as Playwright MCP
    // does, unless --isolated, or unless HTTP sessions each need a context of their own
    c.browser.use_default_context = !c.browser.cdp_endpoint.empty() && !c.isolated && (!c.port || c.shared_browser_context);
    if (!c.browser.cdp_headers.empty() && c.browser.cdp_endpoint.empty()) c.notes.push_back("--cdp-header has no effect without --cdp-endpoint");
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
    if (c.save_session) out["saveSession"] = true;
    if (c.tools.output_max_bytes > 0) out["outputMaxSize"] = c.tools.output_max_bytes;
    json server = json::object();
    if (c.host) server["host"] = *c.host;
    if (c.port) server["port"] = *c.port;
    if (!c.allowed_hosts.empty()) server["allowedHosts"] = c.allowed_hosts;
    if (!server.empty()) out["server"] = std::move(server);
    return out;
}

}  // namespace agentkit::browser
