// Tool search with an embedding model (issue 46): embedding_endpoint against a fake
// OpenAI-compatible /v1/embeddings on 127.0.0.1 through the libcurl client — the request it
// sends, batching, the caches (memory and disk), retries and Retry-After, every bad answer, the
// breaker and its two log lines, a slow endpoint — and the router over it: fused when the vectors
// are there, by words alone (never an error) when the endpoint is slow, down or talks garbage.
// The fake "model" maps words to a few meanings, so that a request that shares no word with its
// tool still finds it through the vectors. No sleeps: held answers wait on a gate.
#include <agentkit/agentkit.hpp>
#include <agentkit/net/http_client.hpp>
#include <agentkit/visibility/embedding_endpoint.hpp>

#include <gtest/gtest.h>

#include "support/http_server.hpp"

#include <atomic>
#include <cctype>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <vector>

#include <unistd.h>

namespace ak = agentkit;
namespace net = agentkit::net;
namespace t = agentkit::test;
using ak::json;
using namespace std::chrono_literals;

namespace {

constexpr const char* kKey = "SECRET-embeddings-key-51d0c3";

/// The fake model: each word adds to the dimension of its meaning (8 meanings), plus a small
/// constant so that no vector is zero.
std::vector<float> meaning_vector(const std::string& text) {
    static const std::map<std::string, std::size_t> meaning = {
        {"remember", 0}, {"keep", 0}, {"zettelkasten", 0}, {"mind", 0}, {"entities", 0}, {"entity", 0}, {"graph", 0}, {"person", 0},
        {"file", 1},     {"read", 1}, {"show", 1}, {"contents", 1}, {"written", 1},
        {"page", 2},     {"open", 2}, {"website", 2}, {"navigate", 2}, {"url", 2}, {"go", 2},
        {"sum", 3},      {"add", 3},  {"plus", 3},  {"numbers", 3}, {"total", 3},
        {"picture", 4},  {"screenshot", 4}, {"image", 4}, {"capture", 4},
    };
    std::vector<float> v(8, 0.01F);
    std::string w;
    auto flush = [&] {
        if (auto it = meaning.find(w); it != meaning.end()) v[it->second] += 1.0F;
        w.clear();
    };
    for (char c : text) {
        if (std::isalpha(static_cast<unsigned char>(c))) w += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
        else flush();
    }
    flush();
    return v;
}

/// A fake OpenAI-compatible endpoint: /v1/embeddings answers with meaning_vector() of each input (in
/// reverse order, with indexes), or whatever `answer` says; every request is recorded.
struct fake_endpoint {
    t::http_server server;
    std::mutex mu;
    std::vector<json> bodies;
    std::vector<std::string> auth;
    std::function<t::http_response(const json&)> answer;  // null: the model's answer

    fake_endpoint() {
        server.route("/v1/embeddings", [this](const t::http_request& r) {
            const json body = json::parse(r.body, nullptr, false);
            std::function<t::http_response(const json&)> a;
            {
                std::lock_guard lock(mu);
                bodies.push_back(body);
                auth.push_back(r.header("Authorization").value_or(""));
                a = answer;
            }
            if (a) return a(body);
            return model_answer(body);
        });
    }
    ~fake_endpoint() { server.stop(); }
    fake_endpoint(const fake_endpoint&) = delete;
    fake_endpoint& operator=(const fake_endpoint&) = delete;

