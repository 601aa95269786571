// agentkit/session/stream.hpp — a provider's streamed response, event by event, assembled into
// the body the provider returns without streaming: parse_response() and agent_session::accept()
// take it unchanged.
//
//   agentkit::stream_assembler sa(agentkit::provider::anthropic, [&](const json& block) {
//       session.speculate(agentkit::provider::anthropic, block);   // a tool call is complete
//   });
//   for each Server-Sent Event (net/sse.hpp reads them):
//       if (auto r = sa.add(event.event, event.data); !r) -> r.error() (an error event, bad data)
//   auto body = sa.finish();   // the assembled body, or provider.error when the stream was cut
//
// sa.on_delta(fn) also hands `fn` every piece as it arrives (stream_delta: the answer's words,
// reasoning, tool calls as they begin and their arguments, usage): what a chat UI shows while
// the model writes. model_client and agent_session (session_options::on_delta) pass it on.
//
// The documented stream formats:
//   anthropic         message_start (a Message with empty content), per content block
//                     content_block_start / content_block_delta (text_delta, input_json_delta,
//                     thinking_delta, signature_delta, citations_delta) / content_block_stop,
//                     message_delta (stop_reason, stop_sequence, usage), message_stop; ping;
//                     error events ({"type":"error","error":{...}}). Usage: message_start's
//                     (input and cache tokens) updated by every message_delta's.
//   openai_chat       chat.completion.chunk objects: choices[].delta.content / .refusal /
//                     .tool_calls[] (by index: id, function.name, function.arguments pieces),
//                     finish_reason; the usage chunk (empty choices; stream_options.include_usage)
//                     before `data: [DONE]`. A chunk {"error":{...}} is an error.
//   openai_responses  response.created, response.output_item.added, response.content_part.added,
//                     response.output_text.delta, response.function_call_arguments.delta/.done,
//                     response.output_item.done, and a terminal response.completed or
//                     response.incomplete whose `response` is the whole final object;
//                     response.failed and error events are errors.
//
// The stream's end: anthropic message_stop; openai_responses response.completed/incomplete;
// openai_chat `[DONE]`, or (for compatible servers that omit it) a finish_reason followed by
// the end of the body. finish() before that is a retryable provider.error: a cut stream is
// never passed off as a short answer.
//
// The tool-call callback gets each tool call as soon as it is complete, in the provider's own
// block format (what agent_session::speculate(provider, block) takes): an Anthropic tool_use
// block (input parsed), a Chat Completions tool_calls[] entry (id, type, function{name,
// arguments}; complete when the next call starts or the choice finishes), a Responses
// function_call item (at response.output_item.done). It runs on the thread that calls add();
// an exception from it is swallowed.
#pragma once

#include <agentkit/session/message.hpp>
#include <agentkit/core/error.hpp>
#include <agentkit/core/json.hpp>
#include <agentkit/core/result.hpp>
#include <agentkit/session/provider.hpp>
#include <agentkit/core/strings.hpp>

#include <cstddef>
#include <exception>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace agentkit {

/// One piece of a streamed response as it arrives (stream_assembler::on_delta): what a chat UI
/// shows while the model writes. Only the first choice of a Chat Completions stream is told.
struct stream_delta {
    /// What the piece is.
    enum class kind {
        text,            ///< words of the answer, in `text`
        refusal,         ///< words of a refusal (OpenAI), in `text`
        thinking,        ///< reasoning the provider streams (Anthropic thinking, reasoning_content, reasoning summaries), in `text`
        tool_call,       ///< a tool call begins: its `id` and `name`
        tool_arguments,  ///< a piece of a tool call's JSON arguments, in `text`
        usage,           ///< token counts so far, in `usage` (the provider's own object)
        discard,         ///< the attempt failed and is retried: everything streamed since the last discard is void
    };
    kind what = kind::text;  ///< what the piece is
    /// The block (Anthropic), tool call (Chat Completions) or output item (Responses) it belongs to.
    std::size_t index = 0;
    std::string text;  ///< text, refusal, thinking, tool_arguments
    std::string id;    ///< tool_call: the call's id
    std::string name;  ///< tool_call: the tool's name
    json usage;        ///< usage
};

