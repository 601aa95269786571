// agentkit/mcp.hpp — MCP both ways. The server: a toolbox, a masked toolbox or an agent session
// served with resources, prompts and completions, both protocol eras, over stdio (here) or
// Streamable HTTP (<agentkit/mcp/http/server.hpp>, which needs agentkit::net). The client: an MCP
// server's tools, resources and prompts over stdio (here) or Streamable HTTP
// (<agentkit/mcp/http/client.hpp>, which needs agentkit::curl), its tools usable as agentkit
// tools (mcp/client/remote_tools.hpp).
#pragma once

#include <agentkit/core.hpp>
#include <agentkit/visibility/masker.hpp>
#include <agentkit/mcp/server/server.hpp>
#include <agentkit/mcp/client/transport.hpp>
#include <agentkit/mcp/client/client.hpp>
#include <agentkit/mcp/client/stdio.hpp>
#include <agentkit/mcp/client/remote_tools.hpp>
#include <agentkit/mcp/gateway/input_relay.hpp>
#include <agentkit/mcp/gateway/gateway.hpp>
