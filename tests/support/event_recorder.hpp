// tests/support/event_recorder.hpp — an observer (core/observer.hpp) that keeps every event it
// is told, for tests of what the parts report.
#pragma once

#include <agentkit/core/observer.hpp>

#include <mutex>
#include <vector>

namespace agentkit::test {

/// Every event, in the order told (thread-safe).
struct event_recorder {
    std::mutex mu;
    std::vector<agentkit::event> events;
    agentkit::observer observer() {
        return [this](const agentkit::event& e) {
            std::lock_guard lock(mu);
            events.push_back(e);
        };
    }
    /// The events of kind `k`, in order.
    std::vector<agentkit::event> of(agentkit::event_kind k) {
        std::lock_guard lock(mu);
        std::vector<agentkit::event> out;
        for (const auto& e : events)
            if (e.kind == k) out.push_back(e);
        return out;
    }
};

}  // namespace agentkit::test
