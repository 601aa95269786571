// End-to-end tests of Playwright's layout (--output-mode playwright) against real headless
// Chromium on pages served on 127.0.0.1: the aria snapshot Playwright MCP writes (its lines and
// refs), actions through its refs and through CSS selectors, the locators its code names
// elements by, and the tools' results in its sections. The expected snapshots are what
// Playwright's own ariaSnapshot({mode: 'ai'}) gives for the same pages (checked with
// playwright-core 1.64 against the same Chromium).
#include <agentkit/agentkit.hpp>

#include "support/http_server.hpp"
#include "support/tool_text.hpp"

#include <gtest/gtest.h>

#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <regex>
#include <sstream>
#include <string>
#include <system_error>
#include <utility>

namespace ak = agentkit;
namespace br = agentkit::browser;
namespace errc = agentkit::errc;
using ak::json;
using agentkit::test::text_of;
using agentkit::test::http_response;
using agentkit::test::http_server;
using agentkit::test::page;

namespace {

// As --output-mode playwright sets them: aria refs, dialogs held until browser_handle_dialog
// (and `settle`: the least time an action waits, 500 ms there; 0 here unless a test needs it).
br::browser_options aria_options(std::chrono::milliseconds settle = std::chrono::milliseconds(0)) {
    br::browser_options o;
    o.aria_refs = true;
    o.dialogs.hold = true;
    o.min_settle = settle;
    return o;
}

std::string snap(br::browser& b, const br::aria_snapshot_options& o = {}) {
    auto s = b.aria_snapshot(o);
    EXPECT_TRUE(s) << (s ? "" : s.error().to_text());
    return s ? *s : std::string();
}

// A browser whose tools answer in Playwright's layout, writing their files under a workspace of
// their own (removed at the end, also when an assertion ends the test early).
struct pw_session {
    std::filesystem::path dir;
    br::browser b;
    br::bounded_artifacts store;
    br::tool_state st{b, store};
    decltype(br::browser_tools(std::declval<br::tool_state&>())) tools;
    ak::tool_context ctx;

    // `playwright`: Playwright's layout and aria refs; else agentkit's layout and refs
    explicit pw_session(const std::string& name, bool playwright = true, std::chrono::milliseconds settle = std::chrono::milliseconds(0))
        : dir(std::filesystem::temp_directory_path() / (name + "_" + std::to_string(::getpid()))),
          b(playwright ? aria_options(settle) : br::browser_options{}),
          tools(br::browser_tools(st)) {
        std::filesystem::create_directories(dir);
        if (playwright) st.options.output = br::output_mode::playwright;
        st.options.workspace = dir.string();
    }
    ~pw_session() {
        std::error_code ec;
        std::filesystem::remove_all(dir, ec);
    }
    pw_session(const pw_session&) = delete;
    pw_session& operator=(const pw_session&) = delete;
    ak::result<ak::tool_output> call(std::string_view name, const json& args) { return tools.call(name, args, ctx); }
};

}  // namespace

TEST(AriaE2E, SnapshotsReadAsPlaywrightWritesThem) {
    http_server server;
    server.route("/hello", http_response::html("<title>Title</title><body>Hello, world!</body>"));
    server.route("/button", http_response::html("<button>Submit</button>"));
    server.route("/link", http_response::html("<a href='/x'>Link</a><p>Para text</p>"));
    server.route("/form", http_response::html("<label for=i>First</label><input id=i placeholder='ph'>"
                                              "<ul><li>One</li><li>Two <a href='#'>link</a></li></ul>"));
    server.route("/table", http_response::html(
                               "<table><caption>Cap</caption><tr><th>H1</th><th>H2</th></tr><tr><td>a</td><td>b</td></tr></table>"));
    br::browser b(aria_options());
    ASSERT_TRUE(b.navigate(server.url("/hello")));
    EXPECT_EQ(snap(b), "- generic [active] [ref=e1]: Hello, world!");
    // a new document after a non-blank one: the main frame takes the next frame number
    ASSERT_TRUE(b.navigate(server.url("/button")));
    EXPECT_EQ(snap(b), "- button \"Submit\" [ref=f1e2]");
    ASSERT_TRUE(b.navigate(server.url("/link")));
    EXPECT_EQ(snap(b), "- generic [active] [ref=f2e1]:\n"
                       "  - link \"Link\" [ref=f2e2] [cursor=pointer]:\n"
                       "    - /url: /x\n"
                       "  - paragraph [ref=f2e3]: Para text");
    ASSERT_TRUE(b.navigate(server.url("/form")));
    EXPECT_EQ(snap(b), "- generic [active] [ref=f3e1]:\n"
                       "  - text: First\n"
                       "  - textbox \"First\" [ref=f3e2]:\n"
                       "    - /placeholder: ph\n"
                       "  - list [ref=f3e3]:\n"
                       "    - listitem [ref=f3e4]: One\n"
                       "    - listitem [ref=f3e5]:\n"
                       "      - text: Two\n"
                       "      - link \"link\" [ref=f3e6] [cursor=pointer]:\n"
                       "        - /url: \"#\"");
    ASSERT_TRUE(b.navigate(server.url("/table")));
    const std::string table = snap(b);
    EXPECT_NE(table.find("- table [ref=f4e2]:\n  - caption [ref=f4e3]: Cap\n"), std::string::npos) << table;
    EXPECT_NE(table.find("- columnheader \"H1\" [ref=f4e6]"), std::string::npos) << table;
    EXPECT_NE(table.find("- cell \"b\" [ref=f4e10]"), std::string::npos) << table;
    // depth: the list's items without their children
    br::aria_snapshot_options o;
    o.depth = 2;
    ASSERT_TRUE(b.navigate(server.url("/form")));
    const std::string shallow = snap(b, o);
    EXPECT_NE(shallow.find("    - listitem [ref=f5e5]"), std::string::npos) << shallow;
    EXPECT_EQ(shallow.find("- text: Two"), std::string::npos) << shallow;
}

