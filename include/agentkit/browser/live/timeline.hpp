// agentkit/browser/live/timeline.hpp — the step timeline of a live view: each browser tool call
// with its arguments (secrets redacted, as everywhere), when it ran, whether it waited at the
// gate, the head of its result, its tokens, its error and the artifacts it stored. Bounded: the
// oldest steps go first.
#pragma once

#include <agentkit/core/json.hpp>
#include <agentkit/browser/tool_state.hpp>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

namespace agentkit::browser {

/// One step of a timeline.
struct timeline_step {
    std::uint64_t id = 0;     ///< 1, 2, ... in call order
    std::string tool;         ///< the tool's name
    json args = json::object();  ///< its arguments, secrets redacted
    std::string state = "running";  ///< "waiting" (held by the gate), "running", "ok" or "error"
    std::int64_t started_ms = 0;   ///< when it started (ms since the Unix epoch)
    std::int64_t ms = 0;           ///< how long it ran (once finished)
    std::size_t tokens = 0;        ///< estimated tokens of its result
    std::size_t bytes = 0;         ///< bytes of its result's text
    std::string head;              ///< the start of its result (redacted)
    std::string error;             ///< its error's text ("" unless it failed)
    std::vector<std::string> artifacts;  ///< ids of the artifacts it stored

    /// The step as JSON (what the dashboard receives).
    [[nodiscard]] json to_json() const {
        return json{{"id", id},       {"tool", tool},     {"args", args},   {"state", state}, {"started_ms", started_ms},
                    {"ms", ms},       {"tokens", tokens}, {"bytes", bytes}, {"head", head},   {"error", error},
                    {"artifacts", artifacts}};
    }
};

/// The steps of one agent's browser tool calls, newest last (see the header comment). Thread-safe.
class timeline {
public:
    /// A timeline keeping the newest `capacity` steps.
    explicit timeline(std::size_t capacity = 1000) : capacity_(capacity == 0 ? 1 : capacity) {}

    /// Called with every new or changed step (outside the lock; must not throw).
    void on_change(std::function<void(const timeline_step&)> f) {
        std::lock_guard lock(mu_);
        on_change_ = std::move(f);
    }

    /// A call starts (`waiting`: the gate holds it); returns its step id.
    std::uint64_t begin(std::string tool, json args, bool waiting = false) {
        timeline_step s;
        s.tool = std::move(tool);
        s.args = std::move(args);
        s.state = waiting ? "waiting" : "running";
        s.started_ms =
            std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch()).count();
        std::unique_lock lock(mu_);
        s.id = ++next_;
        steps_.push_back(s);
        while (steps_.size() > capacity_) steps_.pop_front();
        publish(lock, s);
        return s.id;
    }

    /// Step `id` left the gate and runs.
    void running(std::uint64_t id) {
        update(id, [](timeline_step& s) { s.state = "running"; });
    }

    /// Step `id` finished as `r` says.
    void finish(std::uint64_t id, const call_record& r) {
        update(id, [&](timeline_step& s) {
            s.state = r.metrics.ok && r.error.empty() ? "ok" : "error";
            s.ms = r.metrics.ms;
            s.tokens = r.metrics.tokens;
            s.bytes = r.metrics.bytes;
            s.head = r.head;
            s.error = r.error;
            s.artifacts = r.artifacts;
        });
    }

    /// The steps with an id above `after`, oldest first (every kept step for 0).
    [[nodiscard]] std::vector<timeline_step> since(std::uint64_t after = 0) const {
        std::lock_guard lock(mu_);
        std::vector<timeline_step> out;
        for (const auto& s : steps_)
            if (s.id > after) out.push_back(s);
        return out;
    }
    /// The id of the newest step (0 when none).
    [[nodiscard]] std::uint64_t last_id() const {
        std::lock_guard lock(mu_);
        return next_;
    }

private:
    template <class F>
    void update(std::uint64_t id, F&& f) {
        std::unique_lock lock(mu_);
        for (auto it = steps_.rbegin(); it != steps_.rend(); ++it)
            if (it->id == id) {
                f(*it);
                const timeline_step s = *it;
                publish(lock, s);
                return;
            }
    }
    void publish(std::unique_lock<std::mutex>& lock, const timeline_step& s) {
        auto f = on_change_;
        lock.unlock();
        if (f) {
            try {
                f(s);
            } catch (...) {
            }
        }
    }

    std::size_t capacity_;
    mutable std::mutex mu_;
    std::deque<timeline_step> steps_;
    std::uint64_t next_ = 0;
    std::function<void(const timeline_step&)> on_change_;
};

}  // namespace agentkit::browser