/// "text", "refusal", "thinking", "tool_call", "tool_arguments", "usage", "discard".
[[nodiscard]] constexpr std::string_view to_string(stream_delta::kind k) noexcept {
    switch (k) {
        case stream_delta::kind::text: return "text";
        case stream_delta::kind::refusal: return "refusal";
        case stream_delta::kind::thinking: return "thinking";
        case stream_delta::kind::tool_call: return "tool_call";
        case stream_delta::kind::tool_arguments: return "tool_arguments";
        case stream_delta::kind::usage: return "usage";
        case stream_delta::kind::discard: return "discard";
    }
    return "unknown";
}

/// Receives each stream_delta as it arrives (on the thread reading the stream).
using stream_delta_fn = std::function<void(const stream_delta&)>;

/// Assembles one streamed response of provider `p`. One object per response.
class stream_assembler {
public:
    /// Called with each tool call as soon as it is complete, in the provider's block format.
    using tool_call_fn = std::function<void(const json& block)>;

    /// Also hand every piece to `fn` as it arrives (words, reasoning, tool calls and their
    /// arguments, usage); it runs inside add(), and an exception from it is swallowed.
    void on_delta(stream_delta_fn fn) { on_delta_ = std::move(fn); }
    /// Pieces handed to on_delta's function so far.
    [[nodiscard]] std::size_t deltas() const noexcept { return deltas_; }

    /// An assembler for a stream of provider `p`, handing each complete tool call to `on_tool_call` (when set).
    explicit stream_assembler(agentkit::provider p, tool_call_fn on_tool_call = {})
        : provider_(p), on_tool_call_(std::move(on_tool_call)) {}

    /// One event: its SSE `event:` name ("" or "message" when it had none) and its `data:`
    /// text. An error event, or data that is not what the format says, is an error; the stream
    /// should be abandoned then (every later add() repeats the error).
    [[nodiscard]] result<void> add(std::string_view event, std::string_view data) {
        if (failed_) return fail(*failed_);
        ++events_;
        try {
            auto r = dispatch(event, data);
            if (!r) failed_ = r.error();
            return r;
        } catch (const std::exception& ex) {  // a JSON value of an unexpected type, out of memory
            failed_ = error(errc::provider_malformed,
                            std::string(to_string(provider_)) + ": an event of the response stream could not be read: " + ex.what(),
                            "The provider's stream was not in its documented format; retry.",
                            json{{"provider", to_string(provider_)}, {"in_stream", true}, {"event", std::string(event)}});
            return fail(*failed_);
        }
    }

    /// True once the stream's terminal event arrived.
    [[nodiscard]] bool done() const noexcept { return done_; }
    /// Events added so far.
    [[nodiscard]] std::size_t events() const noexcept { return events_; }
    /// Tool calls handed to the callback so far.
    [[nodiscard]] std::size_t tool_calls_announced() const noexcept { return announced_; }

