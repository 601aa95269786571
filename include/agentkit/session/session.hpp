// agentkit/session/session.hpp — agent_session: the object a host holds.
//
//   agentkit::toolbox tools{get_weather, search};
//   agentkit::agent_session session{tools, agentkit::all_visible{}, agentkit::compact_formatter{}};
//   auto result = session.run(model, "What is the weather in Oslo?", {.max_steps = 10});
//   std::puts(agentkit::render_report(session.make_report()).c_str());
//
// or drive it by hand (a streaming host):
//
//   json request = session.request(agentkit::provider::anthropic);
//   ... send it; as each tool_use block completes: session.speculate(provider::anthropic, block);
//   auto outcome = session.accept(agentkit::provider::anthropic, response_body);
//   if (outcome && outcome->done) ...
//
// Composition is static: agent_session<Toolbox, Masker, Formatter>. A host without a browser
// has no browser code in its toolbox and pays nothing for it.
//
// Optional masker hooks, detected with `requires`:
//   m.exposure() -> agentkit::exposure             how to express visibility in requests
//   m.on_prose_answer() / m.dead_end_nudge() -> std::optional<std::string>
//                                                   a nudge when the model answers with prose
//                                                   (the menu's ROOT dead end); the session appends
//                                                   it as a user message and keeps going
//   m.on_tool_error(name, error) -> std::optional<std::string>
//                                                   extra retry guidance after a failed call
#pragma once

#include <agentkit/format/artifact_reader.hpp>
#include <agentkit/core/json.hpp>
#include <agentkit/core/result.hpp>
#include <agentkit/core/tokens.hpp>
#include <agentkit/format/artifacts.hpp>
#include <agentkit/format/formatter.hpp>
#include <agentkit/format/report.hpp>
#include <agentkit/session/context.hpp>
#include <agentkit/session/events.hpp>
#include <agentkit/session/message.hpp>
#include <agentkit/session/metrics.hpp>
#include <agentkit/session/model.hpp>
#include <agentkit/session/options.hpp>
#include <agentkit/session/provider.hpp>
#include <agentkit/session/request.hpp>
#include <agentkit/session/saved.hpp>
#include <agentkit/session/workers.hpp>
#include <agentkit/tools/context.hpp>
#include <agentkit/tools/output.hpp>
#include <agentkit/tools/tool.hpp>
#include <agentkit/visibility/masked_call.hpp>
#include <agentkit/visibility/masker.hpp>
#include <agentkit/core/strings.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstddef>
#include <functional>
#include <future>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <stop_token>
#include <string>
#include <string_view>
#include <system_error>
#include <thread>
#include <tuple>
#include <utility>
#include <vector>

namespace agentkit {


/// The object a host holds: the history, requests built for a provider, tool calls run through the masker and formatter, and the model loop.
/// Thread safety: one thread at a time drives a conversation (run, request, accept, speculate,
/// add_user, save, restore); cancel() from any thread; the serve_* members concurrently, not
/// during run(). Sessions share only what the host gives them (docs/session.md, "What is thread-safe").
template <class Toolbox, masker Masker = all_visible, result_formatter Formatter = compact_formatter>
class agent_session {
public:
    /// `artifacts`: where cut text and stored images go; empty = an in-memory store owned by the session.
    explicit agent_session(Toolbox tools, Masker m = Masker{}, Formatter f = Formatter{}, session_options o = {},
                           artifact_sink_ref artifacts = {})
        : tools_(std::move(tools)), masker_(std::move(m)), formatter_(std::move(f)), opts_(std::move(o)) {
        if (!artifacts) {
            own_store_ = std::make_unique<memory_artifacts>();
            artifacts = *own_store_;
        }
        if (opts_.session_id.empty()) opts_.session_id = detail::make_session_id();
        report_ = std::make_unique<detail::session_reporter>(opts_.on_event, opts_.session_id);
        sink_ = std::make_unique<detail::recording_sink>(artifacts, *report_);
        masker_.bind(tools_.infos());
        for (auto& t : masker_.meta_tools()) {
            meta_names_.insert(t.name);
            catalogue_.push_back(std::move(t));
        }
        for (const auto& t : tools_.infos()) catalogue_.push_back(t);
        const bool has_complete = std::any_of(catalogue_.begin(), catalogue_.end(),
                                              [&](const tool_info& t) { return t.name == opts_.complete_tool; });
        builtin_complete_ = opts_.builtin_complete && !has_complete;
        if (builtin_complete_) catalogue_.push_back(detail::complete_tool_info(opts_.complete_tool));
        for (const std::string_view name : {std::string_view(opts_.artifact_tool), default_artifact_reader_name,
                                            std::string_view("browser_artifact")})
            if (!name.empty() && std::any_of(catalogue_.begin(), catalogue_.end(), [&](const tool_info& t) { return t.name == name; })) {
                reader_tool_ = std::string(name);
                break;
            }
    }

    agent_session(const agent_session&) = delete;
    agent_session& operator=(const agent_session&) = delete;
    ~agent_session() { discard_speculation(false); }  // no events: the observer may be gone

    // ---- history -------------------------------------------------------------------------
    /// Add a user message (the task, a follow-up).
    void add_user(std::string text) {
        if (!history_.empty() && history_.back().role == role::user) {
            auto& last = history_.back();
            if (!last.text.empty()) last.text += "\n\n";
            last.text += text;
        } else {
            history_.push_back(message::user(std::move(text)));
        }
        done_ = false;
    }
    /// Every message so far (user, assistant, tool results), in order; requests send a prepared copy.
    [[nodiscard]] const std::vector<message>& history() const noexcept { return history_; }

