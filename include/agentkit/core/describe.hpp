// agentkit/core/describe.hpp — describe a C++ struct once; agentkit derives its JSON Schema,
// its parser/validator and its serializer from that one description.
//
//   struct search_args {
//       std::string query;
//       std::optional<int> limit;
//       sort_order order = sort_order::relevance;
//
//       static constexpr auto agentkit_fields() {
//           namespace ak = agentkit;
//           return ak::fields(
//               AGENTKIT_FIELD(search_args, query, "What to search for", ak::min_length(1)),
//               AGENTKIT_FIELD(search_args, limit, "Maximum results", ak::range(1, 100)),
//               ak::field(&search_args::order, "order", "Sort order"));
//       }
//   };
//   AGENTKIT_ENUM(sort_order, relevance, newest);   // enums are described by their names
//
// Types you cannot change are described by specialising agentkit::describe<T> with a static
// `fields()` function returning the same thing.
#pragma once

#include <agentkit/core/json.hpp>

#include <array>
#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <unordered_map>
#include <utility>
#include <vector>

/// Makes the global namespace an associated namespace of agentkit::enum_tag, so that an
/// AGENTKIT_ENUM written at global scope is found as well as one in the enum's namespace.
struct agentkit_enum_anchor {};

namespace agentkit {

// ---------------------------------------------------------------------------------------------
// Constraints. Each is a small literal type that adds keywords to a schema; the validator in
// core/parse.hpp checks the same keywords, so the schema and the checks cannot drift apart.
// ---------------------------------------------------------------------------------------------
/// The constraint types a field can carry (made by minimum(), pattern(), one_of(), ...; each
/// adds its JSON Schema keywords to the field's schema and is checked by the parser).
namespace constraint {
/// `minimum` (or `exclusiveMinimum`): made by minimum(), exclusive_minimum() and range().
struct minimum_t {
    double value;    ///< the bound
    bool exclusive;  ///< true: the bound itself is out (`exclusiveMinimum`)
};
/// `maximum` (or `exclusiveMaximum`): made by maximum(), exclusive_maximum() and range().
struct maximum_t {
    double value;    ///< the bound
    bool exclusive;  ///< true: the bound itself is out (`exclusiveMaximum`)
};
/// `minLength`: made by min_length().
struct min_length_t {
    std::size_t value;  ///< the fewest Unicode code points
};
/// `maxLength`: made by max_length().
struct max_length_t {
    std::size_t value;  ///< the most Unicode code points
};
/// `pattern`: made by pattern().
struct pattern_t {
    std::string_view regex;  ///< an ECMAScript regular expression the string must contain a match of
};
/// `format`: made by format().
struct format_t {
    std::string_view name;  ///< the format's name ("uri", "email", "date-time", ...)
};
/// `minItems`: made by min_items().
struct min_items_t {
    std::size_t value;  ///< the fewest array items
};
/// `maxItems`: made by max_items().
struct max_items_t {
    std::size_t value;  ///< the most array items
};
/// `enum` of N strings: made by one_of().
template <std::size_t N>
struct one_of_t {
    std::array<std::string_view, N> values;  ///< the allowed values
};
/// `default`: made by default_value(); one of `b`, `i`, `d`, `s` holds the value, as `k` says.
struct default_t {
    /// The JSON type of the default, which says the member that holds it.
    enum class kind : std::uint8_t { boolean, integer, number, string } k;  ///< this default's type
    bool b = false;                                                         ///< the value when `k` is boolean
    long long i = 0;                                                        ///< the value when `k` is integer
    double d = 0;                                                           ///< the value when `k` is number
    std::string_view s{};                                                   ///< the value when `k` is string
};
/// One entry of `examples`: made by example().
struct example_t {
    std::string_view json_text;  ///< the example value as JSON text
};
/// Marks a field accepted but not advertised: made by hidden().
struct hidden_t {};
}  // namespace constraint

/// Inclusive lower bound for a number.
[[nodiscard]] constexpr constraint::minimum_t minimum(double v) noexcept { return {v, false}; }
/// Inclusive upper bound for a number.
[[nodiscard]] constexpr constraint::maximum_t maximum(double v) noexcept { return {v, false}; }
/// Exclusive lower bound for a number.
[[nodiscard]] constexpr constraint::minimum_t exclusive_minimum(double v) noexcept { return {v, true}; }
/// Exclusive upper bound for a number.
[[nodiscard]] constexpr constraint::maximum_t exclusive_maximum(double v) noexcept { return {v, true}; }
/// Inclusive bounds for a number: `range(1, 100)`.
[[nodiscard]] constexpr std::pair<constraint::minimum_t, constraint::maximum_t> range(double lo, double hi) noexcept {
    return {{lo, false}, {hi, false}};
}
/// Minimum string length in Unicode code points.
[[nodiscard]] constexpr constraint::min_length_t min_length(std::size_t n) noexcept { return {n}; }
/// Maximum string length in Unicode code points.
[[nodiscard]] constexpr constraint::max_length_t max_length(std::size_t n) noexcept { return {n}; }
/// An ECMAScript regular expression the string must match (searched, as JSON Schema does).
[[nodiscard]] constexpr constraint::pattern_t pattern(std::string_view re) noexcept { return {re}; }
/// A JSON Schema format: "uri", "email", "date-time", "date", "time", "uuid", "hostname", "ipv4".
[[nodiscard]] constexpr constraint::format_t format(std::string_view name) noexcept { return {name}; }
/// Minimum number of array items.
[[nodiscard]] constexpr constraint::min_items_t min_items(std::size_t n) noexcept { return {n}; }
/// Maximum number of array items.
[[nodiscard]] constexpr constraint::max_items_t max_items(std::size_t n) noexcept { return {n}; }
/// The string must be one of these values: `one_of("png", "jpeg")`.
template <class... S>
[[nodiscard]] constexpr constraint::one_of_t<sizeof...(S)> one_of(const S&... values) noexcept {
    return {{std::string_view(values)...}};
}
///@{
/// The field's default: shown in the schema and applied when an argument leaves the field out.
[[nodiscard]] constexpr constraint::default_t default_value(bool v) noexcept {
    return {constraint::default_t::kind::boolean, v, 0, 0, {}};
}
[[nodiscard]] constexpr constraint::default_t default_value(int v) noexcept {
    return {constraint::default_t::kind::integer, false, v, 0, {}};
}
[[nodiscard]] constexpr constraint::default_t default_value(long long v) noexcept {
    return {constraint::default_t::kind::integer, false, v, 0, {}};
}
[[nodiscard]] constexpr constraint::default_t default_value(double v) noexcept {
    return {constraint::default_t::kind::number, false, 0, v, {}};
}
[[nodiscard]] constexpr constraint::default_t default_value(const char* v) noexcept {
    return {constraint::default_t::kind::string, false, 0, 0, std::string_view(v)};
}
///@}
/// An example value, as JSON text, listed in the schema's `examples`.
[[nodiscard]] constexpr constraint::example_t example(std::string_view json_text) noexcept { return {json_text}; }
/// The field is parsed and validated as usual but left out of the schema a model sees: an alias
/// kept for compatibility (another server's name for an argument) that need not cost tokens.
/// A hidden field must be optional (std::optional or with a default).
[[nodiscard]] constexpr constraint::hidden_t hidden() noexcept { return {}; }

// ---------------------------------------------------------------------------------------------
// Fields
// ---------------------------------------------------------------------------------------------

/// One described data member: pointer to member, JSON name, description, constraints.
template <class Class, class Member, class... Cs>
struct field_t {
    using class_type = Class;       ///< the described struct
    using member_type = Member;     ///< the data member's type
    Member Class::*ptr;             ///< pointer to the data member
    std::string_view name;          ///< the JSON property name
    std::string_view description;   ///< the property's description in the schema
    std::tuple<Cs...> constraints;  ///< the constraints (minimum(), pattern(), default_value(), ...)
};

namespace detail {
template <class T>
struct flatten_constraint {
    static constexpr auto get(const T& c) { return std::tuple<T>(c); }
};
template <class A, class B>
struct flatten_constraint<std::pair<A, B>> {
    static constexpr auto get(const std::pair<A, B>& p) { return std::tuple<A, B>(p.first, p.second); }
};
}  // namespace detail

/// Describe one data member. `name` is its JSON property name; `description` tells the model
/// what it means. Constraints follow: `field(&args::limit, "limit", "Max results", range(1, 50))`.
template <class Class, class Member, class... Cs>
[[nodiscard]] constexpr auto field(Member Class::*ptr, std::string_view name, std::string_view description,
                                   const Cs&... cs) {
    auto flat = std::tuple_cat(detail::flatten_constraint<Cs>::get(cs)...);
    return std::apply(
        [&](const auto&... c) {
            return field_t<Class, Member, std::decay_t<decltype(c)>...>{ptr, name, description, {c...}};
        },
        flat);
}

/// The list of a type's fields, in the order the schema lists them.
template <class... Fs>
[[nodiscard]] constexpr std::tuple<Fs...> fields(const Fs&... fs) {
    return std::tuple<Fs...>(fs...);
}

/// `AGENTKIT_FIELD(type, member, "description", constraints...)`: a field whose JSON name is the
/// member's own name.
#define AGENTKIT_FIELD(Type, member, ...) ::agentkit::field(&Type::member, #member, __VA_ARGS__)

/// Specialise to describe a type you cannot modify: `static constexpr auto fields()` returning
/// `agentkit::fields(...)`; optionally `static constexpr std::string_view description`.
template <class T>
struct describe {};

/// Specialise (or use AGENTKIT_ENUM) to give an enum its JSON names:
/// `static constexpr std::array<std::pair<E, std::string_view>, N> values`.
template <class E>
struct enum_names {};

/// The argument by which AGENTKIT_ENUM's `agentkit_enum_names(enum_tag<E>)` is found (by
/// argument-dependent lookup: in the enum's namespace or at global scope).
template <class E, class Anchor = ::agentkit_enum_anchor>
struct enum_tag {};

/// A struct with a description: `T::agentkit_fields()` or a `describe<T>` specialisation.
/// `static constexpr auto agentkit_fields()` returns the described fields (`fields(AGENTKIT_FIELD(...), ...)`):
/// the JSON Schema and the parser are made from them. (Every argument struct defines it; the API
/// reference documents it here once: docs/Doxyfile's EXCLUDE_SYMBOLS.)
template <class T>
concept described = std::is_class_v<T> && (requires { describe<T>::fields(); } || requires { T::agentkit_fields(); });

namespace detail {
void agentkit_enum_names() = delete;  // found names are AGENTKIT_ENUM's, by argument-dependent lookup
template <class E>
concept enum_names_by_macro = requires { agentkit_enum_names(enum_tag<E>{}); };
template <class E>
concept enum_names_specialised = requires { enum_names<E>::values; };
template <class E>
constexpr auto enum_table() {
    if constexpr (enum_names_specialised<E>)
        return enum_names<E>::values;
    else
        return agentkit_enum_names(enum_tag<E>{});
}
}  // namespace detail

/// An enum with JSON names, from AGENTKIT_ENUM or an enum_names specialisation.
template <class E>
concept named_enum = std::is_enum_v<E> && (detail::enum_names_specialised<E> || detail::enum_names_by_macro<E>);

/// An enum's (value, JSON name) pairs, from AGENTKIT_ENUM or an enum_names specialisation.
template <named_enum E>
inline constexpr auto enum_values = detail::enum_table<E>();

/// The fields tuple of a described type.
template <described T>
[[nodiscard]] constexpr auto fields_of() {
    if constexpr (requires { describe<T>::fields(); })
        return describe<T>::fields();
    else
        return T::agentkit_fields();
}

/// The JSON name of an enumerator, or empty when it has none.
template <named_enum E>
[[nodiscard]] constexpr std::string_view enum_to_string(E v) noexcept {
    for (const auto& [value, name] : enum_values<E>)
        if (value == v) return name;
    return {};
}

/// The enumerator with that JSON name.
template <named_enum E>
[[nodiscard]] constexpr std::optional<E> enum_from_string(std::string_view s) noexcept {
    for (const auto& [value, name] : enum_values<E>)
        if (name == s) return value;
    return std::nullopt;
}

// ---------------------------------------------------------------------------------------------
// Type classification shared by schema, parse and serialize.
// ---------------------------------------------------------------------------------------------
namespace detail {
template <class T> struct is_optional : std::false_type {};
template <class T> struct is_optional<std::optional<T>> : std::true_type { using value_type = T; };
template <class T> struct is_vector : std::false_type {};
template <class T, class A> struct is_vector<std::vector<T, A>> : std::true_type { using value_type = T; };
template <class T> struct is_string_map : std::false_type {};
template <class V, class C, class A> struct is_string_map<std::map<std::string, V, C, A>> : std::true_type { using mapped_type = V; };
template <class V, class H, class E, class A> struct is_string_map<std::unordered_map<std::string, V, H, E, A>> : std::true_type { using mapped_type = V; };

template <class T>
inline constexpr bool is_integer_v = std::is_integral_v<T> && !std::is_same_v<T, bool> && !std::is_same_v<T, char>;

/// True when agentkit knows how to map T to JSON Schema.
template <class T>
constexpr bool is_supported() {
    if constexpr (std::is_same_v<T, bool> || is_integer_v<T> || std::is_floating_point_v<T> ||
                  std::is_same_v<T, std::string> || std::is_same_v<T, json>)
        return true;
    else if constexpr (std::is_enum_v<T>)
        return named_enum<T>;
    else if constexpr (is_optional<T>::value)
        return is_supported<typename is_optional<T>::value_type>();
    else if constexpr (is_vector<T>::value)
        return is_supported<typename is_vector<T>::value_type>();
    else if constexpr (is_string_map<T>::value)
        return is_supported<typename is_string_map<T>::mapped_type>();
    else
        return described<T>;
}

template <class C>
inline constexpr bool is_default_v = std::is_same_v<C, constraint::default_t>;

/// True when a field carries hidden(): parsed, not advertised in the schema.
template <class F>
constexpr bool field_hidden() {
    return []<class... Cs>(std::tuple<Cs...>*) { return (std::is_same_v<Cs, constraint::hidden_t> || ...); }(
        static_cast<decltype(F::constraints)*>(nullptr));
}

/// False when a field is optional by its declaration: std::optional, or a default_value. A
/// field this says true of is still optional when its default member initializer gives it a
/// value (the whole rule: core/serialize.hpp, field_defaults).
template <class F>
constexpr bool field_required() {
    using M = typename F::member_type;
    if constexpr (is_optional<M>::value) {
        return false;
    } else {
        return []<class... Cs>(std::tuple<Cs...>*) { return !(is_default_v<Cs> || ...); }(
            static_cast<decltype(F::constraints)*>(nullptr));
    }
}

}  // namespace detail

/// Fails to compile, with a readable message, when T cannot be used as a tool argument or result.
template <class T>
constexpr void require_describable() {
    if constexpr (std::is_enum_v<T>) {
        static_assert(named_enum<T>,
                      "agentkit: this enum has no JSON names: write AGENTKIT_ENUM(Enum, a, b, ...) in the enum's "
                      "own namespace (or at global scope), or specialise agentkit::enum_names<Enum>");
    } else if constexpr (std::is_class_v<T> && !std::is_same_v<T, std::string> && !std::is_same_v<T, json> &&
                         !detail::is_optional<T>::value && !detail::is_vector<T>::value &&
                         !detail::is_string_map<T>::value) {
        static_assert(described<T>,
                      "agentkit: argument type has no description: add `static constexpr auto agentkit_fields()` "
                      "returning agentkit::fields(...), or specialise agentkit::describe<T>");
    } else {
        static_assert(detail::is_supported<T>(),
                      "agentkit: unsupported member type: use bool, integers, floating point, std::string, "
                      "enums with names, std::optional, std::vector, std::map<std::string, T>, agentkit::json, "
                      "or a described struct");
    }
}

}  // namespace agentkit

