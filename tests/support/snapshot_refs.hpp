// tests/support/snapshot_refs.hpp — reading refs out of snapshot text, for the tests and the
// benchmarks that drive pages by what their snapshots show.
#pragma once

#include <regex>
#include <sstream>
#include <string>
#include <string_view>

namespace agentkit::test {

/// The ref on the first line of `text` that contains `needle` and carries a ref ("" when none).
inline std::string ref_on(const std::string& text, std::string_view needle) {
    static const std::regex re(R"(\[ref=([a-z]\d+)\])");
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);) {
        if (line.find(needle) == std::string::npos) continue;
        std::smatch m;
        if (std::regex_search(line, m, re)) return m[1].str();
    }
    return {};
}

}  // namespace agentkit::test
