// agentkit/cdp/websocket_transport.hpp — CDP over a ws:// DevTools endpoint (RFC 6455,
// client side): a local Chromium started with --remote-debugging-port, or a remote
// browser farm.
//
// Implemented: URL parsing, TCP connect with a deadline, the HTTP/1.1 Upgrade handshake
// with Sec-WebSocket-Accept verification, masked client frames (a fresh key per frame),
// text and binary messages, fragmented messages on receive (continuation frames, with
// control frames interleaved), ping → pong, the close handshake in both directions, 7/16/64
// bit lengths and a maximum message size (exceeding it closes with 1009).
// Not implemented: TLS (wss://), extensions (permessage-deflate is never offered), UTF-8
// validation of text payloads (the JSON parser above us rejects bad UTF-8).
//
// Example:
//   auto url = agentkit::cdp::discover_websocket_url("http://127.0.0.1:9222");
//   auto t = agentkit::cdp::websocket_transport::connect(*url);
//   // or start a private local browser and connect to it:
//   auto local = agentkit::cdp::websocket_transport::launch({});
#pragma once

#include <agentkit/cdp/detail/websocket_frame.hpp>
#include <agentkit/cdp/detail/net.hpp>
#include <agentkit/cdp/detail/posix.hpp>
#include <agentkit/cdp/detail/sha1_base64.hpp>
#include <agentkit/cdp/launch.hpp>
#include <agentkit/cdp/transport.hpp>
#include <agentkit/core/json.hpp>
#include <agentkit/core/random.hpp>
#include <agentkit/core/result.hpp>

#include <array>
#include <atomic>
#include <charconv>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <mutex>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <sys/inotify.h>
#include <sys/socket.h>

