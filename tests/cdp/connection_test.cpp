// The CDP connection over a scripted fake transport: ids, results, CDP errors, timeouts,
// events, sessions, handler threading, and failure when the transport dies.
#include <agentkit/cdp/connection.hpp>

#include "cdp/fake_transport.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <future>
#include <thread>
#include <vector>

namespace cdp = agentkit::cdp;
namespace errc = agentkit::errc;
using agentkit::json;
using agentkit::test::fake_browser;
using agentkit::test::fake_transport;
using namespace std::chrono_literals;

namespace {

constexpr auto kBound = 10s;  // generous bound for things that should happen at once

struct fixture {
    std::shared_ptr<fake_browser> browser = std::make_shared<fake_browser>();
    cdp::connection conn{fake_transport{browser}};
};

template <class T>
bool ready(std::future<T>& f, std::chrono::milliseconds within = kBound) {
    return f.wait_for(within) == std::future_status::ready;
}

}  // namespace

TEST(CdpConnection, IdsIncreaseAndResponsesAreMatchedOutOfOrder) {
    fixture fx;
    auto f1 = fx.conn.call_async("Browser.getVersion");
    auto f2 = fx.conn.call_async("Target.getTargets", {{"filter", json::array()}});
    auto m1 = fx.browser->next_sent();
    auto m2 = fx.browser->next_sent();
    ASSERT_TRUE(m1 && m2);
    EXPECT_EQ((*m1)["method"], "Browser.getVersion");
    EXPECT_EQ((*m1)["params"], json::object());
    EXPECT_FALSE(m1->contains("sessionId"));
    EXPECT_EQ((*m2)["params"]["filter"], json::array());
    EXPECT_LT((*m1)["id"].get<long>(), (*m2)["id"].get<long>());
    fx.browser->reply(*m2, {{"targetInfos", json::array()}});
    fx.browser->reply(*m1, {{"product", "Chrome/1"}});
    ASSERT_TRUE(ready(f1));
    ASSERT_TRUE(ready(f2));
    auto r1 = f1.get();
    auto r2 = f2.get();
    ASSERT_TRUE(r1) << r1.error().to_text();
    ASSERT_TRUE(r2) << r2.error().to_text();
    EXPECT_EQ((*r1)["product"], "Chrome/1");
    EXPECT_TRUE((*r2)["targetInfos"].is_array());
    EXPECT_EQ(fx.conn.pending_count(), 0U);
}

TEST(CdpConnection, BlockingCallCarriesSessionId) {
    fixture fx;
    std::thread browser([&] {
        auto m = fx.browser->next_sent();
        if (!m) return;
        EXPECT_EQ((*m)["sessionId"], "S1");
        fx.browser->push(json{{"id", (*m)["id"]}, {"sessionId", "S1"}, {"result", {{"value", 42}}}});
    });
    auto r = fx.conn.call("Runtime.evaluate", {{"expression", "6*7"}}, "S1");
    browser.join();
    ASSERT_TRUE(r) << r.error().to_text();
    EXPECT_EQ((*r)["value"], 42);
}

TEST(CdpConnection, MissingResultIsAnEmptyObject) {
    fixture fx;
    auto f = fx.conn.call_async("Page.enable");
    auto m = fx.browser->next_sent();
    ASSERT_TRUE(m);
    fx.browser->push(json{{"id", (*m)["id"]}});
    ASSERT_TRUE(ready(f));
    auto r = f.get();
    ASSERT_TRUE(r);
    EXPECT_EQ(*r, json::object());
}

TEST(CdpConnection, CdpErrorsCarryCodeAndMessage) {
    fixture fx;
    auto f = fx.conn.call_async("Page.navigate", {{"url", "notaurl"}}, "S9");
    auto m = fx.browser->next_sent();
    ASSERT_TRUE(m);
    fx.browser->push(json{{"id", (*m)["id"]},
                          {"error", {{"code", -32602}, {"message", "Invalid parameters"}, {"data", "url: string"}}}});
    ASSERT_TRUE(ready(f));
    auto r = f.get();
    ASSERT_FALSE(r);
    EXPECT_EQ(r.error().code, errc::cdp_error);
    EXPECT_EQ(r.error().details["code"], -32602);
    EXPECT_EQ(r.error().details["message"], "Invalid parameters");
    EXPECT_EQ(r.error().details["data"], "url: string");
    EXPECT_EQ(r.error().details["method"], "Page.navigate");
    EXPECT_EQ(r.error().details["session_id"], "S9");
    EXPECT_NE(r.error().message.find("Page.navigate"), std::string::npos);
    EXPECT_NE(r.error().message.find("Invalid parameters"), std::string::npos);
}

