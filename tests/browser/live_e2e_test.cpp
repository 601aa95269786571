// The live view end to end (label e2e): agentkit-browser-mcp started with --dashboard and
// driven through the MCP client over stdio (the agent's browser: headless Chromium), the
// dashboard opened in a second headless Chromium that the test drives over CDP (the
// person). Pages are served on 127.0.0.1. Every wait is woken by an event (the dashboard
// page announces each change with an 'agentkit:update' event) and bounded.
#include <agentkit/browser/live/dashboard.hpp>

#include <agentkit/browser.hpp>
#include <agentkit/mcp/client/client.hpp>
#include <agentkit/mcp/client/stdio.hpp>
#include <agentkit/net/http_server.hpp>
#include "support/flag.hpp"
#include "support/snapshot_refs.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <future>
#include <memory>
#include <sstream>
#include <string>
#include <thread>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

namespace ak = agentkit;
namespace br = agentkit::browser;
namespace mcp = agentkit::mcp;
using ak::json;
using namespace std::chrono_literals;

namespace {

/// One raw HTTP/1.1 request to 127.0.0.1:port with exactly these headers; the status and the
/// whole response.
std::pair<int, std::string> raw_get(int port, const std::string& target, const std::vector<std::string>& headers) {
    const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_port = htons(static_cast<std::uint16_t>(port));
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) {
        ::close(fd);
        return {0, ""};
    }
    timeval tv{10, 0};
    ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    std::string req = "GET " + target + " HTTP/1.1\r\n";
    for (const auto& h : headers) req += h + "\r\n";
    req += "Connection: close\r\n\r\n";
    (void)!::send(fd, req.data(), req.size(), MSG_NOSIGNAL);
    std::string out;
    char buf[8192];
    for (;;) {
        const ssize_t n = ::recv(fd, buf, sizeof buf, 0);
        if (n <= 0) break;
        out.append(buf, static_cast<std::size_t>(n));
        if (out.find("\r\n\r\n") != std::string::npos && out.rfind("HTTP/1.1 101", 0) == 0) break;  // an upgrade stays open
    }
    ::close(fd);
    int status = 0;
    if (out.size() > 12) status = std::atoi(out.substr(9, 3).c_str());
    return {status, out};
}

/// A promise, evaluated in the dashboard page, that resolves true as soon as `cond` holds
/// (checked at once and on every 'agentkit:update'), false after `ms`.
std::string until(const std::string& cond, int ms = 15000) {
    return "new Promise((res) => { const s = window.agentkitLive; const check = () => { try { return !!(" + cond +
           "); } catch (e) { return false; } }; if (check()) return res(true); let f; const t = setTimeout(() => { "
           "document.removeEventListener('agentkit:update', f); res(false); }, " + std::to_string(ms) +
           "); f = () => { if (check()) { clearTimeout(t); document.removeEventListener('agentkit:update', f); res(true); } }; "
           "document.addEventListener('agentkit:update', f); })";
}

/// The agent's site: a big button whose text changes when clicked, and a second page.
struct site {
    ak::net::http_server server;
    site() {
        server.route("/", ak::net::http_response::html(
                              "<!doctype html><html><head><title>Shop</title><style>body{margin:0}"
                              "#buy{position:absolute;left:0;top:0;width:600px;height:300px;font-size:40px}</style></head>"
                              "<body><button id=buy onclick=\"this.textContent='clicked by a person'\">Buy now</button></body></html>"));
        server.route("/two", ak::net::http_response::html(
                                 "<!doctype html><html><head><title>Second</title></head><body style='background:#0a0'>"
                                 "<h1>The second page</h1></body></html>"));
        EXPECT_TRUE(server.start());
    }
};

std::string slurp(const std::string& path) {
    std::ifstream in(path);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
}

/// The viewer: a second headless Chromium, driven by the browser engine over CDP.
br::browser viewer_browser() {
    br::browser_options o;
    o.allow_evaluate = true;
    o.viewport.width = 1600;
    o.viewport.height = 1000;
    return br::browser(o);
}

json eval(br::browser& b, const std::string& js) {
    auto r = b.evaluate(js);
    EXPECT_TRUE(r) << (r ? "" : r.error().to_text());
    return r ? r->value : json();
}

}  // namespace

