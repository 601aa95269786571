// agentkit/tools/tool.hpp — turn a C++ callable and an argument struct into a tool.
//
//   struct weather_args {
//       std::string city;
//       std::optional<std::string> unit;
//       static constexpr auto agentkit_fields() {
//           return agentkit::fields(AGENTKIT_FIELD(weather_args, city, "City name", agentkit::min_length(1)),
//                                   AGENTKIT_FIELD(weather_args, unit, "c or f", agentkit::one_of("c", "f")));
//       }
//   };
//   inline constexpr auto get_weather = agentkit::tool<"get_weather">(
//       "Current weather for a city.",
//       [](const weather_args& a) { return "Sunny in " + a.city; },
//       agentkit::read_only | agentkit::parallel_safe);
//
// A handler takes `const Args&` (and optionally `agentkit::tool_context&`) and returns any of:
// tool_output, std::string, a described struct (typed output: MCP outputSchema and
// structuredContent), result<...> of those, or std::future<...> of those. Exceptions thrown
// by a handler become `tool.exception` errors; they never leave agentkit.
#pragma once

#include <agentkit/core/schema.hpp>
#include <agentkit/core/describe.hpp>
#include <agentkit/core/fixed_string.hpp>
#include <agentkit/core/json.hpp>
#include <agentkit/core/parse.hpp>
#include <agentkit/core/result.hpp>
#include <agentkit/tools/context.hpp>
#include <agentkit/tools/output.hpp>
#include <agentkit/tools/traits.hpp>

#include <exception>
#include <future>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

namespace agentkit {

/// The argument type of a tool that takes none.
struct no_args {
    /// No fields: the schema is an empty object.
    static constexpr auto agentkit_fields() { return fields(); }
};

/// What a masker, an exporter or the MCP server needs to know about a tool at run time.
struct tool_info {
    std::string name;         ///< the tool name the model calls
    std::string title;        ///< a human-readable title (MCP `title`); empty when none
    std::string description;  ///< what the tool does, for the model
    json input_schema;        ///< the arguments' JSON Schema
    /// The typed output's JSON Schema (MCP `outputSchema`), when the handler returns a described struct.
    std::optional<json> output_schema;
    agentkit::traits traits{};  ///< read_only, destructive, parallel_safe, ...
    /// Example requests or argument objects; the retrieval router indexes them.
    std::vector<std::string> examples;
    /// The tool's icons (MCP `icons`: src, mimeType, sizes, theme), passed on as given; null when none.
    json icons;
    /// Advertise input_schema exactly as given (a remote server's schema: every keyword kept, as
    /// JSON Schema 2020-12 asks of a client), not trimmed like agentkit's own tools' schemas.
    bool schema_as_sent = false;
};

namespace detail {

template <class T> struct is_result : std::false_type {};
template <class T> struct is_result<tl::expected<T, error>> : std::true_type { using value_type = T; };
template <class T> struct is_future : std::false_type {};
template <class T> struct is_future<std::future<T>> : std::true_type { using value_type = T; };

/// Strip future<> and result<> to the payload type a handler produces.
template <class R>
struct payload {
    using type = R;
};
template <class R>
struct payload<std::future<R>> : payload<R> {};
template <class R>
struct payload<tl::expected<R, error>> : payload<R> {};

template <class P>
inline constexpr bool is_typed_output_v =
    !std::is_same_v<P, tool_output> && !std::is_same_v<P, std::string> && !std::is_void_v<P> && described<P>;

template <class P>
result<tool_output> to_output(P&& value) {
    using T = std::decay_t<P>;
    if constexpr (std::is_same_v<T, tool_output>) {
        return std::forward<P>(value);
    } else if constexpr (std::is_same_v<T, std::string> || std::is_convertible_v<T, std::string_view>) {
        return tool_output::text(std::string(std::forward<P>(value)));
    } else {
        static_assert(described<T>, "agentkit: a handler must return tool_output, std::string, a described struct, "
                                    "or result<>/std::future<> of one of these");
        tool_output o;
        json j = to_json_value(value);
        o.content.push_back(content_block::make_text(j.dump()));
        o.structured = std::move(j);
        return o;
    }
}

template <class R>
result<tool_output> normalize(R&& r) {
    using T = std::decay_t<R>;
    if constexpr (is_future<T>::value) {
        return normalize(r.get());
    } else if constexpr (is_result<T>::value) {
        if (!r) return fail(std::move(r).error());
        if constexpr (std::is_void_v<typename is_result<T>::value_type>)
            return tool_output::text("ok");
        else
            return to_output(*std::forward<R>(r));
    } else {
        return to_output(std::forward<R>(r));
    }
}

/// Deduce the argument type of a handler from its call operator.
template <class F>
struct handler_sig : handler_sig<decltype(&F::operator())> {};
template <class R, class... A>
struct handler_sig<R (*)(A...)> {
    using ret = R;
    static constexpr std::size_t arity = sizeof...(A);
    using first = std::decay_t<std::tuple_element_t<0, std::tuple<A..., void>>>;
};
template <class R, class... A>
struct handler_sig<R (*)(A...) noexcept> : handler_sig<R (*)(A...)> {};
template <class C, class R, class... A>
struct handler_sig<R (C::*)(A...) const> : handler_sig<R (*)(A...)> {};
template <class C, class R, class... A>
struct handler_sig<R (C::*)(A...) const noexcept> : handler_sig<R (*)(A...)> {};
template <class C, class R, class... A>
struct handler_sig<R (C::*)(A...)> : handler_sig<R (*)(A...)> {};
template <class C, class R, class... A>
struct handler_sig<R (C::*)(A...) noexcept> : handler_sig<R (*)(A...)> {};

template <class Fn>
using handler_args_t = std::conditional_t<handler_sig<Fn>::arity == 0, no_args, typename handler_sig<Fn>::first>;

/// The arguments of a call to tool `name` given as JSON text: an empty text is no arguments;
/// text that is not JSON is `args.malformed`. Every toolbox's call-by-text reads them here.
[[nodiscard]] inline result<json> arguments_from_text(std::string_view name, std::string_view text) {
    json args = text.empty() ? json::object() : json::parse(text, nullptr, false);
    if (args.is_discarded())
        return fail(errc::args_malformed, std::string(name) + ": arguments are not valid JSON",
                    "Send the arguments of " + std::string(name) + " as one JSON object.");
    return args;
}

}  // namespace detail

/// A tool: compile-time name, description, handler, traits. Build with agentkit::tool<"name">(...).
template <fixed_string Name, class Args, class Fn>
class tool_t {
public:
    /// The tool name (the template argument).
    static constexpr std::string_view name = Name.view();
    /// The argument struct (no_args when the handler takes none).
    using args_type = Args;
    /// The handler's type.
    using handler_type = Fn;
    /// True when the handler takes a tool_context& as its second parameter.
    static constexpr bool takes_context = detail::handler_sig<Fn>::arity == 2;
    /// What the handler returns, as declared.
    using raw_return = typename detail::handler_sig<Fn>::ret;
    /// The handler's return type without result<> or std::future<> around it.
    using output_type = typename detail::payload<std::decay_t<raw_return>>::type;
    /// True when output_type is a described struct (typed output with an outputSchema).
    static constexpr bool has_typed_output = detail::is_typed_output_v<output_type>;

