// agentkit::json_schema_violation: the keywords it checks, and that it never refuses what it does
// not check (patterns, formats, remote references).
#include <agentkit/core/json_schema.hpp>

#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

namespace ak = agentkit;
using agentkit::json;
using agentkit::json_schema_violation;

namespace {

// A contact form in JSON Schema 2020-12: an anchored definition, a composition and a condition.
const json contact_schema = json::parse(R"({
  "$schema": "https://json-schema.org/draft/2020-12/schema",
  "type": "object",
  "$defs": {"address": {"$anchor": "addr", "type": "object",
                        "properties": {"street": {"type": "string"}, "city": {"type": "string"}},
                        "required": ["city"]}},
  "properties": {"name": {"type": "string"}, "address": {"$ref": "#addr"},
                 "via": {"type": "string", "enum": ["phone", "email"]},
                 "phone": {"type": "string"}, "email": {"type": "string"}},
  "allOf": [{"anyOf": [{"required": ["phone"]}, {"required": ["email"]}]}],
  "if": {"properties": {"via": {"const": "phone"}}, "required": ["via"]},
  "then": {"required": ["phone"]},
  "else": {"required": ["email"]},
  "additionalProperties": false
})");

std::string violation(const json& schema, const json& value) { return json_schema_violation(schema, value).value_or(""); }

}  // namespace

TEST(JsonSchema, ConditionsFollowTheBranchTheIfChooses) {
    EXPECT_EQ(violation(contact_schema, {{"name", "Ada"}, {"via", "phone"}, {"phone", "123"}}), "");
    EXPECT_EQ(violation(contact_schema, {{"name", "Ada"}, {"email", "a@b"}}), "");
    const std::string then_fails = violation(contact_schema, {{"via", "phone"}, {"email", "a@b"}});
    EXPECT_NE(then_fails.find("/phone: missing required property"), std::string::npos) << then_fails;
    EXPECT_NE(then_fails.find("\"then\""), std::string::npos) << then_fails;
    const std::string else_fails = violation(contact_schema, {{"via", "email"}, {"phone", "1"}});
    EXPECT_NE(else_fails.find("/email: missing required property"), std::string::npos) << else_fails;
    EXPECT_NE(else_fails.find("\"else\""), std::string::npos) << else_fails;
    // the anyOf inside allOf: neither phone nor email
    EXPECT_NE(violation(contact_schema, {{"name", "Ada"}}).find("anyOf"), std::string::npos);
    EXPECT_NE(violation(contact_schema, {{"email", "a@b"}, {"age", 3}}).find("/age: unknown property; did you mean \"name\"? Known properties: "), std::string::npos);
}

TEST(JsonSchema, PlainNameAnchorsResolveLikePointers) {
    EXPECT_EQ(violation(contact_schema, {{"email", "a@b"}, {"address", {{"city", "Oslo"}}}}), "");
    EXPECT_EQ(violation(contact_schema, {{"email", "a@b"}, {"address", {{"street", "Main"}}}}),
              "/address/city: missing required property");
    EXPECT_EQ(violation(contact_schema, {{"email", "a@b"}, {"address", {{"city", 7}}}}), "/address/city: expected string, got integer 7");
    // an anchor nobody declares: nothing to check against, nothing refused
    const json dangling = {{"type", "object"}, {"properties", {{"x", {{"$ref", "#nowhere"}}}}}};
    EXPECT_EQ(violation(dangling, {{"x", 1}}), "");
    // an "$anchor" inside a value (enum, const, default) is not a schema
    const json in_value = {{"properties", {{"k", {{"$ref", "#v"}}}}}, {"default", {{"$anchor", "v"}, {"type", "string"}}}};
    EXPECT_EQ(violation(in_value, {{"k", 1}}), "");
}

TEST(JsonSchema, CountsOfItemsAndProperties) {
    const json s = json::parse(R"({"type": "object",
      "properties": {"tags": {"type": "array", "uniqueItems": true, "contains": {"const": "main"}, "maxContains": 1},
                     "n": {"type": "number", "multipleOf": 0.5}},
      "minProperties": 1, "maxProperties": 2,
      "dependentRequired": {"n": ["tags"]}})");
    EXPECT_EQ(violation(s, {{"tags", {"main", "b"}}, {"n", 1.5}}), "");
    EXPECT_EQ(violation(s, json::object()), "/: must have at least 1 property");
    EXPECT_EQ(violation(s, {{"tags", {"main"}}, {"n", 1}, {"x", 1}}), "/: must have at most 2 properties");
    EXPECT_EQ(violation(s, {{"n", 1}}), "/tags: missing property required when \"n\" is present");
    EXPECT_EQ(violation(s, {{"tags", {"main", "b", "main"}}}), "/tags: items 0 and 2 are equal");
    EXPECT_EQ(violation(s, {{"tags", {"a", "b"}}}), "/tags: too few items match \"contains\"");
    EXPECT_EQ(violation(s, {{"tags", {"b"}}, {"n", 1.25}}), "/n: must be a multiple of 0.5, got 1.25");
    // a multiple of a decimal step is not refused for rounding noise
    EXPECT_EQ(violation({{"multipleOf", 0.1}}, 0.3), "");
}

TEST(JsonSchema, PropertyNamesAreCheckedAsStrings) {
    const json s = {{"type", "object"}, {"propertyNames", {{"maxLength", 3}}}};
    EXPECT_EQ(violation(s, {{"abc", 1}}), "");
    const std::string bad = violation(s, {{"abcd", 1}});
    EXPECT_NE(bad.find("property name \"abcd\""), std::string::npos) << bad;
    EXPECT_NE(bad.find("must have at most 3 characters"), std::string::npos) << bad;
}

