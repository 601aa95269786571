// MCP over Streamable HTTP (agentkit/mcp/http/server.hpp), in-process, over real sockets on
// 127.0.0.1: every kind of bad input gets its HTTP status and a JSON-RPC error, every resource
// is bounded, and what one client does (a flood, a stream it never reads, a slow body) leaves
// the other sessions working. The official clients and the conformance kit test the happy paths
// (tests/mcp_client, tests/conformance).
#include <agentkit/agentkit.hpp>
#include <agentkit/mcp/http/server.hpp>

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <future>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

namespace ak = agentkit;
namespace mcp = agentkit::mcp;
using agentkit::json;
using namespace std::chrono_literals;

namespace {

// ---- a raw HTTP/1.1 client ------------------------------------------------------------------

struct reply {
    int status = 0;
    std::string head;  ///< status line and headers
    std::string body;  ///< de-chunked
    bool complete = false;

    [[nodiscard]] std::string header(const std::string& name) const {
        std::string lower_head = ak::ascii_lower(head);
        const auto at = lower_head.find("\r\n" + ak::ascii_lower(name) + ":");
        if (at == std::string::npos) return {};
        auto start = at + 2 + name.size() + 1;
        while (start < head.size() && head[start] == ' ') ++start;
        return head.substr(start, head.find("\r\n", start) - start);
    }
    [[nodiscard]] json json_body() const { return json::parse(body, nullptr, false); }
    /// The JSON-RPC message of a JSON body, or the last `data:` line of an SSE body.
    [[nodiscard]] json message() const {
        if (header("Content-Type").find("text/event-stream") == std::string::npos) return json_body();
        json last;
        std::size_t at = 0;
        while ((at = body.find("data: ", at)) != std::string::npos) {
            const auto end = body.find('\n', at);
            last = json::parse(body.substr(at + 6, end - at - 6), nullptr, false);
            at = end;
        }
        return last;
    }
};

/// A connected socket (-1 when refused); `rcvbuf` > 0 shrinks its receive buffer first.
int connect_to(int port, int rcvbuf = 0) {
    const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (rcvbuf > 0) ::setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof rcvbuf);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_port = htons(static_cast<std::uint16_t>(port));
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) {
        ::close(fd);
        return -1;
    }
    return fd;
}

bool send_all(int fd, std::string_view data) {
    while (!data.empty()) {
        const ssize_t n = ::send(fd, data.data(), data.size(), MSG_NOSIGNAL);
        if (n <= 0) return false;
        data.remove_prefix(static_cast<std::size_t>(n));
    }
    return true;
}

std::string dechunk(const std::string& raw) {
    std::string out;
    std::size_t at = 0;
    for (;;) {
        const auto eol = raw.find("\r\n", at);
        if (eol == std::string::npos) return out;
        const std::size_t n = std::stoul(raw.substr(at, eol - at), nullptr, 16);
        if (n == 0) return out;
        out += raw.substr(eol + 2, n);
        at = eol + 2 + n + 2;
    }
}

/// Reads a whole response (the request says Connection: close) within `timeout`.
reply read_reply(int fd, std::chrono::milliseconds timeout) {
    std::string raw;
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    char buf[16384];
    for (;;) {
        const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now()).count();
        if (left <= 0) break;
        pollfd p{fd, POLLIN, 0};
        if (::poll(&p, 1, static_cast<int>(left)) <= 0) break;
        const ssize_t n = ::recv(fd, buf, sizeof buf, 0);
        if (n <= 0) break;
        raw.append(buf, static_cast<std::size_t>(n));
    }
    reply r;
    const auto head_end = raw.find("\r\n\r\n");
    if (raw.rfind("HTTP/1.1 ", 0) != 0 || head_end == std::string::npos) return r;
    r.status = std::stoi(raw.substr(9, 3));
    r.head = raw.substr(0, head_end + 2);
    const std::string body = raw.substr(head_end + 4);
    r.body = ak::ascii_lower(r.header("Transfer-Encoding")) == "chunked" ? dechunk(body) : body;
    r.complete = true;
    return r;
}

/// What `fd` carries until `needle` shows in it, the peer closes, or 10 s pass.
std::string read_until(int fd, std::string_view needle) {
    std::string got;
    const auto deadline = std::chrono::steady_clock::now() + 10s;
    while (got.find(needle) == std::string::npos && std::chrono::steady_clock::now() < deadline) {
        pollfd p{fd, POLLIN, 0};
        if (::poll(&p, 1, 1000) <= 0) continue;
        char buf[4096];
        const ssize_t n = ::recv(fd, buf, sizeof buf, 0);
        if (n <= 0) break;
        got.append(buf, static_cast<std::size_t>(n));
    }
    return got;
}

using header_list = std::vector<std::pair<std::string, std::string>>;