TEST(AriaE2E, RefsAndSelectorsActAndNameTheirLocators) {
    http_server server;
    server.route("/", http_response::html(page("Form", R"HTML(
<input aria-label="Name" id="n">
<button onclick="document.getElementById('out').textContent = 'saved ' + document.getElementById('n').value">Save</button>
<button>Same</button><button>Same</button>
<button data-testid="go" onclick="this.textContent = 'went'">Go</button>
<p id="out">nothing yet</p>)HTML")));
    br::browser b(aria_options());
    ASSERT_TRUE(b.navigate(server.url("/")));
    const std::string s = snap(b);
    ASSERT_NE(s.find("- textbox \"Name\" [ref=e2]"), std::string::npos) << s;
    ASSERT_NE(s.find("- button \"Save\" [ref=e3]"), std::string::npos) << s;
    ASSERT_TRUE(b.type("e2", "Ann"));
    ASSERT_TRUE(b.click("e3"));
    EXPECT_NE(snap(b).find("paragraph [ref=e7]: saved Ann"), std::string::npos);
    // locators: unique role and name; a repeated one's first; a test id; a CSS selector as given
    auto save = b.aria_locator("e3");
    ASSERT_TRUE(save);
    EXPECT_EQ(br::pw::locator(*save, br::codegen_language::typescript), "getByRole('button', { name: 'Save' })");
    EXPECT_EQ(br::pw::locator(*save, br::codegen_language::python), "get_by_role(\"button\", name=\"Save\")");
    EXPECT_EQ(br::pw::locator(*save, br::codegen_language::csharp), "GetByRole(AriaRole.Button, new() { Name = \"Save\" })");
    auto same = b.aria_locator("e4");
    ASSERT_TRUE(same);
    EXPECT_EQ(br::pw::locator(*same, br::codegen_language::typescript), "getByRole('button', { name: 'Same' }).first()");
    auto second = b.aria_locator("e5");
    ASSERT_TRUE(second);
    EXPECT_EQ(br::pw::locator(*second, br::codegen_language::typescript), "getByRole('button', { name: 'Same' }).nth(1)");
    auto go = b.aria_locator("e6");
    ASSERT_TRUE(go);
    EXPECT_EQ(br::pw::locator(*go, br::codegen_language::typescript), "getByTestId('go')");
    ASSERT_TRUE(b.click("#out"));
    auto css = b.aria_locator("[data-testid=go]");
    ASSERT_TRUE(css);
    EXPECT_EQ(br::pw::locator(*css, br::codegen_language::typescript), "locator('[data-testid=go]')");
    ASSERT_TRUE(b.click("[data-testid=go]"));
    EXPECT_NE(snap(b).find("button \"went\""), std::string::npos);
    // a ref no snapshot gave, and a selector nothing matches: Playwright's words, and the session goes on
    auto missing = b.click("e99");
    ASSERT_FALSE(missing);
    EXPECT_EQ(missing.error().message, "Ref e99 not found in the current page snapshot. Try capturing new snapshot.");
    auto nothing = b.click("#nonexistent");
    ASSERT_FALSE(nothing);
    EXPECT_EQ(nothing.error().message, "\"#nonexistent\" does not match any elements.");
    EXPECT_FALSE(snap(b).empty());
}

TEST(AriaE2E, ToolsAnswerInPlaywrightsSections) {
    http_server server;
    server.route("/", http_response::html(page("Start", "<button onclick=\"document.title='Clicked'\">Press me</button>")));
    auto locked_page = http_response::html("<title>Payment Required</title><p>Pay up</p>");
    locked_page.status = 402;
    server.route("/locked", locked_page);
    pw_session session("agentkit_aria_e2e");
    const auto& dir = session.dir;
    auto call = [&](std::string_view name, const json& args) { return session.call(name, args); };

    const std::string nav = text_of(call("browser_navigate", {{"url", server.url("/")}}));
    EXPECT_NE(nav.find("### Ran Playwright code\n```js\nawait page.goto('" + server.url("/") + "');\n```\n### Page\n- Page URL: " +
                       server.url("/") + "\n- Page Title: Start\n### Snapshot\n- [Snapshot](.playwright-mcp/page-"),
              std::string::npos)
        << nav;
    std::smatch m;
    ASSERT_TRUE(std::regex_search(nav, m, std::regex(R"(\[Snapshot\]\((\.playwright-mcp/page-[0-9T-]+Z\.yml)\))")));
    std::ifstream file(dir / m[1].str());
    std::stringstream yaml;
    yaml << file.rdbuf();
    EXPECT_EQ(yaml.str(), "- button \"Press me\" [ref=e2]");

    const std::string click = text_of(call("browser_click", {{"target", "e2"}, {"element", "the button"}}));
    EXPECT_NE(click.find("await page.getByRole('button', { name: 'Press me' }).click();"), std::string::npos) << click;
    EXPECT_NE(click.find("- Page Title: Clicked"), std::string::npos) << click;

    const std::string snapshot = text_of(call("browser_snapshot", json::object()));
    EXPECT_NE(snapshot.find("### Snapshot\n```yaml\n- button \"Press me\" [active] [ref=e2]\n```"), std::string::npos) << snapshot;

    auto bad = call("browser_click", {{"target", "e42"}});
    ASSERT_TRUE(bad);
    EXPECT_TRUE(bad->is_error);
    EXPECT_EQ(text_of(bad), "### Error\nError: Ref e42 not found in the current page snapshot. Try capturing new snapshot.");

    const std::string locked = text_of(call("browser_navigate", {{"url", server.url("/locked")}}));
    EXPECT_NE(locked.find("- HTTP status: 402 Payment Required"), std::string::npos) << locked;

    auto file_url = call("browser_navigate", {{"url", "file:///etc/passwd"}});
    ASSERT_TRUE(file_url);
    EXPECT_NE(text_of(file_url).find("Error: Access to \"file:\" protocol is blocked. Attempted URL: \"file:///etc/passwd\""),
              std::string::npos);
}

TEST(AriaE2E, LogsAndScreenshotsInPlaywrightsForms) {
    http_server server;
    server.route("/api", http_response::json(R"({"ok":true})"));
    server.route("/", http_response::html(page("Logs", R"HTML(<p>Logs</p>
<script>console.log("hello log"); console.warn("careful"); fetch('/api').then(() => { console.error("after fetch"); document.body.insertAdjacentHTML('beforeend', '<p>fetched</p>'); });</script>)HTML")));
    pw_session session("agentkit_aria_logs");
    session.st.options.inline_screenshots = true;
    const auto& dir = session.dir;
    auto& b = session.b;
    auto call = [&](std::string_view name, const json& args) { return session.call(name, args); };

    const std::string nav = text_of(call("browser_navigate", {{"url", server.url("/")}}));
    br::wait_options fetched;
    fetched.text = "fetched";  // the page says so after its fetch and its last message
    ASSERT_TRUE(b.wait_for(fetched));
    // the console log file the results link to (each result: the lines new since the last one)
    // holds what the page logged
    const std::string snap = text_of(call("browser_snapshot", json::object()));
    const std::regex entries(R"(New console entries: (\.playwright-mcp/console-[0-9T-]+Z\.log)#L\d+(-L\d+)?)");
    std::smatch link;
    ASSERT_TRUE(std::regex_search(nav, link, entries) || std::regex_search(snap, link, entries)) << nav << "\n" << snap;
    std::ifstream log(dir / link[1].str());
    std::stringstream logged;
    logged << log.rdbuf();
    const std::string events = logged.str();
    EXPECT_NE(events.find("[LOG] hello log @ " + server.url("/") + ":"), std::string::npos) << events;
    EXPECT_NE(events.find("[ERROR] after fetch"), std::string::npos) << events;

    const std::string console = text_of(call("browser_console_messages", json::object()));
    EXPECT_NE(console.find("### Result\nTotal messages: 3 (Errors: 1, Warnings: 1)\n\n[LOG] hello log @ "), std::string::npos) << console;
    const std::string errors = text_of(call("browser_console_messages", {{"level", "error"}}));
    EXPECT_NE(errors.find("Returning 1 messages for level \"error\""), std::string::npos) << errors;
    EXPECT_EQ(errors.find("hello log"), std::string::npos) << errors;

    const std::string network = text_of(call("browser_network_requests", json::object()));
    EXPECT_NE(network.find(". [GET] " + server.url("/api") + " => [200] OK"), std::string::npos) << network;
    EXPECT_EQ(network.find("[GET] " + server.url("/") + " =>"), std::string::npos) << "the document is static: " << network;
    EXPECT_NE(network.find("static request"), std::string::npos) << network;
    const std::string all = text_of(call("browser_network_requests", {{"static", true}}));
    EXPECT_NE(all.find("1. [GET] " + server.url("/") + " => [200] OK"), std::string::npos) << all;

    auto shot = call("browser_take_screenshot", {{"type", "jpeg"}});
    ASSERT_TRUE(shot);
    const std::string text = text_of(shot);
    std::smatch m;
    ASSERT_TRUE(std::regex_search(text, m, std::regex(R"(- \[Screenshot of viewport\]\((\.playwright-mcp/page-[0-9T-]+Z\.jpeg)\))"))) << text;
    EXPECT_GT(std::filesystem::file_size(dir / m[1].str()), 1000u);
    EXPECT_NE(text.find("await page.screenshot({\n  path: '" + m[1].str() + "',\n  quality: 90,\n  scale: 'css',\n  type: 'jpeg'\n});"),
              std::string::npos)
        << text;
    bool image = false;
    for (const auto& c : shot->content) image = image || c.type == ak::content_block::kind::image;
    EXPECT_TRUE(image);
    auto outside = call("browser_take_screenshot", {{"filename", "/etc/shot.png"}});
    ASSERT_TRUE(outside);
    EXPECT_TRUE(outside->is_error);
    EXPECT_NE(text_of(outside).find("File access denied: /etc/shot.png is outside allowed roots."), std::string::npos) << text_of(outside);
}

// browser_find and the testing tools on a page of their own patterns: nested landmarks, a form of
// every kind of value, a list, text with quotes, a same-origin frame, hidden text.
namespace {
const char* kSettingsPage = R"HTML(
<header><nav aria-label="Top"><a href="/a">Account</a> <a href="/b">Billing</a></nav></header>
<main>
  <section aria-label="Profile">
    <h2>Profile</h2>
    <label>Nickname <input value="zed"></label>
    <label><input type="checkbox" checked> Newsletter</label>
    <div role="checkbox" aria-checked="false" tabindex="0">Dark mode</div>
    <select aria-label="Plan"><option value="f">Free</option><option value="p" selected>Pro</option></select>
    <textarea aria-label="Bio">hello there</textarea>
  </section>
  <ol aria-label="Steps"><li>Sign up</li><li>Confirm email</li><li>Pick a plan</li></ol>
  <p>Quote: it's "fine"</p>
  <iframe srcdoc="<button>Inner action</button>"></iframe>
  <div hidden>Secret hidden words</div>
</main>)HTML";

// The ref on the first line of `text` that holds `what`.
std::string ref_on_line(const std::string& text, const std::string& what) {
    std::istringstream in(text);
    std::smatch m;
    static const std::regex ref(R"(\[ref=([a-z0-9]+)\])");
    for (std::string line; std::getline(in, line);)
        if (line.find(what) != std::string::npos && std::regex_search(line, m, ref)) return m[1].str();
    return {};
}

// How many lines of `text` hold `what`, case-insensitively (ASCII).
std::size_t lines_holding(const std::string& text, const std::string& what) {
    std::istringstream in(text);
    std::size_t n = 0;
    for (std::string line; std::getline(in, line);) n += ak::ascii_lower(line).find(ak::ascii_lower(what)) != std::string::npos;
    return n;
}
}  // namespace

TEST(AriaE2E, FindSearchesTheSnapshotInBothLayouts) {
    http_server server;
    server.route("/", http_response::html(page("Settings", kSettingsPage)));
    for (const bool playwright : {true, false}) {
        SCOPED_TRACE(playwright ? "Playwright's layout" : "agentkit's layout");
        pw_session ses(playwright ? "find_pw" : "find_ak", playwright);
        ASSERT_TRUE(ses.call("browser_navigate", {{"url", server.url("/")}}));
        const std::string snapshot = text_of(ses.call("browser_snapshot", json::object()));
        // text: case-insensitive, one match per line holding it, its neighbours around it
        const std::string found = text_of(ses.call("browser_find", {{"text", "CONFIRM"}}));
        EXPECT_NE(found.find("Found 1 match for \"CONFIRM\":"), std::string::npos) << found;
        EXPECT_NE(found.find("Sign up"), std::string::npos) << found;
        EXPECT_NE(found.find("Pick a plan"), std::string::npos) << found;
        EXPECT_EQ(found.find("Billing"), std::string::npos) << "far from the match: " << found;
        // a regex: case-sensitive unless /i; as many matches as lines of the snapshot hold it
        const std::size_t plans = lines_holding(snapshot, "plan");
        ASSERT_GE(plans, 2U) << snapshot;
        const std::string re = text_of(ses.call("browser_find", {{"regex", "/PLAN/i"}}));
        EXPECT_NE(re.find("Found " + std::to_string(plans) + " matches for /PLAN/i:"), std::string::npos) << re << "\n" << snapshot;
        EXPECT_NE(text_of(ses.call("browser_find", {{"regex", "PLAN"}})).find("No matches found for /PLAN/."), std::string::npos);
        // what the page hides is not in the snapshot, so not found
        EXPECT_NE(text_of(ses.call("browser_find", {{"text", "secret hidden"}})).find("No matches found"), std::string::npos);
        // refused: nothing to search for, both, a pattern JavaScript refuses; the session goes on
        for (const json& bad : {json::object(), json{{"text", "a"}, {"regex", "a"}}, json{{"regex", "(unclosed"}}}) {
            auto r = ses.call("browser_find", bad);
            const std::string t = text_of(r);
            EXPECT_TRUE(!r || r->is_error) << bad.dump() << ": " << t;
        }
        EXPECT_NE(text_of(ses.call("browser_find", {{"regex", "(unclosed"}})).find("Invalid regular expression"), std::string::npos);
        const std::size_t news = lines_holding(snapshot, "newsletter");
        EXPECT_NE(text_of(ses.call("browser_find", {{"text", "newsletter"}})).find("Found " + std::to_string(news) + " match"), std::string::npos);
        if (!playwright) {  // agentkit's layout: the snippets are page data, inside the marks
            EXPECT_NE(found.find("<<page-data"), std::string::npos) << found;
            EXPECT_LT(found.find("Found 1 match"), found.find("<<page-data")) << found;
        }
    }
}

TEST(AriaE2E, TestingToolsAssertWhatThePageShowsInBothLayouts) {
    http_server server;
    server.route("/", http_response::html(page("Settings", kSettingsPage)));
    for (const bool playwright : {true, false}) {
        SCOPED_TRACE(playwright ? "Playwright's layout" : "agentkit's layout");
        pw_session ses(playwright ? "verify_pw" : "verify_ak", playwright);
        ASSERT_TRUE(ses.call("browser_navigate", {{"url", server.url("/")}}));
        const std::string snapshot = text_of(ses.call("browser_snapshot", json::object()));
        auto ok = [&](std::string_view tool, const json& args) {
            auto r = ses.call(tool, args);
            EXPECT_TRUE(r && !r->is_error) << tool << " " << args.dump() << ": " << text_of(r);
            return text_of(r);
        };
        auto refused = [&](std::string_view tool, const json& args) {
            auto r = ses.call(tool, args);
            EXPECT_TRUE(!r || r->is_error) << tool << " " << args.dump() << ": " << text_of(r);
            return text_of(r);
        };
        // an element by role and a part of its name, case-insensitive, also inside a frame
        const std::string inner = ok("browser_verify_element_visible", {{"role", "button"}, {"accessibleName", "inner ACTION"}});
        const std::string heading = ok("browser_verify_element_visible", {{"role", "heading"}, {"accessibleName", "Profile"}});
        EXPECT_NE(refused("browser_verify_element_visible", {{"role", "link"}, {"accessibleName", "Profile"}})
                      .find("Element with role \"link\" and accessible name \"Profile\" not found"),
                  std::string::npos);
        // text: visible text only
        const std::string quote = ok("browser_verify_text_visible", {{"text", "it's \"fine\""}});
        EXPECT_NE(refused("browser_verify_text_visible", {{"text", "Secret hidden words"}}).find("Text not found"), std::string::npos);
        // values: an input, a select (its value, not its label), a textarea, a checkbox, an aria checkbox
        const std::string nick = ref_on_line(snapshot, "Nickname"), plan = ref_on_line(snapshot, "Plan"), bio = ref_on_line(snapshot, "Bio");
        const std::string news = ref_on_line(snapshot, "Newsletter"), dark = ref_on_line(snapshot, "Dark mode");
        const std::string steps = ref_on_line(snapshot, "Steps");  // agentkit's snapshot gives a plain list no ref
        ASSERT_TRUE(!nick.empty() && !plan.empty() && !bio.empty() && !news.empty() && !dark.empty() && (!steps.empty() || !playwright))
            << snapshot;
        const std::string nick_ok = ok("browser_verify_value", {{"type", "textbox"}, {"ref", nick}, {"value", "zed"}});
        ok("browser_verify_value", {{"type", "combobox"}, {"target", plan}, {"value", "p"}});
        ok("browser_verify_value", {{"type", "textbox"}, {"ref", bio}, {"value", "hello there"}});
        ok("browser_verify_value", {{"type", "checkbox"}, {"ref", news}, {"value", "true"}});
        const std::string dark_off = ok("browser_verify_value", {{"type", "checkbox"}, {"ref", dark}, {"value", "false"}});
        EXPECT_NE(refused("browser_verify_value", {{"type", "textbox"}, {"ref", nick}, {"value", "zoe"}}).find("Expected value \"zoe\", but got"),
                  std::string::npos);
        EXPECT_NE(refused("browser_verify_value", {{"type", "checkbox"}, {"ref", nick}, {"value", "true"}}).find("Not a checkbox or radio button"),
                  std::string::npos);
        // a list: each item's text, in the list only
        auto in_list = [&](std::vector<std::string> items) {  // no ref: the whole page
            json args = {{"items", std::move(items)}};
            if (!steps.empty()) args["ref"] = steps;
            return args;
        };
        const std::string list = ok("browser_verify_list_visible", in_list({"sign up", "Pick a plan"}));
        EXPECT_NE(refused("browser_verify_list_visible", in_list({"Sign up", "Cancel"})).find("Item \"Cancel\" not found"), std::string::npos);
        if (!steps.empty()) {  // in the list only: the page has "Billing" outside it
            EXPECT_NE(refused("browser_verify_list_visible", {{"ref", steps}, {"items", {"Billing"}}}).find("Item \"Billing\" not found"),
                      std::string::npos);
        }
        const std::string locator = ok("browser_generate_locator", {{"ref", nick}});
        EXPECT_NE(locator.find("getByRole('textbox', { name: 'Nickname' })"), std::string::npos) << locator;
        if (playwright) {  // Playwright's layout: "Done" and the test code of each assertion
            EXPECT_NE(inner.find("### Result\nDone"), std::string::npos) << inner;
            EXPECT_NE(inner.find("await expect(page.locator('iframe').contentFrame().getByRole('button', { name: 'Inner action' })).toBeVisible();"),
                      std::string::npos) << inner;
            EXPECT_NE(heading.find("await expect(page.getByRole('heading', { name: 'Profile' })).toBeVisible();"), std::string::npos) << heading;
            EXPECT_NE(quote.find("await expect(page.getByText('Quote: it\\'s \"fine\"')).toBeVisible();"), std::string::npos) << quote;
            EXPECT_NE(nick_ok.find("await expect(page.getByRole('textbox', { name: 'Nickname' })).toHaveValue('zed');"), std::string::npos) << nick_ok;
            EXPECT_NE(dark_off.find(").not.toBeChecked();"), std::string::npos) << dark_off;
            EXPECT_NE(list.find("toMatchAriaSnapshot(`\n  - list:\n    - listitem: \"Sign up\"\n    - listitem: \"Pick a plan\"\n  `);"),
                      std::string::npos) << list;
            const std::string wrong = refused("browser_verify_value", {{"type", "textbox"}, {"ref", nick}, {"value", "zoe"}});
            EXPECT_NE(wrong.find("### Error\nExpected value \"zoe\", but got \"zed\""), std::string::npos) << wrong;
        } else {  // agentkit's: a line saying what held; the page's words quoted as page data
            EXPECT_NE(inner.find("verified: "), std::string::npos) << inner;
            EXPECT_EQ(inner.find("await expect"), std::string::npos) << inner;
            EXPECT_NE(locator.find("<<page-data"), std::string::npos) << locator;
        }
    }
}

// Dialogs held open (dialog_policy::hold, as --output-mode playwright holds them): the action
// that raised one ends at it and lists it as open, the page waits for its answer (a call to it
// answers at once instead of hanging), and browser_handle_dialog answers it, then the next.
TEST(AriaE2E, DialogsHeldOpenUntilAnsweredAndCallsDoNotHangMeanwhile) {
    http_server server;
    server.route("/", http_response::html(page("Dialogs", R"HTML(
<button id="ask" onclick="document.getElementById('out').textContent = 'answer: ' + confirm('Delete all?')">Ask</button>
<button id="name" onclick="document.getElementById('out').textContent = 'name: ' + prompt('Your name?', 'anon')">Name</button>
<button id="later" onclick="setTimeout(() => { alert('Later one'); document.getElementById('out').textContent = 'after later'; }, 200)">Later</button>
<button id="two" onclick="alert('First'); alert('Second'); document.getElementById('out').textContent = 'both seen'">Two</button>
<p id="out">nothing</p>)HTML")));
    // the engine: an action ends at the dialog; calls meanwhile answer at once
    {
        br::browser b(aria_options());
        ASSERT_TRUE(b.navigate(server.url("/")));
        ASSERT_FALSE(snap(b).empty());
        auto clicked = b.click("#ask");
        ASSERT_TRUE(clicked) << clicked.error().to_text();
        ASSERT_EQ(clicked->dialogs.size(), 1U);
        EXPECT_TRUE(clicked->dialogs[0].open);
        EXPECT_EQ(clicked->dialogs[0].type, "confirm");
        EXPECT_EQ(clicked->dialogs[0].message, "Delete all?");
        ASSERT_EQ(b.open_dialogs().size(), 1U);
        auto held = b.aria_snapshot();
        ASSERT_FALSE(held);
        EXPECT_TRUE(held.error().is(errc::dialog_open)) << held.error().to_text();
        auto answered = b.answer_dialog(false);
        ASSERT_TRUE(answered) << answered.error().to_text();
        EXPECT_TRUE(b.open_dialogs().empty());
        EXPECT_NE(snap(b).find("answer: false"), std::string::npos);
        auto none = b.answer_dialog(true);
        ASSERT_FALSE(none);
        EXPECT_TRUE(none.error().is(errc::not_found));
    }
    // the tools in Playwright's layout
    pw_session ses("dialogs_pw", true, std::chrono::milliseconds(500));
    ASSERT_TRUE(ses.call("browser_navigate", {{"url", server.url("/")}}));
    const std::string name_click = text_of(ses.call("browser_click", {{"target", "#name"}}));
    EXPECT_NE(name_click.find("### Modal state\n- [\"prompt\" dialog with message \"Your name?\"]: can be handled by browser_handle_dialog"),
              std::string::npos)
        << name_click;
    EXPECT_EQ(name_click.find("### Snapshot"), std::string::npos) << name_click;
    auto refused = ses.call("browser_snapshot", json::object());
    ASSERT_TRUE(refused);
    EXPECT_TRUE(refused->is_error);
    EXPECT_NE(text_of(refused).find("Error: Tool \"browser_snapshot\" does not handle the modal state."), std::string::npos) << text_of(refused);
    EXPECT_NE(text_of(refused).find("### Modal state"), std::string::npos) << text_of(refused);
    const std::string answered = text_of(ses.call("browser_handle_dialog", {{"accept", true}, {"promptText", "Ada"}}));
    EXPECT_EQ(answered.find("### Modal state"), std::string::npos) << answered;
    EXPECT_NE(text_of(ses.call("browser_snapshot", json::object())).find("name: Ada"), std::string::npos);
    // a dialog a timer raises 200 ms after the click is in the click's result (the settle wait)
    const std::string later = text_of(ses.call("browser_click", {{"target", "#later"}}));
    EXPECT_NE(later.find("\"alert\" dialog with message \"Later one\""), std::string::npos) << later;
    ASSERT_TRUE(ses.call("browser_handle_dialog", {{"accept", true}}));
    // one after the other: answering the first shows the second
    const std::string first = text_of(ses.call("browser_click", {{"target", "#two"}}));
    EXPECT_NE(first.find("message \"First\""), std::string::npos) << first;
    const std::string second = text_of(ses.call("browser_handle_dialog", {{"accept", true}}));
    EXPECT_NE(second.find("message \"Second\""), std::string::npos) << second;
    const std::string done = text_of(ses.call("browser_handle_dialog", {{"accept", true}}));
    EXPECT_EQ(done.find("### Modal state"), std::string::npos) << done;
    EXPECT_NE(text_of(ses.call("browser_snapshot", json::object())).find("both seen"), std::string::npos);
    // nothing open: the words Playwright's tool uses, and the session goes on
    auto nothing = ses.call("browser_handle_dialog", {{"accept", true}});
    ASSERT_TRUE(nothing);
    EXPECT_TRUE(nothing->is_error);
    EXPECT_NE(text_of(nothing).find("can only be used when there is related modal state present"), std::string::npos) << text_of(nothing);
    EXPECT_NE(text_of(ses.call("browser_snapshot", json::object())).find("button \"Ask\""), std::string::npos);
}

// Screenshots in Playwright's layout: CSS pixels unless scale is device; the model's copy shrunk
// to what a model takes whole (1568 px a side, 1.15 MP), the file whole.
TEST(AriaE2E, ScreenshotsInCssOrDevicePixelsAndTheModelsCopyWithinItsBounds) {
    http_server server;
    server.route("/", http_response::html(page("Wide", "<body style='margin:0;width:2600px;height:300px;background:#36c'>wide</body>")));
    br::browser_options o = aria_options();
    o.viewport.width = 500;
    o.viewport.height = 300;
    o.viewport.device_scale_factor = 2;
    pw_session ses("shots_pw");
    ses.st.options.inline_screenshots = true;  // as --output-mode playwright without --image-responses
    auto image_of = [](const ak::result<ak::tool_output>& r) {
        br::detail::image_size px;
        if (r)
            for (const auto& c : r->content)
                if (c.type == ak::content_block::kind::image) px = br::detail::image_size_of(c.text);
        return px;
    };
    // the engine: device pixels by default, CSS pixels when asked, shrunk to bounds when asked
    br::browser b(o);
    ASSERT_TRUE(b.navigate(server.url("/")));
    auto device = b.screenshot();
    ASSERT_TRUE(device) << device.error().to_text();
    EXPECT_EQ(br::detail::image_size_of(device->base64).width, 1000U);
    EXPECT_DOUBLE_EQ(device->scale, 2);
    br::screenshot_options css;
    css.css_pixels = true;
    auto in_css = b.screenshot(css);
    ASSERT_TRUE(in_css);
    EXPECT_EQ(br::detail::image_size_of(in_css->base64).width, 500U);
    EXPECT_DOUBLE_EQ(in_css->scale, 1);
    br::screenshot_options capped;
    capped.full_page = true;
    capped.css_pixels = true;
    capped.max_side = 1000;
    auto small = b.screenshot(capped);
    ASSERT_TRUE(small);
    const auto sp = br::detail::image_size_of(small->base64);
    EXPECT_EQ(sp.width, 1000U);  // 2600 x 300 CSS px, shrunk to 1000 on its long side
    EXPECT_NEAR(sp.height, 300.0 * 1000 / 2600, 1.5);
    // the tool: the full page file keeps its 2600 px; the model's copy is within 1568 px
    ASSERT_TRUE(ses.call("browser_navigate", {{"url", server.url("/")}}));
    auto shot = ses.call("browser_take_screenshot", {{"fullPage", true}});
    ASSERT_TRUE(shot && !shot->is_error) << text_of(shot);
    EXPECT_LE(image_of(shot).width, 1568U);
    EXPECT_GT(image_of(shot).width, 1000U);
    std::smatch m;
    const std::string text = text_of(shot);
    ASSERT_TRUE(std::regex_search(text, m, std::regex(R"(\]\((\.playwright-mcp/page-[0-9T-]+Z\.png)\))"))) << text;
    std::ifstream file(ses.dir / m[1].str(), std::ios::binary);
    std::string bytes((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
    EXPECT_EQ(br::detail::image_size_of(ak::base64_encode(bytes)).width, 2600U);
    // an empty file name is no name: the file gets the automatic one, the image comes back
    auto unnamed = ses.call("browser_take_screenshot", {{"filename", ""}});
    ASSERT_TRUE(unnamed && !unnamed->is_error) << text_of(unnamed);
    EXPECT_GT(image_of(unnamed).width, 0U);
    EXPECT_NE(text_of(unnamed).find("scale: 'css'"), std::string::npos) << text_of(unnamed);
    EXPECT_NE(text_of(ses.call("browser_take_screenshot", {{"scale", "device"}})).find("scale: 'device'"), std::string::npos);
}

// browser_network_request: one request of the list in full or one part, in both layouts; the
// browser's own favicon fetch is no request of the page; credentials in headers are hidden.
TEST(AriaE2E, NetworkRequestShowsOneRequestInFullOrOnePartInBothLayouts) {
    http_server server;
    server.route("/", http_response::html(page("Net", R"HTML(<p id="s">start</p>
<script>
  fetch('/data.json').then(r => r.json()).then(() =>
    fetch('/submit', { method: 'POST', headers: { 'X-Trace': 'abc', 'Authorization': 'Bearer tok123' }, body: 'a=1&b=two' }))
  .then(() => fetch('/pic.gif')).then(r => r.arrayBuffer()).then(() => { document.getElementById('s').textContent = 'all fetched'; });
</script>)HTML")));
    server.route("/data.json", http_response::json(R"({"items":[1,2]})"));
    server.route("/submit", http_response::text("thanks"));
    http_response gif;
    gif.content_type = "image/gif";
    gif.body = std::string("GIF89a\x01\x00\x01\x00\x00\x00\x00;", 14);
    gif.headers.emplace_back("X-Served-By", "test");
    server.route("/pic.gif", gif);
    for (const bool playwright : {true, false}) {
        SCOPED_TRACE(playwright ? "Playwright's layout" : "agentkit's layout");
        pw_session ses(playwright ? "netreq_pw" : "netreq_ak", playwright);
        ASSERT_TRUE(ses.call("browser_navigate", {{"url", server.url("/")}}));
        br::wait_options fetched;
        fetched.text = "all fetched";
        ASSERT_TRUE(ses.b.wait_for(fetched));
        const std::string list = text_of(ses.call("browser_network_requests", {{"static", true}}));
        EXPECT_EQ(list.find("favicon.ico"), std::string::npos) << list;
        auto number_of = [&](const std::string& path) {
            std::smatch m;
            const std::regex line("(\\d+)\\. \\[?[A-Z]+\\]? " + server.url(path));
            return std::regex_search(list, m, line) ? std::stoi(m[1].str()) : 0;
        };
        const int submit = number_of("/submit"), data = number_of("/data.json"), pic = number_of("/pic.gif");
        ASSERT_TRUE(submit > 0 && data > 0 && pic > 0) << list;
        const std::string full = text_of(ses.call("browser_network_request", {{"index", submit}}));
        EXPECT_NE(full.find("#" + std::to_string(submit) + " [POST] " + server.url("/submit")), std::string::npos) << full;
        EXPECT_NE(full.find("status:    [200] OK"), std::string::npos) << full;
        EXPECT_NE(full.find("x-trace: abc"), std::string::npos) << full;
        EXPECT_NE(full.find("authorization: (hidden: 13 characters)"), std::string::npos) << full;
        EXPECT_EQ(full.find("tok123"), std::string::npos) << full;
        EXPECT_NE(full.find("part=\"request-body\""), std::string::npos) << full;
        EXPECT_EQ(full.find("a=1&b=two"), std::string::npos) << "bodies only by part: " << full;
        EXPECT_NE(text_of(ses.call("browser_network_request", {{"index", submit}, {"part", "request-body"}})).find("a=1&b=two"), std::string::npos);
        EXPECT_NE(text_of(ses.call("browser_network_request", {{"index", data}, {"part", "response-body"}})).find(R"({"items":[1,2]})"),
                  std::string::npos);
        EXPECT_NE(text_of(ses.call("browser_network_request", {{"index", pic}, {"part", "response-headers"}})).find("x-served-by: test"),
                  std::string::npos);
        const std::string bytes = text_of(ses.call("browser_network_request", {{"index", pic}, {"part", "response-body"}}));
        if (playwright) {  // bytes go to a file in the output directory, the result is its path
            std::smatch m;
            ASSERT_TRUE(std::regex_search(bytes, m, std::regex(R"((\.playwright-mcp/response-[0-9T-]+Z\.gif))"))) << bytes;
            std::ifstream in(ses.dir / m[1].str(), std::ios::binary);
            const std::string got((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
            EXPECT_EQ(got, gif.body);
        } else {  // to an artifact
            EXPECT_NE(bytes.find("14 bytes of image/gif: artifact "), std::string::npos) << bytes;
        }
        auto missing = ses.call("browser_network_request", {{"index", 999}});
        EXPECT_TRUE(!missing || missing->is_error);
        EXPECT_NE(text_of(missing).find("Request #999 not found"), std::string::npos) << text_of(missing);
    }
}
