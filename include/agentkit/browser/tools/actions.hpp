// agentkit/browser/tools/actions.hpp — browser tools: actions on elements: click, type, hover, drag, drop, select, fill a form, press, upload, dialogs.
// Part of browser/tools.hpp (include that): each tool, its argument struct and a factory;
// tools.hpp registers them in browser_tools().
#pragma once

#include <agentkit/browser/tools/playwright.hpp>
#include <agentkit/browser/tools/support.hpp>

#include <map>
#include <string>
#include <vector>

namespace agentkit::browser {

/// Arguments of browser_click.
struct click_args {
    std::optional<std::string> ref;                     ///< element ref from the snapshot, e.g. e12
    std::optional<std::string> target;                  ///< same as ref (Playwright MCP's name)
    std::optional<std::string> element;                 ///< human-readable description of the element (optional)
    std::optional<bool> doubleClick;                    ///< double click instead of a single click
    std::optional<std::string> button;                  ///< mouse button
    std::optional<std::vector<std::string>> modifiers;  ///< modifier keys: Alt, Control, ControlOrMeta, Meta, Shift
    static constexpr auto agentkit_fields() {
        return fields(AGENTKIT_BROWSER_ELEMENT_FIELDS(click_args),
                      AGENTKIT_FIELD(click_args, doubleClick, ""),
                      AGENTKIT_FIELD(click_args, button, "", one_of("left", "right", "middle")),
                      AGENTKIT_FIELD(click_args, modifiers, "Alt, Control, Meta, Shift"));
    }
};

/// Arguments of browser_type.
struct type_args {
    std::optional<std::string> ref;      ///< element ref from the snapshot, e.g. e12
    std::optional<std::string> target;   ///< same as ref (Playwright MCP's name)
    std::optional<std::string> element;  ///< human-readable description of the element (optional)
    std::string text;                    ///< text to type
    std::optional<bool> submit;          ///< press Enter afterwards
    std::optional<bool> slowly;          ///< a key per character, for pages that act on key events
    static constexpr auto agentkit_fields() {
        return fields(AGENTKIT_BROWSER_ELEMENT_FIELDS(type_args), AGENTKIT_FIELD(type_args, text, ""),
                      AGENTKIT_FIELD(type_args, submit, "Press Enter after"),
                      AGENTKIT_FIELD(type_args, slowly, "", hidden()));
    }
};

/// Arguments of browser_hover.
struct element_args {
    std::optional<std::string> ref;      ///< element ref from the snapshot, e.g. e12
    std::optional<std::string> target;   ///< same as ref (Playwright MCP's name)
    std::optional<std::string> element;  ///< human-readable description of the element (optional)
    static constexpr auto agentkit_fields() { return fields(AGENTKIT_BROWSER_ELEMENT_FIELDS(element_args)); }
};

/// Arguments of browser_drag.
struct drag_args {
    std::optional<std::string> startRef;      ///< ref of the element to drag
    std::optional<std::string> startTarget;   ///< same as startRef
    std::optional<std::string> startElement;  ///< description of the element to drag
    std::optional<std::string> endRef;        ///< ref of the drop target
    std::optional<std::string> endTarget;     ///< same as endRef
    std::optional<std::string> endElement;    ///< description of the drop target
    static constexpr auto agentkit_fields() {
        return fields(AGENTKIT_FIELD(drag_args, startRef, ""),
                      AGENTKIT_FIELD(drag_args, startTarget, "", hidden()),
                      AGENTKIT_FIELD(drag_args, startElement, "", hidden()),
                      AGENTKIT_FIELD(drag_args, endRef, ""),
                      AGENTKIT_FIELD(drag_args, endTarget, "", hidden()),
                      AGENTKIT_FIELD(drag_args, endElement, "", hidden()));
    }
};

/// Arguments of browser_select_option.
struct select_args {
    std::optional<std::string> ref;      ///< element ref from the snapshot, e.g. e12
    std::optional<std::string> target;   ///< same as ref (Playwright MCP's name)
    std::optional<std::string> element;  ///< human-readable description of the element (optional)
    std::vector<std::string> values;     ///< option values or labels to select
    static constexpr auto agentkit_fields() {
        return fields(AGENTKIT_BROWSER_ELEMENT_FIELDS(select_args),
                      AGENTKIT_FIELD(select_args, values, "Values or labels", min_items(1)));
    }
};

/// One field of browser_fill_form.
struct form_field {
    std::string name;                   ///< human-readable field name
    std::string type;                   ///< field type
    std::optional<std::string> ref;     ///< element ref from the snapshot
    std::optional<std::string> target;  ///< same as ref
    std::string value;                  ///< text; true/false for checkboxes; option text for comboboxes
    static constexpr auto agentkit_fields() {
        return fields(AGENTKIT_FIELD(form_field, name, ""),
                      AGENTKIT_FIELD(form_field, type, "", one_of("textbox", "checkbox", "radio", "combobox", "slider")),
                      AGENTKIT_FIELD(form_field, ref, ""),
                      AGENTKIT_FIELD(form_field, target, "", hidden()),
                      AGENTKIT_FIELD(form_field, value, "true/false for a checkbox"));
    }
};

/// Arguments of browser_fill_form.
struct fill_form_args {
    std::vector<form_field> fields_;    ///< `fields`: fields to fill
    std::optional<std::string> submit;  ///< ref of a button to click after filling (one call instead of two)
    static constexpr auto agentkit_fields() {
        return fields(field(&fill_form_args::fields_, "fields", "", min_items(1)),
                      AGENTKIT_FIELD(fill_form_args, submit, "Ref of a button to click after"));
    }
};

/// Arguments of browser_press_key.
struct press_args {
    std::string key;  ///< key or chord, e.g. Enter, ArrowDown, Control+a
    static constexpr auto agentkit_fields() {
        return fields(AGENTKIT_FIELD(press_args, key, "e.g. Enter, Control+a", min_length(1)));
    }
};

/// Arguments of browser_drop.
struct drop_args {
    std::optional<std::string> ref;      ///< the element to drop onto
    std::optional<std::string> target;   ///< same as ref
    std::optional<std::string> element;  ///< its description (ignored)
    std::optional<std::vector<std::string>> paths;            ///< absolute paths of files to drop
    std::optional<std::map<std::string, std::string>> data;   ///< MIME type → text to drop
    static constexpr auto agentkit_fields() {
        return fields(AGENTKIT_BROWSER_ELEMENT_FIELDS(drop_args), AGENTKIT_FIELD(drop_args, paths, "Absolute paths of files"),
                      AGENTKIT_FIELD(drop_args, data, "MIME type to text, e.g. {\"text/plain\": \"hi\"}"));
    }
};

/// Arguments of browser_file_upload.
struct upload_args {
    std::optional<std::vector<std::string>> paths;  ///< absolute paths of the files; none: cancel the open file chooser
    std::optional<std::string> ref;     ///< the file input's ref; none: the file chooser the page opened
    std::optional<std::string> target;  ///< same as ref
    static constexpr auto agentkit_fields() {
        return fields(AGENTKIT_FIELD(upload_args, paths, "Absolute paths; none cancels an open file chooser"),
                      AGENTKIT_FIELD(upload_args, ref, "The file input; none: the open file chooser"),
                      AGENTKIT_FIELD(upload_args, target, "", hidden()));
    }
};

/// Arguments of browser_handle_dialog.
struct dialog_args {
    bool accept = true;                     ///< accept (true) or dismiss (false) the next dialogs
    std::optional<std::string> promptText;  ///< text for prompt dialogs
    static constexpr auto agentkit_fields() {
        return fields(AGENTKIT_FIELD(dialog_args, accept, ""),
                      AGENTKIT_FIELD(dialog_args, promptText, ""));
    }
};

namespace detail {

inline std::string modifiers_of(const std::optional<std::vector<std::string>>& m) {
    if (!m) return {};
    std::string s;
    for (const auto& k : *m) {
        if (!s.empty()) s += '+';
        s += k == "ControlOrMeta" ? std::string("Control") : k;
    }
    return s;
}

/// Playwright's code for a click's options in `lang`: TypeScript `{\n  button: 'right',\n
/// modifiers: ['Alt', 'Shift']\n}`, Python `button="right", modifiers=["Alt", "Shift"]`, Java's
/// and C#'s option objects ("" when none). Control and Meta are written ControlOrMeta, as
/// Playwright's recorder writes them.
inline std::string pw_click_options(const click_args& a, codegen_language lang = codegen_language::typescript) {
    std::vector<std::string> mods;
    if (a.modifiers && !a.modifiers->empty()) {
        bool alt = false, ctrl = false, shift = false;
        for (const auto& m : *a.modifiers) {
            alt = alt || m == "Alt";
            ctrl = ctrl || m == "Control" || m == "ControlOrMeta" || m == "Meta";
            shift = shift || m == "Shift";
        }
        for (auto [on, name] : {std::pair{alt, "Alt"}, std::pair{ctrl, "ControlOrMeta"}, std::pair{shift, "Shift"}})
            if (on) mods.emplace_back(name);
    }
    const bool button = a.button && *a.button != "left";
    if (!button && mods.empty()) return {};
    auto joined = [&](auto each) {
        std::string list;
        for (const auto& m : mods) list += (list.empty() ? "" : ", ") + each(m);
        return list;
    };
    switch (lang) {
        case codegen_language::python: {
            std::string out;
            if (button) out = "button=" + pw::dq_quote(*a.button);
            if (!mods.empty()) out += (out.empty() ? "" : ", ") + std::string("modifiers=[") + joined([](const std::string& m) { return pw::dq_quote(m); }) + "]";
            return out;
        }
        case codegen_language::java: {
            std::string out = "new Locator.ClickOptions()";
            if (button) out += ".setButton(MouseButton." + ascii_upper(*a.button) + ")";
            if (!mods.empty()) out += ".setModifiers(Arrays.asList(" + joined([](const std::string& m) { return "KeyboardModifier." + ascii_upper(m); }) + "))";
            return out;
        }
        case codegen_language::csharp: {
            std::vector<std::string> keys;
            if (button) keys.push_back("Button = MouseButton." + std::string(1, static_cast<char>(std::toupper(static_cast<unsigned char>((*a.button)[0])))) + a.button->substr(1));
            if (!mods.empty()) keys.push_back("Modifiers = new[] { " + joined([](const std::string& m) { return "KeyboardModifier." + m; }) + " }");
            std::string out = "new() { ";
            for (std::size_t i = 0; i < keys.size(); ++i) out += (i ? ", " : "") + keys[i];
            return out + " }";
        }
        default: break;
    }
    std::vector<std::string> keys;
    if (button) keys.push_back("  button: " + pw::js_quote(*a.button));
    if (!mods.empty()) keys.push_back("  modifiers: [" + joined([](const std::string& m) { return pw::js_quote(m); }) + "]");
    std::string out = "{\n";
    for (std::size_t i = 0; i < keys.size(); ++i) out += keys[i] + (i + 1 < keys.size() ? ",\n" : "\n");
    return out + "}";
}

}  // namespace detail

/// Make the browser_click tool: click an element by ref (scrolls it into view; reports what changed).
template <class State>
auto click_tool(State& st) {
    tool_state* s = &st;
    return browser_tool<"browser_click">(
        st,
        "Click an element; reports what changed.",
        [s](const click_args& a) -> result<tool_output> {
            auto el = detail::element_of(a.ref, a.target);
            if (!el) return fail(el.error());
            click_options o;
            o.button = a.button.value_or("left");
            o.click_count = a.doubleClick.value_or(false) ? 2 : 1;
            o.modifiers = detail::modifiers_of(a.modifiers);
            if (detail::pw_mode(*s)) {
                auto loc = s->b.aria_locator(*el);
                if (!loc) return fail(loc.error());
                const auto lang = s->options.codegen;
                std::string args = detail::pw_click_options(a, lang);
                auto code = pw::element_action(*loc, a.doubleClick.value_or(false) ? "dblclick" : "click", args, lang);
                return detail::pw_action(*s, s->b.click(*el, o), {std::move(code)}, true);
            }
            return detail::text_of(s->b.click(*el, o));
        },
        action_traits);
}

/// Make the browser_type tool: type text into an editable element by ref (replaces its value; submit presses Enter).
template <class State>
auto type_tool(State& st) {
    tool_state* s = &st;
    return browser_tool<"browser_type">(
        st,
        "Replace an editable element's text.",
        [s](const type_args& a) -> result<tool_output> {
            auto el = detail::element_of(a.ref, a.target);
            if (!el) return fail(el.error());
            type_options o;
            o.submit = a.submit.value_or(false);
            o.slowly = a.slowly.value_or(false);
            if (detail::pw_mode(*s)) {
                auto loc = s->b.aria_locator(*el);
                if (!loc) return fail(loc.error());
                const auto lang = s->options.codegen;
                const bool slowly = a.slowly.value_or(false);
                const auto typed = detail::pw_text(*s, a.text);
                std::vector<std::string> code{pw::element_action(*loc, slowly ? "pressSequentially" : "fill", typed.code, lang)};
                if (o.submit) code.push_back(pw::element_action(*loc, "press", pw::quote("Enter", lang), lang));
                return detail::pw_action(*s, s->b.type(*el, typed.text, o), std::move(code), o.submit || slowly);
            }
            return detail::text_of(s->b.type(*el, a.text, o));
        },
        action_traits);
}

/// Make the browser_hover tool: move the mouse over an element by ref.
template <class State>
auto hover_tool(State& st) {
    tool_state* s = &st;
    return browser_tool<"browser_hover">(
        st,
        "Hover over an element.",
        [s](const element_args& a) -> result<tool_output> {
            auto el = detail::element_of(a.ref, a.target);
            if (!el) return fail(el.error());
            if (detail::pw_mode(*s)) {
                auto loc = s->b.aria_locator(*el);
                if (!loc) return fail(loc.error());
                return detail::pw_action(*s, s->b.hover(*el), {pw::element_action(*loc, "hover", "", s->options.codegen)}, true);
            }
            return detail::text_of(s->b.hover(*el));
        },
        action_traits);
}

/// Make the browser_drag tool: drag one element onto another, both by ref.
template <class State>
auto drag_tool(State& st) {
    tool_state* s = &st;
    return browser_tool<"browser_drag">(
        st,
        "Drag an element onto another.",
        [s](const drag_args& a) -> result<tool_output> {
            auto from = detail::element_of(a.startRef, a.startTarget, "start element");
            if (!from) return fail(from.error());
            auto to = detail::element_of(a.endRef, a.endTarget, "end element");
            if (!to) return fail(to.error());
            if (detail::pw_mode(*s)) {
                auto l1 = s->b.aria_locator(*from);
                if (!l1) return fail(l1.error());
                auto l2 = s->b.aria_locator(*to);
                if (!l2) return fail(l2.error());
                const auto lang = s->options.codegen;
                return detail::pw_action(*s, s->b.drag(*from, *to),
                                         {pw::element_action(*l1, "dragTo", "page." + pw::locator(*l2, lang), lang)}, true);
            }
            return detail::text_of(s->b.drag(*from, *to));
        },
        action_traits);
}

/// Make the browser_select_option tool: select one or several options of a `<select>` by ref (values or labels).
template <class State>
auto select_tool(State& st) {
    tool_state* s = &st;
    return browser_tool<"browser_select_option">(
        st,
        "Select options of a <select>.",
        [s](const select_args& a) -> result<tool_output> {
            auto el = detail::element_of(a.ref, a.target);
            if (!el) return fail(el.error());
            if (detail::pw_mode(*s)) {
                auto loc = s->b.aria_locator(*el);
                if (!loc) return fail(loc.error());
                const auto lang = s->options.codegen;
                std::string v;
                if (a.values.size() == 1) {
                    v = pw::quote(a.values[0], lang);
                } else {
                    for (const auto& x : a.values) v += (v.empty() ? "" : ", ") + pw::quote(x, lang);
                    v = "[" + v + "]";
                }
                return detail::pw_action(*s, s->b.select(*el, a.values), {pw::element_action(*loc, "selectOption", v, lang)}, true);
            }
            return detail::text_of(s->b.select(*el, a.values));
        },
        action_traits);
}

/// Make the browser_fill_form tool: fill several fields in one call (textbox, checkbox, radio, combobox,
/// slider); optionally click a submit button afterwards.
template <class State>
auto fill_tool(State& st) {
    tool_state* s = &st;
    return browser_tool<"browser_fill_form">(
        st,
        "Fill several fields, then optionally click submit; stops at the first failure.",
        [s](const fill_form_args& a) -> result<tool_output> {
            std::vector<fill_field> fields;
            for (const auto& f : a.fields_) {
                auto el = detail::element_of(f.ref, f.target, "field " + f.name);
                if (!el) return fail(el.error());
                fields.push_back(fill_field{*el, field_kind_named(f.type).value_or(field_kind::textbox), f.value, f.name});
            }
            std::string submit;
            if (a.submit) {
                auto el = detail::element_of(a.submit, std::nullopt, "submit button");
                if (!el) return fail(el.error());
                submit = *el;
            }
            std::vector<std::string> code;
            if (detail::pw_mode(*s)) {
                const auto lang = s->options.codegen;
                for (auto& f : fields) {
                    auto loc = s->b.aria_locator(f.ref);
                    if (!loc) return fail(loc.error());
                    const field_kind k = f.kind;
                    if (k == field_kind::checkbox || k == field_kind::radio)
                        code.push_back(pw::element_action(*loc, f.value == "true" ? "check" : "uncheck", "", lang));
                    else if (k == field_kind::combobox)
                        code.push_back(pw::element_action(*loc, "selectOption", pw::quote(f.value, lang), lang));
                    else {
                        auto typed = detail::pw_text(*s, f.value);
                        code.push_back(pw::element_action(*loc, "fill", typed.code, lang));
                        f.value = std::move(typed.text);
                    }
                }
            }
            auto r = s->b.fill(fields, submit);
            if (!r) return fail(r.error());
            if (detail::pw_mode(*s)) return detail::pw_action(*s, std::move(r), std::move(code), !submit.empty());
            std::string out = "filled " + std::to_string(fields.size()) + " fields";
            if (!submit.empty()) out += "; clicked " + submit;
            return tool_output::text(out + "\n" + r->to_text());
        },
        action_traits);
}

/// Make the browser_press_key tool: press a key or chord in the focused element, e.g. Enter, Escape,
/// ArrowDown, Control+a.
template <class State>
auto press_tool(State& st) {
    tool_state* s = &st;
    return browser_tool<"browser_press_key">(
        st,
        "Press a key or chord in the focused element.",
        [s](const press_args& a) -> result<tool_output> {
            if (!detail::pw_mode(*s)) return detail::text_of(s->b.press(a.key));
            // page-level keyboard input has no locator action: it stays JavaScript, as Playwright writes it
            const auto lang = s->options.codegen == codegen_language::none ? codegen_language::none : codegen_language::typescript;
            return detail::pw_action(*s, s->b.press(a.key),
                                     {"// Press " + a.key, pw::statement("keyboard." + pw::call("press", pw::quote(a.key, lang), lang), lang)},
                                     a.key == "Enter");
        },
        action_traits);
}

/// Make the browser_drop tool: drop files or MIME-typed data onto an element, as if dragged in
/// from outside the page (files as browser_file_upload takes them).
template <class State>
auto drop_tool(State& st) {
    tool_state* s = &st;
    return browser_tool<"browser_drop">(
        st,
        "Drop files or data onto an element, as if dragged in from outside the page.",
        [s](const drop_args& a, tool_context& ctx) -> result<tool_output> {
            const std::vector<std::string> paths = a.paths.value_or(std::vector<std::string>{});
            const std::map<std::string, std::string> data = a.data.value_or(std::map<std::string, std::string>{});
            if (paths.empty() && data.empty())
                return detail::pw_reported(*s, error{errc::args_invalid, "At least one of \"paths\" or \"data\" must be provided.",
                                                     "Pass the files' paths, data (MIME type to text), or both."});
            auto el = detail::element_of(a.ref, a.target, "element");
            if (!el) return fail(el.error());
            if (!paths.empty())
                if (auto roots = detail::admit_workspace_roots(*s, ctx); !roots) return fail(roots.error());
            if (!detail::pw_mode(*s)) return detail::text_of(s->b.drop(*el, paths, data));
            auto loc = s->b.aria_locator(*el);
            if (!loc) return fail(loc.error());
            const auto lang = s->options.codegen;
            // Playwright's code: locator.drop({ files, data })
            std::string payload;
            if (!paths.empty()) {
                std::string list;
                for (const auto& p : paths) list += (list.empty() ? "" : ", ") + pw::quote(p, lang);
                payload += "files: " + (paths.size() == 1 ? list : "[" + list + "]");
            }
            if (!data.empty()) {
                std::string fields;
                for (const auto& [mime, text] : data) fields += (fields.empty() ? "" : ", ") + pw::quote(mime, lang) + ": " + pw::quote(text, lang);
                payload += (payload.empty() ? "" : ", ") + std::string("data: { ") + fields + " }";
            }
            return detail::pw_action(*s, s->b.drop(*el, paths, data), {pw::element_action(*loc, "drop", "{ " + payload + " }", lang)}, true);
        },
        action_traits);
}

/// Make the browser_file_upload tool: set the files of a file input by ref, or answer (or, with no
/// paths, cancel) the file chooser the page opened. With tools_options::uploads_from_workspace the
/// files may come from the workspace's roots too.
template <class State>
auto upload_tool(State& st) {
    tool_state* s = &st;
    return browser_tool<"browser_file_upload">(
        st,
        "Set a file input's files, or answer the file chooser the page opened.",
        [s](const upload_args& a, tool_context& ctx) -> result<tool_output> {
            const bool chooser = !a.ref && !a.target;
            const bool pw = detail::pw_mode(*s);
            if (chooser && !s->b.file_chooser() && pw)
                return detail::pw_reported(*s, error{errc::not_found,
                                                     "Error: The tool \"browser_file_upload\" can only be used when there is related modal state present.",
                                                     "No file chooser is open: click the control that opens one first."});
            std::string ref;
            if (!chooser) {
                auto el = detail::element_of(a.ref, a.target, "file input");
                if (!el) return fail(el.error());
                ref = *el;
            }
            if (auto roots = detail::admit_workspace_roots(*s, ctx); !roots) return fail(roots.error());
            const std::vector<std::string> paths = a.paths.value_or(std::vector<std::string>{});
            auto r = s->b.upload(ref, paths);
            if (!pw) return detail::text_of(std::move(r));
            if (!r) {
                const error& e = r.error();
                if (e.is(errc::policy_blocked) && e.details.is_object() && e.details.contains("allowed") && e.details.contains("path")) {
                    std::string allowed;
                    for (const auto& d : e.details["allowed"]) allowed += (allowed.empty() ? "" : ", ") + d.get<std::string>();
                    return detail::pw_reported(*s, error{errc::policy_blocked,
                                                         "File access denied: " + e.details["path"].get<std::string>() +
                                                             " is outside allowed roots. Allowed roots: " + allowed,
                                                         e.hint});
                }
                return fail(e);
            }
            if (!chooser) return detail::pw_action(*s, std::move(r), {}, true);
            // Playwright's code for the chooser: fileChooser.setFiles(paths)
            const codegen_language lang = s->options.codegen;
            std::string list;
            for (const auto& p : paths)
                list += (list.empty() ? "" : ", ") +
                        (lang == codegen_language::java ? "Paths.get(" + pw::quote(p, lang) + ")" : pw::quote(p, lang));
            std::string code;
            switch (lang) {
                case codegen_language::python: code = "file_chooser.set_files([" + list + "])"; break;
                case codegen_language::java: code = "fileChooser.setFiles(new Path[] {" + list + "});"; break;
                case codegen_language::csharp: code = "await fileChooser.SetFilesAsync(new[] {" + list + "});"; break;
                default: code = "await fileChooser.setFiles([" + list + "]);"; break;
            }
            return detail::pw_action(*s, std::move(r), {"// Select files for upload", code}, true);
        },
        action_traits);
}

/// Make the browser_handle_dialog tool: choose how the page's dialogs (alert, confirm, prompt, beforeunload)
/// are answered from now on.
template <class State>
auto dialog_tool(State& st) {
    tool_state* s = &st;
    return browser_tool<"browser_handle_dialog">(
        st,
        "Accept or dismiss the page's dialogs from now on (they never block; each is reported).",
        [s](const dialog_args& a) -> result<tool_output> {
            // a dialog held open (dialog_policy::hold, Playwright's layout): this answers it
            const bool open = !s->b.open_dialogs().empty();
            if (s->b.options().dialogs.hold || open) {
                if (!open)
                    return detail::pw_reported(*s, error{errc::not_found,
                                                         "Error: The tool \"browser_handle_dialog\" can only be used when there is related modal state present.",
                                                         "No dialog is open: go on with the page."});
                auto r = s->b.answer_dialog(a.accept, a.promptText);
                if (detail::pw_mode(*s)) return detail::pw_action(*s, std::move(r), {}, true);
                return detail::text_of(std::move(r));
            }
            dialog_policy p;
            const auto act_ = a.accept ? dialog_action::accept : dialog_action::dismiss;
            p.alert = dialog_action::accept;
            p.confirm = act_;
            p.prompt = act_;
            p.beforeunload = act_;
            if (a.promptText) p.prompt_text = *a.promptText;
            s->b.set_dialog_policy(p);
            return tool_output::text(std::string("dialogs will be ") + (a.accept ? "accepted" : "dismissed") +
                                     (a.promptText ? " (prompt text \"" + *a.promptText + "\")" : std::string()));
        },
        no_traits);
}

}  // namespace agentkit::browser
