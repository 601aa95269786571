// agentkit/browser/policy.hpp — what the browser may reach and do, as data.
//
//   auto p = agentkit::browser::browser_policy::from_json(json::parse(R"({
//       "allowedOrigins": ["http://127.0.0.1:8080", "*.example.com"],
//       "blockedOrigins": ["https://ads.example.com"],
//       "downloadsDir": "/tmp/dl", "secrets": {"PASSWORD": "hunter2"} })"));
//   agentkit::browser::browser_options o;
//   o.policy = *p;                    // enforced in the browser (request interception)
//
// Safe defaults: every http(s)/ws(s) origin reachable, file:// refused, downloads refused,
// evaluate refused, page content marked as untrusted data. The browser enforces origins with
// browser-wide request interception (Fetch at the browser target: pages, popups before any
// attach, iframes in and out of process, workers and service workers, redirects, form posts,
// fetch/XHR, EventSource). Interception never sees WebSockets: when agentkit launches the browser
// (or reaches it at a loopback cdp_endpoint), its browser context sends every WebSocket — from
// pages, iframes, workers and service workers — through an in-process SOCKS5 gate that applies
// check_socket() (socket_gate.hpp, browser_options::websockets); a page-script guard refuses them
// in pages and iframes first, with a clear error. A browser on another machine gets the guard
// only, which workers and the native constructor escape. check() is the one decision function
// every layer uses (check_socket() applies it to a host and port).
//
// Origin patterns: "http://host:port" (scheme http also covers ws, https covers wss; port
// omitted = any port), "host" or "host:port" (any scheme), "*.example.com" (the domain and its
// subdomains), "*" (everything).
//
// Secrets: name → value, each optionally tied to origins ({"value": ..., "origins": [...]}: typed
// only into pages of those origins). The model types `{{secret:NAME}}` (or
// `<secret>NAME</secret>`) and the value is typed; every output shows `<secret>NAME</secret>`
// instead of the value (raw, URL-, form- and JSON-encoded, white space collapsed as rendered).
#pragma once

#include <agentkit/browser/detail/page_data.hpp>
#include <agentkit/core/json.hpp>
#include <agentkit/core/result.hpp>
#include <agentkit/core/strings.hpp>
#include <agentkit/core/url.hpp>

#include <arpa/inet.h>
#include <netinet/in.h>

#include <algorithm>
#include <cctype>
#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace agentkit::browser {

/// Why a URL was refused: the rule (e.g. "blocked_origins: *.ads.test") and the URL.
struct policy_violation {
    std::string rule;  ///< the rule that refused it
    std::string url;   ///< the URL refused
};

/// A request the browser refused, as reported in results.
struct blocked_request {
    std::string url;  ///< the URL refused
    std::string resource_type;  ///< Document, Script, XHR, Fetch, WebSocket, Popup, Download, ...
    std::string rule;  ///< the rule that refused it (as in policy_violation)
    std::string tab;  ///< tab id when known
};

