// Browser launch without a browser: executable resolution, launch failures with useful
// errors, and cleanup of the temporary directory.
#include <agentkit/cdp/launch.hpp>

#include <agentkit/cdp/pipe_transport.hpp>
#include <agentkit/cdp/websocket_transport.hpp>

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

namespace cdp = agentkit::cdp;
namespace errc = agentkit::errc;
namespace fs = std::filesystem;

namespace {

// A private parent for temporary directories, so the test can see what is left behind.
struct temp_parent {
    fs::path dir;
    temp_parent() {
        std::string t = (fs::temp_directory_path() / "agentkit-launch-test-XXXXXX").string();
        if (::mkdtemp(t.data()) != nullptr) dir = t;
    }
    ~temp_parent() {
        std::error_code ec;
        fs::remove_all(dir, ec);
    }
    [[nodiscard]] bool empty() const { return fs::is_empty(dir); }
};

struct env_guard {
    std::string name;
    std::optional<std::string> old;
    env_guard(std::string n, const char* value) : name(std::move(n)) {
        if (const char* o = std::getenv(name.c_str())) old = o;
        if (value != nullptr) ::setenv(name.c_str(), value, 1);
        else ::unsetenv(name.c_str());
    }
    ~env_guard() {
        if (old) ::setenv(name.c_str(), old->c_str(), 1);
        else ::unsetenv(name.c_str());
    }
};

fs::path write_script(const fs::path& dir, const std::string& body) {
    const auto p = dir / "fake-browser.sh";
    std::ofstream(p) << "#!/bin/sh\n" << body << "\n";
    fs::permissions(p, fs::perms::owner_all);
    return p;
}

}  // namespace

TEST(CdpLaunch, ExecutableResolutionOrder) {
    {
        env_guard g("AGENTKIT_CHROMIUM", nullptr);
        EXPECT_EQ(cdp::resolve_executable({}), AGENTKIT_CHROMIUM_DEFAULT_PATH);
    }
    {
        env_guard g("AGENTKIT_CHROMIUM", "/opt/env/chromium");
        EXPECT_EQ(cdp::resolve_executable({}), "/opt/env/chromium");
        cdp::launch_options o;
        o.executable = "/opt/explicit/chromium";
        EXPECT_EQ(cdp::resolve_executable(o), "/opt/explicit/chromium");
    }
}

TEST(CdpLaunch, MissingExecutableFailsWithHintAndLeavesNothing) {
    temp_parent tp;
    ASSERT_FALSE(tp.dir.empty());
    env_guard g("AGENTKIT_CHROMIUM", "/nonexistent/agentkit/chromium");
    cdp::launch_options o;
    o.temp_parent = tp.dir.string();
    auto t = cdp::pipe_transport::launch(o);
    ASSERT_FALSE(t);
    EXPECT_EQ(t.error().code, errc::browser_launch);
    EXPECT_NE(t.error().message.find("the executable doesn't exist at '/nonexistent/agentkit/chromium'"), std::string::npos) << t.error().message;
    EXPECT_NE(t.error().hint.find("AGENTKIT_CHROMIUM"), std::string::npos);
    EXPECT_EQ(t.error().details["executable"], "/nonexistent/agentkit/chromium");
    EXPECT_TRUE(tp.empty()) << "the temporary profile must be removed after a failed launch";
}

TEST(CdpLaunch, BrowserThatExitsAtOnceReportsStatusAndLog) {
    temp_parent tp;
    ASSERT_FALSE(tp.dir.empty());
    const auto script = write_script(tp.dir, "echo 'fatal: cannot open libfoo.so' >&2\nexit 3");
    fs::create_directory(tp.dir / "tmp");
    cdp::launch_options o;
    o.executable = script.string();
    o.temp_parent = (tp.dir / "tmp").string();
    auto t = cdp::pipe_transport::launch(o);
    ASSERT_FALSE(t);
    EXPECT_EQ(t.error().code, errc::browser_launch);
    EXPECT_NE(t.error().message.find("exited with status 3"), std::string::npos) << t.error().message;
    EXPECT_NE(t.error().details.value("log_tail", "").find("libfoo"), std::string::npos) << t.error().details.dump();
    // what the browser said is in the message a user or a model reads, not only in details
    EXPECT_NE(t.error().message.find("it said: fatal: cannot open libfoo.so"), std::string::npos) << t.error().message;
    EXPECT_EQ(t.error().message.find("it said:"), t.error().message.rfind("it said:")) << t.error().message;  // said once
    EXPECT_TRUE(fs::is_empty(tp.dir / "tmp"));
}

