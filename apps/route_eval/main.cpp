// agentkit-route-eval — evaluate the retrieval router on a BEIR-layout tool corpus.
//
//   agentkit-route-eval --corpus corpus.jsonl --queries queries.jsonl --qrels qrels/test.tsv
//                       [--examples qrels/train.tsv] [--run run.trec] [--hybrid]
//                       [--fusion weighted|rrf] [--dense-weight 0.35] [--dim 256] [--tag NAME]
//
// corpus.jsonl: {"_id","title","text"} per tool (title is the tool name when present, text its
// description). queries.jsonl: {"_id","text"}. qrels: "query-id corpus-id score" with a header
// row. --examples attaches the texts of those queries to their gold tools as usage examples
// before the test queries run (learning from usage). Prints Recall@k, NDCG@k and COMP@k
// (share of queries whose gold tools are all in the top k) for k = 1, 3, 5, 10, and the
// query latency p50/p99. --run writes a TREC run file: "qid Q0 docid rank score tag".
#include <agentkit/agentkit.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <vector>

namespace ak = agentkit;

namespace {

struct args_t {
    std::string corpus, queries, qrels, run, examples, tag = "agentkit", fusion = "weighted";
    bool hybrid = false;
    float dense_weight = 0.35F;
    std::size_t dim = 256;
    std::size_t depth = 10;
};

[[noreturn]] void usage(const char* why) {
    std::fprintf(stderr,
                 "agentkit-route-eval: %s\n"
                 "usage: agentkit-route-eval --corpus corpus.jsonl --queries queries.jsonl --qrels test.tsv\n"
                 "       [--examples train.tsv] [--run run.trec] [--hybrid] [--fusion weighted|rrf]\n"
                 "       [--dense-weight W] [--dim N] [--depth N] [--tag NAME]\n",
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
        else if (k == "--dense-weight") a.dense_weight = parse_weight(k, value());
        else if (k == "--dim") a.dim = parse_count(k, value(), 1, 65536);
        else if (k == "--depth") a.depth = parse_count(k, value(), 1, 1000000);
        else if (k == "-h" || k == "--help") usage("help");
        else usage(("unknown option " + k).c_str());
    }
    if (a.corpus.empty() || a.queries.empty() || a.qrels.empty()) usage("--corpus, --queries and --qrels are required");
    if (a.fusion != "weighted" && a.fusion != "rrf") usage("--fusion must be weighted or rrf");
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

template <class Retriever>
int evaluate(Retriever& r, const args_t& a, const std::unordered_map<std::string, std::string>& qtext,
             const qrels_t& test, std::size_t example_count, double build_ms) {
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
    auto pct = [&](double p) {
        const auto i = static_cast<std::size_t>(std::ceil(p * static_cast<double>(lat.size()))) - 1;
        return lat[std::min(i, lat.size() - 1)];
    };
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

    ak::retriever_options o;
    o.fusion = a.fusion == "rrf" ? ak::fusion_kind::rrf : ak::fusion_kind::weighted;
    o.dense_weight = a.dense_weight;
    if (a.hybrid)
        return run_eval(ak::tool_retriever<ak::hashed_ngram_embedder>(std::move(docs), o, ak::hashed_ngram_embedder(a.dim)),
                        a, qtext);
    return run_eval(ak::tool_retriever<>(std::move(docs), o), a, qtext);
}
