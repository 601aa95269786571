// agentkit-browser-mcp's command line and configuration file, in-process (browser/config.hpp).
#include <agentkit/agentkit.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <unistd.h>  // getpid

namespace br = agentkit::browser;

namespace {

/// No PLAYWRIGHT_MCP_* variables, whatever the test's own environment holds.
const br::env_lookup no_env = [](const std::string&) -> std::optional<std::string> { return std::nullopt; };

agentkit::result<br::command_line_outcome> parse(std::vector<std::string> args, br::server_config& c, const br::env_lookup& env = no_env) {
    std::vector<const char*> argv{"agentkit-browser-mcp"};
    for (const auto& a : args) argv.push_back(a.c_str());
    return br::parse_command_line(static_cast<int>(argv.size()), argv.data(), c, env);
}

br::env_lookup env_of(std::map<std::string, std::string> vars) {
    return [vars = std::move(vars)](const std::string& name) -> std::optional<std::string> {
        auto it = vars.find(name);
        if (it == vars.end()) return std::nullopt;
        return it->second;
    };
}

/// A file in a fresh temporary directory, removed with the fixture.
class ConfigFiles : public ::testing::Test {
protected:
    void SetUp() override {
        dir_ = std::filesystem::temp_directory_path() /
               ("agentkit-config-test-" + std::to_string(::getpid()) + "-" + ::testing::UnitTest::GetInstance()->current_test_info()->name());
        std::filesystem::create_directories(dir_);
    }
    void TearDown() override {
        std::error_code ec;
        std::filesystem::remove_all(dir_, ec);
    }
    std::string file(const std::string& name, const std::string& text) {
        const auto p = dir_ / name;
        std::ofstream(p) << text;
        return p.string();
    }
    std::filesystem::path dir_;
};

}  // namespace

TEST(ServerConfig, SnapshotModeFullShowsEveryNewPageWholeIncrementalCollapsesARepeatedSiteChrome) {
    br::server_config dflt;
    ASSERT_TRUE(parse({}, dflt));
    EXPECT_TRUE(dflt.browser.collapse_repeated_regions);
    EXPECT_TRUE(dflt.browser.snapshot_after_navigation);
    br::server_config full;
    ASSERT_TRUE(parse({"--snapshot-mode", "full"}, full));
    EXPECT_FALSE(full.browser.collapse_repeated_regions);
    EXPECT_TRUE(full.browser.snapshot_after_navigation);
    br::server_config inc;
    ASSERT_TRUE(parse({"--snapshot-mode=incremental"}, inc));
    EXPECT_TRUE(inc.browser.collapse_repeated_regions);
    EXPECT_TRUE(inc.browser.snapshot_after_navigation);
}

TEST(ServerConfig, OptionsWithTheSameMeaningAsPlaywrightMcpTakeEffect) {
    br::server_config c;
    auto r = parse({"--headed", "--viewport-size", "800,600", "--user-agent", "agent/1", "--timeout-action", "5000",
                    "--timeout-navigation=9000", "--snapshot-mode", "none", "--image-responses", "allow", "--console-level",
                    "error", "--allowed-origins", "http://a.test;https://b.test", "--blocked-origins", "*.ads.test",
                    "--output-max-size", "1000"},
                   c);
    ASSERT_TRUE(r) << r.error().to_text();
    EXPECT_EQ(*r, br::command_line_outcome::run);
    EXPECT_FALSE(c.browser.launch.headless);
    EXPECT_EQ(c.browser.viewport.width, 800);
    EXPECT_EQ(c.browser.viewport.height, 600);
    EXPECT_EQ(c.browser.viewport.user_agent, "agent/1");
    EXPECT_EQ(c.browser.call_timeout.count(), 5000);
    EXPECT_EQ(c.browser.navigation_timeout.count(), 9000);
    EXPECT_FALSE(c.browser.snapshot_after_navigation);
    EXPECT_TRUE(c.tools.inline_screenshots);
    EXPECT_EQ(c.tools.console_level, "error");
    EXPECT_EQ(c.browser.policy.allowed_origins, (std::vector<std::string>{"http://a.test", "https://b.test"}));
    EXPECT_EQ(c.browser.policy.blocked_origins, (std::vector<std::string>{"*.ads.test"}));
    EXPECT_EQ(c.store.max_bytes, 1000U);
    ASSERT_TRUE(br::finish_config(c));
    // the user agent reaches workers and iframes through the launch flag too
    EXPECT_NE(std::find(c.browser.launch.extra_args.begin(), c.browser.launch.extra_args.end(), "--user-agent=agent/1"),
              c.browser.launch.extra_args.end());
}

TEST(ServerConfig, BadValuesAreNamedWithWhatTheOptionTakes) {
    const std::vector<std::pair<std::vector<std::string>, std::string>> cases{
        {{"--snapshot-mode", "sometimes"}, "--snapshot-mode takes full, incremental or none, not \"sometimes\""},
        {{"--timeout-action", "soon"}, "--timeout-action takes a positive number of milliseconds"},
        {{"--max-artifacts", "-1"}, "--max-artifacts takes a whole number, not \"-1\""},
        {{"--max-downloads", "5x"}, "--max-downloads takes a whole number, not \"5x\""},
        {{"--no-sandbox=yes"}, "--no-sandbox takes no value"},
        {{"--viewport-size", "big"}, "--viewport-size takes W,H"},
        {{"--tools", "some"}, "--tools takes all, core, menu or router"},
        {{"--websockets", "maybe"}, "--websockets takes auto, proxy or script"},
        {{"--frobnicate"}, "unknown option --frobnicate"},
        {{"--executable-path"}, "--executable-path needs a value"},
    };
    for (const auto& [args, why] : cases) {
        br::server_config c;
        auto r = parse(args, c);
        ASSERT_FALSE(r) << args.front();
        EXPECT_EQ(r.error().code, agentkit::errc::args_invalid);
        EXPECT_NE(r.error().message.find(why), std::string::npos) << r.error().message;
    }
}

TEST(ServerConfig, OutputModePlaywrightTakesItsCodegenAndRefs) {
    br::server_config c;
    ASSERT_TRUE(parse({"--output-mode", "playwright", "--codegen", "python", "--test-id-attribute", "data-tid"}, c));
    EXPECT_EQ(c.tools.output, br::output_mode::playwright);
    EXPECT_TRUE(c.browser.aria_refs);  // actions take Playwright's refs
    EXPECT_EQ(c.tools.codegen, br::codegen_language::python);
    EXPECT_EQ(c.tools.test_id_attribute, "data-tid");
    EXPECT_TRUE(c.notes.empty());
    br::server_config d;
    ASSERT_TRUE(parse({}, d));
    EXPECT_EQ(d.tools.output, br::output_mode::agentkit);  // the default stays agentkit's
    EXPECT_FALSE(d.browser.aria_refs);
    br::server_config bad;
    auto r = parse({"--output-mode", "yaml"}, bad);
    ASSERT_FALSE(r);
    EXPECT_NE(r.error().message.find("agentkit or playwright"), std::string::npos) << r.error().message;
    auto r2 = parse({"--codegen", "rust"}, bad);
    ASSERT_FALSE(r2);
    EXPECT_NE(r2.error().message.find("typescript, python, java, csharp or none"), std::string::npos) << r2.error().message;
}

