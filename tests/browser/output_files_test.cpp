// What a browser server leaves in its output directory: the session log and the bound on the
// directory's size (browser/output_files.hpp), without a browser.
#include <agentkit/browser/output_files.hpp>
#include <agentkit/browser/trace_file.hpp>
#include <agentkit/core/base64.hpp>

#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>
#include <vector>

#include <unistd.h>  // getpid

namespace br = agentkit::browser;
namespace fs = std::filesystem;

namespace {

struct OutputFiles : ::testing::Test {
    fs::path dir;
    void SetUp() override {
        dir = fs::temp_directory_path() /
              ("agentkit-output-files-" + std::to_string(::getpid()) + "-" + ::testing::UnitTest::GetInstance()->current_test_info()->name());
        fs::remove_all(dir);
        fs::create_directories(dir);
    }
    void TearDown() override {
        std::error_code ec;
        fs::remove_all(dir, ec);
    }
    /// A file of `size` bytes written `age` ago.
    fs::path file(const fs::path& name, std::size_t size, std::chrono::seconds age) const {
        const fs::path p = dir / name;
        fs::create_directories(p.parent_path());
        std::ofstream(p, std::ios::binary) << std::string(size, 'x');
        fs::last_write_time(p, fs::file_time_type::clock::now() - age);
        return p;
    }
    static std::string read(const fs::path& p) {
        std::ifstream in(p, std::ios::binary);
        std::ostringstream s;
        s << in.rdbuf();
        return s.str();
    }
};

}  // namespace

TEST(SessionLogFields, ASectionedResultGivesAFieldPerSectionWithoutItsFences) {
    br::pw::response r;
    r.results.push_back("Clicked");
    r.code.push_back("await page.getByRole('button', { name: 'Submit' }).click();");
    r.page = {"- Page URL: http://127.0.0.1/", "- Page Title: T"};
    r.inline_yaml = "- button \"Submit\" [ref=e2]";
    const auto f = br::session_log_fields(agentkit::tool_output::text(r.text()));
    ASSERT_EQ(f.size(), 4U) << f.dump(2);
    auto it = f.begin();
    EXPECT_EQ(it.key(), "result");  // in the order the result shows them
    EXPECT_EQ(*it, "Clicked");
    EXPECT_EQ((++it).key(), "code");
    EXPECT_EQ(*it, "await page.getByRole('button', { name: 'Submit' }).click();");
    EXPECT_EQ((++it).key(), "page");
    EXPECT_EQ(*it, "- Page URL: http://127.0.0.1/\n- Page Title: T");
    EXPECT_EQ((++it).key(), "snapshot");
    EXPECT_EQ(*it, "- button \"Submit\" [ref=e2]");
}

TEST(SessionLogFields, PlainTextIsTheResultImagesAreListedAndAFailureSaysSo) {
    agentkit::tool_output o = agentkit::tool_output::text("navigated to /next\n- link \"Home\" [ref=e1]");
    o.add_image("AAAA", "image/png");  // 3 bytes of data
    o.is_error = true;
    const auto f = br::session_log_fields(o);
    EXPECT_EQ(f.value("result", ""), "navigated to /next\n- link \"Home\" [ref=e1]");
    ASSERT_TRUE(f.contains("attachments"));
    EXPECT_EQ(f["attachments"][0], "image/png, 3 bytes");
    EXPECT_EQ(f.value("isError", false), true);
    EXPECT_FALSE(br::session_log_fields(agentkit::tool_output::text("ok")).contains("isError"));
}

TEST_F(OutputFiles, TheSessionLogMakesItsFolderAtTheFirstCallAndAppendsAnEntryPerCall) {
    br::session_log log(dir);
    std::vector<fs::path> opened;
    log.on_open = [&](const fs::path& p) { opened.push_back(p); };
    log.redact = [](std::string s) {
        for (auto at = s.find("hunter2"); at != std::string::npos; at = s.find("hunter2")) s.replace(at, 7, "<secret>");
        return s;
    };
    EXPECT_TRUE(log.folder().empty());
    EXPECT_TRUE(fs::is_empty(dir)) << "nothing is made before the first call";

    ASSERT_TRUE(log.record("browser_navigate", {{"url", "http://127.0.0.1:8080/"}}, agentkit::tool_output::text("### Result\nDone")));
    ASSERT_TRUE(log.record("browser_type", {{"ref", "e3"}, {"text", "hunter2"}}, agentkit::tool_output::text("typed")));
    ASSERT_EQ(opened.size(), 1U);
    EXPECT_EQ(opened[0], log.folder());
    EXPECT_EQ(log.folder().parent_path(), fs::absolute(dir));
    EXPECT_EQ(log.folder().filename().string().rfind("session-", 0), 0U) << log.folder();

    const std::string text = read(log.folder() / "session.md");
    EXPECT_EQ(text,
              "### Tool call: browser_navigate\n- Args\n```json\n{\n  \"url\": \"http://127.0.0.1:8080/\"\n}\n```\n- Result\n```json\n"
              "{\n  \"result\": \"Done\"\n}\n```\n\n"
              "### Tool call: browser_type\n- Args\n```json\n{\n  \"ref\": \"e3\",\n  \"text\": \"<secret>\"\n}\n```\n- Result\n```json\n"
              "{\n  \"result\": \"typed\"\n}\n```\n\n");
}

