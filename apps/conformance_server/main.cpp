// agentkit-conformance-server — the tools, resources and prompts the official MCP conformance
// suite (@modelcontextprotocol/conformance) expects of a server, served over Streamable HTTP:
//
//   agentkit-conformance-server --port 3001            # http://127.0.0.1:3001/mcp
//   npx @modelcontextprotocol/conformance server --url http://127.0.0.1:3001/mcp --requirements 2025-11-25
//
// Written with agentkit's public API only, it doubles as the example of a complete server:
// tools with every content kind, structured output, logging, progress and client requests
// (sampling, elicitation, roots — sent to the client in 2025-11-25, returned as input_required
// rounds in 2026-07-28, by the same handler code); resources, a resource template and
// completions; prompts with arguments, embedded resources and images; list-change
// notifications. Both protocol eras on one endpoint.
#include <agentkit/core.hpp>
#include <agentkit/mcp.hpp>
#include <agentkit/mcp/http/server.hpp>
#include <agentkit/version.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <optional>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <utility>

namespace ak = agentkit;
namespace mcp = agentkit::mcp;
using ak::json;

namespace {

// 1x1 PNG and a tiny WAV.
constexpr const char* png = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==";
constexpr const char* wav = "UklGRiYAAABXQVZFZm10IBAAAAABAAEAQB8AAAB9AAACABAAZGF0YQIAAAA=";

/// The server, for the tools that announce list changes.
std::atomic<mcp::server*> g_server{nullptr};

/// The MCP request a handler serves (every handler here is called over MCP).
mcp::request_context& rq(ak::tool_context& ctx) {
    static mcp::request_context none;
    auto* r = mcp::request_of(ctx);
    return r != nullptr ? *r : none;
}

/// The text a sampling answer carries.
std::string sampled_text(const json& answer) {
    const json c = answer.value("content", json());
    if (c.is_object() && c.value("text", json()).is_string()) return c["text"].get<std::string>();
    return answer.dump();
}

// ---- tools -------------------------------------------------------------------------------------

struct prompt_args {
    std::string prompt;
    static constexpr auto agentkit_fields() { return ak::fields(AGENTKIT_FIELD(prompt_args, prompt, "What to ask the client's model")); }
};
struct message_args {
    std::string message;
    static constexpr auto agentkit_fields() { return ak::fields(AGENTKIT_FIELD(message_args, message, "What to ask the user")); }
};

const auto simple_text = ak::tool<"test_simple_text">("Returns a simple text response.", [] {
    return std::string("This is a simple text response for testing.");
}, ak::read_only | ak::parallel_safe);

const auto image_content = ak::tool<"test_image_content">("Returns an image (PNG).", [] {
    ak::tool_output o;
    o.add_image(png, "image/png");
    return o;
}, ak::read_only | ak::parallel_safe);

const auto audio_content = ak::tool<"test_audio_content">("Returns audio (WAV).", [] {
    ak::tool_output o;
    o.content.push_back(mcp::audio_block(wav, "audio/wav"));
    return o;
}, ak::read_only | ak::parallel_safe);

const auto embedded_resource = ak::tool<"test_embedded_resource">("Returns an embedded resource.", [] {
    ak::tool_output o;
    o.add_resource("test://embedded-resource", "text/plain", "This is an embedded resource content.");
    return o;
}, ak::read_only | ak::parallel_safe);

const auto multiple_content = ak::tool<"test_multiple_content_types">("Returns text, an image and an embedded resource.", [] {
    ak::tool_output o;
    o.add_text("Multiple content types test:");
    o.add_image(png, "image/png");
    o.add_resource("test://mixed-content-resource", "application/json", R"({"test":"data","value":123})");
    return o;
}, ak::read_only | ak::parallel_safe);

const auto with_logging = ak::tool<"test_tool_with_logging">(
    "Logs three messages while it runs (at the level the client asked for).",
    [](const ak::no_args&, ak::tool_context& ctx) {
        auto& r = rq(ctx);
        r.log("info", "Tool execution started", "conformance");
        r.log("info", "Tool processing data", "conformance");
        r.log("info", "Tool execution completed", "conformance");
        return std::string("Logging test completed");
    },
    ak::read_only | ak::parallel_safe);

const auto logging_tool = ak::tool<"test_logging_tool">(
    "Logs a message only when the client asked for logs (2026-07-28: the request's logLevel).",
    [](const ak::no_args&, ak::tool_context& ctx) {
        rq(ctx).log("info", "test_logging_tool ran", "conformance");
        return std::string("logged if asked");
    },
    ak::read_only | ak::parallel_safe);

const auto with_progress = ak::tool<"test_tool_with_progress">(
    "Reports progress 0, 50 and 100 of 100 when the client sent a progress token.",
    [](const ak::no_args&, ak::tool_context& ctx) {
        ctx.progress(0, 100, "started");
        ctx.progress(50, 100, "halfway");
        ctx.progress(100, 100, "done");
        return std::string("Progress test completed");
    },
    ak::read_only | ak::parallel_safe);

const auto error_handling = ak::tool<"test_error_handling">("Always fails (a tool error, not a protocol error).", [] {
    ak::tool_output o;
    o.is_error = true;
    o.add_text("This tool intentionally returns an error for testing");
    return o;
}, ak::read_only | ak::parallel_safe);

const auto sampling = ak::tool<"test_sampling">(
    "Asks the client's model (sampling/createMessage) and returns its answer.",
    [](const prompt_args& a, ak::tool_context& ctx) -> ak::result<std::string> {
        auto answer = rq(ctx).ask(mcp::input::sample("sample", a.prompt, 100));
        if (!answer) return ak::fail(answer.error());
        return "LLM response: " + sampled_text(*answer);
    },
    ak::parallel_safe);

const auto elicitation = ak::tool<"test_elicitation">(
    "Asks the user (elicitation/create) for a username and an email.",
    [](const message_args& a, ak::tool_context& ctx) -> ak::result<std::string> {
        const json schema{{"type", "object"},
                          {"properties",
                           {{"username", {{"type", "string"}, {"description", "User's response"}}},
                            {"email", {{"type", "string"}, {"description", "User's email address"}}}}},
                          {"required", {"username", "email"}}};
        auto answer = rq(ctx).ask(mcp::input::elicit("user_info", a.message, schema));
        if (!answer) return ak::fail(answer.error());
        return "User response: " + answer->dump();
    },
    ak::parallel_safe);

const auto elicitation_defaults = ak::tool<"test_elicitation_sep1034_defaults">(
    "Asks the user with a form whose fields have defaults (SEP-1034).",
    [](const ak::no_args&, ak::tool_context& ctx) -> ak::result<std::string> {
        const json schema{{"type", "object"},
                          {"properties",
                           {{"name", {{"type", "string"}, {"description", "User name"}, {"default", "John Doe"}}},
                            {"age", {{"type", "integer"}, {"description", "User age"}, {"default", 30}}},
                            {"score", {{"type", "number"}, {"description", "User score"}, {"default", 95.5}}},
                            {"status",
                             {{"type", "string"}, {"description", "User status"}, {"enum", {"active", "inactive", "pending"}}, {"default", "active"}}},
                            {"verified", {{"type", "boolean"}, {"description", "Verification status"}, {"default", true}}}}},
                          {"required", json::array()}};
        auto answer = rq(ctx).ask(mcp::input::elicit("defaults", "Please review and update the form fields with defaults", schema));
        if (!answer) return ak::fail(answer.error());
        return "Elicitation completed: " + answer->dump();
    },
    ak::parallel_safe);

const auto elicitation_enums = ak::tool<"test_elicitation_sep1330_enums">(
    "Asks the user with every kind of enum field (SEP-1330).",
    [](const ak::no_args&, ak::tool_context& ctx) -> ak::result<std::string> {
        auto titled = [](const char* a, const char* b, const char* c, const char* ta, const char* tb, const char* tc) {
            return json::array({{{"const", a}, {"title", ta}}, {{"const", b}, {"title", tb}}, {{"const", c}, {"title", tc}}});
        };
        const json schema{
            {"type", "object"},
            {"properties",
             {{"untitledSingle", {{"type", "string"}, {"description", "Choose an option"}, {"enum", {"option1", "option2", "option3"}}}},
              {"titledSingle",
               {{"type", "string"},
                {"description", "Choose a titled option"},
                {"oneOf", titled("value1", "value2", "value3", "First Option", "Second Option", "Third Option")}}},
              {"legacyEnum",
               {{"type", "string"},
                {"description", "Choose a legacy option"},
                {"enum", {"opt1", "opt2", "opt3"}},
                {"enumNames", {"Option One", "Option Two", "Option Three"}}}},
              {"untitledMulti",
               {{"type", "array"},
                {"description", "Choose multiple options"},
                {"minItems", 1},
                {"maxItems", 3},
                {"items", {{"type", "string"}, {"enum", {"option1", "option2", "option3"}}}}}},
              {"titledMulti",
               {{"type", "array"},
                {"description", "Choose multiple titled options"},
                {"minItems", 1},
                {"maxItems", 3},
                {"items", {{"anyOf", titled("value1", "value2", "value3", "First Choice", "Second Choice", "Third Choice")}}}}}}},
            {"required", json::array()}};
        auto answer = rq(ctx).ask(mcp::input::elicit("enums", "Choose your options", schema));
        if (!answer) return ak::fail(answer.error());
        return "Elicitation completed: " + answer->dump();
    },
    ak::parallel_safe);

const auto reconnection = ak::tool<"test_reconnection">("Answers after a short pause (stream resumption test).", [] {
    return std::string("Reconnection test completed");
}, ak::read_only | ak::parallel_safe);

const auto missing_capability = ak::tool<"test_missing_capability">(
    "Needs the client's sampling capability (without it: -32021 with requiredCapabilities).",
    [](const ak::no_args&, ak::tool_context& ctx) -> ak::result<std::string> {
        if (!rq(ctx).client_supports("sampling"))
            return ak::fail(ak::errc::client_capability_missing, "test_missing_capability needs the sampling capability", "",
                            json{{"requiredCapabilities", {{"sampling", json::object()}}}});
        return std::string("the client supports sampling");
    },
    ak::read_only | ak::parallel_safe);

const auto streaming_elicitation = ak::tool<"test_streaming_elicitation">(
    "Asks the user for input (2026-07-28: an input_required result, never a request on the stream).",
    [](const ak::no_args&, ak::tool_context& ctx) -> ak::result<std::string> {
        ctx.progress(0, 1, "asking");
        auto answer = rq(ctx).ask(mcp::input::elicit(
            "confirm", "Continue?", json{{"type", "object"}, {"properties", {{"ok", {{"type", "boolean"}}}}}, {"required", {"ok"}}}));
        if (!answer) return ak::fail(answer.error());
        return "answered: " + answer->dump();
    },
    ak::parallel_safe);

const auto trigger_tool_change = ak::tool<"test_trigger_tool_change">("Announces that the tool list changed.", [] {
    if (auto* s = g_server.load()) s->notify_tools_changed();
    return std::string("tools/list_changed sent");
}, ak::parallel_safe);

const auto trigger_prompt_change = ak::tool<"test_trigger_prompt_change">("Announces that the prompt list changed.", [] {
    if (auto* s = g_server.load()) s->notify_prompts_changed();
    return std::string("prompts/list_changed sent");
}, ak::parallel_safe);

const auto trigger_resource_update = ak::tool<"test_trigger_resource_update">(
    "Announces that test://watched-resource changed (to its subscribers).", [] {
        if (auto* s = g_server.load()) s->notify_resource_updated("test://watched-resource");
        return std::string("resources/updated sent");
    }, ak::parallel_safe);

// ---- input_required rounds (2026-07-28; in 2025-11-25 the same code asks the client directly) ----

const json name_schema{{"type", "object"}, {"properties", {{"name", {{"type", "string"}}}}}, {"required", {"name"}}};

const auto ir_elicitation = ak::tool<"test_input_required_result_elicitation">(
    "Asks the user's name, then greets them.",
    [](const ak::no_args&, ak::tool_context& ctx) -> ak::result<std::string> {
        auto a = rq(ctx).ask(mcp::input::elicit("user_name", "What is your name?", name_schema));
        if (!a) return ak::fail(a.error());
        const json content = a->value("content", json::object());
        return "Hello, " + content.value("name", std::string("stranger")) + "!";
    },
    ak::parallel_safe);

const auto ir_sampling = ak::tool<"test_input_required_result_sampling">(
    "Asks the client's model a question.",
    [](const ak::no_args&, ak::tool_context& ctx) -> ak::result<std::string> {
        auto a = rq(ctx).ask(mcp::input::sample("capital_question", "What is the capital of France?", 100));
        if (!a) return ak::fail(a.error());
        return "Sampling result: " + sampled_text(*a);
    },
    ak::parallel_safe);

const auto ir_roots = ak::tool<"test_input_required_result_list_roots">(
    "Asks the client for its roots.",
    [](const ak::no_args&, ak::tool_context& ctx) -> ak::result<std::string> {
        auto a = rq(ctx).ask(mcp::input::list_roots("client_roots"));
        if (!a) return ak::fail(a.error());
        return "Roots: " + a->value("roots", json::array()).dump();
    },
    ak::parallel_safe);

const auto ir_request_state = ak::tool<"test_input_required_result_request_state">(
    "Keeps state between rounds (in the signed requestState) and checks it came back.",
    [](const ak::no_args&, ak::tool_context& ctx) -> ak::result<std::string> {
        auto& r = rq(ctx);
        if (r.saved_state().is_null()) r.save_state(json{{"stage", "confirm"}, {"started", true}});
        auto a = r.ask(mcp::input::elicit("confirm", "Please confirm",
                                          json{{"type", "object"}, {"properties", {{"ok", {{"type", "boolean"}}}}}, {"required", {"ok"}}}));
        if (!a) return ak::fail(a.error());
        const bool kept = !r.stateless() || r.saved_state().value("stage", "") == "confirm";
        return std::string(kept ? "state-ok" : "state-lost") + ": confirmed " + a->value("content", json::object()).dump();
    },
    ak::parallel_safe);

const auto ir_multiple = ak::tool<"test_input_required_result_multiple_inputs">(
    "Asks for three inputs at once: the user, the model and the roots.",
    [](const ak::no_args&, ak::tool_context& ctx) -> ak::result<std::string> {
        auto all = rq(ctx).ask_all({mcp::input::elicit("user_name", "What is your name?", name_schema),
                                    mcp::input::sample("greeting", "Say hello", 100), mcp::input::list_roots("roots")});
        if (!all) return ak::fail(all.error());
        return "Got " + std::to_string(all->size()) + " inputs: " + (*all)["user_name"].dump() + " " + sampled_text((*all)["greeting"]) + " " +
               (*all)["roots"].dump();
    },
    ak::parallel_safe);

const auto ir_multi_round = ak::tool<"test_input_required_result_multi_round">(
    "Asks in two rounds: a name, then a colour.",
    [](const ak::no_args&, ak::tool_context& ctx) -> ak::result<std::string> {
        auto& r = rq(ctx);
        auto name = r.ask(mcp::input::elicit("step1", "Step 1: What is your name?", name_schema));
        if (!name) return ak::fail(name.error());
        auto color = r.ask(mcp::input::elicit("step2", "Step 2: What is your favorite color?",
                                              json{{"type", "object"}, {"properties", {{"color", {{"type", "string"}}}}}, {"required", {"color"}}}));
        if (!color) return ak::fail(color.error());
        return "Hello " + name->value("content", json::object()).value("name", std::string("?")) + ", you like " +
               color->value("content", json::object()).value("color", std::string("?"));
    },
    ak::parallel_safe);

const auto ir_tampered = ak::tool<"test_input_required_result_tampered_state">(
    "Asks with a requestState a client cannot alter (a tampered one is refused).",
    [](const ak::no_args&, ak::tool_context& ctx) -> ak::result<std::string> {
        auto& r = rq(ctx);
        if (r.saved_state().is_null()) r.save_state(json{{"authorized", false}});
        auto a = r.ask(mcp::input::elicit("confirm", "Please confirm",
                                          json{{"type", "object"}, {"properties", {{"ok", {{"type", "boolean"}}}}}, {"required", {"ok"}}}));
        if (!a) return ak::fail(a.error());
        return std::string("state verified");
    },
    ak::parallel_safe);

const auto ir_capabilities = ak::tool<"test_input_required_result_capabilities">(
    "Asks only for what the client declared it can answer.",
    [](const ak::no_args&, ak::tool_context& ctx) -> ak::result<std::string> {
        auto& r = rq(ctx);
        mcp::input_request q;
        if (r.client_supports("elicitation")) q = mcp::input::elicit("user_name", "What is your name?", name_schema);
        else if (r.client_supports("sampling")) q = mcp::input::sample("question", "What is your name?", 100);
        else if (r.client_supports("roots")) q = mcp::input::list_roots("roots");
        else return std::string("the client declared no capability to ask with");
        auto a = r.ask(q);
        if (!a) return ak::fail(a.error());
        return "answered " + q.method;
    },
    ak::parallel_safe);

// ---- tasks (the tasks extension, 2026-07-28) ---------------------------------------------------

/// Waits up to `d`, or until the call is cancelled (its task cancelled); false when cancelled.
bool work_for(std::chrono::milliseconds d, ak::tool_context& ctx) {
    std::mutex m;
    std::condition_variable_any cv;
    std::unique_lock lock(m);
    cv.wait_for(lock, ctx.stop, d, [] { return false; });
    return !ctx.cancelled();
}

struct greet_args {
    std::string name;
    static constexpr auto agentkit_fields() { return ak::fields(AGENTKIT_FIELD(greet_args, name, "Who to greet")); }
};
const auto greet = ak::tool<"greet">("Greets someone (answers at once; never a task).", [](const greet_args& a) {
    return "Hello, " + a.name + "!";
}, ak::read_only | ak::parallel_safe);

struct compute_args {
    std::optional<int> seconds;
    std::optional<std::string> label;
    static constexpr auto agentkit_fields() {
        return ak::fields(AGENTKIT_FIELD(compute_args, seconds, "How long the computation takes (0 to 600)"),
                          AGENTKIT_FIELD(compute_args, label, "A name for this computation"));
    }
};
const auto slow_compute = ak::tool<"slow_compute">(
    "Computes for some seconds; a task for a client that takes tasks.",
    [](const compute_args& a, ak::tool_context& ctx) -> ak::result<std::string> {
        const int n = std::clamp(a.seconds.value_or(0), 0, 600);
        if (n > 0) rq(ctx).start_task();  // the handle now, the result when it is done
        for (int i = 0; i < n; ++i) {
            ctx.progress(i, n, "second " + std::to_string(i + 1) + " of " + std::to_string(n));
            if (!work_for(std::chrono::seconds(1), ctx)) return ak::fail(ak::errc::tool_cancelled, "the computation was cancelled");
        }
        return "Computation " + a.label.value_or("unnamed") + " completed after " + std::to_string(n) + "s. Result: 42.";
    },
    ak::read_only | ak::parallel_safe | ak::long_running);

struct delete_args {
    std::string filename;
    static constexpr auto agentkit_fields() { return ak::fields(AGENTKIT_FIELD(delete_args, filename, "The file to delete")); }
};
const auto confirm_delete = ak::tool<"confirm_delete">(
    "Deletes a file after the user confirms (as a task, the question waits on tasks/get).",
    [](const delete_args& a, ak::tool_context& ctx) -> ak::result<std::string> {
        auto& r = rq(ctx);
        r.start_task();
        auto answer = r.ask(mcp::input::elicit("confirm", "Delete " + a.filename + "?",
                                               json{{"type", "object"}, {"properties", {{"confirm", {{"type", "boolean"}}}}}, {"required", {"confirm"}}}));
        if (!answer) return ak::fail(answer.error());
        const bool yes = answer->value("action", std::string()) == "accept" && answer->value("content", json::object()).value("confirm", false);
        return (yes ? "Deleted " : "Kept ") + a.filename;
    },
    ak::parallel_safe | ak::long_running);

const auto multi_input = ak::tool<"multi_input">(
    "Asks two questions at once (as a task, each can be answered on its own).",
    [](const ak::no_args&, ak::tool_context& ctx) -> ak::result<std::string> {
        auto& r = rq(ctx);
        r.start_task();
        const json schema{{"type", "object"},
                          {"properties", {{"name", {{"type", "string"}}}, {"confirm", {{"type", "boolean"}}}}},
                          {"required", {"name"}}};
        auto all = r.ask_all({mcp::input::elicit("first", "First input", schema), mcp::input::elicit("second", "Second input", schema)});
        if (!all) return ak::fail(all.error());
        auto name = [&](const char* k) { return (*all)[k].value("content", json::object()).value("name", std::string("?")); };
        return "Got " + name("first") + " and " + name("second");
    },
    ak::parallel_safe | ak::long_running);

const auto failing_job = ak::tool<"failing_job">(
    "A job that runs only as a task and ends with a tool error.",
    [](const ak::no_args&, ak::tool_context& ctx) -> ak::result<ak::tool_output> {
        rq(ctx).start_task();
        if (!work_for(std::chrono::milliseconds(300), ctx)) return ak::fail(ak::errc::tool_cancelled, "the job was cancelled");
        ak::tool_output o;
        o.is_error = true;
        o.add_text("failing_job: the job failed (a tool error: the task completes with isError)");
        return o;
    },
    ak::long_running);

const auto protocol_error_job = ak::tool<"protocol_error_job">(
    "A job that runs only as a task and needs URL-mode elicitation, which a client declaring only "
    "form mode lacks: the task fails with -32021.",
    [](const ak::no_args&, ak::tool_context& ctx) -> ak::result<std::string> {
        auto& r = rq(ctx);
        r.start_task();
        auto a = r.ask({"sign_in", "elicitation/create",
                        json{{"mode", "url"}, {"message", "Sign in to continue"}, {"url", "https://example.com/sign-in"},
                             {"elicitationId", "sign-in-1"}}});
        if (!a) return ak::fail(a.error());
        return std::string("signed in");
    },
    ak::long_running);

const auto tool_with_task = ak::tool<"test_tool_with_task">(
    "Asks for a name in an input_required round, then goes on as a task (runs only as a task).",
    [](const ak::no_args&, ak::tool_context& ctx) -> ak::result<std::string> {
        auto& r = rq(ctx);
        auto name = r.ask(mcp::input::elicit("user_name", "What is your name?", name_schema));
        if (!name) return ak::fail(name.error());
        r.start_task();
        if (!work_for(std::chrono::milliseconds(200), ctx)) return ak::fail(ak::errc::tool_cancelled, "cancelled");
        return "Hello, " + name->value("content", json::object()).value("name", std::string("?")) + "!";
    },
    ak::long_running);

const ak::toolbox tools{simple_text,        image_content,        audio_content,       embedded_resource,     multiple_content,
                        with_logging,       logging_tool,         with_progress,       error_handling,        sampling,
                        elicitation,        elicitation_defaults, elicitation_enums,   reconnection,          missing_capability,
                        streaming_elicitation, trigger_tool_change, trigger_prompt_change, trigger_resource_update, ir_elicitation,
                        ir_sampling,        ir_roots,             ir_request_state,    ir_multiple,           ir_multi_round,
                        ir_tampered,        ir_capabilities,      greet,               slow_compute,          confirm_delete,
                        multi_input,        failing_job,          protocol_error_job,  tool_with_task};

// ---- resources ---------------------------------------------------------------------------------

struct template_args {
    std::string id;
    static constexpr auto agentkit_fields() { return ak::fields(AGENTKIT_FIELD(template_args, id, "The item's id")); }
};

const auto static_text = mcp::resource<"test://static-text">("static-text", "A static text resource.", "text/plain", [] {
    return std::string("This is the content of the static text resource.");
});
const auto static_binary = mcp::resource<"test://static-binary">("static-binary", "A static binary resource (PNG).", "image/png", [] {
    return mcp::resource_contents::of_blob("test://static-binary", "image/png", png);
});
const auto watched = mcp::resource<"test://watched-resource">("watched-resource", "A resource to subscribe to.", "text/plain", [] {
    return std::string("Watched resource content.");
});
const auto data_template =
    mcp::resource_template<"test://template/{id}/data">("template-data", "Data for an id.", "application/json",
                                                         [](const template_args& a) {
                                                             return json{{"id", a.id}, {"templateTest", true}, {"data", "Data for ID: " + a.id}}.dump();
                                                         })
        .with_completion([](std::string_view, std::string_view value, const json&) {
            mcp::completion c;
            for (const char* id : {"123", "124", "200"})
                if (std::string_view(id).substr(0, value.size()) == value) c.values.emplace_back(id);
            return c;
        });

// ---- prompts -----------------------------------------------------------------------------------

struct two_args {
    std::string arg1;
    std::string arg2;
    static constexpr auto agentkit_fields() {
        return ak::fields(AGENTKIT_FIELD(two_args, arg1, "First argument"), AGENTKIT_FIELD(two_args, arg2, "Second argument"));
    }
};
struct resource_uri_args {
    std::string resourceUri;
    static constexpr auto agentkit_fields() {
        return ak::fields(AGENTKIT_FIELD(resource_uri_args, resourceUri, "The URI of the resource to embed"));
    }
};

const auto simple_prompt = mcp::prompt<"test_simple_prompt">("A simple prompt without arguments.", [] {
    return std::string("This is a simple prompt for testing.");
});

const auto prompt_with_args =
    mcp::prompt<"test_prompt_with_arguments">("A prompt with two required arguments.",
                                              [](const two_args& a) {
                                                  return "Prompt with arguments: arg1='" + a.arg1 + "', arg2='" + a.arg2 + "'";
                                              })
        .with_completion([](std::string_view arg, std::string_view value, const json&) {
            mcp::completion c;
            const char* options[] = {"test", "testing", "tested", "value"};
            for (const char* o : options)
                if (std::string_view(o).substr(0, value.size()) == value) c.values.push_back(std::string(arg) == "arg2" ? std::string(o) + "2" : o);
            return c;
        });

const auto prompt_with_resource =
    mcp::prompt<"test_prompt_with_embedded_resource">("A prompt that embeds a resource.", [](const resource_uri_args& a) {
        std::vector<mcp::prompt_message> m;
        m.push_back(mcp::prompt_message::user(ak::content_block::make_resource(a.resourceUri, "text/plain", "Embedded resource content for testing.")));
        m.push_back(mcp::prompt_message::user_text("Please process the embedded resource above."));
        return m;
    });

const auto prompt_with_image = mcp::prompt<"test_prompt_with_image">("A prompt with an image.", [] {
    std::vector<mcp::prompt_message> m;
    m.push_back(mcp::prompt_message::user(ak::content_block::make_image(png, "image/png")));
    m.push_back(mcp::prompt_message::user_text("Please analyze the image above."));
    return m;
});

const auto prompt_input_required =
    mcp::prompt<"test_input_required_result_prompt">("A prompt that first asks the user for context.",
                                                     [](const ak::no_args&, ak::tool_context& ctx) -> ak::result<std::string> {
                                                         auto a = rq(ctx).ask(mcp::input::elicit(
                                                             "user_context", "What context should the prompt use?",
                                                             json{{"type", "object"}, {"properties", {{"context", {{"type", "string"}}}}}, {"required", {"context"}}}));
                                                         if (!a) return ak::fail(a.error());
                                                         return "Prompt with context: " + a->value("content", json::object()).value("context", std::string());
                                                     });

// ---- tools with hand-written schemas (the escape hatch next to described structs) ----------------

ak::tool_info schema_2020_12_tool() {
    ak::tool_info t;
    t.name = "json_schema_2020_12_tool";
    t.description = "A tool whose input schema uses JSON Schema 2020-12 keywords.";
    t.input_schema = json::parse(R"({"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object",
        "$defs":{"address":{"$anchor":"addressDef","type":"object","properties":{"street":{"type":"string"},"city":{"type":"string"}}}},
        "properties":{"name":{"type":"string"},"address":{"$ref":"#/$defs/address"},"contactMethod":{"type":"string","enum":["phone","email"]},
                      "phone":{"type":"string"},"email":{"type":"string"}},
        "allOf":[{"anyOf":[{"required":["phone"]},{"required":["email"]}]}],
        "if":{"properties":{"contactMethod":{"const":"phone"}},"required":["contactMethod"]},
        "then":{"required":["phone"]},"else":{"required":["email"]},"additionalProperties":false})");
    t.schema_as_sent = true;  // a schema written by hand is advertised as written (additionalProperties included)
    return t;
}

