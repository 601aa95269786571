// agentkit/browser/detail/widget_facts.hpp — what the DOM says of widgets that script libraries
// build without ARIA, where the accessibility tree says less than the page shows: items of a
// list whose one listener serves them, alike siblings (rows, cards), whether a control's panel
// is open or closed, and how much of a text is words. The renderer (render.hpp) reads them.
#pragma once

#include <agentkit/browser/detail/line_text.hpp>
#include <agentkit/browser/dom_index.hpp>

#include <algorithm>
#include <array>
#include <cctype>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace agentkit::browser::detail {

/// Letters and digits in a text: ASCII ones, and every other character but the bullets, dots,
/// dashes and guillemets pages put between items ("•", "·", "–", "—", "›", "»", "…").
inline std::size_t word_chars(std::string_view t) {
    std::size_t n = 0;
    for (std::size_t i = 0; i < t.size();) {
        const auto u = static_cast<unsigned char>(t[i]);
        if (u < 0x80) {
            n += std::isalnum(u) != 0 ? 1 : 0;
            ++i;
            continue;
        }
        std::size_t len = u >= 0xF0 ? 4 : u >= 0xE0 ? 3 : u >= 0xC0 ? 2 : 1;
        len = std::min(len, t.size() - i);
        const std::string_view ch = t.substr(i, len);
        static constexpr std::array<std::string_view, 10> marks{"•", "·", "–", "—", "›", "»", "‹", "«", "…", "\xc2\xa0"};
        n += std::find(marks.begin(), marks.end(), ch) == marks.end() ? 1U : 0U;
        i += len;
    }
    return n;
}

/// Whether an element draws nothing a person sees or clicks (a script, a style, a template).
inline bool renders_nothing(const dom_node_facts& f) { return f.tag == "script" || f.tag == "style" || f.tag == "template"; }

/// Whether an element has a sibling element of the same tag and class: one of a list of alike
/// items (an inbox's rows, a grid's cards), as a person reads them.
inline bool repeated_item(const dom_index& dom, std::int64_t backend, const dom_node_facts& df) {
    auto sib = dom.children.find(df.parent);
    if (df.parent == 0 || sib == dom.children.end()) return false;
    const std::string_view cls = df.attr("class");
    std::size_t seen = 0;
    for (const auto id : sib->second) {
        if (id == backend) continue;
        if (++seen > 64) break;
        if (const auto* f = dom.find(id); f != nullptr && f->tag == df.tag && f->attr("class") == cls) return true;
    }
    return false;
}

/// Whether a clickable element's listener serves the items below it (event delegation: an
/// autocomplete's suggestion list, a menu whose items carry no listener of their own): two or
/// more visible child elements alike (list items, table rows, options, or one tag and one class),
/// none with a listener or a control of its own. Each item is then a control, the list is not.
inline bool delegates_to_items(const dom_index& dom, std::int64_t backend, const dom_node_facts& df) {
    if (!df.clickable || df.tag == "body" || df.tag == "html") return false;
    auto ch = dom.children.find(backend);
    if (ch == dom.children.end() || ch->second.size() < 2) return false;
    std::string_view tag, cls;
    // list items, table rows and options are alike by their tag; other elements by tag and class
    const auto by_tag = [&] { return tag == "li" || tag == "tr" || tag == "option"; };
    std::size_t items = 0;
    int budget = 400;  // DOM nodes looked at below the items
    for (const auto id : ch->second) {
        const dom_node_facts* f = dom.find(id);
        if (f == nullptr || renders_nothing(*f) || !f->visible()) continue;
        if (items == 0) {
            tag = f->tag;
            cls = f->attr("class");
            if (!by_tag() && cls.empty()) return false;
        } else if (f->tag != tag || (!by_tag() && f->attr("class") != cls)) {
            return false;
        }
        if (f->clickable || dom.own_pointer(*f)) return false;  // items that listen themselves are controls already
        // nothing clickable inside an item (a list of links: the links are the controls)
        std::vector<std::int64_t> todo{id};
        while (!todo.empty()) {
            const auto at = todo.back();
            todo.pop_back();
            if (--budget < 0) return false;
            if (at != id)
                if (const auto* g = dom.find(at); g != nullptr && (g->clickable || g->tag == "input" || g->tag == "button")) return false;
            if (auto k = dom.children.find(at); k != dom.children.end()) todo.insert(todo.end(), k->second.begin(), k->second.end());
        }
        ++items;
    }
    return items >= 2;
}