TEST_F(OutputFiles, ASessionLogWriteThatFailsLosesThatEntryAloneAndTheNextCallIsWritten) {
    br::session_log log(dir);
    ASSERT_TRUE(log.record("browser_snapshot", agentkit::json::object(), agentkit::tool_output::text("first")));
    const fs::path file = log.folder() / "session.md";
    fs::remove(file);
    fs::create_directory(file);  // (a directory where the file was: no open succeeds, even as root)
    auto failed = log.record("browser_click", {{"ref", "e2"}}, agentkit::tool_output::text("second"));
    ASSERT_FALSE(failed);
    EXPECT_NE(failed.error().message.find("session.md"), std::string::npos) << failed.error().message;
    fs::remove(file);
    ASSERT_TRUE(log.record("browser_click", {{"ref", "e3"}}, agentkit::tool_output::text("third")));
    const std::string text = read(file);
    EXPECT_NE(text.find("\"third\""), std::string::npos) << text;
    EXPECT_EQ(text.find("\"second\""), std::string::npos) << text;
}

TEST_F(OutputFiles, TrimmingRemovesTheOldestFilesUntilTheRestFit) {
    file("a.bin", 1000, std::chrono::seconds(50));
    file("b.bin", 1000, std::chrono::seconds(40));
    file("sub/c.bin", 1000, std::chrono::seconds(30));
    file("d.bin", 1000, std::chrono::seconds(20));
    const auto t = br::trim_output_dir(dir, 2500);
    ASSERT_EQ(t.removed.size(), 2U);
    EXPECT_EQ(t.removed[0].filename(), "a.bin");
    EXPECT_EQ(t.removed[1].filename(), "b.bin");
    EXPECT_EQ(t.bytes, 2000U);
    EXPECT_TRUE(fs::exists(dir / "sub/c.bin"));
    EXPECT_TRUE(fs::exists(dir / "d.bin"));
    EXPECT_TRUE(br::trim_output_dir(dir, 2500).removed.empty()) << "within the bound: nothing goes";
    EXPECT_TRUE(br::trim_output_dir(dir, 0).removed.empty()) << "0 is no bound";
    EXPECT_TRUE(br::trim_output_dir(dir / "missing", 1).removed.empty());
}

TEST_F(OutputFiles, TrimmingMakesRoomForAFileAboutToBeWritten) {
    file("a.bin", 400, std::chrono::seconds(50));
    file("b.bin", 400, std::chrono::seconds(40));
    const auto t = br::trim_output_dir(dir, 1000, 300);  // 400 + 400 + 300 > 1000
    ASSERT_EQ(t.removed.size(), 1U);
    EXPECT_EQ(t.removed[0].filename(), "a.bin");
    // a file larger than the bound: everything evictable goes, and it is still written (the caller's part)
    EXPECT_EQ(br::trim_output_dir(dir, 100, 5000).removed.size(), 1U);
    EXPECT_TRUE(fs::is_empty(dir));
}

TEST_F(OutputFiles, TrimmingNeverRemovesASessionLogTheNewestFileOrAFolderItIsToldToKeep) {
    file("session-1/session.md", 3000, std::chrono::seconds(90));
    file("store/artifact-1", 3000, std::chrono::seconds(80));
    file("old.png", 1000, std::chrono::seconds(60));
    file("new.png", 1000, std::chrono::seconds(10));
    // the session log counts toward the bound; the kept folder is not counted (it bounds itself)
    const auto t = br::trim_output_dir(dir, 500, 0, true, {dir / "store"});
    ASSERT_EQ(t.removed.size(), 1U);
    EXPECT_EQ(t.removed[0].filename(), "old.png");
    EXPECT_TRUE(fs::exists(dir / "session-1/session.md"));
    EXPECT_TRUE(fs::exists(dir / "store/artifact-1"));
    EXPECT_TRUE(fs::exists(dir / "new.png")) << "the newest file stays, even over the bound";
}

