// agentkit/mcp/gateway/input_relay.hpp — an upstream MCP server's requests for input, made while one of
// its tools runs for a downstream client, passed to that client and its answers back (the
// gateway's relay of elicitation/create and sampling/createMessage; gateway.hpp has one per
// server).
//
//   mcp::input_relay relay{"everything"};
//   client_options co;
//   co.on_elicitation = [&](const json& p) { return relay.answer("elicitation/create", p); };
//   co.on_sampling = [&](const json& p) { return relay.answer("sampling/createMessage", p); };
//   ...
//   // in the tool handler that calls the server for a downstream request:
//   return relay.run(ctx, [c, remote, args](tool_context& x) { return c->call_tool(remote, args, x); });
//
// Which call a request belongs to: the call running on the thread that asks (a server on the
// stateless protocol asks within the call's own exchange), or the call that started the task the
// request names (2025-11-25 tasks: `_meta` related-task; task_started() is told which call became
// which task), else the server's one call in flight. A server over stdio does not otherwise say
// which of its calls asks, so with several in flight (perhaps of different clients), or one that
// ended without its answer a moment ago, the relay does not guess: a question meant for one
// client must not reach another.
//
// How it reaches the client depends on the client's protocol:
// - handshake era (2025-11-25 and before): request_context::ask() sends the request on the
//   call's own stream and waits for the answer; when the upstream call ends meanwhile (its
//   server died, it timed out) the wait ends too, and the call returns after it.
// - stateless era (2026-07-28): the server never sends requests; the call answers
//   input_required instead. The upstream call is parked on a thread of its own and the
//   downstream call returns input_required with the server's question and a requestState naming
//   the parked call; the client's retry (with the answer) finds it, hands the answer over and
//   waits for the next question or the result. A question nobody answers within `parked_for` is
//   answered with a timeout and its call given up (cancelled at the next stateless call or at
//   stop()); so is a parked call no round came back for in that time.
//
// Answers are passed back as given (an accepted form, a refusal, a model's message). What cannot
// be passed is answered to the server with an error naming why: -32601 when the client did not
// declare the capability, -32603 when no call, several calls or a call not made over MCP run, or
// the call has ended. roots/list is not relayed: which directories a server may touch is the
// host's configuration, not each client's.
//
// The time a person or a model takes to answer does not count against the upstream call's
// timeout (client.hpp: a request waiting while the host answers the server gets that time back).
#pragma once

#include <agentkit/mcp/server/request.hpp>
#include <agentkit/core/error.hpp>
#include <agentkit/core/json.hpp>
#include <agentkit/core/random.hpp>
#include <agentkit/core/result.hpp>
#include <agentkit/mcp/server/server.hpp>
#include <agentkit/tools/context.hpp>
#include <agentkit/tools/tool.hpp>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <stop_token>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

namespace agentkit::mcp {

/// Relays one upstream server's requests for input to the downstream clients of its calls (see
/// the file comment). Thread-safe; stop() (or the destructor) ends the calls it parked.
class input_relay {
public:
    /// A relay for the server named `server` (in its errors). A question to a stateless client
    /// waits at most `parked_for` for the client's next round, and so does a parked call.
    explicit input_relay(std::string server, std::chrono::milliseconds parked_for = std::chrono::minutes(10))
        : server_(std::move(server)), parked_for_(parked_for) {}
    input_relay(const input_relay&) = delete;
    input_relay& operator=(const input_relay&) = delete;
    ~input_relay() { stop(); }

    /// Run `call` (the upstream call) for the downstream request `ctx` belongs to, passing the
    /// server's requests for input made meanwhile to its client. `call` must own what it uses:
    /// for a stateless client it runs on a thread of its own and may outlive this call.
    result<tool_output> run(tool_context& ctx, std::function<result<tool_output>(tool_context&)> call) {
        request_context* rq = request_of(ctx);
        if (rq && rq->stateless()) return run_parked(ctx, *rq, std::move(call));
        auto s = std::make_shared<slot>();
        s->rq = rq;
        enter(s);
        slot* const outer = this_threads_call();
        this_threads_call() = s.get();
        bool answered = false;  // the server answered the call (no question of it can be left)
        struct leave_guard {
            input_relay& r;
            const std::shared_ptr<slot>& s;
            slot* outer;
            const bool& answered;
            ~leave_guard() {
                this_threads_call() = outer;
                r.leave(s, answered);
                // a relay still asking the client uses this call's request: it is told the call
                // ended, and ends before the call does
                s->ended.request_stop();
                std::unique_lock lock(s->m);
                s->done = true;
                s->cv.wait(lock, [&] { return s->relaying == 0; });
            }
        } guard{*this, s, outer, answered};
        auto r = call(ctx);
        answered = r || !unanswered(r.error());
        return url_required(std::move(r), rq);
    }

