// Malformed input to the MCP server, through its real stdio loop (mcp::run_stdio) over pipes:
// every input gets the answer JSON-RPC 2.0 / MCP prescribe (none for notifications and for
// responses), the server stays up (a ping afterwards is answered) and everything it writes is
// whole, valid JSON-RPC lines. SIGTERM is tested in forked children whose stdin/stdout are the
// pipes (the test process's own stdout is never involved).
#include <agentkit/agentkit.hpp>

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

namespace ak = agentkit;
namespace mcp = agentkit::mcp;
using ak::json;
using namespace std::chrono_literals;

// The file's own names (its twin builds its test files as one TU: cmake/AgentkitTesting.cmake).
namespace malformed_test {
namespace {

struct text_args {
    std::string text;
    static constexpr auto agentkit_fields() {
        return ak::fields(AGENTKIT_FIELD(text_args, text, "Text", ak::min_length(1)));
    }
};

/// What the blocking tool did: how many calls started and ended, and how each ended.
struct block_log {
    std::mutex mu;
    std::condition_variable cv;
    int started = 0;
    int ended = 0;
    std::vector<std::string> outcomes;
};
block_log g_block;

const auto echo = ak::tool<"echo">("Echo text.", [](const text_args& a) { return a.text; },
                                   ak::read_only | ak::parallel_safe);

// Reports progress 0 when it starts (with a progress token: the client learns it is running),
// then blocks until cancelled (10 s at most).
const auto wait_cancel = ak::tool<"wait_cancel">(
    "Blocks until cancelled.",
    [](const text_args&, ak::tool_context& ctx) {
        {
            std::lock_guard lock(g_block.mu);
            ++g_block.started;
        }
        ctx.progress(0, 1, "started");
        std::mutex m;
        std::condition_variable_any cv;
        std::unique_lock lock(m);
        (void)cv.wait_for(lock, ctx.stop, 10s, [] { return false; });
        std::string outcome = ctx.cancelled() ? "cancelled" : "timed out";
        {
            std::lock_guard g(g_block.mu);
            ++g_block.ended;
            g_block.outcomes.push_back(outcome);
        }
        g_block.cv.notify_all();
        return outcome;
    },
    ak::parallel_safe);

// Ignores cancellation: reports progress 0, then returns only once the test releases it (or
// after 10 s), so its result arrives after the client cancelled it.
struct release_gate {
    std::mutex mu;
    std::condition_variable cv;
    bool open = false;
    int ended = 0;
};
release_gate g_stubborn;
const auto stubborn = ak::tool<"stubborn">(
    "Blocks until released, whatever a cancellation says.",
    [](const text_args&, ak::tool_context& ctx) {
        ctx.progress(0, 1, "started");
        std::unique_lock lock(g_stubborn.mu);
        (void)g_stubborn.cv.wait_for(lock, 10s, [] { return g_stubborn.open; });
        ++g_stubborn.ended;
        g_stubborn.cv.notify_all();
        return std::string("finished anyway");
    },
    ak::parallel_safe);

const ak::toolbox box{echo, wait_cancel, stubborn};

mcp::server_options quiet() {
    mcp::server_options o;
    o.stderr_level = "off";
    return o;
}

/// Bytes for a failure message: non-printable bytes escaped, long inputs cut.
std::string printable(std::string_view s) {
    std::string out;
    for (std::size_t i = 0; i < s.size() && i < 160; ++i) {
        const auto c = static_cast<unsigned char>(s[i]);
        if (c >= 0x20 && c < 0x7f) {
            out += static_cast<char>(c);
        } else {
            constexpr char hex[] = "0123456789abcdef";
            out += "\\x";
            out += hex[c >> 4U];
            out += hex[c & 0xfU];
        }
    }
    if (s.size() > 160) out += "... (" + std::to_string(s.size()) + " bytes)";
    return out;
}

/// Empty when `line` is one valid JSON-RPC 2.0 message a server may send; else the problem.
std::string jsonrpc_problem(const std::string& line) {
    const json j = json::parse(line, nullptr, false);  // also rejects invalid UTF-8
    if (j.is_discarded()) return "not JSON";
    if (!j.is_object()) return "not an object";
    if (j.value("jsonrpc", json()) != "2.0") return "jsonrpc is not \"2.0\"";
    if (j.contains("method")) {  // a notification (this server sends no requests)
        if (!j["method"].is_string()) return "method is not a string";
        if (j.contains("id")) return "a request from the server";
        if (j.contains("result") || j.contains("error")) return "a notification with result/error";
        return {};
    }
    if (!j.contains("id")) return "a response without an id";
    const json& id = j["id"];
    if (!id.is_string() && !id.is_number_integer() && !id.is_null()) return "id is not a string, an integer or null";
    if (j.contains("result") == j.contains("error")) return "not exactly one of result and error";
    if (j.contains("error")) {
        const json& e = j["error"];
        if (!e.is_object() || !e.contains("code") || !e["code"].is_number_integer()) return "error code is not an integer";
        if (!e.contains("message") || !e["message"].is_string()) return "error message is not a string";
    } else if (id.is_null()) {
        return "a result with id null";
    }
    return {};
}

/// j at `path` (object keys), or null when any step is missing or not an object.
json field(const json& j, std::initializer_list<const char*> path) {
    const json* p = &j;
    for (const char* k : path) {
        if (!p->is_object() || !p->contains(k)) return nullptr;
        p = &p->at(k);
    }
    return *p;
}

bool write_all(int fd, std::string_view bytes) {
    while (!bytes.empty()) {
        const ssize_t n = ::write(fd, bytes.data(), bytes.size());
        if (n < 0) {
            if (errno == EINTR) continue;
            return false;
        }
        bytes.remove_prefix(static_cast<std::size_t>(n));
    }
    return true;
}

/// mcp::run_stdio on a thread: the test writes its stdin pipe and a reader thread collects its
/// stdout pipe line by line.
class stdio_server {
public:
    explicit stdio_server(mcp::server_options o = quiet()) : srv_(mcp::backend_for(box), std::move(o)) {
        if (::pipe2(in_, O_CLOEXEC) != 0 || ::pipe2(out_, O_CLOEXEC) != 0) std::abort();
        loop_ = std::thread([this] {
            const int rc = mcp::run_stdio(srv_, in_[0], out_[1]);
            ::close(out_[1]);
            std::lock_guard lock(mu_);
            loop_rc_ = rc;
            loop_done_ = true;
            cv_.notify_all();
        });
        reader_ = std::thread([this] { read_output(); });
    }
    stdio_server(const stdio_server&) = delete;
    stdio_server& operator=(const stdio_server&) = delete;
    ~stdio_server() {
        close_input();
        loop_.join();
        reader_.join();
        ::close(in_[0]);
        ::close(out_[0]);
    }

