#include <agentkit/agentkit.hpp>

#include <gtest/gtest.h>

#include <atomic>
#include <future>
#include <stdexcept>

#include "core/test_types.hpp"

namespace ak = agentkit;
using ak::json;

namespace {

struct city_args {
    std::string city;
    std::optional<std::string> unit;
    static constexpr auto agentkit_fields() {
        return ak::fields(AGENTKIT_FIELD(city_args, city, "City name", ak::min_length(1)),
                          AGENTKIT_FIELD(city_args, unit, "Temperature unit", ak::one_of("c", "f")));
    }
};

struct weather {
    std::string city;
    double temperature = 0;
    static constexpr auto agentkit_fields() {
        return ak::fields(AGENTKIT_FIELD(weather, city, "City"),
                          AGENTKIT_FIELD(weather, temperature, "Degrees in the requested unit"));
    }
};

const auto get_weather = ak::tool<"get_weather">(
    "Current weather for a city.",
    [](const city_args& a) -> ak::result<weather> {
        if (a.city == "Atlantis") return ak::fail(ak::errc::not_found, "no weather station in Atlantis", "Try a real city.");
        return weather{a.city, a.unit.value_or("c") == "f" ? 70.0 : 21.0};
    },
    ak::read_only | ak::parallel_safe);

const auto echo = ak::tool<"echo">("Echo the label.", [](const ak_test::draw_args& a) { return "label=" + a.label; });

const auto thrower = ak::tool<"thrower">(
    "Always throws.", [](const city_args&) -> std::string { throw std::runtime_error("disk on fire"); },
    ak::destructive);

const auto async_tool = ak::tool<"async_len">("Length, computed asynchronously.", [](const city_args& a) {
    return std::async(std::launch::async, [c = a.city] { return ak::tool_output::text(std::to_string(c.size())); });
});

const auto with_ctx = ak::tool<"with_ctx">("Reports progress.", [](const city_args& a, ak::tool_context& ctx) {
    ctx.progress(1, 2, "half");
    return ak::tool_output::text(a.city + (ctx.cancelled() ? " cancelled" : " running"));
});

const auto no_arg = ak::tool<"ping">("No arguments.", [] { return std::string("pong"); }, ak::read_only);

}  // namespace

TEST(Tool, NameAndInfo) {
    static_assert(decltype(get_weather)::name == "get_weather");
    static_assert(decltype(get_weather)::has_typed_output);
    static_assert(!decltype(echo)::has_typed_output);
    auto info = get_weather.info();
    EXPECT_EQ(info.name, "get_weather");
    EXPECT_EQ(info.input_schema["properties"]["unit"]["enum"], json::array({"c", "f"}));
    ASSERT_TRUE(info.output_schema.has_value());
    EXPECT_EQ((*info.output_schema)["properties"]["temperature"]["type"], "number");
    EXPECT_TRUE(info.traits.is_read_only());
    EXPECT_TRUE(info.traits.is_parallel_safe());
    EXPECT_TRUE(info.traits.is_idempotent());
    EXPECT_FALSE(info.traits.is_destructive());
    EXPECT_EQ(no_arg.info().input_schema, (json{{"type", "object"}, {"properties", json::object()}, {"additionalProperties", false}}));
}

TEST(Tool, TypedOutputIsStructured) {
    ak::tool_context ctx;
    auto r = get_weather.invoke(json{{"city", "Oslo"}, {"unit", "f"}}, ctx);
    ASSERT_TRUE(r.has_value()) << r.error().to_text();
    ASSERT_TRUE(r->structured.has_value());
    EXPECT_EQ((*r->structured)["temperature"], 70.0);
    EXPECT_EQ(r->joined_text(), r->structured->dump());
}

TEST(Tool, HandlerErrorsAndExceptionsBecomeResults) {
    ak::tool_context ctx;
    auto r = get_weather.invoke(json{{"city", "Atlantis"}}, ctx);
    ASSERT_FALSE(r.has_value());
    EXPECT_EQ(r.error().code, ak::errc::not_found);
    auto t = thrower.invoke(json{{"city", "x"}}, ctx);
    ASSERT_FALSE(t.has_value());
    EXPECT_EQ(t.error().code, ak::errc::tool_exception);
    EXPECT_NE(t.error().message.find("disk on fire"), std::string::npos);
}

TEST(Tool, InvalidArgumentsNameTheTool) {
    ak::tool_context ctx;
    auto r = get_weather.invoke(json{{"city", ""}, {"unit", "k"}}, ctx);
    ASSERT_FALSE(r.has_value());
    EXPECT_EQ(r.error().code, ak::errc::args_invalid);
    EXPECT_EQ(r.error().message.rfind("get_weather: 2 problems", 0), 0U) << r.error().message;
    EXPECT_NE(r.error().hint.find("call get_weather again"), std::string::npos);
    EXPECT_EQ(r.error().details["problems"].size(), 2U);
}