TEST(CdpConnection, BlockingCallTimesOutAndLateAnswerIsIgnored) {
    fixture fx;
    auto r = fx.conn.call("Runtime.evaluate", {{"expression", "while(1){}"}}, {}, 30ms);
    ASSERT_FALSE(r);
    EXPECT_EQ(r.error().code, errc::timeout);
    EXPECT_EQ(r.error().details["method"], "Runtime.evaluate");
    EXPECT_EQ(r.error().details["timeout_ms"], 30);
    auto late = fx.browser->next_sent();
    ASSERT_TRUE(late);
    fx.browser->reply(*late, {{"late", true}});
    // The connection is still healthy.
    auto f = fx.conn.call_async("Browser.getVersion");
    auto m = fx.browser->next_sent();
    ASSERT_TRUE(m);
    fx.browser->reply(*m, {{"ok", 1}});
    ASSERT_TRUE(ready(f));
    auto r2 = f.get();
    ASSERT_TRUE(r2);
    EXPECT_EQ((*r2)["ok"], 1);
    EXPECT_TRUE(fx.conn.is_open());
}

TEST(CdpConnection, AsyncCallsTimeOutIndependently) {
    fixture fx;
    auto slow = fx.conn.call_async("A.slow", {}, {}, 60000ms);
    auto fast = fx.conn.call_async("A.fast", {}, {}, 20ms);
    ASSERT_TRUE(ready(fast));
    auto r = fast.get();
    ASSERT_FALSE(r);
    EXPECT_EQ(r.error().code, errc::timeout);
    EXPECT_EQ(slow.wait_for(0ms), std::future_status::timeout) << "the slow call must still be pending";
    EXPECT_EQ(fx.conn.pending_count(), 1U);
}

TEST(CdpConnection, CallbackVariantRunsOnTheDispatcher) {
    fixture fx;
    std::promise<std::pair<agentkit::result<json>, std::thread::id>> got;
    fx.conn.call_async("Browser.getVersion", json::object(), {}, [&](agentkit::result<json> r) {
        got.set_value({std::move(r), std::this_thread::get_id()});
    });
    auto m = fx.browser->next_sent();
    ASSERT_TRUE(m);
    fx.browser->reply(*m, {{"product", "X"}});
    auto f = got.get_future();
    ASSERT_TRUE(ready(f));
    auto [r, tid] = f.get();
    ASSERT_TRUE(r);
    EXPECT_EQ((*r)["product"], "X");
    EXPECT_NE(tid, std::this_thread::get_id());
}

TEST(CdpConnection, EventsAreFilteredByMethodAndSession) {
    fixture fx;
    std::mutex mu;
    std::vector<std::string> by_method, by_session, all;
    std::promise<void> done;
    auto s1 = fx.conn.on("Page.loadEventFired", [&](const cdp::event& e) {
        std::lock_guard lock(mu);
        by_method.push_back(e.session_id);
    });
    auto s2 = fx.conn.on("Page.loadEventFired", [&](const cdp::event& e) {
        std::lock_guard lock(mu);
        by_session.push_back(e.params.value("n", ""));
    }, std::string("S1"));
    auto s3 = fx.conn.on("*", [&](const cdp::event& e) {
        std::lock_guard lock(mu);
        all.push_back(e.method);
    });
    auto s4 = fx.conn.on("Test.sentinel", [&](const cdp::event&) { done.set_value(); });
    fx.browser->push(json{{"method", "Page.loadEventFired"}, {"sessionId", "S1"}, {"params", {{"n", "a"}}}});
    fx.browser->push(json{{"method", "Page.loadEventFired"}, {"sessionId", "S2"}, {"params", {{"n", "b"}}}});
    fx.browser->push(json{{"method", "Page.loadEventFired"}, {"params", {{"n", "c"}}}});
    fx.browser->push(json{{"method", "Network.requestWillBeSent"}, {"sessionId", "S1"}});
    fx.browser->push(json{{"method", "Test.sentinel"}});
    auto f = done.get_future();
    ASSERT_TRUE(ready(f));
    std::lock_guard lock(mu);
    EXPECT_EQ(by_method, (std::vector<std::string>{"S1", "S2", ""}));
    EXPECT_EQ(by_session, (std::vector<std::string>{"a"}));
    EXPECT_EQ(all, (std::vector<std::string>{"Page.loadEventFired", "Page.loadEventFired", "Page.loadEventFired",
                                             "Network.requestWillBeSent", "Test.sentinel"}));
}

