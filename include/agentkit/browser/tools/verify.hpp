// agentkit/browser/tools/verify.hpp — browser tools: assertions for writing tests (Playwright
// MCP's testing capability, offered with --caps testing): an element, a text, a list or a value
// is on the page as expected, and the locator test code names an element by.
// Part of browser/tools.hpp (include that): each tool, its argument struct and a factory;
// tools.hpp registers them in browser_tools().
#pragma once

#include <agentkit/browser/tools/actions.hpp>
#include <agentkit/browser/tools/playwright.hpp>
#include <agentkit/browser/tools/support.hpp>

#include <array>
#include <string>
#include <string_view>
#include <vector>

namespace agentkit::browser {

/// Arguments of browser_verify_element_visible.
struct verify_element_args {
    std::string role;            ///< the element's role, as the snapshot shows it (`- button "Submit"`)
    std::string accessibleName;  ///< its accessible name (a case-insensitive part of it matches)
    static constexpr auto agentkit_fields() {
        return fields(AGENTKIT_FIELD(verify_element_args, role, "Role as in the snapshot: - {ROLE} \"Name\""),
                      AGENTKIT_FIELD(verify_element_args, accessibleName, "Name as in the snapshot: - role \"{NAME}\""));
    }
};

/// Arguments of browser_verify_text_visible.
struct verify_text_args {
    std::string text;  ///< text that must be visible (a case-insensitive part of an element's text)
    static constexpr auto agentkit_fields() { return fields(AGENTKIT_FIELD(verify_text_args, text, "Text that must be visible")); }
};

/// Arguments of browser_verify_list_visible.
struct verify_list_args {
    std::optional<std::string> ref;      ///< the list's ref (none: anywhere in the page)
    std::optional<std::string> target;   ///< same as ref (Playwright MCP's name)
    std::optional<std::string> element;  ///< human-readable description of the list
    std::vector<std::string> items;      ///< texts each of which an item of the list must hold
    static constexpr auto agentkit_fields() {
        return fields(AGENTKIT_FIELD(verify_list_args, ref, "The list (none: the page)"), AGENTKIT_FIELD(verify_list_args, target, "", hidden()),
                      AGENTKIT_FIELD(verify_list_args, element, "", hidden()), AGENTKIT_FIELD(verify_list_args, items, "Texts of its items"));
    }
};

/// Arguments of browser_verify_value.
struct verify_value_args {
    std::string type;                    ///< textbox, checkbox, radio, combobox or slider
    std::optional<std::string> ref;      ///< the element's ref
    std::optional<std::string> target;   ///< same as ref (Playwright MCP's name)
    std::optional<std::string> element;  ///< human-readable description of the element
    std::string value;                   ///< expected value ("true"/"false" for a checkbox or radio)
    static constexpr auto agentkit_fields() {
        return fields(AGENTKIT_FIELD(verify_value_args, type, "", one_of("textbox", "checkbox", "radio", "combobox", "slider")),
                      AGENTKIT_BROWSER_ELEMENT_FIELDS(verify_value_args),
                      AGENTKIT_FIELD(verify_value_args, value, "Expected; \"true\"/\"false\" for checkbox, radio"));
    }
};

namespace detail {

/// An assertion's result: "Done" and its code in Playwright's layout; a line saying what held in
/// agentkit's.
inline result<tool_output> verified(tool_state& st, std::string what, std::vector<std::string> code) {
    if (pw_mode(st)) {
        pw::response resp;
        resp.results.emplace_back("Done");
        resp.code = std::move(code);
        return pw_finish(st, std::move(resp), {});
    }
    return tool_output::text("verified: " + what);
}

/// A page's text as an aria snapshot template quotes it ("…", with \ " and line breaks escaped).
inline std::string aria_template_quote(std::string_view s) {
    std::string out = "\"";
    for (const char c : s) {
        if (c == '"' || c == '\\') out += '\\';
        if (c == '\n') out += "\\n";
        else if (c == '\r') out += "\\r";
        else out += c;
    }
    return out + "\"";
}

}  // namespace detail

/// Make the browser_verify_element_visible tool: an element of this role and name is on the page.
template <class State>
auto verify_element_tool(State& st) {
    tool_state* s = &st;
    return browser_tool<"browser_verify_element_visible">(
        st, "Verify an element (role and accessible name) is on the page.",
        [s](const verify_element_args& a) -> result<tool_output> {
            element_query q;
            q.role = a.role;
            q.name = a.accessibleName;
            q.test_id_attribute = s->options.test_id_attribute;
            auto loc = s->b.find_element(q);
            if (!loc) return fail(loc.error());
            if (loc->is_null())
                return detail::pw_reported(*s, error{errc::not_found,
                            "Element with role \"" + a.role + "\" and accessible name \"" + a.accessibleName + "\" not found",
                            "Take a snapshot (browser_snapshot) to see the roles and names the page has."});
            return detail::verified(*s, a.role + " \"" + a.accessibleName + "\" is on the page",
                                    {pw::assertion(*loc, "toBeVisible", "", false, s->options.codegen)});
        },
        reading_traits);
}

/// Make the browser_verify_text_visible tool: a visible element's text holds this text.
template <class State>
auto verify_text_tool(State& st) {
    tool_state* s = &st;
    return browser_tool<"browser_verify_text_visible">(
        st, "Verify a text is visible on the page. Prefer browser_verify_element_visible.",
        [s](const verify_text_args& a) -> result<tool_output> {
            element_query q;
            q.text = a.text;
            q.test_id_attribute = s->options.test_id_attribute;
            auto loc = s->b.find_element(q);
            if (!loc) return fail(loc.error());
            if (loc->is_null())
                return detail::pw_reported(*s, error{errc::not_found, "Text not found", "Take a snapshot (browser_snapshot) to see the page's text.",
                                                     json{{"text", a.text}}});
            return detail::verified(*s, "the text is visible", {pw::assertion(*loc, "toBeVisible", "", false, s->options.codegen)});
        },
        reading_traits);
}

/// Make the browser_verify_list_visible tool: each item's text is in the list `ref`.
template <class State>
auto verify_list_tool(State& st) {
    tool_state* s = &st;
    return browser_tool<"browser_verify_list_visible">(
        st, "Verify a list shows these items.",
        [s](const verify_list_args& a) -> result<tool_output> {
            // without a ref the whole page (agentkit's snapshot gives a plain list no ref)
            std::string el;
            if ((a.ref && !a.ref->empty()) || (a.target && !a.target->empty())) {
                auto given = detail::element_of(a.ref, a.target, "list");
                if (!given) return fail(given.error());
                el = *given;
            }
            auto r = s->b.element_items(el, a.items);
            if (!r) return fail(r.error());
            if (r->contains("missing"))
                return detail::pw_reported(*s, error{errc::not_found, "Item \"" + r->value("missing", std::string()) + "\" not found",
                                                     "Take a snapshot (browser_snapshot) of the list to see its items."});
            std::string tmpl = "- list:";
            for (const auto& t : r->value("texts", json::array()))
                tmpl += "\n  - listitem: " + detail::aria_template_quote(t.is_string() ? t.get<std::string>() : std::string());
            const json body = {{"frames", json::array()}, {"target", {{"kind", "css"}, {"value", "body"}}}};
            return detail::verified(*s, std::to_string(a.items.size()) + " item(s) found in " + (el.empty() ? std::string("the page") : el),
                                    {pw::assertion(body, "toMatchAriaSnapshot", pw::block_literal(tmpl, s->options.codegen), false,
                                                   s->options.codegen)});
        },
        reading_traits);
}

/// Make the browser_verify_value tool: a field's value, or whether a checkbox or radio is checked.
template <class State>
auto verify_value_tool(State& st) {
    tool_state* s = &st;
    return browser_tool<"browser_verify_value">(
        st, "Verify an element's value (checkbox, radio: \"true\" or \"false\").",
        [s](const verify_value_args& a) -> result<tool_output> {
            auto el = detail::element_of(a.ref, a.target);
            if (!el) return fail(el.error());
            auto r = s->b.element_value(*el);
            if (!r) return fail(r.error());
            const bool check = a.type == "checkbox" || a.type == "radio";
            std::string actual;
            if (check) {
                if (!(*r)["checked"].is_boolean())
                    return fail(errc::args_invalid, "Not a checkbox or radio button: " + *el + " is <" + r->value("tag", std::string()) + ">",
                                "Pass type textbox, combobox or slider for a field with a value.");
                actual = (*r)["checked"].get<bool>() ? "true" : "false";
            } else {
                if (!(*r)["value"].is_string())
                    return fail(errc::args_invalid,
                                "Not an input, textarea or select element: " + *el + " is <" + r->value("tag", std::string()) + ">",
                                "Pass type checkbox or radio for a checked state, or the ref of a field.");
                actual = (*r)["value"].get<std::string>();
            }
            if (actual != a.value) {
                // Playwright's words; agentkit's quote the page's value as page data
                const std::string got = detail::pw_mode(*s) ? "\"" + actual + "\"" : detail::page_quote(actual);
                return detail::pw_reported(*s, error{errc::tool_failed, "Expected value \"" + a.value + "\", but got " + got,
                                                     "The page holds another value: check the ref, or the step that should have set it.",
                                                     json{{"expected", a.value}, {"page_data", {{"actual", detail::escape_marks(actual)}}}}});
            }
            std::vector<std::string> code;
            if (detail::pw_mode(*s)) {
                auto loc = s->b.aria_locator(*el);
                if (!loc) return fail(loc.error());
                code.push_back(check ? pw::assertion(*loc, "toBeChecked", "", actual == "false", s->options.codegen)
                                     : pw::assertion(*loc, "toHaveValue", pw::quote(a.value, s->options.codegen), false, s->options.codegen));
            }
            return detail::verified(*s, *el + " has the value", std::move(code));
        },
        reading_traits);
}

/// Make the browser_generate_locator tool: the locator test code names an element by.
template <class State>
auto generate_locator_tool(State& st) {
    tool_state* s = &st;
    return browser_tool<"browser_generate_locator">(
        st, "The Playwright locator of an element, for test code.",
        [s](const element_args& a) -> result<tool_output> {
            auto el = detail::element_of(a.ref, a.target);
            if (!el) return fail(el.error());
            auto loc = s->b.aria_locator(*el);
            if (!loc) return fail(loc.error());
            std::string text = pw::locator(*loc, codegen_language::typescript);
            if (detail::pw_mode(*s)) {
                pw::response resp;
                resp.results.push_back(std::move(text));
                return detail::pw_finish(*s, std::move(resp), {});
            }
            return tool_output::text(detail::page_data(text, s->b.boundary()));  // names and texts are the page's
        },
        reading_traits);
}

}  // namespace agentkit::browser