    /// A tool from its description, handler, traits and optional title (agentkit::tool<"name">() calls it).
    constexpr tool_t(std::string_view description, Fn fn, traits t, std::string_view title = {})
        : description_(description), title_(title), fn_(std::move(fn)), traits_(t) {}

    /// What the tool does, for the model.
    [[nodiscard]] constexpr std::string_view description() const noexcept { return description_; }
    /// The human-readable title; empty when none.
    [[nodiscard]] constexpr std::string_view title() const noexcept { return title_; }
    /// The tool's traits.
    [[nodiscard]] constexpr traits tool_traits() const noexcept { return traits_; }

    /// A copy with a human-readable title (MCP `title`).
    [[nodiscard]] constexpr tool_t with_title(std::string_view t) const { return tool_t(description_, fn_, traits_, t); }

    /// The JSON Schema of the arguments.
    [[nodiscard]] static const json& input_schema() { return schema_of<Args>(); }

    /// Run-time description of this tool.
    [[nodiscard]] tool_info info() const {
        tool_info i;
        i.name = std::string(name);
        i.title = std::string(title_);
        i.description = std::string(description_);
        i.input_schema = input_schema();
        if constexpr (has_typed_output) i.output_schema = schema_of<output_type>();
        i.traits = traits_;
        return i;
    }

    /// Validate `args` and run the handler. Never throws.
    [[nodiscard]] result<tool_output> invoke(const json& args, tool_context& ctx) const {
        auto parsed = parse_as<Args>(args);
        if (!parsed) {
            error e = std::move(parsed).error();
            if (e.is(errc::args_invalid)) {  // the same words, naming the tool
                e.message = std::string(name) + ": " + e.message;
                e.hint = "Fix every listed argument and call " + std::string(name) + " again.";
            }
            return fail(std::move(e));
        }
        return run(*parsed, ctx);
    }

    /// Run the handler on already-validated arguments. Never throws.
    [[nodiscard]] result<tool_output> run(const Args& a, tool_context& ctx) const {
        try {
            if constexpr (detail::handler_sig<Fn>::arity == 0) {
                (void)a;
                (void)ctx;
                return detail::normalize(fn_());
            } else if constexpr (takes_context) {
                return detail::normalize(fn_(a, ctx));
            } else {
                (void)ctx;
                return detail::normalize(fn_(a));
            }
        } catch (const std::exception& ex) {
            return fail(errc::tool_exception, std::string(name) + " failed: " + ex.what(),
                        "The tool raised an error; check the arguments or try a different approach.");
        } catch (...) {
            return fail(errc::tool_exception, std::string(name) + " failed with an unknown exception",
                        "Try a different approach.");
        }
    }

private:
    std::string_view description_;
    std::string_view title_;
    Fn fn_;
    traits traits_;
};

/// Make a tool. The name is checked at compile time: 1–64 characters of [A-Za-z0-9_.-].
template <fixed_string Name, class Fn>
[[nodiscard]] constexpr auto tool(std::string_view description, Fn fn, traits t = no_traits) {
    static_assert(is_valid_tool_name(Name.view()),
                  "agentkit: invalid tool name: a tool name must be 1-64 characters of [A-Za-z0-9_.-]");
    static_assert(detail::handler_sig<Fn>::arity <= 2,
                  "agentkit: a handler takes (const Args&) or (const Args&, agentkit::tool_context&)");
    using Args = detail::handler_args_t<Fn>;
    require_describable<Args>();
    static_assert(described<Args>, "agentkit: a tool's argument type must be a described struct");
    return tool_t<Name, Args, Fn>(description, std::move(fn), t);
}

}  // namespace agentkit
