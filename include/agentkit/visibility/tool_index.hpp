// agentkit/visibility/tool_index.hpp — the lexical tool index: what tools say about themselves,
// fused with what their usage examples say.
//
//   auto idx = agentkit::tool_index::build(agentkit::tool_docs_from(box.infos()));
//   for (auto& hit : idx->search("take a picture of the page", 5)) ... hit.doc, hit.score
//
// A query is scored by three rankers whose scores are each divided by their best score for that
// query and then summed with weights:
//
//   S(t) = wd·D(t)/max D + wk·K(t)/max K + wc·C(t)/max C
//
//   D  BM25 (k1 0.9, b 0.4) over one document per tool: its name (with compound names segmented),
//      its description and every one of its example requests appended. This is the plain "append
//      the examples" baseline.
//   K  the example vote. Every distinct example text is a document of its own, labelled with the
//      tools it was attached to, analysed with stop words kept plus adjacent-word bigrams (a
//      request's phrasing — "I am looking for", "convert this" — says much about its tool). The
//      query's 200 best examples (BM25, k1 1.2, b 0.75) vote: K(t) is the sum of the 3 best
//      scores among the examples labelled t.
//   C  BM25F over the tool's own fields (name words with compound segmentation, description,
//      argument names and argument descriptions), with no examples: what the tool says.
//
// A query word that no tool text (nor example) uses is a word gap: its related words from the
// lexicon (lexicon.hpp; "plus" -> "sum", "forget" -> "delete") that the index has join the query
// for D and C with weight related_weight (0.4) instead of 1, and so do the words for what its
// literal values are (value_kinds(): a URL → url, page, website; "notes.txt" → file, path).
//
// The trust in the vote grows with the examples per tool ē (examples attached / tools):
// wk = 0.3 + 0.4·min(1, ē/50), wd = 1 − wk, wc = 0.15. With no examples, K is empty and the
// ranking is 0.7·D/max + 0.15·C/max. These settings were chosen on validation splits carved from
// training queries (MetaTool, ToolLens, Gorilla TorchHub; bench/README.md), never on a test split.
// Every example counts: there is no per-tool cap by recency (a cap dropped most of the evidence
// for exactly the tools that are used most).
//
// An example votes only if it shares a content word with the query (alone, or in a bigram): one
// that shares nothing but "the" and "is" is no evidence. The vote is pruned (a term-at-a-time
// MaxScore): the query's lists are processed from the highest possible contribution down; once
// the contributions still to come cannot lift an example that has not been seen into the best
// 200, or once only stop-word lists are left, the remaining (frequent, low-weight) lists only
// refine the examples already in the running, by skipping through their postings. At most
// 4·200 examples stay in the running (the best partial scores) when a long list comes next, so
// the cost per query is bounded; below that the best 200 are exact. Every posting's weight is
// precomputed at build time.
//
// An index is immutable once built: share it (std::shared_ptr<const tool_index>) and query it
// from any number of threads without locks. Learning builds a new index.
#pragma once

#include <agentkit/visibility/tool_doc.hpp>
#include <agentkit/visibility/analyzer.hpp>
#include <agentkit/visibility/lexicon.hpp>

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

