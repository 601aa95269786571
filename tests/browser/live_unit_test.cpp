// The live view's parts without a browser: the frame pump's flow control, the rule that says
// when the screencast captures, and the pause gate's holding, stepping, hand-back and
// cancellation (label unit).
#include <agentkit/browser/live/frame_pump.hpp>
#include <agentkit/browser/live/call_gate.hpp>
#include <agentkit/browser/capture_rule.hpp>
#include <agentkit/browser/live/timeline.hpp>

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <future>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <stop_token>
#include <string>
#include <thread>
#include <vector>

namespace br = agentkit::browser;
using namespace std::chrono_literals;

namespace {

br::screencast_frame frame(int ack_id, std::size_t bytes = 10) {
    br::screencast_frame f;
    f.ack_id = ack_id;
    f.data.assign(bytes, 'x');
    return f;
}

/// The acknowledgements a pump sent to "the browser".
struct acks {
    std::mutex mu;
    std::vector<int> ids;
    void operator()(const br::screencast_frame& f) {
        std::lock_guard lock(mu);
        ids.push_back(f.ack_id);
    }
    std::vector<int> got() {
        std::lock_guard lock(mu);
        return ids;
    }
};

/// A clock the test moves.
struct fake_clock {
    std::chrono::steady_clock::time_point t{std::chrono::seconds(1000)};
    br::frame_pump_options options() {
        return br::frame_pump_options{[this] { return t; }};
    }
};

/// Chromium's screencast as the live view asks for it (maxFramesInFlight 1, sendLastFrame):
/// a frame the page produces is encoded and sent when none is unacknowledged, else kept as
/// the last one (replacing an older kept one) and sent when the acknowledgement comes.
struct fake_chromium {
    br::frame_pump* pump = nullptr;
    int in_flight = 0, most_in_flight = 0, encoded = 0, next_id = 0;
    std::optional<std::string> kept;
    std::vector<std::string> sent;  // what it encoded, in order
    void produce(const std::string& screen) {
        if (in_flight == 0) send(screen);
        else kept = screen;
    }
    void ack(const br::screencast_frame&) {
        --in_flight;
        if (kept) {
            auto k = std::move(*kept);
            kept.reset();
            send(k);
        }
    }
    void send(const std::string& screen) {
        ++in_flight;
        most_in_flight = std::max(most_in_flight, in_flight);
        ++encoded;
        sent.push_back(screen);
        br::screencast_frame f;
        f.ack_id = ++next_id;
        f.data = screen;
        pump->offer(f);
    }
};

/// A viewer driven the way the dashboard drives one: it looks when woken or due, shows what
/// it takes (the screen it shows is remembered) and acknowledges it after `rtt`.
struct fake_viewer {
    br::frame_pump& pump;
    fake_clock& clock;
    std::chrono::milliseconds rtt{0};
    bool woken = false;
    std::uint64_t id = 0;
    std::string showing;
    std::optional<std::chrono::steady_clock::time_point> ack_at, look_at;
    int shown = 0;
    fake_viewer(br::frame_pump& p, fake_clock& c, std::chrono::milliseconds interval, std::chrono::milliseconds r = 0ms)
        : pump(p), clock(c), rtt(r) {
        id = pump.add_viewer([this] { woken = true; }, interval);
    }
    /// What the viewer's thread does at the clock's time: after each look it waits for a wake,
    /// its ack, or the time due() named.
    void run() {
        if (ack_at && clock.t >= *ack_at) {
            ack_at.reset();
            pump.viewer_ack(id);
            woken = true;  // the ack is a message: the loop looks again after it
        }
        if (!woken && !(look_at && clock.t >= *look_at)) return;
        woken = false;
        if (auto f = pump.take(id)) {
            showing = f->frame->data;
            ++shown;
            ack_at = clock.t + rtt;
        }
        look_at = pump.due(id);
    }
};

}  // namespace

TEST(FramePump, WithoutAViewerEveryFrameIsAcknowledgedAtOnceAndDropped) {
    acks a;
    br::frame_pump pump([&](const br::screencast_frame& f) { a(f); });
    pump.offer(frame(1));
    pump.offer(frame(2));
    EXPECT_EQ(a.got(), (std::vector<int>{1, 2}));
    EXPECT_EQ(pump.stats().unwatched, 2U);
    EXPECT_EQ(pump.stats().sent, 0U);
    EXPECT_EQ(pump.stats().unacked, 0U);
}

