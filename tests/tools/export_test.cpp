#include <agentkit/agentkit.hpp>

#include <gtest/gtest.h>

#include "core/test_types.hpp"

namespace ak = agentkit;
using ak::json;

namespace {

const auto draw = ak::tool<"draw">("Draw a polygon.", [](const ak_test::draw_args&) { return std::string("ok"); },
                                   ak::destructive | ak::open_world);

struct find_args {
    std::string query;
    std::optional<int> limit;
    std::optional<ak_test::color> colour;
    std::optional<ak_test::point> near;
    static constexpr auto agentkit_fields() {
        return ak::fields(AGENTKIT_FIELD(find_args, query, "Search text", ak::min_length(1)),
                          AGENTKIT_FIELD(find_args, limit, "Max results", ak::range(1, 50)),
                          AGENTKIT_FIELD(find_args, colour, "Only this colour"),
                          AGENTKIT_FIELD(find_args, near, "Near this point"));
    }
};
const auto find = ak::tool<"find">("Find shapes.", [](const find_args&) { return std::string("none"); },
                                   ak::read_only).with_title("Find shapes");

}  // namespace

TEST(Export, Mcp) {
    json j = ak::to_mcp(find.info());
    EXPECT_EQ(j["name"], "find");
    EXPECT_EQ(j["title"], "Find shapes");
    EXPECT_EQ(j["inputSchema"]["required"], json::array({"query"}));
    EXPECT_FALSE(j.contains("outputSchema"));
    // annotations say what the traits promise, nothing more (absent = the MCP spec's default)
    EXPECT_EQ(j["annotations"], (json{{"title", "Find shapes"}, {"readOnlyHint", true}}));
    // destructive and open world are the spec's defaults: nothing to say
    EXPECT_FALSE(ak::to_mcp(draw.info()).contains("annotations"));
}

TEST(Export, McpAnnotationsFollowTheSpecDefaultsUnlessTraitsSayOtherwise) {
    auto handler = [](const find_args&) { return std::string("ok"); };
    // no traits: no promise (a client assumes destructive, open world)
    EXPECT_FALSE(ak::to_mcp(ak::tool<"plain">("Plain.", handler).info()).contains("annotations"));
    // promises against the defaults are stated
    json nd = ak::to_mcp(ak::tool<"note">("Add a note.", handler, ak::non_destructive | ak::closed_world | ak::idempotent).info());
    EXPECT_EQ(nd["annotations"], (json{{"destructiveHint", false}, {"idempotentHint", true}, {"openWorldHint", false}}));
    // contradictions resolve toward the safe reading: destructive wins over non_destructive,
    // open_world over closed_world
    json both = ak::to_mcp(ak::tool<"wipe">("Wipe.", handler, ak::destructive | ak::non_destructive | ak::open_world | ak::closed_world).info());
    EXPECT_FALSE(both.contains("annotations")) << both.dump();
}

TEST(Export, Anthropic) {
    json j = ak::to_anthropic(find.info());
    EXPECT_EQ(j.size(), 3U);
    // outside strict mode the schema is shown without additionalProperties: false (tokens in every
    // tool, no effect: the parser rejects unknown properties anyway)
    json shown = find.input_schema();
    shown.erase("additionalProperties");
    shown["properties"]["near"].erase("additionalProperties");  // nested objects too
    EXPECT_EQ(j["input_schema"], shown);
    EXPECT_EQ(ak::to_mcp(find.info())["inputSchema"], shown);
    EXPECT_EQ(ak::to_mcp(draw.info())["inputSchema"].dump().find("\"additionalProperties\":false"), std::string::npos);
    // a map's additionalProperties (its value schema) stays
    EXPECT_TRUE(ak::to_mcp(draw.info())["inputSchema"]["properties"]["style"].contains("additionalProperties"));
}

TEST(Export, OpenAiStrictMakesOptionalNullableAndAllRequired) {
    json chat = ak::to_openai_chat(find.info());
    EXPECT_EQ(chat["type"], "function");
    const json& fn = chat["function"];
    EXPECT_EQ(fn["strict"], true);
    const json& p = fn["parameters"];
    EXPECT_EQ(p["required"], json::array({"query", "limit", "colour", "near"}));  // the required one, then the rest as declared
    EXPECT_EQ(p["additionalProperties"], false);
    EXPECT_EQ(p["properties"]["limit"]["type"], json::array({"integer", "null"}));
    EXPECT_EQ(p["properties"]["colour"]["enum"], json::array({"red", "green", "blue", nullptr}));
    EXPECT_EQ(p["properties"]["near"]["anyOf"][1]["type"], "null");
    EXPECT_EQ(p["properties"]["near"]["anyOf"][0]["additionalProperties"], false);
    EXPECT_FALSE(p["properties"]["query"].contains("minLength"));  // not supported by strict mode: said in words
    EXPECT_EQ(p["properties"]["query"]["description"], "Search text (at least 1 character)");
    // a default and examples too (a hand-written schema of a remote tool)
    ak::tool_info remote;
    remote.name = "weather";
    remote.description = "Weather.";
    remote.input_schema = json{{"type", "object"},
                               {"properties", {{"unit", {{"type", "string"}, {"description", "Unit"}, {"default", "celsius"}}},
                                               {"city", {{"type", "string"}, {"minLength", 2}, {"maxLength", 40}, {"examples", {"Oslo", "Lima"}}}}}},
                               {"required", {"city"}}};
    const json rp = ak::to_openai_chat(remote)["function"]["parameters"];
    EXPECT_EQ(rp["properties"]["unit"]["description"], "Unit (default: \"celsius\")");
    EXPECT_FALSE(rp["properties"]["unit"].contains("default"));
    EXPECT_EQ(rp["properties"]["city"]["description"], "2 to 40 characters; e.g. \"Oslo\", \"Lima\"");
    // A strict call carries nulls for absent optionals: our parser accepts them.
    auto parsed = ak::parse_as<find_args>(json{{"query", "q"}, {"limit", nullptr}, {"colour", nullptr}, {"near", nullptr}});
    EXPECT_TRUE(parsed.has_value());

    json resp = ak::to_openai_responses(find.info());
    EXPECT_EQ(resp["name"], "find");
    EXPECT_EQ(resp["strict"], true);
    EXPECT_EQ(resp["parameters"], p);
}

TEST(Export, MapsCannotBeStrict) {
    json j = ak::to_openai_chat(draw.info());
    EXPECT_EQ(j["function"]["strict"], false);
    EXPECT_EQ(j["function"]["parameters"], draw.input_schema());
    EXPECT_FALSE(ak::strict_schema(draw.input_schema()).has_value());
    json ns = ak::to_openai_chat(find.info(), ak::export_options{false});
    EXPECT_EQ(ns["function"]["strict"], false);
}

TEST(Export, ListInEveryDialect) {
    ak::toolbox box{find, draw};
    for (auto d : {ak::dialect::mcp, ak::dialect::anthropic, ak::dialect::openai_chat, ak::dialect::openai_responses}) {
        json a = ak::export_tools(box.infos(), d);
        ASSERT_EQ(a.size(), 2U);
    }
}
