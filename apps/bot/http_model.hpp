// agentkit-bot's model over HTTP(S) with libcurl: POSTs the request body the session built to
// the provider's endpoint and answers with the provider's response body, or with a structured
// provider error (errc::provider_*) whose message says what the provider said, the HTTP status,
// the URL and the provider's request id, so a failed run explains itself.
#pragma once

#include <agentkit/agentkit.hpp>

#include <curl/curl.h>

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdlib>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace bot {

namespace ak = agentkit;

namespace detail {

inline std::size_t on_body(char* data, std::size_t size, std::size_t n, void* user) {
    static_cast<std::string*>(user)->append(data, size * n);
    return size * n;
}

/// What the response headers say that matters to us.
struct response_headers {
    std::optional<double> retry_after;  ///< seconds
    std::string request_id;             ///< Anthropic `request-id`, OpenAI `x-request-id`
};

inline std::string trimmed(std::string_view v) {
    while (!v.empty() && (v.front() == ' ' || v.front() == '\t')) v.remove_prefix(1);
    while (!v.empty() && (v.back() == '\r' || v.back() == '\n' || v.back() == ' ')) v.remove_suffix(1);
    return std::string(v);
}

inline std::size_t on_header(char* data, std::size_t size, std::size_t n, void* user) {
    const std::string_view h(data, size * n);
    auto* out = static_cast<response_headers*>(user);
    const std::size_t colon = h.find(':');
    if (colon == std::string_view::npos) return size * n;
    std::string key(h.substr(0, colon));
    for (auto& ch : key) ch = static_cast<char>(ch >= 'A' && ch <= 'Z' ? ch - 'A' + 'a' : ch);
    const std::string value = trimmed(h.substr(colon + 1));
    if (key == "retry-after") {
        char* end = nullptr;
        const double secs = std::strtod(value.c_str(), &end);
        if (end != value.c_str()) out->retry_after = secs;
    } else if (key == "request-id" || key == "x-request-id") {
        out->request_id = value;
    }
    return size * n;
}

}  // namespace detail

/// A model at `url` speaking provider `p`'s format; `headers` are sent with every request
/// (authentication). Status 429 becomes provider.rate_limited (with Retry-After), 529/503
/// provider.overloaded, 401/403 provider.auth, ... (agentkit::parse_error).
class http_model {
public:
    /// `timeout`: the longest one request may take (connecting included).
    http_model(ak::provider p, std::string url, std::vector<std::string> headers,
               std::chrono::seconds timeout = std::chrono::seconds(300))
        : provider_(p), url_(std::move(url)), headers_(std::move(headers)), timeout_(timeout) {}

    [[nodiscard]] ak::provider provider() const noexcept { return provider_; }
    [[nodiscard]] const std::string& url() const noexcept { return url_; }

    [[nodiscard]] ak::result<ak::json> complete(const ak::json& request) {
        CURL* curl = curl_easy_init();
        if (!curl) return ak::fail(ak::errc::provider_error, "curl_easy_init failed");
        const std::string body = request.dump();
        std::string response;
        detail::response_headers rh;
        char curl_error[CURL_ERROR_SIZE] = {0};
        curl_slist* headers = curl_slist_append(nullptr, "content-type: application/json");
        for (const auto& h : headers_) headers = curl_slist_append(headers, h.c_str());
        for (const auto& [k, v] : ak::required_headers(provider_, request))
            headers = curl_slist_append(headers, (k + ": " + v).c_str());
        curl_easy_setopt(curl, CURLOPT_URL, url_.c_str());
        curl_easy_setopt(curl, CURLOPT_HTTPHEADER, headers);
        curl_easy_setopt(curl, CURLOPT_POSTFIELDS, body.c_str());
        curl_easy_setopt(curl, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(body.size()));
        curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, detail::on_body);
        curl_easy_setopt(curl, CURLOPT_WRITEDATA, &response);
        curl_easy_setopt(curl, CURLOPT_HEADERFUNCTION, detail::on_header);
        curl_easy_setopt(curl, CURLOPT_HEADERDATA, &rh);
        curl_easy_setopt(curl, CURLOPT_ERRORBUFFER, curl_error);
        const long timeout_s = static_cast<long>(timeout_.count());
        curl_easy_setopt(curl, CURLOPT_CONNECTTIMEOUT, std::min(timeout_s, 30L));
        curl_easy_setopt(curl, CURLOPT_TIMEOUT, timeout_s);
        curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
        const CURLcode rc = curl_easy_perform(curl);
        long status = 0;
        curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &status);
        curl_slist_free_all(headers);
        curl_easy_cleanup(curl);
        ++round_trips_;

        if (rc != CURLE_OK) {
            std::string why = curl_error[0] != '\0' ? std::string(curl_error) : std::string(curl_easy_strerror(rc));
            return ak::fail(ak::errc::provider_error, std::string(ak::to_string(provider_)) + ": cannot reach " + url_ + ": " + why,
                            "Check the network, the base URL and that the server is running; then retry.",
                            ak::json{{"provider", ak::to_string(provider_)}, {"url", url_}, {"curl_code", static_cast<int>(rc)}});
        }
        if (status < 200 || status >= 300) {
            ak::error e = ak::parse_error(provider_, static_cast<int>(status), response, rh.retry_after);
            e.message += " (HTTP " + std::to_string(status) + " from " + url_;
            if (!rh.request_id.empty()) e.message += ", request id " + rh.request_id;
            e.message += ")";
            if (e.details.is_object()) {
                e.details["url"] = url_;
                if (!rh.request_id.empty()) e.details["request_id"] = rh.request_id;
            }
            return ak::fail(std::move(e));
        }
        ak::json j = ak::json::parse(response, nullptr, false);
        if (j.is_discarded())
            return ak::fail(ak::errc::provider_malformed,
                            std::string(ak::to_string(provider_)) + ": the response body from " + url_ + " is not JSON",
                            "Check that the URL is the provider's API endpoint; then retry.",
                            ak::json{{"received", response.substr(0, 200)}, {"url", url_}});
        return j;
    }

    /// HTTP requests made so far (retries included).
    [[nodiscard]] std::size_t round_trips() const noexcept { return round_trips_; }

private:
    ak::provider provider_;
    std::string url_;
    std::vector<std::string> headers_;
    std::chrono::seconds timeout_;
    std::size_t round_trips_ = 0;
};
static_assert(ak::provider_aware_model<http_model>);

}  // namespace bot