TEST(FramePump, TheBrowserIsAcknowledgedOnlyOnceAViewerIsReadyForTheNextFrame) {
    acks a;
    br::frame_pump pump([&](const br::screencast_frame& f) { a(f); });
    int woken = 0;
    const auto v = pump.add_viewer([&] { ++woken; });
    pump.offer(frame(7));
    EXPECT_EQ(woken, 1);
    auto f = pump.take(v);
    ASSERT_TRUE(f);
    EXPECT_EQ(f->frame->ack_id, 7);
    EXPECT_TRUE(a.got().empty()) << "while the viewer shows it, the browser encodes nothing more";
    EXPECT_FALSE(pump.take(v)) << "one frame in flight per viewer";
    EXPECT_TRUE(a.got().empty());
    pump.viewer_ack(v);
    EXPECT_TRUE(a.got().empty()) << "shown, but the viewer has not asked for more yet";
    EXPECT_FALSE(pump.take(v)) << "nothing newer";
    EXPECT_EQ(a.got(), (std::vector<int>{7})) << "the viewer is ready for the next: the browser may send it";
    EXPECT_EQ(pump.stats().unacked, 0U);
    pump.offer(frame(8));
    EXPECT_EQ(woken, 2);
    auto g = pump.take(v);
    ASSERT_TRUE(g);
    EXPECT_EQ(g->frame->ack_id, 8);
}

TEST(FramePump, TheBrowserEncodesAtTheViewersRateNotThePagesRate) {
    fake_clock clock;
    fake_chromium chromium;
    br::frame_pump pump([&](const br::screencast_frame& f) { chromium.ack(f); }, clock.options());
    chromium.pump = &pump;
    fake_viewer viewer(pump, clock, 100ms, 5ms);
    // the page animates: a new screen every 10 ms for 2 s
    for (int i = 1; i <= 200; ++i) {
        clock.t += 10ms;
        chromium.produce("screen " + std::to_string(i));
        viewer.run();
    }
    EXPECT_EQ(chromium.most_in_flight, 1) << "the browser never waits for more than one acknowledgement";
    EXPECT_GE(viewer.shown, 15) << "about one frame per 100 ms";
    EXPECT_LE(viewer.shown, 21);
    EXPECT_LE(chromium.encoded, viewer.shown + 1) << "the browser encodes what the viewer shows, not 200 frames";
    EXPECT_EQ(pump.stats().superseded, 0U);
}

TEST(FramePump, TheScreenAsItSettledReachesTheViewer) {
    fake_clock clock;
    fake_chromium chromium;
    br::frame_pump pump([&](const br::screencast_frame& f) { chromium.ack(f); }, clock.options());
    chromium.pump = &pump;
    fake_viewer viewer(pump, clock, 66ms, 20ms);
    chromium.produce("A");
    viewer.run();
    EXPECT_EQ(viewer.showing, "A");
    // while A is on its way, the page changes twice and then stays as it is
    clock.t += 3ms;
    chromium.produce("B");
    clock.t += 3ms;
    chromium.produce("C");
    viewer.run();
    EXPECT_EQ(chromium.encoded, 1) << "nothing encoded while A is unacknowledged";
    // time passes; nothing else happens on the page; the viewer looks when woken or due
    for (int i = 0; i < 100 && pump.stats().unacked + (chromium.kept ? 1U : 0U) > 0; ++i) {
        clock.t += 1ms;
        viewer.run();
    }
    EXPECT_EQ(viewer.showing, "C") << "the viewer must see the final state, not a stale frame";
    EXPECT_EQ(chromium.sent, (std::vector<std::string>{"A", "C"})) << "B was never encoded";
    // the last frame is acknowledged once the viewer is ready for more: nothing is left waiting
    for (int i = 0; i < 100 && pump.stats().unacked > 0; ++i) {
        clock.t += 1ms;
        viewer.run();
    }
    EXPECT_EQ(pump.stats().unacked, 0U);
    EXPECT_EQ(chromium.in_flight, 0);
    EXPECT_EQ(pump.stats().offered, pump.stats().acked);
}

TEST(FramePump, EachViewerEndsOnTheFinalScreenWhateverItsPaceAndOneLeavingMidFrameHoldsNobody) {
    fake_clock clock;
    fake_chromium chromium;
    br::frame_pump pump([&](const br::screencast_frame& f) { chromium.ack(f); }, clock.options());
    chromium.pump = &pump;
    fake_viewer fast(pump, clock, 30ms, 2ms), slow(pump, clock, 250ms, 120ms);
    auto leaving = std::make_unique<fake_viewer>(pump, clock, 10ms, 1000ms);
    // a burst of changes at an uneven pace, the leaving viewer goes in the middle of it
    int n = 0;
    for (int step : {1, 7, 2, 13, 3, 40, 1, 1, 90, 5}) {
        clock.t += std::chrono::milliseconds(step);
        chromium.produce("burst " + std::to_string(++n));
        fast.run();
        slow.run();
        if (leaving) leaving->run();
        if (n == 4) {
            pump.remove_viewer(leaving->id);
            leaving.reset();
        }
    }
    for (int i = 0; i < 2000; ++i) {
        clock.t += 1ms;
        fast.run();
        slow.run();
    }
    EXPECT_EQ(fast.showing, "burst 10");
    EXPECT_EQ(slow.showing, "burst 10");
    EXPECT_EQ(chromium.most_in_flight, 1);
    EXPECT_LT(chromium.encoded, n) << "some changes were never encoded";
    EXPECT_EQ(pump.stats().unacked, 0U);
    EXPECT_EQ(pump.stats().viewers, 2U);
}

