// The model flags of the apps' command lines (--provider, --model, --base-url, --no-stream) and
// their --help text: shared by agentkit-bot, agentkit-demo and agentkit-web-eval. Needs no
// libcurl (an app built without it still reads --provider: the scripted model's wire format);
// real_model.hpp turns the flags and the environment into a model_client.
#pragma once

#include <agentkit/agentkit.hpp>

#include <cstdio>
#include <optional>
#include <string>
#include <string_view>

namespace demo {

namespace ak = agentkit;

/// The model flags of an app's command line.
struct model_flags {
    std::string provider;  ///< --provider: "" or anthropic, openai_chat, openai_responses, openai_compatible
    std::string model;     ///< --model
    std::string base_url;  ///< --base-url
    bool stream = true;    ///< --no-stream clears it

    /// The wire format --provider names (a scripted model speaks it; anthropic by default).
    [[nodiscard]] ak::provider scripted_format() const noexcept {
        if (provider == "openai_chat" || provider == "openai_compatible") return ak::provider::openai_chat;
        if (provider == "openai_responses") return ak::provider::openai_responses;
        return ak::provider::anthropic;
    }
};

/// The --help lines of the model flags (each app adds its own wording around them).
inline constexpr const char* model_flags_help =
    R"(  --provider anthropic|openai_chat|openai_responses|openai_compatible
                        the API (default: chosen from the keys set, see Environment); without a
                        key, the wire format the scripted model speaks. openai_compatible is
                        Chat Completions at --base-url (llama.cpp server, Ollama, vLLM): no key
                        needed, OPENAI_API_KEY sent when set
  --model NAME          the model (default: $AGENTKIT_MODEL, else claude-sonnet-4-5, gpt-4.1, or
                        "default" for an OpenAI-compatible server)
  --base-url URL        the API root: Anthropic's without /v1 (default https://api.anthropic.com),
                        OpenAI's with it (default https://api.openai.com/v1), a compatible
                        server's, e.g. http://127.0.0.1:8080/v1 (llama.cpp), http://127.0.0.1:11434/v1 (Ollama)
  --no-stream           ask for whole responses (default: streamed, so read-only tool calls start
                        before the response ends)
)";

/// The --help lines of the model's environment variables.
inline constexpr const char* model_env_help =
    R"(  ANTHROPIC_API_KEY     a real model: Anthropic Messages at $ANTHROPIC_BASE_URL/v1/messages
                        (ANTHROPIC_BASE_URL defaults to https://api.anthropic.com)
  OPENAI_API_KEY        a real model: OpenAI's Responses API at https://api.openai.com/v1/responses,
                        or, when OPENAI_BASE_URL is set (an OpenAI-compatible server such as
                        http://127.0.0.1:8080/v1), Chat Completions at $OPENAI_BASE_URL/chat/completions
  AGENTKIT_OPENAI_API   chat|responses: force the OpenAI API flavour
  AGENTKIT_MODEL        the model name (--model wins)
  Keys are read from the environment only and never printed. When both keys are set, Anthropic
  is used unless --provider says otherwise.
)";

/// An app's answer to --help (its text around the model flags' and environment's lines, exit 0)
/// or to a usage error (one line naming the app and --help, exit 2); nothing when neither.
[[nodiscard]] inline std::optional<int> answer_usage(const char* app, bool help, const std::string& error, const char* head,
                                                     const char* rest, const char* tail) {
    if (help) {
        std::fputs(head, stdout);
        std::fputs(model_flags_help, stdout);
        std::fputs(rest, stdout);
        std::fputs(model_env_help, stdout);
        std::fputs(tail, stdout);
        return 0;
    }
    if (!error.empty()) {
        std::fprintf(stderr, "%s: %s\nRun %s --help for the options.\n", app, error.c_str(), app);
        return 2;
    }
    return std::nullopt;
}

/// Read one model flag at argv[i] (advancing i past its value). Returns false when argv[i] is
/// not a model flag; `error` is set for a model flag with a missing or bad value.
inline bool parse_model_flag(int argc, char** argv, int& i, model_flags& f, std::string& error) {
    const std::string_view a = argv[i];
    const bool takes_value = a == "--provider" || a == "--model" || a == "--base-url";
    if (!takes_value && a != "--no-stream") return false;
    if (a == "--no-stream") {
        f.stream = false;
        return true;
    }
    if (i + 1 >= argc) {
        error = std::string(a) + " needs a value";
        return true;
    }
    const std::string v = argv[++i];
    if (a == "--provider") {
        if (v != "anthropic" && v != "openai_chat" && v != "openai_responses" && v != "openai_compatible")
            error = "unknown provider \"" + v + "\" (anthropic, openai_chat, openai_responses, openai_compatible)";
        else
            f.provider = v;
    } else if (a == "--model") {
        f.model = v;
    } else {
        f.base_url = v;
    }
    return true;
}

}  // namespace demo