TEST(LiveViewE2E, WatchPauseTakeControlAndHandBackThroughTheDashboard) {
    site s;
    mcp::stdio_server prog;
    prog.command = AGENTKIT_TEST_BROWSER_MCP;
    prog.args = {"--headless", "--dashboard"};
    mcp::client_options co;
    co.server_name = "agent";
    auto client = mcp::client::connect(std::make_unique<mcp::stdio_client_transport>(prog), co);
    ASSERT_TRUE(client) << client.error().to_text();
    auto& c = **client;

    // browser_dashboard is offered and gives the URL that stderr names (never stdout)
    auto tools = c.list_tools();
    ASSERT_TRUE(tools);
    EXPECT_TRUE(std::any_of(tools->begin(), tools->end(), [](const ak::tool_info& t) { return t.name == "browser_dashboard"; }));
    auto dash = c.call_tool("browser_dashboard", json::object());
    ASSERT_TRUE(dash) << dash.error().to_text();
    const std::string text = dash->joined_text();
    const auto at = text.find("http://127.0.0.1:");
    ASSERT_NE(at, std::string::npos) << text;
    const std::string url = text.substr(at, text.find_first_of(" \n", at) - at);
    const auto& transport = dynamic_cast<mcp::stdio_client_transport&>(c.transport());
    EXPECT_NE(slurp(transport.stderr_log()).find("live view at " + url), std::string::npos);
    const int port = std::atoi(url.substr(std::string("http://127.0.0.1:").size()).c_str());
    const std::string token = url.substr(url.find("token=") + 6);
    ASSERT_GT(port, 0);

    // the agent opens the shop
    auto nav = c.call_tool("browser_navigate", json{{"url", s.server.url("/")}});
    ASSERT_TRUE(nav) << nav.error().to_text();

    // the person opens the dashboard: frames arrive, the timeline shows the call
    auto viewer = viewer_browser();
    ASSERT_TRUE(viewer.navigate(url));
    EXPECT_EQ(eval(viewer, until("s.open && s.frames > 0")), true) << "no frame reached the dashboard";
    EXPECT_EQ(eval(viewer, until("document.getElementById('steps').textContent.includes('browser_navigate')")), true);
    EXPECT_EQ(eval(viewer, until("document.getElementById('steps').textContent.includes('" + s.server.url("/") + "')")), true);
    EXPECT_EQ(eval(viewer, until("document.querySelector('#steps li.ok') !== null")), true);

    // frames change when the agent navigates
    const auto seq_before = eval(viewer, "window.agentkitLive.lastSeq").get<int>();
    ASSERT_TRUE(c.call_tool("browser_navigate", json{{"url", s.server.url("/two")}}));
    EXPECT_EQ(eval(viewer, until("s.lastSeq > " + std::to_string(seq_before))), true) << "no new frame after the navigation";
    EXPECT_EQ(eval(viewer, until("document.getElementById('tabs').textContent.includes('Second')")), true);

    // Pause: the next MCP call waits (and reports progress) until Resume
    ASSERT_TRUE(c.call_tool("browser_navigate", json{{"url", s.server.url("/")}}));
    (void)eval(viewer, "document.getElementById('pause').click()");
    EXPECT_EQ(eval(viewer, until("s.gate && s.gate.mode === 'paused'")), true);
    std::atomic<int> progress{0};
    auto held = std::async(std::launch::async, [&] {
        ak::tool_context ctx;
        ctx.on_progress = [&](double, std::optional<double>, std::string_view) { ++progress; };
        return c.call_tool("browser_snapshot", json::object(), ctx);
    });
    EXPECT_EQ(eval(viewer, until("document.querySelector('#steps li.waiting') !== null && s.gate.waiting === 1")), true)
        << "the call did not reach the gate";
    EXPECT_EQ(held.wait_for(0ms), std::future_status::timeout) << "a paused call ran";
    (void)eval(viewer, "document.getElementById('resume').click()");
    ASSERT_EQ(held.wait_for(30s), std::future_status::ready) << "resume did not release the call";
    auto snap = held.get();
    ASSERT_TRUE(snap) << snap.error().to_text();
    EXPECT_NE(snap->joined_text().find("Buy now"), std::string::npos);
    EXPECT_GE(progress.load(), 1) << "a held call reports progress";

    // a held call stays cancellable: cancelled over MCP (notifications/cancelled), it leaves the gate at once
    (void)eval(viewer, "document.getElementById('pause').click()");
    EXPECT_EQ(eval(viewer, until("s.gate.mode === 'paused'")), true);
    std::stop_source cancel;
    auto cancelled = std::async(std::launch::async, [&] {
        ak::tool_context ctx;
        ctx.stop = cancel.get_token();
        return c.call_tool("browser_snapshot", json::object(), ctx);
    });
    EXPECT_EQ(eval(viewer, until("s.gate.waiting === 1")), true);
    cancel.request_stop();
    ASSERT_EQ(cancelled.wait_for(10s), std::future_status::ready) << "a cancelled call stayed held";
    auto cr = cancelled.get();
    ASSERT_FALSE(cr);
    EXPECT_TRUE(cr.error().is(ak::errc::tool_cancelled)) << cr.error().to_text();
    EXPECT_EQ(eval(viewer, until("s.gate.waiting === 0 && document.querySelectorAll('#steps li.error').length === 1")), true)
        << "the server let the call go and the timeline says it failed";
    (void)eval(viewer, "document.getElementById('resume').click()");
    EXPECT_EQ(eval(viewer, until("s.gate.mode === 'running'")), true);

    // Take control: a click on the dashboard's screen reaches the agent's page
    (void)eval(viewer, "document.getElementById('take').click()");
    EXPECT_EQ(eval(viewer, until("s.gate.mode === 'controlled' && s.meta")), true);
    const json rect = eval(viewer, "(() => { const r = document.getElementById('screen').getBoundingClientRect(); "
                                   "return {x: r.left, y: r.top, w: r.width, h: r.height, cw: window.agentkitLive.meta.css_width, "
                                   "ch: window.agentkitLive.meta.css_height}; })()");
    ASSERT_TRUE(rect.is_object()) << rect.dump();
    const double x = rect["x"].get<double>() + 150.0 / rect["cw"].get<double>() * rect["w"].get<double>();
    const double y = rect["y"].get<double>() + 100.0 / rect["ch"].get<double>() * rect["h"].get<double>();
    auto clicked = viewer.click_at(x, y);
    ASSERT_TRUE(clicked) << clicked.error().to_text();
    // the agent's next call waits while the person has control
    auto waiting = std::async(std::launch::async, [&] { return c.call_tool("browser_snapshot", json::object()); });
    EXPECT_EQ(eval(viewer, until("s.gate.waiting === 1")), true);
    EXPECT_EQ(waiting.wait_for(0ms), std::future_status::timeout);
    // hand back: the report reaches the page and the agent's result starts with it
    (void)eval(viewer, "document.getElementById('handback').click()");
    EXPECT_EQ(eval(viewer, until("s.report && s.report.includes('clicked by a person')")), true)
        << eval(viewer, "window.agentkitLive.report || ''").dump();
    ASSERT_EQ(waiting.wait_for(30s), std::future_status::ready);
    auto after = waiting.get();
    ASSERT_TRUE(after) << after.error().to_text();
    const std::string body = after->joined_text();
    EXPECT_EQ(body.rfind("A person had control of the browser", 0), 0U) << body;
    EXPECT_NE(body.find("clicked by a person"), std::string::npos) << body;

    // what is refused: no token, a wrong token, a foreign Origin, a foreign Host, a WebSocket without Origin
    const std::string host = "Host: 127.0.0.1:" + std::to_string(port);
    EXPECT_EQ(raw_get(port, "/?token=" + token, {host}).first, 200);
    EXPECT_EQ(raw_get(port, "/", {host}).first, 403);
    EXPECT_EQ(raw_get(port, "/?token=x" + token, {host}).first, 403);
    EXPECT_EQ(raw_get(port, "/api/views?token=" + token.substr(1), {host}).first, 403);
    EXPECT_EQ(raw_get(port, "/?token=" + token, {host, "Origin: http://evil.example"}).first, 403);
    EXPECT_EQ(raw_get(port, "/?token=" + token, {"Host: evil.example:" + std::to_string(port)}).first, 403);
    const std::vector<std::string> ws = {host, "Upgrade: websocket", "Connection: Upgrade", "Sec-WebSocket-Version: 13",
                                         "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ=="};
    EXPECT_EQ(raw_get(port, "/ws?token=" + token, ws).first, 403) << "a WebSocket without Origin";
    auto with_origin = ws;
    with_origin.push_back("Origin: http://evil.example");
    EXPECT_EQ(raw_get(port, "/ws?token=" + token, with_origin).first, 403);
    auto own = ws;
    own.push_back("Origin: http://127.0.0.1:" + std::to_string(port));
    EXPECT_EQ(raw_get(port, "/ws?token=" + token, own).first, 101) << "the control: the dashboard's own origin passes";
    // a strict CSP, and nothing loaded from the network
    const auto page = raw_get(port, "/?token=" + token, {host}).second;
    EXPECT_NE(page.find("Content-Security-Policy: default-src 'none'; script-src 'self'"), std::string::npos) << page.substr(0, 600);
    const auto body_at = page.find("\r\n\r\n");
    EXPECT_EQ(page.find("http", body_at), std::string::npos) << "the page names no network address";

    // stdout carried only protocol messages
    viewer.close();
    EXPECT_EQ(c.noise(), 0U) << "non-protocol output on stdout";
}

