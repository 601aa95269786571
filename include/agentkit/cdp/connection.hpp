// agentkit/cdp/connection.hpp — a CDP connection over any transport: request ids,
// per-request timeouts, results as result<json>, event subscriptions, flattened sessions,
// and a clean end when the browser dies.
//
// Threading contract
// ------------------
// A connection runs exactly two threads:
//  * the reader — the only thread that calls transport.receive(). It parses each message,
//    completes the future of a synchronous or future-based call directly, and queues
//    everything else (events, callbacks of call_async) for the dispatcher. It never runs
//    user code, so no handler can stall responses.
//  * the dispatcher — runs event handlers and call_async callbacks one at a time, in the
//    order the messages arrived, and fails calls whose deadline passed.
// Consequences for handlers and callbacks:
//  * they may call anything on the connection, including the blocking call(): its response
//    is completed by the reader, not by the dispatcher they occupy. (The typical case:
//    on Target.attachedToTarget, enable domains and Runtime.runIfWaitingForDebugger.)
//  * while one runs, later events wait; keep them short, or hand long work elsewhere.
//  * they must not throw; if one does, the exception is swallowed and reported to
//    connection_options::on_handler_exception.
//  * a blocking call() may return before the dispatcher has delivered events that arrived
//    before its response. Subscribe (or create an event_waiter) before issuing the call
//    whose events you want, then wait on it.
//  * subscription::unsubscribe() (and its destructor) guarantees the handler is not running
//    and will not run again once it returns (except when called from that handler itself).
//  * do not destroy the connection from a handler or callback (close() from one is safe).
// When the transport ends (browser killed, socket lost), every pending call fails at once
// with the transport's error (errc::browser_crashed with the exit status, or
// errc::transport_closed), and later calls fail immediately with the same error.
//
// Example:
//   auto t = agentkit::cdp::pipe_transport::launch({});
//   agentkit::cdp::connection conn{std::move(*t)};
//   auto target = conn.call("Target.createTarget", {{"url", "about:blank"}});
//   auto sid = conn.attach_to_target((*target)["targetId"].get<std::string>());
//   agentkit::cdp::session page{conn, *sid};
//   auto loaded = page.expect("Page.loadEventFired");
//   page.call("Page.enable");
//   page.call("Page.navigate", {{"url", "http://127.0.0.1:8080/"}});
//   loaded.wait(std::chrono::seconds(10));
#pragma once

#include <agentkit/cdp/transport.hpp>
#include <agentkit/core/json.hpp>
#include <agentkit/core/result.hpp>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <exception>
#include <functional>
#include <future>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <variant>
#include <vector>

