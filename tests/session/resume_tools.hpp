// The tools and masker of a session saved by tests/session/save_restore_test.cpp and resumed by
// tests/session/resume_main.cpp in another process: both sides build the same session. Other
// session tests borrow the tools (observer_test.cpp).
#pragma once

#include <agentkit/session.hpp>

#include <string>

namespace resume_fixture {

namespace ak = agentkit;

struct key_args {
    std::string key;
    static constexpr auto agentkit_fields() { return agentkit::fields(AGENTKIT_FIELD(key_args, key, "Key", agentkit::min_length(1))); }
};

inline const auto lookup = ak::tool<"lookup">("Look a key up.", [](const key_args& a) { return "value of " + a.key; }, ak::read_only);
inline const auto page = ak::tool<"read_page">("A long page.", [](const key_args& a) {
    std::string s;
    for (int i = 0; i < 3000; ++i) s += "line " + std::to_string(i) + " of page " + a.key + "\n";
    return s;
}, ak::read_only);
inline const auto broken = ak::tool<"broken">("Always fails.", [](const key_args& a) -> ak::result<std::string> {
    return ak::fail(ak::errc::not_found, "nothing at " + a.key, "Try another key.");
});

inline const auto box = ak::toolbox{lookup, page, broken};

/// The masker both processes build: a menu of two modes over the three tools.
inline auto make_menu() {
    return ak::menu_for<decltype(box)>(ak::mode<"reading">(lookup, page).describe("Read keys and pages."),
                                       ak::mode<"failing">(broken).describe("A tool that fails."));
}

/// The options both processes use (the session id comes from the saved document).
inline ak::session_options options() {
    ak::session_options o;
    o.system_prompt = "You look keys up.";
    return o;
}

}  // namespace resume_fixture