TEST(CdpConnection, RootSessionFilterExcludesChildSessions) {
    fixture fx;
    std::vector<std::string> root;
    std::promise<void> done;
    auto s = fx.conn.on("Target.targetCreated", [&](const cdp::event& e) { root.push_back(e.params.value("id", "")); },
                        std::string());
    auto end = fx.conn.on("Test.sentinel", [&](const cdp::event&) { done.set_value(); });
    fx.browser->push(json{{"method", "Target.targetCreated"}, {"sessionId", "S1"}, {"params", {{"id", "child"}}}});
    fx.browser->push(json{{"method", "Target.targetCreated"}, {"params", {{"id", "root"}}}});
    fx.browser->push(json{{"method", "Test.sentinel"}});
    auto f = done.get_future();
    ASSERT_TRUE(ready(f));
    EXPECT_EQ(root, (std::vector<std::string>{"root"}));
}

TEST(CdpConnection, UnsubscribeStopsDelivery) {
    fixture fx;
    std::atomic<int> count{0};
    auto sub = fx.conn.on("X.e", [&](const cdp::event&) { ++count; });
    std::promise<void> first, second;
    {
        auto s = fx.conn.on("Test.sentinel", [&](const cdp::event& e) {
            (e.params.value("n", 0) == 1 ? first : second).set_value();
        });
        fx.browser->push(json{{"method", "X.e"}});
        fx.browser->push(json{{"method", "Test.sentinel"}, {"params", {{"n", 1}}}});
        auto f = first.get_future();
        ASSERT_TRUE(ready(f));
        EXPECT_EQ(count.load(), 1);
        sub.unsubscribe();
        EXPECT_FALSE(sub.active());
        fx.browser->push(json{{"method", "X.e"}});
        fx.browser->push(json{{"method", "Test.sentinel"}, {"params", {{"n", 2}}}});
        auto g = second.get_future();
        ASSERT_TRUE(ready(g));
    }
    EXPECT_EQ(count.load(), 1);
}

TEST(CdpConnection, DestroyedSubscriptionUnsubscribes) {
    fixture fx;
    std::atomic<int> count{0};
    { auto sub = fx.conn.on("X.e", [&](const cdp::event&) { ++count; }); }
    std::promise<void> done;
    auto s = fx.conn.on("Test.sentinel", [&](const cdp::event&) { done.set_value(); });
    fx.browser->push(json{{"method", "X.e"}});
    fx.browser->push(json{{"method", "Test.sentinel"}});
    auto f = done.get_future();
    ASSERT_TRUE(ready(f));
    EXPECT_EQ(count.load(), 0);
}

TEST(CdpConnection, UnsubscribeWaitsForARunningHandler) {
    fixture fx;
    std::mutex mu;
    std::condition_variable cv;
    bool release = false;
    std::atomic<bool> finished{false};
    std::promise<void> entered;
    auto sub = fx.conn.on("X.block", [&](const cdp::event&) {
        entered.set_value();
        std::unique_lock lock(mu);
        cv.wait(lock, [&] { return release; });
        finished = true;
    });
    fx.browser->push(json{{"method", "X.block"}});
    auto e = entered.get_future();
    ASSERT_TRUE(ready(e));
    auto unsub = std::async(std::launch::async, [&] {
        sub.unsubscribe();
        return finished.load();
    });
    EXPECT_EQ(unsub.wait_for(50ms), std::future_status::timeout) << "unsubscribe returned while the handler ran";
    {
        std::lock_guard lock(mu);
        release = true;
    }
    cv.notify_all();
    ASSERT_TRUE(ready(unsub));
    EXPECT_TRUE(unsub.get()) << "the handler must have finished before unsubscribe returned";
}

