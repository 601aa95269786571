// agentkit/session/model_client.hpp — a real model for agent_session: the provider's HTTP API over
// libcurl, streamed or not.
//
// Needs libcurl (CMake target agentkit::curl; Debian: libcurl4-openssl-dev). The APIs:
//   anthropic          Messages: POST {base}/v1/messages, x-api-key, anthropic-version
//                      (base default https://api.anthropic.com; key from ANTHROPIC_API_KEY)
//   openai_chat        Chat Completions: POST {base}/chat/completions, Authorization: Bearer
//                      (base default https://api.openai.com/v1; key from OPENAI_API_KEY)
//   openai_responses   Responses: POST {base}/responses (same base and key as openai_chat)
//   openai_compatible  Chat Completions at a server's base URL (llama.cpp server, Ollama, vLLM:
//                      e.g. http://127.0.0.1:8080/v1); a key only when one is configured
//
//   agentkit::model_client_options o;
//   o.api = agentkit::model_api::anthropic;
//   o.model = "claude-sonnet-4-5";            // sent when the request names no model
//   agentkit::model_client model{o};          // the key is read from ANTHROPIC_API_KEY here
//   auto r = session.run(model, "What is the weather in Oslo?");
//
// model_client is a `provider_aware_model`, a `streaming_model` and a `cancellable_model`
// (session/model.hpp): with streaming on (the default) the session gets each tool call as soon
// as the stream completes it and starts read-only calls before the response ends. Streams are
// read per the provider's documented event format (session/stream.hpp) and assembled into the
// body the provider returns without streaming — usage and cache counts included — so the
// session sees the same thing either way. A stream cut before its end is an error, never a
// shorter answer.
//
// The request's "model": the session always sets it (session_options::model); `model` here
// fills it in only when a request has none, unless override_model is set. Set both to the same
// name, or set override_model.
//
// Errors are the session's provider errors (errc::provider_*, parse_error): a non-2xx status
// becomes provider.rate_limited (429, details.retry_after_s from Retry-After in seconds or as an
// HTTP date), provider.overloaded (529, 503), provider.auth (401, 403), provider.invalid_request
// (400, 404, 413, 422) or provider.error (5xx), with the provider's own message, the status,
// the URL and the provider's request id; an error event inside the stream is the same error
// (details.in_stream); a cut stream and a connection that cannot be made or breaks are
// provider.error (retryable); a timeout is `timeout`, cancellation `cancelled`, no key
// provider.auth before anything is sent. The key never appears in an error: it is sent only in
// its header, and any echo of it in a provider's answer is replaced by "[redacted]".
//
// Retries: agent_session::run already retries retryable errors with backoff and Retry-After
// (run_limits), so max_retries defaults to 0 here — the session counts every attempt. A host
// calling complete() directly sets max_retries to get the same backoff (retry_backoff doubling
// up to max_backoff, or Retry-After when the provider gives one); cancel() ends a pause too.
//
// Cancellation: cancel() (any thread) aborts the request in flight and any retry pause at once;
// options.stop does the same for every request once its source is stopped. agent_session's
// cancel() calls cancel() for the request in flight.
#pragma once

#include <agentkit/session/request.hpp>
#include <agentkit/core/declared_order.hpp>
#include <agentkit/core/error.hpp>
#include <agentkit/core/json.hpp>
#include <agentkit/core/result.hpp>
#include <agentkit/net/http_client.hpp>
#include <agentkit/net/sse.hpp>
#include <agentkit/session/message.hpp>
#include <agentkit/session/model.hpp>
#include <agentkit/session/provider.hpp>
#include <agentkit/session/stream.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <functional>
#include <mutex>
#include <optional>
#include <stop_token>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace agentkit {

/// The HTTP API a model_client speaks.
enum class model_api {
    anthropic,          ///< Anthropic Messages
    openai_chat,        ///< OpenAI Chat Completions
    openai_responses,   ///< OpenAI Responses
    openai_compatible,  ///< Chat Completions at a compatible server's base URL (llama.cpp, Ollama, vLLM)
};

/// "anthropic", "openai_chat", "openai_responses", "openai_compatible".
[[nodiscard]] constexpr std::string_view to_string(model_api a) noexcept {
    switch (a) {
        case model_api::anthropic: return "anthropic";
        case model_api::openai_chat: return "openai_chat";
        case model_api::openai_responses: return "openai_responses";
        case model_api::openai_compatible: return "openai_compatible";
    }
    return "unknown";
}

