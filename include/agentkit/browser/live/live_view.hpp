// agentkit/browser/live/live_view.hpp — what an operator watches and steers of one agent's browser:
// the screencast (paced by its viewers), the step timeline, the pause gate, and a person's
// control with the change report on hand-back. No network here: browser/live/dashboard.hpp serves
// live views to a page; a host can also drive one directly.
//
//   agentkit::browser::tool_state st(browser, store);
//   agentkit::browser::live_view live(st, "agent-1");   // hooks into st's tools until destroyed
//   live.gate().pause();                                  // the next browser call waits
//   live.take_control();  live.input({...});  auto report = live.hand_back();
//
// The live view installs tools_options::before_call (the gate, and the timeline's start of a
// step) and on_record (the timeline's end of a step; the screencast follows the current tab)
// in the tool state, chaining to hooks already there, and restores them when destroyed. It
// must outlive no call in flight: destroy it when the tools are idle. The same hooks tell the
// capture rule (browser/capture_rule.hpp) when a call runs: during a burst of calls the agent's
// browser hardly captures the screen; once the agent is quiet, it does. A thread of its own (the
// pacer) turns the capture on when the agent turns quiet or a long burst's next frame is due.
#pragma once

#include <agentkit/browser/live/timeline.hpp>
#include <agentkit/browser/browser.hpp>
#include <agentkit/browser/live/call_gate.hpp>
#include <agentkit/browser/capture_rule.hpp>
#include <agentkit/browser/live/frame_pump.hpp>
#include <agentkit/browser/tool_state.hpp>
#include <agentkit/core/error.hpp>
#include <agentkit/core/json.hpp>
#include <agentkit/core/result.hpp>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>
#include <utility>

namespace agentkit::browser {

/// How a live_view behaves.
struct live_view_options {
    screencast_options screencast{};  ///< frame size and quality
    /// When the screencast captures: never during a burst of the agent's calls but for one frame
    /// each call_interval, and always once it is quiet (browser/capture_rule.hpp).
    capture_rule_options capture{};
    std::chrono::milliseconds progress_interval{1000};  ///< progress reports of a held call
    std::size_t timeline_capacity = 1000;  ///< steps kept
};

/// The live view of one agent's browser (see the header comment).
class live_view {
public:
    /// A live view of the browser tools of `st`, named `name` in a dashboard.
    explicit live_view(tool_state& st, std::string name = "agent", live_view_options o = {})
        : st_(st), name_(std::move(name)), opt_(o), gate_(o.progress_interval),
          pump_([b = &st.b](const screencast_frame& f) { b->ack_screencast_frame(f); }), steps_(o.timeline_capacity),
          rule_(o.capture) {
        prev_before_ = st_.options.before_call;
        prev_record_ = st_.options.on_record;
        st_.options.before_call = [this](const call_start& s, tool_context& ctx) { return before_call(s, ctx); };
        st_.options.on_record = [this](const call_record& r) { after_call(r); };
        st_.b.set_screencast_sink([this](screencast_frame f) {
            {
                std::lock_guard lock(cap_mu_);
                rule_.frame(std::chrono::steady_clock::now());
            }
            pump_.offer(std::move(f));
            apply_capture();
        });
        pacer_ = std::thread([this] { pace(); });
        gate_.on_change([this](const gate_state& g) { emit(json{{"type", "gate"}, {"view", name_}, {"gate", gate_json(g)}}); });
        steps_.on_change([this](const timeline_step& s) { emit(json{{"type", "step"}, {"view", name_}, {"step", s.to_json()}}); });
    }
    live_view(const live_view&) = delete;
    live_view& operator=(const live_view&) = delete;
    ~live_view() {
        st_.b.set_screencast_sink({});  // first: returns once no frame is in our sink (it uses every member)
        gate_.close();  // held calls end (cancelled); later ones pass
        {
            std::lock_guard lock(cap_mu_);
            closing_ = true;
            cap_cv_.notify_all();
        }
        pacer_.join();
        if (pump_.viewers() > 0) st_.b.stop_screencast();
        st_.options.before_call = prev_before_;
        st_.options.on_record = prev_record_;
        std::lock_guard lock(mu_);
        listeners_.clear();
    }

