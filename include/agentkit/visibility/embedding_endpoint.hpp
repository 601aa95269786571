// agentkit/visibility/embedding_endpoint.hpp — an embedding model behind the OpenAI-compatible
// embeddings API (POST <base>/embeddings), as a batch_embedder for tool search: OpenAI, Voyage,
// Jina, Mistral and the local servers (Ollama, llama.cpp's server, text-embeddings-inference,
// vLLM, LM Studio) all answer this shape.
//
//   agentkit::net::http_client http;                     // libcurl (agentkit::curl), or any
//   agentkit::embedding_endpoint_options o;              // net::http_client_like client
//   o.base_url = "http://127.0.0.1:11434/v1";
//   o.model = "nomic-embed-text";
//   o.api_key_env = "OPENAI_API_KEY";                     // read once; never printed
//   o.cache_dir = "/var/cache/agentkit";                  // tool vectors survive a restart
//   agentkit::embedding_endpoint<agentkit::net::http_client> e(http_ptr, o);
//   agentkit::router<agentkit::embedding_endpoint<agentkit::net::http_client>> r({}, e);
//
// What it does on a bad day, decided here once:
//   - Tool texts go in batches of batch_size, each retried `retries` times with a doubling
//     backoff (a 429's Retry-After is honoured up to max_retry_wait); a search request is asked
//     once, within query_timeout (a search must stay fast).
//   - Any failure (no answer, a timeout, a non-2xx status, a body that is not the API's shape, a
//     vector of another length or not finite) opens a breaker: for `cooldown` (doubling at each
//     failure in a row, up to max_cooldown) every call fails at once without a request, so a
//     dead endpoint costs a search nothing. The retriever then ranks by words alone.
//   - on_log hears of it once when the endpoint stops answering and once when it answers again;
//     never the key (sent in the Authorization header only, and scrubbed from every error).
// Vectors are cached by text: tool texts in memory and on disk (vector_cache.hpp, keyed by model,
// dimensions, prefix and extra fields), search requests in memory (the last max_cached_queries).
// Copies share their state (cache, breaker, client); embed_batch() is thread-safe when the
// client is (net::http_client is).
#pragma once

#include <agentkit/core/error.hpp>
#include <agentkit/core/http.hpp>
#include <agentkit/core/json.hpp>
#include <agentkit/core/result.hpp>
#include <agentkit/core/strings.hpp>
#include <agentkit/visibility/embedder.hpp>
#include <agentkit/visibility/vector_cache.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstddef>
#include <cstdlib>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <stop_token>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

