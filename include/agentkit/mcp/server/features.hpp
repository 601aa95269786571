// agentkit/mcp/server/features.hpp — resources, resource templates and prompts, declared like tools:
// a compile-time name (a URI, a URI template, a prompt name), a description, a handler; argument
// structs described once yield the prompt's arguments and the template's variables.
//
//   inline const auto readme = agentkit::mcp::resource<"docs://readme">(
//       "readme", "The project's README.", "text/markdown",
//       [] { return std::string("# Hello"); });
//
//   struct page_args {
//       std::string id;
//       static constexpr auto agentkit_fields() { return agentkit::fields(AGENTKIT_FIELD(page_args, id, "Page id")); }
//   };
//   inline const auto page = agentkit::mcp::resource_template<"docs://pages/{id}">(
//       "page", "One page by id.", "text/plain",
//       [](const page_args& a) { return "Page " + a.id; });   // {id} must be a field: checked at compile time
//
//   struct review_args {
//       std::string code;
//       std::optional<std::string> focus;
//       static constexpr auto agentkit_fields() {
//           return agentkit::fields(AGENTKIT_FIELD(review_args, code, "The code to review"),
//                                   AGENTKIT_FIELD(review_args, focus, "What to look at"));
//       }
//   };
//   inline const auto review = agentkit::mcp::prompt<"review">(
//       "Review a piece of code.",
//       [](const review_args& a) { return "Review this code:\n" + a.code; });  // one user message
//
//   agentkit::mcp::resource_set resources{readme, page};
//   agentkit::mcp::prompt_set prompts{review};
//
// Serve them with add_resources() / add_prompts() (mcp/server/backend.hpp). A resource handler takes
// nothing or a tool_context&; a template's handler and a prompt's take their argument struct
// (and optionally a tool_context&). Resource handlers return std::string (text of the declared
// MIME type), resource_contents, a vector of them, or result<> of those; prompt handlers return
// std::string (one user message), prompt_result, a vector of prompt_message, or result<> of
// those. Prompt arguments and template variables travel as strings: describe them as
// std::string or std::optional<std::string> fields. `.with_completion(fn)` adds completions for
// a prompt's arguments or a template's variables. Handlers never throw into the server: an
// exception becomes an error answer. Reads of unknown URIs fail with errc::not_found.
#pragma once

#include <agentkit/core/parse.hpp>
#include <agentkit/core/describe.hpp>
#include <agentkit/core/error.hpp>
#include <agentkit/core/fixed_string.hpp>
#include <agentkit/core/json.hpp>
#include <agentkit/core/result.hpp>
#include <agentkit/core/schema.hpp>
#include <agentkit/tools/context.hpp>
#include <agentkit/tools/output.hpp>
#include <agentkit/tools/tool.hpp>

#include <algorithm>
#include <array>
#include <cstddef>
#include <exception>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

namespace agentkit::mcp {

/// The contents of a resource: UTF-8 text, or binary data as base64.
struct resource_contents {
    std::string uri;                  ///< the resource's URI
    std::string mime_type;            ///< its MIME type ("" = not sent)
    std::optional<std::string> text;  ///< UTF-8 text contents
    std::optional<std::string> blob;  ///< base64

    /// Text contents.
    [[nodiscard]] static resource_contents of_text(std::string uri, std::string mime_type, std::string text) {
        resource_contents c;
        c.uri = std::move(uri);
        c.mime_type = std::move(mime_type);
        c.text = std::move(text);
        return c;
    }
    /// Binary contents, base64-encoded.
    [[nodiscard]] static resource_contents of_blob(std::string uri, std::string mime_type, std::string base64) {
        resource_contents c;
        c.uri = std::move(uri);
        c.mime_type = std::move(mime_type);
        c.blob = std::move(base64);
        return c;
    }
    /// The MCP contents object: {uri, mimeType, text} or {uri, mimeType, blob}.
    [[nodiscard]] json to_json() const {
        json j{{"uri", uri}};
        if (!mime_type.empty()) j["mimeType"] = mime_type;
        if (blob && !text) j["blob"] = *blob;
        else j["text"] = text ? *text : std::string();
        return j;
    }
};

/// A resource as resources/list shows it.
struct resource_info {
    std::string uri;                  ///< the resource's URI
    std::string name;                 ///< its name
    std::string title;                ///< a human-readable title ("" = not sent)
    std::string description;          ///< what it holds ("" = not sent)
    std::string mime_type;            ///< its MIME type ("" = not sent)
    std::optional<std::size_t> size;  ///< its size in bytes, when known

