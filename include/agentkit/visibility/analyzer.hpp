// agentkit/visibility/analyzer.hpp — text analysis for tool retrieval and intent scoring.
//
//   agentkit::text_analyzer a;
//   a.terms("getWeatherForecast for 3 cities")   // -> {"get", "weather", "forecast", "3", "citi"}
//
// Case folding (ASCII; other UTF-8 passes through unchanged), splitting on punctuation,
// snake_case and camelCase (and letter/digit boundaries), English stop words, and a light
// suffix stemmer (plurals, -ing/-ed, -ly, -ation, final e/y) applied identically to
// documents and queries, so "searching", "searches" and "search" meet. Compound names with
// no separators ("airqualityforecast") can be segmented against a vocabulary.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

namespace agentkit {

namespace detail {

[[nodiscard]] inline bool is_ascii_alpha(char c) noexcept { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
[[nodiscard]] inline bool is_ascii_digit(char c) noexcept { return c >= '0' && c <= '9'; }
[[nodiscard]] inline bool is_ascii_upper(char c) noexcept { return c >= 'A' && c <= 'Z'; }
[[nodiscard]] inline bool is_ascii_lower(char c) noexcept { return c >= 'a' && c <= 'z'; }
[[nodiscard]] inline bool is_word_byte(char c) noexcept {
    return is_ascii_alpha(c) || is_ascii_digit(c) || static_cast<unsigned char>(c) >= 0x80;
}
[[nodiscard]] inline char fold(char c) noexcept { return is_ascii_upper(c) ? static_cast<char>(c - 'A' + 'a') : c; }

[[nodiscard]] inline bool is_vowel(char c) noexcept { return c == 'a' || c == 'e' || c == 'i' || c == 'o' || c == 'u'; }

[[nodiscard]] inline bool ends_with(std::string_view s, std::string_view suffix) noexcept {
    return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

[[nodiscard]] inline bool has_vowel(std::string_view s) noexcept {
    for (std::size_t i = 0; i < s.size(); ++i)
        if (is_vowel(s[i]) || (s[i] == 'y' && i > 0)) return true;
    return false;
}

/// The English stop words dropped from queries and documents (lowercase, sorted).
inline constexpr std::array<std::string_view, 121> stop_words = {
    "a",     "about", "above", "after", "again", "all",   "also",  "am",    "an",    "and",   "any",   "are",
    "as",    "at",    "be",    "been",  "before", "being", "below", "both",  "but",   "by",    "can",   "could",
    "did",   "do",    "does",  "doing", "down",  "during", "each", "few",   "for",   "from",  "further", "had",
    "has",   "have",  "having", "he",   "her",   "here",  "hers",  "him",   "his",   "how",   "i",     "if",
    "in",    "into",  "is",    "it",    "its",   "itself", "just", "let",   "me",    "might", "more",  "most",
    "must",  "my",    "myself", "no",   "nor",   "not",   "now",   "of",    "off",   "on",    "once",  "only",
    "or",    "other", "our",   "ours",  "out",   "over",  "own",   "please", "same", "shall", "she",   "should",
    "so",    "some",  "such",  "than",  "that",  "the",   "their", "them",  "then",  "there", "these", "they",
    "this",  "those", "through", "to",  "too",   "under", "until", "up",    "us",    "very",  "want",  "was",
    "we",    "were",  "what",  "when",  "where", "which", "while", "who",   "whom",  "why",   "will",  "with",
    "would", };

}  // namespace detail

/// True for an English stop word (the argument must be lowercase).
[[nodiscard]] inline bool is_stop_word(std::string_view w) noexcept {
    return std::binary_search(detail::stop_words.begin(), detail::stop_words.end(), w);
}

/// A light, deterministic English suffix stemmer (lowercase ASCII in, stem out). It conflates
/// the common inflections (plural, -ing, -ed, -ly) and a few derivations (-ation, final e/y);
/// it is not Porter's algorithm and does not try to be linguistically exact, only consistent.
[[nodiscard]] inline std::string light_stem(std::string_view word) {
    std::string w(word);
    if (w.size() <= 3) return w;
    for (char c : w)
        if (!detail::is_ascii_lower(c)) return w;  // digits, mixed tokens, UTF-8: unchanged
    using detail::ends_with;
    // plurals
    if (ends_with(w, "sses")) {
        w.resize(w.size() - 2);
    } else if (ends_with(w, "ies") && w.size() > 4) {
        w.resize(w.size() - 2);  // -> "...i"
    } else if (ends_with(w, "s") && !ends_with(w, "ss") && !ends_with(w, "us") && !ends_with(w, "is") && w.size() > 3) {
        w.pop_back();
    }
    // -ing / -ed / -ly
    auto strip = [&](std::string_view suffix) {
        if (ends_with(w, suffix) && w.size() - suffix.size() >= 3 &&
            detail::has_vowel(std::string_view(w).substr(0, w.size() - suffix.size()))) {
            w.resize(w.size() - suffix.size());
            return true;
        }
        return false;
    };
    if (strip("ing") || strip("ed")) {
        const std::size_t n = w.size();
        if (n >= 2 && w[n - 1] == w[n - 2] && !detail::is_vowel(w[n - 1]) && w[n - 1] != 'l' && w[n - 1] != 's' &&
            w[n - 1] != 'z')
            w.pop_back();  // running -> run, stopped -> stop
    } else if (!strip("ly")) {
        if (ends_with(w, "ation") && w.size() > 6) w.resize(w.size() - 3);  // translation -> translat(e)
    }
    // final e and y: "make"/"making" -> "mak", "easy"/"easier" -> "easi"
    if (w.size() > 3 && w.back() == 'e') w.pop_back();
    if (w.size() > 2 && w.back() == 'y') w.back() = 'i';
    return w;
}

/// Splits text into search terms. Stateless and cheap to copy; all members are const, so one
/// analyzer may be used from many threads.
class text_analyzer {
public:
    /// How text is turned into terms.
    struct options {
        bool stem = true;             ///< reduce words to their stems (light_stem)
        bool drop_stop_words = true;  ///< drop common English words (is_stop_word)
        std::size_t min_length = 1;   ///< shorter terms are dropped (after folding)
        std::size_t max_length = 40;  ///< longer terms are cut
    };

    text_analyzer() = default;
    /// An analyzer with these options.
    explicit text_analyzer(options o) : opt_(o) {}

    /// The words of `text`, case-folded and split at snake/camel/digit boundaries, before
    /// stemming and stop-word removal.
    [[nodiscard]] std::vector<std::string> words(std::string_view text) const {
        std::vector<std::string> out;
        for_each_word(text, [&](std::string_view w) { out.emplace_back(w); });
        return out;
    }

    /// The terms of `text`: words(), stop words dropped, stemmed.
    [[nodiscard]] std::vector<std::string> terms(std::string_view text) const {
        std::vector<std::string> out;
        append_terms(text, out);
        return out;
    }

    /// Append the terms of `text` to `out`.
    void append_terms(std::string_view text, std::vector<std::string>& out) const {
        for_each_word(text, [&](std::string_view w) {
            if (auto t = term(w); !t.empty()) out.push_back(std::move(t));
        });
    }

    /// One folded word to its term ("" when it is dropped).
    [[nodiscard]] std::string term(std::string_view folded_word) const {
        if (folded_word.size() < opt_.min_length) return {};
        if (opt_.drop_stop_words && is_stop_word(folded_word)) return {};
        std::string_view w = folded_word.substr(0, std::min(folded_word.size(), opt_.max_length));
        return opt_.stem ? light_stem(w) : std::string(w);
    }

    /// Visit every folded word of `text`.
    template <class F>
    void for_each_word(std::string_view text, F&& visit) const {
        std::string buf;
        std::size_t i = 0;
        const std::size_t n = text.size();
        while (i < n) {
            while (i < n && !detail::is_word_byte(text[i])) ++i;
            std::size_t j = i;
            while (j < n && detail::is_word_byte(text[j])) ++j;
            if (j > i) split_run(text.substr(i, j - i), buf, visit);
            i = j;
        }
    }

    /// The options in use.
    [[nodiscard]] const options& settings() const noexcept { return opt_; }

private:
    // Split one alphanumeric run at camelCase and letter/digit boundaries, e.g.
    // "HTTPServer2Go" -> "http", "server", "2", "go".
    template <class F>
    static void split_run(std::string_view run, std::string& buf, F& visit) {
        std::size_t start = 0;
        for (std::size_t k = 1; k <= run.size(); ++k) {
            bool cut = k == run.size();
            if (!cut) {
                const char p = run[k - 1];
                const char c = run[k];
                const bool pd = detail::is_ascii_digit(p);
                const bool cd = detail::is_ascii_digit(c);
                if (pd != cd && (detail::is_ascii_alpha(p) || detail::is_ascii_alpha(c))) cut = true;
                else if (detail::is_ascii_lower(p) && detail::is_ascii_upper(c)) cut = true;
                else if (detail::is_ascii_upper(p) && detail::is_ascii_upper(c) && k + 1 < run.size() &&
                         detail::is_ascii_lower(run[k + 1]))
                    cut = true;  // "HTTPServer": cut before the S
            }
            if (cut) {
                buf.assign(run.substr(start, k - start));
                for (auto& ch : buf) ch = detail::fold(ch);
                if (!buf.empty()) visit(std::string_view(buf));
                start = k;
            }
        }
    }

    options opt_{};
};

/// Segment a lowercase compound with no separators ("airqualityforecast") into the words of
/// `vocabulary` it is made of. Returns the known pieces (at least 3 letters each) of the
/// segmentation that leaves the fewest letters unexplained, or nothing when fewer than two
/// known pieces are found. O(n²) in the word's length (capped at 64).
[[nodiscard]] inline std::vector<std::string> segment_compound(std::string_view word,
                                                               const std::unordered_set<std::string>& vocabulary) {
    std::vector<std::string> out;
    const std::size_t n = std::min<std::size_t>(word.size(), 64);
    if (n < 6) return out;
    constexpr std::size_t inf = static_cast<std::size_t>(-1) / 4;
    // cost[i]: (unknown letters * 16 + pieces) for the prefix of length i
    std::vector<std::size_t> cost(n + 1, inf);
    std::vector<std::size_t> from(n + 1, 0);
    std::vector<char> known(n + 1, 0);
    cost[0] = 0;
    std::string piece;
    for (std::size_t i = 0; i < n; ++i) {
        if (cost[i] == inf) continue;
        // one unknown letter
        if (cost[i] + 16 < cost[i + 1]) {
            cost[i + 1] = cost[i] + 16;
            from[i + 1] = i;
            known[i + 1] = 0;
        }
        for (std::size_t j = i + 3; j <= n && j - i <= 20; ++j) {
            piece.assign(word.substr(i, j - i));
            if (vocabulary.count(piece) == 0) continue;
            if (cost[i] + 1 < cost[j]) {
                cost[j] = cost[i] + 1;
                from[j] = i;
                known[j] = 1;
            }
        }
    }
    for (std::size_t j = n; j > 0;) {
        const std::size_t i = from[j];
        if (known[j] != 0) out.emplace_back(word.substr(i, j - i));
        j = i;
    }
    std::reverse(out.begin(), out.end());
    if (out.size() < 2) out.clear();
    return out;
}

}  // namespace agentkit
