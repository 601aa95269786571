// agentkit/cdp/launch.hpp — starting and stopping a local Chromium process.
//
// `browser_process` owns one launched browser: its process group, a fresh temporary
// directory (profile + stderr log) that is removed on destruction, and the child's exit
// status once reaped. The transports use it; hosts configure it through `launch_options`.
//
// Hygiene: posix_spawn (glibc reports exec failures synchronously), every other descriptor
// of ours closed in the child (close_range via posix_spawn_file_actions_addclosefrom_np on
// glibc >= 2.34; everything agentkit opens is close-on-exec anyway), default signal
// dispositions and an empty signal mask, its own process group (so renderers, the zygote
// and the GPU process are signalled with it), stdin from /dev/null and stdout/stderr to a
// log file — never to our stdout, which may belong to a protocol (MCP stdio).
#pragma once

#include <agentkit/cdp/detail/posix.hpp>
#include <agentkit/core/json.hpp>
#include <agentkit/core/result.hpp>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <mutex>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>
#include <vector>

#include <signal.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

extern char** environ;  // NOLINT: POSIX

#ifndef AGENTKIT_CHROMIUM_DEFAULT_PATH
/// The browser used when neither launch_options::executable nor $AGENTKIT_CHROMIUM is set.
#define AGENTKIT_CHROMIUM_DEFAULT_PATH "/usr/lib/chromium/chromium"
#endif

namespace agentkit::cdp {

namespace detail {

/// Whether a comma-separated Blink feature list (the value of --disable-blink-features=) names `feature`.
inline bool names_blink_feature(std::string_view list, std::string_view feature) {
    while (!list.empty()) {
        const auto comma = list.find(',');
        if (list.substr(0, comma) == feature) return true;
        if (comma == std::string_view::npos) break;
        list.remove_prefix(comma + 1);
    }
    return false;
}

/// Disables the Blink feature AutomationControlled (navigator.webdriver) in a browser command
/// line: added to the last --disable-blink-features= (Chromium reads the last one given), or as
/// one of its own; nothing when the last --enable-blink-features= asks for the feature.
inline void hide_automation(std::vector<std::string>& args) {
    constexpr std::string_view disable = "--disable-blink-features=";
    constexpr std::string_view enable = "--enable-blink-features=";
    constexpr std::string_view feature = "AutomationControlled";
    for (auto it = args.rbegin(); it != args.rend(); ++it)  // the last one given counts
        if (std::string_view(*it).substr(0, enable.size()) == enable) {
            if (names_blink_feature(std::string_view(*it).substr(enable.size()), feature)) return;
            break;
        }
    for (auto it = args.rbegin(); it != args.rend(); ++it) {
        if (std::string_view(*it).substr(0, disable.size()) != disable) continue;
        if (!names_blink_feature(std::string_view(*it).substr(disable.size()), feature)) {
            if (it->size() > disable.size()) it->push_back(',');
            it->append(feature);
        }
        return;
    }
    args.push_back(std::string(disable) + std::string(feature));
}

}  // namespace detail

/// How to start a local Chromium.
struct launch_options {
    /// Browser binary. Empty: $AGENTKIT_CHROMIUM if set, else AGENTKIT_CHROMIUM_DEFAULT_PATH.
    std::string executable;
    /// Extra command-line flags from the host, appended after agentkit's own.
    std::vector<std::string> extra_args;
    /// --headless=new (false shows a window; needs a display).
    bool headless = true;
    /// Whether pages see `navigator.webdriver == true`, as Chromium sets it for a browser under
    /// remote control. false (the default, as Playwright's browsers): the Blink feature
    /// AutomationControlled is disabled, merged into a `--disable-blink-features=` of
    /// extra_args when there is one; an `--enable-blink-features=` naming it in extra_args also
    /// keeps it on.
    bool automation_visible = false;
    /// Profile directory. Empty: a fresh one inside the temporary directory (removed on close).
    /// A host-provided profile is kept.
    std::string user_data_dir;
    /// Where the browser's stdout and stderr go. Empty: a log file inside the temporary
    /// directory (removed on close; its tail is quoted in launch and crash errors).
    /// "/dev/null" discards; any other path is appended to and kept.
    std::string log_path;
    /// Parent of the temporary directory. Empty: $TMPDIR or /tmp.
    std::string temp_parent;
    /// Bound for the browser to become ready (first CDP answer / DevToolsActivePort).
    std::chrono::milliseconds launch_timeout{30000};
    /// Bound for a polite Browser.close before the process group is signalled.
    std::chrono::milliseconds close_timeout{3000};
    /// Bound for writing one message (a browser that stops reading is treated as hung).
    std::chrono::milliseconds send_timeout{30000};
    /// Largest message accepted from the browser.
    std::size_t max_message_size = std::size_t{256} << 20U;
    /// Profile preferences merged (RFC 7386) into `<profile>/Default/Preferences` before the start,
    /// in a host's profile too. The default turns off network prediction: speculation-rules
    /// prefetch and prerender, preconnect and DNS prefetch (requests and bare connections the
    /// CDP Fetch domain never sees; no command-line flag or CDP command stops them in Chromium
    /// 156). null: the profile's preferences are left as they are.
    json preferences = {{"net", {{"network_prediction_options", 2}}}};
};

/// The executable a launch would use (options, then $AGENTKIT_CHROMIUM, then the default).
[[nodiscard]] inline std::string resolve_executable(const launch_options& o) {
    if (!o.executable.empty()) return o.executable;
    if (const char* env = std::getenv("AGENTKIT_CHROMIUM"); env != nullptr && *env != '\0') return env;
    return AGENTKIT_CHROMIUM_DEFAULT_PATH;
}

/// Describe a waitpid() status: "exited with status 1", "killed by signal 9 (Killed)".
[[nodiscard]] inline std::string describe_wait_status(int status) {
    if (WIFEXITED(status)) return "exited with status " + std::to_string(WEXITSTATUS(status));
    if (WIFSIGNALED(status)) {
        const int sig = WTERMSIG(status);
        std::string text = "killed by signal " + std::to_string(sig);
#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 32))
        if (const char* name = ::sigdescr_np(sig); name != nullptr) {
            text += " (";
            text += name;
            text += ')';
        }
#endif
        return text;
    }
    return "ended with wait status " + std::to_string(status);
}

/// One launched browser process (and its process group and temporary directory).
/// Thread-safe: reaping may race between a reader thread that saw EOF and a closing thread.
class browser_process {
public:
    /// A descriptor of ours to install in the child at `child_fd`.
    struct fd_mapping {
        int parent_fd;  ///< our descriptor
        int child_fd;   ///< the descriptor number it gets in the browser
    };