    // ---- requests ------------------------------------------------------------------------
    /// The tool catalogue as sent: meta-tools, host tools, then the built-in complete tool.
    [[nodiscard]] const std::vector<tool_info>& catalogue() const noexcept { return catalogue_; }

    /// Names callable now.
    [[nodiscard]] std::vector<std::string> visible() const {
        std::vector<std::string> v = masker_.visible();
        if (builtin_complete_) v.push_back(opts_.complete_tool);
        return v;
    }

    /// The exposure strategy in force for provider `p` (the session option, else the masker's
    /// preference, else the cache-stable one: the whole catalogue every turn), mapped to what
    /// the provider supports (Anthropic deferred_loading, OpenAI allowed_tools; an
    /// OpenAI-compatible server gets the catalogue and a state message naming what is callable).
    [[nodiscard]] agentkit::exposure exposure_for(provider p) const {
        agentkit::exposure e = agentkit::exposure::allowed_tools;
        if (opts_.exposure) e = *opts_.exposure;
        else if constexpr (masker_with_exposure<Masker>) e = masker_.exposure();
        if (e == agentkit::exposure::visible_only) return e;
        if (p == provider::anthropic) return agentkit::exposure::deferred_loading;
        return agentkit::exposure::allowed_tools;
    }

    /// The stable system prompt: the host's part and the masker's section.
    [[nodiscard]] std::string system_prompt() const {
        std::string s = opts_.system_prompt;
        if (builtin_complete_) {
            if (!s.empty()) s += '\n';
            s += "- When the task is done, call " + opts_.complete_tool + " with the final answer.";
        }
        std::string section = masker_.prompt_section();
        if (!section.empty()) {
            if (!s.empty()) s += "\n\n";
            s += section;
        }
        return s;
    }

    /// Build the next request for provider `p`.
    [[nodiscard]] json request(provider p) {
        request_spec s;
        s.model = opts_.model;
        s.max_tokens = opts_.max_tokens;
        s.system = system_prompt();
        s.tools = catalogue_;
        s.visible = visible();
        s.exposure = exposure_for(p);
        if (s.exposure == agentkit::exposure::deferred_loading) {
            if (!deferred_frozen_) {
                // Frozen at the first request so the tools prefix stays byte-identical.
                for (const auto& t : catalogue_)
                    if (!detail::contains_name(s.visible, t.name)) deferred_.push_back(t.name);
                deferred_frozen_ = true;
            }
            s.deferred = deferred_;
        }
        s.state_message = masker_.state_message();
        s.cache = opts_.cache;
        s.cache_key = opts_.cache_key.empty() ? opts_.session_id : opts_.cache_key;
        s.parallel_tool_calls = opts_.parallel_tool_calls;
        s.openai_compat = opts_.openai_compat;
        s.export_opts = opts_.export_opts;
        s.extra = opts_.extra;
        const auto prepared = prepare_context(history_, opts_.context, opts_.tokens, &context_stats_);
        return build_request(p, s, prepared);
    }

    /// What context preparation did for the last request built (tokens before and after, results cut).
    [[nodiscard]] const context_stats& last_context_stats() const noexcept { return context_stats_; }

    // ---- speculative execution -----------------------------------------------------------
    /// A streaming host hands over a tool call as soon as its block is complete. A read-only,
    /// visible host tool starts at once (unless an earlier call of the same response could
    /// change what it sees); its result is used when accept() receives a response containing
    /// the same call (id, name and arguments) and discarded otherwise. Returns true if started.
    bool speculate(const tool_call& c) {
        if (!opts_.speculative || spec_blocked_) return false;
        const auto idx = tools_.find(c.name);
        const bool ok = !c.malformed && idx && masker_.is_visible(c.name) && meta_names_.count(c.name) == 0 &&
                        tools_.infos()[*idx].traits.is_read_only();
        if (!ok) {
            spec_blocked_ = true;  // later calls of this response may depend on this one
            return false;
        }
        auto entry = std::make_unique<spec_entry>();
        entry->call = c;
        entry->event_id = report_->on() ? next_event_id() : 0;
        tool_context ctx = make_ctx(c.id, entry->event_id);
        try {
            entry->result = std::async(std::launch::async, [this, i = *idx, args = c.arguments, ctx]() mutable {
                const auto t0 = std::chrono::steady_clock::now();
                auto r = tools_.call_at(i, args, ctx);
                return spec_done{std::move(r), detail::ms_since(t0)};
            });
        } catch (const std::system_error&) {
            return false;  // not started: nothing reported
        }
        report_->tool_started(c.name, c.id, 0, json{{"speculative", true}}, entry->event_id);
        std::lock_guard lock(spec_mu_);
        speculative_.push_back(std::move(entry));
        return true;
    }

    /// The same, from a provider's streamed block: an Anthropic tool_use content block, a Chat
    /// Completions tool_calls[] entry, or a Responses function_call item.
    bool speculate(provider p, const json& block) {
        tool_call c;
        switch (p) {
            case provider::anthropic:
                c.id = detail::str_field(block, "id");
                c.name = detail::str_field(block, "name");
                if (const json* in = detail::field(block, "input"); in && in->is_object()) c.arguments = *in;
                else c.malformed = error(errc::args_malformed, "input is not an object");
                break;
            case provider::openai_chat:
                c.id = detail::str_field(block, "id");
                c.name = detail::str_field(detail::obj_field(block, "function"), "name");
                detail::parse_arguments(c, detail::field(detail::obj_field(block, "function"), "arguments"));
                break;
            case provider::openai_responses:
                c.id = detail::str_field(block, "call_id");
                c.name = detail::str_field(block, "name");
                detail::parse_arguments(c, detail::field(block, "arguments"));
                break;
        }
        if (c.id.empty() || c.name.empty()) {
            spec_blocked_ = true;
            return false;
        }
        return speculate(c);
    }