    /// The resources/list entry.
    [[nodiscard]] json to_json() const {
        json j{{"uri", uri}, {"name", name}};
        if (!title.empty()) j["title"] = title;
        if (!description.empty()) j["description"] = description;
        if (!mime_type.empty()) j["mimeType"] = mime_type;
        if (size) j["size"] = *size;
        return j;
    }
};

/// A resource template as resources/templates/list shows it.
struct resource_template_info {
    std::string uri_template;  ///< an RFC 6570 URI template ("notes://{id}")
    std::string name;          ///< the template's name
    std::string title;         ///< a human-readable title ("" = not sent)
    std::string description;   ///< what its resources hold ("" = not sent)
    std::string mime_type;     ///< its resources' MIME type ("" = not sent)

    /// The resources/templates/list entry.
    [[nodiscard]] json to_json() const {
        json j{{"uriTemplate", uri_template}, {"name", name}};
        if (!title.empty()) j["title"] = title;
        if (!description.empty()) j["description"] = description;
        if (!mime_type.empty()) j["mimeType"] = mime_type;
        return j;
    }
};

/// One argument of a prompt.
struct prompt_argument_info {
    std::string name;         ///< the argument's name
    std::string description;  ///< what it is for ("" = not sent)
    bool required = false;    ///< prompts/get fails without it
};

/// A prompt as prompts/list shows it.
struct prompt_info {
    std::string name;                             ///< the prompt's name
    std::string title;                            ///< a human-readable title ("" = not sent)
    std::string description;                      ///< what the prompt is for ("" = not sent)
    std::vector<prompt_argument_info> arguments;  ///< its arguments

    /// The prompts/list entry.
    [[nodiscard]] json to_json() const {
        json j{{"name", name}};
        if (!title.empty()) j["title"] = title;
        if (!description.empty()) j["description"] = description;
        json args = json::array();
        for (const auto& a : arguments) {
            json x{{"name", a.name}, {"required", a.required}};
            if (!a.description.empty()) x["description"] = a.description;
            args.push_back(std::move(x));
        }
        if (!args.empty()) j["arguments"] = std::move(args);
        return j;
    }
};

/// One message of a prompt: a role ("user" or "assistant") and one content block (text, image,
/// audio, an embedded resource or a resource link).
struct prompt_message {
    std::string role = "user";  ///< "user" or "assistant"
    content_block content;      ///< the message's content block

