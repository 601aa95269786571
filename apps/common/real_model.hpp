// Which real model an app runs, from its command line (--provider, --model, --base-url,
// --no-stream) and the environment (the keys, base URLs, AGENTKIT_MODEL): shared by
// agentkit-bot, agentkit-demo and agentkit-web-eval so all three read the same flags and
// variables the same way. The model itself is agentkit::model_client (net/model_client.hpp).
//
// Keys come from the environment only (ANTHROPIC_API_KEY, OPENAI_API_KEY) and are never printed:
// the banner names the variable, not its value. Without a key the app runs its scripted model
// (in the wire format --provider names), except that an app may ask for `strict` choice, where
// naming a provider whose key is missing while another key is set is a usage error (agentkit-bot).
#pragma once

#include <agentkit/agentkit.hpp>
#include <agentkit/net/model_client.hpp>

#include <cstdlib>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

namespace demo {

namespace ak = agentkit;

/// The model flags of an app's command line.
struct model_flags {
    std::optional<ak::model_api> api;  ///< --provider
    std::string model;                 ///< --model
    std::string base_url;              ///< --base-url
    bool stream = true;                ///< --no-stream clears it
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
        f.api = ak::model_api_named(v);
        if (!f.api) error = "unknown provider \"" + v + "\" (anthropic, openai_chat, openai_responses, openai_compatible)";
    } else if (a == "--model") {
        f.model = v;
    } else {
        f.base_url = v;
    }
    return true;
}

/// The model an app runs: a real one (options for model_client) or its scripted one.
struct model_choice {
    bool real = false;
    ak::model_client_options options;  ///< when real (the key set from the environment)
    ak::provider provider = ak::provider::anthropic;  ///< the wire format, scripted or real
    bool openai_compat = false;        ///< an OpenAI-compatible server (session_options::openai_compat)
    std::string model_name;            ///< what the session puts into requests
    std::string why;                   ///< for the banner: the variable or flag that decided (never a key)
    std::string error;                 ///< non-empty: bad usage
};

namespace detail {
inline std::string env(const char* name) {
    const char* v = std::getenv(name);
    return v ? std::string(v) : std::string();
}
}  // namespace detail

/// Choose from the flags and the environment. Without any key the scripted model runs (in the
/// format --provider names). `strict`: when some key is set, a provider named without its own
/// key is a usage error (else the scripted model runs in that provider's format).
[[nodiscard]] inline model_choice choose_model(const model_flags& f, bool strict) {
    model_choice m;
    const std::string anthropic_key = detail::env("ANTHROPIC_API_KEY");
    const std::string openai_key = detail::env("OPENAI_API_KEY");
    const std::string wanted_model = !f.model.empty() ? f.model : detail::env("AGENTKIT_MODEL");
    const std::string openai_base = !f.base_url.empty() ? f.base_url : detail::env("OPENAI_BASE_URL");
    auto scripted = [&](ak::provider p, std::string why) {
        m.real = false;
        m.provider = p;
        m.model_name = wanted_model.empty() ? "scripted" : wanted_model;
        m.why = std::move(why);
        return m;
    };

    const bool no_key = anthropic_key.empty() && openai_key.empty();
    if (no_key && f.api != ak::model_api::openai_compatible)
        return scripted(f.api ? ak::provider_of(*f.api) : ak::provider::anthropic, "no ANTHROPIC_API_KEY or OPENAI_API_KEY");

    ak::model_api api = ak::model_api::anthropic;
    if (f.api) {
        api = *f.api;
    } else if (!anthropic_key.empty()) {
        api = ak::model_api::anthropic;
    } else if (!openai_key.empty()) {
        const std::string flavour = detail::env("AGENTKIT_OPENAI_API");
        if (!flavour.empty() && flavour != "chat" && flavour != "responses") {
            m.error = "AGENTKIT_OPENAI_API is \"" + flavour + "\"; use chat or responses";
            return m;
        }
        const bool responses = flavour.empty() ? openai_base.empty() : flavour == "responses";
        api = responses ? ak::model_api::openai_responses
                        : (openai_base.empty() ? ak::model_api::openai_chat : ak::model_api::openai_compatible);
    }

    ak::model_client_options& o = m.options;
    o.api = api;
    o.stream = f.stream;
    switch (api) {
        case ak::model_api::anthropic:
            if (anthropic_key.empty()) {
                if (strict) {
                    m.error = "--provider anthropic needs ANTHROPIC_API_KEY (or pass --scripted)";
                    return m;
                }
                return scripted(ak::provider::anthropic, "no ANTHROPIC_API_KEY");
            }
            o.api_key = anthropic_key;
            o.base_url = !f.base_url.empty() ? f.base_url : detail::env("ANTHROPIC_BASE_URL");
            m.why = "ANTHROPIC_API_KEY";
            break;
        case ak::model_api::openai_chat:
        case ak::model_api::openai_responses:
            if (openai_key.empty()) {
                if (strict) {
                    m.error = "--provider " + std::string(ak::to_string(api)) + " needs OPENAI_API_KEY (or pass --scripted)";
                    return m;
                }
                return scripted(ak::provider_of(api), "no OPENAI_API_KEY");
            }
            o.api_key = openai_key;
            o.base_url = openai_base;
            m.why = openai_base.empty() ? "OPENAI_API_KEY" : "OPENAI_API_KEY with a base URL";
            break;
        case ak::model_api::openai_compatible:
            if (openai_base.empty()) {
                m.error = "--provider openai_compatible needs --base-url (or OPENAI_BASE_URL), e.g. http://127.0.0.1:8080/v1";
                return m;
            }
            if (!openai_key.empty()) o.api_key = openai_key;
            else o.api_key_env = "";  // a local server: no key
            o.base_url = openai_base;
            m.why = openai_key.empty() ? "an OpenAI-compatible server at the base URL" : "OPENAI_API_KEY with an OpenAI-compatible server";
            break;
    }
    m.real = true;
    m.provider = ak::provider_of(api);
    // a server other than OpenAI's speaking its API: requests keep to what such servers take
    m.openai_compat = api == ak::model_api::openai_compatible || (api != ak::model_api::anthropic && !o.base_url.empty());
    m.model_name = !wanted_model.empty()                  ? wanted_model
                   : api == ak::model_api::anthropic       ? "claude-sonnet-4-5"
                   : (m.openai_compat || !o.base_url.empty()) ? "default"
                                                           : "gpt-4.1";
    o.model = m.model_name;
    return m;
}

}  // namespace demo