/// The Chrome DevTools Protocol: transports (pipe, WebSocket, replay), connections, sessions, browser launch.
namespace agentkit::cdp {

/// A CDP event.
struct event {
    std::string method;      ///< the event's method ("Page.loadEventFired")
    json params = json::object();  ///< its parameters
    std::string session_id;  ///< empty for the browser (root) session
};

/// Receives a subscribed event (on the connection's dispatcher thread).
using event_handler = std::function<void(const event&)>;
/// Receives the result of a call_async() (on the dispatcher thread).
using call_callback = std::function<void(result<json>)>;

/// Options of a connection.
struct connection_options {
    /// Timeout of calls that do not give one.
    std::chrono::milliseconds default_timeout{30000};
    /// Told when an event handler or a callback throws (the exception is swallowed).
    std::function<void(std::string_view what)> on_handler_exception;
    /// Counts every command sent (a CDP round trip); shared so that a host can sum it over
    /// connections (e.g. across browser relaunches). Optional.
    std::shared_ptr<std::atomic<std::uint64_t>> sent_counter;
    /// Told of every call once it is sent (method, session id; "" = the browser session), on
    /// the thread that made the call (which may be the dispatcher). For tracing and tests: it
    /// must not call into the connection. Exceptions are reported and swallowed.
    std::function<void(std::string_view method, std::string_view session_id)> on_call_sent;
    /// Told of every call once it is answered, failed or timed out (method, session id, the
    /// milliseconds since it was made, the failure or nullptr), on the thread that completes it
    /// (the reader, the dispatcher, or the caller's). It must be quick and must not call into the
    /// connection. Exceptions are reported and swallowed.
    std::function<void(std::string_view method, std::string_view session_id, double ms, const error* failure)> on_call_done;
    /// Told once when the transport ends by itself (the browser exited, the endpoint dropped the
    /// connection), not after close(): why, on the reader thread, after every pending call has
    /// failed. It must be quick and must not call into the connection. Exceptions are reported
    /// and swallowed.
    std::function<void(const error& why)> on_closed;
    /// A console or log event (Runtime.consoleAPICalled, Runtime.exceptionThrown, Log.entryAdded)
    /// larger than this is not parsed: it is delivered as a summary with the first 2,000 bytes
    /// of its first string and its size. A page logging megabytes in a loop would otherwise
    /// keep the reader parsing gigabytes while every call waits behind it.
    std::size_t max_log_event_bytes = std::size_t{256} << 10U;
};

namespace detail {

/// The summary of an oversized console or log event (see connection_options::max_log_event_bytes),
/// read by scanning, not parsing: its method and session, the console type, and the start of its
/// first string value. Nothing when `text` is not one of those events.
inline std::optional<json> summarize_log_event(std::string_view text) {
    static constexpr std::string_view kinds[] = {"Runtime.consoleAPICalled", "Runtime.exceptionThrown", "Log.entryAdded"};
    constexpr std::string_view lead = "{\"method\":\"";
    if (text.substr(0, lead.size()) != lead) return std::nullopt;
    std::string_view method;
    for (auto k : kinds)
        if (text.substr(lead.size(), k.size() + 1) == std::string(k) + "\"") method = k;
    if (method.empty()) return std::nullopt;
    auto string_after = [&](std::string_view key, std::size_t from, std::size_t max) -> std::optional<std::string> {
        const auto at = text.find(key, from);
        if (at == std::string_view::npos) return std::nullopt;
        std::size_t i = at + key.size(), end = i;
        while (end < text.size() && text[end] != '"' && end - i < max) {
            std::size_t step = 1;
            if (text[end] == '\\') step = end + 1 < text.size() && text[end + 1] == 'u' ? 6 : 2;  // an escape stays whole
            end += step;
        }
        end = std::min(end, text.size());
        // Built by append: g++ 12 at -O3 reports a false -Wrestrict for "\"" + std::string(...).
        std::string quoted;
        quoted.reserve(end - i + 2);
        quoted.push_back('"');
        quoted.append(text.substr(i, end - i));
        quoted.push_back('"');
        auto v = json::parse(quoted, nullptr, false);
        if (!v.is_string()) return std::string();
        return v.get<std::string>();
    };
    json ev = {{"method", std::string(method)}};
    if (const auto sid = text.rfind("\"sessionId\":\""); sid != std::string_view::npos && sid + 13 < text.size()) {
        const auto e = text.find('"', sid + 13);
        if (e != std::string_view::npos && e - sid < 200) ev["sessionId"] = std::string(text.substr(sid + 13, e - sid - 13));
    }
    const std::string start = string_after("\"value\":\"", 0, 2000).value_or(string_after("\"text\":\"", 0, 2000).value_or(""));
    const std::string note = start + "… (an event of " + std::to_string(text.size()) + " bytes, cut before reading)";
    if (method == "Runtime.consoleAPICalled") {
        const std::string type = string_after("\"type\":\"", 0, 40).value_or("log");
        ev["params"] = {{"type", type}, {"args", json::array({json{{"type", "string"}, {"value", note}}})},
                        {"agentkit_oversized", text.size()}};
    } else if (method == "Runtime.exceptionThrown") {
        ev["params"] = {{"exceptionDetails", {{"text", note}}}};
    } else {
        ev["params"] = {{"entry", {{"level", "info"}, {"text", note}}}};
    }
    return ev;
}

using conn_clock = std::chrono::steady_clock;

struct pending_call {
    std::string method;
    std::string session_id;
    conn_clock::time_point deadline;
    std::chrono::milliseconds timeout{0};
    std::variant<std::promise<result<json>>, call_callback> done;
};

struct subscriber {
    std::uint64_t id = 0;
    std::string method;                     // empty: every event
    std::optional<std::string> session_id;  // nullopt: any session
    event_handler handler;
    bool active = true;  // guarded by connection_state::mu
};

struct waiter_state {
    std::mutex mu;
    std::condition_variable cv;
    std::optional<event> got;
    std::optional<error> failure;
    std::function<bool(const event&)> predicate;
};

struct connection_state {
    any_transport transport;
    connection_options options;

    mutable std::mutex mu;  // everything below except the threads
    std::condition_variable cv;       // dispatcher wake-up
    std::condition_variable idle_cv;  // a handler finished
    std::map<std::int64_t, pending_call> pending;
    std::set<std::pair<conn_clock::time_point, std::int64_t>> deadlines;
    std::int64_t next_id = 1;
    std::optional<error> failure;
    std::map<std::uint64_t, std::shared_ptr<subscriber>> subs;
    std::uint64_t next_sub = 1;
    std::uint64_t running_sub = 0;
    std::deque<std::function<void()>> tasks;
    std::vector<std::weak_ptr<waiter_state>> waiters;
    bool stop = false;
    bool closed_told = false;  // on_closed was called (or the end was ours); guarded by mu
    std::atomic<bool> closing{false};
    std::atomic<std::uint64_t> malformed{0};
    std::atomic<std::uint64_t> received{0};  // messages read by the reader, malformed or not

    std::thread reader;
    std::thread dispatcher;
    std::thread::id reader_id;
    std::thread::id dispatcher_id;
    std::mutex close_mu;
    bool closed = false;  // guarded by close_mu

