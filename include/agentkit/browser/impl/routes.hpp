// agentkit/browser/impl/routes.hpp — browser: routes (answered or changed requests), the network state (offline) and what pages are told about their user (language, time zone, media features, script, CSP).
// Part of browser.hpp (which includes it at its end); not an entry point of its own.
#pragma once

#include <agentkit/browser/browser.hpp>

namespace agentkit::browser {

AGENTKIT_DECL auto browser::route_request(engine& e, const cdp::event& ev) -> bool {
    const json& p = ev.params;
    const json& req = detail::jobj(p, "request");
    const std::string url = detail::jstr(req, "url");
    const std::string rid = detail::jstr(p, "requestId");
    std::optional<route_rule> hit;
    bool blank = false;
    {
        std::lock_guard lock(routes_mu_);
        if (detail::jstr(p, "resourceType") == "Document") {
            if (const auto origin = detail::url_origin(url); !origin.empty() && visited_origins_.size() < 1000)
                visited_origins_.insert(std::string(origin));
        }
        blank = blank_pages_.count(url) != 0;
        if (!blank)
            for (auto it = routes_.rbegin(); it != routes_.rend(); ++it)  // the newest route wins
                if (url_glob_match(it->pattern, url)) {
                    hit = *it;
                    break;
                }
    }
    auto done = [](result<json>) {};
    if (blank) {
        // (an icon of its own: no /favicon.ico request reaches the site either)
        const std::string page = "<!doctype html><html><head><title></title><link rel=icon href=\"data:,\"></head><body></body></html>";
        e.conn.call_async("Fetch.fulfillRequest",
                          json{{"requestId", rid}, {"responseCode", 200},
                               {"responseHeaders", json::array({json{{"name", "Content-Type"}, {"value", "text/html; charset=utf-8"}}})},
                               {"body", base64_encode(page)}},
                          ev.session_id, done);
        return true;
    }
    if (hit && hit->fulfills()) {  // answered here: no network needed, offline or not
        json headers = json::array();
        if (!hit->content_type.empty()) headers.push_back({{"name", "Content-Type"}, {"value", hit->content_type}});
        for (const auto& [name, value] : hit->add_headers) headers.push_back({{"name", name}, {"value", value}});
        e.conn.call_async("Fetch.fulfillRequest",
                          json{{"requestId", rid}, {"responseCode", hit->status.value_or(200)}, {"responseHeaders", std::move(headers)},
                               {"body", base64_encode(hit->body.value_or(std::string()))}},
                          ev.session_id, done);
        return true;
    }
    if (offline_.load()) {
        e.conn.call_async("Fetch.failRequest", json{{"requestId", rid}, {"errorReason", "InternetDisconnected"}}, ev.session_id, done);
        return true;
    }
    if (!hit) return false;
    // sent on with its headers changed (names compared in any case)
    std::vector<std::pair<std::string, std::string>> headers;
    for (const auto& [name, value] : detail::jobj(req, "headers").items())
        if (value.is_string()) headers.emplace_back(name, value.get<std::string>());
    auto drop = [&](const std::string& name) {
        const std::string lower = ascii_lower(name);
        headers.erase(std::remove_if(headers.begin(), headers.end(), [&](const auto& h) { return ascii_lower(h.first) == lower; }),
                      headers.end());
    };
    for (const auto& name : hit->remove_headers) drop(name);
    for (const auto& [name, value] : hit->add_headers) {
        drop(name);
        headers.emplace_back(name, value);
    }
    json list = json::array();
    for (const auto& [name, value] : headers) list.push_back({{"name", name}, {"value", value}});
    e.conn.call_async("Fetch.continueRequest", json{{"requestId", rid}, {"headers", std::move(list)}}, ev.session_id, done);
    return true;
}

AGENTKIT_DECL auto browser::add_route(route_rule r) -> result<void> {
    if (r.pattern.empty()) return fail(errc::args_invalid, "a route needs a URL pattern", "e.g. \"**/api/users\" or \"**/*.{png,jpg}\".");
    if (r.status && (*r.status < 100 || *r.status > 599))
        return fail(errc::args_invalid, "status " + std::to_string(*r.status) + " is not an HTTP status", "Use 100 to 599.");
    for (const auto& [name, value] : r.add_headers) {
        const bool token = !name.empty() && std::all_of(name.begin(), name.end(), [](char c) {
            return std::isalnum(static_cast<unsigned char>(c)) || std::string_view("!#$%&'*+-.^_`|~").find(c) != std::string_view::npos;
        });
        if (!token) return fail(errc::args_invalid, "\"" + name + "\" is not a header name");
        if (value.find_first_of("\r\n") != std::string::npos) return fail(errc::args_invalid, "the value of header " + name + " has a line break");
    }
    std::lock_guard lock(routes_mu_);
    if (routes_.size() >= 100) return fail(errc::args_invalid, "100 routes are in force already", "Remove some first (remove_routes).");
    routes_.push_back(std::move(r));
    return {};
}

AGENTKIT_DECL auto browser::routes() const -> std::vector<route_rule> {
    std::lock_guard lock(routes_mu_);
    return routes_;
}

AGENTKIT_DECL auto browser::remove_routes(std::optional<std::string_view> pattern) -> std::size_t {
    std::lock_guard lock(routes_mu_);
    const std::size_t before = routes_.size();
    if (!pattern) routes_.clear();
    else routes_.erase(std::remove_if(routes_.begin(), routes_.end(), [&](const route_rule& r) { return r.pattern == *pattern; }),
                       routes_.end());
    return before - routes_.size();
}

AGENTKIT_DECL auto browser::set_offline(bool offline) -> result<void> {
    std::lock_guard op(op_mu_);
    offline_.store(offline);  // every request from now on (the dispatcher fails them)
    if (!eng_) return {};    // a browser started later takes it from install_session_policy
    // and what pages see: navigator.onLine, the online/offline events, WebSockets
    broadcast("Network.emulateNetworkConditions",
              json{{"offline", offline}, {"latency", 0}, {"downloadThroughput", -1}, {"uploadThroughput", -1}});
    return {};
}

AGENTKIT_DECL auto browser::broadcast(const std::string& method, const json& params) -> void {
    std::vector<std::string> sessions;
    {
        std::lock_guard lock(eng_->mu);
        for (const auto& [sid, t] : eng_->by_session) sessions.push_back(sid);
    }
    std::vector<std::future<result<json>>> calls;
    for (const auto& sid : sessions) calls.push_back(eng_->conn.call_async(method, params, sid, opt_.call_timeout));
    for (auto& c : calls) (void)c.get();
}

AGENTKIT_DECL auto browser::user_agent_params(const viewport_size& v) const -> std::optional<json> {
    std::string locale;
    {
        std::lock_guard lock(policy_mu_);
        locale = opt_.emulation.locale;
    }
    const std::string agent = !v.user_agent.empty() ? v.user_agent : locale.empty() ? std::string() : browser_user_agent_;
    if (agent.empty()) return std::nullopt;
    json p = {{"userAgent", agent}};
    if (!locale.empty()) p["acceptLanguage"] = locale;
    return p;
}

AGENTKIT_DECL auto browser::emulation_calls() const -> std::vector<std::pair<std::string, json>> {
    page_emulation em;
    {
        std::lock_guard lock(policy_mu_);
        em = opt_.emulation;
    }
    std::vector<std::pair<std::string, json>> calls;
    if (!em.locale.empty()) calls.emplace_back("Emulation.setLocaleOverride", json{{"locale", em.locale}});
    if (!em.timezone_id.empty()) calls.emplace_back("Emulation.setTimezoneOverride", json{{"timezoneId", em.timezone_id}});
    if (!em.media.empty()) {
        json features = json::array();
        for (auto [name, value] : {std::pair{"prefers-color-scheme", &em.media.color_scheme}, std::pair{"prefers-reduced-motion", &em.media.reduced_motion},
                                   std::pair{"forced-colors", &em.media.forced_colors}, std::pair{"prefers-contrast", &em.media.contrast}})
            if (!value->empty()) features.push_back({{"name", name}, {"value", *value}});
        calls.emplace_back("Emulation.setEmulatedMedia", json{{"media", em.media.media}, {"features", std::move(features)}});
    }
    if (!em.javascript_enabled) calls.emplace_back("Emulation.setScriptExecutionDisabled", json{{"value", true}});
    if (em.bypass_csp) calls.emplace_back("Page.setBypassCSP", json{{"enabled", true}});
    return calls;
}

AGENTKIT_DECL auto browser::emulate_media(const media_emulation& m) -> result<void> {
    auto check = [](const std::string& v, std::initializer_list<std::string_view> allowed, const char* what) -> result<void> {
        if (v.empty() || std::find(allowed.begin(), allowed.end(), v) != allowed.end()) return {};
        std::string list;
        for (auto a : allowed) list += (list.empty() ? "" : ", ") + std::string(a);
        return fail(errc::args_invalid, std::string(what) + " is " + list + ", not \"" + v + "\"");
    };
    for (auto r : {check(m.color_scheme, {"light", "dark"}, "colorScheme"), check(m.reduced_motion, {"reduce", "no-preference"}, "reducedMotion"),
                   check(m.forced_colors, {"active", "none"}, "forcedColors"), check(m.contrast, {"more", "no-preference"}, "contrast"),
                   check(m.media, {"screen", "print"}, "media")})
        if (!r) return r;
    std::lock_guard op(op_mu_);
    {
        std::lock_guard lock(policy_mu_);
        auto& cur = opt_.emulation.media;
        for (auto [from, to] : {std::pair{&m.color_scheme, &cur.color_scheme}, std::pair{&m.reduced_motion, &cur.reduced_motion},
                                std::pair{&m.forced_colors, &cur.forced_colors}, std::pair{&m.contrast, &cur.contrast}, std::pair{&m.media, &cur.media}})
            if (!from->empty()) *to = *from;
    }
    if (!eng_) return {};  // a browser started later takes it from install_session_policy
    for (const auto& [method, params] : emulation_calls())
        if (method == "Emulation.setEmulatedMedia") broadcast(method, params);
    return {};
}

}  // namespace agentkit::browser
