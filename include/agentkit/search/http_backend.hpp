// agentkit/search/http_backend.hpp — a backend over HTTP: a wire adapter (searxng, brave, tavily,
// serper, or the host's own) and an HTTP client (net::http_client over libcurl, or any client
// meeting net::http_client_like). What every HTTP backend does on a bad day is decided here,
// once:
//   401, 403      `search.auth`, naming the variable to set (SearXNG's 403: JSON output is off
//                 in the instance's settings.yml)
//   429           with Retry-After within max_retry_wait and the time left: one retry after
//                 that wait; otherwise (or a second 429) `search.rate_limited` saying the wait
//   other non-2xx `search.failed` with the status
//   no answer     `timeout` when options::timeout (the --timeout-action bound) ran out, else
//                 the client's `transport.io`
//   2xx           the adapter's reading; a body it cannot read is `search.malformed`
// The key is sent in a header only; every error is scrubbed of it as well (a backend that
// echoes it in an error body does not leak it).
//
//   agentkit::net::http_client http;
//   agentkit::search::http_backend<agentkit::search::brave, agentkit::net::http_client> b{
//       http, {std::string(agentkit::search::brave::default_url), key}};
//   auto r = b.search(q);
#pragma once

#include <agentkit/search/query.hpp>
#include <agentkit/core/error.hpp>
#include <agentkit/core/http.hpp>
#include <agentkit/core/json.hpp>
#include <agentkit/core/result.hpp>
#include <agentkit/search/adapter.hpp>

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <functional>
#include <optional>
#include <stop_token>
#include <string>
#include <string_view>
#include <utility>

namespace agentkit::search {

/// How an HTTP backend bounds a search.
struct backend_options {
    /// The whole search, the retry and its wait included (agentkit-browser-mcp: --timeout-action).
    std::chrono::milliseconds timeout{15000};
    /// The longest Retry-After a 429 is retried after (a longer wait is an error saying it).
    std::chrono::milliseconds max_retry_wait{5000};
    /// A larger answer is refused (`transport.io`).
    std::size_t max_response_bytes = std::size_t{4} << 20U;
    /// How the retry waits (default: a wait that the stop token ends early). Tests record it.
    std::function<void(std::chrono::milliseconds, std::stop_token)> wait;
};

/// A search backend speaking wire format `Adapter` through HTTP client `Client` (which must
/// outlive it). Thread-safe as far as the client is.
template <wire_adapter Adapter, net::http_client_like Client>
class http_backend {
public:
    /// A backend at `where` (its URL and key), bounded by `o`.
    http_backend(Client& client, endpoint where, backend_options o = {})
        : client_(&client), where_(std::move(where)), o_(std::move(o)) {}

    /// The adapter's name ("brave", ...).
    [[nodiscard]] std::string_view name() const noexcept { return Adapter::name; }
    /// The endpoint (its key included: never print it).
    [[nodiscard]] const endpoint& where() const noexcept { return where_; }

    /// One search: the request, at most one retry after a 429, the adapter's reading.
    [[nodiscard]] result<results> search(const query& q, std::stop_token stop = {}) {
        auto r = run(q, stop);
        if (!r) return fail(scrub_secret(std::move(r.error()), where_.key));
        return r;
    }

private:
    using clock = std::chrono::steady_clock;