// A profile another live browser of this machine holds is said before a second browser is
// started on it (Chromium's SingletonLock: "<host>-<pid>"); a stale lock is no obstacle.
TEST(CdpLaunch, AProfileInUseIsSaidBeforeTheLaunch) {
    temp_parent tp;
    ASSERT_FALSE(tp.dir.empty());
    const auto profile = tp.dir / "profile";
    fs::create_directory(profile);
    char host[256] = {};
    ASSERT_EQ(::gethostname(host, sizeof host - 1), 0);
    fs::create_symlink(std::string(host) + "-" + std::to_string(::getpid()), profile / "SingletonLock");  // this test: alive
    const auto script = write_script(tp.dir, "exit 7");
    fs::create_directory(tp.dir / "tmp");
    cdp::launch_options o;
    o.executable = script.string();
    o.temp_parent = (tp.dir / "tmp").string();
    o.user_data_dir = profile.string();
    auto t = cdp::pipe_transport::launch(o);
    ASSERT_FALSE(t);
    EXPECT_NE(t.error().message.find("is already in use by another browser (pid " + std::to_string(::getpid()) + ")"), std::string::npos)
        << t.error().message;
    EXPECT_NE(t.error().message.find("use --isolated to run multiple instances of the same browser"), std::string::npos);
    // a lock of a host that is not this one (or of a process that is gone) does not stop the launch
    fs::remove(profile / "SingletonLock");
    fs::create_symlink("another-host-1", profile / "SingletonLock");
    auto u = cdp::pipe_transport::launch(o);
    ASSERT_FALSE(u);
    EXPECT_NE(u.error().message.find("exited with status 7"), std::string::npos) << u.error().message;
}

TEST(CdpLaunch, TheBrowsersLastWordsAreItsLastLinesShortenedFromTheFront) {
    temp_parent tp;
    ASSERT_FALSE(tp.dir.empty());
    fs::create_directory(tp.dir / "tmp");
    // many lines, blank ones between: the last three that say something, in order
    const auto script = write_script(tp.dir, "i=0; while [ $i -lt 50 ]; do echo \"line $i\" >&2; i=$((i+1)); done\n"
                                             "echo '' >&2; echo '   [ERROR:zygote] no usable sandbox  ' >&2; echo '' >&2\nexit 1");
    cdp::launch_options o;
    o.executable = script.string();
    o.temp_parent = (tp.dir / "tmp").string();
    o.launch_timeout = std::chrono::milliseconds(60000);
    const std::string said = "it said: line 48 | line 49 | [ERROR:zygote] no usable sandbox";
    auto pipe = cdp::pipe_transport::launch(o);
    ASSERT_FALSE(pipe);
    EXPECT_NE(pipe.error().message.find(said), std::string::npos) << pipe.error().message;
    auto ws = cdp::websocket_transport::launch(o);
    ASSERT_FALSE(ws);
    EXPECT_NE(ws.error().message.find(said), std::string::npos) << ws.error().message;
    // a browser that says nothing adds nothing
    const auto quiet = write_script(tp.dir, "exit 2");
    o.executable = quiet.string();
    auto q = cdp::pipe_transport::launch(o);
    ASSERT_FALSE(q);
    EXPECT_EQ(q.error().message.find("it said"), std::string::npos) << q.error().message;
}

TEST(CdpLaunch, WebSocketLaunchNoticesAnEarlyExit) {
    temp_parent tp;
    ASSERT_FALSE(tp.dir.empty());
    const auto script = write_script(tp.dir, "exit 7");
    fs::create_directory(tp.dir / "tmp");
    cdp::launch_options o;
    o.executable = script.string();
    o.temp_parent = (tp.dir / "tmp").string();
    o.launch_timeout = std::chrono::milliseconds(60000);  // the pidfd ends the wait, not this
    auto t = cdp::websocket_transport::launch(o);
    ASSERT_FALSE(t);
    EXPECT_EQ(t.error().code, errc::browser_launch);
    EXPECT_NE(t.error().message.find("exited with status 7"), std::string::npos) << t.error().message;
    EXPECT_TRUE(fs::is_empty(tp.dir / "tmp"));
}

