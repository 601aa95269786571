// agentkit/core/spans.hpp — the events of core/observer.hpp as trace spans shaped like
// OpenTelemetry's, with no OpenTelemetry dependency (Debian 12 packages no opentelemetry-cpp).
//
//   agentkit::span_recorder trace;                    // keeps finished spans (or hands them on)
//   agentkit::session_options o;
//   o.on_event = trace.observer();
//   ... run the session ...
//   std::string body = trace.to_otlp_json("my-agent").dump();   // POST to a collector's /v1/traces
//
// A started event and the event that ends it (core/observer.hpp) make one span; a cdp_command is a
// span of its own (its start is its end less its duration). The span's parent is the span of the
// event's `parent`; a span without one starts a new trace (a run is one trace: its model requests,
// its tool calls, the MCP requests those tools made). Events that end nothing (retry,
// masker_changed, artifact_stored, request_blocked, browser_disconnected, browser_started,
// browser_closed) become span events of their parent's span.
// Names and attributes follow OpenTelemetry's GenAI and MCP semantic conventions (development
// status): "invoke_agent", "chat <model>", "execute_tool <tool>" with gen_ai.* attributes,
// "<method> <target>" with mcp.method.name for MCP requests.
//
// Thread safety: observer() may be called from any thread, concurrently; so may the accessors.
#pragma once

#include <agentkit/core/json.hpp>
#include <agentkit/core/observer.hpp>
#include <agentkit/core/random.hpp>
#include <agentkit/version.hpp>

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <deque>
#include <functional>
#include <iterator>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace agentkit {

/// A finished span.
struct span {
    std::string trace_id;        ///< 32 lower-case hex digits
    std::string span_id;         ///< 16 lower-case hex digits
    std::string parent_span_id;  ///< "" for a trace's root
    std::string name;            ///< "invoke_agent", "chat <model>", "execute_tool <tool>", "tools/call <tool>", a CDP method
    /// OTLP's SpanKind: work inside the process, a request served, a request made.
    enum class kind_t : unsigned char { internal = 1, server = 2, client = 3 };
    kind_t kind = kind_t::internal;  ///< which of them
    std::uint64_t start_unix_nano = 0;  ///< when it began
    std::uint64_t end_unix_nano = 0;    ///< when it ended
    json attributes = json::object();   ///< name → string, number or bool
    /// Point events inside it: {"name", "time_unix_nano", "attributes"}.
    json events = json::array();
    bool error = false;          ///< status ERROR (else UNSET)
    std::string status_message;  ///< the failure's code and message
};

/// Turns events into spans (see the file comment).
class span_recorder {
public:
    /// How spans are kept or handed on.
    struct options {
        /// Called with each finished span, on the reporting thread; unset: spans are kept.
        std::function<void(const span&)> on_span;
        std::size_t max_kept = 10000;  ///< kept spans beyond this drop the oldest
        /// Spans started and not ended beyond this drop the oldest (a request a client abandoned
        /// may never end); dropped() counts them.
        std::size_t max_open = 10000;
        bool cdp_commands = true;      ///< make spans of CDP commands (a page's work is hundreds of them)
    };

