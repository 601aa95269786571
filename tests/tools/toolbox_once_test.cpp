// A toolbox compiled once (AGENTKIT_EXTERN_TOOLBOX): this translation unit calls it and reads
// its descriptions, which toolbox_once_instantiate.cpp compiles. tools.toolbox_compiled_once
// (tests/tools/CMakeLists.txt) checks that this file's object has none of them.
#include "once_box.hpp"

#include <agentkit/core/error.hpp>
#include <agentkit/core/json.hpp>
#include <agentkit/tools/context.hpp>

#include <gtest/gtest.h>

namespace {

TEST(ToolboxCompiledOnce, ToolsAreCalledByNameAndIndexAndDescribed) {
    once_test::counter c;
    auto box = once_test::make_box(c);
    ASSERT_EQ(box.infos().size(), 2U);
    EXPECT_EQ(box.infos()[0].name, "repeat");
    EXPECT_EQ(box.infos()[0].input_schema["properties"]["times"]["maximum"], 5);
    EXPECT_EQ(box.infos()[1].name, "count");
    EXPECT_TRUE(box.infos()[1].traits.is_read_only());

    agentkit::tool_context ctx;
    auto r = box.call("repeat", agentkit::json{{"word", "go"}, {"times", 3}}, ctx);
    ASSERT_TRUE(r.has_value()) << r.error().to_text();
    EXPECT_EQ(r->joined_text(), "go go go");
    auto n = box.call_at(1, agentkit::json::object(), ctx);
    ASSERT_TRUE(n.has_value()) << n.error().to_text();
    EXPECT_EQ(n->joined_text(), "1");
    EXPECT_EQ(c.calls, 1);
}

TEST(ToolboxCompiledOnce, BadArgumentsAndUnknownNamesAreAnsweredAsInAnyToolbox) {
    once_test::counter c;
    auto box = once_test::make_box(c);
    agentkit::tool_context ctx;
    auto bad = box.call("repeat", agentkit::json{{"word", "go"}, {"times", 9}}, ctx);
    ASSERT_FALSE(bad.has_value());
    EXPECT_TRUE(bad.error().is(agentkit::errc::args_invalid)) << bad.error().to_text();
    EXPECT_NE(bad.error().message.find("repeat: "), std::string::npos) << bad.error().message;
    auto text = box.call("repeat", std::string_view("{not json"), ctx);
    ASSERT_FALSE(text.has_value());
    EXPECT_TRUE(text.error().is(agentkit::errc::args_malformed)) << text.error().to_text();
    auto unknown = box.call("repaet", agentkit::json::object(), ctx);
    ASSERT_FALSE(unknown.has_value());
    EXPECT_TRUE(unknown.error().is(agentkit::errc::tool_unknown));
    EXPECT_NE(unknown.error().hint.find("\"repeat\""), std::string::npos) << unknown.error().hint;
    auto out_of_range = box.call_at(2, agentkit::json::object(), ctx);
    ASSERT_FALSE(out_of_range.has_value());
    EXPECT_EQ(c.calls, 0);
}

}  // namespace