    /// A user message with this content.
    [[nodiscard]] static prompt_message user(content_block c) { return {"user", std::move(c)}; }
    /// An assistant message with this content.
    [[nodiscard]] static prompt_message assistant(content_block c) { return {"assistant", std::move(c)}; }
    /// A user message of plain text.
    [[nodiscard]] static prompt_message user_text(std::string t) { return user(content_block::make_text(std::move(t))); }
};

/// What prompts/get answers.
struct prompt_result {
    std::string description;               ///< what the prompt produced ("" = not sent)
    std::vector<prompt_message> messages;  ///< the prompt's messages, in order
};

/// Completion values for an argument (at most 100 are sent; `total` and `has_more` say if
/// there are more).
struct completion {
    std::vector<std::string> values;   ///< the completions, best first
    std::optional<std::size_t> total;  ///< how many completions there are in all, when known
    bool has_more = false;             ///< there are more than `values` holds
};

/// Completes one argument of a prompt or one variable of a template: the argument's name, what
/// the user typed so far, and the values of the other arguments already chosen (an object).
using completer = std::function<completion(std::string_view argument, std::string_view value, const json& context)>;

namespace detail {

// ---- handler signatures -----------------------------------------------------------------

template <class F>
struct first_param : first_param<decltype(&F::operator())> {};
template <class R>
struct first_param<R (*)()> {
    using type = no_args;
};
template <class R, class A, class... Rest>
struct first_param<R (*)(A, Rest...)> {
    using type = std::decay_t<A>;
};
template <class C, class R, class... A>
struct first_param<R (C::*)(A...) const> : first_param<R (*)(A...)> {};
template <class C, class R, class... A>
struct first_param<R (C::*)(A...) const noexcept> : first_param<R (*)(A...)> {};
template <class C, class R, class... A>
struct first_param<R (C::*)(A...)> : first_param<R (*)(A...)> {};
template <class C, class R, class... A>
struct first_param<R (C::*)(A...) noexcept> : first_param<R (*)(A...)> {};
template <class R, class... A>
struct first_param<R (*)(A...) noexcept> : first_param<R (*)(A...)> {};

/// The argument struct of a handler taking (const Args&[, tool_context&]), or no_args.
template <class Fn>
using args_of = std::conditional_t<std::is_same_v<typename first_param<Fn>::type, tool_context>, no_args,
                                   typename first_param<Fn>::type>;

template <class T>
struct is_result_t : std::false_type {};
template <class T>
struct is_result_t<tl::expected<T, error>> : std::true_type {};

/// Call a handler with what it takes: (), (ctx), (args), (args, ctx).
template <class Args, class Fn>
decltype(auto) invoke_handler(const Fn& fn, const Args& a, tool_context& ctx) {
    if constexpr (std::is_invocable_v<const Fn&, const Args&, tool_context&>) return fn(a, ctx);
    else if constexpr (std::is_invocable_v<const Fn&, const Args&>) return fn(a);
    else if constexpr (std::is_invocable_v<const Fn&, tool_context&>) return fn(ctx);
    else {
        static_assert(std::is_invocable_v<const Fn&>,
                      "agentkit::mcp: a handler takes (), (tool_context&), (const Args&) or (const Args&, tool_context&)");
        return fn();
    }
}

inline result<std::vector<resource_contents>> to_contents(std::string value, std::string_view uri, std::string_view mime) {
    return std::vector<resource_contents>{resource_contents::of_text(std::string(uri), std::string(mime), std::move(value))};
}
inline result<std::vector<resource_contents>> to_contents(resource_contents c, std::string_view uri, std::string_view mime) {
    if (c.uri.empty()) c.uri = std::string(uri);
    if (c.mime_type.empty()) c.mime_type = std::string(mime);
    return std::vector<resource_contents>{std::move(c)};
}
inline result<std::vector<resource_contents>> to_contents(std::vector<resource_contents> v, std::string_view uri, std::string_view mime) {
    for (auto& c : v) {
        if (c.uri.empty()) c.uri = std::string(uri);
        if (c.mime_type.empty()) c.mime_type = std::string(mime);
    }
    return v;
}
template <class R>
result<std::vector<resource_contents>> normalize_contents(R&& r, std::string_view uri, std::string_view mime) {
    using T = std::decay_t<R>;
    if constexpr (is_result_t<T>::value) {
        if (!r) return fail(std::forward<R>(r).error());
        return normalize_contents(*std::forward<R>(r), uri, mime);
    } else if constexpr (std::is_convertible_v<T, std::string_view> && !std::is_same_v<T, std::string>) {
        return to_contents(std::string(std::string_view(r)), uri, mime);
    } else {
        static_assert(std::is_same_v<T, std::string> || std::is_same_v<T, resource_contents> ||
                          std::is_same_v<T, std::vector<resource_contents>>,
                      "agentkit::mcp: a resource handler returns std::string, resource_contents, "
                      "std::vector<resource_contents> or result<> of one of them");
        return to_contents(T(std::forward<R>(r)), uri, mime);
    }
}

template <class R>
result<prompt_result> normalize_prompt(R&& r) {
    using T = std::decay_t<R>;
    if constexpr (is_result_t<T>::value) {
        if (!r) return fail(std::forward<R>(r).error());
        return normalize_prompt(*std::forward<R>(r));
    } else if constexpr (std::is_same_v<T, prompt_result>) {
        return std::forward<R>(r);
    } else if constexpr (std::is_same_v<T, std::vector<prompt_message>>) {
        prompt_result p;
        p.messages = std::forward<R>(r);
        return p;
    } else {
        static_assert(std::is_convertible_v<T, std::string_view>,
                      "agentkit::mcp: a prompt handler returns std::string, prompt_result, "
                      "std::vector<prompt_message> or result<> of one of them");
        prompt_result p;
        p.messages.push_back(prompt_message::user_text(std::string(std::string_view(r))));
        return p;
    }
}

/// Run a handler, turning an exception into an error.
template <class F>
auto guarded(std::string_view what, F&& f) -> decltype(f()) {
    try {
        return f();
    } catch (const std::exception& e) {
        return fail(errc::tool_exception, std::string(what) + " failed: " + e.what());
    } catch (...) {
        return fail(errc::tool_exception, std::string(what) + " failed");
    }
}

// ---- URI templates (RFC 6570 level 1 and 2: {var}, {+var}) --------------------------------

struct template_var {
    std::string_view name;
    bool reserved = false;  ///< {+var}: may contain '/'
};

/// The variables of a URI template, in order ({var} and {+var}; other operators are taken as
/// simple variables).
template <std::size_t N = 16>
constexpr std::array<template_var, N> template_vars(std::string_view t, std::size_t& count) {
    std::array<template_var, N> out{};
    count = 0;
    for (std::size_t i = 0; i < t.size(); ++i) {
        if (t[i] != '{') continue;
        const std::size_t end = t.find('}', i);
        if (end == std::string_view::npos) break;
        std::string_view body = t.substr(i + 1, end - i - 1);
        bool reserved = false;
        if (!body.empty() && (body[0] == '+' || body[0] == '#')) {
            reserved = true;
            body.remove_prefix(1);
        }
        if (count < N) out[count++] = template_var{body, reserved};
        i = end;
    }
    return out;
}

template <fixed_string Template, class Args>
constexpr bool template_vars_are_fields() {
    std::size_t n = 0;
    const auto vars = template_vars(Template.view(), n);
    for (std::size_t i = 0; i < n; ++i) {
        bool found = false;
        std::apply([&](const auto&... f) { ((found = found || f.name == vars[i].name), ...); }, fields_of<Args>());
        if (!found) return false;
    }
    return true;
}

template <fixed_string Template>
constexpr bool template_is_well_formed() {
    int open = 0;
    for (char c : Template.view()) {
        if (c == '{') ++open;
        else if (c == '}') --open;
        if (open < 0 || open > 1) return false;
    }
    return open == 0;
}

inline int hex_value(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

inline std::optional<std::string> percent_decode(std::string_view s) {
    std::string out;
    out.reserve(s.size());
    for (std::size_t i = 0; i < s.size(); ++i) {
        if (s[i] != '%') {
            out += s[i];
            continue;
        }
        if (i + 2 >= s.size()) return std::nullopt;
        const int h = hex_value(s[i + 1]), l = hex_value(s[i + 2]);
        if (h < 0 || l < 0) return std::nullopt;
        out += static_cast<char>(h * 16 + l);
        i += 2;
    }
    return out;
}

/// Match `uri` against a URI template; the variables' values (percent-decoded) or nothing.
inline std::optional<json> match_template(std::string_view tmpl, std::string_view uri) {
    json vars = json::object();
    std::size_t ti = 0, ui = 0;
    while (ti < tmpl.size()) {
        if (tmpl[ti] != '{') {
            if (ui >= uri.size() || uri[ui] != tmpl[ti]) return std::nullopt;
            ++ti;
            ++ui;
            continue;
        }
        const std::size_t end = tmpl.find('}', ti);
        if (end == std::string_view::npos) return std::nullopt;
        std::string_view name = tmpl.substr(ti + 1, end - ti - 1);
        bool reserved = false;
        if (!name.empty() && (name[0] == '+' || name[0] == '#')) {
            reserved = true;
            name.remove_prefix(1);
        }
        ti = end + 1;
        // The literal that follows (up to the next variable) bounds this value.
        const std::size_t next_var = tmpl.find('{', ti);
        const std::string_view literal = tmpl.substr(ti, next_var == std::string_view::npos ? std::string_view::npos : next_var - ti);
        std::size_t stop = uri.size();
        if (!literal.empty()) {
            stop = uri.find(literal, ui);
            if (stop == std::string_view::npos) return std::nullopt;
        } else if (next_var != std::string_view::npos) {
            return std::nullopt;  // two adjacent variables: ambiguous
        }
        const std::string_view value = uri.substr(ui, stop - ui);
        if (value.empty()) return std::nullopt;
        if (!reserved && value.find_first_of("/?#") != std::string_view::npos) return std::nullopt;
        auto decoded = percent_decode(value);
        if (!decoded) return std::nullopt;
        vars[std::string(name)] = *decoded;
        ui = stop;
    }
    if (ui != uri.size()) return std::nullopt;
    return vars;
}

/// The prompt arguments of an argument struct: its properties, their descriptions, and whether
/// each is required.
template <class Args>
std::vector<prompt_argument_info> prompt_arguments() {
    std::vector<prompt_argument_info> out;
    const json& s = schema_of<Args>();
    const json required = s.value("required", json::array());
    if (!s.contains("properties")) return out;
    std::apply(
        [&](const auto&... f) {
            (
                [&] {
                    prompt_argument_info a;
                    a.name = std::string(f.name);
                    a.description = std::string(f.description);
                    a.required = std::find(required.begin(), required.end(), json(a.name)) != required.end();
                    out.push_back(std::move(a));
                }(),
                ...);
        },
        fields_of<Args>());
    return out;
}

template <class... Ts>
constexpr bool unique_keys(std::array<std::string_view, sizeof...(Ts)> keys) {
    for (std::size_t i = 0; i < keys.size(); ++i)
        for (std::size_t j = i + 1; j < keys.size(); ++j)
            if (!keys[i].empty() && keys[i] == keys[j]) return false;
    return true;
}

}  // namespace detail

// ---- resources --------------------------------------------------------------------------

/// A resource with a fixed URI. Build with agentkit::mcp::resource<"uri">(...).
template <fixed_string Uri, class Fn>
class resource_t {
public:
    /// The resource's URI (the template argument).
    static constexpr std::string_view uri = Uri.view();
    /// What must be unique in a resource_set: the URI.
    static constexpr std::string_view key = Uri.view();
    /// False: a fixed URI.
    static constexpr bool is_template = false;
    static_assert(!Uri.view().empty(), "agentkit::mcp: a resource needs a URI");