namespace policy_detail {

struct parsed_url {
    std::string scheme;  // lower case, without ':'
    std::string host;    // lower case
    int port = -1;       // explicit or the scheme's default; -1 none
};

/// RFC 3492 Punycode of one label's code points (the part after "xn--").
inline std::string punycode(const std::vector<std::uint32_t>& cps) {
    constexpr std::uint32_t base = 36, tmin = 1, tmax = 26, skew = 38, damp = 700;
    auto digit = [](std::uint32_t d) { return static_cast<char>(d < 26 ? 'a' + d : '0' + (d - 26)); };
    auto adapt = [&](std::uint32_t delta, std::uint32_t points, bool first) {
        delta = first ? delta / damp : delta / 2;
        delta += delta / points;
        std::uint32_t k = 0;
        while (delta > ((base - tmin) * tmax) / 2) {
            delta /= base - tmin;
            k += base;
        }
        return k + (base - tmin + 1) * delta / (delta + skew);
    };
    std::string out;
    for (auto c : cps)
        if (c < 0x80) out += static_cast<char>(c);
    const auto b = static_cast<std::uint32_t>(out.size());
    std::uint32_t h = b;
    if (b > 0) out += '-';
    std::uint32_t n = 0x80, delta = 0, bias = 72;
    while (h < cps.size()) {
        std::uint32_t m = 0xFFFFFFFF;
        for (auto c : cps)
            if (c >= n && c < m) m = c;
        if ((m - n) > (0xFFFFFFFF - delta) / (h + 1)) return {};  // overflow: no encoding
        delta += (m - n) * (h + 1);
        n = m;
        for (auto c : cps) {
            if (c < n) ++delta;
            if (c != n) continue;
            std::uint32_t q = delta;
            for (std::uint32_t k = base;; k += base) {
                const std::uint32_t t = k <= bias ? tmin : k >= bias + tmax ? tmax : k - bias;
                if (q < t) break;
                out += digit(t + (q - t) % (base - t));
                q = (q - t) / (base - t);
            }
            out += digit(q);
            bias = adapt(delta, h + 1, h == b);
            delta = 0;
            ++h;
        }
        ++delta;
        ++n;
    }
    return out;
}

/// A host in the one spelling the browser resolves, whatever way a URL or a pattern wrote it:
/// percent-escapes decoded; full-width letters, digits and dots (and the ideographic full stops)
/// as ASCII, as IDNA maps them; lower case; one trailing dot dropped; numeric IPv4 forms the
/// resolver accepts ("127.1", "0x7f.0.0.1", "2130706433", "017700000001") as dotted quads;
/// IPv4-mapped IPv6 ("[::ffff:127.0.0.1]", "[::ffff:7f00:1]") as its IPv4 address; other IPv6
/// in brackets, in inet_ntop form; labels that stay non-ASCII as "xn--" Punycode. The WebSocket
/// gate and the origin policy both use it.
inline std::string canonical_address(std::string_view host) {
    std::string h;
    for (std::size_t i = 0; i < host.size(); ++i) {  // %xx
        const auto hexv = [](char c) { return std::isdigit(static_cast<unsigned char>(c)) ? c - '0' : (std::tolower(static_cast<unsigned char>(c)) - 'a' + 10); };
        if (host[i] == '%' && i + 2 < host.size() && std::isxdigit(static_cast<unsigned char>(host[i + 1])) &&
            std::isxdigit(static_cast<unsigned char>(host[i + 2]))) {
            h += static_cast<char>(hexv(host[i + 1]) * 16 + hexv(host[i + 2]));
            i += 2;
        } else {
            h += host[i];
        }
    }
    // UTF-8 → code points, with the width mappings; invalid UTF-8 is left as it is
    std::vector<std::uint32_t> cps;
    bool ascii = true, valid = true;
    for (std::size_t i = 0; i < h.size() && valid;) {
        const auto c = static_cast<unsigned char>(h[i]);
        std::uint32_t cp = 0;
        std::size_t len = 1;
        if (c < 0x80) cp = c;
        else if ((c >> 5) == 6) { cp = c & 0x1FU; len = 2; }
        else if ((c >> 4) == 14) { cp = c & 0x0FU; len = 3; }
        else if ((c >> 3) == 30) { cp = c & 0x07U; len = 4; }
        else valid = false;
        if (!valid || i + len > h.size()) { valid = false; break; }
        for (std::size_t k = 1; k < len; ++k) {
            const auto cc = static_cast<unsigned char>(h[i + k]);
            if ((cc >> 6) != 2) valid = false;
            cp = (cp << 6U) | (cc & 0x3FU);
        }
        i += len;
        if (cp >= 0xFF01 && cp <= 0xFF5E) cp -= 0xFEE0;                       // full-width ASCII
        else if (cp == 0x3002 || cp == 0xFF0E || cp == 0xFF61) cp = '.';       // ideographic and other full stops
        if (cp < 0x80) cp = static_cast<std::uint32_t>(std::tolower(static_cast<int>(cp)));
        else ascii = false;
        cps.push_back(cp);
    }
    if (valid) {
        h.clear();
        if (ascii) {
            for (auto cp : cps) h += static_cast<char>(cp);
        } else {  // label by label: ASCII labels as they are, the others as xn--
            std::vector<std::uint32_t> label;
            auto flush = [&] {
                const bool plain = std::all_of(label.begin(), label.end(), [](std::uint32_t c) { return c < 0x80; });
                if (plain) {
                    for (auto c : label) h += static_cast<char>(c);
                } else {
                    const std::string p = punycode(label);
                    h += p.empty() ? std::string("xn--invalid") : "xn--" + p;
                }
                label.clear();
            };
            for (auto cp : cps) {
                if (cp == '.') {
                    flush();
                    h += '.';
                } else {
                    label.push_back(cp);
                }
            }
            flush();
        }
    } else {
        h = ascii_lower(h);
    }
    if (h.size() > 1 && h.back() == '.' && h.front() != '[') h.pop_back();
    std::string literal = h;
    if (literal.size() > 2 && literal.front() == '[' && literal.back() == ']') literal = literal.substr(1, literal.size() - 2);
    char text[INET6_ADDRSTRLEN] = {};
    in6_addr a6{};
    if (literal.find(':') != std::string::npos && ::inet_pton(AF_INET6, literal.c_str(), &a6) == 1) {
        if (IN6_IS_ADDR_V4MAPPED(&a6)) {
            if (::inet_ntop(AF_INET, a6.s6_addr + 12, text, sizeof text) != nullptr) return text;
        } else if (::inet_ntop(AF_INET6, &a6, text, sizeof text) != nullptr) {
            return "[" + std::string(text) + "]";
        }
        return "[" + literal + "]";
    }
    in_addr a4{};
    const bool numeric = !literal.empty() && std::all_of(literal.begin(), literal.end(), [](char ch) {
        return std::isxdigit(static_cast<unsigned char>(ch)) || ch == '.' || ch == 'x';
    });
    if (numeric && ::inet_aton(literal.c_str(), &a4) != 0 && ::inet_ntop(AF_INET, &a4, text, sizeof text) != nullptr)
        return text;
    return h;
}

/// This machine, however it is spelled: core/url.hpp's loopback rule (localhost and its
/// subdomains, 127.0.0.0/8, [::1]) and the unspecified addresses 0.0.0.0 and [::] (a connection to
/// them reaches this machine too). `h` is canonical_address()'s form.
inline bool is_loopback(std::string_view h) {
    return h == "[::]" || h == "0.0.0.0" || agentkit::is_loopback_host(h);
}

/// The host origin rules compare: canonical_address(), with every spelling of this machine as
/// one host, "localhost" (a rule about 127.0.0.1 is a rule about localhost, [::1] and 0.0.0.0).
inline std::string canonical_host(std::string_view host) {
    std::string h = canonical_address(host);
    return is_loopback(h) ? std::string("localhost") : h;
}

/// A URL as the policy sees it (core/url.hpp's parse; the host in canonical_host's spelling).
inline std::optional<parsed_url> parse_url(std::string_view url) {
    auto p = agentkit::parse_url(url);
    if (!p) return std::nullopt;
    parsed_url u;
    u.scheme = std::move(p->scheme);
    u.host = p->host.empty() ? std::string() : canonical_host(p->host_text());
    u.port = p->port;
    return u;
}

struct origin_pattern {
    std::string text;    // as given
    std::string scheme;  // empty: http(s)/ws(s)
    std::string host;    // "*" any; "*.x" domain and subdomains
    int port = -1;       // -1 any