/// The API named `name` (as to_string spells it), or nullopt.
[[nodiscard]] constexpr std::optional<model_api> model_api_named(std::string_view name) noexcept {
    for (model_api a : {model_api::anthropic, model_api::openai_chat, model_api::openai_responses, model_api::openai_compatible})
        if (to_string(a) == name) return a;
    return std::nullopt;
}

/// The wire format an API speaks (an OpenAI-compatible server speaks Chat Completions).
[[nodiscard]] constexpr provider provider_of(model_api a) noexcept {
    switch (a) {
        case model_api::anthropic: return provider::anthropic;
        case model_api::openai_responses: return provider::openai_responses;
        case model_api::openai_chat:
        case model_api::openai_compatible: return provider::openai_chat;
    }
    return provider::anthropic;
}

/// The environment variable a model_client reads its key from by default ("" for
/// openai_compatible: a local server needs none, and a real key must not go to it unasked).
[[nodiscard]] constexpr std::string_view default_key_env(model_api a) noexcept {
    switch (a) {
        case model_api::anthropic: return "ANTHROPIC_API_KEY";
        case model_api::openai_chat:
        case model_api::openai_responses: return "OPENAI_API_KEY";
        case model_api::openai_compatible: return "";
    }
    return "";
}

/// The base URL an API uses when none is given ("" for openai_compatible: it needs one).
[[nodiscard]] constexpr std::string_view default_base_url(model_api a) noexcept {
    switch (a) {
        case model_api::anthropic: return "https://api.anthropic.com";
        case model_api::openai_chat:
        case model_api::openai_responses: return "https://api.openai.com/v1";
        case model_api::openai_compatible: return "";
    }
    return "";
}

/// How a model_client reaches its model.
struct model_client_options {
    model_api api = model_api::anthropic;  ///< the HTTP API spoken (it picks the endpoint, default key and URL)
    std::string model;             ///< sent as "model" when a request has none (or always: override_model)
    bool override_model = false;   ///< replace the request's "model" with `model`
    std::string base_url;          ///< "" = default_base_url(api); Anthropic's without /v1, OpenAI's with it
    std::optional<std::string> api_key;      ///< the key itself (else read from api_key_env)
    std::optional<std::string> api_key_env;  ///< the variable to read it from; unset: default_key_env(api)
    std::vector<std::pair<std::string, std::string>> headers;  ///< extra headers (OpenAI-Organization, ...)
    bool stream = true;            ///< ask for a streamed response ("stream": true)
    std::chrono::milliseconds timeout{std::chrono::minutes(10)};        ///< one request, whole; 0: no limit
    std::chrono::milliseconds connect_timeout{std::chrono::seconds(10)};  ///< connecting (and TLS); 0: curl's default
    std::chrono::seconds stall_timeout{0};  ///< fail when no byte arrives for this long (a stream sends pings); 0: no limit
    std::size_t max_retries = 0;   ///< retries of a retryable error inside complete() (the session retries on its own)
    std::chrono::milliseconds retry_backoff{1000};  ///< the first pause; doubles each retry unless Retry-After says
    std::chrono::milliseconds max_backoff{30000};   ///< the longest pause
    std::stop_token stop;          ///< once stopped, requests in flight and later ones end with `cancelled`
    std::size_t max_response_bytes = std::size_t{32} << 20U;  ///< a response body, or one stream event
};

/// A real model over HTTP: complete(request) POSTs the body the session built and answers with
/// the provider's response body. Thread-safe: several complete() calls may run at once.
class model_client {
public:
    /// A client for these options: the endpoint from base_url (or the API's default) and the key from api_key or its variable, read now.
    explicit model_client(model_client_options o) : opts_(std::move(o)) {
        std::string base = opts_.base_url.empty() ? std::string(default_base_url(opts_.api)) : opts_.base_url;
        while (!base.empty() && base.back() == '/') base.pop_back();
        if (!base.empty()) {
            switch (opts_.api) {
                case model_api::anthropic: endpoint_ = base + "/v1/messages"; break;
                case model_api::openai_responses: endpoint_ = base + "/responses"; break;
                case model_api::openai_chat:
                case model_api::openai_compatible: endpoint_ = base + "/chat/completions"; break;
            }
        }
        if (opts_.api_key) {
            key_ = *opts_.api_key;
        } else {
            const std::string var = opts_.api_key_env ? *opts_.api_key_env : std::string(default_key_env(opts_.api));
            if (!var.empty())
                if (const char* v = std::getenv(var.c_str())) key_ = v;
        }
        opts_.api_key.reset();  // the key lives in key_ only
    }

