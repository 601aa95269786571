// agentkit/cdp/pipe_transport.hpp — Chromium over --remote-debugging-pipe.
//
// The browser reads commands from its fd 3 and writes responses and events to its fd 4;
// every message is one JSON text terminated by a NUL byte. We hand the child one end of an
// AF_UNIX stream socketpair on both fds (Chromium only read()s and write()s them): unlike a
// pipe, a socket lets us write with MSG_NOSIGNAL, so a dead browser is an EPIPE error and
// never a process-wide SIGPIPE in the host. EOF on the socket means the browser is gone.
//
// Example:
//   auto t = agentkit::cdp::pipe_transport::launch({.extra_args = {"--lang=en-US"}});
//   if (!t) { /* t.error().code == errc::browser_launch, hint says what to do */ }
//   t->version()["product"];  // "Chrome/..." from the launch handshake
#pragma once

#include <agentkit/cdp/detail/net.hpp>
#include <agentkit/cdp/detail/posix.hpp>
#include <agentkit/cdp/launch.hpp>
#include <agentkit/cdp/transport.hpp>
#include <agentkit/core/json.hpp>
#include <agentkit/core/result.hpp>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include <sys/socket.h>

namespace agentkit::cdp {

/// A Chromium launched with --remote-debugging-pipe. Move-only; closing (or destroying) it
/// asks the browser to exit with Browser.close, waits up to launch_options::close_timeout,
/// then SIGTERM/SIGKILLs the process group, reaps it and removes the temporary profile.
class pipe_transport {
public:
    /// Start a browser and wait (bounded by launch_timeout) until it answers CDP.
    [[nodiscard]] static result<pipe_transport> launch(const launch_options& options = {}) {
        auto proc = browser_process::prepare(options);
        if (!proc) return fail(proc.error());
        int sv[2] = {-1, -1};
        if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0)
            return fail(errc::browser_launch, "socketpair failed: " + detail::errno_message(errno));
        detail::unique_fd ours(sv[0]);
        // Keep the child's end away from 0..9 so installing it as fd 3/4 never aliases.
        detail::unique_fd theirs = detail::move_fd_above(detail::unique_fd(sv[1]), 10);
        if (!theirs) return fail(errc::browser_launch, "fcntl(F_DUPFD_CLOEXEC) failed: " + detail::errno_message(errno));
        if (auto r = (*proc)->spawn({"--remote-debugging-pipe"}, {{theirs.get(), 3}, {theirs.get(), 4}}); !r)
            return fail(r.error());
        theirs.reset();  // only the child holds that end now, so its death is our EOF

        pipe_transport t;
        t.s_ = std::make_shared<state>();
        t.s_->proc = std::move(*proc);
        t.s_->sock = std::move(ours);
        t.s_->max_message = options.max_message_size;
        t.s_->send_timeout = options.send_timeout;
        t.s_->close_timeout = options.close_timeout;