    /// A resource from its name, description, MIME type and handler (resource<"uri">() calls it).
    resource_t(std::string_view name, std::string_view description, std::string_view mime_type, Fn fn)
        : name_(name), description_(description), mime_(mime_type), fn_(std::move(fn)) {}

    /// A copy with a human-readable title.
    [[nodiscard]] resource_t with_title(std::string_view t) const {
        resource_t r = *this;
        r.title_ = std::string(t);
        return r;
    }
    /// A copy that announces its size in resources/list.
    [[nodiscard]] resource_t with_size(std::size_t bytes) const {
        resource_t r = *this;
        r.size_ = bytes;
        return r;
    }

    /// The resources/list entry.
    [[nodiscard]] resource_info info() const {
        resource_info i;
        i.uri = std::string(uri);
        i.name = name_;
        i.title = title_;
        i.description = description_;
        i.mime_type = mime_;
        i.size = size_;
        return i;
    }

    /// Read the resource. Never throws.
    [[nodiscard]] result<std::vector<resource_contents>> read(tool_context& ctx) const {
        return detail::guarded(uri, [&]() -> result<std::vector<resource_contents>> {
            return detail::normalize_contents(detail::invoke_handler(fn_, no_args{}, ctx), uri, mime_);
        });
    }

private:
    std::string name_, description_, mime_, title_;
    std::optional<std::size_t> size_;
    Fn fn_;
};

/// Declare a resource with a fixed URI:
/// `agentkit::mcp::resource<"docs://readme">(name, description, mime_type, handler)`.
template <fixed_string Uri, class Fn>
[[nodiscard]] auto resource(std::string_view name, std::string_view description, std::string_view mime_type, Fn fn) {
    return resource_t<Uri, Fn>(name, description, mime_type, std::move(fn));
}

/// A family of resources named by a URI template ("docs://pages/{id}"). Every variable is a
/// field of the handler's argument struct (a compile error otherwise).
template <fixed_string Template, class Args, class Fn>
class resource_template_t {
public:
    /// The URI template (the template argument).
    static constexpr std::string_view uri_template = Template.view();
    /// Empty: a template has no fixed URI.
    static constexpr std::string_view uri = {};  // no fixed URI
    /// What must be unique in a resource_set: the URI template.
    static constexpr std::string_view key = Template.view();
    /// True: a URI template.
    static constexpr bool is_template = true;
    /// The handler's argument struct; its fields are the template's variables.
    using args_type = Args;
    static_assert(detail::template_is_well_formed<Template>(), "agentkit::mcp: unbalanced braces in a URI template");
    static_assert(detail::template_vars_are_fields<Template, Args>(),
                  "agentkit::mcp: every {variable} of a URI template must be a field of the handler's argument struct");

