// agentkit-route-eval — evaluate the retrieval router on a BEIR-layout tool corpus.
//
//   agentkit-route-eval --corpus corpus.jsonl --queries queries.jsonl --qrels qrels/test.tsv
//                       [--examples qrels/train.tsv] [--run run.trec] [--hybrid]
//                       [--fusion weighted|rrf] [--dense-weight 0.35] [--dim 256] [--tag NAME]
//                       [--baseline] [--scale TOOLS,EXAMPLES] [--related-weight W]
//
// corpus.jsonl: {"_id","title","text"} per tool (title is the tool name when present, text its
// description). queries.jsonl: {"_id","text"}. qrels: "query-id corpus-id score" with a header
// row. --examples attaches the texts of those queries to their gold tools as usage examples
// before the test queries run (learning from usage). Prints Recall@k, NDCG@k and COMP@k
// (share of queries whose gold tools are all in the top k) for k = 1, 3, 5, 10, and the
// query latency p50/p99. --run writes a TREC run file: "qid Q0 docid rank score tag".
//
// --baseline adds one line: the Recall@k of the naive baseline on the same queries — BM25 (k1
// 0.9, b 0.4) over one document per tool made of its name, its description and every one of its
// usage examples appended (no cap), with agentkit's analyzer — and the difference in Recall@5.
//
// --related-weight W sets bm25f_params::related_weight (the weight of the related words a query
// word no tool uses brings in, lexicon.hpp; 0: none).
//
// --scale TOOLS,EXAMPLES measures cost instead of quality: the corpus is copied until it has
// TOOLS tools (each copy's name and text tagged with its number), EXAMPLES example texts are
// drawn (a fixed pseudo-random sequence) from the --examples queries, each made distinct by a
// tag word and attached to one copy of its gold tools; it prints the build time, the index
// memory, the process's peak resident memory and the latency of the test queries.
#include <agentkit/agentkit.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <map>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <vector>

namespace ak = agentkit;