TEST(CdpConnection, HandlersMayMakeBlockingCalls) {
    // The classic auto-attach pattern: resume the new target from the attach handler.
    fixture fx;
    std::promise<agentkit::result<json>> handler_result;
    auto sub = fx.conn.on("Target.attachedToTarget", [&](const cdp::event& e) {
        const auto sid = e.params["sessionId"].get<std::string>();
        handler_result.set_value(fx.conn.call("Runtime.runIfWaitingForDebugger", json::object(), sid, 5000ms));
    });
    fx.browser->push(json{{"method", "Target.attachedToTarget"},
                          {"params", {{"sessionId", "S7"}, {"waitingForDebugger", true}}}});
    auto m = fx.browser->next_sent();
    ASSERT_TRUE(m);
    EXPECT_EQ((*m)["method"], "Runtime.runIfWaitingForDebugger");
    EXPECT_EQ((*m)["sessionId"], "S7");
    // Events queued behind the blocked handler must not prevent the answer from arriving.
    fx.browser->push(json{{"method", "Some.event"}});
    fx.browser->reply(*m, json::object());
    auto f = handler_result.get_future();
    ASSERT_TRUE(ready(f));
    auto r = f.get();
    ASSERT_TRUE(r) << r.error().to_text();
}

TEST(CdpConnection, TransportDeathFailsEveryPendingCallAtOnce) {
    fixture fx;
    std::vector<std::future<agentkit::result<json>>> futures;
    for (int i = 0; i < 5; ++i) futures.push_back(fx.conn.call_async("Runtime.evaluate", {{"i", i}}, "S1", 60000ms));
    std::promise<agentkit::result<json>> cb;
    fx.conn.call_async("Page.navigate", json::object(), {}, [&](agentkit::result<json> r) { cb.set_value(std::move(r)); },
                       60000ms);
    auto waiter = fx.conn.expect("Page.loadEventFired");
    for (int i = 0; i < 6; ++i) ASSERT_TRUE(fx.browser->next_sent());
    fx.browser->die(agentkit::error(errc::browser_crashed, "the browser process died unexpectedly (killed by signal 9)",
                                    "launch a new browser"));
    for (auto& f : futures) {
        ASSERT_TRUE(ready(f)) << "a pending call did not fail after the transport died";
        auto r = f.get();
        ASSERT_FALSE(r);
        EXPECT_EQ(r.error().code, errc::browser_crashed);
        EXPECT_NE(r.error().message.find("Runtime.evaluate"), std::string::npos);
        EXPECT_NE(r.error().message.find("signal 9"), std::string::npos);
        EXPECT_EQ(r.error().hint, "launch a new browser");
    }
    auto cf = cb.get_future();
    ASSERT_TRUE(ready(cf));
    EXPECT_EQ(cf.get().error().code, errc::browser_crashed);
    auto w = waiter.wait(kBound);
    ASSERT_FALSE(w);
    EXPECT_EQ(w.error().code, errc::browser_crashed);
    // Later calls fail fast with the same error, without touching the transport.
    auto later = fx.conn.call("Browser.getVersion", json::object(), {}, 60000ms);
    ASSERT_FALSE(later);
    EXPECT_EQ(later.error().code, errc::browser_crashed);
    EXPECT_FALSE(fx.conn.is_open());
    ASSERT_TRUE(fx.conn.failure());
    EXPECT_EQ(fx.conn.failure()->code, errc::browser_crashed);
    EXPECT_EQ(fx.conn.pending_count(), 0U);
}

TEST(CdpConnection, DetachedSessionFailsOnlyItsCalls) {
    fixture fx;
    auto a = fx.conn.call_async("Runtime.evaluate", json::object(), "S1");
    auto b = fx.conn.call_async("Runtime.evaluate", json::object(), "S2");
    auto ma = fx.browser->next_sent();
    auto mb = fx.browser->next_sent();
    ASSERT_TRUE(ma && mb);
    fx.browser->push(json{{"method", "Target.detachedFromTarget"}, {"params", {{"sessionId", "S1"}, {"targetId", "T1"}}}});
    ASSERT_TRUE(ready(a));
    auto ra = a.get();
    ASSERT_FALSE(ra);
    EXPECT_EQ(ra.error().code, errc::transport_closed);
    EXPECT_NE(ra.error().message.find("S1"), std::string::npos);
    EXPECT_EQ(b.wait_for(0ms), std::future_status::timeout);
    fx.browser->reply(*mb, {{"ok", true}});
    ASSERT_TRUE(ready(b));
    EXPECT_TRUE(b.get());
    EXPECT_TRUE(fx.conn.is_open());
}

