// agentkit/mcp/server/tasks.hpp — the tasks extension (io.modelcontextprotocol/tasks, for the
// 2026-07-28 revision): a tools/call that outlives its request answers with a task handle, and
// the client follows it with tasks/get, answers its questions with tasks/update and stops it
// with tasks/cancel.
//
//   agentkit::mcp::server srv{backend, {.tasks = {.promote_after = std::chrono::seconds(1)}}};
//
// Which calls become tasks: only tools/call of a tool whose task support (backend::task_support,
// by default its long_running trait) is optional or required, from a request whose per-request
// capabilities declare the extension. Such a call becomes a task when its handler asks for it
// (request_context::start_task()) or when it still runs after task_options::promote_after; a
// tool whose support is `required` is always answered with a task (a call already finished is a
// task already finished), and a client that did not declare the extension gets -32021 for it.
// Input a task's handler asks for (request_context::ask) is offered on tasks/get as
// inputRequests and answered through tasks/update; the handler waits for it. Input asked before
// the call became a task goes through input_required rounds of the call itself, as the
// extension asks (the rounds are resolved before the task exists).
//
// Task ids are 128 random bits, and a task answers only to the principal that created it (the
// transport's authenticated client, or anyone holding the id when the server has no
// authentication). A task is kept for its ttlMs from its creation, then forgotten; the store
// holds at most task_options::max_tasks (finished ones are dropped first, oldest first; when
// every kept task still runs, no new task is made and the call answers in its request).
#pragma once

#include <agentkit/core/json.hpp>
#include <agentkit/core/random.hpp>
#include <agentkit/mcp/server/request.hpp>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <ctime>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <stop_token>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace agentkit::mcp {

/// Whether a tool's calls may become tasks.
enum class task_support {
    forbidden,  ///< always answered in its request
    optional,   ///< a task when the handler asks for one or runs past promote_after
    required,   ///< always a task; a client without the extension gets -32021
};

/// The server's tasks: how long they are kept, how often clients should poll, when a long call
/// becomes one.
struct task_options {
    /// How long a task is kept from its creation (ttlMs); at least one second.
    std::chrono::milliseconds ttl{std::chrono::hours(1)};
    /// The polling interval suggested to clients (pollIntervalMs).
    std::chrono::milliseconds poll_interval{500};
    /// A call of a task-supporting tool that still runs after this becomes a task; 0: only when
    /// its handler asks (request_context::start_task).
    std::chrono::milliseconds promote_after{1000};
    /// Most tasks kept at once.
    std::size_t max_tasks = 1000;
};

namespace detail {

/// A time as ISO 8601 in UTC, to the millisecond ("2026-12-03T17:45:28.123Z").
[[nodiscard]] inline std::string iso_utc(std::chrono::system_clock::time_point t) {
    const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(t.time_since_epoch()).count();
    const std::time_t secs = static_cast<std::time_t>(ms / 1000);
    std::tm tm{};
    gmtime_r(&secs, &tm);
    char buf[40];
    const auto n = std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%S", &tm);
    std::string out(buf, n);
    const auto frac = static_cast<int>(ms % 1000);
    out += '.';
    out += static_cast<char>('0' + frac / 100);
    out += static_cast<char>('0' + (frac / 10) % 10);
    out += static_cast<char>('0' + frac % 10);
    out += 'Z';
    return out;
}

/// Where a server keeps its tasks. Thread-safe: every task is guarded by the store's one mutex
/// (tasks/get, tasks/update and the handlers' waits are short).
class task_store {
public:
    /// One task.
    struct entry {
        std::string id;
        std::string principal;
        std::string status = "working";  // working, input_required, completed, failed, cancelled
        std::string message;             // statusMessage ("" = none)
        std::chrono::system_clock::time_point created, updated;
        std::chrono::steady_clock::time_point expires;
        json result;                      // completed: the CallToolResult
        json error;                       // failed: the JSON-RPC error
        json outstanding = json::object();  // key → {method, params}, asked and not answered
        std::set<std::string> issued;       // every key ever asked (never asked twice)
        json answers = json::object();      // key → the client's answer, until the handler takes it
        std::function<void()> stop;         // asks the handler to stop
        [[nodiscard]] bool terminal() const { return status == "completed" || status == "failed" || status == "cancelled"; }
    };

