#include <agentkit/agentkit.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "visibility/coding_agent_toolbox.hpp"
#include "visibility/support.hpp"

namespace ak = agentkit;
using visibility_test::has;
using visibility_test::found_names;
using ak::json;

namespace {

ak::router_options opts(std::size_t k, std::vector<std::string> pinned = {}, std::size_t max_visible = 24) {
    ak::router_options o;
    o.k = k;
    o.pinned = std::move(pinned);
    o.max_visible = max_visible;
    return o;
}

}  // namespace

static_assert(ak::masker<ak::router<>>);
static_assert(ak::masker<ak::router<ak::hashed_ngram_embedder>>);

TEST(Router, SearchSurfacesToolsForTheFollowingTurns) {
    ak::router<> r(opts(3, {"TodoRead"}));
    r.bind(coding_agent::box.infos());
    EXPECT_EQ(r.visible(), (std::vector<std::string>{"tool_search", "TodoRead"}));
    EXPECT_FALSE(r.is_visible("git_create_pr"));
    const auto v0 = r.version();
    auto out = r.handle_meta("tool_search", json{{"query", "open a pull request"}});
    ASSERT_TRUE(out && out->has_value()) << out->error().to_text();
    auto names = found_names(**out);
    ASSERT_EQ(names.size(), 3U);
    EXPECT_EQ(names[0], "git_create_pr");
    EXPECT_TRUE(r.is_visible("git_create_pr"));
    EXPECT_GT(r.version(), v0);
    std::size_t refs = 0;
    for (const auto& b : (*out)->content) refs += b.type == ak::content_block::kind::tool_reference ? 1 : 0;
    EXPECT_EQ(refs, 3U);
    EXPECT_NE(r.state_message().find("git_create_pr"), std::string::npos);
}

TEST(Router, ToolSearchSaysWhatATitledToolDoesNotItsTitleAlone) {
    struct sum_args {
        double a = 0, b = 0;
        static constexpr auto agentkit_fields() { return ak::fields(AGENTKIT_FIELD(sum_args, a, "first"), AGENTKIT_FIELD(sum_args, b, "second")); }
    };
    const auto sum = ak::tool<"get-sum">("Adds two numbers.\nReturns their sum as a number.", [](const sum_args& x) { return x.a + x.b; })
                         .with_title("Get Sum Tool");
    const auto echo = ak::tool<"echo">("Echoes the text it is given. Useful for tests.", [](const sum_args&) { return std::string("x"); });
    const auto same = ak::tool<"ping">("Checks that the server answers.", [](const sum_args&) { return std::string("pong"); }).with_title("ping");
    const ak::toolbox box{sum, echo, same};
    ak::router<> r(opts(3));
    r.bind(box.infos());
    auto out = r.handle_meta("tool_search", json{{"query", "add two numbers sum"}});
    ASSERT_TRUE(out && out->has_value()) << out->error().to_text();
    const std::string text = (*out)->content.at(0).text;
    // the title and the first sentence of the description, on one line
    EXPECT_NE((text + "\n").find("\n- get-sum: Get Sum Tool — Adds two numbers.\n"), std::string::npos) << text;
    EXPECT_EQ(text.find("Returns their sum"), std::string::npos) << text;
    EXPECT_EQ((*out)->structured->at("tools").at(0).at("title"), "Get Sum Tool");
    // without a title (or a title that is the name): the first sentence alone
    auto all = r.handle_meta("tool_search", json{{"query", "echo text ping server answers"}});
    ASSERT_TRUE(all && all->has_value());
    const std::string t2 = (*all)->content.at(0).text;
    EXPECT_NE(t2.find("- echo: Echoes the text it is given."), std::string::npos) << t2;
    EXPECT_NE(t2.find("- ping: Checks that the server answers."), std::string::npos) << t2;
    // the summary alone: cut on a character boundary
    ak::tool_info d;
    d.name = "x";
    d.title = "Überschrift";
    d.description = std::string(300, 'e');
    const std::string cut = ak::tool_summary(d, 40);
    EXPECT_LE(cut.size(), 40U);
    EXPECT_EQ(cut.substr(cut.size() - 3), "...");
}

TEST(Router, EmptyBracesMakeARouterWithTheDefaultOptions) {
    // router<>({}) was ambiguous (the braces could make router_options or a router to copy)
    ak::router<> r({});
    EXPECT_EQ(r.options().k, ak::router_options{}.k);
    ak::router_options o;
    o.k = 2;
    ak::router<> braced({o});  // one options value in braces is still those options
    EXPECT_EQ(braced.options().k, 2U);
    r.bind(coding_agent::box.infos());
    auto out = r.search("take a screenshot of the page", 3);
    ASSERT_TRUE(out);
    EXPECT_TRUE(has(found_names(*out), "browser_screenshot"));
}