TEST(CdpConnection, CrashedRendererFailsItsSessionCalls) {
    fixture fx;
    auto a = fx.conn.call_async("Runtime.evaluate", json::object(), "S3");
    ASSERT_TRUE(fx.browser->next_sent());
    fx.browser->push(json{{"method", "Inspector.targetCrashed"}, {"sessionId", "S3"}, {"params", json::object()}});
    ASSERT_TRUE(ready(a));
    auto r = a.get();
    ASSERT_FALSE(r);
    EXPECT_EQ(r.error().code, errc::browser_crashed);
}

TEST(CdpConnection, CloseFailsPendingCallsAndIsIdempotent) {
    auto browser = std::make_shared<fake_browser>();
    std::future<agentkit::result<json>> f;
    {
        cdp::connection conn{fake_transport{browser}};
        f = conn.call_async("Runtime.evaluate", json::object(), {}, 60000ms);
        ASSERT_TRUE(browser->next_sent());
        conn.close();
        ASSERT_TRUE(ready(f, 0ms)) << "close() must complete pending calls before returning";
        auto r = f.get();
        ASSERT_FALSE(r);
        EXPECT_EQ(r.error().code, errc::transport_closed);
        EXPECT_NE(r.error().message.find("closed"), std::string::npos);
        conn.close();
        EXPECT_FALSE(conn.is_open());
        auto later = conn.call("Browser.getVersion");
        EXPECT_EQ(later.error().code, errc::transport_closed);
    }
    EXPECT_EQ(browser->close_calls, 1);
}

TEST(CdpConnection, CloseFromAHandlerIsSafe) {
    auto browser = std::make_shared<fake_browser>();
    auto conn = std::make_unique<cdp::connection>(fake_transport{browser});
    std::promise<void> closed;
    auto sub = conn->on("X.close", [&](const cdp::event&) {
        conn->close();
        closed.set_value();
    });
    browser->push(json{{"method", "X.close"}});
    auto f = closed.get_future();
    ASSERT_TRUE(ready(f));
    EXPECT_FALSE(conn->is_open());
    sub.release();
    conn.reset();  // joins whatever is left; must not hang or crash
}

TEST(CdpConnection, HandlerExceptionsAreSwallowedAndReported) {
    auto browser = std::make_shared<fake_browser>();
    std::mutex mu;
    std::vector<std::string> reports;
    cdp::connection_options o;
    o.on_handler_exception = [&](std::string_view what) {
        std::lock_guard lock(mu);
        reports.emplace_back(what);
    };
    cdp::connection conn{fake_transport{browser}, o};
    auto bad = conn.on("X.boom", [](const cdp::event&) { throw std::runtime_error("kaboom"); });
    std::promise<void> done;
    auto s = conn.on("Test.sentinel", [&](const cdp::event&) { done.set_value(); });
    browser->push(json{{"method", "X.boom"}});
    browser->push(json{{"method", "Test.sentinel"}});
    auto f = done.get_future();
    ASSERT_TRUE(ready(f));
    std::lock_guard lock(mu);
    ASSERT_EQ(reports.size(), 1U);
    EXPECT_NE(reports[0].find("kaboom"), std::string::npos);
    EXPECT_TRUE(conn.is_open());
}

TEST(CdpConnection, MalformedMessagesAreCountedAndSkipped) {
    fixture fx;
    auto f = fx.conn.call_async("Browser.getVersion");
    auto m = fx.browser->next_sent();
    ASSERT_TRUE(m);
    fx.browser->push_raw("not json at all");
    fx.browser->push_raw(R"({"id":"seven"})");
    fx.browser->push_raw(R"([1,2,3])");
    fx.browser->reply(*m, {{"ok", 1}});
    ASSERT_TRUE(ready(f));
    EXPECT_TRUE(f.get());
    EXPECT_EQ(fx.conn.malformed_messages(), 3U);
    // every message read counts as received: the three malformed ones and the answer
    EXPECT_EQ(fx.conn.received_messages(), 4U);
}