        // Launch handshake: the first answer proves the browser is up and tells its version.
        const auto deadline = detail::deadline_after(options.launch_timeout);
        auto failed = [&](const error& why) {
            auto& p = *t.s_->proc;
            const std::string tail = p.log_tail();  // before close() removes the log
            const std::string said = p.last_words();
            t.close();                              // stops and reaps a browser that hangs
            const std::string status = p.exit_description();
            json details = {{"executable", p.executable()}, {"status", status}, {"cause", why.to_json()}};
            if (!tail.empty()) details["log_tail"] = tail;
            // (a browser that died says its status and last words in `why` already)
            const bool told = why.message.find("; it said: ") != std::string::npos || why.message.find(status) != std::string::npos;
            return fail(errc::browser_launch,
                        "the browser did not start: " + why.message +
                            (told ? std::string() : " (" + status + ")" + (said.empty() ? std::string() : "; it said: " + said)),
                        "Check the browser log tail in details; pass flags through launch_options::extra_args.",
                        std::move(details));
        };
        if (auto r = t.s_->send(R"({"id":-1,"method":"Browser.getVersion"})"); !r) return failed(r.error());
        for (;;) {
            const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - detail::clock::now());
            if (left.count() <= 0)
                return failed(error(errc::timeout, "no answer within " + std::to_string(options.launch_timeout.count()) + " ms"));
            auto m = t.s_->receive(left);
            if (!m) {
                if (m.error().is(errc::timeout)) continue;
                return failed(m.error());
            }
            auto j = json::parse(*m, nullptr, false);
            if (j.is_object() && j.contains("id") && j["id"].is_number_integer() && j["id"].get<long long>() == -1) {
                t.s_->version = j.value("result", json::object());
                break;
            }
        }
        return t;
    }

    pipe_transport(pipe_transport&&) noexcept = default;
    pipe_transport& operator=(pipe_transport&& o) noexcept {
        if (this != &o) {
            close();
            s_ = std::move(o.s_);
        }
        return *this;
    }
    pipe_transport(const pipe_transport&) = delete;
    pipe_transport& operator=(const pipe_transport&) = delete;
    ~pipe_transport() { close(); }

    /// Write one message to the browser (see the transport contract).
    [[nodiscard]] result<void> send(std::string_view message) {
        if (!s_) return fail(errc::transport_closed, "moved-from pipe_transport");
        return s_->send(message);
    }
    /// The next message from the browser, or errc::timeout, or a terminal error (see the transport contract).
    [[nodiscard]] result<std::string> receive(std::chrono::milliseconds timeout) {
        if (!s_) return fail(errc::transport_closed, "moved-from pipe_transport");
        return s_->receive(timeout);
    }
    /// Close the pipes and stop the browser; idempotent.
    void close() {
        if (s_) s_->close();
    }
    /// False once closed or failed.
    [[nodiscard]] bool is_open() const noexcept { return s_ && s_->open.load(); }

    /// The browser's process id (its process group id too).
    [[nodiscard]] pid_t pid() const noexcept { return s_ ? s_->proc->pid() : -1; }
    /// The profile directory (removed on close unless the host provided it).
    [[nodiscard]] std::filesystem::path profile_dir() const { return s_ ? s_->proc->profile_dir() : std::filesystem::path{}; }
    /// Browser.getVersion's result from the launch handshake (product, protocolVersion, ...).
    [[nodiscard]] const json& version() const noexcept {
        static const json none = json::object();
        return s_ ? s_->version : none;
    }
    /// The process, e.g. for exit_description() or log_tail().
    [[nodiscard]] browser_process& process() noexcept { return *s_->proc; }

