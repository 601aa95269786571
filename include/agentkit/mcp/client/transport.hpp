// agentkit/mcp/client/transport.hpp — what carries an MCP client's messages: the interface
// every client transport implements (stdio in mcp/client/stdio.hpp, Streamable HTTP in
// mcp/http/client.hpp), so that mcp::client is one protocol engine over any of them.
#pragma once

#include <agentkit/core/error.hpp>
#include <agentkit/core/json.hpp>
#include <agentkit/core/result.hpp>

#include <functional>
#include <string>
#include <string_view>

namespace agentkit::mcp {

/// The receiving side of a client transport, given to client_transport::start().
struct transport_handlers {
    /// One whole message from the server (JSON text, not yet parsed). Called from the
    /// transport's own thread, one message at a time.
    std::function<void(std::string_view message)> on_message;
    /// A message too large to accept: its first and last bytes (to find its id), and its size.
    /// The rest was discarded unread.
    std::function<void(std::string_view head, std::string_view tail, std::size_t size)> on_oversized;
    /// A request could not be delivered or answered (an HTTP error status, a session the server
    /// ended, a stream that could not be resumed): `id` is the request's JSON-RPC id. The request
    /// fails with `why`; the connection goes on.
    std::function<void(const json& id, const error& why)> on_request_failed;
    /// The transport is gone for good (the process exited, the session ended): called once, with
    /// why. No message follows.
    std::function<void(const error& why)> on_close;
};

/// A bidirectional channel of JSON-RPC messages to one MCP server.
class client_transport {
public:
    client_transport() = default;
    client_transport(const client_transport&) = delete;
    client_transport& operator=(const client_transport&) = delete;
    virtual ~client_transport() = default;

    /// Connect (start the process, check the URL) and begin delivering messages to `h`.
    virtual result<void> start(transport_handlers h) = 0;
    /// Send one message (JSON text without a newline). Never throws; `transport.closed` once gone.
    virtual result<void> send(const std::string& message) = 0;
    /// Close the channel and release what it holds (the process is stopped). Idempotent; no
    /// handler is called after it returns except on_close, which it may call.
    virtual void close() = 0;
    /// What is on the other side, for messages ("npx -y @modelcontextprotocol/server-memory", a URL
    /// without its query). Never contains secrets (environment values, headers, tokens).
    [[nodiscard]] virtual std::string describe() const = 0;
    /// Recent diagnostics worth quoting in an error (the end of a server's stderr); may be empty.
    [[nodiscard]] virtual std::string diagnostics() const { return {}; }
};

}  // namespace agentkit::mcp
