// agentkit-bot — the demo's agent loop against a real model.
//
//   ANTHROPIC_API_KEY=... build/bin/agentkit-bot ["task"]          Anthropic Messages
//   OPENAI_API_KEY=...    build/bin/agentkit-bot ["task"]          OpenAI Responses
//   OPENAI_BASE_URL=http://127.0.0.1:8080/v1 OPENAI_API_KEY=x ...  an OpenAI-compatible server
//                                                                  (Chat Completions, compat mode)
//   AGENTKIT_MODEL=...       the model name (defaults per provider)
//   AGENTKIT_OPENAI_API=chat|responses   force the OpenAI API flavour
//
// Without a key it runs the scripted model, like agentkit-demo. Logs go to stderr; the report
// to stdout.
#include <agentkit/agentkit.hpp>

#include <curl/curl.h>

#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "../common/demo_tools.hpp"

namespace ak = agentkit;

namespace {

std::string env(const char* name) {
    const char* v = std::getenv(name);
    return v ? std::string(v) : std::string();
}

size_t on_body(char* data, size_t size, size_t n, void* user) {
    static_cast<std::string*>(user)->append(data, size * n);
    return size * n;
}

size_t on_header(char* data, size_t size, size_t n, void* user) {
    std::string_view h(data, size * n);
    auto* retry_after = static_cast<std::optional<double>*>(user);
    constexpr std::string_view key = "retry-after:";
    if (h.size() > key.size()) {
        std::string lower(h.substr(0, key.size()));
        for (auto& ch : lower) ch = static_cast<char>(ch >= 'A' && ch <= 'Z' ? ch - 'A' + 'a' : ch);
        if (lower == key) {
            const std::string v(h.substr(key.size()));
            char* end = nullptr;
            const double secs = std::strtod(v.c_str(), &end);
            if (end != v.c_str()) *retry_after = secs;
        }
    }
    return size * n;
}

/// A model over HTTPS: POSTs the request body, answers with the provider's response body or a
/// structured provider error (429 → provider.rate_limited with Retry-After, 529 → overloaded, ...).
class http_model {
public:
    http_model(ak::provider p, std::string url, std::vector<std::string> auth_headers)
        : provider_(p), url_(std::move(url)), auth_(std::move(auth_headers)) {}

    [[nodiscard]] ak::provider provider() const noexcept { return provider_; }

    [[nodiscard]] ak::result<ak::json> complete(const ak::json& request) {
        CURL* curl = curl_easy_init();
        if (!curl) return ak::fail(ak::errc::provider_error, "curl_easy_init failed");
        const std::string body = request.dump();
        std::string response;
        std::optional<double> retry_after;
        curl_slist* headers = curl_slist_append(nullptr, "content-type: application/json");
        for (const auto& h : auth_) headers = curl_slist_append(headers, h.c_str());
        for (const auto& [k, v] : ak::required_headers(provider_, request)) headers = curl_slist_append(headers, (k + ": " + v).c_str());
        curl_easy_setopt(curl, CURLOPT_URL, url_.c_str());
        curl_easy_setopt(curl, CURLOPT_HTTPHEADER, headers);
        curl_easy_setopt(curl, CURLOPT_POSTFIELDS, body.c_str());
        curl_easy_setopt(curl, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(body.size()));
        curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, on_body);
        curl_easy_setopt(curl, CURLOPT_WRITEDATA, &response);
        curl_easy_setopt(curl, CURLOPT_HEADERFUNCTION, on_header);
        curl_easy_setopt(curl, CURLOPT_HEADERDATA, &retry_after);
        curl_easy_setopt(curl, CURLOPT_TIMEOUT, 300L);
        curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
        const CURLcode rc = curl_easy_perform(curl);
        long status = 0;
        curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &status);
        curl_slist_free_all(headers);
        curl_easy_cleanup(curl);
        if (rc != CURLE_OK)
            return ak::fail(ak::errc::provider_error, std::string("network: ") + curl_easy_strerror(rc), "Check the connection and retry.");
        if (status < 200 || status >= 300) return ak::fail(ak::parse_error(provider_, static_cast<int>(status), response, retry_after));
        ak::json j = ak::json::parse(response, nullptr, false);
        if (j.is_discarded())
            return ak::fail(ak::errc::provider_malformed, "the response body is not JSON", "Retry.",
                            ak::json{{"received", response.substr(0, 200)}});
        return j;
    }

private:
    ak::provider provider_;
    std::string url_;
    std::vector<std::string> auth_;
};

template <class Model>
int run(Model& model, ak::session_options o, const std::string& task) {
    o.on_turn = [](const ak::turn_metrics& t) { std::fprintf(stderr, "%s\n", t.log_line().c_str()); };
    ak::agent_session session{demo::make_toolbox(), ak::all_visible{}, ak::compact_formatter{}, std::move(o)};
    ak::run_limits limits;
    limits.max_steps = 12;
    limits.max_time = std::chrono::minutes(5);
    const ak::run_result r = session.run(model, task, limits);
    std::printf("%s\n", ak::render_report(session.make_report()).c_str());
    std::fprintf(stderr, "%s\n", session.metrics().log_line().c_str());
    return r.ok() ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
    const std::string task = argc > 1 ? argv[1] : demo::task;
    ak::session_options o;
    const std::string anthropic_key = env("ANTHROPIC_API_KEY");
    const std::string openai_key = env("OPENAI_API_KEY");
    const std::string model_name = env("AGENTKIT_MODEL");
    if (!anthropic_key.empty() || !openai_key.empty()) curl_global_init(CURL_GLOBAL_DEFAULT);
    if (!anthropic_key.empty()) {
        o.model = model_name.empty() ? "claude-sonnet-4-5" : model_name;
        http_model m(ak::provider::anthropic, "https://api.anthropic.com/v1/messages", {"x-api-key: " + anthropic_key});
        std::fprintf(stderr, "agentkit-bot: Anthropic %s\n", o.model.c_str());
        return run(m, o, task);
    }
    if (!openai_key.empty()) {
        std::string base = env("OPENAI_BASE_URL");
        const bool official = base.empty();
        if (official) base = "https://api.openai.com/v1";
        while (!base.empty() && base.back() == '/') base.pop_back();
        const std::string flavour = env("AGENTKIT_OPENAI_API");
        const bool responses = flavour.empty() ? official : flavour == "responses";
        o.openai_compat = !official;
        o.model = model_name.empty() ? (official ? "gpt-4.1" : "default") : model_name;
        const ak::provider p = responses ? ak::provider::openai_responses : ak::provider::openai_chat;
        http_model m(p, base + (responses ? "/responses" : "/chat/completions"), {"authorization: Bearer " + openai_key});
        std::fprintf(stderr, "agentkit-bot: %s %s at %s\n", std::string(ak::to_string(p)).c_str(), o.model.c_str(), base.c_str());
        return run(m, o, task);
    }
    std::fprintf(stderr, "agentkit-bot: no ANTHROPIC_API_KEY or OPENAI_API_KEY; running the scripted model\n");
    ak::scripted_model m(ak::provider::anthropic, demo::script());
    m.then(demo::final_step());
    return run(m, o, task);
}