    /// The assembled body, in the provider's non-streamed format. Call it when the stream
    /// ended; before its terminal event that is a retryable provider.error (details.cut).
    [[nodiscard]] result<json> finish() {
        if (failed_) return fail(*failed_);
        try {
            switch (provider_) {
                case provider::anthropic: return finish_anthropic();
                case provider::openai_chat: return finish_chat();
                case provider::openai_responses: return finish_responses();
            }
        } catch (const std::exception& ex) {
            return fail(errc::provider_malformed,
                        std::string(to_string(provider_)) + ": the response stream could not be assembled: " + ex.what(),
                        "The provider's stream was not in its documented format; retry.");
        }
        return fail(errc::internal, "unknown provider");
    }

private:
    // ---- common ------------------------------------------------------------------------
    [[nodiscard]] error cut_error(std::string_view expected) const {
        return error(errc::provider_error,
                     std::string(to_string(provider_)) + ": the response stream ended before its end (" + std::string(expected) +
                         ") after " + count_noun(events_, "event"),
                     "The connection was cut mid-answer; retry the request.",
                     json{{"provider", to_string(provider_)}, {"in_stream", true}, {"cut", true}, {"events", events_}});
    }
    /// An error the provider reported inside the stream, as the same structured error an HTTP
    /// error body gives (parse_error), marked in_stream.
    [[nodiscard]] error stream_error(const json& envelope) const {
        error e = parse_error(provider_, 0, envelope.dump());
        if (e.is(errc::provider_malformed)) e.code = std::string(errc::provider_error);  // an error without a type: transient
        if (e.hint.empty()) e.hint = "The provider reported an error mid-answer; retry.";
        if (!e.details.is_object()) e.details = json::object();
        e.details["in_stream"] = true;
        return e;
    }
    [[nodiscard]] static result<json> parse_data(provider p, std::string_view data) {
        json j = json::parse(data, nullptr, false);
        if (j.is_discarded() || !j.is_object())
            return fail(errc::provider_malformed, std::string(to_string(p)) + ": a stream event's data is not a JSON object",
                        "The provider's stream was not in its documented format; retry.",
                        json{{"provider", to_string(p)}, {"in_stream", true},
                             {"received", std::string(data.substr(0, data.size() < 200 ? data.size() : 200))}});
        return j;
    }
    void announce(const json& block) {
        ++announced_;
        if (!on_tool_call_) return;
        try {
            on_tool_call_(block);
        } catch (...) {
        }
    }
    void tell(stream_delta::kind k, std::size_t index, std::string_view text, std::string id = {}, std::string name = {}) {
        if (!on_delta_) return;
        if (text.empty() && (k == stream_delta::kind::text || k == stream_delta::kind::refusal || k == stream_delta::kind::thinking ||
                             k == stream_delta::kind::tool_arguments))
            return;
        stream_delta d;
        d.what = k;
        d.index = index;
        d.text = std::string(text);
        d.id = std::move(id);
        d.name = std::move(name);
        deliver(d);
    }
    void tell_usage(std::size_t index, const json& usage) {
        if (!on_delta_ || !usage.is_object() || usage.empty()) return;
        stream_delta d;
        d.what = stream_delta::kind::usage;
        d.index = index;
        d.usage = usage;
        deliver(d);
    }
    void deliver(const stream_delta& d) {
        ++deltas_;
        try {
            on_delta_(d);
        } catch (...) {
        }
    }
    [[nodiscard]] static std::size_t index_of(const json& j, std::string_view key) {
        const json* f = detail::field(j, key);
        if (f && f->is_number_unsigned()) return f->get<std::size_t>();
        if (f && f->is_number_integer() && f->get<long long>() >= 0) return static_cast<std::size_t>(f->get<long long>());
        return static_cast<std::size_t>(-1);
    }
    static void append_string(json& obj, const char* key, std::string_view piece) {
        json& v = obj[key];
        if (!v.is_string()) v = std::string();
        v.get_ref<std::string&>().append(piece);
    }

    [[nodiscard]] result<void> dispatch(std::string_view event, std::string_view data) {
        if (provider_ == provider::openai_chat) return add_chat(data);
        auto j = parse_data(provider_, data);
        if (!j) return fail(j.error());
        std::string type = detail::str_field(*j, "type");
        if (type.empty()) type = std::string(event);
        if (provider_ == provider::anthropic) return add_anthropic(type, *j);
        return add_responses(type, *j);
    }

    // ---- Anthropic Messages ------------------------------------------------------------
    struct anthropic_block {
        json block;
        std::string partial_json;
        bool has_partial = false;
    };

