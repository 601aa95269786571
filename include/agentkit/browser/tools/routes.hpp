// agentkit/browser/tools/routes.hpp — browser tools: routes and the network state (Playwright
// MCP's network capability, offered with --caps network): answer requests with a mocked
// response or send them on with headers changed, list and remove routes, go offline and back.
// The origin policy decides before any route: a route never opens a refused origin.
// Part of browser/tools.hpp (include that): each tool, its argument struct and a factory;
// tools.hpp registers them in browser_tools().
#pragma once

#include <agentkit/browser/tools/playwright.hpp>
#include <agentkit/browser/tools/storage.hpp>
#include <agentkit/browser/tools/support.hpp>

#include <array>
#include <string>
#include <string_view>
#include <vector>

namespace agentkit::browser {

/// Arguments of browser_route.
struct route_args {
    std::string pattern;                              ///< URL glob ("**/api/users", "**/*.{png,jpg}")
    std::optional<int> status;                        ///< the mocked response's status (default 200)
    std::optional<std::string> body;                  ///< the mocked response's body
    std::optional<std::string> contentType;           ///< its Content-Type
    std::optional<std::vector<std::string>> headers;  ///< "Name: Value": set on the request sent on (or the mocked response)
    std::optional<std::string> removeHeaders;         ///< comma-separated names removed from the request sent on
    static constexpr auto agentkit_fields() {
        return fields(AGENTKIT_FIELD(route_args, pattern, "URL glob: **/api/users, **/*.{png,jpg}"),
                      AGENTKIT_FIELD(route_args, status, "Mock: status (default 200)", range(100, 599)),
                      AGENTKIT_FIELD(route_args, body, "Mock: body"), AGENTKIT_FIELD(route_args, contentType, "Mock: Content-Type"),
                      AGENTKIT_FIELD(route_args, headers, "\"Name: Value\" headers to add"),
                      AGENTKIT_FIELD(route_args, removeHeaders, "Comma-separated request headers to remove"));
    }
};

/// Arguments of browser_unroute.
struct unroute_args {
    std::optional<std::string> pattern;  ///< the routes' pattern (none: every route)
    static constexpr auto agentkit_fields() { return fields(AGENTKIT_FIELD(unroute_args, pattern, "Pattern to remove (none: all)")); }
};

/// Arguments of browser_network_state_set.
struct network_state_args {
    std::string state;  ///< "online" or "offline"
    static constexpr auto agentkit_fields() {
        return fields(AGENTKIT_FIELD(network_state_args, state, "offline: every request fails", one_of("online", "offline")));
    }
};

namespace detail {
/// A route as browser_route_list lists it: `1. **/api (status=200, body=[...])`.
inline std::string route_line(std::size_t n, const route_rule& r) {
    std::vector<std::string> details;
    if (r.status) details.push_back("status=" + std::to_string(*r.status));
    if (r.body) details.push_back("body=" + (r.body->size() > 50 ? r.body->substr(0, 50) + "..." : *r.body));
    if (!r.content_type.empty()) details.push_back("contentType=" + r.content_type);
    if (!r.add_headers.empty()) {
        json h = json::object();
        for (const auto& [k, v] : r.add_headers) h[k] = v;
        details.push_back("addHeaders=" + h.dump());
    }
    if (!r.remove_headers.empty()) {
        std::string names;
        for (const auto& h : r.remove_headers) names += (names.empty() ? "" : ",") + h;
        details.push_back("removeHeaders=" + names);
    }
    std::string line = std::to_string(n) + ". " + r.pattern;
    if (!details.empty()) {
        line += " (";
        for (std::size_t i = 0; i < details.size(); ++i) {
            if (i > 0) line += ", ";
            line += details[i];
        }
        line += ")";
    }
    return line;
}
}  // namespace detail

/// Make the browser_route tool.
template <class State>
auto route_tool(State& st) {
    tool_state* s = &st;
    return browser_tool<"browser_route">(
        st, "Mock (status/body) or change (headers) requests matching a URL glob.",
        [s](const route_args& a) -> result<tool_output> {
            route_rule r;
            r.pattern = a.pattern;
            r.status = a.status;
            r.body = a.body;
            r.content_type = a.contentType.value_or("");
            for (const auto& h : a.headers.value_or(std::vector<std::string>{})) {
                const auto colon = h.find(':');
                if (colon == std::string::npos || colon == 0)
                    return detail::pw_reported(*s, error{errc::args_invalid, "Invalid header \"" + h + "\": expected \"Name: Value\""});
                r.add_headers.emplace_back(trim_ascii(std::string_view(h).substr(0, colon)), trim_ascii(std::string_view(h).substr(colon + 1)));
            }
            if (a.removeHeaders)
                for (std::string_view rest = *a.removeHeaders; !rest.empty();) {
                    const auto comma = rest.find(',');
                    const std::string name(trim_ascii(rest.substr(0, comma)));
                    if (!name.empty()) r.remove_headers.push_back(name);
                    if (comma == std::string_view::npos) break;
                    rest.remove_prefix(comma + 1);
                }
            if (auto added = s->b.add_route(r); !added) return fail(added.error());
            return detail::coded_result(
                *s, detail::pw_mode(*s) ? "Route added for pattern: " + a.pattern : "route added: " + detail::route_line(s->b.routes().size(), r),
                pw::statement("context().route(" + pw::js_quote(a.pattern) + ", async route => { /* route handler */ })", s->options.codegen),
                false);
        },
        action_traits);
}

/// Make the browser_route_list tool.
template <class State>
auto route_list_tool(State& st) {
    tool_state* s = &st;
    return browser_tool<"browser_route_list">(
        st, "List the routes in force.",
        [s]() -> result<tool_output> {
            const auto routes = s->b.routes();
            std::string text;
            for (std::size_t i = 0; i < routes.size(); ++i) {
                if (i > 0) text += '\n';  // (appended in two steps: g++ -O3 warns falsely on a + b there)
                text += detail::route_line(i + 1, routes[i]);
            }
            return detail::coded_result(*s, routes.empty() ? "No active routes" : std::move(text), "", false);
        },
        reading_traits);
}

/// Make the browser_unroute tool.
template <class State>
auto unroute_tool(State& st) {
    tool_state* s = &st;
    return browser_tool<"browser_unroute">(
        st, "Remove the routes of a pattern (none: all).",
        [s](const unroute_args& a) -> result<tool_output> {
            const std::size_t n = a.pattern ? s->b.remove_routes(std::string_view(*a.pattern)) : s->b.remove_routes();
            std::string text = a.pattern ? "Removed " + std::to_string(n) + " route(s) for pattern: " + *a.pattern
                                         : "Removed all " + std::to_string(n) + " route(s)";
            return detail::coded_result(*s, std::move(text), "", false);
        },
        action_traits);
}

/// Make the browser_network_state_set tool.
template <class State>
auto network_state_tool(State& st) {
    tool_state* s = &st;
    return browser_tool<"browser_network_state_set">(
        st, "Go offline (every request fails) or back online.",
        [s](const network_state_args& a) -> result<tool_output> {
            if (a.state != "online" && a.state != "offline")
                return fail(errc::args_invalid, "state is \"online\" or \"offline\", not \"" + a.state + "\"");
            const bool off = a.state == "offline";
            if (auto r = s->b.set_offline(off); !r) return fail(r.error());
            return detail::coded_result(*s, "Network is now " + a.state,
                                          pw::statement(std::string("context().setOffline(") + (off ? "true" : "false") + ")", s->options.codegen),
                                          false);
        },
        action_traits);
}

}  // namespace agentkit::browser
