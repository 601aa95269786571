// agentkit/browser/keys.hpp — key names to CDP Input.dispatchKeyEvent parameters.
//
// A key chord is written like Playwright's: "Enter", "Shift+Tab", "Control+a", "ArrowDown",
// "F5", "a", " ". Modifiers: Alt, Control (Ctrl), Meta (Cmd, Command), Shift.
//
//   auto chord = agentkit::browser::parse_key_chord("Control+Shift+ArrowLeft");
//   chord->modifiers;  // 2 | 8
//   chord->key.code;   // "ArrowLeft"
#pragma once

#include <agentkit/core/result.hpp>
#include <agentkit/core/strings.hpp>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace agentkit::browser {

/// One key as CDP wants it.
struct key_def {
    std::string key;   ///< DOM KeyboardEvent.key ("Enter", "a")
    std::string code;  ///< DOM KeyboardEvent.code ("Enter", "KeyA")
    int key_code = 0;  ///< windowsVirtualKeyCode
    std::string text;  ///< text the key inserts ("" for non-printing keys)
};

/// A key with its modifiers held.
struct key_chord {
    key_def key;  ///< the key pressed
    int modifiers = 0;                  ///< CDP bit mask: Alt 1, Control 2, Meta 4, Shift 8
    std::vector<key_def> modifier_keys;  ///< pressed before `key`, released after it
};

namespace detail {

struct named_key {
    std::string_view name;
    std::string_view key;
    std::string_view code;
    int key_code;
    std::string_view text;
};

inline constexpr named_key kNamedKeys[] = {
    {"Enter", "Enter", "Enter", 13, "\r"},
    {"Return", "Enter", "Enter", 13, "\r"},
    {"Tab", "Tab", "Tab", 9, ""},
    {"Escape", "Escape", "Escape", 27, ""},
    {"Esc", "Escape", "Escape", 27, ""},
    {"Backspace", "Backspace", "Backspace", 8, ""},
    {"Delete", "Delete", "Delete", 46, ""},
    {"Del", "Delete", "Delete", 46, ""},
    {"Insert", "Insert", "Insert", 45, ""},
    {"Space", " ", "Space", 32, " "},
    {" ", " ", "Space", 32, " "},
    {"ArrowUp", "ArrowUp", "ArrowUp", 38, ""},
    {"ArrowDown", "ArrowDown", "ArrowDown", 40, ""},
    {"ArrowLeft", "ArrowLeft", "ArrowLeft", 37, ""},
    {"ArrowRight", "ArrowRight", "ArrowRight", 39, ""},
    {"Up", "ArrowUp", "ArrowUp", 38, ""},
    {"Down", "ArrowDown", "ArrowDown", 40, ""},
    {"Left", "ArrowLeft", "ArrowLeft", 37, ""},
    {"Right", "ArrowRight", "ArrowRight", 39, ""},
    {"Home", "Home", "Home", 36, ""},
    {"End", "End", "End", 35, ""},
    {"PageUp", "PageUp", "PageUp", 33, ""},
    {"PageDown", "PageDown", "PageDown", 34, ""},
    {"F1", "F1", "F1", 112, ""},
    {"F2", "F2", "F2", 113, ""},
    {"F3", "F3", "F3", 114, ""},
    {"F4", "F4", "F4", 115, ""},
    {"F5", "F5", "F5", 116, ""},
    {"F6", "F6", "F6", 117, ""},
    {"F7", "F7", "F7", 118, ""},
    {"F8", "F8", "F8", 119, ""},
    {"F9", "F9", "F9", 120, ""},
    {"F10", "F10", "F10", 121, ""},
    {"F11", "F11", "F11", 122, ""},
    {"F12", "F12", "F12", 123, ""},
    {"Shift", "Shift", "ShiftLeft", 16, ""},
    {"Control", "Control", "ControlLeft", 17, ""},
    {"Ctrl", "Control", "ControlLeft", 17, ""},
    {"Alt", "Alt", "AltLeft", 18, ""},
    {"Meta", "Meta", "MetaLeft", 91, ""},
    {"Cmd", "Meta", "MetaLeft", 91, ""},
    {"Command", "Meta", "MetaLeft", 91, ""},
    {"CapsLock", "CapsLock", "CapsLock", 20, ""},
    {"ContextMenu", "ContextMenu", "ContextMenu", 93, ""},
};

// US layout: printable ASCII → code and virtual key code.
inline key_def printable_key(char c) {
    key_def k;
    k.key = std::string(1, c);
    k.text = k.key;
    if (c >= 'a' && c <= 'z') {
        k.code = std::string("Key") + static_cast<char>(c - 'a' + 'A');
        k.key_code = c - 'a' + 'A';
    } else if (c >= 'A' && c <= 'Z') {
        k.code = std::string("Key") + c;
        k.key_code = c;
    } else if (c >= '0' && c <= '9') {
        k.code = std::string("Digit") + c;
        k.key_code = c;
    } else {
        struct punct {
            char c;
            std::string_view code;
            int vk;
        };
        static constexpr punct table[] = {
            {'-', "Minus", 189},        {'=', "Equal", 187},       {'[', "BracketLeft", 219}, {']', "BracketRight", 221},
            {'\\', "Backslash", 220},   {';', "Semicolon", 186},   {'\'', "Quote", 222},      {',', "Comma", 188},
            {'.', "Period", 190},       {'/', "Slash", 191},       {'`', "Backquote", 192},   {'_', "Minus", 189},
            {'+', "Equal", 187},        {'{', "BracketLeft", 219}, {'}', "BracketRight", 221}, {'|', "Backslash", 220},
            {':', "Semicolon", 186},    {'"', "Quote", 222},       {'<', "Comma", 188},       {'>', "Period", 190},
            {'?', "Slash", 191},        {'~', "Backquote", 192},   {'!', "Digit1", 49},       {'@', "Digit2", 50},
            {'#', "Digit3", 51},        {'$', "Digit4", 52},       {'%', "Digit5", 53},       {'^', "Digit6", 54},
            {'&', "Digit7", 55},        {'*', "Digit8", 56},       {'(', "Digit9", 57},       {')', "Digit0", 48},
        };
        for (const auto& p : table)
            if (p.c == c) {
                k.code = std::string(p.code);
                k.key_code = p.vk;
            }
    }
    return k;
}

}  // namespace detail