std::string request_text(const std::string& method, int port, const std::string& body, const header_list& extra, bool defaults = true,
                         const std::string& path = "/mcp") {
    std::string t = method + " " + path + " HTTP/1.1\r\n";
    bool host_given = false;
    for (const auto& [k, v] : extra) host_given = host_given || ak::iequals_ascii(k, "Host");
    if (!host_given) t += "Host: 127.0.0.1:" + std::to_string(port) + "\r\n";
    if (defaults) {
        if (method == "POST") t += "Content-Type: application/json\r\n";
        t += "Accept: application/json, text/event-stream\r\n";
    }
    for (const auto& [k, v] : extra) t += k + ": " + v + "\r\n";
    t += "Connection: close\r\nContent-Length: " + std::to_string(body.size()) + "\r\n\r\n" + body;
    return t;
}

reply http(const std::string& method, int port, const std::string& body, const header_list& extra = {}, bool defaults = true,
           std::chrono::milliseconds timeout = 20s, const std::string& path = "/mcp") {
    const int fd = connect_to(port);
    if (fd < 0) return {};
    reply r;
    if (send_all(fd, request_text(method, port, body, extra, defaults, path))) r = read_reply(fd, timeout);
    ::close(fd);
    return r;
}

json rpc(int id, const std::string& method, json params = json::object()) {
    return json{{"jsonrpc", "2.0"}, {"id", id}, {"method", method}, {"params", std::move(params)}};
}
json initialize_message(int id = 1) {
    return rpc(id, "initialize", {{"protocolVersion", "2025-11-25"}, {"capabilities", json::object()}, {"clientInfo", {{"name", "raw"}, {"version", "1"}}}});
}

// ---- the server under test ---------------------------------------------------------------------

/// Calls of the `hold` tool wait here until released (or cancelled).
struct gate {
    std::mutex mu;
    std::condition_variable cv;
    bool open = false;
    int waiting = 0;
    void release() {
        std::lock_guard l(mu);
        open = true;
        cv.notify_all();
    }
    bool wait_for_waiting(int n, std::chrono::milliseconds t) {
        std::unique_lock l(mu);
        return cv.wait_for(l, t, [&] { return waiting >= n; });
    }
};
gate g_gate;

struct echo_args {
    std::string text;
    static constexpr auto agentkit_fields() { return ak::fields(AGENTKIT_FIELD(echo_args, text, "What to say back")); }
};
struct chatty_args {
    int lines = 1;
    static constexpr auto agentkit_fields() { return ak::fields(AGENTKIT_FIELD(chatty_args, lines, "Log lines of 64 KiB to send", ak::range(1, 2000))); }
};

const auto echo_tool = ak::tool<"echo">("Says the text back.", [](const echo_args& a) { return a.text; }, ak::read_only | ak::parallel_safe);
const auto hold_tool = ak::tool<"hold">(
    "Waits until the test releases it, or the call is cancelled.",
    [](const ak::no_args&, ak::tool_context& ctx) -> ak::result<std::string> {
        std::unique_lock l(g_gate.mu);
        ++g_gate.waiting;
        g_gate.cv.notify_all();
        while (!g_gate.open && !ctx.cancelled()) g_gate.cv.wait_for(l, 20ms);
        --g_gate.waiting;
        if (ctx.cancelled()) return ak::fail(ak::errc::tool_cancelled, "cancelled");
        return std::string("released");
    },
    ak::read_only | ak::parallel_safe);
const auto chatty_tool = ak::tool<"chatty">(
    "Logs many large lines to the client while it runs.",
    [](const chatty_args& a, ak::tool_context& ctx) {
        auto* r = mcp::request_of(ctx);
        const std::string line(64 * 1024, 'x');
        for (int i = 0; i < a.lines && r != nullptr && !ctx.cancelled(); ++i) r->log("info", line, "test");
        return std::string("done");
    },
    ak::read_only | ak::parallel_safe);

const ak::toolbox g_tools{echo_tool, hold_tool, chatty_tool};

mcp::server_options server_opts() {
    mcp::server_options so;
    so.name = "mcp-http-test";
    so.stderr_level = "off";
    return so;
}

/// A transport over one shared server, started on a free port.
struct fixture {
    mcp::server srv{mcp::backend_for(g_tools), server_opts()};
    std::unique_ptr<mcp::http_transport> t;
    explicit fixture(mcp::http_options o = {}) {
        {
            std::lock_guard l(g_gate.mu);
            g_gate.open = false;
        }
        o.port = 0;
        t = std::make_unique<mcp::http_transport>(srv, o);
        auto up = t->start();
        EXPECT_TRUE(up) << up.error().to_text();
    }
    ~fixture() {
        g_gate.release();
        t.reset();
    }
    [[nodiscard]] int port() const { return t->port(); }