    void report_exception(std::string_view what) noexcept {
        if (!options.on_handler_exception) return;
        try {
            options.on_handler_exception(what);
        } catch (...) {  // NOLINT(bugprone-empty-catch): a reporter that throws is ignored
        }
    }

    void run_guarded(const std::function<void()>& f, std::string_view what) noexcept {
        try {
            f();
        } catch (const std::exception& e) {
            report_exception(std::string(what) + " threw: " + e.what());
        } catch (...) {
            report_exception(std::string(what) + " threw a non-standard exception");
        }
    }

    static error call_error(std::string_view method, const error& e) {
        error out = e;
        out.message = std::string(method) + ": " + e.message;
        return out;
    }

    // Tell connection_options::on_call_done that call `p` ended with `r` (a call that never
    // started, without a method, is not told).
    void report_done(const pending_call& p, const result<json>& r) {
        if (!options.on_call_done || p.method.empty()) return;
        const double ms = std::chrono::duration<double, std::milli>(conn_clock::now() - (p.deadline - p.timeout)).count();
        run_guarded([&] { options.on_call_done(p.method, p.session_id, ms, r ? nullptr : &r.error()); }, "the on_call_done observer");
    }

    // Complete one call outside `mu`. Futures are set here; callbacks go to the dispatcher
    // unless we are the dispatcher.
    void complete(pending_call&& p, result<json> r) {
        report_done(p, r);
        if (auto* prom = std::get_if<std::promise<result<json>>>(&p.done)) {
            prom->set_value(std::move(r));
            return;
        }
        auto cb = std::move(std::get<call_callback>(p.done));
        if (!cb) return;
        if (std::this_thread::get_id() == dispatcher_id) {
            run_guarded([&] { cb(std::move(r)); }, "a call_async callback");
            return;
        }
        auto task = [this, cb = std::move(cb), r = std::move(r)]() mutable {
            run_guarded([&] { cb(std::move(r)); }, "a call_async callback");
        };
        std::lock_guard lock(mu);
        tasks.emplace_back(std::move(task));
        cv.notify_all();
    }

    // Remove a pending call (mu held); nullopt when it was already completed.
    std::optional<pending_call> take_locked(std::int64_t id) {
        auto it = pending.find(id);
        if (it == pending.end()) return std::nullopt;
        pending_call p = std::move(it->second);
        pending.erase(it);
        deadlines.erase({p.deadline, id});
        return p;
    }

    static error timeout_error(const pending_call& p) {
        return error(errc::timeout,
                     p.method + ": no answer from the browser: Timeout " + std::to_string(p.timeout.count()) + "ms exceeded.",
                     "The page may be busy or blocked (a dialog, a paused debugger); retry with a longer timeout.",
                     json{{"method", p.method}, {"timeout_ms", p.timeout.count()},
                          {"session_id", p.session_id}});
    }

    // The transport ended: fail everything pending, now, with its error.
    void fail_all(const error& why) {
        std::map<std::int64_t, pending_call> taken;
        std::vector<std::shared_ptr<waiter_state>> ws;
        {
            std::lock_guard lock(mu);
            if (!failure) {
                if (closing)
                    failure = error(errc::transport_closed, "the CDP connection was closed",
                                    "The host closed this connection; open a new one to continue.");
                else
                    failure = why;
            }
            taken.swap(pending);
            deadlines.clear();
            for (auto& w : waiters)
                if (auto s = w.lock()) ws.push_back(std::move(s));
            waiters.clear();
        }
        const error f = *failure;  // immutable once set
        for (auto& [id, p] : taken) {
            const std::string method = p.method;
            complete(std::move(p), fail(call_error(method, f)));
        }
        for (auto& w : ws) {
            std::lock_guard lock(w->mu);
            if (!w->failure) w->failure = f;
            w->cv.notify_all();
        }
        bool by_itself = false;
        {
            std::lock_guard lock(mu);
            by_itself = !closing && !closed_told;
            closed_told = true;
        }
        if (by_itself && options.on_closed) {
            try {
                options.on_closed(f);
            } catch (...) {
                report_exception("on_closed");
            }
        }
    }

    // Fail the pending calls of one session (detached target, crashed renderer).
    void fail_session(const std::string& session, const error& why) {
        std::vector<pending_call> taken;
        {
            std::lock_guard lock(mu);
            for (auto it = pending.begin(); it != pending.end();) {
                if (it->second.session_id == session) {
                    deadlines.erase({it->second.deadline, it->first});
                    taken.push_back(std::move(it->second));
                    it = pending.erase(it);
                } else {
                    ++it;
                }
            }
        }
        for (auto& p : taken) {
            const std::string method = p.method;
            complete(std::move(p), fail(call_error(method, why)));
        }
    }