    /// A recorder keeping the spans (options' defaults).
    span_recorder() : span_recorder(options{}) {}
    /// A recorder with options `o`.
    explicit span_recorder(options o) : st_(std::make_shared<state>()) {
        st_->o = std::move(o);
        if (!random_bytes(&st_->salt, sizeof st_->salt) || st_->salt == 0)
            st_->salt = static_cast<std::uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count()) | 1U;
    }

    /// The observer to set as a part's on_event (it holds the recorder's state: it may outlive
    /// the recorder).
    [[nodiscard]] agentkit::observer observer() const {
        return [st = st_](const event& e) { st->take(e); };
    }

    /// The spans kept so far, oldest first.
    [[nodiscard]] std::vector<span> spans() const {
        std::lock_guard lock(st_->mu);
        return {st_->done.begin(), st_->done.end()};
    }
    /// The spans kept so far, removed from the recorder.
    [[nodiscard]] std::vector<span> take() {
        std::lock_guard lock(st_->mu);
        std::vector<span> out(std::make_move_iterator(st_->done.begin()), std::make_move_iterator(st_->done.end()));
        st_->done.clear();
        return out;
    }
    /// Spans started and not yet ended.
    [[nodiscard]] std::size_t open() const {
        std::lock_guard lock(st_->mu);
        return st_->open.size();
    }
    /// Spans dropped unended (options::max_open).
    [[nodiscard]] std::size_t dropped() const {
        std::lock_guard lock(st_->mu);
        return st_->dropped;
    }

    /// `spans` as an OTLP/JSON ExportTraceServiceRequest (the body of POST /v1/traces).
    [[nodiscard]] static json to_otlp_json(const std::vector<span>& spans, std::string_view service_name) {
        json out = json::array();
        for (const auto& s : spans) {
            json j{{"traceId", s.trace_id},
                   {"spanId", s.span_id},
                   {"name", s.name},
                   {"kind", static_cast<int>(s.kind)},
                   {"startTimeUnixNano", std::to_string(s.start_unix_nano)},
                   {"endTimeUnixNano", std::to_string(s.end_unix_nano)},
                   {"attributes", otlp_attributes(s.attributes)},
                   {"status", s.error ? json{{"code", 2}, {"message", s.status_message}} : json::object()}};
            if (!s.parent_span_id.empty()) j["parentSpanId"] = s.parent_span_id;
            if (!s.events.empty()) {
                json evs = json::array();
                for (const auto& ev : s.events)
                    evs.push_back(json{{"name", ev.value("name", "")},
                                       {"timeUnixNano", std::to_string(ev.value("time_unix_nano", std::uint64_t{0}))},
                                       {"attributes", otlp_attributes(ev.value("attributes", json::object()))}});
                j["events"] = std::move(evs);
            }
            out.push_back(std::move(j));
        }
        return json{{"resourceSpans",
                     json::array({json{{"resource", {{"attributes", otlp_attributes(json{{"service.name", std::string(service_name)}})}}},
                                       {"scopeSpans", json::array({json{{"scope", {{"name", "agentkit"}, {"version", agentkit::version.string}}},
                                                                        {"spans", std::move(out)}}})}}})}};
    }
    /// The kept spans as OTLP/JSON.
    [[nodiscard]] json to_otlp_json(std::string_view service_name) const { return to_otlp_json(spans(), service_name); }

