// agentkit/search.hpp — web search without a browser: the query and its results, the backend
// concept and any_backend, the four built-in wire formats (SearXNG, Brave, Tavily, Serper), the
// HTTP backend over any net::http_client_like client, the cache, the searcher and configuration
// by name. No optional library: the libcurl client is <agentkit/net/http_client.hpp>
// (agentkit::curl). The web_search tool is a browser tool (<agentkit/browser.hpp>), so that a
// result's URL meets the browser's origin policy.
#pragma once

#include <agentkit/core/http.hpp>
#include <agentkit/search/adapter.hpp>
#include <agentkit/search/backend.hpp>
#include <agentkit/search/brave.hpp>
#include <agentkit/search/cache.hpp>
#include <agentkit/search/config.hpp>
#include <agentkit/search/http_backend.hpp>
#include <agentkit/search/query.hpp>
#include <agentkit/search/searcher.hpp>
#include <agentkit/search/searxng.hpp>
#include <agentkit/search/serper.hpp>
#include <agentkit/search/tavily.hpp>