    void dispatch_event(const event& ev) {
        std::vector<std::shared_ptr<subscriber>> matching;
        {
            std::lock_guard lock(mu);
            for (auto& [id, s] : subs)
                if ((s->method.empty() || s->method == ev.method) && (!s->session_id || *s->session_id == ev.session_id))
                    matching.push_back(s);
        }
        for (auto& s : matching) {
            {
                std::lock_guard lock(mu);
                if (!s->active) continue;
                running_sub = s->id;
            }
            run_guarded([&] { s->handler(ev); }, "the handler of " + ev.method);
            {
                std::lock_guard lock(mu);
                running_sub = 0;
            }
            idle_cv.notify_all();
        }
    }

    void handle_message(const std::string& text) {
        received.fetch_add(1, std::memory_order_relaxed);
        json j;
        if (text.size() > options.max_log_event_bytes) {
            if (auto summary = detail::summarize_log_event(text)) j = std::move(*summary);
        }
        if (j.is_null()) j = json::parse(text, nullptr, /*allow_exceptions=*/false);
        if (!j.is_object()) {
            ++malformed;
            return;
        }
        if (auto id = j.find("id"); id != j.end()) {
            if (!id->is_number_integer()) {
                ++malformed;
                return;
            }
            std::optional<pending_call> p;
            {
                std::lock_guard lock(mu);
                p = take_locked(id->get<std::int64_t>());
            }
            if (!p) return;  // our own internal ids (< 0), or a call that already timed out
            if (auto err = j.find("error"); err != j.end()) {
                // Defensive reads: a malformed error object must not throw out of the reader.
                long long code = 0;
                std::string msg = "unknown error";
                if (err->is_object()) {
                    if (auto c = err->find("code"); c != err->end() && c->is_number_integer()) code = c->get<long long>();
                    if (auto m = err->find("message"); m != err->end() && m->is_string()) msg = m->get<std::string>();
                } else {
                    msg = err->dump(-1, ' ', false, json::error_handler_t::replace);
                }
                json details = {{"method", p->method}, {"code", code}, {"message", msg}};
                if (err->is_object() && err->contains("data")) details["data"] = (*err)["data"];
                if (!p->session_id.empty()) details["session_id"] = p->session_id;
                const std::string method = p->method;
                complete(std::move(*p),
                         fail(errc::cdp_error, method + ": " + msg + " (CDP error " + std::to_string(code) + ")",
                              "The browser refused the command; check its parameters and the target's state.",
                              std::move(details)));
            } else {
                auto r = j.find("result");
                complete(std::move(*p), r != j.end() ? std::move(*r) : json::object());
            }
            return;
        }
        auto m = j.find("method");
        if (m == j.end() || !m->is_string()) {
            ++malformed;
            return;
        }
        event ev;
        ev.method = m->get<std::string>();
        if (auto p = j.find("params"); p != j.end()) ev.params = std::move(*p);
        if (auto s = j.find("sessionId"); s != j.end() && s->is_string()) ev.session_id = s->get<std::string>();

        if (ev.method == "Target.detachedFromTarget" && ev.params.contains("sessionId") &&
            ev.params["sessionId"].is_string()) {
            const auto sid = ev.params["sessionId"].get<std::string>();
            fail_session(sid, error(errc::transport_closed, "the CDP session " + sid + " was detached (its target closed or crashed)",
                                    "Take a new snapshot or open a new tab; the old one is gone.",
                                    json{{"session_id", sid}}));
        } else if (ev.method == "Inspector.targetCrashed" && !ev.session_id.empty()) {
            fail_session(ev.session_id,
                         error(errc::browser_crashed, "the renderer of session " + ev.session_id + " crashed",
                               "Reload the page or open a new tab.", json{{"session_id", ev.session_id}}));
        }

        std::vector<std::shared_ptr<waiter_state>> ws;
        {
            std::lock_guard lock(mu);
            for (auto it = waiters.begin(); it != waiters.end();) {
                if (auto s = it->lock()) {
                    ws.push_back(std::move(s));
                    ++it;
                } else {
                    it = waiters.erase(it);
                }
            }
        }
        // Waiters are resolved by the reader (they only record the event), so a thread that
        // waits for an event is not delayed behind a slow handler. Their predicates therefore
        // run on the reader thread: keep them pure and quick.
        for (auto& w : ws) {
            std::lock_guard lock(w->mu);
            if (w->got || w->failure) continue;
            bool match = false;
            try {
                match = !w->predicate || w->predicate(ev);
            } catch (...) {
                report_exception("an event_waiter predicate threw");
            }
            if (match) {
                w->got = ev;
                w->cv.notify_all();
            }
        }

        auto task = [this, ev = std::move(ev)] { dispatch_event(ev); };
        std::lock_guard lock(mu);
        tasks.emplace_back(std::move(task));
        cv.notify_all();
    }

    void reader_loop() {
        for (;;) {
            auto m = transport.receive(std::chrono::milliseconds(60000));
            if (!m) {
                if (!is_terminal_transport_error(m.error())) continue;
                fail_all(m.error());
                return;
            }
            handle_message(*m);
        }
    }