TEST(Tool, AsyncAndContextHandlers) {
    ak::tool_context ctx;
    auto r = async_tool.invoke(json{{"city", "Bergen"}}, ctx);
    ASSERT_TRUE(r.has_value());
    EXPECT_EQ(r->joined_text(), "6");
    int reports = 0;
    ctx.on_progress = [&](double p, std::optional<double> total, std::string_view msg) {
        ++reports;
        EXPECT_EQ(p, 1);
        EXPECT_EQ(total, 2);
        EXPECT_EQ(msg, "half");
    };
    std::stop_source src;
    ctx.stop = src.get_token();
    src.request_stop();
    auto c = with_ctx.invoke(json{{"city", "Oslo"}}, ctx);
    ASSERT_TRUE(c.has_value());
    EXPECT_EQ(c->joined_text(), "Oslo cancelled");
    EXPECT_EQ(reports, 1);
}

TEST(Toolbox, DispatchByName) {
    ak::toolbox box{get_weather, echo, thrower, async_tool, with_ctx, no_arg};
    static_assert(decltype(box)::size() == 6);
    static_assert(decltype(box)::find("echo") == 1);
    static_assert(!decltype(box)::find("nope"));
    auto r = box.call("ping", json::object());
    ASSERT_TRUE(r.has_value());
    EXPECT_EQ(r->joined_text(), "pong");
    ak::tool_context ctx;
    auto e = box.call("echo", std::string_view(R"({"label":"Hi","points":[{"x":1,"y":1}],"style":{}})"), ctx);
    ASSERT_TRUE(e.has_value()) << e.error().to_text();
    EXPECT_EQ(e->joined_text(), "label=Hi");
    ASSERT_EQ(box.infos().size(), 6U);
    EXPECT_EQ(box.infos()[3].name, "async_len");
}

TEST(Toolbox, UnknownNameSuggestsClosest) {
    ak::toolbox box{get_weather, echo, no_arg};
    auto r = box.call("get_wether", json::object());
    ASSERT_FALSE(r.has_value());
    EXPECT_EQ(r.error().code, ak::errc::tool_unknown);
    EXPECT_EQ(r.error().details["candidates"][0], "get_weather");
    EXPECT_NE(r.error().hint.find("\"get_weather\""), std::string::npos) << r.error().hint;
}

TEST(Toolbox, MalformedJsonArguments) {
    ak::toolbox box{get_weather};
    ak::tool_context ctx;
    auto r = box.call("get_weather", std::string_view("{\"city\": \"Oslo\""), ctx);
    ASSERT_FALSE(r.has_value());
    EXPECT_EQ(r.error().code, ak::errc::args_malformed);
    auto empty = box.call("get_weather", std::string_view(""), ctx);
    ASSERT_FALSE(empty.has_value());
    EXPECT_EQ(empty.error().code, ak::errc::args_invalid);  // {} is missing "city"
}

TEST(Toolbox, JsonTextAsALiteralOrStringIsParsedNotWrapped) {
    // a string literal or std::string of arguments is JSON text (it was ambiguous with json)
    ak::toolbox box{get_weather, no_arg};
    ak::tool_context ctx;
    auto lit = box.call("get_weather", "{\"city\": \"Oslo\"}", ctx);
    ASSERT_TRUE(lit.has_value()) << lit.error().to_text();
    const std::string text = R"({"city": "Bergen"})";
    auto str = box.call("get_weather", text, ctx);
    ASSERT_TRUE(str.has_value()) << str.error().to_text();
    EXPECT_NE(lit->joined_text(), str->joined_text());
    auto no_ctx = box.call("get_weather", "{\"city\": \"Oslo\"}");
    ASSERT_TRUE(no_ctx.has_value());
    EXPECT_EQ(no_ctx->joined_text(), lit->joined_text());
    EXPECT_EQ(box.call("get_weather", "{\"city\": ").error().code, ak::errc::args_malformed);
    // braced JSON still builds a json object
    auto braced = box.call("get_weather", {{"city", "Oslo"}});
    ASSERT_TRUE(braced.has_value());
    EXPECT_EQ(braced->joined_text(), lit->joined_text());
    EXPECT_TRUE(box.call("ping", "").has_value());
}

TEST(Toolbox, Merge) {
    ak::toolbox a{get_weather};
    ak::toolbox b{echo, no_arg};
    auto all = ak::merge(a, b);
    static_assert(decltype(all)::size() == 3);
    EXPECT_TRUE(all.call("ping", json::object()).has_value());
    EXPECT_EQ(all.infos()[0].name, "get_weather");
}

TEST(ToolOutput, ErrorOutput) {
    ak::error e(ak::errc::tool_masked, "browser_click is not visible now", "Call menu_enter(\"browser\") first.");
    auto o = ak::tool_output::from_error(e);
    EXPECT_TRUE(o.is_error);
    EXPECT_EQ(o.joined_text(), e.to_text());
    EXPECT_EQ((*o.structured)["error"]["code"], "tool.masked");
}