TEST(FramePump, ViewerIntervalIsKeptAndDueSaysWhenToLookAgain) {
    fake_clock clock;
    acks a;
    br::frame_pump pump([&](const br::screencast_frame& f) { a(f); }, clock.options());
    const auto v = pump.add_viewer([] {}, 100ms);
    pump.offer(frame(1));
    const auto t0 = clock.t;
    ASSERT_TRUE(pump.take(v));
    EXPECT_FALSE(pump.due(v)) << "in flight: its ack wakes it, not the clock";
    clock.t += 10ms;
    pump.viewer_ack(v);
    ASSERT_TRUE(pump.due(v));
    EXPECT_EQ(*pump.due(v), t0 + 100ms);
    pump.offer(frame(2));
    EXPECT_FALSE(pump.take(v)) << "a newer frame waits for the viewer's interval";
    EXPECT_TRUE(a.got().empty());
    clock.t = t0 + 100ms;
    ASSERT_TRUE(pump.due(v)) << "frame 2 waits: due names the time (now)";
    EXPECT_LE(*pump.due(v), clock.t);
    auto f = pump.take(v);
    ASSERT_TRUE(f);
    EXPECT_EQ(f->frame->ack_id, 2);
    EXPECT_FALSE(pump.due(v)) << "in flight";
}

TEST(FramePump, AnIntervalEndingBeforeTheViewerLooksIsNotSleptThrough) {
    fake_clock clock;
    acks a;
    br::frame_pump pump([&](const br::screencast_frame& f) { a(f); }, clock.options());
    const auto v = pump.add_viewer([] {}, 100ms);
    pump.offer(frame(1));
    ASSERT_TRUE(pump.take(v));
    clock.t += 10ms;
    pump.viewer_ack(v);
    EXPECT_FALSE(pump.take(v)) << "its interval has not passed";
    // the viewer's thread is slow to compute its wait: the interval ends meanwhile
    clock.t += 150ms;
    const auto due = pump.due(v);
    ASSERT_TRUE(due) << "the browser still waits for frame 1: the viewer must look, not sleep until a wake that never comes";
    EXPECT_LE(*due, clock.t);
    EXPECT_FALSE(pump.take(v));
    EXPECT_EQ(a.got(), (std::vector<int>{1}));
    EXPECT_FALSE(pump.due(v)) << "nothing left to do: it waits for the pump's wake";
}

TEST(FramePump, ASlowViewerSkipsToTheNewestFrameAndEveryFrameIsAcknowledgedExactlyOnce) {
    acks a;
    br::frame_pump pump([&](const br::screencast_frame& f) { a(f); });
    const auto v = pump.add_viewer([] {});
    pump.offer(frame(1));
    ASSERT_TRUE(pump.take(v));
    // a browser that keeps more frames in flight (an older Chromium): they supersede each other
    pump.offer(frame(2));
    pump.offer(frame(3));
    pump.offer(frame(4));
    EXPECT_TRUE(a.got().empty()) << "held: the browser stops at its own limit";
    EXPECT_EQ(pump.stats().max_unacked, 4U);
    pump.viewer_ack(v);
    auto f = pump.take(v);
    ASSERT_TRUE(f);
    EXPECT_EQ(f->frame->ack_id, 4) << "the newest, never a backlog";
    pump.viewer_ack(v);
    EXPECT_FALSE(pump.take(v));
    auto got = a.got();
    EXPECT_EQ(got, (std::vector<int>{1, 2, 3, 4}));
    EXPECT_EQ(pump.stats().superseded, 2U);
    EXPECT_EQ(pump.stats().acked, 4U);
}

TEST(FramePump, AFastViewerIsNotHeldByASlowOne) {
    acks a;
    br::frame_pump pump([&](const br::screencast_frame& f) { a(f); });
    const auto slow = pump.add_viewer([] {});
    const auto fast = pump.add_viewer([] {});
    pump.offer(frame(1));
    ASSERT_TRUE(pump.take(slow));
    ASSERT_TRUE(pump.take(fast));
    for (int i = 2; i <= 5; ++i) {
        pump.viewer_ack(fast);
        EXPECT_FALSE(pump.take(fast)) << "ready for more: the browser is acknowledged";
        EXPECT_EQ(a.got().size(), static_cast<std::size_t>(i - 1));
        pump.offer(frame(i));
        auto f = pump.take(fast);
        ASSERT_TRUE(f) << i;
        EXPECT_EQ(f->frame->ack_id, i);
        EXPECT_FALSE(pump.take(slow)) << "slow has not acked its frame";
    }
    pump.viewer_ack(slow);
    auto s = pump.take(slow);
    ASSERT_TRUE(s);
    EXPECT_EQ(s->frame->ack_id, 5) << "slow gets the newest frame next";
}