    model_client(const model_client&) = delete;
    model_client& operator=(const model_client&) = delete;

    /// The wire format (an OpenAI-compatible server speaks openai_chat).
    [[nodiscard]] agentkit::provider provider() const noexcept { return provider_of(opts_.api); }
    /// The API.
    [[nodiscard]] model_api api() const noexcept { return opts_.api; }
    /// True for an OpenAI-compatible server (set session_options::openai_compat to match).
    [[nodiscard]] bool openai_compat() const noexcept { return opts_.api == model_api::openai_compatible; }
    /// The URL requests go to (without credentials or query when shown: redact_url).
    [[nodiscard]] const std::string& endpoint() const noexcept { return endpoint_; }
    /// True when a key was given or found in the environment.
    [[nodiscard]] bool has_key() const noexcept { return !key_.empty(); }
    /// The options (the key is not kept in them).
    [[nodiscard]] const model_client_options& options() const noexcept { return opts_; }
    /// HTTP requests sent so far (retries included).
    [[nodiscard]] std::size_t round_trips() const noexcept { return round_trips_.load(); }
    /// The provider's request id of the last response ("" when it sent none).
    [[nodiscard]] std::string last_request_id() const {
        std::lock_guard lock(mu_);
        return last_request_id_;
    }

    /// Send `request` (a body built by agent_session::request or build_request) and return the
    /// provider's response body (assembled from the stream when streaming).
    [[nodiscard]] result<json> complete(const json& request) { return complete(request, {}); }

    /// The same; with streaming, `on_tool_call(block)` is called with each tool call as soon as
    /// the stream completes it, in the provider's block format (on this thread).
    [[nodiscard]] result<json> complete(const json& request, const std::function<void(const json& block)>& on_tool_call) {
        return complete(request, on_tool_call, {});
    }

    /// The same; with streaming, `on_delta` also gets every piece as it arrives (the answer's
    /// words, reasoning, tool calls and their arguments, usage: stream_delta), on this thread.
    /// When an attempt that streamed pieces fails and is retried (max_retries), it gets a
    /// `discard` first. Without streaming (options().stream false, or a server that answers with
    /// plain JSON) it gets nothing. To stop mid-answer, cancel().
    [[nodiscard]] result<json> complete(const json& request, const std::function<void(const json& block)>& on_tool_call,
                                        const stream_delta_fn& on_delta) {
        std::uint64_t gen = 0;
        {
            std::lock_guard lock(mu_);
            gen = cancel_gen_;
        }
        const agentkit::provider p = provider();
        if (endpoint_.empty())
            return fail(errc::provider_invalid, std::string(to_string(opts_.api)) + ": no base URL",
                        "Set model_client_options::base_url to the server's API root, e.g. http://127.0.0.1:8080/v1.");
        if (key_.empty() && opts_.api != model_api::openai_compatible) {
            const std::string var = opts_.api_key_env ? *opts_.api_key_env : std::string(default_key_env(opts_.api));
            return fail(errc::provider_auth, std::string(to_string(opts_.api)) + ": no API key",
                        var.empty() ? std::string("Set model_client_options::api_key.")
                                    : "Set " + var + " in the environment (or model_client_options::api_key).",
                        json{{"provider", to_string(p)}, {"status", 0}});
        }
        if (!request.is_object())
            return fail(errc::request_invalid, "model_client: the request is not a JSON object",
                        "Pass the body agent_session::request() builds.");
        const json prepared = prepare(request);
        const std::string body = dump_declared(prepared);

        std::size_t told = 0;  // pieces of the current attempt
        stream_delta_fn counted;
        if (on_delta)
            counted = [&on_delta, &told](const stream_delta& d) {
                ++told;
                on_delta(d);
            };
        for (std::size_t attempt = 0;; ++attempt) {
            told = 0;
            result<json> r = send(prepared, body, on_tool_call, counted);
            if (r) return r;
            error e = std::move(r).error();
            scrub(e);
            const bool retry = is_retryable(e) && attempt < opts_.max_retries;
            if (!retry) return fail(std::move(e));
            if (told > 0) {
                stream_delta d;
                d.what = stream_delta::kind::discard;
                try {
                    on_delta(d);
                } catch (...) {
                }
            }
            std::chrono::milliseconds pause = opts_.retry_backoff * (1LL << std::min<std::size_t>(attempt, 20));
            if (e.details.is_object() && e.details.contains("retry_after_s") && e.details["retry_after_s"].is_number())
                pause = std::chrono::milliseconds(static_cast<long long>(e.details["retry_after_s"].get<double>() * 1000.0));
            pause = std::min(pause, opts_.max_backoff);
            if (!pause_for(pause, gen)) {
                error c(errc::cancelled, std::string(to_string(p)) + ": cancelled while waiting to retry (" + e.message + ")", {},
                        json{{"provider", to_string(p)}, {"by", "cancel"}});
                return fail(std::move(c));
            }
        }
    }