    [[nodiscard]] bool matches(const parsed_url& u) const {
        if (!scheme.empty()) {
            const bool same = u.scheme == scheme || (scheme == "http" && u.scheme == "ws") ||
                              (scheme == "https" && u.scheme == "wss") || (scheme == "ws" && u.scheme == "http") ||
                              (scheme == "wss" && u.scheme == "https");
            if (!same) return false;
        } else if (u.scheme != "http" && u.scheme != "https" && u.scheme != "ws" && u.scheme != "wss") {
            return false;
        }
        if (port >= 0 && u.port != port) return false;
        if (host == "*") return true;
        if (host.size() > 2 && host[0] == '*' && host[1] == '.') {
            const std::string_view dom = std::string_view(host).substr(2);
            if (u.host == dom) return true;
            return u.host.size() > dom.size() + 1 && u.host.compare(u.host.size() - dom.size(), dom.size(), dom) == 0 &&
                   u.host[u.host.size() - dom.size() - 1] == '.';
        }
        return u.host == host;
    }
};

inline result<origin_pattern> parse_pattern(std::string_view s) {
    while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
    while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
    origin_pattern p;
    p.text = std::string(s);
    if (s.empty()) return fail(errc::args_invalid, "an empty origin pattern");
    if (s == "*") {
        p.host = "*";
        return p;
    }
    std::string_view hp = s;
    if (auto sep = s.find("://"); sep != std::string_view::npos) {
        p.scheme = ascii_lower(s.substr(0, sep));
        if (p.scheme != "http" && p.scheme != "https" && p.scheme != "ws" && p.scheme != "wss")
            return fail(errc::args_invalid, "origin pattern \"" + std::string(s) + "\": only http, https, ws and wss origins",
                        "file:// is governed by allowFileAccess.");
        hp = s.substr(sep + 3);
    }
    while (!hp.empty() && hp.back() == '/') hp.remove_suffix(1);
    // "host:*" (any port) is "host" (a pattern without a port matches every port)
    if (hp.size() > 2 && hp.substr(hp.size() - 2) == ":*") hp.remove_suffix(2);
    if (hp.find_first_of("/?#@") != std::string_view::npos || hp.empty())
        return fail(errc::args_invalid, "origin pattern \"" + std::string(s) + "\" is not an origin",
                    "Use scheme://host[:port], host[:port] or *.domain.");
    auto a = agentkit::parse_authority(hp);
    if (!a) return fail(errc::args_invalid, "origin pattern \"" + std::string(s) + "\" has a bad port");
    p.host = a->host_text();
    if (p.host.rfind("*.", 0) == 0) p.host = "*." + canonical_address(std::string_view(p.host).substr(2));
    else if (p.host != "*") p.host = canonical_host(p.host);
    p.port = a->explicit_port ? a->port : -1;
    if (p.host.find('*') != std::string::npos && !(p.host.size() > 2 && p.host.rfind("*.", 0) == 0 &&
                                                   p.host.find('*', 1) == std::string::npos))
        return fail(errc::args_invalid, "origin pattern \"" + std::string(s) + "\": a wildcard only as *.domain");
    return p;
}

/// Percent-encode `s` leaving alphanumerics and the characters of `keep` as they are; `plus`
/// writes a space as '+'; `lower` uses lowercase hex digits.
inline std::string percent_encode(std::string_view s, std::string_view keep, bool plus, bool lower) {
    const char* hex = lower ? "0123456789abcdef" : "0123456789ABCDEF";
    std::string o;
    for (char ch : s) {
        const auto c = static_cast<unsigned char>(ch);
        if (std::isalnum(c) || keep.find(ch) != std::string_view::npos) o += ch;
        else if (plus && c == ' ') o += '+';
        else {
            o += '%';
            o += hex[c >> 4];
            o += hex[c & 15];
        }
    }
    return o;
}

/// `value` as HTML escapes it: the DOM serialiser's text form (& < > and no-break space), its
/// attribute form (& " and no-break space; since 2025 also < >), and the five-character form of
/// templates (& < > " ') with each of the spellings of the apostrophe (&#39; &#x27; &apos;).
/// Without duplicates.
inline std::vector<std::string> html_escaped_once(std::string_view value) {
    auto esc = [&](bool lt_gt, bool quote, std::string_view apos) {
        std::string o;
        for (std::size_t i = 0; i < value.size(); ++i) {
            const char c = value[i];
            if (c == '&') o += "&amp;";
            else if (lt_gt && c == '<') o += "&lt;";
            else if (lt_gt && c == '>') o += "&gt;";
            else if (quote && c == '"') o += "&quot;";
            else if (c == '\'' && !apos.empty()) o += apos;
            else if (apos.empty() && c == '\xC2' && i + 1 < value.size() && value[i + 1] == '\xA0') {
                o += "&nbsp;";
                ++i;
            } else o += c;
        }
        return o;
    };
    std::vector<std::string> v{esc(true, false, ""), esc(false, true, ""), esc(true, true, "")};
    for (std::string_view apos : {"&#39;", "&#x27;", "&apos;"}) v.push_back(esc(true, true, apos));
    std::sort(v.begin(), v.end());
    v.erase(std::unique(v.begin(), v.end()), v.end());
    v.erase(std::remove(v.begin(), v.end(), std::string(value)), v.end());
    return v;
}

/// html_escaped_once() of `value`, and of each of those once more: a page that shows escaped
/// markup as text (a code sample, a template's output) is escaped again when it is serialised.
inline std::vector<std::string> html_escaped_forms(std::string_view value) {
    std::vector<std::string> v = html_escaped_once(value);
    for (std::size_t i = 0, n = v.size(); i < n; ++i)
        for (auto& twice : html_escaped_once(v[i])) v.push_back(std::move(twice));
    std::sort(v.begin(), v.end());
    v.erase(std::unique(v.begin(), v.end()), v.end());
    return v;
}

/// The forms a value takes in URLs, form bodies, scripts and logs: raw, percent-encoded as by
/// RFC 3986, encodeURIComponent, encodeURI and URLSearchParams / HTML forms (upper and lower hex),
/// JSON-escaped, HTML-escaped (html_escaped_forms, also JSON-escaped), and each with "<<" written
/// as the page-data marks write it. Longest first, without duplicates.
inline std::vector<std::string> encoded_forms(std::string_view value) {
    std::vector<std::string> v{std::string(value)};
    for (bool lower : {false, true}) {
        v.push_back(percent_encode(value, "-_.~", false, lower));                    // RFC 3986
        v.push_back(percent_encode(value, "-_.~", true, lower));                     // form, strict
        v.push_back(percent_encode(value, "-_.!~*'()", false, lower));               // encodeURIComponent
        v.push_back(percent_encode(value, "-_.!~*'();/?:@&=+$,#", false, lower));    // encodeURI
        v.push_back(percent_encode(value, "*-._", true, lower));                     // URLSearchParams, forms
    }
    const std::string jv = json(std::string(value)).dump();
    if (jv.size() > 2) v.push_back(jv.substr(1, jv.size() - 2));
    // as rendered text shows it: runs of white space as one space, none at the ends
    const std::string collapsed = agentkit::collapse_whitespace(value);
    if (collapsed != value && collapsed.size() >= 4) {
        v.push_back(collapsed);
        const std::string jc = json(collapsed).dump();
        v.push_back(jc.substr(1, jc.size() - 2));
    }
    // as HTML writes text (innerHTML, a page's source, a template that escaped it): the
    // serialiser's text and attribute forms and the usual five-character escaping, each also
    // JSON-escaped (a script's result holding markup)
    const std::string raw(value);
    for (const std::string* base : {&raw, static_cast<const std::string*>(&collapsed)}) {
        if ((base == &collapsed && (collapsed == raw || collapsed.size() < 4)) || base->find_first_of("&<>\"'\xA0") == std::string::npos)
            continue;
        for (const auto& form : html_escaped_forms(*base)) {
            v.push_back(form);
            const std::string jf = json(form).dump();
            v.push_back(jf.substr(1, jf.size() - 2));
        }
    }
    // inside page-data marks, where "<<" is written "< <" (whatever runs first, redaction or marks)
    for (std::size_t i = 0, n = v.size(); i < n; ++i)
        if (v[i].find("<<") != std::string::npos) v.push_back(detail::escape_marks(v[i]));
    std::sort(v.begin(), v.end(), [](const std::string& a, const std::string& b) { return a.size() > b.size() || (a.size() == b.size() && a < b); });
    v.erase(std::unique(v.begin(), v.end()), v.end());
    v.erase(std::remove(v.begin(), v.end(), std::string()), v.end());
    return v;
}

/// Where a secret's value was found in a text: `size` bytes at `at`, of the secret numbered
/// `secret` (its place in the policy's map).
struct found {
    std::size_t at = 0;      ///< the first byte
    std::size_t size = 0;    ///< how many bytes
    std::size_t secret = 0;  ///< which secret
};

/// Every place `what` occurs in `s`, not overlapping itself.
inline void find_all(std::string_view s, std::string_view what, std::size_t secret, std::vector<found>& out) {
    if (what.empty()) return;
    for (std::size_t pos = 0; (pos = s.find(what, pos)) != std::string_view::npos; pos += what.size())
        out.push_back({pos, what.size(), secret});
}

/// Every place `value`'s words appear separated by any run of white space (a rendered page
/// joins, breaks and collapses the spaces of a value: "AB  CD" shows as "AB CD" or on two
/// lines). Only for values with white space between words.
inline void find_spaced(std::string_view s, std::string_view value, std::size_t secret, std::vector<found>& out) {
    std::vector<std::string_view> words;
    for (std::size_t i = 0; i < value.size();) {
        while (i < value.size() && std::isspace(static_cast<unsigned char>(value[i]))) ++i;
        const std::size_t b = i;
        while (i < value.size() && !std::isspace(static_cast<unsigned char>(value[i]))) ++i;
        if (i > b) words.push_back(value.substr(b, i - b));
    }
    if (words.size() < 2) return;
    std::size_t pos = 0;
    while ((pos = s.find(words[0], pos)) != std::string_view::npos) {
        std::size_t at = pos + words[0].size();
        bool ok = true;
        for (std::size_t w = 1; w < words.size() && ok; ++w) {
            const std::size_t gap = at;
            while (at < s.size() && std::isspace(static_cast<unsigned char>(s[at]))) ++at;
            ok = at > gap && s.substr(at).starts_with(words[w]);
            at += words[w].size();
        }
        if (!ok) {
            ++pos;
            continue;
        }
        out.push_back({pos, at - pos, secret});
        pos = at;
    }
}

inline std::vector<std::string> split_list(const json& v) {
    std::vector<std::string> out;
    if (v.is_array()) {
        for (const auto& e : v)
            if (e.is_string()) out.push_back(e.get<std::string>());
    } else if (v.is_string()) {
        std::string cur;
        for (char c : v.get<std::string>()) {
            if (c == ';' || c == ',') {
                if (!cur.empty()) out.push_back(cur);
                cur.clear();
            } else {
                cur += c;
            }
        }
        if (!cur.empty()) out.push_back(cur);
    }
    return out;
}

/// An origin list as given in JSON: a string ("a;b" or "a,b") or an array of strings. Anything
/// else is nothing, never an empty list: an unreadable allowedOrigins must not mean "every origin".
inline std::optional<std::vector<std::string>> read_origin_list(const json& v) {
    if (!v.is_string() && !v.is_array()) return std::nullopt;
    if (v.is_array())
        for (const auto& e : v)
            if (!e.is_string()) return std::nullopt;
    return split_list(v);
}

}  // namespace policy_detail