ak::tool_info header_echo_tool() {
    ak::tool_info t;
    t.name = "test_header_echo";
    t.description = "Echoes its region, which clients mirror into the Mcp-Param-Region header.";
    t.input_schema = json{{"type", "object"},
                          {"properties", {{"region", {{"type", "string"}, {"description", "A region"}, {"x-mcp-header", "Region"}}}}},
                          {"required", {"region"}}};
    return t;
}

mcp::backend make_backend() {
    auto b = mcp::backend_for(tools);
    auto list = b.list_tools;
    b.list_tools = [list] {
        auto v = list();
        v.push_back(schema_2020_12_tool());
        v.push_back(header_echo_tool());
        return v;
    };
    auto call = b.call_tool;
    b.call_tool = [call](std::string_view name, const json& args, ak::tool_context& ctx) -> ak::result<ak::tool_output> {
        if (name == "json_schema_2020_12_tool") return ak::tool_output::text("received " + args.dump());
        if (name == "test_header_echo") return ak::tool_output::text("region: " + args.value("region", std::string()));
        return call(name, args, ctx);
    };
    // the task fixtures that run only as tasks; the others by their long_running trait
    b.task_support_of = [](std::string_view name) {
        if (name == "failing_job" || name == "protocol_error_job" || name == "test_tool_with_task") return mcp::task_support::required;
        auto i = tools.find(name);
        return i && tools.infos()[*i].traits.is_long_running() ? mcp::task_support::optional : mcp::task_support::forbidden;
    };
    mcp::add_resources(b, mcp::resource_set{static_text, static_binary, watched, data_template});
    mcp::add_prompts(b, mcp::prompt_set{simple_prompt, prompt_with_args, prompt_with_resource, prompt_with_image, prompt_input_required});
    return b;
}

