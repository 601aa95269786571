// agentkit/core/strings.hpp — small string utilities: edit distance, closest names, UTF-8 safety.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace agentkit {

namespace detail {
[[nodiscard]] constexpr char ascii_lower(char c) noexcept { return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c; }
[[nodiscard]] constexpr char ascii_upper(char c) noexcept { return (c >= 'a' && c <= 'z') ? static_cast<char>(c - 'a' + 'A') : c; }
}  // namespace detail

/// `s` with ASCII letters in lower case (other bytes, UTF-8 included, unchanged).
[[nodiscard]] inline std::string ascii_lower(std::string_view s) {
    std::string o(s);
    for (auto& c : o) c = detail::ascii_lower(c);
    return o;
}

/// `s` with ASCII letters in upper case (other bytes, UTF-8 included, unchanged).
[[nodiscard]] inline std::string ascii_upper(std::string_view s) {
    std::string o(s);
    for (auto& c : o) c = detail::ascii_upper(c);
    return o;
}

/// `s` without the ASCII spaces, tabs and line breaks at its ends.
[[nodiscard]] constexpr std::string_view trim_ascii(std::string_view s) noexcept {
    while (!s.empty() && (s.front() == ' ' || s.front() == '\t' || s.front() == '\n' || s.front() == '\r')) s.remove_prefix(1);
    while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\n' || s.back() == '\r')) s.remove_suffix(1);
    return s;
}

/// The lines of `text` (split at '\n'; a final '\n' ends the last line, it adds no empty one).
[[nodiscard]] inline std::vector<std::string> split_lines(std::string_view text) {
    std::vector<std::string> lines;
    std::size_t at = 0;
    while (at < text.size()) {
        const std::size_t nl = text.find('\n', at);
        lines.emplace_back(text.substr(at, nl == std::string_view::npos ? std::string_view::npos : nl - at));
        if (nl == std::string_view::npos) break;
        at = nl + 1;
    }
    return lines;
}

/// `s` as rendered text shows it: every run of ASCII white space (space, tab, line breaks,
/// vertical tab, form feed) one space, none at either end.
[[nodiscard]] inline std::string collapse_whitespace(std::string_view s) {
    std::string o;
    o.reserve(s.size());
    for (char ch : s) {
        const bool space = ch == ' ' || ch == '\t' || ch == '\n' || ch == '\r' || ch == '\v' || ch == '\f';
        if (space && (o.empty() || o.back() == ' ')) continue;
        o += space ? ' ' : ch;
    }
    while (!o.empty() && o.back() == ' ') o.pop_back();
    return o;
}

/// Equal but for the case of ASCII letters.
[[nodiscard]] constexpr bool iequals_ascii(std::string_view a, std::string_view b) noexcept {
    if (a.size() != b.size()) return false;
    for (std::size_t i = 0; i < a.size(); ++i)
        if (detail::ascii_lower(a[i]) != detail::ascii_lower(b[i])) return false;
    return true;
}

/// Levenshtein distance, case-insensitive (ASCII), O(|a|·|b|) with one row of memory.
[[nodiscard]] inline std::size_t edit_distance(std::string_view a, std::string_view b) {
    std::vector<std::size_t> row(b.size() + 1);
    for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
    for (std::size_t i = 1; i <= a.size(); ++i) {
        std::size_t diag = row[0];
        row[0] = i;
        for (std::size_t j = 1; j <= b.size(); ++j) {
            const std::size_t up = row[j];
            const std::size_t cost = detail::ascii_lower(a[i - 1]) == detail::ascii_lower(b[j - 1]) ? 0 : 1;
            row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + cost});
            diag = up;
        }
    }
    return row[b.size()];
}