    /// A template from its name, description, MIME type and handler (resource_template<"...">() calls it).
    resource_template_t(std::string_view name, std::string_view description, std::string_view mime_type, Fn fn)
        : name_(name), description_(description), mime_(mime_type), fn_(std::move(fn)) {}

    /// A copy with a human-readable title.
    [[nodiscard]] resource_template_t with_title(std::string_view t) const {
        resource_template_t r = *this;
        r.title_ = std::string(t);
        return r;
    }
    /// A copy that completes the template's variables (completion/complete with ref/resource).
    [[nodiscard]] resource_template_t with_completion(completer c) const {
        resource_template_t r = *this;
        r.complete_ = std::move(c);
        return r;
    }

    /// The resources/templates/list entry.
    [[nodiscard]] resource_template_info info() const {
        resource_template_info i;
        i.uri_template = std::string(uri_template);
        i.name = name_;
        i.title = title_;
        i.description = description_;
        i.mime_type = mime_;
        return i;
    }

    /// The variables when `u` is one of this template's resources.
    [[nodiscard]] std::optional<json> match(std::string_view u) const { return detail::match_template(uri_template, u); }

    /// Read the resource `u` whose variables are `vars`. Never throws.
    [[nodiscard]] result<std::vector<resource_contents>> read(std::string_view u, const json& vars, tool_context& ctx) const {
        auto parsed = parse_as<Args>(vars);
        if (!parsed) {
            error e = std::move(parsed).error();
            e.code = std::string(errc::not_found);
            e.message = std::string(u) + ": " + e.message;
            return fail(std::move(e));
        }
        return detail::guarded(uri_template, [&]() -> result<std::vector<resource_contents>> {
            return detail::normalize_contents(detail::invoke_handler(fn_, *parsed, ctx), u, mime_);
        });
    }