    /// notifications/elicitation/complete from the server: passed to the client that was asked
    /// for that URL elicitation (by a request, or in a -32042 error), once; an id the gateway
    /// did not pass on, or passed to a client that has gone, is dropped (false).
    bool completed(const json& params) {
        if (!params.is_object() || !params.contains("elicitationId") || !params["elicitationId"].is_string()) return false;
        const std::string id = params["elicitationId"].get<std::string>();
        std::function<bool(const json&)> to;
        {
            std::lock_guard lock(mu_);
            prune_url_asks(std::chrono::steady_clock::now());
            for (const auto& a : url_asks_)
                if (a.id == id) to = a.to;
        }
        // sent without the lock (a client's stream may be slow); used up only once delivered
        if (!to || !to(json{{"jsonrpc", "2.0"}, {"method", "notifications/elicitation/complete"}, {"params", params}})) return false;
        forget_url_ask(id);
        return true;
    }

    /// The server's request `method` ("elicitation/create" or "sampling/createMessage") with
    /// `params`: the client's answer, or why there is none (client_options' callbacks).
    result<json> answer(const std::string& method, const json& params) {
        if (method != "elicitation/create" && method != "sampling/createMessage")
            return fail(errc::not_found, "the gateway does not pass " + method + " from " + server_ + " to its clients");
        const std::string what = describe(method);
        std::shared_ptr<slot> s;
        std::size_t in_flight = 0;
        const std::string task = related_task(params);
        {
            std::lock_guard lock(mu_);
            for (const auto& c : calls_)
                if (c.get() == this_threads_call() ||
                    (!task.empty() && std::find(c->tasks.begin(), c->tasks.end(), task) != c->tasks.end()))
                    s = c;
            // a request that names its task belongs to that task's call or to none: never to
            // whichever call happens to run
            if (!s && !task.empty())
                return fail(errc::internal, server_ + " sent " + what + " for its task " + task + ", whose call is not running: it was not asked");
            if (!s) {
                forget_ended_before(std::chrono::steady_clock::now() - unanswered_grace);
                in_flight = calls_.size() + recently_ended_.size();
                if (!calls_.empty()) s = calls_.back();
            }
        }
        if (!s && in_flight == 0)
            return fail(errc::internal, "the gateway passes " + server_ + "'s requests for input to the client only while one of its tools runs, and none does: " + what + " was not asked");
        if (in_flight > 1 || !s)
            return fail(errc::internal, server_ + " sent " + what + " while " + std::to_string(in_flight) +
                                            " of its calls run or have just ended without an answer, without saying which one asks; the gateway does not guess (a question meant for one client must not reach another)");
        if (s->held) return ask_parked(*s->held, method, params);
        if (!s->rq) return fail(errc::internal, what + " from " + server_ + " belongs to a call not made over MCP: there is no client to ask");
        {
            std::lock_guard lock(s->m);
            if (s->done) return fail(errc::internal, "the call of " + server_ + "'s tool that " + what + " belongs to has ended");
            ++s->relaying;
        }
        struct release {
            slot& s;
            ~release() {
                std::lock_guard lock(s.m);
                --s.relaying;
                s.cv.notify_all();
            }
        } r{*s};
        // a URL elicitation's completion may come before the client's answer does (the user
        // opens the page at once): its client is known before it is asked
        std::string url_id;
        if (method == "elicitation/create" && elicitation_mode(params) == "url" && params.contains("elicitationId") &&
            params["elicitationId"].is_string() && elicitation_mode_declared(s->rq->client_capabilities(), "url")) {
            url_id = params["elicitationId"].get<std::string>();
            remember_url_ask(url_id, s->rq->session_sender());
        }
        auto got = s->rq->ask(input_request{"relay", method, params}, s->ended.get_token());
        if (!url_id.empty() && (!got || !got->is_object() || got->value("action", "") != "accept")) forget_url_ask(url_id);
        if (!got && got.error().is(errc::tool_cancelled) && s->ended.stop_requested())
            return fail(errc::internal, "the call of " + server_ + "'s tool that " + what + " belongs to has ended");
        return from_client(std::move(got), method);
    }