/// The browser's policy. Defaults are safe; see the header comment.
struct browser_policy {
    std::vector<std::string> allowed_origins;  ///< empty: every origin not blocked
    std::vector<std::string> blocked_origins;  ///< origins refused even when allowed_origins admits them
    bool allow_file_access = false;            ///< file:// URLs
    std::string downloads_dir;                 ///< empty: downloads refused
    /// Files the page may be given (upload) come from this directory only; empty: uploads
    /// refused, unless allow_file_access (then any readable file).
    std::string uploads_dir;
    /// Further directories files may be uploaded from, as uploads_dir: a workspace's roots (an
    /// MCP client's roots/list), set at run time with browser::set_upload_roots(); not read from
    /// JSON.
    std::vector<std::string> upload_roots;
    bool allow_evaluate = false;               ///< browser::evaluate (also browser_options::allow_evaluate)
    std::map<std::string, std::string> secrets;  ///< name → value
    /// name → the origins (patterns as in allowedOrigins) whose pages a secret may be typed into,
    /// as a password manager ties a password to its site. A secret with no entry may be typed
    /// into any page the origin lists allow.
    std::map<std::string, std::vector<std::string>> secret_origins;
    bool content_boundaries = true;            ///< mark page content as untrusted data in text results
    std::size_t max_tabs = 20;                 ///< popups beyond this are closed at once
    std::size_t max_dialogs_per_action = 20;   ///< dialogs beyond this are answered but only counted
    /// A download larger than this is canceled (as soon as its announced size, or the bytes
    /// received, exceed it); 0: no bound.
    std::uint64_t max_download_bytes = std::uint64_t{256} << 20U;
    /// Downloads a browser session may start; later ones are canceled at once; 0: no bound.
    std::size_t max_downloads = 50;