    /// Completions for variable `arg` from the completer; nullopt when there is none (empty when it throws).
    [[nodiscard]] std::optional<completion> complete(std::string_view arg, std::string_view value, const json& context) const {
        if (!complete_) return std::nullopt;
        try {
            return complete_(arg, value, context);
        } catch (...) {
            return completion{};
        }
    }

private:
    std::string name_, description_, mime_, title_;
    Fn fn_;
    completer complete_;
};

/// Declare a resource template:
/// `agentkit::mcp::resource_template<"docs://pages/{id}">(name, description, mime_type, handler)`.
template <fixed_string Template, class Fn>
[[nodiscard]] auto resource_template(std::string_view name, std::string_view description, std::string_view mime_type, Fn fn) {
    return resource_template_t<Template, detail::args_of<Fn>, Fn>(name, description, mime_type, std::move(fn));
}

/// A compile-time set of resources and resource templates. Two with one URI (or one template)
/// are a compile error. Reads try the fixed URIs first, then the templates in order.
template <class... Rs>
class resource_set {
    static_assert(detail::unique_keys<Rs...>({Rs::key...}), "agentkit::mcp: duplicate resource URI in a resource_set");

public:
    /// A set of these resources and templates.
    explicit resource_set(Rs... rs) : items_(std::move(rs)...) {}