TEST(JsonSchema, WhatIsNotCheckedIsNeverRefused) {
    // patternProperties are not run, so additionalProperties: false does not refuse a name they may cover
    const json s = json::parse(R"({"type": "object", "properties": {"id": {"type": "integer"}},
      "patternProperties": {"^x-": {"type": "string"}}, "additionalProperties": false})");
    EXPECT_EQ(violation(s, {{"id", 1}, {"x-trace", "t"}}), "");
    EXPECT_EQ(violation(s, {{"id", "one"}}), "/id: expected integer, got string \"one\"");
    // pattern, format and a remote reference: let through, the server decides
    const json loose = json::parse(R"({"type": "object", "properties": {
      "code": {"type": "string", "pattern": "^[0-9]+$"}, "when": {"type": "string", "format": "date-time"},
      "far": {"$ref": "https://example.invalid/schema.json"}}})");
    EXPECT_EQ(violation(loose, {{"code", "abc"}, {"when", "soon"}, {"far", {1, 2}}}), "");
}

TEST(JsonSchema, TheCheckedKeywordsOfEarlierDraftsStillHold) {
    const json s = json::parse(R"({"type": "object", "required": ["a"], "definitions": {"n": {"type": "integer", "minimum": 1}},
      "properties": {"a": {"$ref": "#/definitions/n"}, "pair": {"prefixItems": [{"type": "string"}], "items": {"type": "integer"}},
                     "one": {"oneOf": [{"type": "string"}, {"maxLength": 2}]}, "no": {"not": {"type": "null"}}}})");
    EXPECT_EQ(violation(s, {{"a", 1}, {"pair", {"x", 1, 2}}, {"one", 5}, {"no", 1}}), "");
    EXPECT_EQ(violation(s, {{"a", 0}}), "/a: must be >= 1, got 0");
    EXPECT_EQ(violation(s, {{"a", 1}, {"pair", {"x", "y"}}}), "/pair/1: expected integer, got string \"y\"");
    EXPECT_EQ(violation(s, {{"a", 1}, {"one", "ab"}}), "/one: must match exactly one of oneOf");
    EXPECT_EQ(violation(s, {{"a", 1}, {"no", nullptr}}), "/no: must not match the \"not\" schema");
    EXPECT_EQ(violation(s, json::object()), "/a: missing required property");
}

TEST(JsonSchema, LengthsCountCharactersNotBytes) {
    const json s = json::parse(R"({"type": "string", "minLength": 2, "maxLength": 5})");
    EXPECT_EQ(violation(s, "h\u00e9llo"), "");        // 5 characters, 6 bytes
    EXPECT_EQ(violation(s, "\u65e5\u672c"), "");      // 2 characters, 6 bytes
    EXPECT_EQ(violation(s, "\u65e5"), "/: must have at least 2 characters");
    EXPECT_EQ(violation(s, "h\u00e9llo!"), "/: must have at most 5 characters");
    // counts written as C++ literals (signed) are counts too
    EXPECT_EQ(violation({{"type", "string"}, {"maxLength", 1}}, "ab"), "/: must have at most 1 character");
}

TEST(JsonSchema, EveryProblemIsListedWithItsPathInTheWordsOfACppToolsArguments) {
    const json s = json::parse(R"({"type": "object", "required": ["city", "days"], "additionalProperties": false,
      "properties": {"city": {"type": "string", "minLength": 1}, "days": {"type": "integer", "minimum": 1, "maximum": 7},
                     "units": {"enum": ["metric", "imperial"]}, "tags": {"type": "array", "items": {"type": "string"}}}})");
    const auto problems = ak::json_schema_problems(s, {{"city", 5}, {"units", "kelvin"}, {"tags", {"a", 2, "c", 4}}, {"cty", "x"}});
    std::vector<std::string> seen;
    for (const auto& p : problems) seen.push_back(p.path + ": " + p.message);
    EXPECT_EQ(seen, (std::vector<std::string>{
                        "/days: missing required property",
                        "/city: expected string, got integer 5",
                        "/cty: unknown property; did you mean \"city\"? Known properties: city, days, tags, units",
                        "/tags/1: expected string, got integer 2",
                        "/tags/3: expected string, got integer 4",
                        "/units: must be one of: metric, imperial; got string \"kelvin\"",
                    }));
    // a value of the wrong type is not checked further: one problem, not three
    EXPECT_EQ(ak::json_schema_problems(s, {{"city", "Oslo"}, {"days", "9"}}).size(), 1u);
    // the limit
    EXPECT_EQ(ak::json_schema_problems(s, {{"city", 5}, {"units", "kelvin"}}, 1).size(), 1u);
    EXPECT_TRUE(ak::json_schema_problems(s, {{"city", "Oslo"}, {"days", 2}}).empty());
    // the same error as a C++ tool's
    const auto e = ak::invalid_arguments(problems, false, "forecast");
    EXPECT_TRUE(e.is(ak::errc::args_invalid));
    EXPECT_EQ(e.message.rfind("forecast: 6 problems in arguments: /days: missing required property; /city: ", 0), 0u) << e.message;
    EXPECT_EQ(e.hint, "Fix every listed argument and call forecast again.");
    EXPECT_EQ(e.details["problems"].size(), 6u);
    EXPECT_EQ(e.details["problems"][1]["path"], "/city");
}