    /// Parse from JSON (camelCase or snake_case keys). Unknown keys and bad patterns are errors.
    static result<browser_policy> from_json(const json& j) {
        if (!j.is_object()) return fail(errc::args_invalid, "a browser policy is a JSON object");
        browser_policy p;
        for (auto it = j.begin(); it != j.end(); ++it) {
            const std::string& k = it.key();
            const json& v = it.value();
            auto want_bool = [&](bool& dst) -> result<void> {
                if (!v.is_boolean()) return fail(errc::args_invalid, "policy key " + k + " must be true or false");
                dst = v.get<bool>();
                return {};
            };
            auto want_size = [&](std::size_t& dst) -> result<void> {
                if (!v.is_number_unsigned() && !(v.is_number_integer() && v.get<std::int64_t>() >= 0))
                    return fail(errc::args_invalid, "policy key " + k + " must be a non-negative integer");
                dst = v.get<std::size_t>();
                return {};
            };
            result<void> r;
            if (k == "allowedOrigins" || k == "allowed_origins") {
                auto list = policy_detail::read_origin_list(v);
                if (!list) return fail(errc::args_invalid, "allowedOrigins is a list of origins (strings)");
                p.allowed_origins = std::move(*list);
            } else if (k == "blockedOrigins" || k == "blocked_origins") {
                auto list = policy_detail::read_origin_list(v);
                if (!list) return fail(errc::args_invalid, "blockedOrigins is a list of origins (strings)");
                p.blocked_origins = std::move(*list);
            } else if (k == "allowFileAccess" || k == "allow_file_access") {
                r = want_bool(p.allow_file_access);
            } else if (k == "allowEvaluate" || k == "allow_evaluate") {
                r = want_bool(p.allow_evaluate);
            } else if (k == "contentBoundaries" || k == "content_boundaries") {
                r = want_bool(p.content_boundaries);
            } else if (k == "downloadsDir" || k == "downloads_dir") {
                if (!v.is_string()) return fail(errc::args_invalid, "downloadsDir is a directory path");
                p.downloads_dir = v.get<std::string>();
            } else if (k == "uploadsDir" || k == "uploads_dir") {
                if (!v.is_string()) return fail(errc::args_invalid, "uploadsDir is a directory path");
                p.uploads_dir = v.get<std::string>();
            } else if (k == "maxTabs" || k == "max_tabs") {
                r = want_size(p.max_tabs);
            } else if (k == "maxDialogsPerAction" || k == "max_dialogs_per_action") {
                r = want_size(p.max_dialogs_per_action);
            } else if (k == "maxDownloadBytes" || k == "max_download_bytes") {
                std::size_t n = 0;
                r = want_size(n);
                p.max_download_bytes = n;
            } else if (k == "maxDownloads" || k == "max_downloads") {
                r = want_size(p.max_downloads);
            } else if (k == "secrets") {
                if (!v.is_object()) return fail(errc::args_invalid, "secrets is an object of name → value");
                for (auto s = v.begin(); s != v.end(); ++s) {
                    if (auto one = read_secret(p, s.key(), s.value()); !one) return fail(one.error());
                }
            } else {
                return fail(errc::args_invalid, "unknown browser policy key \"" + k + "\"",
                            "Known: allowedOrigins, blockedOrigins, allowFileAccess, downloadsDir, uploadsDir, allowEvaluate, secrets, "
                            "contentBoundaries, maxTabs, maxDialogsPerAction, maxDownloadBytes, maxDownloads.");
            }
            if (!r) return fail(r.error());
        }
        if (auto v = p.validate(); !v) return fail(v.error());
        return p;
    }