    /// The call on this thread has become the server's task `task_id` (2025-11-25 tasks;
    /// client_options::on_task_started): a request of the server that names that task (its
    /// `_meta` related-task) belongs to this call, however many others run.
    void task_started(const std::string& task_id) {
        std::lock_guard lock(mu_);
        for (const auto& c : calls_)
            if (c.get() == this_threads_call()) c->tasks.push_back(task_id);
    }

    /// Cancel the parked calls and wait for them to end; no call is parked after. Idempotent.
    void stop() {
        std::map<std::string, std::shared_ptr<parked>> all;
        {
            std::lock_guard lock(mu_);
            stopped_ = true;
            all.swap(parked_);
        }
        for (auto& [token, p] : all) end_parked(*p);
    }

    /// Calls parked for a stateless client's next round (for tests and status).
    [[nodiscard]] std::size_t parked_calls() const {
        std::lock_guard lock(mu_);
        return parked_.size();
    }

private:
    /// How long a call that ended without the server's answer (timed out, cancelled, its server
    /// gone) still counts as in flight: a question of it may still be on its way.
    static constexpr std::chrono::seconds unanswered_grace{5};
    /// How long a URL elicitation's completion notice is waited for, and how many at most.
    static constexpr std::chrono::hours url_ask_life{1};
    static constexpr std::size_t max_url_asks = 1024;

    /// A URL elicitation passed to a client: where its completion notice goes.
    struct url_ask {
        std::string id;
        std::function<bool(const json&)> to;
        std::chrono::steady_clock::time_point at;
    };

    struct question {
        std::string method;
        json params;
        std::optional<result<json>> answer;  // set: closed (answered, or given up)
    };
    /// An upstream call of a stateless client, running on a thread of its own between rounds.
    /// The worker is joined by whoever takes the call out of parked_.
    struct parked {
        std::mutex m;
        std::condition_variable_any cv;
        std::stop_source stop;
        std::thread worker;
        std::deque<question> questions;  // in the order asked (references stay valid)
        std::optional<result<tool_output>> outcome;
        bool finished = false;   // the upstream call returned (outcome set, maybe taken)
        bool collected = false;  // a round took the outcome (a replayed round finds nothing)
        bool abandoned = false;  // a question waited parked_for: nobody is coming back
        int attached = 0;        // rounds waiting on it now
        std::chrono::steady_clock::time_point last_round = std::chrono::steady_clock::now();
        /// The progress callback of the round that waits now (progress between rounds is dropped).
        std::function<void(double, std::optional<double>, std::string_view)> progress;
    };
    /// One call in flight.
    struct slot {
        request_context* rq = nullptr;  // handshake era: the client's request (null: not over MCP)
        std::shared_ptr<parked> held;   // stateless era: the parked call
        std::mutex m;
        std::condition_variable cv;
        std::stop_source ended;  // the call has returned: a relay still asking stops waiting
        int relaying = 0;        // answers inside rq->ask()
        bool done = false;       // the call has returned (no new relay may start)
        std::vector<std::string> tasks;  // the server's tasks this call started (with the relay's mu_)
    };

    /// The task a request of the server says it belongs to (`_meta` related-task), or "".
    static std::string related_task(const json& params) {
        if (!params.is_object() || !params.contains("_meta") || !params["_meta"].is_object()) return {};
        const json& m = params["_meta"];
        const auto r = m.find("io.modelcontextprotocol/related-task");
        if (r == m.end() || !r->is_object() || !r->contains("taskId") || !(*r)["taskId"].is_string()) return {};
        return (*r)["taskId"].get<std::string>();
    }

    static slot*& this_threads_call() {
        thread_local slot* s = nullptr;
        return s;
    }

    /// A call that ended without the server's answer: the server may still be working on it.
    static bool unanswered(const error& e) {
        return e.is(errc::timeout) || e.is(errc::tool_timeout) || e.is(errc::cancelled) || e.is(errc::tool_cancelled) ||
               e.is(errc::transport_closed);
    }

