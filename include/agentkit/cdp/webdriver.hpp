// agentkit/cdp/webdriver.hpp — a Chromium-family browser from a W3C WebDriver endpoint
// (Selenium Grid 4, Selenoid, a cloud grid behind a TLS-terminating proxy, Debian's
// chromedriver), driven over CDP.
//
//   agentkit::cdp::webdriver_options w;
//   w.url = "http://grid.internal:4444";                     // or http://127.0.0.1:9515 (chromedriver)
//   auto s = agentkit::cdp::webdriver_session::create(w);    // POST /session
//   auto t = agentkit::cdp::websocket_transport::connect(*agentkit::cdp::discover_websocket_url(s->cdp_endpoint()));
//   ...                                                      // the session is deleted with `s` (DELETE /session/{id})
//
// The session asks for `browserName: chrome` with `goog:chromeOptions.args` (headless, the
// offline flags, the host's extra args); `capabilities` are merged over that (alwaysMatch), so a
// grid's own keys (`se:name`, `platformName`, `browserVersion`, a node's binary) pass through.
// The CDP endpoint is the session's `se:cdp` (Selenium Grid 4: a WebSocket URL the grid
// proxies), else `goog:chromeOptions.debuggerAddress` (or `ms:edgeOptions.debuggerAddress`),
// a host:port on the driver's machine: "localhost" there is read as the WebDriver URL's host.
// browser::browser_options::webdriver does all of this, and deletes the session when the browser
// closes or restarts.
#pragma once

#include <agentkit/cdp/launch.hpp>
#include <agentkit/cdp/detail/net.hpp>
#include <agentkit/core/error.hpp>
#include <agentkit/core/json.hpp>
#include <agentkit/core/result.hpp>
#include <agentkit/core/url.hpp>

#include <chrono>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace agentkit::cdp {

/// How to reach a browser through a WebDriver endpoint (a Selenium grid, a cloud browser service).
struct webdriver_options {
    /// The WebDriver endpoint, with any path prefix it needs (http://host:4444,
    /// http://host:4444/wd/hub). Empty: no WebDriver.
    std::string url;
    /// Merged over agentkit's own capabilities (alwaysMatch).
    json capabilities = json::object();
    /// Bound for the session to be created (a grid may queue the request until a node is free).
    std::chrono::milliseconds create_timeout{120000};
    /// Bound for each other request (DELETE).
    std::chrono::milliseconds request_timeout{10000};
};

/// One WebDriver session. Move-only; deleting it ends the session on the endpoint.
class webdriver_session {
public:
    /// POST /session for a Chromium-family browser started with `launch`'s headless setting and
    /// extra args (its executable, when set, as goog:chromeOptions.binary). Errors:
    /// errc::browser_launch with the endpoint's own words when it refuses or has no CDP
    /// endpoint for the session; transport errors when it cannot be reached.
    [[nodiscard]] static result<webdriver_session> create(const webdriver_options& o, const launch_options& launch = {}) {
        auto base = detail::parse_url(o.url);
        if (!base || base->scheme != "http")
            return fail(errc::browser_launch, "invalid WebDriver URL '" + o.url + "'",
                        "Use http://host:port (with the grid's path prefix, e.g. /wd/hub, when it has one); for https, put a "
                        "TLS-terminating proxy in front of it.");
        json args = json::array();
        if (launch.headless) args.push_back("--headless=new");
        for (const char* f : {"--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run"})
            args.push_back(f);
        for (const auto& a : launch.extra_args) args.push_back(a);
        json chrome{{"args", std::move(args)}};
        if (!launch.executable.empty()) chrome["binary"] = launch.executable;
        json always{{"browserName", "chrome"}, {"goog:chromeOptions", std::move(chrome)}};
        if (o.capabilities.is_object())
            for (const auto& [k, v] : o.capabilities.items()) {
                if (k == "goog:chromeOptions" && v.is_object()) {
                    for (const auto& [ck, cv] : v.items()) {
                        if (ck == "args" && cv.is_array())
                            for (const auto& a : cv) always["goog:chromeOptions"]["args"].push_back(a);
                        else
                            always["goog:chromeOptions"][ck] = cv;
                    }
                } else {
                    always[k] = v;
                }
            }
        json& chrome_opts = always["goog:chromeOptions"];
        if (!launch.automation_visible && chrome_opts.is_object() &&
            (!chrome_opts.contains("args") || chrome_opts["args"].is_array())) {  // navigator.webdriver, as for a local launch
            json& all = chrome_opts["args"];
            std::vector<std::string> flags;
            std::vector<std::size_t> at;  // where each string arg is in `all`
            for (std::size_t i = 0; i < all.size(); ++i)
                if (all[i].is_string()) {
                    flags.push_back(all[i].get<std::string>());
                    at.push_back(i);
                }
            detail::hide_automation(flags);
            for (std::size_t i = 0; i < at.size(); ++i) all[at[i]] = flags[i];
            for (std::size_t i = at.size(); i < flags.size(); ++i) all.push_back(flags[i]);
        }
        const json req{{"capabilities", {{"alwaysMatch", std::move(always)}, {"firstMatch", json::array({json::object()})}}}};
        detail::url u = *base;
        u.path = joined(base->path, "/session");
        auto r = detail::http_request("POST", u, req.dump(), o.create_timeout);
        if (!r) return fail(errc::browser_launch, "cannot reach the WebDriver endpoint " + o.url + ": " + r.error().message,
                            "Check that the grid or driver runs and listens there.");
        const json body = json::parse(r->body, nullptr, false);
        const json value = body.is_object() ? body.value("value", json()) : json();
        if (r->head.status != 200 || !value.is_object()) {
            std::string why = value.is_object() && value.value("message", json()).is_string() ? value["message"].get<std::string>()
                                                                                            : r->body.substr(0, 300);
            return fail(errc::browser_launch,
                        "the WebDriver endpoint refused the session (HTTP " + std::to_string(r->head.status) + "): " + first_line(why),
                        "Check the browser the endpoint offers (a Chromium-family one) and the capabilities.",
                        json{{"status", r->head.status}, {"error", value.is_object() ? value.value("error", json()) : json()}});
        }
        webdriver_session s;
        s.base_ = *base;
        s.timeout_ = o.request_timeout;
        // W3C: {"value": {"sessionId", "capabilities"}}; the older wire: {"sessionId", "value": caps}
        if (value.value("sessionId", json()).is_string()) {
            s.id_ = value["sessionId"].get<std::string>();
            s.capabilities_ = value.value("capabilities", json::object());
        } else if (body.value("sessionId", json()).is_string()) {
            s.id_ = body["sessionId"].get<std::string>();
            s.capabilities_ = value;
        }
        if (s.id_.empty()) return fail(errc::browser_launch, "the WebDriver endpoint answered without a session id");
        auto endpoint = s.find_cdp_endpoint();
        if (!endpoint) {
            auto err = endpoint.error();
            (void)s.close();
            return fail(err);
        }
        s.cdp_ = std::move(*endpoint);
        return s;
    }