TEST(FramePump, TheLastViewerLeavingReleasesAFrameNobodyTook) {
    acks a;
    br::frame_pump pump([&](const br::screencast_frame& f) { a(f); });
    const auto v = pump.add_viewer([] {});
    pump.offer(frame(1));
    EXPECT_TRUE(a.got().empty());
    pump.remove_viewer(v);
    EXPECT_EQ(a.got(), (std::vector<int>{1})) << "the browser must not wait for a viewer that left";
    pump.offer(frame(2));
    EXPECT_EQ(a.got(), (std::vector<int>{1, 2}));
}

TEST(FramePump, AViewerLeavingWithAFrameInFlightReleasesIt) {
    acks a;
    br::frame_pump pump([&](const br::screencast_frame& f) { a(f); });
    const auto v = pump.add_viewer([] {});
    pump.offer(frame(1));
    ASSERT_TRUE(pump.take(v));
    EXPECT_TRUE(a.got().empty());
    pump.remove_viewer(v);  // its page closed before it acknowledged
    EXPECT_EQ(a.got(), (std::vector<int>{1}));
    EXPECT_EQ(pump.stats().unacked, 0U);
}

TEST(FramePump, ResetReleasesWhatTheBrowserWaitsFor) {
    acks a;
    br::frame_pump pump([&](const br::screencast_frame& f) { a(f); });
    const auto v = pump.add_viewer([] {});
    pump.offer(frame(1));
    ASSERT_TRUE(pump.take(v));
    pump.reset();  // the screencast moved to another tab
    EXPECT_EQ(a.got(), (std::vector<int>{1}));
    pump.viewer_ack(v);
    EXPECT_FALSE(pump.take(v));
    EXPECT_EQ(a.got(), (std::vector<int>{1})) << "acknowledged once";
}

TEST(FramePump, ANewViewerIsWokenForTheFrameAlreadyThere) {
    br::frame_pump pump([](const br::screencast_frame&) {});
    const auto first = pump.add_viewer([] {});
    pump.offer(frame(1));
    ASSERT_TRUE(pump.take(first));
    bool woken = false;
    const auto second = pump.add_viewer([&] { woken = true; });
    EXPECT_TRUE(woken);
    auto f = pump.take(second);
    ASSERT_TRUE(f);
    EXPECT_EQ(f->frame->ack_id, 1);
}

TEST(FramePump, ConcurrentOffersAndViewersAcknowledgeEveryFrameOnce) {
    acks a;
    br::frame_pump pump([&](const br::screencast_frame& f) { a(f); });
    std::atomic<bool> done{false};
    std::vector<std::thread> viewers;
    for (int k = 0; k < 3; ++k)
        viewers.emplace_back([&] {
            std::mutex m;
            std::condition_variable cv;
            bool ready = false;
            const auto id = pump.add_viewer([&] {
                std::lock_guard l(m);
                ready = true;
                cv.notify_all();
            });
            while (!done) {
                {
                    std::unique_lock l(m);
                    cv.wait_for(l, 50ms, [&] { return ready; });
                    ready = false;
                }
                if (pump.take(id)) {
                    pump.viewer_ack(id);
                    (void)pump.take(id);
                }
            }
            pump.remove_viewer(id);
        });
    constexpr int n = 2000;
    for (int i = 1; i <= n; ++i) pump.offer(frame(i));
    done = true;
    for (auto& t : viewers) t.join();
    auto got = a.got();
    EXPECT_EQ(got.size(), static_cast<std::size_t>(n)) << "each frame acknowledged once (a frame acked twice or never wedges the browser)";
    EXPECT_EQ(std::set<int>(got.begin(), got.end()).size(), static_cast<std::size_t>(n));
}

TEST(FramePump, AViewersWakeNeverRunsAfterItWasRemoved) {
    // offer() and another viewer's leaving wake viewers outside the pump's lock; a viewer
    // leaving meanwhile must not be called once remove_viewer returned (its thread frees what
    // the callback captured then). Viewers come and go while frames arrive.
    br::frame_pump pump([](const br::screencast_frame&) {});
    std::atomic<bool> done{false};
    std::atomic<int> late{0};
    std::atomic<long> woken{0};
    std::vector<std::thread> viewers;
    for (int k = 0; k < 3; ++k)
        viewers.emplace_back([&] {
            while (!done) {
                auto alive = std::make_shared<std::atomic<bool>>(true);
                const auto id = pump.add_viewer([&, alive] {
                    if (!*alive) ++late;
                    ++woken;
                });
                (void)pump.take(id);
                pump.viewer_ack(id);
                pump.remove_viewer(id);
                *alive = false;
            }
        });
    for (int i = 1; i <= 3000; ++i) pump.offer(frame(i));
    done = true;
    for (auto& t : viewers) t.join();
    EXPECT_EQ(late.load(), 0) << "a removed viewer's ready ran after remove_viewer returned";
    EXPECT_GT(woken.load(), 0);
}

