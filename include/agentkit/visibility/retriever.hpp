// agentkit/visibility/retriever.hpp — tool retrieval: the lexical index (tool text fused with
// what usage examples teach; see tool_index.hpp), optionally fused with dense scores from an
// embedder, plus learning from usage.
//
//   agentkit::tool_retriever<> r(agentkit::tool_docs_from(box.infos()));          // lexical
//   agentkit::tool_retriever<agentkit::hashed_ngram_embedder> h(docs, {}, {});     // hybrid
//   auto hits = r.search("convert this pdf to text", 5);                          // best first
//   r.add_example("pdf_to_text", "extract the words from a scanned document");    // learn
//   r.rebuild();                                                                   // apply
//
// A retriever's current state is an immutable snapshot (index + dense matrix) held by a
// shared_ptr: search() on a const retriever is lock-free and thread-safe; add_example() and
// rebuild() are for the single owner (a session), and never disturb searches already running
// on an older snapshot (snapshot() hands one out to share across threads).
#pragma once

#include <agentkit/visibility/tool_index.hpp>
#include <agentkit/visibility/analyzer.hpp>

#include <algorithm>
#include <cmath>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

namespace agentkit {

/// Turns text into a dense vector of dimension() floats (need not be normalised; the
/// retriever L2-normalises). A host plugs in a neural model here; embed() must not throw.
template <class E>
concept embedder = requires(const E& e, std::string_view text, std::span<float> out) {
    { e.dimension() } -> std::convertible_to<std::size_t>;
    { e.embed(text, out) } -> std::same_as<void>;
};

/// The "no dense scores" marker: a retriever with it is purely lexical.
struct no_embedder {};

/// A model-free embedder: hashed character n-grams (3–5 letters of each padded word) and
/// word unigrams, signed feature hashing into `dim` buckets — a random projection of the
/// sparse n-gram vector. It catches morphology and misspellings the lexical index misses
/// ("forecst", "weathr") and gives the hybrid path something real to fuse.
class hashed_ngram_embedder {
public:
    hashed_ngram_embedder() : hashed_ngram_embedder(256) {}
    /// An embedder into `dim` buckets (at least 8) from n-grams of `min_n`..`max_n` letters, words weighing
    /// `word_weight`.
    explicit hashed_ngram_embedder(std::size_t dim, std::size_t min_n = 3, std::size_t max_n = 5,
                                   float word_weight = 0.5F)
        : dim_(std::max<std::size_t>(dim, 8)), min_n_(std::max<std::size_t>(min_n, 1)), max_n_(std::max(max_n, min_n)),
          word_weight_(word_weight) {}

    /// The vector size embed() fills.
    [[nodiscard]] std::size_t dimension() const noexcept { return dim_; }

    /// Write the vector of `text` into `out` (all zeros when `out` is shorter than dimension()).
    void embed(std::string_view text, std::span<float> out) const {
        std::fill(out.begin(), out.end(), 0.0F);
        if (out.size() < dim_) return;
        std::string padded;
        analyzer_.for_each_word(text, [&](std::string_view w) {
            if (is_stop_word(w)) return;
            add(hash(w, 0x9e3779b97f4a7c15ULL), word_weight_, out);  // the word itself
            padded.assign(1, '#');
            padded += w;
            padded += '#';
            for (std::size_t n = min_n_; n <= max_n_; ++n) {
                if (padded.size() < n) break;
                for (std::size_t i = 0; i + n <= padded.size(); ++i)
                    add(hash(std::string_view(padded).substr(i, n), n), 1.0F, out);
            }
        });
    }

private:
    static std::uint64_t hash(std::string_view s, std::uint64_t seed) noexcept {
        std::uint64_t h = 1469598103934665603ULL ^ (seed * 0x100000001b3ULL);
        for (char c : s) {
            h ^= static_cast<unsigned char>(c);
            h *= 1099511628211ULL;
        }
        h ^= h >> 33;
        h *= 0xff51afd7ed558ccdULL;
        h ^= h >> 33;
        return h;
    }
    void add(std::uint64_t h, float w, std::span<float> out) const {
        const std::size_t bucket = static_cast<std::size_t>(h % dim_);
        out[bucket] += ((h >> 63) != 0U) ? -w : w;
    }