TEST(TraceFile, ATraceIsPlaywrightsFilesContextOptionsFirstThenEachCallFrameAndRequest) {
    const fs::path dir = fs::temp_directory_path() / ("agentkit-trace-" + std::to_string(::getpid())) / "traces";
    fs::remove_all(dir.parent_path());
    auto started = br::trace_writer::start(dir, "trace-1", {{"viewport", {{"width", 800}, {"height", 600}}}});
    ASSERT_TRUE(started) << started.error().message;
    auto& t = **started;
    const std::string a = t.before("browser_navigate", {{"url", "http://127.0.0.1:1/"}});
    t.after(a, std::nullopt);
    const std::string b = t.before("browser_click", {{"target", "e9"}});
    t.after(b, std::string("Ref e9 not found"));
    // a 1x1 JPEG's first bytes are enough: the file holds what the frame was
    ASSERT_TRUE(t.frame(agentkit::base64_encode(std::string("\xff\xd8\xff\xe0jpeg")), 800, 600, 0));
    EXPECT_FALSE(t.frame("not base64 !!", 800, 600, 0));
    ASSERT_TRUE(t.request({{"request", {{"method", "GET"}, {"url", "http://127.0.0.1:1/"}}}, {"response", {{"status", 200}}}}));
    auto files = t.stop();
    ASSERT_TRUE(files) << files.error().message;
    EXPECT_EQ(files->calls, 2U);
    EXPECT_EQ(files->frames, 1U);
    EXPECT_EQ(files->requests, 1U);
    // after stop nothing more is written
    EXPECT_EQ(t.before("browser_snapshot", {}), "");

    std::vector<agentkit::json> events;
    {
        std::ifstream in(files->trace);
        for (std::string line; std::getline(in, line);) events.push_back(agentkit::json::parse(line));
    }
    ASSERT_EQ(events.size(), 6U);
    EXPECT_EQ(events[0]["type"], "context-options");
    EXPECT_EQ(events[0]["version"], 9);
    EXPECT_EQ(events[0]["browserName"], "chromium");
    EXPECT_EQ(events[0]["options"]["viewport"]["width"], 800);
    EXPECT_EQ(events[1]["type"], "before");
    EXPECT_EQ(events[1]["method"], "browser_navigate");
    EXPECT_EQ(events[1]["params"]["url"], "http://127.0.0.1:1/");
    EXPECT_EQ(events[2]["type"], "after");
    EXPECT_EQ(events[2]["callId"], events[1]["callId"]);
    EXPECT_FALSE(events[2].contains("error"));
    EXPECT_GE(events[2]["endTime"].get<double>(), events[1]["startTime"].get<double>());
    EXPECT_EQ(events[4]["error"]["message"], "Ref e9 not found");
    EXPECT_NE(events[3]["callId"], events[1]["callId"]);
    EXPECT_EQ(events[5]["type"], "screencast-frame");
    const std::string frame = events[5]["file"];
    EXPECT_EQ(frame.rfind("screencast/", 0), 0U);
    std::ifstream jpeg(dir / frame, std::ios::binary);
    std::string bytes((std::istreambuf_iterator<char>(jpeg)), std::istreambuf_iterator<char>());
    EXPECT_EQ(bytes, std::string("\xff\xd8\xff\xe0jpeg"));

    std::ifstream net(files->network);
    std::string line;
    ASSERT_TRUE(std::getline(net, line));
    const auto snap = agentkit::json::parse(line);
    EXPECT_EQ(snap["type"], "resource-snapshot");
    EXPECT_EQ(snap["snapshot"]["request"]["url"], "http://127.0.0.1:1/");
    std::ifstream stacks(files->stacks);
    std::string s((std::istreambuf_iterator<char>(stacks)), std::istreambuf_iterator<char>());
    EXPECT_EQ(agentkit::json::parse(s), (agentkit::json{{"files", agentkit::json::array()}, {"stacks", agentkit::json::array()}}));
    EXPECT_TRUE(fs::is_directory(dir / "resources"));

    // a name that is not a file name is refused; a directory that cannot be made is said
    EXPECT_FALSE(br::trace_writer::start(dir, "../escape", {}));
    std::ofstream(dir.parent_path() / "a-file") << "x";
    auto blocked = br::trace_writer::start(dir.parent_path() / "a-file" / "traces", "trace-2", {});
    ASSERT_FALSE(blocked);
    EXPECT_NE(blocked.error().message.find("cannot create"), std::string::npos);
    fs::remove_all(dir.parent_path());
}
