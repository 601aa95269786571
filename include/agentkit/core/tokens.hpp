// agentkit/core/tokens.hpp — token estimation behind a small interface.
//
// agentkit budgets everything it sends to a model in tokens. Counting exactly needs the
// model's tokenizer; the default here is a fast heuristic calibrated on o200k-style BPE
// (English prose, code, JSON, CJK). A host with an exact tokenizer plugs it in through
// `token_counter`.
#pragma once

#include <concepts>
#include <cstddef>
#include <functional>
#include <string_view>
#include <utility>

namespace agentkit {

/// Anything that counts the tokens of a UTF-8 string.
template <class T>
concept token_estimator = requires(const T& t, std::string_view s) {
    { t.count(s) } -> std::convertible_to<std::size_t>;
};

/// The default estimator: word pieces, digit groups and punctuation, without a vocabulary.
/// Typically within ±15% of o200k on prose, markup and JSON.
struct heuristic_tokens {
    /// The estimated number of tokens in `s`.
    [[nodiscard]] std::size_t count(std::string_view s) const noexcept {
        std::size_t tokens = 0;
        std::size_t i = 0;
        const std::size_t n = s.size();
        while (i < n) {
            const auto c = static_cast<unsigned char>(s[i]);
            if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')) {
                std::size_t j = i + 1;
                while (j < n) {
                    const auto d = static_cast<unsigned char>(s[j]);
                    if (!((d >= 'a' && d <= 'z') || (d >= 'A' && d <= 'Z'))) break;
                    ++j;
                }
                const std::size_t len = j - i;
                // Common words are one token; long ones split into pieces of ~5 letters.
                tokens += len <= 7 ? 1 : 1 + (len - 4) / 5;
                i = j;
            } else if (c >= '0' && c <= '9') {
                std::size_t j = i + 1;
                while (j < n && s[j] >= '0' && s[j] <= '9') ++j;
                tokens += (j - i + 2) / 3;  // digits group in threes
                i = j;
            } else if (c == ' ') {
                // A single space is absorbed by the following word; runs of spaces are tokens.
                std::size_t j = i + 1;
                while (j < n && s[j] == ' ') ++j;
                if (j - i > 1) tokens += 1 + (j - i) / 8;
                i = j;
            } else if (c == '\n' || c == '\r' || c == '\t') {
                std::size_t j = i + 1;
                while (j < n && (s[j] == '\n' || s[j] == '\r' || s[j] == '\t')) ++j;
                tokens += 1;
                i = j;
            } else if (c < 0x80) {
                // Punctuation: common pairs (`":`, `",`, `{"`, `</`, `/>`) merge into one token.
                std::size_t j = i + 1;
                while (j < n && j - i < 3) {
                    const auto d = static_cast<unsigned char>(s[j]);
                    const bool punct = d < 0x80 && d > ' ' && !((d >= 'a' && d <= 'z') || (d >= 'A' && d <= 'Z') ||
                                                                (d >= '0' && d <= '9'));
                    if (!punct) break;
                    ++j;
                }
                tokens += 1;
                i = j;
            } else {
                // Non-ASCII: count code points; CJK is about one token per character,
                // accented Latin and Cyrillic about one per two.
                std::size_t len = 1;
                if ((c & 0xE0U) == 0xC0U) len = 2;
                else if ((c & 0xF0U) == 0xE0U) len = 3;
                else if ((c & 0xF8U) == 0xF0U) len = 4;
                std::size_t cps = 0;
                std::size_t j = i;
                while (j < n && static_cast<unsigned char>(s[j]) >= 0x80) {
                    const auto d = static_cast<unsigned char>(s[j]);
                    if ((d & 0xC0U) != 0x80U) ++cps;
                    ++j;
                }
                tokens += len >= 3 ? cps : (cps + 1) / 2;
                i = j;
            }
        }
        return tokens;
    }
};

/// A type-erased token estimator. Default-constructed, it uses heuristic_tokens.
class token_counter {
public:
    token_counter() = default;
    /// Wraps an estimator (anything with `count(std::string_view)`).
    template <token_estimator E>
        requires(!std::same_as<std::decay_t<E>, token_counter>)
    explicit token_counter(E e) : fn_([e = std::move(e)](std::string_view s) { return static_cast<std::size_t>(e.count(s)); }) {}
    /// Wrap a plain function `size_t(std::string_view)`.
    static token_counter from_function(std::function<std::size_t(std::string_view)> f) {
        token_counter t;
        t.fn_ = std::move(f);
        return t;
    }
    /// The estimated number of tokens in `s`, by the wrapped estimator (heuristic_tokens if none).
    [[nodiscard]] std::size_t count(std::string_view s) const {
        return fn_ ? fn_(s) : heuristic_tokens{}.count(s);
    }

private:
    std::function<std::size_t(std::string_view)> fn_;
};

}  // namespace agentkit
