// agentkit/core/parse.hpp — parse and validate JSON into described types, reporting every problem
// with its JSON Pointer path (writing them back: core/serialize.hpp).
#pragma once

#include <agentkit/core/serialize.hpp>
#include <agentkit/core/describe.hpp>
#include <agentkit/core/json.hpp>
#include <agentkit/core/json_words.hpp>
#include <agentkit/core/result.hpp>
#include <agentkit/core/strings.hpp>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <map>
#include <memory>
#include <mutex>
#include <regex>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

namespace agentkit {

/// One validation problem: where (a JSON Pointer into the arguments) and what.
using problem = json_problem;

namespace detail {

template <class>
inline constexpr bool dependent_false = false;

/// A lazily materialised JSON Pointer: segments live on the stack while the walk descends.
struct path_seg {
    const path_seg* parent = nullptr;
    std::string_view key{};
    std::size_t index = 0;
    bool is_index = false;
};

inline void append_escaped(std::string& out, std::string_view key) {
    for (char c : key) {
        if (c == '~') out += "~0";
        else if (c == '/') out += "~1";
        else out += c;
    }
}

inline std::string to_pointer(const path_seg* p) {
    std::vector<const path_seg*> segs;
    for (; p != nullptr; p = p->parent) segs.push_back(p);
    std::string out;
    for (auto it = segs.rbegin(); it != segs.rend(); ++it) {
        out += '/';
        if ((*it)->is_index) out += std::to_string((*it)->index);
        else append_escaped(out, (*it)->key);
    }
    return out;
}

struct problems {
    std::vector<problem> list;
    std::size_t limit = 50;  // after this many, stop collecting (a huge bad array should not balloon)
    bool truncated = false;
    void add(const path_seg* p, std::string msg) {
        if (list.size() >= limit) {
            truncated = true;
            return;
        }
        list.push_back({to_pointer(p), std::move(msg)});
    }
};

// ---- formats ------------------------------------------------------------------------------
inline bool is_digit(char c) noexcept { return c >= '0' && c <= '9'; }
inline bool is_hex(char c) noexcept { return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); }
inline bool digits(std::string_view s, std::size_t pos, std::size_t n) noexcept {
    if (pos + n > s.size()) return false;
    for (std::size_t i = pos; i < pos + n; ++i)
        if (!is_digit(s[i])) return false;
    return true;
}
inline bool check_date(std::string_view s) noexcept {
    return s.size() == 10 && digits(s, 0, 4) && s[4] == '-' && digits(s, 5, 2) && s[7] == '-' && digits(s, 8, 2) &&
           !(s[5] == '0' && s[6] == '0') && !(s[8] == '0' && s[9] == '0');
}
inline bool check_time(std::string_view s) noexcept {
    if (s.size() < 8 || !digits(s, 0, 2) || s[2] != ':' || !digits(s, 3, 2) || s[5] != ':' || !digits(s, 6, 2))
        return false;
    std::size_t i = 8;
    if (i < s.size() && s[i] == '.') {
        ++i;
        const std::size_t start = i;
        while (i < s.size() && is_digit(s[i])) ++i;
        if (i == start) return false;
    }
    if (i == s.size()) return false;  // RFC 3339 requires an offset
    if (s[i] == 'Z' || s[i] == 'z') return i + 1 == s.size();
    if (s[i] != '+' && s[i] != '-') return false;
    return s.size() == i + 6 && digits(s, i + 1, 2) && s[i + 3] == ':' && digits(s, i + 4, 2);
}
inline bool check_format(std::string_view fmt, std::string_view v) {
    if (fmt == "date") return check_date(v);
    if (fmt == "time") return check_time(v);
    if (fmt == "date-time") {
        const auto t = v.find_first_of("Tt ");
        return t == 10 && check_date(v.substr(0, 10)) && check_time(v.substr(11));
    }
    if (fmt == "email") {
        const auto at = v.find('@');
        return at != std::string_view::npos && at > 0 && v.find('@', at + 1) == std::string_view::npos &&
               v.find('.', at) != std::string_view::npos && v.back() != '.' && v.find(' ') == std::string_view::npos;
    }
    if (fmt == "uri" || fmt == "url") {
        if (v.empty() || !((v[0] >= 'a' && v[0] <= 'z') || (v[0] >= 'A' && v[0] <= 'Z'))) return false;
        std::size_t i = 1;
        while (i < v.size() && (std::isalnum(static_cast<unsigned char>(v[i])) || v[i] == '+' || v[i] == '-' || v[i] == '.'))
            ++i;
        if (i >= v.size() || v[i] != ':') return false;
        for (char c : v)
            if (static_cast<unsigned char>(c) <= 0x20) return false;
        return i + 1 < v.size();
    }
    if (fmt == "uuid") {
        if (v.size() != 36) return false;
        for (std::size_t i = 0; i < 36; ++i) {
            const bool dash = i == 8 || i == 13 || i == 18 || i == 23;
            if (dash ? v[i] != '-' : !is_hex(v[i])) return false;
        }
        return true;
    }
    if (fmt == "ipv4") {
        int parts = 0;
        std::size_t i = 0;
        while (i <= v.size()) {
            std::size_t j = i;
            while (j < v.size() && is_digit(v[j])) ++j;
            if (j == i || j - i > 3) return false;
            const int n = std::stoi(std::string(v.substr(i, j - i)));
            if (n > 255 || (j - i > 1 && v[i] == '0')) return false;
            ++parts;
            if (j == v.size()) break;
            if (v[j] != '.') return false;
            i = j + 1;
        }
        return parts == 4;
    }
    if (fmt == "hostname") {
        if (v.empty() || v.size() > 253) return false;
        std::size_t label = 0;
        for (std::size_t i = 0; i < v.size(); ++i) {
            const char c = v[i];
            if (c == '.') {
                if (label == 0 || v[i - 1] == '-') return false;
                label = 0;
            } else if (std::isalnum(static_cast<unsigned char>(c)) || (c == '-' && label > 0)) {
                if (++label > 63) return false;
            } else {
                return false;
            }
        }
        return label > 0;
    }
    return true;  // unknown formats are annotations only, as JSON Schema says
}

/// Compiled patterns, shared by all threads; a pattern is compiled on first use only.
inline const std::regex* cached_regex(std::string_view pattern) {
    static std::mutex mu;
    static std::map<std::string, std::unique_ptr<std::regex>, std::less<>> cache;
    std::lock_guard<std::mutex> lock(mu);
    auto it = cache.find(pattern);
    if (it != cache.end()) return it->second.get();
    std::unique_ptr<std::regex> re;
    try {
        re = std::make_unique<std::regex>(std::string(pattern), std::regex::ECMAScript);
    } catch (const std::regex_error&) {
        re = nullptr;
    }
    return cache.emplace(std::string(pattern), std::move(re)).first->second.get();
}

// ---- constraint checks -----------------------------------------------------------------------
template <class V>
double as_double(const V& v) {
    return static_cast<double>(v);
}

template <class V>
void check(const V& v, const constraint::minimum_t& c, const path_seg* p, problems& ps) {
    static_assert(std::is_arithmetic_v<V>, "agentkit: minimum/maximum/range apply to numbers only");
    const double d = as_double(v);
    if (c.exclusive ? !(d > c.value) : !(d >= c.value))
        ps.add(p, std::string("must be ") + (c.exclusive ? "> " : ">= ") + number_json(c.value).dump() + ", got " + json(v).dump());
}
template <class V>
void check(const V& v, const constraint::maximum_t& c, const path_seg* p, problems& ps) {
    static_assert(std::is_arithmetic_v<V>, "agentkit: minimum/maximum/range apply to numbers only");
    const double d = as_double(v);
    if (c.exclusive ? !(d < c.value) : !(d <= c.value))
        ps.add(p, std::string("must be ") + (c.exclusive ? "< " : "<= ") + number_json(c.value).dump() + ", got " + json(v).dump());
}
template <class V>
void check(const V& v, const constraint::min_length_t& c, const path_seg* p, problems& ps) {
    static_assert(std::is_same_v<V, std::string>, "agentkit: min_length applies to strings only");
    if (utf8_length(v) < c.value) ps.add(p, "must have at least " + count_noun(c.value, "character"));
}
template <class V>
void check(const V& v, const constraint::max_length_t& c, const path_seg* p, problems& ps) {
    static_assert(std::is_same_v<V, std::string>, "agentkit: max_length applies to strings only");
    if (utf8_length(v) > c.value) ps.add(p, "must have at most " + count_noun(c.value, "character"));
}
template <class V>
void check(const V& v, const constraint::pattern_t& c, const path_seg* p, problems& ps) {
    static_assert(std::is_same_v<V, std::string>, "agentkit: pattern applies to strings only");
    const std::regex* re = cached_regex(c.regex);
    if (re == nullptr) {
        ps.add(p, "the tool's schema has an invalid pattern (a host bug): " + std::string(c.regex));
        return;
    }
    if (!std::regex_search(v, *re)) ps.add(p, "must match the pattern " + std::string(c.regex));
}
template <class V>
void check(const V& v, const constraint::format_t& c, const path_seg* p, problems& ps) {
    static_assert(std::is_same_v<V, std::string>, "agentkit: format applies to strings only");
    if (!check_format(c.name, v)) ps.add(p, "must be a valid " + std::string(c.name) + ", got " + preview(json(v)));
}
template <class V>
void check(const V& v, const constraint::min_items_t& c, const path_seg* p, problems& ps) {
    static_assert(is_vector<V>::value, "agentkit: min_items applies to arrays only");
    if (v.size() < c.value) ps.add(p, "must have at least " + std::to_string(c.value) + " items");
}
template <class V>
void check(const V& v, const constraint::max_items_t& c, const path_seg* p, problems& ps) {
    static_assert(is_vector<V>::value, "agentkit: max_items applies to arrays only");
    if (v.size() > c.value) ps.add(p, "must have at most " + std::to_string(c.value) + " items");
}
template <class V, std::size_t N>
void check(const V& v, const constraint::one_of_t<N>& c, const path_seg* p, problems& ps) {
    static_assert(std::is_same_v<V, std::string>, "agentkit: one_of applies to strings only");
    for (auto s : c.values)
        if (s == v) return;
    ps.add(p, "must be one of: " + join(c.values, ", ") + "; got " + preview(json(v)));
}
template <class V>
void check(const V&, const constraint::default_t&, const path_seg*, problems&) {}
template <class V>
void check(const V&, const constraint::hidden_t&, const path_seg*, problems&) {}
template <class V>
void check(const V&, const constraint::example_t&, const path_seg*, problems&) {}

// ---- readers -------------------------------------------------------------------------------
template <class T>
bool read(const json& j, T& out, const path_seg* p, problems& ps);

template <class T>
bool read_integer(const json& j, T& out, const path_seg* p, problems& ps) {
    if (j.is_number_integer() || j.is_number_unsigned()) {
        if (j.is_number_unsigned()) {
            const auto u = j.get<std::uint64_t>();
            if (u > static_cast<std::uint64_t>(std::numeric_limits<T>::max())) {
                ps.add(p, "integer out of range, got " + j.dump());
                return false;
            }
            out = static_cast<T>(u);
            return true;
        }
        const auto i = j.get<std::int64_t>();
        if constexpr (std::is_unsigned_v<T>) {
            if (i < 0) {
                ps.add(p, "must be >= 0, got " + j.dump());
                return false;
            }
            if (static_cast<std::uint64_t>(i) > static_cast<std::uint64_t>(std::numeric_limits<T>::max())) {
                ps.add(p, "integer out of range, got " + j.dump());
                return false;
            }
        } else {
            if (i < static_cast<std::int64_t>(std::numeric_limits<T>::min()) ||
                i > static_cast<std::int64_t>(std::numeric_limits<T>::max())) {
                ps.add(p, "integer out of range, got " + j.dump());
                return false;
            }
        }
        out = static_cast<T>(i);
        return true;
    }
    if (j.is_number_float()) {
        const double d = j.get<double>();
        double ip = 0;
        if (std::isfinite(d) && std::modf(d, &ip) == 0.0 && d >= static_cast<double>(std::numeric_limits<T>::min()) &&
            d <= static_cast<double>(std::numeric_limits<T>::max())) {
            out = static_cast<T>(d);
            return true;
        }
    }
    ps.add(p, "expected integer, " + got(j));
    return false;
}

template <class V, class Tuple, std::size_t... I>
void check_all(const V& v, const Tuple& cs, const path_seg* p, problems& ps, std::index_sequence<I...>) {
    (void)v;
    (void)cs;
    (void)p;
    (void)ps;
    (check(v, std::get<I>(cs), p, ps), ...);
}

template <class V, class... Cs>
void check_all(const V& v, const std::tuple<Cs...>& cs, const path_seg* p, problems& ps) {
    check_all(v, cs, p, ps, std::index_sequence_for<Cs...>{});
}

template <std::size_t I, class T, class F>
bool read_field(const json& j, T& out, const F& f, const path_seg* p, problems& ps, std::size_t& found) {
    using M = typename F::member_type;
    path_seg seg{p, f.name, 0, false};
    auto it = j.find(f.name);
    if (it != j.end()) ++found;
    if (it == j.end() || it->is_null()) {
        if constexpr (is_optional<M>::value) {
            (out.*(f.ptr)).reset();
            return true;
        } else {
            // the field's default (core/serialize.hpp): default_value(v) applies v; a default
            // member initializer is already in `out`
            const json& d = field_defaults<T>()[I];
            if (d.is_null()) {
                ps.add(&seg, it == j.end() ? "missing required property" : "expected a value, got null");
                return false;
            }
            if constexpr (!field_required<F>()) return read(d, out.*(f.ptr), &seg, ps);
            return true;
        }
    }
    if constexpr (is_optional<M>::value) {
        typename is_optional<M>::value_type v{};
        if (!read(*it, v, &seg, ps)) return false;
        check_all(v, f.constraints, &seg, ps);
        out.*(f.ptr) = std::move(v);
        return true;
    } else {
        if (!read(*it, out.*(f.ptr), &seg, ps)) return false;
        check_all(out.*(f.ptr), f.constraints, &seg, ps);
        return true;
    }
}

template <class Tuple, std::size_t... I>
bool is_known_field(const Tuple& fs, std::string_view key, std::index_sequence<I...>) {
    (void)fs;
    (void)key;
    return ((std::get<I>(fs).name == key) || ...);
}

template <class T, class Tuple, std::size_t... I>
bool read_fields(const json& j, T& out, const Tuple& fs, const path_seg* p, problems& ps, std::size_t& found,
                 std::index_sequence<I...>) {
    (void)j;
    (void)out;
    (void)fs;
    (void)p;
    (void)ps;
    (void)found;
    bool ok = true;
    ((ok = read_field<I>(j, out, std::get<I>(fs), p, ps, found) && ok), ...);
    return ok;
}

template <class T>
bool read_object(const json& j, T& out, const path_seg* p, problems& ps) {
    if (!j.is_object()) {
        ps.add(p, "expected object, " + got(j));
        return false;
    }
    static constexpr auto fs = fields_of<T>();
    constexpr std::size_t n = std::tuple_size_v<std::decay_t<decltype(fs)>>;
    std::size_t found = 0;
    bool ok = read_fields(j, out, fs, p, ps, found, std::make_index_sequence<n>{});
    // Unknown properties are errors: a misspelt optional argument must not be silently ignored.
    if (found < j.size()) {
        for (auto it = j.begin(); it != j.end(); ++it) {
            if (is_known_field(fs, it.key(), std::make_index_sequence<n>{})) continue;
            std::vector<std::string_view> names;  // the advertised ones: hidden() aliases stay unmentioned
            std::apply(
                [&](const auto&... f) {
                    (
                        [&] {
                            if constexpr (!field_hidden<std::decay_t<decltype(f)>>()) names.push_back(f.name);
                        }(),
                        ...);
                },
                fs);
            path_seg seg{p, it.key(), 0, false};
            auto close = closest_names(it.key(), names, 1);
            std::string msg = "unknown property";
            if (!close.empty()) msg += "; did you mean \"" + close.front() + "\"?";
            else msg += '.';
            msg += " Known properties: " + join(names, ", ");
            ps.add(&seg, std::move(msg));
            ok = false;
        }
    }
    return ok;
}

template <class T>
bool read(const json& j, T& out, const path_seg* p, problems& ps) {
    if constexpr (std::is_same_v<T, bool>) {
        if (!j.is_boolean()) {
            ps.add(p, "expected boolean, " + got(j));
            return false;
        }
        out = j.get<bool>();
        return true;
    } else if constexpr (is_integer_v<T>) {
        return read_integer(j, out, p, ps);
    } else if constexpr (std::is_floating_point_v<T>) {
        if (!j.is_number()) {
            ps.add(p, "expected number, " + got(j));
            return false;
        }
        out = j.get<T>();
        return true;
    } else if constexpr (std::is_same_v<T, std::string>) {
        if (!j.is_string()) {
            ps.add(p, "expected string, " + got(j));
            return false;
        }
        out = j.get_ref<const std::string&>();
        return true;
    } else if constexpr (std::is_same_v<T, json>) {
        out = j;
        return true;
    } else if constexpr (std::is_enum_v<T> && !named_enum<T>) {
        require_describable<T>();  // its message first, no other error beside it
        return false;
    } else if constexpr (std::is_enum_v<T>) {
        if (j.is_string()) {
            if (auto v = enum_from_string<T>(j.get_ref<const std::string&>())) {
                out = *v;
                return true;
            }
        }
        std::vector<std::string_view> names;
        for (const auto& [value, name] : enum_values<T>) names.push_back(name);
        ps.add(p, "must be one of: " + join(names, ", ") + "; " + got(j));
        return false;
    } else if constexpr (is_optional<T>::value) {
        if (j.is_null()) {
            out.reset();
            return true;
        }
        typename is_optional<T>::value_type v{};
        if (!read(j, v, p, ps)) return false;
        out = std::move(v);
        return true;
    } else if constexpr (is_vector<T>::value) {
        if (!j.is_array()) {
            ps.add(p, "expected array, " + got(j));
            return false;
        }
        out.clear();
        out.reserve(j.size());
        bool ok = true;
        std::size_t i = 0;
        for (const auto& e : j) {
            path_seg seg{p, {}, i++, true};
            typename is_vector<T>::value_type v{};
            if (read(e, v, &seg, ps)) out.push_back(std::move(v));
            else ok = false;
        }
        return ok;
    } else if constexpr (is_string_map<T>::value) {
        if (!j.is_object()) {
            ps.add(p, "expected object, " + got(j));
            return false;
        }
        out.clear();
        bool ok = true;
        for (auto it = j.begin(); it != j.end(); ++it) {
            path_seg seg{p, it.key(), 0, false};
            typename is_string_map<T>::mapped_type v{};
            if (read(*it, v, &seg, ps)) out.emplace(it.key(), std::move(v));
            else ok = false;
        }
        return ok;
    } else {
        require_describable<T>();
        return read_object(j, out, p, ps);
    }
}

}  // namespace detail

/// Parse and validate `j` as a T. On failure the error is `args.invalid` with every problem
/// (`details.problems`: [{path, message}]) so the model can fix all of them in one retry.
template <class T>
[[nodiscard]] result<T> parse_as(const json& j) {
    T out{};
    detail::problems ps;
    detail::read(j, out, nullptr, ps);
    if (ps.list.empty()) return out;
    return fail(invalid_arguments(ps.list, ps.truncated));
}

/// Parse JSON text and validate it as a T: `args.malformed` when the text is not JSON.
template <class T>
[[nodiscard]] result<T> parse_as(std::string_view text) {
    json j = json::parse(text, nullptr, false);
    if (j.is_discarded())
        return fail(errc::args_malformed, "arguments are not valid JSON",
                    "Send the arguments as one JSON object, e.g. {\"name\": \"value\"}.");
    return parse_as<T>(j);
}

}  // namespace agentkit