/// What the DOM says of a control the page did not mark with aria-expanded: "collapsed" when the
/// element right after it (or after the wrapper it ends) is a hidden container of elements (a
/// tree's closed folder, a disclosure's panel), "expanded" when that is a visible list in the same
/// list item (a tree's open folder); "" otherwise.
inline std::string_view disclosure_state(const dom_index& dom, std::int64_t backend, const dom_node_facts& df) {
    std::int64_t at = backend;
    const dom_node_facts* me = &df;
    for (int up = 0; up < 3 && me != nullptr && me->parent != 0; ++up) {
        auto sib = dom.children.find(me->parent);
        if (sib == dom.children.end()) return {};
        const auto& v = sib->second;
        auto pos = std::find(v.begin(), v.end(), at);
        if (pos == v.end()) return {};
        const dom_node_facts* next = nullptr;
        std::int64_t next_id = 0;
        for (auto k = pos + 1; k != v.end() && next == nullptr; ++k)
            if (const auto* f = dom.find(*k); f != nullptr && !renders_nothing(*f)) {
                next = f;
                next_id = *k;
            }
        if (next == nullptr) {  // the last element of its wrapper: look after the wrapper
            const dom_node_facts* p = dom.find(me->parent);
            if (p == nullptr || p->tag == "li" || p->tag == "body" || p->clickable) return {};
            at = me->parent;
            me = p;
            continue;
        }
        const bool list = next->tag == "ul" || next->tag == "ol" || next->tag == "menu";
        if (!list && next->tag != "div" && next->tag != "section" && next->tag != "dl") return {};
        // a live region or a dialog shows up on its own (a toast, a modal), it is not a panel the control opens
        const std::string_view nrole = next->attr("role");
        if (nrole == "status" || nrole == "alert" || nrole == "log" || nrole == "dialog" || nrole == "alertdialog" ||
            nrole == "tooltip" || !next->attr("aria-live").empty())
            return {};
        auto kids = dom.children.find(next_id);
        if (kids == dom.children.end() || kids->second.empty()) return {};
        if (!next->visible()) return "collapsed";
        const dom_node_facts* p = dom.find(me->parent);
        return list && p != nullptr && p->tag == "li" ? "expanded" : "";
    }
    return {};
}

/// The text of the element a checkbox, radio or switch the page left unnamed sits in and that
/// listens for its clicks (a toggle's wrapper around the input and its words, which the page may
/// hide from the accessibility tree): "" when there is none within three levels.
inline std::string wrapper_text(const dom_index& dom, const dom_node_facts& df, std::size_t max) {
    std::int64_t at = df.parent;
    for (int up = 0; up < 3 && at != 0; ++up) {
        const dom_node_facts* f = dom.find(at);
        if (f == nullptr || f->tag == "body" || f->tag == "html" || f->tag == "form") return {};
        if (f->clickable || f->tag == "label") return f->visible() ? clip(f->text, max) : std::string();
        at = f->parent;
    }
    return {};
}

/// Whether an element hidden by aria-hidden is the page behind a modal layer: a child of the
/// body that covers much of the viewport while another child of the body, visible and not
/// hidden, holds the layer (a dialog's or a dropdown's portal: MUI, Radix and most modal
/// managers hide the rest of the page so). A click there reaches the layer's backdrop, not the
/// page: its controls are not listed.
inline bool behind_modal_layer(const dom_index& dom, std::int64_t backend, const dom_node_facts& df) {
    const dom_node_facts* body = dom.find(df.parent);
    if (body == nullptr || body->tag != "body" || !df.visible() || dom.viewport_w <= 0 || dom.viewport_h <= 0) return false;
    if (df.w * df.h < 0.4 * dom.viewport_w * dom.viewport_h) return false;
    auto kids = dom.children.find(df.parent);
    if (kids == dom.children.end()) return false;
    for (const auto id : kids->second) {
        if (id == backend) continue;
        const dom_node_facts* f = dom.find(id);
        if (f != nullptr && !renders_nothing(*f) && f->visible() && f->attr("aria-hidden") != "true") return true;
    }
    return false;
}

/// Whether a native form control only backs a widget a script built in its place (Tom Select's,
/// Chosen's, a custom dropdown's hidden <select>): shrunk to two pixels or less in width or
/// height (a select keeps its border: 1px wide is 2; Tom Select sets only the width) and taken
/// out of the tab order (tabindex=-1). People use the widget; the control is not listed. A custom checkbox's
/// hidden input stays focusable and is not one of these.
inline bool backs_a_widget(const dom_node_facts& df) {
    return (df.tag == "select" || df.tag == "input" || df.tag == "textarea") && df.attr("tabindex") == "-1" && df.has_box &&
           (df.w <= 2 || df.h <= 2);
}

}  // namespace agentkit::browser::detail
