// agentkit/cdp.hpp — the Chrome DevTools Protocol driver: transports (pipe, WebSocket,
// replay), transcripts, browser launch, and the connection with flattened sessions.
#pragma once

#include <agentkit/cdp/connection.hpp>
#include <agentkit/cdp/launch.hpp>
#include <agentkit/cdp/pipe_transport.hpp>
#include <agentkit/cdp/replay_transport.hpp>
#include <agentkit/cdp/transport.hpp>
#include <agentkit/cdp/webdriver.hpp>
#include <agentkit/cdp/websocket_transport.hpp>
