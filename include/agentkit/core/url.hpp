// agentkit/core/url.hpp — the one URL parser: an absolute URL split into its parts (RFC 3986's
// generic syntax, as browsers send URLs). Every part of agentkit that looks into a URL uses it:
// the CDP endpoint (cdp/detail/net.hpp), the origin policy (browser/policy.hpp), the HTTP parts.
//
//   auto u = agentkit::parse_url("HTTP://user@Example.COM.:8080/a/b?q=1#top");
//   // u->scheme "http", u->userinfo "user", u->host "example.com", u->port 8080,
//   // u->path "/a/b", u->query "q=1", u->fragment "top"
//
// Not a validator of everything a browser accepts: hosts are taken as written (lower case, one
// trailing dot removed); numeric and IPv6 spellings are made canonical where a decision needs it
// (browser/policy.hpp's canonical_host). Query strings and form bodies are read with
// query_params / form_decode below; is_loopback_host is the one loopback rule.
#pragma once

#include <agentkit/core/strings.hpp>

#include <arpa/inet.h>
#include <netinet/in.h>

#include <algorithm>
#include <cctype>
#include <map>
#include <optional>
#include <string>
#include <string_view>

namespace agentkit {

/// The parts of an absolute URL.
struct url_parts {
    std::string scheme;        ///< lower case, without ':'
    bool has_authority = false;  ///< "//" follows the scheme (about:, data:, javascript: have none)
    std::string userinfo;      ///< before '@' in the authority (credentials), as written
    std::string host;          ///< lower case; an IPv6 literal without its brackets; one trailing dot removed
    bool ipv6 = false;         ///< the host was a bracketed IPv6 literal
    int port = -1;             ///< the explicit port, else the scheme's default, else -1
    bool explicit_port = false;  ///< the URL names its port (`port` is then that port)
    std::string path;          ///< "" or starting with '/' (for URLs with an authority)
    std::string query;         ///< after '?', without it
    std::string fragment;      ///< after '#', without it
    bool has_query = false;  ///< a '?' is present (the query may still be empty)
    bool has_fragment = false;  ///< a '#' is present (the fragment may still be empty)