namespace agentkit {

/// Where an embedding_endpoint sends its requests and how it bounds them.
struct embedding_endpoint_options {
    std::string base_url;  ///< up to the API's version ("https://api.openai.com/v1"); "/embeddings" is appended
    std::string model;     ///< the model's name, sent as "model"
    std::string api_key;   ///< sent as "Authorization: Bearer ..." (empty: see api_key_env)
    std::string api_key_env;  ///< with api_key empty: the environment variable it is read from, once (empty: no key)
    std::size_t dimensions = 0;  ///< sent as "dimensions" when not 0 (models that can shorten their vectors)
    std::string document_prefix;  ///< put before every tool text (models trained with one: "search_document: ")
    std::string query_prefix;     ///< put before every search request ("search_query: ")
    json extra = json::object();  ///< more fields of every request body (an "input_type", "truncate", ...)
    std::size_t batch_size = 64;  ///< texts per request
    std::chrono::milliseconds document_timeout{30000};  ///< one request of tool texts
    std::chrono::milliseconds query_timeout{1500};      ///< one search request's embedding
    int retries = 2;  ///< more tries of a request of tool texts (search requests are asked once)
    std::chrono::milliseconds backoff{250};             ///< before the first retry, doubled each time
    std::chrono::milliseconds max_retry_wait{5000};     ///< the longest Retry-After waited for
    std::chrono::milliseconds cooldown{5000};           ///< after a failure, calls fail at once this long
    std::chrono::milliseconds max_cooldown{60000};      ///< the cooldown doubles up to this
    std::string cache_dir;  ///< tool vectors kept on disk here ("": memory only)
    std::size_t max_cached_queries = 4096;  ///< search requests' vectors kept in memory
    std::size_t max_response_bytes = std::size_t{256} << 20U;  ///< a larger answer is refused
    /// Told once when the endpoint stops answering (with why) and once when it answers again, and of a
    /// cache file it cannot use. Called on the thread that saw it; must not throw.
    std::function<void(std::string_view)> on_log;
    /// How a retry waits (default: a wait the stop token ends early). Tests record it.
    std::function<void(std::chrono::milliseconds, std::stop_token)> wait;
    /// The clock the breaker reads (default: steady_clock::now). Tests move it.
    std::function<std::chrono::steady_clock::time_point()> now;
};

/// An OpenAI-compatible embeddings endpoint as a batch_embedder (see the file comment). `Client` is a
/// net::http_client_like client, shared by pointer.
template <class Client>
    requires net::http_client_like<Client>
class embedding_endpoint {
public:
    /// An endpoint reached through `client` with these options; the key is read from api_key_env now.
    embedding_endpoint(std::shared_ptr<Client> client, embedding_endpoint_options o)
        : s_(std::make_shared<state>(std::move(client), std::move(o))) {}

    /// The vectors of `texts` (cached ones from the cache), or why not; never throws.
    [[nodiscard]] result<embedding_batch> embed_batch(std::span<const std::string> texts, embed_purpose p) const {
        return embed_batch(texts, p, {});
    }

    /// embed_batch(), ended early when `stop` is requested (`cancelled`).
    [[nodiscard]] result<embedding_batch> embed_batch(std::span<const std::string> texts, embed_purpose p,
                                                      std::stop_token stop) const {
        try {
            return s_->embed(texts, p, stop);
        } catch (const std::exception& e) {
            return fail(errc::internal, std::string("embedding_endpoint: ") + e.what());
        }
    }

    /// False while the breaker is open (a failed endpoint cooling down).
    [[nodiscard]] bool ready() const { return s_->ready(); }
    /// The endpoint's vector length, once one answer told it (0 before).
    [[nodiscard]] std::size_t dimension_seen() const {
        std::lock_guard lock(s_->mu);
        return s_->dim;
    }
    /// Requests sent so far (retries included): what the caches save shows here.
    [[nodiscard]] std::size_t requests_sent() const {
        std::lock_guard lock(s_->mu);
        return s_->requests;
    }
    /// The tool-text cache (its file and its problem()).
    [[nodiscard]] const vector_cache& cache() const { return s_->documents; }
    /// The options in use (the key as given, never printed by agentkit).
    [[nodiscard]] const embedding_endpoint_options& options() const { return s_->opt; }

private:
    struct state {
        state(std::shared_ptr<Client> c, embedding_endpoint_options o)
            : client(std::move(c)), opt(std::move(o)),
              key(!opt.api_key.empty() || opt.api_key_env.empty() ? opt.api_key : env(opt.api_key_env)),
              url(trim_slash(opt.base_url) + "/embeddings"),
              documents(opt.cache_dir, cache_key(opt)) {
            if (!documents.problem().empty()) log(documents.problem());
        }

        static std::string env(const std::string& name) {
            const char* v = std::getenv(name.c_str());
            return v ? std::string(v) : std::string();
        }
        static std::string trim_slash(std::string s) {
            while (!s.empty() && s.back() == '/') s.pop_back();
            return s;
        }
        static std::string cache_key(const embedding_endpoint_options& o) {
            return o.model + "|" + std::to_string(o.dimensions) + "|" + o.document_prefix + "|" + o.extra.dump();
        }
        [[nodiscard]] std::chrono::steady_clock::time_point clock() const {
            return opt.now ? opt.now() : std::chrono::steady_clock::now();
        }
        void log(std::string_view line) const {
            if (!opt.on_log) return;
            try {
                opt.on_log(line);
            } catch (...) {  // a host's logger must not fail a search
            }
        }
        [[nodiscard]] bool ready() const {
            std::lock_guard lock(mu);
            return failures == 0 || clock() >= open_until;
        }