    mcp::server& srv() { return srv_; }

    void write(std::string_view bytes) { ASSERT_TRUE(write_all(in_[1], bytes)); }
    void send(const json& j) { write(j.dump() + "\n"); }
    void close_input() {
        if (in_[1] >= 0) ::close(in_[1]);
        in_[1] = -1;
    }

    template <class Pred>
    bool wait_until(Pred p, std::chrono::milliseconds limit = 10s) {
        std::unique_lock lock(mu_);
        return cv_.wait_for(lock, limit, [&] { return p(); });
    }

    /// The response (result or error) with this id; null when none came within `limit`.
    json response(const json& id, std::chrono::milliseconds limit = 10s) {
        json found;
        wait_until([&] { return (found = find_response(id)) != nullptr; }, limit);
        return found;
    }
    /// Every message with this id so far.
    std::vector<json> with_id(const json& id) {
        std::lock_guard lock(mu_);
        std::vector<json> out;
        for (const auto& m : msgs_)
            if (m.is_object() && m.contains("id") && m["id"] == id) out.push_back(m);
        return out;
    }
    std::size_t count() {
        std::lock_guard lock(mu_);
        return msgs_.size();
    }

    /// Writes `line` and a newline, then a ping: returns what the server sent in between (all
    /// its synchronous answers to `line`), and expects the ping to be answered.
    std::vector<json> answers(std::string_view line) {
        const std::size_t before = count();
        const std::string probe = "probe-" + std::to_string(++probes_);
        std::string bytes(line);
        bytes += "\n";
        bytes += R"({"jsonrpc":"2.0","id":")" + probe + R"(","method":"ping"})" "\n";
        write(bytes);
        const json pong = response(probe);
        EXPECT_EQ(field(pong, {"result"}), json::object()) << "no answer to a ping after " << printable(line);
        std::lock_guard lock(mu_);
        std::vector<json> out;
        for (std::size_t i = before; i < msgs_.size(); ++i)
            if (field(msgs_[i], {"id"}) != probe) out.push_back(msgs_[i]);
        return out;
    }

    void initialize() {
        send(json{{"jsonrpc", "2.0"},
                  {"id", "init"},
                  {"method", "initialize"},
                  {"params", {{"protocolVersion", "2025-11-25"}, {"capabilities", json::object()}, {"clientInfo", {{"name", "t"}, {"version", "1"}}}}}});
        const json r = response("init");
        ASSERT_TRUE(r.contains("result")) << r.dump();
        send(json{{"jsonrpc", "2.0"}, {"method", "notifications/initialized"}});
    }

    /// Starts a wait_cancel call (or another tool that reports progress 0 first) and returns
    /// once it runs (its progress notification arrived).
    void start_blocking_call(const json& id, const std::string& tool = "wait_cancel") {
        const std::string token = "progress-" + id.dump();
        send(json{{"jsonrpc", "2.0"},
                  {"id", id},
                  {"method", "tools/call"},
                  {"params", {{"name", tool}, {"arguments", {{"text", "x"}}}, {"_meta", {{"progressToken", token}}}}}});
        const bool running = wait_until([&] {
            for (const auto& m : msgs_)
                if (field(m, {"method"}) == "notifications/progress" && field(m, {"params", "progressToken"}) == token)
                    return true;
            return false;
        });
        ASSERT_TRUE(running) << "the blocking call never started";
    }

    /// Closes stdin, waits for the loop to end and checks every byte it wrote to stdout.
    void finish(std::chrono::milliseconds limit = 15s) {
        close_input();
        ASSERT_TRUE(wait_until([&] { return loop_done_ && eof_; }, limit)) << "the stdio loop did not end after stdin closed";
        std::lock_guard lock(mu_);
        EXPECT_EQ(loop_rc_, 0);
        EXPECT_TRUE(tail_.empty()) << "a partial line on stdout: " << printable(tail_);
        for (const auto& l : lines_) {
            const std::string p = jsonrpc_problem(l);
            EXPECT_TRUE(p.empty()) << p << ": " << printable(l);
        }
    }

private:
    json find_response(const json& id) const {
        for (const auto& m : msgs_)
            if (m.is_object() && m.contains("id") && m["id"] == id && (m.contains("result") || m.contains("error"))) return m;
        return nullptr;
    }

