// agentkit/visibility.hpp — visibility maskers: all visible, menus of modes, intent classes, the
// retrieval router and frozen scope (masked, never removed), with the core entry point.
#pragma once

#include <agentkit/core.hpp>
#include <agentkit/visibility/analyzer.hpp>
#include <agentkit/visibility/embedder.hpp>
#include <agentkit/visibility/embedding_endpoint.hpp>
#include <agentkit/visibility/frozen_scope.hpp>
#include <agentkit/visibility/intent.hpp>
#include <agentkit/visibility/lexicon.hpp>
#include <agentkit/visibility/masked_call.hpp>
#include <agentkit/visibility/masker.hpp>
#include <agentkit/visibility/menu.hpp>
#include <agentkit/visibility/retriever.hpp>
#include <agentkit/visibility/router.hpp>
#include <agentkit/visibility/signal.hpp>
#include <agentkit/visibility/strategy.hpp>
#include <agentkit/visibility/tool_doc.hpp>
#include <agentkit/visibility/tool_index.hpp>
#include <agentkit/visibility/usage_log.hpp>
#include <agentkit/visibility/vector_cache.hpp>
