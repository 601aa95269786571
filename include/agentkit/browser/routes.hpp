// agentkit/browser/routes.hpp — routes: requests a browser answers itself (a mocked response) or
// sends on with headers changed, chosen by a URL glob (Playwright's glob: `*` any characters
// but `/`, `**` any characters, `{a,b}` either, `?` itself, `\` escapes the next character).
// The origin policy decides first: a route never lets a refused request through.
//
//   agentkit::browser::route_rule r;
//   r.pattern = "**/api/users";
//   r.status = 200;
//   r.body = R"([{"id":1}])";
//   r.content_type = "application/json";
//   b.add_route(r);                       // every tab, until removed
//   agentkit::browser::url_glob_match("**/*.{png,jpg}", "http://x.test/a/b.png");   // true
#pragma once

#include <algorithm>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace agentkit::browser {

/// A route: what the browser does with a request whose URL matches `pattern`.
struct route_rule {
    std::string pattern;             ///< a URL glob ("**/api/*", "http://127.0.0.1:*/x")
    std::optional<int> status;       ///< answer with this status (with `body`, 200 when only `body` is set)
    std::optional<std::string> body;  ///< answer with this body
    std::string content_type;        ///< the answer's Content-Type
    /// Send the request on with these headers set (when neither status nor body is set).
    std::vector<std::pair<std::string, std::string>> add_headers;
    std::vector<std::string> remove_headers;  ///< ... and these removed (names, any case)

    /// Whether the route answers itself (else it sends the request on, changed).
    [[nodiscard]] bool fulfills() const { return status.has_value() || body.has_value(); }
};

namespace detail {
// The end of the {...} group that opens at p[open] (npos: unclosed) and its top-level commas.
inline std::size_t glob_group_end(std::string_view p, std::size_t open, std::vector<std::size_t>& commas) {
    int depth = 0;
    for (std::size_t i = open + 1; i < p.size(); ++i) {
        if (p[i] == '\\') {
            ++i;
            continue;
        }
        if (p[i] == '{') ++depth;
        else if (p[i] == '}' && depth-- == 0) return i;
        else if (p[i] == ',' && depth == 0) commas.push_back(i);
    }
    return std::string_view::npos;
}

// `p` with its {a,b} groups expanded (at most `limit` patterns; false when there would be more).
inline bool glob_expand(const std::string& p, std::vector<std::string>& out, std::size_t limit) {
    for (std::size_t i = 0; i < p.size(); ++i) {
        if (p[i] == '\\') {
            ++i;
            continue;
        }
        if (p[i] != '{') continue;
        std::vector<std::size_t> commas;
        const std::size_t close = glob_group_end(p, i, commas);
        if (close == std::string::npos) return out.size() < limit ? (out.push_back(p), true) : false;  // a lone '{' is itself
        commas.push_back(close);
        std::size_t from = i + 1;
        for (std::size_t end : commas) {
            if (!glob_expand(p.substr(0, i) + p.substr(from, end - from) + p.substr(close + 1), out, limit)) return false;
            from = end + 1;
        }
        return true;
    }
    if (out.size() >= limit) return false;
    out.push_back(p);
    return true;
}

// One brace-free glob against `s` in O(|p|·|s|): `*` any run without '/', `**` any run.
inline bool glob_match_plain(std::string_view p, std::string_view s) {
    std::vector<char> cur(s.size() + 1, 0), next(s.size() + 1, 0);
    cur[0] = 1;
    for (std::size_t i = 0; i < p.size(); ++i) {
        std::fill(next.begin(), next.end(), 0);
        if (p[i] == '*') {
            const bool any = i + 1 < p.size() && p[i + 1] == '*';
            while (i + 1 < p.size() && p[i + 1] == '*') ++i;  // ** and *** alike
            for (std::size_t j = 0; j <= s.size(); ++j)
                next[j] = static_cast<char>(cur[j] || (j > 0 && next[j - 1] && (any || s[j - 1] != '/')));
        } else {
            char c = p[i];
            if (c == '\\' && i + 1 < p.size()) c = p[++i];
            for (std::size_t j = 0; j < s.size(); ++j) next[j + 1] = static_cast<char>(cur[j] && s[j] == c);
        }
        std::swap(cur, next);
    }
    return cur[s.size()] != 0;
}
}  // namespace detail

/// Whether `url` matches the glob `pattern` (Playwright's URL glob; see the file comment).
/// A pattern whose {a,b} groups make more than 256 patterns matches nothing.
[[nodiscard]] inline bool url_glob_match(std::string_view pattern, std::string_view url) {
    std::vector<std::string> plain;
    if (!detail::glob_expand(std::string(pattern), plain, 256)) return false;
    for (const auto& p : plain)
        if (detail::glob_match_plain(p, url)) return true;
    return false;
}

}  // namespace agentkit::browser
