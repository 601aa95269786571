// The toolbox of toolbox_once_test.cpp, shared with toolbox_once_instantiate.cpp: built in an
// inline function, so that its tools are lambdas (as the browser's are) whose types are the
// same in both translation units.
#pragma once

#include <agentkit/tools/tool.hpp>
#include <agentkit/tools/toolbox.hpp>

#include <string>
#include <utility>

namespace once_test {

struct word_args {
    std::string word;
    int times = 1;
    static constexpr auto agentkit_fields() {
        return agentkit::fields(AGENTKIT_FIELD(word_args, word, "The word", agentkit::min_length(1)),
                                AGENTKIT_FIELD(word_args, times, "How many times", agentkit::range(1, 5)));
    }
};

/// A counter the tools share, so that a call's effect is seen by the caller.
struct counter {
    int calls = 0;
};

inline auto make_box(counter& c) {
    return agentkit::toolbox{
        agentkit::tool<"repeat">("Repeat a word.",
                                 [&c](const word_args& a) {
                                     ++c.calls;
                                     std::string out;
                                     for (int i = 0; i < a.times; ++i) out += (i ? " " : "") + a.word;
                                     return out;
                                 }),
        agentkit::tool<"count">("How many calls were made.", [&c] { return std::to_string(c.calls); }, agentkit::read_only)};
}

using box_type = decltype(make_box(std::declval<counter&>()));

}  // namespace once_test

AGENTKIT_EXTERN_TOOLBOX(once_test::box_type);
