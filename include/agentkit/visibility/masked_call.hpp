// agentkit/visibility/masked_call.hpp — the one rule for a call that meets a masker.
//
// A call goes, in this order, to:
//   1. the masker, when it is one of the masker's meta-tools (menu_enter, tool_search, ...):
//      its answer is the result (a masker that throws is reported as `internal`, never
//      propagated; a meta-tool the masker does not handle now answers as a hidden tool);
//   2. the masker's guidance, when the tool is not visible now (a hidden host tool, or a name
//      the masker knows, such as a deferred tool's capability.unsupported envelope);
//   3. the toolbox's "no tool named …" answer (with the closest names), when nobody knows it;
//   4. the tool itself, when it is visible: the caller runs it, then calls masked_observe().
//
// agent_session's model loop, its serve_call() and the MCP server's masked backend all use
// this, so a call is answered the same way whoever makes it.
//
//   auto route = agentkit::masked_call(masker, box, meta_names, name, args);
//   if (route.answer) return std::move(*route.answer);          // 1-3
//   auto r = box.call_at(*route.index, args, ctx);               // 4
//   agentkit::masked_observe(masker, name, args, r);
#pragma once

#include <agentkit/visibility/masker.hpp>
#include <agentkit/core/error.hpp>
#include <agentkit/core/json.hpp>
#include <agentkit/core/result.hpp>
#include <agentkit/tools/output.hpp>

#include <cstddef>
#include <optional>
#include <string_view>
#include <utility>

namespace agentkit {

/// Where a call goes: `answer` when it does not reach a host tool, else the tool's `index` in the
/// toolbox. `meta` tells that the masker answered one of its meta-tools.
struct masked_route {
    /// The result when the call does not reach a host tool (a meta-tool, a hidden or unknown tool).
    std::optional<result<tool_output>> answer;
    std::optional<std::size_t> index;  ///< the host tool's index in the toolbox when the call reaches it
    bool meta = false;                 ///< the masker answered one of its meta-tools
};

/// Decide where a call goes (see the file comment). `is_meta(name)` says whether `name` is one of
/// the masker's meta-tools; `box` offers find(name) and unknown(name). Never throws.
template <masker M, class Box, class IsMeta>
[[nodiscard]] masked_route masked_call(M& m, const Box& box, IsMeta&& is_meta, std::string_view name, const json& args) {
    masked_route route;
    if (is_meta(name)) {
        route.meta = true;
        std::optional<result<tool_output>> r;
        try {
            r = m.handle_meta(name, args);
        } catch (...) {
            r = result<tool_output>(fail(errc::internal, "the masker raised an exception"));
        }
        route.answer = r ? std::move(*r) : m.answer_hidden(name);
        return route;
    }
    const auto idx = box.find(name);
    if (!m.is_visible(name)) {
        // a hidden host tool: the masker's guidance; another name: the masker may still know it
        // (a deferred tool's envelope, a normal result), else it is unknown
        result<tool_output> h = m.answer_hidden(name);
        if (!h && !idx) h = result<tool_output>(box.unknown(name));
        route.answer = std::move(h);
        return route;
    }
    if (!idx) {
        route.answer = result<tool_output>(box.unknown(name));
        return route;
    }
    route.index = idx;
    return route;
}

/// Tell the masker how a host tool call that ran ended (routers learn from successful calls).
template <masker M>
void masked_observe(M& m, std::string_view name, const json& args, const result<tool_output>& r) {
    m.observe_call(name, args, r.has_value() && !r->is_error);
}

}  // namespace agentkit
