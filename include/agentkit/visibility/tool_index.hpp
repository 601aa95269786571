// agentkit/visibility/tool_index.hpp — a BM25F index over tool descriptions.
//
//   auto idx = agentkit::tool_index::build(agentkit::tool_docs_from(box.infos()));
//   for (auto& hit : idx->search("take a picture of the page", 5)) ... hit.doc, hit.score
//
// Fields (each with its own weight and length normalisation): the tool name split into words
// (snake/camel, plus compound segmentation against the corpus vocabulary), the description,
// argument names, argument descriptions, and example requests (host-declared input examples
// and requests learned from successful calls) as a field of their own. Scoring is BM25F: the
// per-field term frequencies are length-normalised, weighted and summed before one
// saturation, times the term's IDF. Every posting's contribution is precomputed at build
// time, so a query is a hash lookup per term and a sum over postings.
//
// An index is immutable once built: share it (std::shared_ptr<const tool_index>) and query it
// from any number of threads without locks. Learning builds a new index.
#pragma once

#include <agentkit/core/json.hpp>
#include <agentkit/tools/tool.hpp>
#include <agentkit/visibility/analyzer.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

namespace agentkit {

/// What the retrieval index knows about one tool.
struct tool_doc {
    std::string name;
    std::string description;
    std::vector<std::string> arg_names;
    std::vector<std::string> arg_descriptions;
    std::vector<std::string> examples;  ///< example requests (declared or learned)
};

namespace detail {
inline void collect_schema_args(const json& schema, tool_doc& d, int depth) {
    if (depth > 4 || !schema.is_object()) return;
    if (auto p = schema.find("properties"); p != schema.end() && p->is_object()) {
        for (auto it = p->begin(); it != p->end(); ++it) {
            d.arg_names.push_back(it.key());
            if (it->is_object()) {
                if (auto ds = it->find("description"); ds != it->end() && ds->is_string())
                    d.arg_descriptions.push_back(ds->get<std::string>());
                collect_schema_args(*it, d, depth + 1);
            }
        }
    }
    if (auto items = schema.find("items"); items != schema.end()) collect_schema_args(*items, d, depth + 1);
    for (const char* key : {"anyOf", "oneOf", "allOf"})
        if (auto a = schema.find(key); a != schema.end() && a->is_array())
            for (const auto& s : *a) collect_schema_args(s, d, depth + 1);
}
}  // namespace detail

/// A tool_doc from a tool_info: argument names and descriptions come from its input schema
/// (nested objects and arrays included).
[[nodiscard]] inline tool_doc tool_doc_from(const tool_info& t) {
    tool_doc d;
    d.name = t.name;
    d.description = t.title.empty() ? t.description : t.title + ". " + t.description;
    detail::collect_schema_args(t.input_schema, d, 0);
    d.examples = t.examples;
    return d;
}

[[nodiscard]] inline std::vector<tool_doc> tool_docs_from(const std::vector<tool_info>& tools) {
    std::vector<tool_doc> out;
    out.reserve(tools.size());
    for (const auto& t : tools) out.push_back(tool_doc_from(t));
    return out;
}

/// The fields of a tool_doc, in index order.
enum class tool_field : std::uint8_t { name = 0, description, arg_names, arg_descriptions, examples };
inline constexpr std::size_t tool_field_count = 5;

/// BM25F parameters. The defaults are hand-set for tool catalogues (short names weigh most,
/// descriptions next, argument text least; long example fields normalised hardest); they were
/// not fitted to any evaluation split.
struct bm25f_params {
    float k1 = 1.4F;
    /// Field weights: name, description, argument names, argument descriptions, examples.
    std::array<float, tool_field_count> weight{3.0F, 1.5F, 0.8F, 0.6F, 1.0F};
    /// Length normalisation per field (0: none, 1: full).
    std::array<float, tool_field_count> b{0.3F, 0.6F, 0.5F, 0.7F, 0.75F};
    /// Examples are capped per tool (most recent kept) so a chatty history cannot swamp a tool.
    std::size_t max_examples_per_tool = 512;
    /// Segment separator-less compound names ("airqualityforecast") against the vocabulary.
    bool segment_names = true;
    text_analyzer analyzer{};
};

/// One ranked result: the document's index in build order and its score.
struct search_hit {
    std::uint32_t doc = 0;
    float score = 0;
};

class tool_index {
public:
    /// Build an index over `docs` (the order of `docs` is the doc numbering).
    [[nodiscard]] static std::shared_ptr<const tool_index> build(std::vector<tool_doc> docs, bm25f_params p = {}) {
        auto idx = std::shared_ptr<tool_index>(new tool_index());
        idx->construct(std::move(docs), std::move(p));
        return idx;
    }

