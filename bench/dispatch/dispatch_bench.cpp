// The cost of agentkit's tool-call path against parsing the same arguments alone.
//
//   build/bin/agentkit-bench-dispatch
//
// BM_ParseOnly       nlohmann::json::parse of the argument text (the floor any JSON tool layer pays)
// BM_FullCall        the whole path: parse the text, validate it against the schema into a
//                    6-field struct, dispatch by name through a 12-tool toolbox, run the handler,
//                    format the result as the MCP tools/call result text sent to the client
// BM_InvalidCall     the same with bad arguments: every problem found and reported
// The ratio FullCall / ParseOnly is printed at the end (target: <= 3x).
#include <agentkit/agentkit.hpp>

#include <benchmark/benchmark.h>

#include <cstdio>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace ak = agentkit;

namespace bench_types {
enum class priority { low, normal, high };
}
AGENTKIT_ENUM(bench_types::priority, low, normal, high);

namespace {

using bench_types::priority;

struct ticket_args {
    std::string title;
    std::string body;
    priority level = priority::normal;
    std::vector<std::string> labels;
    std::optional<int> assignee;
    bool notify = true;
    static constexpr auto agentkit_fields() {
        return ak::fields(
            AGENTKIT_FIELD(ticket_args, title, "One-line summary", ak::min_length(1), ak::max_length(120)),
            AGENTKIT_FIELD(ticket_args, body, "Full description", ak::max_length(5000)),
            AGENTKIT_FIELD(ticket_args, level, "Priority", ak::default_value("normal")),
            AGENTKIT_FIELD(ticket_args, labels, "Labels to attach", ak::max_items(10)),
            AGENTKIT_FIELD(ticket_args, assignee, "User id to assign", ak::range(1, 1000000)),
            AGENTKIT_FIELD(ticket_args, notify, "Notify watchers", ak::default_value(true)));
    }
};

struct id_args {
    int id = 0;
    static constexpr auto agentkit_fields() { return ak::fields(AGENTKIT_FIELD(id_args, id, "Ticket id")); }
};

template <ak::fixed_string N>
auto filler() {
    return ak::tool<N>("Stand-in tool.", [](const id_args& a) { return std::to_string(a.id); }, ak::read_only);
}

const auto create_ticket = ak::tool<"create_ticket">(
    "Create a ticket.",
    [](const ticket_args& a) { return "Created ticket \"" + a.title + "\" with " + std::to_string(a.labels.size()) + " labels"; });

const ak::toolbox box{filler<"a_get">(),  filler<"b_get">(),  filler<"c_get">(),  filler<"d_get">(),
                      filler<"e_get">(),  filler<"f_get">(),  create_ticket,      filler<"g_get">(),
                      filler<"h_get">(),  filler<"i_get">(),  filler<"j_get">(),  filler<"k_get">()};

const std::string args_text =
    R"({"title":"Checkout button does nothing","body":"On the cart page, clicking Checkout has no effect in Firefox 128; console shows a TypeError.","level":"high","labels":["bug","checkout","frontend"],"assignee":4711,"notify":false})";

const std::string bad_text =
    R"({"title":"","body":"x","level":"urgent","labels":["a",3],"assignee":"me","notfy":true})";

std::string format_mcp(const ak::tool_output& out) {
    ak::json content = ak::json::array();
    for (const auto& b : out.content)
        if (b.type == ak::content_block::kind::text) content.push_back({{"type", "text"}, {"text", b.text}});
    return ak::json{{"content", std::move(content)}, {"isError", out.is_error}}.dump();
}

void BM_ParseOnly(benchmark::State& state) {
    for (auto _ : state) {
        auto j = ak::json::parse(args_text);
        benchmark::DoNotOptimize(j);
    }
}
BENCHMARK(BM_ParseOnly);

void BM_FullCall(benchmark::State& state) {
    ak::tool_context ctx;
    for (auto _ : state) {
        auto r = box.call("create_ticket", std::string_view(args_text), ctx);
        std::string wire = format_mcp(*r);
        benchmark::DoNotOptimize(wire);
    }
}
BENCHMARK(BM_FullCall);

void BM_InvalidCall(benchmark::State& state) {
    ak::tool_context ctx;
    for (auto _ : state) {
        auto r = box.call("create_ticket", std::string_view(bad_text), ctx);
        std::string wire = format_mcp(ak::tool_output::from_error(r.error()));
        benchmark::DoNotOptimize(wire);
    }
}
BENCHMARK(BM_InvalidCall);

class ratio_reporter : public benchmark::ConsoleReporter {
public:
    void ReportRuns(const std::vector<Run>& runs) override {
        for (const auto& r : runs) ns_[r.benchmark_name()] = r.GetAdjustedRealTime();
        ConsoleReporter::ReportRuns(runs);
    }
    void Finalize() override {
        ConsoleReporter::Finalize();
        const double parse = ns_["BM_ParseOnly"];
        const double full = ns_["BM_FullCall"];
        if (parse > 0)
            std::printf("\nparse only: %.0f ns   full call path: %.0f ns   ratio: %.2fx (target <= 3x)\n", parse, full,
                        full / parse);
    }

private:
    std::map<std::string, double> ns_;
};

}  // namespace

int main(int argc, char** argv) {
    benchmark::Initialize(&argc, argv);
    // Sanity: the benchmarked call really succeeds and the bad one really fails.
    ak::tool_context ctx;
    if (!box.call("create_ticket", std::string_view(args_text), ctx)) return 1;
    if (box.call("create_ticket", std::string_view(bad_text), ctx)) return 1;
    ratio_reporter reporter;
    benchmark::RunSpecifiedBenchmarks(&reporter);
    benchmark::Shutdown();
    return 0;
}