    void dispatcher_loop() {
        std::unique_lock lock(mu);
        for (;;) {
            const auto now = conn_clock::now();
            std::vector<pending_call> expired;
            while (!deadlines.empty() && deadlines.begin()->first <= now) {
                const auto id = deadlines.begin()->second;
                if (auto p = take_locked(id)) expired.push_back(std::move(*p));
                else deadlines.erase(deadlines.begin());
            }
            if (!expired.empty()) {
                lock.unlock();
                for (auto& p : expired) {
                    auto e = timeout_error(p);
                    complete(std::move(p), fail(std::move(e)));
                }
                lock.lock();
                continue;
            }
            if (!tasks.empty()) {
                auto task = std::move(tasks.front());
                tasks.pop_front();
                lock.unlock();
                task();
                lock.lock();
                continue;
            }
            if (stop) return;
            if (deadlines.empty()) {
                cv.wait(lock);
            } else {
                const auto next = deadlines.begin()->first;  // a copy: the node may go while we wait
                cv.wait_until(lock, next);
            }
        }
    }

    // Register and send a call. Returns the id, or an error when the call never started.
    result<std::int64_t> start_call(std::string_view method, json params, std::string_view session_id,
                                    std::optional<std::chrono::milliseconds> timeout,
                                    std::variant<std::promise<result<json>>, call_callback> done,
                                    conn_clock::time_point* deadline_out = nullptr) {
        if (std::this_thread::get_id() == reader_id)
            return fail(errc::internal, "a CDP call was issued from the connection's reader thread");
        const auto t = timeout.value_or(options.default_timeout);
        std::int64_t id = 0;
        {
            std::lock_guard lock(mu);
            if (failure) return fail(call_error(method, *failure));
            id = next_id++;
            pending_call p;
            p.method = std::string(method);
            p.session_id = std::string(session_id);
            p.timeout = t;
            p.deadline = conn_clock::now() + t;
            p.done = std::move(done);
            if (deadline_out != nullptr) *deadline_out = p.deadline;
            deadlines.emplace(p.deadline, id);
            pending.emplace(id, std::move(p));
            cv.notify_all();  // the dispatcher may need an earlier wake-up
        }
        json msg = json::object();
        msg["id"] = id;
        msg["method"] = method;
        msg["params"] = params.is_null() ? json::object() : std::move(params);
        if (!session_id.empty()) msg["sessionId"] = session_id;
        if (options.sent_counter) options.sent_counter->fetch_add(1, std::memory_order_relaxed);
        auto sent = transport.send(msg.dump(-1, ' ', false, json::error_handler_t::replace));
        if (!sent) {
            std::optional<pending_call> p;
            {
                std::lock_guard lock(mu);
                p = take_locked(id);
            }
            // If the reader already failed it, its completion has been delivered.
            if (p) {
                if (std::holds_alternative<call_callback>(p->done)) {
                    complete(std::move(*p), fail(call_error(method, sent.error())));
                    return id;
                }
                result<json> failed = fail(call_error(method, sent.error()));
                report_done(*p, failed);
                return fail(std::move(failed).error());
            }
        }
        if (sent && options.on_call_sent)
            run_guarded([&] { options.on_call_sent(method, session_id); }, "the on_call_sent observer");
        return id;
    }
};

}  // namespace detail

/// RAII event subscription: unsubscribes on destruction (see the threading contract).
class [[nodiscard]] subscription {
public:
    subscription() = default;
    /// Made by connection::on(): the connection's state and the handler's id.
    subscription(std::weak_ptr<detail::connection_state> st, std::uint64_t id) : st_(std::move(st)), id_(id) {}
    subscription(subscription&& o) noexcept : st_(std::move(o.st_)), id_(std::exchange(o.id_, 0)) {}
    subscription& operator=(subscription&& o) noexcept {
        if (this != &o) {
            unsubscribe();
            st_ = std::move(o.st_);
            id_ = std::exchange(o.id_, 0);
        }
        return *this;
    }
    subscription(const subscription&) = delete;
    subscription& operator=(const subscription&) = delete;
    ~subscription() { unsubscribe(); }

    /// Stop delivery. When this returns, the handler is not running (unless this is called
    /// from the handler itself) and will not be called again.
    void unsubscribe() {
        if (id_ == 0) return;
        const auto id = std::exchange(id_, 0);
        auto st = st_.lock();
        st_.reset();
        if (!st) return;
        std::unique_lock lock(st->mu);
        if (auto it = st->subs.find(id); it != st->subs.end()) {
            it->second->active = false;
            st->subs.erase(it);
        }
        if (std::this_thread::get_id() != st->dispatcher_id)
            st->idle_cv.wait(lock, [&] { return st->running_sub != id; });
    }

    /// Keep the handler for the connection's lifetime; this object no longer owns it.
    void release() noexcept {
        id_ = 0;
        st_.reset();
    }

