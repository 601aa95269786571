// agentkit/mcp/server/backend.hpp — what an MCP server serves: tools (a toolbox, a masked toolbox or
// an agent session), and optionally resources, resource templates, prompts and completions.
//
//   auto b = agentkit::mcp::backend_for(tools);     // tools
//   agentkit::mcp::add_resources(b, resources);     // + an mcp::resource_set
//   agentkit::mcp::add_prompts(b, prompts);         // + an mcp::prompt_set
//
// Every member is a function: fill them yourself for dynamic catalogues. A server offers (and
// declares in its capabilities) only what its backend has.
#pragma once

#include <agentkit/mcp/server/features.hpp>
#include <agentkit/mcp/server/tasks.hpp>
#include <agentkit/core/error.hpp>
#include <agentkit/core/json.hpp>
#include <agentkit/core/result.hpp>
#include <agentkit/tools/context.hpp>
#include <agentkit/tools/output.hpp>
#include <agentkit/tools/tool.hpp>
#include <agentkit/visibility/masked_call.hpp>
#include <agentkit/visibility/masker.hpp>

#include <concepts>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

/// The MCP server: a backend of tools, resources and prompts served over stdio or HTTP.
namespace agentkit::mcp {

/// What a server serves. Build one with backend_for(); or fill the functions yourself.
struct backend {
    // ---- tools
    /// Tools visible now, in a deterministic order.
    std::function<std::vector<tool_info>()> list_tools;
    /// Run a tool (visibility, validation and dispatch included). Never throws.
    std::function<result<tool_output>(std::string_view name, const json& args, tool_context& ctx)> call_tool;
    /// True when the tool may run concurrently with other parallel-safe calls.
    std::function<bool(std::string_view name)> parallel_safe;
    /// Whether the tool's calls may become tasks (mcp/server/tasks.hpp); empty: optional for a
    /// tool with the long_running trait, forbidden for the others.
    std::function<mcp::task_support(std::string_view name)> task_support_of;
    /// Changes whenever the visible tool set changes (drives notifications/tools/list_changed).
    std::function<std::uint64_t()> version;
    /// What the client's model should know to use these tools (optional): a masker's account of
    /// its meta-tools. The server sends it as its instructions, after server_options::instructions.
    std::function<std::string()> instructions;

    // ---- resources (optional)
    /// The resources, for resources/list.
    std::function<std::vector<resource_info>()> list_resources;
    /// The resource templates, for resources/templates/list.
    std::function<std::vector<resource_template_info>()> list_resource_templates;
    /// Read a resource; errc::not_found (details {"uri"}) when there is none.
    std::function<result<std::vector<resource_contents>>(std::string_view uri, tool_context& ctx)> read_resource;

    // ---- prompts (optional)
    /// The prompts, for prompts/list.
    std::function<std::vector<prompt_info>()> list_prompts;
    /// Get a prompt; errc::not_found when there is none, errc::args_invalid for bad arguments.
    std::function<result<prompt_result>(std::string_view name, const json& args, tool_context& ctx)> get_prompt;

    // ---- completions (optional)
    /// `ref` is {"type": "ref/prompt", "name"} or {"type": "ref/resource", "uri"}; nothing when
    /// the reference completes nothing (answered with no values).
    std::function<std::optional<completion>(const json& ref, std::string_view argument, std::string_view value, const json& context)>
        complete;

    // ---- lifetime (optional)
    /// What the functions above refer to, when the backend is to keep it alive: a host that
    /// makes a server per client (its own browser, tools and masker) hands them over here, and
    /// they are released with the backend, after the server serving it has stopped.
    std::shared_ptr<void> owner;