    // ---- responses -----------------------------------------------------------------------
    /// Accept a provider response: record it, run its tool calls (meta-tools through the masker,
    /// hidden tools answered by the masker, parallel-safe calls concurrently, the rest in order),
    /// append the results, and say whether the model is done. A body that cannot be read is an
    /// error and leaves the history unchanged.
    [[nodiscard]] result<turn_outcome> accept(provider p, const json& body, double model_ms = 0,
                                              std::size_t round_trips = 1) {
        auto parsed = parse_response(p, body);
        const double answer_ms = std::exchange(attempt_ms_, -1.0);
        report_->model_response(std::exchange(model_event_, 0), opts_.model, p, round_trips, answer_ms >= 0 ? answer_ms : model_ms,
                                parsed ? &parsed->usage : nullptr, parsed ? nullptr : &parsed.error());
        if (!parsed) {
            discard_speculation();
            return fail(std::move(parsed).error());
        }
        model_turn& turn = *parsed;
        turn_metrics tm;
        tm.turn = metrics_.turns.size() + 1;
        tm.provider = p;
        tm.usage = turn.usage;
        tm.model_ms = model_ms;
        tm.round_trips = round_trips;

        message a = message::assistant(turn.text, turn.calls);
        a.origin = p;
        a.raw = turn.raw;
        history_.push_back(std::move(a));

        turn_outcome out;
        out.truncated = turn.truncated;
        out.calls = turn.calls.size();
        if (turn.calls.empty()) {
            discard_speculation();
            if constexpr (masker_with_prose_hook<Masker> || masker_with_dead_end_nudge<Masker>) {
                if (nudges_ < opts_.max_nudges) {
                    std::optional<std::string> nudge;
                    try {
                        if constexpr (masker_with_prose_hook<Masker>) nudge = masker_.on_prose_answer();
                        else nudge = masker_.dead_end_nudge();
                    } catch (...) {
                        nudge.reset();
                    }
                    if (nudge && !nudge->empty()) {
                        ++nudges_;
                        ++metrics_.nudges;
                        history_.push_back(message::user(std::move(*nudge)));
                        out.nudged = true;
                        finish_turn(tm);
                        return out;
                    }
                }
            }
            out.done = true;
            out.final_text = turn.text;
            done_ = true;
            final_text_ = turn.text;
            answered_ = !turn.text.empty();
            finish_turn(tm);
            return out;
        }

        const auto t0 = std::chrono::steady_clock::now();
        std::vector<tool_result> results(turn.calls.size());
        std::vector<tool_metric> mets(turn.calls.size());
        bool completed = false;
        run_calls(turn.calls, results, mets, tm, completed);
        tm.tools_ms = detail::ms_since(t0);

        message u;
        u.role = role::user;
        u.results = std::move(results);
        for (const auto& r : u.results) {
            if (r.output.is_error) ++out.errors;
            for (const auto& b : r.output.content)
                if (b.type == content_block::kind::artifact) sink_->note(b.artifact);
        }
        history_.push_back(std::move(u));
        for (auto& m : mets) tm.tools.push_back(std::move(m));
        metrics_.malformed_calls += static_cast<std::size_t>(
            std::count_if(turn.calls.begin(), turn.calls.end(), [](const tool_call& c) { return c.malformed.has_value(); }));
        if (completed) {
            out.done = true;
            out.completed = true;
            out.final_text = final_text_;
            done_ = true;
        }
        finish_turn(tm);
        return out;
    }

