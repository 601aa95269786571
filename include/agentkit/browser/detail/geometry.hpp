// agentkit/browser/detail/geometry.hpp — rectangles in CSS pixels and the bounds of CDP quads
// (DOM.getContentQuads, DOM.getBoxModel), for marks and coordinate actions.
#pragma once

#include <agentkit/core/json.hpp>

#include <algorithm>
#include <cstddef>

namespace agentkit::browser::detail {

/// A rectangle in CSS px (x0, y0) to (x1, y1); empty when x1 <= x0 or y1 <= y0.
struct css_rect {
    double x0 = 0, y0 = 0, x1 = 0, y1 = 0;
    /// Less than a pixel wide or high.
    [[nodiscard]] bool empty() const { return x1 - x0 < 1 || y1 - y0 < 1; }
    /// The part inside both.
    [[nodiscard]] css_rect intersect(const css_rect& o) const {
        return {std::max(x0, o.x0), std::max(y0, o.y0), std::min(x1, o.x1), std::min(y1, o.y1)};
    }
};

/// The bounding rectangle of CDP quads (8 numbers each); empty when there are none.
inline css_rect quads_bounds(const json& quads) {
    css_rect r{1e18, 1e18, -1e18, -1e18};
    if (!quads.is_array()) return {};
    for (const auto& q : quads) {
        if (!q.is_array() || q.size() < 8) continue;
        for (std::size_t i = 0; i + 1 < 8; i += 2) {
            if (!q[i].is_number() || !q[i + 1].is_number()) continue;
            const double x = q[i].get<double>(), y = q[i + 1].get<double>();
            r.x0 = std::min(r.x0, x), r.x1 = std::max(r.x1, x), r.y0 = std::min(r.y0, y), r.y1 = std::max(r.y1, y);
        }
    }
    return r.x1 < r.x0 ? css_rect{} : r;
}

}  // namespace agentkit::browser::detail
