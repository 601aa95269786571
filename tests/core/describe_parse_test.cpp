#include <agentkit/agentkit.hpp>

#include <gtest/gtest.h>

#include "test_types.hpp"

namespace ak = agentkit;
using ak::json;
using ak_test::draw_args;

namespace {

json good_args() {
    return json{{"label", "Box"},      {"url", "https://example.com/x"}, {"fill", "blue"},
                {"points", {{{"x", 1}, {"y", 2}}}}, {"opacity", 0.5}, {"style", {{"stroke", "red"}}}};
}

std::vector<std::string> problem_paths(const ak::error& e) {
    std::vector<std::string> paths;
    for (const auto& p : e.details.at("problems")) paths.push_back(p.at("path").get<std::string>());
    return paths;
}

}  // namespace

TEST(Schema, ObjectWithRequiredOptionalAndConstraints) {
    const json& s = ak::schema_of<draw_args>();
    EXPECT_EQ(s["type"], "object");
    EXPECT_EQ(s["additionalProperties"], false);
    EXPECT_EQ(s["required"], json::array({"label", "points", "style"}));
    EXPECT_EQ(s["properties"]["label"]["type"], "string");
    EXPECT_EQ(s["properties"]["label"]["minLength"], 1);
    EXPECT_EQ(s["properties"]["label"]["maxLength"], 8);
    EXPECT_EQ(s["properties"]["label"]["pattern"], "^[A-Za-z]");
    EXPECT_EQ(s["properties"]["label"]["description"], "Text drawn next to the shape");
    EXPECT_EQ(s["properties"]["url"]["format"], "uri");
    EXPECT_EQ(s["properties"]["fill"]["enum"], json::array({"red", "green", "blue"}));
    EXPECT_EQ(s["properties"]["fill"]["default"], "red");
    EXPECT_EQ(s["properties"]["points"]["type"], "array");
    EXPECT_EQ(s["properties"]["points"]["minItems"], 1);
    EXPECT_EQ(s["properties"]["points"]["items"]["properties"]["x"]["maximum"], 1000.0);
    EXPECT_EQ(s["properties"]["points"]["items"]["required"], json::array({"x", "y"}));
    EXPECT_EQ(s["properties"]["opacity"]["type"], "number");
    EXPECT_EQ(s["properties"]["style"]["additionalProperties"]["type"], "string");
    EXPECT_EQ(s["properties"]["retries"]["type"], "integer");
    EXPECT_EQ(s["properties"]["retries"]["minimum"], 0);
}

// A whole bound is written as an integer: a host that passes the schema on as it came (a Python
// one re-serialises 1000.0 as "1000.0") shows the model "1000"; a fraction stays one.
TEST(Schema, WholeBoundsAreIntegersAndFractionsStayNumbers) {
    const json& s = ak::schema_of<draw_args>();
    const auto& x = s["properties"]["points"]["items"]["properties"]["x"];
    EXPECT_TRUE(x["maximum"].is_number_integer()) << x.dump();
    EXPECT_NE(s.dump().find("\"maximum\":1000"), std::string::npos) << s.dump();
    EXPECT_EQ(s.dump().find("1000.0"), std::string::npos) << s.dump();
    EXPECT_TRUE(s["properties"]["opacity"]["maximum"].is_number_integer());  // range(0.0, 1.0)
    EXPECT_EQ(ak::detail::number_json(0.25), json(0.25));
    EXPECT_TRUE(ak::detail::number_json(0.25).is_number_float());
    EXPECT_TRUE(ak::detail::number_json(-3.0).is_number_integer());
    EXPECT_TRUE(ak::detail::number_json(1e300).is_number_float()) << "beyond what a double holds exactly";
}

