// tests/support/snapshot_refs.hpp — reading refs out of snapshot text, for the tests and the
// benchmarks that drive pages by what their snapshots show.
#pragma once

#include <regex>
#include <sstream>
#include <string>
#include <string_view>

namespace agentkit::test {

/// The first capture of `re` on the first line of `text` that contains `needle` and matches ("" when none).
inline std::string first_on_line(const std::string& text, std::string_view needle, const std::regex& re) {
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);) {
        if (line.find(needle) == std::string::npos) continue;
        std::smatch m;
        if (std::regex_search(line, m, re)) return m[1].str();
    }
    return {};
}

/// The ref on the first line of `text` that contains `needle` and carries a ref ("" when none).
inline std::string ref_on(const std::string& text, std::string_view needle) {
    static const std::regex re(R"(\[ref=([a-z]\d+)\])");
    return first_on_line(text, needle, re);
}

/// The ref that leads the first line of `text` containing `needle`, as the interactive-only view
/// writes a control (`e5 button "Send"`; "" when no such line has one).
inline std::string leading_ref_on(const std::string& text, std::string_view needle) {
    static const std::regex re(R"(^ *([a-gi-z]\d+) )");  // no ref starts with h: h2 is a heading
    return first_on_line(text, needle, re);
}

}  // namespace agentkit::test
