// agentkit/session/request.hpp — build the next request for a provider from the neutral history.
//
// The request is laid out for prompt caching: tools, then the system prompt (stable part +
// masker section), then the history, then the per-turn state message (never stored in the
// history, so it never disturbs the cached prefix).
//
// Anthropic gets at most four cache_control breakpoints: the last (non-deferred) tool, the
// system prompt, and the newest tool result. OpenAI gets `prompt_cache_key`.
//
// Tool exposure ("mask, don't remove"; agentkit::exposure from visibility/strategy.hpp):
//   visible_only      only the tools callable now are sent (the list changes with the masker);
//   allowed_tools /   the whole catalogue is sent every turn (a stable, cacheable prefix) and
//   deferred_loading  visibility is expressed through the provider's own mechanism: OpenAI
//                     tool_choice allowed_tools (Chat: {"type":"allowed_tools","allowed_tools":
//                     {"mode":"auto","tools":[...]}}, Responses: {"type":"allowed_tools",
//                     "mode":"auto","tools":[...]}), Anthropic `defer_loading: true` on tools that
//                     were hidden when the session started (loaded by tool_reference blocks).
//                     Either stable strategy maps to the one the provider supports; an
//                     OpenAI-compatible server (no allowed_tools) gets the whole catalogue
//                     and the per-turn state message names the tools callable now.
#pragma once

#include <agentkit/visibility/strategy.hpp>
#include <agentkit/core/json.hpp>
#include <agentkit/session/message.hpp>
#include <agentkit/tools/export.hpp>
#include <agentkit/tools/tool.hpp>

#include <algorithm>
#include <cstddef>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace agentkit {

/// Everything a request is built from besides the history.
struct request_spec {
    std::string model;                        ///< the model name sent to the provider
    std::size_t max_tokens = 4096;  ///< the output token limit (max_tokens, max_completion_tokens or max_output_tokens)
    std::string system;                       ///< stable system prompt (already includes the masker section)
    std::vector<tool_info> tools;             ///< the catalogue, in a stable order
    std::vector<std::string> visible;         ///< names callable now
    /// How the tools are exposed (see visibility/strategy.hpp).
    agentkit::exposure exposure = agentkit::exposure::visible_only;
    std::vector<std::string> deferred;        ///< Anthropic stable exposure: names sent with defer_loading
    std::string state_message;                ///< per-turn state, appended after everything cached
    bool cache = true;                        ///< Anthropic cache_control breakpoints
    std::string cache_key;                    ///< OpenAI prompt_cache_key ("" = none)
    /// Allow several tool calls in one response (false: Anthropic disable_parallel_tool_use).
    bool parallel_tool_calls = true;
    bool openai_compat = false;               ///< an OpenAI-compatible server: max_tokens, no allowed_tools/cache key
    export_options export_opts{};             ///< how tools are exported (OpenAI strict mode)
    json extra = json::object();              ///< merged into the request last (temperature, metadata, ...)
};

