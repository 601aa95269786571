// tests/support/in_process_mcp.hpp — an MCP client transport straight into an mcp::server in
// the same process, for tests of the client, the server and what goes between them.
#pragma once

#include <agentkit/mcp/client/transport.hpp>
#include <agentkit/mcp/server/server.hpp>

#include <condition_variable>
#include <deque>
#include <mutex>
#include <string>
#include <thread>

namespace agentkit::test {

/// A client transport straight into an mcp::server's built-in session, delivering the server's
/// messages on a thread of its own (as a real transport's reader does).
class in_process_mcp final : public agentkit::mcp::client_transport {
public:
    explicit in_process_mcp(agentkit::mcp::server& srv) : srv_(srv) {}
    ~in_process_mcp() override { close(); }
    agentkit::result<void> start(agentkit::mcp::transport_handlers h) override {
        h_ = std::move(h);
        srv_.set_sink([this](const std::string& m) {
            std::lock_guard lock(mu_);
            inbox_.push_back(m);
            cv_.notify_all();
        });
        reader_ = std::thread([this] {
            std::unique_lock lock(mu_);
            for (;;) {
                cv_.wait(lock, [&] { return closed_ || !inbox_.empty(); });
                if (closed_) return;
                std::string m = std::move(inbox_.front());
                inbox_.pop_front();
                lock.unlock();
                h_.on_message(m);
                lock.lock();
            }
        });
        return {};
    }
    agentkit::result<void> send(const std::string& message) override {
        srv_.handle(message);
        return {};
    }
    void close() override {
        {
            std::lock_guard lock(mu_);
            if (closed_) return;
            closed_ = true;
            cv_.notify_all();
        }
        if (reader_.joinable()) reader_.join();
        srv_.set_sink({});
    }
    [[nodiscard]] std::string describe() const override { return "in-process"; }

private:
    agentkit::mcp::server& srv_;
    agentkit::mcp::transport_handlers h_;
    std::mutex mu_;
    std::condition_variable cv_;
    std::deque<std::string> inbox_;
    bool closed_ = false;
    std::thread reader_;
};

}  // namespace agentkit::test