// ---------------------------------------------------------------------------------------------
// AGENTKIT_ENUM(Enum, a, b, c): JSON names equal to the enumerator names (up to 32).
// ---------------------------------------------------------------------------------------------
#define AGENTKIT_DETAIL_ENUM_PAIR(E, v) std::pair<E, std::string_view>{E::v, #v}
#define AGENTKIT_DETAIL_EXPAND(x) x
#define AGENTKIT_DETAIL_FE_1(E, a) AGENTKIT_DETAIL_ENUM_PAIR(E, a)
#define AGENTKIT_DETAIL_FE_2(E, a, ...) AGENTKIT_DETAIL_ENUM_PAIR(E, a), AGENTKIT_DETAIL_EXPAND(AGENTKIT_DETAIL_FE_1(E, __VA_ARGS__))
#define AGENTKIT_DETAIL_FE_3(E, a, ...) AGENTKIT_DETAIL_ENUM_PAIR(E, a), AGENTKIT_DETAIL_EXPAND(AGENTKIT_DETAIL_FE_2(E, __VA_ARGS__))
#define AGENTKIT_DETAIL_FE_4(E, a, ...) AGENTKIT_DETAIL_ENUM_PAIR(E, a), AGENTKIT_DETAIL_EXPAND(AGENTKIT_DETAIL_FE_3(E, __VA_ARGS__))
#define AGENTKIT_DETAIL_FE_5(E, a, ...) AGENTKIT_DETAIL_ENUM_PAIR(E, a), AGENTKIT_DETAIL_EXPAND(AGENTKIT_DETAIL_FE_4(E, __VA_ARGS__))
#define AGENTKIT_DETAIL_FE_6(E, a, ...) AGENTKIT_DETAIL_ENUM_PAIR(E, a), AGENTKIT_DETAIL_EXPAND(AGENTKIT_DETAIL_FE_5(E, __VA_ARGS__))
#define AGENTKIT_DETAIL_FE_7(E, a, ...) AGENTKIT_DETAIL_ENUM_PAIR(E, a), AGENTKIT_DETAIL_EXPAND(AGENTKIT_DETAIL_FE_6(E, __VA_ARGS__))
#define AGENTKIT_DETAIL_FE_8(E, a, ...) AGENTKIT_DETAIL_ENUM_PAIR(E, a), AGENTKIT_DETAIL_EXPAND(AGENTKIT_DETAIL_FE_7(E, __VA_ARGS__))
#define AGENTKIT_DETAIL_FE_9(E, a, ...) AGENTKIT_DETAIL_ENUM_PAIR(E, a), AGENTKIT_DETAIL_EXPAND(AGENTKIT_DETAIL_FE_8(E, __VA_ARGS__))
#define AGENTKIT_DETAIL_FE_10(E, a, ...) AGENTKIT_DETAIL_ENUM_PAIR(E, a), AGENTKIT_DETAIL_EXPAND(AGENTKIT_DETAIL_FE_9(E, __VA_ARGS__))
#define AGENTKIT_DETAIL_FE_11(E, a, ...) AGENTKIT_DETAIL_ENUM_PAIR(E, a), AGENTKIT_DETAIL_EXPAND(AGENTKIT_DETAIL_FE_10(E, __VA_ARGS__))
#define AGENTKIT_DETAIL_FE_12(E, a, ...) AGENTKIT_DETAIL_ENUM_PAIR(E, a), AGENTKIT_DETAIL_EXPAND(AGENTKIT_DETAIL_FE_11(E, __VA_ARGS__))
#define AGENTKIT_DETAIL_FE_13(E, a, ...) AGENTKIT_DETAIL_ENUM_PAIR(E, a), AGENTKIT_DETAIL_EXPAND(AGENTKIT_DETAIL_FE_12(E, __VA_ARGS__))
#define AGENTKIT_DETAIL_FE_14(E, a, ...) AGENTKIT_DETAIL_ENUM_PAIR(E, a), AGENTKIT_DETAIL_EXPAND(AGENTKIT_DETAIL_FE_13(E, __VA_ARGS__))
#define AGENTKIT_DETAIL_FE_15(E, a, ...) AGENTKIT_DETAIL_ENUM_PAIR(E, a), AGENTKIT_DETAIL_EXPAND(AGENTKIT_DETAIL_FE_14(E, __VA_ARGS__))
#define AGENTKIT_DETAIL_FE_16(E, a, ...) AGENTKIT_DETAIL_ENUM_PAIR(E, a), AGENTKIT_DETAIL_EXPAND(AGENTKIT_DETAIL_FE_15(E, __VA_ARGS__))
#define AGENTKIT_DETAIL_FE_17(E, a, ...) AGENTKIT_DETAIL_ENUM_PAIR(E, a), AGENTKIT_DETAIL_EXPAND(AGENTKIT_DETAIL_FE_16(E, __VA_ARGS__))
#define AGENTKIT_DETAIL_FE_18(E, a, ...) AGENTKIT_DETAIL_ENUM_PAIR(E, a), AGENTKIT_DETAIL_EXPAND(AGENTKIT_DETAIL_FE_17(E, __VA_ARGS__))
#define AGENTKIT_DETAIL_FE_19(E, a, ...) AGENTKIT_DETAIL_ENUM_PAIR(E, a), AGENTKIT_DETAIL_EXPAND(AGENTKIT_DETAIL_FE_18(E, __VA_ARGS__))
#define AGENTKIT_DETAIL_FE_20(E, a, ...) AGENTKIT_DETAIL_ENUM_PAIR(E, a), AGENTKIT_DETAIL_EXPAND(AGENTKIT_DETAIL_FE_19(E, __VA_ARGS__))
#define AGENTKIT_DETAIL_FE_21(E, a, ...) AGENTKIT_DETAIL_ENUM_PAIR(E, a), AGENTKIT_DETAIL_EXPAND(AGENTKIT_DETAIL_FE_20(E, __VA_ARGS__))
#define AGENTKIT_DETAIL_FE_22(E, a, ...) AGENTKIT_DETAIL_ENUM_PAIR(E, a), AGENTKIT_DETAIL_EXPAND(AGENTKIT_DETAIL_FE_21(E, __VA_ARGS__))
#define AGENTKIT_DETAIL_FE_23(E, a, ...) AGENTKIT_DETAIL_ENUM_PAIR(E, a), AGENTKIT_DETAIL_EXPAND(AGENTKIT_DETAIL_FE_22(E, __VA_ARGS__))
#define AGENTKIT_DETAIL_FE_24(E, a, ...) AGENTKIT_DETAIL_ENUM_PAIR(E, a), AGENTKIT_DETAIL_EXPAND(AGENTKIT_DETAIL_FE_23(E, __VA_ARGS__))
#define AGENTKIT_DETAIL_FE_25(E, a, ...) AGENTKIT_DETAIL_ENUM_PAIR(E, a), AGENTKIT_DETAIL_EXPAND(AGENTKIT_DETAIL_FE_24(E, __VA_ARGS__))
#define AGENTKIT_DETAIL_FE_26(E, a, ...) AGENTKIT_DETAIL_ENUM_PAIR(E, a), AGENTKIT_DETAIL_EXPAND(AGENTKIT_DETAIL_FE_25(E, __VA_ARGS__))
#define AGENTKIT_DETAIL_FE_27(E, a, ...) AGENTKIT_DETAIL_ENUM_PAIR(E, a), AGENTKIT_DETAIL_EXPAND(AGENTKIT_DETAIL_FE_26(E, __VA_ARGS__))
#define AGENTKIT_DETAIL_FE_28(E, a, ...) AGENTKIT_DETAIL_ENUM_PAIR(E, a), AGENTKIT_DETAIL_EXPAND(AGENTKIT_DETAIL_FE_27(E, __VA_ARGS__))
#define AGENTKIT_DETAIL_FE_29(E, a, ...) AGENTKIT_DETAIL_ENUM_PAIR(E, a), AGENTKIT_DETAIL_EXPAND(AGENTKIT_DETAIL_FE_28(E, __VA_ARGS__))
#define AGENTKIT_DETAIL_FE_30(E, a, ...) AGENTKIT_DETAIL_ENUM_PAIR(E, a), AGENTKIT_DETAIL_EXPAND(AGENTKIT_DETAIL_FE_29(E, __VA_ARGS__))
#define AGENTKIT_DETAIL_FE_31(E, a, ...) AGENTKIT_DETAIL_ENUM_PAIR(E, a), AGENTKIT_DETAIL_EXPAND(AGENTKIT_DETAIL_FE_30(E, __VA_ARGS__))
#define AGENTKIT_DETAIL_FE_32(E, a, ...) AGENTKIT_DETAIL_ENUM_PAIR(E, a), AGENTKIT_DETAIL_EXPAND(AGENTKIT_DETAIL_FE_31(E, __VA_ARGS__))
#define AGENTKIT_DETAIL_COUNT(_1, _2, _3, _4, _5, _6, _7, _8, _9, _10, _11, _12, _13, _14, _15, _16, _17, _18, _19, _20, \
                              _21, _22, _23, _24, _25, _26, _27, _28, _29, _30, _31, _32, N, ...) N