TEST(CdpConnection, ReceivedMessagesCountEventsAndAnswersAsTheyAreRead) {
    fixture fx;
    EXPECT_EQ(fx.conn.received_messages(), 0U);
    std::promise<void> done;
    auto s = fx.conn.on("Test.sentinel", [&](const cdp::event&) { done.set_value(); });
    for (int i = 0; i < 5; ++i) fx.browser->push(json{{"method", "Test.flood"}, {"params", {{"i", i}}}});
    fx.browser->push(json{{"method", "Test.sentinel"}});
    auto sentinel = done.get_future();
    ASSERT_TRUE(ready(sentinel));
    EXPECT_EQ(fx.conn.received_messages(), 6U);  // events nobody subscribed to count too
    auto f = fx.conn.call_async("Browser.getVersion");
    auto m = fx.browser->next_sent();
    ASSERT_TRUE(m);
    fx.browser->reply(*m, {{"ok", 1}});
    ASSERT_TRUE(ready(f));
    EXPECT_EQ(fx.conn.received_messages(), 7U);
}

TEST(CdpConnection, EventWaiterSeesEventsAfterItsCreationOnly) {
    fixture fx;
    {  // make sure the early event has been delivered before the waiter exists (subscribed
       // first: pushed before, it could be dispatched before the handler was registered)
        std::promise<void> seen;
        auto s = fx.conn.on("Page.loadEventFired", [&](const cdp::event&) { seen.set_value(); });
        auto f = seen.get_future();
        fx.browser->push(json{{"method", "Page.loadEventFired"}, {"params", {{"n", 0}}}});
        ASSERT_TRUE(ready(f));
    }
    cdp::session page = fx.conn.session_for("S1");
    auto w = page.expect("Page.loadEventFired", [](const cdp::event& e) { return e.params.value("n", 0) == 2; });
    EXPECT_FALSE(w.ready());
    fx.browser->push(json{{"method", "Page.loadEventFired"}, {"sessionId", "S2"}, {"params", {{"n", 2}}}});
    fx.browser->push(json{{"method", "Page.loadEventFired"}, {"sessionId", "S1"}, {"params", {{"n", 1}}}});
    fx.browser->push(json{{"method", "Page.loadEventFired"}, {"sessionId", "S1"}, {"params", {{"n", 2}}}});
    auto e = w.wait(kBound);
    ASSERT_TRUE(e) << e.error().to_text();
    EXPECT_EQ(e->session_id, "S1");
    EXPECT_EQ(e->params["n"], 2);
    auto never = fx.conn.expect("Never.happens");
    auto r = never.wait(10ms);
    ASSERT_FALSE(r);
    EXPECT_EQ(r.error().code, errc::timeout);
}

TEST(CdpConnection, SessionHelpersSendFlattenedCommands) {
    fixture fx;
    std::thread browser([&] {
        auto attach = fx.browser->next_sent();
        if (!attach) return;
        EXPECT_EQ((*attach)["method"], "Target.attachToTarget");
        EXPECT_EQ((*attach)["params"]["targetId"], "T1");
        EXPECT_EQ((*attach)["params"]["flatten"], true);
        fx.browser->reply(*attach, {{"sessionId", "S-T1"}});
        auto aa = fx.browser->next_sent();
        if (!aa) return;
        EXPECT_EQ((*aa)["method"], "Target.setAutoAttach");
        EXPECT_EQ((*aa)["sessionId"], "S-T1");
        EXPECT_EQ((*aa)["params"], (json{{"autoAttach", true}, {"waitForDebuggerOnStart", true}, {"flatten", true}}));
        fx.browser->reply(*aa, json::object());
        auto det = fx.browser->next_sent();
        if (!det) return;
        EXPECT_EQ((*det)["method"], "Target.detachFromTarget");
        EXPECT_EQ((*det)["params"]["sessionId"], "S-T1");
        fx.browser->reply(*det, json::object());
    });
    auto sid = fx.conn.attach_to_target("T1");
    ASSERT_TRUE(sid) << sid.error().to_text();
    EXPECT_EQ(*sid, "S-T1");
    EXPECT_TRUE(fx.conn.set_auto_attach(true, true, *sid));
    EXPECT_TRUE(fx.conn.detach_from_target(*sid));
    browser.join();
}

TEST(CdpConnection, SendFailureIsReturnedToTheCaller) {
    fixture fx;
    fx.browser->die(agentkit::error(errc::transport_io, "write failed"));
    auto r = fx.conn.call("Browser.getVersion");
    ASSERT_FALSE(r);
    // Either the send failed or the reader already saw the dead transport: both say so.
    EXPECT_EQ(r.error().code, errc::transport_io);
}