    /// One entry of "secrets": a value, or {"value": ..., "origins": [...]} (origins as a list
    /// or "a;b").
    static result<void> read_secret(browser_policy& p, const std::string& name, const json& v) {
        if (v.is_string()) {
            p.secrets[name] = v.get<std::string>();
            return {};
        }
        if (!v.is_object() || !v.contains("value") || !v["value"].is_string())
            return fail(errc::args_invalid, "secret " + name + " must be a string or {\"value\": string, \"origins\": [...]}");
        for (auto it = v.begin(); it != v.end(); ++it)
            if (it.key() != "value" && it.key() != "origins")
                return fail(errc::args_invalid, "secret " + name + ": unknown key \"" + it.key() + "\"", "Known: value, origins.");
        p.secrets[name] = v["value"].get<std::string>();
        if (v.contains("origins")) {
            auto list = policy_detail::read_origin_list(v["origins"]);
            if (!list || list->empty())
                return fail(errc::args_invalid, "secret " + name + ": origins is a non-empty list of origins (strings)");
            p.secret_origins[name] = std::move(*list);
        }
        return {};
    }

    /// The policy as JSON (secret values are not included, only their names).
    [[nodiscard]] json to_json() const {
        json names = json::array();
        for (const auto& [k, v] : secrets) names.push_back(k);
        return {{"allowedOrigins", allowed_origins}, {"blockedOrigins", blocked_origins},
                {"allowFileAccess", allow_file_access}, {"downloadsDir", downloads_dir}, {"uploadsDir", uploads_dir},
                {"uploadRoots", upload_roots}, {"allowEvaluate", allow_evaluate},    {"secretNames", names}, {"secretOrigins", secret_origins},
                {"contentBoundaries", content_boundaries}, {"maxTabs", max_tabs},
                {"maxDialogsPerAction", max_dialogs_per_action}, {"maxDownloadBytes", max_download_bytes},
                {"maxDownloads", max_downloads}};
    }

    /// Every origin pattern parses.
    [[nodiscard]] result<void> validate() const {
        for (const auto* list : {&allowed_origins, &blocked_origins})
            for (const auto& s : *list)
                if (auto p = policy_detail::parse_pattern(s); !p) return fail(p.error());
        for (const auto& [k, v] : secrets)
            if (k.empty() || v.empty()) return fail(errc::args_invalid, "a secret needs a name and a non-empty value");
        for (const auto& [k, list] : secret_origins) {
            if (secrets.count(k) == 0) return fail(errc::args_invalid, "origins are given for " + k + ", which is not a secret");
            if (list.empty()) return fail(errc::args_invalid, "secret " + k + ": an empty origin list would refuse every page");
            for (const auto& s : list)
                if (auto p = policy_detail::parse_pattern(s); !p) return fail(errc::args_invalid, "secret " + k + ": " + p.error().message);
        }
        return {};
    }

    /// True when requests must be intercepted (origin rules exist).
    [[nodiscard]] bool intercepts() const noexcept { return !allowed_origins.empty() || !blocked_origins.empty(); }

    /// The rule refusing `url`, or nothing when it is allowed.
    [[nodiscard]] std::optional<policy_violation> check(std::string_view url) const {
        auto u = policy_detail::parse_url(url);
        if (!u) return policy_violation{"scheme: not a URL", std::string(url)};
        if (u->scheme == "about" || u->scheme == "data" || u->scheme == "javascript") return std::nullopt;
        if (u->scheme == "blob") {  // blob:<origin>/<uuid>: the creator's origin
            const std::string_view inner = url.substr(5);
            if (inner.rfind("null", 0) == 0) return std::nullopt;
            return check(inner);
        }
        if (u->scheme == "file") {
            if (allow_file_access) return std::nullopt;
            return policy_violation{"file_access: file:// URLs are off", std::string(url)};
        }
        if (u->scheme != "http" && u->scheme != "https" && u->scheme != "ws" && u->scheme != "wss")
            return policy_violation{"scheme: " + u->scheme + ": URLs are not allowed", std::string(url)};
        for (const auto& s : blocked_origins)
            if (auto p = policy_detail::parse_pattern(s); p && p->matches(*u))
                return policy_violation{"blocked_origins: " + p->text, std::string(url)};
        if (allowed_origins.empty()) return std::nullopt;
        for (const auto& s : allowed_origins)
            if (auto p = policy_detail::parse_pattern(s); p && p->matches(*u)) return std::nullopt;
        return policy_violation{"allowed_origins: not in the allowed list", std::string(url)};
    }

    /// The rule refusing every request to `host` (any scheme, any port; "example.com" or
    /// ".example.com", a cookie's domain): a blocked pattern for the host on every port and
    /// scheme, or, with an allowed list, no allowed pattern naming the host. What a cookie for
    /// the host may do is decided here; where it is sent, check() decides per request.
    [[nodiscard]] std::optional<policy_violation> check_host(std::string_view host) const {
        while (!host.empty() && host.front() == '.') host.remove_prefix(1);
        policy_detail::parsed_url u;
        u.host = policy_detail::canonical_host(host);
        const std::string shown = "http://" + u.host + "/";
        if (u.host.empty()) return policy_violation{"scheme: no host", shown};
        auto names = [&](const policy_detail::origin_pattern& p, bool every_port) {
            for (const char* scheme : {"http", "https"}) {
                u.scheme = scheme;
                u.port = p.port >= 0 ? p.port : (u.scheme == "http" ? 80 : 443);
                const bool m = p.matches(u);
                if (every_port && !(m && p.port < 0 && p.scheme.empty())) return false;
                if (!every_port && m) return true;
            }
            return every_port;
        };
        for (const auto& s : blocked_origins)
            if (auto p = policy_detail::parse_pattern(s); p && names(*p, true)) return policy_violation{"blocked_origins: " + p->text, shown};
        if (allowed_origins.empty()) return std::nullopt;
        for (const auto& s : allowed_origins)
            if (auto p = policy_detail::parse_pattern(s); p && names(*p, false)) return std::nullopt;
        return policy_violation{"allowed_origins: not in the allowed list", shown};
    }

