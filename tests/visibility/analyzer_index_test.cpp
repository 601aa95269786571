#include <agentkit/agentkit.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <thread>
#include <vector>

namespace ak = agentkit;

namespace {

std::vector<ak::tool_doc> small_corpus() {
    std::vector<ak::tool_doc> d(7);
    d[0] = {"get_weather", "Current weather conditions for a city.", {"city", "unit"}, {"City name", "c or f"}, {}};
    d[1] = {"browser_take_screenshot", "Capture an image of the visible page.", {"full_page"}, {"Capture the whole page"}, {}};
    d[2] = {"sendEmail", "Send an email message to recipients.", {"to", "subject", "body"}, {"Recipient addresses", "Subject line", "Message text"}, {}};
    d[3] = {"airqualityforecast", "Two-day forecast of pollution levels for a US zip code.", {"zip"}, {"US zip code"}, {}};
    d[4] = {"git_commit", "Record staged changes in the repository.", {"message"}, {"Commit message"}, {}};
    d[5] = {"translate_text", "Translate text into another language.", {"text", "target_language"}, {"Input text", "Language code"}, {}};
    d[6] = {"hvac_status", "Status of the air filters and the quality of ventilation.", {}, {}, {}};
    return d;
}

std::string top(const ak::tool_index& idx, std::string_view q) {
    auto hits = idx.search(q, 1);
    return hits.empty() ? std::string() : idx.doc(hits[0].doc).name;
}

}  // namespace

TEST(Analyzer, SplitsSnakeCamelAndDigits) {
    ak::text_analyzer a(ak::text_analyzer::options{false, false, 1, 40});
    EXPECT_EQ(a.words("getWeatherForecast"), (std::vector<std::string>{"get", "weather", "forecast"}));
    EXPECT_EQ(a.words("browser_take_screenshot"), (std::vector<std::string>{"browser", "take", "screenshot"}));
    EXPECT_EQ(a.words("HTTPServer2Go"), (std::vector<std::string>{"http", "server", "2", "go"}));
    EXPECT_EQ(a.words("  Hello, WORLD!  "), (std::vector<std::string>{"hello", "world"}));
}

TEST(Analyzer, StemsInflectionsTogether) {
    for (auto [a, b] : std::vector<std::pair<std::string, std::string>>{
             {"searching", "search"}, {"searches", "search"}, {"searched", "search"}, {"cities", "city"},
             {"running", "run"}, {"making", "make"}, {"translation", "translate"}, {"quickly", "quick"}}) {
        EXPECT_EQ(ak::light_stem(a), ak::light_stem(b)) << a << " vs " << b;
    }
    EXPECT_NE(ak::light_stem("search"), ak::light_stem("research"));
    EXPECT_EQ(ak::light_stem("is"), "is");  // short words untouched
}

TEST(Analyzer, DropsStopWordsInTerms) {
    ak::text_analyzer a;
    auto t = a.terms("What is the weather in the city of Oslo?");
    EXPECT_EQ(t, (std::vector<std::string>{"weather", "citi", "oslo"}));
    EXPECT_TRUE(ak::is_stop_word("the"));
    EXPECT_FALSE(ak::is_stop_word("weather"));
}

TEST(Analyzer, SegmentsCompoundNames) {
    std::unordered_set<std::string> vocab{"air", "quality", "forecast", "pollution"};
    EXPECT_EQ(ak::segment_compound("airqualityforecast", vocab), (std::vector<std::string>{"air", "quality", "forecast"}));
    EXPECT_TRUE(ak::segment_compound("zzzzzzzz", vocab).empty());
}

TEST(ToolIndex, RanksByNameDescriptionAndArguments) {
    auto idx = ak::tool_index::build(small_corpus());
    EXPECT_EQ(top(*idx, "what's the weather like in Paris"), "get_weather");
    EXPECT_EQ(top(*idx, "take a screenshot of the page"), "browser_take_screenshot");
    EXPECT_EQ(top(*idx, "email my boss the report"), "sendEmail");             // camelCase name
    EXPECT_EQ(top(*idx, "air quality forecast"), "airqualityforecast");        // segmented compound
    EXPECT_EQ(top(*idx, "what language code do I need"), "translate_text");    // argument description
    EXPECT_EQ(top(*idx, "commit my changes"), "git_commit");
    EXPECT_TRUE(idx->search("zebra quantum", 5).empty());
    EXPECT_TRUE(idx->search("", 5).empty());
}

TEST(ToolIndex, NameFieldTermsIncludeSegments) {
    auto idx = ak::tool_index::build(small_corpus());
    auto t = idx->field_terms(3, ak::tool_field::name);
    EXPECT_NE(std::find(t.begin(), t.end(), "qualiti"), t.end());
    EXPECT_NE(std::find(t.begin(), t.end(), "forecast"), t.end());
}

