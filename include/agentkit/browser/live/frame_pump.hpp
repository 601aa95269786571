// agentkit/browser/live/frame_pump.hpp — flow control between a screencast and its viewers.
//
// The browser sends a screencast frame, then waits for its acknowledgement before it sends
// more (the live view asks Chromium for one frame in flight: screencast_options). Encoding a
// frame costs the browser CPU that the agent's page competes for, so the pump acknowledges a
// frame only when a viewer is ready for the next one, and the browser encodes only what the
// viewers show:
//   - a viewer is ready when it showed its last frame (viewer_ack) and its interval (the
//     frame rate it asked for, add_viewer) has passed since it took that frame;
//   - a ready viewer takes the newest frame when it has not had it yet; when it has, it is
//     hungry: the frames owed to the browser are acknowledged then, and the browser sends the
//     next one (Chromium at once with the screen as it is now when send_last_frame is on);
//   - so the frame rate follows the fastest viewer, up to its interval; a slow viewer skips
//     frames (always the newest, never a backlog) and holds nobody;
//   - no frame is left unacknowledged for good: it is acknowledged when a viewer is ready for
//     the next, when the last viewer leaves, on reset(), and at once when nobody watches (the
//     live view stops the screencast then);
//   - the last frame the browser sends reaches every viewer: a viewer busy when it came takes
//     it once it is ready.
// Time comes from a clock the pump is given (tests use a fake one); nothing here sleeps or
// runs a timer: a viewer's thread asks due() when to look again (before every wait: a time
// already past means look now, so an interval ending between take() and due() is not slept
// through).
//
//   frame_pump pump([&](const screencast_frame& f) { browser.ack_screencast_frame(f); });
//   auto v = pump.add_viewer([&] { peer.wake(); }, 66ms);  // wake: viewer v may take a frame
//   pump.offer(frame);                                       // the CDP event thread
//   if (auto f = pump.take(v)) send(*f);                     // the viewer's thread, when woken or due
//   pump.viewer_ack(v);                                      // the viewer showed it
//   wait until pump.due(v) (if any) or a wake, then take() again
#pragma once

#include <agentkit/browser/results.hpp>

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <utility>
#include <vector>

namespace agentkit::browser {

/// Counters of a frame_pump.
struct frame_pump_stats {
    std::uint64_t offered = 0;     ///< frames from the browser
    std::uint64_t acked = 0;       ///< acknowledgements sent to the browser (one per frame)
    std::uint64_t sent = 0;        ///< frames taken by viewers (summed over viewers)
    std::uint64_t superseded = 0;  ///< frames replaced by a newer one before any viewer took them
    std::uint64_t unwatched = 0;   ///< frames dropped because no viewer was there
    std::uint64_t bytes_sent = 0;  ///< base64 bytes taken by viewers
    std::size_t unacked = 0;       ///< frames the browser waits to have acknowledged, now
    std::size_t max_unacked = 0;   ///< the most it ever waited for at once
    std::size_t viewers = 0;       ///< viewers now
};

/// A frame as the pump hands it out: shared, never copied per viewer.
struct pumped_frame {
    std::uint64_t seq = 0;  ///< the pump's number for it (1, 2, ...)
    std::shared_ptr<const screencast_frame> frame;  ///< the frame
    std::chrono::steady_clock::time_point received;  ///< when the pump got it (its clock)
};

/// How a frame_pump tells time.
struct frame_pump_options {
    /// The clock (steady_clock::now when empty); tests give a fake one.
    std::function<std::chrono::steady_clock::time_point()> now;
};

/// Flow control between one screencast and its viewers (see the header comment). Thread-safe.
class frame_pump {
public:
    /// The clock intervals and frame times are read on.
    using clock = std::chrono::steady_clock;

    /// A pump that acknowledges frames to the browser with `ack` (called without the pump's lock).
    explicit frame_pump(std::function<void(const screencast_frame&)> ack, frame_pump_options o = {})
        : ack_(std::move(ack)), now_(o.now ? std::move(o.now) : [] { return clock::now(); }) {}
    frame_pump(const frame_pump&) = delete;
    frame_pump& operator=(const frame_pump&) = delete;