TEST(LiveViewE2E, ANonLoopbackDashboardIsRefusedWithAClearError) {
    ak::browser::dashboard_options o;
    for (const std::string host : {"0.0.0.0", "192.168.1.10", "::"}) {
        o.host = host;
        ak::browser::dashboard d(o);
        auto up = d.start();
        ASSERT_FALSE(up) << host;
        EXPECT_TRUE(up.error().is(ak::errc::args_invalid));
        EXPECT_NE(up.error().message.find("loopback only"), std::string::npos) << up.error().message;
    }
    // a loopback name is not resolved: it binds 127.0.0.1 (core/url.hpp's rule)
    for (const std::string host : {"LOCALHOST", "dash.localhost."}) {
        o.host = host;
        ak::browser::dashboard d(o);
        auto up = d.start();
        ASSERT_TRUE(up) << host << ": " << up.error().message;
        EXPECT_EQ(d.origin().rfind("http://127.0.0.1:", 0), 0U) << host << " -> " << d.origin();
    }
    // and the server says so on stderr and exits, stdout empty
    const auto dir = std::filesystem::temp_directory_path() / ("agentkit-live-" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir);
    const std::string cmd = std::string(AGENTKIT_TEST_BROWSER_MCP) + " --headless --dashboard=0 --dashboard-host 0.0.0.0 </dev/null >" +
                            (dir / "out").string() + " 2>" + (dir / "err").string();
    const int rc = std::system(cmd.c_str());
    ASSERT_TRUE(WIFEXITED(rc));
    EXPECT_EQ(WEXITSTATUS(rc), 2);
    EXPECT_NE(slurp((dir / "err").string()).find("loopback only"), std::string::npos) << slurp((dir / "err").string());
    EXPECT_EQ(slurp((dir / "out").string()), "");
    std::filesystem::remove_all(dir);
}