namespace {

/// The p-th percentile (nearest rank) of sorted, non-empty latencies.
double percentile(const std::vector<double>& sorted, double p) {
    const auto i = static_cast<std::size_t>(std::ceil(p * static_cast<double>(sorted.size()))) - 1;
    return sorted[std::min(i, sorted.size() - 1)];
}

struct args_t {
    std::string corpus, queries, qrels, run, examples, tag = "agentkit", fusion = "weighted";
    bool hybrid = false;
    bool baseline = false;
    std::size_t scale_tools = 0, scale_examples = 0;
    float dense_weight = 0.35F;
    float related_weight = ak::bm25f_params{}.related_weight;
    std::size_t dim = 256;
    std::size_t depth = 10;
};

[[noreturn]] void usage(const char* why) {
    std::fprintf(stderr,
                 "agentkit-route-eval: %s\n"
                 "usage: agentkit-route-eval --corpus corpus.jsonl --queries queries.jsonl --qrels test.tsv\n"
                 "       [--examples train.tsv] [--run run.trec] [--hybrid] [--fusion weighted|rrf]\n"
                 "       [--dense-weight W] [--dim N] [--depth N] [--tag NAME] [--baseline]\n"
                 "       [--scale TOOLS,EXAMPLES] [--related-weight W (0: no related words)]\n",
                 why);
    std::exit(2);
}

// Numeric option values: the whole text must be a number (no "12x", no "-1") within range,
// the dense weight in [0, 1]; anything else is a usage error, not an abort.
std::size_t parse_count(const std::string& opt, const std::string& v, std::size_t lo, std::size_t hi) {
    if (!v.empty() && v.find_first_not_of("0123456789") == std::string::npos) {
        try {
            const auto n = static_cast<std::size_t>(std::stoul(v));
            if (n >= lo && n <= hi) return n;
        } catch (const std::out_of_range&) {
        }
    }
    usage((opt + " needs an integer from " + std::to_string(lo) + " to " + std::to_string(hi) + ", not '" + v + "'")
              .c_str());
}

float parse_weight(const std::string& opt, const std::string& v) {
    std::size_t used = 0;
    float w = -1;
    try {
        w = std::stof(v, &used);
    } catch (const std::exception&) {
        used = 0;
    }
    if (used == 0 || used != v.size() || !(w >= 0.0F && w <= 1.0F))
        usage((opt + " needs a number between 0 and 1, not '" + v + "'").c_str());
    return w;
}

args_t parse_args(int argc, char** argv) {
    args_t a;
    for (int i = 1; i < argc; ++i) {
        std::string k = argv[i];
        auto value = [&]() -> std::string {
            if (i + 1 >= argc) usage(("missing value for " + k).c_str());
            return argv[++i];
        };
        if (k == "--corpus") a.corpus = value();
        else if (k == "--queries") a.queries = value();
        else if (k == "--qrels") a.qrels = value();
        else if (k == "--run") a.run = value();
        else if (k == "--examples") a.examples = value();
        else if (k == "--tag") a.tag = value();
        else if (k == "--fusion") a.fusion = value();
        else if (k == "--hybrid") a.hybrid = true;
        else if (k == "--baseline") a.baseline = true;
        else if (k == "--scale") {
            const std::string v = value();
            const auto comma = v.find(',');
            if (comma == std::string::npos) usage(("--scale needs TOOLS,EXAMPLES, not '" + v + "'").c_str());
            a.scale_tools = parse_count("--scale", v.substr(0, comma), 1, 10000000);
            a.scale_examples = parse_count("--scale", v.substr(comma + 1), 0, 100000000);
        }
        else if (k == "--dense-weight") a.dense_weight = parse_weight(k, value());
        else if (k == "--related-weight") a.related_weight = parse_weight(k, value());
        else if (k == "--dim") a.dim = parse_count(k, value(), 1, 65536);
        else if (k == "--depth") a.depth = parse_count(k, value(), 1, 1000000);
        else if (k == "-h" || k == "--help") usage("help");
        else usage(("unknown option " + k).c_str());
    }
    if (a.corpus.empty() || a.queries.empty() || a.qrels.empty()) usage("--corpus, --queries and --qrels are required");
    if (a.fusion != "weighted" && a.fusion != "rrf") usage("--fusion must be weighted or rrf");
    if (a.scale_tools > 0 && a.scale_examples > 0 && a.examples.empty())
        usage("--scale with examples needs --examples (the queries the examples are drawn from)");
    a.depth = std::max<std::size_t>(a.depth, 10);
    return a;
}

std::vector<ak::json> read_jsonl(const std::string& path) {
    std::ifstream in(path);
    if (!in) usage(("cannot read " + path).c_str());
    std::vector<ak::json> out;
    std::string line;
    std::size_t n = 0;
    while (std::getline(in, line)) {
        ++n;
        if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
        auto j = ak::json::parse(line, nullptr, false);
        if (j.is_discarded() || !j.is_object()) {
            std::fprintf(stderr, "agentkit-route-eval: %s:%zu: not a JSON object, skipped\n", path.c_str(), n);
            continue;
        }
        out.push_back(std::move(j));
    }
    return out;
}

std::string str_field(const ak::json& j, const char* key) {
    auto it = j.find(key);
    if (it == j.end()) return {};
    if (it->is_string()) return it->get<std::string>();
    if (it->is_number()) return it->dump();
    return {};
}

// qrels: query-id -> (corpus-id -> score), in file order of first appearance.
struct qrels_t {
    std::vector<std::string> order;
    std::unordered_map<std::string, std::map<std::string, double>> rel;
};

qrels_t read_qrels(const std::string& path) {
    std::ifstream in(path);
    if (!in) usage(("cannot read " + path).c_str());
    qrels_t q;
    std::string line;
    bool first = true;
    while (std::getline(in, line)) {
        if (!line.empty() && line.back() == '\r') line.pop_back();
        std::istringstream ss(line);
        std::string qid, did, score;
        if (!(ss >> qid >> did)) continue;
        ss >> score;
        if (first) {
            first = false;
            if (qid == "query-id" || qid == "query_id" || qid == "qid") continue;  // header row
        }
        double s = 1;
        if (!score.empty()) s = std::strtod(score.c_str(), nullptr);
        if (s <= 0) continue;
        if (!q.rel.count(qid)) q.order.push_back(qid);
        q.rel[qid][did] = s;
    }
    return q;
}

// The naive baseline (--baseline): BM25 (k1 0.9, b 0.4, Lucene idf) over one document per tool,
// its name + description + every one of its examples appended, no cap; query terms count per
// occurrence. Written here, apart from the library's ranker, so that it stays the fixed yardstick.
class naive_bm25 {
public:
    template <class Retriever>
    explicit naive_bm25(const Retriever& r) {
        constexpr float k1 = 0.9F, b = 0.4F;
        const std::size_t n = r.size();
        std::vector<std::unordered_map<std::string, float>> tf(n);
        std::vector<float> len(n, 0.0F);
        std::unordered_map<std::string, float> df;
        for (std::size_t i = 0; i < n; ++i) {
            const auto& d = r.doc(i);
            std::vector<std::string> t = analyzer_.terms(d.name);
            analyzer_.append_terms(d.description, t);
            for (const auto& e : d.examples) analyzer_.append_terms(e, t);
            len[i] = static_cast<float>(t.size());
            for (auto& w : t) tf[i][std::move(w)] += 1.0F;
            for (const auto& [w, c] : tf[i]) df[w] += 1.0F;
        }
        double total = 0;
        for (float l : len) total += static_cast<double>(l);
        const float avg = std::max(1e-9F, static_cast<float>(total / static_cast<double>(std::max<std::size_t>(n, 1))));
        const auto N = static_cast<float>(n);
        for (std::size_t i = 0; i < n; ++i) {
            const float norm = k1 * (1.0F - b + b * len[i] / avg);
            for (const auto& [w, c] : tf[i]) {
                const float d = df[w];
                const float idf = std::log(1.0F + (N - d + 0.5F) / (d + 0.5F));
                postings_[w].push_back({static_cast<std::uint32_t>(i), idf * c * (k1 + 1.0F) / (c + norm)});
            }
        }
    }

