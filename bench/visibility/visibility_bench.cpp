// agentkit-bench-visibility — the Measure section of issue 6.
//
//   build/bin/agentkit-bench-visibility [--queries N] [--sizes 200,2000,16000] [--no-hybrid]
//
// 1. Tokens the model sees (tool definitions in the Anthropic dialect + the masker's prompt
//    section + its per-turn state message) at the start and in each mode/class, for every
//    masker, against all-visible, on a toolbox shaped like a coding agent's (nine modes, 91 tools
//    with real schemas, cross-cutting tools). Token counts use agentkit's heuristic counter.
// 2. Stable-prefix bytes (serialized tools + system prompt) over a scripted 10-turn session
//    with mode switches, per exposure strategy: bytes per turn, distinct prefixes, and the
//    bytes shared with the previous turn's prefix (what a prompt cache can reuse).
// 3. Router build time, query latency (p50/p99/max over N queries, one thread) and memory per
//    tool at 200, 2,000 and 16,000 synthetic tools: lexical, hybrid (n-grams), and blended with a
//    stand-in model whose vectors are at hand, and with one that is down.
#include <agentkit/agentkit.hpp>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <set>
#include <span>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

#include "visibility/coding_agent_toolbox.hpp"

namespace ak = agentkit;
using ak::json;

