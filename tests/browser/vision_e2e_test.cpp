// End-to-end tests of seeing the page (real headless Chromium, pages served on 127.0.0.1):
// Set-of-Marks screenshots, coordinate actions (Playwright MCP's vision tools) and the names
// shown for icon-only controls.
#include <agentkit/agentkit.hpp>

#include "support/http_server.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <regex>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

namespace ak = agentkit;
namespace br = agentkit::browser;
namespace errc = agentkit::errc;
using ak::json;
using agentkit::test::http_response;
using agentkit::test::http_server;

namespace {

using agentkit::test::page;

// Every button records its own name (data-rec) in its frame's log line ("main got: a b"),
// whoever dispatched the click: composedPath() sees into open shadow roots; a same-origin
// frame records into its parent's log, a cross-origin one into its own. The page also counts
// every DOM mutation and every input/layout event, to prove a marked screenshot changed none.
constexpr const char* kRecorder = R"JS(
window.__got = [];
window.__rec = (id) => { __got.push(id); document.getElementById('log').textContent = 'main got: ' + __got.join(' '); };
document.addEventListener('click', (e) => {
  const el = e.composedPath().find((n) => n.dataset && n.dataset.rec);
  __rec(el ? el.dataset.rec : 'none');
}, true);
window.__mutations = 0; window.__events = 0;
new MutationObserver((l) => { __mutations += l.length; }).observe(document, {subtree: true, childList: true, attributes: true, characterData: true});
for (const t of ['pointermove', 'pointerdown', 'mousemove', 'mouseover', 'focusin', 'scroll', 'resize', 'wheel', 'keydown'])
  window.addEventListener(t, () => { __events++; }, true);
)JS";