TEST(Router, FindsSeedToolsFromNaturalRequests) {
    ak::router<> r;
    r.bind(coding_agent::box.infos());
    auto first = [&](std::string q) {
        auto o = r.search(q, 3);
        return o.has_value() && o->structured ? found_names(*o) : std::vector<std::string>{};
    };
    EXPECT_TRUE(has(first("take a screenshot of the page"), "browser_screenshot"));
    EXPECT_TRUE(has(first("roll back the last release"), "rollback"));
    EXPECT_TRUE(has(first("translate this paragraph to German"), "translate_text"));
    EXPECT_TRUE(has(first("run sql on a csv file"), "csv_query"));
    EXPECT_TRUE(has(first("show CI logs of the failing job"), "git_ci_job_logs"));
}

TEST(Router, ExactToolNameGoesFirst) {
    ak::router<> r(opts(2));
    r.bind(coding_agent::box.infos());
    auto o = r.search("fs_copy", 2);
    ASSERT_TRUE(o.has_value());
    EXPECT_EQ(found_names(*o)[0], "fs_copy");
}

TEST(Router, VisibleSetIsBoundedLeastRecentlyUsedFirstOut) {
    ak::router<> r(opts(3, {}, 4));
    r.bind(coding_agent::box.infos());
    ASSERT_TRUE(r.search("git commit", 3).has_value());
    ASSERT_TRUE(r.search("deploy the service", 3).has_value());
    EXPECT_EQ(r.surfaced().size(), 4U);
    EXPECT_EQ(r.visible().size(), 5U);
    r.observe_call(r.surfaced().back(), json::object(), true);  // a used tool moves to the front
    const auto used = r.surfaced().front();
    ASSERT_TRUE(r.search("translate text", 3).has_value());
    EXPECT_TRUE(r.is_visible(used));
}

TEST(Router, LearnsFromSuccessfulCalls) {
    ak::router<> r(opts(1));
    r.bind(coding_agent::box.infos());
    const std::string q = "tell me whether prod is healthy";
    auto before = r.search(q, 1);
    ASSERT_TRUE(before.has_value());
    const bool already = before->structured && !found_names(*before).empty() && found_names(*before)[0] == "deploy_status";
    ASSERT_FALSE(already);
    // the model searched differently, found deploy_status and used it successfully
    auto o = r.search("deployment state", 3);
    ASSERT_TRUE(o.has_value());
    ASSERT_TRUE(has(found_names(*o), "deploy_status"));
    r.observe_call("deploy_status", json{{"id", "api"}}, true);
    r.observe_call("deploy_status", json{{"id", "api"}}, true);  // credited once
    EXPECT_EQ(r.examples().at("deploy_status").size(), 1U);
    // a failed call teaches nothing
    r.observe_call("rollback", json::object(), false);
    EXPECT_EQ(r.examples().count("rollback"), 0U);
    r.learn("deploy_status", q);
    auto after = r.search(q, 1);
    ASSERT_TRUE(after.has_value());
    EXPECT_EQ(found_names(*after)[0], "deploy_status");
}

TEST(Router, PersistedExamplesRouteBetterFromTheStart) {
    ak::router<> cold;
    cold.bind(coding_agent::box.infos());
    ak::router_options o;
    o.examples["visual_checker"] = {"does the page look right", "check the layout looks correct"};
    ak::router<> warm(o);
    warm.bind(coding_agent::box.infos());
    const std::string q = "does the layout look right";
    auto c = cold.search(q, 1);
    auto w = warm.search(q, 1);
    ASSERT_TRUE(w.has_value());
    EXPECT_EQ(found_names(*w)[0], "visual_checker");
    EXPECT_TRUE(!c->structured || found_names(*c)[0] != "visual_checker");
}

