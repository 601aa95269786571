// agentkit/session/saved.hpp — a conversation as JSON: what agent_session::save() writes and
// restore() reads, so that a host serving many users can keep a conversation between requests,
// or move it to another process.
//
//   json saved = session.save();                 // store it (a file, a database row)
//   ... in another process, a session with the same tools and masker kind:
//   if (auto ok = other.restore(saved); !ok) log(ok.error().to_text());
//
// The document (format "agentkit.session", version 1):
//
//   {"format": "agentkit.session", "version": 1, "session_id": "s-...",
//    "tools": {"<name>": "<digest of its description and schemas>", ...},   // the catalogue
//    "history": [<message>, ...],          // every message, provider blocks kept verbatim
//    "masker": <its save_state()> | null,  // visibility/masker.hpp masker_with_state
//    "artifacts": [<artifact_ref>, ...],   // references, with their contents when the session's own
//                                          // store holds them (a host's store keeps its own)
//    "metrics": {...},                     // every turn's numbers: the token budget used so far
//    "state": {...}}                       // done, final text, nudges, failures, deferred tools
//
// A message: {"role": "user"|"assistant", "text", "calls": [{id, name, arguments, raw_arguments,
// malformed?}], "results": [{call_id, name, output: {content: [<block>], structured?, is_error,
// fitted}}], "origin": "anthropic"|"openai_chat"|"openai_responses"|null, "raw"}. A content block:
// {"type": "text"|"image"|"artifact"|"structured"|"tool_reference", "text", "mime_type",
// "artifact", "data"} (empty fields left out).
//
// Restore refuses, with `args.invalid` naming what differs and nothing changed: another format or
// a newer version, a catalogue with tools missing, added or changed, a masker that cannot take the
// saved state, and any malformed part.
#pragma once

#include <agentkit/core/error.hpp>
#include <agentkit/core/json.hpp>
#include <agentkit/core/result.hpp>
#include <agentkit/core/sha1.hpp>
#include <agentkit/format/artifacts.hpp>
#include <agentkit/session/message.hpp>
#include <agentkit/session/metrics.hpp>
#include <agentkit/session/options.hpp>
#include <agentkit/session/provider.hpp>
#include <agentkit/tools/output.hpp>
#include <agentkit/tools/tool.hpp>

#include <cstddef>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace agentkit {

/// The `format` of a saved session.
inline constexpr std::string_view saved_session_format = "agentkit.session";
/// The newest `version` of a saved session this agentkit writes and reads.
inline constexpr int saved_session_version = 1;

