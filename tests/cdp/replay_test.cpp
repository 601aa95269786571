// Transcripts (recording through any_transport, JSONL) and the replay transport.
#include <agentkit/cdp/replay_transport.hpp>

#include <agentkit/cdp/connection.hpp>

#include "cdp/fake_transport.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <future>
#include <thread>

namespace cdp = agentkit::cdp;
namespace errc = agentkit::errc;
using agentkit::json;
using namespace std::chrono_literals;

namespace {

cdp::transcript_entry entry(cdp::direction d, const json& m) { return cdp::transcript_entry{0, d, m.dump()}; }
cdp::transcript_entry sent(const json& m) { return entry(cdp::direction::sent, m); }
cdp::transcript_entry recv(const json& m) { return entry(cdp::direction::received, m); }

// A small recorded session: an early event, a version query, attach, evaluate on the session.
std::vector<cdp::transcript_entry> sample_transcript() {
    return {
        recv({{"method", "Target.targetCreated"}, {"params", {{"targetInfo", {{"targetId", "T0"}}}}}}),
        sent({{"id", 101}, {"method", "Browser.getVersion"}, {"params", json::object()}}),
        recv({{"id", 101}, {"result", {{"product", "Chrome/156"}}}}),
        sent({{"id", 102}, {"method", "Target.attachToTarget"}, {"params", {{"targetId", "T0"}, {"flatten", true}}}}),
        recv({{"method", "Target.attachedToTarget"}, {"params", {{"sessionId", "S0"}}}}),
        recv({{"id", 102}, {"result", {{"sessionId", "S0"}}}}),
        sent({{"id", 103}, {"method", "Runtime.evaluate"}, {"params", {{"expression", "document.title"}}}, {"sessionId", "S0"}}),
        recv({{"id", 103}, {"sessionId", "S0"}, {"result", {{"result", {{"type", "string"}, {"value", "Hello"}}}}}}),
    };
}

}  // namespace

TEST(CdpTranscript, JsonlRoundTripKeepsEverything) {
    std::vector<cdp::transcript_entry> in = {
        {1.25, cdp::direction::sent, R"({"id":1,"method":"A.b","params":{}})"},
        {2.5, cdp::direction::received, R"({"id":1,"result":{"x":"\n"}})"},
        {3.0, cdp::direction::received, "not json\nat all"},
        {4.0, cdp::direction::closed, agentkit::error(errc::browser_crashed, "died").to_json().dump()},
    };
    const std::string text = cdp::to_jsonl(in);
    EXPECT_EQ(std::count(text.begin(), text.end(), '\n'), 4) << "one line per entry:\n" << text;
    auto out = cdp::parse_transcript(text);
    ASSERT_TRUE(out) << out.error().to_text();
    ASSERT_EQ(out->size(), in.size());
    for (std::size_t i = 0; i < in.size(); ++i) {
        EXPECT_DOUBLE_EQ((*out)[i].time_ms, in[i].time_ms);
        EXPECT_EQ((*out)[i].dir, in[i].dir);
        if (i == 2) EXPECT_EQ((*out)[i].message, in[i].message);
        else EXPECT_EQ(json::parse((*out)[i].message), json::parse(in[i].message));
    }
}

TEST(CdpTranscript, ParseErrorsNameTheLine) {
    auto r = cdp::parse_transcript("{\"t\":0,\"dir\":\"send\",\"msg\":{}}\n\n{\"t\":1,\"dir\":\"sideways\",\"msg\":{}}\n");
    ASSERT_FALSE(r);
    EXPECT_EQ(r.error().code, errc::protocol_error);
    EXPECT_NE(r.error().message.find("line 3"), std::string::npos) << r.error().message;
    EXPECT_NE(r.error().message.find("sideways"), std::string::npos);
}