/// Look up one key by name ("Enter", "ArrowDown", "F5", "a"). Case-insensitive for names.
[[nodiscard]] inline result<key_def> find_key(std::string_view name) {
    for (const auto& k : detail::kNamedKeys) {
        if (k.name == name || (name.size() > 1 && iequals_ascii(k.name, name)))
            return key_def{std::string(k.key), std::string(k.code), k.key_code, std::string(k.text)};
    }
    if (name.size() == 1 && static_cast<unsigned char>(name[0]) >= 0x20 && static_cast<unsigned char>(name[0]) < 0x7f)
        return detail::printable_key(name[0]);
    if (!name.empty() && static_cast<unsigned char>(name[0]) >= 0x80) {  // one non-ASCII character: text only
        key_def k;
        k.key = std::string(name);
        k.text = std::string(name);
        return k;
    }
    return fail(errc::args_invalid, "unknown key \"" + std::string(name) + "\"",
                "Use a key name like Enter, Tab, Escape, Backspace, ArrowDown, PageDown, F5 or a single character, "
                "with modifiers joined by '+': Control+a, Shift+Tab.",
                json{{"key", name}});
}

/// Parse "Control+Shift+a". A lone "+" is the plus key; "Control++" is Control with plus.
[[nodiscard]] inline result<key_chord> parse_key_chord(std::string_view chord) {
    if (chord.empty()) return fail(errc::args_invalid, "empty key", "Pass a key name such as Enter or Control+a.");
    std::vector<std::string_view> parts;
    std::size_t start = 0;
    for (std::size_t i = 0; i < chord.size(); ++i) {
        if (chord[i] == '+' && i > start) {
            parts.push_back(chord.substr(start, i - start));
            start = i + 1;
        }
    }
    parts.push_back(chord.substr(start));
    if (parts.back().empty()) return fail(errc::args_invalid, "key chord \"" + std::string(chord) + "\" ends with '+'");
    key_chord out;
    for (std::size_t i = 0; i + 1 < parts.size(); ++i) {
        const auto m = parts[i];
        int bit = 0;
        if (iequals_ascii(m, "Alt") || iequals_ascii(m, "Option")) bit = 1;
        else if (iequals_ascii(m, "Control") || iequals_ascii(m, "Ctrl")) bit = 2;
        else if (iequals_ascii(m, "Meta") || iequals_ascii(m, "Cmd") || iequals_ascii(m, "Command"))
            bit = 4;
        else if (iequals_ascii(m, "Shift")) bit = 8;
        else
            return fail(errc::args_invalid, "unknown modifier \"" + std::string(m) + "\" in \"" + std::string(chord) + "\"",
                        "Modifiers are Alt, Control, Meta and Shift.");
        if ((out.modifiers & bit) != 0) continue;
        out.modifiers |= bit;
        auto mk = find_key(bit == 1 ? "Alt" : bit == 2 ? "Control" : bit == 4 ? "Meta" : "Shift");
        if (mk) out.modifier_keys.push_back(*mk);
    }
    auto k = find_key(parts.back());
    if (!k) return fail(k.error());
    out.key = *k;
    // Shift changes the text of letters; Control/Alt/Meta chords insert no text.
    if ((out.modifiers & 8) != 0 && out.key.text.size() == 1 && out.key.text[0] >= 'a' && out.key.text[0] <= 'z') {
        out.key.text[0] = static_cast<char>(out.key.text[0] - 'a' + 'A');
        out.key.key = out.key.text;
    }
    if ((out.modifiers & (1 | 2 | 4)) != 0 && out.key.key != "Enter") out.key.text.clear();
    return out;
}

/// The CDP modifier bits (Alt 1, Control 2, Meta 4, Shift 8) of "Control+Shift" ("" is none),
/// for a mouse event.
[[nodiscard]] inline result<int> parse_modifiers(std::string_view mods) {
    if (mods.empty()) return 0;
    auto chord = parse_key_chord(std::string(mods) + "+a");  // a trailing key to parse the modifiers only
    if (!chord) return fail(chord.error());
    return chord->modifiers;
}

}  // namespace agentkit::browser
