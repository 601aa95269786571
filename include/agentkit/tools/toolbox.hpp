// agentkit/tools/toolbox.hpp — a compile-time set of tools with name dispatch.
//
//   agentkit::toolbox tools{get_weather, search, send_mail};
//   agentkit::tool_context ctx;
//   auto out = tools.call("get_weather", agentkit::json{{"city", "Oslo"}}, ctx);
//
// Two tools with one name are a compile error. Unknown names are answered with the closest
// names. Dispatch is a binary search over a name table sorted at compile time.
//
// Thread safety: a toolbox does not change after construction; call() and call_at() may run
// concurrently from any thread (the handlers' own state is theirs: agentkit runs a
// parallel_safe tool on several threads at once).
//
// Compiled once: a toolbox type that many translation units use (the browser's 70 tools cost
// each of them some 40 s at -O0) can have its calls and descriptions compiled in one of them:
// AGENTKIT_EXTERN_TOOLBOX(T) where the type is seen, AGENTKIT_INSTANTIATE_TOOLBOX(T) in one .cpp
// (docs/packaging.md, "Compile once").
#pragma once

#include <agentkit/tools/context.hpp>
#include <agentkit/core/json.hpp>
#include <agentkit/core/result.hpp>
#include <agentkit/core/strings.hpp>
#include <agentkit/tools/output.hpp>
#include <agentkit/tools/tool.hpp>

#include <algorithm>
#include <array>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

namespace agentkit {

namespace detail {
template <class... Tools>
constexpr bool names_unique() {
    constexpr std::size_t n = sizeof...(Tools);
    if constexpr (n < 2) {
        return true;
    } else {
        std::array<std::string_view, n> names{Tools::name...};
        std::sort(names.begin(), names.end());
        for (std::size_t i = 1; i < n; ++i)
            if (names[i] == names[i - 1]) return false;
        return true;
    }
}

struct name_index {
    std::string_view name;
    std::size_t index;
};

/// The call table of a tuple of tools: one function per tool, by index.
template <class Tuple>
struct tool_table;
template <class... Tools>
struct tool_table<std::tuple<Tools...>> {
    using thunk = result<tool_output> (*)(const std::tuple<Tools...>&, const json&, tool_context&);
    template <std::size_t I>
    static result<tool_output> invoke_at(const std::tuple<Tools...>& ts, const json& args, tool_context& ctx) {
        return std::get<I>(ts).invoke(args, ctx);
    }
    template <std::size_t... I>
    static constexpr std::array<thunk, sizeof...(Tools)> make(std::index_sequence<I...>) {
        return {&invoke_at<I>...};
    }
    static constexpr std::array<thunk, sizeof...(Tools)> table = make(std::index_sequence_for<Tools...>{});
};

// The two functions of a toolbox that instantiate every tool (its handler, its arguments'
// parsing, its schema), as functions of the tools' tuple so that AGENTKIT_EXTERN_TOOLBOX can
// name them. Not `inline`: an extern declaration then keeps them out of the translation unit.

/// Calls tool `index` (in range) of `tools` with JSON arguments.
template <class Tuple>
result<tool_output> call_tool_at(const Tuple& tools, std::size_t index, const json& args, tool_context& ctx) {
    return tool_table<Tuple>::table[index](tools, args, ctx);
}

/// The run-time descriptions of `tools`, in order.
template <class Tuple>
std::vector<tool_info> tool_infos(const Tuple& tools) {
    std::vector<tool_info> out;
    out.reserve(std::tuple_size_v<Tuple>);
    std::apply([&](const auto&... t) { (out.push_back(t.info()), ...); }, tools);
    return out;
}

/// The tuple of tools a toolbox type holds.
template <class Box>
using tools_tuple_t = std::remove_cvref_t<decltype(std::declval<const Box&>().tools())>;
}  // namespace detail

/// A fixed set of tools with unique names (checked at compile time), called by name or index:
/// `agentkit::toolbox box{get_weather, get_time};`.
template <class... Tools>
class toolbox {
    static_assert(detail::names_unique<Tools...>(), "agentkit: duplicate tool name: every tool in a toolbox needs a unique name");

public:
    /// The number of tools.
    static constexpr std::size_t count = sizeof...(Tools);

