// agentkit/browser/cancel.hpp — cancelling what a browser call is doing, from another thread.
//
//   agentkit::browser::cancel_scope scope(ctx.stop);   // the tool call's stop token
//   auto r = browser.wait_for(w);                      // a stop ends it within ~20 ms
//
// While a cancel_scope lives on a thread, a stop requested on its token ends the browser
// operation that thread is running: CDP calls in flight are abandoned (their answers are
// dropped when they come), waits end, and the operation fails with errc::tool_cancelled,
// releasing the browser for the next call at once. The browser stays usable. The browser
// tools install one from every call's tool_context, so an MCP client's notifications/cancelled
// stops a long browser_wait_for or navigation instead of queueing the next call behind it.
#pragma once

#include <stop_token>
#include <utility>

namespace agentkit::browser {

namespace detail {
/// The stop token of the browser operation this thread runs (none outside a cancel_scope).
inline thread_local std::stop_token op_stop;
}  // namespace detail

/// Makes `token` stop the browser operation this thread runs while the scope lives (see the file comment).
class cancel_scope {
public:
    /// Install `token` for this thread; the previous one comes back on destruction.
    explicit cancel_scope(std::stop_token token) : previous_(std::exchange(detail::op_stop, std::move(token))) {}
    ~cancel_scope() { detail::op_stop = std::move(previous_); }
    cancel_scope(const cancel_scope&) = delete;
    cancel_scope& operator=(const cancel_scope&) = delete;

    /// Whether the operation of this thread was asked to stop.
    [[nodiscard]] static bool requested() noexcept { return detail::op_stop.stop_requested(); }

private:
    std::stop_token previous_;
};

}  // namespace agentkit::browser