TEST(FramePump, AReadyThatRemovesItsOwnViewerReturns) {
    br::frame_pump pump([](const br::screencast_frame&) {});
    std::uint64_t id = 0;
    int calls = 0;
    id = pump.add_viewer([&] {
        ++calls;
        pump.remove_viewer(id);
    });
    pump.offer(frame(1));
    pump.offer(frame(2));
    EXPECT_EQ(calls, 1) << "called once, then gone";
    EXPECT_EQ(pump.viewers(), 0U);
    EXPECT_EQ(pump.stats().unacked, 0U) << "the last viewer leaving acknowledged the frame";
}

namespace {
agentkit::tool_context context_with(std::stop_source& s, std::vector<std::string>* progress = nullptr) {
    agentkit::tool_context ctx;
    ctx.stop = s.get_token();
    if (progress != nullptr)
        ctx.on_progress = [progress](double, std::optional<double>, std::string_view m) { progress->emplace_back(m); };
    return ctx;
}

/// Call `name` entering the gate on a thread of its own (cancelled by `s`).
auto enter_async(br::call_gate& g, std::stop_source& s, std::string name) {
    return std::async(std::launch::async, [&g, &s, name = std::move(name)] {
        auto ctx = context_with(s);
        return g.enter(ctx, name);
    });
}

/// Wait (bounded) until the gate has `n` calls waiting: woken by its change callback.
struct gate_watch {
    std::mutex mu;
    std::condition_variable cv;
    br::gate_state last;
    explicit gate_watch(br::call_gate& g) {
        g.on_change([this](const br::gate_state& s) {
            std::lock_guard l(mu);
            last = s;
            cv.notify_all();
        });
    }
    bool waiting(std::size_t n) {
        std::unique_lock l(mu);
        return cv.wait_for(l, 5s, [&] { return last.waiting == n; });
    }
};
}  // namespace

// ---- capture_rule: when the screencast captures ----------------------------------------------

TEST(CaptureRule, NoViewerNoCaptureWhateverTheAgentDoes) {
    br::capture_rule r;
    const auto t = std::chrono::steady_clock::time_point{} + 1h;
    EXPECT_FALSE(r.wanted(t));
    r.call_started(t);
    EXPECT_FALSE(r.wanted(t + 10s));
    r.call_ended(t + 10s);
    EXPECT_FALSE(r.wanted(t + 11s));  // an owed end state needs a viewer too
    EXPECT_FALSE(r.next_change(t + 10s));
    r.set_viewers(1);
    EXPECT_TRUE(r.wanted(t + 11s));
    r.set_viewers(0);
    EXPECT_FALSE(r.wanted(t + 11s));
}

TEST(CaptureRule, CapturesBetweenCallsAndNotDuringAShortOne) {
    br::capture_rule r({500ms, true, 100ms});
    const auto t = std::chrono::steady_clock::time_point{} + 1h;
    r.set_viewers(1);
    EXPECT_TRUE(r.wanted(t));  // the agent thinks (or is paused): the viewer sees the page live
    r.frame(t);
    EXPECT_TRUE(r.wanted(t + 1ms));
    r.call_started(t + 10ms);
    EXPECT_FALSE(r.wanted(t + 10ms));
    EXPECT_FALSE(r.wanted(t + 509ms));
    ASSERT_TRUE(r.next_change(t + 100ms));
    EXPECT_EQ(*r.next_change(t + 100ms), t + 510ms);
    r.call_ended(t + 200ms);
    EXPECT_TRUE(r.end_state_owed());
    EXPECT_FALSE(r.wanted(t + 200ms));  // another call may follow at once
    ASSERT_TRUE(r.next_change(t + 200ms));
    EXPECT_EQ(*r.next_change(t + 200ms), t + 300ms);  // none did: the agent is quiet then
    EXPECT_FALSE(r.wanted(t + 299ms));
    EXPECT_TRUE(r.wanted(t + 300ms));
    EXPECT_FALSE(r.next_change(t + 300ms));
    r.frame(t + 330ms);
    EXPECT_FALSE(r.end_state_owed());
    EXPECT_TRUE(r.wanted(t + 330ms));  // between calls: on
}

TEST(CaptureRule, ABurstOfCallsIsShownOnceAtItsEnd) {
    br::capture_rule r({500ms, true, 100ms});
    const auto t = std::chrono::steady_clock::time_point{} + 1h;
    r.set_viewers(1);
    r.frame(t - 1s);
    // four calls back to back (a host running one model turn's tool calls, a scripted agent),
    // the gaps shorter than settle: no capture between them
    auto at = t;
    for (int i = 0; i < 4; ++i) {
        r.call_started(at);
        EXPECT_FALSE(r.wanted(at + 1ms)) << i;
        r.call_ended(at + 60ms);
        EXPECT_FALSE(r.wanted(at + 60ms)) << i;
        EXPECT_FALSE(r.wanted(at + 99ms)) << i;
        at += 99ms;  // the next starts within settle of this one's end
    }
    // 4 x 99 ms: the burst is shorter than call_interval, so no frame of its pace either
    const auto end = at - 99ms + 60ms;
    EXPECT_FALSE(r.wanted(end + 99ms));
    EXPECT_EQ(*r.next_change(end), end + 100ms);
    EXPECT_TRUE(r.wanted(end + 100ms));  // quiet: the burst's end state
    EXPECT_TRUE(r.end_state_owed());
}