    // ---- the loop ------------------------------------------------------------------------
    /// Run the loop until the model is done or a limit is hit.
    template <model Model>
    run_result run(Model& m, std::string task, const run_limits& limits = {}) {
        provider p = opts_.provider;
        if constexpr (provider_aware_model<Model>) p = m.provider();
        if (!task.empty()) add_user(std::move(task));
        const auto start = std::chrono::steady_clock::now();
        const auto deadline = limits.max_time.count() > 0 ? start + limits.max_time
                                                          : std::chrono::steady_clock::time_point::max();
        run_deadline_ = deadline;
        run_result rr;
        report_->run_started(opts_.model);
        auto stop = [&](stop_reason why) {
            rr.reason = why;
            last_stop_ = why;
            run_deadline_ = std::chrono::steady_clock::time_point::max();
            report_->run_ended(opts_.model, detail::ms_since(start), to_string(why), rr.steps, rr.error ? &*rr.error : nullptr);
            return rr;
        };
        for (;;) {
            if (stop_.stop_requested()) return stop(stop_reason::cancelled);
            if (limits.max_steps > 0 && rr.steps >= limits.max_steps) return stop(stop_reason::step_limit);
            const usage& total = metrics_.usage;
            if (limits.max_tokens > 0 && total.input_tokens + total.output_tokens >= limits.max_tokens)
                return stop(stop_reason::token_limit);
            if (std::chrono::steady_clock::now() >= deadline) return stop(stop_reason::time_limit);

            const json req = request(p);
            std::size_t attempts = 0;
            double model_ms = 0;
            std::optional<result<turn_outcome>> outcome;
            for (;;) {
                ++attempts;
                const auto t0 = std::chrono::steady_clock::now();
                result<json> body = fail(errc::internal, "the model raised an exception");
                told_ = 0;
                model_event_ = report_->model_request(opts_.model, p, attempts);
                try {
                    body = call_model(m, p, req);
                } catch (...) {
                }
                model_ms += detail::ms_since(t0);
                error e;
                if (body) {
                    attempt_ms_ = detail::ms_since(t0);
                    auto o = accept(p, *body, model_ms, attempts);
                    if (o) {
                        outcome = std::move(o);
                        break;
                    }
                    e = std::move(o).error();
                } else {
                    e = std::move(body).error();
                    report_->model_response(std::exchange(model_event_, 0), opts_.model, p, attempts, detail::ms_since(t0), nullptr, &e);
                    discard_speculation();  // calls a failed (streamed) attempt started
                }
                if (told_ > 0) {  // what the host was shown of this attempt is void
                    stream_delta discard;
                    discard.what = stream_delta::kind::discard;
                    tell_delta(discard);
                    told_ = 0;
                }
                const bool retry = (is_retryable(e) || e.is(errc::provider_malformed)) && attempts <= limits.max_retries;
                if (!retry || stop_.stop_requested()) {
                    last_error_ = e;
                    rr.error = std::move(e);
                    return stop(stop_.stop_requested() ? stop_reason::cancelled : stop_reason::model_error);
                }
                std::chrono::milliseconds pause = limits.retry_backoff * (1L << std::min<std::size_t>(attempts - 1, 10));
                if (e.details.is_object() && e.details.contains("retry_after_s") && e.details["retry_after_s"].is_number())
                    pause = std::chrono::milliseconds(static_cast<long long>(e.details["retry_after_s"].get<double>() * 1000.0));
                pause = std::min<std::chrono::milliseconds>(pause, limits.max_backoff);
                if (std::chrono::steady_clock::now() + pause >= deadline) {
                    last_error_ = e;
                    rr.error = std::move(e);
                    return stop(stop_reason::time_limit);
                }
                report_->retry(attempts, e, static_cast<long long>(pause.count()));
                if (pause.count() > 0) std::this_thread::sleep_for(pause);
            }
            ++rr.steps;
            const turn_outcome& o = **outcome;
            if (o.done) {
                rr.final_text = o.final_text;
                return stop(o.completed ? stop_reason::completed : stop_reason::answered);
            }
        }
    }

    /// Ask a running loop and its tools to stop (tools see it through tool_context::stop); a
    /// `cancellable_model`'s request in flight is cancelled too.
    void cancel() noexcept { stop_.request_stop(); }

    // ---- serving (MCP) --------------------------------------------------------------------
    /// The tools a client may call now, for serving the session outside the model loop (an MCP
    /// server): the masker's meta-tools, then the visible host tools, in catalogue order. The
    /// built-in complete tool is a model-loop device and is not served.
    [[nodiscard]] std::vector<tool_info> served_tools() const {
        std::lock_guard lock(serve_mu_);
        std::vector<tool_info> out;
        for (const auto& t : catalogue_) {
            if (builtin_complete_ && t.name == opts_.complete_tool) continue;
            if (meta_names_.count(t.name) != 0 || masker_.is_visible(t.name)) out.push_back(t);
        }
        return out;
    }

    /// Run one call from a client the way a model's call runs: meta-tools answered by the
    /// masker, hidden and unknown tools answered with guidance, the result formatted (budgets,
    /// cut text into the session's artifact store) and observed by the masker. Safe to call
    /// from several threads: the tool itself runs outside the session's lock. Never throws.
    [[nodiscard]] result<tool_output> serve_call(std::string_view name, const json& args, tool_context& ctx) {
        if (!report_->on()) return serve_one(name, args, ctx);
        const std::uint64_t parent = ctx.parent_event;  // the MCP server's request, when it observes too
        const auto t0 = std::chrono::steady_clock::now();
        const std::uint64_t id = report_->tool_started(name, ctx.call_id, parent);
        ctx.parent_event = id;
        serve_changes changes;  // what this call changed, seen under the lock that changed it
        std::size_t tokens = 0;
        result<tool_output> r = serve_one(name, args, ctx, &changes, &tokens);
        ctx.parent_event = parent;
        std::optional<error> failed;
        if (!r) failed = r.error();
        else if (r->is_error) failed = error(errc::tool_failed, collapse_whitespace(clip_ellipsis(r->joined_text(), 200)));
        report_->tool_ended(id, parent, name, ctx.call_id, detail::ms_since(t0), failed ? &*failed : nullptr, tokens);
        for (auto& [before, after] : changes) report_->masker_changed(std::move(before), std::move(after), parent);
        return r;
    }

    /// Whether a served tool may run together with other parallel-safe calls.
    [[nodiscard]] bool serve_parallel_safe(std::string_view name) const {
        auto i = tools_.find(name);
        return i && tools_.infos()[*i].traits.is_parallel_safe();
    }

    /// Changes whenever the served tool set changes (the masker's version).
    [[nodiscard]] std::uint64_t serve_version() const {
        std::lock_guard lock(serve_mu_);
        if constexpr (requires { masker_.version(); }) return static_cast<std::uint64_t>(masker_.version());
        else return 0;
    }