    webdriver_session(webdriver_session&& o) noexcept { *this = std::move(o); }
    webdriver_session& operator=(webdriver_session&& o) noexcept {
        if (this != &o) {
            (void)close();
            base_ = std::move(o.base_);
            id_ = std::exchange(o.id_, std::string());
            cdp_ = std::move(o.cdp_);
            capabilities_ = std::move(o.capabilities_);
            timeout_ = o.timeout_;
        }
        return *this;
    }
    webdriver_session(const webdriver_session&) = delete;
    webdriver_session& operator=(const webdriver_session&) = delete;
    ~webdriver_session() { (void)close(); }

    /// The session id ("" once closed).
    [[nodiscard]] const std::string& id() const noexcept { return id_; }
    /// Where CDP is: a ws:// URL (se:cdp) or http://host:port (debuggerAddress; pass it to
    /// discover_websocket_url()).
    [[nodiscard]] const std::string& cdp_endpoint() const noexcept { return cdp_; }
    /// The capabilities the endpoint granted.
    [[nodiscard]] const json& capabilities() const noexcept { return capabilities_; }

    /// DELETE /session/{id} (idempotent): the endpoint quits the browser.
    result<void> close() {
        if (id_.empty()) return {};
        detail::url u = base_;
        u.path = joined(base_.path, "/session/" + id_);
        id_.clear();
        auto r = detail::http_request("DELETE", u, std::nullopt, timeout_);
        if (!r) return fail(r.error());
        if (r->head.status != 200) return fail(errc::transport_io, "DELETE session answered HTTP " + std::to_string(r->head.status));
        return {};
    }

private:
    webdriver_session() = default;

    static std::string joined(const std::string& prefix, std::string_view tail) {
        std::string p = prefix;
        while (!p.empty() && p.back() == '/') p.pop_back();
        return p + std::string(tail);
    }
    static std::string first_line(const std::string& s) { return s.substr(0, s.find('\n')); }

    result<std::string> find_cdp_endpoint() const {
        if (auto se = capabilities_.find("se:cdp"); se != capabilities_.end() && se->is_string() && !se->get<std::string>().empty())
            return se->get<std::string>();
        for (const char* key : {"goog:chromeOptions", "ms:edgeOptions"}) {
            auto o = capabilities_.find(key);
            if (o == capabilities_.end() || !o->is_object() || !o->value("debuggerAddress", json()).is_string()) continue;
            std::string addr = (*o)["debuggerAddress"].get<std::string>();
            // the address is on the driver's machine: its loopback names mean the driver's host
            const auto colon = addr.rfind(':');
            if (colon == std::string::npos) break;
            std::string host = addr.substr(0, colon);
            if (agentkit::is_loopback_host(host))
                host = base_.host.find(':') != std::string::npos ? "[" + base_.host + "]" : base_.host;
            return "http://" + host + addr.substr(colon);
        }
        return fail(errc::browser_launch, "the WebDriver session has no CDP endpoint (se:cdp or goog:chromeOptions.debuggerAddress)",
                    "agentkit drives Chromium-family browsers over CDP: ask the grid for chrome, chromium or edge.");
    }

    detail::url base_;
    std::string id_;
    std::string cdp_;
    json capabilities_;
    std::chrono::milliseconds timeout_{10000};
};

}  // namespace agentkit::cdp
