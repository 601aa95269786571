// A tool described once: its JSON Schema for each provider, validated calls, structured errors.
// Needs only <agentkit/core.hpp>.
#include <agentkit/core.hpp>

#include <iostream>

namespace ak = agentkit;

struct convert_args {
    double amount = 0;
    std::string from;
    std::string to;
    static constexpr auto agentkit_fields() {
        return ak::fields(AGENTKIT_FIELD(convert_args, amount, "How much", ak::minimum(0)),
                          AGENTKIT_FIELD(convert_args, from, "ISO code, e.g. EUR", ak::min_length(3), ak::max_length(3)),
                          AGENTKIT_FIELD(convert_args, to, "ISO code, e.g. NOK", ak::min_length(3), ak::max_length(3)));
    }
};

int main() {
    ak::toolbox tools{ak::tool<"convert_currency">(
        "Convert an amount between two currencies at today's rate.",
        [](const convert_args& a) { return std::to_string(a.amount * 11.5) + " " + a.to; }, ak::read_only)};

    std::cout << ak::export_tools(tools.infos(), ak::dialect::anthropic).dump(2) << '\n';
    if (auto ok = tools.call("convert_currency", ak::json{{"amount", 10}, {"from", "EUR"}, {"to", "NOK"}}))
        std::cout << ok->joined_text() << '\n';
    auto bad = tools.call("convert_curency", ak::json{{"amount", -1}});
    std::cout << bad.error().to_text() << '\n';  // tool.unknown, naming convert_currency
}
