// agentkit/session/events.hpp — how an agent_session reports to session_options::on_event
// (core/observer.hpp), and the artifact sink that records (and reports) what the session stored.
// Internal to session/session.hpp.
#pragma once

#include <agentkit/core/error.hpp>
#include <agentkit/core/json.hpp>
#include <agentkit/core/observer.hpp>
#include <agentkit/core/result.hpp>
#include <agentkit/format/artifacts.hpp>
#include <agentkit/session/message.hpp>
#include <agentkit/session/provider.hpp>
#include <agentkit/tools/output.hpp>

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace agentkit::detail {

/// Builds a session's events and hands them to its observer (nothing is built without one).
/// Safe to call from several threads (the tool calls of one response run in parallel).
class session_reporter {
public:
    /// `o`: copied (session_options::on_event is read when the session is made).
    session_reporter(observer o, std::string scope) : o_(std::move(o)), scope_(std::move(scope)) {}

    [[nodiscard]] bool on() const noexcept { return static_cast<bool>(o_); }
    /// The session took another id (a restored conversation's). Not while events are reported.
    void rename(std::string scope) { scope_ = std::move(scope); }
    /// The run in progress (0 = none): the parent of what has no closer one.
    [[nodiscard]] std::uint64_t run() const noexcept { return run_.load(std::memory_order_relaxed); }

    std::uint64_t run_started(std::string_view model) {
        if (!on()) return 0;
        event e = make(event_kind::run_started, 0);
        e.name = std::string(model);
        run_.store(e.id, std::memory_order_relaxed);
        tell(e);
        return e.id;
    }
    void run_ended(std::string_view model, double ms, std::string_view reason, std::size_t steps, const error* why) {
        if (!on()) return;
        event e = make(event_kind::run_ended, 0, run());
        e.name = std::string(model);
        e.ms = ms;
        e.data = json{{"reason", std::string(reason)}, {"steps", steps}};
        failure(e, why);
        run_.store(0, std::memory_order_relaxed);
        tell(e);
    }
    std::uint64_t model_request(std::string_view model, provider p, std::size_t attempt) {
        if (!on()) return 0;
        event e = make(event_kind::model_request, run());
        e.name = std::string(model);
        e.attempt = attempt;
        e.data = json{{"provider", provider_name(p)}};
        tell(e);
        return e.id;
    }
    /// `id` 0: a response the host got itself (accept() outside run()): reported once, ending nothing seen.
    void model_response(std::uint64_t id, std::string_view model, provider p, std::size_t attempt, double ms, const usage* u,
                        const error* why) {
        if (!on()) return;
        event e = make(event_kind::model_response, run(), id);
        e.name = std::string(model);
        e.attempt = attempt;
        e.ms = ms;
        e.data = json{{"provider", provider_name(p)}};
        if (u != nullptr) {
            e.input_tokens = u->input_tokens;
            e.output_tokens = u->output_tokens;
            e.cache_read_tokens = u->cache_read_tokens;
            e.cache_write_tokens = u->cache_write_tokens;
        }
        failure(e, why);
        tell(e);
    }
    void retry(std::size_t attempt, const error& why, long long pause_ms) {
        if (!on()) return;
        event e = make(event_kind::retry, run());
        e.attempt = attempt;
        e.error_code = why.code;
        e.error_message = why.message;
        e.data = json{{"pause_ms", pause_ms}};
        tell(e);
    }
    /// `parent` 0: the run's; `id` 0: a new one.
    std::uint64_t tool_started(std::string_view name, std::string_view call_id, std::uint64_t parent, json data = nullptr,
                               std::uint64_t id = 0) {
        if (!on()) return 0;
        event e = make(event_kind::tool_started, parent != 0 ? parent : run(), id);
        e.name = std::string(name);
        e.detail = std::string(call_id);
        e.data = std::move(data);
        tell(e);
        return e.id;
    }
    void tool_ended(std::uint64_t id, std::uint64_t parent, std::string_view name, std::string_view call_id, double ms,
                    const error* why, std::size_t result_tokens, json data = nullptr) {
        if (!on() || id == 0) return;
        event e = make(event_kind::tool_ended, parent != 0 ? parent : run(), id);
        e.name = std::string(name);
        e.detail = std::string(call_id);
        e.ms = ms;
        e.result_tokens = result_tokens;
        e.data = std::move(data);
        failure(e, why);
        tell(e);
    }
    /// Reports a change of what is callable (nothing when `before` and `after` hold the same names).
    void masker_changed(std::vector<std::string> before, std::vector<std::string> after, std::uint64_t parent) {
        if (!on()) return;
        std::sort(before.begin(), before.end());
        std::sort(after.begin(), after.end());
        if (before == after) return;
        std::vector<std::string> added, removed;
        std::set_difference(after.begin(), after.end(), before.begin(), before.end(), std::back_inserter(added));
        std::set_difference(before.begin(), before.end(), after.begin(), after.end(), std::back_inserter(removed));
        event e = make(event_kind::masker_changed, parent != 0 ? parent : run());
        e.data = json{{"added", added}, {"removed", removed}, {"visible", after.size()}};
        tell(e);
    }
    void artifact_stored(const artifact_ref& r) {
        if (!on()) return;
        event e = make(event_kind::artifact_stored, run());
        e.name = r.uri.empty() ? r.id : r.uri;
        e.detail = r.mime_type;
        e.bytes = r.size;
        tell(e);
    }

    /// "anthropic" or "openai": gen_ai.provider.name's values.
    [[nodiscard]] static std::string provider_name(provider p) {
        return p == provider::anthropic ? "anthropic" : "openai";
    }

private:
    [[nodiscard]] event make(event_kind k, std::uint64_t parent, std::uint64_t id = 0) const {
        event e;
        e.kind = k;
        e.part = "session";
        e.scope = scope_;
        e.id = id != 0 ? id : next_event_id();
        e.parent = parent;
        return e;
    }
    static void failure(event& e, const error* why) {
        if (why == nullptr) return;
        e.error_code = why->code.empty() ? std::string(errc::internal) : why->code;
        e.error_message = why->message;
    }
    void tell(const event& e) const { notify(o_, e); }

    const observer o_;
    std::string scope_;
    std::atomic<std::uint64_t> run_{0};
};

/// Records the artifacts created through it (reporting each one), forwarding to the real sink.
class recording_sink {
public:
    recording_sink(artifact_sink_ref target, session_reporter& report) : target_(target), report_(report) {}
    [[nodiscard]] result<artifact_ref> put(artifact_blob b) {
        auto r = target_.put(std::move(b));
        if (r) {
            {
                std::lock_guard lock(mu_);
                refs_.push_back(*r);
            }
            report_.artifact_stored(*r);
        }
        return r;
    }
    /// Forget what was recorded and record `refs` instead (a restored conversation's).
    void reset(std::vector<artifact_ref> refs) {
        std::lock_guard lock(mu_);
        refs_ = std::move(refs);
    }
    void note(const artifact_ref& r) {
        std::lock_guard lock(mu_);
        for (const auto& x : refs_)
            if (x.id == r.id) return;
        refs_.push_back(r);
    }
    [[nodiscard]] std::vector<artifact_ref> refs() const {
        std::lock_guard lock(mu_);
        return refs_;
    }

private:
    artifact_sink_ref target_;
    session_reporter& report_;
    mutable std::mutex mu_;
    std::vector<artifact_ref> refs_;
};

}  // namespace agentkit::detail
