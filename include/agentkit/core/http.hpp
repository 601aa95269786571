// agentkit/core/http.hpp — HTTP messages as plain values: one request out, one response in,
// the Retry-After rule, a URL as messages may show it, and `http_client_like`, the concept of a
// client that turns the one into the other. No transport here: net/http_client.hpp is the
// libcurl client (CMake target agentkit::curl) and satisfies the concept; a test or a host can
// plug any other (a fake, a proxy-aware client) into what is built on the concept (the search
// backends, search/http_backend.hpp).
//
//   agentkit::net::client_request rq;
//   rq.url = "https://api.example.com/v1/things?q=1";
//   agentkit::net::redact_url(rq.url);              // "https://api.example.com/v1/things?..."
//   agentkit::net::parse_retry_after("120");        // 120 (seconds)
#pragma once

#include <agentkit/core/result.hpp>
#include <agentkit/core/strings.hpp>
#include <agentkit/core/url.hpp>

#include <chrono>
#include <concepts>
#include <condition_variable>
#include <cstddef>
#include <functional>
#include <mutex>
#include <optional>
#include <stop_token>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace agentkit::net {

/// One outgoing request.
struct client_request {
    std::string method = "GET";  ///< GET, POST, PUT, DELETE, PATCH, HEAD, ...
    std::string url;             ///< http:// or https:// only
    std::vector<std::pair<std::string, std::string>> headers;  ///< sent as given (never logged)
    std::string body;            ///< sent when not empty (and always with POST)
    std::chrono::milliseconds timeout{0};              ///< the whole exchange; 0: no limit
    std::chrono::milliseconds connect_timeout{10000};  ///< connecting (and TLS); 0: curl's default
    std::chrono::seconds stall_timeout{0};             ///< fail when no byte arrives for this long; 0: no limit
    std::size_t max_response_bytes = std::size_t{64} << 20U;  ///< of a collected body (not a streamed one)
    long max_redirects = 0;      ///< redirects followed (0: a 3xx is the response)
};

/// The response: status and headers of the final response, and the body when it was collected.
struct client_response {
    int status = 0;               ///< the final response's HTTP status (any status, 404 included)
    std::vector<std::pair<std::string, std::string>> headers;  ///< names in lower case, in order
    std::string body;             ///< empty when the body went to a body_sink
    std::size_t body_bytes = 0;   ///< bytes of body received (collected or streamed)

    /// The first value of header `name` (any case), "" when absent.
    [[nodiscard]] std::string header(std::string_view name) const {
        for (const auto& [k, v] : headers)
            if (iequals_ascii(k, name)) return v;
        return {};
    }
    /// True for a 2xx status.
    [[nodiscard]] bool ok() const noexcept { return status >= 200 && status < 300; }
};

/// Where a streamed body goes: called on the thread that called perform(), with the response's
/// status and headers (`head`) and each piece of the body as it arrives. Return false to stop
/// the transfer (perform() then fails with `cancelled`, details.by "body_sink"). Must not throw
/// (an exception stops the transfer too, as an `internal` error).
using body_sink = std::function<bool(const client_response& head, std::string_view piece)>;

/// Called once, on the thread that called perform(), when the final response's status and
/// headers have arrived (after any 1xx and followed redirects), before its body: for a stream
/// that may send nothing for long, the moment it is open. Must not throw (ignored if it does).
using head_sink = std::function<void(const client_response& head)>;

/// The seconds a Retry-After header value asks for: delay-seconds ("120", "1.5") or an HTTP
/// date (IMF-fixdate "Sun, 06 Nov 1994 08:49:37 GMT", RFC 850, asctime) relative to `now`.
/// A date in the past gives 0; a value that is neither gives nullopt.
[[nodiscard]] inline std::optional<double> parse_retry_after(
    std::string_view value, std::chrono::system_clock::time_point now = std::chrono::system_clock::now()) {
    while (!value.empty() && (value.front() == ' ' || value.front() == '\t')) value.remove_prefix(1);
    while (!value.empty() && (value.back() == ' ' || value.back() == '\t' || value.back() == '\r')) value.remove_suffix(1);
    if (value.empty()) return std::nullopt;
    if (value.front() >= '0' && value.front() <= '9') {
        double secs = 0;
        double scale = 0;  // 0: before the point
        for (char c : value) {
            if (c == '.' && scale == 0) {
                scale = 0.1;
            } else if (c >= '0' && c <= '9') {
                if (scale == 0) {
                    secs = secs * 10 + (c - '0');
                } else {
                    secs += (c - '0') * scale;
                    scale /= 10;
                }
            } else {
                return std::nullopt;
            }
            if (secs > 1e9) return std::nullopt;
        }
        return secs;
    }
    // An HTTP date: split into tokens at spaces, commas and dashes.
    std::vector<std::string_view> tokens;
    std::size_t start = 0;
    for (std::size_t i = 0; i <= value.size(); ++i) {
        if (i == value.size() || value[i] == ' ' || value[i] == ',' || value[i] == '-') {
            if (i > start) tokens.push_back(value.substr(start, i - start));
            start = i + 1;
        }
    }
    static constexpr std::string_view months[] = {"jan", "feb", "mar", "apr", "may", "jun",
                                                  "jul", "aug", "sep", "oct", "nov", "dec"};
    int month = 0;
    int hh = -1;
    int mi = -1;
    int ss = -1;
    std::vector<long> numbers;  // day and year, in the order written
    auto number = [](std::string_view t) -> std::optional<long> {
        if (t.empty() || t.size() > 4) return std::nullopt;
        long v = 0;
        for (char c : t) {
            if (c < '0' || c > '9') return std::nullopt;
            v = v * 10 + (c - '0');
        }
        return v;
    };
    for (auto t : tokens) {
        if (t.find(':') != std::string_view::npos) {
            if (t.size() != 8 || t[2] != ':' || t[5] != ':') return std::nullopt;
            auto h = number(t.substr(0, 2));
            auto m = number(t.substr(3, 2));
            auto s = number(t.substr(6, 2));
            if (!h || !m || !s || *h > 23 || *m > 59 || *s > 60) return std::nullopt;
            hh = static_cast<int>(*h);
            mi = static_cast<int>(*m);
            ss = static_cast<int>(*s);
        } else if (auto n = number(t)) {
            numbers.push_back(*n);
        } else if (t.size() == 3 && month == 0) {
            const std::string lower = ascii_lower(t);
            for (int k = 0; k < 12; ++k)
                if (lower == months[k]) month = k + 1;
            // a weekday (Sun, Mon, ...) matches no month and is ignored
        }
        // "GMT", long weekday names: ignored
    }
    if (month == 0 || hh < 0 || numbers.size() != 2) return std::nullopt;
    long day = numbers[0];
    long year = numbers[1];
    if (year < 100) year += year < 70 ? 2000 : 1900;  // RFC 850's two-digit years
    if (day < 1 || day > 31 || year < 1970 || year > 9999) return std::nullopt;
    using namespace std::chrono;
    const year_month_day ymd{std::chrono::year{static_cast<int>(year)}, std::chrono::month{static_cast<unsigned>(month)},
                             std::chrono::day{static_cast<unsigned>(day)}};
    if (!ymd.ok()) return std::nullopt;
    const auto when = sys_days{ymd} + hours{hh} + minutes{mi} + seconds{ss};
    const double secs = duration<double>(when - now).count();
    return secs > 0 ? secs : 0.0;
}