    // ---- saving (session/saved.hpp) --------------------------------------------------------
    /// The conversation as JSON, to restore() in this or another process: history, masker state,
    /// artifact references (with their contents when the session's own store holds them and
    /// `artifact_contents`), metrics and the session's own state. Not while run() runs.
    [[nodiscard]] json save(bool artifact_contents = true) const {
        std::lock_guard lock(serve_mu_);
        detail::session_record r{opts_.session_id, detail::catalogue_digest(catalogue_), history_, json(), sink_->refs(), {}, metrics_,
                                 done_, completed_, answered_, final_text_, summary_, nudges_, failures_, deferred_,
                                 deferred_frozen_, referenced_, last_tool_error_, last_stop_, last_error_};
        if constexpr (masker_with_state<Masker>) r.masker = masker_.save_state();
        if (own_store_ && artifact_contents)
            for (const auto& a : r.artifacts)  // the own store's only (another store's ids may be alike)
                if (a.uri == own_store_->options().uri_prefix + a.id)
                    if (auto blob = own_store_->get(a.id)) r.contents.emplace(a.id, std::move(*blob));
        return detail::record_to_json(r);
    }

    /// Take the conversation save() wrote (a session of the same tools and masker kind): the
    /// next request is the one the saved session would have built. Refused with `args.invalid`
    /// naming the problem, the session unchanged: another format or version, tools missing,
    /// added or changed, a masker that cannot take the saved state, a malformed part. What the
    /// session held before (its conversation, its own store's artifacts, a cancel()) is replaced.
    [[nodiscard]] result<void> restore(const json& saved) {
        std::lock_guard lock(serve_mu_);
        auto rec = detail::record_from_json(saved, detail::catalogue_digest(catalogue_));
        if (!rec) return fail(std::move(rec).error());
        detail::session_record& r = *rec;
        std::size_t content_bytes = 0;
        for (const auto& [id, blob] : r.contents) content_bytes += blob.data.size();
        if (own_store_ && content_bytes > own_store_->options().max_bytes)
            return fail(detail::saved_error("artifacts", "hold " + std::to_string(content_bytes) + " bytes, more than this session's store takes (" +
                                                             std::to_string(own_store_->options().max_bytes) + ")"));
        if constexpr (masker_with_state<Masker>) {
            if (!r.masker.is_null())
                if (auto ok = masker_.restore_state(r.masker); !ok) return ok;  // the last check: it changes the masker
        } else if (!r.masker.is_null()) {
            return fail(detail::saved_error("masker", "holds a masker's state, and this session's masker keeps none (another masker kind?)"));
        }
        discard_speculation(false);
        stop_ = std::stop_source{};  // a cancel() of the conversation replaced
        opts_.session_id = std::move(r.session_id);
        report_->rename(opts_.session_id);
        history_ = std::move(r.history);
        if (own_store_) own_store_->clear();
        sink_->reset(r.artifacts);
        for (const auto& a : r.artifacts)  // fits: checked above
            if (auto c = r.contents.find(a.id); own_store_ && c != r.contents.end()) (void)own_store_->put_as(a.id, std::move(c->second));
        metrics_ = std::move(r.metrics);
        std::tie(done_, completed_, answered_, final_text_, summary_, nudges_) =
            std::tie(r.done, r.completed, r.answered, r.final_text, r.summary, r.nudges);
        std::tie(failures_, deferred_, deferred_frozen_, referenced_, last_tool_error_, last_stop_, last_error_) =
            std::tie(r.failures, r.deferred, r.deferred_frozen, r.referenced, r.last_tool_error, r.last_stop, r.last_error);
        return {};
    }

    // ---- results -------------------------------------------------------------------------
    /// True once the model finished (complete tool or final answer); add_user() clears it.
    [[nodiscard]] bool done() const noexcept { return done_; }
    /// The final answer (the complete tool's result or the last prose answer); "" before one.
    [[nodiscard]] const std::string& final_text() const noexcept { return final_text_; }
    /// Every turn's metrics and their totals so far.
    [[nodiscard]] const session_metrics& metrics() const noexcept { return metrics_; }
    /// The session's id (session_options::session_id, or the one generated).
    [[nodiscard]] const std::string& session_id() const noexcept { return opts_.session_id; }
    /// The artifacts created through the session's sink or referenced by tool results, in order.
    [[nodiscard]] std::vector<artifact_ref> artifacts() const { return sink_->refs(); }
    /// The session's own store (nullptr when the host gave a sink).
    [[nodiscard]] memory_artifacts* store() noexcept { return own_store_.get(); }
    /// The session's artifact sink: forwards to the store in use and records what is put.
    [[nodiscard]] artifact_sink_ref sink() noexcept { return *sink_; }
    /// The masker (mutable).
    [[nodiscard]] Masker& get_masker() noexcept { return masker_; }
    /// The toolbox.
    [[nodiscard]] const Toolbox& tools() const noexcept { return tools_; }
    /// The options, mutable (those that shape the catalogue are read once, by the constructor).
    [[nodiscard]] session_options& options() noexcept { return opts_; }

