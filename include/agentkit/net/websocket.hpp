// agentkit/net/websocket.hpp — the server side of a WebSocket (RFC 6455) over http_server: the
// opening handshake answered from a handler, then a peer that receives and sends messages.
//
// Needs cpp-httplib (through net/http_server.hpp; CMake target agentkit::net).
//
//   site.route("/ws", [](const agentkit::net::http_request& r) {
//       return agentkit::net::websocket_upgrade(r, [](agentkit::net::websocket_peer& peer) {
//           while (auto m = peer.receive(std::chrono::seconds(1))) {   // an error once closed
//               if (*m) (void)peer.send("echo:" + (*m)->data);       // nullopt: timeout or wake()
//           }
//       });
//   });
//
// The frame codec is the one the CDP client uses (core/websocket_frame.hpp), the accept key
// too (core/sha1.hpp). Client frames must be masked (an unmasked one closes with 1002); pings
// are answered; fragmented messages are reassembled up to a maximum size (1009 beyond it); a
// server stop ends receive() at once. No extensions (permessage-deflate is never accepted).
#pragma once

#include <agentkit/net/http_server.hpp>
#include <agentkit/core/error.hpp>
#include <agentkit/core/result.hpp>
#include <agentkit/core/sha1.hpp>
#include <agentkit/core/websocket_frame.hpp>

#include <array>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include <fcntl.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

namespace agentkit::net {

/// One message from the client.
struct websocket_message {
    ws::opcode op = ws::opcode::text;  ///< text or binary
    std::string data;                  ///< the payload (fragments joined)
};

/// The server end of one WebSocket connection. receive() belongs to one thread; send(),
/// wake() and close() may be called from any thread.
class websocket_peer {
public:
    /// A peer over the connected socket `fd` (not owned), `stop_fd` readable when the server stops.
    websocket_peer(int fd, int stop_fd, std::size_t max_message = std::size_t{1} << 20U,
                   std::chrono::milliseconds write_timeout = std::chrono::milliseconds(10000))
        : fd_(fd), stop_fd_(stop_fd), max_(max_message), write_timeout_(write_timeout) {
        if (::pipe2(wake_.data(), O_CLOEXEC | O_NONBLOCK) != 0) wake_ = {-1, -1};
    }
    websocket_peer(const websocket_peer&) = delete;
    websocket_peer& operator=(const websocket_peer&) = delete;
    ~websocket_peer() {
        for (int f : wake_)
            if (f >= 0) ::close(f);
    }

    /// The next message, waiting at most `timeout`: nullopt when none came in time or wake()
    /// was called; errc::transport_closed once the client closed, the server stops or the
    /// connection failed (a protocol violation closes it with its code first).
    [[nodiscard]] result<std::optional<websocket_message>> receive(std::chrono::milliseconds timeout) {
        const auto deadline = std::chrono::steady_clock::now() + timeout;
        for (;;) {
            if (!open_) return fail(errc::transport_closed, "the WebSocket is closed");
            bool more = false;
            auto m = next_frame(more);
            if (!m) return fail(m.error());
            if (*m) return std::move(*m);
            if (!more) continue;
            const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
            std::array<pollfd, 3> p{pollfd{fd_, POLLIN, 0}, pollfd{stop_fd_, POLLIN, 0}, pollfd{wake_[0], POLLIN, 0}};
            const int r = ::poll(p.data(), p.size(), static_cast<int>(std::max<std::int64_t>(0, left.count())));
            if (r < 0 && errno == EINTR) continue;
            if (r < 0) return closed_by("poll failed");
            if ((p[1].revents & POLLIN) != 0) {
                close(ws::close_code::going_away, "server stopping");
                return fail(errc::transport_closed, "the server stops");
            }
            if ((p[2].revents & POLLIN) != 0) {
                char drain[64];
                while (::read(wake_[0], drain, sizeof drain) > 0) {
                }
                return std::optional<websocket_message>{};
            }
            if (r == 0) return std::optional<websocket_message>{};
            char chunk[65536];
            const ssize_t n = ::recv(fd_, chunk, sizeof chunk, MSG_DONTWAIT);
            if (n < 0 && (errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK)) continue;
            if (n <= 0) return closed_by("the client went away");
            buf_.append(chunk, static_cast<std::size_t>(n));
        }
    }

    /// Make a receive() in progress (or the next one) return nullopt at once.
    void wake() noexcept {
        if (wake_[1] >= 0) (void)!::write(wake_[1], "w", 1);
    }

    /// Send one message (text or binary). False once closed or when the client stops reading
    /// for longer than the write timeout (the connection then closes).
    bool send(std::string_view data, ws::opcode op = ws::opcode::text) {
        if (!open_) return false;
        if (!write_raw(ws::encode_frame(op, data))) {
            open_ = false;
            return false;
        }
        bytes_sent_ += data.size();
        return true;
    }

    /// Start the close handshake with `code` (idempotent); receive() then fails.
    void close(std::uint16_t code = ws::close_code::normal, std::string_view reason = {}) {
        if (!open_.exchange(false)) return;
        (void)write_raw(ws::encode_frame(ws::opcode::close, ws::close_payload(code, reason)));
    }

    /// True until closed.
    [[nodiscard]] bool is_open() const noexcept { return open_.load(); }
    /// Payload bytes sent so far.
    [[nodiscard]] std::uint64_t bytes_sent() const noexcept { return bytes_sent_.load(); }

private:
    result<std::optional<websocket_message>> closed_by(const std::string& why) {
        open_ = false;
        return fail(errc::transport_closed, "the WebSocket closed: " + why);
    }

