// tests/support/tool_text.hpp — what a tool's result says in text, for assertions.
#pragma once

#include <agentkit/core/result.hpp>
#include <agentkit/tools/output.hpp>

#include <string>

namespace agentkit::test {

/// The text blocks of a tool's result, joined as written; `ERROR <error>` when the call failed.
inline std::string text_of(const result<tool_output>& r) {
    if (!r) return "ERROR " + r.error().to_text();
    std::string s;
    for (const auto& b : r->content)
        if (b.type == content_block::kind::text) s += b.text;
    return s;
}

}  // namespace agentkit::test
