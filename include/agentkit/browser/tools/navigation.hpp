// agentkit/browser/tools/navigation.hpp — browser tools: navigating, tabs, the viewport and closing the browser.
// Part of browser/tools.hpp (include that): each tool, its argument struct and a factory;
// tools.hpp registers them in browser_tools().
#pragma once

#include <agentkit/browser/tools/playwright.hpp>
#include <agentkit/browser/tools/support.hpp>

namespace agentkit::browser {

/// Arguments of browser_navigate.
struct navigate_args {
    std::string url;  ///< the URL to open
    static constexpr auto agentkit_fields() {
        return fields(AGENTKIT_FIELD(navigate_args, url, "", min_length(1)));
    }
};

/// Arguments of browser_tabs.
struct tabs_args {
    std::string action;              ///< what to do
    std::optional<int> index;        ///< tab index for select and close
    std::optional<std::string> url;  ///< URL to open in a new tab
    static constexpr auto agentkit_fields() {
        return fields(AGENTKIT_FIELD(tabs_args, action, "", one_of("list", "new", "select", "close")),
                      AGENTKIT_FIELD(tabs_args, index, "For select and close", minimum(0)),
                      AGENTKIT_FIELD(tabs_args, url, "For new"));
    }
};

/// Arguments of browser_resize.
struct resize_args {
    int width = 0;               ///< viewport width in CSS pixels
    int height = 0;              ///< viewport height in CSS pixels
    std::optional<bool> mobile;  ///< emulate a touch phone
    static constexpr auto agentkit_fields() {
        return fields(AGENTKIT_FIELD(resize_args, width, "CSS pixels", range(100, 8000)),
                      AGENTKIT_FIELD(resize_args, height, "CSS pixels", range(100, 8000)),
                      AGENTKIT_FIELD(resize_args, mobile, "Emulate a phone"));
    }
};

/// Make the browser_navigate tool: open a URL in the current tab.
template <class State>
auto navigate_tool(State& st) {
    tool_state* s = &st;
    return browser_tool<"browser_navigate">(
        st,
        "Open a URL. Returns the title and a compact snapshot (the final URL after a redirect, the status if not OK).",
        [s](const navigate_args& a) -> result<tool_output> {
            if (!detail::pw_mode(*s)) return detail::text_of(s->b.navigate(a.url));
            auto r = s->b.navigate(a.url);
            if (!r && r.error().is(errc::policy_blocked) && a.url.rfind("file:", 0) == 0)  // Playwright's words for it
                return fail(errc::policy_blocked, "Access to \"file:\" protocol is blocked. Attempted URL: \"" + a.url + "\"",
                            "Start the server with --allow-unrestricted-file-access to open local files.");
            if (!r && r.error().is(errc::policy_blocked) && r.error().message.find("navigation to ") == 0) {
                // the browser's own words for a request refused before it left (as Playwright's
                // blocked origins read), then the rule
                error e = r.error();
                e.message = "page.goto: net::ERR_BLOCKED_BY_CLIENT at " + a.url + " (" + e.message + ")";
                return fail(std::move(e));
            }
            return detail::pw_action(*s, std::move(r), {pw::goto_url(a.url, s->options.codegen)}, true);
        },
        action_traits | long_running);
}

/// Make the browser_navigate_back tool: go back to the previous page.
template <class State>
auto back_tool(State& st) {
    tool_state* s = &st;
    return browser_tool<"browser_navigate_back">(
        st,
        "Go back.",
        [s]() -> result<tool_output> {
            if (!detail::pw_mode(*s)) return detail::text_of(s->b.back());
            return detail::pw_action(*s, s->b.back(), {pw::statement(pw::call("goBack", "", s->options.codegen), s->options.codegen)}, true);
        },
        action_traits | long_running);
}

/// Make the browser_tabs tool: list, open, select or close tabs.
template <class State>
auto tabs_tool(State& st) {
    tool_state* s = &st;
    return browser_tool<"browser_tabs">(
        st,
        "List, open, select or close tabs.",
        [s](const tabs_args& a) -> result<tool_output> {
            auto list_text = [&]() -> result<std::string> {
                auto l = s->b.tabs();
                if (!l) return fail(l.error());
                std::string out;
                for (std::size_t i = 0; i < l->size(); ++i)
                    out += std::to_string(i) + ((*l)[i].active ? " * " : "   ") + (*l)[i].title + " (" + (*l)[i].url + ")\n";
                return detail::page_data(out, s->b.boundary());  // the titles are the pages' text
            };
            auto tab_id = [&]() -> result<std::string> {
                auto l = s->b.tabs();
                if (!l) return fail(l.error());
                if (!a.index) {
                    for (const auto& t : *l)
                        if (t.active) return t.id;
                    return fail(errc::args_invalid, "no active tab");
                }
                if (static_cast<std::size_t>(*a.index) >= l->size())
                    return fail(errc::args_invalid, "no tab " + std::to_string(*a.index), "List the tabs first.");
                return (*l)[static_cast<std::size_t>(*a.index)].id;
            };
            if (a.action == "new") {
                auto r = s->b.new_tab(a.url.value_or(""));
                if (!r) return fail(r.error());
            } else if (a.action == "select") {
                auto id = tab_id();
                if (!id) return fail(id.error());
                auto r = s->b.select_tab(*id);
                if (!r) return fail(r.error());
            } else if (a.action == "close") {
                auto id = tab_id();
                if (!id) return fail(id.error());
                auto r = s->b.close_tab(*id);
                if (!r) return fail(r.error());
            }
            if (detail::pw_mode(*s)) {
                auto l = s->b.tabs();
                if (!l) return fail(l.error());
                pw::response resp;
                std::string current;
                for (const auto& t : *l)
                    if (t.active) current = t.url;
                auto title = s->b.document_title();
                resp.results = detail::pw_tab_lines(*l, current, title ? std::optional<std::string>(*title) : std::nullopt);
                detail::pw_page_view v;
                if (a.action == "new" && a.url && !a.url->empty()) {
                    resp.code.push_back(pw::goto_url(*a.url, s->options.codegen));
                    v.snapshot = true;
                }
                return detail::pw_finish(*s, std::move(resp), v);
            }
            auto l = list_text();
            if (!l) return fail(l.error());
            return tool_output::text(*l);
        },
        open_world);
}

/// Make the browser_resize tool: resize the viewport (optionally emulating a phone).
template <class State>
auto resize_tool(State& st) {
    tool_state* s = &st;
    return browser_tool<"browser_resize">(
        st,
        "Resize the viewport.",
        [s](const resize_args& a) -> result<tool_output> {
            viewport_size v;
            v.width = a.width;
            v.height = a.height;
            v.mobile = a.mobile.value_or(false);
            v.touch = v.mobile;
            if (detail::pw_mode(*s))
                return detail::pw_action(*s, s->b.resize(v),
                                         {pw::statement("setViewportSize({ width: " + std::to_string(a.width) + ", height: " +
                                                            std::to_string(a.height) + " })",
                                                        s->options.codegen)},
                                         false);
            return detail::text_of(s->b.resize(v));
        },
        idempotent);
}

/// Make the browser_close tool: close the browser (the next browser tool starts a fresh one).
template <class State>
auto close_tool(State& st) {
    tool_state* s = &st;
    return browser_tool<"browser_close">(
        st,
        "Close the browser; the next call starts a fresh one.",
        [s]() -> result<tool_output> {
            s->b.close();
            if (detail::pw_mode(*s)) {
                pw::response resp;
                resp.language = s->options.codegen;
                resp.results.emplace_back("No open tabs. Navigate to a URL to create one.");
                resp.code.emplace_back("await page.close()");
                {
                    std::lock_guard lock(s->mu);
                    s->pw_last_page.clear();
                }
                return tool_output::text(resp.text());
            }
            return tool_output::text("browser closed");
        },
        idempotent);
}

}  // namespace agentkit::browser