    /// Merge `prefs` into the profile's Default/Preferences (created when missing). A file that
    /// is not a JSON object is an error: the settings it should carry would silently not hold.
    [[nodiscard]] static result<void> seed_preferences(const std::filesystem::path& profile, const json& prefs) {
        if (prefs.is_null() || (prefs.is_object() && prefs.empty())) return {};
        if (!prefs.is_object()) return fail(errc::args_invalid, "launch_options::preferences must be a JSON object");
        const auto dir = profile / "Default";
        std::error_code ec;
        std::filesystem::create_directories(dir, ec);
        if (ec) return fail(errc::browser_launch, "cannot create " + dir.string() + ": " + ec.message());
        const auto file = dir / "Preferences";
        json current = json::object();
        if (std::filesystem::exists(file, ec)) {
            std::ifstream in(file);
            current = json::parse(in, nullptr, /*allow_exceptions=*/false);
            if (!current.is_object())
                return fail(errc::browser_launch, file.string() + " is not a JSON object; its network settings cannot be set",
                            "Repair or remove the file, or set launch_options::preferences to null.");
        }
        current.merge_patch(prefs);
        const auto tmp = dir / "Preferences.agentkit-tmp";
        {
            std::ofstream out(tmp, std::ios::trunc);
            out << current.dump();
            if (!out) return fail(errc::browser_launch, "cannot write " + tmp.string());
        }
        std::filesystem::rename(tmp, file, ec);
        if (ec) return fail(errc::browser_launch, "cannot write " + file.string() + ": " + ec.message());
        return {};
    }