private:
    struct open_span {
        span s;
        std::uint64_t started_ns = 0;
    };
    struct state {
        options o;
        std::uint64_t salt = 0;
        mutable std::mutex mu;
        std::map<std::uint64_t, open_span> open;                 // by event id
        std::map<std::uint64_t, std::string> trace_of_closed;   // parents already ended (cdp after a tool)
        std::deque<span> done;
        std::size_t dropped = 0;

        [[nodiscard]] std::string span_id(std::uint64_t id) const {
            std::uint64_t z = (id ^ salt) + 0x9e3779b97f4a7c15ULL;  // splitmix64: distinct ids, distinct spans
            z = (z ^ (z >> 30U)) * 0xbf58476d1ce4e5b9ULL;
            z = (z ^ (z >> 27U)) * 0x94d049bb133111ebULL;
            z ^= z >> 31U;
            if (z == 0) z = 1;
            char buf[17];
            std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(z));
            return buf;
        }
        [[nodiscard]] std::string trace_for(std::uint64_t parent) const {
            if (parent != 0) {
                if (auto it = open.find(parent); it != open.end()) return it->second.s.trace_id;
                if (auto it = trace_of_closed.find(parent); it != trace_of_closed.end()) return it->second;
            }
            std::string t = random_hex(16);
            if (t.empty()) t = span_id(salt + parent + 1) + span_id(static_cast<std::uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count()));
            return t;
        }

        void take(const event& e) {
            const auto ns = static_cast<std::uint64_t>(
                std::chrono::duration_cast<std::chrono::nanoseconds>(e.at.time_since_epoch()).count());
            std::optional<span> finished;
            {
                std::lock_guard lock(mu);
                if (!ends_span(e.kind) && !starts(e.kind)) {
                    point(e, ns);
                    return;
                }
                if (starts(e.kind)) {
                    open_span os;
                    os.s.trace_id = trace_for(e.parent);
                    os.s.span_id = span_id(e.id);
                    if (e.parent != 0) os.s.parent_span_id = span_id(e.parent);
                    os.s.start_unix_nano = ns;
                    describe_start(e, os.s);
                    os.started_ns = ns;
                    open[e.id] = std::move(os);
                    if (open.size() > o.max_open) {  // ids grow: the first is the oldest
                        open.erase(open.begin());
                        ++dropped;
                    }
                    return;
                }
                if (e.kind == event_kind::cdp_command && !o.cdp_commands) return;
                span s;
                if (auto it = open.find(e.id); it != open.end()) {
                    s = std::move(it->second.s);
                    open.erase(it);
                } else {  // reported once (a CDP command), or a start this recorder did not see
                    s.trace_id = trace_for(e.parent);
                    s.span_id = span_id(e.id);
                    if (e.parent != 0) s.parent_span_id = span_id(e.parent);
                    const auto dur = static_cast<std::uint64_t>(e.ms * 1e6);
                    s.start_unix_nano = ns > dur ? ns - dur : 0;
                    describe_start(e, s);
                }
                // a span lasts what the part measured (a tool's own run, not the wait for the
                // response's other calls; nothing for an answer that ran nothing), within the time
                // its end was told
                const auto dur = static_cast<std::uint64_t>(std::max(e.ms, 0.0) * 1e6);
                s.end_unix_nano = std::min(ns, s.start_unix_nano + dur);
                describe_end(e, s);
                if (e.kind == event_kind::tool_ended || e.kind == event_kind::mcp_response_received) {
                    trace_of_closed[e.id] = s.trace_id;  // what it started may still report
                    if (trace_of_closed.size() > 4096) trace_of_closed.erase(trace_of_closed.begin());
                }
                if (!o.on_span) {
                    done.push_back(std::move(s));
                    while (done.size() > o.max_kept) done.pop_front();
                } else {
                    finished = std::move(s);
                }
            }
            if (finished) o.on_span(*finished);
        }

        [[nodiscard]] static bool starts(event_kind k) noexcept {
            return k == event_kind::run_started || k == event_kind::model_request || k == event_kind::tool_started ||
                   k == event_kind::mcp_request_sent || k == event_kind::mcp_request_received;
        }

        // A point event becomes an event of its parent's open span (dropped when there is none).
        void point(const event& e, std::uint64_t ns) {
            auto it = open.find(e.parent);
            if (it == open.end()) return;
            json attrs = json::object();
            if (!e.name.empty()) attrs["name"] = e.name;
            if (!e.detail.empty()) attrs["detail"] = e.detail;
            if (e.failed()) attrs["error.type"] = e.error_code;
            if (e.kind == event_kind::artifact_stored) attrs["size"] = e.bytes;
            if (e.data.is_object())
                for (const auto& [k, v] : e.data.items())
                    attrs[k] = v.is_primitive() ? v : json(v.dump());
            it->second.s.events.push_back(json{{"name", std::string(to_string(e.kind))}, {"time_unix_nano", ns}, {"attributes", std::move(attrs)}});
        }

        static void describe_start(const event& e, span& s) {
            json& a = s.attributes;
            if (!e.scope.empty()) a["agentkit.scope"] = e.scope;
            switch (e.kind) {
                case event_kind::run_started:
                case event_kind::run_ended:
                    s.name = "invoke_agent";
                    a["gen_ai.operation.name"] = "invoke_agent";
                    a["gen_ai.conversation.id"] = e.scope;
                    if (!e.name.empty()) a["gen_ai.request.model"] = e.name;
                    break;
                case event_kind::model_request:
                case event_kind::model_response:
                    s.name = "chat " + e.name;
                    s.kind = span::kind_t::client;
                    a["gen_ai.operation.name"] = "chat";
                    a["gen_ai.request.model"] = e.name;
                    a["gen_ai.conversation.id"] = e.scope;
                    if (e.data.is_object() && e.data.contains("provider")) a["gen_ai.provider.name"] = e.data["provider"];
                    if (e.attempt > 0) a["agentkit.attempt"] = e.attempt;
                    break;
                case event_kind::tool_started:
                case event_kind::tool_ended:
                    s.name = "execute_tool " + e.name;
                    a["gen_ai.operation.name"] = "execute_tool";
                    a["gen_ai.tool.name"] = e.name;
                    if (!e.detail.empty()) a["gen_ai.tool.call.id"] = e.detail;
                    break;
                case event_kind::mcp_request_sent:
                case event_kind::mcp_response_received:
                case event_kind::mcp_request_received:
                case event_kind::mcp_response_sent:
                    s.name = e.detail.empty() ? e.name : e.name + " " + e.detail;
                    s.kind = (e.kind == event_kind::mcp_request_received || e.kind == event_kind::mcp_response_sent) ? span::kind_t::server
                                                                                                                  : span::kind_t::client;
                    a["mcp.method.name"] = e.name;
                    if (!e.detail.empty()) a[e.name == "tools/call" ? "gen_ai.tool.name" : "agentkit.target"] = e.detail;
                    break;
                case event_kind::cdp_command:
                    s.name = e.name;
                    s.kind = span::kind_t::client;
                    a["agentkit.cdp.method"] = e.name;
                    if (!e.detail.empty()) a["agentkit.cdp.session"] = e.detail;
                    break;
                default: s.name = std::string(to_string(e.kind)); break;
            }
        }

        static void describe_end(const event& e, span& s) {
            json& a = s.attributes;
            if (e.kind == event_kind::model_response) {
                a["gen_ai.usage.input_tokens"] = e.input_tokens;
                a["gen_ai.usage.output_tokens"] = e.output_tokens;
                a["gen_ai.usage.cache_read.input_tokens"] = e.cache_read_tokens;
                a["gen_ai.usage.cache_creation.input_tokens"] = e.cache_write_tokens;
            }
            if (e.kind == event_kind::tool_ended) a["agentkit.result_tokens"] = e.result_tokens;
            if (e.kind == event_kind::run_ended && e.data.is_object()) {
                if (e.data.contains("reason")) a["agentkit.stop_reason"] = e.data["reason"];
                if (e.data.contains("steps")) a["agentkit.steps"] = e.data["steps"];
            }
            if (e.failed()) {
                s.error = true;
                a["error.type"] = e.error_code;
                s.status_message = e.error_message.empty() ? e.error_code : e.error_code + ": " + e.error_message;
            }
        }
    };

    // {"k": v} as OTLP's [{"key": "k", "value": {"stringValue": ...}}].
    [[nodiscard]] static json otlp_attributes(const json& attrs) {
        json out = json::array();
        if (!attrs.is_object()) return out;
        for (const auto& [k, v] : attrs.items()) {
            json val;
            if (v.is_boolean()) val = json{{"boolValue", v.get<bool>()}};
            else if (v.is_number_integer()) val = json{{"intValue", v.dump()}};
            else if (v.is_number()) val = json{{"doubleValue", v.get<double>()}};
            else if (v.is_string()) val = json{{"stringValue", v.get<std::string>()}};
            else val = json{{"stringValue", v.dump()}};
            out.push_back(json{{"key", k}, {"value", std::move(val)}});
        }
        return out;
    }

    std::shared_ptr<state> st_;
};

}  // namespace agentkit