    /// Add a viewer that wants a frame at most every `min_interval` (0: as fast as it shows
    /// them); `ready` is called (from any thread, without the pump's lock) when it may take a
    /// frame, never after remove_viewer(id) returned. Returns its id. It is woken at once when a
    /// frame is there.
    std::uint64_t add_viewer(std::function<void()> ready, clock::duration min_interval = clock::duration::zero()) {
        std::unique_lock lock(mu_);
        const std::uint64_t id = ++next_viewer_;
        viewer v;
        if (ready) v.ready = std::make_shared<wake_gate>(std::move(ready));
        v.interval = std::max(clock::duration::zero(), min_interval);
        v.next_at = now_();
        auto wake = v.ready;
        viewers_[id] = std::move(v);
        const bool has = latest_.frame != nullptr;
        lock.unlock();
        if (has && wake) wake->call();
        return id;
    }

    /// Remove a viewer (its frame in flight no longer counts). When it returns, the viewer's
    /// `ready` is neither running on another thread nor called again, so what it captured may
    /// go (called from inside that `ready`, it returns at once). The last viewer leaving
    /// acknowledges what the browser waits for.
    void remove_viewer(std::uint64_t id) {
        std::unique_lock lock(mu_);
        auto it = viewers_.find(id);
        std::shared_ptr<wake_gate> gone;
        if (it != viewers_.end()) {
            gone = std::move(it->second.ready);
            viewers_.erase(it);
        }
        std::vector<std::shared_ptr<const screencast_frame>> release;
        std::vector<std::shared_ptr<wake_gate>> wake;
        if (viewers_.empty()) {
            release = take_owed();  // nobody will take them: let the browser go on (the screencast stops)
        } else {
            for (auto& [vid, v] : viewers_)  // one of them may be hungry now
                if (!v.in_flight && v.ready) wake.push_back(v.ready);
        }
        lock.unlock();
        if (gone) gone->close();  // waits for a wake of this viewer another thread is running
        for (const auto& f : release) ack_(*f);
        for (const auto& w : wake) w->call();
    }

    /// A frame from the browser (the CDP event thread).
    void offer(screencast_frame f) {
        std::unique_lock lock(mu_);
        ++stats_.offered;
        auto nf = std::make_shared<const screencast_frame>(std::move(f));
        if (latest_.frame && !latest_taken_) ++stats_.superseded;
        latest_ = pumped_frame{++seq_, nf, now_()};
        latest_taken_ = false;
        owed_.push_back(nf);
        stats_.max_unacked = std::max(stats_.max_unacked, owed_.size());
        std::vector<std::shared_ptr<const screencast_frame>> release;
        std::vector<std::shared_ptr<wake_gate>> wake;
        if (viewers_.empty()) {
            ++stats_.unwatched;
            latest_taken_ = true;
            release = take_owed();
        } else {
            for (auto& [id, v] : viewers_)
                if (!v.in_flight && v.ready) wake.push_back(v.ready);
        }
        lock.unlock();
        for (const auto& a : release) ack_(*a);
        for (const auto& w : wake) w->call();
    }

    /// What viewer `id` should send now: the newest frame when it is ready and has not had it
    /// (it is then in flight until viewer_ack); nothing otherwise. A ready viewer that has the
    /// newest frame acknowledges what the browser waits for, so the browser sends the next.
    [[nodiscard]] std::optional<pumped_frame> take(std::uint64_t id) {
        std::unique_lock lock(mu_);
        auto it = viewers_.find(id);
        if (it == viewers_.end() || it->second.in_flight) return std::nullopt;
        viewer& v = it->second;
        const auto now = now_();
        if (now < v.next_at) return std::nullopt;  // its interval has not passed
        if (latest_.frame && latest_.seq > v.last_seq) {
            v.in_flight = true;
            v.last_seq = latest_.seq;
            v.next_at = now + v.interval;
            latest_taken_ = true;
            ++stats_.sent;
            stats_.bytes_sent += latest_.frame->data.size();
            return latest_;
        }
        auto release = take_owed();  // hungry: the browser may send the next frame
        lock.unlock();
        for (const auto& f : release) ack_(*f);
        return std::nullopt;
    }