    void read_output() {
        std::string buf;
        std::vector<char> chunk(1 << 16);
        std::size_t scanned = 0;
        for (;;) {
            const ssize_t n = ::read(out_[0], chunk.data(), chunk.size());
            if (n < 0 && errno == EINTR) continue;
            if (n <= 0) break;
            buf.append(chunk.data(), static_cast<std::size_t>(n));
            std::size_t start = 0;
            for (std::size_t nl; (nl = buf.find('\n', std::max(start, scanned))) != std::string::npos; start = nl + 1) {
                std::string line = buf.substr(start, nl - start);
                json j = json::parse(line, nullptr, false);
                std::lock_guard lock(mu_);
                lines_.push_back(std::move(line));
                msgs_.push_back(j.is_discarded() ? json("<not JSON>") : std::move(j));
                cv_.notify_all();
            }
            buf.erase(0, start);
            scanned = buf.size();
        }
        std::lock_guard lock(mu_);
        tail_ = std::move(buf);
        eof_ = true;
        cv_.notify_all();
    }

    mcp::server srv_;
    int in_[2]{-1, -1};
    int out_[2]{-1, -1};
    std::mutex mu_;
    std::condition_variable cv_;
    std::vector<std::string> lines_;
    std::vector<json> msgs_;
    std::string tail_;
    bool eof_ = false;
    bool loop_done_ = false;
    int loop_rc_ = -1;
    int probes_ = 0;
    std::thread loop_;
    std::thread reader_;
};

/// `line` is answered by exactly one error with this code and id.
void expect_error(stdio_server& s, std::string_view line, int code, const json& id) {
    const auto a = s.answers(line);
    ASSERT_EQ(a.size(), 1U) << printable(line);
    EXPECT_EQ(field(a[0], {"error", "code"}), code) << printable(line) << " -> " << printable(a[0].dump());
    EXPECT_TRUE(a[0].is_object() && a[0].contains("id") && a[0]["id"] == id) << printable(line) << " -> " << printable(a[0].dump());
}

/// `line` is answered by nothing at all.
void expect_silence(stdio_server& s, std::string_view line) {
    const auto a = s.answers(line);
    EXPECT_TRUE(a.empty()) << printable(line) << " -> " << (a.empty() ? "" : a[0].dump());
}

std::string echo_call(const json& id, const std::string& text_json) {
    return R"({"jsonrpc":"2.0","id":)" + id.dump() + R"(,"method":"tools/call","params":{"name":"echo","arguments":{"text":)" +
           text_json + "}}}";
}

/// Waits (bounded) until the server has no tools/call in flight.
bool no_call_in_flight(mcp::server& srv) {
    const auto deadline = std::chrono::steady_clock::now() + 10s;
    while (srv.in_flight() != 0) {
        if (std::chrono::steady_clock::now() > deadline) return false;
        std::this_thread::yield();
    }
    return true;
}

/// Waits (bounded) until the blocking tool has ended `n` calls in all.
bool blocking_calls_ended(int n) {
    std::unique_lock lock(g_block.mu);
    return g_block.cv.wait_for(lock, 10s, [&] { return g_block.ended >= n; });
}

int blocking_ended() {
    std::lock_guard lock(g_block.mu);
    return g_block.ended;
}

}  // namespace

// Every proper prefix of a request, and other texts that are not JSON: -32700 with id null.
TEST(McpMalformed, TruncatedJsonIsAParseError) {
    stdio_server s;
    s.initialize();
    const std::string full = echo_call(1, R"("hi")");
    for (std::size_t cut = 1; cut < full.size(); ++cut) expect_error(s, full.substr(0, cut), mcp::code::parse_error, nullptr);
    for (const char* bad : {R"({"jsonrpc":"2.0","id":2,"method":"ping",})", R"({"jsonrpc":"2.0","id":2,"method":"ping"}})",
                            R"({"jsonrpc":"2.0","id":2,"method":"ping"} {"jsonrpc":"2.0","id":3,"method":"ping"})",
                            R"({'jsonrpc':'2.0','id':2,'method':'ping'})", "not json", "tru", "\"open string"})
        expect_error(s, bad, mcp::code::parse_error, nullptr);
    s.write(full + "\n");
    EXPECT_EQ(s.response(1)["result"]["content"][0]["text"], "hi");
    s.finish();
}

// Each field of a request with the wrong type.
TEST(McpMalformed, WrongTypesInEveryField) {
    stdio_server s;
    s.initialize();
    constexpr int invalid_request = mcp::code::invalid_request;
    constexpr int invalid_params = mcp::code::invalid_params;
    // "jsonrpc": -32600, with the id when it is a valid one.
    expect_error(s, R"({"jsonrpc":"1.0","id":1,"method":"ping"})", invalid_request, 1);
    expect_error(s, R"({"jsonrpc":2.0,"id":2,"method":"ping"})", invalid_request, 2);
    expect_error(s, R"({"jsonrpc":null,"id":3,"method":"ping"})", invalid_request, 3);
    expect_error(s, R"({"jsonrpc":["2.0"],"id":"four","method":"ping"})", invalid_request, "four");
    expect_error(s, R"({"id":5,"method":"ping"})", invalid_request, 5);
    expect_error(s, R"({"jsonrpc":"1.0","method":"notifications/initialized"})", invalid_request, nullptr);
    // "id": MCP ids are strings or integers (never null): -32600 with id null.
    for (const char* id : {R"({"a":1})", "[1]", "true", "false", "null", "1.5"})
        expect_error(s, std::string(R"({"jsonrpc":"2.0","id":)") + id + R"(,"method":"ping"})", invalid_request, nullptr);
    // "method": -32600 (JSON-RPC's own example: {"jsonrpc": "2.0", "method": 1, "params": "bar"}).
    for (const char* method : {"42", "null", R"(["ping"])", R"({"name":"ping"})", "true"})
        expect_error(s, std::string(R"({"jsonrpc":"2.0","id":10,"method":)") + method + "}", invalid_request, 10);
    expect_error(s, R"({"jsonrpc":"2.0","method":1,"params":"bar"})", invalid_request, nullptr);
    expect_error(s, R"({"jsonrpc":"2.0","id":11})", invalid_request, 11);
    // "params": not a structured value → not a valid Request object (-32600); by-position
    // params, which no MCP method takes → -32602.
    for (const char* params : {R"("x")", "5", "true", "null"})
        expect_error(s, std::string(R"({"jsonrpc":"2.0","id":20,"method":"ping","params":)") + params + "}", invalid_request, 20);
    expect_error(s, R"({"jsonrpc":"2.0","method":"notifications/initialized","params":"x"})", invalid_request, nullptr);
    expect_error(s, R"({"jsonrpc":"2.0","id":21,"method":"ping","params":[1]})", invalid_params, 21);
    expect_error(s, R"({"jsonrpc":"2.0","id":22,"method":"tools/list","params":[]})", invalid_params, 22);
    // tools/call "name": -32602.
    for (const char* name : {"42", "null", R"(["echo"])", R"({"n":"echo"})", "true"})
        expect_error(s, std::string(R"({"jsonrpc":"2.0","id":30,"method":"tools/call","params":{"name":)") + name +
                            R"(,"arguments":{"text":"x"}}})",
                     invalid_params, 30);
    expect_error(s, R"({"jsonrpc":"2.0","id":31,"method":"tools/call","params":{"arguments":{"text":"x"}}})", invalid_params, 31);
    // tools/call "arguments" that is not an object fails the CallToolRequest schema: -32602.
    for (const char* args : {"[1,2]", R"(["text","x"])", R"("text")", "5", "true"})
        expect_error(s, std::string(R"({"jsonrpc":"2.0","id":32,"method":"tools/call","params":{"name":"echo","arguments":)") +
                            args + "}}",
                     invalid_params, 32);
    // An argument of the wrong type is the tool's input validation: a result with isError.
    s.write(echo_call(33, "5") + "\n");
    const json typed = s.response(33);
    EXPECT_EQ(field(typed, {"result", "isError"}), true) << typed.dump();
    // Whole messages that are not Request objects: -32600, id null.
    for (const char* msg : {"{}", R"({"foo":"boo"})", "42", R"("ping")", "null", "true", "[]", R"([{"jsonrpc":"2.0","id":40,"method":"ping"}])"})
        expect_error(s, msg, invalid_request, nullptr);
    // Responses from the client (this server sends no requests) are never answered.
    expect_silence(s, R"({"jsonrpc":"2.0","id":99,"result":{}})");
    expect_silence(s, R"({"jsonrpc":"2.0","id":98,"error":{"code":-1,"message":"x"}})");
    s.finish();
}

// A 10 MB argument is answered in full under the default limit; under a 1 MB limit it is refused
// as soon as the line passes the limit (before its newline arrives: the loop does not buffer it).
TEST(McpMalformed, TenMegabyteString) {
    const std::string big(std::size_t{10} << 20U, 'x');
    {
        stdio_server s;
        s.initialize();
        s.write(echo_call(1, "\"" + big + "\"") + "\n");
        json r = s.response(1, 20s);
        ASSERT_TRUE(r.contains("result")) << printable(r.dump());
        const json& text = r["result"]["content"][0]["text"];
        ASSERT_TRUE(text.is_string());
        EXPECT_EQ(text.get_ref<const std::string&>().size(), big.size());
        EXPECT_TRUE(text == big);
        EXPECT_EQ(s.answers(R"({"jsonrpc":"2.0","id":2,"method":"ping"})").size(), 1U);
        s.finish();
    }
    {
        auto o = quiet();
        o.max_message_bytes = std::size_t{1} << 20U;
        stdio_server s(o);
        s.initialize();
        s.write(echo_call(3, "\"" + big + "\""));  // no newline yet
        const bool refused_early = s.response(nullptr, 10s) != nullptr;
        ASSERT_TRUE(refused_early) << "an over-long line was buffered instead of refused";
        s.write("\n");
        s.write(echo_call(4, R"("after")") + "\n");
        EXPECT_EQ(s.response(4)["result"]["content"][0]["text"], "after");  // the next line is served
        const auto errors = s.with_id(nullptr);
        ASSERT_EQ(errors.size(), 1U);
        EXPECT_EQ(field(errors[0], {"error", "code"}), mcp::code::parse_error) << printable(errors[0].dump());
        EXPECT_EQ(field(errors[0], {"error", "data", "limit"}), std::size_t{1} << 20U);
        EXPECT_TRUE(s.with_id(3).empty());
        s.finish();
    }
}

TEST(McpMalformed, NestingTenThousandDeep) {
    stdio_server s;
    s.initialize();
    constexpr std::size_t depth = 10000;
    expect_error(s, std::string(depth, '[') + std::string(depth, ']'), mcp::code::parse_error, nullptr);
    expect_error(s, std::string(depth, '['), mcp::code::parse_error, nullptr);
    std::string objects;
    for (std::size_t i = 0; i < depth; ++i) objects += R"({"a":)";
    objects += "1" + std::string(depth, '}');
    expect_error(s, objects, mcp::code::parse_error, nullptr);
    // Inside an otherwise valid request: the id cannot be trusted from an unparsed text.
    expect_error(s, echo_call(1, std::string(depth, '[') + std::string(depth, ']')), mcp::code::parse_error, nullptr);
    // Nesting within the limit is parsed: the tool rejects the argument's type.
    s.write(echo_call(2, std::string(100, '[') + std::string(100, ']')) + "\n");
    EXPECT_EQ(s.response(2)["result"]["isError"], true);
    s.finish();
}

TEST(McpMalformed, InvalidUtf8) {
    stdio_server s;
    s.initialize();
    // In a string value: a lone byte, an overlong encoding, a UTF-16 surrogate, a cut sequence,
    // a code point past U+10FFFF, and a lone escaped surrogate.
    for (const char* text : {"\"a\xff" "b\"", "\"\xc0\xaf\"", "\"\xed\xa0\x80\"", "\"\xe2\x82\"", "\"\xf4\x90\x80\x80\"",
                             R"("\ud800")"})
        expect_error(s, echo_call(1, text), mcp::code::parse_error, nullptr);
    expect_error(s, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"pi\xffng\"}", mcp::code::parse_error, nullptr);
    expect_error(s, "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"ping\",\"params\":{\"\xfe\":1}}", mcp::code::parse_error, nullptr);
    // As bare bytes: a line of them, and one between tokens.
    expect_error(s, "\xff\xfe\xfd", mcp::code::parse_error, nullptr);
    expect_error(s, "{\"jsonrpc\":\"2.0\",\x80\"id\":4,\"method\":\"ping\"}", mcp::code::parse_error, nullptr);
    // Valid UTF-8 and escaped surrogate pairs pass unchanged.
    s.write(echo_call(5, "\"h\xc3\xa9llo \xe2\x9c\x93 \xf0\x9f\x98\x80\"") + "\n");
    EXPECT_EQ(s.response(5)["result"]["content"][0]["text"], "h\xc3\xa9llo \xe2\x9c\x93 \xf0\x9f\x98\x80");
    s.write(echo_call(6, R"("\ud83d\ude00")") + "\n");
    EXPECT_EQ(s.response(6)["result"]["content"][0]["text"], "\xf0\x9f\x98\x80");
    s.finish();
}

// Regression: the JSON parser took a NUL byte for the end of the input, so a valid message
// followed by NUL and garbage was served.
TEST(McpMalformed, EmbeddedNulByte) {
    stdio_server s;
    s.initialize();
    using namespace std::string_literals;
    const std::string ping = R"({"jsonrpc":"2.0","id":1,"method":"ping"})";
    for (const std::string& line : {ping + "\0garbage"s, ping + "\0"s, "\0"s + ping, R"({"jsonrpc":"2.0",)" + "\0"s + R"("id":1,"method":"ping"})",
                                    echo_call(1, "\"a\0b\""s)})
        expect_error(s, line, mcp::code::parse_error, nullptr);
    EXPECT_TRUE(s.with_id(1).empty());
    // An escaped NUL is a valid character of a string.
    s.write(echo_call(2, R"("a\u0000b")") + "\n");
    EXPECT_EQ(s.response(2)["result"]["content"][0]["text"], "a\0b"s);
    s.finish();
}

TEST(McpMalformed, CrlfLineEnds) {
    stdio_server s;
    s.write("{\"jsonrpc\":\"2.0\",\"id\":\"init\",\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"2025-11-25\","
            "\"capabilities\":{}}}\r\n{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\r\n");
    EXPECT_TRUE(s.response("init").contains("result"));
    const auto pong = s.answers(R"({"jsonrpc":"2.0","id":1,"method":"ping"})" "\r");
    ASSERT_EQ(pong.size(), 1U);
    EXPECT_EQ(pong[0]["result"], json::object());
    s.write(echo_call(2, R"("crlf")") + "\r\n");
    EXPECT_EQ(s.response(2)["result"]["content"][0]["text"], "crlf");  // no '\r' left in it
    expect_error(s, "nope\r", mcp::code::parse_error, nullptr);
    expect_silence(s, "\r");  // a blank line
    // LF and CRLF mixed in one write, and a CR split from its LF across writes.
    s.write("{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"ping\"}\n{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"ping\"}\r\n"
            "{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"ping\"}\r");
    s.write("\n");
    for (int id : {3, 4, 5}) EXPECT_EQ(s.response(id)["result"], json::object()) << id;
    s.finish();
}

TEST(McpMalformed, SeveralMessagesInOneWrite) {
    stdio_server s;
    s.initialize();
    std::string batch;
    for (int id = 1; id <= 3; ++id) batch += R"({"jsonrpc":"2.0","id":)" + std::to_string(id) + R"(,"method":"ping"})" "\n";
    batch += R"({"jsonrpc":"2.0","method":"notifications/roots/list_changed"})" "\n";
    batch += echo_call(4, R"("four")") + "\n";
    batch += "garbage\n";
    batch += R"({"jsonrpc":"2.0","id":5,"method":"no/such"})" "\n";
    batch += R"({"jsonrpc":"2.0","id":6,"method":"ping"})" "\n";
    const std::size_t before = s.count();
    s.write(batch);
    EXPECT_EQ(s.response(4)["result"]["content"][0]["text"], "four");
    ASSERT_TRUE(s.response(6).contains("result"));
    for (const json& id : {json(1), json(2), json(3), json(5), json(6)}) EXPECT_EQ(s.with_id(id).size(), 1U) << id;
    EXPECT_EQ(s.with_id(5)[0]["error"]["code"], mcp::code::method_not_found);
    const auto all = [&] {
        std::vector<json> out;
        for (const json& id : {json(1), json(2), json(3), json(nullptr), json(5), json(6)})
            for (const auto& m : s.with_id(id)) out.push_back(m);
        return out;
    }();
    EXPECT_EQ(all.size(), 6U);
    EXPECT_EQ(s.count() - before, 7U);  // six synchronous answers, one tool result, nothing else
    // A hundred pings in one write, answered in order.
    std::string many;
    for (int id = 100; id < 200; ++id) many += R"({"jsonrpc":"2.0","id":)" + std::to_string(id) + R"(,"method":"ping"})" "\n";
    const auto a = s.answers(std::string_view(many).substr(0, many.size() - 1));
    ASSERT_EQ(a.size(), 100U);
    for (int i = 0; i < 100; ++i) EXPECT_EQ(a[static_cast<std::size_t>(i)]["id"], 100 + i);
    s.finish();
}

TEST(McpMalformed, OneMessageSplitAcrossWrites) {
    stdio_server s;
    s.initialize();
    // Three writes: inside a key, inside a multi-byte UTF-8 character, just before the newline.
    const std::string msg = echo_call(1, "\"split \xe2\x9c\x93\"") + "\n";
    const std::size_t check = msg.find("\xe2\x9c\x93");
    s.write(msg.substr(0, 10));
    s.write(msg.substr(10, check + 1 - 10));
    s.write(msg.substr(check + 1, msg.size() - 1 - (check + 1)));
    s.write(msg.substr(msg.size() - 1));
    EXPECT_EQ(s.response(1)["result"]["content"][0]["text"], "split \xe2\x9c\x93");
    // Byte by byte, one write per byte.
    const std::string slow = echo_call(2, R"("byte by byte")") + "\n";
    for (char c : slow) s.write(std::string_view(&c, 1));
    EXPECT_EQ(s.response(2)["result"]["content"][0]["text"], "byte by byte");
    EXPECT_EQ(s.with_id(2).size(), 1U);
    s.finish();
}

TEST(McpMalformed, UnknownMethods) {
    stdio_server s;
    s.initialize();
    int id = 0;
    for (const char* m : {"no/such/method", "", "resources/list", "prompts/list", "completion/complete", "TOOLS/LIST",
                          "tools/list ", "sampling/createMessage"}) {
        ++id;
        expect_error(s, json{{"jsonrpc", "2.0"}, {"id", id}, {"method", m}}.dump(), mcp::code::method_not_found, id);
    }
    expect_silence(s, R"({"jsonrpc":"2.0","method":"no/such/notification"})");
    s.finish();
}

TEST(McpMalformed, RequestsBeforeInitialize) {
    stdio_server s;
    expect_error(s, R"({"jsonrpc":"2.0","id":1,"method":"tools/list"})", mcp::code::invalid_request, 1);
    expect_error(s, echo_call(2, R"("x")"), mcp::code::invalid_request, 2);
    expect_error(s, R"({"jsonrpc":"2.0","id":3,"method":"logging/setLevel","params":{"level":"info"}})", mcp::code::invalid_request, 3);
    expect_error(s, R"({"jsonrpc":"2.0","id":4,"method":"no/such"})", mcp::code::method_not_found, 4);
    const auto pong = s.answers(R"({"jsonrpc":"2.0","id":5,"method":"ping"})");  // ping is always allowed
    ASSERT_EQ(pong.size(), 1U);
    EXPECT_EQ(pong[0]["result"], json::object());
    // notifications/initialized sent with an id is a request for an unknown method, and does not
    // count as the notification.
    expect_error(s, R"({"jsonrpc":"2.0","id":6,"method":"notifications/initialized"})", mcp::code::method_not_found, 6);
    expect_error(s, R"({"jsonrpc":"2.0","id":7,"method":"tools/list"})", mcp::code::invalid_request, 7);
    s.initialize();
    EXPECT_EQ(s.answers(R"({"jsonrpc":"2.0","id":8,"method":"tools/list"})").at(0)["result"]["tools"].size(), 3U);
    s.finish();
}

// Regression: a ping (or any request but tools/call) reusing the id of a running call was
// answered, making two responses with one id.
TEST(McpMalformed, DuplicateIdsInFlight) {
    stdio_server s;
    s.initialize();
    const int ended = blocking_ended();
    s.start_blocking_call(7);
    expect_error(s, echo_call(7, R"("again")"), mcp::code::invalid_request, 7);
    expect_error(s, R"({"jsonrpc":"2.0","id":7,"method":"ping"})", mcp::code::invalid_request, 7);
    expect_error(s, R"({"jsonrpc":"2.0","id":7,"method":"tools/list"})", mcp::code::invalid_request, 7);
    // "7" is another id than 7.
    EXPECT_EQ(s.answers(R"({"jsonrpc":"2.0","id":"7","method":"ping"})").at(0)["result"], json::object());
    s.send(json{{"jsonrpc", "2.0"}, {"method", "notifications/cancelled"}, {"params", {{"requestId", 7}}}});
    ASSERT_TRUE(blocking_calls_ended(ended + 1));
    ASSERT_TRUE(no_call_in_flight(s.srv()));
    expect_silence(s, "");  // nothing more arrives before a ping's answer
    EXPECT_EQ(s.with_id(7).size(), 3U);  // the three errors; the cancelled call itself is never answered
    for (const auto& m : s.with_id(7)) EXPECT_TRUE(m.contains("error")) << m.dump();
    s.finish();
}

// A message with an id is a request (JSON-RPC 2.0 section 4): "notifications/..." methods sent
// with an id are unknown request methods (-32601) and have no effect.
TEST(McpMalformed, NotificationsCarryingIds) {
    stdio_server s;
    s.initialize();
    const int ended = blocking_ended();
    s.start_blocking_call(1);
    expect_error(s, R"({"jsonrpc":"2.0","id":51,"method":"notifications/cancelled","params":{"requestId":1}})",
                 mcp::code::method_not_found, 51);
    expect_error(s, R"({"jsonrpc":"2.0","id":52,"method":"notifications/progress","params":{"progressToken":"t","progress":1}})",
                 mcp::code::method_not_found, 52);
    expect_error(s, R"({"jsonrpc":"2.0","id":53,"method":"notifications/roots/list_changed"})", mcp::code::method_not_found, 53);
    EXPECT_EQ(s.srv().in_flight(), 1U);  // not cancelled
    EXPECT_EQ(blocking_ended(), ended);
    s.send(json{{"jsonrpc", "2.0"}, {"method", "notifications/cancelled"}, {"params", {{"requestId", 1}}}});
    ASSERT_TRUE(blocking_calls_ended(ended + 1));
    ASSERT_TRUE(no_call_in_flight(s.srv()));
    expect_silence(s, "");
    EXPECT_TRUE(s.with_id(1).empty());
    s.finish();
}

TEST(McpMalformed, CancellationOfUnknownAndRunningRequests) {
    stdio_server s;
    s.initialize();
    // Unknown, malformed and finished requests: ignored, never answered.
    for (const char* params : {R"({"requestId":99})", R"({"requestId":"nope"})", "{}", R"({"requestId":{"a":1}})",
                               R"({"requestId":null,"reason":"x"})"})
        expect_silence(s, std::string(R"({"jsonrpc":"2.0","method":"notifications/cancelled","params":)") + params + "}");
    expect_silence(s, R"({"jsonrpc":"2.0","method":"notifications/cancelled"})");
    s.write(echo_call(3, R"("done")") + "\n");
    EXPECT_EQ(s.response(3)["result"]["content"][0]["text"], "done");
    expect_silence(s, R"({"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":3}})");
    // A running request: it stops and gets no response (MCP cancellation). A cancellation
    // naming "4" does not touch the request with id 4.
    const int ended = blocking_ended();
    s.start_blocking_call(4);
    expect_silence(s, R"({"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"4"}})");
    EXPECT_EQ(s.srv().in_flight(), 1U);
    expect_silence(s, R"({"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":4,"reason":"user"}})");
    ASSERT_TRUE(blocking_calls_ended(ended + 1));
    {
        std::lock_guard lock(g_block.mu);
        EXPECT_EQ(g_block.outcomes.back(), "cancelled");
    }
    ASSERT_TRUE(no_call_in_flight(s.srv()));
    expect_silence(s, "");
    EXPECT_TRUE(s.with_id(4).empty());
    s.finish();
}