    std::size_t dim_;
    std::size_t min_n_;
    std::size_t max_n_;
    float word_weight_;
    text_analyzer analyzer_{text_analyzer::options{false, false, 1, 40}};
};

static_assert(embedder<hashed_ngram_embedder>);

/// How lexical and dense rankings are combined.
enum class fusion_kind {
    weighted,  ///< (1-w)·lexical/max_lexical + w·cosine/max_cosine over the candidate pool
    rrf,       ///< reciprocal rank fusion: Σ 1/(rrf_k + rank)
};

/// How a tool_retriever scores and fuses.
struct retriever_options {
    bm25f_params bm25{};          ///< the lexical index's parameters
    fusion_kind fusion = fusion_kind::weighted;  ///< how lexical and dense rankings are combined (hybrid retrievers)
    float dense_weight = 0.35F;   ///< weighted fusion only
    float rrf_k = 60.0F;          ///< rrf only
    /// With at most this many tools, dense scores are computed for every tool (a dense hit can
    /// surface a tool with no lexical match); above it, only the lexical top candidate_pool
    /// are rescored, which keeps the query cost flat.
    std::size_t dense_full_scan_limit = 4096;
    /// How many lexical candidates are rescored with dense scores above dense_full_scan_limit.
    std::size_t candidate_pool = 256;
    /// Weight of the example centroid in a tool's dense vector (relative to its description).
    float dense_example_weight = 1.0F;
};

namespace detail {
inline void l2_normalize(std::span<float> v) {
    double s = 0;
    for (float x : v) s += static_cast<double>(x) * x;
    if (s <= 0) return;
    const auto inv = static_cast<float>(1.0 / std::sqrt(s));
    for (float& x : v) x *= inv;
}
inline float dot(const float* a, const float* b, std::size_t n) noexcept {
    float s0 = 0, s1 = 0, s2 = 0, s3 = 0;
    std::size_t i = 0;
    for (; i + 4 <= n; i += 4) {
        s0 += a[i] * b[i];
        s1 += a[i + 1] * b[i + 1];
        s2 += a[i + 2] * b[i + 2];
        s3 += a[i + 3] * b[i + 3];
    }
    for (; i < n; ++i) s0 += a[i] * b[i];
    return (s0 + s1) + (s2 + s3);
}
}  // namespace detail

/// The immutable state a retriever searches: the lexical index and, with an embedder, one
/// L2-normalised vector per tool.
struct retrieval_snapshot {
    std::shared_ptr<const tool_index> lexical;  ///< the lexical index
    std::vector<float> dense;  ///< size() × dim, row-major; empty when lexical only
    std::size_t dim = 0;       ///< the embedder's dimension (0 when lexical only)

    /// An estimate of the memory the snapshot holds, in bytes.
    [[nodiscard]] std::size_t memory_bytes() const {
        return sizeof(*this) + (lexical ? lexical->memory_bytes() : 0) + dense.capacity() * sizeof(float);
    }
};

/// Ranks tools for a query: lexical (BM25F with learned examples), fused with an embedder's dense scores when
/// `Embedder` is not no_embedder.
template <class Embedder = no_embedder>
class tool_retriever {
public:
    /// True when an embedder adds dense scores.
    static constexpr bool hybrid = !std::is_same_v<Embedder, no_embedder>;
    static_assert(!hybrid || embedder<Embedder>, "agentkit: the retriever's Embedder must satisfy agentkit::embedder");

    /// A retriever over these tools; builds the first snapshot.
    explicit tool_retriever(std::vector<tool_doc> docs = {}, retriever_options o = {}, Embedder e = {})
        : opt_(std::move(o)), embedder_(std::move(e)), docs_(std::move(docs)) {
        rebuild();
    }