TEST(Parse, GoodArgumentsRoundTrip) {
    auto r = ak::parse_as<draw_args>(good_args());
    ASSERT_TRUE(r.has_value()) << r.error().to_text();
    EXPECT_EQ(r->label, "Box");
    EXPECT_EQ(r->fill, ak_test::color::blue);
    ASSERT_EQ(r->points.size(), 1U);
    EXPECT_EQ(r->points[0].y, 2);
    EXPECT_EQ(r->opacity, 0.5);
    EXPECT_FALSE(r->dashed);  // default kept
    EXPECT_EQ(r->style.at("stroke"), "red");
    json back = ak::to_json_value(*r);
    EXPECT_EQ(back["fill"], "blue");
    EXPECT_EQ(back["points"][0]["x"], 1);
    auto again = ak::parse_as<draw_args>(back);
    ASSERT_TRUE(again.has_value()) << again.error().to_text();
    EXPECT_EQ(ak::to_json_value(*again), back);
}

TEST(Parse, ReportsEveryProblemWithItsPath) {
    json j = good_args();
    j.erase("label");
    j["fill"] = "purple";
    j["points"] = json::array({{{"x", -1}, {"y", "2"}}, {{"x", 1}}});
    j["opacity"] = 2.0;
    j["colour"] = "red";
    j["retries"] = -3;
    auto r = ak::parse_as<draw_args>(j);
    ASSERT_FALSE(r.has_value());
    EXPECT_EQ(r.error().code, ak::errc::args_invalid);
    auto paths = problem_paths(r.error());
    std::vector<std::string> expected{"/label", "/fill", "/points/0/x", "/points/0/y", "/points/1/y", "/opacity",
                                      "/retries", "/colour"};
    EXPECT_EQ(paths, expected) << r.error().message;
    EXPECT_NE(r.error().message.find("/fill: must be one of: red, green, blue"), std::string::npos) << r.error().message;
    EXPECT_NE(r.error().message.find("/points/0/y: expected integer, got string \"2\""), std::string::npos);
    EXPECT_NE(r.error().message.find("/label: missing required property"), std::string::npos);
    EXPECT_NE(r.error().message.find("/colour: unknown property"), std::string::npos);
    EXPECT_FALSE(r.error().hint.empty());
}

TEST(Parse, StringConstraints) {
    json j = good_args();
    j["label"] = "9abcdefghij";
    j["url"] = "not a url";
    auto r = ak::parse_as<draw_args>(j);
    ASSERT_FALSE(r.has_value());
    const std::string& m = r.error().message;
    EXPECT_NE(m.find("/label: must have at most 8 characters"), std::string::npos) << m;
    EXPECT_NE(m.find("/label: must match the pattern ^[A-Za-z]"), std::string::npos) << m;
    EXPECT_NE(m.find("/url: must be a valid uri"), std::string::npos) << m;
    // length counts code points, not bytes
    j = good_args();
    j["label"] = "Aäöüßéèå";  // 8 code points, 15 bytes
    EXPECT_TRUE(ak::parse_as<draw_args>(j).has_value());
}

TEST(Parse, UnknownPropertySuggestsClosestName) {
    json j = good_args();
    j["opacty"] = 0.3;
    auto r = ak::parse_as<draw_args>(j);
    ASSERT_FALSE(r.has_value());
    EXPECT_NE(r.error().message.find("did you mean \"opacity\""), std::string::npos) << r.error().message;
}

TEST(Parse, IntegersAndNumbers) {
    json j = good_args();
    j["points"] = json::array({{{"x", 3.0}, {"y", 4}}});  // 3.0 is an integer in JSON Schema
    EXPECT_TRUE(ak::parse_as<draw_args>(j).has_value());
    j["points"] = json::array({{{"x", 3.5}, {"y", 4}}});
    EXPECT_FALSE(ak::parse_as<draw_args>(j).has_value());
    j["points"] = json::array({{{"x", true}, {"y", 4}}});
    EXPECT_FALSE(ak::parse_as<draw_args>(j).has_value());
    j["points"] = json::array({{{"x", 1e300}, {"y", 4}}});
    EXPECT_FALSE(ak::parse_as<draw_args>(j).has_value());
}

TEST(Parse, NullMeansAbsentForOptionals) {
    json j = good_args();
    j["url"] = nullptr;
    j["opacity"] = nullptr;
    auto r = ak::parse_as<draw_args>(j);
    ASSERT_TRUE(r.has_value()) << r.error().to_text();
    EXPECT_FALSE(r->url.has_value());
    j["label"] = nullptr;
    auto r2 = ak::parse_as<draw_args>(j);
    ASSERT_FALSE(r2.has_value());
    EXPECT_EQ(problem_paths(r2.error()), std::vector<std::string>{"/label"});
}