TEST(CdpTranscript, AnyTransportRecordsBothDirectionsAndTheEnd) {
    auto browser = std::make_shared<agentkit::test::fake_browser>();
    auto rec = std::make_shared<cdp::transcript_recorder>();
    {
        cdp::any_transport t{agentkit::test::fake_transport{browser}};
        t.record_to(rec);
        cdp::connection conn{std::move(t)};
        auto f = conn.call_async("Browser.getVersion");
        auto m = browser->next_sent();
        ASSERT_TRUE(m);
        browser->push(json{{"method", "Some.event"}});
        browser->reply(*m, {{"product", "P"}});
        ASSERT_EQ(f.wait_for(10s), std::future_status::ready);
        ASSERT_TRUE(f.get());
        EXPECT_NE(conn.transport_as<agentkit::test::fake_transport>(), nullptr);  // reachable through the erasure
        auto g = conn.call_async("Page.enable", json::object(), "S1");
        auto m2 = browser->next_sent();
        ASSERT_TRUE(m2);
        browser->reply(*m2, json::object());
        ASSERT_EQ(g.wait_for(10s), std::future_status::ready);
    }
    const auto entries = rec->entries();
    ASSERT_EQ(entries.size(), 6U);
    EXPECT_EQ(entries[0].dir, cdp::direction::sent);
    EXPECT_EQ(json::parse(entries[0].message)["method"], "Browser.getVersion");
    EXPECT_EQ(entries[1].dir, cdp::direction::received);
    EXPECT_EQ(json::parse(entries[1].message)["method"], "Some.event");
    EXPECT_EQ(entries[2].dir, cdp::direction::received);
    EXPECT_EQ(entries[3].dir, cdp::direction::sent);
    EXPECT_EQ(json::parse(entries[3].message)["sessionId"], "S1");
    EXPECT_EQ(entries[4].dir, cdp::direction::received);
    EXPECT_EQ(entries[5].dir, cdp::direction::closed);
    EXPECT_EQ(json::parse(entries[5].message)["code"], errc::transport_closed);
    for (std::size_t i = 1; i < entries.size(); ++i) EXPECT_LE(entries[i - 1].time_ms, entries[i].time_ms);
}

TEST(CdpTranscript, FileRecorderWritesJsonlAsItGoes) {
    const auto path = std::filesystem::temp_directory_path() / ("agentkit_rec_" + std::to_string(::getpid()) + ".jsonl");
    auto rec = cdp::transcript_recorder::open_file(path, /*keep_in_memory=*/true);
    ASSERT_TRUE(rec) << rec.error().to_text();
    (*rec)->record(cdp::direction::sent, R"({"id":1,"method":"A.b"})");
    // Flushed per line: readable before the recorder is gone.
    auto loaded = cdp::load_transcript(path);
    ASSERT_TRUE(loaded) << loaded.error().to_text();
    ASSERT_EQ(loaded->size(), 1U);
    EXPECT_EQ(json::parse((*loaded)[0].message)["method"], "A.b");
    (*rec)->record(cdp::direction::received, R"({"id":1,"result":{}})");
    EXPECT_EQ((*rec)->entries().size(), 2U);
    rec->reset();
    loaded = cdp::load_transcript(path);
    ASSERT_TRUE(loaded);
    EXPECT_EQ(loaded->size(), 2U);
    std::filesystem::remove(path);
    EXPECT_FALSE(cdp::transcript_recorder::open_file("/nonexistent-dir/x.jsonl"));
    EXPECT_EQ(cdp::load_transcript("/nonexistent-dir/x.jsonl").error().code, errc::not_found);
}