TEST(LiveViewE2E, TokensAreComparedWholeAndExactly) {
    using d = ak::browser::dashboard;
    EXPECT_TRUE(d::same_token("abc", "abc"));
    EXPECT_FALSE(d::same_token("abc", "abd"));
    EXPECT_FALSE(d::same_token("abc", "abcd"));
    EXPECT_FALSE(d::same_token("", "abc"));
    EXPECT_FALSE(d::same_token("abc", ""));
    ak::browser::dashboard a, b;
    EXPECT_NE(a.token(), b.token()) << "a token per start";
    EXPECT_GE(a.token().size(), 40U);
}

TEST(LiveViewE2E, TheTimelineRedactsSecretsInArgumentsAndResultsAsEverywhere) {
    site s;
    br::browser_options o;
    o.policy.secrets = {{"PASSWORD", "hunter2-very-secret"}};
    br::browser b(o);
    br::bounded_artifacts store;
    br::tool_state st(b, store);
    auto tools = br::browser_tools(st);
    br::live_view live(st, "secret-agent");
    ak::browser::dashboard dash;
    dash.add(live);
    ASSERT_TRUE(dash.start());
    // the model writes the secret's value itself (it should use {{secret:PASSWORD}}): the step must not show it
    auto r = tools.call("browser_navigate", json{{"url", s.server.url("/two") + "?pw=hunter2-very-secret"}});
    ASSERT_TRUE(r) << r.error().to_text();
    auto steps = live.steps().since(0);
    ASSERT_EQ(steps.size(), 1U);
    const std::string shown = steps[0].to_json().dump();
    EXPECT_EQ(shown.find("hunter2"), std::string::npos) << shown;
    EXPECT_NE(shown.find("<secret>PASSWORD</secret>"), std::string::npos) << shown;
    EXPECT_EQ(steps[0].state, "ok");
    EXPECT_NE(steps[0].head.find("Second"), std::string::npos) << "the head of the result: " << steps[0].head;
    // and through the dashboard's API
    const auto api = raw_get(dash.port(), "/api/steps?view=secret-agent&token=" + dash.token(),
                             {"Host: 127.0.0.1:" + std::to_string(dash.port())});
    EXPECT_EQ(api.first, 200);
    EXPECT_EQ(api.second.find("hunter2"), std::string::npos);
    EXPECT_NE(api.second.find("browser_navigate"), std::string::npos);
    dash.remove(live);
}

