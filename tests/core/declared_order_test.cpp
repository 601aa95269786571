// A schema's properties reach a reader in the order they were declared (core/declared_order.hpp):
// from a described type, from the text of a tool list, told apart when two share their names.
#include <agentkit/core/declared_order.hpp>
#include <agentkit/core/schema.hpp>

#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ak = agentkit;
using agentkit::json;

namespace {

struct order_where {
    std::string zeta;
    std::optional<std::string> alpha;
    static constexpr auto agentkit_fields() {
        return ak::fields(AGENTKIT_FIELD(order_where, zeta, "Last by key, first declared"), AGENTKIT_FIELD(order_where, alpha, ""));
    }
};

struct order_search {
    std::string query;
    int limit = 10;
    std::optional<order_where> where;
    bool exact = false;
    static constexpr auto agentkit_fields() {
        return ak::fields(AGENTKIT_FIELD(order_search, query, "What to find"), AGENTKIT_FIELD(order_search, limit, "At most this many"),
                          AGENTKIT_FIELD(order_search, where, ""), AGENTKIT_FIELD(order_search, exact, ""));
    }
};

/// The positions of `names` in `text`, each after the one before; npos when one is missing or
/// comes earlier.
bool in_this_order(std::string_view text, const std::vector<std::string>& names) {
    std::size_t at = 0;
    for (const auto& n : names) {
        const std::size_t found = text.find("\"" + n + "\":", at);
        if (found == std::string_view::npos) return false;
        at = found + 1;
    }
    return true;
}

/// "x12" (appended in two steps: g++ 12 -O3 reads numbered('x', i) as an overflow).
std::string numbered(char letter, std::size_t i) {
    std::string s(1, letter);
    s += std::to_string(i);
    return s;
}

}  // namespace

TEST(DeclaredOrder, ADescribedTypesSchemaIsWrittenInItsDeclaredOrder) {
    const json& s = ak::schema_of<order_search>();
    const std::string plain = s.dump();
    const std::string declared = ak::dump_declared(s);
    // the value is the same; only the order a reader sees differs
    EXPECT_EQ(json::parse(declared), s);
    EXPECT_EQ(declared.size(), plain.size());
    EXPECT_TRUE(in_this_order(declared, {"query", "limit", "where", "exact"})) << declared;
    EXPECT_TRUE(in_this_order(declared, {"zeta", "alpha"})) << declared;  // nested too
    EXPECT_FALSE(in_this_order(plain, {"query", "limit", "where", "exact"})) << plain;  // json alone sorts them
    // everything else keeps json's order: the schema's own keywords by key
    EXPECT_LT(declared.find("\"additionalProperties\""), declared.find("\"type\""));
    EXPECT_EQ(ak::declared_order(s["properties"]), (std::vector<std::string>{"query", "limit", "where", "exact"}));
}

TEST(DeclaredOrder, ValuesWithoutRememberedPropertiesAreWrittenAsDumpWritesThem) {
    (void)ak::schema_of<order_search>();  // something is remembered
    const json data = json::parse(R"({"b": [1, 2.5, "x", null, true], "a": {"properties": {"y": 1, "x": 2}}, "é": "\u001f"})");
    EXPECT_EQ(ak::dump_declared(data), data.dump());
    EXPECT_EQ(ak::declared_order(data["a"]["properties"]), (std::vector<std::string>{"x", "y"}));
    // invalid UTF-8: the error handler is dump's
    const json bad = json{{"properties", {{"b", std::string("\xff")}, {"a", 1}}}};
    EXPECT_THROW((void)ak::dump_declared(bad), json::type_error);
    EXPECT_EQ(ak::dump_declared(bad, json::error_handler_t::replace), bad.dump(-1, ' ', false, json::error_handler_t::replace));
}