TEST(Parse, MalformedTextAndWrongRoot) {
    auto r = ak::parse_as<draw_args>(std::string_view("{\"label\": "));
    ASSERT_FALSE(r.has_value());
    EXPECT_EQ(r.error().code, ak::errc::args_malformed);
    auto r2 = ak::parse_as<draw_args>(json::array());
    ASSERT_FALSE(r2.has_value());
    EXPECT_NE(r2.error().message.find("(root): expected object, got array"), std::string::npos) << r2.error().message;
}

TEST(Parse, ManyProblemsAreCapped) {
    json j = good_args();
    json pts = json::array();
    for (int i = 0; i < 500; ++i) pts.push_back({{"x", "bad"}, {"y", "bad"}});
    j["points"] = pts;
    auto r = ak::parse_as<draw_args>(j);
    ASSERT_FALSE(r.has_value());
    EXPECT_LE(r.error().details["problems"].size(), 50U);
    EXPECT_NE(r.error().message.find("more not shown"), std::string::npos);
}

TEST(Formats, Checks) {
    using ak::detail::check_format;
    EXPECT_TRUE(check_format("date-time", "2026-11-22T03:48:41Z"));
    EXPECT_TRUE(check_format("date-time", "2026-11-22T03:48:41.123+01:00"));
    EXPECT_FALSE(check_format("date-time", "2026-11-22 03:48"));
    EXPECT_TRUE(check_format("email", "a@b.org"));
    EXPECT_FALSE(check_format("email", "a@@b.org"));
    EXPECT_TRUE(check_format("uuid", "123e4567-e89b-12d3-a456-426614174000"));
    EXPECT_FALSE(check_format("uuid", "123e4567e89b12d3a456426614174000"));
    EXPECT_TRUE(check_format("ipv4", "127.0.0.1"));
    EXPECT_FALSE(check_format("ipv4", "256.0.0.1"));
    EXPECT_FALSE(check_format("ipv4", "1.2.3"));
    EXPECT_TRUE(check_format("hostname", "my-host.example"));
    EXPECT_FALSE(check_format("hostname", "-bad.example"));
    EXPECT_TRUE(check_format("uri", "http://127.0.0.1:8080/x"));
    EXPECT_FALSE(check_format("uri", "/relative"));
}

TEST(Strings, ClosestNames) {
    std::vector<std::string> names{"browser_click", "browser_navigate", "browser_type", "menu_enter"};
    auto c = ak::closest_names("browser_clik", names, 2);
    ASSERT_FALSE(c.empty());
    EXPECT_EQ(c.front(), "browser_click");
    EXPECT_TRUE(ak::closest_names("zzzzzzzzzz", names).empty());
    EXPECT_EQ(ak::closest_names("navigate", names, 1), std::vector<std::string>{"browser_navigate"});
}

TEST(Strings, CollapsedWhitespaceIsOneSpaceNoneAtTheEnds) {
    EXPECT_EQ(ak::collapse_whitespace("  a \t\n b\r\n\v\fc  "), "a b c");
    EXPECT_EQ(ak::collapse_whitespace(" \n\t "), "");
    EXPECT_EQ(ak::collapse_whitespace(""), "");
    EXPECT_EQ(ak::collapse_whitespace("caf\xc3\xa9  au\xc2\xa0lait"), "caf\xc3\xa9 au\xc2\xa0lait");  // UTF-8 untouched, NBSP kept
}