namespace agentkit {

/// The fields of a tool_doc, in index order.
enum class tool_field : std::uint8_t { name = 0, description, arg_names, arg_descriptions, examples };
/// The number of tool_field values.
inline constexpr std::size_t tool_field_count = 5;

/// How the index learns from example requests and fuses its three rankers (see the top of
/// this header). The defaults are the ones reported in bench/README.md.
struct example_learning_params {
    float doc_k1 = 0.9F;   ///< D: BM25 over name + description + all examples
    float doc_b = 0.4F;  ///< D: BM25 length normalisation
    float example_k1 = 1.2F;  ///< K: BM25 over single example texts
    float example_b = 0.75F;  ///< K: BM25 length normalisation
    bool keep_stop_words = true;  ///< K indexes stop words ("i am looking for" is a phrasing)
    bool bigrams = true;          ///< K indexes adjacent-word bigrams
    std::size_t depth = 200;      ///< K: the best examples that vote
    std::size_t votes = 3;        ///< K: a tool's score sums its best `votes` examples
    float text_weight = 0.15F;    ///< wc, the weight of C
    /// wk, the weight of K, grows from vote_weight_min to vote_weight_max as the examples per
    /// tool grow to full_trust_examples; wd = 1 − wk.
    float vote_weight_min = 0.3F;
    float vote_weight_max = 0.7F;       ///< wk with full_trust_examples examples per tool or more
    float full_trust_examples = 50.0F;  ///< examples per tool at which wk reaches vote_weight_max
};

/// Index parameters. k1, weight and b are those of C, the BM25F ranker over the tool's own
/// fields (examples are not one of its fields unless weight[examples] > 0); `learning` sets D,
/// K and the fusion.
struct bm25f_params {
    float k1 = 1.2F;  ///< C: BM25F term-frequency saturation
    /// Field weights: name, description, argument names, argument descriptions, examples.
    std::array<float, tool_field_count> weight{3.0F, 1.0F, 0.5F, 0.4F, 0.0F};
    /// Length normalisation per field (0: none, 1: full).
    std::array<float, tool_field_count> b{0.75F, 0.75F, 0.5F, 0.7F, 0.75F};
    /// 0: every example is indexed. Otherwise at most this many per tool, spread evenly over its
    /// history (never only the most recent: old requests are as good evidence as new ones).
    std::size_t max_examples_per_tool = 0;
    /// Segment separator-less compound names ("airqualityforecast") against the vocabulary.
    bool segment_names = true;
    text_analyzer analyzer{};            ///< how the tool texts and queries are split into terms
    /// Related words (lexicon.hpp): a query word that no tool text uses brings its related terms
    /// into the query for D and C with related_weight (0 or a null lexicon: none).
    std::shared_ptr<const word_lexicon> lexicon = word_lexicon::general();
    float related_weight = 0.4F;  ///< the weight of a related term against the query's own (1)
    example_learning_params learning{};  ///< D, K and the fusion weights
};

/// One ranked result: the document's index in build order and its score.
struct search_hit {
    std::uint32_t doc = 0;  ///< the document's index in build order
    float score = 0;        ///< the fused score (higher is better)
};

class tool_index;

namespace detail {
/// One posting of a tool_index list: a document (tool or example) and its precomputed weight.
struct index_posting {
    std::uint32_t doc;
    float weight;
};
}  // namespace detail

/// Buffers for one query at a time, reused across queries (no allocation once sized). A
/// search_scratch may serve several indexes, one query at a time; search() without one uses
/// a per-thread scratch.
class search_scratch {
public:
    search_scratch() = default;

private:
    friend class tool_index;
    struct list_ref {
        const detail::index_posting* begin;
        const detail::index_posting* end;
        float bound;
        bool stop_only;
    };
    void fit(std::size_t n_tools, std::size_t n_examples) {
        if (d.size() < n_tools) {
            d.resize(n_tools, 0.0F);
            k.resize(n_tools, 0.0F);
            c.resize(n_tools, 0.0F);
            votes.resize(n_tools, 0);
        }
        if (ex.size() < n_examples) {
            ex.resize(n_examples, 0.0F);
            in_running.resize((n_examples + 63) / 64, 0);
        }
    }
    std::vector<float> d, k, c;           // per tool: the three rankers' scores
    std::vector<std::uint8_t> votes;      // per tool: 1 + examples that voted (0: untouched)
    std::vector<std::uint32_t> tools;     // tools touched by any ranker
    std::vector<float> ex;                // per example: its score
    std::vector<std::uint32_t> ex_touched, candidates;
    std::vector<std::uint64_t> in_running;  // per example: a bit while it is a candidate
    std::vector<search_hit> best;
    std::vector<list_ref> lists;
    std::vector<std::uint32_t> dc_terms, k_terms, k_bigrams;
    std::vector<float> dc_weights;  // per dc_terms entry: 1, or related_weight for a related term
    std::vector<const std::vector<std::uint32_t>*> related_of;  // the query words' related terms
};

/// The immutable lexical index of tools and their examples (see the file comment); build() makes one.
class tool_index {
public:
    /// Build an index over `docs` (the order of `docs` is the doc numbering).
    [[nodiscard]] static std::shared_ptr<const tool_index> build(std::vector<tool_doc> docs, bm25f_params p = {}) {
        auto idx = std::shared_ptr<tool_index>(new tool_index());
        idx->construct(std::move(docs), std::move(p));
        return idx;
    }

    /// The number of tools.
    [[nodiscard]] std::size_t size() const noexcept { return docs_.size(); }
    /// A tool's name, description and arguments. Its examples are not kept as texts (they are
    /// in the postings; a tool_retriever keeps the texts): doc(i).examples is empty.
    [[nodiscard]] const tool_doc& doc(std::size_t i) const { return docs_[i]; }
    /// Every tool's document, in build order (without example texts).
    [[nodiscard]] const std::vector<tool_doc>& docs() const noexcept { return docs_; }
    /// The parameters it was built with.
    [[nodiscard]] const bm25f_params& params() const noexcept { return params_; }
    /// The number of distinct terms indexed.
    [[nodiscard]] std::size_t term_count() const noexcept { return terms_.size(); }
    /// Example requests indexed (one per tool they are attached to) and distinct example texts.
    [[nodiscard]] std::size_t example_count() const noexcept { return example_pairs_; }
    /// The number of distinct example texts.
    [[nodiscard]] std::size_t distinct_examples() const noexcept { return label_offset_.size() - 1; }
    /// The fusion weights in effect: D (tool text + examples), K (example vote), C (tool text).
    [[nodiscard]] std::array<float, 3> fusion_weights() const noexcept { return {wd_, wk_, wc_}; }

    /// The doc number of a tool name, or -1.
    [[nodiscard]] std::ptrdiff_t find(std::string_view name) const {
        auto it = by_name_.find(std::string(name));
        return it == by_name_.end() ? -1 : static_cast<std::ptrdiff_t>(it->second);
    }

    /// The top `k` documents for `query`, best first (ties broken by doc order). Thread-safe.
    [[nodiscard]] std::vector<search_hit> search(std::string_view query, std::size_t k) const {
        thread_local search_scratch scratch;
        return search(query, k, scratch);
    }

    /// As search(), with caller-owned buffers.
    [[nodiscard]] std::vector<search_hit> search(std::string_view query, std::size_t k, search_scratch& s) const {
        std::vector<search_hit> out;
        if (k == 0 || docs_.empty()) return out;
        score_all(query, s, out);
        select_top(out, k);
        return out;
    }

    /// The fused score of every tool any ranker touched, unordered (for fusion with other
    /// scorers). Thread-safe.
    void score_all(std::string_view query, search_scratch& s, std::vector<search_hit>& out) const {
        out.clear();
        if (docs_.empty()) return;
        s.fit(docs_.size(), distinct_examples());
        analyze_query(query, s);
        const float dmax = accumulate_tools(s.dc_terms, s.dc_weights, doc_table_, s, s.d);
        const float cmax = accumulate_tools(s.dc_terms, s.dc_weights, text_table_, s, s.c);
        const float kmax = vote(s);
        const float wd = dmax > 0 ? wd_ / dmax : 0.0F;
        const float wc = cmax > 0 ? wc_ / cmax : 0.0F;
        const float wk = kmax > 0 ? wk_ / kmax : 0.0F;
        out.reserve(s.tools.size());
        for (const auto t : s.tools) {
            const float f = wd * s.d[t] + wk * s.k[t] + wc * s.c[t];
            if (f > 0) out.push_back({t, f});
            s.d[t] = s.k[t] = s.c[t] = 0.0F;
            s.votes[t] = 0;
        }
        s.tools.clear();
    }

