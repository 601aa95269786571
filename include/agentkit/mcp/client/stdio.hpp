// agentkit/mcp/client/stdio.hpp — the MCP stdio client transport: starts a server process and
// exchanges newline-delimited JSON-RPC messages with it over its stdin and stdout.
//
//   auto t = std::make_unique<agentkit::mcp::stdio_client_transport>(agentkit::mcp::stdio_server{
//       .command = "npx", .args = {"-y", "@modelcontextprotocol/server-memory"}});
//   auto c = agentkit::mcp::client::connect(std::move(t), {.server_name = "memory"});
//
// The server's stderr goes to a log file (stdio_server::stderr_log, else a temporary file removed
// on close), never into the protocol and never to the host's own stdout or stderr; its last lines
// are quoted when the server exits or fails to start. The process gets its own process group
// (a launcher such as npx is stopped with what it started), stdin and stdout as pipes, the host's
// environment plus stdio_server::env, and no other descriptor of the host. Shutdown follows
// the specification: stdin is closed, then SIGTERM after a grace period, then SIGKILL.
//
// Bad servers: a line that is not JSON on stdout is skipped (counted in noise_lines(), written to
// the log); a line longer than max_message_bytes is dropped unread past the limit (its first and
// last bytes are handed to the client, which fails the request it answers); a server that
// stops reading its stdin makes send() fail after send_timeout instead of blocking the host.
#pragma once

#include <agentkit/mcp/client/transport.hpp>
#include <agentkit/core/error.hpp>
#include <agentkit/core/json.hpp>
#include <agentkit/core/result.hpp>

#include <algorithm>
#include <array>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char** environ;  // NOLINT: POSIX