    /// A toolbox of these tools (their names must be unique).
    explicit toolbox(Tools... tools) : tools_(std::move(tools)...), infos_(detail::tool_infos(tools_)) {}

    /// The number of tools.
    [[nodiscard]] static constexpr std::size_t size() noexcept { return count; }

    /// The tools, in declaration order.
    [[nodiscard]] constexpr const std::tuple<Tools...>& tools() const noexcept { return tools_; }

    /// The names, in declaration order.
    [[nodiscard]] static constexpr std::array<std::string_view, count> names() noexcept { return {Tools::name...}; }

    /// The index of a tool by name, or nullopt.
    [[nodiscard]] static constexpr std::optional<std::size_t> find(std::string_view name) noexcept {
        constexpr auto& table = sorted_;
        auto it = std::lower_bound(table.begin(), table.end(), name,
                                   [](const detail::name_index& e, std::string_view n) { return e.name < n; });
        if (it != table.end() && it->name == name) return it->index;
        return std::nullopt;
    }

    /// True when a tool has this name.
    [[nodiscard]] static constexpr bool contains(std::string_view name) noexcept { return find(name).has_value(); }

    /// Run-time descriptions of every tool, in declaration order.
    [[nodiscard]] const std::vector<tool_info>& infos() const noexcept { return infos_; }

    /// Call a tool by index with JSON arguments. Never throws.
    [[nodiscard]] result<tool_output> call_at(std::size_t index, const json& args, tool_context& ctx) const {
        if (index >= count) return fail(errc::internal, "tool index out of range");
        return detail::call_tool_at(tools_, index, args, ctx);
    }

    /// Call a tool by name with JSON arguments. Never throws.
    [[nodiscard]] result<tool_output> call(std::string_view name, const json& args, tool_context& ctx) const {
        auto i = find(name);
        if (!i) return unknown(name);
        return detail::call_tool_at(tools_, *i, args, ctx);
    }

    /// Call a tool by name with arguments as JSON text (`args.malformed` when it is not JSON;
    /// an empty string means no arguments).
    [[nodiscard]] result<tool_output> call(std::string_view name, std::string_view args_json, tool_context& ctx) const {
        auto i = find(name);
        if (!i) return unknown(name);
        auto args = detail::arguments_from_text(name, args_json);
        if (!args) return fail(args.error());
        return detail::call_tool_at(tools_, *i, *args, ctx);
    }

    ///@{
    /// JSON text as a string literal or std::string is JSON text, not a JSON string value
    /// (these two overloads make `call("t", "{\"city\": \"Oslo\"}", ctx)` unambiguous).
    [[nodiscard]] result<tool_output> call(std::string_view name, const char* args_json, tool_context& ctx) const {
        return call(name, std::string_view(args_json ? args_json : ""), ctx);
    }
    [[nodiscard]] result<tool_output> call(std::string_view name, const std::string& args_json, tool_context& ctx) const {
        return call(name, std::string_view(args_json), ctx);
    }
    ///@}

    /// Convenience: call without a context.
    [[nodiscard]] result<tool_output> call(std::string_view name, const json& args) const {
        tool_context ctx;
        return call(name, args, ctx);
    }
    ///@{
    /// Convenience: call with JSON text, without a context.
    [[nodiscard]] result<tool_output> call(std::string_view name, std::string_view args_json) const {
        tool_context ctx;
        return call(name, args_json, ctx);
    }
    [[nodiscard]] result<tool_output> call(std::string_view name, const char* args_json) const {
        return call(name, std::string_view(args_json ? args_json : ""));
    }
    [[nodiscard]] result<tool_output> call(std::string_view name, const std::string& args_json) const {
        return call(name, std::string_view(args_json));
    }
    ///@}