    [[nodiscard]] std::size_t size() const noexcept { return docs_.size(); }
    [[nodiscard]] const tool_doc& doc(std::size_t i) const { return docs_[i]; }
    [[nodiscard]] const std::vector<tool_doc>& docs() const noexcept { return docs_; }
    [[nodiscard]] const bm25f_params& params() const noexcept { return params_; }
    [[nodiscard]] std::size_t term_count() const noexcept { return terms_.size(); }

    /// The doc number of a tool name, or -1.
    [[nodiscard]] std::ptrdiff_t find(std::string_view name) const {
        auto it = by_name_.find(std::string(name));
        return it == by_name_.end() ? -1 : static_cast<std::ptrdiff_t>(it->second);
    }

    /// The top `k` documents for `query`, best first (ties broken by doc order). Thread-safe.
    [[nodiscard]] std::vector<search_hit> search(std::string_view query, std::size_t k) const {
        std::vector<float> acc;
        std::vector<std::uint32_t> touched;
        return search(query, k, acc, touched);
    }

    /// As search(), reusing caller-owned scratch buffers (no allocation once they are sized).
    [[nodiscard]] std::vector<search_hit> search(std::string_view query, std::size_t k, std::vector<float>& acc,
                                                 std::vector<std::uint32_t>& touched) const {
        std::vector<search_hit> out;
        if (k == 0 || docs_.empty()) return out;
        if (acc.size() != docs_.size()) acc.assign(docs_.size(), 0.0F);
        touched.clear();
        score_into(query, acc, touched, 1.0F);
        return take_top(acc, touched, k);
    }

    /// Add `scale` × the BM25F score of every matching document to `acc` (sized size(),
    /// zero where untouched), recording newly touched docs. For fusion with other scorers.
    void score_into(std::string_view query, std::vector<float>& acc, std::vector<std::uint32_t>& touched,
                    float scale) const {
        // Query terms with multiplicity (a repeated word counts a little more, not linearly).
        qterms_scratch q;
        params_.analyzer.for_each_word(query, [&](std::string_view w) {
            auto t = params_.analyzer.term(w);
            if (t.empty()) return;
            auto it = terms_.find(t);
            if (it == terms_.end()) return;
            q.add(it->second);
        });
        for (std::size_t i = 0; i < q.n; ++i) {
            const auto& pl = postings_[q.ids[i]];
            const float qw = scale * (q.counts[i] == 1 ? 1.0F : 1.0F + 0.5F * std::log(static_cast<float>(q.counts[i])));
            for (const auto& p : pl) {
                if (acc[p.doc] == 0.0F) touched.push_back(p.doc);
                acc[p.doc] += qw * p.weight;
                if (acc[p.doc] == 0.0F) acc[p.doc] = 1e-30F;  // keep "touched" distinguishable from 0
            }
        }
    }

    /// Select the top `k` from an accumulator filled by score_into (and reset it to zero).
    [[nodiscard]] static std::vector<search_hit> take_top(std::vector<float>& acc, std::vector<std::uint32_t>& touched,
                                                          std::size_t k) {
        std::vector<search_hit> hits;
        hits.reserve(touched.size());
        for (auto d : touched) {
            hits.push_back({d, acc[d]});
            acc[d] = 0.0F;
        }
        touched.clear();
        auto better = [](const search_hit& a, const search_hit& b) {
            return a.score != b.score ? a.score > b.score : a.doc < b.doc;
        };
        if (hits.size() > k) {
            std::nth_element(hits.begin(), hits.begin() + static_cast<std::ptrdiff_t>(k), hits.end(), better);
            hits.resize(k);
        }
        std::sort(hits.begin(), hits.end(), better);
        return hits;
    }