namespace agentkit::mcp {

/// How to start a stdio MCP server (the `command`/`args`/`env` of an `mcpServers` entry).
struct stdio_server {
    std::string command;                      ///< the program (looked up in PATH when it has no '/')
    std::vector<std::string> args;            ///< its arguments
    std::map<std::string, std::string> env;   ///< added to (or replacing in) the host's environment; never printed
    std::string cwd;                          ///< its working directory; empty: the host's
    /// Where the server's stderr goes (appended, kept). Empty: a temporary file, removed on close.
    std::string stderr_log;
    /// Largest message accepted from the server; a longer line is dropped past this size.
    std::size_t max_message_bytes = std::size_t{32} << 20U;
    /// Bound for writing one message (a server that stops reading its stdin is treated as hung).
    std::chrono::milliseconds send_timeout{10000};
    /// How long the server may take to exit after its stdin is closed, before SIGTERM (and as long
    /// again before SIGKILL).
    std::chrono::milliseconds close_grace{2000};
};

namespace detail {

/// A file descriptor closed on destruction.
class owned_fd {
public:
    owned_fd() = default;
    explicit owned_fd(int fd) noexcept : fd_(fd) {}
    owned_fd(owned_fd&& o) noexcept : fd_(std::exchange(o.fd_, -1)) {}
    owned_fd& operator=(owned_fd&& o) noexcept {
        if (this != &o) {
            reset();
            fd_ = std::exchange(o.fd_, -1);
        }
        return *this;
    }
    owned_fd(const owned_fd&) = delete;
    owned_fd& operator=(const owned_fd&) = delete;
    ~owned_fd() { reset(); }
    [[nodiscard]] int get() const noexcept { return fd_; }
    explicit operator bool() const noexcept { return fd_ >= 0; }
    void reset(int fd = -1) noexcept {
        if (fd_ >= 0) ::close(fd_);
        fd_ = fd;
    }

private:
    int fd_ = -1;
};

/// "exited with status 1", "killed by signal 9 (Killed)".
inline std::string wait_status_text(int status) {
    if (WIFEXITED(status)) return "exited with status " + std::to_string(WEXITSTATUS(status));
    if (WIFSIGNALED(status)) {
        const int sig = WTERMSIG(status);
        const char* name = ::strsignal(sig);
        return "killed by signal " + std::to_string(sig) + (name != nullptr ? std::string(" (") + name + ")" : std::string());
    }
    return "ended (status " + std::to_string(status) + ")";
}

/// The last `max` bytes of a file, from the start of a line, with control bytes but newlines and
/// tabs replaced.
inline std::string file_tail(const std::string& path, std::size_t max) {
    std::ifstream f(path, std::ios::binary);
    if (!f) return {};
    f.seekg(0, std::ios::end);
    const auto size = static_cast<std::size_t>(std::max<std::streamoff>(0, f.tellg()));
    const std::size_t from = size > max ? size - max : 0;
    f.seekg(static_cast<std::streamoff>(from));
    std::string s(size - from, '\0');
    f.read(s.data(), static_cast<std::streamsize>(s.size()));
    s.resize(static_cast<std::size_t>(std::max<std::streamsize>(0, f.gcount())));
    if (from > 0)
        if (auto nl = s.find('\n'); nl != std::string::npos) s.erase(0, nl + 1);
    while (!s.empty() && (s.back() == '\n' || s.back() == '\r' || s.back() == ' ')) s.pop_back();
    for (char& c : s)
        if (static_cast<unsigned char>(c) < 0x20 && c != '\n' && c != '\t') c = ' ';
    return s;
}

/// Write all of `data` to a non-blocking descriptor before `deadline`, without SIGPIPE.
inline result<void> write_all(int fd, std::string_view data, std::chrono::steady_clock::time_point deadline) {
    // SIGPIPE is blocked in this thread for the write, and one it raised is taken off the queue.
    sigset_t pipe_set;
    sigset_t old_set;
    sigemptyset(&pipe_set);
    sigaddset(&pipe_set, SIGPIPE);
    ::pthread_sigmask(SIG_BLOCK, &pipe_set, &old_set);
    bool got_epipe = false;
    result<void> out;
    std::size_t off = 0;
    while (off < data.size()) {
        const ssize_t n = ::write(fd, data.data() + off, data.size() - off);
        if (n > 0) {
            off += static_cast<std::size_t>(n);
            continue;
        }
        if (n < 0 && errno == EINTR) continue;
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
            const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
            if (left.count() <= 0) {
                out = fail(errc::timeout, "the server did not read its input in time");
                break;
            }
            pollfd p{fd, POLLOUT, 0};
            ::poll(&p, 1, static_cast<int>(std::min<std::int64_t>(left.count(), 1000)));
            continue;
        }
        got_epipe = n < 0 && errno == EPIPE;
        out = fail(errc::transport_closed, std::string("the server's input is closed: ") + std::strerror(errno));
        break;
    }
    if (got_epipe) {
        const timespec zero{0, 0};
        while (::sigtimedwait(&pipe_set, nullptr, &zero) == SIGPIPE) {
        }
    }
    ::pthread_sigmask(SIG_SETMASK, &old_set, nullptr);
    return out;
}

}  // namespace detail

/// The stdio client transport (see the file comment).
class stdio_client_transport final : public client_transport {
public:
    /// A transport that will start `server` on start().
    explicit stdio_client_transport(stdio_server server) : cfg_(std::move(server)) {}
    ~stdio_client_transport() override { close(); }