/// The up-to-`limit` candidates closest to `name`: substring matches first, then by edit
/// distance; candidates farther than about half the name's length are dropped.
template <class Range>
[[nodiscard]] std::vector<std::string> closest_names(std::string_view name, const Range& candidates,
                                                     std::size_t limit = 3) {
    struct scored {
        std::size_t score;
        std::string_view s;
    };
    std::vector<scored> all;
    std::string lname(name);
    std::transform(lname.begin(), lname.end(), lname.begin(), detail::ascii_lower);
    for (const auto& c : candidates) {
        const std::string_view cv(c);
        std::string lc(cv);
        std::transform(lc.begin(), lc.end(), lc.begin(), detail::ascii_lower);
        std::size_t score;
        if (!lname.empty() && (lc.find(lname) != std::string::npos || lname.find(lc) != std::string::npos)) {
            score = 0;
        } else {
            score = edit_distance(lname, lc) + 1;
            if (score > std::max<std::size_t>(3, (lname.size() + 1) / 2 + 1)) continue;
        }
        all.push_back({score, cv});
    }
    std::stable_sort(all.begin(), all.end(), [](const scored& x, const scored& y) { return x.score < y.score; });
    std::vector<std::string> out;
    for (std::size_t i = 0; i < all.size() && i < limit; ++i) out.emplace_back(all[i].s);
    return out;
}

/// The number of characters (Unicode code points) in the UTF-8 text `s`: what JSON Schema's
/// minLength/maxLength count.
[[nodiscard]] inline std::size_t utf8_length(std::string_view s) noexcept {
    std::size_t n = 0;
    for (char c : s)
        if ((static_cast<unsigned char>(c) & 0xC0U) != 0x80U) ++n;
    return n;
}

/// Length of the longest prefix of `s` (at most `max_bytes`) that does not split a UTF-8 sequence.
[[nodiscard]] inline std::size_t utf8_safe_prefix(std::string_view s, std::size_t max_bytes) noexcept {
    if (max_bytes >= s.size()) return s.size();
    std::size_t n = max_bytes;
    // Step back over continuation bytes so the cut lands on a character boundary.
    while (n > 0 && (static_cast<unsigned char>(s[n]) & 0xC0U) == 0x80U) --n;
    return n;
}

/// Start index of the longest suffix of `s` of at most `max_bytes` that starts on a character boundary.
[[nodiscard]] inline std::size_t utf8_safe_suffix_start(std::string_view s, std::size_t max_bytes) noexcept {
    if (max_bytes >= s.size()) return 0;
    std::size_t start = s.size() - max_bytes;
    while (start < s.size() && (static_cast<unsigned char>(s[start]) & 0xC0U) == 0x80U) ++start;
    return start;
}

/// `n` and a noun in the number it takes: "1 tool", "3 tools", "0 tools" (`plural` when the noun
/// does not add an "s").
[[nodiscard]] inline std::string count_noun(std::size_t n, std::string_view singular, std::string_view plural = {}) {
    std::string s = std::to_string(n) + " ";
    if (n == 1) return s.append(singular);
    if (!plural.empty()) return s.append(plural);
    return s.append(singular).append("s");
}

/// `s` cut to at most `max` bytes on a character boundary, ending in "..." when it was cut.
[[nodiscard]] inline std::string clip_ellipsis(std::string_view s, std::size_t max) {
    if (s.size() <= max) return std::string(s);
    if (max < 3) return std::string(s.substr(0, utf8_safe_prefix(s, max)));
    return std::string(s.substr(0, utf8_safe_prefix(s, max - 3))) + "...";
}

/// The first sentence of prose: up to and including the first '.', '!' or '?' followed by
/// white space (or all of `s` when none is). A period does not end a sentence after a number
/// ("1. Call x"), a single letter ("J. Smith") or an abbreviation with points ("e.g. this").
[[nodiscard]] inline std::string_view first_sentence(std::string_view s) {
    for (std::size_t i = 0; i + 1 < s.size(); ++i) {
        const char c = s[i];
        if ((c != '.' && c != '!' && c != '?') || (s[i + 1] != ' ' && s[i + 1] != '\n' && s[i + 1] != '\t' && s[i + 1] != '\r')) continue;
        if (c == '.') {
            const std::size_t sp = s.find_last_of(" \t\n\r", i);
            const std::string_view word = s.substr(sp == std::string_view::npos ? 0 : sp + 1, i - (sp == std::string_view::npos ? 0 : sp + 1));
            const bool number = !word.empty() && word.find_first_not_of("0123456789") == std::string_view::npos;
            if (number || word.size() == 1 || word.find('.') != std::string_view::npos) continue;
        }
        return s.substr(0, i + 1);
    }
    return s;
}