TEST(CaptureRule, ALongBurstIsShownAtItsPaceFromItsStartNotFromEachCall) {
    br::capture_rule r({500ms, true, 100ms});
    const auto t = std::chrono::steady_clock::time_point{} + 1h;
    r.set_viewers(1);
    auto at = t;
    int ticks = 0;
    for (int i = 0; i < 20; ++i) {  // 20 calls of 50 ms, 10 ms apart: 1.19 s of burst
        r.call_started(at);
        for (auto s = at; s < at + 60ms; s += 1ms)
            if (r.wanted(s)) {
                ++ticks;
                r.frame(s + 20ms);  // the frame comes while the call runs
                s += 20ms;
            }
        r.call_ended(at + 50ms);
        at += 60ms;
    }
    EXPECT_EQ(ticks, 2) << "one frame each 500 ms of the burst (at 500 and about 1,020 ms)";
}

TEST(CaptureRule, AStepAfterAGapLongerThanSettleIsShown) {
    br::capture_rule r({500ms, true, 100ms});
    const auto t = std::chrono::steady_clock::time_point{} + 1h;
    r.set_viewers(1);
    r.call_started(t);
    r.call_ended(t + 50ms);
    EXPECT_TRUE(r.wanted(t + 150ms));  // the model thinks: its last step shows
    r.frame(t + 180ms);
    r.call_started(t + 900ms);  // a new burst: its pace counts from here
    EXPECT_FALSE(r.wanted(t + 900ms));
    EXPECT_EQ(*r.next_change(t + 901ms), t + 1400ms);
}

TEST(CaptureRule, WithoutSettleEachCallsEndStateIsCapturedEvenWhenTheNextCallStartsAtOnce) {
    br::capture_rule r({500ms, true, 0ms});
    const auto t = std::chrono::steady_clock::time_point{} + 1h;
    r.set_viewers(1);
    r.call_started(t);
    r.call_ended(t + 50ms);
    EXPECT_TRUE(r.end_state_owed());
    EXPECT_TRUE(r.wanted(t + 50ms));
    r.call_started(t + 51ms);  // back to back: the capture stays on for the first call's end state
    EXPECT_TRUE(r.wanted(t + 51ms));
    EXPECT_TRUE(r.wanted(t + 60ms));
    EXPECT_FALSE(r.next_change(t + 60ms));  // only the frame's arrival turns it off
    r.frame(t + 70ms);
    EXPECT_FALSE(r.end_state_owed());
    EXPECT_FALSE(r.wanted(t + 70ms));  // the second call runs: off
    r.call_ended(t + 100ms);
    EXPECT_TRUE(r.wanted(t + 100ms));
    r.frame(t + 120ms);
    EXPECT_TRUE(r.wanted(t + 120ms));  // between calls: on
}

TEST(CaptureRule, ALongCallIsCapturedOncePerIntervalFromItsStartOrItsLastFrame) {
    br::capture_rule r({500ms});
    const auto t = std::chrono::steady_clock::time_point{} + 1h;
    r.set_viewers(2);
    r.frame(t - 100ms);
    r.call_started(t);  // from its start, not from the frame before it
    EXPECT_FALSE(r.wanted(t + 499ms));
    EXPECT_EQ(*r.next_change(t + 499ms), t + 500ms);
    EXPECT_TRUE(r.wanted(t + 500ms));
    EXPECT_FALSE(r.next_change(t + 500ms));  // on until a frame comes
    EXPECT_TRUE(r.wanted(t + 530ms));
    r.frame(t + 530ms);
    EXPECT_FALSE(r.end_state_owed());
    EXPECT_FALSE(r.wanted(t + 531ms));
    EXPECT_EQ(*r.next_change(t + 531ms), t + 1030ms);
    EXPECT_TRUE(r.wanted(t + 1030ms));
}

TEST(CaptureRule, NoIntervalMeansNoCaptureUntilTheCallEnds) {
    br::capture_rule r({std::chrono::steady_clock::duration::zero()});
    const auto t = std::chrono::steady_clock::time_point{} + 1h;
    r.set_viewers(1);
    r.call_started(t);
    EXPECT_FALSE(r.wanted(t + 1h));
    EXPECT_FALSE(r.next_change(t));
    r.call_ended(t + 1h);
    EXPECT_FALSE(r.wanted(t + 1h));
    EXPECT_EQ(*r.next_change(t + 1h), t + 1h + 100ms);  // settle, then quiet
    EXPECT_TRUE(r.wanted(t + 1h + 100ms));
}