    /// Bytes held by the index (postings, term table, stored docs), an estimate from
    /// container capacities.
    [[nodiscard]] std::size_t memory_bytes() const {
        std::size_t b = sizeof(*this);
        for (const auto& pl : postings_) b += sizeof(pl) + pl.capacity() * sizeof(posting);
        for (const auto& [t, id] : terms_) b += t.capacity() + sizeof(std::string) + sizeof(id) + 2 * sizeof(void*);
        b += terms_.bucket_count() * sizeof(void*);
        for (const auto& d : docs_) b += doc_bytes(d);
        for (const auto& [t, id] : by_name_) b += t.capacity() + sizeof(std::string) + sizeof(id) + 2 * sizeof(void*);
        b += by_name_.bucket_count() * sizeof(void*);
        for (const auto& v : name_terms_) {
            b += sizeof(v);
            for (const auto& t : v) b += sizeof(t) + t.capacity();
        }
        return b;
    }

    /// Bytes of the search structures alone (postings and term table), without stored docs.
    [[nodiscard]] std::size_t postings_bytes() const {
        std::size_t b = 0;
        for (const auto& pl : postings_) b += sizeof(pl) + pl.capacity() * sizeof(posting);
        for (const auto& [t, id] : terms_) b += t.capacity() + sizeof(std::string) + sizeof(id) + 2 * sizeof(void*);
        b += terms_.bucket_count() * sizeof(void*);
        return b;
    }

    /// The terms document `i` is indexed under in one field (for tests and debugging).
    [[nodiscard]] std::vector<std::string> field_terms(std::size_t i, tool_field f) const {
        if (i >= docs_.size()) return {};
        if (f == tool_field::name) return name_terms_[i];
        std::vector<std::string> out;
        analyze_field(docs_[i], f, out);
        return out;
    }

private:
    struct posting {
        std::uint32_t doc;
        float weight;  // idf × saturated BM25F term frequency
    };
    struct qterms_scratch {
        static constexpr std::size_t cap = 64;
        std::array<std::uint32_t, cap> ids{};
        std::array<std::uint32_t, cap> counts{};
        std::size_t n = 0;
        void add(std::uint32_t id) {
            for (std::size_t i = 0; i < n; ++i)
                if (ids[i] == id) {
                    ++counts[i];
                    return;
                }
            if (n < cap) {
                ids[n] = id;
                counts[n] = 1;
                ++n;
            }
        }
    };

    tool_index() = default;

    static std::size_t doc_bytes(const tool_doc& d) {
        std::size_t b = sizeof(d) + d.name.capacity() + d.description.capacity();
        for (const auto& s : d.arg_names) b += sizeof(s) + s.capacity();
        for (const auto& s : d.arg_descriptions) b += sizeof(s) + s.capacity();
        for (const auto& s : d.examples) b += sizeof(s) + s.capacity();
        return b;
    }

    void analyze_field(const tool_doc& d, tool_field f, std::vector<std::string>& out) const {
        const auto& a = params_.analyzer;
        switch (f) {
            case tool_field::name:
                a.for_each_word(d.name, [&](std::string_view w) {
                    if (auto t = a.term(w); !t.empty()) out.push_back(std::move(t));
                    if (params_.segment_names && w.size() >= 6 && vocab_.count(std::string(w)) == 0)
                        for (const auto& piece : segment_compound(w, vocab_))
                            if (auto t = a.term(piece); !t.empty()) out.push_back(std::move(t));
                });
                break;
            case tool_field::description: a.append_terms(d.description, out); break;
            case tool_field::arg_names:
                for (const auto& s : d.arg_names) a.append_terms(s, out);
                break;
            case tool_field::arg_descriptions:
                for (const auto& s : d.arg_descriptions) a.append_terms(s, out);
                break;
            case tool_field::examples: {
                const std::size_t cap = params_.max_examples_per_tool;
                const std::size_t first = d.examples.size() > cap ? d.examples.size() - cap : 0;
                for (std::size_t i = first; i < d.examples.size(); ++i) a.append_terms(d.examples[i], out);
                break;
            }
        }
    }