// A cancelled call is never answered, even when its tool ignores the cancellation and finishes
// later, and even behind a storm of cancellations of unknown and odd ids; a cancellation naming
// the id as another JSON number of the same value (8.0 for 8) is the same request.
TEST(McpMalformed, ACancelledCallIsNeverAnsweredEvenWhenItsToolFinishesAfterAStorm) {
    stdio_server s;
    s.initialize();
    {
        std::lock_guard lock(g_stubborn.mu);
        g_stubborn.open = false;
    }
    const int ended = g_stubborn.ended;
    s.start_blocking_call(7, "stubborn");
    std::string storm;
    for (int i = 0; i < 3000; ++i)
        storm += R"({"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":)" + std::to_string(100000 + i) + "}}\n";
    for (const char* odd : {R"("7")", "7.5", "-7", "70", "[7]", R"({"id":7})", "1e300", "true"})
        storm += std::string(R"({"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":)") + odd + "}}\n";
    storm += R"({"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":7,"reason":"user"}})" "\n";
    s.write(storm);
    s.start_blocking_call(8, "stubborn");
    expect_silence(s, R"({"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":8.0}})");
    {
        std::lock_guard lock(g_stubborn.mu);
        g_stubborn.open = true;
    }
    g_stubborn.cv.notify_all();
    {
        std::unique_lock lock(g_stubborn.mu);
        ASSERT_TRUE(g_stubborn.cv.wait_for(lock, 10s, [&] { return g_stubborn.ended >= ended + 2; }));
    }
    ASSERT_TRUE(no_call_in_flight(s.srv()));
    expect_silence(s, "");  // nothing arrives before a ping's answer...
    EXPECT_TRUE(s.with_id(7).empty()) << s.with_id(7)[0].dump();  // ... and never a result of either call
    EXPECT_TRUE(s.with_id(8).empty()) << s.with_id(8)[0].dump();
    s.write(echo_call(9, R"("still here")") + "\n");
    EXPECT_EQ(s.response(9)["result"]["content"][0]["text"], "still here");
    s.finish();
}