    explicit task_store(task_options o = {}) : o_(o) {
        if (o_.ttl < std::chrono::seconds(1)) o_.ttl = std::chrono::seconds(1);
        if (o_.poll_interval < std::chrono::milliseconds(1)) o_.poll_interval = std::chrono::milliseconds(1);
    }

    [[nodiscard]] const task_options& options() const noexcept { return o_; }

    /// Told of each change of a task's status, with the task as tasks/get shows it (without
    /// resultType), on the thread that changed it, outside the store's lock. Set before use.
    std::function<void(const json& task)> on_status;

    /// A new working task of `principal`; nullptr when the store is full of running tasks or
    /// there is no random source for its id.
    std::shared_ptr<entry> create(std::string principal, std::function<void()> stop) {
        std::string id = agentkit::random_hex(16);
        if (id.empty()) return nullptr;
        auto e = std::make_shared<entry>();
        e->id = std::move(id);
        e->principal = std::move(principal);
        e->created = e->updated = std::chrono::system_clock::now();
        e->expires = std::chrono::steady_clock::now() + o_.ttl;
        e->stop = std::move(stop);
        expired gone;
        {
            std::lock_guard lock(mu_);
            purge_locked(gone);
            if (tasks_.size() >= std::max<std::size_t>(1, o_.max_tasks)) {
                // the oldest finished task makes room; running ones are never dropped
                auto oldest = tasks_.end();
                for (auto it = tasks_.begin(); it != tasks_.end(); ++it)
                    if (it->second->terminal() && (oldest == tasks_.end() || it->second->updated < oldest->second->updated)) oldest = it;
                if (oldest == tasks_.end()) e = nullptr;
                else tasks_.erase(oldest);
            }
            if (e) tasks_.emplace(e->id, e);
        }
        settle(gone);
        return e;
    }

    /// Forget a task that was never shown to a client.
    void erase(const entry& e) {
        std::lock_guard lock(mu_);
        tasks_.erase(e.id);
    }

    /// The task as the wire shows it (Task fields and its status's payload), without
    /// resultType.
    [[nodiscard]] json view(const entry& e) const {
        std::lock_guard lock(mu_);
        return view_locked(e);
    }

    /// tasks/get: the task of that id and principal, or nothing when there is none (never
    /// created, forgotten after its ttl, or another principal's).
    [[nodiscard]] std::optional<json> get(std::string_view id, std::string_view principal) {
        expired gone;
        std::optional<json> out;
        {
            std::lock_guard lock(mu_);
            purge_locked(gone);
            if (const auto* e = find_locked(id, principal)) out = view_locked(*e);
        }
        settle(gone);
        return out;
    }

    /// tasks/update's outcome.
    enum class update_result { accepted, unknown_task, invalid_answer };

    /// tasks/update: answers to outstanding keys are taken (all or none: one malformed answer
    /// refuses the whole update, naming it in `why`); keys not outstanding are ignored.
    update_result update(std::string_view id, std::string_view principal, const json& responses, std::string& why) {
        expired gone;
        std::unique_lock lock(mu_);
        purge_locked(gone);
        auto* e = find_locked(id, principal);
        if (e == nullptr) {
            lock.unlock();
            settle(gone);
            return update_result::unknown_task;
        }
        for (const auto& [k, v] : responses.items()) {
            if (!e->outstanding.contains(k)) continue;
            const std::string m = e->outstanding[k].value("method", std::string());
            if (!valid_input_response(m, v)) {
                why = "inputResponses[\"" + k + "\"] is not a valid result of " + m;
                lock.unlock();
                settle(gone);
                return update_result::invalid_answer;
            }
        }
        bool any = false;
        for (const auto& [k, v] : responses.items()) {
            if (!e->outstanding.contains(k)) continue;
            e->answers[k] = v;
            e->outstanding.erase(k);
            any = true;
        }
        std::optional<json> note;
        if (any) {
            if (e->outstanding.empty() && e->status == "input_required") {
                e->status = "working";
                e->message.clear();
                note = view_locked(*e);
            }
            e->updated = std::chrono::system_clock::now();
            cv_.notify_all();
        }
        lock.unlock();
        settle(gone);
        tell(note);
        return update_result::accepted;
    }

