// tests/support/flag.hpp — a condition a test raises once, and a bounded wait for it (no sleeps).
#pragma once

#include <chrono>
#include <condition_variable>
#include <mutex>

namespace agentkit::test {

/// A condition a test raises once (or a bounded wait for it).
class flag {
public:
    void raise() {
        {
            std::lock_guard lock(mu_);
            set_ = true;
        }
        cv_.notify_all();
    }
    [[nodiscard]] bool is_set() const {
        std::lock_guard lock(mu_);
        return set_;
    }
    [[nodiscard]] bool wait_for(std::chrono::milliseconds d) const {
        std::unique_lock lock(mu_);
        return cv_.wait_for(lock, d, [&] { return set_; });
    }

private:
    mutable std::mutex mu_;
    mutable std::condition_variable cv_;
    bool set_ = false;
};

}  // namespace agentkit::test