namespace {

/// JS: the RGBA of a point near the bottom-right corner of the frame the dashboard shows (the
/// agent's page background there), null before the first frame.
const std::string corner_pixel =
    "(() => { const i = document.getElementById('screen'); if (!i || !i.complete || !i.naturalWidth) return null; "
    "const c = document.createElement('canvas'); c.width = i.naturalWidth; c.height = i.naturalHeight; const g = c.getContext('2d'); "
    "g.drawImage(i, 0, 0); return Array.from(g.getImageData(c.width - 12, c.height - 12, 1, 1).data); })()";

/// A condition on corner_pixel: near (r, g, b), JPEG's error allowed.
std::string corner_is(int r, int g, int b) {
    return "((p) => p && Math.abs(p[0] - " + std::to_string(r) + ") < 70 && Math.abs(p[1] - " + std::to_string(g) +
           ") < 70 && Math.abs(p[2] - " + std::to_string(b) + ") < 70)(" + corner_pixel + ")";
}

}  // namespace

// The browser encodes only the frames a viewer is ready for (one in flight, acknowledged when the
// viewer wants the next): a page that changes while a frame is on its way must still end on the
// viewer's screen as it settled, not as it was when the last frame was taken.
TEST(LiveViewE2E, TheViewerEndsOnTheScreenAsItSettled) {
    ak::net::http_server site;
    // a burst of colours when the agent clicks, ending green
    site.route("/burst", ak::net::http_response::html(
                             "<!doctype html><title>Burst</title><body style='margin:0;background:#f00'>"
                             "<button id=go style='position:absolute;left:0;top:0;width:160px;height:50px' onclick='run()'>Go</button>"
                             "<script>function run(){const cs=['#00f','#ff0','#f0f','#0ff','#fff','#000'];let i=0;"
                             "const t=setInterval(()=>{document.body.style.background=cs[i%cs.length];"
                             "if(++i===12){clearInterval(t);document.body.style.background='#0f0';}},7);}</script>"));
    // the second variant: the page changes on its own after it loaded (no call of the agent runs),
    // one change per animation frame, ending blue
    site.route("/later", ak::net::http_response::html(
                             "<!doctype html><title>Later</title><body style='margin:0;background:#f00'><h1 id=h>0</h1>"
                             "<script>setTimeout(()=>{let n=0;const f=()=>{n++;document.getElementById('h').textContent=n;"
                             "document.body.style.background='rgb('+(n*9%256)+','+(n*5%256)+',0)';"
                             "if(n<25)requestAnimationFrame(f);else document.body.style.background='#00f';};requestAnimationFrame(f);},150)</script>"));
    ASSERT_TRUE(site.start());
    br::browser agent;
    br::bounded_artifacts store;
    br::tool_state st(agent, store);
    auto tools = br::browser_tools(st);
    br::live_view live(st, "settle");
    ak::browser::dashboard dash;
    dash.add(live);
    ASSERT_TRUE(dash.start());
    ASSERT_TRUE(tools.call("browser_navigate", json{{"url", site.url("/burst")}}));
    auto viewer = viewer_browser();
    ASSERT_TRUE(viewer.navigate(dash.url()));
    EXPECT_EQ(eval(viewer, until("s.open && s.frames > 0 && " + corner_is(255, 0, 0))), true) << "the red page reached the viewer";

    auto snap = agent.snapshot();
    ASSERT_TRUE(snap);
    const std::string go = ak::test::ref_on(snap->snap.text, "Go");
    ASSERT_FALSE(go.empty()) << snap->snap.text;
    ASSERT_TRUE(tools.call("browser_click", json{{"ref", go}, {"element", "Go"}}));
    EXPECT_EQ(eval(viewer, until(corner_is(0, 255, 0))), true)
        << "the viewer shows " << eval(viewer, corner_pixel).dump() << ", not the green the burst ended on";

    ASSERT_TRUE(tools.call("browser_navigate", json{{"url", site.url("/later")}}));
    EXPECT_EQ(eval(viewer, until(corner_is(0, 0, 255))), true)
        << "the viewer shows " << eval(viewer, corner_pixel).dump() << ", not the blue the page settled on";
    const auto f = live.frames().stats();
    EXPECT_LE(f.max_unacked, 1U) << "the browser waited for at most one acknowledgement at a time";
    EXPECT_LT(f.offered, 200U) << "frames are encoded at the viewer's pace";
    viewer.close();
    dash.remove(live);
}