    /// The Result / Summary / Artifacts report of what happened so far.
    [[nodiscard]] report make_report() const {
        report r;
        r.session_id = opts_.session_id;
        r.answered = done_ && answered_;
        r.result = final_text_;
        if (!r.answered) {
            if (last_stop_) r.no_answer_reason = "stopped: " + std::string(to_string(*last_stop_));
            if (last_error_) r.no_answer_reason += (r.no_answer_reason.empty() ? "" : " — ") + last_error_->to_text();
        }
        for (const auto& b : summary_) r.summary.push_back(b);
        const auto& m = metrics_;
        std::string how = done_ ? (completed_ ? "completed" : "answered") : "not finished";
        if (last_stop_ && !done_) how = "stopped by " + std::string(to_string(*last_stop_));
        r.summary.push_back(how + " after " + count_noun(m.turns.size(), "model turn") + " (" + count_noun(m.round_trips, "round trip") + ")");
        std::size_t parallel = 0;
        std::size_t spec = 0;
        for (const auto& t : m.turns)
            for (const auto& x : t.tools) {
                parallel += x.parallel ? 1 : 0;
                spec += x.speculative ? 1 : 0;
            }
        std::string calls = count_noun(m.tool_calls, "tool call") + ", " +
                            std::to_string(m.tool_errors) + " failed";
        if (parallel) calls += ", " + std::to_string(parallel) + " in parallel";
        if (spec) calls += ", " + std::to_string(spec) + " speculative";
        r.summary.push_back(calls);
        if (!last_tool_error_.empty()) r.summary.push_back("last tool error: " + last_tool_error_);
        char buf[48];
        std::snprintf(buf, sizeof buf, "%.1f%%", m.usage.hit_rate() * 100.0);
        r.summary.push_back("tokens: " + group_digits(m.usage.input_tokens) + " in (cache hit " + buf + "), " +
                            group_digits(m.usage.output_tokens) + " out");
        r.artifacts = sink_->refs();
        r.artifact_tool = reader_tool_;
        return r;
    }

private:
    struct spec_done {
        result<tool_output> out;
        double ms = 0;
    };
    struct spec_entry {
        tool_call call;
        std::future<spec_done> result;
        std::uint64_t event_id = 0;  ///< its tool_started event
    };
    enum class call_kind { malformed, complete, meta, hidden, host, speculative };

    /// serve_call's work: the masker's answer, or the tool run outside the lock and formatted.
    /// With `changes` (observed): the visible sets before and after each step that may change
    /// them, and the result's tokens, taken under the lock of that step.
    using serve_changes = std::vector<std::pair<std::vector<std::string>, std::vector<std::string>>>;
    [[nodiscard]] result<tool_output> serve_one(std::string_view name, const json& args, tool_context& ctx,
                                                serve_changes* changes = nullptr, std::size_t* tokens = nullptr) {
        tool_call c;
        c.name = std::string(name);
        c.arguments = args;
        c.id = ctx.call_id;
        std::optional<std::size_t> idx;
        const auto done = [&](tool_output o) {  // serve_mu_ held
            if (tokens != nullptr) *tokens = opts_.tokens.count(o.joined_text());
            return o;
        };
        {
            std::lock_guard lock(serve_mu_);
            std::vector<std::string> before = changes != nullptr ? masker_.visible() : std::vector<std::string>{};
            masked_route route = route_call(c);
            if (changes != nullptr) changes->emplace_back(std::move(before), masker_.visible());
            if (route.answer) return done(finish_output(c, std::move(*route.answer), false, nullptr));
            idx = route.index;
        }
        result<tool_output> r = tools_.call_at(*idx, c.arguments, ctx);
        std::lock_guard lock(serve_mu_);
        std::vector<std::string> before = changes != nullptr ? masker_.visible() : std::vector<std::string>{};
        masked_observe(masker_, c.name, c.arguments, r);
        if (changes != nullptr) changes->emplace_back(std::move(before), masker_.visible());
        tool_output o = finish_output(c, std::move(r), true, &tools_.infos()[*idx]);
        for (const auto& b : o.content)
            if (b.type == content_block::kind::artifact) sink_->note(b.artifact);
        return done(std::move(o));
    }

    /// One model call of run(): a `streaming_model` gets a callback that starts each read-only
    /// call as soon as the stream completes it (speculate); cancel() cancels a
    /// `cancellable_model`'s call in flight.
    template <class Model>
    [[nodiscard]] result<json> call_model(Model& m, provider p, const json& req) {
        auto call = [&]() -> result<json> {
            if constexpr (streaming_model<Model>) {
                std::function<void(const json&)> on_tool_call;
                if (opts_.speculative)
                    on_tool_call = [this, p](const json& block) {
                        try {
                            (void)speculate(p, block);
                        } catch (...) {
                        }
                    };
                if constexpr (delta_streaming_model<Model>) {
                    if (opts_.on_delta) {
                        // counted: run() tells a discard when this attempt is retried or fails
                        const stream_delta_fn on_delta = [this](const stream_delta& d) {
                            told_ = d.what == stream_delta::kind::discard ? 0 : told_ + 1;
                            tell_delta(d);
                        };
                        if (!on_tool_call) on_tool_call = [](const json&) {};  // a model may call it unchecked
                        return m.complete(req, on_tool_call, on_delta);
                    }
                }
                if (on_tool_call) return m.complete(req, on_tool_call);
            }
            return m.complete(req);
        };
        if constexpr (cancellable_model<Model>) {
            std::stop_callback on_cancel(stop_.get_token(), [&m]() noexcept { m.cancel(); });
            return call();
        } else {
            return call();
        }
    }

    // Pieces of the current attempt the host was told (session_options::on_delta), not yet discarded.
    std::size_t told_ = 0;
    // run()'s model request being answered (its observer event) and how long that attempt took.
    std::uint64_t model_event_ = 0;
    double attempt_ms_ = -1.0;
    void tell_delta(const stream_delta& d) const {
        try {
            opts_.on_delta(d);
        } catch (...) {
        }
    }

    [[nodiscard]] tool_context make_ctx(std::string call_id, std::uint64_t event_id = 0) const {
        tool_context ctx;
        ctx.stop = stop_.get_token();
        ctx.call_id = std::move(call_id);
        ctx.parent_event = event_id;
        ctx.deadline = run_deadline_;
        if (opts_.tool_timeout.count() > 0)
            ctx.deadline = std::min(ctx.deadline, std::chrono::steady_clock::now() + opts_.tool_timeout);
        return ctx;
    }

    void finish_turn(turn_metrics& tm) {
        metrics_.add(tm);
        if (opts_.on_turn) {
            try {
                opts_.on_turn(tm);
            } catch (...) {
            }
        }
    }