TEST(Router, HiddenAndInvalidCalls) {
    ak::router<> r;
    r.bind(coding_agent::box.infos());
    auto h = r.answer_hidden("git_log");
    ASSERT_FALSE(h.has_value());
    EXPECT_EQ(h.error().code, ak::errc::tool_masked);
    EXPECT_NE(h.error().hint.find("tool_search"), std::string::npos);
    auto u = r.answer_hidden("git_lgo");
    ASSERT_FALSE(u.has_value());
    EXPECT_EQ(u.error().code, ak::errc::tool_unknown);
    auto bad = r.handle_meta("tool_search", json{{"query", "  "}});
    ASSERT_TRUE(bad.has_value());
    EXPECT_FALSE(bad->has_value());
    auto nothing = r.search("xylophone zeppelin", 3);
    ASSERT_TRUE(nothing.has_value());
    EXPECT_NE(nothing->joined_text().find("No tool matches"), std::string::npos);
    auto k = r.handle_meta("tool_search", json{{"query", "git"}, {"k", 1000}});
    ASSERT_TRUE(k && k->has_value());
    EXPECT_LE(found_names(**k).size(), r.options().max_k);
    ak::router<> unbound;
    EXPECT_FALSE(unbound.search("x", 1).has_value());
}

TEST(Router, HybridRouterWorksAsAMasker) {
    ak::router<ak::hashed_ngram_embedder> r(opts(3), ak::hashed_ngram_embedder(128));
    r.bind(coding_agent::box.infos());
    auto o = r.search("screenshoot the page", 3);  // misspelled
    ASSERT_TRUE(o.has_value());
    EXPECT_TRUE(has(found_names(*o), "browser_screenshot"));
}

// --- learning from usage examples (issue 19) ------------------------------------------------------

namespace {

std::string top_name(const ak::router<>& r, const std::string& q) {
    auto hits = r.retriever()->search(q, 1);
    return hits.empty() ? std::string() : r.retriever()->doc(hits[0].doc).name;
}

// A deterministic synthetic catalogue of pseudo-word tools. Each tool has a description of its
// own words, a phrasing of its own (the words around a request's object, as users of one tool
// tend to ask alike: templated requests, as in ToolLens) and objects drawn from a pool that tools
// share, so that neither the objects nor the description alone tell the tools apart. Popular tools (the first three) have 600
// examples, the rest 12; a popular tool's early examples use objects its later ones do not.
struct synthetic_set {
    std::vector<ak::tool_info> tools;
    std::vector<std::pair<std::string, std::string>> examples;  // (tool, request)
    std::vector<std::pair<std::string, std::string>> queries;   // (request, gold tool)
};

synthetic_set make_synthetic_set() {
    std::uint64_t state = 19;
    auto next = [&state](std::size_t n) {
        state = state * 6364136223846793005ULL + 1442695040888963407ULL;
        return static_cast<std::size_t>((state >> 33) % n);
    };
    // Pseudo-words from consonant-vowel syllables ending in a, i, o or u (the stemmer leaves them be).
    const char* cons = "bdfgkmnprtvz";
    const char* vows = "aiou";
    std::set<std::string> seen;
    auto word = [&] {
        for (;;) {
            std::string w;
            for (int s = 0; s < 3; ++s) {
                w += cons[next(12)];
                w += vows[next(4)];
            }
            if (seen.insert(w).second) return w;
        }
    };
    // Phrasings made of stop words only: the naive baseline drops them, the example vote does not.
    const char* frames[][2] = {
        {"i want to have the", "for me"}, {"can you do it with", "now"},   {"what about the", "then"},
        {"how should we do the", "up here"}, {"would you please do the", "again"}, {"could i have some", "too"},
        {"is there any", "here"},          {"let us have a", "once more"}, {"where is my", "now"},
        {"why was the", "off"},            {"who has the", "at all"},      {"do you have an", "in there"},
    };
    constexpr std::size_t n_tools = 12;
    std::vector<std::string> pool;
    for (int i = 0; i < 24; ++i) pool.push_back(word());
    synthetic_set s;
    std::vector<std::vector<std::string>> objects(n_tools);
    for (std::size_t t = 0; t < n_tools; ++t) {
        ak::tool_info info;
        info.name = "tool_" + word();
        info.description = "The " + word() + " " + word() + " service: " + word() + " and " + word() + ".";
        s.tools.push_back(info);
        for (int j = 0; j < 6; ++j) objects[t].push_back(pool[next(pool.size())]);
    }
    auto request = [&](std::size_t t, const std::string& object) {
        return std::string(frames[t][0]) + " " + object + " " + frames[t][1];
    };
    for (std::size_t t = 0; t < n_tools; ++t) {
        const std::size_t n = t < 3 ? 600 : 12;
        for (std::size_t e = 0; e < n; ++e) {
            // early examples of a popular tool use objects 0-2, later ones 3-5
            const std::size_t o = t < 3 ? (e < n / 2 ? next(3) : 3 + next(3)) : next(6);
            s.examples.emplace_back(s.tools[t].name, request(t, objects[t][o]) + " " + std::to_string(e % 7));
        }
        for (std::size_t q = 0; q < 6; ++q)
            s.queries.emplace_back(request(t, objects[t][q]) + " " + pool[next(pool.size())], s.tools[t].name);
    }
    return s;
}

// The naive baseline: BM25 (k1 0.9, b 0.4) over name + description + all examples as one text.
std::vector<std::string> naive_top(const std::vector<ak::tool_doc>& docs, const std::string& q, std::size_t k) {
    const ak::text_analyzer a;
    std::vector<std::map<std::string, float>> tf(docs.size());
    std::map<std::string, float> df;
    std::vector<float> len(docs.size());
    float total = 0;
    for (std::size_t i = 0; i < docs.size(); ++i) {
        auto t = a.terms(docs[i].name);
        a.append_terms(docs[i].description, t);
        for (const auto& e : docs[i].examples) a.append_terms(e, t);
        len[i] = static_cast<float>(t.size());
        total += len[i];
        for (const auto& w : t) tf[i][w] += 1;
        for (const auto& [w, c] : tf[i]) df[w] += 1;
    }
    const float avg = total / static_cast<float>(docs.size());
    const auto n = static_cast<float>(docs.size());
    std::vector<std::pair<float, std::size_t>> scored;
    for (std::size_t i = 0; i < docs.size(); ++i) {
        float score = 0;
        for (const auto& w : a.terms(q)) {
            auto it = tf[i].find(w);
            if (it == tf[i].end()) continue;
            const float idf = std::log(1 + (n - df[w] + 0.5F) / (df[w] + 0.5F));
            score += idf * it->second * 1.9F / (it->second + 0.9F * (0.6F + 0.4F * len[i] / avg));
        }
        if (score > 0) scored.emplace_back(-score, i);
    }
    std::sort(scored.begin(), scored.end());
    std::vector<std::string> out;
    for (std::size_t i = 0; i < scored.size() && i < k; ++i) out.push_back(docs[scored[i].second].name);
    return out;
}

}  // namespace