    static t::http_response model_answer(const json& body) {
        json data = json::array();
        const auto& in = body.at("input");
        for (std::size_t i = in.size(); i-- > 0;)
            data.push_back(json{{"object", "embedding"}, {"index", i}, {"embedding", meaning_vector(in[i].get<std::string>())}});
        return t::http_response::json(json{{"object", "list"}, {"data", data}, {"model", body.value("model", "")}}.dump());
    }
    std::size_t count() {
        std::lock_guard lock(mu);
        return bodies.size();
    }
    json last() {
        std::lock_guard lock(mu);
        return bodies.back();
    }
    std::string base() const { return server.url("/v1"); }
};

t::http_response status(int code, std::string body, std::vector<std::pair<std::string, std::string>> headers = {}) {
    auto r = t::http_response::json(std::move(body));
    r.status = code;
    r.headers = std::move(headers);
    return r;
}

using endpoint_t = ak::embedding_endpoint<net::http_client>;

/// Options pointed at `f`, with recorded waits and a clock the test moves.
struct setup {
    std::shared_ptr<net::http_client> http = std::make_shared<net::http_client>();
    ak::embedding_endpoint_options o;
    std::shared_ptr<std::vector<std::chrono::milliseconds>> waits = std::make_shared<std::vector<std::chrono::milliseconds>>();
    std::shared_ptr<std::chrono::steady_clock::time_point> now =
        std::make_shared<std::chrono::steady_clock::time_point>(std::chrono::steady_clock::now());
    std::shared_ptr<std::vector<std::string>> log = std::make_shared<std::vector<std::string>>();

    explicit setup(const fake_endpoint& f) {
        o.base_url = f.base() + "/";  // a trailing slash is fine
        o.model = "meanings-8";
        o.api_key = kKey;
        o.wait = [w = waits](std::chrono::milliseconds d, std::stop_token) { w->push_back(d); };
        o.now = [n = now] { return *n; };
        o.on_log = [l = log](std::string_view line) { l->emplace_back(line); };
    }
    endpoint_t make() const { return endpoint_t(http, o); }
};

std::vector<std::string> texts(std::initializer_list<const char*> l) { return {l.begin(), l.end()}; }

void expect_no_key(const ak::error& e) {
    EXPECT_EQ(e.to_text().find(kKey), std::string::npos) << e.to_text();
    EXPECT_EQ(e.to_json().dump().find(kKey), std::string::npos) << e.to_json().dump();
}

std::filesystem::path fresh_dir(const std::string& name) {
    auto d = std::filesystem::temp_directory_path() / ("agentkit-embeddings-" + name + "-" + std::to_string(::getpid()));
    std::filesystem::remove_all(d);
    return d;
}

}  // namespace

// ---- the endpoint -------------------------------------------------------------------------------

TEST(EmbeddingEndpoint, SendsTheOpenAiShapeWithTheKeyFromTheEnvironmentAndReadsVectorsByIndex) {
    fake_endpoint f;
    setup s(f);
    s.o.api_key.clear();
    s.o.api_key_env = "AGENTKIT_TEST_EMBEDDINGS_KEY";
    ::setenv("AGENTKIT_TEST_EMBEDDINGS_KEY", kKey, 1);
    s.o.dimensions = 8;
    s.o.document_prefix = "search_document: ";
    s.o.query_prefix = "search_query: ";
    s.o.extra = json{{"truncate", "END"}};
    auto e = s.make();
    ::unsetenv("AGENTKIT_TEST_EMBEDDINGS_KEY");  // read once, at construction
    const auto in = texts({"read a file", "open the page"});
    auto r = e.embed_batch(in, ak::embed_purpose::document);
    ASSERT_TRUE(r) << r.error().to_text();
    ASSERT_EQ(r->size(), 2U);
    EXPECT_EQ((*r)[0], meaning_vector("read a file"));  // the answer came reversed: read by "index"
    EXPECT_EQ((*r)[1], meaning_vector("open the page"));
    const json body = f.last();
    EXPECT_EQ(body.at("model"), "meanings-8");
    EXPECT_EQ(body.at("input"), json::array({"search_document: read a file", "search_document: open the page"}));
    EXPECT_EQ(body.at("encoding_format"), "float");
    EXPECT_EQ(body.at("dimensions"), 8);
    EXPECT_EQ(body.at("truncate"), "END");
    EXPECT_EQ(f.auth.back(), std::string("Bearer ") + kKey);
    const std::string q = "show me the contents";
    auto qr = e.embed_batch(std::span<const std::string>(&q, 1), ak::embed_purpose::query);
    ASSERT_TRUE(qr) << qr.error().to_text();
    EXPECT_EQ(f.last().at("input"), json::array({"search_query: show me the contents"}));
    EXPECT_EQ(e.dimension_seen(), 8U);
}

