// agentkit/cdp/replay_transport.hpp — plays back a recorded CDP transcript, for fast,
// deterministic unit tests of the layers above the connection (no browser needed).
//
// Matching (replay_order::strict, the default): every message the client sends must equal the
// next recorded `send` entry in method, params and sessionId (the id is ignored). The recorded
// `recv` entries that followed that send (responses and events), up to the next recorded send,
// are then delivered in order; a response's id is rewritten from the recorded request id to
// the id the client actually used. Messages recorded before the first send are delivered at
// once. A recorded `close` entry replays the transport's end (e.g. a browser crash): receive()
// returns that error from then on.
//
// replay_order::windowed is for clients that send from several threads or keep several calls
// in flight (the browser engine: event handlers answer on the dispatcher while the caller's
// thread sends its own commands, so two runs interleave sends differently). A send matches
// the earliest not-yet-matched recorded send equal to it among the first `window` recorded
// sends not matched yet. Received entries are still delivered strictly in recorded order and
// only up to the earliest recorded send not matched yet, so a response or event never arrives
// before every send recorded ahead of it was made: cause and effect keep their order, only
// the order of independent sends is free.
//
// Values that differ from run to run (absolute paths, ports) can be left out of the comparison
// with replay_options::ignore_params: params fields of those names, at any depth, are not
// compared.
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

#include <algorithm>
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

/// How the client's sends are matched against the recorded ones (see the file comment).
enum class replay_order {
    strict,    ///< each send equals the next recorded send
    windowed,  ///< each send equals one of the next `window` recorded sends not matched yet
};

/// Options of a replay.
struct replay_options {
    /// When true, receive() reports errc::transport_closed once the whole transcript has
    /// been delivered (useful to end a test); otherwise it times out like an idle browser.
    bool close_at_end = false;
    /// Compare sessionId too (on by default: a call on the wrong session is a real bug).
    bool match_session = true;
    replay_order order = replay_order::strict;  ///< how sends are matched against the recorded ones
    /// replay_order::windowed: how many not-yet-matched recorded sends a send may match.
    std::size_t window = 32;
    /// Names of params fields (at any depth) left out of the comparison.
    std::vector<std::string> ignore_params;
};

/// Plays back a transcript. Thread-safe per the transport contract; move-only.
class replay_transport {
public:
    /// Replay these entries; the ones recorded before the first send are ready at once.
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

    /// Match the message against the recorded sends and release the entries that follow; errc::protocol_error
    /// on a mismatch.
    [[nodiscard]] result<void> send(std::string_view message) {
        if (!s_) return fail(errc::transport_closed, "moved-from replay_transport");
        std::lock_guard lock(s_->mu);
        return s_->on_send(message);
    }

    /// The next replayed message; errc::timeout when none is due, or the transport's end.
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

    /// End the replay: receive() reports errc::transport_closed from now on.
    void close() {
        if (!s_) return;
        std::lock_guard lock(s_->mu);
        if (!s_->terminal) s_->terminal = error(errc::transport_closed, "the replay transport was closed");
        s_->outbox.clear();
        s_->cv.notify_all();
    }

    /// False once the replay ended (closed, a mismatch, a recorded close, or the end reported by receive()).
    [[nodiscard]] bool is_open() const {
        if (!s_) return false;
        std::lock_guard lock(s_->mu);
        return !s_->terminal.has_value();
    }

    /// True when every recorded send has been matched.
    [[nodiscard]] bool finished() const {
        std::lock_guard lock(s_->mu);
        return s_->unmatched_sends() == 0;
    }

    /// The number of recorded sends not yet matched.
    [[nodiscard]] std::size_t remaining_sends() const {
        std::lock_guard lock(s_->mu);
        return s_->unmatched_sends();
    }

private:
    struct state {
        std::mutex mu;
        std::condition_variable cv;
        std::vector<transcript_entry> entries;
        replay_options options;
        std::vector<bool> matched;  // per entry: a send the client has made
        std::size_t cursor = 0;     // next entry not yet delivered (or passed, for a matched send)
        std::deque<std::string> outbox;
        std::map<std::int64_t, std::int64_t> id_map;  // recorded request id -> client id
        std::optional<error> terminal;