    [[nodiscard]] result<void> add_anthropic(const std::string& type, const json& j) {
        if (type == "ping") return {};
        if (type == "error") return fail(stream_error(j));
        if (type == "message_start") {
            message_ = detail::obj_field(j, "message");
            message_["content"] = json::array();
            started_ = true;
            tell_usage(0, detail::obj_field(message_, "usage"));
            return {};
        }
        if (type == "content_block_start") {
            const std::size_t i = index_of(j, "index");
            const json* cb = detail::field(j, "content_block");
            if (i == static_cast<std::size_t>(-1) || i > 4096 || !cb || !cb->is_object())
                return fail(malformed("content_block_start without an index or a content_block"));
            if (blocks_.size() <= i) blocks_.resize(i + 1);
            blocks_[i] = anthropic_block{*cb, {}, false};
            const std::string bt = detail::str_field(*cb, "type");
            if (bt == "tool_use") tell(stream_delta::kind::tool_call, i, {}, detail::str_field(*cb, "id"), detail::str_field(*cb, "name"));
            if (bt == "text") tell(stream_delta::kind::text, i, detail::str_field(*cb, "text"));
            return {};
        }
        if (type == "content_block_delta") {
            const std::size_t i = index_of(j, "index");
            if (i >= blocks_.size() || blocks_[i].block.is_null())
                return fail(malformed("content_block_delta for a block that did not start"));
            auto& b = blocks_[i];
            const json& d = detail::obj_field(j, "delta");
            const std::string dt = detail::str_field(d, "type");
            if (dt == "text_delta") {
                const std::string t = detail::str_field(d, "text");
                append_string(b.block, "text", t);
                tell(stream_delta::kind::text, i, t);
            } else if (dt == "input_json_delta") {
                const std::string t = detail::str_field(d, "partial_json");
                b.partial_json += t;
                b.has_partial = true;
                tell(stream_delta::kind::tool_arguments, i, t);
            } else if (dt == "thinking_delta") {
                const std::string t = detail::str_field(d, "thinking");
                append_string(b.block, "thinking", t);
                tell(stream_delta::kind::thinking, i, t);
            } else if (dt == "signature_delta") {
                append_string(b.block, "signature", detail::str_field(d, "signature"));
            } else if (dt == "citations_delta") {
                json& c = b.block["citations"];
                if (!c.is_array()) c = json::array();
                if (const json* cit = detail::field(d, "citation")) c.push_back(*cit);
            }
            return {};  // other delta types: newer than this reader, nothing to assemble
        }
        if (type == "content_block_stop") {
            const std::size_t i = index_of(j, "index");
            if (i >= blocks_.size() || blocks_[i].block.is_null())
                return fail(malformed("content_block_stop for a block that did not start"));
            auto& b = blocks_[i];
            if (b.has_partial) {
                bool blank = true;
                for (char c : b.partial_json)
                    if (c != ' ' && c != '\n' && c != '\t' && c != '\r') blank = false;
                json input = blank ? json::object() : json::parse(b.partial_json, nullptr, false);
                // input that is not JSON stays text: parse_response makes it a malformed call the
                // model is told about, as it would be without streaming
                b.block["input"] = input.is_discarded() ? json(b.partial_json) : std::move(input);
                b.has_partial = false;
            }
            if (detail::str_field(b.block, "type") == "tool_use") announce(b.block);
            return {};
        }
        if (type == "message_delta") {
            const json& d = detail::obj_field(j, "delta");
            for (auto it = d.begin(); it != d.end(); ++it) message_[it.key()] = it.value();
            const json& u = detail::obj_field(j, "usage");
            if (!u.empty()) {
                json& mu = message_["usage"];
                if (!mu.is_object()) mu = json::object();
                for (auto it = u.begin(); it != u.end(); ++it)
                    if (!it.value().is_null()) mu[it.key()] = it.value();
                tell_usage(0, mu);
            }
            return {};
        }
        if (type == "message_stop") {
            done_ = true;
            return {};
        }
        return {};  // events newer than this reader are ignored, as the API's versioning policy asks
    }

    [[nodiscard]] result<json> finish_anthropic() {
        if (!done_) return fail(cut_error("message_stop"));
        if (!started_) return fail(malformed("the stream had no message_start"));
        json body = message_;
        json content = json::array();
        for (auto& b : blocks_)
            if (!b.block.is_null()) content.push_back(b.block);
        body["content"] = std::move(content);
        return body;
    }

    // ---- OpenAI Chat Completions ---------------------------------------------------------
    struct chat_call {
        std::string id;
        std::string type = "function";
        std::string name;
        std::string arguments;
        bool announced = false;
    };
    struct chat_choice {
        std::string content;
        bool has_content = false;
        std::string refusal;
        bool has_refusal = false;
        std::string reasoning;  ///< reasoning_content of compatible servers (DeepSeek, llama.cpp)
        std::map<std::size_t, chat_call> calls;
        std::string finish_reason;
    };