TEST(CdpLaunch, SilentBrowserTimesOut) {
    // A "browser" that never answers: the launch handshake is bounded, and the process is
    // stopped and reaped afterwards.
    temp_parent tp;
    ASSERT_FALSE(tp.dir.empty());
    const auto script = write_script(tp.dir, "exec sleep 600");
    fs::create_directory(tp.dir / "tmp");
    cdp::launch_options o;
    o.executable = script.string();
    o.temp_parent = (tp.dir / "tmp").string();
    o.launch_timeout = std::chrono::milliseconds(200);
    o.close_timeout = std::chrono::milliseconds(100);
    auto t = cdp::pipe_transport::launch(o);
    ASSERT_FALSE(t);
    EXPECT_EQ(t.error().code, errc::browser_launch);
    EXPECT_NE(t.error().message.find("no answer"), std::string::npos) << t.error().message;
    EXPECT_NE(t.error().message.find("signal 15"), std::string::npos) << "the silent browser is terminated";
    EXPECT_TRUE(fs::is_empty(tp.dir / "tmp"));
}

TEST(CdpLaunch, AutomationIsHiddenByMergingIntoTheHostsBlinkFeatureFlags) {
    using V = std::vector<std::string>;
    const auto hidden = [](V args) {
        cdp::detail::hide_automation(args);
        return args;
    };
    EXPECT_EQ(hidden({"--headless=new"}), (V{"--headless=new", "--disable-blink-features=AutomationControlled"}));
    // the host's own list keeps its features; Chromium reads the last one, so that one is extended
    EXPECT_EQ(hidden({"--disable-blink-features=A", "--disable-blink-features=B,C"}),
              (V{"--disable-blink-features=A", "--disable-blink-features=B,C,AutomationControlled"}));
    EXPECT_EQ(hidden({"--disable-blink-features="}), (V{"--disable-blink-features=AutomationControlled"}));
    // already there: nothing added; a longer name is not the feature
    EXPECT_EQ(hidden({"--disable-blink-features=X,AutomationControlled"}), (V{"--disable-blink-features=X,AutomationControlled"}));
    EXPECT_EQ(hidden({"--disable-blink-features=AutomationControlledX"}),
              (V{"--disable-blink-features=AutomationControlledX,AutomationControlled"}));
    // a host that enables it keeps it
    EXPECT_EQ(hidden({"--enable-blink-features=Foo,AutomationControlled"}), (V{"--enable-blink-features=Foo,AutomationControlled"}));
    EXPECT_EQ(hidden({"--enable-blink-features=Foo"}), (V{"--enable-blink-features=Foo", "--disable-blink-features=AutomationControlled"}));
    // only the last --enable-blink-features= counts, as in Chromium
    EXPECT_EQ(hidden({"--enable-blink-features=AutomationControlled", "--enable-blink-features=Foo"}),
              (V{"--enable-blink-features=AutomationControlled", "--enable-blink-features=Foo",
                 "--disable-blink-features=AutomationControlled"}));
}

TEST(CdpLaunch, DescribesWaitStatuses) {
    EXPECT_EQ(cdp::describe_wait_status(3 << 8), "exited with status 3");
    const std::string killed = cdp::describe_wait_status(SIGKILL);
    EXPECT_EQ(killed.rfind("killed by signal 9", 0), 0U) << killed;
}

TEST(CdpLaunch, ParsesDevToolsActivePort) {
    temp_parent tp;
    ASSERT_FALSE(tp.dir.empty());
    const auto f = tp.dir / "DevToolsActivePort";
    std::ofstream(f) << "45123\n/devtools/browser/1b2c\n";
    auto p = cdp::websocket_transport::read_active_port(f);
    ASSERT_TRUE(p);
    EXPECT_EQ(p->first, 45123);
    EXPECT_EQ(p->second, "/devtools/browser/1b2c");
    std::ofstream(f, std::ios::trunc) << "45123\n";  // half written
    EXPECT_FALSE(cdp::websocket_transport::read_active_port(f));
    std::ofstream(f, std::ios::trunc) << "99999\n/devtools/browser/x\n";
    EXPECT_FALSE(cdp::websocket_transport::read_active_port(f));
    EXPECT_FALSE(cdp::websocket_transport::read_active_port(tp.dir / "missing"));
}