    /// The top `k` tools for `query`, best first. Thread-safe on a const retriever.
    [[nodiscard]] std::vector<search_hit> search(std::string_view query, std::size_t k) const {
        return search_in(*snap_, query, k);
    }

    /// Search a given snapshot (for readers on other threads holding one).
    [[nodiscard]] std::vector<search_hit> search_in(const retrieval_snapshot& s, std::string_view query,
                                                    std::size_t k) const {
        const tool_index& idx = *s.lexical;
        if constexpr (!hybrid) {
            return idx.search(query, k);
        } else {
            const std::size_t n = idx.size();
            if (n == 0 || k == 0) return {};
            thread_local search_scratch scratch;
            std::vector<search_hit> lex;
            idx.score_all(query, scratch, lex);
            std::vector<float> q(s.dim, 0.0F);
            embedder_.embed(query, q);
            detail::l2_normalize(q);
            // The candidate pool: every tool when small, else the lexical top candidate_pool.
            std::vector<std::uint32_t> pool;
            if (n <= opt_.dense_full_scan_limit) {
                pool.resize(n);
                for (std::size_t i = 0; i < n; ++i) pool[i] = static_cast<std::uint32_t>(i);
            } else {
                tool_index::select_top(lex, std::max(opt_.candidate_pool, k));
                for (const auto& h : lex) pool.push_back(h.doc);
            }
            std::vector<float> lexs(n, 0.0F);
            float lmax = 0;
            for (const auto& h : lex) {
                lexs[h.doc] = h.score;
                lmax = std::max(lmax, h.score);
            }
            std::vector<search_hit> dense;
            dense.reserve(pool.size());
            float dmax = 0;
            for (auto d : pool) {
                const float c = detail::dot(q.data(), s.dense.data() + static_cast<std::size_t>(d) * s.dim, s.dim);
                dense.push_back({d, c});
                dmax = std::max(dmax, c);
            }
            std::vector<search_hit> fused;
            fused.reserve(pool.size());
            if (opt_.fusion == fusion_kind::weighted) {
                const float w = opt_.dense_weight;
                for (const auto& h : dense) {
                    const float l = lmax > 0 ? lexs[h.doc] / lmax : 0.0F;
                    const float dd = dmax > 0 ? std::max(0.0F, h.score) / dmax : 0.0F;
                    const float f = (1.0F - w) * l + w * dd;
                    if (f > 0) fused.push_back({h.doc, f});
                }
            } else {
                std::vector<float> rr(n, 0.0F);
                auto by_score = [](const search_hit& a, const search_hit& b) {
                    return a.score != b.score ? a.score > b.score : a.doc < b.doc;
                };
                std::sort(lex.begin(), lex.end(), by_score);
                std::sort(dense.begin(), dense.end(), by_score);
                for (std::size_t r = 0; r < lex.size(); ++r) rr[lex[r].doc] += 1.0F / (opt_.rrf_k + static_cast<float>(r + 1));
                for (std::size_t r = 0; r < dense.size(); ++r)
                    if (dense[r].score > 0) rr[dense[r].doc] += 1.0F / (opt_.rrf_k + static_cast<float>(r + 1));
                for (auto d : pool)
                    if (rr[d] > 0) fused.push_back({d, rr[d]});
            }
            auto better = [](const search_hit& a, const search_hit& b) {
                return a.score != b.score ? a.score > b.score : a.doc < b.doc;
            };
            if (fused.size() > k) {
                std::nth_element(fused.begin(), fused.begin() + static_cast<std::ptrdiff_t>(k), fused.end(), better);
                fused.resize(k);
            }
            std::sort(fused.begin(), fused.end(), better);
            return fused;
        }
    }

