// agentkit/browser/frame_pump.hpp — flow control between a screencast and its viewers.
//
// The browser sends a screencast frame, then waits for its acknowledgement before it sends
// more. The pump acknowledges a frame when a viewer takes it to send, and a viewer takes a new
// frame only once it has acknowledged the last one it was sent. So:
//   - the browser never queues: at most one frame is unacknowledged to it (a frame superseded
//     before any viewer took it is acknowledged at once: holding such acks until a viewer took
//     the newest frame cut Chromium's screencast to 0.6 frames/s in the bench; the dashboard's
//     max_fps caps what a viewer is sent);
//   - each viewer has at most one frame in flight, and always gets the newest frame (frames
//     it was too slow for are skipped, counted as superseded), never a backlog;
//   - the frame rate follows the fastest viewer; a slow viewer skips frames and holds nobody;
//   - with no viewer a frame is acknowledged at once and dropped (the live view stops the
//     screencast then; a frame still in flight must not wedge the browser).
//
//   frame_pump pump([&](const screencast_frame& f) { browser.ack_screencast_frame(f); });
//   auto v = pump.add_viewer([&] { peer.wake(); });  // called when viewer v may take a frame
//   pump.offer(frame);                                // the CDP event thread
//   if (auto f = pump.take(v)) send(*f);              // the viewer's thread
//   pump.viewer_ack(v);                               // the viewer showed it
#pragma once

#include <agentkit/browser/results.hpp>

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
    std::size_t viewers = 0;       ///< viewers now
};

/// A frame as the pump hands it out: shared, never copied per viewer.
struct pumped_frame {
    std::uint64_t seq = 0;  ///< the pump's number for it (1, 2, ...)
    std::shared_ptr<const screencast_frame> frame;  ///< the frame
    std::chrono::steady_clock::time_point received;  ///< when the pump got it
};

/// Flow control between one screencast and its viewers (see the header comment). Thread-safe.
class frame_pump {
public:
    /// A pump that acknowledges frames to the browser with `ack` (called without the pump's lock).
    explicit frame_pump(std::function<void(const screencast_frame&)> ack) : ack_(std::move(ack)) {}
    frame_pump(const frame_pump&) = delete;
    frame_pump& operator=(const frame_pump&) = delete;

    /// Add a viewer; `ready` is called (from any thread, without the lock) when it may take a
    /// frame. Returns its id. It gets the newest frame at once when there is one.
    std::uint64_t add_viewer(std::function<void()> ready) {
        std::unique_lock lock(mu_);
        const std::uint64_t id = ++next_viewer_;
        viewers_[id] = viewer{std::move(ready), 0, false};
        auto wake = viewers_[id].ready;
        const bool has = latest_.frame != nullptr;
        lock.unlock();
        if (has && wake) wake();
        return id;
    }

    /// Remove a viewer (its frame in flight no longer counts).
    void remove_viewer(std::uint64_t id) {
        std::unique_lock lock(mu_);
        viewers_.erase(id);
        std::shared_ptr<const screencast_frame> release;
        if (viewers_.empty() && latest_.frame && !latest_acked_) {
            latest_acked_ = true;  // nobody will take it: let the browser go on (the screencast stops)
            release = latest_.frame;
            ++stats_.acked;
        }
        lock.unlock();
        if (release) ack_(*release);
    }

    /// A frame from the browser (the CDP event thread).
    void offer(screencast_frame f) {
        std::unique_lock lock(mu_);
        ++stats_.offered;
        auto nf = std::make_shared<const screencast_frame>(std::move(f));
        std::vector<std::shared_ptr<const screencast_frame>> acks;
        if (latest_.frame && !latest_acked_) {  // nobody took the previous one: it is superseded
            ++stats_.superseded;
            ++stats_.acked;
            acks.push_back(latest_.frame);
        }
        latest_ = pumped_frame{++seq_, nf, std::chrono::steady_clock::now()};
        latest_acked_ = false;
        std::vector<std::function<void()>> wake;
        if (viewers_.empty()) {
            ++stats_.unwatched;
            ++stats_.acked;
            latest_acked_ = true;
            acks.push_back(nf);
        } else {
            for (auto& [id, v] : viewers_)
                if (!v.in_flight && v.ready) wake.push_back(v.ready);
        }
        lock.unlock();
        for (const auto& a : acks) ack_(*a);
        for (const auto& w : wake) w();
    }

    /// The newest frame for viewer `id` when it may send one (it acknowledged its last, and
    /// this frame is newer than what it has); nothing otherwise. The first viewer to take a
    /// frame acknowledges it to the browser.
    [[nodiscard]] std::optional<pumped_frame> take(std::uint64_t id) {
        std::unique_lock lock(mu_);
        auto it = viewers_.find(id);
        if (it == viewers_.end() || it->second.in_flight || !latest_.frame || latest_.seq <= it->second.last_seq) return std::nullopt;
        it->second.in_flight = true;
        it->second.last_seq = latest_.seq;
        ++stats_.sent;
        stats_.bytes_sent += latest_.frame->data.size();
        pumped_frame out = latest_;
        std::shared_ptr<const screencast_frame> release;
        if (!latest_acked_) {
            latest_acked_ = true;
            ++stats_.acked;
            release = latest_.frame;
        }
        lock.unlock();
        if (release) ack_(*release);
        return out;
    }

    /// Viewer `id` showed the frame it was sent: it may take the next (now, if one is there).
    void viewer_ack(std::uint64_t id) {
        std::unique_lock lock(mu_);
        auto it = viewers_.find(id);
        if (it == viewers_.end()) return;
        it->second.in_flight = false;
        const bool newer = latest_.frame && latest_.seq > it->second.last_seq;
        auto wake = it->second.ready;
        lock.unlock();
        if (newer && wake) wake();
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
    /// Forget the newest frame (the screencast moved to another tab or stopped); an
    /// unacknowledged one is acknowledged.
    void reset() {
        std::unique_lock lock(mu_);
        std::shared_ptr<const screencast_frame> release;
        if (latest_.frame && !latest_acked_) {
            release = latest_.frame;
            ++stats_.acked;
        }
        latest_ = pumped_frame{};
        latest_acked_ = true;
        lock.unlock();
        if (release) ack_(*release);
    }
    /// The counters now.
    [[nodiscard]] frame_pump_stats stats() const {
        std::lock_guard lock(mu_);
        auto s = stats_;
        s.viewers = viewers_.size();
        return s;
    }

private:
    struct viewer {
        std::function<void()> ready;
        std::uint64_t last_seq = 0;
        bool in_flight = false;
    };

    std::function<void(const screencast_frame&)> ack_;
    mutable std::mutex mu_;
    std::map<std::uint64_t, viewer> viewers_;
    std::uint64_t next_viewer_ = 0, seq_ = 0;
    pumped_frame latest_;
    bool latest_acked_ = true;
    frame_pump_stats stats_;
};

}  // namespace agentkit::browser