namespace agentkit::cdp {

/// Options of a WebSocket connection.
struct websocket_options {
    /// Bound for TCP connect plus the opening handshake.
    std::chrono::milliseconds connect_timeout{10000};
    /// Bound for writing one message.
    std::chrono::milliseconds send_timeout{30000};
    /// Bound for the server's answer to our close frame.
    std::chrono::milliseconds close_timeout{1000};
    /// Largest message accepted (after reassembling fragments).
    std::size_t max_message_size = std::size_t{256} << 20U;
    /// Extra handshake headers (e.g. an authorisation header for a browser farm).
    std::vector<std::pair<std::string, std::string>> headers;
};

namespace detail {
/// Bytes for the handshake key and the frame masks: the kernel's (core/random.hpp); with no
/// source, clock-derived ones (masks only need to be unpredictable to intermediaries, and the
/// key only needs to be fresh — neither guards a secret).
inline void fresh_bytes(void* out, std::size_t n) noexcept {
    if (agentkit::random_bytes(out, n)) return;
    auto* p = static_cast<std::uint8_t*>(out);
    auto seed = static_cast<std::uint64_t>(clock::now().time_since_epoch().count());
    for (; n > 0; --n, ++p) {
        seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
        *p = static_cast<std::uint8_t>(seed >> 56);
    }
}
}  // namespace detail

/// A CDP transport over a WebSocket. Move-only. When it launched its own browser, close()
/// also stops that browser (Browser.close, then signals) and removes its profile.
class websocket_transport {
public:
    /// Connect to a ws:// DevTools endpoint (browser or page target URL).
    [[nodiscard]] static result<websocket_transport> connect(std::string_view ws_url,
                                                             const websocket_options& options = {}) {
        auto u = detail::parse_url(ws_url);
        if (!u) return fail(u.error());
        if (u->scheme != "ws")
            return fail(errc::request_invalid, "not a WebSocket URL: " + std::string(ws_url),
                        "For an http://host:port endpoint, call discover_websocket_url() first.");
        const auto deadline = detail::deadline_after(options.connect_timeout);
        auto fd = detail::tcp_connect(u->host, u->port, deadline);
        if (!fd) return fail(fd.error());

        std::array<std::uint8_t, 16> nonce{};
        detail::fresh_bytes(nonce.data(), nonce.size());
        const std::string key = detail::base64_encode(nonce.data(), nonce.size());
        std::string req = "GET " + u->path + " HTTP/1.1\r\nHost: " + u->host_header() +
                          "\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: " + key +
                          "\r\nSec-WebSocket-Version: 13\r\n";
        for (const auto& [k, v] : options.headers) req += k + ": " + v + "\r\n";
        req += "\r\n";
        if (auto r = detail::send_all(fd->get(), req, deadline); !r) return fail(r.error());

        std::string buf;
        std::size_t head_end = std::string::npos;
        while (head_end == std::string::npos) {
            pollfd p{fd->get(), POLLIN, 0};
            const int pr = detail::poll_until(&p, 1, deadline);
            if (pr == 0) return fail(errc::timeout, "timed out in the WebSocket handshake with " + u->host_header());
            if (pr < 0) return fail(errc::transport_io, "poll failed: " + detail::errno_message(errno));
            char chunk[4096];
            const ssize_t n = ::recv(fd->get(), chunk, sizeof chunk, MSG_DONTWAIT);
            if (n < 0 && (errno == EINTR || errno == EAGAIN)) continue;
            if (n <= 0)
                return fail(errc::transport_closed, "the server closed the connection during the WebSocket handshake",
                            "Is this a DevTools WebSocket endpoint?");
            buf.append(chunk, static_cast<std::size_t>(n));
            head_end = buf.find("\r\n\r\n");
            if (head_end == std::string::npos && buf.size() > 65536)
                return fail(errc::protocol_error, "oversized WebSocket handshake response");
        }
        auto head = detail::parse_http_head(std::string_view(buf).substr(0, head_end + 2));
        if (!head) return fail(head.error());
        const auto refused = [&](std::string why) {
            return fail(errc::protocol_error, "WebSocket handshake with " + std::string(ws_url) + " failed: " + why,
                        "Check the URL (it changes every browser start; see /json/version).",
                        json{{"status", head->status}, {"reason", head->reason}});
        };
        if (head->status != 101)
            return refused("HTTP " + std::to_string(head->status) + " " + head->reason);
        if (!detail::iequals(head->header("Upgrade").value_or(""), "websocket"))
            return refused("missing 'Upgrade: websocket'");
        if (detail::ascii_lower(head->header("Connection").value_or("")).find("upgrade") == std::string::npos)
            return refused("missing 'Connection: Upgrade'");
        if (head->header("Sec-WebSocket-Accept").value_or("") != detail::websocket_accept(key))
            return refused("wrong Sec-WebSocket-Accept");
        if (head->header("Sec-WebSocket-Extensions"))
            return refused("the server selected an extension that was not offered");

        websocket_transport t;
        t.s_ = std::make_shared<state>();
        t.s_->sock = std::move(*fd);
        t.s_->buf = buf.substr(head_end + 4);
        t.s_->options = options;
        t.s_->url = std::string(ws_url);
        detail::fresh_bytes(&t.s_->rng, sizeof t.s_->rng);
        t.s_->rng |= 1U;
        return t;
    }