    /// Queue an example request for a tool (learning from usage). Returns false for an
    /// unknown tool or an empty text. Takes effect at the next rebuild().
    bool add_example(std::string_view tool, std::string_view text) {
        if (text.find_first_not_of(" \t\r\n") == std::string_view::npos) return false;
        const auto i = snap_->lexical->find(tool);
        if (i < 0) return false;
        auto& ex = docs_[static_cast<std::size_t>(i)].examples;
        ex.emplace_back(text);
        ++pending_;
        return true;
    }

    /// Drop the oldest example of a tool with exactly this text (learning with a bound: the host
    /// forgets what it learned first). Returns false when the tool has no such example. Takes
    /// effect at the next rebuild().
    bool remove_example(std::string_view tool, std::string_view text) {
        const auto i = snap_->lexical->find(tool);
        if (i < 0) return false;
        auto& ex = docs_[static_cast<std::size_t>(i)].examples;
        const auto it = std::find(ex.begin(), ex.end(), text);
        if (it == ex.end()) return false;
        ex.erase(it);
        ++pending_;
        return true;
    }

    /// Examples queued since the last rebuild().
    [[nodiscard]] std::size_t pending() const noexcept { return pending_; }

    /// Build a fresh snapshot from the current docs (declared + learned examples).
    void rebuild() {
        auto s = std::make_shared<retrieval_snapshot>();
        s->lexical = tool_index::build(docs_, opt_.bm25);
        if constexpr (hybrid) {
            s->dim = embedder_.dimension();
            s->dense.assign(docs_.size() * s->dim, 0.0F);
            std::vector<float> tmp(s->dim);
            std::string text;
            for (std::size_t i = 0; i < docs_.size(); ++i) {
                const auto& d = docs_[i];
                std::span<float> row(s->dense.data() + i * s->dim, s->dim);
                text = d.name + " " + d.description;
                for (const auto& a : d.arg_names) text += " " + a;
                embedder_.embed(text, row);
                detail::l2_normalize(row);
                if (!d.examples.empty() && opt_.dense_example_weight > 0) {
                    std::vector<float> centroid(s->dim, 0.0F);
                    // Every example (or, with a cap, an evenly spread subset, as the index does).
                    const std::size_t ne = d.examples.size();
                    const std::size_t cap = opt_.bm25.max_examples_per_tool;
                    const std::size_t use = cap == 0 ? ne : std::min(ne, cap);
                    for (std::size_t u = 0; u < use; ++u) {
                        embedder_.embed(d.examples[u * ne / use], tmp);
                        detail::l2_normalize(tmp);
                        for (std::size_t j = 0; j < s->dim; ++j) centroid[j] += tmp[j];
                    }
                    detail::l2_normalize(centroid);
                    for (std::size_t j = 0; j < s->dim; ++j) row[j] += opt_.dense_example_weight * centroid[j];
                    detail::l2_normalize(row);
                }
            }
        }
        snap_ = std::move(s);
        pending_ = 0;
    }

    /// The current immutable snapshot (share it with reader threads).
    [[nodiscard]] std::shared_ptr<const retrieval_snapshot> snapshot() const noexcept { return snap_; }
    /// The current snapshot's lexical index.
    [[nodiscard]] const tool_index& index() const noexcept { return *snap_->lexical; }
    /// The number of tools.
    [[nodiscard]] std::size_t size() const noexcept { return docs_.size(); }
    /// The `i`-th tool's document.
    [[nodiscard]] const tool_doc& doc(std::size_t i) const { return docs_[i]; }
    /// The options in use.
    [[nodiscard]] const retriever_options& options() const noexcept { return opt_; }
    /// An estimate of the current snapshot's memory, in bytes.
    [[nodiscard]] std::size_t memory_bytes() const { return snap_->memory_bytes(); }

private:
    retriever_options opt_;
    Embedder embedder_;
    std::vector<tool_doc> docs_;
    std::shared_ptr<const retrieval_snapshot> snap_;
    std::size_t pending_ = 0;
};

}  // namespace agentkit