/// `url` as error messages and logs show it: scheme, host, port and path; credentials
/// (user:password@) and the query (which may hold a key) left out ("?..." marks a query).
[[nodiscard]] inline std::string redact_url(std::string_view url) {
    const auto u = parse_url(url);
    if (!u || !u->has_authority) return "(an unreadable URL)";
    std::string out = u->scheme + "://" + u->host_text();
    if (u->explicit_port) out += ":" + std::to_string(u->port);
    out += u->path;
    if (u->has_query) out += "?...";
    return out;
}

/// `s` encoded for a URL's query or a form body (application/x-www-form-urlencoded): letters,
/// digits and `-._~` stay, a space is `+`, every other byte is `%XX`.
[[nodiscard]] inline std::string form_encode(std::string_view s) {
    static constexpr char hex[] = "0123456789ABCDEF";
    std::string out;
    out.reserve(s.size() + s.size() / 2);
    for (char ch : s) {
        const auto c = static_cast<unsigned char>(ch);
        if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '.' || c == '_' ||
            c == '~') {
            out += ch;
        } else if (c == ' ') {
            out += '+';
        } else {
            out += '%';
            out += hex[c >> 4U];
            out += hex[c & 15U];
        }
    }
    return out;
}

/// Wait `d` unless `stop` is requested first (a retry's wait that a cancelled caller ends early).
inline void stoppable_wait(std::chrono::milliseconds d, std::stop_token stop) {
    std::mutex mu;
    std::condition_variable_any cv;
    std::unique_lock lock(mu);
    (void)cv.wait_for(lock, stop, d, [] { return false; });
}

/// True when `name` is an HTTP field name (an RFC 9110 token) and `value` has no CR, LF or NUL:
/// a header that cannot end the head early or start a request of its own.
[[nodiscard]] inline bool valid_header(std::string_view name, std::string_view value) noexcept {
    if (name.empty()) return false;
    for (const char c : name) {
        const bool alnum = (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
        if (!alnum && std::string_view("!#$%&'*+-.^_`|~").find(c) == std::string_view::npos) return false;
    }
    return value.find_first_of(std::string_view("\r\n\0", 3)) == std::string_view::npos;
}

/// A header written "Name: value" (or "Name" alone: an empty value) as a (name, value) pair, the
/// value trimmed of surrounding spaces and tabs (it may hold colons). Errors (args_invalid) for a
/// name that is not a token or a value with a line break; the value is never echoed.
[[nodiscard]] inline result<std::pair<std::string, std::string>> parse_header_line(std::string_view line) {
    const std::size_t colon = line.find(':');
    std::string_view name = line.substr(0, colon);
    std::string_view value = colon == std::string_view::npos ? std::string_view() : line.substr(colon + 1);
    auto trim = [](std::string_view v) {
        while (!v.empty() && (v.front() == ' ' || v.front() == '\t')) v.remove_prefix(1);
        while (!v.empty() && (v.back() == ' ' || v.back() == '\t')) v.remove_suffix(1);
        return v;
    };
    name = trim(name);
    value = trim(value);
    if (!valid_header(name, value))
        return fail(errc::args_invalid,
                    "not a header: \"" + std::string(name.substr(0, 64)) + "\" (write \"Name: value\", a name of letters, digits and -, "
                    "a value without line breaks)");
    return std::pair<std::string, std::string>{std::string(name), std::string(value)};
}

/// A client that sends one request and returns its response (any status) or a transport error
/// (`request.invalid`, `transport.io`, `timeout`, `cancelled`), as net::http_client does.
template <class C>
concept http_client_like = requires(C& c, const client_request& rq) {
    { c.perform(rq) } -> std::same_as<result<client_response>>;
};

}  // namespace agentkit::net
