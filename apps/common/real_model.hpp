// Which real model an app runs, from its command line (--provider, --model, --base-url,
// --no-stream: model_flags.hpp) and the environment (the keys, base URLs, AGENTKIT_MODEL):
// shared by agentkit-bot, agentkit-demo and agentkit-web-eval so all three read the same flags
// and variables the same way. The model itself is agentkit::model_client (session/model_client.hpp,
// libcurl).
//
// Keys come from the environment only (ANTHROPIC_API_KEY, OPENAI_API_KEY) and are never printed:
// the banner names the variable, not its value. Without a key the app runs its scripted model
// (in the wire format --provider names), except that an app may ask for `strict` choice, where
// naming a provider whose key is missing while another key is set is a usage error (agentkit-bot).
#pragma once

#include <agentkit/agentkit.hpp>
#include <agentkit/session/model_client.hpp>

#include "model_flags.hpp"

#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

namespace demo {

namespace ak = agentkit;

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

/// What a streaming real model says, shown as it comes (session_options::on_delta): its words,
/// each tool call as it begins, and a line when an attempt broke off and is asked again. A
/// scripted model streams nothing.
[[nodiscard]] inline ak::stream_delta_fn print_words(std::FILE* to) {
    return [to](const ak::stream_delta& d) {
        if (d.what == ak::stream_delta::kind::text) std::fputs(d.text.c_str(), to);
        if (d.what == ak::stream_delta::kind::tool_call) std::fprintf(to, "\n[calling %s]\n", d.name.c_str());
        if (d.what == ak::stream_delta::kind::discard) std::fputs("\n[the answer broke off; asking again]\n", to);
        std::fflush(to);
    };
}

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

    const std::optional<ak::model_api> asked = ak::model_api_named(f.provider);
    const bool no_key = anthropic_key.empty() && openai_key.empty();
    if (no_key && asked != ak::model_api::openai_compatible)
        return scripted(f.scripted_format(), "no ANTHROPIC_API_KEY or OPENAI_API_KEY");

    ak::model_api api = ak::model_api::anthropic;
    if (asked) {
        api = *asked;
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