    /// The fixed resources' resources/list entries, in order.
    [[nodiscard]] std::vector<resource_info> list() const {
        std::vector<resource_info> out;
        std::apply([&](const auto&... r) { (add_info(out, r), ...); }, items_);
        return out;
    }
    /// The templates' resources/templates/list entries, in order.
    [[nodiscard]] std::vector<resource_template_info> templates() const {
        std::vector<resource_template_info> out;
        std::apply([&](const auto&... r) { (add_template(out, r), ...); }, items_);
        return out;
    }

    /// Read a resource by URI. errc::not_found (details {"uri"}) when none matches.
    [[nodiscard]] result<std::vector<resource_contents>> read(std::string_view u, tool_context& ctx) const {
        std::optional<result<std::vector<resource_contents>>> out;
        std::apply([&](const auto&... r) { (try_fixed(out, r, u, ctx), ...); }, items_);
        if (!out) std::apply([&](const auto&... r) { (try_template(out, r, u, ctx), ...); }, items_);
        if (!out)
            return fail(errc::not_found, "no resource " + std::string(u), "List the resources (and templates) and read one of them.",
                        json{{"uri", std::string(u)}});
        return std::move(*out);
    }

    /// Completions for a variable of the template `uri_template`; nothing when no template of
    /// this set has that URI template or it completes nothing.
    [[nodiscard]] std::optional<completion> complete(std::string_view uri_template, std::string_view arg, std::string_view value,
                                                     const json& context) const {
        std::optional<completion> out;
        std::apply([&](const auto&... r) { (try_complete(out, r, uri_template, arg, value, context), ...); }, items_);
        return out;
    }

private:
    template <class R>
    static void add_info(std::vector<resource_info>& out, const R& r) {
        if constexpr (!R::is_template) out.push_back(r.info());
    }
    template <class R>
    static void add_template(std::vector<resource_template_info>& out, const R& r) {
        if constexpr (R::is_template) out.push_back(r.info());
    }
    template <class R>
    static void try_fixed(std::optional<result<std::vector<resource_contents>>>& out, const R& r, std::string_view u, tool_context& ctx) {
        if constexpr (!R::is_template)
            if (!out && R::uri == u) out = r.read(ctx);
    }
    template <class R>
    static void try_template(std::optional<result<std::vector<resource_contents>>>& out, const R& r, std::string_view u,
                             tool_context& ctx) {
        if constexpr (R::is_template) {
            if (out) return;
            if (auto vars = r.match(u)) out = r.read(u, *vars, ctx);
        }
    }
    template <class R>
    static void try_complete(std::optional<completion>& out, const R& r, std::string_view t, std::string_view arg,
                             std::string_view value, const json& context) {
        if constexpr (R::is_template)
            if (!out && R::uri_template == t) out = r.complete(arg, value, context);
    }

    std::tuple<Rs...> items_;
};

// ---- prompts ----------------------------------------------------------------------------

/// A prompt: compile-time name, description, handler. Build with agentkit::mcp::prompt<"name">(...).
template <fixed_string Name, class Args, class Fn>
class prompt_t {
public:
    /// The prompt's name (the template argument).
    static constexpr std::string_view name = Name.view();
    /// The handler's argument struct; its fields are the prompt's arguments.
    using args_type = Args;
    static_assert(is_valid_tool_name(Name.view()), "agentkit::mcp: a prompt name is 1-64 characters from [A-Za-z0-9_.-]");

