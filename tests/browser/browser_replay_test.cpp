// Browser engine unit tests over replayed CDP transcripts: the real engine (navigation,
// snapshots, refs, actions, deltas, dialogs, crash handling) runs against Chromium's recorded
// answers, with no browser. Each test drives the engine the same way in both modes:
//
//   replay (default)        the browser's transport is a cdp::replay_transport over
//                           tests/browser/data/<test>.jsonl (windowed order: the engine sends
//                           from several threads).
//   AGENTKIT_RECORD=<dir>   the transport is real headless Chromium over the pipe, recorded to
//                           <dir>/<test>.jsonl; copy the files to tests/browser/data/ to update
//                           the transcripts (see tests/browser/data/README.md).
//
// Pages are data: URLs, so a transcript names no port or path of the recording machine.
#include <agentkit/agentkit.hpp>
#include <agentkit/cdp/replay_transport.hpp>

#include <gtest/gtest.h>

#include "support/snapshot_refs.hpp"

#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <string>
#include <string_view>
#include <utility>

#include <sys/types.h>
#include <signal.h>

namespace ak = agentkit;
namespace br = agentkit::browser;
namespace cdp = agentkit::cdp;
using ak::json;
using namespace std::chrono_literals;

namespace {

std::string record_dir() {
    const char* d = std::getenv("AGENTKIT_RECORD");
    return d != nullptr ? std::string(d) : std::string();
}

// A data: URL of a small HTML page (percent-encoding only what a URL cannot carry).
std::string page_url(std::string_view title, std::string_view body) {
    const std::string html = "<!doctype html><html><head><meta charset=utf-8><title>" + std::string(title) +
                             "</title></head><body>" + std::string(body) + "</body></html>";
    std::string out = "data:text/html;charset=utf-8,";
    static const char* hex = "0123456789ABCDEF";
    for (const char c : html) {
        const auto u = static_cast<unsigned char>(c);
        if (std::isalnum(u) != 0 || std::string_view("-_.~!*'();:@=+$,/?[]<> \"").find(c) != std::string_view::npos) {
            if (c == ' ') out += "%20";
            else if (c == '"') out += "%22";
            else if (c == '<') out += "%3C";
            else if (c == '>') out += "%3E";
            else out += c;
        } else {
            out += '%';
            out += hex[u >> 4];
            out += hex[u & 15];
        }
    }
    return out;
}

using agentkit::test::ref_on;

// A pipe transport that kills its browser (SIGKILL) right after sending `method`: a crash at
// a known point of the conversation, for recording the crash transcript.
class kill_after_send {
public:
    kill_after_send(cdp::pipe_transport t, std::string method) : t_(std::move(t)), method_(std::move(method)) {}
    ak::result<void> send(std::string_view m) {
        auto r = t_.send(m);
        const auto j = json::parse(m, nullptr, false);
        if (j.is_object() && j.value("method", std::string()) == method_ && t_.pid() > 0) ::kill(t_.pid(), SIGKILL);
        return r;
    }
    ak::result<std::string> receive(std::chrono::milliseconds timeout) { return t_.receive(timeout); }
    void close() { t_.close(); }
    [[nodiscard]] bool is_open() const { return t_.is_open(); }

private:
    cdp::pipe_transport t_;
    std::string method_;
};

// Options whose transport is the replayed (or, when recording, the live) transcript `name`.
// The factory serves one browser; a second start (after a crash) fails with browser_launch.
struct harness {
    std::string name;
    std::string kill_after;  // recording: kill the browser after sending this method
    std::shared_ptr<int> starts = std::make_shared<int>(0);

    br::browser_options options() const {
        br::browser_options o;
        o.allow_evaluate = true;  // the pages are data: documents this test writes (refused to a model otherwise)
        o.transport_factory = [n = name, k = kill_after, starts = starts]() -> ak::result<cdp::any_transport> {
            if ((*starts)++ > 0) return ak::fail(ak::errc::browser_launch, "this test has one recorded browser");
            const auto dir = record_dir();
            if (!dir.empty()) {
                cdp::launch_options lo;
                lo.extra_args = {"--disable-features=Translate,MediaRouter,OptimizationHints"};
                auto t = cdp::pipe_transport::launch(lo);
                if (!t) return ak::fail(t.error());
                std::filesystem::create_directories(dir);
                auto rec = cdp::transcript_recorder::open_file(std::filesystem::path(dir) / (n + ".jsonl"));
                if (!rec) return ak::fail(rec.error());
                cdp::any_transport any = k.empty() ? cdp::any_transport{std::move(*t)}
                                                   : cdp::any_transport{kill_after_send{std::move(*t), k}};
                any.record_to(*rec);
                return any;
            }
            cdp::replay_options ro;
            ro.order = cdp::replay_order::windowed;
            auto r = cdp::replay_transport::from_file(std::filesystem::path(AGENTKIT_BROWSER_REPLAY_DATA) / (n + ".jsonl"), ro);
            if (!r) return ak::fail(r.error());
            return cdp::any_transport{std::move(*r)};
        };
        return o;
    }
};

const std::string kLinksPage = page_url(
    "Replay home", "<h1>Welcome</h1><nav><a href='https://example.com/one'>First link</a> <a href='https://example.com/two'>Second link</a></nav>"
                   "<p>Some text for the reader.</p><button id=go>Go</button>"
                   "<label>Name <input id=name></label><input type=checkbox id=cb aria-label='Remember me'>");

}  // namespace