TEST(CdpReplay, PlaysBackWithRewrittenIdsAndEvents) {
    cdp::replay_transport replay{sample_transcript()};
    cdp::connection conn{std::move(replay)};
    std::promise<std::string> attached;
    auto sub = conn.on("Target.attachedToTarget",
                       [&](const cdp::event& e) { attached.set_value(e.params["sessionId"].get<std::string>()); });
    auto v = conn.call("Browser.getVersion", json::object(), {}, 5000ms);
    ASSERT_TRUE(v) << v.error().to_text();
    EXPECT_EQ((*v)["product"], "Chrome/156");
    auto sid = conn.attach_to_target("T0", 5000ms);
    ASSERT_TRUE(sid) << sid.error().to_text();
    EXPECT_EQ(*sid, "S0");
    auto title = conn.session_for(*sid).call("Runtime.evaluate", {{"expression", "document.title"}}, 5000ms);
    ASSERT_TRUE(title) << title.error().to_text();
    EXPECT_EQ((*title)["result"]["value"], "Hello");
    auto f = attached.get_future();
    ASSERT_EQ(f.wait_for(10s), std::future_status::ready);
    EXPECT_EQ(f.get(), "S0");
    ASSERT_NE(conn.transport_as<cdp::replay_transport>(), nullptr);
    EXPECT_TRUE(conn.transport_as<cdp::replay_transport>()->finished());
}

TEST(CdpReplay, MismatchNamesExpectedAndGot) {
    cdp::connection conn{cdp::replay_transport{sample_transcript()}};
    auto v = conn.call("Browser.getVersion", json::object(), {}, 5000ms);
    ASSERT_TRUE(v);
    auto bad = conn.call("Target.attachToTarget", {{"targetId", "OTHER"}, {"flatten", true}}, {}, 5000ms);
    ASSERT_FALSE(bad);
    EXPECT_EQ(bad.error().code, errc::protocol_error);
    EXPECT_NE(bad.error().message.find("entry 4"), std::string::npos) << bad.error().message;
    EXPECT_NE(bad.error().message.find("\"T0\""), std::string::npos) << bad.error().message;
    EXPECT_NE(bad.error().message.find("\"OTHER\""), std::string::npos) << bad.error().message;
    EXPECT_EQ(bad.error().details["expected"]["params"]["targetId"], "T0");
    EXPECT_EQ(bad.error().details["got"]["params"]["targetId"], "OTHER");
    // The replay is finished: the connection reports the mismatch from now on.
    auto later = conn.call("Browser.getVersion", json::object(), {}, 5000ms);
    ASSERT_FALSE(later);
    EXPECT_EQ(later.error().code, errc::protocol_error);
}

TEST(CdpReplay, WrongSessionIsAMismatch) {
    auto t = sample_transcript();
    cdp::replay_transport replay{std::vector<cdp::transcript_entry>(t.begin(), t.end())};
    ASSERT_TRUE(replay.send(R"({"id":1,"method":"Browser.getVersion","params":{}})"));
    ASSERT_TRUE(replay.send(R"({"id":2,"method":"Target.attachToTarget","params":{"targetId":"T0","flatten":true}})"));
    auto r = replay.send(R"({"id":3,"method":"Runtime.evaluate","params":{"expression":"document.title"},"sessionId":"S9"})");
    ASSERT_FALSE(r);
    EXPECT_NE(r.error().message.find("S9"), std::string::npos);
}

TEST(CdpReplay, ExtraRequestsAfterTheEndAreReported) {
    cdp::replay_transport replay{{sent({{"id", 1}, {"method", "A.a"}}), recv({{"id", 1}, {"result", json::object()}})}};
    ASSERT_TRUE(replay.send(R"({"id":5,"method":"A.a"})"));
    auto m = replay.receive(1000ms);
    ASSERT_TRUE(m);
    EXPECT_EQ(json::parse(*m)["id"], 5);
    EXPECT_TRUE(replay.finished());
    auto extra = replay.send(R"({"id":6,"method":"B.b"})");
    ASSERT_FALSE(extra);
    EXPECT_NE(extra.error().message.find("no more requests"), std::string::npos);
    EXPECT_NE(extra.error().message.find("B.b"), std::string::npos);
}