    /// Start a private local Chromium with --remote-debugging-port=0 and connect to it. The
    /// port is read from the profile's DevToolsActivePort file, waited for with inotify (and
    /// the browser's pidfd, so a browser that dies at start fails at once), bounded by
    /// launch_options::launch_timeout.
    [[nodiscard]] static result<websocket_transport> launch(const launch_options& launch = {},
                                                            const websocket_options& options = {}) {
        auto proc = browser_process::prepare(launch);
        if (!proc) return fail(proc.error());
        auto& p = **proc;
        const auto port_file = p.profile_dir() / "DevToolsActivePort";
        std::error_code ec;
        std::filesystem::remove(port_file, ec);  // a stale file from an earlier run of a host profile
        detail::unique_fd ino(::inotify_init1(IN_CLOEXEC | IN_NONBLOCK));
        if (ino && ::inotify_add_watch(ino.get(), p.profile_dir().c_str(), IN_CLOSE_WRITE | IN_MOVED_TO | IN_CREATE) < 0)
            ino.reset();
        if (auto r = p.spawn({"--remote-debugging-port=0", "--remote-debugging-address=127.0.0.1"}, {}); !r)
            return fail(r.error());

        const auto deadline = detail::deadline_after(launch.launch_timeout);
        const auto launch_failed = [&](const std::string& why) {
            const std::string status = p.exit_description();
            json details = {{"executable", p.executable()}, {"status", status}};
            if (auto tail = p.log_tail(); !tail.empty()) details["log_tail"] = tail;
            const std::string said = p.last_words();
            return fail(errc::browser_launch,
                        "the browser did not start: " + why + " (" + status + ")" + (said.empty() ? std::string() : "; it said: " + said),
                        "Check the browser log tail in details; pass flags through launch_options::extra_args.",
                        std::move(details));
        };
        std::optional<std::pair<std::uint16_t, std::string>> endpoint;
        auto backoff = std::chrono::microseconds(500);
        for (;;) {
            endpoint = read_active_port(port_file);
            if (endpoint) break;
            if (p.exited()) return launch_failed("the browser exited before opening its DevTools port");
            if (detail::clock::now() >= deadline)
                return launch_failed("no DevToolsActivePort within " + std::to_string(launch.launch_timeout.count()) + " ms");
            if (ino) {
                pollfd fds[2] = {{ino.get(), POLLIN, 0}, {p.pidfd(), POLLIN, 0}};
                detail::poll_until(fds, p.pidfd() >= 0 ? 2 : 1, deadline);
                char events[4096];
                while (::read(ino.get(), events, sizeof events) > 0) {
                }
            } else {  // no inotify: a bounded poll of the file with backoff
                ::usleep(static_cast<useconds_t>(backoff.count()));
                backoff = std::min(backoff * 2, std::chrono::microseconds(50000));
            }
        }
        const std::string url = "ws://127.0.0.1:" + std::to_string(endpoint->first) + endpoint->second;
        websocket_options o = options;
        const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - detail::clock::now());
        o.connect_timeout = std::max(std::chrono::milliseconds(1000), std::min(o.connect_timeout, left));
        auto t = connect(url, o);
        if (!t) return launch_failed("cannot connect to " + url + ": " + t.error().message);
        t->s_->proc = std::move(*proc);
        t->s_->port = endpoint->first;
        return t;
    }

    websocket_transport(websocket_transport&&) noexcept = default;
    websocket_transport& operator=(websocket_transport&& o) noexcept {
        if (this != &o) {
            close();
            s_ = std::move(o.s_);
        }
        return *this;
    }
    websocket_transport(const websocket_transport&) = delete;
    websocket_transport& operator=(const websocket_transport&) = delete;
    ~websocket_transport() { close(); }

    /// Send one message as a text frame (see the transport contract).
    [[nodiscard]] result<void> send(std::string_view message) {
        if (!s_) return fail(errc::transport_closed, "moved-from websocket_transport");
        return s_->send_message(message);
    }
    /// The next message, or errc::timeout, or a terminal error (see the transport contract).
    [[nodiscard]] result<std::string> receive(std::chrono::milliseconds timeout) {
        if (!s_) return fail(errc::transport_closed, "moved-from websocket_transport");
        return s_->receive(timeout);
    }
    /// Close the socket (a browser we launched is stopped first); idempotent.
    void close() {
        if (s_) s_->close();
    }
    /// False once closed or failed.
    [[nodiscard]] bool is_open() const noexcept { return s_ && s_->open.load(); }

    /// The ws:// URL this transport connected to.
    [[nodiscard]] const std::string& url() const noexcept {
        static const std::string none;
        return s_ ? s_->url : none;
    }
    /// The launched browser, or null when connected to an existing one.
    [[nodiscard]] browser_process* process() noexcept { return s_ ? s_->proc.get() : nullptr; }
    /// The launched browser's pid, or -1.
    [[nodiscard]] pid_t pid() const noexcept { return s_ && s_->proc ? s_->proc->pid() : -1; }
    /// The launched browser's DevTools port, or 0.
    [[nodiscard]] std::uint16_t port() const noexcept { return s_ ? s_->port : 0; }
    /// The close code and reason the server sent, once it did.
    [[nodiscard]] std::optional<std::pair<std::uint16_t, std::string>> close_status() const {
        if (!s_) return std::nullopt;
        std::lock_guard lock(s_->state_mu);
        return s_->peer_close;
    }

