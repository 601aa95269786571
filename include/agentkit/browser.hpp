// agentkit/browser.hpp — the browser: Chromium over CDP with snapshots, refs, actions and the
// origin policy, as a C++ API (browser/browser.hpp) and as model-facing tools with their menu
// and agentkit-browser-mcp's configuration.
#pragma once

#include <agentkit/browser/artifacts.hpp>
#include <agentkit/browser/browser.hpp>
#include <agentkit/browser/live/call_gate.hpp>
#include <agentkit/browser/capture_rule.hpp>
#include <agentkit/browser/config.hpp>
#include <agentkit/browser/live/frame_pump.hpp>
#include <agentkit/browser/keys.hpp>
#include <agentkit/browser/live/live_view.hpp>
#include <agentkit/browser/menu.hpp>
#include <agentkit/browser/policy.hpp>
#include <agentkit/browser/readable.hpp>
#include <agentkit/browser/shared_process.hpp>
#include <agentkit/browser/snapshot.hpp>
#include <agentkit/browser/socket_gate.hpp>
#include <agentkit/browser/live/timeline.hpp>
#include <agentkit/browser/tools.hpp>
#include <agentkit/cdp.hpp>