TEST(CdpReplay, InterleavedRequestsGetTheirOwnIds) {
    // Two requests sent before either answer; answers recorded in reverse order.
    cdp::replay_transport replay{{
        sent({{"id", 10}, {"method", "A.first"}}),
        sent({{"id", 11}, {"method", "A.second"}}),
        recv({{"id", 11}, {"result", {{"n", 2}}}}),
        recv({{"id", 10}, {"result", {{"n", 1}}}}),
    }};
    cdp::connection conn{std::move(replay)};
    auto a = conn.call_async("A.first");
    auto b = conn.call_async("A.second");
    ASSERT_EQ(a.wait_for(10s), std::future_status::ready);
    ASSERT_EQ(b.wait_for(10s), std::future_status::ready);
    auto ra = a.get();
    auto rb = b.get();
    ASSERT_TRUE(ra && rb);
    EXPECT_EQ((*ra)["n"], 1);
    EXPECT_EQ((*rb)["n"], 2);
}

TEST(CdpReplay, RecordedCrashIsReplayed) {
    cdp::replay_transport replay{{
        sent({{"id", 1}, {"method", "Runtime.evaluate"}, {"params", {{"expression", "spin()"}}}}),
        {0, cdp::direction::closed,
         agentkit::error(errc::browser_crashed, "the browser process died unexpectedly (killed by signal 9)").to_json().dump()},
    }};
    cdp::connection conn{std::move(replay)};
    auto r = conn.call("Runtime.evaluate", {{"expression", "spin()"}}, {}, 60000ms);
    ASSERT_FALSE(r);
    EXPECT_EQ(r.error().code, errc::browser_crashed);
    EXPECT_NE(r.error().message.find("signal 9"), std::string::npos);
    EXPECT_FALSE(conn.is_open());
}

TEST(CdpReplay, CloseAtEndEndsTheTransport) {
    cdp::replay_options o;
    o.close_at_end = true;
    cdp::replay_transport replay{{recv({{"method", "Only.event"}})}, o};
    auto m = replay.receive(1000ms);
    ASSERT_TRUE(m);
    auto end = replay.receive(1000ms);
    ASSERT_FALSE(end);
    EXPECT_EQ(end.error().code, errc::transport_closed);
    EXPECT_FALSE(replay.is_open());
}

TEST(CdpReplay, RecordThenReplayGivesTheSameResults) {
    // Record a session against a scripted browser, then replay it without the browser.
    auto browser = std::make_shared<agentkit::test::fake_browser>();
    auto rec = std::make_shared<cdp::transcript_recorder>();
    const auto run = [](cdp::connection& conn) {
        std::vector<json> out;
        for (int i = 0; i < 3; ++i) {
            auto r = conn.call("Runtime.evaluate", {{"expression", std::to_string(i) + "+1"}}, "S1", 5000ms);
            out.push_back(r ? *r : r.error().to_json());
        }
        return out;
    };
    std::vector<json> live;
    {
        cdp::any_transport t{agentkit::test::fake_transport{browser}};
        t.record_to(rec);
        cdp::connection conn{std::move(t)};
        std::thread b([&] {
            for (int i = 0; i < 3; ++i) {
                auto m = browser->next_sent();
                if (!m) return;
                browser->push(json{{"method", "Runtime.consoleAPICalled"}, {"sessionId", "S1"}});
                browser->reply(*m, {{"result", {{"value", i + 1}}}});
            }
        });
        live = run(conn);
        b.join();
    }
    auto text = cdp::to_jsonl(rec->entries());
    auto entries = cdp::parse_transcript(text);
    ASSERT_TRUE(entries);
    cdp::connection replayed{cdp::replay_transport{std::move(*entries)}};
    EXPECT_EQ(run(replayed), live);
}

namespace {

// Two independent sends recorded in one order: the caller's A, then B sent by an event handler.
std::vector<cdp::transcript_entry> two_senders_transcript() {
    return {
        recv({{"method", "Target.attachedToTarget"}, {"params", {{"sessionId", "S1"}}}}),
        sent({{"id", 1}, {"method", "Page.navigate"}, {"params", {{"url", "about:blank"}}}, {"sessionId", "S1"}}),
        sent({{"id", 2}, {"method", "Runtime.runIfWaitingForDebugger"}, {"params", json::object()}, {"sessionId", "S1"}}),
        recv({{"id", 2}, {"sessionId", "S1"}, {"result", json::object()}}),
        recv({{"id", 1}, {"sessionId", "S1"}, {"result", {{"frameId", "F1"}}}}),
    };
}

}  // namespace

