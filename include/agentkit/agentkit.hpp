// agentkit/agentkit.hpp — the umbrella header: every public agentkit header, through the
// entry points of each part. A host that needs less includes less:
//
//   <agentkit/core.hpp>        tools, schemas, the toolbox, exporters (the lightest)
//   <agentkit/visibility.hpp>  maskers: menus, intent classes, the router, frozen scope
//   <agentkit/format.hpp>      budgets, artifacts, formatters, the report
//   <agentkit/session.hpp>     the agent session and provider requests
//   <agentkit/mcp.hpp>         the MCP server
//   <agentkit/cdp.hpp>         the Chrome DevTools Protocol driver
//   <agentkit/browser.hpp>     the browser and its tools
//
// It is also the root of the amalgamation: tools/amalgamate.py inlines everything reachable from
// here into single_include/agentkit/agentkit.hpp, and the umbrella_complete test fails when a
// header under include/agentkit/ is not reachable from this file. (agentkit/net/ needs an
// optional library and is not part of it.)
#pragma once

#include <agentkit/browser.hpp>
#include <agentkit/cdp.hpp>
#include <agentkit/core.hpp>
#include <agentkit/format.hpp>
#include <agentkit/mcp.hpp>
#include <agentkit/search.hpp>
#include <agentkit/session.hpp>
#include <agentkit/version.hpp>
#include <agentkit/visibility.hpp>