TEST(CaptureRule, WithoutSparingCallsItCapturesWheneverAViewerWatches) {
    br::capture_rule_options o;
    o.spare_calls = false;
    br::capture_rule r(o);
    const auto t = std::chrono::steady_clock::time_point{} + 1h;
    r.call_started(t);
    EXPECT_FALSE(r.wanted(t));
    r.set_viewers(1);
    EXPECT_TRUE(r.wanted(t));
    r.frame(t + 1ms);
    EXPECT_TRUE(r.wanted(t + 1ms));
    EXPECT_FALSE(r.next_change(t + 1ms));
    r.call_ended(t + 2ms);
    EXPECT_TRUE(r.wanted(t + 2ms));
}

TEST(CaptureRule, OverlappingCallsCountAndWithoutSettleTheLaterCallsIntervalStartsOver) {
    br::capture_rule r({500ms, true, 0ms});
    const auto t = std::chrono::steady_clock::time_point{} + 1h;
    r.set_viewers(1);
    r.call_started(t);
    r.call_started(t + 100ms);
    EXPECT_EQ(r.calls(), 2U);
    r.call_ended(t + 400ms);  // one still runs
    EXPECT_TRUE(r.wanted(t + 400ms));  // the first's end state
    r.frame(t + 420ms);
    EXPECT_FALSE(r.wanted(t + 420ms));
    EXPECT_EQ(*r.next_change(t + 421ms), t + 920ms);
    r.call_ended(t + 600ms);
    EXPECT_EQ(r.calls(), 0U);
    EXPECT_TRUE(r.wanted(t + 600ms));
    r.call_ended(t + 700ms);  // an end without a start (a hook installed mid-call) counts nothing below zero
    EXPECT_EQ(r.calls(), 0U);
}

TEST(CaptureRule, OverlappingCallsWithSettleAreOneBurst) {
    br::capture_rule r({500ms, true, 100ms});
    const auto t = std::chrono::steady_clock::time_point{} + 1h;
    r.set_viewers(1);
    r.call_started(t);
    r.call_started(t + 100ms);
    r.call_ended(t + 400ms);  // one still runs: nothing shown yet
    EXPECT_FALSE(r.wanted(t + 400ms));
    EXPECT_EQ(*r.next_change(t + 401ms), t + 500ms);  // the burst's pace, from its start
    r.frame(t + 520ms);
    r.call_ended(t + 600ms);
    EXPECT_EQ(r.calls(), 0U);
    EXPECT_FALSE(r.wanted(t + 600ms));
    EXPECT_TRUE(r.wanted(t + 700ms));
}

TEST(CallGate, RunningLetsCallsPassAtOnce) {
    br::call_gate g;
    std::stop_source s;
    auto ctx = context_with(s);
    auto r = g.enter(ctx, "browser_click");
    ASSERT_TRUE(r);
    EXPECT_EQ(*r, "");
}

TEST(CallGate, PauseHoldsTheNextCallUntilResume) {
    br::call_gate g;
    gate_watch w(g);
    g.pause();
    std::stop_source s;
    auto call = enter_async(g, s, "browser_navigate");
    ASSERT_TRUE(w.waiting(1));
    EXPECT_EQ(g.state().waiting_tool, "browser_navigate");
    EXPECT_EQ(call.wait_for(0ms), std::future_status::timeout) << "held";
    g.resume();
    ASSERT_EQ(call.wait_for(5s), std::future_status::ready);
    EXPECT_TRUE(call.get());
    EXPECT_EQ(g.state().waiting, 0U);
}

TEST(CallGate, StepReleasesExactlyOneCallTheOldest) {
    br::call_gate g;
    gate_watch w(g);
    g.pause();
    std::stop_source s1, s2;
    auto first = enter_async(g, s1, "first");
    ASSERT_TRUE(w.waiting(1));
    auto second = enter_async(g, s2, "second");
    ASSERT_TRUE(w.waiting(2));
    g.step();
    ASSERT_EQ(first.wait_for(5s), std::future_status::ready) << "the oldest goes";
    EXPECT_TRUE(first.get());
    ASSERT_TRUE(w.waiting(1));
    EXPECT_EQ(second.wait_for(0ms), std::future_status::timeout) << "one step, one call";
    EXPECT_EQ(g.state().mode, br::gate_mode::paused);
    g.step();
    ASSERT_EQ(second.wait_for(5s), std::future_status::ready);
    EXPECT_TRUE(second.get());
}

TEST(CallGate, AHeldCallEndsCancelledWhenItsStopTokenIsRequested) {
    br::call_gate g;
    gate_watch w(g);
    g.pause();
    std::stop_source s;
    auto call = enter_async(g, s, "browser_click");
    ASSERT_TRUE(w.waiting(1));
    const auto t0 = std::chrono::steady_clock::now();
    s.request_stop();
    ASSERT_EQ(call.wait_for(5s), std::future_status::ready);
    EXPECT_LT(std::chrono::steady_clock::now() - t0, 1s) << "woken by the cancellation, not by the progress interval";
    auto r = call.get();
    ASSERT_FALSE(r);
    EXPECT_TRUE(r.error().is(agentkit::errc::tool_cancelled)) << r.error().to_text();
    EXPECT_EQ(g.state().waiting, 0U);
    // the gate still works: a step goes to the next call, not to the cancelled one
    std::stop_source s2;
    auto next = enter_async(g, s2, "next");
    ASSERT_TRUE(w.waiting(1));
    g.step();
    ASSERT_EQ(next.wait_for(5s), std::future_status::ready);
    EXPECT_TRUE(next.get());
}