    /// Add `scale` × the C score (BM25F over the tool's own fields) of every matching document to
    /// `acc` (sized size(), zero where untouched), recording newly touched docs.
    void score_into(std::string_view query, std::vector<float>& acc, std::vector<std::uint32_t>& touched,
                    float scale) const {
        params_.analyzer.for_each_word(query, [&](std::string_view w) {
            const auto t = params_.analyzer.term(w);
            if (t.empty()) return;
            const auto it = terms_.find(t);
            if (it == terms_.end()) return;
            for (const auto& p : text_table_.list(it->second)) {
                if (acc[p.doc] == 0.0F) touched.push_back(p.doc);
                acc[p.doc] += scale * p.weight;
                if (acc[p.doc] == 0.0F) acc[p.doc] = 1e-30F;  // keep "touched" distinguishable from 0
            }
        });
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
        select_top(hits, k);
        return hits;
    }

    /// Keep the best `k` hits, best first (ties broken by doc order).
    static void select_top(std::vector<search_hit>& hits, std::size_t k) {
        auto better = [](const search_hit& a, const search_hit& b) {
            return a.score != b.score ? a.score > b.score : a.doc < b.doc;
        };
        if (hits.size() > k) {
            std::nth_element(hits.begin(), hits.begin() + static_cast<std::ptrdiff_t>(k), hits.end(), better);
            hits.resize(k);
        }
        std::sort(hits.begin(), hits.end(), better);
    }

    /// Bytes held by the index (postings, term tables, labels, stored docs), an estimate from
    /// container capacities.
    [[nodiscard]] std::size_t memory_bytes() const {
        std::size_t b = sizeof(*this) + postings_bytes();
        for (const auto& d : docs_) b += doc_bytes(d);
        for (const auto& [t, id] : by_name_) b += t.capacity() + sizeof(std::string) + sizeof(id) + 2 * sizeof(void*);
        b += by_name_.bucket_count() * sizeof(void*);
        for (const auto& v : name_terms_) {
            b += sizeof(v);
            for (const auto& t : v) b += sizeof(t) + t.capacity();
        }
        return b;
    }

    /// Bytes of the search structures alone (postings, term tables, example labels), without
    /// stored docs.
    [[nodiscard]] std::size_t postings_bytes() const {
        std::size_t b = text_table_.bytes() + doc_table_.bytes() + example_table_.bytes() + bigram_table_.bytes();
        for (const auto& [t, id] : terms_) b += t.capacity() + sizeof(std::string) + sizeof(id) + 2 * sizeof(void*);
        b += terms_.bucket_count() * sizeof(void*);
        b += bigram_keys_.capacity() * sizeof(std::uint64_t);
        b += (label_offset_.capacity() + labels_.capacity()) * sizeof(std::uint32_t);
        for (const auto& [t, ids] : related_)
            b += t.capacity() + sizeof(t) + sizeof(ids) + ids.capacity() * sizeof(std::uint32_t) + 2 * sizeof(void*);
        return b;
    }

    /// The terms document `i` is indexed under in one field of C (for tests and debugging;
    /// empty for the examples, whose texts the index does not keep).
    [[nodiscard]] std::vector<std::string> field_terms(std::size_t i, tool_field f) const {
        if (i >= docs_.size()) return {};
        if (f == tool_field::name) return name_terms_[i];
        std::vector<std::string> out;
        analyze_field(docs_[i], f, out);
        return out;
    }

private:
    using posting = detail::index_posting;  // weight: idf × saturated term frequency
    // Posting lists in one array, one list per id, in doc order; bound[id] is the list's
    // largest weight.
    struct posting_table {
        std::vector<std::uint32_t> offset{0};
        std::vector<posting> postings;
        std::vector<float> bound;
        [[nodiscard]] std::span<const posting> list(std::uint32_t id) const {
            if (static_cast<std::size_t>(id) + 1 >= offset.size()) return {};
            return {postings.data() + offset[id], postings.data() + offset[id + 1]};
        }
        [[nodiscard]] std::size_t bytes() const {
            return offset.capacity() * sizeof(std::uint32_t) + postings.capacity() * sizeof(posting) +
                   bound.capacity() * sizeof(float);
        }
    };
    // One (term, doc) pair with its frequency, later its weight; collected in doc order.
    struct occurrence {
        std::uint32_t term;
        std::uint32_t doc;
        float value;
    };
    static constexpr std::uint32_t no_term = 0xFFFFFFFFU;
    static constexpr std::uint32_t stop_only_bit = 0x80000000U;

    tool_index() = default;

    static float idf(float n, float df) { return std::log(1.0F + (n - df + 0.5F) / (df + 0.5F)); }

    // Counting sort of doc-ordered occurrences by term: each list stays in doc order.
    static posting_table make_table(std::size_t ids, const std::vector<occurrence>& occ) {
        posting_table t;
        t.offset.assign(ids + 1, 0);
        for (const auto& o : occ) ++t.offset[o.term + 1];
        for (std::size_t i = 0; i < ids; ++i) t.offset[i + 1] += t.offset[i];
        t.postings.resize(occ.size());
        t.bound.assign(ids, 0.0F);
        std::vector<std::uint32_t> fill(t.offset.begin(), t.offset.end() - 1);
        for (const auto& o : occ) {
            t.postings[fill[o.term]++] = {o.doc, o.value};
            t.bound[o.term] = std::max(t.bound[o.term], o.value);
        }
        return t;
    }

