// agentkit/mcp/client/remote_tools.hpp — a remote MCP server's tools as agentkit tools: run-time tools
// (tools/runtime_toolbox.hpp) that go into a toolbox, an agent_session and every masker beside
// compile-time tools.
//
//   std::shared_ptr<agentkit::mcp::client> c = std::move(*connected);
//   agentkit::runtime_toolbox box;
//   agentkit::mcp::add_remote_tools(box, c, {.prefix = "memory_"});
//   agentkit::agent_session session{box, agentkit::menu_runtime{...}};
//
// Each tool keeps the server's description, title, inputSchema (as sent: `$ref` stays a
// reference) and annotations (as traits). Arguments are checked against the inputSchema before a
// call leaves the host (`args.invalid` naming the problem; the server is not called). A call goes
// through client::call_tool with the call's tool_context: its stop token cancels the remote call,
// its deadline bounds it, its progress callback receives the server's progress. The server's
// result becomes the tool output (text, images, audio, resource links and embedded resources,
// structuredContent, isError); failures to call carry the server's name.
//
// Names: a remote name that is not a valid agentkit tool name (1-64 characters of
// [A-Za-z0-9_.-]) is made one (other characters become '_', cut at 64); a name already in the
// toolbox gets the prefix `<server>_` when no prefix was given, then a number. The remote name
// is what the server is called with, whatever the local one.
#pragma once

#include <agentkit/mcp/client/client.hpp>
#include <agentkit/core/error.hpp>
#include <agentkit/core/fixed_string.hpp>
#include <agentkit/core/json.hpp>
#include <agentkit/core/result.hpp>
#include <agentkit/tools/context.hpp>
#include <agentkit/tools/runtime_toolbox.hpp>
#include <agentkit/tools/tool.hpp>

#include <algorithm>
#include <cstddef>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace agentkit::mcp {

/// How a server's tools are added to a toolbox.
struct remote_tool_options {
    /// Put before every local name ("memory_"); empty: the remote names, prefixed only on a collision.
    std::string prefix;
    /// Check arguments against the inputSchema before calling (the server checks them anyway).
    bool validate = true;
    /// Only these remote tools (empty: all).
    std::vector<std::string> only;
};

/// A valid agentkit tool name made from `s` (see the file comment).
[[nodiscard]] inline std::string local_tool_name(std::string_view s) {
    std::string out;
    for (char c : s) {
        const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '.' || c == '-';
        out += ok ? c : '_';
        if (out.size() == 64) break;
    }
    if (out.empty()) out = "tool";
    return out;
}

/// One remote tool as a run-time tool named `local_name`, calling `remote_name` on `c`.
[[nodiscard]] inline runtime_tool remote_tool(std::shared_ptr<client> c, tool_info info, std::string local_name, bool validate = true) {
    runtime_tool t;
    std::string remote_name = info.name;
    info.name = std::move(local_name);
    t.info = std::move(info);
    t.validate = validate;
    t.handler = [c = std::move(c), remote_name = std::move(remote_name)](const json& args, tool_context& ctx) -> result<tool_output> {
        return c->call_tool(remote_name, args, ctx);
    };
    return t;
}

/// Add the tools `c` lists now (every page of tools/list) to `box`; returns the local names
/// added, in the server's order. Errors: the listing's (the server is down, malformed lists).
/// The client stays alive as long as a tool refers to it.
inline result<std::vector<std::string>> add_remote_tools(runtime_toolbox& box, const std::shared_ptr<client>& c, remote_tool_options o = {}) {
    auto listed = c->list_tools();
    if (!listed) return fail(std::move(listed).error());
    std::vector<std::string> added;
    const std::string server_prefix = local_tool_name(c->name()) + "_";
    for (auto& info : *listed) {
        if (!o.only.empty() && std::find(o.only.begin(), o.only.end(), info.name) == o.only.end()) continue;
        std::string base = local_tool_name(o.prefix + info.name);
        std::string name = base;
        if (box.contains(name) && o.prefix.empty()) name = base = local_tool_name(server_prefix + info.name);
        for (int n = 2; box.contains(name); ++n) {
            std::string suffix(1, '_');  // appended, not "_" + ...: g++ 12 -O3 misreads that insert (stringop-overflow)
            suffix += std::to_string(n);
            name = base.substr(0, 64 - suffix.size()) + suffix;
        }
        if (auto r = box.add(remote_tool(c, std::move(info), name, o.validate)); !r) return fail(std::move(r).error());
        added.push_back(std::move(name));
    }
    return added;
}

/// A toolbox of the tools `c` lists now (see add_remote_tools()).
[[nodiscard]] inline result<runtime_toolbox> remote_tools(const std::shared_ptr<client>& c, remote_tool_options o = {}) {
    runtime_toolbox box;
    if (auto r = add_remote_tools(box, c, std::move(o)); !r) return fail(std::move(r).error());
    return box;
}

}  // namespace agentkit::mcp