    bool write_raw(std::string_view frame) {
        std::lock_guard lock(send_mu_);
        const auto deadline = std::chrono::steady_clock::now() + write_timeout_;
        std::size_t sent = 0;
        while (sent < frame.size()) {
            const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
            if (left.count() <= 0) return false;
            pollfd p{fd_, POLLOUT, 0};
            const int r = ::poll(&p, 1, static_cast<int>(left.count()));
            if (r < 0 && errno == EINTR) continue;
            if (r <= 0 || (p.revents & (POLLERR | POLLHUP)) != 0) return false;
            const ssize_t n = ::send(fd_, frame.data() + sent, frame.size() - sent, MSG_NOSIGNAL | MSG_DONTWAIT);
            if (n < 0 && (errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK)) continue;
            if (n <= 0) return false;
            sent += static_cast<std::size_t>(n);
        }
        return true;
    }

    result<std::optional<websocket_message>> violation(std::uint16_t code, const std::string& why) {
        close(code, why);
        return fail(errc::protocol_error, "WebSocket: " + why);
    }

    /// One buffered frame: a whole message, nullopt (`more` set when bytes are missing), or an error.
    result<std::optional<websocket_message>> next_frame(bool& more) {
        more = false;
        const std::string_view avail = std::string_view(buf_).substr(start_);
        auto h = ws::decode_header(avail, max_);
        if (!h) {
            const bool big = h.error().details.is_object() && h.error().details.contains("limit");
            return violation(big ? ws::close_code::too_big : ws::close_code::protocol_error, h.error().message);
        }
        if (!*h || avail.size() < (*h)->frame_size()) {
            more = true;
            if (start_ > 0) {
                buf_.erase(0, start_);
                start_ = 0;
            }
            return std::optional<websocket_message>{};
        }
        const auto f = **h;
        if (!f.masked) return violation(ws::close_code::protocol_error, "a client frame was not masked");
        std::string payload(avail.substr(f.payload_offset, static_cast<std::size_t>(f.payload_size)));
        ws::apply_mask(payload.data(), payload.size(), f.mask);
        start_ += f.frame_size();
        if (start_ == buf_.size()) {
            buf_.clear();
            start_ = 0;
        }
        switch (f.op) {
            case ws::opcode::text:
            case ws::opcode::binary:
                if (in_message_) return violation(ws::close_code::protocol_error, "a new message inside a fragmented one");
                if (f.fin) return std::optional<websocket_message>{websocket_message{f.op, std::move(payload)}};
                partial_ = websocket_message{f.op, std::move(payload)};
                in_message_ = true;
                return std::optional<websocket_message>{};
            case ws::opcode::continuation:
                if (!in_message_) return violation(ws::close_code::protocol_error, "a continuation frame without a message");
                if (partial_.data.size() + payload.size() > max_)
                    return violation(ws::close_code::too_big, "a message larger than " + std::to_string(max_) + " bytes");
                partial_.data += payload;
                if (!f.fin) return std::optional<websocket_message>{};
                in_message_ = false;
                return std::optional<websocket_message>{std::exchange(partial_, websocket_message{})};
            case ws::opcode::ping:
                (void)write_raw(ws::encode_frame(ws::opcode::pong, payload));
                return std::optional<websocket_message>{};
            case ws::opcode::pong:
                return std::optional<websocket_message>{};
            case ws::opcode::close: {
                const auto code = ws::parse_close_payload(payload).first;
                close(code == 1005 ? ws::close_code::normal : code);
                return fail(errc::transport_closed, "the client closed the WebSocket");
            }
        }
        return std::optional<websocket_message>{};
    }

    int fd_, stop_fd_;
    std::size_t max_;
    std::chrono::milliseconds write_timeout_;
    std::array<int, 2> wake_{-1, -1};
    std::atomic<bool> open_{true};
    std::atomic<std::uint64_t> bytes_sent_{0};
    std::mutex send_mu_;
    std::string buf_;
    std::size_t start_ = 0;
    bool in_message_ = false;
    websocket_message partial_;
};

/// True when `r` asks for a WebSocket upgrade (GET with Upgrade: websocket).
[[nodiscard]] inline bool is_websocket_upgrade(const http_request& r) {
    std::string up = r.header("Upgrade");
    for (char& c : up) c = static_cast<char>(c | 0x20);
    return r.method == "GET" && up == "websocket";
}

/// The response to a WebSocket opening handshake: 101 with the accept key, after which
/// `session` runs on the connection's thread with the peer until it returns (the connection
/// then closes); 400 when the request is not a valid version-13 handshake, 426 for another version.
[[nodiscard]] inline http_response websocket_upgrade(const http_request& r, std::function<void(websocket_peer&)> session,
                                                     std::size_t max_message = std::size_t{1} << 20U) {
    if (!is_websocket_upgrade(r)) return http_response::text("a WebSocket upgrade was expected\n", 400);
    std::string conn = r.header("Connection");
    for (char& c : conn) c = static_cast<char>(c | 0x20);
    const std::string key = r.header("Sec-WebSocket-Key");
    if (conn.find("upgrade") == std::string::npos || key.size() != 24)
        return http_response::text("not a WebSocket handshake\n", 400);
    if (r.header("Sec-WebSocket-Version") != "13") {
        auto out = http_response::text("WebSocket version 13 only\n", 426);
        out.headers.emplace_back("Sec-WebSocket-Version", "13");
        return out;
    }
    http_response out;
    out.status = 101;
    out.headers = {{"Upgrade", "websocket"}, {"Connection", "Upgrade"}, {"Sec-WebSocket-Accept", websocket_accept(key)}};
    out.takeover = [session = std::move(session), max_message](int fd, int stop_fd) {
        websocket_peer peer(fd, stop_fd, max_message);
        session(peer);
        peer.close(ws::close_code::normal);
    };
    return out;
}

}  // namespace agentkit::net