TEST(CallGate, ACancelledCallOutOfOrderDoesNotStealTheNextStep) {
    br::call_gate g;
    gate_watch w(g);
    g.pause();
    std::stop_source s1, s2;
    auto first = enter_async(g, s1, "first");
    ASSERT_TRUE(w.waiting(1));
    auto second = enter_async(g, s2, "second");
    ASSERT_TRUE(w.waiting(2));
    s1.request_stop();  // the oldest leaves
    ASSERT_EQ(first.wait_for(5s), std::future_status::ready);
    EXPECT_FALSE(first.get());
    ASSERT_TRUE(w.waiting(1));
    g.step();
    ASSERT_EQ(second.wait_for(5s), std::future_status::ready) << "the step goes to the call now oldest";
    EXPECT_TRUE(second.get());
}

TEST(CallGate, AHeldCallReportsProgressWhileItWaits) {
    br::call_gate g(std::chrono::milliseconds(10));
    gate_watch w(g);
    g.pause();
    std::stop_source s;
    std::vector<std::string> progress;
    std::mutex pm;
    std::condition_variable pcv;
    auto call = std::async(std::launch::async, [&] {
        agentkit::tool_context ctx;
        ctx.stop = s.get_token();
        ctx.on_progress = [&](double, std::optional<double>, std::string_view m) {
            std::lock_guard l(pm);
            progress.emplace_back(m);
            pcv.notify_all();
        };
        return g.enter(ctx, "browser_click");
    });
    {
        std::unique_lock l(pm);
        ASSERT_TRUE(pcv.wait_for(l, 5s, [&] { return progress.size() >= 2; }));
        EXPECT_NE(progress.front().find("paused"), std::string::npos) << progress.front();
    }
    g.resume();
    ASSERT_EQ(call.wait_for(5s), std::future_status::ready);
    EXPECT_TRUE(call.get());
}

TEST(CallGate, TakeControlHoldsCallsAndHandBackGivesTheReportToTheNextCallOnly) {
    br::call_gate g;
    gate_watch w(g);
    EXPECT_TRUE(g.take_control());
    EXPECT_FALSE(g.take_control()) << "one person at a time";
    g.step();  // no effect while controlled
    std::stop_source s;
    auto call = enter_async(g, s, "browser_snapshot");
    ASSERT_TRUE(w.waiting(1));
    EXPECT_EQ(g.state().mode, br::gate_mode::controlled);
    g.resume();  // resume does not take control away from the person
    EXPECT_EQ(call.wait_for(0ms), std::future_status::timeout);
    EXPECT_TRUE(g.hand_back("the person clicked Buy"));
    ASSERT_EQ(call.wait_for(5s), std::future_status::ready);
    auto r = call.get();
    ASSERT_TRUE(r);
    EXPECT_EQ(*r, "the person clicked Buy");
    auto ctx = context_with(s);
    auto again = g.enter(ctx, "next");
    ASSERT_TRUE(again);
    EXPECT_EQ(*again, "") << "the report is given once";
    EXPECT_FALSE(g.hand_back("x")) << "nobody has control";
}

TEST(CallGate, CloseReleasesHeldCallsCancelled) {
    br::call_gate g;
    gate_watch w(g);
    g.pause();
    std::stop_source s;
    auto call = enter_async(g, s, "x");
    ASSERT_TRUE(w.waiting(1));
    g.close();
    ASSERT_EQ(call.wait_for(5s), std::future_status::ready);
    auto r = call.get();
    ASSERT_FALSE(r);
    EXPECT_TRUE(r.error().is(agentkit::errc::tool_cancelled));
}

TEST(Timeline, KeepsTheNewestStepsAndReportsEachChange) {
    br::timeline t(2);
    std::vector<std::string> states;
    t.on_change([&](const br::timeline_step& s) { states.push_back(s.tool + ":" + s.state); });
    const auto a = t.begin("one", agentkit::json::object());
    const auto b = t.begin("two", agentkit::json::object(), true);
    t.running(b);
    br::call_record r;
    r.tool = "two";
    r.metrics.ok = false;
    r.error = "error[timeout]: x";
    r.artifacts = {"a1"};
    t.finish(b, r);
    (void)t.begin("three", agentkit::json::object());
    EXPECT_EQ(states, (std::vector<std::string>{"one:running", "two:waiting", "two:running", "two:error", "three:running"}));
    auto kept = t.since(0);
    ASSERT_EQ(kept.size(), 2U);
    EXPECT_EQ(kept[0].id, b);
    EXPECT_EQ(kept[0].artifacts, (std::vector<std::string>{"a1"}));
    EXPECT_EQ(t.since(b).size(), 1U);
    EXPECT_NE(a, b);
}
