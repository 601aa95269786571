// agentkit/browser/capture_rule.hpp — when a live view's screencast captures: the rule that
// keeps a viewer from slowing the agent it watches.
//
// While Chromium's screencast is on, the browser captures the screen at every frame it draws
// (about half a core on an animated page) whether or not any frame is acknowledged or encoded:
// maxFramesInFlight and everyNthFrame cut the encoding, not the capture. Only stopping the
// screencast stops the capture. So a live view captures:
//   - never without a viewer;
//   - while no agent call runs (the agent waits for its model then, or is paused): as fast as
//     the viewers take frames (browser/frame_pump.hpp paces them);
//   - right after each call, until a frame captured after the call's end arrived, so a viewer
//     never misses a step's end state (the capture overlaps the next call's start when the
//     calls come back to back: one frame's worth);
//   - during a call, one frame each `call_interval` (from the call's start or the last frame,
//     whichever is later) so a long call (a slow page loading) still shows; a call shorter than
//     that is not captured at all;
// and is off otherwise. The rule is state and time only (no browser, no thread, no lock; the
// live view holds it under its lock and applies wanted() with browser::set_screencast_capture);
// next_change() says when wanted() flips without an event, for the thread that applies it.
//
//   capture_rule r({500ms});
//   r.set_viewers(1);  r.wanted(now);          // true: nothing runs
//   r.call_started(now);  r.wanted(now);        // false (until 500 ms of call without a frame)
//   r.call_ended(now);  r.wanted(now);         // true until frame(now): the step's end state
#pragma once

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <optional>

namespace agentkit::browser {

/// How a capture_rule paces the capture during an agent's call.
struct capture_rule_options {
    /// During a call, at most one frame this often (0: none until the call ends).
    std::chrono::steady_clock::duration call_interval = std::chrono::milliseconds(500);
    /// False: capture whenever a viewer watches, calls or not (the agent's page then competes
    /// with the capture; for comparison).
    bool spare_calls = true;
};

/// When a live view's screencast should capture (see the header comment). Not thread-safe:
/// its owner serializes the calls.
class capture_rule {
public:
    /// The clock the rule's times are read on.
    using clock = std::chrono::steady_clock;

    /// A rule with these options, no viewer, no call running.
    explicit capture_rule(capture_rule_options o = {}) : opt_(o) {}

    /// The number of viewers now.
    void set_viewers(std::size_t n) noexcept { viewers_ = n; }
    /// An agent call starts touching the browser at `now` (after any pause let it through).
    void call_started(clock::time_point now) noexcept {
        if (calls_++ == 0) call_since_ = now;
    }
    /// An agent call ended at `now`: its end state is owed to the viewers until the next frame.
    void call_ended(clock::time_point now) noexcept {
        if (calls_ > 0) --calls_;
        owed_ = true;
        if (calls_ > 0) call_since_ = now;  // another call still runs: its interval starts over
    }
    /// A frame arrived at `now`. The first one after a call's end pays its end state: the
    /// capture is off during a call, so it was captured after the end (unless it was a frame of
    /// a long call's pace captured in the last few ms before the end, or one sent before the
    /// browser got the stop: Chromium's frame timestamps are swap times, which a refresh frame
    /// of an unchanged page does not renew, so they cannot tell).
    void frame(clock::time_point now) noexcept {
        last_frame_ = now;
        owed_ = false;
    }

    /// Whether the screencast should capture at `now`.
    [[nodiscard]] bool wanted(clock::time_point now) const noexcept {
        if (viewers_ == 0) return false;
        if (owed_ || calls_ == 0 || !opt_.spare_calls) return true;
        return opt_.call_interval > clock::duration::zero() && now >= tick_at();
    }
    /// When wanted() turns true with no event (a call's next frame is due); nothing when only an
    /// event can change it. A time already past means now.
    [[nodiscard]] std::optional<clock::time_point> next_change(clock::time_point now) const noexcept {
        if (viewers_ == 0 || calls_ == 0 || owed_ || !opt_.spare_calls || opt_.call_interval <= clock::duration::zero())
            return std::nullopt;
        const auto at = tick_at();
        if (now >= at) return std::nullopt;  // wanted() is true already: a frame's arrival changes it
        return at;
    }
    /// Calls running now.
    [[nodiscard]] std::size_t calls() const noexcept { return calls_; }
    /// True while a step's end state has not been captured yet.
    [[nodiscard]] bool end_state_owed() const noexcept { return owed_; }

private:
    clock::time_point tick_at() const noexcept { return std::max(call_since_, last_frame_) + opt_.call_interval; }

    capture_rule_options opt_;
    std::size_t viewers_ = 0, calls_ = 0;
    clock::time_point call_since_{}, last_frame_{};
    bool owed_ = false;
};

}  // namespace agentkit::browser
