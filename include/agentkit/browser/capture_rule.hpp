// agentkit/browser/capture_rule.hpp — when a live view's screencast captures: the rule that
// keeps a viewer from slowing the agent it watches.
//
// While Chromium's screencast is on, the browser captures the screen at every frame it draws
// (about half a core on an animated page) whether or not any frame is acknowledged or encoded:
// maxFramesInFlight and everyNthFrame cut the encoding, not the capture. Only stopping the
// screencast stops the capture. So a live view captures:
//   - never without a viewer;
//   - while the agent is quiet (no call runs and none ended in the last `settle`: it waits for
//     its model then, or is paused): as fast as the viewers take frames (browser/live/frame_pump.hpp
//     paces them). The first frame then shows the end state of the agent's last step;
//   - during a burst of calls (calls that run, or follow each other within `settle`: a host
//     running a model's several tool calls of one turn, a scripted agent), one frame each
//     `call_interval` from the burst's start or its last frame, whichever is later, so a long
//     call (a slow page loading) or a long burst still shows; a burst shorter than that is
//     shown once, at its end, `settle` after its last call;
// and is off otherwise. A step whose next call follows within `settle` is not shown on its
// own (the timeline still lists it); a model's thinking between steps is longer than `settle`,
// so an agent driven by one is shown at every step. `settle` = 0 captures each call's end
// state as it ends, until a frame arrived, even while the next call already runs.
//
// The rule is state and time only (no browser, no thread, no lock; the live view holds it
// under its lock and applies wanted() with browser::set_screencast_capture); next_change()
// says when wanted() flips without an event, for the thread that applies it.
//
//   capture_rule r({500ms});                    // settle 100 ms
//   r.set_viewers(1);  r.wanted(now);          // true: nothing runs
//   r.call_started(now);  r.wanted(now);        // false (until 500 ms of burst without a frame)
//   r.call_ended(now);  r.wanted(now);         // false; true from now + 100 ms if no call starts
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
    /// A call that starts this soon after the last one ended continues its burst; the agent is
    /// quiet (captured at the viewers' pace) this long after its last call ended. 0: each
    /// call's end state is captured at once, even when the next call starts meanwhile.
    std::chrono::steady_clock::duration settle = std::chrono::milliseconds(100);
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
        if (calls_++ == 0 && !within_settle(now)) burst_since_ = now;  // a new burst
    }
    /// An agent call ended at `now`: its end state is owed to the viewers until the next frame.
    void call_ended(clock::time_point now) noexcept {
        if (calls_ > 0) --calls_;
        owed_ = true;
        ended_at_ = now;
        ended_ = true;
        // settle 0: the end state is captured at once, and another call's interval starts over
        if (calls_ > 0 && !settles()) burst_since_ = now;
    }
    /// A frame arrived at `now`. The first one after a call's end pays its end state: the
    /// capture is off during a burst, so it was captured after the end (unless it was a frame
    /// of a long burst's pace captured in the last few ms before the end, or one sent before the
    /// browser got the stop: Chromium's frame timestamps are swap times, which a refresh frame
    /// of an unchanged page does not renew, so they cannot tell).
    void frame(clock::time_point now) noexcept {
        last_frame_ = now;
        owed_ = false;
    }

    /// Whether the screencast should capture at `now`.
    [[nodiscard]] bool wanted(clock::time_point now) const noexcept {
        if (viewers_ == 0) return false;
        if (!opt_.spare_calls || quiet(now)) return true;
        if (owed_ && !settles()) return true;
        return paced() && now >= tick_at();
    }
    /// When wanted() turns true with no event (the agent turns quiet, or a burst's next frame
    /// is due); nothing when only an event can change it. wanted() never turns false with time.
    [[nodiscard]] std::optional<clock::time_point> next_change(clock::time_point now) const noexcept {
        if (viewers_ == 0 || wanted(now)) return std::nullopt;
        std::optional<clock::time_point> at;
        if (calls_ == 0) at = ended_at_ + opt_.settle;  // within settle: quiet at its end
        if (paced()) at = at ? std::min(*at, tick_at()) : tick_at();
        return at;
    }
    /// Calls running now.
    [[nodiscard]] std::size_t calls() const noexcept { return calls_; }
    /// True while a step's end state has not been captured yet.
    [[nodiscard]] bool end_state_owed() const noexcept { return owed_; }

private:
    bool settles() const noexcept { return opt_.settle > clock::duration::zero(); }
    bool paced() const noexcept { return opt_.call_interval > clock::duration::zero(); }
    bool within_settle(clock::time_point now) const noexcept { return ended_ && settles() && now < ended_at_ + opt_.settle; }
    bool quiet(clock::time_point now) const noexcept { return calls_ == 0 && !within_settle(now); }
    clock::time_point tick_at() const noexcept { return std::max(burst_since_, last_frame_) + opt_.call_interval; }

    capture_rule_options opt_;
    std::size_t viewers_ = 0, calls_ = 0;
    clock::time_point burst_since_{}, last_frame_{}, ended_at_{};
    bool owed_ = false, ended_ = false;
};

}  // namespace agentkit::browser