TEST(CdpReplay, StrictOrderRejectsSendsFromAnotherThreadThatCameFirst) {
    cdp::replay_transport replay{two_senders_transcript()};
    auto r = replay.send(R"({"id":7,"method":"Runtime.runIfWaitingForDebugger","params":{},"sessionId":"S1"})");
    ASSERT_FALSE(r);
    EXPECT_NE(r.error().message.find("Page.navigate"), std::string::npos) << r.error().message;
}

TEST(CdpReplay, WindowedOrderMatchesIndependentSendsInAnyOrder) {
    cdp::replay_options o;
    o.order = cdp::replay_order::windowed;
    cdp::connection conn{cdp::replay_transport{two_senders_transcript(), o}};
    // the handler's send goes first this time, the caller's second
    auto b = conn.call_async("Runtime.runIfWaitingForDebugger", json::object(), "S1");
    auto a = conn.call_async("Page.navigate", {{"url", "about:blank"}}, "S1");
    ASSERT_EQ(a.wait_for(10s), std::future_status::ready);
    ASSERT_EQ(b.wait_for(10s), std::future_status::ready);
    auto ra = a.get();
    auto rb = b.get();
    ASSERT_TRUE(ra) << ra.error().to_text();
    ASSERT_TRUE(rb) << rb.error().to_text();
    EXPECT_EQ((*ra)["frameId"], "F1");  // each answer reached its own request
    EXPECT_TRUE(rb->empty());
    EXPECT_TRUE(conn.transport_as<cdp::replay_transport>()->finished());
}

TEST(CdpReplay, WindowedOrderDeliversNothingBeforeTheSendsRecordedAheadOfIt) {
    cdp::replay_options o;
    o.order = cdp::replay_order::windowed;
    cdp::replay_transport replay{{
                                     sent({{"id", 1}, {"method", "A.a"}}),
                                     recv({{"id", 1}, {"result", {{"n", 1}}}}),
                                     recv({{"method", "E.happened"}}),
                                     sent({{"id", 2}, {"method", "B.b"}}),
                                     recv({{"id", 2}, {"result", {{"n", 2}}}}),
                                 },
                                 o};
    ASSERT_TRUE(replay.send(R"({"id":20,"method":"B.b"})"));  // matched early, out of order
    EXPECT_EQ(replay.remaining_sends(), 1u);
    auto early = replay.receive(20ms);  // A.a was recorded first: its answer and the event wait for it
    ASSERT_FALSE(early);
    EXPECT_TRUE(early.error().is(errc::timeout));
    ASSERT_TRUE(replay.send(R"({"id":10,"method":"A.a"})"));
    std::vector<json> got;
    for (int i = 0; i < 3; ++i) {
        auto m = replay.receive(1000ms);
        ASSERT_TRUE(m) << m.error().to_text();
        got.push_back(json::parse(*m));
    }
    EXPECT_EQ(got[0], json({{"id", 10}, {"result", {{"n", 1}}}}));
    EXPECT_EQ(got[1]["method"], "E.happened");
    EXPECT_EQ(got[2], json({{"id", 20}, {"result", {{"n", 2}}}}));
    EXPECT_TRUE(replay.finished());
}

TEST(CdpReplay, WindowedOrderLooksNoFurtherThanTheWindow) {
    cdp::replay_options o;
    o.order = cdp::replay_order::windowed;
    o.window = 2;
    cdp::replay_transport replay{{
                                     sent({{"id", 1}, {"method", "A.a"}}),
                                     sent({{"id", 2}, {"method", "B.b"}}),
                                     sent({{"id", 3}, {"method", "C.c"}}),
                                 },
                                 o};
    auto r = replay.send(R"({"id":9,"method":"C.c"})");
    ASSERT_FALSE(r);
    EXPECT_EQ(r.error().code, errc::protocol_error);
    EXPECT_NE(r.error().message.find("expected {\"method\":\"A.a\""), std::string::npos) << r.error().message;
    EXPECT_NE(r.error().message.find("1 recorded sends after it"), std::string::npos) << r.error().message;
}

