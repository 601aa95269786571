// agentkit/browser/detail/page_data.hpp — the marks that frame page-derived text as untrusted
// data in every result ("<<page-data NONCE>>" … "<<end NONCE>>").
#pragma once

#include <agentkit/core/json.hpp>
#include <agentkit/core/strings.hpp>

#include <string>
#include <string_view>

namespace agentkit::browser::detail {

/// Page text that cannot open or close a mark: every "<<" becomes "< <". The one escaping rule,
/// for marked text, for page strings quoted in errors and for structured output.
inline std::string escape_marks(std::string_view text) {
    std::string s;
    s.reserve(text.size());
    for (std::size_t i = 0; i < text.size(); ++i) {
        s += text[i];
        if (text[i] == '<' && i + 1 < text.size() && text[i + 1] == '<') s += ' ';
    }
    return s;
}

/// escape_marks() on every string of a JSON value, object keys included: structured output
/// built from page content (browser_extract's rows) carries no forged mark either.
inline json escape_marks_json(const json& j) {
    if (j.is_string()) return escape_marks(j.get_ref<const std::string&>());
    if (j.is_array()) {
        json a = json::array();
        for (const auto& v : j) a.push_back(escape_marks_json(v));
        return a;
    }
    if (j.is_object()) {
        json o = json::object();
        for (auto it = j.begin(); it != j.end(); ++it) o[escape_marks(std::string_view(it.key()))] = escape_marks_json(it.value());
        return o;
    }
    return j;
}

/// A control's value exactly as the control holds it, quoted: spaces kept (leading, trailing,
/// repeated: a model types what it reads), escaped as a JSON string is (`\"`, `\\`, `\n`,
/// `\t`, `\u001b`; the same form the secret redaction looks for). A value over `max` bytes is
/// cut, and the cut is said outside the quotes, so it cannot be read as part of the value.
inline std::string quote_value(std::string_view v, std::size_t max) {
    const std::size_t keep = v.size() > max ? utf8_safe_prefix(v, max) : v.size();
    std::string o = json(std::string(v.substr(0, keep))).dump(-1, ' ', false, json::error_handler_t::replace);
    if (keep < v.size()) o += "… (" + std::to_string(v.size()) + " bytes)";
    return o;
}

/// A page string quoted where it is not inside marks (an error naming an element, an option):
/// quote_value() of escape_marks(): in JSON quotes it cannot leave, with no mark in it.
inline std::string page_quote(std::string_view v, std::size_t max = 120) { return quote_value(escape_marks(v), max); }

/// Wrap page-derived text in boundary lines naming it untrusted data (empty nonce: no marks).
inline std::string page_data(const std::string& text, const std::string& nonce) {
    if (nonce.empty() || text.empty()) return text;
    // Short marks: what they mean is said once, in the server's instructions and the tools'
    // descriptions, not in every result (tokens are the budget). A page cannot forge a mark:
    // "<<" inside its text becomes "< <", so no line of page text can open or close one (the
    // nonce, which the page never sees, is a second guard).
    std::string s = "<<page-data " + nonce + ">>\n";
    s += escape_marks(text);
    if (s.back() != '\n') s += '\n';
    return s + "<<end " + nonce + ">>\n";
}

/// An error's message: what failed in agentkit's own words, then the page's strings it needs
/// to name (`quoted`: one "what: value" line each, values page_quote()d) in a marked block, so
/// no string the page chose reaches the model outside the marks. Nothing quoted: `own` alone.
/// Without marks (an empty nonce) the lines follow in parentheses, as one line.
inline std::string quoting_page(std::string own, std::string quoted, const std::string& nonce) {
    while (!quoted.empty() && quoted.back() == '\n') quoted.pop_back();
    if (quoted.empty()) return own;
    if (nonce.empty()) {
        for (auto& ch : quoted)
            if (ch == '\n') ch = ';';
        return own + " (" + quoted + ")";
    }
    return own + "; as the page shows it:\n" + page_data(quoted, nonce);
}

}  // namespace agentkit::browser::detail