    [[nodiscard]] json chat_call_block(const chat_call& c) const {
        return json{{"id", c.id}, {"type", c.type}, {"function", {{"name", c.name}, {"arguments", c.arguments}}}};
    }
    /// Announce the calls of choice 0 before index `below` (every call when nullopt).
    void announce_chat(std::optional<std::size_t> below) {
        auto it = choices_.find(0);
        if (it == choices_.end()) return;
        for (auto& [idx, c] : it->second.calls) {
            if (below && idx >= *below) break;
            if (c.announced || c.id.empty() || c.name.empty()) continue;
            c.announced = true;
            announce(chat_call_block(c));
        }
    }

    [[nodiscard]] result<void> add_chat(std::string_view data) {
        std::string_view d = data;
        while (!d.empty() && (d.back() == ' ' || d.back() == '\r' || d.back() == '\n')) d.remove_suffix(1);
        if (d == "[DONE]") {
            announce_chat(std::nullopt);
            done_ = true;
            return {};
        }
        auto parsed = parse_data(provider_, data);
        if (!parsed) return fail(parsed.error());
        const json& j = *parsed;
        if (const json* e = detail::field(j, "error"); e && !e->is_null()) return fail(stream_error(j));
        started_ = true;
        for (const char* k : {"id", "model", "created", "system_fingerprint", "service_tier"})
            if (const json* f = detail::field(j, k); f && !f->is_null() && !head_.contains(k)) head_[k] = *f;
        if (const json* u = detail::field(j, "usage"); u && u->is_object()) {
            usage_ = *u;
            tell_usage(0, usage_);
        }
        const json* choices = detail::field(j, "choices");
        if (!choices || !choices->is_array()) return {};
        for (const auto& ch : *choices) {
            std::size_t ci = index_of(ch, "index");
            if (ci == static_cast<std::size_t>(-1)) ci = 0;
            if (ci > 128) return fail(malformed("a choice index beyond 128"));
            chat_choice& c = choices_[ci];
            const json& delta = detail::obj_field(ch, "delta");
            const bool told = ci == 0;  // the choice the session reads
            if (const json* t = detail::field(delta, "content"); t && t->is_string()) {
                c.content += t->get_ref<const std::string&>();
                c.has_content = true;
                if (told) tell(stream_delta::kind::text, 0, t->get_ref<const std::string&>());
            }
            if (const json* t = detail::field(delta, "refusal"); t && t->is_string()) {
                c.refusal += t->get_ref<const std::string&>();
                c.has_refusal = true;
                if (told) tell(stream_delta::kind::refusal, 0, t->get_ref<const std::string&>());
            }
            if (const json* t = detail::field(delta, "reasoning_content"); t && t->is_string()) {
                c.reasoning += t->get_ref<const std::string&>();
                if (told) tell(stream_delta::kind::thinking, 0, t->get_ref<const std::string&>());
            }
            if (const json* tcs = detail::field(delta, "tool_calls"); tcs && tcs->is_array()) {
                for (const auto& tc : *tcs) {
                    std::size_t ti = index_of(tc, "index");
                    if (ti == static_cast<std::size_t>(-1)) ti = c.calls.empty() ? 0 : c.calls.rbegin()->first;
                    if (ti > 1024) return fail(malformed("a tool call index beyond 1024"));
                    const bool fresh = c.calls.find(ti) == c.calls.end();
                    // calls stream one after another: a new index means the ones before it are complete
                    if (fresh && ci == 0) announce_chat(ti);
                    chat_call& call = c.calls[ti];
                    if (const std::string id = detail::str_field(tc, "id"); !id.empty() && call.id.empty()) call.id = id;
                    if (const std::string ty = detail::str_field(tc, "type"); !ty.empty()) call.type = ty;
                    const json& fn = detail::obj_field(tc, "function");
                    if (const std::string n = detail::str_field(fn, "name"); !n.empty() && call.name.empty()) {
                        call.name = n;
                        if (told) tell(stream_delta::kind::tool_call, ti, {}, call.id, call.name);
                    }
                    std::string piece;
                    if (const json* a = detail::field(fn, "arguments"); a && a->is_string())
                        piece = a->get_ref<const std::string&>();
                    else if (a && a->is_object())
                        piece = a->dump();  // some compatible servers send an object
                    call.arguments += piece;
                    if (told) tell(stream_delta::kind::tool_arguments, ti, piece);
                }
            }
            if (const json* fr = detail::field(ch, "finish_reason"); fr && fr->is_string() && !fr->get_ref<const std::string&>().empty()) {
                c.finish_reason = fr->get<std::string>();
                if (ci == 0) announce_chat(std::nullopt);
            }
        }
        return {};
    }