// stdin closes while a call runs and a message is half written: the half message is answered
// (-32700), the running call is stopped after the grace period and answered (the client did not
// cancel it), and the loop returns.
TEST(McpMalformed, StdinClosedMidCall) {
    stdio_server s;
    s.initialize();
    const int ended = blocking_ended();
    s.start_blocking_call(1);
    s.write(R"({"jsonrpc":"2.0","id":2,"method":"pi)");
    const auto t0 = std::chrono::steady_clock::now();
    s.finish();
    EXPECT_LT(std::chrono::steady_clock::now() - t0, 8s);
    EXPECT_EQ(blocking_ended(), ended + 1);  // not left running
    {
        std::lock_guard lock(g_block.mu);
        EXPECT_EQ(g_block.outcomes.back(), "cancelled");
    }
    EXPECT_EQ(s.srv().in_flight(), 0U);
    json r = s.response(1, 0ms);
    EXPECT_EQ(r["result"]["content"][0]["text"], "cancelled") << r.dump();
    bool parse_error = false;
    for (const auto& m : s.with_id(nullptr)) parse_error = parse_error || field(m, {"error", "code"}) == mcp::code::parse_error;
    EXPECT_TRUE(parse_error);
    EXPECT_TRUE(s.with_id(2).empty());
}