#define AGENTKIT_DETAIL_NARGS(...)                                                                                     \
    AGENTKIT_DETAIL_EXPAND(AGENTKIT_DETAIL_COUNT(__VA_ARGS__, 32, 31, 30, 29, 28, 27, 26, 25, 24, 23, 22, 21, 20, 19, 18, \
                                                 17, 16, 15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0))
#define AGENTKIT_DETAIL_CAT2(a, b) a##b
#define AGENTKIT_DETAIL_CAT(a, b) AGENTKIT_DETAIL_CAT2(a, b)

/// Give an enum JSON names equal to its enumerators' names. Write it in the enum's own
/// namespace (`namespace shop { enum class size { s, m, l }; AGENTKIT_ENUM(size, s, m, l); }`) or at
/// global scope (`AGENTKIT_ENUM(shop::size, s, m, l);`); it declares a constexpr function found by
/// argument-dependent lookup, so it is not usable inside a class or in an unrelated namespace.
#define AGENTKIT_ENUM(Enum, ...)                                                                                   \
    [[maybe_unused]] constexpr auto agentkit_enum_names(::agentkit::enum_tag<Enum>) noexcept {                    \
        return std::array{                                                                                         \
            AGENTKIT_DETAIL_EXPAND(AGENTKIT_DETAIL_CAT(AGENTKIT_DETAIL_FE_, AGENTKIT_DETAIL_NARGS(__VA_ARGS__))(Enum, __VA_ARGS__))}; \
    }                                                                                                              \
    static_assert(true, "AGENTKIT_ENUM")