TEST(ToolIndex, ExamplesFieldTeachesVocabularyTheDescriptionLacks) {
    auto docs = small_corpus();
    auto cold = ak::tool_index::build(docs);
    const std::string q = "how hot will it be outside tomorrow";
    auto hits = cold->search(q, 3);
    const bool cold_top = !hits.empty() && cold->doc(hits[0].doc).name == "get_weather";
    docs[0].examples = {"is it hot outside", "will it rain tomorrow", "how cold is it outside"};
    auto warm = ak::tool_index::build(docs);
    EXPECT_FALSE(cold_top);
    EXPECT_EQ(top(*warm, q), "get_weather");
}

TEST(ToolIndex, ScoresAreDeterministicAndSorted) {
    auto idx = ak::tool_index::build(small_corpus());
    auto a = idx->search("send text message", 6);
    auto b = idx->search("send text message", 6);
    ASSERT_EQ(a.size(), b.size());
    for (std::size_t i = 0; i < a.size(); ++i) {
        EXPECT_EQ(a[i].doc, b[i].doc);
        if (i > 0) {
            EXPECT_GE(a[i - 1].score, a[i].score);
        }
    }
}

TEST(ToolIndex, ConcurrentQueriesNeedNoLocks) {
    std::vector<ak::tool_doc> docs;
    for (int i = 0; i < 500; ++i)
        docs.push_back({"tool_" + std::to_string(i), "Does thing number " + std::to_string(i) + (i % 7 == 0 ? " with weather" : " with files"), {}, {}, {}});
    docs.push_back({"get_weather", "Current weather for a city.", {"city"}, {}, {}});
    auto idx = ak::tool_index::build(std::move(docs));
    const auto expected = idx->search("weather in a city", 5);
    std::vector<std::thread> threads;
    std::atomic<int> mismatches{0};
    for (int t = 0; t < 4; ++t)
        threads.emplace_back([&] {
            for (int i = 0; i < 200; ++i) {
                auto r = idx->search("weather in a city", 5);
                if (r.size() != expected.size() || r[0].doc != expected[0].doc) ++mismatches;
            }
        });
    for (auto& th : threads) th.join();
    EXPECT_EQ(mismatches.load(), 0);
    EXPECT_EQ(idx->doc(expected[0].doc).name, "get_weather");
}

TEST(ToolIndex, ReportsMemory) {
    auto idx = ak::tool_index::build(small_corpus());
    EXPECT_GT(idx->memory_bytes(), idx->postings_bytes());
    EXPECT_GT(idx->postings_bytes(), 0U);
}

TEST(ToolIndex, DocsFromToolInfoCollectNestedArguments) {
    ak::tool_info t;
    t.name = "fill_form";
    t.description = "Fill a form.";
    t.input_schema = ak::json::parse(R"({"type":"object","properties":{"fields":{"type":"array","description":"Fields",
        "items":{"type":"object","properties":{"ref":{"type":"string","description":"Element ref"}}}}}})");
    t.examples = {"fill in the signup form"};
    auto d = ak::tool_doc_from(t);
    EXPECT_EQ(d.arg_names, (std::vector<std::string>{"fields", "ref"}));
    EXPECT_EQ(d.arg_descriptions, (std::vector<std::string>{"Fields", "Element ref"}));
    EXPECT_EQ(d.examples.size(), 1U);
}

TEST(Retriever, LearnsFromExamplesAfterRebuild) {
    ak::tool_retriever<> r(small_corpus());
    const std::string q = "ping my colleague about lunch";
    auto before = r.search(q, 1);
    EXPECT_TRUE(before.empty() || r.doc(before[0].doc).name != "sendEmail");
    EXPECT_TRUE(r.add_example("sendEmail", "ping a colleague"));
    EXPECT_FALSE(r.add_example("no_such_tool", "x"));
    EXPECT_FALSE(r.add_example("sendEmail", "   "));
    EXPECT_EQ(r.pending(), 1U);
    auto snap = r.snapshot();  // an older snapshot stays valid and unchanged
    r.rebuild();
    EXPECT_EQ(r.pending(), 0U);
    auto after = r.search(q, 1);
    ASSERT_FALSE(after.empty());
    EXPECT_EQ(r.doc(after[0].doc).name, "sendEmail");
    // The older snapshot still ranks as it did, knowing no example.
    EXPECT_EQ(snap->lexical->example_count(), 0U);
    EXPECT_EQ(r.index().example_count(), 1U);
    auto old = r.search_in(*snap, q, 1);
    EXPECT_TRUE(old.empty() || r.doc(old[0].doc).name != "sendEmail");
    EXPECT_EQ(r.doc(2).examples.size(), 1U);  // the retriever keeps the texts
}

