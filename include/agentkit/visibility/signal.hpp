// agentkit/visibility/signal.hpp — the "visible set changed" signal every masker carries.
//
// A version counter that moves whenever the set of visible tools changes, plus an optional
// callback (an MCP server sends notifications/tools/list_changed from it). The callback runs
// synchronously on the thread that changed the set; anything it throws is swallowed.
#pragma once

#include <cstdint>
#include <functional>
#include <utility>

namespace agentkit {

/// The "visible set changed" signal: a version counter and an optional change callback.
class visibility_signal {
public:
    /// Called with the new version after every change.
    using callback = std::function<void(std::uint64_t version)>;

    /// Install (or clear, with an empty function) the change callback.
    void set_on_change(callback cb) { cb_ = std::move(cb); }

    /// The current version: 0 until the first change, then +1 per change.
    [[nodiscard]] std::uint64_t version() const noexcept { return version_; }

    /// Record a change and notify.
    void bump() noexcept {
        ++version_;
        if (!cb_) return;
        try {
            cb_(version_);
        } catch (...) {  // a user callback never throws into the library
        }
    }

private:
    std::uint64_t version_ = 0;
    callback cb_;
};

}  // namespace agentkit