    /// A prompt from its description and handler (prompt<"name">() calls it).
    prompt_t(std::string_view description, Fn fn) : description_(description), fn_(std::move(fn)) {}

    /// A copy with a human-readable title.
    [[nodiscard]] prompt_t with_title(std::string_view t) const {
        prompt_t p = *this;
        p.title_ = std::string(t);
        return p;
    }
    /// A copy that completes the prompt's arguments (completion/complete with ref/prompt).
    [[nodiscard]] prompt_t with_completion(completer c) const {
        prompt_t p = *this;
        p.complete_ = std::move(c);
        return p;
    }

    /// The prompts/list entry (arguments from args_type's fields).
    [[nodiscard]] prompt_info info() const {
        prompt_info i;
        i.name = std::string(name);
        i.title = title_;
        i.description = description_;
        i.arguments = detail::prompt_arguments<Args>();
        return i;
    }

    /// Validate the arguments (an object of strings) and run the handler. Never throws.
    [[nodiscard]] result<prompt_result> get(const json& args, tool_context& ctx) const {
        auto parsed = parse_as<Args>(args.is_null() ? json::object() : args);
        if (!parsed) {
            error e = std::move(parsed).error();
            e.message = std::string(name) + ": " + e.message;
            return fail(std::move(e));
        }
        return detail::guarded(name, [&]() -> result<prompt_result> {
            return detail::normalize_prompt(detail::invoke_handler(fn_, *parsed, ctx));
        });
    }

    /// Completions for argument `arg` from the completer; nullopt when there is none (empty when it throws).
    [[nodiscard]] std::optional<completion> complete(std::string_view arg, std::string_view value, const json& context) const {
        if (!complete_) return std::nullopt;
        try {
            return complete_(arg, value, context);
        } catch (...) {
            return completion{};
        }
    }

private:
    std::string description_, title_;
    Fn fn_;
    completer complete_;
};

/// Declare a prompt: `agentkit::mcp::prompt<"review">(description, handler)`.
template <fixed_string Name, class Fn>
[[nodiscard]] auto prompt(std::string_view description, Fn fn) {
    return prompt_t<Name, detail::args_of<Fn>, Fn>(description, std::move(fn));
}

/// A compile-time set of prompts (two with one name are a compile error).
template <class... Ps>
class prompt_set {
    static_assert(detail::unique_keys<Ps...>({Ps::name...}), "agentkit::mcp: duplicate prompt name in a prompt_set");

public:
    /// A set of these prompts.
    explicit prompt_set(Ps... ps) : items_(std::move(ps)...) {}

    /// Every prompt's prompts/list entry, in order.
    [[nodiscard]] std::vector<prompt_info> list() const {
        std::vector<prompt_info> out;
        std::apply([&](const auto&... p) { (out.push_back(p.info()), ...); }, items_);
        return out;
    }

    /// Get a prompt. errc::not_found when there is none of that name; errc::args_invalid when
    /// the arguments do not fit.
    [[nodiscard]] result<prompt_result> get(std::string_view n, const json& args, tool_context& ctx) const {
        std::optional<result<prompt_result>> out;
        auto one = [&](const auto& p) {
            if (!out && p.name == n) out = p.get(args, ctx);
        };
        std::apply([&](const auto&... p) { (one(p), ...); }, items_);
        if (!out) return fail(errc::not_found, "no prompt named \"" + std::string(n) + "\"", "List the prompts and get one of them.");
        return std::move(*out);
    }

    /// Completions for argument `arg` of prompt `n`; nullopt when no prompt of that name completes.
    [[nodiscard]] std::optional<completion> complete(std::string_view n, std::string_view arg, std::string_view value,
                                                     const json& context) const {
        std::optional<completion> out;
        auto one = [&](const auto& p) {
            if (!out && p.name == n) out = p.complete(arg, value, context);
        };
        std::apply([&](const auto&... p) { (one(p), ...); }, items_);
        return out;
    }

private:
    std::tuple<Ps...> items_;
};

}  // namespace agentkit::mcp