TEST(Strings, MarkdownReadsAsItsFirstParagraphInPlainText) {
    const std::string md =
        "# Memory server\n\nKeeps a **knowledge graph** of `entities` and\n[their relations](https://x.example/a_b). Use it "
        "often.\n\n## Tools\n- create_entities";
    EXPECT_EQ(ak::markdown_plain(md), "Keeps a knowledge graph of entities and their relations. Use it often.");
    EXPECT_EQ(ak::markdown_plain("## Everything\n### Test server!"), "Everything. Test server!");  // headings alone
    EXPECT_EQ(ak::markdown_plain("- Use get_weather for _current_ weather\n- or __not__"), "Use get_weather for current weather or not");
    EXPECT_EQ(ak::markdown_plain("> Quoted. More\n\nlater"), "Quoted. More");
    EXPECT_EQ(ak::markdown_plain("```\n# not a heading\n```\n\n![logo](l.png) Text ---\n***"), "logo Text ---");
    EXPECT_EQ(ak::markdown_plain(""), "");
}

struct named_args {
    std::string name;
    static constexpr auto agentkit_fields() { return ak::fields(AGENTKIT_FIELD(named_args, name, "A name", ak::min_length(1))); }
};

TEST(Strings, ACountTakesItsNounInTheRightNumber) {
    EXPECT_EQ(ak::count_noun(1, "tool"), "1 tool");
    EXPECT_EQ(ak::count_noun(0, "tool"), "0 tools");
    EXPECT_EQ(ak::count_noun(12, "entry", "entries"), "12 entries");
    // where a model reads it: a one-character minimum is "1 character", never "1 characters"
    auto r = ak::parse_as<named_args>(json{{"name", ""}});
    ASSERT_FALSE(r);
    EXPECT_NE(r.error().to_text().find("at least 1 character"), std::string::npos) << r.error().to_text();
    EXPECT_EQ(r.error().to_text().find("1 characters"), std::string::npos) << r.error().to_text();
}

TEST(Strings, FirstSentenceAndAClipThatKeepsCharactersWhole) {
    EXPECT_EQ(ak::first_sentence("One. Two."), "One.");
    EXPECT_EQ(ak::first_sentence("Really? Yes."), "Really?");
    EXPECT_EQ(ak::first_sentence("Version 1.5 ships. Next"), "Version 1.5 ships.");  // a point inside a number is no end
    EXPECT_EQ(ak::first_sentence("no end at all"), "no end at all");
    // list numbers, initials and abbreviations with points end nothing (server instructions have them)
    EXPECT_EQ(ak::first_sentence("Workflow: 1. Call x first. Then y."), "Workflow: 1. Call x first.");
    EXPECT_EQ(ak::first_sentence("Tools for GitHub, e.g. issues and pulls. More."), "Tools for GitHub, e.g. issues and pulls.");
    EXPECT_EQ(ak::first_sentence("By J. Smith. Later."), "By J. Smith.");
    EXPECT_EQ(ak::markdown_plain("Workflow:\n1. Call x\n2) Call y"), "Workflow: Call x Call y");
    EXPECT_EQ(ak::clip_ellipsis("short", 5), "short");
    EXPECT_EQ(ak::clip_ellipsis("\xc3\x86r\xc3\xb8sk", 6), "\xc3\x86r...");  // "Ærøsk": never half of ø
    EXPECT_EQ(ak::clip_ellipsis("abcdef", 2), "ab");
}

TEST(Strings, Utf8SafeCuts) {
    std::string s = "aé";  // 'a' + 2-byte é
    EXPECT_EQ(ak::utf8_safe_prefix(s, 2), 1U);
    EXPECT_EQ(ak::utf8_safe_prefix(s, 3), 3U);
    EXPECT_EQ(ak::utf8_safe_suffix_start(s, 1), 3U);
}

TEST(Error, JsonRoundTripAndText) {
    ak::error e(ak::errc::ref_stale, "ref e12 is gone", "Take a new snapshot.", json{{"ref", "e12"}});
    EXPECT_EQ(ak::error::from_json(e.to_json()), e);
    EXPECT_EQ(e.to_text(), "error[ref.stale]: ref e12 is gone Hint: Take a new snapshot.");
    EXPECT_EQ(ak::error::from_json(json(3)).code, ak::errc::internal);
}