    /// Viewer `id` showed the frame it was sent: it is ready again once its interval passed.
    void viewer_ack(std::uint64_t id) {
        std::unique_lock lock(mu_);
        auto it = viewers_.find(id);
        if (it == viewers_.end()) return;
        it->second.in_flight = false;
    }

    /// When viewer `id` should call take() again although nobody wakes it: the end of its
    /// interval, when take() will have work then (a frame newer than it has, or frames the
    /// browser waits to have acknowledged); a time already past means now. Nothing when it is
    /// in flight (its ack comes as a message), gone, or has nothing to do (the pump wakes it
    /// when a frame comes).
    [[nodiscard]] std::optional<clock::time_point> due(std::uint64_t id) const {
        std::lock_guard lock(mu_);
        auto it = viewers_.find(id);
        if (it == viewers_.end() || it->second.in_flight) return std::nullopt;
        const bool newer = latest_.frame && latest_.seq > it->second.last_seq;
        if (!newer && owed_.empty()) return std::nullopt;
        return it->second.next_at;
    }

    /// True while viewer `id` waits for nothing from the pump (its last frame is acknowledged).
    [[nodiscard]] bool idle(std::uint64_t id) const {
        std::lock_guard lock(mu_);
        auto it = viewers_.find(id);
        return it != viewers_.end() && !it->second.in_flight;
    }
    /// Viewers now.
    [[nodiscard]] std::size_t viewers() const {
        std::lock_guard lock(mu_);
        return viewers_.size();
    }
    /// Forget the newest frame (the screencast moved to another tab or stopped); what the
    /// browser waits for is acknowledged.
    void reset() {
        std::unique_lock lock(mu_);
        auto release = take_owed();
        latest_ = pumped_frame{};
        latest_taken_ = true;
        lock.unlock();
        for (const auto& f : release) ack_(*f);
    }
    /// The counters now.
    [[nodiscard]] frame_pump_stats stats() const {
        std::lock_guard lock(mu_);
        auto s = stats_;
        s.viewers = viewers_.size();
        s.unacked = owed_.size();
        return s;
    }

private:
    /// A viewer's `ready`, called outside the pump's lock: a wake taken from the map just before
    /// the viewer left must not run its callback after remove_viewer returned (the viewer's
    /// thread frees what the callback captured then). Recursive, so a `ready` that removes its
    /// own viewer does not deadlock.
    class wake_gate {
    public:
        explicit wake_gate(std::function<void()> f) : fn_(std::move(f)) {}
        void call() {
            std::lock_guard lock(mu_);
            if (open_) fn_();
        }
        void close() {
            std::lock_guard lock(mu_);
            open_ = false;
        }

    private:
        std::recursive_mutex mu_;
        std::function<void()> fn_;
        bool open_ = true;
    };

    struct viewer {
        std::shared_ptr<wake_gate> ready;
        clock::duration interval{};
        clock::time_point next_at{};  // it may take a frame from then on
        std::uint64_t last_seq = 0;
        bool in_flight = false;
    };

    /// The frames the browser waits to have acknowledged, to acknowledge now (lock held).
    std::vector<std::shared_ptr<const screencast_frame>> take_owed() {
        stats_.acked += owed_.size();
        return std::exchange(owed_, {});
    }

    std::function<void(const screencast_frame&)> ack_;
    std::function<clock::time_point()> now_;
    mutable std::mutex mu_;
    std::map<std::uint64_t, viewer> viewers_;
    std::uint64_t next_viewer_ = 0, seq_ = 0;
    pumped_frame latest_;
    bool latest_taken_ = true;  // a viewer took latest_ (else a newer frame supersedes it)
    std::vector<std::shared_ptr<const screencast_frame>> owed_;  // not acknowledged to the browser yet, oldest first
    frame_pump_stats stats_;
};

}  // namespace agentkit::browser