        result<embedding_batch> embed(std::span<const std::string> texts, embed_purpose p, std::stop_token stop) {
            const bool query = p == embed_purpose::query;
            const std::string& prefix = query ? opt.query_prefix : opt.document_prefix;
            embedding_batch out(texts.size());
            std::vector<std::size_t> missing;  // indexes of texts with no cached vector
            std::vector<std::string> sent;     // their texts as sent (prefixed), each once
            std::unordered_map<std::string, std::size_t> slot;
            std::vector<std::vector<std::size_t>> wanting;  // per sent text: the indexes it fills
            for (std::size_t i = 0; i < texts.size(); ++i) {
                std::string t = prefix + texts[i];
                if (texts[i].find_first_not_of(" \t\r\n") == std::string::npos) continue;  // empty: a zero vector below
                if (auto v = cached(t, query)) {
                    out[i] = std::move(*v);
                    continue;
                }
                auto [it, fresh] = slot.emplace(t, sent.size());
                if (fresh) {
                    sent.push_back(std::move(t));
                    wanting.emplace_back();
                }
                wanting[it->second].push_back(i);
                missing.push_back(i);
            }
            if (!sent.empty()) {
                if (auto closed = breaker_check(); !closed) return fail(closed.error());
                const std::size_t batch = std::max<std::size_t>(opt.batch_size, 1);
                for (std::size_t from = 0; from < sent.size(); from += batch) {
                    const std::size_t to = std::min(sent.size(), from + batch);
                    auto got = request(std::span<const std::string>(sent).subspan(from, to - from), query, stop);
                    if (!got) {
                        if (!got.error().is(errc::cancelled)) trip(got.error());
                        return fail(std::move(got.error()));
                    }
                    std::vector<std::pair<std::string, std::vector<float>>> keep;
                    for (std::size_t j = from; j < to; ++j) {
                        for (auto i : wanting[j]) out[i] = (*got)[j - from];
                        keep.emplace_back(sent[j], std::move((*got)[j - from]));
                    }
                    remember(std::move(keep), query);
                }
                recovered();
            }
            std::size_t d = 0;
            for (const auto& v : out) d = std::max(d, v.size());
            if (d == 0) {
                std::lock_guard lock(mu);
                d = dim;
            }
            for (auto& v : out)
                if (v.empty()) v.assign(d, 0.0F);
            return out;
        }

        std::optional<std::vector<float>> cached(const std::string& t, bool query) {
            if (!query) return documents.find(t);
            std::lock_guard lock(mu);
            if (auto it = queries.find(t); it != queries.end()) return it->second;
            return std::nullopt;
        }
        void remember(std::vector<std::pair<std::string, std::vector<float>>> keep, bool query) {
            if (!query) {
                documents.put(keep);
                return;
            }
            std::lock_guard lock(mu);
            if (queries.size() + keep.size() > opt.max_cached_queries) queries.clear();
            for (auto& [t, v] : keep) queries.emplace(std::move(t), std::move(v));
        }