    /// Cancel the requests in flight and the retry pauses now (from any thread): their
    /// complete() returns `cancelled` promptly. Later requests are not affected.
    void cancel() noexcept {
        {
            std::lock_guard lock(mu_);
            ++cancel_gen_;
        }
        cv_.notify_all();
        http_.cancel();
    }

private:
    /// The body to send: the model filled in, streaming asked for (and usage in the stream).
    [[nodiscard]] json prepare(const json& request) const {
        json body = request;
        const json* m = detail::field(body, "model");
        const bool named = m && m->is_string() && !m->get_ref<const std::string&>().empty();
        if (!opts_.model.empty() && (!named || opts_.override_model)) body["model"] = opts_.model;
        if (opts_.stream) {
            body["stream"] = true;
            if (provider() == agentkit::provider::openai_chat) {
                json& so = body["stream_options"];
                if (!so.is_object()) so = json::object();
                so["include_usage"] = true;
            }
        } else {
            body.erase("stream");
            body.erase("stream_options");
        }
        return body;
    }

    /// One HTTP attempt.
    [[nodiscard]] result<json> send(const json& prepared, const std::string& body,
                                    const std::function<void(const json&)>& on_tool_call, const stream_delta_fn& on_delta) {
        const agentkit::provider p = provider();
        const std::string pname(to_string(p));
        const std::string shown = net::redact_url(endpoint_);
        net::client_request rq;
        rq.method = "POST";
        rq.url = endpoint_;
        rq.body = body;
        rq.timeout = opts_.timeout;
        rq.connect_timeout = opts_.connect_timeout;
        rq.stall_timeout = opts_.stall_timeout;
        rq.headers.emplace_back("content-type", "application/json");
        rq.headers.emplace_back("accept", opts_.stream ? "text/event-stream" : "application/json");
        if (p == agentkit::provider::anthropic) {
            rq.headers.emplace_back("x-api-key", key_);
        } else if (!key_.empty()) {
            rq.headers.emplace_back("authorization", "Bearer " + key_);
        }
        for (auto& h : required_headers(p, prepared)) rq.headers.push_back(std::move(h));
        for (const auto& h : opts_.headers) rq.headers.push_back(h);

        // The body: a stream read event by event, or JSON collected (an error body as well).
        stream_assembler assembler(p, on_tool_call ? stream_assembler::tool_call_fn(on_tool_call) : stream_assembler::tool_call_fn{});
        if (on_delta) assembler.on_delta(on_delta);
        net::sse_reader sse(opts_.max_response_bytes);
        std::optional<bool> is_stream;
        std::string collected;
        std::optional<error> stream_failed;
        bool too_large = false;
        std::string request_id;
        auto read_request_id = [&](const net::client_response& head) {
            request_id = head.header(p == agentkit::provider::anthropic ? "request-id" : "x-request-id");
            if (request_id.empty()) request_id = head.header("request-id");
            if (request_id.empty()) request_id = head.header("x-request-id");
        };
        const net::body_sink sink = [&](const net::client_response& head, std::string_view piece) -> bool {
            if (!is_stream) {  // the first piece: the headers are all there
                read_request_id(head);
                is_stream = head.ok() && head.header("content-type").find("text/event-stream") != std::string::npos;
            }
            if (!*is_stream) {
                if (collected.size() + piece.size() > opts_.max_response_bytes) {
                    too_large = true;
                    return false;
                }
                collected.append(piece);
                return true;
            }
            const bool ok = sse.feed(piece, [&](const net::sse_event& ev) {
                auto r = assembler.add(ev.event, ev.data);
                if (!r) stream_failed = std::move(r).error();
                return static_cast<bool>(r);
            });
            if (!ok && !stream_failed)
                stream_failed = error(errc::provider_malformed, pname + ": a stream event is larger than " +
                                                                    std::to_string(opts_.max_response_bytes) + " bytes",
                                      "The provider's stream was not in its documented format.", json{{"provider", pname}});
            return ok;
        };
        round_trips_.fetch_add(1);
        auto r = http_.perform(rq, sink, opts_.stop);
        if (r) read_request_id(*r);
        {
            std::lock_guard lock(mu_);
            last_request_id_ = request_id;
        }
        auto where = [&](error& e, std::string_view prefix) {
            e.message += " (" + std::string(prefix) + shown;
            if (!request_id.empty()) e.message += ", request id " + request_id;
            e.message += ")";
            if (!e.details.is_object()) e.details = json::object();
            e.details["provider"] = pname;
            e.details["url"] = shown;
            if (!request_id.empty()) e.details["request_id"] = request_id;
        };
        if (stream_failed) {  // an error event, or an event that could not be read: the stream was abandoned
            error e = std::move(*stream_failed);
            where(e, "in the response stream from ");
            return fail(std::move(e));
        }
        if (!r) {
            error e = std::move(r).error();
            if (too_large) {
                e = error(errc::provider_malformed, pname + ": the response body is larger than " + std::to_string(opts_.max_response_bytes) + " bytes",
                          "Raise model_client_options::max_response_bytes.", json{{"provider", pname}});
                where(e, "from ");
                return fail(std::move(e));
            }
            if (e.is(errc::cancelled) || e.is(errc::timeout) || e.is(errc::request_invalid) || e.is(errc::internal)) {
                e.message = pname + ": " + e.message;
            } else {  // cannot connect, TLS, a connection that broke: transient
                if (!e.details.is_object()) e.details = json::object();
                e.details["cause"] = e.code;
                e.code = std::string(errc::provider_error);
                e.message = pname + ": " + e.message;
            }
            if (!e.details.is_object()) e.details = json::object();
            e.details["provider"] = pname;
            return fail(std::move(e));
        }
        if (!r->ok()) {
            const std::string ra = r->header("retry-after");
            error e = parse_error(p, r->status, collected, ra.empty() ? std::nullopt : net::parse_retry_after(ra));
            where(e, "HTTP " + std::to_string(r->status) + " from ");
            return fail(std::move(e));
        }
        if (is_stream && *is_stream) {
            auto assembled = assembler.finish();
            if (!assembled) {
                error e = std::move(assembled).error();
                where(e, "from ");
                return fail(std::move(e));
            }
            return assembled;
        }
        json j = json::parse(collected, nullptr, false);
        if (j.is_discarded()) {
            error e(errc::provider_malformed, pname + ": the response body is not JSON",
                    "Check that the base URL is the provider's API root; then retry.",
                    json{{"received", collected.substr(0, 200)}});
            where(e, "from ");
            return fail(std::move(e));
        }
        return j;
    }