    /// Parse a DevToolsActivePort file: "<port>\n/devtools/browser/<id>\n".
    [[nodiscard]] static std::optional<std::pair<std::uint16_t, std::string>> read_active_port(
        const std::filesystem::path& file) {
        std::ifstream in(file);
        std::string port_line, path_line;
        if (!std::getline(in, port_line) || !std::getline(in, path_line)) return std::nullopt;
        unsigned port = 0;
        const auto [ptr, ec] = std::from_chars(port_line.data(), port_line.data() + port_line.size(), port);
        if (ec != std::errc{} || ptr != port_line.data() + port_line.size() || port == 0 || port > 65535) return std::nullopt;
        if (path_line.empty() || path_line[0] != '/') return std::nullopt;
        return std::pair{static_cast<std::uint16_t>(port), path_line};
    }

private:
    websocket_transport() = default;

    using opcode = detail::ws::opcode;

    struct state {
        std::unique_ptr<browser_process> proc;  // when launched
        std::uint16_t port = 0;
        detail::unique_fd sock;
        detail::wake_fd wake;
        websocket_options options;
        std::string url;
        std::mutex send_mu;
        std::mutex recv_mu;
        mutable std::mutex state_mu;
        std::optional<error> terminal;                                  // guarded by state_mu
        std::optional<std::pair<std::uint16_t, std::string>> peer_close;  // guarded by state_mu
        std::atomic<bool> closing{false};
        std::atomic<bool> open{true};
        // send side (send_mu)
        std::uint64_t rng = 0;
        bool close_sent = false;
        // receive side (recv_mu)
        std::string buf;
        std::size_t start = 0;
        std::string message;
        bool in_message = false;

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

        detail::ws::mask_key next_mask() {  // xorshift64* seeded from the kernel's generator (send_mu held)
            rng ^= rng >> 12;
            rng ^= rng << 25;
            rng ^= rng >> 27;
            const std::uint64_t v = rng * 2685821657736338717ULL;
            return {static_cast<std::uint8_t>(v >> 56), static_cast<std::uint8_t>(v >> 48),
                    static_cast<std::uint8_t>(v >> 40), static_cast<std::uint8_t>(v >> 32)};
        }

        result<void> write_frame(opcode op, std::string_view payload) {
            std::lock_guard lock(send_mu);
            if (close_sent) return fail(errc::transport_closed, "the WebSocket is closing");
            if (op == opcode::close) close_sent = true;
            const std::string frame = detail::ws::encode_frame(op, payload, true, next_mask());
            return detail::send_all(sock.get(), frame, detail::deadline_after(options.send_timeout), wake.fd());
        }

        result<void> send_message(std::string_view text) {
            if (auto t = terminal_error()) return fail(*t);
            if (closing) return fail(errc::transport_closed, "the WebSocket transport was closed");
            auto r = write_frame(opcode::text, text);
            if (r) return {};
            if (r.error().is(errc::transport_closed)) return fail(peer_gone());
            return fail(set_terminal(r.error()));
        }

