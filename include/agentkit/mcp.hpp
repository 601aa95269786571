// agentkit/mcp.hpp — the MCP server: a toolbox, a masked toolbox or an agent session served with
// resources, prompts and completions, both protocol eras, over stdio (here) or Streamable HTTP
// (<agentkit/net/mcp_http.hpp>, which needs agentkit::net).
#pragma once

#include <agentkit/core.hpp>
#include <agentkit/visibility/masker.hpp>
#include <agentkit/mcp/server.hpp>