    /// The error for an unknown tool name, with the closest known names.
    [[nodiscard]] static unexpected_error unknown(std::string_view name) {
        const auto all = names();
        auto close = closest_names(name, all, 3);
        std::string hint = close.empty() ? "Call one of the listed tools." : "Did you mean " + join_quoted(close) + "?";
        return fail(errc::tool_unknown, "no tool named \"" + std::string(name) + "\"", std::move(hint),
                    json{{"candidates", close}});
    }

private:
    static constexpr std::array<detail::name_index, count> make_sorted() {
        std::array<detail::name_index, count> t{};
        constexpr std::array<std::string_view, count> n{Tools::name...};
        for (std::size_t i = 0; i < count; ++i) t[i] = {n[i], i};
        std::sort(t.begin(), t.end(), [](const detail::name_index& a, const detail::name_index& b) { return a.name < b.name; });
        return t;
    }
    static std::string join_quoted(const std::vector<std::string>& v) {
        std::string s;
        for (std::size_t i = 0; i < v.size(); ++i) {
            if (i > 0) s += i + 1 == v.size() ? " or " : ", ";
            s += "\"" + v[i] + "\"";
        }
        return s;
    }

    static constexpr std::array<detail::name_index, count> sorted_ = make_sorted();

    std::tuple<Tools...> tools_;
    std::vector<tool_info> infos_;
};

template <class... Tools>
toolbox(Tools...) -> toolbox<Tools...>;

/// One toolbox holding the tools of several (a compile error if a name repeats).
template <class... A, class... B>
[[nodiscard]] auto merge(const toolbox<A...>& a, const toolbox<B...>& b) {
    return std::apply(
        [&](const auto&... ta) {
            return std::apply([&](const auto&... tb) { return toolbox<A..., B...>(ta..., tb...); }, b.tools());
        },
        a.tools());
}

}  // namespace agentkit

/// Declares that the toolbox type `...` (a toolbox<...> or an alias of one) has its tool calls
/// and descriptions compiled in the one translation unit that says AGENTKIT_INSTANTIATE_TOOLBOX
/// of it: every other translation unit that sees this declaration before using the toolbox
/// compiles neither. At global scope, after the type is complete.
#define AGENTKIT_EXTERN_TOOLBOX(...)                                                                          \
    extern template ::agentkit::result<::agentkit::tool_output>                                               \
    agentkit::detail::call_tool_at<::agentkit::detail::tools_tuple_t<__VA_ARGS__>>(                         \
        const ::agentkit::detail::tools_tuple_t<__VA_ARGS__>&, ::std::size_t, const ::agentkit::json&,          \
        ::agentkit::tool_context&);                                                                           \
    extern template ::std::vector<::agentkit::tool_info>                                                      \
    agentkit::detail::tool_infos<::agentkit::detail::tools_tuple_t<__VA_ARGS__>>(                           \
        const ::agentkit::detail::tools_tuple_t<__VA_ARGS__>&)

/// Compiles the tool calls and descriptions of the toolbox type `...` in this translation unit,
/// for the ones that declared AGENTKIT_EXTERN_TOOLBOX of it (in exactly one translation unit of
/// the program). At global scope.
#define AGENTKIT_INSTANTIATE_TOOLBOX(...)                                                                     \
    template ::agentkit::result<::agentkit::tool_output>                                                      \
    agentkit::detail::call_tool_at<::agentkit::detail::tools_tuple_t<__VA_ARGS__>>(                         \
        const ::agentkit::detail::tools_tuple_t<__VA_ARGS__>&, ::std::size_t, const ::agentkit::json&,          \
        ::agentkit::tool_context&);                                                                           \
    template ::std::vector<::agentkit::tool_info>                                                             \
    agentkit::detail::tool_infos<::agentkit::detail::tools_tuple_t<__VA_ARGS__>>(                           \
        const ::agentkit::detail::tools_tuple_t<__VA_ARGS__>&)
