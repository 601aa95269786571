// agentkit/search/config.hpp — choosing a backend by configuration: a name (searxng, brave,
// tavily, serper), an optional URL, and the key read from the backend's environment variable.
// agentkit-browser-mcp's --search and --search-url end here; so can any host's options.
//
//   agentkit::search::settings s;
//   s.backend = "brave";                       // --search
//   agentkit::net::http_client http;           // must outlive the backend
//   auto b = agentkit::search::make_backend(s, http);   // the key from BRAVE_API_KEY
//   if (!b) { b.error(): an unknown name, a missing URL or key (named, never shown) }
//   agentkit::search::searcher searcher{*b, s.cache};
#pragma once

#include <agentkit/search/serper.hpp>
#include <agentkit/core/error.hpp>
#include <agentkit/core/http.hpp>
#include <agentkit/core/result.hpp>
#include <agentkit/core/url.hpp>
#include <agentkit/search/backend.hpp>
#include <agentkit/search/brave.hpp>
#include <agentkit/search/cache.hpp>
#include <agentkit/search/http_backend.hpp>
#include <agentkit/search/searxng.hpp>
#include <agentkit/search/tavily.hpp>

#include <array>
#include <cstdlib>
#include <functional>
#include <string>
#include <string_view>
#include <utility>

namespace agentkit::search {

/// A built-in backend as configuration and --help name it.
struct backend_info {
    std::string_view name;         ///< the --search value
    std::string_view key_env;      ///< the environment variable of its key ("" for none)
    std::string_view default_url;  ///< used without --search-url ("" when it must be given)
    std::string_view what;         ///< one line for --help
};

/// The built-in backends, in --help order.
inline constexpr std::array<backend_info, 4> builtin_backends{{
    {searxng::name, searxng::key_env, searxng::default_url, "SearXNG's JSON API (self-hosted, no key; --search-url required)"},
    {brave::name, brave::key_env, brave::default_url, "Brave Search API"},
    {tavily::name, tavily::key_env, tavily::default_url, "Tavily search API"},
    {serper::name, serper::key_env, serper::default_url, "Google results in Serper's format (google.serper.dev)"},
}};

/// Which backend, where, and its bounds.
struct settings {
    std::string backend;      ///< searxng, brave, tavily or serper ("": no web search)
    std::string url;          ///< the backend's URL ("": its default; required for searxng)
    backend_options options;  ///< timeout, retry wait, answer size
    cache_options cache;      ///< the cache's bounds
};

/// How a key is read: the value of environment variable `name`, or nullptr (std::getenv by
/// default; tests pass their own).
using env_reader = std::function<const char*(const char*)>;

/// The backend `s` names over HTTP client `client` (which must outlive it), its key read
/// through `env`. Errors: `args.invalid` for an unknown name or a URL that is not http(s);
/// `search.unconfigured` for searxng without a URL or a backend whose key variable is unset or
/// empty (the variable is named; no key is ever shown).
template <net::http_client_like Client>
[[nodiscard]] result<any_backend> make_backend(const settings& s, Client& client, const env_reader& env = {}) {
    const env_reader read = env ? env : env_reader([](const char* n) -> const char* { return std::getenv(n); });
    const backend_info* info = nullptr;
    for (const auto& b : builtin_backends)
        if (b.name == s.backend) info = &b;
    if (info == nullptr) {
        std::string known;
        for (const auto& b : builtin_backends) known += (known.empty() ? "" : ", ") + std::string(b.name);
        return fail(errc::args_invalid, "unknown search backend \"" + s.backend.substr(0, 64) + "\"", "Use one of: " + known + ".",
                    json{{"backend", s.backend.substr(0, 64)}});
    }
    endpoint where;
    where.url = s.url.empty() ? std::string(info->default_url) : s.url;
    if (where.url.empty())
        return fail(errc::search_unconfigured, std::string(info->name) + " needs the URL of an instance",
                    "Pass --search-url, e.g. --search-url http://127.0.0.1:8888 for a SearXNG on this machine.");
    const auto u = parse_url(where.url);
    if (!u || !u->has_authority || (u->scheme != "http" && u->scheme != "https") || u->host.empty())
        return fail(errc::args_invalid, "the search URL is not an http:// or https:// URL: " + net::redact_url(where.url),
                    "Pass the backend's full http(s) URL to --search-url.");
    if (!info->key_env.empty()) {
        const std::string var(info->key_env);
        const char* key = read(var.c_str());
        if (key == nullptr || *key == '\0')
            return fail(errc::search_unconfigured, std::string(info->name) + " needs an API key in the environment variable " + var,
                        "Set " + var + " (export " + var + "=...) and start again.", json{{"backend", info->name}, {"key_env", var}});
        where.key = key;
    }
    if (info->name == searxng::name) return any_backend(http_backend<searxng, Client>(client, std::move(where), s.options));
    if (info->name == brave::name) return any_backend(http_backend<brave, Client>(client, std::move(where), s.options));
    if (info->name == tavily::name) return any_backend(http_backend<tavily, Client>(client, std::move(where), s.options));
    return any_backend(http_backend<serper, Client>(client, std::move(where), s.options));
}

}  // namespace agentkit::search