/// Markdown read as plain prose, as one line: the first paragraph that is not a heading (the
/// headings' text when there is nothing else), its list bullets, block-quote marks, emphasis
/// and code marks dropped, a link or an image as its text, white space collapsed. For a
/// server's or a tool's self-description shown inside another text.
[[nodiscard]] inline std::string markdown_plain(std::string_view md) {
    std::string headings, body;
    bool in_body = false, in_fence = false;
    for (const std::string& raw : split_lines(md)) {
        std::string_view line = raw;
        while (!line.empty() && (line.front() == ' ' || line.front() == '\t')) line.remove_prefix(1);
        if (line.substr(0, 3) == "```" || line.substr(0, 3) == "~~~") {
            in_fence = !in_fence;
            if (in_body) break;
            continue;
        }
        if (in_fence) continue;
        if (line.find_first_not_of(" \t\r") == std::string_view::npos) {
            if (in_body) break;  // the first paragraph ends
            continue;
        }
        if (line.front() == '#') {
            if (in_body) break;
            line.remove_prefix(std::min(line.find_first_not_of('#'), line.size()));
            const std::string h = collapse_whitespace(line);
            if (h.empty()) continue;
            if (!headings.empty()) headings += ' ';
            headings += h;
            if (h.back() != '.' && h.back() != '!' && h.back() != '?' && h.back() != ':') headings += '.';
            continue;
        }
        if (line.find_first_not_of("-*_= \t\r") == std::string_view::npos) continue;  // a rule or a setext underline
        while (!line.empty() && line.front() == '>') line.remove_prefix(1);                // a block quote
        if (line.size() > 1 && (line[0] == '-' || line[0] == '*' || line[0] == '+') && line[1] == ' ') line.remove_prefix(2);
        if (const std::size_t d = line.find_first_not_of("0123456789");  // an ordered list's "1. " or "2) "
            d != std::string_view::npos && d > 0 && d + 1 < line.size() && (line[d] == '.' || line[d] == ')') && line[d + 1] == ' ')
            line.remove_prefix(d + 2);
        in_body = true;
        body += std::string(line) + "\n";
    }
    const std::string_view text = body.empty() ? std::string_view(headings) : std::string_view(body);
    const auto word = [&](std::size_t k) {  // a letter, a digit or part of a non-ASCII character
        const auto u = static_cast<unsigned char>(text[k]);
        return (u >= '0' && u <= '9') || (u >= 'A' && u <= 'Z') || (u >= 'a' && u <= 'z') || u >= 0x80U;
    };
    std::string out;
    out.reserve(text.size());
    for (std::size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        // emphasis and code marks; an underscore inside a word (snake_case) stays
        if (c == '*' || c == '`' || (c == '_' && (i == 0 || i + 1 == text.size() || !word(i - 1) || !word(i + 1)))) continue;
        if (c == '!' && i + 1 < text.size() && text[i + 1] == '[') continue;  // an image: its alt text
        if (c == '[') {                                                           // [text](url) → text
            const std::size_t close = text.find(']', i);
            if (close != std::string_view::npos && close + 1 < text.size() && text[close + 1] == '(') {
                const std::size_t end = text.find(')', close);
                if (end != std::string_view::npos) {
                    out.append(text.substr(i + 1, close - i - 1));
                    i = end;
                    continue;
                }
            }
        }
        out.push_back(c);
    }
    return collapse_whitespace(out);
}

/// Join strings with a separator.
template <class Range>
[[nodiscard]] std::string join(const Range& parts, std::string_view sep) {
    std::string out;
    bool first = true;
    for (const auto& p : parts) {
        if (!first) out += sep;
        first = false;
        out += std::string_view(p);
    }
    return out;
}

}  // namespace agentkit