    // Term frequencies of one document's term ids (sorted in place) appended as occurrences.
    static void count_terms(std::vector<std::uint32_t>& ids, std::uint32_t doc, std::vector<occurrence>& occ) {
        std::sort(ids.begin(), ids.end());
        for (std::size_t i = 0; i < ids.size();) {
            std::size_t j = i;
            while (j < ids.size() && ids[j] == ids[i]) ++j;
            occ.push_back({ids[i], doc, static_cast<float>(j - i)});
            i = j;
        }
    }

    // BM25 weights in place: value holds tf; lengths per doc.
    static void bm25_weights(std::vector<occurrence>& occ, const std::vector<float>& length, std::size_t ids, float k1,
                             float b) {
        const auto n = static_cast<float>(length.size());
        double total = 0;
        for (float l : length) total += static_cast<double>(l);
        const float avg = std::max(1.0F, static_cast<float>(total / std::max(1.0, static_cast<double>(n))));
        std::vector<std::uint32_t> df(ids, 0);
        for (const auto& o : occ) ++df[o.term];
        for (auto& o : occ) {
            const float tf = o.value;
            const float norm = k1 * (1.0F - b + b * length[o.doc] / avg);
            o.value = idf(n, static_cast<float>(df[o.term])) * tf * (k1 + 1.0F) / (tf + norm);
        }
    }

    std::uint32_t intern(const std::string& t) {
        return terms_.try_emplace(t, static_cast<std::uint32_t>(terms_.size())).first->second;
    }
    [[nodiscard]] std::uint32_t lookup(const std::string& t) const {
        const auto it = terms_.find(t);
        return it == terms_.end() ? no_term : it->second;
    }
    [[nodiscard]] std::uint32_t bigram_id(std::uint32_t a, std::uint32_t b) const {
        const std::uint64_t key = (static_cast<std::uint64_t>(a) << 32) | b;
        const auto it = std::lower_bound(bigram_keys_.begin(), bigram_keys_.end(), key);
        return it == bigram_keys_.end() || *it != key ? no_term : static_cast<std::uint32_t>(it - bigram_keys_.begin());
    }

    // Visit every word of `text` as (term for D and C or "" when dropped, term for K or "", is
    // it a stop word), from one stemming per word.
    template <class F>
    void for_each_term(std::string_view text, F&& visit) const {
        const auto& a = params_.analyzer;
        const auto& o = a.settings();
        std::string stem;
        const std::string none;
        a.for_each_word(text, [&](std::string_view w) {
            if (w.size() < o.min_length) {
                visit(none, none, false);
                return;
            }
            const bool stop = is_stop_word(w);
            const std::string_view cut = w.substr(0, std::min(w.size(), o.max_length));
            stem = o.stem ? light_stem(cut) : std::string(cut);
            const bool dc = !(o.drop_stop_words && stop);
            const bool k = dc || params_.learning.keep_stop_words;
            visit(dc ? stem : none, k ? stem : none, stop);
        });
    }

    void analyze_query(std::string_view query, search_scratch& s) const {
        s.dc_terms.clear();
        s.k_terms.clear();
        s.k_bigrams.clear();
        std::uint32_t prev = no_term;
        const bool with_examples = distinct_examples() > 0;
        bool prev_stop = false;
        const bool expand = !related_.empty() && params_.related_weight > 0;
        std::size_t related_from = 0;  // s.related_of: the related-term lists of the query's words
        s.related_of.clear();
        for_each_term(query, [&](const std::string& dc, const std::string& k, bool stop) {
            if (!dc.empty()) {
                const auto id = lookup(dc);
                if (id != no_term) s.dc_terms.push_back(id);  // repeats count again
                // A word no tool uses brings in its related words that tools do use ("plus" ->
                // "sum"); a word the catalogue has is the user's and the tools' own, and stays alone.
                if (expand && id == no_term)
                    if (const auto r = related_.find(dc); r != related_.end()) s.related_of.push_back(&r->second);
            }
            if (!with_examples) return;
            // K ids carry stop_only_bit when made of stop words alone ("the", "i_am").
            const auto id = k.empty() ? no_term : lookup(k);
            if (id != no_term) s.k_terms.push_back(stop ? id | stop_only_bit : id);
            if (params_.learning.bigrams && prev != no_term && id != no_term) {
                const auto bi = bigram_id(prev, id);
                if (bi != no_term) s.k_bigrams.push_back(stop && prev_stop ? bi | stop_only_bit : bi);
            }
            if (!k.empty()) {  // a dropped word does not break a phrase; an unknown one does
                prev = id;
                prev_stop = stop;
            }
        });
        auto unique = [](std::vector<std::uint32_t>& v) {
            std::sort(v.begin(), v.end());
            v.erase(std::unique(v.begin(), v.end()), v.end());
        };
        unique(s.k_terms);
        unique(s.k_bigrams);
        s.dc_weights.assign(s.dc_terms.size(), 1.0F);
        if (expand)  // what the request's values are: "notes.txt" -> file, path
            for (const auto& w : value_kinds(query))
                if (const auto id = lookup(params_.analyzer.term(w));
                    id != no_term && std::find(s.dc_terms.begin(), s.dc_terms.end(), id) == s.dc_terms.end()) {
                    s.dc_terms.push_back(id);
                    s.dc_weights.push_back(params_.related_weight);
                }
        for (; related_from < s.related_of.size(); ++related_from)
            for (const auto r : *s.related_of[related_from]) {
                if (std::find(s.dc_terms.begin(), s.dc_terms.end(), r) != s.dc_terms.end()) continue;
                s.dc_terms.push_back(r);
                s.dc_weights.push_back(params_.related_weight);
            }
    }