    /// True while this object owns a live handler.
    [[nodiscard]] bool active() const noexcept { return id_ != 0; }
    /// The handler's id (0 when not active).
    [[nodiscard]] std::uint64_t id() const noexcept { return id_; }

private:
    std::weak_ptr<detail::connection_state> st_;
    std::uint64_t id_ = 0;
};

/// Waits for one event that was subscribed to before the action that causes it.
/// Created by connection::expect(); the subscription is live from creation.
class [[nodiscard]] event_waiter {
public:
    event_waiter() = default;
    /// Made by connection::expect().
    explicit event_waiter(std::shared_ptr<detail::waiter_state> s, std::string what)
        : s_(std::move(s)), what_(std::move(what)) {}

    /// The first matching event since creation; errc::timeout after `timeout`, or the
    /// connection's error if it ends first.
    [[nodiscard]] result<event> wait(std::chrono::milliseconds timeout) {
        if (!s_) return fail(errc::internal, "an empty event_waiter was waited on");
        std::unique_lock lock(s_->mu);
        s_->cv.wait_for(lock, timeout, [&] { return s_->got.has_value() || s_->failure.has_value(); });
        if (s_->got) return *s_->got;
        if (s_->failure) return fail(*s_->failure);
        return fail(errc::timeout, "no " + what_ + " event within " + std::to_string(timeout.count()) + " ms",
                    "The expected page activity did not happen; check the page state.");
    }

    /// True once the event arrived (does not block).
    [[nodiscard]] bool ready() const {
        if (!s_) return false;
        std::lock_guard lock(s_->mu);
        return s_->got.has_value();
    }

private:
    std::shared_ptr<detail::waiter_state> s_;
    std::string what_;
};

class session;

/// A CDP connection. Non-copyable, movable. Destruction closes the transport (for a
/// launched browser: Browser.close, then signals) and joins both threads.
class connection {
public:
    /// Start the reader and dispatcher threads on this transport.
    explicit connection(any_transport transport, connection_options options = {})
        : st_(std::make_shared<detail::connection_state>()) {
        st_->transport = std::move(transport);
        st_->options = std::move(options);
        auto* s = st_.get();
        // The threads share ownership of the state, so a handler that closes the
        // connection can never leave them with a dangling pointer.
        st_->dispatcher = std::thread([keep = st_, s] { s->dispatcher_loop(); });
        {
            std::lock_guard lock(st_->mu);
            st_->dispatcher_id = st_->dispatcher.get_id();
        }
        st_->reader = std::thread([keep = st_, s] { s->reader_loop(); });
        std::lock_guard lock(st_->mu);
        st_->reader_id = st_->reader.get_id();
    }

    connection(connection&&) noexcept = default;
    connection& operator=(connection&& o) noexcept {
        if (this != &o) {
            close();
            st_ = std::move(o.st_);
        }
        return *this;
    }
    connection(const connection&) = delete;
    connection& operator=(const connection&) = delete;
    ~connection() { close(); }

    /// Call a CDP method and wait for its result (bounded by `timeout`, default from the
    /// options). CDP errors are errc::cdp_error with {method, code, message, data} details.
    [[nodiscard]] result<json> call(std::string_view method, json params = json::object(),
                                    std::string_view session_id = {},
                                    std::optional<std::chrono::milliseconds> timeout = std::nullopt) {
        if (!st_) return fail(errc::transport_closed, method_str(method) + ": moved-from connection");
        std::promise<result<json>> prom;
        auto fut = prom.get_future();
        detail::conn_clock::time_point deadline{};
        auto id = st_->start_call(method, std::move(params), session_id, timeout, std::move(prom), &deadline);
        if (!id) return fail(id.error());
        if (fut.wait_until(deadline) != std::future_status::ready) {
            std::optional<detail::pending_call> p;
            {
                std::lock_guard lock(st_->mu);
                p = st_->take_locked(*id);
            }
            if (p) {
                result<json> late = fail(detail::connection_state::timeout_error(*p));
                st_->report_done(*p, late);
                return late;
            }
        }
        return fut.get();
    }

    /// Call without blocking; the future is completed by the reader thread (or with
    /// errc::timeout by the dispatcher at the deadline).
    [[nodiscard]] std::future<result<json>> call_async(std::string_view method, json params = json::object(),
                                                       std::string_view session_id = {},
                                                       std::optional<std::chrono::milliseconds> timeout = std::nullopt) {
        std::promise<result<json>> prom;
        auto fut = prom.get_future();
        if (!st_) {
            prom.set_value(fail(errc::transport_closed, method_str(method) + ": moved-from connection"));
            return fut;
        }
        auto id = st_->start_call(method, std::move(params), session_id, timeout, std::move(prom));
        if (!id) {
            std::promise<result<json>> failed;
            auto f2 = failed.get_future();
            failed.set_value(fail(id.error()));
            return f2;
        }
        return fut;
    }