    [[nodiscard]] result<json> finish_chat() {
        const auto first = choices_.find(0);
        const bool finished = first != choices_.end() && !first->second.finish_reason.empty();
        if (!done_ && !finished) return fail(cut_error("data: [DONE]"));
        if (!started_) return fail(malformed("the stream had no chat.completion.chunk"));
        announce_chat(std::nullopt);
        json body = head_;
        body["object"] = "chat.completion";
        json choices = json::array();
        for (const auto& [ci, c] : choices_) {
            json msg{{"role", "assistant"}, {"content", c.has_content ? json(c.content) : json(nullptr)}};
            if (c.has_refusal) msg["refusal"] = c.refusal;
            if (!c.reasoning.empty()) msg["reasoning_content"] = c.reasoning;
            if (!c.calls.empty()) {
                json calls = json::array();
                for (const auto& [ti, call] : c.calls) calls.push_back(chat_call_block(call));
                msg["tool_calls"] = std::move(calls);
            }
            choices.push_back(json{{"index", ci},
                                   {"message", std::move(msg)},
                                   {"finish_reason", c.finish_reason.empty() ? json(nullptr) : json(c.finish_reason)}});
        }
        body["choices"] = std::move(choices);
        if (!usage_.is_null()) body["usage"] = usage_;
        return body;
    }

    // ---- OpenAI Responses --------------------------------------------------------------
    /// The output item an event refers to: by output_index, else by item_id; `at` gets its index.
    [[nodiscard]] json* item_for(const json& j, std::size_t* at = nullptr) {
        const std::size_t oi = index_of(j, "output_index");
        if (oi != static_cast<std::size_t>(-1)) {
            auto it = items_.find(oi);
            if (it == items_.end()) return nullptr;
            if (at != nullptr) *at = oi;
            return &it->second;
        }
        const std::string id = detail::str_field(j, "item_id");
        for (auto& [k, item] : items_)
            if (!id.empty() && detail::str_field(item, "id") == id) {
                if (at != nullptr) *at = k;
                return &item;
            }
        return nullptr;
    }
    [[nodiscard]] static json& part_at(json& item, std::size_t ci, const char* type) {
        json& content = item["content"];
        if (!content.is_array()) content = json::array();
        while (content.size() <= ci) content.push_back(json{{"type", type}, {"text", ""}, {"annotations", json::array()}});
        return content[ci];
    }