    /// The rule refusing a URL given to navigate to (a tab, a batch read): check(), and a
    /// `javascript:` URL runs script in the page and a `data:` URL is a document the caller wrote
    /// (script included), so both need allow_evaluate like evaluate does (`evaluate_enabled`: the
    /// host enabled evaluation another way). Pages may still open data: URLs themselves.
    [[nodiscard]] std::optional<policy_violation> check_navigation(std::string_view url,
                                                                   bool evaluate_enabled = false) const {
        if (!allow_evaluate && !evaluate_enabled) {
            std::size_t i = 0;
            while (i < url.size() && static_cast<unsigned char>(url[i]) <= 0x20) ++i;  // the URL parser skips these
            std::string scheme;
            for (; i < url.size() && url[i] != ':'; ++i)
                if (url[i] != '\t' && url[i] != '\n' && url[i] != '\r')
                    scheme += static_cast<char>(std::tolower(static_cast<unsigned char>(url[i])));
            if (i < url.size() && scheme == "javascript")
                return policy_violation{"allow_evaluate: javascript: URLs run script, and script evaluation is off",
                                        std::string(url)};
            // a data: document is whatever the model wrote, script included
            if (i < url.size() && scheme == "data")
                return policy_violation{"allow_evaluate: data: URLs are documents the caller writes, script included, "
                                        "and script evaluation is off",
                                        std::string(url)};
        }
        return check(url);
    }

    /// The rule refusing a connection known only by host and port: a WebSocket as the
    /// WebSocket gate sees it (a SOCKS CONNECT carries no scheme; socket_gate.hpp). A
    /// blockedOrigins pattern refuses the connection when it matches ws:// or wss:// to
    /// host:port, on any port. An allowedOrigins pattern admits it when it matches wss://host
    /// for port 443, ws://host for port 80, and either on other ports (so
    /// "http://h:8080" admits a wss:// socket to h:8080 as well; in pages the script guard still
    /// tells the schemes apart). `host` is a name or an IP address, IPv6 with or without
    /// brackets; anything else is refused. The violation's URL is ws://host[:port]/ (wss://host/
    /// for port 443).
    [[nodiscard]] std::optional<policy_violation> check_socket(std::string_view host, std::uint16_t port) const {
        std::string h = ascii_lower(host);
        if (h.size() > 2 && h.front() == '[' && h.back() == ']') h = h.substr(1, h.size() - 2);
        const bool name_ok = !h.empty() && h.size() <= 253 && std::all_of(h.begin(), h.end(), [](char c) {
            return std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '-' || c == '_' || c == ':';
        });
        if (h.find(':') != std::string::npos) h = "[" + h + "]";
        const std::string p = std::to_string(port);
        const std::string shown = port == 443 ? "wss://" + h + "/" : port == 80 ? "ws://" + h + "/" : "ws://" + h + ":" + p + "/";
        if (!name_ok || port == 0) return policy_violation{"scheme: not a host and port", shown};
        if (h == "0.0.0.0" || h == "[::]") return policy_violation{"scheme: an unspecified address", shown};
        const auto ws = check("ws://" + h + ":" + p + "/"), wss = check("wss://" + h + ":" + p + "/");
        // Blocked under either scheme on any port: refused (a block of https://h is not dodged
        // by a socket to h:80, nor one of http://h by h:443).
        for (const auto* v : {&ws, &wss})
            if (*v && (*v)->rule.rfind("blocked_origins", 0) == 0) return policy_violation{(*v)->rule, shown};
        // Allowed under the scheme(s) the port implies: admitted.
        if ((port != 443 && !ws) || (port != 80 && !wss)) return std::nullopt;
        return policy_violation{(port == 443 ? wss : ws)->rule, shown};
    }

    /// The rule refusing to type secret `name` into a page of `origin` (a frame's security
    /// origin, "scheme://host[:port]"; "null" or empty for an opaque one): the secret's own
    /// origins when it has some, else the origin lists.
    [[nodiscard]] std::optional<policy_violation> check_secret_origin(const std::string& name, std::string_view origin) const {
        auto it = secret_origins.find(name);
        if (it == secret_origins.end()) {  // nothing declared: what the origin lists allow
            if (origin.empty() || origin == "null")
                return intercepts() ? std::optional<policy_violation>(policy_violation{
                                          "secret " + name + ": an opaque origin is on no origin list", "an opaque origin"})
                                    : std::nullopt;
            if (auto v = check(origin)) return policy_violation{"secret " + name + ": " + v->rule, std::string(origin)};
            return std::nullopt;
        }
        auto u = policy_detail::parse_url(origin);
        if (u && !u->host.empty())
            for (const auto& s : it->second)
                if (auto p = policy_detail::parse_pattern(s); p && p->matches(*u)) return std::nullopt;
        std::string list;
        for (const auto& s : it->second) list += (list.empty() ? "" : ", ") + s;
        return policy_violation{"secret_origins: " + name + " is only typed into pages of " + list,
                                origin.empty() ? std::string("an opaque origin") : std::string(origin)};
    }