    /// True when tools are served (list_tools is set).
    [[nodiscard]] bool has_tools() const noexcept { return static_cast<bool>(list_tools); }
    /// True when resources are served (read_resource is set).
    [[nodiscard]] bool has_resources() const noexcept { return static_cast<bool>(read_resource); }
    /// True when prompts are served (get_prompt is set).
    [[nodiscard]] bool has_prompts() const noexcept { return static_cast<bool>(get_prompt); }
    /// True when completions are served (complete is set).
    [[nodiscard]] bool has_completions() const noexcept { return static_cast<bool>(complete); }
};

/// A backend serving every tool of a toolbox.
template <class Toolbox>
[[nodiscard]] backend backend_for(const Toolbox& box) {
    backend b;
    b.list_tools = [&box] { return box.infos(); };
    b.call_tool = [&box](std::string_view name, const json& args, tool_context& ctx) { return box.call(name, args, ctx); };
    b.parallel_safe = [&box](std::string_view name) {
        auto i = box.find(name);
        return i && box.infos()[*i].traits.is_parallel_safe();
    };
    b.version = [] { return std::uint64_t{0}; };
    return b;
}

/// A backend serving a toolbox through a visibility masker (meta-tools included; hidden tools
/// answered by the masker; the masker observes every call). The masker is used under a lock.
template <class Toolbox, masker Masker>
[[nodiscard]] backend backend_for(const Toolbox& box, Masker& m) {
    struct shared {
        const Toolbox* box;
        Masker* m;
        std::set<std::string, std::less<>> meta_names;
        std::mutex mu;
    };
    auto s = std::make_shared<shared>();
    s->box = &box;
    s->m = &m;
    {
        std::lock_guard lock(s->mu);
        m.bind(box.infos());
        for (const auto& t : m.meta_tools()) s->meta_names.insert(t.name);
    }
    backend b;
    b.list_tools = [s] {
        std::lock_guard lock(s->mu);
        std::vector<tool_info> out = served_meta_tools(*s->m);  // not complete, message_user: a session's
        for (const auto& t : s->box->infos())
            if (s->m->is_visible(t.name)) out.push_back(t);
        return out;
    };
    b.call_tool = [s](std::string_view name, const json& args, tool_context& ctx) -> result<tool_output> {
        masked_route route;
        {
            std::lock_guard lock(s->mu);
            if (session_only_tool(*s->m, name) && !s->box->find(name)) return fail(session_only_refusal(name));
            route = masked_call(*s->m, *s->box, [&](std::string_view n) { return s->meta_names.count(n) != 0; }, name, args);
        }
        if (route.answer) return std::move(*route.answer);
        auto r = s->box->call_at(*route.index, args, ctx);
        std::lock_guard lock(s->mu);
        masked_observe(*s->m, name, args, r);
        return r;
    };
    b.parallel_safe = [s](std::string_view name) {
        auto i = s->box->find(name);
        return i && s->box->infos()[*i].traits.is_parallel_safe();
    };
    b.version = [s] {
        std::lock_guard lock(s->mu);
        return static_cast<std::uint64_t>(s->m->version());
    };
    b.instructions = [s] {
        std::lock_guard lock(s->mu);
        return mcp_instructions_of(*s->m);
    };
    return b;
}

/// A session that can be served (agentkit::agent_session): its visible tools, its call path.
template <class S>
concept servable_session = requires(S& s, const S& cs, std::string_view n, const json& a, tool_context& ctx) {
    { cs.served_tools() } -> std::convertible_to<std::vector<tool_info>>;
    { s.serve_call(n, a, ctx) } -> std::same_as<result<tool_output>>;
    { cs.serve_parallel_safe(n) } -> std::convertible_to<bool>;
    { cs.serve_version() } -> std::convertible_to<std::uint64_t>;
};

/// A backend serving an agent session: the tools its masker shows now (meta-tools included),
/// called through the session so that its formatter (budgets, cut text stored as artifacts)
/// and masker apply exactly as in its own model loop. The session must outlive the server.
template <servable_session Session>
[[nodiscard]] backend backend_for(Session& session) {
    backend b;
    b.list_tools = [&session] { return session.served_tools(); };
    b.call_tool = [&session](std::string_view name, const json& args, tool_context& ctx) {
        return session.serve_call(name, args, ctx);
    };
    b.parallel_safe = [&session](std::string_view name) { return session.serve_parallel_safe(name); };
    b.version = [&session] { return session.serve_version(); };
    return b;
}

namespace detail {
/// Chain a completion source before what `b` already completes.
inline void chain_completion(backend& b, std::function<std::optional<completion>(const json&, std::string_view, std::string_view, const json&)> f) {
    auto prev = std::move(b.complete);
    b.complete = [f = std::move(f), prev = std::move(prev)](const json& ref, std::string_view arg, std::string_view value,
                                                            const json& context) -> std::optional<completion> {
        if (auto c = f(ref, arg, value, context)) return c;
        if (prev) return prev(ref, arg, value, context);
        return std::nullopt;
    };
}
}  // namespace detail

/// Serve a resource_set (a copy is kept): resources/list, resources/templates/list,
/// resources/read, and completions of its templates' variables.
template <class... Rs>
void add_resources(backend& b, resource_set<Rs...> set) {
    auto s = std::make_shared<const resource_set<Rs...>>(std::move(set));
    b.list_resources = [s] { return s->list(); };
    b.list_resource_templates = [s] { return s->templates(); };
    b.read_resource = [s](std::string_view uri, tool_context& ctx) { return s->read(uri, ctx); };
    detail::chain_completion(b, [s](const json& ref, std::string_view arg, std::string_view value, const json& context) -> std::optional<completion> {
        if (!ref.is_object() || ref.value("type", "") != "ref/resource" || !ref.contains("uri") || !ref["uri"].is_string())
            return std::nullopt;
        return s->complete(ref["uri"].get<std::string>(), arg, value, context);
    });
}

/// Serve a prompt_set (a copy is kept): prompts/list, prompts/get, and completions of their
/// arguments.
template <class... Ps>
void add_prompts(backend& b, prompt_set<Ps...> set) {
    auto s = std::make_shared<const prompt_set<Ps...>>(std::move(set));
    b.list_prompts = [s] { return s->list(); };
    b.get_prompt = [s](std::string_view name, const json& args, tool_context& ctx) { return s->get(name, args, ctx); };
    detail::chain_completion(b, [s](const json& ref, std::string_view arg, std::string_view value, const json& context) -> std::optional<completion> {
        if (!ref.is_object() || ref.value("type", "") != "ref/prompt" || !ref.contains("name") || !ref["name"].is_string())
            return std::nullopt;
        return s->complete(ref["name"].get<std::string>(), arg, value, context);
    });
}

}  // namespace agentkit::mcp