TEST(ServerConfig, WhatCannotBeHonouredRefusesTheStartByName) {
    br::server_config c;
    ASSERT_TRUE(parse({"--save-trace", "--codegen", "none", "--browser", "webkit"}, c));
    EXPECT_FALSE(c.notes.empty());  // --codegen: accepted, with a note
    EXPECT_NE(c.notes.front().find("--codegen shows code only with --output-mode playwright"), std::string::npos);
    auto f = br::finish_config(c);
    ASSERT_FALSE(f);
    EXPECT_NE(f.error().message.find("--save-trace (a trace of the whole session is not supported"), std::string::npos);
    EXPECT_NE(f.error().message.find("--browser webkit"), std::string::npos);
    EXPECT_NE(f.error().message.find("Refusing to start rather than ignore them"), std::string::npos);

    br::server_config both;
    ASSERT_TRUE(parse({"--sandbox", "--no-sandbox"}, both));
    auto g = br::finish_config(both);
    ASSERT_FALSE(g);
    EXPECT_NE(g.error().message.find("contradict"), std::string::npos);
}

TEST(ServerConfig, ProxyServerIsTheBrowsersProxyTheCommandLineWinsAndABrowserNotLaunchedHereRefusesIt) {
    auto has = [](const br::server_config& c, const std::string& arg) {
        return std::find(c.browser.launch.extra_args.begin(), c.browser.launch.extra_args.end(), arg) != c.browser.launch.extra_args.end();
    };
    br::server_config c;
    ASSERT_TRUE(parse({"--proxy-server", "http://127.0.0.1:3128", "--proxy-bypass", "a.test,b.test"}, c));
    ASSERT_TRUE(br::finish_config(c));
    EXPECT_TRUE(has(c, "--proxy-server=http://127.0.0.1:3128"));
    EXPECT_TRUE(has(c, "--proxy-bypass-list=a.test;b.test"));
    br::server_config bypass_only;
    ASSERT_TRUE(parse({"--proxy-bypass", "a.test"}, bypass_only));
    ASSERT_TRUE(br::finish_config(bypass_only));
    EXPECT_FALSE(has(bypass_only, "--proxy-bypass-list=a.test"));
    ASSERT_FALSE(bypass_only.notes.empty());
    br::server_config remote;
    ASSERT_TRUE(parse({"--cdp-endpoint", "http://127.0.0.1:9", "--proxy-server", "http://127.0.0.1:3128"}, remote));
    auto r = br::finish_config(remote);
    ASSERT_FALSE(r);
    EXPECT_NE(r.error().message.find("--proxy-server with a browser this server does not launch"), std::string::npos) << r.error().message;
    br::server_config bad;
    EXPECT_FALSE(parse({"--proxy-server", "a b"}, bad));
}

TEST(ServerConfig, DashboardTakesAnOptionalPortOnlyAfterAnEqualsSign) {
    {
        br::server_config c;
        EXPECT_FALSE(c.dashboard.has_value()) << "off unless asked for";
        auto r = parse({"--dashboard", "--headless"}, c);  // a bare --dashboard takes no value: --headless stays a flag
        ASSERT_TRUE(r) << r.error().to_text();
        ASSERT_TRUE(c.dashboard.has_value());
        EXPECT_EQ(*c.dashboard, 0);
        EXPECT_TRUE(c.browser.launch.headless);
        EXPECT_EQ(c.dashboard_host, "127.0.0.1");
    }
    {
        br::server_config c;
        auto r = parse({"--dashboard=8123", "--dashboard-host", "::1"}, c);
        ASSERT_TRUE(r) << r.error().to_text();
        EXPECT_EQ(c.dashboard.value_or(-1), 8123);
        EXPECT_EQ(c.dashboard_host, "::1");
    }
    for (const char* bad : {"--dashboard=70000", "--dashboard=x", "--dashboard=-1"}) {
        br::server_config c;
        auto r = parse({bad}, c);
        ASSERT_FALSE(r) << bad;
        EXPECT_NE(r.error().message.find("--dashboard takes a port"), std::string::npos) << r.error().message;
    }
}

TEST(ServerConfig, PortServesHttpWithItsOwnOptionsAndTheyAreNotedWithoutIt) {
    br::server_config c;
    auto r = parse({"--port", "0", "--host", "0.0.0.0", "--allowed-hosts", "agents.internal, box.lan", "--idle-timeout", "60000",
                    "--max-sessions", "3"},
                   c);
    ASSERT_TRUE(r) << r.error().to_text();
    ASSERT_TRUE(br::finish_config(c));
    ASSERT_TRUE(c.port.has_value());
    EXPECT_EQ(*c.port, 0);
    EXPECT_EQ(c.host.value_or(""), "0.0.0.0");
    EXPECT_EQ(c.allowed_hosts, (std::vector<std::string>{"agents.internal", "box.lan"}));
    EXPECT_EQ(c.idle_timeout.count(), 60000);
    EXPECT_EQ(c.max_sessions, 3U);
    EXPECT_FALSE(c.shared_browser_context);

    // without --port: the HTTP options change nothing (a note each), a non-zero idle timeout refuses
    br::server_config stdio;
    ASSERT_TRUE(parse({"--host", "127.0.0.1", "--shared-browser-context", "--max-sessions", "2"}, stdio));
    ASSERT_TRUE(br::finish_config(stdio));
    std::string notes;
    for (const auto& n : stdio.notes) notes += n + "\n";
    for (const char* flag : {"--host", "--shared-browser-context", "--max-sessions"})
        EXPECT_NE(notes.find(std::string(flag) + " has no effect without --port"), std::string::npos) << notes;
    br::server_config idle;
    ASSERT_TRUE(parse({"--idle-timeout", "5000"}, idle));
    auto f = br::finish_config(idle);
    ASSERT_FALSE(f);
    EXPECT_NE(f.error().message.find("--idle-timeout 5000 (without --port"), std::string::npos) << f.error().message;

    // a profile with --port: a session's browser takes it (another session's is refused at its
    // start, cdp/launch.hpp); or one shared browser
    br::server_config profile;
    ASSERT_TRUE(parse({"--port", "8931", "--user-data-dir", "/tmp/agentkit-one-profile"}, profile));
    EXPECT_TRUE(br::finish_config(profile));
    br::server_config shared;
    ASSERT_TRUE(parse({"--port", "8931", "--user-data-dir", "/tmp/agentkit-one-profile", "--shared-browser-context"}, shared));
    EXPECT_TRUE(br::finish_config(shared));

    for (const auto& [args, why] : std::vector<std::pair<std::vector<std::string>, std::string>>{
             {{"--port", "65536"}, "--port takes a port number from 0 to 65535, not \"65536\""},
             {{"--port", "-1"}, "--port takes a port number from 0 to 65535"},
             {{"--host", ""}, "--host takes an address to bind"},
             {{"--max-sessions", "0"}, "--max-sessions takes a whole number of at least 1"}}) {
        br::server_config bad;
        auto b = parse(args, bad);
        ASSERT_FALSE(b) << args.front();
        EXPECT_NE(b.error().message.find(why), std::string::npos) << b.error().message;
    }
}