TEST(BrowserReplay, NavigateGivesTitleUrlAndASnapshotWithRefs) {
    harness h{"navigate_snapshot", {}};
    br::browser b(h.options());
    auto nav = b.navigate(kLinksPage);
    ASSERT_TRUE(nav) << nav.error().to_text();
    EXPECT_TRUE(nav->navigated);
    EXPECT_EQ(nav->title, "Replay home");
    EXPECT_EQ(nav->url, kLinksPage);
    EXPECT_NE(nav->snapshot.find("h1 \"Welcome\""), std::string::npos) << nav->snapshot;

    auto snap = b.snapshot();
    ASSERT_TRUE(snap) << snap.error().to_text();
    const std::string& t = snap->snap.text;
    EXPECT_EQ(snap->title, "Replay home");
    for (const char* needle : {"link \"First link\"", "link \"Second link\"", "button \"Go\"", "textbox \"Name\"",
                               "checkbox \"Remember me\""})
        EXPECT_FALSE(ref_on(t, needle).empty()) << "no ref for " << needle << " in\n" << t;
    EXPECT_NE(t.find("Some text for the reader."), std::string::npos) << t;
    // refs are distinct and resolve in the registry to what the line says
    const auto go = ref_on(t, "button \"Go\"");
    const auto first = ref_on(t, "link \"First link\"");
    EXPECT_NE(go, first);
    auto target = b.refs().resolve(go);
    ASSERT_TRUE(target) << target.error().to_text();
    EXPECT_EQ(target->role, "button");
    EXPECT_EQ(target->name, "Go");
}

TEST(BrowserReplay, ClickReportsTheChangeAsADelta) {
    harness h{"click_delta", {}};
    br::browser b(h.options());
    ASSERT_TRUE(b.navigate(page_url("Counter", "<button id=add onclick=\"const li=document.createElement('li');"
                                              "li.textContent='Added item '+(document.querySelectorAll('li').length+1);"
                                              "document.getElementById('l').appendChild(li);"
                                              "document.getElementById('s').textContent='Count: '+"
                                              "document.querySelectorAll('li').length\">Add</button>"
                                              "<p id=s>Count: 0</p><ul id=l></ul>")));
    auto snap = b.snapshot();
    ASSERT_TRUE(snap) << snap.error().to_text();
    const auto add = ref_on(snap->snap.text, "button \"Add\"");
    ASSERT_FALSE(add.empty()) << snap->snap.text;
    auto r = b.click(add);
    ASSERT_TRUE(r) << r.error().to_text();
    EXPECT_FALSE(r->navigated);
    EXPECT_TRUE(r->snapshot.empty()) << "a click that changes the page in place reports a delta, not a snapshot";
    EXPECT_NE(r->changes.find("Added item 1"), std::string::npos) << r->to_text();
    EXPECT_NE(r->changes.find("Count: 1"), std::string::npos) << r->to_text();
    EXPECT_EQ(r->changes.find("Welcome"), std::string::npos) << r->to_text();
    auto again = b.click(add);
    ASSERT_TRUE(again) << again.error().to_text();
    EXPECT_NE(again->changes.find("Added item 2"), std::string::npos) << again->to_text();
    EXPECT_EQ(again->changes.find("Added item 1"), std::string::npos) << "unchanged lines are not repeated:\n" << again->to_text();
}

TEST(BrowserReplay, RefOfAPreviousPageIsStaleAndAsksForANewSnapshot) {
    harness h{"stale_ref", {}};
    br::browser b(h.options());
    ASSERT_TRUE(b.navigate(kLinksPage));
    auto snap = b.snapshot();
    ASSERT_TRUE(snap) << snap.error().to_text();
    const auto go = ref_on(snap->snap.text, "button \"Go\"");
    ASSERT_FALSE(go.empty()) << snap->snap.text;
    auto other = b.navigate(page_url("Other page", "<h1>Elsewhere</h1><button>Go</button>"));
    ASSERT_TRUE(other) << other.error().to_text();
    EXPECT_NE(other->snapshot.find("Elsewhere"), std::string::npos) << other->snapshot;
    // the new page has a "Go" button too: the old ref must not be rebound to it
    auto r = b.click(go);
    ASSERT_FALSE(r);
    EXPECT_TRUE(r.error().is(ak::errc::ref_stale)) << r.error().to_text();
    EXPECT_NE(r.error().message.find("navigated"), std::string::npos) << r.error().to_text();
    EXPECT_NE(r.error().hint.find("Take a new snapshot"), std::string::npos) << r.error().to_text();
    auto unknown = b.click("e99999");
    ASSERT_FALSE(unknown);
    EXPECT_TRUE(unknown.error().is(ak::errc::ref_unknown)) << unknown.error().to_text();
}

