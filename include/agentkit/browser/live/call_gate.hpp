// agentkit/browser/live/call_gate.hpp — the gate a live view puts before every browser tool call:
// pause, resume, step, and a person taking control and handing it back.
//
//   agentkit::browser::call_gate gate;
//   gate.pause();                          // the next call waits in enter() ...
//   auto r = gate.enter(ctx);              // ... on the agent's thread, cancellable by ctx.stop
//   gate.step();                           // releases one waiting call, stays paused
//   gate.resume();                         // releases every call
//   gate.take_control();                   // calls wait as under pause
//   gate.hand_back("what changed ...");    // released; the next call's result starts with the text
//
// A waiting call reports progress (tool_context::progress, MCP notifications/progress when
// the client asked) every progress_interval, and ends with errc::tool_cancelled as soon as its
// stop token is requested or the gate closes. Every wait is woken by an event (a state change,
// a cancellation); the interval only paces the progress reports.
#pragma once

#include <agentkit/core/error.hpp>
#include <agentkit/core/result.hpp>
#include <agentkit/tools/context.hpp>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <mutex>
#include <optional>
#include <stop_token>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace agentkit::browser {

/// What a call_gate does with calls now.
enum class gate_mode {
    running,     ///< calls pass
    paused,      ///< calls wait (step() lets one through)
    controlled,  ///< a person has control: calls wait until hand_back()
};

/// The name of a gate mode ("running", "paused", "controlled").
[[nodiscard]] constexpr std::string_view to_string(gate_mode m) noexcept {
    switch (m) {
        case gate_mode::running: return "running";
        case gate_mode::paused: return "paused";
        case gate_mode::controlled: return "controlled";
    }
    return "running";
}

/// The state of a call_gate, as a dashboard shows it.
struct gate_state {
    gate_mode mode = gate_mode::running;  ///< what it does with calls
    bool paused = false;       ///< pause is set (also while controlled: back to paused on hand-back)
    std::size_t waiting = 0;   ///< calls waiting now
    std::size_t steps = 0;     ///< step() releases not yet used
    std::string waiting_tool;  ///< the tool of the oldest waiting call ("" when none)
    std::uint64_t version = 0;  ///< changes with every state change
};

/// Holds browser tool calls while paused or while a person has control (see the header comment).
class call_gate {
public:
    /// A gate that lets calls pass; `progress_interval` paces a waiting call's progress reports.
    explicit call_gate(std::chrono::milliseconds progress_interval = std::chrono::milliseconds(1000))
        : interval_(progress_interval) {}
    call_gate(const call_gate&) = delete;
    call_gate& operator=(const call_gate&) = delete;
    /// Closes the gate (held calls end cancelled) without calling on_change.
    ~call_gate() {
        {
            std::lock_guard lock(mu_);
            on_change_ = nullptr;
        }
        close();
        std::unique_lock lock(mu_);
        cv_.wait(lock, [&] { return waiting_ == 0; });  // held calls have left enter()
    }

    /// Called on every state change (outside the gate's lock; must not throw).
    void on_change(std::function<void(const gate_state&)> f) {
        std::lock_guard lock(mu_);
        on_change_ = std::move(f);
    }

    /// Hold the next calls (those running go on).
    void pause() {
        change([&] { paused_ = true; });
    }
    /// Release every waiting call and let calls pass (a person's control stays until hand_back()).
    void resume() {
        change([&] {
            paused_ = false;
            steps_ = 0;
        });
    }
    /// While paused: let exactly one call through (the oldest waiting one, or the next to come).
    void step() {
        change([&] {
            if (paused_ && !controlled_) ++steps_;
        });
    }
    /// A person takes control: calls wait until hand_back(). False when already controlled.
    bool take_control() {
        bool took = false;
        change([&] {
            took = !controlled_;
            controlled_ = true;
        });
        return took;
    }
    /// The person hands control back: calls pass again (unless paused) and the next call to
    /// pass gets `report` (what changed meanwhile) to start its result. False when not controlled.
    bool hand_back(std::string report) {
        bool was = false;
        change([&] {
            was = controlled_;
            controlled_ = false;
            if (was && !report.empty()) report_ = report_.empty() ? std::move(report) : report_ + "\n" + report;
        });
        return was;
    }
    /// Release every waiting call with errc::tool_cancelled and let later calls pass (the live view goes away).
    void close() {
        change([&] {
            closed_ = true;
            paused_ = false;
            controlled_ = false;
        });
    }

