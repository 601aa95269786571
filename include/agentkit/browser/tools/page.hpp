// agentkit/browser/tools/page.hpp — browser tools: screenshots, the page as a PDF (--caps pdf), evaluate, waits and structured extraction.
// Part of browser/tools.hpp (include that): each tool, its argument struct and a factory;
// tools.hpp registers them in browser_tools().
#pragma once

#include <agentkit/browser/detail/image_header.hpp>
#include <agentkit/browser/tools/playwright.hpp>
#include <agentkit/browser/tools/support.hpp>
#include <agentkit/core/base64.hpp>

#include <cctype>
#include <condition_variable>
#include <cstdio>
#include <mutex>
#include <optional>
#include <stop_token>
#include <string>
#include <string_view>

namespace agentkit::browser {

/// Arguments of browser_take_screenshot.
struct screenshot_args {
    std::optional<std::string> type;      ///< image format
    std::optional<std::string> ref;       ///< element ref from the snapshot, e.g. e12
    std::optional<std::string> target;    ///< same as ref (Playwright MCP's name)
    std::optional<std::string> element;   ///< human-readable description of the element (optional)
    std::optional<bool> fullPage;         ///< the whole scrollable page
    std::optional<std::string> filename;  ///< accepted for compatibility; screenshots are stored as artifacts
    std::optional<bool> inline_image;     ///< `inline`: return the image itself, not only its artifact id
    std::optional<bool> marks;            ///< a numbered box on every element with a ref (Set-of-Marks)
    std::optional<std::string> scale;     ///< Playwright's layout: css (default) or device pixels
    static constexpr auto agentkit_fields() {
        return fields(AGENTKIT_FIELD(screenshot_args, type, "", one_of("png", "jpeg", "webp")),
                      AGENTKIT_BROWSER_ELEMENT_FIELDS(screenshot_args),
                      AGENTKIT_FIELD(screenshot_args, fullPage, ""),
                      AGENTKIT_FIELD(screenshot_args, marks, "Label every ref on the image"),
                      AGENTKIT_FIELD(screenshot_args, filename, "", hidden()),
                      AGENTKIT_FIELD(screenshot_args, scale, "", hidden(), one_of("css", "device")),
                      field(&screenshot_args::inline_image, "inline", "Return the image too"));
    }
};

/// Arguments of browser_evaluate.
struct evaluate_args {
    std::string function;                ///< JavaScript: () => value, or (element) => value with a ref
    std::optional<std::string> ref;      ///< element ref from the snapshot, e.g. e12
    std::optional<std::string> target;   ///< same as ref (Playwright MCP's name)
    std::optional<std::string> element;  ///< human-readable description of the element (optional)
    static constexpr auto agentkit_fields() {
        return fields(AGENTKIT_FIELD(evaluate_args, function, "() => value, or (element) => value with a ref"),
                      AGENTKIT_BROWSER_ELEMENT_FIELDS(evaluate_args));
    }
};

/// Arguments of browser_wait_for.
struct wait_args {
    std::optional<double> time;           ///< seconds to wait
    std::optional<std::string> text;      ///< wait until this text appears
    std::optional<std::string> textGone;  ///< wait until this text is gone
    std::optional<std::string> ref;       ///< wait until this element reaches `state`
    std::optional<std::string> state;     ///< element state
    std::optional<double> timeout;        ///< seconds before giving up (default: the action timeout, --timeout-action)
    static constexpr auto agentkit_fields() {
        return fields(AGENTKIT_FIELD(wait_args, time, "Seconds", range(0, 30)),
                      AGENTKIT_FIELD(wait_args, text, ""),
                      AGENTKIT_FIELD(wait_args, textGone, ""),
                      AGENTKIT_FIELD(wait_args, ref, ""),
                      AGENTKIT_FIELD(wait_args, state, "",
                                     one_of("visible", "hidden", "enabled", "disabled", "checked", "unchecked", "gone")),
                      AGENTKIT_FIELD(wait_args, timeout, "Seconds before giving up", range(0, 120)));
    }
};

/// Arguments of browser_extract.
struct extract_args {
    std::optional<std::string> kind;    ///< what to extract
    std::optional<std::string> ref;     ///< only within this element's subtree (ref from the snapshot)
    std::optional<std::string> target;  ///< same as ref
    /// For kind fields: the fields by name and type, e.g. {"price": "number", "title": "string"}.
    std::optional<json> schema;
    std::optional<int> max_items;  ///< most rows or items returned (default 200)
    static constexpr auto agentkit_fields() {
        return fields(AGENTKIT_FIELD(extract_args, kind, "", one_of("auto", "table", "list", "fields")),
                      AGENTKIT_FIELD(extract_args, ref, "Only within this element"),
                      AGENTKIT_FIELD(extract_args, target, "", hidden()),
                      AGENTKIT_FIELD(extract_args, schema,
                                     "fields: e.g. {\"price\": \"number\"}"),
                      AGENTKIT_FIELD(extract_args, max_items, "", range(1, 5000)));
    }
};

namespace detail {

/// A screenshot as a tool result: one line (size, format, bytes, scale; with marks the refs
/// drawn and those not), the image stored as an artifact, and inline too when `inline_image`.
inline result<tool_output> screenshot_output(tool_state& st, const screenshot_result& shot, const std::string& format,
                                             bool inline_image) {
    const std::size_t bytes = shot.base64.size() / 4 * 3;
    const std::string size = std::to_string(static_cast<int>(shot.width)) + "x" + std::to_string(static_cast<int>(shot.height));
    auto ref = st.store.put({shot.mime_type, shot.marks.empty() && shot.unmarked.empty() ? "screenshot" : "marked screenshot",
                             "screenshot " + size, shot.base64, true});
    tool_output out;
    std::string line = "screenshot " + size + " " + format + ", " + std::to_string(bytes / 1024) + " KB";
    if (shot.scale != 1) {
        char k[32];
        std::snprintf(k, sizeof k, "%g", shot.scale);
        line += ", scale " + std::string(k) + " (image px per CSS px; coordinates are CSS px)";
    }
    if (ref) line += ", artifact " + ref->id;
    else line += " (not stored: " + ref.error().message + ")";
    if (shot.snapshot) {
        // the refs drawn and those not, at most 300 each (the snapshot lists them all)
        auto list = [](std::string& l, const std::vector<std::string>& refs) {
            for (std::size_t i = 0; i < refs.size() && i < 300; ++i) l += " " + refs[i];
            if (refs.size() > 300) l += " and " + std::to_string(refs.size() - 300) + " more";
        };
        std::vector<std::string> drawn;
        for (const auto& m : shot.marks) drawn.push_back(m.ref);
        line += "\nmarked (" + std::to_string(drawn.size()) + "):";
        list(line, drawn);
        if (!shot.unmarked.empty()) {
            line += "\nnot on the image (off-screen or hidden, " + std::to_string(shot.unmarked.size()) + "):";
            list(line, shot.unmarked);
        }
    }
    out.add_text(line);
    if (ref) out.add_artifact(*ref);
    if (inline_image || !ref) out.add_image(shot.base64, shot.mime_type);
    return out;
}

}  // namespace detail

namespace detail {

/// browser_take_screenshot in Playwright's layout: the image in a file of the output directory
/// (or the file the model named), its link, the code that would take it, and the image itself
/// unless a file was named.
inline result<tool_output> pw_screenshot(tool_state& st, const screenshot_args& a) {
    const bool element = a.ref || a.target;
    if (element && a.fullPage.value_or(false)) return fail(errc::args_invalid, "fullPage cannot be used with element screenshots.");
    screenshot_options o;
    const bool named = a.filename && !a.filename->empty();  // "" is no name: an automatic one
    std::string type = a.type.value_or("");
    if (type.empty() && named) {
        const auto dot = a.filename->rfind('.');
        const std::string ext = dot == std::string::npos ? std::string() : a.filename->substr(dot + 1);
        type = ext == "jpg" || ext == "jpeg" ? "jpeg" : ext == "webp" ? "webp" : "png";
    }
    if (type.empty()) type = "png";
    o.format = type;
    o.quality = 90;
    o.full_page = a.fullPage.value_or(false);
    const std::string scale = a.scale.value_or("css");
    o.css_pixels = scale != "device";
    json loc;
    if (element) {
        auto el = element_of(a.ref, a.target);
        if (!el) return fail(el.error());
        o.ref = *el;
        auto l = st.b.aria_locator(*el);
        if (!l) return fail(l.error());
        loc = std::move(*l);
    }
    auto shot = st.b.screenshot(o);
    if (!shot) return fail(shot.error());
    auto bytes = base64_decode(shot->base64);
    if (!bytes) return fail(errc::tool_failed, "the screenshot's image data is not base64");
    result<std::string> path = fail(errc::tool_failed, "unset");
    if (named) {
        auto file = pw_model_file(st, *a.filename);
        if (!file) return fail(file.error());
        path = pw_write(st, *file, *bytes);
    } else {
        path = pw_write_file(st, pw_file_stamp(element ? "element" : "page") + "." + type, *bytes);
    }
    if (!path) return fail(path.error());
    const std::string label = element ? a.element.value_or("element") : o.full_page ? "full page" : "viewport";
    pw::response resp;
    resp.results.push_back("- [Screenshot of " + label + "](" + *path + ")");
    std::string opts = "{\n";
    if (o.full_page) opts += "  fullPage: true,\n";
    opts += "  path: " + pw::js_quote(*path) + ",\n";
    if (type == "jpeg") opts += "  quality: 90,\n";
    opts += "  scale: " + pw::js_quote(scale) + ",\n  type: " + pw::js_quote(type) + "\n}";
    resp.code.push_back("// Screenshot " + label + " and save it as " + *path);
    resp.code.push_back(loc.is_null() ? "await page.screenshot(" + opts + ");"
                                      : "await page." + pw::locator(loc, codegen_language::typescript) + ".screenshot(" + opts + ");");
    auto out = pw_finish(st, std::move(resp), {});
    if (!out) return out;
    if (!named && st.options.inline_screenshots) {
        // the model's copy fits what a model takes whole (1568 px a side, 1.15 MP); the file keeps every pixel
        const auto px = image_size_of(shot->base64);
        const double cap = 1.15 * 1024 * 1024;
        if (std::max(px.width, px.height) > 1568 || double(px.width) * double(px.height) > cap) {
            o.max_side = 1568;
            o.max_pixels = cap;
            auto small = st.b.screenshot(o);
            if (!small) return fail(small.error());
            shot = std::move(small);
        }
        out->add_image(shot->base64, shot->mime_type);
    }
    return out;
}

}  // namespace detail

/// Make the browser_take_screenshot tool: screenshot of the viewport, the full page or one element.
template <class State>
auto screenshot_tool(State& st) {
    tool_state* s = &st;
    return browser_tool<"browser_take_screenshot">(
        st,
        "Screenshot of the viewport, the page or an element, stored as an artifact; marks: label every ref on it.",
        [s](const screenshot_args& a) -> result<tool_output> {
            if (detail::pw_mode(*s)) return detail::pw_screenshot(*s, a);
            screenshot_options o;
            o.format = a.type.value_or("png");
            o.full_page = a.fullPage.value_or(false);
            o.marks = a.marks.value_or(false);
            if (a.ref || a.target) {
                auto el = detail::element_of(a.ref, a.target);
                if (!el) return fail(el.error());
                o.ref = *el;
            }
            auto shot = s->b.screenshot(o);
            if (!shot) return fail(shot.error());
            return detail::screenshot_output(*s, *shot, o.format, a.inline_image.value_or(s->options.inline_screenshots));
        },
        reading_traits);
}

namespace detail {
/// Whether JavaScript source is a function expression by its start: `function`, `async`, or an
/// arrow's parameters (`x =>`, `(a, {b}) =>`) with nothing before them. `[1,2].map(x => x*2)`
/// is an expression (its arrow is inside).
inline bool looks_like_function(std::string_view src) {
    auto at = src.find_first_not_of(" \t\r\n");
    if (at == std::string_view::npos) return false;
    src.remove_prefix(at);
    auto word = [&](std::string_view w) {
        return src.substr(0, w.size()) == w && (src.size() == w.size() || !(std::isalnum(static_cast<unsigned char>(src[w.size()])) || src[w.size()] == '_' || src[w.size()] == '$'));
    };
    if (word("function") || word("async")) return true;
    std::size_t i = 0;
    if (src[0] == '(') {  // the parameter list, balanced (strings in default values are rare; not parsed)
        int depth = 0;
        for (; i < src.size(); ++i) {
            if (src[i] == '(' || src[i] == '[' || src[i] == '{') ++depth;
            if (src[i] == ')' || src[i] == ']' || src[i] == '}') --depth;
            if (depth == 0) break;
        }
        if (i == src.size()) return false;
        ++i;
    } else {  // one identifier
        while (i < src.size() && (std::isalnum(static_cast<unsigned char>(src[i])) || src[i] == '_' || src[i] == '$')) ++i;
        if (i == 0) return false;
    }
    while (i < src.size() && (src[i] == ' ' || src[i] == '\t' || src[i] == '\n' || src[i] == '\r')) ++i;
    return src.substr(i, 2) == "=>";
}
}  // namespace detail

/// Arguments of browser_emulate_media.
struct emulate_media_args {
    std::optional<std::string> colorScheme;    ///< prefers-color-scheme
    std::optional<std::string> reducedMotion;  ///< prefers-reduced-motion
    std::optional<std::string> forcedColors;   ///< forced-colors
    std::optional<std::string> contrast;       ///< prefers-contrast
    std::optional<std::string> media;          ///< the CSS media type
    static constexpr auto agentkit_fields() {
        return fields(AGENTKIT_FIELD(emulate_media_args, colorScheme, "", one_of("light", "dark")),
                      AGENTKIT_FIELD(emulate_media_args, reducedMotion, "", one_of("reduce", "no-preference")),
                      AGENTKIT_FIELD(emulate_media_args, forcedColors, "", one_of("active", "none")),
                      AGENTKIT_FIELD(emulate_media_args, contrast, "", one_of("more", "no-preference")),
                      AGENTKIT_FIELD(emulate_media_args, media, "", one_of("screen", "print")));
    }
};

/// Make the browser_emulate_media tool: CSS media features (dark mode, reduced motion, print).
template <class State>
auto emulate_media_tool(State& st) {
    tool_state* s = &st;
    return browser_tool<"browser_emulate_media">(
        st, "Emulate CSS media features (color scheme, reduced motion, print).",
        [s](const emulate_media_args& a) -> result<tool_output> {
            media_emulation m;
            m.color_scheme = a.colorScheme.value_or("");
            m.reduced_motion = a.reducedMotion.value_or("");
            m.forced_colors = a.forcedColors.value_or("");
            m.contrast = a.contrast.value_or("");
            m.media = a.media.value_or("");
            if (m.empty()) return detail::pw_reported(*s, error{errc::args_invalid, "Error: Specify at least one media feature to emulate.",
                                                                "Pass colorScheme, reducedMotion, forcedColors, contrast or media."});
            if (auto r = s->b.emulate_media(m); !r) return fail(r.error());
            std::string shown;
            for (auto [name, value] : {std::pair{"colorScheme", &m.color_scheme}, std::pair{"reducedMotion", &m.reduced_motion},
                                       std::pair{"forcedColors", &m.forced_colors}, std::pair{"contrast", &m.contrast}, std::pair{"media", &m.media}})
                if (!value->empty()) shown += (shown.empty() ? "" : ", ") + std::string(name) + ": " + pw::js_quote(*value);
            if (detail::pw_mode(*s)) {
                pw::response resp;
                resp.code.push_back(pw::statement("emulateMedia({ " + shown + " })", s->options.codegen));
                return detail::pw_finish(*s, std::move(resp), {});
            }
            return tool_output::text("emulating " + shown);
        },
        action_traits);
}

/// Make the browser_get_config tool (--caps config): the host's resolved configuration.
template <class State>
auto get_config_tool(State& st) {
    tool_state* s = &st;
    return browser_tool<"browser_get_config">(
        st, "The server's resolved configuration (file, environment, command line).",
        [s]() -> result<tool_output> {
            if (!s->options.effective_config)
                return fail(errc::not_found, "this host has no configuration to show", "Its options are the program's own.");
            const std::string text = s->options.effective_config().dump(2);  // redacted with the result
            if (detail::pw_mode(*s)) {
                pw::response resp;
                resp.language = codegen_language::none;
                resp.results.push_back(text);
                return tool_output::text(resp.text());
            }
            return tool_output::text(text);
        },
        reading_traits);
}

/// Arguments of browser_pdf_save.
struct pdf_args {
    std::optional<std::string> filename;  ///< the file (workspace-relative; none: page-<time>.pdf in the output directory)
    static constexpr auto agentkit_fields() { return fields(AGENTKIT_FIELD(pdf_args, filename, "File (default: the output directory)")); }
};

/// Make the browser_pdf_save tool (--caps pdf): the page printed as a PDF, to a file.
template <class State>
auto pdf_tool(State& st) {
    tool_state* s = &st;
    return browser_tool<"browser_pdf_save">(
        st, "Save the page as a PDF file.",
        [s](const pdf_args& a) -> result<tool_output> {
            auto bytes = s->b.pdf();
            if (!bytes) return fail(bytes.error());
            auto file = detail::pw_output_file(*s, a.filename, "page", "pdf");
            if (!file) return fail(file.error());
            auto written = detail::pw_write(*s, *file, *bytes, false, detail::pw_content::bytes);  // a PDF is not text to redact
            if (!written) return fail(written.error());
            const std::string& path = *written;
            if (detail::pw_mode(*s)) {
                pw::response resp;
                resp.language = s->options.codegen;
                resp.results.push_back("- [Page as pdf](" + path + ")");
                resp.code.push_back(pw::statement("pdf({ path: " + pw::js_quote(path) + " })", s->options.codegen));
                return detail::pw_finish(*s, std::move(resp), {});
            }
            return tool_output::text("PDF saved to " + path + " (" + std::to_string(bytes->size() / 1024) + " KB)");
        },
        reading_traits);
}

/// Make the browser_evaluate tool: run JavaScript in the page: () => value is called ((el) => value with a
/// ref), an expression evaluated; the result as JSON.
template <class State>
auto evaluate_tool(State& st) {
    tool_state* s = &st;
    return browser_tool<"browser_evaluate">(
        st,
        "Run JavaScript in the page; returns the result as JSON.",
        [s](const evaluate_args& a) -> result<tool_output> {
            std::string ref;
            if (a.ref || a.target) {
                auto el = detail::element_of(a.ref, a.target);
                if (!el) return fail(el.error());
                ref = *el;
            }
            json loc;
            if (detail::pw_mode(*s) && !ref.empty()) {
                auto l = s->b.aria_locator(ref);
                if (!l) return fail(l.error());
                loc = std::move(*l);
            }
            auto r = s->b.evaluate(a.function, ref);
            if (!r) return fail(r.error());
            if (detail::pw_mode(*s)) {
                // Playwright's code shows the function as given, or an expression as () => (expr);
                // a script stays JavaScript whatever the language (as Playwright writes it)
                std::string fn = a.function;
                if (!detail::looks_like_function(fn)) fn = "() => (" + fn + ")";
                const auto lang = s->options.codegen == codegen_language::none ? codegen_language::none : codegen_language::typescript;
                pw::response resp;
                resp.results.push_back(r->kind == "json" ? r->value.dump(2) : r->text);
                resp.code.push_back(loc.is_null() ? pw::statement(pw::call("evaluate", pw::quote(fn, lang), lang), lang)
                                                  : pw::element_action(loc, "evaluate", pw::quote(fn, lang), lang));
                return detail::pw_finish(*s, std::move(resp), {});
            }
            // JSON text, or what the value is (undefined, a function, ...): the page's data
            return tool_output::text(detail::page_data(r->text, s->b.boundary()));
        },
        open_world | destructive);
}

/// Make the browser_wait_for tool: wait for text to appear or disappear, or an element (ref) to reach a
/// state; or a number of seconds.
template <class State>
auto wait_tool(State& st) {
    tool_state* s = &st;
    return browser_tool<"browser_wait_for">(
        st,
        "Wait for text to appear or go, an element's state, or some seconds.",
        [s](const wait_args& a, tool_context& ctx) -> result<tool_output> {
            if (!a.text && !a.textGone && !a.ref) {
                if (!a.time) return fail(errc::args_invalid, "give text, textGone, ref or time", "e.g. {\"text\": \"Saved\"}");
                const double secs = std::min(*a.time, s->options.max_wait_seconds);
                // A deliberate pause the model asked for (e.g. an animation); bounded, and ended
                // at once when the call is cancelled.
                std::mutex m;
                std::condition_variable_any cv;
                std::unique_lock lock(m);
                (void)cv.wait_for(lock, ctx.stop, std::chrono::milliseconds(static_cast<std::int64_t>(secs * 1000)), [] { return false; });
                if (ctx.cancelled()) return fail(errc::tool_cancelled, "the wait was cancelled");
                if (detail::pw_mode(*s)) {
                    pw::response resp;
                    const std::string t = detail::pw_number(*a.time);
                    resp.code.push_back("await new Promise(f => setTimeout(f, " + t + " * 1000));");
                    resp.results.push_back(*a.time > secs ? "Waited for " + detail::pw_number(secs) + " seconds (requested " + t +
                                                                ", maximum is " + detail::pw_number(secs) + ")"
                                                          : "Waited for " + t + " seconds");
                    detail::pw_page_view v;
                    v.snapshot = true;
                    return detail::pw_finish(*s, std::move(resp), v);
                }
                return tool_output::text("waited " + json(secs).dump() + " s");
            }
            wait_options w;
            if (a.text) w.text = *a.text;
            if (a.textGone) w.text_gone = *a.textGone;
            if (a.ref) w.ref = *a.ref;
            if (a.state) w.state = *a.state;
            if (a.timeout) w.timeout = std::chrono::milliseconds(static_cast<std::int64_t>(*a.timeout * 1000));
            if (detail::pw_mode(*s) && !a.ref) {
                std::vector<std::string> code;
                if (a.textGone) code.push_back("await page.getByText(" + pw::dq_quote(*a.textGone) + ").first().waitFor({ state: 'hidden' });");
                if (a.text) code.push_back("await page.getByText(" + pw::dq_quote(*a.text) + ").first().waitFor({ state: 'visible' });");
                return detail::pw_action(*s, s->b.wait_for(w), std::move(code), true,
                                         {"Waited for " + (a.text ? *a.text : a.textGone.value_or(""))});
            }
            return detail::text_of(s->b.wait_for(w));
        },
        reading_traits | long_running);
}

/// Make the browser_extract tool: extract structured data without writing code: a table as rows (keyed by its
/// headers), a list's items, or the fields of a small schema found by their labels ({"price": "number"});
/// optionally within a ref.
template <class State>
auto extract_tool(State& st) {
    tool_state* s = &st;
    return browser_tool<"browser_extract">(
        st,
        "Extract a table's rows, a list's items or labelled fields as JSON.",
        [s](const extract_args& a) -> result<tool_output> {
            extract_options o;
            o.kind = a.kind.value_or(a.schema ? "fields" : "auto");
            if (a.ref || a.target) {
                auto el = detail::element_of(a.ref, a.target);
                if (!el) return fail(el.error());
                o.ref = *el;
            }
            if (a.schema) o.schema = *a.schema;
            if (a.max_items) o.max_items = static_cast<std::size_t>(*a.max_items);
            auto r = s->b.extract(o);
            if (!r) return fail(r.error());
            std::string head;
            if (detail::jstr(*r, "kind") == "table")
                head = std::to_string((*r)["rows"].size()) + " of " + std::to_string(detail::jint(*r, "total_rows")) + " rows";
            else if (detail::jstr(*r, "kind") == "list")
                head = std::to_string((*r)["items"].size()) + " of " + std::to_string(detail::jint(*r, "total_items")) + " items";
            else
                head = std::to_string((*r)["fields"].size() - (*r)["missing"].size()) + " of " +
                       std::to_string((*r)["fields"].size()) + " fields found";
            tool_output out = tool_output::text(detail::page_data(head + "\n" + r->dump(), s->b.boundary()));
            // structured output is page data too: all of it under the one key "page_data" (a client
            // that shows structured content to a model shows it as the page's), no string in it
            // able to write a mark ("<<" is "< <", keys included)
            out.structured = json{{"page_data", detail::escape_marks_json(*r)}};
            return out;
        },
        reading_traits);
}

}  // namespace agentkit::browser
