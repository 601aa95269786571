// tests/visibility/intent_fixture.hpp — the catalogue and intent classes the intent_classes
// tests share (intent_test.cpp, masker_state_test.cpp).
#pragma once

#include <agentkit/visibility/intent.hpp>

#include <string>
#include <vector>

namespace intent_fixture {

/// Seven tools: three for the web, three for the machine, one in no class.
inline std::vector<agentkit::tool_info> catalogue() {
    std::vector<agentkit::tool_info> c;
    for (auto n : {"browser_search", "browser_navigate", "browser_click", "file_read", "file_write", "shell_exec", "think_hard"}) {
        agentkit::tool_info t;
        t.name = n;
        t.description = std::string("Tool ") + n;
        t.input_schema = agentkit::json{{"type", "object"}};
        c.push_back(std::move(t));
    }
    return c;
}

/// Three classes: chat (no tools), browser and local.
inline std::vector<agentkit::intent_class> classes() {
    namespace ak = agentkit;
    return {
        {"chat", "Conversation answered from knowledge", {}, {{"hello", 2}, {"thanks", 2}, {"joke", 2}}, {}},
        {"browser", "The web: search, open pages, click, fill forms", {"browser_search", "browser_navigate", "browser_click"},
         {{"search", 2}, {"website", 2}, {"click", 2}, {"news", 1.5}, {"web page", 2}},
         {{ak::intent_patterns::url, 3}}},
        {"local", "Files and programs on this machine", {"file_read", "file_write", "shell_exec"},
         {{"file", 2}, {"folder", 2}, {"run", 1}, {"script", 1.5}},
         {{ak::intent_patterns::file_path, 3}}},
    };
}

}  // namespace intent_fixture
