// agentkit/session.hpp — the agent session: provider requests (Anthropic, OpenAI Chat and
// Responses), the model loop with maskers and formatters, scripted models, metrics, and the
// assembly of streamed responses.
#pragma once

#include <agentkit/core.hpp>
#include <agentkit/format.hpp>
#include <agentkit/visibility.hpp>
#include <agentkit/session/context.hpp>
#include <agentkit/session/message.hpp>
#include <agentkit/session/metrics.hpp>
#include <agentkit/session/model.hpp>
#include <agentkit/session/provider.hpp>
#include <agentkit/session/request.hpp>
#include <agentkit/session/session.hpp>
#include <agentkit/session/stream.hpp>