// While a viewer watches, Chromium captures every frame it draws as long as the screencast is on,
// acknowledged or not: the live view turns the capture off while the agent's call runs (but for
// one frame each call_interval, so a long call still shows) and back on right after it.
TEST(LiveViewE2E, AnAgentsCallIsCapturedOnlyAtItsPaceAndTheScreenComesBackAfterIt) {
    ak::net::http_server site;
    site.route("/busy", ak::net::http_response::html(
                            "<!doctype html><title>Busy</title><style>#b{width:200px;height:200px;background:#c33;"
                            "animation:s 1s linear infinite}@keyframes s{from{transform:rotate(0)}to{transform:rotate(360deg)}}</style>"
                            "<div id=b></div><p id=t></p><script>let n=0;setInterval(()=>{document.getElementById('t').textContent="
                            "'tick '+(++n)},20)</script>"));
    ASSERT_TRUE(site.start());
    br::browser agent;
    br::bounded_artifacts store;
    br::tool_state st(agent, store);
    auto tools = br::browser_tools(st);
    br::live_view live(st, "pace");  // call_interval 500 ms
    ak::browser::dashboard dash;  // max_fps 15: between calls the animated page streams at ~15 frames/s
    dash.add(live);
    ASSERT_TRUE(dash.start());
    ASSERT_TRUE(tools.call("browser_navigate", json{{"url", site.url("/busy")}}));
    auto viewer = viewer_browser();
    ASSERT_TRUE(viewer.navigate(dash.url()));
    ASSERT_EQ(eval(viewer, until("s.open && s.frames > 0")), true) << "no frame reached the dashboard";

    // a 3 s call: at 500 ms a frame, at most 6, and a frame on its way at each end
    const auto before = live.frames().stats().offered;
    ASSERT_TRUE(tools.call("browser_wait_for", json{{"time", 3}}));
    const auto during = live.frames().stats().offered - before;
    EXPECT_LE(during, 8U) << "the browser captured through the agent's call (at the viewer's 15 frames/s: ~45)";
    EXPECT_GE(during, 1U) << "a long call showed no frame";

    // after the call the viewer gets frames again
    const auto shown = eval(viewer, "window.agentkitLive.frames").get<int>();
    EXPECT_EQ(eval(viewer, until("s.frames > " + std::to_string(shown) + " + 3")), true) << "the screencast did not come back after the call";
    EXPECT_TRUE(agent.screencast_capturing());
    viewer.close();
    dash.remove(live);
    EXPECT_FALSE(agent.screencast_capturing()) << "no viewer, no capture";
}

