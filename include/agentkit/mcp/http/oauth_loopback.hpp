// agentkit/mcp/http/oauth_loopback.hpp — where the browser comes back after an OAuth sign-in: a
// listener on 127.0.0.1 (RFC 8252's loopback redirect for native apps) that gives
// oauth_options::authorize (mcp/http/oauth.hpp) what it must return, the URL the browser was sent back
// to. Needs agentkit::net (cpp-httplib); no OAuth code of its own, so it serves any host flow.
//
//   agentkit::mcp::oauth_loopback back;                      // port 0: any free port
//   if (auto up = back.start(); !up) ...;                    // binds 127.0.0.1 only
//   oo.redirect_uri = back.redirect_uri();                   // http://127.0.0.1:PORT/callback
//   oo.authorize = back.authorize([](const std::string& url) { show_to_user(url); });
//
// authorize(announce) returns a callback that reads the `state` of the authorization URL, calls
// `announce(url)` (print it, open a browser) and waits until a GET to the callback path carries
// that state, at most `wait`; it then returns the whole URL (code, state, iss or error). A
// request whose state nobody waits for (a stale or replayed link) is answered 400 and changes
// nothing; the browser is shown a page that reflects none of the parameters. cancel() ends every
// wait at once (a host that stops), and later ones until reset().
#pragma once

#include <agentkit/core/url.hpp>
#include <agentkit/core/error.hpp>
#include <agentkit/core/result.hpp>
#include <agentkit/net/http_server.hpp>

#include <chrono>
#include <condition_variable>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <utility>

namespace agentkit::mcp {

/// Where and how long an oauth_loopback listens.
struct oauth_loopback_options {
    int port = 0;                         ///< 0: any free port (the redirect URI then changes per start)
    std::string path = "/callback";       ///< the redirect URI's path
    std::chrono::milliseconds wait{std::chrono::minutes(5)};  ///< how long one sign-in may take
};

/// The loopback redirect receiver (see the file comment). Thread-safe.
class oauth_loopback {
public:
    /// A receiver for `o` (nothing listens before start()).
    explicit oauth_loopback(oauth_loopback_options o = {}) : o_(std::move(o)), st_(std::make_shared<state>()) {
        net::http_server_options so;
        so.host = "127.0.0.1";
        so.port = o_.port;
        so.threads = 2;
        srv_ = std::make_unique<net::http_server>(so);
        srv_->route(o_.path, [st = st_, this](const net::http_request& r) { return arrived(*st, r); }, "GET");
    }
    oauth_loopback(const oauth_loopback&) = delete;
    oauth_loopback& operator=(const oauth_loopback&) = delete;
    ~oauth_loopback() {
        cancel();
        srv_->stop();
    }

    /// Listen on 127.0.0.1 (transport.io when the port is taken).
    [[nodiscard]] result<void> start() { return srv_->start(); }
    /// The port listened on (0 before start()).
    [[nodiscard]] int port() const noexcept { return srv_->port(); }
    /// "http://127.0.0.1:PORT/callback": register this as the client's redirect URI.
    [[nodiscard]] std::string redirect_uri() const { return srv_->url(o_.path); }

    /// Wait until the browser comes back with `expected_state`, at most `wait`: the whole URL it
    /// was sent to. `timeout` when nobody came back in time; `cancelled` after cancel().
    [[nodiscard]] result<std::string> wait_for(const std::string& expected_state, std::chrono::milliseconds wait) {
        std::unique_lock lock(st_->mu);
        if (st_->cancelled) return fail(errc::cancelled, "the sign-in was cancelled", "The host is stopping; sign in on its next start.");
        st_->waiting[expected_state] = std::nullopt;
        const bool came = st_->cv.wait_for(lock, wait, [&] { return st_->cancelled || st_->waiting[expected_state].has_value(); });
        auto got = std::move(st_->waiting[expected_state]);
        st_->waiting.erase(expected_state);
        if (got) return std::move(*got);
        if (!came || !st_->cancelled)
            return fail(errc::timeout, "nobody signed in within " + std::to_string(wait.count() / 1000) + " s",
                        "Open the sign-in URL in a browser and approve the request; it is offered again on the next attempt.");
        return fail(errc::cancelled, "the sign-in was cancelled", "The host is stopping; sign in on its next start.");
    }

    /// The callback for oauth_options::authorize: announce the authorization URL, then wait for
    /// the browser to come back with its state (see the file comment).
    [[nodiscard]] std::function<result<std::string>(const std::string&)> authorize(std::function<void(const std::string& url)> announce) {
        return [this, announce = std::move(announce)](const std::string& url) -> result<std::string> {
            const auto u = parse_url(url);
            const auto params = query_params(u ? std::string_view(u->query) : std::string_view());
            const auto it = params.find("state");
            if (it == params.end() || it->second.empty())
                return fail(errc::args_invalid, "the authorization URL carries no state", "This receiver matches redirects by state; send one.");
            if (announce) announce(url);
            return wait_for(it->second, o_.wait);
        };
    }

    /// End every wait now (each returns `cancelled`), and refuse new ones until reset().
    void cancel() {
        {
            std::lock_guard lock(st_->mu);
            st_->cancelled = true;
        }
        st_->cv.notify_all();
    }
    /// Take waits again after cancel().
    void reset() {
        std::lock_guard lock(st_->mu);
        st_->cancelled = false;
    }

private:
    struct state {
        std::mutex mu;
        std::condition_variable cv;
        bool cancelled = false;
        std::map<std::string, std::optional<std::string>> waiting;  // by state: the URL once it came
    };

    static net::http_response page(int status, const char* title, const char* text) {
        auto r = net::http_response::html(std::string("<!doctype html><html><head><meta charset=utf-8><title>") + title +
                                          "</title></head><body><h1>" + title + "</h1><p>" + text + "</p></body></html>");
        r.status = status;
        r.headers.emplace_back("Content-Security-Policy", "default-src 'none'");
        r.headers.emplace_back("Cache-Control", "no-store");
        r.headers.emplace_back("Referrer-Policy", "no-referrer");
        return r;
    }

    net::http_response arrived(state& st, const net::http_request& r) {
        const auto params = query_params(r.query);
        const auto it = params.find("state");
        const bool denied = params.count("error") > 0;
        {
            std::lock_guard lock(st.mu);
            auto w = it == params.end() || params.count("state") != 1 ? st.waiting.end() : st.waiting.find(it->second);
            if (w == st.waiting.end() || w->second)
                return page(400, "Sign-in link not expected",
                            "This link is stale or was used already. Start the sign-in again from the application.");
            w->second = srv_->url(o_.path) + (r.query.empty() ? "" : "?" + r.query);
        }
        st.cv.notify_all();
        return denied ? page(200, "Sign-in not completed", "The application was told. You can close this tab.")
                      : page(200, "Signed in", "The application has what it needs. You can close this tab.");
    }

    oauth_loopback_options o_;
    std::shared_ptr<state> st_;
    std::unique_ptr<net::http_server> srv_;
};

}  // namespace agentkit::mcp
