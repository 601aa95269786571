// agentkit/mcp.hpp — MCP both ways. The server: a toolbox, a masked toolbox or an agent session
// served with resources, prompts and completions, both protocol eras, over stdio (here) or
// Streamable HTTP (<agentkit/net/mcp_http.hpp>, which needs agentkit::net). The client: an MCP
// server's tools, resources and prompts over stdio (here) or Streamable HTTP
// (<agentkit/net/mcp_client_http.hpp>, which needs agentkit::curl), its tools usable as agentkit
// tools (mcp/remote_tools.hpp).
#pragma once

#include <agentkit/core.hpp>
#include <agentkit/visibility/masker.hpp>
#include <agentkit/mcp/server.hpp>
#include <agentkit/mcp/client_transport.hpp>
#include <agentkit/mcp/client.hpp>
#include <agentkit/mcp/stdio_client.hpp>
#include <agentkit/mcp/remote_tools.hpp>
#include <agentkit/mcp/input_relay.hpp>
#include <agentkit/mcp/gateway.hpp>