    /// tasks/cancel: a task not yet finished is cancelled at once and its handler asked to
    /// stop; a finished one stays as it is. False when there is no such task.
    bool cancel(std::string_view id, std::string_view principal) {
        std::function<void()> stop;
        std::optional<json> note;
        expired gone;
        bool found = false;
        {
            std::lock_guard lock(mu_);
            purge_locked(gone);
            auto* e = find_locked(id, principal);
            found = e != nullptr;
            if (e != nullptr && !e->terminal()) {
                e->status = "cancelled";
                e->message = "cancelled by the client";
                e->outstanding = json::object();
                e->updated = std::chrono::system_clock::now();
                stop = e->stop;
                note = view_locked(*e);
                cv_.notify_all();
            }
        }
        settle(gone);
        if (stop) stop();
        tell(note);
        return found;
    }

    /// Stop every task still running (the server is going away): each is cancelled.
    void cancel_all(std::string_view why) {
        std::vector<std::function<void()>> stops;
        std::vector<json> notes;
        {
            std::lock_guard lock(mu_);
            for (auto& [id, e] : tasks_) {
                if (e->terminal()) continue;
                e->status = "cancelled";
                e->message = std::string(why);
                e->outstanding = json::object();
                e->updated = std::chrono::system_clock::now();
                if (e->stop) stops.push_back(e->stop);
                notes.push_back(view_locked(*e));
            }
            cv_.notify_all();
        }
        for (auto& s : stops) s();
        for (auto& n : notes) tell(std::move(n));
    }

    /// The handler's answer ends the task: a JSON-RPC response message (its result: completed,
    /// its error: failed). A task already cancelled stays so.
    void finish(entry& e, const json& response) {
        std::unique_lock lock(mu_);
        if (e.terminal()) return;
        e.outstanding = json::object();
        e.updated = std::chrono::system_clock::now();
        if (response.contains("result") && response["result"].is_object() && response["result"].value("resultType", "complete") == "complete") {
            e.status = "completed";
            e.result = response["result"];  // a 2026-07-28 CallToolResult: resultType "complete" kept
            e.message.clear();
        } else {
            e.status = "failed";
            e.error = response.contains("error") && response["error"].is_object()
                          ? response["error"]
                          : json{{"code", -32603}, {"message", "the task's handler answered with neither a result nor an error"}};
            e.message = e.error.value("message", std::string("failed"));
        }
        cv_.notify_all();
        json note = view_locked(e);
        lock.unlock();
        tell(std::move(note));
    }

    /// A handler's progress, shown as the task's statusMessage while it works.
    void set_message(entry& e, std::string message) {
        std::lock_guard lock(mu_);
        if (e.terminal() || e.status == "input_required") return;
        e.message = std::move(message);
        e.updated = std::chrono::system_clock::now();
    }