    /// Start the process and the reader thread. `transport.io` when the program cannot be started.
    result<void> start(transport_handlers h) override {
        std::lock_guard lock(life_mu_);
        if (started_) return fail(errc::internal, "stdio transport started twice");
        h_ = std::move(h);
        if (cfg_.command.empty())
            return fail(errc::args_invalid, "no command to start the MCP server with", "Give the server's \"command\".");
        if (cfg_.stderr_log.empty()) {
            std::error_code ec;
            auto dir = std::filesystem::temp_directory_path(ec);
            if (ec) dir = "/tmp";
            std::string tmpl = (dir / "agentkit-mcp-stderr-XXXXXX").string();
            const int fd = ::mkstemp(tmpl.data());
            if (fd < 0) return fail(errc::transport_io, std::string("cannot create the server's stderr log: ") + std::strerror(errno));
            ::close(fd);
            log_path_ = tmpl;
            remove_log_ = true;
        } else {
            log_path_ = cfg_.stderr_log;
        }
        int in_pipe[2];
        int out_pipe[2];
        int wake[2];
        if (::pipe2(in_pipe, O_CLOEXEC) != 0) return fail(errc::transport_io, "pipe() failed");
        detail::owned_fd in_r(in_pipe[0]);
        detail::owned_fd in_w(in_pipe[1]);
        if (::pipe2(out_pipe, O_CLOEXEC) != 0) return fail(errc::transport_io, "pipe() failed");
        detail::owned_fd out_r(out_pipe[0]);
        detail::owned_fd out_w(out_pipe[1]);
        if (::pipe2(wake, O_CLOEXEC | O_NONBLOCK) != 0) return fail(errc::transport_io, "pipe() failed");
        wake_r_.reset(wake[0]);
        wake_w_.reset(wake[1]);

        std::vector<std::string> argv_s;
        argv_s.push_back(cfg_.command);
        for (const auto& a : cfg_.args) argv_s.push_back(a);
        std::vector<char*> argv;
        for (auto& a : argv_s) argv.push_back(a.data());
        argv.push_back(nullptr);
        std::vector<std::string> env_s;
        for (char** e = environ; e != nullptr && *e != nullptr; ++e) {
            std::string_view kv(*e);
            const auto eq = kv.find('=');
            if (eq != std::string_view::npos && cfg_.env.count(std::string(kv.substr(0, eq))) != 0) continue;
            env_s.emplace_back(kv);
        }
        for (const auto& [k, v] : cfg_.env) env_s.push_back(k + "=" + v);
        std::vector<char*> envp;
        for (auto& e : env_s) envp.push_back(e.data());
        envp.push_back(nullptr);

        posix_spawn_file_actions_t fa;
        posix_spawnattr_t attr;
        if (::posix_spawn_file_actions_init(&fa) != 0) return fail(errc::transport_io, "posix_spawn init failed");
        if (::posix_spawnattr_init(&attr) != 0) {
            ::posix_spawn_file_actions_destroy(&fa);
            return fail(errc::transport_io, "posix_spawn init failed");
        }
        int rc = 0;
        const auto step = [&rc](int r) {
            if (rc == 0) rc = r;
        };
        step(::posix_spawn_file_actions_adddup2(&fa, in_r.get(), 0));
        step(::posix_spawn_file_actions_adddup2(&fa, out_w.get(), 1));
        step(::posix_spawn_file_actions_addopen(&fa, 2, log_path_.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0600));
        if (!cfg_.cwd.empty()) step(::posix_spawn_file_actions_addchdir_np(&fa, cfg_.cwd.c_str()));
#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 34))
        step(::posix_spawn_file_actions_addclosefrom_np(&fa, 3));
#endif
        sigset_t empty;
        sigemptyset(&empty);
        sigset_t defaults;
        sigemptyset(&defaults);
        for (int s : {SIGPIPE, SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGCHLD, SIGUSR1, SIGUSR2, SIGALRM}) sigaddset(&defaults, s);
        step(::posix_spawnattr_setflags(&attr, static_cast<short>(POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF)));
        step(::posix_spawnattr_setpgroup(&attr, 0));
        step(::posix_spawnattr_setsigmask(&attr, &empty));
        step(::posix_spawnattr_setsigdefault(&attr, &defaults));
        pid_t pid = -1;
        if (rc == 0) rc = ::posix_spawnp(&pid, cfg_.command.c_str(), &fa, &attr, argv.data(), envp.data());
        ::posix_spawn_file_actions_destroy(&fa);
        ::posix_spawnattr_destroy(&attr);
        if (rc != 0)
            return fail(errc::transport_io, "cannot start the MCP server \"" + cfg_.command + "\": " + std::strerror(rc),
                        "Check the server's \"command\" (is it installed and in PATH?) and its \"cwd\".",
                        json{{"command", cfg_.command}});
        pid_ = pid;
        in_r.reset();
        out_w.reset();
        (void)::fcntl(in_w.get(), F_SETFL, ::fcntl(in_w.get(), F_GETFL) | O_NONBLOCK);
        stdin_ = std::move(in_w);
        stdout_ = std::move(out_r);
        started_ = true;
        reader_ = std::thread([this] { read_loop(); });
        return {};
    }