    /// Its name in a dashboard.
    [[nodiscard]] const std::string& name() const noexcept { return name_; }
    /// The browser it shows.
    [[nodiscard]] browser& page_browser() noexcept { return st_.b; }
    /// The artifact store of its tools (what the timeline's artifact ids name).
    [[nodiscard]] bounded_artifacts& store() noexcept { return st_.store; }
    /// The pause gate.
    [[nodiscard]] call_gate& gate() noexcept { return gate_; }
    /// The screencast's flow control.
    [[nodiscard]] frame_pump& frames() noexcept { return pump_; }
    /// The step timeline.
    [[nodiscard]] timeline& steps() noexcept { return steps_; }

    /// Listen to its events (JSON: {"type":"step",...}, {"type":"gate",...}); returns an id for
    /// unlisten(). Called on the thread that made the change; must return at once.
    std::uint64_t listen(std::function<void(const json&)> f) {
        std::lock_guard lock(mu_);
        listeners_.emplace_back(++next_listener_, std::move(f));
        return next_listener_;
    }
    /// Stop listening.
    void unlisten(std::uint64_t id) {
        std::lock_guard lock(mu_);
        std::erase_if(listeners_, [id](const auto& l) { return l.first == id; });
    }

    /// A viewer of the screencast arrives, wanting a frame at most every `min_interval` (0: as
    /// fast as it shows them); `ready` is called when it may take a frame (see frame_pump: its
    /// thread calls frames().take() when woken and at frames().due(), and viewer_ack() once it
    /// showed a frame). The first viewer starts the screencast (at once when the browser runs,
    /// else after the agent's first browser call). The browser encodes only the frames the
    /// viewers are ready for, and captures only as capture_rule says (hardly during a burst of
    /// the agent's calls, always once it is quiet).
    std::uint64_t attach_viewer(std::function<void()> ready,
                                std::chrono::steady_clock::duration min_interval = std::chrono::steady_clock::duration::zero()) {
        const auto id = pump_.add_viewer(std::move(ready), min_interval);
        {
            std::lock_guard lock(cap_mu_);
            rule_.set_viewers(pump_.viewers());
        }
        follow_tab();
        apply_capture();
        return id;
    }
    /// A viewer leaves; the last one stops the screencast.
    void detach_viewer(std::uint64_t id) {
        pump_.remove_viewer(id);
        {
            std::lock_guard lock(cap_mu_);
            rule_.set_viewers(pump_.viewers());
        }
        if (pump_.viewers() == 0) {
            st_.b.stop_screencast();
            pump_.reset();
            std::lock_guard lock(mu_);
            cast_tab_.clear();
        }
        apply_capture();
    }

    /// A person takes control: the agent's calls wait until hand_back(). errc::args_invalid
    /// when someone has it already.
    result<void> take_control() {
        if (!gate_.take_control())
            return fail(errc::args_invalid, "a person has control already", "Hand it back first.");
        auto m = st_.b.mark_page();  // waits for a call in flight to end
        std::lock_guard lock(mu_);
        mark_ = m ? *m : page_mark{};
        return {};
    }

    /// Hand control back: the agent's next call starts its result with what changed (the same
    /// change report as after an action, or the new page), which is also returned.
    /// errc::args_invalid when nobody has control.
    result<std::string> hand_back() {
        if (gate_.state().mode != gate_mode::controlled)
            return fail(errc::args_invalid, "nobody has control", "Take control first.");
        page_mark m;
        {
            std::lock_guard lock(mu_);
            m = mark_;
        }
        std::string report;
        if (st_.b.running()) {
            auto c = st_.b.changes_since(m);
            report = c ? c->to_text() : "(what changed could not be read: " + c.error().message + ")";
        }
        if (report.empty()) report = "no visible change";
        report = st_.b.redact("A person had control of the browser and handed it back. What changed meanwhile:\n" + report);
        gate_.hand_back(report);
        return report;
    }