    static std::string describe(const std::string& method) {
        return method == "elicitation/create" ? "a question for the user (elicitation/create)"
                                              : "a completion from the client's model (sampling/createMessage)";
    }

    result<json> from_client(result<json> answer, const std::string& method) const {
        if (!answer && answer.error().is(errc::client_capability_missing)) {
            const json& d = answer.error().details;
            // the capability is there but not the mode (URL mode): -32602, as a client answers
            if (d.is_object() && d.contains("requiredCapabilities") && d["requiredCapabilities"].is_object() &&
                d["requiredCapabilities"].contains("elicitation") && d["requiredCapabilities"]["elicitation"].is_object() &&
                !d["requiredCapabilities"]["elicitation"].empty()) {
                const std::string mode = d["requiredCapabilities"]["elicitation"].begin().key() == "url" ? "URL" : "form";
                return fail(errc::args_invalid, "the gateway's client did not declare " + mode + "-mode elicitation, so " + describe(method) +
                                                    " from " + server_ + " in " + mode + " mode cannot be answered");
            }
            return fail(errc::not_found, "the gateway's client did not declare the " + std::string(capability_for(method)) +
                                             " capability, so " + describe(method) + " from " + server_ + " cannot be answered");
        }
        return answer;
    }

    /// The server's -32042 (URL elicitations to complete before a retry) as
    /// errc::url_elicitation_required: the server (server.hpp) passes it on as that error to a
    /// client of 2025-11-25 that takes URL mode, and as a tool error naming the URLs to any other.
    /// The elicitations' ids are remembered for their completion notices (handshake clients).
    result<tool_output> url_required(result<tool_output> r, request_context* rq) {
        if (r || !r.error().is(errc::remote_error)) return r;
        const json& d = r.error().details;
        if (!d.is_object() || d.value("code", 0) != code::url_elicitation_required) return r;
        const json data = d.value("data", json::object());
        const json els = data.is_object() ? data.value("elicitations", json::array()) : json::array();
        if (!els.is_array() || els.empty()) return r;
        std::string urls;
        for (const auto& e : els) {
            if (!e.is_object() || !e.contains("url") || !e["url"].is_string()) continue;
            if (!urls.empty()) urls += ", ";
            urls += e["url"].get<std::string>();
            if (rq && !rq->stateless() && elicitation_mode_declared(rq->client_capabilities(), "url") && e.contains("elicitationId") &&
                e["elicitationId"].is_string())
                remember_url_ask(e["elicitationId"].get<std::string>(), rq->session_sender());
        }
        if (urls.empty()) return r;
        std::string message = d.value("message", "");
        if (message.empty()) message = "it did not say why";
        return fail(errc::url_elicitation_required, server_ + " needs the user to open " + (els.size() > 1 ? "these pages" : "a page") + " first: " + message,
                    "Ask the user to open " + urls + " in their browser and finish there, then call the tool again.",
                    json{{"server", server_}, {"elicitations", els}});
    }

    /// Remember which client a URL elicitation went to, for its completion notice (with mu_ not held).
    void remember_url_ask(std::string id, std::function<bool(const json&)> to) {
        if (!to) return;
        std::lock_guard lock(mu_);
        const auto now = std::chrono::steady_clock::now();
        prune_url_asks(now);
        url_asks_.erase(std::remove_if(url_asks_.begin(), url_asks_.end(), [&](const url_ask& a) { return a.id == id; }), url_asks_.end());
        if (url_asks_.size() >= max_url_asks) url_asks_.pop_front();
        url_asks_.push_back({std::move(id), std::move(to), now});
    }
    /// Forget a URL elicitation (with mu_ not held).
    void forget_url_ask(const std::string& id) {
        std::lock_guard lock(mu_);
        url_asks_.erase(std::remove_if(url_asks_.begin(), url_asks_.end(), [&](const url_ask& a) { return a.id == id; }), url_asks_.end());
    }
    /// Forget the URL elicitations asked longer ago than url_ask_life (with mu_ held).
    void prune_url_asks(std::chrono::steady_clock::time_point now) {
        while (!url_asks_.empty() && now - url_asks_.front().at > url_ask_life) url_asks_.pop_front();
    }

