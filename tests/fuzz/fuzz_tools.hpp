// Tools shared by the fuzz targets: typed arguments with every kind of constraint.
#pragma once
#include <agentkit/agentkit.hpp>

#include "core/test_types.hpp"

#include <string>

namespace fuzz {

struct text_args {
    std::string text;
    static constexpr auto agentkit_fields() {
        return agentkit::fields(AGENTKIT_FIELD(text_args, text, "Text", agentkit::min_length(1), agentkit::max_length(64)));
    }
};

inline const auto echo = agentkit::tool<"echo">("Echo text.", [](const text_args& a) { return a.text; },
                                                agentkit::read_only | agentkit::parallel_safe);
inline const auto draw = agentkit::tool<"draw">("Draw a shape.", [](const ak_test::draw_args& a) {
    return a.label + " " + std::to_string(a.points.size());
});
inline const auto fails = agentkit::tool<"fails">("Always fails.", [](const text_args&) -> agentkit::result<std::string> {
    return agentkit::fail(agentkit::errc::tool_failed, "it failed", "Do not call it again.");
});
inline const auto throws = agentkit::tool<"throws">("Throws.", [](const text_args& a) -> std::string {
    if (!a.text.empty()) throw std::runtime_error("thrown");
    return a.text;
});

inline const agentkit::toolbox box{echo, draw, fails, throws};

}  // namespace fuzz
