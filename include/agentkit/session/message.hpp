// agentkit/session/message.hpp — the provider-neutral conversation history.
//
// A history is a list of messages alternating user / assistant. An assistant message holds the
// model's text and tool calls (and, when it came from a provider, that provider's raw output so
// it can be echoed back verbatim: thinking blocks, reasoning items, exact argument strings).
// A user message holds text (the task, a nudge) and/or tool results, one per call of the
// preceding assistant message.
#pragma once

#include <agentkit/core/error.hpp>
#include <agentkit/core/json.hpp>
#include <agentkit/core/tokens.hpp>
#include <agentkit/tools/output.hpp>

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace agentkit {

/// The model APIs agentkit speaks.
enum class provider { anthropic, openai_chat, openai_responses };

/// The provider's name: "anthropic", "openai_chat" or "openai_responses".
[[nodiscard]] constexpr std::string_view to_string(provider p) noexcept {
    switch (p) {
        case provider::anthropic: return "anthropic";
        case provider::openai_chat: return "openai_chat";
        case provider::openai_responses: return "openai_responses";
    }
    return "anthropic";
}

/// The provider named `name` (to_string's names); nothing for another name.
[[nodiscard]] constexpr std::optional<provider> provider_named(std::string_view name) noexcept {
    for (provider p : {provider::anthropic, provider::openai_chat, provider::openai_responses})
        if (to_string(p) == name) return p;
    return std::nullopt;
}

/// Who a message is from.
enum class role { user, assistant };

/// One tool call the model made.
struct tool_call {
    std::string id;                  ///< the provider's call id (tool_use id / call_id)
    std::string name;                ///< the tool's name
    json arguments = json::object(); ///< parsed arguments (an object when valid)
    std::string raw_arguments;       ///< the exact argument text the model produced, when it was text
    std::optional<error> malformed;  ///< set when the arguments could not be parsed as a JSON object
};

/// The result of one tool call, as the model will see it.
struct tool_result {
    std::string call_id;  ///< the id of the call it answers
    std::string name;     ///< the tool's name
    tool_output output;   ///< what the tool returned (or its error)
};

/// One message of a session's history: prose, tool calls (assistant) or tool results (user).
struct message {
    agentkit::role role = agentkit::role::user;  ///< who it is from
    std::string text;                  ///< prose (task, nudge, final answer, narration)
    std::vector<tool_call> calls;      ///< assistant only
    std::vector<tool_result> results;  ///< user only
    /// When set, the assistant message exactly as `origin` returned it (content blocks for
    /// Anthropic, the message for Chat Completions, output items for Responses).
    std::optional<provider> origin;
    json raw;  ///< the provider's own form of the message (see `origin`)

    /// A user message of plain text.
    [[nodiscard]] static message user(std::string t) {
        message m;
        m.role = agentkit::role::user;
        m.text = std::move(t);
        return m;
    }
    /// An assistant message: its text and tool calls.
    [[nodiscard]] static message assistant(std::string t, std::vector<tool_call> c = {}) {
        message m;
        m.role = agentkit::role::assistant;
        m.text = std::move(t);
        m.calls = std::move(c);
        return m;
    }
};

/// Tokens an image costs in the estimates (providers bill images by size; ~1,600 is typical
/// for a 1280x800 screenshot).
inline constexpr std::size_t default_image_tokens = 1600;

/// Estimated tokens of one message: its text, call names and arguments, result text, and a
/// fixed cost per image.
[[nodiscard]] inline std::size_t message_tokens(const message& m, const token_counter& tc,
                                                std::size_t image_tokens = default_image_tokens) {
    std::size_t n = 4;  // role and framing
    n += tc.count(m.text);
    for (const auto& c : m.calls) {
        n += 6 + tc.count(c.name);
        n += tc.count(c.raw_arguments.empty() ? c.arguments.dump() : c.raw_arguments);
    }
    for (const auto& r : m.results) {
        n += 6;
        for (const auto& b : r.output.content) {
            switch (b.type) {
                case content_block::kind::text: n += tc.count(b.text); break;
                case content_block::kind::image: n += image_tokens; break;
                case content_block::kind::structured: n += tc.count(b.data.dump()); break;
                case content_block::kind::artifact: n += 12 + tc.count(b.artifact.name); break;
                case content_block::kind::tool_reference: n += 4 + tc.count(b.text); break;
            }
        }
    }
    return n;
}

}  // namespace agentkit