    /// initialize + notifications/initialized; the session id.
    std::string open_session(const header_list& extra = {}) {
        auto r = http("POST", port(), initialize_message().dump(), extra);
        EXPECT_EQ(r.status, 200) << r.head << r.body;
        const std::string sid = r.header("Mcp-Session-Id");
        header_list h = extra;
        h.emplace_back("Mcp-Session-Id", sid);
        auto n = http("POST", port(), json{{"jsonrpc", "2.0"}, {"method", "notifications/initialized"}}.dump(), h);
        EXPECT_EQ(n.status, 202) << n.body;
        return sid;
    }
    reply call(const std::string& sid, int id, const std::string& tool, json args = json::object(), header_list extra = {},
               std::chrono::milliseconds timeout = 20s) {
        extra.emplace_back("Mcp-Session-Id", sid);
        return http("POST", port(), rpc(id, "tools/call", {{"name", tool}, {"arguments", std::move(args)}}).dump(), extra, true, timeout);
    }
};

void expect_rpc_error(const reply& r, int status, int code, const std::string& words) {
    EXPECT_EQ(r.status, status) << r.head << r.body;
    const json m = r.json_body();
    ASSERT_TRUE(m.is_object()) << r.body;
    EXPECT_EQ(m.value("jsonrpc", ""), "2.0") << r.body;
    ASSERT_TRUE(m.contains("error")) << r.body;
    EXPECT_EQ(m["error"].value("code", 0), code) << r.body;
    EXPECT_NE(m["error"].value("message", "").find(words), std::string::npos) << r.body;
}

std::string text_of(const json& m) {
    std::string out;
    for (const auto& c : m["result"]["content"])
        if (c.value("type", "") == "text") out += c.value("text", "");
    return out;
}

}  // namespace

TEST(McpHttp, HostOriginAndBearerGuardsAnswerBeforeAnythingElse) {
    mcp::http_options o;
    o.bearer_token = "s3cret-token";
    fixture f(o);
    const std::string init = initialize_message().dump();
    const header_list auth{{"Authorization", "Bearer s3cret-token"}};

    auto no_token = http("POST", f.port(), init);
    expect_rpc_error(no_token, 401, -32000, "Unauthorized");
    EXPECT_EQ(no_token.header("WWW-Authenticate"), "Bearer");
    expect_rpc_error(http("POST", f.port(), init, {{"Authorization", "Bearer s3cret-tokeN"}}), 401, -32000, "Unauthorized");
    expect_rpc_error(http("POST", f.port(), init, {{"Authorization", "s3cret-token"}}), 401, -32000, "Unauthorized");

    // DNS rebinding: a page on evil.example that resolves to 127.0.0.1 sends its own Host/Origin
    auto host = http("POST", f.port(), init, {{"Host", "evil.example:" + std::to_string(f.port())}, auth[0]});
    expect_rpc_error(host, 403, -32000, "Host");
    auto origin = http("POST", f.port(), init, {{"Origin", "http://evil.example"}, auth[0]});
    expect_rpc_error(origin, 403, -32000, "Origin");
    expect_rpc_error(http("POST", f.port(), init, {{"Origin", "null"}, auth[0]}), 403, -32000, "Origin");
    // the guards come first: a foreign origin without a token is 403, not 401; nothing was opened
    expect_rpc_error(http("POST", f.port(), init, {{"Origin", "http://evil.example"}}), 403, -32000, "Origin");
    EXPECT_EQ(f.t->sessions(), 0U);

    // loopback names and the page's own origin are fine
    auto ok = http("POST", f.port(), init, {{"Host", "localhost:" + std::to_string(f.port())}, {"Origin", "http://localhost:3000"}, auth[0]});
    EXPECT_EQ(ok.status, 200) << ok.body;
    EXPECT_EQ(f.t->sessions(), 1U);
    // the token is never echoed
    EXPECT_EQ(no_token.body.find("s3cret"), std::string::npos);
}