    /// A person's input while they have control: {"type":"mouse","event":"mousePressed"|
    /// "mouseReleased"|"mouseMoved"|"mouseWheel","x","y","button","clickCount","deltaX","deltaY",
    /// "modifiers"}, {"type":"key","event":"keyDown"|"keyUp"|"rawKeyDown"|"char","key","code",
    /// "text","keyCode","modifiers"} or {"type":"text","text"}, coordinates in CSS pixels of the
    /// viewport. Only the fields named are forwarded (Input.dispatchMouseEvent, dispatchKeyEvent,
    /// insertText). errc::args_invalid when nobody has control or the event is malformed.
    result<void> input(const json& ev) {
        if (gate_.state().mode != gate_mode::controlled)
            return fail(errc::args_invalid, "input is forwarded only while a person has control", "Take control first.");
        if (!ev.is_object()) return fail(errc::args_invalid, "an input event is a JSON object");
        const std::string type = ev.value("type", "");
        const auto num = [&](const char* k, double lo, double hi) {
            const auto it = ev.find(k);
            return it != ev.end() && it->is_number() ? std::clamp(it->get<double>(), lo, hi) : 0.0;
        };
        const auto str = [&](const char* k, std::size_t max) {
            const auto it = ev.find(k);
            std::string s = it != ev.end() && it->is_string() ? it->get<std::string>() : std::string();
            return s.size() > max ? std::string() : s;
        };
        const auto modifiers = static_cast<int>(num("modifiers", 0, 15));
        if (type == "mouse") {
            const std::string e = ev.value("event", "");
            if (e != "mousePressed" && e != "mouseReleased" && e != "mouseMoved" && e != "mouseWheel")
                return fail(errc::args_invalid, "unknown mouse event: " + e);
            std::string button = str("button", 8);
            if (button != "left" && button != "right" && button != "middle") button = "none";
            json p{{"type", e}, {"x", num("x", 0, 100000)}, {"y", num("y", 0, 100000)}, {"modifiers", modifiers}, {"button", button}};
            if (e == "mousePressed" || e == "mouseReleased") p["clickCount"] = static_cast<int>(num("clickCount", 0, 3));
            if (e == "mouseWheel") {
                p["deltaX"] = num("deltaX", -10000, 10000);
                p["deltaY"] = num("deltaY", -10000, 10000);
            }
            return st_.b.dispatch_input("Input.dispatchMouseEvent", std::move(p));
        }
        if (type == "key") {
            const std::string e = ev.value("event", "");
            if (e != "keyDown" && e != "keyUp" && e != "rawKeyDown" && e != "char")
                return fail(errc::args_invalid, "unknown key event: " + e);
            json p{{"type", e}, {"modifiers", modifiers}, {"key", str("key", 32)}, {"code", str("code", 32)}};
            if (const std::string t = str("text", 8); !t.empty()) p["text"] = t;
            if (const auto k = static_cast<int>(num("keyCode", 0, 255)); k > 0) {
                p["windowsVirtualKeyCode"] = k;
                p["nativeVirtualKeyCode"] = k;
            }
            return st_.b.dispatch_input("Input.dispatchKeyEvent", std::move(p));
        }
        if (type == "text") {
            const std::string t = str("text", 10000);
            if (t.empty()) return fail(errc::args_invalid, "no text (or more than 10000 bytes)");
            return st_.b.dispatch_input("Input.insertText", json{{"text", t}});
        }
        return fail(errc::args_invalid, "unknown input type: " + type, "Use mouse, key or text.");
    }

    /// The view as a dashboard lists it: name, gate, tabs (redacted), the screencast's tab and the
    /// frame counters. Never waits for a browser call in flight (browser::peek()): the tabs are
    /// as the browser's events left them.
    [[nodiscard]] json describe() {
        json tabs = json::array();
        for (const auto& x : st_.b.peek().tabs)
            tabs.push_back(json{{"id", x.id}, {"url", x.url}, {"title", x.title}, {"active", x.active}});
        const auto f = pump_.stats();
        return json{{"name", name_},
                    {"gate", gate_json(gate_.state())},
                    {"tabs", std::move(tabs)},
                    {"screencast_tab", st_.b.screencast_tab()},
                    {"frames", json{{"offered", f.offered}, {"acked", f.acked}, {"sent", f.sent}, {"superseded", f.superseded},
                                    {"bytes_sent", f.bytes_sent}, {"viewers", f.viewers}}},
                    {"steps", steps_.last_id()}};
    }