TEST(CdpConnection, MalformedErrorObjectsDoNotThrow) {
    fixture fx;
    auto a = fx.conn.call_async("A.a");
    auto b = fx.conn.call_async("B.b");
    auto ma = fx.browser->next_sent();
    auto mb = fx.browser->next_sent();
    ASSERT_TRUE(ma && mb);
    fx.browser->push(json{{"id", (*ma)["id"]}, {"error", {{"code", "not a number"}, {"message", 5}}}});
    fx.browser->push(json{{"id", (*mb)["id"]}, {"error", "just a string"}});
    ASSERT_TRUE(ready(a));
    ASSERT_TRUE(ready(b));
    auto ra = a.get();
    auto rb = b.get();
    ASSERT_FALSE(ra);
    EXPECT_EQ(ra.error().code, errc::cdp_error);
    EXPECT_EQ(ra.error().details["code"], 0);
    ASSERT_FALSE(rb);
    EXPECT_EQ(rb.error().code, errc::cdp_error);
    EXPECT_NE(rb.error().message.find("just a string"), std::string::npos);
    EXPECT_TRUE(fx.conn.is_open());
}

TEST(CdpConnection, OversizedConsoleEventsAreSummarisedWithoutParsing) {
    namespace d = agentkit::cdp::detail;
    const std::string big(1U << 20U, 'x');
    const std::string msg = R"({"method":"Runtime.consoleAPICalled","params":{"type":"error","args":[{"type":"string","value":"start \"q\" \u00e9 )" + big +
                            R"("}],"executionContextId":1},"sessionId":"S1"})";
    auto s = d::summarize_log_event(msg);
    ASSERT_TRUE(s.has_value());
    EXPECT_EQ((*s)["method"], "Runtime.consoleAPICalled");
    EXPECT_EQ((*s)["sessionId"], "S1");
    EXPECT_EQ((*s)["params"]["type"], "error");
    const std::string v = (*s)["params"]["args"][0]["value"].get<std::string>();
    EXPECT_EQ(v.rfind("start \"q\" \xC3\xA9 xxx", 0), 0U) << v.substr(0, 40);  // escapes decoded, whole
    EXPECT_NE(v.find("cut before reading"), std::string::npos);
    EXPECT_LT(v.size(), 2200U);
    // the second variant: an exception, and an escape cut at the 2,000-byte edge
    std::string edge(1998, 'y');
    const std::string ex = R"({"method":"Runtime.exceptionThrown","params":{"exceptionDetails":{"text":")" + edge + R"(\u00e9\u00e9)" + big + R"("}}})";
    auto e = d::summarize_log_event(ex);
    ASSERT_TRUE(e.has_value());
    EXPECT_FALSE(e->contains("sessionId"));
    EXPECT_NE((*e)["params"]["exceptionDetails"]["text"].get<std::string>().find("cut before reading"), std::string::npos);
    // anything else is parsed as it is (a big screenshot answer, another event)
    EXPECT_FALSE(d::summarize_log_event(R"({"id":3,"result":{"data":")" + big + R"("}})").has_value());
    EXPECT_FALSE(d::summarize_log_event(R"({"method":"Page.screencastFrame","params":{"data":")" + big + R"("}})").has_value());
}

TEST(CdpConnection, OnClosedIsToldOnceWhenTheTransportEndsByItselfNeverAfterClose) {
    std::promise<agentkit::error> told;
    auto got = told.get_future();
    std::atomic<int> calls{0};
    cdp::connection_options o;
    o.on_closed = [&](const agentkit::error& why) {
        if (calls.fetch_add(1) == 0) told.set_value(why);
    };
    auto browser = std::make_shared<fake_browser>();
    cdp::connection conn{fake_transport{browser}, o};
    auto pending = conn.call_async("Runtime.evaluate", json::object(), {}, 60000ms);
    ASSERT_TRUE(browser->next_sent());
    browser->die(agentkit::error(errc::transport_closed, "the endpoint dropped the connection"));
    ASSERT_TRUE(ready(got));
    EXPECT_EQ(got.get().message, "the endpoint dropped the connection");
    ASSERT_TRUE(ready(pending));  // the pending call failed before the news
    conn.close();
    EXPECT_EQ(calls.load(), 1);

    std::atomic<int> after_close{0};
    cdp::connection_options q;
    q.on_closed = [&](const agentkit::error&) { ++after_close; };
    {
        cdp::connection ours{fake_transport{std::make_shared<fake_browser>()}, q};
        ours.close();
    }
    EXPECT_EQ(after_close.load(), 0);  // the host's own close is no news
}
