// agentkit/browser/tools.hpp — the browser as model-facing tools, drop-in compatible with
// Playwright MCP's tool and argument names, plus agentkit's own compound tools.
//
//   agentkit::browser::browser b{opts};
//   agentkit::browser::bounded_artifacts store;              // bounded, per session
//   agentkit::browser::tool_state state{b, store};
//   auto tools = agentkit::browser::browser_tools(state);      // an agentkit::toolbox
//
// Element arguments accept `ref` and `target` (Playwright MCP renamed `ref` to `target`),
// with or without the `[ref=…]` wrapper; `element` (a human description) is accepted and
// ignored. Every result is compact text within a hard budget; screenshots and cut text go to
// the artifact store and results carry their ids (read back with browser_artifact).
//
// Layout: each tool is defined once, with its argument struct, in tools/<family>.hpp
// (navigation, snapshot, actions, page, logs, interact, batch, recording, session, search,
// vision, verify, storage, routes); this header registers them. Adding a tool: write `template <class State> auto x_tool(State&)` with
// browser_tool<"browser_x">(…) in its family's header, then add `x_tool(st)` below.
#pragma once

#include <agentkit/browser/tool_state.hpp>
#include <agentkit/browser/tools/actions.hpp>
#include <agentkit/browser/tools/batch.hpp>
#include <agentkit/browser/tools/interact.hpp>
#include <agentkit/browser/tools/logs.hpp>
#include <agentkit/browser/tools/navigation.hpp>
#include <agentkit/browser/tools/page.hpp>
#include <agentkit/browser/tools/playwright.hpp>
#include <agentkit/browser/tools/recording.hpp>
#include <agentkit/browser/tools/routes.hpp>
#include <agentkit/browser/tools/search.hpp>
#include <agentkit/browser/tools/session.hpp>
#include <agentkit/browser/tools/snapshot.hpp>
#include <agentkit/browser/tools/storage.hpp>
#include <agentkit/browser/tools/support.hpp>
#include <agentkit/browser/tools/verify.hpp>
#include <agentkit/browser/tools/vision.hpp>
#include <agentkit/tools/toolbox.hpp>

#include <type_traits>
#include <utility>  // declval

namespace agentkit::browser {

/// The browser tools over a shared state. The state must outlive the toolbox.
/// (A template so that only the translation units that build the toolbox pay for its
/// instantiation: header-only, including this header costs little. Under
/// AGENTKIT_SEPARATE_COMPILATION every translation unit that includes it names the toolbox's
/// type, some 4 s at -O0, and one that serves the tools saves some 40 s: their calls are
/// compiled in <agentkit/src.hpp>.)
template <class State = tool_state>
auto browser_tools(State& st) {
    static_assert(std::is_same_v<State, tool_state>, "browser_tools takes an agentkit::browser::tool_state");
    return toolbox{navigate_tool(st),   back_tool(st),       snapshot_tool(st),   click_tool(st),
                   type_tool(st),       hover_tool(st),      drag_tool(st),       select_tool(st),
                   fill_tool(st),       press_tool(st),      upload_tool(st),     dialog_tool(st),
                   screenshot_tool(st), evaluate_tool(st),   wait_tool(st),       console_tool(st),
                   network_tool(st),    tabs_tool(st),       resize_tool(st),     close_tool(st),
                   interact_tool(st),   artifact_tool(st),   metrics_tool(st),    extract_tool(st),
                   batch_tool(st),      recording_start_tool(st), recording_stop_tool(st),
                   click_xy_tool(st),   move_xy_tool(st),    drag_xy_tool(st),    mouse_down_tool(st),
                   mouse_up_tool(st),   wheel_tool(st),      web_search_tool(st), find_tool(st),
                   verify_element_tool(st), verify_text_tool(st), verify_list_tool(st), verify_value_tool(st),
                   generate_locator_tool(st), network_request_tool(st), drop_tool(st),
                   cookie_list_tool(st), cookie_get_tool(st), cookie_set_tool(st), cookie_delete_tool(st), cookie_clear_tool(st),
                   localstorage_list_tool(st), localstorage_get_tool(st), localstorage_set_tool(st), localstorage_delete_tool(st),
                   localstorage_clear_tool(st), sessionstorage_list_tool(st), sessionstorage_get_tool(st), sessionstorage_set_tool(st),
                   sessionstorage_delete_tool(st), sessionstorage_clear_tool(st), storage_save_tool(st), storage_load_tool(st),
                   route_tool(st), route_list_tool(st), unroute_tool(st), network_state_tool(st), pdf_tool(st),
                   start_tracing_tool(st), stop_tracing_tool(st),
                   emulate_media_tool(st), get_config_tool(st)};
}

}  // namespace agentkit::browser

#if defined(AGENTKIT_SEPARATE_COMPILATION)
namespace agentkit::browser::detail {
/// The toolbox browser_tools(tool_state&) returns.
using compiled_toolbox = decltype(browser_tools(std::declval<tool_state&>()));
}  // namespace agentkit::browser::detail
// Its tools are compiled once, in <agentkit/src.hpp>: a translation unit that serves them
// compiles none of them (some 40 s at -O0 each).
AGENTKIT_EXTERN_TOOLBOX(agentkit::browser::detail::compiled_toolbox);
#endif
