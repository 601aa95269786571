// Related words (lexicon.hpp), the router's bounded learning from usage (router.hpp) and the
// usage log that keeps it (usage_log.hpp).
#include <agentkit/agentkit.hpp>

#include <gtest/gtest.h>

#include <cstdio>
#include <unistd.h>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "visibility/coding_agent_toolbox.hpp"
#include "visibility/support.hpp"

namespace ak = agentkit;
using visibility_test::found_names;
using ak::json;

namespace {

std::vector<ak::tool_doc> small_catalogue() {
    std::vector<ak::tool_doc> d(4);
    d[0] = {"get_sum", "Returns the sum of two numbers.", {"a", "b"}, {"First number", "Second number"}, {}};
    d[1] = {"delete_file", "Delete a file from the disk.", {"path"}, {"File path"}, {}};
    d[2] = {"remove_user", "Remove a user account.", {"user"}, {"User name"}, {}};
    d[3] = {"get_weather", "Current weather conditions for a city.", {"city"}, {"City name"}, {}};
    return d;
}

std::vector<std::string> names(const ak::tool_index& idx, std::string_view q, std::size_t k) {
    std::vector<std::string> out;
    for (const auto& h : idx.search(q, k)) out.push_back(idx.doc(h.doc).name);
    return out;
}


std::string read_all(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

struct temp_file {
    std::string path;
    explicit temp_file(const std::string& name)
        : path((std::filesystem::temp_directory_path() / (name + "-" + std::to_string(::getpid()))).string()) {
        std::remove(path.c_str());
    }
    ~temp_file() { std::remove(path.c_str()); }
};

}  // namespace

TEST(Lexicon, AWordNoToolUsesFindsToolsThroughItsRelatedWords) {
    auto idx = ak::tool_index::build(small_catalogue());
    EXPECT_EQ(names(*idx, "what is 1234 plus 8766", 1), std::vector<std::string>{"get_sum"});
    EXPECT_EQ(names(*idx, "forget the file notes.txt", 1), std::vector<std::string>{"delete_file"});
    ak::bm25f_params off;
    off.related_weight = 0;
    auto plain = ak::tool_index::build(small_catalogue(), off);
    EXPECT_TRUE(names(*plain, "what is 1234 plus 8766", 1).empty());  // no shared word: nothing
    ak::bm25f_params none;
    none.lexicon = nullptr;
    EXPECT_TRUE(names(*ak::tool_index::build(small_catalogue(), none), "what is 1234 plus 8766", 1).empty());
}

TEST(Lexicon, AWordTheCatalogueHasIsNotWidened) {
    // "delete" is a word of the catalogue: "remove" (its related word) must not pull remove_user in
    auto idx = ak::tool_index::build(small_catalogue());
    EXPECT_EQ(names(*idx, "delete", 5), std::vector<std::string>{"delete_file"});
    EXPECT_EQ(names(*idx, "remove", 5), std::vector<std::string>{"remove_user"});
}

TEST(Lexicon, AHostsOwnWordsBridgeItsJargon) {
    std::vector<ak::tool_doc> d(2);
    d[0] = {"create_invoice", "Create an invoice for a customer.", {}, {}, {}};
    d[1] = {"get_weather", "Current weather conditions for a city.", {}, {}, {}};
    EXPECT_TRUE(names(*ak::tool_index::build(d), "bill the client", 1).empty());
    ak::bm25f_params p;
    p.lexicon = std::make_shared<ak::word_lexicon>(std::vector<std::vector<std::string>>{{"invoice", "bill"}});
    EXPECT_EQ(names(*ak::tool_index::build(d, p), "bill the client", 1), std::vector<std::string>{"create_invoice"});
}

TEST(Lexicon, ARequestsValuesSayWhatKindTheyAre) {
    EXPECT_EQ(ak::value_kinds("Go to https://example.com/a?b=1 now"), (std::vector<std::string>{"url", "page", "website"}));
    EXPECT_EQ(ak::value_kinds("open news.example.org."), (std::vector<std::string>{"url", "page", "website"}));
    EXPECT_EQ(ak::value_kinds("Show me notes.txt"), (std::vector<std::string>{"file", "path"}));
    EXPECT_EQ(ak::value_kinds("load 'Holiday.JPG'"), (std::vector<std::string>{"file", "path", "image"}));
    EXPECT_EQ(ak::value_kinds("make archive/2026"), (std::vector<std::string>{"file", "path"}));
    EXPECT_EQ(ak::value_kinds("mail ada@example.com"), (std::vector<std::string>{"email"}));
    EXPECT_TRUE(ak::value_kinds("what is 3.5 plus 4, e.g. now. and/or").size() <= 2U);  // "and/or" reads as a path
    EXPECT_TRUE(ak::value_kinds("close the second tab").empty());
    // in the index: the tool that takes a URL, for a request that only names one
    std::vector<ak::tool_doc> d(2);
    d[0] = {"navigate", "Go to a URL.", {"url"}, {"Where to go"}, {}};
    d[1] = {"go_back", "Go back to where you were.", {}, {}, {}};
    auto idx = ak::tool_index::build(d);
    EXPECT_EQ(names(*idx, "go to news.example.com", 1), std::vector<std::string>{"navigate"});
    ak::bm25f_params off;
    off.related_weight = 0;
    EXPECT_EQ(names(*ak::tool_index::build(d, off), "go to news.example.com", 2).size(), 2U);  // both "go": a tie
}

TEST(Router, LearnedExamplesAreBoundedNotRepeatedAndReported) {
    ak::router_options o;
    o.max_learned_per_tool = 2;
    std::vector<std::pair<std::string, std::string>> told;
    o.on_learn = [&](const std::string& tool, const std::string& q) { told.emplace_back(tool, q); };
    ak::router<> r(o);
    r.bind(coding_agent::box.infos());
    std::string tool;
    auto use = [&](const std::string& q) {
        auto s = r.search(q, 5);
        ASSERT_TRUE(s.has_value());
        ASSERT_FALSE(found_names(*s).empty()) << q;
        if (tool.empty()) tool = found_names(*s)[0];
        ASSERT_EQ(found_names(*s)[0], tool) << q;
        r.observe_call(tool, json::object(), true);
    };
    use("deployment state of staging");
    use("deployment state of production");
    use("deployment state of staging");  // the same query again: not learned twice
    use("deployment state of the api");
    EXPECT_EQ(told.size(), 3U);
    for (const auto& [t, q] : told) EXPECT_EQ(t, tool);
    const auto learned = r.learned();
    ASSERT_EQ(learned.count(tool), 1U);
    EXPECT_EQ(learned.at(tool), (std::vector<std::string>{"deployment state of production", "deployment state of the api"}));
    EXPECT_EQ(r.examples().at(tool).size(), 2U);  // the oldest learned one left the index too
}

TEST(Router, UsageChangesWhatAToolRanksForAndAUsageLogCarriesItToTheNextRouter) {
    temp_file f("agentkit-usage-router");
    const std::string q = "is the thing we shipped alive";
    std::string winner;
    {
        auto log = std::make_shared<ak::usage_log>(ak::usage_log_options{f.path, 10, 100});
        ASSERT_TRUE(log->load().has_value());
        ak::router_options o;
        o.on_learn = [log](const std::string& tool, const std::string& query) { ASSERT_TRUE(log->add(tool, query).has_value()); };
        ak::router<> r(o);
        r.bind(coding_agent::box.infos());
        auto before = r.search(q, 1);
        ASSERT_TRUE(before.has_value());
        ASSERT_TRUE(found_names(*before).empty() || found_names(*before)[0] != "deploy_status");
        // the model searched with more words, found deploy_status and used it
        auto s = r.search("deployment status: " + q, 5);
        ASSERT_TRUE(s.has_value());
        ASSERT_EQ(found_names(*s)[0], "deploy_status");
        r.observe_call("deploy_status", json::object(), true);
        auto after = r.search(q, 1);
        ASSERT_TRUE(after.has_value());
        EXPECT_EQ(found_names(*after)[0], "deploy_status");
        winner = "deploy_status";
    }
    // a new router, from the file
    auto log = std::make_shared<ak::usage_log>(ak::usage_log_options{f.path, 10, 100});
    ASSERT_TRUE(log->load().has_value());
    ASSERT_EQ(log->examples().count(winner), 1U);
    ak::router_options o;
    o.examples = log->examples();
    ak::router<> r(o);
    r.bind(coding_agent::box.infos());
    auto warm = r.search(q, 1);
    ASSERT_TRUE(warm.has_value());
    ASSERT_FALSE(found_names(*warm).empty());
    EXPECT_EQ(found_names(*warm)[0], winner);
}

TEST(UsageLog, KeepsWithinItsBoundsOldestFirstOut) {
    ak::usage_log log(ak::usage_log_options{"", 2, 3});
    EXPECT_TRUE(*log.add("a", "one"));
    EXPECT_FALSE(*log.add("a", "one"));  // not twice
    EXPECT_FALSE(*log.add("a", "   "));  // nothing to learn
    EXPECT_TRUE(*log.add("a", "two"));
    EXPECT_TRUE(*log.add("a", "three"));  // a's oldest goes
    EXPECT_EQ(log.examples().at("a"), (std::vector<std::string>{"two", "three"}));
    EXPECT_TRUE(*log.add("b", "four"));
    EXPECT_TRUE(*log.add("b", "five"));  // 4 in all: the oldest of all (a: two) goes
    EXPECT_EQ(log.size(), 3U);
    EXPECT_EQ(log.examples().at("a"), (std::vector<std::string>{"three"}));
    EXPECT_EQ(log.examples().at("b"), (std::vector<std::string>{"four", "five"}));
}

TEST(UsageLog, PersistsAndComesBack) {
    temp_file f("agentkit-usage-log");
    {
        ak::usage_log log(ak::usage_log_options{f.path, 10, 100});
        ASSERT_TRUE(log.load().has_value());  // no file yet: empty
        EXPECT_EQ(log.size(), 0U);
        ASSERT_TRUE(log.add("get_sum", "what is 2 plus 2").has_value());
        ASSERT_TRUE(log.add("get_sum", "add 3 and 4").has_value());
    }
    const json j = json::parse(read_all(f.path));
    EXPECT_EQ(j.at("version"), 1);
    EXPECT_EQ(j.at("examples").at("get_sum"), (json{"what is 2 plus 2", "add 3 and 4"}));
    ak::usage_log back(ak::usage_log_options{f.path, 10, 100});
    ASSERT_TRUE(back.load().has_value());
    EXPECT_EQ(back.examples().at("get_sum"), (std::vector<std::string>{"what is 2 plus 2", "add 3 and 4"}));
}

TEST(UsageLog, ABadFileIsReportedAndNeverOverwritten) {
    for (const std::string text : {"not json {", R"({"examples": {"t": [1, 2]}})", R"([1, 2])"}) {
        temp_file f("agentkit-usage-bad");
        {
            std::ofstream out(f.path, std::ios::binary);
            out << text;
        }
        ak::usage_log log(ak::usage_log_options{f.path, 10, 100});
        auto loaded = log.load();
        ASSERT_FALSE(loaded.has_value()) << text;
        EXPECT_TRUE(loaded.error().is(ak::errc::args_invalid));
        EXPECT_NE(loaded.error().message.find(f.path), std::string::npos);
        EXPECT_TRUE(*log.add("t", "still learned in memory"));
        EXPECT_EQ(log.examples().at("t").size(), 1U);
        EXPECT_EQ(read_all(f.path), text);  // the file is as it was
    }
}