TEST(ToolIndex, FusionTrustsTheExampleVoteMoreWithMoreExamplesPerTool) {
    auto docs = small_corpus();
    auto cold = ak::tool_index::build(docs);
    EXPECT_FLOAT_EQ(cold->fusion_weights()[0], 0.7F);  // D
    EXPECT_FLOAT_EQ(cold->fusion_weights()[1], 0.3F);  // K (empty without examples)
    EXPECT_FLOAT_EQ(cold->fusion_weights()[2], 0.15F);  // C
    for (auto& d : docs)
        for (int i = 0; i < 25; ++i) d.examples.push_back(d.name + " request " + std::to_string(i));
    auto half = ak::tool_index::build(docs);  // 25 examples per tool: halfway to full trust
    EXPECT_FLOAT_EQ(half->fusion_weights()[1], 0.5F);
    EXPECT_FLOAT_EQ(half->fusion_weights()[0], 0.5F);
    EXPECT_EQ(half->example_count(), 7U * 25U);
    EXPECT_EQ(half->distinct_examples(), 7U * 25U);
}

TEST(ToolIndex, OneExampleTextAttachedToTwoToolsVotesForBoth) {
    auto docs = small_corpus();
    docs[2].examples = {"tell the team the forecast in french"};  // sendEmail
    docs[5].examples = {"tell the team the forecast in french"};  // translate_text
    auto idx = ak::tool_index::build(docs);
    EXPECT_EQ(idx->example_count(), 2U);
    EXPECT_EQ(idx->distinct_examples(), 1U);
    auto hits = idx->search("tell the team the forecast in french", 2);
    ASSERT_EQ(hits.size(), 2U);
    std::vector<std::string> names{idx->doc(hits[0].doc).name, idx->doc(hits[1].doc).name};
    std::sort(names.begin(), names.end());
    EXPECT_EQ(names, (std::vector<std::string>{"sendEmail", "translate_text"}));
}

TEST(ToolIndex, ExampleVoteUsesPhrasingStopWordsAndBigrams) {
    // Two tools whose examples share every content word and differ only in their phrasing, made
    // of stop words: only the example vote (stop words kept, bigrams) can tell them apart.
    std::vector<ak::tool_doc> docs(2);
    docs[0] = {"alpha_tool", "First service.", {}, {}, {"what about a cheap hotel", "what about a cheap flight"}};
    docs[1] = {"beta_tool", "Second service.", {}, {}, {"do you have a cheap hotel", "do you have a cheap flight"}};
    auto idx = ak::tool_index::build(docs);
    EXPECT_EQ(top(*idx, "do you have a cheap car"), "beta_tool");  // beta is second in doc order
    EXPECT_EQ(top(*idx, "what about a cheap car"), "alpha_tool");
}

TEST(Retriever, HybridEmbedderRescuesMisspellings) {
    // Without related words ("grab" is related to "screenshot" in the general lexicon), so that
    // only the embedder can bridge the misspelling.
    ak::retriever_options plain;
    plain.bm25.lexicon = nullptr;
    ak::tool_retriever<> lex(small_corpus(), plain);
    ak::tool_retriever<ak::hashed_ngram_embedder> hyb(small_corpus(), plain, ak::hashed_ngram_embedder(256));
    const std::string q = "grab a screenshoot";  // misspelled: no lexical term matches the right tool
    auto l = lex.search(q, 1);
    auto h = hyb.search(q, 1);
    EXPECT_TRUE(l.empty() || lex.doc(l[0].doc).name != "browser_take_screenshot");
    ASSERT_FALSE(h.empty());
    EXPECT_EQ(hyb.doc(h[0].doc).name, "browser_take_screenshot");
    // Correctly spelled queries keep working with both fusion kinds.
    ak::retriever_options o;
    o.fusion = ak::fusion_kind::rrf;
    ak::tool_retriever<ak::hashed_ngram_embedder> rrf(small_corpus(), o, ak::hashed_ngram_embedder(128));
    auto r = rrf.search("current weather in Oslo", 1);
    ASSERT_FALSE(r.empty());
    EXPECT_EQ(rrf.doc(r[0].doc).name, "get_weather");
    EXPECT_GT(hyb.memory_bytes(), lex.memory_bytes());
}

TEST(Embedder, HashedNgramsAreStableAndSimilarForVariants) {
    ak::hashed_ngram_embedder e(256);
    std::vector<float> a(256), b(256), c(256);
    e.embed("forecast", a);
    e.embed("forecst", b);
    e.embed("zebra", c);
    auto cos = [](const std::vector<float>& x, const std::vector<float>& y) {
        double d = 0, nx = 0, ny = 0;
        for (std::size_t i = 0; i < x.size(); ++i) {
            d += x[i] * y[i];
            nx += x[i] * x[i];
            ny += y[i] * y[i];
        }
        return d / std::sqrt(nx * ny);
    };
    EXPECT_GT(cos(a, b), 0.4);
    EXPECT_LT(cos(a, c), 0.3);
    std::vector<float> a2(256);
    e.embed("forecast", a2);
    EXPECT_EQ(a, a2);
}
