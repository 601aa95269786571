// Shared argument types for the core tests.
#pragma once

#include <agentkit/agentkit.hpp>

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace ak_test {

enum class color { red, green, blue };

struct point {
    int x = 0;
    int y = 0;
    static constexpr auto agentkit_fields() {
        return agentkit::fields(AGENTKIT_FIELD(point, x, "Horizontal position", agentkit::range(0, 1000)),
                                AGENTKIT_FIELD(point, y, "Vertical position", agentkit::range(0, 1000)));
    }
};

struct draw_args {
    std::string label;
    std::optional<std::string> url;
    color fill = color::red;
    std::vector<point> points;
    std::optional<double> opacity;
    bool dashed = false;
    std::map<std::string, std::string> style;
    unsigned retries = 0;

    static constexpr auto agentkit_fields() {
        namespace ak = agentkit;
        return ak::fields(
            AGENTKIT_FIELD(draw_args, label, "Text drawn next to the shape", ak::min_length(1), ak::max_length(8),
                           ak::pattern("^[A-Za-z]")),
            AGENTKIT_FIELD(draw_args, url, "Link target", ak::format("uri")),
            AGENTKIT_FIELD(draw_args, fill, "Fill colour", ak::default_value("red")),
            AGENTKIT_FIELD(draw_args, points, "Polygon corners", ak::min_items(1), ak::max_items(4)),
            AGENTKIT_FIELD(draw_args, opacity, "0 transparent, 1 opaque", ak::range(0.0, 1.0)),
            AGENTKIT_FIELD(draw_args, dashed, "Dashed outline", ak::default_value(false)),
            AGENTKIT_FIELD(draw_args, style, "Extra CSS properties"),
            AGENTKIT_FIELD(draw_args, retries, "Retry count", ak::maximum(5), ak::default_value(0)));
    }
};

}  // namespace ak_test

AGENTKIT_ENUM(ak_test::color, red, green, blue);
