// agentkit/core.hpp — tools as typed descriptors: results and errors, argument structs that yield their
// JSON Schema and parser, tools, the compile-time toolbox and the provider/MCP exporters. The
// lightest entry point: no browser, no session, no MCP server.
#pragma once

#include <agentkit/core/base64.hpp>
#include <agentkit/core/describe.hpp>
#include <agentkit/core/error.hpp>
#include <agentkit/core/fixed_string.hpp>
#include <agentkit/core/json.hpp>
#include <agentkit/core/json_schema.hpp>
#include <agentkit/core/logging.hpp>
#include <agentkit/core/observer.hpp>
#include <agentkit/core/parse.hpp>
#include <agentkit/core/random.hpp>
#include <agentkit/core/result.hpp>
#include <agentkit/core/schema.hpp>
#include <agentkit/core/serialize.hpp>
#include <agentkit/core/spans.hpp>
#include <agentkit/core/strings.hpp>
#include <agentkit/core/tokens.hpp>
#include <agentkit/tools/context.hpp>
#include <agentkit/tools/export.hpp>
#include <agentkit/tools/runtime_toolbox.hpp>
#include <agentkit/tools/output.hpp>
#include <agentkit/tools/tool.hpp>
#include <agentkit/tools/toolbox.hpp>
#include <agentkit/tools/traits.hpp>
#include <agentkit/version.hpp>