    /// A gate state as JSON.
    [[nodiscard]] static json gate_json(const gate_state& g) {
        return json{{"mode", std::string(to_string(g.mode))}, {"paused", g.paused}, {"waiting", g.waiting},
                    {"waiting_tool", g.waiting_tool}, {"steps", g.steps}};
    }

private:
    result<std::string> before_call(const call_start& s, tool_context& ctx) {
        std::string lead;
        if (prev_before_) {
            auto p = prev_before_(s, ctx);
            if (!p) return p;
            lead = std::move(*p);
        }
        const bool held = gate_.state().mode != gate_mode::running;
        const auto id = steps_.begin(s.tool, s.args, held);
        current_step() = id;
        auto r = gate_.enter(ctx, s.tool);
        if (held && r) steps_.running(id);
        if (!r) return r;
        in_call() = true;  // it touches the browser now: capture only at the call's pace
        {
            std::lock_guard lock(cap_mu_);
            rule_.call_started(std::chrono::steady_clock::now());
        }
        apply_capture();
        if (!r->empty()) lead = lead.empty() ? std::move(*r) : *r + "\n" + lead;
        return lead;
    }

    void after_call(const call_record& r) {
        if (prev_record_) {
            try {
                prev_record_(r);
            } catch (...) {
            }
        }
        if (const auto id = std::exchange(current_step(), 0); id != 0) steps_.finish(id, r);
        if (std::exchange(in_call(), false)) {
            std::lock_guard lock(cap_mu_);
            rule_.call_ended(std::chrono::steady_clock::now());  // its end state is owed: captured once quiet
        }
        follow_tab();
        apply_capture();
    }

    /// Turn the capture on or off as the rule says now.
    void apply_capture() {
        std::lock_guard lock(cap_mu_);
        st_.b.set_screencast_capture(rule_.wanted(std::chrono::steady_clock::now()));
        cap_cv_.notify_all();  // the rule's next change may have moved
    }

    /// The pacer thread: turns the capture on when a long call's next frame is due.
    void pace() {
        std::unique_lock lock(cap_mu_);
        while (!closing_) {
            const auto now = std::chrono::steady_clock::now();
            st_.b.set_screencast_capture(rule_.wanted(now));
            if (const auto next = rule_.next_change(now)) cap_cv_.wait_until(lock, *next);
            else cap_cv_.wait(lock);
        }
    }

    /// While someone watches, the screencast shows the current tab.
    void follow_tab() {
        if (pump_.viewers() == 0 || !st_.b.running()) return;
        auto t = st_.b.start_screencast(opt_.screencast);
        if (!t) return;
        std::lock_guard lock(mu_);
        if (*t != cast_tab_) {
            if (!cast_tab_.empty()) pump_.reset();
            cast_tab_ = *t;
        }
    }

    void emit(const json& e) {
        std::vector<std::function<void(const json&)>> ls;
        {
            std::lock_guard lock(mu_);
            for (const auto& [id, f] : listeners_) ls.push_back(f);
        }
        for (const auto& f : ls) {
            try {
                f(e);
            } catch (...) {
            }
        }
    }

    static bool& in_call() {
        thread_local bool in = false;  // this thread's call passed the gate (before_call → on_record)
        return in;
    }

    static std::uint64_t& current_step() {
        thread_local std::uint64_t id = 0;  // the step of the call on this thread (before_call → on_record)
        return id;
    }

    tool_state& st_;
    std::string name_;
    live_view_options opt_;
    call_gate gate_;
    frame_pump pump_;
    timeline steps_;
    std::function<result<std::string>(const call_start&, tool_context&)> prev_before_;
    std::function<void(const call_record&)> prev_record_;
    std::mutex mu_;
    std::vector<std::pair<std::uint64_t, std::function<void(const json&)>>> listeners_;
    std::uint64_t next_listener_ = 0;
    page_mark mark_;
    std::string cast_tab_;
    std::mutex cap_mu_;  // rule_, closing_; taken before the browser's own locks
    std::condition_variable cap_cv_;
    capture_rule rule_;
    bool closing_ = false;
    std::thread pacer_;  // last: started when everything it uses is built
};

}  // namespace agentkit::browser