    result<results> run(const query& q, const std::stop_token& stop) {
        const auto deadline = clock::now() + o_.timeout;
        net::client_request rq = Adapter::build(q, where_);
        rq.max_response_bytes = o_.max_response_bytes;
        for (int attempt = 0;; ++attempt) {
            const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - clock::now());
            if (left.count() <= 0) return fail(timed_out());
            rq.timeout = left;
            rq.connect_timeout = std::min(rq.connect_timeout, left);
            auto resp = perform(rq, stop);
            if (!resp) {
                if (resp.error().is(errc::timeout)) return fail(timed_out());
                error e = std::move(resp.error());
                e.message = std::string(Adapter::name) + ": " + e.message;
                if (e.details.is_object()) e.details["backend"] = Adapter::name;
                return fail(std::move(e));
            }
            const int status = resp->status;
            if (resp->ok()) return Adapter::parse(resp->body, q);
            if (status == 401 || status == 403) return fail(auth_error(status));
            if (status == 429) {
                const auto wait = net::parse_retry_after(resp->header("retry-after"));
                const auto wait_ms = wait ? std::chrono::milliseconds(static_cast<long long>(*wait * 1000)) : std::chrono::milliseconds(-1);
                const bool can_retry = attempt == 0 && wait && wait_ms <= o_.max_retry_wait &&
                                       clock::now() + wait_ms < deadline;
                if (can_retry) {
                    if (o_.wait) o_.wait(wait_ms, stop);
                    else net::stoppable_wait(wait_ms, stop);
                    if (stop.stop_requested())
                        return fail(errc::cancelled, std::string(Adapter::name) + ": the search was cancelled while waiting to retry");
                    continue;
                }
                return fail(rate_limited(wait, attempt > 0));
            }
            json details{{"backend", Adapter::name}, {"status", status}};
            std::string excerpt = plain_text(resp->body.substr(0, 200));
            return fail(errc::search_failed,
                        std::string(Adapter::name) + ": the search backend answered HTTP " + std::to_string(status) +
                            (excerpt.empty() ? std::string() : ": " + excerpt),
                        status >= 500 ? "The backend has a problem; search again in a moment."
                                      : "The backend refused the request; check --search-url and the query's filters.",
                        std::move(details));
        }
    }

    result<net::client_response> perform(const net::client_request& rq, const std::stop_token& stop) {
        if constexpr (requires { client_->perform(rq, net::body_sink{}, stop); }) return client_->perform(rq, net::body_sink{}, stop);
        else return client_->perform(rq);
    }

    [[nodiscard]] error timed_out() const {
        return error(errc::timeout,
                     std::string(Adapter::name) + ": the search backend did not answer within " + std::to_string(o_.timeout.count()) + " ms",
                     "Search again later, or raise the bound (agentkit-browser-mcp: --timeout-action).",
                     json{{"backend", Adapter::name}, {"timeout_ms", o_.timeout.count()}});
    }

    [[nodiscard]] error auth_error(int status) const {
        json details{{"backend", Adapter::name}, {"status", status}};
        if (Adapter::key_env.empty())
            return error(errc::search_auth,
                         std::string(Adapter::name) + ": the search backend refused the request (HTTP " + std::to_string(status) + ")",
                         "Enable JSON output on the instance (settings.yml: search.formats includes json) or check --search-url.",
                         std::move(details));
        details["key_env"] = Adapter::key_env;
        return error(errc::search_auth,
                     std::string(Adapter::name) + ": the search backend refused the API key (HTTP " + std::to_string(status) + ")",
                     "Set " + std::string(Adapter::key_env) + " to a valid key for " + std::string(Adapter::name) +
                         " and restart; the key itself is never shown.",
                     std::move(details));
    }

    [[nodiscard]] error rate_limited(const std::optional<double>& wait, bool after_retry) const {
        json details{{"backend", Adapter::name}, {"status", 429}};
        std::string msg = std::string(Adapter::name) + ": the search backend is rate limiting (HTTP 429)";
        if (after_retry) msg += " again after one retry";
        std::string hint = "Search again later.";
        if (wait) {
            const long long secs = static_cast<long long>(*wait + 0.999);
            details["retry_after_seconds"] = secs;
            msg += "; it asks to wait " + std::to_string(secs) + " s";
            hint = "Wait " + std::to_string(secs) + " s before searching again.";
        } else {
            msg += " without saying how long to wait";
        }
        return error(errc::search_rate_limited, std::move(msg), std::move(hint), std::move(details));
    }

    Client* client_;
    endpoint where_;
    backend_options o_;
};

}  // namespace agentkit::search