TEST(CdpReplay, WindowedOrderPrefersTheEarliestOfIdenticalSends) {
    cdp::replay_options o;
    o.order = cdp::replay_order::windowed;
    cdp::replay_transport replay{{
                                     sent({{"id", 1}, {"method", "Runtime.evaluate"}, {"params", {{"expression", "1"}}}}),
                                     recv({{"id", 1}, {"result", {{"n", "first"}}}}),
                                     sent({{"id", 2}, {"method", "Runtime.evaluate"}, {"params", {{"expression", "1"}}}}),
                                     recv({{"id", 2}, {"result", {{"n", "second"}}}}),
                                 },
                                 o};
    ASSERT_TRUE(replay.send(R"({"id":5,"method":"Runtime.evaluate","params":{"expression":"1"}})"));
    auto m = replay.receive(1000ms);
    ASSERT_TRUE(m);
    EXPECT_EQ(json::parse(*m), json({{"id", 5}, {"result", {{"n", "first"}}}}));
    EXPECT_EQ(replay.remaining_sends(), 1u);
}

TEST(CdpReplay, IgnoredParamsAreLeftOutOfTheComparison) {
    const auto transcript = [] {
        return std::vector<cdp::transcript_entry>{
            sent({{"id", 1},
                  {"method", "Browser.setDownloadBehavior"},
                  {"params", {{"behavior", "allowAndName"}, {"downloadPath", "/home/recorder/dl"}}}}),
            recv({{"id", 1}, {"result", json::object()}}),
        };
    };
    const std::string here = R"({"id":3,"method":"Browser.setDownloadBehavior","params":{"behavior":"allowAndName","downloadPath":"/tmp/ci/dl"}})";
    {
        cdp::replay_transport replay{transcript()};
        EXPECT_FALSE(replay.send(here));  // a different path is a mismatch by default
    }
    cdp::replay_options o;
    o.ignore_params = {"downloadPath"};
    cdp::replay_transport replay{transcript(), o};
    ASSERT_TRUE(replay.send(here));
    // the other params still count
    cdp::replay_transport other{transcript(), o};
    EXPECT_FALSE(other.send(R"({"id":3,"method":"Browser.setDownloadBehavior","params":{"behavior":"deny","downloadPath":"/x"}})"));
}

TEST(CdpConnection, SyncEventsWaitsForTheHandlersOfEventsThatCameBeforeAnAnswer) {
    // The event arrives before the answer, but its handler is still running when call() returns.
    cdp::connection conn{cdp::replay_transport{{
        sent({{"id", 1}, {"method", "Page.navigate"}, {"params", {{"url", "about:blank"}}}}),
        recv({{"method", "Page.frameStartedLoading"}, {"params", {{"frameId", "F"}}}}),
        recv({{"id", 1}, {"result", json::object()}}),
    }}};
    std::promise<void> gate;
    auto gate_f = gate.get_future().share();
    std::atomic<bool> handled{false};
    auto sub = conn.on("Page.frameStartedLoading", [&](const cdp::event&) {
        gate_f.wait();
        handled = true;
    });
    auto r = conn.call("Page.navigate", {{"url", "about:blank"}}, {}, 5000ms);
    ASSERT_TRUE(r) << r.error().to_text();
    EXPECT_FALSE(handled.load());  // the answer overtook the event's handler
    auto synced = std::async(std::launch::async, [&] { return conn.sync_events(10000ms); });
    gate.set_value();
    EXPECT_TRUE(synced.get());
    EXPECT_TRUE(handled.load());
    conn.close();
    EXPECT_FALSE(conn.sync_events(100ms));  // an ended connection has nothing to wait for
}