namespace {

const ak::token_counter tokens;

std::size_t tok(const std::string& s) { return tokens.count(s); }

// What the model sees this turn with visible_only exposure: tools + prompt section + state.
template <class M>
std::size_t seen_tokens(const M& m) {
    const json tools = ak::export_tools(ak::visible_catalogue(m, coding_agent::box.infos()), ak::dialect::anthropic);
    return tok(tools.dump()) + tok(m.prompt_section()) + tok(m.state_message());
}

template <class M>
std::size_t visible_host_tools(const M& m) {
    std::size_t n = 0;
    for (const auto& v : m.visible())
        if (coding_agent::box_t::contains(v)) ++n;
    return n;
}

void print_row(const std::string& masker, const std::string& state, std::size_t visible, std::size_t t, std::size_t base) {
    std::printf("  %-14s %-22s %4zu tools %7zu tokens  %5.1f%% of all-visible\n", masker.c_str(), state.c_str(), visible, t,
                100.0 * static_cast<double>(t) / static_cast<double>(base));
}

void token_section() {
    std::printf("== 1. Tokens the model sees (tools in the Anthropic dialect + prompt section + state message)\n");
    std::printf("   toolbox: %zu host tools shaped like a coding agent's; counter: agentkit heuristic (o200k-like)\n",
                coding_agent::box.size());
    ak::all_visible all;
    all.bind(coding_agent::box.infos());
    const std::size_t base = seen_tokens(all);
    print_row("all_visible", "always", visible_host_tools(all), base, base);

    auto menu = coding_agent::make_menu();
    menu.bind(coding_agent::box.infos());
    print_row("menu", "ROOT (start)", visible_host_tools(menu), seen_tokens(menu), base);
    std::size_t sum = 0, maxv = 0;
    for (const auto& mode : menu.modes()) {
        (void)menu.enter(mode.name);
        const auto t = seen_tokens(menu);
        sum += t;
        maxv = std::max(maxv, t);
        print_row("menu", "mode " + mode.name, visible_host_tools(menu), t, base);
    }
    std::printf("  %-14s %-22s %18zu tokens  %5.1f%% (mean over modes; max %zu)\n", "menu", "mean in a mode",
                sum / menu.modes().size(), 100.0 * static_cast<double>(sum / menu.modes().size()) / static_cast<double>(base), maxv);

    // Intent classes over the same toolbox: four classes (chat, browser, local, both).
    std::vector<ak::intent_class> classes = {
        {"chat", "Conversation answered from knowledge", {}, {{"hello", 2}, {"thanks", 2}, {"explain", 1}}, {}},
        {"browser", "The web: browse, click, research",
         {"browser_navigate", "browser_view", "browser_click", "browser_type", "browser_scroll", "browser_screenshot",
          "browser_fill_form", "browser_wait_for", "browser_back", "browser_tabs", "web_search", "web_get_contents",
          "news_search", "docs_lookup"},
         {{"website", 2}, {"click", 2}, {"search", 2}, {"browse", 2}},
         {{ak::intent_patterns::url, 3}}},
        {"local", "Files, shell and git on this machine",
         {"Read", "Edit", "Write", "bash", "grep", "glob", "bash_output", "git_status", "git_diff", "git_commit", "git_add",
          "git_log", "fs_read_file", "fs_write_file", "fs_list_directory", "fs_move", "fs_delete"},
         {{"file", 2}, {"folder", 2}, {"commit", 2}, {"run", 1}},
         {{ak::intent_patterns::file_path, 3}}},
        {"ops", "Deployment and CI", {"deploy", "deploy_status", "deploy_logs", "rollback", "set_env_var", "git_ci_job_logs", "git_pr_checks"},
         {{"deploy", 2}, {"rollback", 2}, {"production", 1.5}}, {}},
    };
    ak::intent_options io;
    io.always = {"TodoRead"};
    ak::intent_classes<> ic(classes, io);
    ic.bind(coding_agent::box.infos());
    print_row("intent", "before a message", visible_host_tools(ic), seen_tokens(ic), base);
    for (auto [label, msg] : std::vector<std::pair<std::string, std::string>>{
             {"chat", "hello, explain recursion"},
             {"browser", "open https://example.com and click login"},
             {"local", "fix the bug in src/main.cpp and commit"},
             {"browser+local", "download https://x.io/data.csv into the data folder"},
             {"ops", "deploy the api to production"}}) {
        ic.on_user_message(msg);
        print_row("intent", "class " + label, visible_host_tools(ic), seen_tokens(ic), base);
    }

    ak::router_options ro;
    ro.k = 5;
    ak::router<> router(ro);
    router.bind(coding_agent::box.infos());
    print_row("router", "start", visible_host_tools(router), seen_tokens(router), base);
    (void)router.search("open a pull request for my branch", 5);
    print_row("router", "after 1 search (k=5)", visible_host_tools(router), seen_tokens(router), base);
    (void)router.search("deploy to staging and check logs", 5);
    print_row("router", "after 2 searches", visible_host_tools(router), seen_tokens(router), base);

    ak::frozen_scope frozen({"browser_view", "browser_click", "browser_type", "browser_navigate"},
                            {{"browser_screenshot", "CLI covers it", "agbrowse screenshot --out <path>", "playwright-mcp:browser_take_screenshot", "", ""}});
    frozen.bind(coding_agent::box.infos());
    print_row("frozen_scope", "fixed", visible_host_tools(frozen), seen_tokens(frozen), base);

    // The stable strategies send every tool each turn (cached after the first), plus tool_choice.
    const json all_tools = ak::export_tools(ak::full_catalogue(menu, coding_agent::box.infos()), ak::dialect::openai_responses);
    (void)menu.enter("git");
    const json choice = ak::allowed_tools_choice(menu.visible(), ak::dialect::openai_responses);
    std::printf("  allowed_tools strategy (menu, OpenAI Responses): full tool list %zu tokens (cacheable, every turn) + "
                "tool_choice %zu tokens in mode git\n\n",
                tok(all_tools.dump()), tok(choice.dump()));
}

struct step {
    const char* tool;
    json args;
};

std::vector<step> script() {
    return {{"menu_enter", {{"mode", "swe"}}},     {"Read", {{"path", "src/main.cpp"}}},
            {"menu_enter", {{"mode", "git"}}},     {"git_commit", {{"message", "fix"}}},
            {"menu_exit", json::object()},         {"menu_enter", {{"mode", "browser"}}},
            {"browser_click", {{"ref", "e12"}}},   {"menu_enter", {{"mode", "deploy"}}},
            {"menu_list", json::object()},         {"complete", {{"summary", "done"}}}};
}

std::size_t common_prefix(const std::string& a, const std::string& b) {
    std::size_t i = 0;
    while (i < a.size() && i < b.size() && a[i] == b[i]) ++i;
    return i;
}

void prefix_section() {
    std::printf("== 2. Stable prefix (serialized tools + system prompt) over a scripted 10-turn session, menu masker\n");
    struct variant {
        const char* label;
        ak::dialect d;
        ak::exposure e;
    };
    for (const auto& v : {variant{"visible_only / anthropic", ak::dialect::anthropic, ak::exposure::visible_only},
                          variant{"allowed_tools / openai_responses", ak::dialect::openai_responses, ak::exposure::allowed_tools},
                          variant{"allowed_tools / openai_chat", ak::dialect::openai_chat, ak::exposure::allowed_tools},
                          variant{"deferred_loading / anthropic", ak::dialect::anthropic, ak::exposure::deferred_loading}}) {
        auto m = coding_agent::make_menu();
        m.bind(coding_agent::box.infos());
        ak::exposure_plan plan(m, coding_agent::box.infos(), v.d, v.e);
        std::vector<std::string> prefixes;
        std::size_t choice_bytes = 0;
        for (const auto& s : script()) {
            prefixes.push_back(plan.prefix_for(m, ak::system_prompt_with(m, "You are a careful engineering agent.")));
            const json c = plan.tool_choice_for(m);
            if (!c.is_null()) choice_bytes += c.dump().size();
            if (!m.handle_meta(s.tool, s.args)) m.observe_call(s.tool, s.args, true);
        }
        std::set<std::string> distinct(prefixes.begin(), prefixes.end());
        std::size_t shared = 0, total = 0, min_b = SIZE_MAX, max_b = 0;
        for (std::size_t i = 0; i < prefixes.size(); ++i) {
            total += prefixes[i].size();
            min_b = std::min(min_b, prefixes[i].size());
            max_b = std::max(max_b, prefixes[i].size());
            if (i > 0) shared += common_prefix(prefixes[i - 1], prefixes[i]);
        }
        const std::size_t later = total - prefixes[0].size();
        std::printf("  %-34s prefix %6zu..%6zu bytes | distinct prefixes %2zu/10 | reusable from previous turn %5.1f%% | "
                    "tool_choice %5zu bytes total\n",
                    v.label, min_b, max_b, distinct.size(), later ? 100.0 * static_cast<double>(shared) / static_cast<double>(later) : 100.0,
                    choice_bytes);
    }
    std::printf("\n");
}

// ---- synthetic catalogues for the router ------------------------------------------------------
struct lcg {
    std::uint64_t s;
    std::uint64_t next() {
        s = s * 6364136223846793005ULL + 1442695040888963407ULL;
        return s >> 33;
    }
    std::size_t below(std::size_t n) { return static_cast<std::size_t>(next() % n); }
};

const std::vector<std::string> verbs = {"create", "delete", "list", "update", "get", "search", "export", "import",
                                        "archive", "restore", "approve", "cancel", "schedule", "sync", "validate", "summarize"};
const std::vector<std::string> verb_syn = {"make", "remove", "show", "change", "fetch", "find", "download", "upload",
                                           "store", "recover", "accept", "stop", "plan", "mirror", "check", "condense"};
const std::vector<std::string> objects = {"invoice", "customer", "order", "ticket", "shipment", "payment", "report",
                                          "contract", "employee", "meeting", "document", "campaign", "product", "refund",
                                          "subscription", "lead", "project", "task", "alert", "backup", "certificate",
                                          "dashboard", "dataset", "deployment", "domain", "email", "event", "expense",
                                          "feedback", "forecast", "incident", "license", "message", "note", "policy",
                                          "quote", "repository", "review", "survey", "warehouse"};
const std::vector<std::string> domains = {"billing", "crm", "erp", "helpdesk", "logistics", "finance", "hr", "calendar",
                                          "storage", "marketing", "catalog", "accounting", "sales", "projects", "monitoring",
                                          "security", "analytics", "devops", "mail", "legal", "procurement", "inventory",
                                          "support", "payroll", "compliance"};
const std::vector<std::pair<std::string, std::string>> arg_pool = {
    {"id", "Identifier of the record"},        {"limit", "Maximum number of results"},
    {"query", "Free-text filter"},             {"since", "Only items changed after this date"},
    {"owner", "User who owns the record"},     {"status", "Workflow status"},
    {"format", "Output format such as csv or pdf"}, {"notify", "Send a notification when done"},
    {"region", "Data centre region"},          {"tags", "Labels to attach"}};

std::vector<ak::tool_info> synthetic_tools(std::size_t n, lcg& rng) {
    std::vector<ak::tool_info> out;
    std::set<std::string> used;
    while (out.size() < n) {
        const auto v = rng.below(verbs.size());
        const auto o = rng.below(objects.size());
        const auto d = rng.below(domains.size());
        std::string name = verbs[v] + "_" + objects[o] + "_" + domains[d];
        if (!used.insert(name).second) continue;
        ak::tool_info t;
        t.name = name;
        t.description = "Use this to " + verbs[v] + " a " + objects[o] + " in the " + domains[d] +
                        " system. Returns the affected " + objects[o] + " records with their status.";
        json props = json::object();
        const std::size_t nargs = 2 + rng.below(3);
        for (std::size_t a = 0; a < nargs; ++a) {
            const auto& [an, ad] = arg_pool[rng.below(arg_pool.size())];
            props[an] = json{{"type", "string"}, {"description", ad}};
        }
        t.input_schema = json{{"type", "object"}, {"properties", props}};
        out.push_back(std::move(t));
    }
    return out;
}

std::vector<std::string> synthetic_queries(const std::vector<ak::tool_info>& tools, std::size_t n, lcg& rng) {
    std::vector<std::string> q;
    for (std::size_t i = 0; i < n; ++i) {
        const auto& t = tools[rng.below(tools.size())];
        // "verb_object_domain" -> a request with a synonym half of the time
        const auto p1 = t.name.find('_');
        const auto p2 = t.name.find('_', p1 + 1);
        std::string verb = t.name.substr(0, p1), obj = t.name.substr(p1 + 1, p2 - p1 - 1), dom = t.name.substr(p2 + 1);
        if (rng.below(2) == 0)
            for (std::size_t k = 0; k < verbs.size(); ++k)
                if (verbs[k] == verb) verb = verb_syn[k];
        q.push_back("please " + verb + " the " + obj + "s for our " + dom + " team from last week");
    }
    return q;
}

/// A stand-in model for the blended rows: a 64-number vector from the text's words (no network; what a
/// search costs once the tools' vectors and the request's are cached), or, with `down`, a model that
/// fails every call at once (an open breaker).
ak::function_embedder stand_in_model(bool down) {
    return ak::function_embedder([down](std::span<const std::string> texts, ak::embed_purpose) -> ak::result<ak::embedding_batch> {
        if (down) return ak::fail(ak::errc::transport_io, "the model is down");
        ak::embedding_batch out(texts.size(), std::vector<float>(64, 0.0F));
        for (std::size_t i = 0; i < texts.size(); ++i) {
            std::size_t h = 0;
            for (char c : texts[i]) {
                if (c == ' ') {
                    out[i][h % 64] += 1.0F;
                    h = 0;
                } else {
                    h = h * 131 + static_cast<unsigned char>(c);
                }
            }
            out[i][h % 64] += 1.0F;
        }
        return out;
    });
}
using blended_retriever = ak::tool_retriever<ak::blended_embedder<ak::hashed_ngram_embedder, ak::function_embedder>>;

template <class Retriever>
void measure_router(const char* label, std::size_t n, std::size_t nq, std::optional<bool> model_down = std::nullopt) {
    lcg rng{42 + n};
    auto tools = synthetic_tools(n, rng);
    auto queries = synthetic_queries(tools, nq, rng);
    const auto t0 = std::chrono::steady_clock::now();
    Retriever r = [&] {
        if constexpr (std::is_same_v<Retriever, blended_retriever>)
            return Retriever(ak::tool_docs_from(tools), {}, {{}, stand_in_model(*model_down), 0.2F});
        else
            return Retriever(ak::tool_docs_from(tools));
    }();
    if constexpr (std::is_same_v<Retriever, blended_retriever>) {
        if (!r.wait_for_vectors(std::chrono::minutes(5))) {
            std::printf("  %-10s %6zu tools | no vectors\n", label, n);
            return;
        }
    }
    const auto t1 = std::chrono::steady_clock::now();
    std::vector<double> lat;
    lat.reserve(queries.size());
    std::size_t sink = 0;
    for (const auto& q : queries) {
        const auto a = std::chrono::steady_clock::now();
        auto hits = r.search(q, 5);
        const auto b = std::chrono::steady_clock::now();
        sink += hits.size();
        lat.push_back(std::chrono::duration<double, std::micro>(b - a).count());
    }
    std::sort(lat.begin(), lat.end());
    auto pct = [&](double p) { return lat[std::min(lat.size() - 1, static_cast<std::size_t>(p * static_cast<double>(lat.size())))]; };
    const auto mem = r.memory_bytes();
    const auto post = r.index().postings_bytes();
    std::printf("  %-10s %6zu tools | build %8.1f ms | query p50 %7.1f us  p99 %7.1f us  max %7.1f us | memory %6.2f MB "
                "(%5zu bytes/tool; postings+terms %4zu bytes/tool) | %zu hits\n",
                label, n, std::chrono::duration<double, std::milli>(t1 - t0).count(), pct(0.50), pct(0.99), lat.back(),
                static_cast<double>(mem) / 1e6, mem / n, post / n, sink);
}

}  // namespace

