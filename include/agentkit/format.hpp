// agentkit/format.hpp — compact results: budgets and cuts, artifacts kept out of band, formatters and
// the Result / Summary / Artifacts report.
#pragma once

#include <agentkit/core.hpp>
#include <agentkit/format/artifact_reader.hpp>
#include <agentkit/format/artifacts.hpp>
#include <agentkit/format/budget.hpp>
#include <agentkit/format/compact.hpp>
#include <agentkit/format/formatter.hpp>
#include <agentkit/format/report.hpp>