    /// Call without blocking; `callback` runs on the dispatcher thread with the result.
    void call_async(std::string_view method, json params, std::string_view session_id, call_callback callback,
                    std::optional<std::chrono::milliseconds> timeout = std::nullopt) {
        if (!st_) {
            if (callback) callback(fail(errc::transport_closed, method_str(method) + ": moved-from connection"));
            return;
        }
        auto shared_cb = std::make_shared<call_callback>(std::move(callback));
        auto id = st_->start_call(method, std::move(params), session_id, timeout,
                                  call_callback([shared_cb](result<json> r) {
                                      if (*shared_cb) (*shared_cb)(std::move(r));
                                  }));
        if (!id) {  // never started: report through the dispatcher like any completion
            detail::pending_call p;
            p.done = call_callback([shared_cb](result<json> r) {
                if (*shared_cb) (*shared_cb)(std::move(r));
            });
            st_->complete(std::move(p), fail(id.error()));
        }
    }

    /// Subscribe to an event (`method` empty or "*" = every event), optionally only from one
    /// session ("" = the browser session). Handlers run on the dispatcher thread.
    [[nodiscard]] subscription on(std::string_view method, event_handler handler,
                                  std::optional<std::string> session_id = std::nullopt) {
        if (!st_) return {};
        auto s = std::make_shared<detail::subscriber>();
        s->method = method == "*" ? std::string() : std::string(method);
        s->session_id = std::move(session_id);
        s->handler = std::move(handler);
        std::lock_guard lock(st_->mu);
        s->id = st_->next_sub++;
        st_->subs.emplace(s->id, s);
        return subscription(st_, s->id);
    }

    /// Start waiting for an event now; collect it later with event_waiter::wait().
    [[nodiscard]] event_waiter expect(std::string method, std::optional<std::string> session_id = std::nullopt,
                                      std::function<bool(const event&)> predicate = {}) {
        auto w = std::make_shared<detail::waiter_state>();
        const std::string what = method;
        w->predicate = [method = std::move(method), session_id = std::move(session_id),
                        pred = std::move(predicate)](const event& ev) {
            if (ev.method != method) return false;
            if (session_id && *session_id != ev.session_id) return false;
            return !pred || pred(ev);
        };
        if (!st_) {
            w->failure = error(errc::transport_closed, "moved-from connection");
            return event_waiter(std::move(w), what);
        }
        std::lock_guard lock(st_->mu);
        if (st_->failure) w->failure = *st_->failure;
        else st_->waiters.push_back(w);
        return event_waiter(std::move(w), what);
    }

    /// Target.attachToTarget with flatten:true; returns the new sessionId.
    [[nodiscard]] result<std::string> attach_to_target(std::string_view target_id,
                                                       std::optional<std::chrono::milliseconds> timeout = std::nullopt) {
        auto r = call("Target.attachToTarget", json{{"targetId", target_id}, {"flatten", true}}, {}, timeout);
        if (!r) return fail(r.error());
        if (!r->contains("sessionId") || !(*r)["sessionId"].is_string())
            return fail(errc::protocol_error, "Target.attachToTarget returned no sessionId");
        return (*r)["sessionId"].get<std::string>();
    }

    /// Target.setAutoAttach {autoAttach, waitForDebuggerOnStart, flatten:true} on the browser
    /// session or on `session_id`. New targets then announce themselves with
    /// Target.attachedToTarget carrying their sessionId; when waiting for the debugger, resume
    /// them with Runtime.runIfWaitingForDebugger on that session.
    [[nodiscard]] result<void> set_auto_attach(bool auto_attach, bool wait_for_debugger_on_start,
                                               std::string_view session_id = {},
                                               std::optional<std::chrono::milliseconds> timeout = std::nullopt) {
        auto r = call("Target.setAutoAttach",
                      json{{"autoAttach", auto_attach}, {"waitForDebuggerOnStart", wait_for_debugger_on_start},
                           {"flatten", true}},
                      session_id, timeout);
        if (!r) return fail(r.error());
        return {};
    }

    /// Target.detachFromTarget for a flattened session.
    [[nodiscard]] result<void> detach_from_target(std::string_view session_id,
                                                  std::optional<std::chrono::milliseconds> timeout = std::nullopt) {
        auto r = call("Target.detachFromTarget", json{{"sessionId", session_id}}, {}, timeout);
        if (!r) return fail(r.error());
        return {};
    }

    /// A handle for calls on one flattened session.
    [[nodiscard]] session session_for(std::string session_id);

    /// False once the transport ended or the connection was closed.
    [[nodiscard]] bool is_open() const {
        if (!st_) return false;
        std::lock_guard lock(st_->mu);
        return !st_->failure.has_value();
    }

    /// Why the connection ended (nullopt while open).
    [[nodiscard]] std::optional<error> failure() const {
        if (!st_) return error(errc::transport_closed, "moved-from connection");
        std::lock_guard lock(st_->mu);
        return st_->failure;
    }