    // Per lexicon term (analysed like the texts): the ids of its related terms that the index
    // has. A word the catalogue never uses still has its entry, so that it can lead to one it does.
    void build_related() {
        related_.clear();
        if (!params_.lexicon || params_.related_weight <= 0) return;
        std::vector<std::string> stems;
        for (const auto& group : params_.lexicon->groups()) {
            stems.clear();
            for (const auto& w : group)
                for_each_term(w, [&](const std::string& dc, const std::string&, bool) {
                    if (!dc.empty()) stems.push_back(dc);
                });
            std::sort(stems.begin(), stems.end());
            stems.erase(std::unique(stems.begin(), stems.end()), stems.end());
            for (const auto& a : stems)
                for (const auto& b : stems)
                    if (a != b)
                        if (const auto id = lookup(b); id != no_term) related_[a].push_back(id);
        }
        for (auto& [stem, ids] : related_) {
            std::sort(ids.begin(), ids.end());
            ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
        }
    }

    // Term-at-a-time accumulation of one per-tool table; returns the best score.
    static float accumulate_tools(const std::vector<std::uint32_t>& ids, const std::vector<float>& weights,
                                  const posting_table& table, search_scratch& s, std::vector<float>& acc) {
        float best = 0;
        for (std::size_t i = 0; i < ids.size(); ++i) {
            const float w = weights[i];
            for (const auto& p : table.list(ids[i])) {
                if (s.votes[p.doc] == 0) {
                    s.votes[p.doc] = 1;
                    s.tools.push_back(p.doc);
                }
                acc[p.doc] += w * p.weight;
            }
        }
        for (const auto t : s.tools) best = std::max(best, acc[t]);
        return best;
    }

    // First posting at or after `target` (postings in doc order; galloping search).
    static const posting* seek(const posting* p, const posting* end, std::uint32_t target) {
        if (p == end || p->doc >= target) return p;
        const auto n = static_cast<std::size_t>(end - p);
        std::size_t lo = 0;
        std::size_t hi = 1;
        while (hi < n && p[hi].doc < target) {
            lo = hi;
            hi *= 2;
        }
        hi = std::min(hi, n);
        return std::lower_bound(p + lo + 1, p + hi, target, [](const posting& x, std::uint32_t v) { return x.doc < v; });
    }

    // A lower bound of the depth-th largest partial score among `touched` (all in (0, top]):
    // the lower edge of the histogram bucket that holds it, over the first 16·depth of them
    // (the depth-th largest of a subset is no larger; the first touched met the strongest lists).
    static float depth_bound(const std::vector<float>& ex, const std::vector<std::uint32_t>& touched, float top,
                             std::size_t depth) {
        constexpr std::size_t buckets = 128;
        std::array<std::uint32_t, buckets> hist{};
        const float scale = static_cast<float>(buckets) / top;
        const std::size_t n = std::min(touched.size(), 16 * depth);
        for (std::size_t i = 0; i < n; ++i)
            ++hist[std::min(buckets - 1, static_cast<std::size_t>(ex[touched[i]] * scale))];
        std::size_t above = 0;
        for (std::size_t i = buckets; i-- > 0;) {
            above += hist[i];
            if (above >= depth) return static_cast<float>(i) / scale;
        }
        return 0.0F;
    }

