// agentkit/browser/tools/interact.hpp — browser tools: several steps in one call (browser_interact).
// Part of browser/tools.hpp (include that): each tool, its argument struct and a factory;
// tools.hpp registers them in browser_tools().
#pragma once

#include <agentkit/browser/tools/support.hpp>
#include <agentkit/format/compact.hpp>

namespace agentkit::browser {

/// One step of browser_interact.
struct interact_step {
    std::string action;                              ///< the step: navigate, click, type, select, ...
    std::optional<std::string> ref;                  ///< element ref
    std::optional<std::string> target;               ///< same as ref
    std::optional<std::string> text;                 ///< type: the text; wait: text to wait for
    std::optional<std::string> value;                ///< select: one option
    std::optional<std::vector<std::string>> values;  ///< select: several options
    std::optional<std::string> url;                  ///< navigate: the URL
    std::optional<std::string> key;                  ///< press: key or chord
    std::optional<std::string> state;                ///< wait: element state for ref
    std::optional<bool> submit;                      ///< type: press Enter afterwards
    static constexpr auto agentkit_fields() {
        return fields(
            AGENTKIT_FIELD(interact_step, action, "",
                           one_of("navigate", "click", "type", "select", "check", "uncheck", "press", "hover", "wait")),
            AGENTKIT_FIELD(interact_step, ref, ""), AGENTKIT_FIELD(interact_step, target, "", hidden()),
            AGENTKIT_FIELD(interact_step, text, "type, wait"),
            AGENTKIT_FIELD(interact_step, value, "select"),
            AGENTKIT_FIELD(interact_step, values, "select"),
            AGENTKIT_FIELD(interact_step, url, "navigate"), AGENTKIT_FIELD(interact_step, key, "press"),
            AGENTKIT_FIELD(interact_step, state, "wait"),
            AGENTKIT_FIELD(interact_step, submit, "type"));
    }
};

/// Arguments of browser_interact.
struct interact_args {
    std::vector<interact_step> steps;        ///< steps run in order; the first error stops the rest
    std::optional<std::string> expect_text;  ///< postcondition: this text is on the page at the end
    std::optional<std::string> expect_url;   ///< postcondition: the final URL contains this
    static constexpr auto agentkit_fields() {
        return fields(AGENTKIT_FIELD(interact_args, steps, "",
                                     min_items(1), max_items(50)),
                      AGENTKIT_FIELD(interact_args, expect_text, "Text on the page at the end"),
                      AGENTKIT_FIELD(interact_args, expect_url, "Text in the final URL"));
    }
};

namespace detail {

/// One step of browser_interact; returns a compact status and the action result.
inline result<action_result> run_step(browser& b, const interact_step& s) {
    auto el = [&]() { return detail::element_of(s.ref, s.target); };
    if (s.action == "navigate") {
        if (!s.url) return fail(errc::args_invalid, "navigate needs `url`");
        return b.navigate(*s.url);
    }
    if (s.action == "press") {
        if (!s.key) return fail(errc::args_invalid, "press needs `key`");
        return b.press(*s.key, s.ref ? *s.ref : (s.target ? *s.target : std::string()));
    }
    if (s.action == "wait") {
        wait_options w;
        if (s.text) w.text = *s.text;
        if (s.ref || s.target) {
            auto r = el();
            if (!r) return fail(r.error());
            w.ref = *r;
            if (s.state) w.state = *s.state;
        }
        if (w.text.empty() && w.ref.empty()) return fail(errc::args_invalid, "wait needs `text` or `ref`");
        return b.wait_for(w);
    }
    auto r = el();
    if (!r) return fail(r.error());
    if (s.action == "click") return b.click(*r);
    if (s.action == "hover") return b.hover(*r);
    if (s.action == "check") return b.set_checked(*r, true);
    if (s.action == "uncheck") return b.set_checked(*r, false);
    if (s.action == "type") {
        if (!s.text) return fail(errc::args_invalid, "type needs `text`");
        type_options o;
        o.submit = s.submit.value_or(false);
        return b.type(*r, *s.text, o);
    }
    if (s.action == "select") {
        std::vector<std::string> v = s.values.value_or(std::vector<std::string>{});
        if (s.value) v.push_back(*s.value);
        if (v.empty()) return fail(errc::args_invalid, "select needs `value` or `values`");
        return b.select(*r, v);
    }
    return fail(errc::args_invalid, "unknown step action " + s.action);
}

}  // namespace detail

/// Make the browser_interact tool: run several steps in one call (navigate, click, type, select, check,
/// uncheck, press, hover, wait); stops at the first error; checks expect_text / expect_url at the end.
template <class State>
auto interact_tool(State& st) {
    tool_state* s = &st;
    return browser_tool<"browser_interact">(
        st,
        "Run several steps in one call; stops at the first error, then checks the expectations.",
        [s](const interact_args& a) -> result<tool_output> {
            // one line for the steps, in the one step wording (format/compact.hpp):
            // "type:35ms click:fail(element.covered) wait:skip"
            std::vector<compact::step> steps;
            action_result last;
            bool any = false;
            // only the last step's result is shown: no page of it is "as on" a page between
            struct whole_pages {
                browser& b;
                explicit whole_pages(browser& x) : b(x) { b.show_pages_whole(true); }
                ~whole_pages() { b.show_pages_whole(false); }
                whole_pages(const whole_pages&) = delete;
                whole_pages& operator=(const whole_pages&) = delete;
            } whole(s->b);
            for (std::size_t i = 0; i < a.steps.size(); ++i) {
                const auto t0 = std::chrono::steady_clock::now();
                auto r = detail::run_step(s->b, a.steps[i]);
                const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - t0).count();
                if (!r) {
                    steps.emplace_back(a.steps[i].action, false, r.error().code);
                    for (std::size_t k = i + 1; k < a.steps.size(); ++k) steps.emplace_back(a.steps[k].action, true, "", -1, true);
                    tool_output o = tool_output::text(compact::steps(steps) + "\nstep " + std::to_string(i + 1) + " (" +
                                                      a.steps[i].action + ") failed: " + r.error().to_text() + "\n" +
                                                      (any ? last.to_text() : std::string()));
                    o.is_error = true;
                    return o;
                }
                steps.emplace_back(a.steps[i].action, true, "", static_cast<long long>(ms));
                // Only the last step's result is shown: its URLs are named against where the
                // tab was before the first step, not against pages of steps not shown.
                const std::string from = any ? last.from_url : r->from_url;
                last = std::move(*r);
                last.from_url = from;
                any = true;
            }
            std::string post;
            bool ok = true;
            if (a.expect_text) {
                wait_options w;
                w.text = *a.expect_text;
                w.timeout = std::chrono::milliseconds(3000);
                auto r = s->b.wait_for(w);
                const bool found = r.has_value();
                post += std::string("expect_text \"") + *a.expect_text + "\": " + (found ? "ok" : "NOT FOUND") + "\n";
                ok = ok && found;
            }
            if (a.expect_url) {
                auto t = s->b.tabs();
                std::string url;
                if (t)
                    for (const auto& x : *t)
                        if (x.active) url = x.url;
                const bool match = url.find(*a.expect_url) != std::string::npos;
                post += "expect_url \"" + *a.expect_url + "\": " + (match ? "ok" : "NO (at " + url + ")") + "\n";
                ok = ok && match;
            }
            tool_output o = tool_output::text(compact::steps(steps) + "\n" + post + last.to_text());
            o.is_error = !ok;
            return o;
        },
        action_traits | long_running);
}

}  // namespace agentkit::browser
