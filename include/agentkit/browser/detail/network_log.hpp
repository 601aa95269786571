// agentkit/browser/detail/network_log.hpp — what a tab's network log keeps of a request: its
// headers (names in lower case, credentials hidden), and which requests are the page's at all
// (the browser's own favicon fetch is not).
#pragma once

#include <agentkit/core/json.hpp>
#include <agentkit/core/strings.hpp>

#include <algorithm>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace agentkit::browser::detail {

/// Headers as the log keeps them: names in lower case (HTTP's are case-insensitive; HTTP/2
/// sends them so), values as given, except the credentials a header can carry (cookie,
/// set-cookie, authorization, proxy-authorization): only their length is said.
inline std::vector<std::pair<std::string, std::string>> logged_headers(const json& headers) {
    std::vector<std::pair<std::string, std::string>> out;
    if (!headers.is_object()) return out;
    for (auto it = headers.begin(); it != headers.end(); ++it) {
        std::string name = ascii_lower(it.key());
        std::string value = it.value().is_string() ? it.value().get<std::string>() : it.value().dump();
        if (name == "cookie" || name == "set-cookie" || name == "authorization" || name == "proxy-authorization")
            value = "(hidden: " + count_noun(value.size(), "character") + ")";
        out.emplace_back(std::move(name), std::move(value));
    }
    return out;
}

/// Whether `url` is a favicon's (its path ends in /favicon.ico): the browser fetches it for
/// its tab strip, the page never asked for it.
inline bool is_favicon_url(std::string_view url) {
    const auto end = std::min(url.find_first_of("?#"), url.size());
    constexpr std::string_view tail = "/favicon.ico";
    return end >= tail.size() && url.substr(end - tail.size(), tail.size()) == tail;
}

/// A request body as the log keeps it: its first `max` bytes (at a UTF-8 boundary).
inline std::string bounded_body(const std::string& body, std::size_t max) {
    return body.size() <= max ? body : body.substr(0, utf8_safe_prefix(body, max));
}

}  // namespace agentkit::browser::detail