// ---- defaults: a default member initializer makes a field optional (core/serialize.hpp) --------
namespace {
enum class shade { light, dark, neon };
struct order_args {
    std::string item;                                  // required: no initializer
    int quantity = 1;                                  // optional, default 1
    std::string unit = "kg";                           // optional, default "kg"
    bool gift_wrap = true;                             // optional, default true
    shade tone = shade::dark;                          // optional, default "dark"
    std::vector<std::string> tags{"new"};              // optional, default ["new"]
    ak_test::point origin{5, 6};                       // optional, default {"x":5,"y":6}
    int rush = 0;                                      // zero: cannot be told from none, required
    int retries = 0;                                   // default_value applies 3
    static constexpr auto agentkit_fields() {
        namespace ak = agentkit;
        return ak::fields(AGENTKIT_FIELD(order_args, item, "What to order"),
                          AGENTKIT_FIELD(order_args, quantity, "How many", ak::range(1, 10)),
                          AGENTKIT_FIELD(order_args, unit, "Unit"), AGENTKIT_FIELD(order_args, gift_wrap, "Wrap it"),
                          AGENTKIT_FIELD(order_args, tone, "Tone"), AGENTKIT_FIELD(order_args, tags, "Tags"),
                          AGENTKIT_FIELD(order_args, origin, "Origin"), AGENTKIT_FIELD(order_args, rush, "Rush level"),
                          AGENTKIT_FIELD(order_args, retries, "Retries", ak::default_value(3)));
    }
};
}  // namespace
AGENTKIT_ENUM(shade, light, dark, neon);

TEST(Defaults, InitializersMakeFieldsOptionalWithTheirDefaultInTheSchema) {
    const json& s = ak::schema_of<order_args>();
    EXPECT_EQ(s["required"], json::array({"item", "rush"})) << s.dump();
    EXPECT_EQ(s["properties"]["quantity"]["default"], 1);
    EXPECT_EQ(s["properties"]["unit"]["default"], "kg");
    EXPECT_EQ(s["properties"]["gift_wrap"]["default"], true);
    EXPECT_EQ(s["properties"]["tone"]["default"], "dark");
    EXPECT_EQ(s["properties"]["tags"]["default"], json::array({"new"}));
    EXPECT_EQ(s["properties"]["origin"]["default"], (json{{"x", 5}, {"y", 6}}));
    EXPECT_EQ(s["properties"]["retries"]["default"], 3);
    EXPECT_FALSE(s["properties"]["item"].contains("default"));
    EXPECT_FALSE(s["properties"]["rush"].contains("default"));
}

TEST(Defaults, AbsentOrNullFieldsTakeTheirDefault) {
    for (const json& j : {json{{"item", "tea"}, {"rush", 2}},
                          json{{"item", "tea"}, {"rush", 2}, {"quantity", nullptr}, {"tone", nullptr}, {"retries", nullptr}}}) {
        auto r = ak::parse_as<order_args>(j);
        ASSERT_TRUE(r.has_value()) << r.error().to_text();
        EXPECT_EQ(r->quantity, 1);
        EXPECT_EQ(r->unit, "kg");
        EXPECT_TRUE(r->gift_wrap);
        EXPECT_EQ(r->tone, shade::dark);
        EXPECT_EQ(r->tags, std::vector<std::string>{"new"});
        EXPECT_EQ(r->origin.x, 5);
        EXPECT_EQ(r->retries, 3);  // default_value is applied, not only shown
        EXPECT_EQ(r->rush, 2);
    }
    // given values win; the required ones are still required
    auto given = ak::parse_as<order_args>(json{{"item", "tea"}, {"rush", 0}, {"quantity", 4}, {"gift_wrap", false}});
    ASSERT_TRUE(given.has_value());
    EXPECT_EQ(given->quantity, 4);
    EXPECT_FALSE(given->gift_wrap);
    auto missing = ak::parse_as<order_args>(json{{"quantity", 2}});
    ASSERT_FALSE(missing.has_value());
    EXPECT_EQ(problem_paths(missing.error()), (std::vector<std::string>{"/item", "/rush"})) << missing.error().message;
    // a default still has to pass the field's constraints when given
    auto bad = ak::parse_as<order_args>(json{{"item", "tea"}, {"rush", 1}, {"quantity", 11}});
    ASSERT_FALSE(bad.has_value());
    EXPECT_EQ(problem_paths(bad.error()), std::vector<std::string>{"/quantity"});
}