    /// Wait `pause` unless cancel() or the stop token ends it first (false then).
    [[nodiscard]] bool pause_for(std::chrono::milliseconds pause, std::uint64_t gen) {
        std::stop_callback wake(opts_.stop, [this] {  // before the lock: it may run at once, and takes it
            std::lock_guard inner(mu_);
            cv_.notify_all();
        });
        std::unique_lock lock(mu_);
        const bool interrupted = cv_.wait_for(lock, pause, [&] { return cancel_gen_ != gen || opts_.stop.stop_requested(); });
        return !interrupted;
    }

    /// The key, wherever a provider echoed it, replaced by "[redacted]".
    void scrub(error& e) const {
        if (key_.empty()) return;
        auto clean = [&](std::string& s) {
            for (std::size_t at = s.find(key_); at != std::string::npos; at = s.find(key_, at)) s.replace(at, key_.size(), "[redacted]");
        };
        clean(e.message);
        clean(e.hint);
        std::function<void(json&)> walk = [&](json& j) {
            if (j.is_string()) clean(j.get_ref<std::string&>());
            else if (j.is_array() || j.is_object())
                for (auto& x : j) walk(x);
        };
        walk(e.details);
    }

    model_client_options opts_;
    std::string endpoint_;
    std::string key_;
    net::http_client http_;
    std::atomic<std::size_t> round_trips_{0};
    mutable std::mutex mu_;
    std::condition_variable cv_;
    std::uint64_t cancel_gen_ = 0;
    std::string last_request_id_;
};

static_assert(provider_aware_model<model_client>);
static_assert(streaming_model<model_client>);
static_assert(cancellable_model<model_client>);

}  // namespace agentkit
