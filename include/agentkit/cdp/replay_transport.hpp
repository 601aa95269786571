// agentkit/cdp/replay_transport.hpp — plays back a recorded CDP transcript, for fast,
// deterministic unit tests of the layers above the connection (no browser needed).
//
// Matching: every message the client sends must equal the next recorded `send` entry in
// method, params and sessionId (the id is ignored). The recorded `recv` entries that
// followed that send (responses and events), up to the next recorded send, are then
// delivered in order; a response's id is rewritten from the recorded request id to the id
// the client actually used. Messages recorded before the first send are delivered at once.
// A recorded `close` entry replays the transport's end (e.g. a browser crash): receive()
// returns that error from then on.
//
// A mismatch makes send() fail with errc::protocol_error naming the transcript position,
// the expected and the received message, and finishes the transport (receive() reports the
// same error, so a connection fails its pending calls with it).
//
// Example:
//   auto entries = agentkit::cdp::load_transcript("tests/cdp/data/navigate.jsonl");
//   agentkit::cdp::connection conn{agentkit::cdp::replay_transport{std::move(*entries)}};
//   auto r = conn.call("Browser.getVersion");   // the recorded answer
#pragma once

#include <agentkit/cdp/transport.hpp>
#include <agentkit/core/json.hpp>
#include <agentkit/core/result.hpp>

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace agentkit::cdp {

/// Options of a replay.
struct replay_options {
    /// When true, receive() reports errc::transport_closed once the whole transcript has
    /// been delivered (useful to end a test); otherwise it times out like an idle browser.
    bool close_at_end = false;
    /// Compare sessionId too (on by default: a call on the wrong session is a real bug).
    bool match_session = true;
};

/// Plays back a transcript. Thread-safe per the transport contract; move-only.
class replay_transport {
public:
    explicit replay_transport(std::vector<transcript_entry> entries, replay_options options = {})
        : s_(std::make_shared<state>()) {
        s_->entries = std::move(entries);
        s_->options = options;
        std::lock_guard lock(s_->mu);
        s_->deliver_until_next_send();
    }

    /// Load a JSONL transcript file.
    [[nodiscard]] static result<replay_transport> from_file(const std::filesystem::path& path, replay_options options = {}) {
        auto e = load_transcript(path);
        if (!e) return fail(e.error());
        return replay_transport(std::move(*e), options);
    }

    replay_transport(replay_transport&&) noexcept = default;
    replay_transport& operator=(replay_transport&&) noexcept = default;
    replay_transport(const replay_transport&) = delete;
    replay_transport& operator=(const replay_transport&) = delete;
    ~replay_transport() = default;

    [[nodiscard]] result<void> send(std::string_view message) {
        if (!s_) return fail(errc::transport_closed, "moved-from replay_transport");
        std::lock_guard lock(s_->mu);
        return s_->on_send(message);
    }

    [[nodiscard]] result<std::string> receive(std::chrono::milliseconds timeout) {
        if (!s_) return fail(errc::transport_closed, "moved-from replay_transport");
        std::unique_lock lock(s_->mu);
        const bool ready = s_->cv.wait_for(lock, timeout, [&] {
            return !s_->outbox.empty() || s_->terminal.has_value() || s_->at_end_closed();
        });
        if (!s_->outbox.empty()) {
            std::string m = std::move(s_->outbox.front());
            s_->outbox.pop_front();
            return m;
        }
        if (s_->terminal) return fail(*s_->terminal);
        if (s_->at_end_closed()) {
            s_->terminal = error(errc::transport_closed, "the replayed transcript ended");
            return fail(*s_->terminal);
        }
        (void)ready;
        return fail(errc::timeout, "no replayed message within " + std::to_string(timeout.count()) + " ms");
    }

    void close() {
        if (!s_) return;
        std::lock_guard lock(s_->mu);
        if (!s_->terminal) s_->terminal = error(errc::transport_closed, "the replay transport was closed");
        s_->outbox.clear();
        s_->cv.notify_all();
    }

    [[nodiscard]] bool is_open() const {
        if (!s_) return false;
        std::lock_guard lock(s_->mu);
        return !s_->terminal.has_value();
    }

    /// True when every recorded send has been matched.
    [[nodiscard]] bool finished() const {
        std::lock_guard lock(s_->mu);
        return s_->next_send_index() == s_->entries.size();
    }

    /// The number of recorded sends not yet matched.
    [[nodiscard]] std::size_t remaining_sends() const {
        std::lock_guard lock(s_->mu);
        std::size_t n = 0;
        for (std::size_t i = s_->cursor; i < s_->entries.size(); ++i)
            if (s_->entries[i].dir == direction::sent) ++n;
        return n;
    }

private:
    struct state {
        std::mutex mu;
        std::condition_variable cv;
        std::vector<transcript_entry> entries;
        replay_options options;
        std::size_t cursor = 0;  // next entry not yet consumed
        std::deque<std::string> outbox;
        std::map<std::int64_t, std::int64_t> id_map;  // recorded request id -> client id
        std::optional<error> terminal;

        [[nodiscard]] std::size_t next_send_index() const {
            std::size_t i = cursor;
            while (i < entries.size() && entries[i].dir != direction::sent) ++i;
            return i;
        }

        [[nodiscard]] bool at_end_closed() const {
            return options.close_at_end && cursor >= entries.size() && outbox.empty();
        }

        // Queue received entries from the cursor up to the next send (or a close entry).
        void deliver_until_next_send() {
            while (cursor < entries.size() && entries[cursor].dir != direction::sent) {
                const auto& e = entries[cursor++];
                if (e.dir == direction::closed) {
                    auto j = json::parse(e.message, nullptr, false);
                    terminal = j.is_object() ? error::from_json(j)
                                             : error(errc::transport_closed, "the recorded transport closed");
                    cursor = entries.size();
                    break;
                }
                outbox.push_back(rewrite_id(e.message));
            }
            cv.notify_all();
        }

        std::string rewrite_id(const std::string& text) const {
            auto j = json::parse(text, nullptr, false);
            if (!j.is_object()) return text;
            auto id = j.find("id");
            if (id == j.end() || !id->is_number_integer()) return text;
            auto it = id_map.find(id->get<std::int64_t>());
            if (it == id_map.end()) return text;
            *id = it->second;
            return j.dump();
        }

        static json view(const json& m, bool with_session) {
            json v = json::object();
            v["method"] = m.value("method", json());
            v["params"] = m.contains("params") ? m["params"] : json::object();
            if (with_session && m.contains("sessionId")) v["sessionId"] = m["sessionId"];
            return v;
        }

        result<void> mismatch(std::string message, std::string hint, json details) {
            error e(errc::protocol_error, std::move(message), std::move(hint), std::move(details));
            terminal = e;
            cv.notify_all();
            return fail(std::move(e));
        }

        result<void> on_send(std::string_view text) {
            if (terminal) return fail(*terminal);
            auto got = json::parse(text, nullptr, false);
            if (!got.is_object()) return fail(errc::protocol_error, "replay: the client sent a message that is not a JSON object");
            const std::size_t at = next_send_index();
            if (at >= entries.size())
                return mismatch("replay: the transcript has no more requests, but the client sent " +
                                    view(got, true).dump(),
                                "Re-record the transcript, or stop the code under test from sending more.",
                                json{{"position", at}, {"got", view(got, true)}});
            // Received entries before `at` that were not delivered yet belong to an earlier
            // request: deliver them first, in order.
            deliver_until_next_send();
            auto expected = json::parse(entries[at].message, nullptr, false);
            const json want = view(expected, options.match_session);
            const json have = view(got, options.match_session);
            if (want != have)
                return mismatch("replay mismatch at transcript entry " + std::to_string(at + 1) + ": expected " +
                                    want.dump() + " but the client sent " + have.dump(),
                                "The code under test sends different CDP commands than when the transcript was "
                                "recorded; re-record it if the change is intended.",
                                json{{"position", at + 1}, {"expected", want}, {"got", have}});
            if (expected.contains("id") && expected["id"].is_number_integer() && got.contains("id") &&
                got["id"].is_number_integer())
                id_map[expected["id"].get<std::int64_t>()] = got["id"].get<std::int64_t>();
            cursor = at + 1;
            deliver_until_next_send();
            return {};
        }
    };

    std::shared_ptr<state> s_;
};

static_assert(transport<replay_transport>);

}  // namespace agentkit::cdp