TEST(McpHttp, BadRequestsGetTheirStatusAndAJsonRpcErrorAndLoseNothing) {
    mcp::http_options o;
    o.max_body_bytes = 4096;
    fixture f(o);
    const std::string sid = f.open_session();
    const std::string init = initialize_message().dump();

    expect_rpc_error(http("POST", f.port(), init, {{"Content-Type", "text/plain"}}, false), 415, -32600, "application/json");
    expect_rpc_error(http("POST", f.port(), init, {{"Content-Type", "application/json"}, {"Accept", "text/html"}}, false), 406, -32600,
                     "Not Acceptable");
    auto big = http("POST", f.port(), std::string(8192, ' ') + init);
    EXPECT_EQ(big.status, 413) << big.head;
    EXPECT_EQ(big.json_body()["error"].value("code", 0), -32600) << big.body;
    expect_rpc_error(http("POST", f.port(), "{\"jsonrpc\": \"2.0\", \"id\": 1,"), 400, -32700, "Parse error");
    expect_rpc_error(http("POST", f.port(), std::string("{\"a\":\"") + '\0' + "\"}"), 400, -32700, "NUL");
    expect_rpc_error(http("POST", f.port(), "[" + init + "]"), 400, -32600, "one JSON-RPC message per POST");
    expect_rpc_error(http("POST", f.port(), "42"), 400, -32600, "JSON object");
    expect_rpc_error(http("POST", f.port(), rpc(2, "tools/list").dump()), 400, -32600, "Mcp-Session-Id header is required");
    auto unknown = http("POST", f.port(), rpc(3, "tools/list").dump(), {{"Mcp-Session-Id", "0123456789abcdef0123456789abcdef"}});
    expect_rpc_error(unknown, 404, -32001, "Session not found");
    EXPECT_EQ(unknown.json_body().value("id", 0), 3);  // the request's id when it is known
    expect_rpc_error(http("POST", f.port(), rpc(4, "tools/list").dump(), {{"Mcp-Session-Id", sid}, {"MCP-Protocol-Version", "1999-01-01"}}),
                     400, -32600, "unsupported MCP-Protocol-Version");
    auto put = http("PUT", f.port(), init);
    expect_rpc_error(put, 405, -32000, "Method Not Allowed");
    EXPECT_NE(put.header("Allow").find("POST"), std::string::npos);
    expect_rpc_error(http("GET", f.port(), ""), 405, -32000, "GET needs");
    expect_rpc_error(http("DELETE", f.port(), ""), 405, -32000, "DELETE needs");
    expect_rpc_error(http("GET", f.port(), "", {{"Mcp-Session-Id", sid}, {"Accept", "application/json"}}, false), 406, -32600,
                     "text/event-stream");

    // the session that was open all along still works
    auto r = f.call(sid, 10, "echo", {{"text", "still here"}});
    ASSERT_EQ(r.status, 200) << r.body;
    EXPECT_EQ(text_of(r.message()), "still here");
    // a protocol-level error inside a valid POST is a JSON-RPC error on 200
    auto bad_args = f.call(sid, 11, "echo", {{"text", 5}});
    ASSERT_EQ(bad_args.status, 200);
    EXPECT_TRUE(bad_args.message()["result"].value("isError", false)) << bad_args.body;
}

TEST(McpHttp, SessionsEndWithDeleteAndAFloodBeyondTheBoundIs503WhileOthersWork) {
    mcp::http_options o;
    o.max_sessions = 8;
    fixture f(o);
    const std::string kept = f.open_session();
    const std::string ended = f.open_session();
    auto del = http("DELETE", f.port(), "", {{"Mcp-Session-Id", ended}});
    EXPECT_EQ(del.status, 200) << del.body;
    expect_rpc_error(f.call(ended, 2, "echo", {{"text", "x"}}), 404, -32001, "Session not found");
    expect_rpc_error(http("DELETE", f.port(), "", {{"Mcp-Session-Id", ended}}), 404, -32001, "Session not found");

    // 64 clients at once: 7 places are left; every other answer is 503 with a JSON-RPC error
    std::vector<std::future<reply>> flood;
    for (int i = 0; i < 64; ++i)
        flood.push_back(std::async(std::launch::async, [&f] { return http("POST", f.port(), initialize_message().dump()); }));
    int opened = 0, refused = 0;
    for (auto& fut : flood) {
        const reply r = fut.get();
        if (r.status == 200) {
            ++opened;
        } else {
            EXPECT_EQ(r.status, 503) << r.head << r.body;
            EXPECT_NE(r.body.find("too many sessions"), std::string::npos) << r.body;
            ++refused;
        }
    }
    EXPECT_EQ(opened, 7);
    EXPECT_EQ(refused, 57);
    EXPECT_EQ(f.t->sessions(), 8U);
    auto r = f.call(kept, 3, "echo", {{"text", "unharmed"}});
    ASSERT_EQ(r.status, 200) << r.body;
    EXPECT_EQ(text_of(r.message()), "unharmed");
}