TEST(EmbeddingEndpoint, BatchesAskEachTextOnceAndAnEmptyTextIsAZeroVectorWithoutARequest) {
    fake_endpoint f;
    setup s(f);
    s.o.batch_size = 64;
    auto e = s.make();
    std::vector<std::string> many;
    for (int i = 0; i < 150; ++i) many.push_back("tool number " + std::to_string(i) + " reads a file");
    many.push_back(many[3]);  // the same text twice: sent once
    many.emplace_back("   ");
    auto r = e.embed_batch(many, ak::embed_purpose::document);
    ASSERT_TRUE(r) << r.error().to_text();
    ASSERT_EQ(r->size(), many.size());
    EXPECT_EQ(f.count(), 3U);  // 150 distinct texts in batches of 64
    EXPECT_EQ((*r)[150], (*r)[3]);
    EXPECT_EQ((*r)[151], std::vector<float>(8, 0.0F));
    std::size_t sent = 0;
    for (const auto& b : f.bodies) sent += b.at("input").size();
    EXPECT_EQ(sent, 150U);
    ASSERT_TRUE(e.embed_batch(many, ak::embed_purpose::document));  // all cached
    EXPECT_EQ(f.count(), 3U);
    EXPECT_EQ(e.requests_sent(), 3U);
}

TEST(EmbeddingEndpoint, ToolVectorsOutliveTheProcessOnDiskKeyedByModelAndACutRecordIsDropped) {
    fake_endpoint f;
    const auto dir = fresh_dir("disk");
    const auto in = texts({"read a file", "open the page", "add two numbers"});
    {
        setup s(f);
        s.o.cache_dir = dir.string();
        auto e = s.make();
        EXPECT_EQ(e.cache().problem(), "");
        ASSERT_TRUE(e.embed_batch(in, ak::embed_purpose::document));
        EXPECT_EQ(f.count(), 1U);
    }
    std::string file;
    {
        setup s(f);  // "a restarted gateway": a new endpoint object on the same folder
        s.o.cache_dir = dir.string();
        auto e = s.make();
        file = e.cache().path();
        EXPECT_EQ(e.cache().size(), 3U);
        auto r = e.embed_batch(in, ak::embed_purpose::document);
        ASSERT_TRUE(r);
        EXPECT_EQ((*r)[2], meaning_vector("add two numbers"));
        EXPECT_EQ(f.count(), 1U);  // nothing asked again
    }
    {
        std::ofstream cut(file, std::ios::binary | std::ios::app);
        cut << std::string(30, 'x');  // a record cut short by a killed process
    }
    {
        setup s(f);
        s.o.cache_dir = dir.string();
        auto e = s.make();
        EXPECT_EQ(e.cache().size(), 3U);
        EXPECT_EQ(e.cache().problem(), "");
        const auto more = texts({"take a screenshot"});
        ASSERT_TRUE(e.embed_batch(more, ak::embed_purpose::document));
        EXPECT_EQ(f.count(), 2U);
    }
    {
        setup s(f);
        s.o.cache_dir = dir.string();
        auto e = s.make();
        EXPECT_EQ(e.cache().size(), 4U);  // the record written after the repair is whole
        s.o.model = "another-model";
        auto other = s.make();  // another model: its own file, asked again
        EXPECT_NE(other.cache().path(), file);
        ASSERT_TRUE(other.embed_batch(in, ak::embed_purpose::document));
        EXPECT_EQ(f.count(), 3U);
    }
    std::filesystem::remove_all(dir);
}

