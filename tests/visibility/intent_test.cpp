#include <agentkit/agentkit.hpp>

#include <gtest/gtest.h>

#include "intent_fixture.hpp"

#include <algorithm>
#include <string>
#include <vector>
#include "visibility/support.hpp"

namespace ak = agentkit;
using visibility_test::has;
using ak::json;

namespace {

using intent_fixture::catalogue;
using intent_fixture::classes;


ak::intent_options iopts(std::vector<std::string> fallback, std::vector<std::string> always = {}, bool sticky = true) {
    ak::intent_options o;
    o.fallback = std::move(fallback);
    o.always = std::move(always);
    o.sticky_widening = sticky;
    return o;
}

}  // namespace

static_assert(ak::masker<ak::intent_classes<>>);
static_assert(ak::message_aware_masker<ak::intent_classes<>>);

TEST(IntentClasses, KeywordAndPatternScoring) {
    ak::keyword_classifier c;
    c.prepare(classes());
    EXPECT_EQ(c.classify("open https://example.com/news").classes, std::vector<std::string>{"browser"});
    EXPECT_EQ(c.classify("read ./notes/todo.md and summarise it").classes, std::vector<std::string>{"local"});
    EXPECT_EQ(c.classify("Searching the web for news").classes, std::vector<std::string>{"browser"});  // stemmed
    EXPECT_EQ(c.classify("download the report from example.com into the reports folder").classes,
              (std::vector<std::string>{"browser", "local"}));  // both
    EXPECT_TRUE(c.classify("what is the capital of France").classes.empty());
    EXPECT_EQ(c.classify("hello there, thanks!").classes, std::vector<std::string>{"chat"});
}

TEST(IntentClasses, VisibleSetFollowsTheUserMessage) {
    ak::intent_classes<> m(classes(), iopts({}, {"think_hard"}));
    m.bind(catalogue());
    // before any message: every class (conservative fallback)
    EXPECT_EQ(m.visible().size(), 1U + 7U);
    ak::notify_user_message(m, "click the login button on https://example.com");
    EXPECT_EQ(m.active_classes(), std::vector<std::string>{"browser"});
    EXPECT_EQ(m.visible(), (std::vector<std::string>{"request_tools", "browser_search", "browser_navigate", "browser_click", "think_hard"}));
    EXPECT_FALSE(m.is_visible("file_read"));
    ak::notify_user_message(m, "hello!");
    EXPECT_EQ(m.visible(), (std::vector<std::string>{"request_tools", "think_hard"}));  // chat-only
    ak::notify_user_message(m, "mmm");
    EXPECT_EQ(m.active_classes().size(), 3U);  // nothing scored: fallback
    EXPECT_NE(m.state_message().find("[TOOLS] loaded:"), std::string::npos);
    EXPECT_NE(m.prompt_section().find("request_tools"), std::string::npos);
}

TEST(IntentClasses, RequestToolsWidens) {
    ak::intent_classes<> m(classes(), iopts({"chat"}));
    std::uint64_t changes = 0;
    m.set_on_change([&](std::uint64_t) { ++changes; });
    m.bind(catalogue());
    ak::notify_user_message(m, "hello");
    EXPECT_FALSE(m.is_visible("shell_exec"));
    auto hidden = m.answer_hidden("shell_exec");
    ASSERT_FALSE(hidden.has_value());
    EXPECT_EQ(hidden.error().code, ak::errc::tool_masked);
    EXPECT_NE(hidden.error().hint.find("\"local\""), std::string::npos);

    const auto before = changes;
    auto r = m.handle_meta("request_tools", json{{"classes", {"local"}}});
    ASSERT_TRUE(r && r->has_value());
    EXPECT_TRUE(m.is_visible("shell_exec"));
    EXPECT_GT(changes, before);
    std::size_t refs = 0;
    for (const auto& b : (*r)->content) refs += b.type == ak::content_block::kind::tool_reference ? 1 : 0;
    EXPECT_EQ(refs, 3U);

    auto one = m.request(json{{"tools", {"browser_click"}}});
    ASSERT_TRUE(one.has_value());
    EXPECT_TRUE(m.is_visible("browser_click"));
    EXPECT_FALSE(m.is_visible("browser_search"));
    // sticky: a new message keeps the widening
    ak::notify_user_message(m, "thanks");
    EXPECT_TRUE(m.is_visible("shell_exec"));
    // errors list what exists
    auto bad = m.request(json{{"classes", {"nope"}}});
    ASSERT_FALSE(bad.has_value());
    EXPECT_EQ(bad.error().details["classes"].size(), 3U);
    auto bad_tool = m.request(json{{"tools", {"browser_clik"}}});
    ASSERT_FALSE(bad_tool.has_value());
    EXPECT_EQ(bad_tool.error().details["candidates"][0], "browser_click");
    EXPECT_FALSE(m.request(json{{"tools", 3}}).has_value());
    // no arguments: everything
    ASSERT_TRUE(m.request(json::object()).has_value());
    EXPECT_EQ(m.visible().size(), 1U + 6U);
}

TEST(IntentClasses, NonStickyWideningEndsWithTheNextMessage) {
    ak::intent_classes<> m(classes(), iopts({"chat"}, {}, false));
    m.bind(catalogue());
    ak::notify_user_message(m, "hello");
    ASSERT_TRUE(m.request(json{{"classes", {"local"}}}).has_value());
    EXPECT_TRUE(m.is_visible("file_read"));
    ak::notify_user_message(m, "thanks again");
    EXPECT_FALSE(m.is_visible("file_read"));
}

TEST(IntentClasses, HostClassifier) {
    ak::intent_classes<ak::function_classifier> m(
        classes(), {}, ak::function_classifier([](std::string_view msg) -> std::vector<std::string> {
            if (msg.find("boom") != std::string_view::npos) throw std::runtime_error("classifier bug");
            return {"local", "unknown-class"};
        }));
    m.bind(catalogue());
    m.on_user_message("anything");
    EXPECT_EQ(m.active_classes(), std::vector<std::string>{"local"});  // unknown names ignored
    m.on_user_message("boom");
    EXPECT_EQ(m.active_classes().size(), 3U);  // a throwing classifier falls back
}

TEST(IntentClasses, BadPatternsAndUnknownToolsAreReported) {
    auto cls = classes();
    cls[1].patterns.push_back({"([unclosed", 1});
    cls[2].tools.push_back("ghost");
    ak::intent_classes<> m(cls);
    m.bind(catalogue());
    EXPECT_EQ(m.classifier().bad_patterns().size(), 1U);
    ASSERT_EQ(m.problems().size(), 1U);
    EXPECT_NE(m.problems()[0].find("ghost"), std::string::npos);
    EXPECT_FALSE(m.is_visible("ghost"));
    EXPECT_TRUE(has(m.visible(), "shell_exec"));
}