TEST(Defaults, StrictExportMakesDefaultedFieldsNullableAndNullTakesTheDefault) {
    ak::toolbox box{ak::tool<"order">("Order something.", [](const order_args& a) { return std::to_string(a.quantity); })};
    const json tools = ak::export_tools(box.infos(), ak::dialect::openai_chat);
    const json& params = tools[0]["function"]["parameters"];
    EXPECT_EQ(params["required"].size(), params["properties"].size()) << params.dump();
    EXPECT_EQ(params["properties"]["quantity"]["type"], json::array({"integer", "null"})) << params.dump();
    auto r = box.call("order", json{{"item", "tea"}, {"rush", 0}, {"quantity", nullptr}, {"unit", nullptr},
                                    {"gift_wrap", nullptr}, {"tone", nullptr}, {"tags", nullptr}, {"origin", nullptr},
                                    {"retries", nullptr}});
    ASSERT_TRUE(r.has_value()) << r.error().to_text();
    EXPECT_EQ(r->joined_text(), "1");
}

// AGENTKIT_ENUM in the enum's own namespace (and at global scope: test_types.hpp, shade above)
namespace shop {
enum class size { small, medium, large };
AGENTKIT_ENUM(size, small, medium, large);
struct shirt_args {
    size fit = size::medium;
    static constexpr auto agentkit_fields() { return agentkit::fields(AGENTKIT_FIELD(shirt_args, fit, "Fit")); }
};
}  // namespace shop

TEST(Describe, EnumNamesDeclaredInsideTheEnumsNamespace) {
    const json& s = ak::schema_of<shop::shirt_args>();
    EXPECT_EQ(s["properties"]["fit"]["enum"], json::array({"small", "medium", "large"}));
    EXPECT_EQ(s["properties"]["fit"]["default"], "medium");
    EXPECT_EQ(ak::enum_to_string(shop::size::large), "large");
    auto r = ak::parse_as<shop::shirt_args>(json{{"fit", "small"}});
    ASSERT_TRUE(r.has_value());
    EXPECT_EQ(r->fit, shop::size::small);
}

// hidden(): accepted and validated, not advertised (an alias kept for compatibility)
namespace {
struct alias_args {
    std::optional<std::string> ref;
    std::optional<std::string> target;  // another server's name for ref
    std::optional<std::string> note;
    static constexpr auto agentkit_fields() {
        namespace ak = agentkit;
        return ak::fields(AGENTKIT_FIELD(alias_args, ref, "Element ref"), AGENTKIT_FIELD(alias_args, target, "", ak::hidden()),
                          AGENTKIT_FIELD(alias_args, note, "", ak::hidden(), ak::max_length(4)));
    }
};
}  // namespace

TEST(Describe, HiddenFieldsAreAcceptedButNotAdvertised) {
    const json& s = ak::schema_of<alias_args>();
    EXPECT_EQ(s["properties"].size(), 1u) << s.dump();
    EXPECT_TRUE(s["properties"].contains("ref"));
    auto r = ak::parse_as<alias_args>(json{{"target", "e3"}, {"note", "ok"}});
    ASSERT_TRUE(r.has_value()) << r.error().to_text();
    EXPECT_EQ(r->target, "e3");
    // still validated, and a misspelt name is still refused
    auto bad = ak::parse_as<alias_args>(json{{"note", "too long"}});
    ASSERT_FALSE(bad.has_value());
    EXPECT_EQ(problem_paths(bad.error()), std::vector<std::string>{"/note"});
    // the error names only what the schema shows: the aliases stay out of the model's sight
    auto typo = ak::parse_as<alias_args>(json{{"reff", "e3"}});
    ASSERT_FALSE(typo.has_value());
    EXPECT_NE(typo.error().message.find("did you mean \"ref\"? Known properties: ref"), std::string::npos) << typo.error().message;
    EXPECT_EQ(typo.error().message.find("target"), std::string::npos) << typo.error().message;
}
