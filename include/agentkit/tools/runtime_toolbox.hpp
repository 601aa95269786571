// agentkit/tools/runtime_toolbox.hpp — tools known only at run time (a remote MCP server's tools,
// a plug-in's), in a toolbox that every masker, agent_session and the MCP server accept beside
// compile-time tools.
//
//   agentkit::runtime_toolbox box;
//   box.add_all(agentkit::toolbox{get_weather});                 // compile-time tools
//   box.add({.info = remote_info, .handler = remote_handler});  // a run-time tool
//   agentkit::agent_session session{box, agentkit::menu_runtime{...}};
//
// A run-time tool is a tool_info (name, description, inputSchema as JSON, traits) and a handler
// taking the JSON arguments. Before the handler runs, the arguments are checked against the
// tool's inputSchema (agentkit::json_schema_problems; `$ref` resolved in place, the schema is
// never rewritten): invalid arguments are answered with `args.invalid` naming every problem
// found, in the words and with the hint of a C++ tool's (agentkit::invalid_arguments), and the
// handler is not called. Exceptions from a handler become `tool.exception`.
//
// The toolbox is a value: copies share one immutable catalogue, and add() on a shared copy
// copies it first, so a session's toolbox never changes under it. Thread safety: the const
// members may be called concurrently; add() not while the same object is used elsewhere
// (a copy may be, meanwhile). Names must be unique
// (`tool.name_taken`) and valid tool names (1-64 characters of [A-Za-z0-9_.-], `args.invalid`).
#pragma once

#include <agentkit/core/json_schema.hpp>
#include <agentkit/core/error.hpp>
#include <agentkit/core/fixed_string.hpp>
#include <agentkit/core/json.hpp>
#include <agentkit/core/result.hpp>
#include <agentkit/core/strings.hpp>
#include <agentkit/tools/context.hpp>
#include <agentkit/tools/output.hpp>
#include <agentkit/tools/tool.hpp>

#include <algorithm>
#include <cstddef>
#include <exception>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace agentkit {

/// A tool defined at run time: its description and a handler of JSON arguments.
struct runtime_tool {
    /// The handler's signature: the JSON arguments (already checked) and the call's context.
    using handler_type = std::function<result<tool_output>(const json& args, tool_context& ctx)>;
    tool_info info;        ///< name, description, input_schema (JSON Schema), traits
    handler_type handler;  ///< runs the tool; must not be empty
    /// Check the arguments against info.input_schema before the handler runs (turn it off when
    /// the handler checks them itself).
    bool validate = true;
};

/// A set of run-time tools with unique names, called by name or index like agentkit::toolbox.
class runtime_toolbox {
public:
    runtime_toolbox() : s_(std::make_shared<state>()) {}

    /// Add a tool. `tool.name_taken` when a tool has its name, `args.invalid` when the name is not
    /// a valid tool name or the handler is empty.
    result<void> add(runtime_tool t) {
        if (!is_valid_tool_name(t.info.name))
            return fail(errc::args_invalid, "\"" + t.info.name + "\" is not a valid tool name",
                        "A tool name is 1-64 characters of letters, digits, '_', '.' and '-'.");
        if (!t.handler) return fail(errc::args_invalid, "tool \"" + t.info.name + "\" has no handler");
        if (find(t.info.name))
            return fail(errc::tool_name_taken, "a tool named \"" + t.info.name + "\" is already in the toolbox",
                        "Give one of the two tools another name (a prefix naming where it comes from).",
                        json{{"name", t.info.name}});
        if (!t.info.input_schema.is_object()) t.info.input_schema = json{{"type", "object"}};
        own();
        s_->index.emplace(t.info.name, s_->tools.size());
        s_->infos.push_back(t.info);
        s_->tools.push_back(std::move(t));
        return {};
    }

    /// Add every tool of a toolbox (compile-time or run-time), called through it (its own
    /// argument checks apply). Stops at the first name that is taken.
    template <class Box>
    result<void> add_all(const Box& box) {
        auto shared = std::make_shared<const Box>(box);
        const auto& infos = shared->infos();
        for (std::size_t i = 0; i < infos.size(); ++i) {
            runtime_tool t;
            t.info = infos[i];
            t.validate = false;
            t.handler = [shared, i](const json& args, tool_context& ctx) { return shared->call_at(i, args, ctx); };
            if (auto r = add(std::move(t)); !r) return r;
        }
        return {};
    }