    /// Create the temporary directory (and profile dir). Separate from spawn() so a caller
    /// can watch the profile before the browser starts (DevToolsActivePort).
    [[nodiscard]] static result<std::unique_ptr<browser_process>> prepare(const launch_options& o) {
        auto p = std::unique_ptr<browser_process>(new browser_process());
        p->options_ = o;
        p->executable_ = resolve_executable(o);
        std::string parent = o.temp_parent;
        if (parent.empty()) {
            const char* t = std::getenv("TMPDIR");
            parent = (t != nullptr && *t != '\0') ? t : "/tmp";
        }
        std::string templ = parent + "/agentkit-chromium-XXXXXX";
        if (::mkdtemp(templ.data()) == nullptr)
            return fail(errc::browser_launch, "cannot create a temporary directory in " + parent + ": " +
                                                  detail::errno_message(errno),
                        "Set launch_options::temp_parent or $TMPDIR to a writable directory.");
        p->temp_dir_ = templ;
        if (o.user_data_dir.empty()) {
            p->profile_dir_ = p->temp_dir_ / "profile";
            std::error_code ec;
            std::filesystem::create_directory(p->profile_dir_, ec);
            if (ec)
                return fail(errc::browser_launch, "cannot create the profile directory: " + ec.message());
        } else {
            p->profile_dir_ = o.user_data_dir;
            // A profile another browser of this machine holds (Chromium's SingletonLock names
            // "<host>-<pid>"): said now, in words a user can act on, rather than as the second
            // browser's exit.
            std::error_code lec;
            const auto lock = std::filesystem::read_symlink(p->profile_dir_ / "SingletonLock", lec);
            const std::string owner = lec ? std::string() : lock.string();
            char host[256] = {};
            if (const auto dash = owner.rfind('-'); dash != std::string::npos && ::gethostname(host, sizeof host - 1) == 0 &&
                                                    owner.substr(0, dash) == host) {
                const long pid = std::strtol(owner.c_str() + dash + 1, nullptr, 10);
                // a browser this process launched may be closing (a session that just ended):
                // its exit is waited for, within the launch timeout and 5 s
                if (const auto st = proc_state(static_cast<pid_t>(pid)); pid > 0 && st && st->second == ::getpid()) {
                    const long fd = ::syscall(SYS_pidfd_open, static_cast<pid_t>(pid), 0);
                    if (fd >= 0) {
                        detail::unique_fd child(static_cast<int>(fd));
                        pollfd pf{child.get(), POLLIN, 0};
                        detail::poll_until(&pf, 1, detail::deadline_after(std::min(o.launch_timeout, std::chrono::milliseconds(5000))));
                        if ((pf.revents & POLLIN) != 0) {  // exited: its lock is stale now (or gone)
                            std::error_code gone;
                            if (std::filesystem::read_symlink(p->profile_dir_ / "SingletonLock", gone) == lock && !gone)
                                std::filesystem::remove(p->profile_dir_ / "SingletonLock", gone);
                        }
                    }
                }
                if (const auto now = proc_state(static_cast<pid_t>(pid)); pid > 0 && ::kill(static_cast<pid_t>(pid), 0) == 0 && !(now && now->first == 'Z'))
                    return fail(errc::browser_launch,
                                "the browser profile " + o.user_data_dir + " is already in use by another browser (pid " +
                                    std::to_string(pid) + "): close it, or use --isolated to run multiple instances of the same browser",
                                "Give launch_options::user_data_dir a directory of its own, or none (a temporary profile).");
            }
        }
        p->log_path_ = o.log_path.empty() ? (p->temp_dir_ / "chromium.log").string() : o.log_path;
        if (auto pr = seed_preferences(p->profile_dir_, o.preferences); !pr) return fail(pr.error());
        return p;
    }

    /// A process's state letter and parent (/proc/PID/stat), when it can be read.
    [[nodiscard]] static std::optional<std::pair<char, pid_t>> proc_state(pid_t pid) {
        std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
        std::string line;
        if (!std::getline(in, line)) return std::nullopt;
        const auto close = line.rfind(')');  // the command name is in parentheses and may hold anything
        if (close == std::string::npos || close + 4 >= line.size()) return std::nullopt;
        const char state = line[close + 2];
        const long ppid = std::strtol(line.c_str() + close + 4, nullptr, 10);
        return std::pair{state, static_cast<pid_t>(ppid)};
    }