    // K: score examples (pruned, exact for the best `depth`), let the best vote; returns max K.
    float vote(search_scratch& s) const {
        if (s.k_terms.empty() && s.k_bigrams.empty()) return 0.0F;
        const auto& L = params_.learning;
        const std::size_t depth = std::max<std::size_t>(L.depth, 1);
        s.lists.clear();
        auto add = [&](const posting_table& table, std::uint32_t tagged) {
            const std::uint32_t id = tagged & ~stop_only_bit;
            const auto l = table.list(id);
            if (!l.empty()) s.lists.push_back({l.data(), l.data() + l.size(), table.bound[id], (tagged & stop_only_bit) != 0});
        };
        for (const auto id : s.k_terms) add(example_table_, id);
        for (const auto id : s.k_bigrams) add(bigram_table_, id);
        // Lists with a content word first, each part by bound, highest first: an example must
        // share a content word with the query to be in the running ("the" alone is no evidence).
        auto len = [](const search_scratch::list_ref& r) { return r.end - r.begin; };
        std::sort(s.lists.begin(), s.lists.end(), [&](const auto& a, const auto& b) {
            if (a.stop_only != b.stop_only) return b.stop_only;
            return a.bound != b.bound ? a.bound > b.bound : len(a) < len(b);
        });
        if (s.lists.empty() || s.lists.front().stop_only) return 0.0F;
        // rest[i]: the most the lists after i can still add (in double, then a hair of slack).
        double rest_total = 0;
        for (const auto& l : s.lists) rest_total += static_cast<double>(l.bound);
        auto& ex = s.ex;
        auto& touched = s.ex_touched;
        auto& cands = s.candidates;
        auto& bits = s.in_running;
        touched.clear();
        cands.clear();
        // At most `cap` examples go on to the frequent lists; a list is long past `long_list`.
        const std::size_t cap = 4 * depth;
        const auto long_list = static_cast<std::ptrdiff_t>(std::max<std::size_t>(1024, distinct_examples() / 16));
        bool refining = false;
        float theta = 0;
        float top = 0;
        for (std::size_t li = 0; li < s.lists.size(); ++li) {
            const posting* b = s.lists[li].begin;
            const posting* e = s.lists[li].end;
            rest_total -= static_cast<double>(s.lists[li].bound);
            const float rest = static_cast<float>(std::max(0.0, rest_total) * (1.0 + 1e-5));
            if (!refining) {
                for (const auto* p = b; p != e; ++p) {
                    float& a = ex[p->doc];
                    if (a == 0.0F) touched.push_back(p->doc);
                    a += p->weight;
                    top = std::max(top, a);
                }
                // Can an example not seen yet still reach the best `depth`? Not once the lists
                // left add less than the depth-th best partial score (a lower bound of its final).
                if (touched.size() > depth && rest < top && (theta == 0 || rest < 2 * theta))
                    theta = std::max(theta, depth_bound(ex, touched, top, depth));
                const bool settled = theta > 0 && rest <= theta;
                const bool last_content = li + 1 < s.lists.size() && s.lists[li + 1].stop_only;
                const bool next_long = li + 1 < s.lists.size() && touched.size() > cap &&
                                       len(s.lists[li + 1]) > long_list;
                if (settled || last_content || next_long) {
                    refining = true;
                    for (const auto x : touched)
                        if (ex[x] + rest >= theta) cands.push_back(x);
                    if (cands.size() > cap) {
                        std::nth_element(cands.begin(), cands.begin() + static_cast<std::ptrdiff_t>(cap), cands.end(),
                                         [&](std::uint32_t x, std::uint32_t y) {
                                             return ex[x] != ex[y] ? ex[x] > ex[y] : x < y;
                                         });
                        cands.resize(cap);
                    }
                    std::sort(cands.begin(), cands.end());
                    for (const auto x : cands) bits[x / 64] |= std::uint64_t{1} << (x % 64);
                }
            } else {
                // Only the examples still in the running take this list's weights: by skipping
                // through a long list, or by one pass over a short one.
                if (static_cast<std::size_t>(e - b) > 8 * cands.size()) {
                    const posting* p = b;
                    for (const auto x : cands) {
                        p = seek(p, e, x);
                        if (p == e) break;
                        if (p->doc == x) {
                            ex[x] += p->weight;
                            ++p;
                        }
                    }
                } else {
                    for (const auto* p = b; p != e; ++p)
                        if ((bits[p->doc / 64] >> (p->doc % 64)) & 1U) ex[p->doc] += p->weight;
                }
                // Drop those that can no longer reach theta (theta only grows: partial scores do).
                if (cands.size() > depth) {
                    float best_partial = 0;
                    for (const auto x : cands) best_partial = std::max(best_partial, ex[x]);
                    theta = std::max(theta, depth_bound(ex, cands, best_partial, depth));
                }
                std::size_t kept = 0;
                for (const auto x : cands) {
                    if (ex[x] + rest >= theta) cands[kept++] = x;
                    else bits[x / 64] &= ~(std::uint64_t{1} << (x % 64));
                }
                cands.resize(kept);
            }
        }
        for (const auto x : cands) bits[x / 64] = 0;
        auto& best = s.best;
        best.clear();
        for (const auto x : refining ? cands : touched) best.push_back({x, ex[x]});
        for (const auto x : touched) ex[x] = 0.0F;
        select_top(best, depth);
        // Each tool sums its `votes` best examples among them (best is sorted, best first).
        const auto m = static_cast<std::uint8_t>(std::min<std::size_t>(std::max<std::size_t>(L.votes, 1), 254));
        float kmax = 0;
        for (const auto& h : best) {
            for (std::uint32_t i = label_offset_[h.doc]; i < label_offset_[h.doc + 1]; ++i) {
                const auto t = labels_[i];
                if (s.votes[t] == 0) s.tools.push_back(t);
                if (s.votes[t] > m) continue;
                s.votes[t] = static_cast<std::uint8_t>(s.votes[t] == 0 ? 2 : s.votes[t] + 1);
                s.k[t] += h.score;
                kmax = std::max(kmax, s.k[t]);
            }
        }
        return kmax;
    }

    static std::size_t doc_bytes(const tool_doc& d) {
        std::size_t b = sizeof(d) + d.name.capacity() + d.description.capacity();
        for (const auto& s : d.arg_names) b += sizeof(s) + s.capacity();
        for (const auto& s : d.arg_descriptions) b += sizeof(s) + s.capacity();
        for (const auto& s : d.examples) b += sizeof(s) + s.capacity();
        return b;
    }

    // The examples of a tool that are indexed: all of them, or an evenly spread subset.
    template <class F>
    void for_each_example(const tool_doc& d, F&& visit) const {
        const std::size_t n = d.examples.size();
        const std::size_t cap = params_.max_examples_per_tool;
        if (cap == 0 || n <= cap) {
            for (const auto& e : d.examples) visit(e);
            return;
        }
        for (std::size_t i = 0; i < cap; ++i) visit(d.examples[i * n / cap]);
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
            case tool_field::examples: for_each_example(d, [&](const std::string& e) { a.append_terms(e, out); }); break;
        }
    }

    // The distinct example texts, analysed once at build time (then dropped).
    struct example_set {
        std::vector<const std::string*> texts;            // distinct texts
        std::vector<std::uint32_t> tool_offset{0};        // per tool: its examples' text numbers
        std::vector<std::uint32_t> tool_texts;
        std::vector<std::uint32_t> dc_offset{0};          // per text: its D/C term ids
        std::vector<std::uint32_t> dc_ids;
        std::vector<std::uint32_t> k_offset{0};           // per text: its K word ids (no_term: dropped)
        std::vector<std::uint32_t> k_ids;
    };

    void construct(std::vector<tool_doc> docs, bm25f_params p) {
        docs_ = std::move(docs);
        params_ = std::move(p);
        const std::size_t n = docs_.size();
        for (std::size_t i = 0; i < n; ++i) by_name_.emplace(docs_[i].name, static_cast<std::uint32_t>(i));
        example_set ex;
        collect_examples(ex);
        build_text_table(ex);
        build_doc_table(ex);
        build_example_tables(ex);
        build_related();
        const auto& L = params_.learning;
        const float per_tool = n == 0 ? 0.0F : static_cast<float>(example_pairs_) / static_cast<float>(n);
        const float trust = L.full_trust_examples > 0 ? std::min(1.0F, per_tool / L.full_trust_examples) : 1.0F;
        wk_ = L.vote_weight_min + (L.vote_weight_max - L.vote_weight_min) * trust;
        wd_ = 1.0F - wk_;
        wc_ = L.text_weight;
        // The examples now live in the postings; the owner (a tool_retriever) keeps the texts.
        for (auto& d : docs_) std::vector<std::string>().swap(d.examples);
    }