    /// The number of tools.
    [[nodiscard]] std::size_t size() const noexcept { return s_->tools.size(); }
    /// Run-time descriptions of every tool, in the order added.
    [[nodiscard]] const std::vector<tool_info>& infos() const noexcept { return s_->infos; }
    /// The names, in the order added.
    [[nodiscard]] std::vector<std::string> names() const {
        std::vector<std::string> out;
        out.reserve(s_->infos.size());
        for (const auto& i : s_->infos) out.push_back(i.name);
        return out;
    }
    /// The index of a tool by name, or nullopt.
    [[nodiscard]] std::optional<std::size_t> find(std::string_view name) const {
        auto it = s_->index.find(name);
        if (it == s_->index.end()) return std::nullopt;
        return it->second;
    }
    /// True when a tool has this name.
    [[nodiscard]] bool contains(std::string_view name) const { return find(name).has_value(); }

    /// Call a tool by index: check the arguments, run the handler. Never throws.
    [[nodiscard]] result<tool_output> call_at(std::size_t index, const json& args, tool_context& ctx) const {
        if (index >= s_->tools.size()) return fail(errc::internal, "tool index out of range");
        const runtime_tool& t = s_->tools[index];
        const json& a = args.is_null() ? empty_object() : args;
        if (!a.is_object()) return fail(invalid_arguments({{"", "expected object, " + detail::got(a)}}, false, t.info.name));
        if (t.validate) {
            auto problems = json_schema_problems(t.info.input_schema, a, 51);
            const bool more = problems.size() > 50;
            if (more) problems.pop_back();
            if (!problems.empty()) return fail(invalid_arguments(problems, more, t.info.name));
        }
        try {
            return t.handler(a, ctx);
        } catch (const std::exception& ex) {
            return fail(errc::tool_exception, t.info.name + " failed: " + ex.what(),
                        "The tool raised an error; check the arguments or try a different approach.");
        } catch (...) {
            return fail(errc::tool_exception, t.info.name + " failed with an unknown exception", "Try a different approach.");
        }
    }

    /// Call a tool by name with JSON arguments. Never throws.
    [[nodiscard]] result<tool_output> call(std::string_view name, const json& args, tool_context& ctx) const {
        auto i = find(name);
        if (!i) return unknown(name);
        return call_at(*i, args, ctx);
    }
    /// Call a tool by name with arguments as JSON text (`args.malformed` when it is not JSON).
    [[nodiscard]] result<tool_output> call(std::string_view name, std::string_view args_json, tool_context& ctx) const {
        auto i = find(name);
        if (!i) return unknown(name);
        auto args = detail::arguments_from_text(name, args_json);
        if (!args) return fail(args.error());
        return call_at(*i, *args, ctx);
    }
    /// Convenience: call without a context.
    [[nodiscard]] result<tool_output> call(std::string_view name, const json& args) const {
        tool_context ctx;
        return call(name, args, ctx);
    }

    /// The error for an unknown tool name, with the closest known names.
    [[nodiscard]] unexpected_error unknown(std::string_view name) const {
        const auto all = names();
        auto close = closest_names(name, all, 3);
        std::string hint = "Call one of the listed tools.";
        if (!close.empty()) {
            hint = "Did you mean ";
            for (std::size_t i = 0; i < close.size(); ++i)
                hint += (i == 0 ? "" : (i + 1 == close.size() ? " or " : ", ")) + ("\"" + close[i] + "\"");
            hint += "?";
        }
        return fail(errc::tool_unknown, "no tool named \"" + std::string(name) + "\"", std::move(hint),
                    json{{"candidates", close}});
    }

private:
    struct state {
        std::vector<runtime_tool> tools;
        std::vector<tool_info> infos;
        std::map<std::string, std::size_t, std::less<>> index;
    };
    static const json& empty_object() {
        static const json e = json::object();
        return e;
    }
    void own() {
        if (s_.use_count() > 1) s_ = std::make_shared<state>(*s_);
    }
    std::shared_ptr<state> s_;
};

}  // namespace agentkit