    /// A handler running as a task asks for input: the keys not answered yet become the
    /// task's inputRequests (status input_required) until tasks/update answers all of them.
    /// Errors: errc::tool_cancelled (the task was cancelled or the handler told to stop),
    /// errc::timeout (the task's ttl passed), errc::internal (a key asked twice).
    result<std::map<std::string, json>> wait_for_input(entry& e, const std::vector<input_request>& rs, std::stop_token stop) {
        std::unique_lock lock(mu_);
        std::map<std::string, json> out;
        for (const auto& r : rs) {
            if (e.answers.contains(r.key)) continue;  // answered since
            if (e.issued.count(r.key) != 0 && !e.outstanding.contains(r.key))
                return fail(errc::internal, "ask: the input key '" + r.key + "' was already used in this task; every request needs a key of its own");
            e.issued.insert(r.key);
            e.outstanding[r.key] = json{{"method", r.method}, {"params", r.params}};
        }
        if (!e.outstanding.empty() && !e.terminal() && e.status != "input_required") {
            e.status = "input_required";
            e.message = "waiting for the client's input";
            e.updated = std::chrono::system_clock::now();
            json note = view_locked(e);
            lock.unlock();
            tell(std::move(note));  // answers that come meanwhile are seen by the wait below
            lock.lock();
        }
        auto answered = [&] {
            for (const auto& r : rs)
                if (!e.answers.contains(r.key)) return false;
            return true;
        };
        const bool done = cv_.wait_until(lock, stop, e.expires, [&] { return e.terminal() || answered(); });
        if (!done || e.terminal() || stop.stop_requested()) {
            // the questions are withdrawn: the task shows no request its handler no longer waits for
            std::optional<json> note;
            for (const auto& r : rs) e.outstanding.erase(r.key);
            if (!e.terminal() && e.status == "input_required" && e.outstanding.empty()) {
                e.status = "working";
                e.message.clear();
                e.updated = std::chrono::system_clock::now();
                note = view_locked(e);
            }
            const bool cancelled = e.terminal() || stop.stop_requested();
            lock.unlock();
            tell(std::move(note));
            if (cancelled) return fail(errc::tool_cancelled, "the task was cancelled while it waited for input");
            return fail(errc::timeout, "the client did not answer the task's input requests within its ttl");
        }
        for (const auto& r : rs) {
            out[r.key] = e.answers[r.key];
            e.answers.erase(r.key);
        }
        return out;
    }

    /// Tasks kept now.
    [[nodiscard]] std::size_t size() const {
        std::lock_guard lock(mu_);
        return tasks_.size();
    }

private:
    void tell(std::optional<json> note) const {
        if (note && on_status) {
            try {
                on_status(*note);
            } catch (...) {  // a listener's failure is not the task's
            }
        }
    }

    json view_locked(const entry& e) const {
        json j{{"taskId", e.id},
               {"status", e.status},
               {"createdAt", iso_utc(e.created)},
               {"lastUpdatedAt", iso_utc(e.updated)},
               {"ttlMs", std::chrono::duration_cast<std::chrono::milliseconds>(o_.ttl).count()},
               {"pollIntervalMs", std::chrono::duration_cast<std::chrono::milliseconds>(o_.poll_interval).count()}};
        if (!e.message.empty()) j["statusMessage"] = e.message;
        if (e.status == "input_required" && !e.outstanding.empty()) j["inputRequests"] = e.outstanding;
        if (e.status == "completed") j["result"] = e.result;
        if (e.status == "failed") j["error"] = e.error;
        return j;
    }

    entry* find_locked(std::string_view id, std::string_view principal) {
        auto it = tasks_.find(id);
        if (it == tasks_.end() || it->second->principal != principal) return nullptr;
        return it->second.get();
    }

    /// What forgetting expired tasks leaves to do once the lock is released: stop their
    /// handlers (a stop request runs the handler's stop callbacks, which must not find the store
    /// locked) and tell their listeners.
    struct expired {
        std::vector<std::function<void()>> stops;
        std::vector<json> notes;
    };

    /// Forget tasks past their ttl; one still running fails, and its handler is asked to stop.
    void purge_locked(expired& gone) {
        const auto now = std::chrono::steady_clock::now();
        for (auto it = tasks_.begin(); it != tasks_.end();) {
            if (it->second->expires > now) {
                ++it;
                continue;
            }
            auto& e = *it->second;
            if (!e.terminal()) {
                e.status = "failed";
                e.error = json{{"code", -32603}, {"message", "the task outlived its ttl"}};
                e.message = "the task outlived its ttl";
                e.outstanding = json::object();
                e.updated = std::chrono::system_clock::now();
                if (e.stop) gone.stops.push_back(e.stop);
                gone.notes.push_back(view_locked(e));
            }
            it = tasks_.erase(it);
        }
        cv_.notify_all();
    }

    void settle(expired& gone) const {
        for (auto& s : gone.stops) s();
        for (auto& n : gone.notes) tell(std::move(n));
    }

    task_options o_;
    mutable std::mutex mu_;
    std::condition_variable_any cv_;
    std::map<std::string, std::shared_ptr<entry>, std::less<>> tasks_;
};

}  // namespace detail
}  // namespace agentkit::mcp