    // Distinct example texts, which tools each belongs to, and their terms (analysed once).
    void collect_examples(example_set& ex) {
        std::unordered_map<std::string_view, std::uint32_t> text_id;
        std::vector<std::uint32_t> first_label;  // per text: the last tool it was attached to
        label_offset_.assign(1, 0);
        labels_.clear();
        std::vector<std::vector<std::uint32_t>> extra;  // per text: further tools (rare)
        example_pairs_ = 0;
        for (std::size_t i = 0; i < docs_.size(); ++i) {
            const auto t = static_cast<std::uint32_t>(i);
            for_each_example(docs_[i], [&](const std::string& e) {
                ++example_pairs_;
                auto [it, fresh] = text_id.try_emplace(std::string_view(e), static_cast<std::uint32_t>(ex.texts.size()));
                const std::uint32_t id = it->second;
                if (fresh) {
                    ex.texts.push_back(&e);
                    first_label.push_back(t);
                    extra.emplace_back();
                } else if (first_label[id] != t && (extra[id].empty() || extra[id].back() != t)) {
                    extra[id].push_back(t);
                }
                ex.tool_texts.push_back(id);
            });
            ex.tool_offset.push_back(static_cast<std::uint32_t>(ex.tool_texts.size()));
        }
        std::unordered_map<std::string_view, std::uint32_t>().swap(text_id);
        const std::size_t ne = ex.texts.size();
        label_offset_.reserve(ne + 1);
        for (std::size_t e = 0; e < ne; ++e) {
            labels_.push_back(first_label[e]);
            labels_.insert(labels_.end(), extra[e].begin(), extra[e].end());
            label_offset_.push_back(static_cast<std::uint32_t>(labels_.size()));
        }
        labels_.shrink_to_fit();
        ex.dc_offset.reserve(ne + 1);
        ex.k_offset.reserve(ne + 1);
        for (const auto* text : ex.texts) {
            for_each_term(*text, [&](const std::string& dc, const std::string& k, bool) {
                // dc is either empty or the same string as k
                const std::uint32_t id = k.empty() ? (dc.empty() ? no_term : intern(dc)) : intern(k);
                if (!dc.empty()) ex.dc_ids.push_back(id);
                ex.k_ids.push_back(k.empty() ? no_term : id);
            });
            ex.dc_offset.push_back(static_cast<std::uint32_t>(ex.dc_ids.size()));
            ex.k_offset.push_back(static_cast<std::uint32_t>(ex.k_ids.size()));
        }
    }

    // C: BM25F over the tool's own fields.
    void build_text_table(const example_set& ex) {
        const std::size_t n = docs_.size();
        // Vocabulary for compound-name segmentation: the folded words of every other field.
        if (params_.segment_names) {
            auto add = [&](std::string_view w) {
                if (w.size() >= 3) vocab_.emplace(w);
            };
            for (const auto& d : docs_) {
                params_.analyzer.for_each_word(d.description, add);
                for (const auto& s : d.arg_names) params_.analyzer.for_each_word(s, add);
            }
            for (const auto* t : ex.texts) params_.analyzer.for_each_word(*t, add);
        }
        struct occ5 {
            std::uint32_t term;
            std::uint32_t doc;
            std::array<float, tool_field_count> tf;
        };
        std::vector<std::array<float, tool_field_count>> lengths(n);
        std::array<double, tool_field_count> total{};
        std::vector<occ5> occs;
        std::vector<std::string> buf;
        std::unordered_map<std::uint32_t, std::size_t> doc_terms;  // term -> index into occs, per doc
        name_terms_.reserve(n);
        for (std::size_t i = 0; i < n; ++i) {
            doc_terms.clear();
            for (std::size_t f = 0; f < tool_field_count; ++f) {
                buf.clear();
                if (f == 0 || params_.weight[f] > 0) analyze_field(docs_[i], static_cast<tool_field>(f), buf);
                if (f == 0) name_terms_.push_back(buf);
                lengths[i][f] = static_cast<float>(buf.size());
                total[f] += static_cast<double>(buf.size());
                for (const auto& t : buf) {
                    const std::uint32_t id = intern(t);
                    auto [dt, fresh] = doc_terms.try_emplace(id, occs.size());
                    if (fresh) occs.push_back({id, static_cast<std::uint32_t>(i), {}});
                    occs[dt->second].tf[f] += 1.0F;
                }
            }
        }
        // Average field lengths over the documents that have the field: a sparse field (a few
        // tools with argument descriptions) must not make its few holders look abnormally long.
        std::array<std::size_t, tool_field_count> holders{};
        for (const auto& l : lengths)
            for (std::size_t f = 0; f < tool_field_count; ++f) holders[f] += l[f] > 0 ? 1U : 0U;
        std::array<float, tool_field_count> avg{};
        for (std::size_t f = 0; f < tool_field_count; ++f)
            avg[f] = holders[f] == 0 ? 1.0F
                                     : std::max(1.0F, static_cast<float>(total[f] / static_cast<double>(holders[f])));
        std::vector<std::uint32_t> df(terms_.size(), 0);
        for (const auto& o : occs) ++df[o.term];
        std::vector<occurrence> out;
        out.reserve(occs.size());
        const auto N = static_cast<float>(n);
        for (const auto& o : occs) {
            float tfw = 0;
            for (std::size_t f = 0; f < tool_field_count; ++f) {
                if (o.tf[f] == 0.0F || params_.weight[f] <= 0) continue;
                const float norm = 1.0F - params_.b[f] + params_.b[f] * lengths[o.doc][f] / avg[f];
                tfw += params_.weight[f] * o.tf[f] / std::max(norm, 1e-3F);
            }
            const float w = idf(N, static_cast<float>(df[o.term])) * tfw / (params_.k1 + tfw);
            if (w > 0.0F) out.push_back({o.term, o.doc, w});
        }
        text_table_ = make_table(terms_.size(), out);
        vocab_.clear();  // only needed while analysing names at build time
        vocab_.rehash(0);
    }