    /// The host as it appears in a URL: IPv6 literals in brackets.
    [[nodiscard]] std::string host_text() const { return ipv6 ? "[" + host + "]" : host; }
};

/// The default port of a scheme: 80 for http and ws, 443 for https and wss, else -1.
[[nodiscard]] inline int default_port(std::string_view scheme) noexcept {
    if (scheme == "http" || scheme == "ws") return 80;
    if (scheme == "https" || scheme == "wss") return 443;
    return -1;
}

namespace detail {

/// A port: 1 to 5 digits, at most 65535.
[[nodiscard]] inline std::optional<int> parse_port_text(std::string_view s) noexcept {
    if (s.empty() || s.size() > 5) return std::nullopt;
    int v = 0;
    for (char c : s) {
        if (c < '0' || c > '9') return std::nullopt;
        v = v * 10 + (c - '0');
    }
    if (v > 65535) return std::nullopt;
    return v;
}
}  // namespace detail

/// Split "host[:port]" or "[v6]:port" (an authority without userinfo). Nothing on a malformed one
/// (an unterminated or trailing-garbage IPv6 literal, a bad port, a host that is only dots).
[[nodiscard]] inline std::optional<url_parts> parse_authority(std::string_view hp) {
    url_parts u;
    std::string_view host = hp;
    if (!hp.empty() && hp.front() == '[') {
        const auto close = hp.find(']');
        if (close == std::string_view::npos) return std::nullopt;
        host = hp.substr(1, close - 1);
        u.ipv6 = true;
        if (close + 1 < hp.size()) {
            if (hp[close + 1] != ':') return std::nullopt;
            auto p = detail::parse_port_text(hp.substr(close + 2));
            if (!p) return std::nullopt;
            u.port = *p;
            u.explicit_port = true;
        }
    } else if (const auto colon = hp.rfind(':'); colon != std::string_view::npos) {
        host = hp.substr(0, colon);
        auto p = detail::parse_port_text(hp.substr(colon + 1));
        if (!p) return std::nullopt;
        u.port = *p;
        u.explicit_port = true;
    }
    // "evil.test." names the same host as "evil.test" (a fully qualified name): one spelling
    if (!u.ipv6 && !host.empty() && host.back() == '.') {
        host.remove_suffix(1);
        if (host.empty() || host.back() == '.') return std::nullopt;
    }
    u.host = ascii_lower(host);
    return u;
}

/// Parse an absolute URL as a browser reads it (the WHATWG URL rules that decide the host): leading
/// and trailing spaces and control characters are ignored, tabs and newlines anywhere are
/// dropped, and for the special schemes (http, https, ws, wss, ftp, file) a backslash is a slash
/// and any run of slashes after the scheme starts the authority ("http:\\evil\@good/" is host "evil",
/// as Chromium reads it).
[[nodiscard]] inline std::optional<url_parts> parse_url(std::string_view input) {
    while (!input.empty() && static_cast<unsigned char>(input.front()) <= 0x20) input.remove_prefix(1);
    while (!input.empty() && static_cast<unsigned char>(input.back()) <= 0x20) input.remove_suffix(1);
    std::string buf;
    buf.reserve(input.size());
    for (char c : input)
        if (c != '\t' && c != '\n' && c != '\r') buf += c;
    std::string_view text = buf;
    const auto colon = text.find(':');
    if (colon == std::string_view::npos || colon == 0) return std::nullopt;
    url_parts u;
    u.scheme = ascii_lower(text.substr(0, colon));
    if (!std::isalpha(static_cast<unsigned char>(u.scheme[0]))) return std::nullopt;
    for (char c : u.scheme)
        if (!std::isalnum(static_cast<unsigned char>(c)) && c != '+' && c != '-' && c != '.') return std::nullopt;
    const bool special = u.scheme == "http" || u.scheme == "https" || u.scheme == "ws" || u.scheme == "wss" ||
                         u.scheme == "ftp" || u.scheme == "file";
    if (special) {
        for (std::size_t i = colon + 1; i < buf.size() && buf[i] != '?' && buf[i] != '#'; ++i)
            if (buf[i] == '\\') buf[i] = '/';
        text = buf;
    }
    std::string_view rest = text.substr(colon + 1);
    if (const auto hash = rest.find('#'); hash != std::string_view::npos) {
        u.fragment = std::string(rest.substr(hash + 1));
        u.has_fragment = true;
        rest = rest.substr(0, hash);
    }
    if (const auto q = rest.find('?'); q != std::string_view::npos) {
        u.query = std::string(rest.substr(q + 1));
        u.has_query = true;
        rest = rest.substr(0, q);
    }
    if (special && u.scheme != "file") {
        // http:evil.test, http:/evil.test and http:///evil.test all name the host evil.test
        while (!rest.empty() && rest.front() == '/') rest.remove_prefix(1);
    } else if (rest.substr(0, 2) != "//") {  // about:, data:, javascript:, mailto:, blob:...
        u.path = std::string(rest);
        return u;
    } else {
        rest.remove_prefix(2);
    }
    u.has_authority = true;
    const auto slash = rest.find('/');
    std::string_view auth = rest.substr(0, slash);
    u.path = slash == std::string_view::npos ? std::string() : std::string(rest.substr(slash));
    std::string userinfo;
    if (const auto at = auth.rfind('@'); at != std::string_view::npos) {
        userinfo = std::string(auth.substr(0, at));
        auth = auth.substr(at + 1);
    }
    auto a = parse_authority(auth);
    if (!a) return std::nullopt;
    u.userinfo = std::move(userinfo);
    u.host = std::move(a->host);
    u.ipv6 = a->ipv6;
    u.explicit_port = a->explicit_port;
    u.port = a->explicit_port ? a->port : default_port(u.scheme);
    return u;
}

namespace detail {
inline std::string percent_decoded(std::string_view s, bool plus_is_space) {
    auto hex = [](char c) -> int {
        if (c >= '0' && c <= '9') return c - '0';
        if (c >= 'a' && c <= 'f') return c - 'a' + 10;
        if (c >= 'A' && c <= 'F') return c - 'A' + 10;
        return -1;
    };
    std::string out;
    for (std::size_t i = 0; i < s.size(); ++i) {
        if (s[i] == '+' && plus_is_space) {
            out += ' ';
        } else if (s[i] == '%' && i + 2 < s.size() && hex(s[i + 1]) >= 0 && hex(s[i + 2]) >= 0) {
            out += static_cast<char>(hex(s[i + 1]) * 16 + hex(s[i + 2]));
            i += 2;
        } else {
            out += s[i];
        }
    }
    return out;
}
}  // namespace detail

/// Percent-decoding of a query component or an application/x-www-form-urlencoded value ('+' is
/// a space; a '%' not followed by two hex digits stays as it is).
[[nodiscard]] inline std::string form_decode(std::string_view s) { return detail::percent_decoded(s, true); }

/// The local path a `file:` URI names (`file:///home/a%20b` → `/home/a b`; the host empty or
/// localhost); nothing for another scheme or a remote host.
[[nodiscard]] inline std::optional<std::string> file_uri_path(std::string_view uri) {
    constexpr std::string_view scheme = "file://";
    if (uri.size() < scheme.size() || !std::equal(scheme.begin(), scheme.end(), uri.begin(), [](char a, char b) {
            return a == static_cast<char>(std::tolower(static_cast<unsigned char>(b)));
        }))
        return std::nullopt;
    std::string_view rest = uri.substr(scheme.size());
    const std::size_t slash = rest.find('/');
    if (slash == std::string_view::npos) return std::nullopt;
    const std::string_view host = rest.substr(0, slash);
    if (!host.empty() && host != "localhost") return std::nullopt;
    std::string_view path = rest.substr(slash);
    path = path.substr(0, path.find_first_of("?#"));
    return detail::percent_decoded(path, false);
}

/// The parameters of a query string (or a form body), each name with all its values in order.
[[nodiscard]] inline std::multimap<std::string, std::string> query_params(std::string_view q) {
    std::multimap<std::string, std::string> out;
    while (!q.empty()) {
        const std::size_t amp = q.find('&');
        const std::string_view part = q.substr(0, amp);
        if (!part.empty()) {
            const std::size_t eq = part.find('=');
            out.emplace(form_decode(part.substr(0, eq)), eq == std::string_view::npos ? std::string() : form_decode(part.substr(eq + 1)));
        }
        if (amp == std::string_view::npos) break;
        q.remove_prefix(amp + 1);
    }
    return out;
}

/// Whether `host` names this machine's loopback interface and nothing else: "localhost" and the
/// names under it (RFC 6761), 127.0.0.0/8 in dotted-quad form, ::1, and ::ffff:127.x.y.z (an IPv4
/// loopback peer as an IPv6 socket reports it). Case, IPv6 brackets and one trailing dot are
/// ignored. Not loopback: the unspecified addresses 0.0.0.0 and :: (bound, they listen on every
/// interface; browser/policy.hpp counts them as this machine for the origin rules), and other
/// numeric spellings of 127.0.0.1 (the policy makes them canonical first). Names are not resolved:
/// a server told to bind a loopback name binds 127.0.0.1. The one rule: servers' binds and peers,
/// the origin policy, OAuth's native redirects and the WebDriver gate all ask it.
[[nodiscard]] inline bool is_loopback_host(std::string_view host) {
    std::string h = ascii_lower(host);
    if (h.size() >= 2 && h.front() == '[' && h.back() == ']') h = h.substr(1, h.size() - 2);
    if (!h.empty() && h.back() == '.') h.pop_back();
    if (h == "localhost" || (h.size() > 10 && h.compare(h.size() - 10, 10, ".localhost") == 0)) return true;
    in_addr a4{};
    if (h.find(':') == std::string::npos) {
        if (::inet_pton(AF_INET, h.c_str(), &a4) != 1) return false;
        return (ntohl(a4.s_addr) >> 24) == 127;
    }
    in6_addr a6{};
    if (::inet_pton(AF_INET6, h.c_str(), &a6) != 1) return false;
    static constexpr unsigned char one[16] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1};
    bool is_one = true, mapped = true;
    for (int i = 0; i < 16; ++i) {
        if (a6.s6_addr[i] != one[i]) is_one = false;
        if (i < 10 && a6.s6_addr[i] != 0) mapped = false;
    }
    mapped = mapped && a6.s6_addr[10] == 0xff && a6.s6_addr[11] == 0xff && a6.s6_addr[12] == 127;
    return is_one || mapped;
}

}  // namespace agentkit