// Calls that follow each other at once (a host running one model turn's tool calls, a scripted
// agent) are one burst: the screen is not captured after each of them, only at the burst's
// pace (one frame each 500 ms) and once it is over, showing its end state.
TEST(LiveViewE2E, ABurstOfCallsIsCapturedAtItsPaceAndShownOnceItIsOver) {
    ak::net::http_server site;
    site.route("/count", ak::net::http_response::html(
                             "<!doctype html><title>Count</title><button onclick=\"document.getElementById('n').textContent="
                             "String(Number(document.getElementById('n').textContent)+1)\">Add</button><p id=n>0</p>"));
    ASSERT_TRUE(site.start());
    br::browser agent;
    br::bounded_artifacts store;
    br::tool_state st(agent, store);
    auto tools = br::browser_tools(st);
    br::live_view live(st, "burst");  // call_interval 500 ms, settle 100 ms
    ak::browser::dashboard dash;
    dash.add(live);
    ASSERT_TRUE(dash.start());
    ASSERT_TRUE(tools.call("browser_navigate", json{{"url", site.url("/count")}}));
    auto snap = agent.snapshot();
    ASSERT_TRUE(snap);
    const std::string add = ak::test::ref_on(snap->snap.text, "Add");
    auto viewer = viewer_browser();
    ASSERT_TRUE(viewer.navigate(dash.url()));
    ASSERT_EQ(eval(viewer, until("s.open && s.frames > 0")), true) << "no frame reached the dashboard";

    // 20 clicks back to back: each changes the page, so capturing after each would send ~20
    // frames; the burst's pace allows one each 500 ms of it
    const auto before = live.frames().stats().offered;
    const auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < 20; ++i) ASSERT_TRUE(tools.call("browser_click", json{{"ref", add}, {"element", "Add"}})) << i;
    const auto burst = std::chrono::steady_clock::now() - t0;
    const auto during = live.frames().stats().offered - before;
    const auto paced = static_cast<std::uint64_t>(burst / 500ms);
    EXPECT_LE(during, paced + 2) << "frames captured during a burst of 20 calls that took "
                                 << std::chrono::duration_cast<std::chrono::milliseconds>(burst).count() << " ms";

    // once the agent is quiet (100 ms after the last call), the capture comes back and sends the
    // screen as the burst left it
    const auto at_end = live.frames().stats().offered;
    bool back = false;
    for (int i = 0; i < 2000 && !back; ++i) {  // bounded wait for a condition, 5 ms steps
        back = agent.screencast_capturing() && live.frames().stats().offered > at_end;
        if (!back) std::this_thread::sleep_for(5ms);
    }
    EXPECT_TRUE(back) << "the burst's end state was never captured";
    EXPECT_TRUE(agent.screencast_capturing());
}

// What the dashboard reads (describe(), the views, the console and network lists) never waits
// for the agent's call: a call held in the browser (its navigation's response withheld by the
// server, or waiting for text that a withheld request will write) does not hold them.
TEST(LiveViewE2E, TheDashboardAnswersWhileTheAgentsCallRuns) {
    struct held_route {
        std::promise<void> arrived, release;
        std::shared_future<void> released = release.get_future().share();
        std::atomic<bool> first{true};
    };
    auto nav_hold = std::make_shared<held_route>();
    auto fetch_hold = std::make_shared<held_route>();
    ak::net::http_server site;
    site.route("/two", ak::net::http_response::html("<!doctype html><title>Second</title><h1>The second page</h1>"));
    const auto holding = [](std::shared_ptr<held_route> h, std::string body) {
        return [h, body](const ak::net::http_request&) {
            if (h->first.exchange(false)) h->arrived.set_value();
            (void)h->released.wait_for(60s);  // bounded: a failing test must not leave the server's thread behind
            return ak::net::http_response::html(body);
        };
    };
    site.route("/held", holding(nav_hold, "<!doctype html><title>Held</title><p>released</p>"));
    site.route("/slow-data", holding(fetch_hold, "done"));
    site.route("/waits", ak::net::http_response::html(
                             "<!doctype html><title>Waits</title><p id=out>waiting</p>"
                             "<script>fetch('/slow-data').then(r=>r.text()).then(t=>{document.getElementById('out').textContent=t;})</script>"));
    ASSERT_TRUE(site.start());
    br::browser agent;
    br::bounded_artifacts store;
    br::tool_state st(agent, store);
    auto tools = br::browser_tools(st);
    br::live_view live(st, "busy-agent");
    ak::browser::dashboard dash;
    dash.add(live);
    ASSERT_TRUE(dash.start());
    ASSERT_TRUE(tools.call("browser_navigate", json{{"url", site.url("/two")}}));
    const std::string host = "Host: 127.0.0.1:" + std::to_string(dash.port());

    const auto answers_meanwhile = [&](std::future<ak::result<ak::tool_output>>& call, const std::string& what) {
        auto d = std::async(std::launch::async, [&] { return live.describe(); });
        ASSERT_EQ(d.wait_for(10s), std::future_status::ready) << "describe() waited for " << what;
        const json view = d.get();
        ASSERT_EQ(view["tabs"].size(), 1U) << view.dump();
        EXPECT_EQ(view["tabs"][0]["title"], "Second") << view.dump();
        const auto views = raw_get(dash.port(), "/api/views?token=" + dash.token(), {host});
        EXPECT_EQ(views.first, 200) << what;
        EXPECT_NE(views.second.find("busy-agent"), std::string::npos);
        const auto net = raw_get(dash.port(), "/api/events?kind=network&token=" + dash.token(), {host});
        EXPECT_EQ(net.first, 200) << what;
        EXPECT_NE(net.second.find("/two"), std::string::npos) << net.second;
        EXPECT_EQ(raw_get(dash.port(), "/api/events?kind=console&token=" + dash.token(), {host}).first, 200) << what;
        EXPECT_EQ(call.wait_for(0ms), std::future_status::timeout) << "the call was still running meanwhile";
    };

    // a navigation whose response the server holds
    auto nav = std::async(std::launch::async, [&] { return tools.call("browser_navigate", json{{"url", site.url("/held")}}); });
    ASSERT_EQ(nav_hold->arrived.get_future().wait_for(20s), std::future_status::ready);
    answers_meanwhile(nav, "a navigation in flight");
    nav_hold->release.set_value();
    ASSERT_EQ(nav.wait_for(30s), std::future_status::ready);
    auto navigated = nav.get();
    ASSERT_TRUE(navigated) << navigated.error().to_text();

    // the second variant: a wait for text that a held request writes
    ASSERT_TRUE(tools.call("browser_navigate", json{{"url", site.url("/two")}}));
    auto waits = std::async(std::launch::async, [&] {
        auto r = tools.call("browser_navigate", json{{"url", site.url("/waits")}});
        if (!r) return r;
        return tools.call("browser_wait_for", json{{"text", "done"}, {"timeout", 30}});
    });
    ASSERT_EQ(fetch_hold->arrived.get_future().wait_for(20s), std::future_status::ready);
    // the navigation may still be settling or the wait running: either holds the browser
    auto d = std::async(std::launch::async, [&] { return live.describe(); });
    ASSERT_EQ(d.wait_for(10s), std::future_status::ready) << "describe() waited for the agent's call";
    EXPECT_EQ(raw_get(dash.port(), "/api/views?token=" + dash.token(), {host}).first, 200);
    EXPECT_EQ(waits.wait_for(0ms), std::future_status::timeout) << "the call was still running meanwhile";
    fetch_hold->release.set_value();
    ASSERT_EQ(waits.wait_for(40s), std::future_status::ready);
    auto waited = waits.get();
    ASSERT_TRUE(waited) << waited.error().to_text();
    dash.remove(live);
}