TEST(McpHttp, RequestsOfOneSessionAreBoundedAnd429LeavesTheSessionWorking) {
    mcp::http_options o;
    o.max_requests_per_session = 2;
    o.stream_after = 60s;  // the held calls answer with JSON when released
    fixture f(o);
    const std::string sid = f.open_session();
    const std::string other = f.open_session();
    auto a = std::async(std::launch::async, [&] { return f.call(sid, 1, "hold"); });
    auto b = std::async(std::launch::async, [&] { return f.call(sid, 2, "hold"); });
    ASSERT_TRUE(g_gate.wait_for_waiting(2, 10s));
    expect_rpc_error(f.call(sid, 3, "echo", {{"text", "third"}}), 429, -32000, "Too Many Requests");
    // another session is not limited by this one's calls
    auto r = f.call(other, 4, "echo", {{"text", "other"}});
    ASSERT_EQ(r.status, 200) << r.body;
    g_gate.release();
    EXPECT_EQ(text_of(a.get().message()), "released");
    EXPECT_EQ(text_of(b.get().message()), "released");
    auto again = f.call(sid, 5, "echo", {{"text", "again"}});
    ASSERT_EQ(again.status, 200) << again.body;
    EXPECT_EQ(text_of(again.message()), "again");
}

TEST(McpHttp, AStreamItsClientNeverReadsIsClosedAfterTheWriteTimeoutAndOthersAreServed) {
    mcp::http_options o;
    o.write_timeout = 1s;
    o.stream_after = 0ms;              // every answer is a stream
    o.max_requests_per_session = 1;    // the stuck call holds its session's one slot
    fixture f(o);
    const std::string sid = f.open_session();
    const std::string other = f.open_session();
    // ask for 2,000 log lines of 64 KiB (125 MiB) and never read a byte
    const int fd = connect_to(f.port(), 4096);
    ASSERT_GE(fd, 0);
    ASSERT_TRUE(send_all(fd, request_text("POST", f.port(), rpc(1, "tools/call", {{"name", "chatty"}, {"arguments", {{"lines", 2000}}}}).dump(),
                                          {{"Mcp-Session-Id", sid}})));
    // while that stream is stuck, the other session is served
    for (int i = 0; i < 5; ++i) {
        auto r = f.call(other, 10 + i, "echo", {{"text", "served"}}, {}, 10s);
        ASSERT_EQ(r.status, 200) << r.body;
        EXPECT_EQ(text_of(r.message()), "served");
    }
    // the server gives the stuck stream up (the write timeout) and closes its connection
    const auto deadline = std::chrono::steady_clock::now() + 30s;
    while (f.t->http_stats().open > 0 && std::chrono::steady_clock::now() < deadline) std::this_thread::sleep_for(50ms);
    EXPECT_EQ(f.t->http_stats().open, 0U) << "the never-read stream is still being served";
    ::close(fd);
    // and the call was cancelled: the session's one slot is free again
    auto after = f.call(sid, 20, "echo", {{"text", "slot free"}}, {}, 10s);
    ASSERT_EQ(after.status, 200) << after.body;
    EXPECT_EQ(text_of(after.message()), "slot free");
}

TEST(McpHttp, ASlowSenderLosesItsConnectionAtTheRequestTimeoutAndOthersAreServed) {
    mcp::http_options o;
    o.read_timeout = 1s;
    o.request_timeout = 2s;
    fixture f(o);
    const std::string sid = f.open_session();
    const int fd = connect_to(f.port());
    ASSERT_GE(fd, 0);
    const std::string body = rpc(1, "tools/call", {{"name", "echo"}, {"arguments", {{"text", "slow"}}}}).dump();
    std::string text = request_text("POST", f.port(), body, {{"Mcp-Session-Id", sid}});
    const auto t0 = std::chrono::steady_clock::now();
    bool cut = false;
    // one byte every 300 ms: each read is within the read timeout, the whole is far beyond 2 s;
    // the server's answer (an error status) or its close makes the socket readable
    for (std::size_t i = 0; i < text.size() && !cut && std::chrono::steady_clock::now() - t0 < 20s; ++i) {
        pollfd p{fd, POLLIN, 0};
        cut = !send_all(fd, std::string_view(text).substr(i, 1)) || ::poll(&p, 1, 300) > 0;
    }
    const auto took = std::chrono::steady_clock::now() - t0;
    ::close(fd);
    EXPECT_TRUE(cut) << "the server kept waiting for the slow body";
    EXPECT_LT(took, 10s);
    auto r = f.call(sid, 2, "echo", {{"text", "fast"}});
    ASSERT_EQ(r.status, 200) << r.body;
    EXPECT_EQ(text_of(r.message()), "fast");
}