int main(int argc, char** argv) {
    std::size_t nq = 2000;
    std::vector<std::size_t> sizes = {200, 2000, 16000};
    bool hybrid = true;
    for (int i = 1; i < argc; ++i) {
        std::string a = argv[i];
        if (a == "--queries" && i + 1 < argc) nq = static_cast<std::size_t>(std::strtoul(argv[++i], nullptr, 10));
        else if (a == "--no-hybrid") hybrid = false;
        else if (a == "--sizes" && i + 1 < argc) {
            sizes.clear();
            std::stringstream ss(argv[++i]);
            std::string part;
            while (std::getline(ss, part, ',')) sizes.push_back(static_cast<std::size_t>(std::strtoul(part.c_str(), nullptr, 10)));
        } else {
            std::fprintf(stderr, "usage: agentkit-bench-visibility [--queries N] [--sizes a,b,c] [--no-hybrid]\n");
            return 2;
        }
    }
    token_section();
    prefix_section();
    std::printf("== 3. Router (one thread, k=5, %zu queries per size; synthetic verb_object_domain catalogues)\n", nq);
    for (auto n : sizes) measure_router<ak::tool_retriever<>>("lexical", n, nq);
    if (hybrid) {
        for (auto n : sizes) measure_router<ak::tool_retriever<ak::hashed_ngram_embedder>>("hybrid", n, nq);
        // blended with a model (issue 46): its vectors at hand (cached), and a model that is down (every
        // request fails at once, as behind an open breaker: the n-grams' vectors rank alone)
        for (auto n : sizes) measure_router<blended_retriever>("model", n, nq, false);
        for (auto n : sizes) measure_router<blended_retriever>("model-down", n, nq, true);
    }
    return 0;
}