    /// Start the browser with agentkit's flags, `mode_args` (e.g. --remote-debugging-pipe)
    /// and the host's extra flags, installing `fds` in the child.
    [[nodiscard]] result<void> spawn(const std::vector<std::string>& mode_args, const std::vector<fd_mapping>& fds) {
        std::vector<std::string> args;
        args.push_back(executable_);
        if (options_.headless) args.emplace_back("--headless=new");
        args.push_back("--user-data-dir=" + profile_dir_.string());
        for (const char* f : {"--disable-background-networking", "--disable-component-update", "--disable-sync",
                              "--no-first-run", "--no-default-browser-check", "--disable-gpu", "--mute-audio",
                              "--disable-breakpad", "--disable-crash-reporter", "--password-store=basic",
                              "--use-mock-keychain"})
            args.emplace_back(f);
        if (::geteuid() == 0) args.emplace_back("--no-sandbox");  // Chromium refuses to run as root otherwise
        for (const auto& a : mode_args) args.push_back(a);
        for (const auto& a : options_.extra_args) args.push_back(a);
        if (!options_.automation_visible) detail::hide_automation(args);
        args.emplace_back("about:blank");
        args_ = args;

        std::vector<char*> argv;
        argv.reserve(args.size() + 1);
        for (auto& a : args) argv.push_back(a.data());
        argv.push_back(nullptr);

        posix_spawn_file_actions_t fa;
        posix_spawnattr_t attr;
        if (::posix_spawn_file_actions_init(&fa) != 0) return fail(errc::browser_launch, "posix_spawn init failed");
        if (::posix_spawnattr_init(&attr) != 0) {
            ::posix_spawn_file_actions_destroy(&fa);
            return fail(errc::browser_launch, "posix_spawn init failed");
        }
        int rc = 0;
        const auto step = [&rc](int r) {
            if (rc == 0) rc = r;
        };
        step(::posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0));
        step(::posix_spawn_file_actions_addopen(&fa, 1, log_path_.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0600));
        step(::posix_spawn_file_actions_adddup2(&fa, 1, 2));
        for (const auto& m : fds) step(::posix_spawn_file_actions_adddup2(&fa, m.parent_fd, m.child_fd));
#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 34))
        int first_free = 3;
        for (const auto& m : fds) first_free = std::max(first_free, m.child_fd + 1);
        step(::posix_spawn_file_actions_addclosefrom_np(&fa, first_free));
#endif
        sigset_t empty;
        sigemptyset(&empty);
        sigset_t defaults;
        sigemptyset(&defaults);
        for (int s : {SIGPIPE, SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGCHLD, SIGUSR1, SIGUSR2, SIGALRM})
            sigaddset(&defaults, s);
        step(::posix_spawnattr_setflags(
            &attr, static_cast<short>(POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF)));
        step(::posix_spawnattr_setpgroup(&attr, 0));
        step(::posix_spawnattr_setsigmask(&attr, &empty));
        step(::posix_spawnattr_setsigdefault(&attr, &defaults));
        pid_t pid = -1;
        if (rc == 0) rc = ::posix_spawn(&pid, executable_.c_str(), &fa, &attr, argv.data(), environ);
        ::posix_spawn_file_actions_destroy(&fa);
        ::posix_spawnattr_destroy(&attr);
        if (rc != 0)
            return fail(errc::browser_launch,
                        rc == ENOENT ? "cannot start the browser: the executable doesn't exist at '" + executable_ + "'"
                                     : "cannot start the browser '" + executable_ + "': " + detail::errno_message(rc),
                        "Install Chromium (Debian: apt-get install chromium) or point launch_options::executable or "
                        "$AGENTKIT_CHROMIUM at a Chromium binary.",
                        json{{"executable", executable_}});
        std::lock_guard lock(mu_);
        pid_ = pid;
        const long fd = ::syscall(SYS_pidfd_open, pid, 0);
        if (fd >= 0) pidfd_.reset(static_cast<int>(fd));
        return {};
    }

    browser_process(const browser_process&) = delete;
    browser_process& operator=(const browser_process&) = delete;

