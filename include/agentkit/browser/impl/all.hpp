// agentkit/browser/impl/all.hpp — the browser engine's definitions (the member functions
// browser.hpp declares). Header-only builds get them at the end of browser.hpp; with
// AGENTKIT_SEPARATE_COMPILATION only <agentkit/src.hpp> includes them.
#pragma once

#include <agentkit/browser/impl/lifecycle.hpp>
#include <agentkit/browser/impl/policy.hpp>
#include <agentkit/browser/impl/events.hpp>
#include <agentkit/browser/impl/tabs.hpp>
#include <agentkit/browser/impl/navigation.hpp>
#include <agentkit/browser/impl/capture.hpp>
#include <agentkit/browser/impl/aria.hpp>
#include <agentkit/browser/impl/refs.hpp>
#include <agentkit/browser/impl/actions.hpp>
#include <agentkit/browser/impl/pointer.hpp>
#include <agentkit/browser/impl/settle.hpp>
#include <agentkit/browser/impl/waits.hpp>
#include <agentkit/browser/impl/page.hpp>
#include <agentkit/browser/impl/marks.hpp>
#include <agentkit/browser/impl/downloads.hpp>
#include <agentkit/browser/impl/batch.hpp>
#include <agentkit/browser/impl/recording.hpp>
#include <agentkit/browser/impl/storage.hpp>
#include <agentkit/browser/impl/routes.hpp>
#include <agentkit/browser/impl/live.hpp>