        error peer_gone() {
            if (closing) return set_terminal(error(errc::transport_closed, "the WebSocket transport was closed"));
            if (proc && proc->wait_exit(std::chrono::milliseconds(2000))) {
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
            return set_terminal(error(errc::transport_closed, "the WebSocket connection to " + url + " was lost",
                                      "The browser went away or the network failed; reconnect to continue."));
        }

        error protocol_failure(std::uint16_t code, const error& e) {
            [[maybe_unused]] auto r = write_frame(opcode::close, detail::ws::close_payload(code));
            return set_terminal(e);
        }

        /// Decode and handle one buffered frame. Returns a message, nullopt to continue
        /// reading, or a terminal error.
        result<std::optional<std::string>> process_frame(bool& need_more) {
            need_more = false;
            const std::string_view avail = std::string_view(buf).substr(start);
            auto h = detail::ws::decode_header(avail, options.max_message_size);
            if (!h) {
                const bool too_big = h.error().details.is_object() && h.error().details.contains("limit");
                return fail(protocol_failure(too_big ? detail::ws::close_code::too_big : detail::ws::close_code::protocol_error,
                                             h.error()));
            }
            if (!*h || avail.size() < (*h)->frame_size()) {
                need_more = true;
                return std::optional<std::string>{};
            }
            const auto& f = **h;
            if (f.masked)
                return fail(protocol_failure(detail::ws::close_code::protocol_error,
                                             error(errc::protocol_error, "the server sent a masked WebSocket frame")));
            std::string payload(avail.substr(f.payload_offset, static_cast<std::size_t>(f.payload_size)));
            start += f.frame_size();
            if (start == buf.size()) {
                buf.clear();
                start = 0;
            } else if (start > (std::size_t{1} << 20U) && start > buf.size() / 2) {
                buf.erase(0, start);
                start = 0;
            }
            switch (f.op) {
                case opcode::text:
                case opcode::binary:
                    if (in_message)
                        return fail(protocol_failure(detail::ws::close_code::protocol_error,
                                                     error(errc::protocol_error, "new WebSocket message inside a fragmented one")));
                    if (f.fin) return std::optional<std::string>{std::move(payload)};
                    message = std::move(payload);
                    in_message = true;
                    return std::optional<std::string>{};
                case opcode::continuation:
                    if (!in_message)
                        return fail(protocol_failure(detail::ws::close_code::protocol_error,
                                                     error(errc::protocol_error, "WebSocket continuation frame without a message")));
                    if (message.size() + payload.size() > options.max_message_size)
                        return fail(protocol_failure(
                            detail::ws::close_code::too_big,
                            error(errc::protocol_error,
                                  "a WebSocket message exceeds the limit of " + std::to_string(options.max_message_size) + " bytes",
                                  "Raise websocket_options::max_message_size if such large messages are expected.")));
                    message += payload;
                    if (!f.fin) return std::optional<std::string>{};
                    in_message = false;
                    return std::optional<std::string>{std::exchange(message, std::string{})};
                case opcode::ping:
                    if (auto r = write_frame(opcode::pong, payload); !r && !r.error().is(errc::transport_closed))
                        return fail(set_terminal(r.error()));
                    return std::optional<std::string>{};
                case opcode::pong:
                    return std::optional<std::string>{};
                case opcode::close: {
                    auto [code, reason] = detail::ws::parse_close_payload(payload);
                    {
                        std::lock_guard lock(state_mu);
                        peer_close = std::pair{code, reason};
                    }
                    // Echo the close (RFC 6455 §5.5.1) unless we started the handshake.
                    [[maybe_unused]] auto r = write_frame(opcode::close, detail::ws::close_payload(code == 1005 ? 1000 : code));
                    if (closing) return fail(set_terminal(error(errc::transport_closed, "the WebSocket transport was closed")));
                    return fail(set_terminal(error(
                        errc::transport_closed,
                        "the server closed the WebSocket (code " + std::to_string(code) + (reason.empty() ? "" : ": " + reason) + ")",
                        "The browser ended the session; reconnect to continue.", json{{"code", code}, {"reason", reason}})));
                }
            }
            return std::optional<std::string>{};
        }

        /// Read more bytes. Returns false with a terminal error set/returned on EOF/error.
        result<bool> fill(detail::clock::time_point deadline, bool watch_wake) {
            pollfd fds[2] = {{sock.get(), POLLIN, 0}, {wake.fd(), POLLIN, 0}};
            const int pr = detail::poll_until(fds, watch_wake ? 2 : 1, deadline);
            if (pr == 0) return false;
            if (pr < 0) return fail(set_terminal(error(errc::transport_io, "poll failed: " + detail::errno_message(errno))));
            if (watch_wake && (fds[1].revents & POLLIN) != 0) return true;  // caller re-checks `closing`
            char chunk[65536];
            const ssize_t n = ::recv(sock.get(), chunk, sizeof chunk, MSG_DONTWAIT);
            if (n > 0) {
                buf.append(chunk, static_cast<std::size_t>(n));
                return true;
            }
            if (n < 0 && (errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK)) return true;
            if (n < 0 && errno != ECONNRESET && errno != EPIPE)
                return fail(set_terminal(error(errc::transport_io, "read failed: " + detail::errno_message(errno))));
            return fail(peer_gone());
        }

        result<std::string> receive(std::chrono::milliseconds timeout) {
            std::lock_guard lock(recv_mu);
            const auto deadline = detail::deadline_after(timeout);
            for (;;) {
                if (auto t = terminal_error()) return fail(*t);
                bool need_more = false;
                auto m = process_frame(need_more);
                if (!m) return fail(m.error());
                if (*m) return std::move(**m);
                if (!need_more) continue;
                if (closing) return fail(set_terminal(error(errc::transport_closed, "the WebSocket transport was closed")));
                auto got = fill(deadline, true);
                if (!got) return fail(got.error());
                if (!*got)
                    return fail(errc::timeout, "no message from the browser within " + std::to_string(timeout.count()) + " ms");
            }
        }

        void close() {
            if (closing.exchange(true)) return;
            bool browser_gone = false;
            if (proc && !proc->exited() && !terminal_error()) {
                // A browser we launched is ours to stop; one we merely connected to is not.
                [[maybe_unused]] auto r = write_frame(opcode::text, R"({"id":-2,"method":"Browser.close"})");
                browser_gone = proc->wait_exit(options.close_timeout);
            }
            if (!browser_gone && !terminal_error()) {
                [[maybe_unused]] auto r = write_frame(opcode::close, detail::ws::close_payload(detail::ws::close_code::normal));
            }
            wake.notify();
            {
                std::lock_guard lock(recv_mu);  // a blocked receive() has returned
                // Wait (bounded) for the server's close frame or EOF, discarding messages.
                const auto deadline = detail::deadline_after(options.close_timeout);
                while (!browser_gone && !terminal_error()) {
                    bool need_more = false;
                    auto m = process_frame(need_more);
                    if (!m) break;
                    if (!need_more) continue;
                    auto got = fill(deadline, false);
                    if (!got || !*got) break;
                }
            }
            set_terminal(error(errc::transport_closed, "the WebSocket transport was closed"));
            if (proc) proc->terminate(std::chrono::milliseconds(1000));
            {
                std::scoped_lock both(recv_mu, send_mu);
                sock.reset();
            }
            if (proc) proc->remove_temp_dir();
        }
    };