    /// Send one message followed by a newline.
    result<void> send(const std::string& message) override {
        std::lock_guard lock(write_mu_);
        if (!stdin_ || closed_.load()) return fail(errc::transport_closed, "the server's input is closed");
        std::string line = message;
        line += '\n';
        return detail::write_all(stdin_.get(), line, std::chrono::steady_clock::now() + cfg_.send_timeout);
    }

    /// Close stdin, wait up to close_grace, SIGTERM, wait again, SIGKILL; join the reader; remove
    /// a temporary log. Idempotent.
    void close() override {
        std::lock_guard lock(life_mu_);
        if (!started_ || shut_) return;
        shut_ = true;
        closing_.store(true);
        {
            std::lock_guard w(write_mu_);
            stdin_.reset();
        }
        if (!wait_exit(cfg_.close_grace)) {
            ::kill(-pid_, SIGTERM);
            if (!wait_exit(cfg_.close_grace)) {
                ::kill(-pid_, SIGKILL);
                (void)wait_exit(std::chrono::milliseconds(5000));
            }
        }
        if (wake_w_) {
            const char c = 'x';
            (void)!::write(wake_w_.get(), &c, 1);
        }
        if (reader_.joinable()) reader_.join();
        if (remove_log_) {
            std::error_code ec;
            std::filesystem::remove(log_path_, ec);
        }
    }

    /// The command line without the environment ("npx -y @modelcontextprotocol/server-memory").
    [[nodiscard]] std::string describe() const override {
        std::string s = cfg_.command;
        for (const auto& a : cfg_.args) s += " " + a;
        if (s.size() > 200) s = s.substr(0, 197) + "...";
        return s;
    }

    /// The end of the server's stderr log (up to 800 bytes).
    [[nodiscard]] std::string diagnostics() const override { return log_path_.empty() ? std::string() : detail::file_tail(log_path_, 800); }

    /// The server's process id (its process group id too); -1 before start().
    [[nodiscard]] pid_t pid() const noexcept { return pid_; }
    /// Where the server's stderr goes.
    [[nodiscard]] const std::string& stderr_log() const noexcept { return log_path_; }
    /// Lines on the server's stdout that were not JSON messages (skipped).
    [[nodiscard]] std::size_t noise_lines() const noexcept { return noise_.load(); }
    /// How the process ended, once it has ("exited with status 1"); empty while it runs.
    [[nodiscard]] std::string exit_description() const {
        std::lock_guard lock(status_mu_);
        return status_ ? detail::wait_status_text(*status_) : std::string();
    }

private:
    bool wait_exit(std::chrono::milliseconds timeout) {
        const auto deadline = std::chrono::steady_clock::now() + timeout;
        auto pause = std::chrono::microseconds(200);
        for (;;) {
            if (reap(false)) return true;
            if (std::chrono::steady_clock::now() >= deadline) return false;
            std::this_thread::sleep_for(pause);  // polling a child's exit (no pidfd wait in this header)
            pause = std::min(pause * 2, std::chrono::microseconds(20000));
        }
    }

    bool reap(bool block) {
        std::lock_guard lock(status_mu_);
        if (status_) return true;
        int st = 0;
        const pid_t r = ::waitpid(pid_, &st, block ? 0 : WNOHANG);
        if (r == pid_) {
            status_ = st;
            return true;
        }
        if (r < 0 && errno == ECHILD) {
            status_ = 0;
            return true;
        }
        return false;
    }

    void log_noise(std::string_view line) {
        ++noise_;
        std::ofstream f(log_path_, std::ios::app | std::ios::binary);
        if (!f) return;
        f << "[agentkit] skipped a line on stdout that is not a JSON-RPC message (" << line.size() << " bytes): "
          << line.substr(0, 200) << '\n';
    }