        result<void> breaker_check() {
            std::lock_guard lock(mu);
            if (failures == 0 || clock() >= open_until) return {};
            const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(open_until - clock());
            error e = last_error;
            e.message = "the embeddings endpoint is cooling down after a failure (" + std::to_string(left.count()) +
                        " ms left): " + last_error.message;
            return fail(std::move(e));
        }
        void trip(const error& e) {
            bool first = false;
            {
                std::lock_guard lock(mu);
                first = failures == 0;
                ++failures;
                auto c = opt.cooldown;
                for (int i = 1; i < failures && c < opt.max_cooldown; ++i) c *= 2;
                c = std::min(c, opt.max_cooldown);
                open_until = clock() + c;
                last_error = e;
            }
            if (first)
                log("embeddings endpoint " + net::redact_url(url) + " failed (" + std::string(e.code) + ": " + e.message +
                    "); tool search ranks by words alone until it answers again");
        }
        void recovered() {
            bool was_down = false;
            {
                std::lock_guard lock(mu);
                was_down = failures > 0;
                failures = 0;
            }
            if (was_down) log("embeddings endpoint " + net::redact_url(url) + " answers again; tool search fuses its vectors");
        }

        /// One request for `texts` (already prefixed), with the retries its purpose allows.
        result<embedding_batch> request(std::span<const std::string> texts, bool query, std::stop_token stop) {
            json body = opt.extra.is_object() ? opt.extra : json::object();
            body["model"] = opt.model;
            body["input"] = std::vector<std::string>(texts.begin(), texts.end());
            body["encoding_format"] = "float";
            if (opt.dimensions != 0) body["dimensions"] = opt.dimensions;
            net::client_request rq;
            rq.method = "POST";
            rq.url = url;
            rq.headers = {{"Content-Type", "application/json"}, {"Accept", "application/json"}};
            if (!key.empty()) rq.headers.emplace_back("Authorization", "Bearer " + key);
            rq.body = body.dump(-1, ' ', false, json::error_handler_t::replace);
            rq.timeout = query ? opt.query_timeout : opt.document_timeout;
            rq.connect_timeout = std::min(rq.timeout, std::chrono::milliseconds(10000));
            rq.max_response_bytes = opt.max_response_bytes;
            const int tries = query ? 1 : 1 + std::max(opt.retries, 0);
            auto delay = opt.backoff;
            error last(errc::internal, "no request was sent");
            for (int attempt = 0; attempt < tries; ++attempt) {
                if (stop.stop_requested()) return fail(errc::cancelled, "the embedding request was cancelled");
                {
                    std::lock_guard lock(mu);
                    ++requests;
                }
                auto r = perform(rq, stop);
                std::optional<std::chrono::milliseconds> retry_after;
                if (r && r->ok()) {
                    auto v = read(r->body, texts.size());
                    if (v) return v;
                    last = v.error();
                } else if (!r) {
                    last = r.error();
                    if (last.is(errc::cancelled)) return fail(scrub_secret(std::move(last), key));
                } else {
                    last = status_error(*r);
                    if (r->status == 429)
                        if (auto secs = net::parse_retry_after(r->header("retry-after")))
                            retry_after = std::chrono::milliseconds(static_cast<long long>(*secs * 1000.0));
                    const bool transient = r->status == 429 || r->status == 408 || r->status >= 500;
                    if (!transient) break;
                }
                if (attempt + 1 >= tries) break;
                auto d = retry_after ? *retry_after : delay;
                if (d > opt.max_retry_wait) break;
                if (opt.wait) opt.wait(d, stop);
                else net::stoppable_wait(d, stop);
                delay *= 2;
            }
            return fail(scrub_secret(std::move(last), key));
        }

        result<net::client_response> perform(const net::client_request& rq, std::stop_token stop) {
            if constexpr (requires(Client& c) { c.perform(rq, net::body_sink{}, stop); })
                return client->perform(rq, net::body_sink{}, stop);
            else
                return client->perform(rq);
        }