    /// Stops the process group (SIGTERM, then SIGKILL), reaps, removes the temporary directory.
    ~browser_process() {
        terminate(std::chrono::milliseconds(1000));
        remove_temp_dir();
    }

    /// The browser's process id (its process group id too).
    [[nodiscard]] pid_t pid() const noexcept { return pid_; }
    /// The profile directory (--user-data-dir).
    [[nodiscard]] const std::filesystem::path& profile_dir() const noexcept { return profile_dir_; }
    /// The temporary directory of this launch (the profile unless user_data_dir was given), removed on destruction.
    [[nodiscard]] const std::filesystem::path& temp_dir() const noexcept { return temp_dir_; }
    /// The browser executable that was started.
    [[nodiscard]] const std::string& executable() const noexcept { return executable_; }
    /// The command-line arguments it was started with.
    [[nodiscard]] const std::vector<std::string>& args() const noexcept { return args_; }
    /// The launch options.
    [[nodiscard]] const launch_options& options() const noexcept { return options_; }
    /// Readable (POLLIN) once the process has exited; -1 when pidfds are unavailable.
    [[nodiscard]] int pidfd() const noexcept { return pidfd_.get(); }

    /// True once reaped.
    [[nodiscard]] bool exited() {
        std::lock_guard lock(mu_);
        try_reap_locked();
        return reaped_;
    }

    /// The raw wait status once reaped.
    [[nodiscard]] std::optional<int> wait_status() {
        std::lock_guard lock(mu_);
        try_reap_locked();
        if (!reaped_) return std::nullopt;
        return status_;
    }

    /// "exited with status 0", "killed by signal 9 (Killed)" or "still running".
    [[nodiscard]] std::string exit_description() {
        auto s = wait_status();
        return s ? describe_wait_status(*s) : std::string("still running");
    }

    /// Wait (bounded) for the process to exit and reap it. True when it has exited.
    bool wait_exit(std::chrono::milliseconds timeout) {
        const auto deadline = detail::deadline_after(timeout);
        if (pidfd_) {
            pollfd p{pidfd_.get(), POLLIN, 0};
            detail::poll_until(&p, 1, deadline);
            return exited();
        }
        // No pidfd (old kernel or seccomp): a bounded poll of waitpid with backoff.
        auto step = std::chrono::microseconds(200);
        for (;;) {
            if (exited()) return true;
            if (detail::clock::now() >= deadline) return false;
            ::usleep(static_cast<useconds_t>(step.count()));
            step = std::min(step * 2, std::chrono::microseconds(20000));
        }
    }

    /// Signal the whole process group: SIGTERM, wait up to `grace`, then SIGKILL; reap the
    /// browser and wait (bounded) until no member of the group is left. Idempotent.
    void terminate(std::chrono::milliseconds grace) {
        if (pid_ <= 0) return;
        {
            // Once only: after the group is gone its id may be reused by an unrelated process.
            std::lock_guard lock(mu_);
            if (terminated_) return;
            terminated_ = true;
        }
        if (!exited()) {
            ::kill(-pid_, SIGTERM);
            if (!wait_exit(grace)) {
                ::kill(-pid_, SIGKILL);
                wait_exit(std::chrono::milliseconds(5000));
            }
            if (!exited()) {  // a process that survives SIGKILL for 5 s is in uninterruptible sleep
                std::lock_guard lock(mu_);
                int st = 0;
                if (!reaped_ && ::waitpid(pid_, &st, 0) == pid_) {
                    reaped_ = true;
                    status_ = st;
                }
            }
        }
        kill_stragglers();
    }

    /// The last `max_bytes` of the browser's log (empty when logging to /dev/null).
    [[nodiscard]] std::string log_tail(std::size_t max_bytes = 2000) const {
        if (log_path_ == "/dev/null") return {};
        std::ifstream in(log_path_, std::ios::binary);
        if (!in) return {};
        in.seekg(0, std::ios::end);
        const auto size = static_cast<std::streamoff>(in.tellg());
        const auto start = size > static_cast<std::streamoff>(max_bytes) ? size - static_cast<std::streamoff>(max_bytes) : 0;
        in.seekg(start);
        std::string s(static_cast<std::size_t>(size - start), '\0');
        in.read(s.data(), static_cast<std::streamsize>(s.size()));
        return s;
    }