TEST(McpHttp, StatelessRequestsAreCheckedAgainstTheirHeaders) {
    fixture f;
    auto modern = [&](int id, const std::string& method, json params, header_list h) {
        params["_meta"] = {{"io.modelcontextprotocol/protocolVersion", "2026-07-28"}, {"io.modelcontextprotocol/clientCapabilities", json::object()}};
        return http("POST", f.port(), rpc(id, method, std::move(params)).dump(), h);
    };
    const header_list v{{"MCP-Protocol-Version", "2026-07-28"}};
    auto ok = modern(1, "tools/call", {{"name", "echo"}, {"arguments", {{"text", "hi"}}}},
                     {v[0], {"Mcp-Method", "tools/call"}, {"Mcp-Name", "echo"}});
    ASSERT_EQ(ok.status, 200) << ok.body;
    EXPECT_EQ(text_of(ok.message()), "hi");
    EXPECT_EQ(f.t->sessions(), 0U);  // stateless: nothing kept

    expect_rpc_error(modern(2, "tools/list", json::object(), {v[0]}), 400, -32020, "Mcp-Method header is required");
    expect_rpc_error(modern(3, "tools/list", json::object(), {v[0], {"Mcp-Method", "tools/call"}}), 400, -32020, "differs from the method");
    expect_rpc_error(modern(4, "tools/call", {{"name", "echo"}, {"arguments", {{"text", "x"}}}}, {v[0], {"Mcp-Method", "tools/call"}}), 400,
                     -32020, "Mcp-Name header is required");
    expect_rpc_error(modern(5, "tools/call", {{"name", "echo"}, {"arguments", {{"text", "x"}}}},
                            {v[0], {"Mcp-Method", "tools/call"}, {"Mcp-Name", "=?base64?!!!?="}}),
                     400, -32020, "broken base64");
    expect_rpc_error(modern(6, "tools/list", json::object(), {{"MCP-Protocol-Version", "2026-01-01"}, {"Mcp-Method", "tools/list"}}), 400,
                     -32020, "differs from _meta");
    auto no_meta = http("POST", f.port(), rpc(7, "tools/list").dump(), {v[0], {"Mcp-Method", "tools/list"}});
    expect_rpc_error(no_meta, 400, -32602, "_meta");
    auto removed = modern(8, "initialize", json::object(), {v[0], {"Mcp-Method", "initialize"}});
    EXPECT_EQ(removed.status, 404) << removed.body;
    EXPECT_EQ(removed.json_body()["error"].value("code", 0), -32601) << removed.body;
}

TEST(McpHttp, StopAnswersOrCancelsWhatIsInFlightWithinItsGrace) {
    mcp::http_options o;
    o.shutdown_grace = 500ms;
    o.stream_after = 60s;
    fixture f(o);
    const int port = f.port();
    const std::string sid = f.open_session();
    auto held = std::async(std::launch::async, [&] { return f.call(sid, 1, "hold", json::object(), {}, 20s); });
    ASSERT_TRUE(g_gate.wait_for_waiting(1, 10s));
    const auto t0 = std::chrono::steady_clock::now();
    f.t->stop();
    const auto took = std::chrono::steady_clock::now() - t0;
    EXPECT_LT(took, 5s);
    const reply r = held.get();  // an answer (503, or the cancelled call's error), or a closed connection
    if (r.status != 0) {
        EXPECT_TRUE(r.status == 503 || r.status == 200) << r.head << r.body;
        if (r.status == 200) {
            EXPECT_TRUE(r.message().contains("error") || r.message()["result"].value("isError", false)) << r.body;
        }
    }
    {
        std::lock_guard l(g_gate.mu);
        EXPECT_EQ(g_gate.waiting, 0);  // the handler was cancelled, not left running
    }
    EXPECT_EQ(http("POST", port, initialize_message().dump()).status, 0);  // nothing listens any more
}

TEST(McpHttp, AServerPerSessionIsMadeWithItAndDestroyedWhenItEndsOrIdles) {
    static std::atomic<int> alive{0};
    struct counted {
        counted() { ++alive; }
        ~counted() { --alive; }
    };
    mcp::http_options o;
    o.port = 0;
    o.session_idle_timeout = 1s;
    mcp::http_transport t(
        [] {
            auto b = mcp::backend_for(g_tools);
            b.owner = std::make_shared<counted>();  // what a session's server owns (a browser, say)
            return std::make_unique<mcp::server>(std::move(b), server_opts());
        },
        o);
    ASSERT_TRUE(t.start());
    auto post = [&](const json& m, header_list h = {}) { return http("POST", t.port(), m.dump(), h); };
    // the first POST makes a probe server the transport keeps for its options: count from there
    EXPECT_EQ(post(json::array()).status, 400);
    const int base = alive.load();
    EXPECT_EQ(base, 1);
    auto a = post(initialize_message());
    auto b = post(initialize_message());
    ASSERT_EQ(a.status, 200);
    ASSERT_EQ(b.status, 200);
    EXPECT_EQ(alive.load() - base, 2);
    EXPECT_EQ(http("DELETE", t.port(), "", {{"Mcp-Session-Id", a.header("Mcp-Session-Id")}}).status, 200);
    EXPECT_EQ(alive.load() - base, 1);
    // a stateless request has no session to own a server: the client is told to initialize
    json m = rpc(9, "tools/list");
    m["params"]["_meta"] = {{"io.modelcontextprotocol/protocolVersion", "2026-07-28"}, {"io.modelcontextprotocol/clientCapabilities", json::object()}};
    expect_rpc_error(post(m, {{"MCP-Protocol-Version", "2026-07-28"}, {"Mcp-Method", "tools/list"}}), 400, -32022, "initialize");
    // the idle one is closed by the reaper
    const auto deadline = std::chrono::steady_clock::now() + 15s;
    while (t.sessions() > 0 && std::chrono::steady_clock::now() < deadline) std::this_thread::sleep_for(50ms);
    EXPECT_EQ(t.sessions(), 0U);
    EXPECT_EQ(alive.load() - base, 0);
    t.stop();
}

