// agentkit/mcp.hpp — the MCP server: a toolbox, a masked toolbox or an agent session served over
// stdio, both protocol eras.
#pragma once

#include <agentkit/core.hpp>
#include <agentkit/visibility/masker.hpp>
#include <agentkit/mcp/server.hpp>