TEST(EmbeddingEndpoint, ToolTextsAreRetriedWithADoublingBackoffAndASearchRequestIsAskedOnce) {
    fake_endpoint f;
    setup s(f);
    std::atomic<int> failures{2};
    f.answer = [&](const json& body) {
        if (failures-- > 0) return status(503, R"({"error":{"message":"warming up"}})");
        return fake_endpoint::model_answer(body);
    };
    auto e = s.make();
    auto r = e.embed_batch(texts({"read a file"}), ak::embed_purpose::document);
    ASSERT_TRUE(r) << r.error().to_text();
    EXPECT_EQ(f.count(), 3U);
    EXPECT_EQ(*s.waits, (std::vector<std::chrono::milliseconds>{250ms, 500ms}));
    EXPECT_TRUE(s.log->empty());  // it never failed as far as a caller could tell

    failures = 1;
    const std::string q = "open the page";
    auto qr = e.embed_batch(std::span<const std::string>(&q, 1), ak::embed_purpose::query);
    ASSERT_FALSE(qr);
    EXPECT_EQ(qr.error().code, ak::errc::provider_error);
    EXPECT_NE(qr.error().message.find("HTTP 503: warming up"), std::string::npos) << qr.error().message;
    EXPECT_EQ(f.count(), 4U);  // once
    EXPECT_EQ(s.waits->size(), 2U);
}

TEST(EmbeddingEndpoint, RetryAfterIsWaitedWithinTheBoundAndALongerOneIsTheError) {
    fake_endpoint f;
    setup s(f);
    std::atomic<int> calls{0};
    std::string retry_after = "2";
    f.answer = [&](const json& body) {
        if (calls++ == 0) return status(429, R"({"error":"slow down"})", {{"Retry-After", retry_after}});
        return fake_endpoint::model_answer(body);
    };
    auto e = s.make();
    ASSERT_TRUE(e.embed_batch(texts({"read a file"}), ak::embed_purpose::document));
    EXPECT_EQ(*s.waits, std::vector<std::chrono::milliseconds>{2000ms});
    calls = 0;
    retry_after = "120";
    auto r = e.embed_batch(texts({"open the page"}), ak::embed_purpose::document);
    ASSERT_FALSE(r);
    EXPECT_EQ(r.error().code, ak::errc::provider_rate_limited);
    EXPECT_EQ(s.waits->size(), 1U);  // no wait of two minutes
}