namespace {

/// The child: a server on its real stdin/stdout (the pipes), stopped by SIGTERM through
/// mcp::stop_on_signals(). With `elsewhere`, SIGTERM is blocked in the loop's thread (and so in
/// the workers it starts): the signal lands on another thread and cannot interrupt the read.
[[noreturn]] void serve_in_child(int in_fd, int out_fd, bool elsewhere) {
    if (::dup2(in_fd, 0) < 0 || ::dup2(out_fd, 1) < 0) ::_exit(90);
    ::close(in_fd);
    ::close(out_fd);
    const std::atomic<bool>* stop = mcp::stop_on_signals();
    int rc = 91;
    {
        mcp::server srv(mcp::backend_for(box), quiet());
        if (!elsewhere) {
            rc = mcp::run_stdio(srv, 0, 1, stop);
        } else {
            sigset_t term;
            sigemptyset(&term);
            sigaddset(&term, SIGTERM);
            ::pthread_sigmask(SIG_BLOCK, &term, nullptr);
            std::thread loop([&] { rc = mcp::run_stdio(srv, 0, 1, stop); });
            ::pthread_sigmask(SIG_UNBLOCK, &term, nullptr);
            loop.join();
        }
    }
    ::_exit(rc);
}

struct child_run {
    bool exited = false;
    int status = -1;
    std::string out;
    std::chrono::steady_clock::duration stop_time{};
};

/// Forks a server, starts a blocking call, sends SIGTERM once it runs, reads stdout to its end.
child_run sigterm_while_calling(bool elsewhere) {
    child_run res;
    int in[2], out[2];
    if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, in) != 0 || ::pipe2(out, O_CLOEXEC) != 0) return res;
    const pid_t pid = ::fork();
    if (pid < 0) return res;
    if (pid == 0) {
        ::close(in[0]);
        ::close(out[0]);
        serve_in_child(in[1], out[1], elsewhere);
    }
    ::close(in[1]);
    ::close(out[1]);
    const std::string input =
        R"({"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{}}})" "\n"
        R"({"jsonrpc":"2.0","method":"notifications/initialized"})" "\n"
        R"({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"wait_cancel","arguments":{"text":"x"},"_meta":{"progressToken":"p"}}})" "\n";
    // MSG_NOSIGNAL: a dead child must fail the test, not kill the test process with SIGPIPE.
    bool sent = ::send(in[0], input.data(), input.size(), MSG_NOSIGNAL) == static_cast<ssize_t>(input.size());
    bool signalled = !sent;
    if (!sent) ::kill(pid, SIGKILL);
    auto deadline = std::chrono::steady_clock::now() + 10s;
    std::chrono::steady_clock::time_point signalled_at{};
    char buf[4096];
    for (;;) {
        const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
        pollfd p{out[0], POLLIN, 0};
        const int r = left.count() > 0 ? ::poll(&p, 1, static_cast<int>(left.count())) : 0;
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) {  // the child did not end in time
            ::kill(pid, SIGKILL);
            break;
        }
        const ssize_t n = ::read(out[0], buf, sizeof buf);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) break;  // EOF: the child closed stdout, i.e. exited
        res.out.append(buf, static_cast<std::size_t>(n));
        if (!signalled && res.out.find("notifications/progress") != std::string::npos) {
            signalled = true;
            signalled_at = std::chrono::steady_clock::now();
            ::kill(pid, SIGTERM);
            deadline = signalled_at + 10s;
        }
    }
    if (signalled_at != std::chrono::steady_clock::time_point{}) res.stop_time = std::chrono::steady_clock::now() - signalled_at;
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    res.exited = WIFEXITED(status);
    res.status = res.exited ? WEXITSTATUS(status) : -WTERMSIG(status);
    ::close(in[0]);
    ::close(out[0]);
    return res;
}