struct site {
    http_server server;
    site() {
        // same origin: records into the parent's log; a button scrolled out of the frame's view
        server.route("/inner", http_response::html(page("Inner", R"HTML(
<style>body{margin:0;height:600px} button{position:absolute}</style>
<button data-rec="framed" style="left:10px;top:10px">framed</button>
<button data-rec="below-frame-fold" style="left:10px;top:400px">below-frame-fold</button>
<script>document.addEventListener('click', (e) => { const el = e.target.closest('[data-rec]'); parent.__rec(el ? el.dataset.rec : 'none'); }, true);</script>)HTML")));
        // cross origin (an out-of-process frame): records into its own log
        server.route("/remote", http_response::html(page("Remote", R"HTML(
<style>body{margin:0} button{position:absolute}</style>
<p id="log" style="position:absolute;left:10px;top:60px;margin:0">oopif got:</p>
<button data-rec="remote" style="left:40px;top:20px">remote</button>
<script>const got = []; document.addEventListener('click', (e) => { const el = e.target.closest('[data-rec]');
  got.push(el ? el.dataset.rec : 'none'); document.getElementById('log').textContent = 'oopif got: ' + got.join(' '); }, true);</script>)HTML")));
        const std::string remote = "http://oopif.test:" + std::to_string(server.port()) + "/remote";
        server.route("/targets", http_response::html(page("Targets", R"HTML(
<style>body{margin:0;height:2400px;font:14px sans-serif} .a{position:absolute} iframe{border:0;position:absolute}</style>
<p id="log" class="a" style="left:500px;top:5px;margin:0">main got:</p>
<button class="a" data-rec="plain" style="left:20px;top:20px">plain</button>
<button class="a" data-rec="neighbour" style="left:80px;top:20px">neighbour</button>
<button class="a" data-rec="rotated" style="left:220px;top:40px;transform:rotate(25deg) scale(1.4)">rotated</button>
<div class="a" style="left:20px;top:90px;transform:scale(0.7) translate(40px, 10px);transform-origin:0 0">
  <button data-rec="scaled">scaled</button></div>
<div id="host" class="a" style="left:20px;top:140px"></div>
<iframe src="/inner" style="left:20px;top:200px;width:260px;height:120px"></iframe>
<iframe src=")HTML" + remote + R"HTML(" style="left:320px;top:200px;width:260px;height:120px"></iframe>
<button class="a" data-rec="far" style="left:20px;top:1600px">far</button>
<script>
document.getElementById('host').attachShadow({mode: 'open'}).innerHTML = '<button data-rec="shadowed">shadowed</button>';
)HTML" + kRecorder + "</script>")));
    }
};

br::browser_options options(double scale) {
    br::browser_options o;
    o.launch.extra_args = {"--site-per-process", "--host-resolver-rules=MAP oopif.test 127.0.0.1"};
    o.viewport.width = 800;
    o.viewport.height = 600;
    o.viewport.device_scale_factor = scale;
    return o;
}

// The button name on the snapshot line of `ref` ("" when its line is not a button).
std::string button_of(const std::string& snapshot, const std::string& ref) {
    std::smatch m;
    const std::regex re("button \"([^\"]+)\"[^\\n]*\\[ref=" + ref + "\\]");
    return std::regex_search(snapshot, m, re) ? m[1].str() : std::string();
}

// The log line "<who> got: ..." in a snapshot ("" when absent).
std::string log_of(const std::string& snapshot, const std::string& who) {
    std::smatch m;
    const std::regex re(who + " got:([^\\n\"]*)");
    return std::regex_search(snapshot, m, re) ? m[1].str() : std::string();
}

// The width of a PNG (IHDR), from its base64.
std::uint32_t png_width(const std::string& b64) {
    auto bytes = ak::base64_decode(b64.substr(0, 64));
    if (!bytes || bytes->size() < 24) return 0;
    const auto& s = *bytes;
    return (std::uint32_t(std::uint8_t(s[16])) << 24) | (std::uint32_t(std::uint8_t(s[17])) << 16) |
           (std::uint32_t(std::uint8_t(s[18])) << 8) | std::uint32_t(std::uint8_t(s[19]));
}

double page_number(br::browser& b, const std::string& expr) {
    auto r = b.cdp_call("Runtime.evaluate", json{{"expression", expr}, {"returnByValue", true}});
    if (!r) return -1;
    return (*r)["result"].value("value", -1.0);
}

br::wait_options text_shown(std::string text) {
    br::wait_options w;
    w.text = std::move(text);
    w.timeout = std::chrono::seconds(10);
    return w;
}

class MarksE2E : public ::testing::TestWithParam<double> {};

}  // namespace

// For every ref drawn, a click at the centre of its box reaches exactly that element (frames,
// an out-of-process frame, a shadow root, transforms, scrolling; device scale factor 1 and 2);
// the marks leave the page as it was: no mutation, no event, an unmarked screenshot after is
// byte for byte the one before.
TEST_P(MarksE2E, EveryMarkedBoxCentreClicksExactlyItsElementAndThePageIsUntouched) {
    site s;
    const double scale = GetParam();
    br::browser b(options(scale));
    auto nav = b.navigate(s.server.url("/targets"));
    ASSERT_TRUE(nav) << nav.error().to_text();
    ASSERT_NE(nav->snapshot.find("button \"remote\""), std::string::npos) << nav->snapshot;  // the frames are loaded

    auto before = b.screenshot();
    ASSERT_TRUE(before) << before.error().to_text();
    EXPECT_EQ(before->scale, scale);
    EXPECT_EQ(png_width(before->base64), static_cast<std::uint32_t>(800 * scale));
    const double mutations = page_number(b, "__mutations"), events = page_number(b, "__events");

    br::screenshot_options mo;
    mo.marks = true;
    auto marked = b.screenshot(mo);
    ASSERT_TRUE(marked) << marked.error().to_text();
    ASSERT_TRUE(marked->snapshot);
    const std::string snap = marked->snapshot->snap.text;
    EXPECT_EQ(png_width(marked->base64), static_cast<std::uint32_t>(800 * scale));
    EXPECT_NE(marked->base64, before->base64);  // something was drawn

    std::map<std::string, std::string> drawn;  // button name → ref
    for (const auto& m : marked->marks) {
        const std::string name = button_of(snap, m.ref);
        ASSERT_FALSE(name.empty()) << m.ref << " is not a button line:\n" << snap;
        drawn[name] = m.ref;
        EXPECT_GE(m.x, 0);
        EXPECT_GE(m.y, 0);
        EXPECT_LE(m.x + m.width, 800.5);
        EXPECT_LE(m.y + m.height, 600.5);
    }
    for (const char* want : {"plain", "neighbour", "rotated", "scaled", "shadowed", "framed", "remote"})
        EXPECT_TRUE(drawn.count(want)) << want << " not marked:\n" << snap;
    // off-screen (below the fold), and scrolled out of its frame's view: named, not drawn
    for (const char* off : {"far", "below-frame-fold"}) {
        EXPECT_FALSE(drawn.count(off)) << off;
        std::smatch m;
        const std::regex re(std::string("button \"") + off + "\"[^\\n]*\\[ref=([a-z]\\d+)\\]");
        ASSERT_TRUE(std::regex_search(snap, m, re)) << snap;
        EXPECT_NE(std::find(marked->unmarked.begin(), marked->unmarked.end(), m[1].str()), marked->unmarked.end()) << off;
    }

    // nothing was done to the page
    EXPECT_EQ(page_number(b, "__mutations"), mutations);
    EXPECT_EQ(page_number(b, "__events"), events);
    auto after = b.screenshot();
    ASSERT_TRUE(after) << after.error().to_text();
    EXPECT_TRUE(after->base64 == before->base64) << "an unmarked screenshot after the marks differs from the one before";

    // the centre of every box drawn clicks exactly its element
    std::string want_main, want_remote;
    for (const auto& m : marked->marks) {
        const std::string name = button_of(snap, m.ref);
        auto r = b.click_at(m.x + m.width / 2, m.y + m.height / 2);
        ASSERT_TRUE(r) << name << ": " << r.error().to_text();
        EXPECT_EQ(r->hit.rfind(m.ref + " (button", 0), 0U) << name << ": " << r->hit;
        (name == "remote" ? want_remote : want_main) += " " + name;
    }
    auto now = b.snapshot();
    ASSERT_TRUE(now) << now.error().to_text();
    EXPECT_EQ(log_of(now->snap.text, "main"), want_main) << now->snap.text;
    EXPECT_EQ(log_of(now->snap.text, "oopif"), want_remote) << now->snap.text;

    // scrolled: what was below the fold is marked and its centre clicks it
    ASSERT_GE(page_number(b, "window.scrollTo(0, 1400), window.scrollY"), 1399);
    auto scrolled = b.screenshot(mo);
    ASSERT_TRUE(scrolled) << scrolled.error().to_text();
    const auto far = std::find_if(scrolled->marks.begin(), scrolled->marks.end(),
                                  [&](const br::screenshot_mark& m) { return button_of(scrolled->snapshot->snap.text, m.ref) == "far"; });
    ASSERT_NE(far, scrolled->marks.end()) << scrolled->snapshot->snap.text;
    auto r = b.click_at(far->x + far->width / 2, far->y + far->height / 2);
    ASSERT_TRUE(r) << r.error().to_text();
    EXPECT_EQ(r->hit.rfind(far->ref + " (button \"far\")", 0), 0U) << r->hit;
    EXPECT_EQ(page_number(b, "__got[__got.length - 1] === 'far' ? 1 : 0"), 1);
}

INSTANTIATE_TEST_SUITE_P(DeviceScale, MarksE2E, ::testing::Values(1.0, 2.0));

// Labels never hide each other, stay in the image and sit against their own box, on pages whose
// controls stand closer together than a label is wide or tall (a label is ~25 x 14 CSS px): a
// toolbar of two touching rows of 16 px icon buttons 1 px apart, and a column of links 12 px
// apart inside a frame beside a shadow root's row of buttons 23 px apart.
class MarkLabelsE2E : public ::testing::TestWithParam<std::tuple<const char*, double>> {};

TEST_P(MarkLabelsE2E, LabelsDoNotOverlapAndTouchTheirBox) {
    const auto [path, scale] = GetParam();
    http_server server;
    std::string toolbar = "<style>body{margin:0} .bar{position:absolute;left:30px;display:flex;gap:1px} "
                          "button{width:16px;height:16px;padding:0;border:1px solid #888;font-size:8px}</style>";
    for (int row = 0; row < 2; ++row) {
        toolbar += "<div class=bar style='top:" + std::to_string(40 + row * 17) + "px'>";
        for (int i = 0; i < 14; ++i)
            toolbar += "<button aria-label='tool " + std::to_string(row * 14 + i) + "'>&#9679;</button>";
        toolbar += "</div>";
    }
    server.route("/toolbar", http_response::html(page("Toolbar", toolbar)));
    std::string column = "<style>body{margin:0;padding:20px 60px} a{display:block;font:10px/12px sans-serif}</style>";
    for (int i = 0; i < 20; ++i) column += "<a href='#" + std::to_string(i) + "'>entry " + std::to_string(i) + "</a>";
    server.route("/column", http_response::html(page("Column", column)));
    server.route("/list", http_response::html(page("List", R"HTML(
<style>body{margin:0} iframe{position:absolute;left:200px;top:60px;width:300px;height:300px;border:0}
#host{position:absolute;left:200px;top:380px}</style>
<iframe src="/column"></iframe><div id="host"></div>
<script>document.getElementById('host').attachShadow({mode: 'open'}).innerHTML =
  [0,1,2,3,4,5,6,7].map((i) => '<button style="width:22px;height:22px;margin:0 1px 0 0;padding:0" aria-label="s' + i + '">+</button>').join('');</script>)HTML")));

    br::browser b(options(scale));
    auto nav = b.navigate(server.url(path));
    ASSERT_TRUE(nav) << nav.error().to_text();
    // the load event waits for the frame; the shadow root is filled by the page's own script
    br::screenshot_options mo;
    mo.marks = true;
    auto shot = b.screenshot(mo);
    ASSERT_TRUE(shot) << shot.error().to_text();
    ASSERT_GE(shot->marks.size(), 28U) << shot->snapshot->snap.text;

    const auto& marks = shot->marks;
    for (const auto& m : marks) {
        EXPECT_GT(m.label_width, 0) << m.ref;
        EXPECT_GT(m.label_height, 0) << m.ref;
        EXPECT_GE(m.label_x, -0.01) << m.ref;
        EXPECT_GE(m.label_y, -0.01) << m.ref;
        EXPECT_LE(m.label_x + m.label_width, 800.01) << m.ref;
        EXPECT_LE(m.label_y + m.label_height, 600.01) << m.ref;
        // against its own box: inside it or touching it (at most 1 px apart)
        const double gap_x = std::max({0.0, m.x - (m.label_x + m.label_width), m.label_x - (m.x + m.width)});
        const double gap_y = std::max({0.0, m.y - (m.label_y + m.label_height), m.label_y - (m.y + m.height)});
        EXPECT_LE(std::max(gap_x, gap_y), 1.0) << m.ref << " label is away from its box";
    }
    for (std::size_t i = 0; i < marks.size(); ++i)
        for (std::size_t j = i + 1; j < marks.size(); ++j) {
            const auto& a = marks[i];
            const auto& c = marks[j];
            const double ox = std::min(a.label_x + a.label_width, c.label_x + c.label_width) - std::max(a.label_x, c.label_x);
            const double oy = std::min(a.label_y + a.label_height, c.label_y + c.label_height) - std::max(a.label_y, c.label_y);
            EXPECT_FALSE(ox > 0.01 && oy > 0.01) << "labels " << a.ref << " and " << c.ref << " overlap by " << ox << " x " << oy;
        }
}

INSTANTIATE_TEST_SUITE_P(Pages, MarkLabelsE2E,
                         ::testing::Combine(::testing::Values("/toolbar", "/list"), ::testing::Values(1.0, 2.0)));

// A full-page marked screenshot marks what is below the fold, in page coordinates.
TEST(VisionE2E, FullPageMarksUsePageCoordinates) {
    site s;
    br::browser b(options(1));
    ASSERT_TRUE(b.navigate(s.server.url("/targets")));
    br::screenshot_options o;
    o.marks = true;
    o.full_page = true;
    auto shot = b.screenshot(o);
    ASSERT_TRUE(shot) << shot.error().to_text();
    const auto far = std::find_if(shot->marks.begin(), shot->marks.end(),
                                  [&](const br::screenshot_mark& m) { return button_of(shot->snapshot->snap.text, m.ref) == "far"; });
    ASSERT_NE(far, shot->marks.end());
    EXPECT_NEAR(far->y, 1600, 2);
    EXPECT_NEAR(shot->height, 2400, 2);
    br::screenshot_options bad;
    bad.marks = true;
    bad.ref = far->ref;
    auto refused = b.screenshot(bad);
    ASSERT_FALSE(refused);
    EXPECT_TRUE(refused.error().is(errc::args_invalid)) << refused.error().to_text();
}

// Coordinate actions: a point outside the viewport or not a number is refused with the viewport
// size and the session goes on; move, buttons and the wheel act where the mouse is; a click
// that would load a refused origin is blocked like any other action's.
TEST(VisionE2E, CoordinateActionsCheckTheirPointsAndObeyThePolicy) {
    site s;
    s.server.route("/moves", http_response::html(page("Moves", R"HTML(
<style>body{margin:0;height:3000px}</style>
<div id="pad" style="position:absolute;left:0;top:0;width:300px;height:300px;background:#eee"></div>
<a id="away" href="http://blocked.test/x" style="position:absolute;left:400px;top:10px">away</a>
<p id="st" style="position:absolute;left:400px;top:100px;margin:0">idle</p>
<script>
const st = document.getElementById('st');
const say = (t) => { st.textContent = t; };
pad.addEventListener('mousedown', (e) => say('down ' + e.button + ' at ' + e.clientX + ',' + e.clientY));
pad.addEventListener('mouseup', (e) => say('up ' + e.button + ' at ' + e.clientX + ',' + e.clientY));
pad.addEventListener('mousemove', (e) => { if (e.buttons) say('drag to ' + e.clientX + ',' + e.clientY); });
pad.addEventListener('contextmenu', (e) => e.preventDefault());
window.addEventListener('scroll', () => say('scrolled'), {once: true});
</script>)HTML")));
    br::browser_options o = options(1);
    o.policy.blocked_origins = {"http://blocked.test"};
    br::browser b(o);
    ASSERT_TRUE(b.navigate(s.server.url("/moves")));

    for (auto [x, y] : {std::pair{-1.0, 10.0}, std::pair{10.0, 600.0}, std::pair{800.0, 0.0}, std::pair{std::nan(""), 1.0}}) {
        auto r = b.click_at(x, y);
        ASSERT_FALSE(r);
        EXPECT_TRUE(r.error().is(errc::args_invalid)) << r.error().to_text();
    }
    auto outside = b.click_at(10, 700);
    ASSERT_FALSE(outside);
    EXPECT_NE(outside.error().message.find("x600 CSS pixels"), std::string::npos) << outside.error().to_text();
    br::click_options wrong;
    wrong.button = "fourth";
    EXPECT_TRUE(b.click_at(5, 5, wrong).error().is(errc::args_invalid));

    auto mv = b.move_to(50, 60);
    ASSERT_TRUE(mv) << mv.error().to_text();
    EXPECT_TRUE(std::regex_search(mv->hit, std::regex(R"(^[a-z]\d+\b)"))) << mv->hit;  // the pad listens to the mouse: it has a ref
    EXPECT_NE(mv->hit.find("(clickable)"), std::string::npos) << mv->hit;
    auto text = b.move_to(410, 110);
    ASSERT_TRUE(text) << text.error().to_text();
    EXPECT_EQ(text->hit, "<p id=\"st\"> \"idle\" (no ref)") << text->hit;  // no ref: described
    ASSERT_TRUE(b.move_to(50, 60));
    auto down = b.mouse_button(true, "left");
    ASSERT_TRUE(down) << down.error().to_text();
    EXPECT_NE(down->to_text().find("down 0 at 50,60"), std::string::npos) << down->to_text();
    auto drag = b.move_to(120, 130);
    ASSERT_TRUE(drag) << drag.error().to_text();
    EXPECT_NE(drag->to_text().find("drag to 120,130"), std::string::npos) << drag->to_text();
    auto up = b.mouse_button(false, "left");
    ASSERT_TRUE(up) << up.error().to_text();
    EXPECT_NE(up->to_text().find("up 0 at 120,130"), std::string::npos) << up->to_text();
    auto dragged = b.drag_points(10, 10, 200, 250);
    ASSERT_TRUE(dragged) << dragged.error().to_text();
    EXPECT_NE(dragged->to_text().find("up 0 at 200,250"), std::string::npos) << dragged->to_text();
    br::click_options right;
    right.button = "right";
    auto rc = b.click_at(30, 40, right);
    ASSERT_TRUE(rc) << rc.error().to_text();
    EXPECT_NE(rc->to_text().find("up 2 at 30,40"), std::string::npos) << rc->to_text();

    auto wheel = b.wheel(0, 500);
    ASSERT_TRUE(wheel) << wheel.error().to_text();
    auto scrolled = b.wait_for(text_shown("scrolled"));
    EXPECT_TRUE(scrolled) << scrolled.error().to_text();
    ASSERT_TRUE(b.cdp_call("Runtime.evaluate", json{{"expression", "window.scrollTo(0, 0)"}}));

    // the link's point: the click is made, the navigation it starts is refused by the policy
    auto link = b.snapshot();
    ASSERT_TRUE(link);
    auto away = b.click_at(410, 15);
    ASSERT_TRUE(away) << away.error().to_text();
    EXPECT_NE(away->hit.find("link \"away\""), std::string::npos) << away->hit;
    ASSERT_FALSE(away->blocked.empty()) << away->to_text();
    EXPECT_NE(away->blocked[0].url.find("blocked.test"), std::string::npos);
}

namespace {

// A toolbar of icon-only controls, each in a way real pages do it.
constexpr const char* kToolbarA = R"HTML(
<svg style="display:none"><symbol id="icon-trash" viewBox="0 0 10 10"><path d="M1 1h8v8H1z"/></symbol></svg>
<div role="toolbar">
<button onclick="say('search')"><i class="fa-solid fa-magnifying-glass fa-fw"></i></button>
<button onclick="say('trash')"><svg width="16" height="16"><use href="#icon-trash"></use></svg></button>
<button onclick="say('archive')" data-tooltip="Archive"><svg width="16" height="16"><rect width="16" height="16"/></svg></button>
<button onclick="say('gear')"><i class="bi bi-gear-fill"></i></button>
<button onclick="say('refresh')"><img src="/i/refresh.svg" width="16" height="16"></button>
<button onclick="say('close')" aria-label="Close"><i class="fa fa-times"></i></button>
<button onclick="say('blank')"><svg width="16" height="16"><circle r="8" cx="8" cy="8"/></svg></button>
</div>)HTML";

// The same kinds of control, written differently (other icon sets, links, role=button, sprites
// in files, images named by their file).
constexpr const char* kToolbarB = R"HTML(
<nav>
<a href="#cart" onclick="say('cart')"><svg class="lucide lucide-shopping-cart" width="16" height="16"><path d="M0 0h16v16z"/></svg></a>
<span role="button" tabindex="0" onclick="say('print')"><span class="glyphicon glyphicon-print"></span></span>
<button onclick="say('bell')"><svg width="16" height="16"><use xlink:href="/static/sprite.svg#bell"></use></svg></button>
<div role="button" tabindex="0" data-title="Share this page" onclick="say('share')"><svg width="16" height="16"><rect width="16" height="16"/></svg></div>
<button onclick="say('delete')"><span class="mdi mdi-delete-outline"></span></button>
<button onclick="say('settings')"><i class="ri-settings-3-line"></i></button>
<button onclick="say('heart')"><img src="/static/icons/heart-outline.png?v=3" width="16" height="16"></button>
<button onclick="say('menu')"><span class="octicon octicon-kebab-horizontal"></span></button>
</nav>)HTML";

std::string icon_page(const char* toolbar) {
    return page("Icons", std::string("<style>i,span.mdi,span.glyphicon,span.octicon{display:inline-block;width:16px;height:16px;"
                                     "background:#555}</style>") +
                             toolbar + "<p id=\"said\">nothing</p><script>function say(w) { said.textContent = 'said ' + w; }</script>");
}

}  // namespace

// Icon-only controls are named by what a person would read from them, marked as derived (never
// as the accessible name), on two toolbars written differently; a named control keeps its name;
// a control that says nothing gets a number. The derived names lead to the right control.
TEST(VisionE2E, IconOnlyControlsGetDerivedNamesOnTwoToolbars) {
    site s;
    s.server.route("/icons-a", http_response::html(icon_page(kToolbarA)));
    s.server.route("/icons-b", http_response::html(icon_page(kToolbarB)));
    br::browser b(options(1));

    struct want {
        const char* line;  // what the snapshot line starts with
        const char* said;  // what clicking it makes the page say
    };
    const std::vector<std::pair<std::string, std::vector<want>>> pages{
        {"/icons-a",
         {{"button (icon: magnifying glass)", "search"},
          {"button (icon: trash)", "trash"},
          {"button (label: \"Archive\")", "archive"},
          {"button (icon: gear)", "gear"},
          {"button (icon: refresh)", "refresh"},
          {"button \"Close\"", "close"},
          {"button [unlabeled #1]", "blank"}}},
        {"/icons-b",
         {{"link (icon: shopping cart)", "cart"},
          {"button (icon: print)", "print"},
          {"button (icon: bell)", "bell"},
          {"button (label: \"Share this page\")", "share"},
          {"button (icon: delete)", "delete"},
          {"button (icon: settings)", "settings"},
          {"button (icon: heart)", "heart"},
          {"button (icon: kebab horizontal)", "menu"}}},
    };
    for (const auto& [path, wants] : pages) {
        auto nav = b.navigate(s.server.url(path));
        ASSERT_TRUE(nav) << nav.error().to_text();
        const std::string snap = nav->snapshot;
        for (const auto& w : wants) {
            std::smatch m;
            std::string pattern;
            for (char ch : std::string(w.line)) {
                if (std::string("()[]\\.^$|?*+{}").find(ch) != std::string::npos) pattern += '\\';
                pattern += ch;
            }
            const std::regex re("(?:^|\\n) *" + pattern + "[^\\n]*\\[ref=([a-z]\\d+)\\]");
            ASSERT_TRUE(std::regex_search(snap, m, re)) << path << ": no line \"" << w.line << "\" in\n" << snap;
            auto r = b.click(m[1].str());
            ASSERT_TRUE(r) << r.error().to_text();
            EXPECT_NE(r->changes.find(std::string("said ") + w.said), std::string::npos) << w.line << ": " << r->to_text();
        }
        // derived, never the accessible name: the words are not quoted as a name
        EXPECT_EQ(snap.find("button \"magnifying glass\""), std::string::npos) << snap;
        EXPECT_EQ(snap.find("button \"Archive\""), std::string::npos) << snap;
    }
}

// Pictures are not icons: unnamed links around a photo (a JPEG, small or not), an image
// service's endpoint, a spacer painted by its style and an upload id's file get no derived name
// (they would read as nonsense words); an icon's file on the same page still names its link.
TEST(VisionE2E, PicturesAndGeneratedFileNamesNameNoControl) {
    site s;
    s.server.route("/pictures", http_response::html(page("Pictures", R"HTML(
<ul>
<li><a href="/story/1"><img src="/media/2024/03/14harbor-thumbLarge.jpg" width="48" height="48"></a></li>
<li><a href="/story/2"><img src="/media/people/rlee_small.jpeg"></a></li>
<li><a href="/story/3"><img src="/imgsvc/fit?w=32&h=32&url=%2Fmedia%2Fcat.png" width="32" height="32"></a></li>
<li><a href="/story/4"><img src="/static/blank.gif" style="width:40px;height:40px;background-image:url(/media/face.png)"></a></li>
<li><a href="/story/5"><img src="/up/Kq7wZp3Rt_mini.png" width="24" height="24"></a></li>
<li><a href="/starred"><img src="/static/icons/star-outline.svg" width="16" height="16"></a></li>
</ul>)HTML")));
    br::browser b(options(1));
    auto nav = b.navigate(s.server.url("/pictures"));
    ASSERT_TRUE(nav) << nav.error().to_text();
    const std::string& snap = nav->snapshot;
    EXPECT_NE(snap.find("link (icon: star) /starred"), std::string::npos) << snap;
    std::size_t derived = 0;
    for (std::size_t at = snap.find("(icon: "); at != std::string::npos; at = snap.find("(icon: ", at + 1)) ++derived;
    EXPECT_EQ(derived, 1U) << snap;
    for (const char* story : {"/story/1", "/story/2", "/story/3", "/story/4", "/story/5"})
        EXPECT_NE(snap.find(story), std::string::npos) << story << " is not in\n" << snap;
}