TEST(Router, ExamplesTeachAToolWordsItsDescriptionNeverUses) {
    ak::router<> r(opts(3));
    r.bind(coding_agent::box.infos());
    const auto* doc = &r.retriever()->doc(static_cast<std::size_t>(r.retriever()->index().find("deploy_status")));
    ASSERT_EQ(doc->description.find("healthy"), std::string::npos);  // the premise
    const std::vector<std::string> queries = {"is prod healthy right now", "is the api healthy",
                                              "tell me if staging is healthy again"};
    for (const auto& q : queries) EXPECT_NE(top_name(r, q), "deploy_status") << q;
    EXPECT_TRUE(r.learn("deploy_status", "is prod healthy"));
    EXPECT_TRUE(r.learn("deploy_status", "is staging healthy after the release"));
    ASSERT_TRUE(r.search("anything", 1).has_value());  // learned examples apply before a search
    for (const auto& q : queries) EXPECT_EQ(top_name(r, q), "deploy_status") << q;
    // ... and nothing else moved: a request for another tool still finds it first.
    EXPECT_EQ(top_name(r, "open a pull request"), "git_create_pr");
}

TEST(Router, TheUsageWordsOfOldExamplesAreNotForgotten) {
    // A tool taught many examples keeps what its first examples taught (no cap by recency).
    ak::router<> r(opts(3));
    r.bind(coding_agent::box.infos());
    r.learn("deploy_status", "is prod healthy");
    for (int i = 0; i < 1500; ++i) r.learn("deploy_status", "state of deployment " + std::to_string(i));
    ASSERT_TRUE(r.search("anything", 1).has_value());
    EXPECT_EQ(r.examples().at("deploy_status").size(), 1501U);
    EXPECT_EQ(top_name(r, "is prod healthy"), "deploy_status");
}