    /// The tools with a positive score, best first (ties by tool order), at most k.
    [[nodiscard]] std::vector<std::uint32_t> search(std::string_view query, std::size_t k) const {
        std::unordered_map<std::uint32_t, float> acc;
        for (const auto& t : analyzer_.terms(query))
            if (auto it = postings_.find(t); it != postings_.end())
                for (const auto& h : it->second) acc[h.doc] += h.score;
        std::vector<ak::search_hit> hits;
        for (const auto& [d, v] : acc)
            if (v > 0) hits.push_back({d, v});
        ak::tool_index::select_top(hits, k);
        std::vector<std::uint32_t> out;
        for (const auto& h : hits) out.push_back(h.doc);
        return out;
    }

private:
    ak::text_analyzer analyzer_{};
    std::unordered_map<std::string, std::vector<ak::search_hit>> postings_;
};

template <class Retriever>
int evaluate(Retriever& r, const args_t& a, const std::unordered_map<std::string, std::string>& qtext,
             const qrels_t& test, std::size_t example_count, double build_ms) {
    std::optional<naive_bm25> base;
    if (a.baseline) base.emplace(r);
    double base_recall[4] = {};
    const std::size_t ks[] = {1, 3, 5, 10};
    double recall[4] = {}, ndcg[4] = {}, comp[4] = {};
    std::vector<double> lat;
    std::ofstream run;
    if (!a.run.empty()) {
        run.open(a.run);
        if (!run) usage(("cannot write " + a.run).c_str());
    }
    std::size_t evaluated = 0, missing = 0;
    for (const auto& qid : test.order) {
        auto t = qtext.find(qid);
        if (t == qtext.end()) {
            ++missing;
            continue;
        }
        const auto& gold = test.rel.at(qid);
        const auto t0 = std::chrono::steady_clock::now();
        auto hits = r.search(t->second, a.depth);
        const auto t1 = std::chrono::steady_clock::now();
        lat.push_back(std::chrono::duration<double, std::micro>(t1 - t0).count());
        ++evaluated;
        // ideal DCG per k
        std::vector<double> gains;
        for (const auto& [d, s] : gold) gains.push_back(s);
        std::sort(gains.rbegin(), gains.rend());
        for (std::size_t ki = 0; ki < 4; ++ki) {
            const std::size_t k = ks[ki];
            std::size_t found = 0;
            double dcg = 0, idcg = 0;
            for (std::size_t r2 = 0; r2 < hits.size() && r2 < k; ++r2) {
                auto g = gold.find(r.doc(hits[r2].doc).name);
                if (g != gold.end()) {
                    ++found;
                    dcg += (std::pow(2.0, g->second) - 1) / std::log2(static_cast<double>(r2) + 2);
                }
            }
            for (std::size_t r2 = 0; r2 < gains.size() && r2 < k; ++r2)
                idcg += (std::pow(2.0, gains[r2]) - 1) / std::log2(static_cast<double>(r2) + 2);
            recall[ki] += static_cast<double>(found) / static_cast<double>(gold.size());
            ndcg[ki] += idcg > 0 ? dcg / idcg : 0;
            comp[ki] += found == gold.size() ? 1 : 0;
        }
        if (base) {
            const auto ranked = base->search(t->second, 10);
            for (std::size_t ki = 0; ki < 4; ++ki) {
                std::size_t found = 0;
                for (std::size_t r2 = 0; r2 < ranked.size() && r2 < ks[ki]; ++r2)
                    found += gold.count(r.doc(ranked[r2]).name);
                base_recall[ki] += static_cast<double>(found) / static_cast<double>(gold.size());
            }
        }
        if (run) {
            for (std::size_t r2 = 0; r2 < hits.size(); ++r2)
                run << qid << " Q0 " << r.doc(hits[r2].doc).name << ' ' << (r2 + 1) << ' ' << hits[r2].score << ' '
                    << a.tag << '\n';
        }
    }
    if (evaluated == 0) {
        std::fprintf(stderr, "agentkit-route-eval: no test query has a text in %s\n", a.queries.c_str());
        return 1;
    }
    std::sort(lat.begin(), lat.end());
    auto pct = [&lat](double p) { return percentile(lat, p); };
    const double n = static_cast<double>(evaluated);
    std::printf("tools %zu | queries %zu%s | usage examples %zu | %s", r.size(), evaluated,
                missing ? (" (" + std::to_string(missing) + " without text skipped)").c_str() : "", example_count,
                Retriever::hybrid ? "hybrid" : "lexical");
    if constexpr (Retriever::hybrid) std::printf(" (%s, dense weight %.2f, dim %zu)", a.fusion.c_str(), static_cast<double>(a.dense_weight), a.dim);
    std::printf("\n");
    std::printf("%-8s %8s %8s %8s %8s\n", "metric", "@1", "@3", "@5", "@10");
    std::printf("%-8s", "Recall");
    for (double v : recall) std::printf(" %7.2f%%", 100 * v / n);
    std::printf("\n%-8s", "NDCG");
    for (double v : ndcg) std::printf(" %7.2f%%", 100 * v / n);
    std::printf("\n%-8s", "COMP");
    for (double v : comp) std::printf(" %7.2f%%", 100 * v / n);
    if (base) {
        std::printf("\n%-8s", "Baseline");
        for (double v : base_recall) std::printf(" %7.2f%%", 100 * v / n);
        std::printf(" | Recall of naive BM25 (name + description + all examples, one field); R@5 difference %+.2f",
                    100 * (recall[2] - base_recall[2]) / n);
    }
    std::printf("\nlatency  p50 %.1f us  p99 %.1f us  max %.1f us | build %.1f ms | index memory %zu bytes (%.0f per tool)\n",
                pct(0.50), pct(0.99), lat.back(), build_ms, r.memory_bytes(),
                static_cast<double>(r.memory_bytes()) / static_cast<double>(std::max<std::size_t>(r.size(), 1)));
    return 0;
}

template <class Retriever>
int run_eval(Retriever r, const args_t& a, const std::unordered_map<std::string, std::string>& qtext) {
    std::size_t example_count = 0;
    if (!a.examples.empty()) {
        auto train = read_qrels(a.examples);
        for (const auto& qid : train.order) {
            auto t = qtext.find(qid);
            if (t == qtext.end()) continue;
            for (const auto& [doc, s] : train.rel.at(qid))
                if (r.add_example(doc, t->second)) ++example_count;
        }
    }
    const auto t0 = std::chrono::steady_clock::now();
    r.rebuild();
    const auto t1 = std::chrono::steady_clock::now();
    const double build_ms = std::chrono::duration<double, std::milli>(t1 - t0).count();
    return evaluate(r, a, qtext, read_qrels(a.qrels), example_count, build_ms);
}

// The process's peak resident memory in kB (VmHWM), 0 where /proc is not there.
std::size_t peak_rss_kb() {
    std::ifstream in("/proc/self/status");
    std::string line;
    while (std::getline(in, line))
        if (line.rfind("VmHWM:", 0) == 0) return static_cast<std::size_t>(std::strtoull(line.c_str() + 6, nullptr, 10));
    return 0;
}

// --scale: the cost of the lexical retriever at a given catalogue and example count.
int run_scale(const std::vector<ak::tool_doc>& base, const args_t& a,
              const std::unordered_map<std::string, std::string>& qtext) {
    if (base.empty()) usage("--scale needs a corpus with at least one tool");
    const std::size_t nb = base.size();
    std::vector<ak::tool_doc> docs;
    docs.reserve(a.scale_tools);
    for (std::size_t i = 0; i < a.scale_tools; ++i) {
        ak::tool_doc d = base[i % nb];
        if (a.scale_tools > nb) {
            const std::string c = std::to_string(i / nb);
            d.name += "#" + c;
            d.description += " copy" + c;
        }
        docs.push_back(std::move(d));
    }
    ak::tool_retriever<> r(std::move(docs));
    std::unordered_map<std::string, std::size_t> pos;
    for (std::size_t i = 0; i < nb; ++i) pos.emplace(base[i].name, i);
    // The training pairs whose query has a text and whose gold tools are in the corpus.
    std::vector<std::pair<const std::string*, std::vector<std::size_t>>> pairs;
    if (a.scale_examples > 0) {
        const auto train = read_qrels(a.examples);
        for (const auto& qid : train.order) {
            auto t = qtext.find(qid);
            if (t == qtext.end()) continue;
            std::vector<std::size_t> gold;
            for (const auto& [doc, sc] : train.rel.at(qid))
                if (auto p = pos.find(doc); p != pos.end()) gold.push_back(p->second);
            if (!gold.empty()) pairs.emplace_back(&t->second, std::move(gold));
        }
        if (pairs.empty()) usage("--scale: no --examples query has a text and a gold tool in the corpus");
    }
    const std::size_t copies = std::max<std::size_t>(1, a.scale_tools / nb);
    std::uint64_t state = 20251125;
    auto next = [&state] {
        state = state * 6364136223846793005ULL + 1442695040888963407ULL;
        return state >> 33;
    };
    std::size_t attached = 0;
    for (std::size_t e = 0; e < a.scale_examples; ++e) {
        const auto& [text, gold] = pairs[next() % pairs.size()];
        const std::size_t copy = next() % copies;
        const std::string tagged = *text + " ex" + std::to_string(next() % 5000);
        for (const auto g : gold)
            if (copy * nb + g < a.scale_tools && r.add_example(r.doc(copy * nb + g).name, tagged)) ++attached;
    }
    const auto t0 = std::chrono::steady_clock::now();
    r.rebuild();
    const auto t1 = std::chrono::steady_clock::now();
    const std::size_t peak = peak_rss_kb();
    std::vector<double> lat;
    for (const auto& qid : read_qrels(a.qrels).order) {
        auto t = qtext.find(qid);
        if (t == qtext.end()) continue;
        const auto q0 = std::chrono::steady_clock::now();
        static_cast<void>(r.search(t->second, a.depth));
        const auto q1 = std::chrono::steady_clock::now();
        lat.push_back(std::chrono::duration<double, std::micro>(q1 - q0).count());
    }
    if (lat.empty()) {
        std::fprintf(stderr, "agentkit-route-eval: no test query has a text in %s\n", a.queries.c_str());
        return 1;
    }
    std::sort(lat.begin(), lat.end());
    auto pct = [&lat](double p) { return percentile(lat, p); };
    std::printf("scale: tools %zu | example texts %zu (%zu tool-example pairs) | build %.1f ms | index memory %zu bytes | "
                "peak RSS %zu kB\n",
                r.size(), r.index().distinct_examples(), attached,
                std::chrono::duration<double, std::milli>(t1 - t0).count(), r.memory_bytes(), peak);
    std::printf("latency  p50 %.1f us  p99 %.1f us  max %.1f us | queries %zu\n", pct(0.50), pct(0.99), lat.back(),
                lat.size());
    return 0;
}

}  // namespace