        [[nodiscard]] bool is_unmatched_send(std::size_t i) const {
            return entries[i].dir == direction::sent && (i >= matched.size() || !matched[i]);
        }

        [[nodiscard]] std::size_t unmatched_sends() const {
            std::size_t n = 0;
            for (std::size_t i = 0; i < entries.size(); ++i) n += is_unmatched_send(i) ? 1U : 0U;
            return n;
        }

        [[nodiscard]] bool at_end_closed() const {
            return options.close_at_end && cursor >= entries.size() && outbox.empty();
        }

        // Queue received entries from the cursor up to the first send not matched yet (or a
        // close entry); matched sends are passed over.
        void deliver_until_next_send() {
            if (matched.size() != entries.size()) matched.resize(entries.size(), false);
            while (cursor < entries.size() && !is_unmatched_send(cursor)) {
                const auto& e = entries[cursor++];
                if (e.dir == direction::sent) continue;
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

        static void strip(json& j, const std::vector<std::string>& names, int depth = 0) {
            if (depth > 64) return;
            if (j.is_object()) {
                for (const auto& n : names) j.erase(n);
                for (auto& el : j.items()) strip(el.value(), names, depth + 1);
            } else if (j.is_array()) {
                for (auto& v : j) strip(v, names, depth + 1);
            }
        }

        [[nodiscard]] json view(const json& m, bool with_session) const {
            json v = json::object();
            v["method"] = m.value("method", json());
            v["params"] = m.contains("params") ? m["params"] : json::object();
            if (!options.ignore_params.empty()) strip(v["params"], options.ignore_params);
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
            deliver_until_next_send();  // sets up `matched`; delivers nothing new after a send
            const json have = view(got, options.match_session);
            const std::size_t window =
                options.order == replay_order::strict ? std::size_t{1} : std::max<std::size_t>(1, options.window);
            std::size_t first = entries.size(), at = entries.size(), seen = 0;
            for (std::size_t i = cursor; i < entries.size() && seen < window; ++i) {
                if (!is_unmatched_send(i)) continue;
                if (seen++ == 0) first = i;
                auto rec = json::parse(entries[i].message, nullptr, false);
                if (view(rec, options.match_session) == have) {
                    at = i;
                    break;
                }
            }
            if (first >= entries.size())
                return mismatch("replay: the transcript has no more requests, but the client sent " +
                                    view(got, true).dump(),
                                "Re-record the transcript, or stop the code under test from sending more.",
                                json{{"position", first}, {"got", view(got, true)}});
            if (at >= entries.size()) {
                const json want = view(json::parse(entries[first].message, nullptr, false), options.match_session);
                std::string what = "replay mismatch at transcript entry " + std::to_string(first + 1) + ": expected " +
                                   want.dump();
                if (window > 1 && seen > 1)
                    what += " (or one of the " + std::to_string(seen - 1) + " recorded sends after it)";
                return mismatch(what + " but the client sent " + have.dump(),
                                "The code under test sends different CDP commands than when the transcript was "
                                "recorded; re-record it if the change is intended.",
                                json{{"position", first + 1}, {"expected", want}, {"got", have}});
            }
            auto expected = json::parse(entries[at].message, nullptr, false);
            if (expected.contains("id") && expected["id"].is_number_integer() && got.contains("id") &&
                got["id"].is_number_integer())
                id_map[expected["id"].get<std::int64_t>()] = got["id"].get<std::int64_t>();
            matched[at] = true;
            deliver_until_next_send();
            return {};
        }
    };

    std::shared_ptr<state> s_;
};

static_assert(transport<replay_transport>);

}  // namespace agentkit::cdp
