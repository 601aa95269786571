// agentkit/browser/detail/icon_hint.hpp — what a person would read from a control the page left
// without an accessible name: a tooltip (title), an image's alt, an SVG <title>, a data-* label,
// or the icon itself (an icon-font or sprite class, a sprite's fragment, an image file's name).
// The snapshot shows it as derived — `button (icon: search)` — never as the accessible name.
#pragma once

#include <agentkit/browser/dom_index.hpp>
#include <agentkit/core/strings.hpp>

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace agentkit::browser::detail {

/// A name derived from the DOM for an unnamed control: where it comes from and the words.
struct derived_name {
    std::string kind;  ///< "title" (a tooltip or SVG title), "alt", "label" (a data-* label), "icon" or "action" (a data-action hook)
    std::string text;  ///< the words, as a person would read them
    /// True when nothing was found.
    [[nodiscard]] bool empty() const noexcept { return text.empty(); }
};

/// Calls `f` with each non-empty token of `s` between the characters of `seps` (a class list's
/// classes, a name's words).
template <class F>
void for_each_token(std::string_view s, std::string_view seps, F&& f) {
    std::size_t i = 0;
    while (i < s.size()) {
        auto j = s.find_first_of(seps, i);
        if (j == std::string_view::npos) j = s.size();
        if (j > i) f(s.substr(i, j - i));
        i = j + 1;
    }
}

/// Words of an icon name: "magnifying-glass" → "magnifying glass" ("-", "_" and camel humps
/// become spaces), without style suffixes (-outline, -fill, -line, -solid, -o ...); "" when only
/// a style or size is left.
inline std::string icon_words(std::string_view name) {
    std::string s;
    for (std::size_t i = 0; i < name.size(); ++i) {
        const char ch = name[i];
        if (ch == '-' || ch == '_' || ch == '.' || ch == ' ') {
            if (!s.empty() && s.back() != ' ') s += ' ';
        } else if (ch >= 'A' && ch <= 'Z') {
            if (!s.empty() && s.back() != ' ' && i > 0 && name[i - 1] >= 'a' && name[i - 1] <= 'z') s += ' ';
            s += static_cast<char>(ch - 'A' + 'a');
        } else if ((ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9')) {
            s += ch;
        }  // (anything else is no part of an icon's name)
    }
    while (!s.empty() && s.back() == ' ') s.pop_back();
    // style and size words at the end say nothing about what the icon means
    static constexpr std::array<std::string_view, 22> styles{
        "outline", "outlined", "fill", "filled", "line", "solid", "regular", "light", "thin", "bold", "round", "rounded",
        "sharp", "alt", "o", "icon", "svg", "sm", "lg", "md", "xs", "xl"};
    for (bool cut = true; cut && !s.empty();) {
        cut = false;
        const auto sp = s.rfind(' ');
        if (sp == std::string::npos) break;
        const std::string_view last = std::string_view(s).substr(sp + 1);
        // a size: 2x, 24px
        const auto digits = last.find_first_not_of("0123456789");
        bool size = digits > 0 && digits != std::string_view::npos && (last.substr(digits) == "x" || last.substr(digits) == "px");
        for (auto st : styles) size = size || last == st;
        if (size || last.find_first_not_of("0123456789") == std::string_view::npos) {
            s.resize(sp);
            cut = true;
        }
    }
    bool style_only = s.empty() || s.find_first_not_of("0123456789 ") == std::string::npos;
    for (auto st : styles) style_only = style_only || s == st;
    return style_only ? std::string() : s;
}

/// The icon a class list names: a token of a known icon set ("fa-trash", "bi-gear",
/// "glyphicon-search", "icon-close", "mdi-delete", "lucide-x", "ri-search-line", ...), without its
/// set's prefix and style; "" when none.
inline std::string icon_from_class(std::string_view cls) {
    // icon sets whose tokens are "<prefix><name>", and the modifiers of those sets that name no icon
    static constexpr std::array<std::string_view, 22> prefixes{
        "fa-", "fas-", "far-", "bi-", "glyphicon-", "icon-", "icons-", "ico-", "mdi-", "lucide-", "ri-", "ti-tabler-",
        "ti-", "codicon-", "octicon-", "feather-", "la-", "las-", "ion-", "material-icons-", "gg-", "bx-"};
    static constexpr std::array<std::string_view, 26> modifiers{
        "solid", "regular", "light", "thin", "duotone", "brands", "sharp", "fw", "lg", "xs", "sm", "xl", "2xs", "spin",
        "pulse", "border", "inverse", "stack", "li", "ul", "large", "small", "inline", "button", "btn", "lines"};
    std::string best;
    for_each_token(cls, " \t\n", [&](std::string_view tok) {
        for (auto pre : prefixes) {
            if (tok.size() <= pre.size() || !iequals_ascii(tok.substr(0, pre.size()), pre)) continue;
            const std::string_view rest = tok.substr(pre.size());
            bool modifier = rest.find("stack-") == 0 || rest.find("flip-") == 0 || rest.find("rotate-") == 0 ||
                            rest.find("pull-") == 0 || (rest.size() <= 3 && rest.back() == 'x');
            for (auto m : modifiers) modifier = modifier || rest == m;
            if (modifier) break;
            if (auto w = icon_words(rest); !w.empty()) best = std::move(w);  // the last icon token wins ("fa fa-solid fa-x")
            break;
        }
    });
    return best;
}

/// The word a plain class list names a small control by, where no icon set's token does: the
/// class a page styles its icon with (`<span class="star">`, `<i class="reply">`), a BEM
/// element or modifier ("inbox__star", "toolbar__btn--share"), a behaviour hook ("js-retweet",
/// "btn-delete"). A class names layout, state and look far more often than a control's action
/// ("relative", "hover", "desktop", "is-open", "text-gray-500"), so a token counts only when one
/// of its words is a word icons are named by (a star, a trash can, more, reply, share ...);
/// generic words around it ("btn", "icon") are left out. The last such token wins (a BEM
/// modifier first); "" when none.
inline std::string icon_from_plain_class(std::string_view cls) {
    static constexpr std::array<std::string_view, 150> action_words{
        "star", "starred", "heart", "like", "unlike", "favorite", "favourite", "fav", "bookmark", "pin", "trash", "delete",
        "remove", "bin", "close", "cancel", "dismiss", "clear", "more", "ellipsis", "kebab", "dots", "overflow", "menu",
        "hamburger", "reply", "forward", "retweet", "repost", "share", "send", "archive", "edit", "pencil", "compose", "search",
        "magnifier", "settings", "gear", "cog", "options", "preferences", "filter", "sort", "refresh", "reload", "sync",
        "undo", "redo", "copy", "paste", "download", "upload", "attach", "attachment", "paperclip", "print", "save", "add",
        "plus", "minus", "expand", "collapse", "chevron", "arrow", "caret", "next", "prev", "previous", "back", "play",
        "pause", "stop", "mute", "unmute", "volume", "fullscreen", "zoom", "home", "user", "profile", "account", "bell",
        "notification", "notifications", "mail", "email", "envelope", "inbox", "message", "chat", "comment", "comments",
        "phone", "call", "camera", "video", "calendar", "clock", "location", "map", "flag", "report", "lock", "unlock",
        "eye", "hide", "info", "help", "question", "warning", "check", "tick", "cart", "basket", "checkout", "logout",
        "login", "signout", "signin", "external", "tag", "folder", "file", "upvote", "downvote", "vote", "rss", "emoji",
        "mic", "microphone", "translate", "globe", "language", "drag", "grip", "move", "rotate", "crop", "bold", "italic",
        "underline", "strikethrough", "quote", "code", "unlink", "snooze", "mark", "flip", "thumbs"};
    static constexpr std::array<std::string_view, 12> generic{"icon", "icons", "btn", "button", "action", "actions",
                                                              "item", "link", "control", "ctrl", "js", "ui"};
    auto word = [&](std::string_view tok) -> std::string {
        if (tok.empty() || tok.size() > 32) return {};
        for (const char ch : tok)
            if (!((ch >= 'a' && ch <= 'z') || ch == '-' || ch == '_')) return {};  // capitals, digits, ':' — no plain word
        if (tok.rfind("is-", 0) == 0 || tok.rfind("has-", 0) == 0) return {};      // a state
        std::string out;
        bool named = false;
        for_each_token(icon_words(tok), " ", [&](std::string_view w) {
            named = named || std::find(action_words.begin(), action_words.end(), w) != action_words.end();
            if (std::find(generic.begin(), generic.end(), w) != generic.end()) return;
            if (!out.empty()) out += ' ';
            out += w;
        });
        return named ? out : std::string();
    };
    std::string best, modifier;
    for_each_token(cls, " \t\n", [&](std::string_view tok) {
        if (const auto m = tok.find("--"); m != std::string_view::npos) {  // BEM: the modifier says which one
            if (auto w = word(tok.substr(m + 2)); !w.empty()) modifier = std::move(w);
            tok = tok.substr(0, m);
        }
        if (const auto e = tok.rfind("__"); e != std::string_view::npos) tok = tok.substr(e + 2);  // BEM: the element
        if (auto w = word(tok); !w.empty()) best = std::move(w);
    });
    return modifier.empty() ? best : modifier;
}

/// Whether a file or fragment name reads as an identifier rather than words: a part (between
/// "-", "_", ".") of 5 characters or more with a run of 4 equal characters ("XXXXX"), 3
/// lower-to-upper humps ("xZqWvBn"), or a digit between letters in a part whose capitals are
/// not only its first letter ("TB1upAiJ", "x9Yq2"); or a content hash (more than 12 hex
/// digits). Such names are made by upload services and CDNs, not by a person naming an icon
/// ("k8s", "web2print", "arrowLeft" are words).
inline bool id_like(std::string_view name) {
    if (name.size() > 12 && name.find_first_not_of("0123456789abcdefABCDEF") == std::string_view::npos) return true;
    auto alpha = [](char ch) { return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z'); };
    std::size_t i = 0;
    while (i < name.size()) {
        std::size_t j = name.find_first_of("-_. ", i);
        if (j == std::string_view::npos) j = name.size();
        const std::string_view part = name.substr(i, j - i);
        if (part.size() >= 5) {
            int humps = 0, run = 1;
            bool inner_capital = false, digit_inside = false;
            for (std::size_t k = 1; k < part.size(); ++k) {
                run = part[k] == part[k - 1] ? run + 1 : 1;
                if (run >= 4) return true;
                inner_capital = inner_capital || (part[k] >= 'A' && part[k] <= 'Z');
                if (part[k] >= 'A' && part[k] <= 'Z' && part[k - 1] >= 'a' && part[k - 1] <= 'z') ++humps;
                if (k + 1 < part.size() && part[k] >= '0' && part[k] <= '9' && alpha(part[k - 1]) && alpha(part[k + 1]))
                    digit_inside = true;
            }
            if (humps >= 3 || (digit_inside && inner_capital)) return true;
        }
        i = j + 1;
    }
    return false;
}

/// The icon a URL names: a sprite's fragment ("#icon-search", "sprite.svg#search") or an image
/// file's name ("/img/trash-can.svg" → "trash can"); "" when it names none: data: URLs, hashes
/// and upload ids (id_like), a photo (a JPEG file: icons are drawn as SVG, PNG, GIF, WebP, ICO),
/// a path without an image file's extension (an image service's endpoint: "/images/dims?…"),
/// and a photo's own file name (dates, "screen shot …", many words).
inline std::string icon_from_url(std::string_view url) {
    if (url.rfind("data:", 0) == 0) return {};
    std::string_view name;
    if (const auto hash = url.find('#'); hash != std::string_view::npos) {
        name = url.substr(hash + 1);
    } else {
        const auto q = url.find_first_of("?");
        const std::string_view path = url.substr(0, q);
        const auto slash = path.rfind('/');
        name = slash == std::string_view::npos ? path : path.substr(slash + 1);
        const auto dot = name.rfind('.');
        if (dot == std::string_view::npos) return {};
        static constexpr std::array<std::string_view, 8> icon_formats{"svg", "png", "gif", "webp", "ico", "avif", "bmp", "cur"};
        const std::string_view ext = name.substr(dot + 1);
        bool icon_format = false;
        for (auto f : icon_formats) icon_format = icon_format || iequals_ascii(ext, f);
        if (!icon_format) return {};
        name = name.substr(0, dot);
        if (const auto at = name.rfind('@'); at != std::string_view::npos) name = name.substr(0, at);  // "close@2x"
    }
    for (auto pre : {"icon-", "icons-", "ico-", "ic_", "ic-", "i-", "sprite-", "svg-"})
        if (name.size() > std::string_view(pre).size() && name.rfind(pre, 0) == 0) name = name.substr(std::string_view(pre).size());
    if (id_like(name)) return {};
    std::string w = icon_words(name);
    // a photo's file name ("screen shot 2015 01 15 at 4 55 pm", "13cabinet thumb standard") is
    // no icon's: at most 4 words, none with 3 digits or more
    std::size_t words = w.empty() ? 0 : 1, digits = 0;
    for (const char ch : w) {
        if (ch == ' ') {
            ++words;
            digits = 0;
        } else if (ch >= '0' && ch <= '9' && ++digits >= 3) {
            return {};
        }
    }
    return words > 4 ? std::string() : w;
}

/// Whether an element's inline style paints a background image: an `<img>` that has one shows
/// that picture, and its `src` is a placeholder (a transparent spacer) whose name says nothing.
inline bool paints_background(std::string_view style) {
    // a declaration ("...;" separated) whose property starts with "background" and whose value has a url(
    std::size_t i = 0;
    while (i < style.size()) {
        std::size_t j = style.find(';', i);
        if (j == std::string_view::npos) j = style.size();
        const std::string_view decl = style.substr(i, j - i);
        const auto colon = decl.find(':');
        if (colon != std::string_view::npos) {
            std::string_view prop = decl.substr(0, colon);
            while (!prop.empty() && (prop.front() == ' ' || prop.front() == '\t' || prop.front() == '\n')) prop.remove_prefix(1);
            bool url = false;
            for (std::size_t k = colon; k + 4 <= decl.size() && !url; ++k) url = iequals_ascii(decl.substr(k, 4), "url(");
            if (prop.size() >= 10 && iequals_ascii(prop.substr(0, 10), "background") && url) return true;
        }
        i = j + 1;
    }
    return false;
}

/// Whether an image is the size of an icon (at most 64 CSS px each way; true when it has no box
/// to tell): a person reads a small image's picture as what a control does, a photo's not.
inline bool icon_sized(const dom_node_facts& f) { return !f.has_box || (f.w <= 64 && f.h <= 64); }

/// What a person would read from the unnamed control `backend` and its descendants (a few levels,
/// a few dozen nodes): its words first (title, alt, SVG title, data-* labels), else its icon
/// (data-icon, an icon class, a sprite, an image file name); nothing when none says anything.
inline derived_name derive_name(const dom_index& dom, std::int64_t backend) {
    static constexpr std::array<std::string_view, 8> label_attrs{"data-tooltip", "data-title", "data-label", "data-original-title",
                                                                 "data-bs-original-title", "data-tip", "data-hint", "data-balloon"};
    derived_name words, icon;
    auto keep = [](derived_name& slot, const char* kind, std::string_view v) {
        std::string t = std::string(v);
        const auto a = t.find_first_not_of(" \t\r\n"), b = t.find_last_not_of(" \t\r\n");
        if (a == std::string::npos || !slot.empty()) return;
        t = t.substr(a, b - a + 1);
        if (t.size() > 80) return;  // a paragraph is not a control's label
        slot = {kind, std::move(t)};
    };
    std::vector<std::pair<std::int64_t, int>> todo{{backend, 0}};
    for (std::size_t k = 0; k < todo.size() && k < 48 && words.empty(); ++k) {
        const auto [id, level] = todo[k];
        const dom_node_facts* f = dom.find(id);
        if (f == nullptr) continue;
        if (f->tag == "title") {  // an SVG's <title> (dom_index keeps its text)
            keep(words, "title", f->text);
            continue;
        }
        keep(words, "title", f->attr("title"));
        if (f->tag == "img" || (f->tag == "input" && iequals_ascii(f->attr("type"), "image"))) {
            keep(words, "alt", f->attr("alt"));
            if (icon.empty() && icon_sized(*f) && !paints_background(f->attr("style")))
                keep(icon, "icon", icon_from_url(f->attr("src")));
        }
        for (auto a : label_attrs) keep(words, "label", f->attr(a));
        if (icon.empty()) keep(icon, "icon", icon_words(f->attr("data-icon")));
        if (icon.empty() && (f->tag == "use" || f->tag == "image")) {
            std::string_view href = f->attr("href");
            if (href.empty()) href = f->attr("xlink:href");
            keep(icon, "icon", icon_from_url(href));
        }
        if (icon.empty()) keep(icon, "icon", icon_from_class(f->attr("class")));
        if (level < 4)
            if (auto ch = dom.children.find(id); ch != dom.children.end())
                for (auto c : ch->second) todo.emplace_back(c, level + 1);
    }
    if (words.empty() && icon.empty()) {
        // Last: what the control's own classes (or its only child's) call it, for a control of
        // an icon's size (a plain class on a large element names a layout, not an icon), and
        // the action a data-action hook names.
        const dom_node_facts* f = dom.find(backend);
        if (f != nullptr) {
            keep(icon, "action", icon_words(f->attr("data-action")));
            if (icon.empty() && f->visible() && f->w <= 64 && f->h <= 64) {
                keep(icon, "icon", icon_from_plain_class(f->attr("class")));
                if (auto ch = dom.children.find(backend); icon.empty() && ch != dom.children.end() && ch->second.size() == 1)
                    if (const dom_node_facts* only = dom.find(ch->second.front()); only != nullptr)
                        keep(icon, "icon", icon_from_plain_class(only->attr("class")));
            }
        }
    }
    return words.empty() ? icon : words;
}

}  // namespace agentkit::browser::detail