        [[nodiscard]] error status_error(const net::client_response& r) const {
            std::string said;
            const json j = json::parse(r.body, nullptr, false);
            if (j.is_object()) {
                if (auto e = j.find("error"); e != j.end()) {
                    if (e->is_string()) said = e->get<std::string>();
                    else if (e->is_object() && e->contains("message") && (*e)["message"].is_string()) said = (*e)["message"].get<std::string>();
                }
                if (said.empty() && j.contains("detail") && j["detail"].is_string()) said = j["detail"].get<std::string>();
            }
            if (said.size() > 300) said = clip_ellipsis(said, 300);
            const std::string what = "embeddings endpoint " + net::redact_url(url) + " answered HTTP " + std::to_string(r.status) +
                                     (said.empty() ? std::string() : ": " + said);
            const json details{{"status", r.status}, {"url", net::redact_url(url)}};
            if (r.status == 401 || r.status == 403)
                return error(errc::provider_auth, what,
                             opt.api_key_env.empty() ? "Give the endpoint's key (api_key)."
                                                     : "Set " + opt.api_key_env + " to a key the endpoint accepts.",
                             details);
            if (r.status == 429) return error(errc::provider_rate_limited, what, "Wait, or lower how often tools are searched.", details);
            if (r.status >= 500) return error(errc::provider_error, what, "The endpoint failed; it is tried again after a cooldown.", details);
            return error(errc::provider_invalid, what, "Check the model name (" + opt.model + ") and the base URL.", details);
        }

        /// The API's answer: {"data": [{"index": i, "embedding": [floats]}, ...]}, one per text.
        [[nodiscard]] result<embedding_batch> read(const std::string& body, std::size_t n) {
            const std::string where = "embeddings endpoint " + net::redact_url(url);
            auto bad = [&](const std::string& why) {
                return fail(errc::provider_malformed, where + " answered in a shape this client does not read: " + why,
                            "Point it at an OpenAI-compatible /v1/embeddings endpoint.");
            };
            const json j = json::parse(body, nullptr, false);
            if (!j.is_object() || !j.contains("data") || !j["data"].is_array()) return bad("no \"data\" array");
            const json& data = j["data"];
            if (data.size() != n) return bad(std::to_string(data.size()) + " vectors for " + std::to_string(n) + " texts");
            embedding_batch out(n);
            std::vector<bool> seen(n, false);
            for (std::size_t k = 0; k < data.size(); ++k) {
                const json& item = data[k];
                if (!item.is_object()) return bad("an entry of \"data\" is not an object");
                std::size_t i = k;
                if (auto ix = item.find("index"); ix != item.end()) {
                    if (!ix->is_number_unsigned() || ix->get<std::size_t>() >= n) return bad("an \"index\" out of range");
                    i = ix->get<std::size_t>();
                }
                if (seen[i]) return bad("two vectors for one text");
                seen[i] = true;
                const auto e = item.find("embedding");
                if (e == item.end() || !e->is_array() || e->empty()) return bad("an entry without an \"embedding\" array");
                auto& v = out[i];
                v.reserve(e->size());
                for (const auto& x : *e) {
                    if (!x.is_number()) return bad("an embedding holds a value that is not a number");
                    const auto f = x.get<double>();
                    if (!std::isfinite(f)) return bad("an embedding holds a value that is not finite");
                    v.push_back(static_cast<float>(f));
                }
            }
            const std::size_t d = out[0].size();
            for (const auto& v : out)
                if (v.size() != d) return bad("vectors of different lengths (" + std::to_string(d) + " and " + std::to_string(v.size()) + ")");
            std::lock_guard lock(mu);
            if (dim != 0 && dim != d)
                return bad("vectors of " + std::to_string(d) + " numbers where earlier ones had " + std::to_string(dim));
            dim = d;
            return out;
        }

        std::shared_ptr<Client> client;
        embedding_endpoint_options opt;
        std::string key;
        std::string url;
        vector_cache documents;
        mutable std::mutex mu;
        std::unordered_map<std::string, std::vector<float>> queries;
        std::size_t dim = 0;
        std::size_t requests = 0;
        int failures = 0;
        std::chrono::steady_clock::time_point open_until{};
        error last_error{errc::internal, ""};
    };

    std::shared_ptr<state> s_;
};

}  // namespace agentkit