TEST(ServerConfig, WebDriverTakesAnHttpUrlAndCapabilitiesAndRefusesWhatContradictsIt) {
    br::server_config c;
    ASSERT_TRUE(parse({"--webdriver", "http://grid.internal:4444/wd/hub", "--webdriver-capabilities", R"({"se:name":"agent 7"})"}, c));
    ASSERT_TRUE(br::finish_config(c));
    EXPECT_EQ(c.browser.webdriver.url, "http://grid.internal:4444/wd/hub");
    EXPECT_EQ(c.browser.webdriver.capabilities["se:name"], "agent 7");
    for (const auto& [args, why] : std::vector<std::pair<std::vector<std::string>, std::string>>{
             {{"--webdriver", "https://cloud.example/wd/hub"}, "--webdriver takes an http:// URL"},
             {{"--webdriver", "grid:4444"}, "--webdriver takes an http:// URL"},
             {{"--webdriver-capabilities", "[1]"}, "--webdriver-capabilities takes a JSON object"}}) {
        br::server_config bad;
        auto r = parse(args, bad);
        ASSERT_FALSE(r) << args.back();
        EXPECT_NE(r.error().message.find(why), std::string::npos) << r.error().message;
    }
    br::server_config both;
    ASSERT_TRUE(parse({"--webdriver", "http://127.0.0.1:4444", "--cdp-endpoint", "http://127.0.0.1:9222"}, both));
    auto f = br::finish_config(both);
    ASSERT_FALSE(f);
    EXPECT_NE(f.error().message.find("--cdp-endpoint with --webdriver"), std::string::npos) << f.error().message;
    br::server_config alone;
    ASSERT_TRUE(parse({"--webdriver-capabilities", R"({"se:name":"x"})"}, alone));
    ASSERT_TRUE(br::finish_config(alone));
    ASSERT_FALSE(alone.notes.empty());
    EXPECT_NE(alone.notes.back().find("no effect without --webdriver"), std::string::npos);
}

TEST_F(ConfigFiles, TheServerSectionOfAConfigFileSetsTheHttpTransport) {
    br::server_config c;
    const auto path = file("server.json", R"({"server": {"port": 8931, "host": "127.0.0.1", "allowedHosts": ["agents.internal"]},
                                                "sharedBrowserContext": true})");
    ASSERT_TRUE(parse({"--config", path}, c));
    ASSERT_TRUE(br::finish_config(c));
    EXPECT_EQ(c.port.value_or(-1), 8931);
    EXPECT_EQ(c.host.value_or(""), "127.0.0.1");
    EXPECT_EQ(c.allowed_hosts, (std::vector<std::string>{"agents.internal"}));
    EXPECT_TRUE(c.shared_browser_context);

    br::server_config unknown;
    ASSERT_TRUE(parse({"--config", file("unknown.json", R"({"server": {"port": 1, "tls": true}})")}, unknown));
    auto f = br::finish_config(unknown);
    ASSERT_FALSE(f);
    EXPECT_NE(f.error().message.find("config key server.tls"), std::string::npos) << f.error().message;
}

TEST(ServerConfig, HelpAndVersionAreOutcomesNotExits) {
    br::server_config c;
    EXPECT_EQ(*parse({"--help"}, c), br::command_line_outcome::help);
    EXPECT_EQ(*parse({"--version"}, c), br::command_line_outcome::version);
    EXPECT_NE(std::string(br::server_usage).find("--allowed-origins"), std::string::npos);
}

TEST_F(ConfigFiles, AConfigFileGoesThroughTheCommandLinesHandling) {
    const std::string cfg = file("config.json", R"({
        "browser": {"launchOptions": {"headless": false, "args": ["--lang=de"]},
                    "contextOptions": {"viewport": {"width": 1024, "height": 700}, "userAgent": "cfg/2"}},
        "network": {"allowedOrigins": ["http://127.0.0.1:8080"]},
        "timeouts": {"navigation": 7000},
        "snapshot": {"mode": "none"},
        "secrets": {"TOKEN": "s3cret-value"}
    })");
    br::server_config c;
    auto r = parse({"--config", cfg}, c);
    ASSERT_TRUE(r) << r.error().to_text();
    EXPECT_FALSE(c.browser.launch.headless);
    EXPECT_EQ(c.browser.launch.extra_args, (std::vector<std::string>{"--lang=de"}));
    EXPECT_EQ(c.browser.viewport.width, 1024);
    EXPECT_EQ(c.browser.viewport.user_agent, "cfg/2");
    EXPECT_EQ(c.browser.policy.allowed_origins, (std::vector<std::string>{"http://127.0.0.1:8080"}));
    EXPECT_EQ(c.browser.navigation_timeout.count(), 7000);
    EXPECT_FALSE(c.browser.snapshot_after_navigation);
    EXPECT_EQ(c.browser.policy.secrets.at("TOKEN"), "s3cret-value");
}

TEST_F(ConfigFiles, ConfigValuesOfTheWrongTypeOrUnknownKeysAreRefused) {
    const std::vector<std::pair<std::string, std::string>> cases{
        {R"({"timeouts": {"navigation": "soon"}})", "--timeout-navigation takes a positive number of milliseconds, not \"soon\""},
        {R"({"codegen": true})", "codegen must be a string, a number or a list of strings"},
        {R"({"allowUnrestrictedFileAccess": 1})", "allowUnrestrictedFileAccess must be true or false"},
        {R"({"network": {"allowedOrigins": [123]}})", "network.allowedOrigins must be a list of origins"},
        {R"({"secrets": {"TOKEN": 42}})", "secrets.TOKEN must be a string"},
        {R"([1, 2])", "is not a JSON object"},
    };
    for (const auto& [json_text, why] : cases) {
        br::server_config c;
        auto r = parse({"--config", file("bad.json", json_text)}, c);
        ASSERT_FALSE(r) << json_text;
        EXPECT_NE(r.error().message.find(why), std::string::npos) << r.error().message;
    }
    br::server_config c;
    ASSERT_TRUE(parse({"--config", file("unknown.json", R"({"somethingNew": 1, "browser": {"launchOptions": {"slowMo": 5}}})")}, c));
    auto f = br::finish_config(c);
    ASSERT_FALSE(f);
    EXPECT_NE(f.error().message.find("config key somethingNew"), std::string::npos);
    EXPECT_NE(f.error().message.find("config key browser.launchOptions.slowMo"), std::string::npos);
}