    /// Replace secret placeholders (`{{secret:NAME}}`, `<secret>NAME</secret>`) in text the model
    /// wants typed; `used` gets the names substituted. Unknown names are an error. Text that is
    /// only a name is typed as it is (a word is not a placeholder).
    [[nodiscard]] result<std::string> substitute(std::string_view text, std::vector<std::string>* used = nullptr) const {
        std::string s(text);
        for (const auto& [open, close] : {std::pair<std::string_view, std::string_view>{"{{secret:", "}}"},
                                          std::pair<std::string_view, std::string_view>{"<secret>", "</secret>"}}) {
            std::size_t pos = 0;
            while ((pos = s.find(open, pos)) != std::string::npos) {
                const auto end = s.find(close, pos + open.size());
                if (end == std::string::npos) break;
                const std::string name = s.substr(pos + open.size(), end - pos - open.size());
                auto it = secrets.find(name);
                if (it == secrets.end())
                    return fail(errc::args_invalid, "no secret named " + name,
                                secrets.empty() ? std::string("No secrets are configured.")
                                                : "Configured secrets: " + names());
                s.replace(pos, end + close.size() - pos, it->second);
                pos += it->second.size();
                if (used != nullptr && std::find(used->begin(), used->end(), name) == used->end()) used->push_back(name);
            }
        }
        return s;
    }

    /// Replace every secret value (raw, URL-, form-, encodeURIComponent- and JSON-encoded) with
    /// `<secret>NAME</secret>`. Values are found in the text as given (leftmost first, the longest
    /// there; values overlapping in the text are both hidden), never inside a mark written for
    /// another: a value that is part of a mark ("secret", another secret's name) leaves the marks
    /// whole. A second pass over the output would find it there: redact a text once
    /// (browser/redaction.hpp says who does).
    [[nodiscard]] std::string redact(std::string s) const {
        if (secrets.empty()) return s;
        std::vector<policy_detail::found> hits;
        std::size_t index = 0;
        std::vector<const std::string*> names;
        for (const auto& [name, value] : secrets) {
            for (const auto& form : policy_detail::encoded_forms(value)) policy_detail::find_all(s, form, index, hits);
            policy_detail::find_spaced(s, value, index, hits);
            policy_detail::find_spaced(s, detail::escape_marks(value), index, hits);
            names.push_back(&name);
            ++index;
        }
        if (hits.empty()) return s;
        std::sort(hits.begin(), hits.end(), [](const auto& x, const auto& y) { return x.at < y.at || (x.at == y.at && x.size > y.size); });
        std::string out;
        out.reserve(s.size());
        std::size_t done = 0;
        std::size_t last = names.size();
        for (const auto& h : hits) {
            if (h.at + h.size <= done) continue;  // inside a value already replaced
            if (h.at >= done) out.append(s, done, h.at - done);
            // values overlapping in the text (one ends where another starts): no byte of either shows
            if (h.at >= done || h.secret != last) out += "<secret>" + *names[h.secret] + "</secret>";
            last = h.secret;
            done = h.at + h.size;
        }
        out.append(s, done, std::string::npos);
        return out;
    }

    /// Every string of `j` redacted, object keys included (a page can make a secret a key: a
    /// table header that echoes a field).
    [[nodiscard]] json redact(json j) const {
        if (secrets.empty()) return j;
        if (j.is_string()) return redact(j.get<std::string>());
        if (j.is_array())
            for (auto& v : j) v = redact(std::move(v));
        if (j.is_object()) {
            json o = json::object();
            for (auto it = j.begin(); it != j.end(); ++it) o[redact(it.key())] = redact(std::move(it.value()));
            return o;
        }
        return j;
    }

    /// An error with its message, hint and details redacted.
    [[nodiscard]] error redact(error e) const {
        if (secrets.empty()) return e;
        e.message = redact(std::move(e.message));
        e.hint = redact(std::move(e.hint));
        e.details = redact(std::move(e.details));
        return e;
    }

    /// The secrets' names, comma-separated (never their values).
    [[nodiscard]] std::string names() const {
        std::string o;
        for (const auto& [k, v] : secrets) o += (o.empty() ? "" : ", ") + k;
        return o;
    }
};

/// Parse a dotenv file's text (NAME=value lines, # comments, optional quotes) into secrets.
inline result<std::map<std::string, std::string>> parse_dotenv(std::string_view text) {
    std::map<std::string, std::string> out;
    std::size_t line_no = 0;
    while (!text.empty()) {
        ++line_no;
        auto nl = text.find('\n');
        std::string_view line = text.substr(0, nl);
        text = nl == std::string_view::npos ? std::string_view() : text.substr(nl + 1);
        while (!line.empty() && (line.back() == '\r' || std::isspace(static_cast<unsigned char>(line.back())))) line.remove_suffix(1);
        while (!line.empty() && std::isspace(static_cast<unsigned char>(line.front()))) line.remove_prefix(1);
        if (line.empty() || line.front() == '#') continue;
        if (line.rfind("export ", 0) == 0) line.remove_prefix(7);
        const auto eq = line.find('=');
        if (eq == std::string_view::npos || eq == 0)
            return fail(errc::args_invalid, "secrets line " + std::to_string(line_no) + " is not NAME=value");
        std::string_view name = line.substr(0, eq), value = line.substr(eq + 1);
        while (!name.empty() && std::isspace(static_cast<unsigned char>(name.back()))) name.remove_suffix(1);
        while (!value.empty() && std::isspace(static_cast<unsigned char>(value.front()))) value.remove_prefix(1);
        if (value.size() >= 2 && (value.front() == '"' || value.front() == '\'') && value.back() == value.front())
            value = value.substr(1, value.size() - 2);
        out[std::string(name)] = std::string(value);
    }
    return out;
}

}  // namespace agentkit::browser