TEST(DeclaredOrder, ATextsOrderIsRememberedWithEscapedNamesAndArrays) {
    const std::string text = R"({"result": {"tools": [
        {"name": "one", "inputSchema": {"type": "object", "properties": {"t3": {"type": "string"}, "t1": {"type": "string"}}}},
        {"name": "two", "inputSchema": {"type": "object", "properties": {
            "m/2": {"type": "object", "properties": {"k~9": {"type": "string"}, "k~1": {"type": "string"}}},
            "m0": {"type": "array", "items": {"type": "object", "properties": {"q2": {}, "q1": {}}}}}}}]}})";
    const json parsed = json::parse(text);
    ak::remember_declared_orders(text, parsed);
    const std::string out = ak::dump_declared(parsed);
    EXPECT_EQ(json::parse(out), parsed);
    EXPECT_TRUE(in_this_order(out, {"t3", "t1"})) << out;
    EXPECT_TRUE(in_this_order(out, {"m/2", "m0"})) << out;
    EXPECT_TRUE(in_this_order(out, {"k~9", "k~1"})) << out;
    EXPECT_TRUE(in_this_order(out, {"q2", "q1"})) << out;
}

TEST(DeclaredOrder, TextThatIsNotJsonOrDoesNotMatchTeachesNothing) {
    const json parsed = json::parse(R"({"properties": {"n2": 1, "n1": 2}})");
    ak::remember_declared_orders(R"({"properties": {"n2": 1, "n1": 2)", parsed);   // cut short
    ak::remember_declared_orders(R"({"properties": {"n2": 1, "n2": 2, "n1": 3}})", parsed);  // a name twice
    ak::remember_declared_orders(R"({"other": {"properties": {"n2": 1, "n1": 2}}})", parsed);  // another place
    EXPECT_EQ(ak::dump_declared(parsed), parsed.dump());
}

TEST(DeclaredOrder, TwoSchemasWithTheSameNamesAreToldApartByTheirContent) {
    const json first = json::parse(R"({"u2": {"type": "string"}, "u1": {"type": "integer"}})");
    const json second = json::parse(R"({"u2": {"type": "number"}, "u1": {"type": "integer"}})");
    ak::remember_declared_order(first, {"u2", "u1"});
    // one order for these names: any object with them is written so (even one changed since)
    EXPECT_EQ(ak::declared_order(second), (std::vector<std::string>{"u2", "u1"}));
    ak::remember_declared_order(second, {"u1", "u2"});
    EXPECT_EQ(ak::declared_order(first), (std::vector<std::string>{"u2", "u1"}));
    EXPECT_EQ(ak::declared_order(second), (std::vector<std::string>{"u1", "u2"}));
    // a third content with those names: no order can be told, so by key
    const json third = json::parse(R"({"u2": {"type": "boolean"}, "u1": {"type": "integer"}})");
    EXPECT_EQ(ak::declared_order(third), (std::vector<std::string>{"u1", "u2"}));
    // names an order leaves out follow it by key; names it has that the object lacks are skipped
    const json more = json::parse(R"({"w3": 1, "w1": 2, "w2": 3})");
    ak::remember_declared_order(more, {"w2", "gone"});
    EXPECT_EQ(ak::declared_order(more), (std::vector<std::string>{"w2", "w1", "w3"}));
}

TEST(DeclaredOrder, TheRegistryIsBounded) {
    ak::detail::declared_orders orders;  // its own, not the process's
    EXPECT_TRUE(orders.empty());
    for (std::size_t i = 0; i < ak::detail::declared_orders::max_entries + 10; ++i) {
        const json props{{numbered('x', i), 1}, {"a", 2}};
        orders.remember(props, {numbered('x', i), "a"});
    }
    const std::size_t last = ak::detail::declared_orders::max_entries + 5;
    EXPECT_FALSE(orders.order_of(json{{numbered('x', last), 1}, {"a", 2}}));
    EXPECT_EQ(orders.order_of(json{{"x0", 1}, {"a", 2}}), (std::vector<std::string>{"x0", "a"}));
    EXPECT_EQ(orders.name_sets(), ak::detail::declared_orders::max_entries);  // names refused are not kept either
    // an object with too many properties is not remembered; one property needs no order
    json wide = json::object();
    for (std::size_t i = 0; i <= ak::detail::declared_orders::max_names; ++i) wide[numbered('p', i)] = i;
    ak::detail::declared_orders small;
    small.remember(wide, {"p9", "p1"});
    small.remember(json{{"only", 1}}, {"only"});
    EXPECT_TRUE(small.empty());
}