int main(int argc, char** argv) {
    const args_t a = parse_args(argc, argv);
    std::vector<ak::tool_doc> docs;
    for (const auto& j : read_jsonl(a.corpus)) {
        ak::tool_doc d;
        d.name = str_field(j, "_id");
        if (d.name.empty()) continue;
        const std::string title = str_field(j, "title");
        d.description = str_field(j, "text");
        if (!title.empty() && title != d.name) d.description = title + ". " + d.description;
        if (auto m = j.find("metadata"); m != j.end() && m->is_object()) {
            // Optional tool schema in metadata.parameters (JSON Schema): index its arguments.
            if (auto p = m->find("parameters"); p != m->end()) {
                ak::tool_info info;
                info.input_schema = *p;
                auto extra = ak::tool_doc_from(info);
                d.arg_names = std::move(extra.arg_names);
                d.arg_descriptions = std::move(extra.arg_descriptions);
            }
        }
        docs.push_back(std::move(d));
    }
    std::unordered_map<std::string, std::string> qtext;
    for (const auto& j : read_jsonl(a.queries)) qtext[str_field(j, "_id")] = str_field(j, "text");

    if (a.scale_tools > 0) return run_scale(docs, a, qtext);
    ak::retriever_options o;
    o.fusion = a.fusion == "rrf" ? ak::fusion_kind::rrf : ak::fusion_kind::weighted;
    o.dense_weight = a.dense_weight;
    o.bm25.related_weight = a.related_weight;
    if (a.hybrid)
        return run_eval(ak::tool_retriever<ak::hashed_ngram_embedder>(std::move(docs), o, ak::hashed_ngram_embedder(a.dim)),
                        a, qtext);
    return run_eval(ak::tool_retriever<>(std::move(docs), o), a, qtext);
}