    void construct(std::vector<tool_doc> docs, bm25f_params p) {
        docs_ = std::move(docs);
        params_ = std::move(p);
        const std::size_t n = docs_.size();
        for (std::size_t i = 0; i < n; ++i) by_name_.emplace(docs_[i].name, static_cast<std::uint32_t>(i));

        // Vocabulary for compound-name segmentation: the folded words of every other field.
        if (params_.segment_names) {
            for (const auto& d : docs_) {
                auto add = [&](std::string_view w) {
                    if (w.size() >= 3) vocab_.emplace(w);
                };
                params_.analyzer.for_each_word(d.description, add);
                for (const auto& s : d.arg_names) params_.analyzer.for_each_word(s, add);
                for (const auto& s : d.examples) params_.analyzer.for_each_word(s, add);
            }
        }

        // Per-field term frequencies: (term id, doc, field) -> tf.
        struct occ {
            std::uint32_t term;
            std::uint32_t doc;
            std::array<float, tool_field_count> tf;
        };
        std::vector<std::array<float, tool_field_count>> lengths(n);
        std::array<double, tool_field_count> total{};
        std::vector<occ> occs;
        std::vector<std::string> buf;
        std::unordered_map<std::uint32_t, std::size_t> doc_terms;  // term -> index into occs, per doc
        for (std::size_t i = 0; i < n; ++i) {
            doc_terms.clear();
            for (std::size_t f = 0; f < tool_field_count; ++f) {
                buf.clear();
                analyze_field(docs_[i], static_cast<tool_field>(f), buf);
                if (f == 0) name_terms_.push_back(buf);
                lengths[i][f] = static_cast<float>(buf.size());
                total[f] += static_cast<double>(buf.size());
                for (auto& t : buf) {
                    auto [it, inserted] = terms_.try_emplace(std::move(t), static_cast<std::uint32_t>(terms_.size()));
                    const std::uint32_t id = it->second;
                    auto [dt, fresh] = doc_terms.try_emplace(id, occs.size());
                    if (fresh) occs.push_back({id, static_cast<std::uint32_t>(i), {}});
                    occs[dt->second].tf[f] += 1.0F;
                }
            }
        }
        // Average field lengths over the documents that have the field: a sparse field (a few
        // tools with examples) must not make its few holders look abnormally long.
        std::array<std::size_t, tool_field_count> holders{};
        for (const auto& l : lengths)
            for (std::size_t f = 0; f < tool_field_count; ++f) holders[f] += l[f] > 0 ? 1U : 0U;
        std::array<float, tool_field_count> avg{};
        for (std::size_t f = 0; f < tool_field_count; ++f)
            avg[f] = holders[f] == 0 ? 1.0F
                                     : std::max(1.0F, static_cast<float>(total[f] / static_cast<double>(holders[f])));

        std::vector<std::uint32_t> df(terms_.size(), 0);
        for (const auto& o : occs) ++df[o.term];
        postings_.assign(terms_.size(), {});
        for (std::size_t t = 0; t < df.size(); ++t) postings_[t].reserve(df[t]);
        const auto N = static_cast<float>(n);
        for (const auto& o : occs) {
            float tfw = 0;
            for (std::size_t f = 0; f < tool_field_count; ++f) {
                if (o.tf[f] == 0.0F) continue;
                const float norm = 1.0F - params_.b[f] + params_.b[f] * lengths[o.doc][f] / avg[f];
                tfw += params_.weight[f] * o.tf[f] / std::max(norm, 1e-3F);
            }
            const auto d = static_cast<float>(df[o.term]);
            const float idf = std::log(1.0F + (N - d + 0.5F) / (d + 0.5F));
            const float w = idf * tfw / (params_.k1 + tfw);
            if (w > 0.0F) postings_[o.term].push_back({o.doc, w});
        }
        vocab_.clear();  // only needed while analysing names at build time
        vocab_.rehash(0);
    }

    std::vector<tool_doc> docs_;
    bm25f_params params_;
    std::unordered_map<std::string, std::uint32_t> terms_;
    std::vector<std::vector<posting>> postings_;
    std::unordered_map<std::string, std::uint32_t> by_name_;
    std::unordered_set<std::string> vocab_;
    std::vector<std::vector<std::string>> name_terms_;
};

}  // namespace agentkit