TEST_F(ConfigFiles, APolicyFileJoinsTheOptionsBeforeIt) {
    const std::string policy = file("policy.json", R"({"blockedOrigins": ["http://blocked.test"], "downloadsDir": "/tmp/dl-a"})");
    br::server_config c;
    ASSERT_TRUE(parse({"--allowed-origins", "http://127.0.0.1:1", "--policy", policy}, c));
    EXPECT_EQ(c.browser.policy.allowed_origins, (std::vector<std::string>{"http://127.0.0.1:1"}));  // kept, not dropped
    EXPECT_EQ(c.browser.policy.blocked_origins, (std::vector<std::string>{"http://blocked.test"}));
    br::server_config clash;
    auto r = parse({"--downloads-dir", "/tmp/dl-b", "--policy", policy}, clash);
    ASSERT_FALSE(r);
    EXPECT_NE(r.error().message.find("downloadsDir is /tmp/dl-a but an earlier option set /tmp/dl-b"), std::string::npos);
    br::server_config twice;
    auto t = parse({"--policy", policy, "--policy", policy}, twice);
    ASSERT_FALSE(t);
    EXPECT_NE(t.error().message.find("--policy is given twice"), std::string::npos);
}

TEST_F(ConfigFiles, ASecretWithAnEmptyValueIsIgnoredWithANoteNotARefusedStart) {
    // a dotenv line NAME= (a variable not set here) and an empty value in a config file: nothing
    // to type or redact; the start goes on with the other secrets, and a note says which
    const std::string env = file("secrets.env", "TOKEN=t-1\nEMPTY=\nALSO_EMPTY=\"\"\n");
    const std::string cfg = file("empty.json", R"({"secrets": {"BLANK": ""}})");
    br::server_config c;
    auto r = parse({"--secrets", env, "--config", cfg, "--secret-origins", "EMPTY=https://x.test"}, c);
    ASSERT_TRUE(r) << r.error().to_text();
    auto f = br::finish_config(c);
    ASSERT_TRUE(f) << f.error().to_text();
    EXPECT_EQ(c.browser.policy.secrets.size(), 1u);
    EXPECT_EQ(c.browser.policy.secrets.at("TOKEN"), "t-1");
    EXPECT_EQ(c.browser.policy.secret_origins.count("EMPTY"), 0u);
    std::string notes;
    for (const auto& n : c.notes) notes += n + "\n";
    for (const char* name : {"EMPTY", "ALSO_EMPTY", "BLANK"})
        EXPECT_NE(notes.find("secret " + std::string(name) + " has an empty value: ignored"), std::string::npos) << notes;
}

TEST_F(ConfigFiles, SecretsAreTiedToOriginsByTheConfigFileOrTheCommandLine) {
    const std::string cfg = file("secrets.json", R"({
        "secrets": {"PASS": {"value": "pw-1", "origins": ["https://login.example.com"]}, "TOKEN": "t-2"}
    })");
    br::server_config c;
    auto r = parse({"--config", cfg, "--secret-origins", "TOKEN=https://api.example.com;*.example.org"}, c);
    ASSERT_TRUE(r) << r.error().to_text();
    EXPECT_EQ(c.browser.policy.secrets.at("PASS"), "pw-1");
    EXPECT_EQ(c.browser.policy.secret_origins.at("PASS"), (std::vector<std::string>{"https://login.example.com"}));
    EXPECT_EQ(c.browser.policy.secret_origins.at("TOKEN"), (std::vector<std::string>{"https://api.example.com", "*.example.org"}));
    // origins for a name that is no secret, a malformed flag, a bad origin, a bad declaration: refused, named
    const std::vector<std::pair<std::vector<std::string>, std::string>> bad{
        {{"--secret-origins", "NOPE=https://x.test"}, "origins are given for NOPE, which is not a secret"},
        {{"--secret-origins", "https://x.test"}, "expected NAME=origin"},
        {{"--secret-origins", "A=http://x.test/path"}, "is not an origin"},
        {{"--config", file("bad-secret.json", R"({"secrets": {"A": {"value": "x", "origins": []}}})")}, "secrets.A must be a string or"},
    };
    for (const auto& [args, why] : bad) {
        br::server_config d;
        auto e = parse(std::vector<std::string>(args), d);
        std::string message;
        if (e) {  // parsed: the whole configuration is judged before the start
            auto f = br::finish_config(d);
            ASSERT_FALSE(f) << args.back();
            message = f.error().message;
        } else {
            message = e.error().message;
        }
        EXPECT_NE(message.find(why), std::string::npos) << message;
    }
}