    void discard_speculation(bool report = true) {
        std::vector<std::unique_ptr<spec_entry>> left;
        {
            std::lock_guard lock(spec_mu_);
            left.swap(speculative_);
        }
        for (auto& e : left) {
            if (!e->result.valid()) continue;
            e->result.wait();  // read-only work; joined, never leaked
            if (report && report_->on()) {
                try {
                    spec_done d = e->result.get();
                    report_->tool_ended(e->event_id, 0, e->call.name, e->call.id, d.ms, d.out ? nullptr : &d.out.error(), 0,
                                        json{{"speculative", true}, {"discarded", true}});
                } catch (...) {
                }
            }
        }
        spec_blocked_ = false;
    }

    std::unique_ptr<spec_entry> take_speculation(const tool_call& c) {
        std::lock_guard lock(spec_mu_);
        for (auto it = speculative_.begin(); it != speculative_.end(); ++it) {
            const auto& s = (*it)->call;
            if (s.id == c.id && s.name == c.name && s.arguments == c.arguments) {
                auto e = std::move(*it);
                speculative_.erase(it);
                return e;
            }
        }
        return nullptr;
    }

    /// A meta-tool call, answered by the masker (a masker that declines it: its hidden answer).
    /// Where a call goes: the masker's answer (meta-tools, hidden and unknown tools) or a host
    /// tool (the one rule, visibility/masked_call.hpp).
    masked_route route_call(const tool_call& c) {
        return masked_call(masker_, tools_, [this](std::string_view n) { return meta_names_.count(n) != 0; }, c.name,
                           c.arguments);
    }

    /// Turn a raw outcome into what the model sees: errors become error results with guidance;
    /// everything passes through the formatter.
    tool_output finish_output(const tool_call& c, result<tool_output> r, bool host, const tool_info* info) {
        tool_output o;
        if (r) {
            o = std::move(*r);
        } else {
            const error& e = r.error();
            o = tool_output::from_error(e);
            last_tool_error_ = e.to_text();
            if (host) {
                const std::string key = c.name + "\x1f" + c.arguments.dump();
                const std::size_t n = ++failures_[key];
                if (n >= 2)
                    o.add_text("Retry guidance: this exact call has failed " + std::to_string(n) +
                               " times; change the arguments or use a different tool.");
                if constexpr (masker_with_error_hook<Masker>) {
                    try {
                        if (auto extra = masker_.on_tool_error(c.name, e); extra && !extra->empty()) o.add_text(*extra);
                    } catch (...) {
                    }
                }
            }
        }
        if (o.is_error && r) last_tool_error_ = o.joined_text().substr(0, 200);
        format_context fc;
        fc.tool = c.name;
        fc.info = info;
        fc.artifacts = *sink_;
        fc.reader_tool = reader_tool_;
        try {
            return formatter_.format(std::move(o), fc);
        } catch (...) {
            return tool_output::from_error(error(errc::internal, "the result formatter raised an exception"));
        }
    }

    void run_calls(const std::vector<tool_call>& calls, std::vector<tool_result>& results, std::vector<tool_metric>& mets,
                   turn_metrics& tm, bool& completed) {
        std::vector<std::size_t> batch;  // indices of parallel-safe host calls waiting to run
        std::vector<std::optional<result<tool_output>>> raw(calls.size());
        std::vector<std::optional<std::size_t>> tool_index(calls.size());
        std::vector<std::uint64_t> events(calls.size());  // each call's tool_started (observer)
        const std::vector<std::string> visible_before = report_->on() ? masker_.visible() : std::vector<std::string>{};

        auto flush = [&] {
            if (batch.empty()) return;
            const bool parallel = batch.size() > 1;
            detail::run_bounded(batch.size(), parallel ? opts_.max_parallel : 1, [&](std::size_t k) {
                const std::size_t i = batch[k];
                tool_context ctx = make_ctx(calls[i].id, events[i]);
                const auto t0 = std::chrono::steady_clock::now();
                raw[i] = tools_.call_at(*tool_index[i], calls[i].arguments, ctx);
                mets[i].ms = detail::ms_since(t0);
                mets[i].parallel = parallel;
            });
            batch.clear();
        };

        for (std::size_t i = 0; i < calls.size(); ++i) {
            const tool_call& c = calls[i];
            mets[i].name = c.name;
            results[i].call_id = c.id;
            results[i].name = c.name;
            // a host call may take its speculative run (reported when it started); any other call
            // is reported here, and a speculation it leaves is discarded below
            const auto started = [&] { events[i] = report_->tool_started(c.name, c.id, 0); };
            if (c.malformed) {
                started();
                raw[i] = fail(*c.malformed);
            } else if (builtin_complete_ && c.name == opts_.complete_tool) {
                started();
                take_completion(c.arguments, completed);
                raw[i] = tool_output::text("Task marked complete.");
            } else if (meta_names_.count(c.name) != 0) {
                started();
                flush();
                const auto t0 = std::chrono::steady_clock::now();
                raw[i] = std::move(*route_call(c).answer);
                mets[i].ms = detail::ms_since(t0);
                mets[i].meta = true;
                if (raw[i]->has_value()) add_tool_references(**raw[i]);
                // The masker's own complete tool (the menu's) finishes the run like the built-in one.
                if (c.name == opts_.complete_tool && raw[i]->has_value() && !(*raw[i])->is_error)
                    take_completion(c.arguments, completed);
            } else if (masked_route route = route_call(c); route.answer) {
                started();
                raw[i] = std::move(*route.answer);
            } else {
                const auto idx = route.index;
                tool_index[i] = idx;
                std::unique_ptr<spec_entry> spec = take_speculation(c);
                if (spec) events[i] = spec->event_id;
                else started();
                if (spec) {
                    spec_done d = spec->result.get();
                    raw[i] = std::move(d.out);
                    mets[i].ms = d.ms;
                    mets[i].speculative = true;
                    ++tm.speculative_used;
                } else if (tools_.infos()[*idx].traits.is_parallel_safe() && opts_.max_parallel > 1) {
                    batch.push_back(i);
                } else {
                    flush();
                    tool_context ctx = make_ctx(c.id, events[i]);
                    const auto t0 = std::chrono::steady_clock::now();
                    raw[i] = tools_.call_at(*idx, c.arguments, ctx);
                    mets[i].ms = detail::ms_since(t0);
                }
            }
        }
        flush();
        {
            std::lock_guard lock(spec_mu_);
            tm.speculative_discarded = speculative_.size();
        }
        discard_speculation();

        // Format, observe and measure in call order, on this thread.
        for (std::size_t i = 0; i < calls.size(); ++i) {
            const tool_call& c = calls[i];
            const bool host = tool_index[i].has_value();
            const tool_info* info = host ? &tools_.infos()[*tool_index[i]] : nullptr;
            result<tool_output> r = raw[i] ? std::move(*raw[i]) : result<tool_output>(fail(errc::internal, "call did not run"));
            if (host) masked_observe(masker_, c.name, c.arguments, r);
            std::optional<error> failed;
            if (!r) failed = r.error();
            results[i].output = finish_output(c, std::move(r), host, info);
            const std::string text = results[i].output.joined_text();
            mets[i].ok = !results[i].output.is_error;
            mets[i].result_chars = text.size();
            mets[i].result_tokens = opts_.tokens.count(text);
            if (!failed && results[i].output.is_error) failed = error(errc::tool_failed, collapse_whitespace(clip_ellipsis(text, 200)));
            report_->tool_ended(events[i], 0, c.name, c.id, mets[i].ms, failed ? &*failed : nullptr, mets[i].result_tokens,
                                mets[i].speculative ? json{{"speculative", true}} : json(nullptr));
        }
        if (report_->on()) report_->masker_changed(visible_before, masker_.visible(), 0);
    }