    void deliver(std::string_view line) {
        if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
        std::size_t i = 0;
        while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) ++i;
        if (i == line.size()) return;  // an empty line
        if (line[i] != '{' && line[i] != '[') {
            log_noise(line);
            return;
        }
        if (h_.on_message) h_.on_message(line);
    }

    void read_loop() {
        const std::size_t limit = cfg_.max_message_bytes;
        std::string pending;
        std::size_t scanned = 0;
        bool discarding = false;
        std::string head;
        std::string tail;
        std::size_t dropped = 0;
        std::array<char, 65536> chunk{};
        for (;;) {
            std::array<pollfd, 2> p{pollfd{stdout_.get(), POLLIN, 0}, pollfd{wake_r_.get(), POLLIN, 0}};
            const int r = ::poll(p.data(), p.size(), -1);
            if (r < 0) {
                if (errno == EINTR) continue;
                break;
            }
            if ((p[1].revents & POLLIN) != 0) break;  // close()
            if ((p[0].revents & (POLLIN | POLLHUP | POLLERR)) == 0) continue;
            const ssize_t n = ::read(stdout_.get(), chunk.data(), chunk.size());
            if (n < 0) {
                if (errno == EINTR || errno == EAGAIN) continue;
                break;
            }
            if (n == 0) break;  // the server closed its stdout (it exited)
            std::string_view data(chunk.data(), static_cast<std::size_t>(n));
            while (discarding && !data.empty()) {
                const std::size_t nl = data.find('\n');
                const std::string_view part = data.substr(0, nl);
                dropped += part.size();
                tail += part;
                if (tail.size() > 512) tail.erase(0, tail.size() - 512);
                if (nl == std::string_view::npos) {
                    data = {};
                    break;
                }
                data.remove_prefix(nl + 1);
                discarding = false;
                if (h_.on_oversized) h_.on_oversized(head, tail, dropped);
                head.clear();
                tail.clear();
            }
            pending.append(data);
            std::size_t start = 0;
            for (;;) {
                const std::size_t nl = pending.find('\n', std::max(start, scanned));
                if (nl == std::string::npos) break;
                deliver(std::string_view(pending).substr(start, nl - start));
                start = nl + 1;
            }
            pending.erase(0, start);
            scanned = pending.size();
            if (pending.size() > limit) {
                head = pending.substr(0, 512);
                tail = pending.substr(pending.size() - 512);
                dropped = pending.size();
                pending.clear();
                pending.shrink_to_fit();
                scanned = 0;
                discarding = true;
            }
        }
        if (closing_.load()) {
            closed_.store(true);
            if (h_.on_close)
                h_.on_close(error(errc::transport_closed, "the connection to \"" + describe() + "\" was closed by the host"));
            return;
        }
        if (!pending.empty() && !discarding) deliver(pending);
        // The server's stdout ended: it exited or is about to; give it a moment, then stop it.
        if (!wait_exit(std::chrono::milliseconds(1000))) {
            ::kill(-pid_, SIGKILL);
            (void)wait_exit(std::chrono::milliseconds(5000));
        }
        closed_.store(true);
        std::string why = "the MCP server \"" + describe() + "\" " + exit_description();
        const std::string tail_text = diagnostics();
        json details{{"command", cfg_.command}, {"exit", exit_description()}};
        if (!tail_text.empty()) {
            details["stderr_tail"] = tail_text;
            why += "; the end of its stderr: " + tail_text.substr(tail_text.size() > 300 ? tail_text.size() - 300 : 0);
        }
        if (h_.on_close)
            h_.on_close(error(errc::transport_closed, std::move(why),
                              "The server stopped; check its command, arguments and environment, and its log at " + log_path_ + ".",
                              std::move(details)));
    }

    stdio_server cfg_;
    transport_handlers h_;
    std::mutex life_mu_;
    std::mutex write_mu_;
    mutable std::mutex status_mu_;
    std::optional<int> status_;
    bool started_ = false;
    bool shut_ = false;
    std::atomic<bool> closing_{false};
    std::atomic<bool> closed_{false};
    std::atomic<std::size_t> noise_{0};
    pid_t pid_ = -1;
    std::string log_path_;
    bool remove_log_ = false;
    detail::owned_fd stdin_;
    detail::owned_fd stdout_;
    detail::owned_fd wake_r_;
    detail::owned_fd wake_w_;
    std::thread reader_;
};

}  // namespace agentkit::mcp