TEST(McpHttp, ASessionsServerIsGoneWhenDeleteAnswersEvenWithItsStreamOpenAndTheHostIsToldOfEachSession) {
    static std::atomic<int> owned{0};
    struct counted {
        counted() { ++owned; }
        ~counted() { --owned; }
    };
    std::mutex mu;
    std::vector<std::string> told;  // "start <id>" / "end <id>"
    mcp::http_options o;
    o.port = 0;
    o.on_session_start = [&](std::string_view id, bool sse) {
        std::lock_guard lock(mu);
        told.push_back(std::string(sse ? "sse-start " : "start ") + std::string(id));
    };
    o.on_session_end = [&](std::string_view id, bool sse) {
        std::lock_guard lock(mu);
        told.push_back(std::string(sse ? "sse-end " : "end ") + std::string(id));
    };
    mcp::http_transport t(
        [] {
            auto b = mcp::backend_for(g_tools);
            b.owner = std::make_shared<counted>();
            return std::make_unique<mcp::server>(std::move(b), server_opts());
        },
        o);
    ASSERT_TRUE(t.start());
    EXPECT_EQ(http("POST", t.port(), json::array().dump()).status, 400);  // the probe server (kept)
    const int base = owned.load();
    // an initialize that fails makes no session the host hears of
    json bad = initialize_message();
    bad["params"] = "not an object";
    const auto refused = http("POST", t.port(), bad.dump());
    EXPECT_TRUE(refused.header("Mcp-Session-Id").empty()) << refused.body;
    EXPECT_NE(refused.body.find("error"), std::string::npos) << refused.body;
    auto a = http("POST", t.port(), initialize_message().dump());
    ASSERT_EQ(a.status, 200);
    const std::string sid = a.header("Mcp-Session-Id");
    {
        std::lock_guard lock(mu);
        EXPECT_EQ(told, std::vector<std::string>{"start " + sid});
    }
    // the session's stream is open when DELETE comes: the answer still waits for the server to go
    const int fd = connect_to(t.port());
    ASSERT_GE(fd, 0);
    ASSERT_TRUE(send_all(fd, request_text("GET", t.port(), "", {{"Mcp-Session-Id", sid}})));
    const std::string got = read_until(fd, "text/event-stream");
    ASSERT_NE(got.find("text/event-stream"), std::string::npos) << got;
    EXPECT_EQ(owned.load() - base, 1);
    EXPECT_EQ(http("DELETE", t.port(), "", {{"Mcp-Session-Id", sid}}).status, 200);
    EXPECT_EQ(owned.load() - base, 0);  // gone before the answer, stream and all
    {
        std::lock_guard lock(mu);
        EXPECT_EQ(told, (std::vector<std::string>{"start " + sid, "end " + sid}));
    }
    ::close(fd);
    t.stop();
}

