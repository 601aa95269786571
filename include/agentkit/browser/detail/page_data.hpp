// agentkit/browser/detail/page_data.hpp — the marks that frame page-derived text as untrusted
// data in every result ("<<page-data NONCE>>" … "<<end NONCE>>").
#pragma once

#include <string>

namespace agentkit::browser::detail {

/// Wrap page-derived text in boundary lines naming it untrusted data (empty nonce: no marks).
inline std::string page_data(const std::string& text, const std::string& nonce) {
    if (nonce.empty() || text.empty()) return text;
    // Short marks: what they mean is said once, in the server's instructions and the tools'
    // descriptions, not in every result (tokens are the budget). A page cannot forge a mark:
    // "<<" inside its text becomes "< <", so no line of page text can open or close one (the
    // nonce, which the page never sees, is a second guard).
    std::string s = "<<page-data " + nonce + ">>\n";
    s.reserve(text.size() + 40);
    for (std::size_t i = 0; i < text.size(); ++i) {
        s += text[i];
        if (text[i] == '<' && i + 1 < text.size() && text[i + 1] == '<') s += ' ';
    }
    if (s.back() != '\n') s += '\n';
    return s + "<<end " + nonce + ">>\n";
}

}  // namespace agentkit::browser::detail