void expect_clean_sigterm(const child_run& r) {
    EXPECT_TRUE(r.exited) << "the server died of signal " << -r.status;
    EXPECT_EQ(r.status, 0);
    ASSERT_FALSE(r.out.empty());
    EXPECT_EQ(r.out.back(), '\n') << "a partial line on stdout";
    // Prompt: the running call is cancelled at once rather than given the stdin-close grace.
    EXPECT_LT(std::chrono::duration_cast<std::chrono::milliseconds>(r.stop_time).count(), 2400);
    bool answered = false;
    std::size_t start = 0;
    for (std::size_t nl; (nl = r.out.find('\n', start)) != std::string::npos; start = nl + 1) {
        const std::string line = r.out.substr(start, nl - start);
        const std::string problem = jsonrpc_problem(line);
        EXPECT_TRUE(problem.empty()) << problem << ": " << printable(line);
        const json j = json::parse(line, nullptr, false);
        // The client did not cancel the call: it is answered, having been stopped.
        if (field(j, {"id"}) == 1) answered = field(j, {"result", "content"}) == json::array({{{"type", "text"}, {"text", "cancelled"}}});
    }
    EXPECT_TRUE(answered) << r.out;
}

}  // namespace

TEST(McpMalformed, SigtermEndsTheLoopCleanly) { expect_clean_sigterm(sigterm_while_calling(false)); }

// Regression: the loop relied on SIGTERM interrupting its blocked read(), which only happens
// when the signal is delivered to the loop's own thread.
TEST(McpMalformed, SigtermDeliveredToAnotherThreadStillStopsTheLoop) { expect_clean_sigterm(sigterm_while_calling(true)); }

}  // namespace malformed_test