// Replacing the screencast sink returns only once the old one is not running (its owner, a
// live view, may go right after), and the old one is never called again; a sink may replace
// itself from inside without waiting for itself. The sink here holds the event thread until
// the test lets it go, so the replacement is asked for while it runs.
TEST(LiveViewE2E, ReplacingTheScreencastSinkWaitsForTheSinkThatRuns) {
    ak::net::http_server site;
    site.route("/spin", ak::net::http_response::html(
                            "<!doctype html><title>Spin</title><style>#b{width:200px;height:200px;background:#36c;"
                            "animation:s 1s linear infinite}@keyframes s{from{transform:rotate(0)}to{transform:rotate(360deg)}}</style>"
                            "<div id=b></div>"));
    ASSERT_TRUE(site.start());
    br::browser b;
    ASSERT_TRUE(b.navigate(site.url("/spin")));
    ak::test::flag entered, release;
    std::atomic<bool> replaced{false};
    std::atomic<int> called_after{0};
    b.set_screencast_sink([&](br::screencast_frame f) {
        if (replaced) ++called_after;
        entered.raise();
        (void)release.wait_for(20s);  // bounded: the test raises it
        if (f.needs_ack) b.ack_screencast_frame(f);
    });
    ASSERT_TRUE(b.start_screencast({}));
    ASSERT_TRUE(entered.wait_for(20s)) << "no frame reached the sink";
    auto setter = std::async(std::launch::async, [&] {
        b.set_screencast_sink({});
        replaced = true;
    });
    EXPECT_EQ(setter.wait_for(300ms), std::future_status::timeout) << "the sink was replaced while the old one still ran";
    release.raise();
    ASSERT_EQ(setter.wait_for(20s), std::future_status::ready);
    EXPECT_EQ(called_after.load(), 0);

    // a sink that replaces itself from inside (e.g. on a frame of a closed view) goes on at once
    ak::test::flag done;
    b.set_screencast_sink([&](br::screencast_frame f) {
        b.set_screencast_sink({});
        if (f.needs_ack) b.ack_screencast_frame(f);
        done.raise();
    });
    ASSERT_TRUE(b.start_screencast({.max_width = 640}));  // other options: a new start, new frames
    EXPECT_TRUE(done.wait_for(20s)) << "a sink replacing itself waited for itself";
    b.stop_screencast();
}