    /// Wait (on the calling thread) until the gate lets this call pass. Returns the hand-back
    /// report for this call ("" usually); errc::tool_cancelled when `ctx.stop` was requested
    /// while waiting (or the gate closed while it waited).
    [[nodiscard]] result<std::string> enter(tool_context& ctx, std::string_view tool = {}) {
        std::unique_lock lock(mu_);
        if (closed_) return std::string();
        if (!holds()) return std::exchange(report_, std::string());
        const std::uint64_t ticket = next_ticket_++;
        if (waiting_ == 0) waiting_tool_ = std::string(tool);
        ++waiting_;
        ++version_;
        notify(lock);
        // Made and destroyed with the lock released: made after a stop, it runs at once on this
        // thread; destroyed while it runs on another thread, it waits for it (and it takes the lock).
        std::optional<std::stop_callback<std::function<void()>>> wake;
        lock.unlock();
        wake.emplace(ctx.stop, std::function<void()>([this] {
            std::lock_guard l(mu_);
            cv_.notify_all();
        }));
        lock.lock();
        const auto t0 = std::chrono::steady_clock::now();
        auto next_report = t0;
        double reports = 0;
        result<std::string> out = std::string();
        for (;;) {
            if (ctx.stop.stop_requested()) {
                out = fail(errc::tool_cancelled, "the call was cancelled while the live view held it (" +
                                                     std::string(controlled_ ? "a person had control" : "paused") + ")");
                break;
            }
            if (closed_) {
                out = fail(errc::tool_cancelled, "the live view closed while it held the call", "Call the tool again.");
                break;
            }
            if (!holds()) {
                out = std::exchange(report_, std::string());
                break;
            }
            // step: the oldest waiting call takes the release
            if (!controlled_ && paused_ && steps_ > 0 && ticket == served_) {
                --steps_;
                out = std::exchange(report_, std::string());
                break;
            }
            const auto now = std::chrono::steady_clock::now();
            if (now >= next_report) {
                const std::string why = controlled_ ? "a person has control of the browser; the call waits for hand-back"
                                                    : "paused by the operator; the call waits for resume or step";
                lock.unlock();
                ctx.progress(++reports, std::nullopt, why);
                lock.lock();
                next_report = now + interval_;
                continue;
            }
            cv_.wait_until(lock, next_report);
        }
        lock.unlock();
        wake.reset();
        lock.lock();
        if (ticket == served_) ++served_;
        else skipped_.push_back(ticket);
        while (!skipped_.empty()) {  // tickets that left (cancelled) out of order: the queue moves past them
            auto it = std::find(skipped_.begin(), skipped_.end(), served_);
            if (it == skipped_.end()) break;
            skipped_.erase(it);
            ++served_;
        }
        --waiting_;
        if (waiting_ == 0) waiting_tool_.clear();
        ++version_;
        cv_.notify_all();
        notify(lock);
        return out;
    }

    /// The state now.
    [[nodiscard]] gate_state state() const {
        std::lock_guard lock(mu_);
        return state_locked();
    }

private:
    bool holds() const { return !closed_ && (controlled_ || paused_); }

    gate_state state_locked() const {
        gate_state s;
        s.mode = controlled_ ? gate_mode::controlled : paused_ ? gate_mode::paused : gate_mode::running;
        s.paused = paused_;
        s.waiting = waiting_;
        s.steps = steps_;
        s.waiting_tool = waiting_tool_;
        s.version = version_;
        return s;
    }

    template <class F>
    void change(F&& f) {
        std::unique_lock lock(mu_);
        f();
        ++version_;
        cv_.notify_all();
        notify(lock);
    }

    /// Tell on_change (lock held on entry and exit; released around the call).
    /// Calls are serialized (notify_mu_ is taken before mu_ is released), so an observer sees
    /// the states in order.
    void notify(std::unique_lock<std::mutex>& lock) {
        if (!on_change_) return;
        auto f = on_change_;
        const gate_state s = state_locked();
        std::unique_lock order(notify_mu_);
        lock.unlock();
        try {
            f(s);
        } catch (...) {
        }
        order.unlock();
        lock.lock();
    }

    std::chrono::milliseconds interval_;
    mutable std::mutex mu_;
    std::mutex notify_mu_;  // taken after mu_, held while on_change runs
    std::condition_variable cv_;
    std::function<void(const gate_state&)> on_change_;
    bool paused_ = false, controlled_ = false, closed_ = false;
    std::size_t steps_ = 0, waiting_ = 0;
    std::string waiting_tool_;
    std::string report_;
    std::uint64_t next_ticket_ = 0, served_ = 0, version_ = 0;
    std::vector<std::uint64_t> skipped_;
};

}  // namespace agentkit::browser