TEST(EmbeddingEndpoint, EveryBadAnswerIsAClearErrorThatNeverShowsTheKey) {
    struct bad_case {
        const char* name;
        int status;
        std::string body;
        std::string_view code;
        const char* says;
    };
    const std::string echoed = std::string(R"({"error":{"message":"key )") + kKey + R"( is revoked"}})";
    const std::vector<bad_case> cases = {
        {"not json", 200, "<html>proxy error</html>", ak::errc::provider_malformed, "no \"data\" array"},
        {"no data", 200, R"({"object":"list"})", ak::errc::provider_malformed, "no \"data\" array"},
        {"too few", 200, R"({"data":[{"index":0,"embedding":[1,2]}]})", ak::errc::provider_malformed, "1 vectors for 2 texts"},
        {"not numbers", 200, R"({"data":[{"index":0,"embedding":["a"]},{"index":1,"embedding":[1]}]})",
         ak::errc::provider_malformed, "not a number"},
        {"lengths", 200, R"({"data":[{"index":0,"embedding":[1,2]},{"index":1,"embedding":[1]}]})",
         ak::errc::provider_malformed, "different lengths"},
        {"index twice", 200, R"({"data":[{"index":0,"embedding":[1]},{"index":0,"embedding":[1]}]})",
         ak::errc::provider_malformed, "two vectors for one text"},
        {"refused key", 401, echoed, ak::errc::provider_auth, "HTTP 401"},
        {"unknown model", 404, R"({"error":{"message":"model not found"}})", ak::errc::provider_invalid, "model not found"},
    };
    for (const auto& c : cases) {
        SCOPED_TRACE(c.name);
        fake_endpoint f;
        setup s(f);
        s.o.api_key_env = "AGENTKIT_TEST_EMBEDDINGS_KEY";
        f.answer = [&](const json&) { return status(c.status, c.body); };
        auto e = s.make();
        auto r = e.embed_batch(texts({"read a file", "open the page"}), ak::embed_purpose::document);
        ASSERT_FALSE(r);
        EXPECT_EQ(r.error().code, c.code) << r.error().to_text();
        EXPECT_NE(r.error().message.find(c.says), std::string::npos) << r.error().message;
        expect_no_key(r.error());
        if (c.status == 401) {
            EXPECT_NE(r.error().hint.find("AGENTKIT_TEST_EMBEDDINGS_KEY"), std::string::npos) << r.error().hint;
        }
        EXPECT_EQ(f.count(), c.status == 200 ? 3U : 1U);  // a bad answer is tried again; a refusal is not
        ASSERT_EQ(s.log->size(), 1U);
        EXPECT_EQ(s.log->front().find(kKey), std::string::npos);
    }
    // a model whose vectors change length between answers
    fake_endpoint f;
    setup s(f);
    auto e = s.make();
    ASSERT_TRUE(e.embed_batch(texts({"read a file"}), ak::embed_purpose::document));
    f.answer = [](const json&) { return status(200, R"({"data":[{"index":0,"embedding":[1,2,3]}]})"); };
    auto r = e.embed_batch(texts({"open the page"}), ak::embed_purpose::document);
    ASSERT_FALSE(r);
    EXPECT_NE(r.error().message.find("vectors of 3 numbers where earlier ones had 8"), std::string::npos) << r.error().message;
}

TEST(EmbeddingEndpoint, AFailureOpensABreakerSoADeadEndpointCostsNothingAndItIsLoggedOnceEachWay) {
    fake_endpoint f;
    setup s(f);
    s.o.retries = 0;
    bool down = true;
    f.answer = [&](const json& body) { return down ? status(500, R"({"error":"boom"})") : fake_endpoint::model_answer(body); };
    auto e = s.make();
    const std::string q = "open the page";
    const std::span<const std::string> one(&q, 1);
    ASSERT_FALSE(e.embed_batch(one, ak::embed_purpose::query));
    EXPECT_EQ(f.count(), 1U);
    EXPECT_FALSE(e.ready());
    for (int i = 0; i < 5; ++i) {
        auto r = e.embed_batch(one, ak::embed_purpose::query);
        ASSERT_FALSE(r);
        EXPECT_NE(r.error().message.find("cooling down"), std::string::npos) << r.error().message;
    }
    EXPECT_EQ(f.count(), 1U);  // no request while it cools down
    ASSERT_EQ(s.log->size(), 1U);
    EXPECT_NE(s.log->front().find("ranks by words alone"), std::string::npos) << s.log->front();
    EXPECT_NE(s.log->front().find(f.base()), std::string::npos) << s.log->front();

    *s.now += 5001ms;  // the cooldown passes; it fails again: the next cooldown is twice as long
    EXPECT_TRUE(e.ready());
    ASSERT_FALSE(e.embed_batch(one, ak::embed_purpose::query));
    EXPECT_EQ(f.count(), 2U);
    *s.now += 5001ms;
    EXPECT_FALSE(e.ready());
    ASSERT_FALSE(e.embed_batch(one, ak::embed_purpose::query));
    EXPECT_EQ(f.count(), 2U);
    EXPECT_EQ(s.log->size(), 1U);  // still the one line

    down = false;
    *s.now += 5001ms;
    ASSERT_TRUE(e.embed_batch(one, ak::embed_purpose::query));
    ASSERT_EQ(s.log->size(), 2U);
    EXPECT_NE(s.log->back().find("answers again"), std::string::npos) << s.log->back();
    ASSERT_TRUE(e.embed_batch(one, ak::embed_purpose::query));  // cached: no request, no line
    EXPECT_EQ(f.count(), 3U);
    EXPECT_EQ(s.log->size(), 2U);
}

TEST(EmbeddingEndpoint, ASlowSearchRequestTimesOutAtTheQueryBound) {
    fake_endpoint f;
    setup s(f);
    s.o.query_timeout = 300ms;
    auto g = f.server.make_gate();
    f.answer = [&](const json& body) { return fake_endpoint::model_answer(body).held_by(g); };
    auto e = s.make();
    const std::string q = "open the page";
    auto r = e.embed_batch(std::span<const std::string>(&q, 1), ak::embed_purpose::query);
    g->open();
    ASSERT_FALSE(r);
    EXPECT_EQ(r.error().code, ak::errc::timeout) << r.error().to_text();
}

// ---- the router over it -------------------------------------------------------------------------

namespace {

std::vector<ak::tool_info> catalogue() {
    auto tool = [](std::string name, std::string description) {
        ak::tool_info t;
        t.name = std::move(name);
        t.description = std::move(description);
        t.input_schema = json{{"type", "object"}};
        return t;
    };
    return {tool("create_entities", "Create entities in the knowledge graph"),
            tool("read_text_file", "Read a file's contents as text"),
            tool("browser_navigate", "Navigate to a URL"),
            tool("get_sum", "Add two numbers"),
            tool("take_screenshot", "Capture an image of the page"),
            tool("list_directory", "List the entries of a directory")};
}

std::vector<std::string> names_found(const ak::result<ak::tool_output>& out) {
    std::vector<std::string> n;
    if (!out || !out->structured) return n;
    for (const auto& t : out->structured->at("tools")) n.push_back(t.at("name").get<std::string>());
    return n;
}

ak::result<ak::tool_output> search(auto& r, const std::string& q, int k = 1) {
    return r.handle_meta("tool_search", json{{"query", q}, {"k", k}}).value();
}

}  // namespace

TEST(EmbeddingRouter, AModelsVectorsFindWhatWordsCannotAndADeadEndpointLeavesTheWords) {
    auto f = std::make_unique<fake_endpoint>();
    setup s(*f);
    s.o.query_timeout = 2000ms;
    ak::router<endpoint_t> r({}, s.make());
    r.bind(catalogue());
    ASSERT_TRUE(r.wait_for_vectors(10s));
    EXPECT_EQ(f->count(), 1U);  // one batch of six tool texts
    // "zettelkasten" shares no word (nor a related one) with create_entities' text; its meaning does
    ak::router<> words({});
    words.bind(catalogue());
    EXPECT_EQ(names_found(search(words, "a zettelkasten for Ada")), std::vector<std::string>{});
    auto found = search(r, "a zettelkasten for Ada");
    ASSERT_TRUE(found) << found.error().to_text();
    EXPECT_EQ(names_found(found), std::vector<std::string>{"create_entities"});
    EXPECT_EQ(names_found(search(r, "show me what is written in notes")), std::vector<std::string>{"read_text_file"});
    EXPECT_EQ(f->count(), 3U);  // the tools' batch and two requests

    // The endpoint is killed: every search still answers, by words alone, and the log says so once. (A
    // request asked before keeps its vector: its ranking stays fused.)
    const std::string base = f->base();
    f.reset();
    for (const char* q : {"add two numbers please", "navigate to a URL", "a zettelkasten for Grace"}) {
        auto a = search(r, q, 3);
        ASSERT_TRUE(a) << q << ": " << a.error().to_text();
        EXPECT_EQ(names_found(a), names_found(search(words, q, 3))) << q;
    }
    ASSERT_EQ(s.log->size(), 1U);
    EXPECT_NE(s.log->front().find(base), std::string::npos);
}

TEST(EmbeddingRouter, ToolVectorsThatFailAtBindAreAskedForAgainOnceTheEndpointIsReady) {
    // a host's function: fails the tools' texts twice, then answers
    std::atomic<int> document_calls{0};
    std::atomic<int> query_calls{0};
    ak::function_embedder fe([&](std::span<const std::string> in, ak::embed_purpose p) -> ak::result<ak::embedding_batch> {
        if (p == ak::embed_purpose::query) ++query_calls;
        else if (document_calls++ < 1) return ak::fail(ak::errc::transport_io, "connection refused");
        ak::embedding_batch out;
        for (const auto& x : in) out.push_back(meaning_vector(x));
        return out;
    });
    ak::router<ak::function_embedder> r({}, fe);
    r.bind(catalogue());
    EXPECT_FALSE(r.wait_for_vectors(10s));  // the first request failed
    EXPECT_EQ(names_found(search(r, "a zettelkasten for Ada")), std::vector<std::string>{});  // words alone: nothing
    EXPECT_EQ(query_calls.load(), 0);  // no vectors: the request is not embedded at all
    // that search asked again (a function has no cooldown); the vectors arrive
    ASSERT_TRUE(r.wait_for_vectors(10s));
    EXPECT_EQ(document_calls.load(), 2);
    EXPECT_EQ(names_found(search(r, "a zettelkasten for Ada")), std::vector<std::string>{"create_entities"});
    EXPECT_EQ(query_calls.load(), 1);
}

TEST(EmbeddingRouter, ABatchedModelFreeEmbedderRanksExactlyAsTheSynchronousOne) {
    // function_embedder::from(hashed n-grams) goes through the batch path (thread, delivery, refresh);
    // the rankings must not differ from the synchronous path's
    ak::router_options o;
    o.examples["get_sum"] = {"what is 2 plus 2", "total of these"};
    ak::router<ak::hashed_ngram_embedder> sync(o, ak::hashed_ngram_embedder(128));
    ak::router<ak::function_embedder> batched(o, ak::function_embedder::from(ak::hashed_ngram_embedder(128)));
    sync.bind(catalogue());
    batched.bind(catalogue());
    ASSERT_TRUE(batched.wait_for_vectors(10s));
    for (const char* q : {"add numbers", "screenshoot of the page", "red a fil", "navigat to url", "entity graph"}) {
        EXPECT_EQ(names_found(search(batched, q, 4)), names_found(search(sync, q, 4))) << q;
    }
}

TEST(EmbeddingRouter, AThrowingFunctionFailsItsBatchAndTheSearchStillAnswers) {
    ak::function_embedder fe([](std::span<const std::string>, ak::embed_purpose) -> ak::result<ak::embedding_batch> {
        throw std::runtime_error("model crashed");
    });
    const std::string x = "anything";
    auto r = fe.embed_batch(std::span<const std::string>(&x, 1), ak::embed_purpose::query);
    ASSERT_FALSE(r);
    EXPECT_NE(r.error().message.find("model crashed"), std::string::npos);
    ak::router<ak::function_embedder> router({}, fe);
    router.bind(catalogue());
    EXPECT_FALSE(router.wait_for_vectors(10s));
    EXPECT_EQ(names_found(search(router, "add two numbers")), std::vector<std::string>{"get_sum"});
}

// ---- a model blended with character n-grams (what agentkit-mcp-gateway does) ---------------------

namespace {

/// A host's model over meaning_vector(): fails documents while `docs_down`, queries while `queries_down`.
struct switchable_model {
    std::shared_ptr<std::atomic<bool>> docs_down = std::make_shared<std::atomic<bool>>(false);
    std::shared_ptr<std::atomic<bool>> queries_down = std::make_shared<std::atomic<bool>>(false);
    ak::function_embedder embedder() const {
        return ak::function_embedder([d = docs_down, q = queries_down](std::span<const std::string> in,
                                                                        ak::embed_purpose p) -> ak::result<ak::embedding_batch> {
            if ((p == ak::embed_purpose::document ? *d : *q).load()) return ak::fail(ak::errc::transport_io, "model down");
            ak::embedding_batch out;
            for (const auto& x : in) out.push_back(meaning_vector(x));
            return out;
        });
    }
};

using blend = ak::blended_embedder<ak::hashed_ngram_embedder, ak::function_embedder>;

ak::router_options blend_options() {
    ak::router_options o;
    o.examples["get_sum"] = {"what is 2 plus 2", "total of these"};
    o.examples["browser_navigate"] = {"go to the docs site"};
    return o;
}

const std::vector<const char*> some_requests = {"add numbers", "screenshoot of the page", "red a fil", "navigat to url",
                                                "entity graph", "a zettelkasten for Ada", "show what is written"};

}  // namespace

TEST(BlendedEmbedder, AModelFailingOnSearchesRanksExactlyAsTheNgramsAlone) {
    switchable_model m;
    ak::router<blend> blended(blend_options(), blend({}, m.embedder(), 0.2F));
    ak::router<ak::hashed_ngram_embedder> ngrams(blend_options(), {});
    blended.bind(catalogue());
    ngrams.bind(catalogue());
    ASSERT_TRUE(blended.wait_for_vectors(10s));
    EXPECT_EQ(names_found(search(blended, "a zettelkasten for Ada")), std::vector<std::string>{"create_entities"});
    *m.queries_down = true;
    for (const char* q : some_requests) EXPECT_EQ(names_found(search(blended, q, 4)), names_found(search(ngrams, q, 4))) << q;
}

TEST(BlendedEmbedder, WhileTheModelCannotEmbedTheToolsTheNgramsRankAndTheModelJoinsOnceItAnswers) {
    switchable_model m;
    *m.docs_down = true;
    *m.queries_down = true;
    ak::router<blend> blended(blend_options(), blend({}, m.embedder(), 0.2F));
    ak::router<ak::hashed_ngram_embedder> ngrams(blend_options(), {});
    blended.bind(catalogue());
    ngrams.bind(catalogue());
    ASSERT_TRUE(blended.wait_for_vectors(10s));  // the n-grams' vectors, meanwhile
    for (const char* q : some_requests) EXPECT_EQ(names_found(search(blended, q, 4)), names_found(search(ngrams, q, 4))) << q;
    // Each search above found the fallback vectors due and asked again (this embedder has no ready()):
    // let the last of those requests end, still failing, before the model comes back.
    ASSERT_TRUE(blended.wait_for_vectors(10s));
    // the model answers again: the next search asks for the tools' vectors, which are then fused
    *m.docs_down = false;
    *m.queries_down = false;
    (void)search(blended, "anything at all");
    ASSERT_TRUE(blended.wait_for_vectors(10s));
    EXPECT_EQ(names_found(search(blended, "a zettelkasten for Ada")), std::vector<std::string>{"create_entities"});
    EXPECT_NE(names_found(search(ngrams, "a zettelkasten for Ada")), std::vector<std::string>{"create_entities"});
}

TEST(BlendedEmbedder, ThePartsAreWeighedByTheirShares) {
    switchable_model m;
    const blend b({}, m.embedder(), 0.25F);
    const auto in = texts({"read a file"});
    auto v = b.embed_batch(in, ak::embed_purpose::document);
    ASSERT_TRUE(v);
    ASSERT_EQ((*v)[0].size(), 256U + 8U);  // the n-grams' 256 numbers, then the model's 8
    EXPECT_EQ(std::vector<float>((*v)[0].begin() + 256, (*v)[0].end()), meaning_vector("read a file"));
    const auto segs = b.segments();
    ASSERT_EQ(segs.size(), 2U);
    EXPECT_EQ(segs[0], (std::pair<std::size_t, float>{256, 0.75F}));
    EXPECT_EQ(segs[1], (std::pair<std::size_t, float>{8, 0.25F}));
    const blend clamped({}, m.embedder(), 7.0F);
    EXPECT_FLOAT_EQ(clamped.remote_share(), 1.0F);
}
