// agentkit/browser/redaction.hpp — where a browser's results are redacted of the session's
// secrets: once, by whoever hands them out.
//
//   auto s = browser.snapshot();          // a C++ caller: the engine redacts what it returns
//
//   agentkit::browser::redaction_scope r;  // a caller that redacts what it composes (the tools)
//   auto s = browser.snapshot();          // unredacted: the caller's own pass covers it
//
// The engine's API redacts every text it returns (URLs, titles, snapshots, messages, errors),
// unless the thread calling it holds a redaction_scope: then its caller has promised to redact
// the whole of what it makes from those texts, once, where that leaves it. The browser tools
// hold one while a call runs and redact its result in one place (tools/support.hpp, finish) and
// anything they store or write (artifacts, files) where it is stored or written. A secret in a
// text redacted twice would be found again inside its own mark when its value is part of the
// mark ("secret", a name): the pass is not idempotent, so it runs once.
#pragma once

#include <utility>

namespace agentkit::browser {

namespace detail {
/// Whether this thread's caller redacts what the browser hands it (inside a redaction_scope).
inline thread_local bool caller_redacts = false;
}  // namespace detail

/// While it lives on a thread, the browser's API returns its texts unredacted to that thread:
/// its holder redacts all it makes from them (see the file comment). Scopes nest.
class redaction_scope {
public:
    /// The caller on this thread redacts from now on.
    redaction_scope() noexcept : previous_(std::exchange(detail::caller_redacts, true)) {}
    ~redaction_scope() { detail::caller_redacts = previous_; }
    redaction_scope(const redaction_scope&) = delete;
    redaction_scope& operator=(const redaction_scope&) = delete;

    /// Whether a caller on this thread redacts (a scope is open).
    [[nodiscard]] static bool active() noexcept { return detail::caller_redacts; }

private:
    bool previous_;
};

}  // namespace agentkit::browser