TEST(McpHttp, TheHeartbeatClosesASessionWhoseClientHearsButNeverAnswersAndKeepsTheOthers) {
    mcp::http_options o;
    o.port = 0;
    o.ping_timeout = 300ms;
    o.ping_interval = 200ms;
    std::mutex mu;
    std::vector<std::string> ended;
    o.on_session_end = [&](std::string_view id, bool) {
        std::lock_guard lock(mu);
        ended.emplace_back(id);
    };
    mcp::http_transport t([] { return std::make_unique<mcp::server>(mcp::backend_for(g_tools), server_opts()); }, o);
    ASSERT_TRUE(t.start());
    auto open = [&] {
        auto r = http("POST", t.port(), initialize_message().dump());
        EXPECT_EQ(r.status, 200);
        return r.header("Mcp-Session-Id");
    };
    const std::string silent = open(), answering = open(), deaf = open();  // deaf: no stream, never asked
    auto stream = [&](const std::string& sid) {
        const int fd = connect_to(t.port());
        EXPECT_TRUE(send_all(fd, request_text("GET", t.port(), "", {{"Mcp-Session-Id", sid}})));
        return fd;
    };
    const int silent_fd = stream(silent), answering_fd = stream(answering);
    std::string got;  // what the answering client's stream carried
    std::size_t pings = 0;
    const auto deadline = std::chrono::steady_clock::now() + 20s;
    auto silent_gone = [&] {
        std::lock_guard lock(mu);
        return std::find(ended.begin(), ended.end(), silent) != ended.end();
    };
    while ((!silent_gone() || pings < 3) && std::chrono::steady_clock::now() < deadline) {
        pollfd p{answering_fd, POLLIN, 0};
        if (::poll(&p, 1, 100) <= 0) continue;
        char buf[4096];
        const ssize_t n = ::recv(answering_fd, buf, sizeof buf, 0);
        if (n <= 0) break;
        got.append(buf, static_cast<std::size_t>(n));
        for (std::size_t at; (at = got.find("data: ")) != std::string::npos;) {  // each event: answer its ping
            const auto end = got.find('\n', at);
            if (end == std::string::npos) break;
            const auto m = json::parse(got.substr(at + 6, end - at - 6), nullptr, false);
            got.erase(0, end + 1);
            if (m.is_discarded() || m.value("method", "") != "ping") continue;
            ++pings;
            EXPECT_EQ(http("POST", t.port(), json{{"jsonrpc", "2.0"}, {"id", m["id"]}, {"result", json::object()}}.dump(),
                           {{"Mcp-Session-Id", answering}}).status, 202);
        }
    }
    EXPECT_TRUE(silent_gone());
    EXPECT_GE(pings, 3U);  // pinged again after each answer
    {
        std::lock_guard lock(mu);
        EXPECT_EQ(ended, std::vector<std::string>{silent});  // the answering and the deaf one stay
    }
    EXPECT_EQ(t.sessions(), 2U);
    EXPECT_EQ(http("POST", t.port(), rpc(5, "ping").dump(), {{"Mcp-Session-Id", deaf}}).status, 200);
    expect_rpc_error(http("POST", t.port(), rpc(6, "ping").dump(), {{"Mcp-Session-Id", silent}}), 404, -32001, "Session not found");
    ::close(silent_fd);
    ::close(answering_fd);
    t.stop();
}

TEST(McpHttp, TheHttpSseTransportIsOffUnlessAPathIsGivenAndIsGuardedAndBoundedAsTheEndpointIs) {
    {
        fixture plain;
        EXPECT_EQ(http("GET", plain.port(), "", {}, true, 5s, "/sse").status, 404);
    }
    mcp::http_options o;
    o.sse_path = "/sse";
    o.bearer_token = "s3cret-token";
    o.max_sessions = 1;
    fixture f(o);
    const header_list auth{{"Authorization", "Bearer s3cret-token"}};
    const std::string ping = rpc(1, "ping").dump();
    expect_rpc_error(http("GET", f.port(), "", {}, true, 5s, "/sse"), 401, -32000, "Unauthorized");
    expect_rpc_error(http("GET", f.port(), "", {{"Host", "evil.example:1"}, auth[0]}, true, 5s, "/sse"), 403, -32000, "Host");
    expect_rpc_error(http("POST", f.port(), ping, auth, true, 5s, "/sse"), 400, -32600, "sessionId");
    expect_rpc_error(http("POST", f.port(), ping, auth, true, 5s, "/sse?sessionId=0123"), 404, -32001, "Session not found");
    EXPECT_EQ(f.t->sessions(), 0U);

    // a stream is a session: while one is open a second is over max_sessions; the first's end frees it
    const int fd = connect_to(f.port());
    ASSERT_GE(fd, 0);
    ASSERT_TRUE(send_all(fd, request_text("GET", f.port(), "", auth, true, "/sse")));
    const std::string got = read_until(fd, "event: endpoint");
    ASSERT_NE(got.find("event: endpoint\ndata: /sse?sessionId="), std::string::npos) << got;
    EXPECT_EQ(f.t->sessions(), 1U);
    expect_rpc_error(http("GET", f.port(), "", auth, true, 5s, "/sse"), 503, -32000, "too many sessions");
    // the endpoint does not take that session
    const auto at = got.find("sessionId=") + 10;
    const std::string sid = got.substr(at, got.find('\n', at) - at);
    expect_rpc_error(http("POST", f.port(), ping, {auth[0], {"Mcp-Session-Id", sid}}), 404, -32001, "Session not found");
    ::close(fd);
    const auto until = std::chrono::steady_clock::now() + 10s;
    while (f.t->sessions() > 0 && std::chrono::steady_clock::now() < until) std::this_thread::sleep_for(20ms);
    EXPECT_EQ(f.t->sessions(), 0U);
    expect_rpc_error(http("POST", f.port(), ping, auth, true, 5s, "/sse?sessionId=" + sid), 404, -32001, "Session not found");
}