    /// A call of the complete tool: the final answer is `result` (else a string `summary`, the
    /// menu's spelling); a `summary` array becomes the report's bullets.
    void take_completion(const json& args, bool& completed) {
        completed = true;
        completed_ = true;
        answered_ = true;
        const json* res = detail::field(args, "result");
        const json* sm = detail::field(args, "summary");
        if (res && res->is_string())
            final_text_ = res->get<std::string>();
        else if (res && !res->is_null())
            final_text_ = res->dump();
        else if (sm && sm->is_string())
            final_text_ = sm->get<std::string>();
        if (sm && sm->is_array())
            for (const auto& b : *sm)
                if (b.is_string()) summary_.push_back(b.get<std::string>());
    }

    /// Anthropic full-catalogue: a tool deferred in the request becomes callable when the model
    /// sees a tool_reference for it. Add the references a meta-tool's result did not include.
    void add_tool_references(tool_output& o) {
        if (deferred_.empty()) return;
        std::set<std::string> present;
        for (const auto& b : o.content)
            if (b.type == content_block::kind::tool_reference) present.insert(b.text);
        for (const auto& name : deferred_) {
            if (referenced_.count(name) != 0 || !masker_.is_visible(name)) continue;
            if (present.count(name) == 0) o.content.push_back(content_block::make_tool_reference(name));
            referenced_.insert(name);
        }
    }

    Toolbox tools_;
    Masker masker_;
    Formatter formatter_;
    session_options opts_;
    std::unique_ptr<memory_artifacts> own_store_;
    std::unique_ptr<detail::session_reporter> report_;  ///< session_options::on_event's events
    std::unique_ptr<detail::recording_sink> sink_;
    mutable std::mutex serve_mu_;  ///< serve_* calls: masker, formatter and failure counts
    std::vector<tool_info> catalogue_;
    std::set<std::string, std::less<>> meta_names_;
    std::string reader_tool_;  ///< the toolbox's artifact-reading tool ("" = none)
    bool builtin_complete_ = false;
    std::vector<std::string> deferred_;
    bool deferred_frozen_ = false;
    std::set<std::string> referenced_;
    std::vector<message> history_;
    session_metrics metrics_;
    context_stats context_stats_;
    std::map<std::string, std::size_t> failures_;
    std::size_t nudges_ = 0;
    bool done_ = false;
    bool completed_ = false;
    bool answered_ = false;
    std::string final_text_;
    std::vector<std::string> summary_;
    std::string last_tool_error_;
    std::optional<stop_reason> last_stop_;
    std::optional<error> last_error_;
    std::stop_source stop_;
    std::chrono::steady_clock::time_point run_deadline_ = std::chrono::steady_clock::time_point::max();
    std::mutex spec_mu_;
    std::vector<std::unique_ptr<spec_entry>> speculative_;
    bool spec_blocked_ = false;
};

template <class Toolbox>
agent_session(Toolbox) -> agent_session<Toolbox>;
template <class Toolbox, class Masker>
agent_session(Toolbox, Masker) -> agent_session<Toolbox, Masker>;
template <class Toolbox, class Masker, class Formatter, class... Rest>
agent_session(Toolbox, Masker, Formatter, Rest...) -> agent_session<Toolbox, Masker, Formatter>;

}  // namespace agentkit