    // D: one BM25 document per tool, name + description + every example.
    void build_doc_table(const example_set& ex) {
        const std::size_t n = docs_.size();
        std::vector<occurrence> occ;
        std::vector<float> length(n, 0.0F);
        std::vector<std::uint32_t> ids;
        auto add = [&](const std::string& dc, const std::string&, bool) {
            if (!dc.empty()) ids.push_back(intern(dc));
        };
        for (std::size_t i = 0; i < n; ++i) {
            ids.clear();
            const auto& d = docs_[i];
            for (const auto& t : name_terms_[i]) ids.push_back(intern(t));  // with compound segments
            for_each_term(d.description, add);
            for (std::uint32_t j = ex.tool_offset[i]; j < ex.tool_offset[i + 1]; ++j) {
                const auto t = ex.tool_texts[j];
                ids.insert(ids.end(), ex.dc_ids.begin() + ex.dc_offset[t], ex.dc_ids.begin() + ex.dc_offset[t + 1]);
            }
            length[i] = static_cast<float>(ids.size());
            count_terms(ids, static_cast<std::uint32_t>(i), occ);
        }
        bm25_weights(occ, length, terms_.size(), params_.learning.doc_k1, params_.learning.doc_b);
        doc_table_ = make_table(terms_.size(), occ);
    }

    // K: unigram (stop words kept) and bigram postings of the distinct example texts.
    void build_example_tables(const example_set& ex) {
        const auto& L = params_.learning;
        const std::size_t ne = ex.texts.size();
        if (ne == 0) return;
        // Bigram keys: adjacent K words (a dropped word between them does not break the pair).
        auto for_each_bigram = [&](std::size_t e, auto&& f) {
            std::uint32_t prev = no_term;
            for (std::uint32_t i = ex.k_offset[e]; i < ex.k_offset[e + 1]; ++i) {
                const auto id = ex.k_ids[i];
                if (id == no_term) continue;
                if (prev != no_term) f((static_cast<std::uint64_t>(prev) << 32) | id);
                prev = id;
            }
        };
        bigram_keys_.clear();
        if (L.bigrams) {
            for (std::size_t e = 0; e < ne; ++e) for_each_bigram(e, [&](std::uint64_t k) { bigram_keys_.push_back(k); });
            std::sort(bigram_keys_.begin(), bigram_keys_.end());
            bigram_keys_.erase(std::unique(bigram_keys_.begin(), bigram_keys_.end()), bigram_keys_.end());
            bigram_keys_.shrink_to_fit();
        }
        std::vector<occurrence> uni;
        std::vector<occurrence> bi;
        std::vector<float> length(ne, 0.0F);
        std::vector<std::uint32_t> ids;
        for (std::size_t e = 0; e < ne; ++e) {
            ids.clear();
            for (std::uint32_t i = ex.k_offset[e]; i < ex.k_offset[e + 1]; ++i)
                if (ex.k_ids[i] != no_term) ids.push_back(ex.k_ids[i]);
            std::size_t len = ids.size();
            count_terms(ids, static_cast<std::uint32_t>(e), uni);
            if (L.bigrams) {
                ids.clear();
                for_each_bigram(e, [&](std::uint64_t k) {
                    ids.push_back(static_cast<std::uint32_t>(
                        std::lower_bound(bigram_keys_.begin(), bigram_keys_.end(), k) - bigram_keys_.begin()));
                });
                len += ids.size();
                count_terms(ids, static_cast<std::uint32_t>(e), bi);
            }
            length[e] = static_cast<float>(len);
        }
        // One BM25 collection over unigrams and bigrams together (one length per example).
        const auto N = static_cast<float>(ne);
        double total = 0;
        for (float l : length) total += static_cast<double>(l);
        const float avg = std::max(1.0F, static_cast<float>(total / static_cast<double>(ne)));
        auto weigh = [&](std::vector<occurrence>& occ, std::size_t ids_n) {
            std::vector<std::uint32_t> df(ids_n, 0);
            for (const auto& o : occ) ++df[o.term];
            for (auto& o : occ) {
                const float tf = o.value;
                const float norm = L.example_k1 * (1.0F - L.example_b + L.example_b * length[o.doc] / avg);
                o.value = idf(N, static_cast<float>(df[o.term])) * tf * (L.example_k1 + 1.0F) / (tf + norm);
            }
        };
        weigh(uni, terms_.size());
        example_table_ = make_table(terms_.size(), uni);
        std::vector<occurrence>().swap(uni);
        weigh(bi, bigram_keys_.size());
        bigram_table_ = make_table(bigram_keys_.size(), bi);
    }

    std::vector<tool_doc> docs_;
    bm25f_params params_;
    std::unordered_map<std::string, std::uint32_t> terms_;
    posting_table text_table_;     // C, by term id
    posting_table doc_table_;      // D, by term id
    posting_table example_table_;  // K unigrams, by term id; docs are example numbers
    posting_table bigram_table_;   // K bigrams, by bigram id (index into bigram_keys_)
    std::vector<std::uint64_t> bigram_keys_;  // sorted (first term id << 32 | second term id)
    std::vector<std::uint32_t> label_offset_{0};
    std::vector<std::uint32_t> labels_;  // example -> the tools it was attached to
    std::unordered_map<std::string, std::vector<std::uint32_t>> related_;  // lexicon term -> related term ids
    std::size_t example_pairs_ = 0;
    float wd_ = 0.7F, wk_ = 0.3F, wc_ = 0.15F;
    std::unordered_map<std::string, std::uint32_t> by_name_;
    std::unordered_set<std::string> vocab_;
    std::vector<std::vector<std::string>> name_terms_;
};

}  // namespace agentkit