    void enter(const std::shared_ptr<slot>& s) {
        std::lock_guard lock(mu_);
        calls_.push_back(s);
    }
    void leave(const std::shared_ptr<slot>& s, bool answered) {
        std::lock_guard lock(mu_);
        calls_.erase(std::remove(calls_.begin(), calls_.end(), s), calls_.end());
        if (answered) return;
        const auto now = std::chrono::steady_clock::now();
        forget_ended_before(now - unanswered_grace);
        recently_ended_.push_back(now);
    }
    /// Drop the unanswered ends older than `t` (with mu_ held).
    void forget_ended_before(std::chrono::steady_clock::time_point t) {
        while (!recently_ended_.empty() && recently_ended_.front() < t) recently_ended_.pop_front();
    }

    // The server's question to a parked call: queued for the client's next round, answered then.
    result<json> ask_parked(parked& p, const std::string& method, const json& params) {
        std::unique_lock lock(p.m);
        if (p.finished) return fail(errc::internal, "the call of " + server_ + "'s tool that " + describe(method) + " belongs to has ended");
        p.questions.push_back({method, params, std::nullopt});
        question& q = p.questions.back();
        p.cv.notify_all();
        const auto stop = p.stop.get_token();
        p.cv.wait_for(lock, stop, parked_for_, [&] { return q.answer.has_value() || p.finished; });
        if (q.answer) return std::move(*q.answer);
        // closed unanswered: a later round does not ask it again
        if (stop.stop_requested() || p.finished)
            q.answer = fail(errc::internal, "the call of " + server_ + "'s tool that " + describe(method) + " belongs to has ended");
        else {
            q.answer = fail(errc::timeout, "the client did not come back with an answer to " + describe(method) + " from " + server_ + " in time");
            p.abandoned = true;
        }
        return *q.answer;
    }

    result<tool_output> run_parked(tool_context& ctx, request_context& rq, std::function<result<tool_output>(tool_context&)> call) {
        reap();
        std::shared_ptr<parked> p;
        std::string token;
        if (const json st = rq.saved_state(); st.is_object() && st.contains("relay") && st["relay"].is_string()) {
            token = st["relay"].get<std::string>();
            std::lock_guard lock(mu_);
            if (auto it = parked_.find(token); it != parked_.end()) p = it->second;
            if (!p)
                return fail(errc::not_found, "the call of " + server_ + "'s tool these answers belong to is gone (it waited too long for them, or the gateway restarted)",
                            "Call the tool again.");
        } else {
            token = random_hex(16);
            if (token.empty()) return fail(errc::internal, "no random source for the call's requestState: " + server_ + " was not called");
            p = std::make_shared<parked>();
            auto s = std::make_shared<slot>();
            s->held = p;
            enter(s);
            try {
                p->worker = std::thread([this, p, s, call = std::move(call), deadline = ctx.deadline] { work(*p, s, call, deadline); });
            } catch (const std::exception& e) {
                leave(s, true);
                return fail(errc::internal, "cannot start the call of " + server_ + "'s tool: " + e.what());
            }
            bool stopped = false;
            {
                std::lock_guard lock(mu_);
                stopped = stopped_;
                if (!stopped) parked_[token] = p;
            }
            if (stopped) {
                end_parked(*p);
                return fail(errc::transport_closed, "the gateway is stopping: " + server_ + " was not called");
            }
        }
        std::unique_lock lock(p->m);
        ++p->attached;
        p->last_round = std::chrono::steady_clock::now();
        p->progress = ctx.on_progress;
        auto detach = [&] {  // with p->m held
            --p->attached;
            p->last_round = std::chrono::steady_clock::now();
            p->progress = nullptr;
        };
        for (;;) {
            std::vector<std::size_t> open;
            p->cv.wait(lock, ctx.stop, [&] {
                open.clear();
                for (std::size_t i = 0; i < p->questions.size(); ++i)
                    if (!p->questions[i].answer) open.push_back(i);
                return p->outcome.has_value() || p->collected || !open.empty();
            });
            if (p->collected || (p->finished && !p->outcome)) {
                detach();
                return fail(errc::not_found, "the call of " + server_ + "'s tool these answers belong to was answered in another round",
                            "Call the tool again.");
            }
            if (p->outcome) {
                auto r = std::move(*p->outcome);
                p->outcome.reset();
                p->collected = true;
                detach();
                lock.unlock();
                if (forget(token)) end_parked(*p);
                return url_required(std::move(r), &rq);
            }
            if (ctx.stop.stop_requested()) {
                detach();
                lock.unlock();
                if (forget(token)) end_parked(*p);
                return fail(errc::tool_cancelled, "the call of " + server_ + "'s tool was cancelled");
            }
            // each open question: the answer this round carries, else it goes out in this round
            std::vector<input_request> asks;
            for (const auto i : open) asks.push_back({"q" + std::to_string(i + 1), p->questions[i].method, p->questions[i].params});
            lock.unlock();
            std::vector<std::pair<std::size_t, result<json>>> got;
            bool missing = false;
            for (std::size_t k = 0; k < asks.size(); ++k) {
                auto a = rq.ask(asks[k]);
                if (!a && a.error().is(errc::input_required)) {
                    missing = true;
                    continue;
                }
                if (!a && a.error().is(errc::protocol_error)) {
                    // a malformed answer: the server refuses this round; the call stays parked
                    // for a corrected one
                    lock.lock();
                    detach();
                    return fail(std::move(a).error());
                }
                got.emplace_back(open[k], from_client(std::move(a), asks[k].method));
            }
            lock.lock();
            for (auto& [i, a] : got) p->questions[i].answer = std::move(a);
            p->cv.notify_all();
            if (missing) {
                rq.save_state(json{{"relay", token}});
                detach();
                return fail(errc::input_required, "waiting for the client's input", "The server answers with an input_required result.");
            }
        }
    }