namespace detail {
[[nodiscard]] inline bool contains_name(const std::vector<std::string>& v, std::string_view n) {
    return std::find(v.begin(), v.end(), n) != v.end();
}
[[nodiscard]] inline std::string data_url(const content_block& b) { return "data:" + b.mime_type + ";base64," + b.text; }

/// Text of a result for providers whose tool results are plain strings.
[[nodiscard]] inline std::string result_text(const tool_output& o) {
    std::string s;
    for (const auto& b : o.content) {
        if (b.type == content_block::kind::image) continue;  // sent separately
        if (!s.empty()) s += '\n';
        switch (b.type) {
            case content_block::kind::text: s += b.text; break;
            case content_block::kind::structured: s += b.data.dump(); break;
            case content_block::kind::artifact:
                s += "[artifact " + b.artifact.id + " " + b.artifact.mime_type + " " + std::to_string(b.artifact.size) +
                     " bytes" + (b.artifact.name.empty() ? std::string() : ": " + b.artifact.name) + "]";
                break;
            case content_block::kind::tool_reference: s += "[tool " + b.text + " is now available]"; break;
            case content_block::kind::image: break;
        }
    }
    if (s.empty()) s = o.is_error ? "error" : "(no output)";
    return s;
}

/// Content of an Anthropic tool_result. `references`: tool_reference blocks are sent only
/// with deferred loading (they load tools sent with defer_loading, a beta); otherwise they are
/// left out, as the result's text already names the tools.
[[nodiscard]] inline json anthropic_result_content(const tool_output& o, bool references = true) {
    json content = json::array();
    for (const auto& b : o.content) {
        if (b.type == content_block::kind::tool_reference && !references) continue;
        switch (b.type) {
            case content_block::kind::text:
                if (!b.text.empty()) content.push_back(json{{"type", "text"}, {"text", b.text}});
                break;
            case content_block::kind::image:
                content.push_back(json{{"type", "image"},
                                       {"source", {{"type", "base64"}, {"media_type", b.mime_type}, {"data", b.text}}}});
                break;
            case content_block::kind::tool_reference:
                content.push_back(json{{"type", "tool_reference"}, {"tool_name", b.text}});
                break;
            case content_block::kind::structured:
                content.push_back(json{{"type", "text"}, {"text", b.data.dump()}});
                break;
            case content_block::kind::artifact: {
                tool_output one;
                one.content.push_back(b);
                content.push_back(json{{"type", "text"}, {"text", result_text(one)}});
                break;
            }
        }
    }
    if (content.empty()) content.push_back(json{{"type", "text"}, {"text", o.is_error ? "error" : "(no output)"}});
    return content;
}

[[nodiscard]] inline json build_anthropic(const request_spec& s, const std::vector<message>& history) {
    json req = json::object();
    req["model"] = s.model;
    req["max_tokens"] = s.max_tokens;
    const json cc{{"type", "ephemeral"}};
    // Tools (breakpoint 1 on the last tool that is loaded up front).
    json tools = json::array();
    for (const auto& t : s.tools) {
        const bool vis = contains_name(s.visible, t.name);
        if (s.exposure == exposure::visible_only && !vis) continue;
        json j = export_tool(t, dialect::anthropic, s.export_opts);
        if (s.exposure != exposure::visible_only && contains_name(s.deferred, t.name)) j["defer_loading"] = true;
        tools.push_back(std::move(j));
    }
    if (s.cache) {
        for (auto it = tools.rbegin(); it != tools.rend(); ++it) {
            if (!it->contains("defer_loading")) {
                (*it)["cache_control"] = cc;
                break;
            }
        }
    }
    if (!tools.empty()) {
        req["tools"] = std::move(tools);
        if (!s.parallel_tool_calls) req["tool_choice"] = json{{"type", "auto"}, {"disable_parallel_tool_use", true}};
    }
    // System (breakpoint 2).
    if (!s.system.empty()) {
        json sys{{"type", "text"}, {"text", s.system}};
        if (s.cache) sys["cache_control"] = cc;
        req["system"] = json::array({std::move(sys)});
    }
    // Messages; breakpoint 3 on the newest tool result.
    json msgs = json::array();
    std::ptrdiff_t newest_result_msg = -1;
    for (const auto& m : history) {
        if (m.role == role::assistant) {
            json content;
            if (m.origin == provider::anthropic && m.raw.is_array()) {
                content = m.raw;
            } else {
                content = json::array();
                if (!m.text.empty()) content.push_back(json{{"type", "text"}, {"text", m.text}});
                for (const auto& c : m.calls)
                    content.push_back(json{{"type", "tool_use"}, {"id", c.id}, {"name", c.name},
                                           {"input", c.arguments.is_object() ? c.arguments : json::object()}});
                if (content.empty()) content.push_back(json{{"type", "text"}, {"text", "(no answer)"}});
            }
            msgs.push_back(json{{"role", "assistant"}, {"content", std::move(content)}});
        } else {
            json content = json::array();
            for (const auto& r : m.results) {
                json block{{"type", "tool_result"}, {"tool_use_id", r.call_id}, {"content", anthropic_result_content(r.output, s.exposure == agentkit::exposure::deferred_loading)}};
                if (r.output.is_error) block["is_error"] = true;
                content.push_back(std::move(block));
            }
            if (!m.results.empty()) newest_result_msg = static_cast<std::ptrdiff_t>(msgs.size());
            if (!m.text.empty()) content.push_back(json{{"type", "text"}, {"text", m.text}});
            if (content.empty()) content.push_back(json{{"type", "text"}, {"text", "(continue)"}});
            msgs.push_back(json{{"role", "user"}, {"content", std::move(content)}});
        }
    }
    if (s.cache && newest_result_msg >= 0) {
        json& content = msgs[static_cast<std::size_t>(newest_result_msg)]["content"];
        for (auto it = content.rbegin(); it != content.rend(); ++it) {
            if ((*it)["type"] == "tool_result") {
                (*it)["cache_control"] = cc;
                break;
            }
        }
    }
    if (!s.state_message.empty()) {
        json block{{"type", "text"}, {"text", s.state_message}};
        if (!msgs.empty() && msgs.back()["role"] == "user") msgs.back()["content"].push_back(std::move(block));
        else msgs.push_back(json{{"role", "user"}, {"content", json::array({std::move(block)})}});
    }
    req["messages"] = std::move(msgs);
    return req;
}

/// Collect the images of a user message's results into one follow-up user content list.
template <class MakeText, class MakeImage>
[[nodiscard]] json openai_images(const message& m, MakeText text_part, MakeImage image_part) {
    json parts = json::array();
    for (const auto& r : m.results) {
        bool first = true;
        for (const auto& b : r.output.content) {
            if (b.type != content_block::kind::image) continue;
            if (first) parts.push_back(text_part("Image(s) returned by " + r.name + " (call " + r.call_id + "):"));
            first = false;
            parts.push_back(image_part(b));
        }
    }
    return parts;
}

/// The per-turn state message; for an OpenAI-compatible server under a stable exposure (it has
/// no allowed_tools) it also says which tools may be called now.
[[nodiscard]] inline std::string openai_state_message(const request_spec& s) {
    std::string st = s.state_message;
    if (s.openai_compat && s.exposure != exposure::visible_only && s.visible.size() < s.tools.size()) {
        std::string names;
        for (const auto& t : s.tools)
            if (contains_name(s.visible, t.name)) names += (names.empty() ? "" : ", ") + t.name;
        st += std::string(st.empty() ? "" : "\n") + "Tools you may call now: " + (names.empty() ? "none" : names) +
              ". Calls to the others are refused.";
    }
    return st;
}

[[nodiscard]] inline json openai_tools(const request_spec& s, dialect d, json& req, bool full) {
    json tools = json::array();
    for (const auto& t : s.tools) {
        if (!full && !contains_name(s.visible, t.name)) continue;
        tools.push_back(export_tool(t, d, s.export_opts));
    }
    if (full && !s.openai_compat && s.visible.size() < s.tools.size()) {
        std::vector<std::string> allowed;
        for (const auto& t : s.tools)
            if (contains_name(s.visible, t.name)) allowed.push_back(t.name);
        req["tool_choice"] = allowed_tools_choice(allowed, d, "auto");
    }
    return tools;
}

[[nodiscard]] inline json build_openai_chat(const request_spec& s, const std::vector<message>& history) {
    json req = json::object();
    req["model"] = s.model;
    req[s.openai_compat ? "max_tokens" : "max_completion_tokens"] = s.max_tokens;
    const bool full = s.exposure != exposure::visible_only;
    json tools = openai_tools(s, dialect::openai_chat, req, full);
    if (!tools.empty()) {
        req["tools"] = std::move(tools);
        req["parallel_tool_calls"] = s.parallel_tool_calls;
    }
    if (!s.cache_key.empty() && !s.openai_compat) req["prompt_cache_key"] = s.cache_key;
    json msgs = json::array();
    if (!s.system.empty()) msgs.push_back(json{{"role", "system"}, {"content", s.system}});
    for (const auto& m : history) {
        if (m.role == role::assistant) {
            if (m.origin == provider::openai_chat && m.raw.is_object()) {
                msgs.push_back(m.raw);
                continue;
            }
            json a{{"role", "assistant"}, {"content", m.text.empty() ? json(nullptr) : json(m.text)}};
            if (!m.calls.empty()) {
                json calls = json::array();
                for (const auto& c : m.calls)
                    calls.push_back(json{{"id", c.id}, {"type", "function"},
                                         {"function", {{"name", c.name},
                                                       {"arguments", c.raw_arguments.empty() ? c.arguments.dump() : c.raw_arguments}}}});
                a["tool_calls"] = std::move(calls);
            }
            msgs.push_back(std::move(a));
        } else {
            for (const auto& r : m.results)
                msgs.push_back(json{{"role", "tool"}, {"tool_call_id", r.call_id}, {"content", result_text(r.output)}});
            json images = openai_images(
                m, [](std::string t) { return json{{"type", "text"}, {"text", std::move(t)}}; },
                [](const content_block& b) { return json{{"type", "image_url"}, {"image_url", {{"url", data_url(b)}}}}; });
            if (!m.text.empty()) images.push_back(json{{"type", "text"}, {"text", m.text}});
            if (!images.empty()) {
                if (images.size() == 1 && images[0]["type"] == "text") msgs.push_back(json{{"role", "user"}, {"content", images[0]["text"]}});
                else msgs.push_back(json{{"role", "user"}, {"content", std::move(images)}});
            } else if (m.results.empty()) {
                msgs.push_back(json{{"role", "user"}, {"content", "(continue)"}});
            }
        }
    }
    if (const std::string st = openai_state_message(s); !st.empty()) msgs.push_back(json{{"role", "user"}, {"content", st}});
    req["messages"] = std::move(msgs);
    return req;
}

[[nodiscard]] inline json build_openai_responses(const request_spec& s, const std::vector<message>& history) {
    json req = json::object();
    req["model"] = s.model;
    req["max_output_tokens"] = s.max_tokens;
    if (!s.system.empty()) req["instructions"] = s.system;
    const bool full = s.exposure != exposure::visible_only;
    json tools = openai_tools(s, dialect::openai_responses, req, full);
    if (!tools.empty()) {
        req["tools"] = std::move(tools);
        req["parallel_tool_calls"] = s.parallel_tool_calls;
    }
    if (!s.cache_key.empty() && !s.openai_compat) req["prompt_cache_key"] = s.cache_key;
    auto user_text = [](std::string t) {
        return json{{"role", "user"}, {"content", json::array({json{{"type", "input_text"}, {"text", std::move(t)}}})}};
    };
    json input = json::array();
    for (const auto& m : history) {
        if (m.role == role::assistant) {
            if (m.origin == provider::openai_responses && m.raw.is_array()) {
                for (const auto& item : m.raw) input.push_back(item);
                continue;
            }
            if (!m.text.empty())
                input.push_back(json{{"role", "assistant"},
                                     {"content", json::array({json{{"type", "output_text"}, {"text", m.text}}})}});
            for (const auto& c : m.calls)
                input.push_back(json{{"type", "function_call"}, {"call_id", c.id}, {"name", c.name},
                                     {"arguments", c.raw_arguments.empty() ? c.arguments.dump() : c.raw_arguments}});
        } else {
            for (const auto& r : m.results)
                input.push_back(json{{"type", "function_call_output"}, {"call_id", r.call_id}, {"output", result_text(r.output)}});
            json parts = openai_images(
                m, [](std::string t) { return json{{"type", "input_text"}, {"text", std::move(t)}}; },
                [](const content_block& b) { return json{{"type", "input_image"}, {"image_url", data_url(b)}}; });
            if (!m.text.empty()) parts.push_back(json{{"type", "input_text"}, {"text", m.text}});
            if (!parts.empty()) input.push_back(json{{"role", "user"}, {"content", std::move(parts)}});
            else if (m.results.empty()) input.push_back(user_text("(continue)"));
        }
    }
    if (const std::string st = openai_state_message(s); !st.empty()) input.push_back(user_text(st));
    req["input"] = std::move(input);
    return req;
}
}  // namespace detail

/// The request body for provider `p`.
[[nodiscard]] inline json build_request(provider p, const request_spec& s, const std::vector<message>& history) {
    json req;
    switch (p) {
        case provider::anthropic: req = detail::build_anthropic(s, history); break;
        case provider::openai_chat: req = detail::build_openai_chat(s, history); break;
        case provider::openai_responses: req = detail::build_openai_responses(s, history); break;
    }
    if (s.extra.is_object())
        for (auto it = s.extra.begin(); it != s.extra.end(); ++it) req[it.key()] = it.value();
    return req;
}

/// HTTP headers a request needs besides authentication and content type: anthropic-version,
/// and anthropic-beta when the request defers tools.
[[nodiscard]] inline std::vector<std::pair<std::string, std::string>> required_headers(provider p, const json& request) {
    std::vector<std::pair<std::string, std::string>> h;
    if (p != provider::anthropic) return h;
    h.emplace_back("anthropic-version", "2023-06-01");
    if (auto it = request.find("tools"); it != request.end() && it->is_array()) {
        for (const auto& t : *it) {
            if (t.contains("defer_loading")) {
                h.emplace_back("anthropic-beta", "advanced-tool-use-2025-11-20");
                break;
            }
        }
    }
    return h;
}

}  // namespace agentkit