private:
    pipe_transport() = default;

    struct state {
        std::unique_ptr<browser_process> proc;
        detail::unique_fd sock;
        detail::wake_fd wake;
        std::mutex send_mu;
        std::mutex recv_mu;
        std::mutex state_mu;
        std::optional<error> terminal;  // guarded by state_mu
        std::atomic<bool> closing{false};
        std::atomic<bool> open{true};
        std::string buf;  // received bytes; [start, size) not yet returned
        std::size_t start = 0;
        std::size_t scan = 0;  // no NUL in [start, scan)
        std::size_t max_message = 0;
        std::chrono::milliseconds send_timeout{30000};
        std::chrono::milliseconds close_timeout{3000};
        json version = json::object();

        std::optional<error> terminal_error() {
            std::lock_guard lock(state_mu);
            return terminal;
        }
        error set_terminal(error e) {
            std::lock_guard lock(state_mu);
            if (!terminal) terminal = std::move(e);
            open = false;
            return *terminal;
        }

        // The browser end went away (EOF, EPIPE, ECONNRESET): closed by us, or a crash.
        error peer_gone() {
            if (closing) return set_terminal(error(errc::transport_closed, "the browser transport was closed"));
            proc->wait_exit(std::chrono::milliseconds(2000));
            const std::string status = proc->exit_description();
            json details = {{"pid", proc->pid()}, {"status", status}};
            if (auto tail = proc->log_tail(); !tail.empty()) details["log_tail"] = tail;
            const std::string said = proc->last_words();
            return set_terminal(error(errc::browser_crashed,
                                      "the browser process died unexpectedly (" + status + ")" +
                                          (said.empty() ? std::string() : "; it said: " + said),
                                      "Everything in flight was lost; launch a new browser to continue.",
                                      std::move(details)));
        }

        result<void> send(std::string_view message) {
            if (message.find('\0') != std::string_view::npos)
                return fail(errc::protocol_error, "a CDP message must not contain NUL bytes");
            std::lock_guard lock(send_mu);
            if (auto t = terminal_error()) return fail(*t);
            if (closing) return fail(errc::transport_closed, "the browser transport was closed");
            const auto deadline = detail::deadline_after(send_timeout);
            auto r = detail::send_all(sock.get(), message, deadline, wake.fd());
            if (r) r = detail::send_all(sock.get(), std::string_view("\0", 1), deadline, wake.fd());
            if (r) return {};
            if (r.error().is(errc::transport_closed)) return fail(peer_gone());
            // A partial write desynchronises the stream: the transport is finished.
            return fail(set_terminal(r.error()));
        }

        result<std::string> receive(std::chrono::milliseconds timeout) {
            std::lock_guard lock(recv_mu);
            const auto deadline = detail::deadline_after(timeout);
            for (;;) {
                if (const auto nul = buf.find('\0', scan); nul != std::string::npos) {
                    std::string msg = buf.substr(start, nul - start);
                    start = scan = nul + 1;
                    if (start == buf.size()) {
                        buf.clear();
                        start = scan = 0;
                    } else if (start > (std::size_t{1} << 20U) && start > buf.size() / 2) {
                        buf.erase(0, start);
                        start = scan = 0;
                    }
                    return msg;
                }
                scan = buf.size();
                if (auto t = terminal_error()) return fail(*t);
                if (buf.size() - start > max_message)
                    return fail(set_terminal(error(
                        errc::protocol_error,
                        "a message from the browser exceeds the limit of " + std::to_string(max_message) + " bytes",
                        "Raise launch_options::max_message_size.")));
                if (closing) return fail(set_terminal(error(errc::transport_closed, "the browser transport was closed")));
                pollfd fds[2] = {{sock.get(), POLLIN, 0}, {wake.fd(), POLLIN, 0}};
                const int pr = detail::poll_until(fds, 2, deadline);
                if (pr == 0) return fail(errc::timeout, "no message from the browser within " + std::to_string(timeout.count()) + " ms");
                if (pr < 0) return fail(set_terminal(error(errc::transport_io, "poll failed: " + detail::errno_message(errno))));
                if ((fds[1].revents & POLLIN) != 0) continue;  // closing: loop reports it
                char chunk[65536];
                const ssize_t n = ::recv(sock.get(), chunk, sizeof chunk, MSG_DONTWAIT);
                if (n > 0) {
                    buf.append(chunk, static_cast<std::size_t>(n));
                    continue;
                }
                if (n < 0 && (errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK)) continue;
                if (n < 0 && errno != ECONNRESET && errno != EPIPE)
                    return fail(set_terminal(error(errc::transport_io, "read failed: " + detail::errno_message(errno))));
                return fail(peer_gone());
            }
        }

        void close() {
            if (closing.exchange(true)) return;
            if (!proc->exited()) {
                {  // Ask politely: Browser.close lets Chromium flush and exit by itself.
                    std::lock_guard lock(send_mu);
                    if (!terminal_error() && sock) {
                        const auto d = detail::deadline_after(std::chrono::milliseconds(1000));
                        std::string msg = R"({"id":-2,"method":"Browser.close"})";
                        msg.push_back('\0');
                        [[maybe_unused]] auto r = detail::send_all(sock.get(), msg, d);
                    }
                }
                proc->wait_exit(close_timeout);
            }
            proc->terminate(std::chrono::milliseconds(1000));
            set_terminal(error(errc::transport_closed, "the browser transport was closed"));
            wake.notify();
            {
                std::scoped_lock both(recv_mu, send_mu);  // no reader or writer is using the socket now
                sock.reset();
            }
            proc->remove_temp_dir();
        }
    };

    std::shared_ptr<state> s_;
};

static_assert(transport<pipe_transport>);

/// The name used in the design sketch: `using browser = agentkit::cdp::pipe_browser;`.
using pipe_browser = pipe_transport;

}  // namespace agentkit::cdp