constexpr const char* usage = R"(Usage: agentkit-conformance-server --port PORT [--host HOST]

Serves http://HOST:PORT/mcp (HOST 127.0.0.1 unless told otherwise) with every tool, resource and
prompt the MCP conformance suite's server scenarios expect, both protocol eras on one endpoint.
SIGTERM or SIGINT stops it.
)";

}  // namespace

int main(int argc, char** argv) {
    mcp::http_options ho;
    ho.port = -1;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        if ((a == "--port" || a == "--host") && i + 1 < argc) {
            const std::string v = argv[++i];
            if (a == "--host") {
                ho.host = v;
                continue;
            }
            char* end = nullptr;
            const long p = std::strtol(v.c_str(), &end, 10);
            if (end == v.c_str() || *end != '\0' || p < 0 || p > 65535) {
                std::fprintf(stderr, "agentkit-conformance-server: --port takes a number from 0 to 65535\n");
                return 2;
            }
            ho.port = static_cast<int>(p);
        } else if (a == "--help" || a == "-h") {
            std::fputs(usage, stdout);
            return 0;
        } else {
            std::fprintf(stderr, "agentkit-conformance-server: unknown argument %s\n%s", a.c_str(), usage);
            return 2;
        }
    }
    if (ho.port < 0) {
        std::fputs(usage, stderr);
        return 2;
    }

    mcp::server_options so;
    so.name = "agentkit-conformance-server";
    so.title = "agentkit conformance server";
    so.version = ak::version.string;
    so.stderr_level = "warning";
    so.request_state = mcp::hmac_state_codec();
    mcp::server srv{make_backend(), so};
    g_server = &srv;
    mcp::http_transport http{srv, ho};
    const auto* stop = mcp::stop_on_signals();
    if (auto up = http.start(); !up) {
        std::fprintf(stderr, "agentkit-conformance-server: %s\n", up.error().message.c_str());
        return 1;
    }
    std::fprintf(stderr, "agentkit-conformance-server: serving %s\n", http.url().c_str());
    const int rc = mcp::serve(http, stop);
    g_server = nullptr;
    return rc;
}