    /// Wait (bounded) until the dispatcher has run the handlers and callbacks of every message
    /// received so far. A blocking call() may return before the events that arrived ahead of
    /// its answer were dispatched; after sync_events() the state those handlers keep reflects
    /// everything the browser sent before that answer. True when done (at once when called
    /// from the dispatcher itself); false on timeout or when the connection has ended.
    bool sync_events(std::chrono::milliseconds timeout = std::chrono::milliseconds(2000)) {
        if (!st_) return false;
        auto* st = st_.get();
        if (std::this_thread::get_id() == st->dispatcher_id) return true;
        struct flag {
            std::mutex mu;
            std::condition_variable cv;
            bool done = false;
        };
        auto f = std::make_shared<flag>();
        {
            std::lock_guard lock(st->mu);
            if (st->failure || st->stop) return false;
            st->tasks.emplace_back([f] {
                std::lock_guard l(f->mu);
                f->done = true;
                f->cv.notify_all();
            });
            st->cv.notify_all();
        }
        std::unique_lock l(f->mu);
        return f->cv.wait_for(l, timeout, [&] { return f->done; });
    }

    /// Calls awaiting an answer.
    [[nodiscard]] std::size_t pending_count() const {
        if (!st_) return 0;
        std::lock_guard lock(st_->mu);
        return st_->pending.size();
    }

    /// Messages from the browser that were not valid CDP (ignored).
    [[nodiscard]] std::uint64_t malformed_messages() const { return st_ ? st_->malformed.load() : 0; }
    /// Messages read from the transport so far (answers and events, malformed ones too): a
    /// caller waiting behind a flood of events can tell a busy connection from a silent one.
    [[nodiscard]] std::uint64_t received_messages() const { return st_ ? st_->received.load(std::memory_order_relaxed) : 0; }

    /// The transport, when it is a T (e.g. pipe_transport for pid()); null otherwise.
    /// Only const-safe members may be used: the reader thread owns receive().
    template <class T>
    [[nodiscard]] T* transport_as() noexcept {
        return st_ ? st_->transport.template target<T>() : nullptr;
    }

    /// Close the transport (stopping a launched browser), fail pending calls with
    /// errc::transport_closed, deliver queued events and callbacks, join the threads.
    /// Idempotent; safe from a handler (the dispatcher then finishes on its own).
    void close() {
        if (!st_) return;
        auto st = st_;
        std::unique_lock close_lock(st->close_mu, std::defer_lock);
        if (std::this_thread::get_id() == st->dispatcher_id) {
            if (!close_lock.try_lock()) return;  // another thread is closing and will finish
        } else {
            close_lock.lock();
        }
        if (st->closed) return;
        st->closing = true;
        st->transport.close();
        if (st->reader.joinable()) st->reader.join();  // the reader never runs user code
        {
            std::lock_guard lock(st->mu);
            st->stop = true;
            st->cv.notify_all();
        }
        if (st->dispatcher.joinable()) {
            if (std::this_thread::get_id() == st->dispatcher.get_id()) st->dispatcher.detach();
            else st->dispatcher.join();
        }
        st->closed = true;
    }

private:
    static std::string method_str(std::string_view m) { return std::string(m); }

    std::shared_ptr<detail::connection_state> st_;
};

/// Calls and subscriptions bound to one flattened session. A cheap view: the connection
/// must outlive it.
class session {
public:
    /// A view of the flattened session `session_id` of `conn`.
    session(connection& conn, std::string session_id) : conn_(&conn), id_(std::move(session_id)) {}

    /// The CDP sessionId.
    [[nodiscard]] const std::string& id() const noexcept { return id_; }
    /// The connection the session is on.
    [[nodiscard]] connection& conn() const noexcept { return *conn_; }

    /// connection::call() in this session.
    [[nodiscard]] result<json> call(std::string_view method, json params = json::object(),
                                    std::optional<std::chrono::milliseconds> timeout = std::nullopt) const {
        return conn_->call(method, std::move(params), id_, timeout);
    }
    /// connection::call_async() in this session.
    [[nodiscard]] std::future<result<json>> call_async(std::string_view method, json params = json::object(),
                                                       std::optional<std::chrono::milliseconds> timeout = std::nullopt) const {
        return conn_->call_async(method, std::move(params), id_, timeout);
    }
    /// connection::on() for this session's events.
    [[nodiscard]] subscription on(std::string_view method, event_handler handler) const {
        return conn_->on(method, std::move(handler), id_);
    }
    /// connection::expect() for this session's events.
    [[nodiscard]] event_waiter expect(std::string method, std::function<bool(const event&)> predicate = {}) const {
        return conn_->expect(std::move(method), id_, std::move(predicate));
    }

private:
    connection* conn_;
    std::string id_;
};

inline session connection::session_for(std::string session_id) { return session(*this, std::move(session_id)); }

}  // namespace agentkit::cdp