    [[nodiscard]] result<void> add_responses(const std::string& type, const json& j) {
        if (type == "error") {
            if (const json* e = detail::field(j, "error"); e && e->is_object()) return fail(stream_error(json{{"error", *e}}));
            const std::string code = detail::str_field(j, "code");
            return fail(stream_error(json{{"error", {{"type", code}, {"code", code}, {"message", detail::str_field(j, "message")}}}}));
        }
        if (type == "response.failed") {
            const json& r = detail::obj_field(j, "response");
            const json& e = detail::obj_field(r, "error");
            const std::string code = detail::str_field(e, "code");
            std::string msg = detail::str_field(e, "message");
            if (msg.empty()) msg = "the response failed";
            return fail(stream_error(json{{"error", {{"type", code}, {"code", code}, {"message", msg}}}}));
        }
        if (type == "response.created" || type == "response.in_progress" || type == "response.queued") {
            if (const json* r = detail::field(j, "response"); r && r->is_object()) head_ = *r;
            started_ = true;
            return {};
        }
        if (type == "response.completed" || type == "response.incomplete") {
            const json* r = detail::field(j, "response");
            if (!r || !r->is_object()) return fail(malformed(type + " without its response object"));
            final_ = *r;
            done_ = true;
            tell_usage(0, detail::obj_field(final_, "usage"));
            return {};
        }
        if (type == "response.output_item.added" || type == "response.output_item.done") {
            const std::size_t oi = index_of(j, "output_index");
            const json* item = detail::field(j, "item");
            if (oi == static_cast<std::size_t>(-1) || oi > 4096 || !item || !item->is_object())
                return fail(malformed(type + " without an output_index or an item"));
            items_[oi] = *item;
            const bool call = detail::str_field(*item, "type") == "function_call";
            if (type == "response.output_item.added" && call)
                tell(stream_delta::kind::tool_call, oi, {}, detail::str_field(*item, "call_id"), detail::str_field(*item, "name"));
            if (type == "response.output_item.done" && call) announce(*item);
            return {};
        }
        if (type == "response.content_part.added" || type == "response.content_part.done") {
            json* item = item_for(j);
            const json* part = detail::field(j, "part");
            const std::size_t ci = index_of(j, "content_index");
            if (item && part && part->is_object() && ci <= 4096) part_at(*item, ci, "output_text") = *part;
            return {};
        }
        if (type == "response.output_text.delta" || type == "response.refusal.delta") {
            std::size_t oi = 0;
            json* item = item_for(j, &oi);
            if (!item) return fail(malformed(type + " for an item that was not added"));
            std::size_t ci = index_of(j, "content_index");
            if (ci > 4096) ci = 0;
            const bool refusal = type == "response.refusal.delta";
            json& part = part_at(*item, ci, refusal ? "refusal" : "output_text");
            const std::string piece = detail::str_field(j, "delta");
            append_string(part, refusal ? "refusal" : "text", piece);
            tell(refusal ? stream_delta::kind::refusal : stream_delta::kind::text, oi, piece);
            return {};
        }
        if (type == "response.function_call_arguments.delta") {
            std::size_t oi = 0;
            json* item = item_for(j, &oi);
            if (!item) return fail(malformed(type + " for an item that was not added"));
            const std::string piece = detail::str_field(j, "delta");
            append_string(*item, "arguments", piece);
            tell(stream_delta::kind::tool_arguments, oi, piece);
            return {};
        }
        if (type == "response.reasoning_summary_text.delta") {  // the final object has the summary; shown as it comes
            std::size_t oi = 0;
            (void)item_for(j, &oi);
            tell(stream_delta::kind::thinking, oi, detail::str_field(j, "delta"));
            return {};
        }
        if (type == "response.function_call_arguments.done") {
            json* item = item_for(j);
            if (!item) return fail(malformed(type + " for an item that was not added"));
            if (const json* a = detail::field(j, "arguments"); a && a->is_string()) (*item)["arguments"] = *a;
            return {};
        }
        return {};  // reasoning summaries, annotations, web search progress: the final object has them
    }

    [[nodiscard]] result<json> finish_responses() {
        if (!done_) return fail(cut_error("response.completed"));
        json body = final_;
        const json* out = detail::field(body, "output");
        if ((!out || !out->is_array() || out->empty()) && !items_.empty()) {
            json output = json::array();
            for (auto& [oi, item] : items_) output.push_back(item);
            body["output"] = std::move(output);
        }
        if (!body.contains("status")) body["status"] = "completed";
        return body;
    }

    [[nodiscard]] error malformed(const std::string& what) const {
        return error(errc::provider_malformed, std::string(to_string(provider_)) + ": response stream: " + what,
                     "The provider's stream was not in its documented format; retry.",
                     json{{"provider", to_string(provider_)}, {"in_stream", true}});
    }

    agentkit::provider provider_;
    tool_call_fn on_tool_call_;
    stream_delta_fn on_delta_;
    std::size_t deltas_ = 0;
    std::size_t events_ = 0;
    std::size_t announced_ = 0;
    bool done_ = false;
    bool started_ = false;
    std::optional<error> failed_;
    // anthropic
    json message_ = json::object();
    std::vector<anthropic_block> blocks_;
    // openai_chat
    json head_ = json::object();
    json usage_;
    std::map<std::size_t, chat_choice> choices_;
    // openai_responses (head_ is the last response snapshot)
    std::map<std::size_t, json> items_;
    json final_ = json::object();
};

}  // namespace agentkit