TEST(Router, NeverBelowTheNaiveBaselineOnASyntheticSet) {
    const auto set = make_synthetic_set();
    ak::router_options o;
    for (const auto& [tool, text] : set.examples) o.examples[tool].push_back(text);
    ak::router<> r(o);
    r.bind(set.tools);
    std::vector<ak::tool_doc> docs;
    for (std::size_t i = 0; i < r.retriever()->size(); ++i) docs.push_back(r.retriever()->doc(i));
    ASSERT_EQ(docs[0].examples.size(), 600U);
    std::size_t ours1 = 0, ours3 = 0, naive1 = 0, naive3 = 0;
    for (const auto& [q, gold] : set.queries) {
        auto hits = r.retriever()->search(q, 3);
        for (std::size_t i = 0; i < hits.size(); ++i)
            if (r.retriever()->doc(hits[i].doc).name == gold) (i == 0 ? ours1 : ours3) += 1;
        auto base = naive_top(docs, q, 3);
        for (std::size_t i = 0; i < base.size(); ++i)
            if (base[i] == gold) (i == 0 ? naive1 : naive3) += 1;
    }
    ours3 += ours1;
    naive3 += naive1;
    const std::size_t n = set.queries.size();
    EXPECT_GE(ours1, naive1) << "R@1 " << ours1 << "/" << n << " vs naive " << naive1;
    EXPECT_GE(ours3, naive3) << "R@3 " << ours3 << "/" << n << " vs naive " << naive3;
    // The phrasing a tool's users share is what tells the tools apart here: the example vote
    // finds nearly every tool first, the bag of words of the naive baseline does not.
    EXPECT_GE(ours1 * 10, n * 9) << ours1 << "/" << n;
    EXPECT_GT(ours1, naive1);
}

TEST(Router, StaleSnapshotsKeepTheirRankingWhileTheOwnerLearns) {
    ak::router<> r(opts(1));
    r.bind(coding_agent::box.infos());
    const std::string q = "check whether prod is healthy";
    const auto old_snap = r.retriever()->snapshot();
    const auto before = r.retriever()->search_in(*old_snap, q, 5);
    ASSERT_FALSE(before.empty());
    ASSERT_NE(r.retriever()->doc(before[0].doc).name, "deploy_status");
    // Readers on other threads search the snapshot they hold while the owner learns and rebuilds.
    std::atomic<int> mismatches{0};
    std::vector<std::thread> readers;
    for (int t = 0; t < 3; ++t)
        readers.emplace_back([&] {
            for (int i = 0; i < 300; ++i) {
                const auto hits = r.retriever()->search_in(*old_snap, q, 5);
                if (hits.size() != before.size()) {
                    ++mismatches;
                    continue;
                }
                for (std::size_t j = 0; j < hits.size(); ++j)
                    if (hits[j].doc != before[j].doc || hits[j].score != before[j].score) ++mismatches;
            }
        });
    for (int i = 0; i < 20; ++i) {
        r.learn("deploy_status", "is prod healthy " + std::to_string(i));
        ASSERT_TRUE(r.search("deployment state", 1).has_value());  // rebuilds
    }
    for (auto& th : readers) th.join();
    EXPECT_EQ(mismatches.load(), 0);
    EXPECT_NE(r.retriever()->snapshot(), old_snap);
    EXPECT_EQ(top_name(r, q), "deploy_status");                         // the new snapshot learned
    const auto again = r.retriever()->search_in(*old_snap, q, 1);       // the old one did not
    ASSERT_FALSE(again.empty());
    EXPECT_EQ(again[0].doc, before[0].doc);
}

// Tools the host leaves out are never found nor surfaced; a call to one answers
// capability.unsupported with the host's hint (not tool.masked: no search would load it).
TEST(Router, OmittedToolsAreNeverFoundAndSayWhatTurnsThemOn) {
    ak::router_options o = opts(5);
    o.omitted = {"git_create_pr", "git_pr_checks"};
    o.omitted_hint = "Start the agent with --git to use it.";
    ak::router<> r(o);
    r.bind(coding_agent::box.infos());
    EXPECT_TRUE(r.problems().empty());
    auto out = r.handle_meta("tool_search", json{{"query", "open a pull request git_create_pr"}, {"k", 20}});
    ASSERT_TRUE(out && out->has_value()) << out->error().to_text();
    const auto names = found_names(**out);
    EXPECT_FALSE(names.empty());
    EXPECT_FALSE(has(names, "git_create_pr"));
    EXPECT_FALSE(has(names, "git_pr_checks"));
    EXPECT_FALSE(r.is_visible("git_create_pr"));
    auto call = r.answer_hidden("git_create_pr");
    ASSERT_FALSE(call.has_value());
    EXPECT_EQ(call.error().code, ak::errc::capability_unsupported);
    EXPECT_EQ(call.error().hint, o.omitted_hint);
    // without the option the same search finds it
    ak::router<> all(opts(5));
    all.bind(coding_agent::box.infos());
    auto found = all.handle_meta("tool_search", json{{"query", "open a pull request git_create_pr"}});
    ASSERT_TRUE(found && found->has_value());
    EXPECT_TRUE(has(found_names(**found), "git_create_pr"));
}