    // The parked call's thread: the upstream call, then its outcome for the round that waits.
    void work(parked& p, const std::shared_ptr<slot>& s, const std::function<result<tool_output>(tool_context&)>& call,
              std::chrono::steady_clock::time_point deadline) {
        tool_context inner;
        inner.stop = p.stop.get_token();
        inner.deadline = deadline;
        inner.on_progress = [&p](double done, std::optional<double> total, std::string_view message) {
            std::function<void(double, std::optional<double>, std::string_view)> to;
            {
                std::lock_guard lock(p.m);
                to = p.progress;
            }
            if (to) to(done, total, message);
        };
        this_threads_call() = s.get();
        result<tool_output> r = fail(errc::internal, "the call of " + server_ + "'s tool failed");
        try {
            r = call(inner);
        } catch (const std::exception& e) {
            r = fail(errc::internal, "the call of " + server_ + "'s tool failed: " + e.what());
        } catch (...) {
        }
        this_threads_call() = nullptr;
        leave(s, r || !unanswered(r.error()));
        std::lock_guard lock(p.m);
        p.outcome = std::move(r);
        p.finished = true;
        p.cv.notify_all();
    }

    /// Take a parked call out (true: the caller ends it).
    bool forget(const std::string& token) {
        std::lock_guard lock(mu_);
        return parked_.erase(token) > 0;
    }

    static void end_parked(parked& p) {
        p.stop.request_stop();
        {
            std::lock_guard lock(p.m);
            p.cv.notify_all();
        }
        if (p.worker.joinable()) p.worker.join();
    }

    // Parked calls given up (a question nobody answered in time) or that no round came back for
    // within parked_for, and no round waits on: cancelled.
    void reap() {
        std::vector<std::shared_ptr<parked>> ended;
        const auto now = std::chrono::steady_clock::now();
        {
            std::lock_guard lock(mu_);
            for (auto it = parked_.begin(); it != parked_.end();) {
                bool drop = false;
                {
                    std::lock_guard l2(it->second->m);
                    const parked& p = *it->second;
                    drop = p.attached == 0 && (p.abandoned || now - p.last_round > parked_for_);
                }
                if (drop) {
                    ended.push_back(it->second);
                    it = parked_.erase(it);
                } else {
                    ++it;
                }
            }
        }
        for (auto& p : ended) end_parked(*p);
    }

    std::string server_;
    std::chrono::milliseconds parked_for_;
    mutable std::mutex mu_;
    std::vector<std::shared_ptr<slot>> calls_;  // calls in flight, oldest first
    std::deque<std::chrono::steady_clock::time_point> recently_ended_;  // calls ended without an answer
    std::deque<url_ask> url_asks_;  // URL elicitations passed on, oldest first
    std::map<std::string, std::shared_ptr<parked>> parked_;  // by the token in the requestState
    bool stopped_ = false;
};

}  // namespace agentkit::mcp
