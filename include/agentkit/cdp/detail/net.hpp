// agentkit/cdp/detail/net.hpp — URL parsing, TCP connect with a deadline, blocking-free
// reads and writes bounded by deadlines, HTTP/1.1 response-head parsing and a minimal HTTP
// client (a browser's WebSocket URL from /json/version; WebDriver sessions).
#pragma once

#include <agentkit/cdp/detail/posix.hpp>
#include <agentkit/core/result.hpp>
#include <agentkit/core/strings.hpp>
#include <agentkit/core/url.hpp>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>

namespace agentkit::cdp::detail {

/// The parts of a `ws://` or `http://` URL we need.
struct url {
    std::string scheme;  ///< "ws" or "http" (lower case)
    std::string host;    ///< without brackets for IPv6 literals
    std::uint16_t port = 0;
    std::string path = "/";  ///< path and query, always starting with '/'

    /// The value of an HTTP Host header.
    [[nodiscard]] std::string host_header() const {
        std::string h = host.find(':') != std::string::npos ? "[" + host + "]" : host;
        h += ':';
        h += std::to_string(port);
        return h;
    }
};

using agentkit::ascii_lower;  // core/strings.hpp

[[nodiscard]] inline bool iequals(std::string_view a, std::string_view b) noexcept { return iequals_ascii(a, b); }

/// Parse `scheme://host[:port][/path]` for the schemes ws and http. wss/https are refused
/// with a hint (agentkit has no TLS; put a TLS-terminating proxy in front of a remote browser).
[[nodiscard]] inline result<url> parse_url(std::string_view text) {
    const auto bad = [&](std::string why) {
        return fail(errc::request_invalid, "invalid URL '" + std::string(text) + "': " + why,
                    "Use a URL like ws://127.0.0.1:9222/devtools/browser/<id> or http://127.0.0.1:9222.");
    };
    if (text.find("://") == std::string_view::npos) return bad("missing scheme");
    auto p = agentkit::parse_url(text);  // core/url.hpp: the one parser
    if (!p) return bad("malformed host or port");
    if (p->scheme == "wss" || p->scheme == "https")
        return fail(errc::request_invalid, "TLS URLs (" + p->scheme + "://) are not supported",
                    "Connect through a TLS-terminating proxy and use ws:// or http://.");
    if (p->scheme != "ws" && p->scheme != "http") return bad("unsupported scheme '" + p->scheme + "'");
    const std::string_view after = text.substr(text.find("://") + 3);
    if (after.substr(0, after.find_first_of("/?#")).find('@') != std::string_view::npos)
        return bad("credentials in URLs are not supported");
    if (p->host.empty()) return bad("missing host");
    if (p->explicit_port && p->port == 0) return bad("invalid port");
    url u;
    u.scheme = p->scheme;
    u.host = p->host;
    u.port = static_cast<std::uint16_t>(p->port);
    u.path = p->path.empty() ? "/" : p->path;
    if (p->has_query) u.path += "?" + p->query;
    return u;
}

/// Why a connect() failed, with the error's name as Node and curl users know it: "connect
/// ECONNREFUSED (Connection refused)".
[[nodiscard]] inline std::string connect_failure(int err) {
    const char* name = err == ECONNREFUSED ? "ECONNREFUSED" : err == EHOSTUNREACH ? "EHOSTUNREACH" : err == ENETUNREACH ? "ENETUNREACH"
                     : err == ETIMEDOUT    ? "ETIMEDOUT" : err == ECONNRESET ? "ECONNRESET" : err == EADDRNOTAVAIL ? "EADDRNOTAVAIL" : nullptr;
    return name != nullptr ? std::string("connect ") + name + " (" + errno_message(err) + ")" : errno_message(err);
}

/// Connect a TCP socket (blocking mode after connect, close-on-exec, TCP_NODELAY).
[[nodiscard]] inline result<unique_fd> tcp_connect(const std::string& host, std::uint16_t port,
                                                   clock::time_point deadline) {
    addrinfo hints{};
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    hints.ai_flags = AI_NUMERICSERV;
    addrinfo* list = nullptr;
    const std::string service = std::to_string(port);
    if (const int rc = ::getaddrinfo(host.c_str(), service.c_str(), &hints, &list); rc != 0)
        return fail(errc::transport_io, "cannot resolve '" + host + "': " + ::gai_strerror(rc),
                    "Check the host name of the browser endpoint.");
    std::string last = "no addresses";
    bool timed_out = false;
    for (addrinfo* ai = list; ai != nullptr; ai = ai->ai_next) {
        unique_fd fd(::socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC | SOCK_NONBLOCK, ai->ai_protocol));
        if (!fd) {
            last = errno_message(errno);
            continue;
        }
        int rc = ::connect(fd.get(), ai->ai_addr, ai->ai_addrlen);
        if (rc != 0 && errno == EINPROGRESS) {
            pollfd p{fd.get(), POLLOUT, 0};
            const int pr = poll_until(&p, 1, deadline);
            if (pr == 0) {
                timed_out = true;
                last = "timed out";
                break;
            }
            int err = 0;
            socklen_t len = sizeof err;
            if (pr < 0) err = errno;
            else if (::getsockopt(fd.get(), SOL_SOCKET, SO_ERROR, &err, &len) != 0) err = errno;
            if (err != 0) {
                last = connect_failure(err);
                continue;
            }
            rc = 0;
        }
        if (rc != 0) {
            last = connect_failure(errno);
            continue;
        }
        set_nonblocking(fd.get(), false);
        const int one = 1;
        ::setsockopt(fd.get(), IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
        ::freeaddrinfo(list);
        return fd;
    }
    ::freeaddrinfo(list);
    const std::string where = host + ":" + std::to_string(port);
    if (timed_out)
        return fail(errc::timeout, "timed out connecting to " + where, "Is the browser endpoint reachable?");
    return fail(errc::transport_io, "cannot connect to " + where + ": " + last,
                "Is a browser listening there (--remote-debugging-port)?");
}

/// Write all of `data` to a socket before the deadline (MSG_NOSIGNAL: a dead peer is an
/// error, never SIGPIPE). A readable `wake` descriptor (>= 0) aborts the wait with
/// errc::transport_closed.
[[nodiscard]] inline result<void> send_all(int fd, std::string_view data, clock::time_point deadline,
                                           int wake = -1) {
    while (!data.empty()) {
        const ssize_t n = ::send(fd, data.data(), data.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
        if (n >= 0) {
            data.remove_prefix(static_cast<std::size_t>(n));
            continue;
        }
        if (errno == EINTR) continue;
        if (errno == EAGAIN || errno == EWOULDBLOCK) {
            pollfd p[2] = {{fd, POLLOUT, 0}, {wake, POLLIN, 0}};
            const int pr = poll_until(p, wake >= 0 ? 2 : 1, deadline);
            if (pr == 0)
                return fail(errc::timeout, "timed out writing to the peer",
                            "The peer stopped reading; it may be hung.");
            if (pr < 0) return fail(errc::transport_io, "poll failed: " + errno_message(errno));
            if (wake >= 0 && (p[1].revents & POLLIN) != 0)
                return fail(errc::transport_closed, "the transport was closed while writing");
            continue;
        }
        const int e = errno;
        if (e == EPIPE || e == ECONNRESET)
            return fail(errc::transport_closed, "the peer closed the connection (" + errno_message(e) + ")");
        return fail(errc::transport_io, "write failed: " + errno_message(e));
    }
    return {};
}

/// A parsed HTTP/1.x response head.
struct http_head {
    int status = 0;
    std::string reason;
    std::vector<std::pair<std::string, std::string>> headers;  ///< names as received

    /// First header with this name (case-insensitive).
    [[nodiscard]] std::optional<std::string> header(std::string_view name) const {
        for (const auto& [k, v] : headers)
            if (iequals(k, name)) return v;
        return std::nullopt;
    }
};

[[nodiscard]] inline std::string_view trim(std::string_view s) noexcept {
    while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
    while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
    return s;
}

/// Parse "HTTP/1.1 101 Switching Protocols\r\nName: value\r\n...\r\n" (without the final CRLF).
[[nodiscard]] inline result<http_head> parse_http_head(std::string_view text) {
    http_head h;
    auto line_end = text.find("\r\n");
    std::string_view status_line = text.substr(0, line_end);
    if (status_line.substr(0, 7) != "HTTP/1." || status_line.size() < 12 || status_line[8] != ' ')
        return fail(errc::protocol_error, "malformed HTTP status line: '" + std::string(status_line.substr(0, 80)) + "'");
    int code = 0;
    const auto* b = status_line.data() + 9;
    const auto [ptr, ec] = std::from_chars(b, b + 3, code);
    if (ec != std::errc{} || ptr != b + 3) return fail(errc::protocol_error, "malformed HTTP status code");
    h.status = code;
    h.reason = std::string(trim(status_line.substr(12)));
    while (line_end != std::string_view::npos) {
        text = text.substr(line_end + 2);
        line_end = text.find("\r\n");
        std::string_view line = text.substr(0, line_end);
        if (line.empty()) break;
        const auto colon = line.find(':');
        if (colon == std::string_view::npos || colon == 0)
            return fail(errc::protocol_error, "malformed HTTP header line: '" + std::string(line.substr(0, 80)) + "'");
        h.headers.emplace_back(std::string(line.substr(0, colon)), std::string(trim(line.substr(colon + 1))));
    }
    return h;
}

/// A complete HTTP response.
struct http_response {
    http_head head;
    std::string body;
};

/// Decode a chunked transfer-encoded body. Returns nullopt when malformed or incomplete.
[[nodiscard]] inline std::optional<std::string> decode_chunked(std::string_view in) {
    std::string out;
    for (;;) {
        const auto eol = in.find("\r\n");
        if (eol == std::string_view::npos) return std::nullopt;
        std::string_view size_text = in.substr(0, eol);
        if (const auto semi = size_text.find(';'); semi != std::string_view::npos) size_text = size_text.substr(0, semi);
        size_text = trim(size_text);
        std::size_t size = 0;
        const auto [ptr, ec] = std::from_chars(size_text.data(), size_text.data() + size_text.size(), size, 16);
        if (ec != std::errc{} || ptr != size_text.data() + size_text.size()) return std::nullopt;
        in.remove_prefix(eol + 2);
        if (size == 0) return out;
        if (in.size() < size + 2) return std::nullopt;
        out.append(in.substr(0, size));
        in.remove_prefix(size + 2);
    }
}

/// One HTTP/1.1 request with `Connection: close` (a JSON body when `body` is set), bounded by
/// `timeout` overall and by `max_bytes` of response. Supports Content-Length, chunked and
/// read-to-close bodies. Any status is a response; only transport failures are errors.
[[nodiscard]] inline result<http_response> http_request(std::string_view method, const url& u, const std::optional<std::string>& body,
                                                        std::chrono::milliseconds timeout, std::size_t max_bytes = 16U << 20U,
                                                        const std::vector<std::pair<std::string, std::string>>& headers = {}) {
    const auto deadline = deadline_after(timeout);
    auto fd = tcp_connect(u.host, u.port, deadline);
    if (!fd) return fail(fd.error());
    std::string req = std::string(method) + " " + u.path + " HTTP/1.1\r\nHost: " + u.host_header() +
                      "\r\nAccept: application/json\r\nConnection: close\r\n";
    if (body) req += "Content-Type: application/json; charset=utf-8\r\nContent-Length: " + std::to_string(body->size()) + "\r\n";
    for (const auto& [k, v] : headers) req += k + ": " + v + "\r\n";  // (the caller checked them: net::valid_header)
    req += "\r\n";
    if (body) req += *body;
    if (auto s = send_all(fd->get(), req, deadline); !s) return fail(s.error());
    std::string buf;
    char chunk[16384];
    for (;;) {
        pollfd p{fd->get(), POLLIN, 0};
        const int pr = poll_until(&p, 1, deadline);
        if (pr == 0) return fail(errc::timeout, "timed out reading the HTTP response from " + u.host_header());
        if (pr < 0) return fail(errc::transport_io, "poll failed: " + errno_message(errno));
        const ssize_t n = ::recv(fd->get(), chunk, sizeof chunk, 0);
        if (n < 0) {
            if (errno == EINTR || errno == EAGAIN) continue;
            return fail(errc::transport_io, "read failed: " + errno_message(errno));
        }
        if (n == 0) break;
        buf.append(chunk, static_cast<std::size_t>(n));
        if (buf.size() > max_bytes) return fail(errc::protocol_error, "HTTP response too large");
        // Stop early once a Content-Length body is complete (the peer may keep the socket open).
        if (const auto end = buf.find("\r\n\r\n"); end != std::string::npos) {
            auto head = parse_http_head(std::string_view(buf).substr(0, end + 2));
            if (!head) return fail(head.error());
            if (auto cl = head->header("Content-Length")) {
                std::size_t len = 0;
                const auto [ptr, ec] = std::from_chars(cl->data(), cl->data() + cl->size(), len);
                if (ec == std::errc{} && buf.size() - (end + 4) >= len) break;
            }
        }
    }
    const auto end = buf.find("\r\n\r\n");
    if (end == std::string::npos) return fail(errc::protocol_error, "incomplete HTTP response head");
    auto head = parse_http_head(std::string_view(buf).substr(0, end + 2));
    if (!head) return fail(head.error());
    http_response r;
    r.head = std::move(*head);
    std::string_view got = std::string_view(buf).substr(end + 4);
    if (auto te = r.head.header("Transfer-Encoding"); te && ascii_lower(*te).find("chunked") != std::string::npos) {
        auto decoded = decode_chunked(got);
        if (!decoded) return fail(errc::protocol_error, "malformed chunked HTTP body");
        r.body = std::move(*decoded);
    } else if (auto cl = r.head.header("Content-Length")) {
        std::size_t len = 0;
        const auto [ptr, ec] = std::from_chars(cl->data(), cl->data() + cl->size(), len);
        if (ec != std::errc{} || got.size() < len) return fail(errc::protocol_error, "truncated HTTP body");
        r.body = std::string(got.substr(0, len));
    } else {
        r.body = std::string(got);
    }
    return r;
}

/// GET a URL (see http_request).
[[nodiscard]] inline result<http_response> http_get(const url& u, std::chrono::milliseconds timeout,
                                                    std::size_t max_bytes = 16U << 20U,
                                                    const std::vector<std::pair<std::string, std::string>>& headers = {}) {
    return http_request("GET", u, std::nullopt, timeout, max_bytes, headers);
}

}  // namespace agentkit::cdp::detail