    std::shared_ptr<state> s_;
};

static_assert(transport<websocket_transport>);

/// Ask a DevTools HTTP endpoint (http://host:port) for the browser's WebSocket URL
/// (GET /json/version/ → webSocketDebuggerUrl), sending `headers` with the request (a hosted
/// browser's token; checked by the caller, net::valid_header). A ws:// URL is returned unchanged.
[[nodiscard]] inline result<std::string> discover_websocket_url(std::string_view endpoint,
                                                               std::chrono::milliseconds timeout = std::chrono::milliseconds(10000),
                                                               const std::vector<std::pair<std::string, std::string>>& headers = {}) {
    auto u = detail::parse_url(endpoint);
    if (!u) return fail(u.error());
    if (u->scheme == "ws") return std::string(endpoint);
    std::string path = u->path;
    if (path.find("/json/version") == std::string::npos) {
        if (!path.empty() && path.back() == '/') path.pop_back();
        path += "/json/version/";  // (with the slash, as Playwright asks: hosted browsers made for it serve that path)
    }
    u->path = path;
    auto r = detail::http_get(*u, timeout, std::size_t{16} << 20U, headers);
    if (!r) return fail(r.error());
    if (r->head.status != 200)
        return fail(errc::protocol_error,
                    "GET " + path + " on " + u->host_header() + " answered HTTP " + std::to_string(r->head.status),
                    "Is this a Chromium DevTools endpoint (--remote-debugging-port)?");
    auto j = json::parse(r->body, nullptr, false);
    if (!j.is_object() || !j.contains("webSocketDebuggerUrl") || !j["webSocketDebuggerUrl"].is_string())
        return fail(errc::protocol_error, "/json/version on " + u->host_header() + " has no webSocketDebuggerUrl",
                    "Is this a Chromium DevTools endpoint (--remote-debugging-port)?");
    return j["webSocketDebuggerUrl"].get<std::string>();
}

}  // namespace agentkit::cdp
