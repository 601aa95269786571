// tests/cdp/fake_transport.hpp — a transport whose "browser" side is driven by the test:
// the test reads what the client sent (bounded waits), pushes messages to it, and can end
// the transport with any error (to simulate a crash).
#pragma once

#include <agentkit/cdp/transport.hpp>

#include <chrono>
#include <condition_variable>
#include <deque>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

namespace agentkit::test {

struct fake_browser {
    std::mutex mu;
    std::condition_variable cv;
    std::deque<std::string> to_client;
    std::deque<std::string> from_client;
    std::vector<std::string> all_sent;
    std::optional<error> terminal;
    bool closed_by_client = false;
    int close_calls = 0;

    /// Next message the client sent, parsed; nullopt after `timeout`.
    std::optional<json> next_sent(std::chrono::milliseconds timeout = std::chrono::seconds(10)) {
        std::unique_lock lock(mu);
        if (!cv.wait_for(lock, timeout, [&] { return !from_client.empty(); })) return std::nullopt;
        auto m = json::parse(from_client.front());
        from_client.pop_front();
        return m;
    }
    void push(const json& message) {
        std::lock_guard lock(mu);
        to_client.push_back(message.dump());
        cv.notify_all();
    }
    void push_raw(std::string text) {
        std::lock_guard lock(mu);
        to_client.push_back(std::move(text));
        cv.notify_all();
    }
    /// Answer a request with a result.
    void reply(const json& request, json result) { push(json{{"id", request["id"]}, {"result", std::move(result)}}); }
    /// End the transport with `e` (e.g. errc::browser_crashed).
    void die(error e) {
        std::lock_guard lock(mu);
        if (!terminal) terminal = std::move(e);
        cv.notify_all();
    }
};

class fake_transport {
public:
    explicit fake_transport(std::shared_ptr<fake_browser> b) : b_(std::move(b)) {}

    result<void> send(std::string_view message) {
        std::lock_guard lock(b_->mu);
        if (b_->terminal) return fail(*b_->terminal);
        b_->from_client.emplace_back(message);
        b_->all_sent.emplace_back(message);
        b_->cv.notify_all();
        return {};
    }
    result<std::string> receive(std::chrono::milliseconds timeout) {
        std::unique_lock lock(b_->mu);
        b_->cv.wait_for(lock, timeout, [&] { return !b_->to_client.empty() || b_->terminal.has_value(); });
        if (!b_->to_client.empty()) {
            auto m = std::move(b_->to_client.front());
            b_->to_client.pop_front();
            return m;
        }
        if (b_->terminal) return fail(*b_->terminal);
        return fail(errc::timeout, "fake: nothing to receive");
    }
    void close() {
        std::lock_guard lock(b_->mu);
        ++b_->close_calls;
        b_->closed_by_client = true;
        if (!b_->terminal) b_->terminal = error(errc::transport_closed, "fake transport closed");
        b_->cv.notify_all();
    }
    [[nodiscard]] bool is_open() const {
        std::lock_guard lock(b_->mu);
        return !b_->terminal.has_value();
    }

private:
    std::shared_ptr<fake_browser> b_;
};

static_assert(agentkit::cdp::transport<fake_transport>);

}  // namespace agentkit::test