    /// The browser's last words for an error message: the last (at most three) non-empty lines
    /// of its log, joined by " | ", at most `max_bytes` (the end kept); empty when it said nothing.
    [[nodiscard]] std::string last_words(std::size_t max_bytes = 400) const {
        const std::string tail = log_tail(4000);
        std::vector<std::string> lines;
        std::size_t end = tail.size();
        while (end > 0 && lines.size() < 3) {
            std::size_t start = tail.rfind('\n', end - 1);
            start = start == std::string::npos ? 0 : start + 1;
            std::string line = tail.substr(start, end - start);
            while (!line.empty() && (line.back() == '\r' || line.back() == ' ' || line.back() == '\t')) line.pop_back();
            std::size_t lead = 0;
            while (lead < line.size() && (line[lead] == ' ' || line[lead] == '\t')) ++lead;
            if (lead < line.size()) lines.insert(lines.begin(), line.substr(lead));
            end = start == 0 ? 0 : start - 1;
        }
        std::string out;
        for (const auto& l : lines) out += (out.empty() ? "" : " | ") + l;
        if (out.size() > max_bytes) {
            std::size_t cut = out.size() - max_bytes;
            while (cut < out.size() && (static_cast<unsigned char>(out[cut]) & 0xC0U) == 0x80U) ++cut;  // a whole UTF-8 character
            out = "…" + out.substr(cut);
        }
        return out;
    }

    /// Remove the temporary directory now (the process should be gone).
    void remove_temp_dir() noexcept {
        if (temp_dir_.empty()) return;
        std::error_code ec;
        std::filesystem::remove_all(temp_dir_, ec);
        temp_dir_.clear();
    }

private:
    browser_process() = default;

    void try_reap_locked() {
        if (reaped_ || pid_ <= 0) return;
        int st = 0;
        pid_t r = 0;
        do {
            r = ::waitpid(pid_, &st, WNOHANG);
        } while (r < 0 && errno == EINTR);
        if (r == pid_) {
            reaped_ = true;
            status_ = st;
        } else if (r < 0 && errno == ECHILD) {  // someone else reaped it (a SIGCHLD=SIG_IGN host)
            reaped_ = true;
            status_ = 0;
        }
    }

    /// After the browser is gone its helpers (renderers, zygote, GPU) may linger in the
    /// group: SIGKILL them and wait, bounded, until the group is empty.
    void kill_stragglers() noexcept {
        if (::kill(-pid_, SIGKILL) != 0) return;  // ESRCH: nobody left
        auto step = std::chrono::microseconds(100);
        const auto deadline = detail::deadline_after(std::chrono::milliseconds(2000));
        while (::kill(-pid_, 0) == 0 && detail::clock::now() < deadline) {
            if (only_zombies_left()) return;  // dead, waiting for init to reap them
            ::usleep(static_cast<useconds_t>(step.count()));
            step = std::min(step * 2, std::chrono::microseconds(20000));
        }
    }

    [[nodiscard]] bool only_zombies_left() const noexcept {
        std::error_code ec;
        for (const auto& entry : std::filesystem::directory_iterator("/proc", ec)) {
            const std::string name = entry.path().filename().string();
            if (name.empty() || name.find_first_not_of("0123456789") != std::string::npos) continue;
            std::ifstream stat(entry.path() / "stat");
            std::string line;
            if (!std::getline(stat, line)) continue;
            const auto close = line.rfind(')');
            if (close == std::string::npos || close + 2 >= line.size()) continue;
            // fields after "comm)": state ppid pgrp
            std::istringstream rest(line.substr(close + 2));
            char state = 0;
            long ppid = 0, pgrp = 0;
            rest >> state >> ppid >> pgrp;
            if (pgrp == pid_ && state != 'Z' && state != 'X') return false;
        }
        return true;
    }

    mutable std::mutex mu_;
    launch_options options_;
    std::string executable_;
    std::vector<std::string> args_;
    std::filesystem::path temp_dir_;
    std::filesystem::path profile_dir_;
    std::string log_path_;
    pid_t pid_ = -1;
    detail::unique_fd pidfd_;
    bool reaped_ = false;
    bool terminated_ = false;
    int status_ = 0;
};

}  // namespace agentkit::cdp
