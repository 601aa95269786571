// agentkit/agentkit.hpp — the umbrella header: every public agentkit header.
//
// Keep this a plain, sorted list of includes (one per public header). It is also the root of
// the amalgamation: tools/amalgamate.py inlines everything reachable from here into
// single_include/agentkit/agentkit.hpp, and the umbrella_complete test fails when a header
// under include/agentkit/ is not reachable from this file.
#pragma once

#include <agentkit/browser/artifacts.hpp>
#include <agentkit/browser/browser.hpp>
#include <agentkit/browser/keys.hpp>
#include <agentkit/browser/policy.hpp>
#include <agentkit/browser/readable.hpp>
#include <agentkit/browser/snapshot.hpp>
#include <agentkit/browser/socket_gate.hpp>
#include <agentkit/browser/tools.hpp>
#include <agentkit/cdp.hpp>
#include <agentkit/cdp/connection.hpp>
#include <agentkit/cdp/launch.hpp>
#include <agentkit/cdp/pipe_transport.hpp>
#include <agentkit/cdp/replay_transport.hpp>
#include <agentkit/cdp/transport.hpp>
#include <agentkit/cdp/websocket_transport.hpp>
#include <agentkit/core/describe.hpp>
#include <agentkit/core/error.hpp>
#include <agentkit/core/fixed_string.hpp>
#include <agentkit/core/json.hpp>
#include <agentkit/core/parse.hpp>
#include <agentkit/core/result.hpp>
#include <agentkit/core/schema.hpp>
#include <agentkit/core/strings.hpp>
#include <agentkit/core/tokens.hpp>
#include <agentkit/format/artifacts.hpp>
#include <agentkit/format/budget.hpp>
#include <agentkit/format/compact.hpp>
#include <agentkit/format/formatter.hpp>
#include <agentkit/format/report.hpp>
#include <agentkit/mcp/server.hpp>
#include <agentkit/session/context.hpp>
#include <agentkit/session/message.hpp>
#include <agentkit/session/metrics.hpp>
#include <agentkit/session/model.hpp>
#include <agentkit/session/provider.hpp>
#include <agentkit/session/request.hpp>
#include <agentkit/session/session.hpp>
#include <agentkit/tools/context.hpp>
#include <agentkit/tools/export.hpp>
#include <agentkit/tools/output.hpp>
#include <agentkit/tools/tool.hpp>
#include <agentkit/tools/toolbox.hpp>
#include <agentkit/tools/traits.hpp>
#include <agentkit/version.hpp>
#include <agentkit/visibility/analyzer.hpp>
#include <agentkit/visibility/frozen_scope.hpp>
#include <agentkit/visibility/intent.hpp>
#include <agentkit/visibility/masker.hpp>
#include <agentkit/visibility/menu.hpp>
#include <agentkit/visibility/retriever.hpp>
#include <agentkit/visibility/router.hpp>
#include <agentkit/visibility/signal.hpp>
#include <agentkit/visibility/strategy.hpp>
#include <agentkit/visibility/tool_index.hpp>