namespace detail {

/// A failure to read a saved session: `args.invalid`, naming where.
[[nodiscard]] inline error saved_error(std::string where, std::string what) {
    return error(errc::args_invalid, "cannot restore the saved session: " + where + " " + what,
                 "Restore a document that agent_session::save() wrote, into a session with the same tools.");
}

/// A JSON field of `j` of the wanted kind, or an error naming it.
template <class T>
[[nodiscard]] result<T> saved_field(const json& j, std::string_view key, const std::string& where, std::optional<T> fallback = std::nullopt) {
    auto it = j.find(key);
    if (it == j.end() || it->is_null()) {
        if (fallback) return *fallback;
        return fail(saved_error(where + "." + std::string(key), "is missing"));
    }
    try {
        return it->template get<T>();
    } catch (const json::exception&) {
        return fail(saved_error(where + "." + std::string(key), "has the wrong type (" + std::string(it->type_name()) + ")"));
    }
}

// ---- artifacts, blocks, outputs ----------------------------------------------------------------

[[nodiscard]] inline json artifact_to_json(const artifact_ref& a) {
    json j{{"id", a.id}, {"uri", a.uri}, {"mime_type", a.mime_type}, {"name", a.name}, {"size", a.size}, {"description", a.description}};
    if (a.text) j["text"] = *a.text;
    if (a.blob) j["blob"] = *a.blob;
    return j;
}
[[nodiscard]] inline result<artifact_ref> artifact_from_json(const json& j, const std::string& where) {
    if (!j.is_object()) return fail(saved_error(where, "is not an object"));
    artifact_ref a;
    std::string s;
    for (auto [key, field] : {std::pair<const char*, std::string*>{"id", &a.id}, {"uri", &a.uri}, {"mime_type", &a.mime_type}, {"name", &a.name},
                              {"description", &a.description}}) {
        auto v = saved_field<std::string>(j, key, where, std::string());
        if (!v) return fail(std::move(v).error());
        *field = std::move(*v);
    }
    if (j.contains("size") && !j["size"].is_number_unsigned() && !(j["size"].is_number_integer() && j["size"].get<long long>() >= 0))
        return fail(saved_error(where + ".size", "is not a size"));
    auto size = saved_field<std::size_t>(j, "size", where, std::size_t{0});
    if (!size) return fail(std::move(size).error());
    a.size = *size;
    if (j.contains("text")) {
        auto t = saved_field<std::string>(j, "text", where);
        if (!t) return fail(std::move(t).error());
        a.text = std::move(*t);
    }
    if (j.contains("blob")) {
        auto b = saved_field<std::string>(j, "blob", where);
        if (!b) return fail(std::move(b).error());
        a.blob = std::move(*b);
    }
    return a;
}

inline constexpr std::pair<content_block::kind, std::string_view> block_kinds[] = {
    {content_block::kind::text, "text"},           {content_block::kind::image, "image"},
    {content_block::kind::artifact, "artifact"},   {content_block::kind::structured, "structured"},
    {content_block::kind::tool_reference, "tool_reference"}};

[[nodiscard]] inline json output_to_json(const tool_output& o) {
    json blocks = json::array();
    for (const auto& b : o.content) {
        json j{{"type", std::string(block_kinds[static_cast<std::size_t>(b.type)].second)}};
        if (!b.text.empty()) j["text"] = b.text;
        if (!b.mime_type.empty()) j["mime_type"] = b.mime_type;
        if (b.type == content_block::kind::artifact) j["artifact"] = artifact_to_json(b.artifact);
        if (!b.data.is_null()) j["data"] = b.data;
        blocks.push_back(std::move(j));
    }
    json j{{"content", std::move(blocks)}, {"is_error", o.is_error}, {"fitted", o.fitted}};
    if (o.structured) j["structured"] = *o.structured;
    return j;
}
[[nodiscard]] inline result<tool_output> output_from_json(const json& j, const std::string& where) {
    if (!j.is_object() || !j.contains("content") || !j["content"].is_array()) return fail(saved_error(where, "is not a tool output"));
    tool_output o;
    std::size_t i = 0;
    for (const auto& bj : j["content"]) {
        const std::string at = where + ".content[" + std::to_string(i++) + "]";
        if (!bj.is_object()) return fail(saved_error(at, "is not an object"));
        auto type = saved_field<std::string>(bj, "type", at);
        if (!type) return fail(std::move(type).error());
        content_block b;
        bool known = false;
        for (const auto& [k, name] : block_kinds)
            if (name == *type) {
                b.type = k;
                known = true;
            }
        if (!known) return fail(saved_error(at + ".type", "is \"" + *type + "\", not a content block type"));
        auto text = saved_field<std::string>(bj, "text", at, std::string());
        auto mime = saved_field<std::string>(bj, "mime_type", at, std::string());
        if (!text) return fail(std::move(text).error());
        if (!mime) return fail(std::move(mime).error());
        b.text = std::move(*text);
        b.mime_type = std::move(*mime);
        if (b.type == content_block::kind::artifact) {
            auto a = artifact_from_json(bj.value("artifact", json()), at + ".artifact");
            if (!a) return fail(std::move(a).error());
            b.artifact = std::move(*a);
        }
        if (bj.contains("data")) b.data = bj["data"];
        o.content.push_back(std::move(b));
    }
    auto is_error = saved_field<bool>(j, "is_error", where, false);
    auto fitted = saved_field<bool>(j, "fitted", where, false);
    if (!is_error) return fail(std::move(is_error).error());
    if (!fitted) return fail(std::move(fitted).error());
    o.is_error = *is_error;
    o.fitted = *fitted;
    if (j.contains("structured") && !j["structured"].is_null()) o.structured = j["structured"];
    return o;
}

// ---- messages -----------------------------------------------------------------------------------

[[nodiscard]] inline json message_to_json(const message& m) {
    json calls = json::array();
    for (const auto& c : m.calls) {
        json j{{"id", c.id}, {"name", c.name}, {"arguments", c.arguments}, {"raw_arguments", c.raw_arguments}};
        if (c.malformed) j["malformed"] = c.malformed->to_json();
        calls.push_back(std::move(j));
    }
    json results = json::array();
    for (const auto& r : m.results) results.push_back(json{{"call_id", r.call_id}, {"name", r.name}, {"output", output_to_json(r.output)}});
    return json{{"role", m.role == role::user ? "user" : "assistant"},
                {"text", m.text},
                {"calls", std::move(calls)},
                {"results", std::move(results)},
                {"origin", m.origin ? json(std::string(to_string(*m.origin))) : json(nullptr)},
                {"raw", m.raw}};
}

[[nodiscard]] inline result<message> message_from_json(const json& j, const std::string& where) {
    if (!j.is_object()) return fail(saved_error(where, "is not an object"));
    message m;
    auto r = saved_field<std::string>(j, "role", where);
    if (!r) return fail(std::move(r).error());
    if (*r != "user" && *r != "assistant") return fail(saved_error(where + ".role", "is \"" + *r + "\", not user or assistant"));
    m.role = *r == "user" ? role::user : role::assistant;
    auto text = saved_field<std::string>(j, "text", where, std::string());
    if (!text) return fail(std::move(text).error());
    m.text = std::move(*text);
    const json calls = j.value("calls", json::array());
    const json results = j.value("results", json::array());
    if (!calls.is_array() || !results.is_array()) return fail(saved_error(where, "has calls or results that are not arrays"));
    std::size_t i = 0;
    for (const auto& cj : calls) {
        const std::string at = where + ".calls[" + std::to_string(i++) + "]";
        if (!cj.is_object()) return fail(saved_error(at, "is not an object"));
        tool_call c;
        auto id = saved_field<std::string>(cj, "id", at, std::string());
        auto name = saved_field<std::string>(cj, "name", at);
        auto raw = saved_field<std::string>(cj, "raw_arguments", at, std::string());
        if (!id) return fail(std::move(id).error());
        if (!name) return fail(std::move(name).error());
        if (!raw) return fail(std::move(raw).error());
        c.id = std::move(*id);
        c.name = std::move(*name);
        c.raw_arguments = std::move(*raw);
        c.arguments = cj.value("arguments", json::object());
        if (!c.arguments.is_object()) return fail(saved_error(at + ".arguments", "is not an object"));
        if (cj.contains("malformed") && cj["malformed"].is_object()) c.malformed = error::from_json(cj["malformed"]);
        m.calls.push_back(std::move(c));
    }
    i = 0;
    for (const auto& rj : results) {
        const std::string at = where + ".results[" + std::to_string(i++) + "]";
        if (!rj.is_object()) return fail(saved_error(at, "is not an object"));
        tool_result tr;
        auto call_id = saved_field<std::string>(rj, "call_id", at, std::string());
        auto name = saved_field<std::string>(rj, "name", at, std::string());
        if (!call_id) return fail(std::move(call_id).error());
        if (!name) return fail(std::move(name).error());
        auto out = output_from_json(rj.value("output", json()), at + ".output");
        if (!out) return fail(std::move(out).error());
        tr.call_id = std::move(*call_id);
        tr.name = std::move(*name);
        tr.output = std::move(*out);
        m.results.push_back(std::move(tr));
    }
    if (j.contains("origin") && !j["origin"].is_null()) {
        auto o = saved_field<std::string>(j, "origin", where);
        if (!o) return fail(std::move(o).error());
        m.origin = provider_named(*o);
        if (!m.origin) return fail(saved_error(where + ".origin", "is \"" + *o + "\", not a provider"));
    }
    m.raw = j.value("raw", json());
    return m;
}

// ---- metrics ------------------------------------------------------------------------------------

[[nodiscard]] inline json usage_to_json(const usage& u) {
    return json{{"input", u.input_tokens}, {"output", u.output_tokens}, {"cache_read", u.cache_read_tokens},
                {"cache_write", u.cache_write_tokens}, {"reasoning", u.reasoning_tokens}};
}
[[nodiscard]] inline usage usage_from_json(const json& j) {
    usage u;
    if (!j.is_object()) return u;
    u.input_tokens = j.value("input", std::size_t{0});
    u.output_tokens = j.value("output", std::size_t{0});
    u.cache_read_tokens = j.value("cache_read", std::size_t{0});
    u.cache_write_tokens = j.value("cache_write", std::size_t{0});
    u.reasoning_tokens = j.value("reasoning", std::size_t{0});
    return u;
}

[[nodiscard]] inline json metrics_to_json(const session_metrics& m) {
    json turns = json::array();
    for (const auto& t : m.turns) {
        json tools = json::array();
        for (const auto& x : t.tools)
            tools.push_back(json{{"name", x.name}, {"ms", x.ms}, {"result_chars", x.result_chars}, {"result_tokens", x.result_tokens},
                                 {"ok", x.ok}, {"parallel", x.parallel}, {"speculative", x.speculative}, {"meta", x.meta}});
        turns.push_back(json{{"turn", t.turn}, {"provider", std::string(to_string(t.provider))}, {"usage", usage_to_json(t.usage)},
                             {"estimated_input", t.estimated_input}, {"round_trips", t.round_trips}, {"model_ms", t.model_ms},
                             {"tools_ms", t.tools_ms}, {"tools", std::move(tools)}, {"speculative_used", t.speculative_used},
                             {"speculative_discarded", t.speculative_discarded}});
    }
    return json{{"turns", std::move(turns)}, {"nudges", m.nudges}, {"malformed_calls", m.malformed_calls}};
}

/// The metrics saved by metrics_to_json(), their totals summed again.
[[nodiscard]] inline result<session_metrics> metrics_from_json(const json& j) {
    session_metrics m;
    if (!j.is_object() || !j.value("turns", json()).is_array()) return fail(saved_error("metrics", "is not an object with turns"));
    try {
        for (const auto& tj : j["turns"]) {
            turn_metrics t;
            t.turn = tj.value("turn", std::size_t{0});
            t.provider = provider_named(tj.value("provider", "anthropic")).value_or(provider::anthropic);
            t.usage = usage_from_json(tj.value("usage", json()));
            t.estimated_input = tj.value("estimated_input", std::size_t{0});
            t.round_trips = tj.value("round_trips", std::size_t{1});
            t.model_ms = tj.value("model_ms", 0.0);
            t.tools_ms = tj.value("tools_ms", 0.0);
            t.speculative_used = tj.value("speculative_used", std::size_t{0});
            t.speculative_discarded = tj.value("speculative_discarded", std::size_t{0});
            for (const auto& xj : tj.value("tools", json::array())) {
                tool_metric x;
                x.name = xj.value("name", "");
                x.ms = xj.value("ms", 0.0);
                x.result_chars = xj.value("result_chars", std::size_t{0});
                x.result_tokens = xj.value("result_tokens", std::size_t{0});
                x.ok = xj.value("ok", true);
                x.parallel = xj.value("parallel", false);
                x.speculative = xj.value("speculative", false);
                x.meta = xj.value("meta", false);
                t.tools.push_back(std::move(x));
            }
            m.add(t);
        }
        m.nudges = j.value("nudges", std::size_t{0});
        m.malformed_calls = j.value("malformed_calls", std::size_t{0});
    } catch (const json::exception& e) {
        return fail(saved_error("metrics", std::string("has a value of the wrong type (") + e.what() + ")"));
    }
    return m;
}

// ---- the catalogue ------------------------------------------------------------------------------

/// Each tool's name and a digest of what a model is told of it (description and schemas).
[[nodiscard]] inline json catalogue_digest(const std::vector<tool_info>& tools) {
    json out = json::object();
    for (const auto& t : tools) {
        const std::string what = t.description + '\x1f' + t.input_schema.dump() + '\x1f' + (t.output_schema ? t.output_schema->dump() : "");
        const auto d = sha1_digest(what);
        out[t.name] = to_hex(d.data(), 8);
    }
    return out;
}

/// "" when `saved` (catalogue_digest's) matches `now`; else what differs, in words.
[[nodiscard]] inline std::string catalogue_difference(const json& saved, const json& now) {
    std::vector<std::string> missing, added, changed;
    for (const auto& [name, digest] : saved.items()) {
        if (!now.contains(name)) missing.push_back(name);
        else if (now[name] != digest) changed.push_back(name);
    }
    for (const auto& [name, digest] : now.items())
        if (!saved.contains(name)) added.push_back(name);
    std::string out;
    auto say = [&](const char* what, const std::vector<std::string>& names) {
        if (names.empty()) return;
        if (!out.empty()) out += "; ";
        out += what;
        for (std::size_t i = 0; i < names.size(); ++i) out += (i ? ", " : " ") + names[i];
    };
    say("this session lacks", missing);
    say("this session has new", added);
    say("the description or schema changed of", changed);
    return out;
}


// ---- the document -------------------------------------------------------------------------------

/// What a session saves (agent_session::save fills it, restore takes it).
struct session_record {
    std::string session_id;
    json tools;  ///< catalogue_digest() of the session's catalogue
    std::vector<message> history;
    json masker;  ///< the masker's save_state(), or null
    std::vector<artifact_ref> artifacts;
    std::map<std::string, artifact_blob> contents;  ///< by artifact id: what the session's own store held
    session_metrics metrics;
    bool done = false;
    bool completed = false;
    bool answered = false;
    std::string final_text;
    std::vector<std::string> summary;
    std::size_t nudges = 0;
    std::map<std::string, std::size_t> failures;
    std::vector<std::string> deferred;
    bool deferred_frozen = false;
    std::set<std::string> referenced;
    std::string last_tool_error;
    std::optional<stop_reason> last_stop;
    std::optional<error> last_error;
};

[[nodiscard]] inline json record_to_json(const session_record& r) {
    json history = json::array();
    for (const auto& m : r.history) history.push_back(message_to_json(m));
    json artifacts = json::array();
    for (const auto& a : r.artifacts) {
        json j = artifact_to_json(a);
        if (auto c = r.contents.find(a.id); c != r.contents.end())
            j["contents"] = json{{"data", c->second.data}, {"base64", c->second.base64}};
        artifacts.push_back(std::move(j));
    }
    json failures = json::object();
    for (const auto& [key, n] : r.failures) failures[key] = n;
    return json{{"format", saved_session_format}, {"version", saved_session_version}, {"session_id", r.session_id},
                {"tools", r.tools}, {"history", std::move(history)}, {"masker", r.masker}, {"artifacts", std::move(artifacts)},
                {"metrics", metrics_to_json(r.metrics)},
                {"state", {{"done", r.done}, {"completed", r.completed}, {"answered", r.answered}, {"final_text", r.final_text},
                           {"summary", r.summary}, {"nudges", r.nudges}, {"failures", std::move(failures)}, {"deferred", r.deferred},
                           {"deferred_frozen", r.deferred_frozen}, {"referenced", r.referenced}, {"last_tool_error", r.last_tool_error},
                           {"last_stop", r.last_stop ? json(std::string(to_string(*r.last_stop))) : json(nullptr)},
                           {"last_error", r.last_error ? r.last_error->to_json() : json(nullptr)}}}};
}

/// A saved session read and checked against the catalogue it is restored into (`tools_now`:
/// catalogue_digest() of it); every part is checked before anything is returned.
[[nodiscard]] inline result<session_record> record_from_json(const json& saved, const json& tools_now) {
    if (!saved.is_object() || saved.value("format", json()) != saved_session_format)
        return fail(saved_error("the document", "is not a saved agentkit session (its format is not \"agentkit.session\")"));
    if (const json v = saved.value("version", json()); !v.is_number_integer() || v.get<long long>() < 1 || v.get<long long>() > saved_session_version)
        return fail(saved_error("version", v.dump() + " is not one this agentkit reads (1 to " + std::to_string(saved_session_version) + ")"));
    const json tools = saved.value("tools", json());
    if (!tools.is_object()) return fail(saved_error("tools", "is missing"));
    if (const std::string diff = catalogue_difference(tools, tools_now); !diff.empty())
        return fail(error(errc::args_invalid, "cannot restore the saved session: it was made with other tools (" + diff + ")",
                          "Restore it into a session built with the same toolbox and masker as the one that saved it."));
    session_record r;
    r.tools = tools;
    auto id = saved_field<std::string>(saved, "session_id", "the document");
    if (!id) return fail(std::move(id).error());
    r.session_id = std::move(*id);
    const json history = saved.value("history", json());
    const json artifacts = saved.value("artifacts", json::array());
    if (!history.is_array()) return fail(saved_error("history", "is not an array"));
    if (!artifacts.is_array()) return fail(saved_error("artifacts", "is not an array"));
    for (const auto& m : history) {
        auto msg = message_from_json(m, "history[" + std::to_string(r.history.size()) + "]");
        if (!msg) return fail(std::move(msg).error());
        r.history.push_back(std::move(*msg));
    }
    for (const auto& a : artifacts) {
        const std::string where = "artifacts[" + std::to_string(r.artifacts.size()) + "]";
        auto ref = artifact_from_json(a, where);
        if (!ref) return fail(std::move(ref).error());
        if (const json c = a.value("contents", json()); !c.is_null()) {
            if (!c.is_object() || !c.value("data", json()).is_string() || !c.value("base64", json(false)).is_boolean())
                return fail(saved_error(where + ".contents", "is not {data: string, base64: bool}"));
            r.contents[ref->id] = artifact_blob{ref->mime_type, ref->name, ref->description, c["data"].get<std::string>(), c.value("base64", false)};
        }
        r.artifacts.push_back(std::move(*ref));
    }
    auto metrics = metrics_from_json(saved.value("metrics", json()));
    if (!metrics) return fail(std::move(metrics).error());
    r.metrics = std::move(*metrics);
    r.masker = saved.value("masker", json());
    const json st = saved.value("state", json());
    if (!st.is_object()) return fail(saved_error("state", "is not an object"));
    try {
        r.done = st.value("done", false);
        r.completed = st.value("completed", false);
        r.answered = st.value("answered", false);
        r.final_text = st.value("final_text", std::string());
        r.summary = st.value("summary", std::vector<std::string>{});
        r.nudges = st.value("nudges", std::size_t{0});
        const json failures = st.value("failures", json::object());  // bound: items() of a temporary would dangle
        if (!failures.is_object()) return fail(saved_error("state.failures", "is not an object"));
        for (const auto& [key, n] : failures.items()) r.failures[key] = n.get<std::size_t>();
        r.deferred = st.value("deferred", std::vector<std::string>{});
        r.deferred_frozen = st.value("deferred_frozen", false);
        r.referenced = st.value("referenced", std::set<std::string>{});
        r.last_tool_error = st.value("last_tool_error", std::string());
        if (const json ls = st.value("last_stop", json()); !ls.is_null()) {
            r.last_stop = stop_reason_named(ls.get<std::string>());
            if (!r.last_stop) return fail(saved_error("state.last_stop", "is " + ls.dump() + ", not a stop reason"));
        }
        if (const json le = st.value("last_error", json()); le.is_object()) r.last_error = error::from_json(le);
    } catch (const json::exception& e) {
        return fail(saved_error("state", std::string("has a value of the wrong type (") + e.what() + ")"));
    }
    return r;
}

}  // namespace detail
}  // namespace agentkit