TEST_F(ConfigFiles, SearchIsConfiguredInTheFileAsOnTheCommandLineAndKeysAreRefusedThere) {
    br::server_config c;
    ASSERT_TRUE(parse({"--config", file("search.json", R"({"search": {"backend": "searxng", "url": "http://127.0.0.1:8888"}})")}, c));
    EXPECT_EQ(c.web_search.backend, "searxng");
    EXPECT_EQ(c.web_search.url, "http://127.0.0.1:8888");
    // the flag given after the file wins, as for every option
    br::server_config d;
    ASSERT_TRUE(parse({"--config", file("brave.json", R"({"search": {"backend": "brave"}})"), "--search", "tavily"}, d));
    EXPECT_EQ(d.web_search.backend, "tavily");
    // the same checks as the flags, named with the file's key
    struct bad_case {
        const char* text;
        const char* says;
    };
    for (const auto& [text, says] : std::vector<bad_case>{
             {R"({"search": {"backend": "bing"}})", "search.backend: --search takes searxng"},
             {R"({"search": {"url": "ftp://x"}})", "search.url: --search-url takes an http:// or https:// URL"},
             {R"({"search": {"backend": 3}})", "search.backend must be a string"},
             {R"({"search": {"backend": "searxng"}})", "--search searxng needs --search-url"},
         }) {
        br::server_config e;
        auto r = parse({"--config", file("bad.json", text)}, e);
        const auto f = r ? br::finish_config(e) : agentkit::result<void>(agentkit::fail(r.error()));  // some checks come at the end
        ASSERT_FALSE(f) << text;
        EXPECT_NE(f.error().message.find(says), std::string::npos) << f.error().message;
    }
    // a key in the file is refused without being read back
    br::server_config k;
    auto r = parse({"--config", file("key.json", R"({"search": {"backend": "brave", "apiKey": "sk-SECRET-123"}})")}, k);
    ASSERT_FALSE(r);
    EXPECT_NE(r.error().message.find("read from the environment only"), std::string::npos) << r.error().message;
    EXPECT_EQ(r.error().to_text().find("sk-SECRET-123"), std::string::npos);
    // other keys under search are unknown keys, like everywhere in the file
    br::server_config u;
    ASSERT_TRUE(parse({"--config", file("unknown.json", R"({"search": {"backend": "brave", "region": "de"}})")}, u));
    auto f = br::finish_config(u);
    ASSERT_FALSE(f);
    EXPECT_NE(f.error().message.find("config key search.region"), std::string::npos) << f.error().message;
}

TEST(ServerConfig, CapsVisionOffersTheCoordinateToolsAndAnUnknownCapabilityIsNoted) {
    br::server_config none;
    ASSERT_TRUE(parse({"--caps", "devtools"}, none));
    EXPECT_FALSE(none.has_cap("vision"));
    br::server_config c;
    ASSERT_TRUE(parse({"--caps", "vision, pdf, telepathy"}, c));
    EXPECT_TRUE(c.has_cap("vision"));
    EXPECT_TRUE(c.has_cap("pdf"));
    ASSERT_EQ(c.notes.size(), 1U);
    EXPECT_NE(c.notes[0].find("--caps: telepathy tools are not offered"), std::string::npos) << c.notes[0];
    EXPECT_EQ(c.notes[0].find("vision"), std::string::npos) << c.notes[0];
    br::server_config old;  // Playwright MCP's older switch
    ASSERT_TRUE(parse({"--vision"}, old));
    EXPECT_TRUE(old.has_cap("vision"));
    EXPECT_TRUE(old.notes.empty());
}

TEST(ServerConfig, CapsTestingOffersTheAssertionToolsAndEachCapabilityLeavesOnlyItsToolsOff) {
    br::server_config c;
    ASSERT_TRUE(parse({"--caps", "testing"}, c));
    EXPECT_TRUE(c.has_cap("testing"));
    EXPECT_FALSE(c.has_cap("vision"));
    EXPECT_TRUE(c.notes.empty());
    // the one rule: the tools of a capability that is off, and the words a call to one hears
    const auto off = br::capability_tools_off(c.caps);
    EXPECT_NE(std::find(off.begin(), off.end(), "browser_mouse_click_xy"), off.end());
    EXPECT_EQ(std::find(off.begin(), off.end(), "browser_verify_value"), off.end());
    ASSERT_NE(br::capability_of("browser_verify_value"), nullptr);
    EXPECT_EQ(br::capability_of("browser_verify_value")->name, "testing");
    EXPECT_EQ(br::capability_of("browser_find"), nullptr);  // core: always offered
    const std::string hint = br::capability_off_hint(c.caps);
    EXPECT_NE(hint.find("--caps vision"), std::string::npos) << hint;
    EXPECT_EQ(hint.find("--caps testing"), std::string::npos) << hint;
    EXPECT_TRUE(br::capability_off_hint({"vision", "testing", "storage", "network", "pdf", "config", "devtools", "tracing"}).empty());
}

TEST(ServerConfig, CapsStorageAndNetworkOfferTheirToolsOnly) {
    br::server_config c;
    ASSERT_TRUE(parse({"--caps", "storage,network"}, c));
    EXPECT_TRUE(c.has_cap("storage"));
    EXPECT_TRUE(c.has_cap("network"));
    EXPECT_TRUE(c.notes.empty()) << c.notes.front();
    const auto off = br::capability_tools_off(c.caps);
    for (const char* on : {"browser_cookie_set", "browser_localstorage_get", "browser_sessionstorage_clear", "browser_storage_state",
                           "browser_set_storage_state", "browser_route", "browser_unroute", "browser_network_state_set"}) {
        EXPECT_EQ(std::find(off.begin(), off.end(), on), off.end()) << on;
        ASSERT_NE(br::capability_of(on), nullptr) << on;
    }
    EXPECT_EQ(br::capability_of("browser_route_list")->name, "network");
    EXPECT_EQ(br::capability_of("browser_cookie_list")->name, "storage");
    EXPECT_EQ(br::capability_of("browser_network_requests"), nullptr);  // the network log: always offered
    br::server_config storage_only;
    ASSERT_TRUE(parse({"--caps", "storage"}, storage_only));
    const auto off2 = br::capability_tools_off(storage_only.caps);
    EXPECT_NE(std::find(off2.begin(), off2.end(), "browser_route"), off2.end());
    EXPECT_EQ(std::find(off2.begin(), off2.end(), "browser_cookie_list"), off2.end());
    EXPECT_NE(br::capability_off_hint(storage_only.caps).find("--caps network"), std::string::npos);
}

TEST(ServerConfig, TimeoutSettleIsTheLeastWaitOfAnActionAndPlaywrightsLayoutWaitsAsItDoes) {
    br::server_config plain;
    ASSERT_TRUE(parse({}, plain));
    ASSERT_TRUE(br::finish_config(plain));
    EXPECT_EQ(plain.browser.min_settle.count(), 0);  // agentkit's layout: actions settle on events only
    EXPECT_FALSE(plain.browser.dialogs.hold);
    br::server_config set;
    ASSERT_TRUE(parse({"--timeout-settle", "250"}, set));
    ASSERT_TRUE(br::finish_config(set));
    EXPECT_EQ(set.browser.min_settle.count(), 250);
    EXPECT_TRUE(set.notes.empty());
    br::server_config pw;  // Playwright's layout: 500 ms and dialogs held as its modal state
    ASSERT_TRUE(parse({"--output-mode", "playwright"}, pw));
    ASSERT_TRUE(br::finish_config(pw));
    EXPECT_EQ(pw.browser.min_settle.count(), 500);
    EXPECT_TRUE(pw.browser.dialogs.hold);
    br::server_config pw0;  // the flag wins, whatever its place
    ASSERT_TRUE(parse({"--timeout-settle", "0", "--output-mode", "playwright"}, pw0));
    ASSERT_TRUE(br::finish_config(pw0));
    EXPECT_EQ(pw0.browser.min_settle.count(), 0);
    br::server_config bad;
    auto r = parse({"--timeout-settle", "soon"}, bad);
    ASSERT_FALSE(r);
    EXPECT_NE(r.error().message.find("--timeout-settle"), std::string::npos) << r.error().message;
}

TEST(ServerConfig, CapsVisionInAConfigFile) {
    const auto path = std::filesystem::temp_directory_path() / ("agentkit-caps-" + std::to_string(::getpid()) + ".json");
    std::ofstream(path) << R"({"capabilities": ["core", "vision"]})";
    br::server_config c;
    auto r = parse({"--config", path.string()}, c);
    std::filesystem::remove(path);
    ASSERT_TRUE(r) << r.error().to_text();
    EXPECT_TRUE(c.has_cap("vision"));
}

TEST_F(ConfigFiles, StorageStateIsReadAtTheStartAndAFileThatCannotBeUsedRefusesIt) {
    br::server_config c;
    ASSERT_TRUE(parse({"--storage-state", file("state.json", R"({"cookies": [{"name": "sid", "value": "v", "domain": "127.0.0.1"}],
                                                                 "origins": [{"origin": "http://127.0.0.1:1", "localStorage": []}]})")},
                      c));
    EXPECT_EQ(c.browser.initial_storage_file, (dir_ / "state.json").string());  // read at every browser start
    auto st = br::read_storage_state_file(c.browser.initial_storage_file);
    ASSERT_TRUE(st);
    EXPECT_EQ(st->cookies.at(0).name, "sid");
    EXPECT_EQ(st->origins.size(), 1U);
    // a file not there yet: noted, read when the browser starts (as Playwright MCP does)
    br::server_config missing;
    ASSERT_TRUE(parse({"--storage-state", (dir_ / "none.json").string()}, missing));
    ASSERT_EQ(missing.notes.size(), 1U);
    EXPECT_NE(missing.notes[0].find("does not exist yet"), std::string::npos) << missing.notes[0];
    br::server_config broken;
    auto b = parse({"--storage-state", file("broken.json", R"({"origins": [{"origin": 1}]})")}, broken);
    ASSERT_FALSE(b);
    EXPECT_NE(b.error().message.find("origin 1's \"origin\" is not a string"), std::string::npos) << b.error().message;
    // the configuration file's key: a path, or the state itself
    br::server_config inline_state;
    ASSERT_TRUE(parse({"--config", file("c.json", R"({"browser": {"contextOptions": {"storageState": {"cookies": [], "origins": []}}}})")},
                      inline_state));
    EXPECT_TRUE(inline_state.browser.initial_storage.has_value());
}

TEST(ConfigIni, PlaywrightsIniFormReadsAsTheJsonItStandsFor) {
    auto j = br::ini_config(R"(
; a comment
# another
browser.contextOptions.viewport = 640x480
timeouts.action = 12345
browser.launchOptions.headless = true
network.allowedOrigins = https://example.com
capabilities[] = storage
capabilities[] = network
[console]
level = "error"
outputDir = ./out
)");
    ASSERT_TRUE(j) << j.error().message;
    EXPECT_EQ((*j)["browser"]["contextOptions"]["viewport"], (agentkit::json{{"width", 640}, {"height", 480}}));
    EXPECT_EQ((*j)["timeouts"]["action"], 12345);
    EXPECT_EQ((*j)["browser"]["launchOptions"]["headless"], true);
    EXPECT_EQ((*j)["network"]["allowedOrigins"], agentkit::json::array({"https://example.com"}));
    EXPECT_EQ((*j)["capabilities"], agentkit::json::array({"storage", "network"}));
    EXPECT_EQ((*j)["console"]["level"], "error");
    EXPECT_EQ((*j)["console"]["outputDir"], "./out");  // keys under a section are the section's
    for (const auto& [text, says] : std::vector<std::pair<std::string, std::string>>{
             {"just words", "line 1 is not key = value"},
             {"browser.contextOptions.viewport = big", "WIDTHxHEIGHT"},
             {"\ntimeouts.action = soon", "line 2: timeouts.action is a number"},
             {"browser.isolated = yes", "true or false"},
             {"a..b = 1", "not a dotted key"}}) {
        auto e = br::ini_config(text);
        ASSERT_FALSE(e) << text;
        EXPECT_NE(e.error().message.find(says), std::string::npos) << text << " -> " << e.error().message;
    }
}

TEST_F(ConfigFiles, AnIniConfigurationFileTakesEffectAsItsJsonWould) {
    br::server_config c;
    ASSERT_TRUE(parse({"--config", file("config.json", "browser.contextOptions.viewport = 640x480\ntimeouts.navigation = 54321\n")}, c));
    ASSERT_TRUE(br::finish_config(c));
    EXPECT_EQ(c.browser.viewport.width, 640);
    EXPECT_EQ(c.browser.viewport.height, 480);
    EXPECT_EQ(c.browser.navigation_timeout.count(), 54321);
    br::server_config named;
    ASSERT_TRUE(parse({"--config", file("c.ini", "[network]\nallowedOrigins = http://127.0.0.1:*\n")}, named));
    EXPECT_EQ(named.browser.policy.allowed_origins, std::vector<std::string>{"http://127.0.0.1:*"});
    br::server_config broken;  // JSON that is broken stays a JSON error
    auto b = parse({"--config", file("broken.json", "{\"browser\": ")}, broken);
    ASSERT_FALSE(b);
    EXPECT_NE(b.error().message.find("is not a JSON object"), std::string::npos) << b.error().message;
    br::server_config unknown;  // an INI key agentkit does not know is refused by name, as in JSON
    ASSERT_TRUE(parse({"--config", file("u.ini", "browser.contextOptions.httpCredentials = secret\n")}, unknown));
    auto u = br::finish_config(unknown);
    ASSERT_FALSE(u);
    EXPECT_NE(u.error().message.find("config key browser.contextOptions.httpCredentials"), std::string::npos) << u.error().message;
    // the page emulation keys: checked, then in force
    br::server_config page;
    ASSERT_TRUE(parse({"--config", file("p.ini", "browser.contextOptions.locale = fr-FR\nbrowser.contextOptions.timezoneId = Europe/Paris\n"
                                                 "browser.contextOptions.colorScheme = dark\nbrowser.contextOptions.javaScriptEnabled = false\n")},
                      page));
    EXPECT_EQ(page.browser.emulation.locale, "fr-FR");
    EXPECT_EQ(page.browser.emulation.timezone_id, "Europe/Paris");
    EXPECT_EQ(page.browser.emulation.media.color_scheme, "dark");
    EXPECT_FALSE(page.browser.emulation.javascript_enabled);
    const auto shown = br::playwright_config_json(page);
    EXPECT_EQ(shown["browser"]["contextOptions"]["locale"], "fr-FR");
    EXPECT_EQ(shown["browser"]["contextOptions"]["javaScriptEnabled"], false);
    for (const std::string bad : {"browser.contextOptions.locale = not a tag", "browser.contextOptions.timezoneId = Mars/Olympus_Mons",
                                  "browser.contextOptions.colorScheme = purple"}) {
        br::server_config refused;
        EXPECT_FALSE(parse({"--config", file("b.ini", bad + "\n")}, refused)) << bad;
    }
}

TEST_F(ConfigFiles, AConfigurationFilesProxyYieldsToTheCommandLines) {
    const std::string cfg = file("proxy.json", R"({"browser": {"contextOptions": {"proxy": {"server": "http://config-proxy:1", "bypass": "x.test"}}}})");
    br::server_config from_file;
    ASSERT_TRUE(parse({"--config", cfg}, from_file));
    ASSERT_TRUE(br::finish_config(from_file));
    const auto& a = from_file.browser.launch.extra_args;
    EXPECT_NE(std::find(a.begin(), a.end(), "--proxy-server=http://config-proxy:1"), a.end());
    EXPECT_NE(std::find(a.begin(), a.end(), "--proxy-bypass-list=x.test"), a.end());
    br::server_config both;
    ASSERT_TRUE(parse({"--config", cfg, "--proxy-server", "http://cli-proxy:2"}, both));
    ASSERT_TRUE(br::finish_config(both));
    const auto& b = both.browser.launch.extra_args;
    EXPECT_NE(std::find(b.begin(), b.end(), "--proxy-server=http://cli-proxy:2"), b.end());
    EXPECT_EQ(std::find(b.begin(), b.end(), "--proxy-server=http://config-proxy:1"), b.end());
    br::server_config wrong;
    ASSERT_FALSE(parse({"--config", file("bad.json", R"({"browser": {"contextOptions": {"proxy": "x"}}})")}, wrong));
}

TEST_F(ConfigFiles, DeviceMobileAndInitScripts) {
    br::server_config phone;
    ASSERT_TRUE(parse({"--device", "iPhone 15"}, phone));
    EXPECT_EQ(phone.browser.viewport.width, 393);
    EXPECT_EQ(phone.browser.viewport.height, 659);
    EXPECT_TRUE(phone.browser.viewport.mobile);
    EXPECT_TRUE(phone.browser.viewport.touch);
    EXPECT_EQ(phone.browser.viewport.device_scale_factor, 3);
    EXPECT_NE(phone.browser.viewport.user_agent.find("iPhone"), std::string::npos);
    br::server_config mobile;
    ASSERT_TRUE(parse({"--mobile"}, mobile));
    EXPECT_EQ(mobile.device, "Pixel 10");
    EXPECT_EQ(mobile.browser.viewport.width, 360);
    br::server_config unknown;
    auto u = parse({"--device", "Nokia 3310"}, unknown);
    ASSERT_FALSE(u);
    EXPECT_NE(u.error().message.find("no device called \"Nokia 3310\""), std::string::npos) << u.error().message;
    EXPECT_NE(u.error().hint.find("iPhone 15"), std::string::npos) << u.error().hint;
    br::server_config both;
    EXPECT_FALSE(parse({"--mobile", "--device", "Pixel 7"}, both));
    // init scripts: read at the start, in order; a missing one stops it
    br::server_config scripts;
    ASSERT_TRUE(parse({"--init-script", file("a.js", "window.a = 1;"), "--init-script", file("b.js", "window.b = 2;")}, scripts));
    EXPECT_EQ(scripts.browser.init_scripts, (std::vector<std::string>{"window.a = 1;", "window.b = 2;"}));
    br::server_config missing;
    auto m = parse({"--init-script", (dir_ / "none.js").string()}, missing);
    ASSERT_FALSE(m);
    EXPECT_NE(m.error().message.find("--init-script: cannot read"), std::string::npos) << m.error().message;
    // a configuration file's scripts are relative to it
    br::server_config from_file;
    file("c.js", "window.c = 3;");
    ASSERT_TRUE(parse({"--config", file("cfg.json", R"({"browser": {"initScript": ["c.js"]}})")}, from_file));
    EXPECT_EQ(from_file.browser.init_scripts, (std::vector<std::string>{"window.c = 3;"}));
}

TEST(FillField, TheKindIsAnEnumAndTheOldStringsStillMeanTheSame) {
    namespace b = agentkit::browser;
    static_assert(b::field_kind_named("checkbox") == b::field_kind::checkbox);
    static_assert(!b::field_kind_named("date").has_value());
    const b::fill_field typed{"e1", b::field_kind::radio, "true", "Yes"};
    EXPECT_EQ(static_cast<b::field_kind>(typed.kind), b::field_kind::radio);
    EXPECT_EQ(static_cast<b::field_kind>(b::fill_field{}.kind), b::field_kind::textbox);
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
    const b::fill_field old{"e2", "combobox", "Oslo", ""};
    const b::fill_field unknown{"e3", std::string("date"), "2026-12-01", ""};
    EXPECT_TRUE(old.kind == "combobox");  // code that compared strings still reads right
    EXPECT_FALSE(old.kind == "checkbox");
#pragma GCC diagnostic pop
    EXPECT_TRUE(typed.kind == b::field_kind::radio);
    EXPECT_EQ(static_cast<b::field_kind>(old.kind), b::field_kind::combobox);
    EXPECT_EQ(static_cast<b::field_kind>(unknown.kind), b::field_kind::textbox);  // typed, as any text field was
}

TEST(FindRef, ARoleAndAPartOfItsNameGiveTheRef) {
    namespace b = agentkit::browser;
    b::snapshot s;
    const auto line = [&](std::string text, std::string ref) {
        b::snapshot_line l;
        l.text = std::move(text);
        l.ref = std::move(ref);
        l.interactive = !l.ref.empty();
        s.lines.push_back(std::move(l));
    };
    line("heading \"Send a message\" [level=1]", "");
    line("textbox \"Message\"", "e1");
    line("button \"Send now\"", "e2");
    line("button \"Cancel\" [disabled]", "e3");
    line("buttonish \"Send\"", "e4");  // another role that starts alike
    line("link \"Send feedback\" -> /feedback", "e5");
    line("button", "e6");  // no name
    line("- clickable \"Large\"", "e7");  // a list's item
    line("e8 checkbox \"Remember me\"", "e8");  // the interactive-only view
    EXPECT_EQ(b::find_ref(s, "button", "send"), "e2");
    EXPECT_EQ(b::find_ref(s, "button", "CANCEL"), "e3");
    EXPECT_EQ(b::find_ref(s, "link", "feedback"), "e5");
    EXPECT_EQ(b::find_refs(s, "button"), (std::vector<std::string>{"e2", "e3", "e6"}));
    EXPECT_FALSE(b::find_ref(s, "button", "delete").has_value());
    EXPECT_FALSE(b::find_ref(s, "heading", "send").has_value());  // no ref: nothing to act on
    EXPECT_EQ(b::find_ref(s, "clickable", "large"), "e7");
    EXPECT_EQ(b::find_ref(s, "checkbox"), "e8");
    EXPECT_FALSE(b::find_ref(s, "radio").has_value());
}

TEST(ServerConfig, CdpEndpointDrivesTheDefaultContextUnlessIsolatedOrOneContextPerHttpSession) {
    auto reuse = [](std::vector<std::string> args) {
        br::server_config c;
        if (!parse(std::move(args), c)) return std::string("parse failed");
        auto f = br::finish_config(c);
        if (!f) return f.error().message;
        return std::string(c.browser.use_default_context ? "default" : "own");
    };
    EXPECT_EQ(reuse({"--cdp-endpoint", "http://127.0.0.1:9222"}), "default");
    EXPECT_EQ(reuse({"--cdp-endpoint", "http://127.0.0.1:9222", "--isolated"}), "own");
    EXPECT_EQ(reuse({"--cdp-endpoint", "http://127.0.0.1:9222", "--port", "0"}), "own");  // a context per HTTP session
    EXPECT_EQ(reuse({"--cdp-endpoint", "http://127.0.0.1:9222", "--port", "0", "--shared-browser-context"}), "default");
    EXPECT_EQ(reuse({}), "own");  // a browser launched here: a context of its own, always
}

TEST(ServerConfig, CdpHeadersAreTakenFromTheCommandLineAndTheFileAndBadOnesAreRefused) {
    br::server_config c;
    ASSERT_TRUE(parse({"--cdp-endpoint", "http://127.0.0.1:9222", "--cdp-header", "Authorization: Bearer 12345", "--cdp-header", "X-Empty"}, c));
    ASSERT_TRUE(br::finish_config(c));
    ASSERT_EQ(c.browser.cdp_headers.size(), 2U);
    EXPECT_EQ(c.browser.cdp_headers[0], (std::pair<std::string, std::string>{"Authorization", "Bearer 12345"}));
    EXPECT_EQ(c.browser.cdp_headers[1], (std::pair<std::string, std::string>{"X-Empty", ""}));

    br::server_config bad;
    auto b = parse({"--cdp-header", "Not a name: secret-value"}, bad);
    ASSERT_FALSE(b);
    EXPECT_NE(b.error().message.find("--cdp-header"), std::string::npos);
    EXPECT_EQ(b.error().message.find("secret-value"), std::string::npos) << "a header's value is never echoed";

    br::server_config alone;
    ASSERT_TRUE(parse({"--cdp-header", "X-A: 1"}, alone));
    ASSERT_TRUE(br::finish_config(alone));
    EXPECT_TRUE(std::any_of(alone.notes.begin(), alone.notes.end(),
                            [](const std::string& n) { return n.find("--cdp-header has no effect without --cdp-endpoint") != std::string::npos; }));
}

TEST_F(ConfigFiles, CdpHeadersInTheConfigFileAreAnObjectOfNamesAndValues) {
    br::server_config c;
    const auto path = file("c.json", R"({"browser": {"cdpEndpoint": "http://127.0.0.1:9222", "cdpHeaders": {"Authorization": "Bearer 1", "X-Empty": ""}}})");
    ASSERT_TRUE(parse({"--config", path}, c));
    ASSERT_TRUE(br::finish_config(c));
    ASSERT_EQ(c.browser.cdp_headers.size(), 2U);
    EXPECT_EQ(c.browser.cdp_headers[0].first, "Authorization");
    br::server_config bad;
    const auto wrong = file("w.json", R"({"browser": {"cdpHeaders": {"X-A": "one\r\nX-B: two"}}})");
    auto b = parse({"--config", wrong}, bad);
    ASSERT_FALSE(b);
    EXPECT_NE(b.error().message.find("browser.cdpHeaders.X-A"), std::string::npos) << b.error().message;
    EXPECT_EQ(b.error().message.find("two"), std::string::npos);
}

TEST_F(ConfigFiles, PlaywrightMcpEnvironmentVariablesSitBetweenTheConfigFileAndTheCommandLine) {
    using namespace std::chrono_literals;
    const auto cfg = file("c.json", R"({"timeouts": {"navigation": 30000, "action": 10000}})");
    {  // the environment's value over the file's
        br::server_config c;
        ASSERT_TRUE(parse({"--config", cfg}, c, env_of({{"PLAYWRIGHT_MCP_TIMEOUT_NAVIGATION", " 45000 "}})));
        EXPECT_EQ(c.browser.navigation_timeout, 45000ms);
        EXPECT_EQ(c.browser.call_timeout, 10000ms);  // the file's, untouched
    }
    {  // the command line's over the environment's, wherever it stands
        br::server_config c;
        ASSERT_TRUE(parse({"--timeout-navigation", "50000", "--config", cfg}, c, env_of({{"PLAYWRIGHT_MCP_TIMEOUT_NAVIGATION", "45000"}})));
        EXPECT_EQ(c.browser.navigation_timeout, 50000ms);
    }
    {  // PLAYWRIGHT_MCP_CONFIG when the command line names no file, not otherwise
        br::server_config c;
        ASSERT_TRUE(parse({}, c, env_of({{"PLAYWRIGHT_MCP_CONFIG", cfg}})));
        EXPECT_EQ(c.browser.call_timeout, 10000ms);
        const auto other = file("o.json", R"({"timeouts": {"action": 7000}})");
        br::server_config d;
        ASSERT_TRUE(parse({"--config", other}, d, env_of({{"PLAYWRIGHT_MCP_CONFIG", cfg}})));
        EXPECT_EQ(d.browser.call_timeout, 7000ms);
    }
}

TEST(ServerConfig, PlaywrightMcpSwitchesInTheEnvironmentAreTrueFalseOneOrZeroAndTheirValuesAreNeverEchoed) {
    br::server_config headed;
    ASSERT_TRUE(parse({"--headless"}, headed, env_of({{"PLAYWRIGHT_MCP_HEADLESS", "false"}})));
    EXPECT_TRUE(headed.browser.launch.headless);  // the command line wins
    br::server_config h2;
    ASSERT_TRUE(parse({}, h2, env_of({{"PLAYWRIGHT_MCP_HEADLESS", "0"}})));
    EXPECT_FALSE(h2.browser.launch.headless);
    br::server_config odd;
    ASSERT_TRUE(parse({}, odd, env_of({{"PLAYWRIGHT_MCP_ISOLATED", "yes"}})));
    EXPECT_FALSE(odd.isolated);
    EXPECT_TRUE(std::any_of(odd.notes.begin(), odd.notes.end(),
                            [](const std::string& n) { return n.find("PLAYWRIGHT_MCP_ISOLATED: not true, false, 1 or 0") != std::string::npos; }));

    br::server_config c;
    ASSERT_TRUE(parse({}, c, env_of({{"PLAYWRIGHT_MCP_CDP_ENDPOINT", "http://127.0.0.1:9222"},
                                     {"PLAYWRIGHT_MCP_CDP_HEADERS", "Authorization: Bearer sekrit"},
                                     {"PLAYWRIGHT_MCP_ISOLATED", "1"}})));
    ASSERT_TRUE(br::finish_config(c));
    ASSERT_EQ(c.browser.cdp_headers.size(), 1U);
    EXPECT_EQ(c.browser.cdp_headers[0].second, "Bearer sekrit");
    EXPECT_FALSE(c.browser.use_default_context);  // isolated
    bool named = false;
    for (const auto& n : c.notes) {
        EXPECT_EQ(n.find("sekrit"), std::string::npos) << n;
        named = named || n.find("PLAYWRIGHT_MCP_CDP_HEADERS") != std::string::npos;
    }
    EXPECT_TRUE(named);

    br::server_config refused;  // what cannot be honoured refuses the start, from the environment too
    ASSERT_TRUE(parse({}, refused, env_of({{"PLAYWRIGHT_MCP_INIT_PAGE", "setup.ts"}})));
    auto f = br::finish_config(refused);
    ASSERT_FALSE(f);
    EXPECT_NE(f.error().message.find("--init-page"), std::string::npos) << f.error().message;
}

TEST(ServerConfig, GrantPermissionsTakesACommaSeparatedListOfKnownNames) {
    br::server_config c;
    ASSERT_TRUE(parse({"--grant-permissions", "clipboard-read, clipboard-write,geolocation"}, c));
    ASSERT_TRUE(br::finish_config(c));
    EXPECT_EQ(c.browser.permissions, (std::vector<std::string>{"clipboard-read", "clipboard-write", "geolocation"}));
    auto types = br::permission_types(c.browser.permissions);
    ASSERT_TRUE(types);
    EXPECT_EQ(*types, (std::vector<std::string>{"clipboardReadWrite", "clipboardSanitizedWrite", "geolocation"}));
    br::server_config bad;
    ASSERT_TRUE(parse({"--grant-permissions", "clipboard-read,telepathy"}, bad));
    auto f = br::finish_config(bad);
    ASSERT_FALSE(f);
    EXPECT_NE(f.error().message.find("telepathy"), std::string::npos);
    EXPECT_NE(f.error().hint.find("geolocation"), std::string::npos);
}

TEST_F(ConfigFiles, PermissionsInTheConfigFileAreContextOptions) {
    br::server_config c;
    ASSERT_TRUE(parse({"--config", file("p.json", R"({"browser": {"contextOptions": {"permissions": ["notifications"]}}})")}, c));
    ASSERT_TRUE(br::finish_config(c));
    EXPECT_EQ(c.browser.permissions, std::vector<std::string>{"notifications"});
    br::server_config bad;
    EXPECT_FALSE(parse({"--config", file("q.json", R"({"browser": {"contextOptions": {"permissions": "notifications"}}})")}, bad));
}

TEST_F(ConfigFiles, PermissionsInAnIniFileAreItsList) {
    br::server_config c;
    ASSERT_TRUE(parse({"--config", file("p.ini", "browser.contextOptions.permissions = geolocation\n")}, c));
    ASSERT_TRUE(br::finish_config(c));
    EXPECT_EQ(c.browser.permissions, std::vector<std::string>{"geolocation"});
}

TEST(ServerConfig, DebugNamespacesAreReadAsNodesDebugPackageReadsThem) {
    EXPECT_TRUE(br::debug_enabled("pw:mcp:test", "pw:mcp:test"));
    EXPECT_TRUE(br::debug_enabled("pw:mcp:test,pw:mcp:backend", "pw:mcp:test"));
    EXPECT_TRUE(br::debug_enabled("other pw:mcp:*", "pw:mcp:test"));
    EXPECT_TRUE(br::debug_enabled("*", "pw:mcp:test"));
    EXPECT_TRUE(br::debug_enabled("pw:*:test", "pw:mcp:test"));
    EXPECT_FALSE(br::debug_enabled("", "pw:mcp:test"));
    EXPECT_FALSE(br::debug_enabled("pw:mcp", "pw:mcp:test"));           // a name is whole
    EXPECT_FALSE(br::debug_enabled("pw:mcp:testing", "pw:mcp:test"));
    EXPECT_FALSE(br::debug_enabled("pw:mcp:backend", "pw:mcp:test"));
    EXPECT_FALSE(br::debug_enabled("*,-pw:mcp:test", "pw:mcp:test"));  // a skip wins, wherever it is
    EXPECT_FALSE(br::debug_enabled("-pw:mcp:*, pw:mcp:test", "pw:mcp:test"));
    EXPECT_TRUE(br::debug_enabled("-pw:mcp:backend,pw:mcp:*", "pw:mcp:test"));
}