TEST(BrowserReplay, TypeIntoATextField) {
    harness h{"type_field", {}};
    br::browser b(h.options());
    ASSERT_TRUE(b.navigate(page_url("Form", "<label>City <input id=city></label>"
                                            "<p id=echo>nothing yet</p>"
                                            "<script>city.addEventListener('input',()=>{echo.textContent='You typed '+city.value})"
                                            "</script>")));
    auto snap = b.snapshot();
    ASSERT_TRUE(snap) << snap.error().to_text();
    const auto city = ref_on(snap->snap.text, "textbox \"City\"");
    ASSERT_FALSE(city.empty()) << snap->snap.text;
    auto r = b.type(city, "Lisbon");
    ASSERT_TRUE(r) << r.error().to_text();
    EXPECT_NE(r->changes.find("You typed Lisbon"), std::string::npos) << r->to_text();
    EXPECT_NE(r->changes.find("Lisbon"), std::string::npos) << r->to_text();
    auto after = b.snapshot();
    ASSERT_TRUE(after) << after.error().to_text();
    EXPECT_NE(after->snap.text.find("textbox \"City\""), std::string::npos);
    EXPECT_NE(after->snap.text.find("Lisbon"), std::string::npos) << after->snap.text;
}

TEST(BrowserReplay, DialogIsAnsweredByPolicyAndReported) {
    harness h{"dialog_policy", {}};
    auto o = h.options();
    o.dialogs.confirm = br::dialog_action::dismiss;
    br::browser b(std::move(o));
    ASSERT_TRUE(b.navigate(page_url("Dialogs", "<button onclick=\"out.textContent=confirm('Delete everything?')"
                                               "?'answer: yes':'answer: no'\">Delete</button><p id=out>answer: none</p>")));
    auto snap = b.snapshot();
    ASSERT_TRUE(snap) << snap.error().to_text();
    const auto del = ref_on(snap->snap.text, "button \"Delete\"");
    ASSERT_FALSE(del.empty()) << snap->snap.text;
    auto r = b.click(del);
    ASSERT_TRUE(r) << r.error().to_text();
    ASSERT_EQ(r->dialogs.size(), 1u) << r->to_text();
    EXPECT_EQ(r->dialogs[0].type, "confirm");
    EXPECT_EQ(r->dialogs[0].message, "Delete everything?");
    EXPECT_FALSE(r->dialogs[0].accepted);
    EXPECT_NE(r->changes.find("answer: no"), std::string::npos) << r->to_text();
    EXPECT_NE(r->to_text().find("confirm dialog \"Delete everything?\" dismissed"), std::string::npos) << r->to_text();
}

TEST(BrowserReplay, BrowserCrashFailsPendingCallsAtOnce) {
    // Recorded with the browser killed right after the click's first mouse event was sent: the
    // transcript ends with the transport's `close` entry (the browser died).
    harness h{"crash", "Input.dispatchMouseEvent"};
    auto o = h.options();
    o.call_timeout = 20s;
    o.navigation_timeout = 30s;
    br::browser b(std::move(o));
    ASSERT_TRUE(b.navigate(page_url("Doomed", "<h1>Doomed</h1><button>Press</button>")));
    auto snap = b.snapshot();
    ASSERT_TRUE(snap) << snap.error().to_text();
    const auto press = ref_on(snap->snap.text, "button \"Press\"");
    ASSERT_FALSE(press.empty()) << snap->snap.text;
    const auto t0 = std::chrono::steady_clock::now();
    auto r = b.click(press);
    const auto waited = std::chrono::steady_clock::now() - t0;
    ASSERT_FALSE(r);
    EXPECT_TRUE(r.error().is(ak::errc::browser_crashed)) << r.error().to_text();
    EXPECT_NE(r.error().message.find("the browser is gone"), std::string::npos) << r.error().to_text();
    EXPECT_NE(r.error().hint.find("new browser"), std::string::npos) << r.error().to_text();
    EXPECT_LT(waited, 5s) << "the pending call waited for its timeout instead of failing when the browser died";
    EXPECT_FALSE(b.running());
    // the next call starts a new browser through the factory (this test has no second one)
    auto next = b.snapshot();
    ASSERT_FALSE(next);
    EXPECT_TRUE(next.error().is(ak::errc::browser_launch)) << next.error().to_text();
    EXPECT_EQ(*h.starts, 2);
}
