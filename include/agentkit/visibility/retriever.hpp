// agentkit/visibility/retriever.hpp — tool retrieval: the lexical index (tool text fused with
// what usage examples teach; see tool_index.hpp), optionally fused with dense scores from an
// embedder (embedder.hpp), plus learning from usage.
//
//   agentkit::tool_retriever<> r(agentkit::tool_docs_from(box.infos()));          // lexical
//   agentkit::tool_retriever<agentkit::hashed_ngram_embedder> h(docs, {}, {});     // hybrid
//   auto hits = r.search("convert this pdf to text", 5);                          // best first
//   r.add_example("pdf_to_text", "extract the words from a scanned document");    // learn
//   r.rebuild();                                                                   // apply
//
// A retriever's current state is an immutable snapshot (index + dense matrix) held by a
// shared_ptr: search() on a const retriever is lock-free and thread-safe; add_example(),
// rebuild() and refresh() are for the single owner (a session), and never disturb searches
// already running on an older snapshot (snapshot() hands one out to share across threads).
//
// With a batch_embedder (a model behind an endpoint), the tools' vectors are asked for on a
// thread of the retriever's own, so that neither construction nor rebuild() waits on the
// network: searches rank by words alone until the vectors arrive, and refresh() (the router
// calls it before each search) puts them in use. When the endpoint fails, the snapshot keeps
// the vectors it had (at first none, or the embedder's fallback_batch() when it has one:
// blended_embedder's n-grams) and refresh() asks again once the embedder is ready(); a search
// request it cannot embed is ranked by words alone (blended_embedder: by its local part). Nothing
// fails a search.
#pragma once

#include <agentkit/visibility/tool_index.hpp>
#include <agentkit/visibility/analyzer.hpp>
#include <agentkit/visibility/embedder.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <concepts>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <span>
#include <stop_token>
#include <string>
#include <string_view>
#include <thread>
#include <type_traits>
#include <utility>
#include <vector>

namespace agentkit {

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
    float dense_weight_rrf = 1.0F;  ///< rrf only: the dense ranking's weight against the lexical one's (1)
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
/// Parts of a vector normalised apart, each with its share of a cosine (embedders with `segments()`, as
/// blended_embedder); one part of share 1 otherwise.
using vector_segments = std::vector<std::pair<std::size_t, float>>;
/// Each segment of `v` L2-normalised, then (with `scale`) multiplied by the square root of its share: the dot
/// product of two such vectors is Σ share · cosine(segment). A zero segment stays zero.
inline void normalize_segments(std::span<float> v, const vector_segments& segs, bool scale) {
    std::size_t at = 0;
    for (const auto& [n, share] : segs) {
        if (at + n > v.size()) break;
        auto part = v.subspan(at, n);
        l2_normalize(part);
        if (scale && share != 1.0F) {
            const float k = std::sqrt(share);
            for (float& x : part) x *= k;
        }
        at += n;
    }
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
    /// The vectors' parts (detail::normalize_segments): one of share 1 unless the embedder has segments().
    std::vector<std::pair<std::size_t, float>> segments;

    /// An estimate of the memory the snapshot holds, in bytes.
    [[nodiscard]] std::size_t memory_bytes() const {
        return sizeof(*this) + (lexical ? lexical->memory_bytes() : 0) + dense.capacity() * sizeof(float);
    }
};

namespace detail {
/// The tools' vectors a batch embedder's thread hands to its retriever.
struct dense_delivery {
    std::mutex mu;
    std::condition_variable cv;
    bool done = false;
    bool ok = false;
    std::vector<float> dense;  ///< size() × dim, rows normalised (detail::normalize_segments)
    std::size_t dim = 0;
    std::vector<std::pair<std::size_t, float>> segments;  ///< the vectors' parts
    bool partial = false;  ///< the embedder's fallback vectors: to be asked for again
};
}  // namespace detail

/// Ranks tools for a query: lexical (BM25F with learned examples), fused with an embedder's dense scores when
/// `Embedder` is not no_embedder (an `embedder` or a `batch_embedder`; see the file comment).
template <class Embedder = no_embedder>
class tool_retriever {
public:
    /// True when an embedder adds dense scores.
    static constexpr bool hybrid = !std::is_same_v<Embedder, no_embedder>;
    /// True when the embedder works in batches and may fail (its vectors come from a thread of the retriever's).
    static constexpr bool batched = batch_embedder<Embedder>;
    static_assert(!hybrid || embedder<Embedder> || batched,
                  "agentkit: the retriever's Embedder must satisfy agentkit::embedder or agentkit::batch_embedder");

    /// A retriever over these tools; builds the first snapshot.
    explicit tool_retriever(std::vector<tool_doc> docs = {}, retriever_options o = {}, Embedder e = {})
        : opt_(std::move(o)), embedder_(std::move(e)), docs_(std::move(docs)) {
        rebuild();
    }
    tool_retriever(tool_retriever&&) = default;                      ///< moves the snapshot (and a running request)
    tool_retriever& operator=(tool_retriever&&) = default;  ///< see the move constructor
    tool_retriever(const tool_retriever&) = delete;
    tool_retriever& operator=(const tool_retriever&) = delete;
    ~tool_retriever() = default;  ///< a batch embedder's request still running is cancelled (and waited for)

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
            if (idx.size() == 0 || k == 0) return {};
            if (s.dim == 0) return idx.search(query, k);  // no tool vectors (yet): words alone
            std::vector<float> q(s.dim, 0.0F);
            if constexpr (batched) {
                const std::string text(query);
                auto v = embedder_.embed_batch(std::span<const std::string>(&text, 1), embed_purpose::query);
                if (!v || v->size() != 1 || (*v)[0].empty()) return idx.search(query, k);  // words alone
                q = std::move((*v)[0]);
                if (q.size() != s.dim) {
                    // Segmented vectors (blended_embedder): a snapshot of fallback vectors has no model part, so
                    // the request's model part (its last segment) is left out; otherwise a mismatch is garbage.
                    if (s.segments.size() < 2 || q.size() < s.dim) return idx.search(query, k);
                    q.resize(s.dim);
                }
            } else {
                embedder_.embed(query, q);
            }
            detail::normalize_segments(q, s.segments, true);
            return fuse(s, query, q, k);
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

    /// Build a fresh snapshot from the current docs (declared + learned examples). With a batch embedder,
    /// the new snapshot keeps the vectors in use until the ones of the new docs arrive (refresh()).
    void rebuild() {
        auto s = std::make_shared<retrieval_snapshot>();
        s->lexical = tool_index::build(docs_, opt_.bm25);
        if constexpr (batched) {
            if (snap_) {
                s->dense = snap_->dense;
                s->dim = snap_->dim;
                s->segments = snap_->segments;
            }
            snap_ = std::move(s);
            pending_ = 0;
            start_vectors();
            return;
        } else if constexpr (hybrid) {
            s->dim = embedder_.dimension();
            s->segments = {{s->dim, 1.0F}};
            s->dense.assign(docs_.size() * s->dim, 0.0F);
            std::vector<float> tmp(s->dim);
            for (std::size_t i = 0; i < docs_.size(); ++i) {
                std::span<float> row(s->dense.data() + i * s->dim, s->dim);
                embedder_.embed(doc_text(docs_[i]), row);
                const auto ex = examples_used(docs_[i]);
                std::vector<float> centroid;
                if (!ex.empty()) centroid.assign(s->dim, 0.0F);
                for (const auto* e : ex) {
                    embedder_.embed(*e, tmp);
                    detail::l2_normalize(tmp);
                    for (std::size_t j = 0; j < s->dim; ++j) centroid[j] += tmp[j];
                }
                mix_row(row, centroid, opt_.dense_example_weight, s->segments);
            }
        }
        snap_ = std::move(s);
        pending_ = 0;
    }

    /// With a batch embedder: put the tools' vectors in use once they have arrived (true when the snapshot
    /// changed), and ask again after a failure once the embedder is ready(). For the owner, before a search;
    /// cheap when there is nothing to do. Without one: false.
    bool refresh() {
        if constexpr (batched) {
            if (!delivery_) return false;
            bool ok = false;
            bool partial = false;
            std::vector<float> dense;
            std::size_t dim = 0;
            std::vector<std::pair<std::size_t, float>> segments;
            {
                std::lock_guard lock(delivery_->mu);
                if (!delivery_->done) return false;
                ok = delivery_->ok;
                partial = delivery_->partial;
                if (ok) {
                    dense = std::move(delivery_->dense);
                    dim = delivery_->dim;
                    segments = std::move(delivery_->segments);
                }
            }
            worker_ = {};  // finished: join it
            delivery_.reset();
            if (!ok) {
                failed_ = true;
                return false;
            }
            failed_ = partial;  // fallback vectors: ask again once the embedder is ready()
            auto s = std::make_shared<retrieval_snapshot>(*snap_);
            s->dense = std::move(dense);
            s->dim = dim;
            s->segments = std::move(segments);
            snap_ = std::move(s);
            return true;
        } else {
            return false;
        }
    }

    /// With a batch embedder: true when the last request for the tools' vectors failed and the embedder is
    /// ready to be asked again (the owner then calls retry_vectors()).
    [[nodiscard]] bool vectors_due() const {
        if constexpr (batched) {
            if (!failed_ || delivery_) return false;
            if constexpr (requires { embedder_.ready(); }) return embedder_.ready();
            return true;
        } else {
            return false;
        }
    }

    /// Ask the embedder for the tools' vectors again (after a failure; see vectors_due()).
    void retry_vectors() {
        if constexpr (batched) {
            failed_ = false;
            start_vectors();
        }
    }

    /// With a batch embedder: wait up to `timeout` for the request of the tools' vectors running now, then
    /// refresh(). True when the snapshot has tool vectors afterwards (for hosts that would rather wait at
    /// start than rank by words alone for the first searches, and for tests).
    bool wait_for_vectors(std::chrono::milliseconds timeout) {
        if constexpr (batched) {
            if (auto d = delivery_) {
                std::unique_lock lock(d->mu);
                (void)d->cv.wait_for(lock, timeout, [&] { return d->done; });
            }
            refresh();
            return snap_->dim != 0;
        } else {
            (void)timeout;
            return hybrid;
        }
    }

    /// True when searches fuse dense scores now (a snapshot with tool vectors).
    [[nodiscard]] bool has_vectors() const noexcept { return snap_->dim != 0; }

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
    /// What a tool's vector is made of: its name, description and argument names.
    static std::string doc_text(const tool_doc& d) {
        std::string text = d.name + " " + d.description;
        for (const auto& a : d.arg_names) text += " " + a;
        return text;
    }
    /// The examples that shape a tool's vector: every one, or with a cap an evenly spread subset (as the
    /// index does); none when dense_example_weight is 0.
    [[nodiscard]] std::vector<const std::string*> examples_used(const tool_doc& d) const {
        std::vector<const std::string*> out;
        if (d.examples.empty() || opt_.dense_example_weight <= 0) return out;
        const std::size_t ne = d.examples.size();
        const std::size_t cap = opt_.bm25.max_examples_per_tool;
        const std::size_t use = cap == 0 ? ne : std::min(ne, cap);
        for (std::size_t u = 0; u < use; ++u) out.push_back(&d.examples[u * ne / use]);
        return out;
    }
    /// Per segment: row = normalise(normalise(row) + w · normalise(centroid)) (centroid empty: normalise(row)),
    /// then scaled to its share (detail::normalize_segments).
    static void mix_row(std::span<float> row, std::vector<float>& centroid, float w, const detail::vector_segments& segs) {
        if (centroid.empty()) {
            detail::normalize_segments(row, segs, true);
            return;
        }
        detail::normalize_segments(row, segs, false);
        detail::normalize_segments(centroid, segs, false);
        for (std::size_t j = 0; j < row.size(); ++j) row[j] += w * centroid[j];
        detail::normalize_segments(row, segs, true);
    }

    /// Start the thread that asks a batch embedder for every tool's (and example's) vector; a request still
    /// running is cancelled first.
    void start_vectors() {
        worker_ = {};
        auto d = std::make_shared<detail::dense_delivery>();
        delivery_ = d;
        std::vector<std::string> texts;
        std::vector<std::pair<std::size_t, std::size_t>> rows;  // per tool: its text, then [first example, end)
        for (const auto& doc : docs_) {
            texts.push_back(doc_text(doc));
            const auto ex = examples_used(doc);
            rows.emplace_back(texts.size(), texts.size() + ex.size());
            for (const auto* e : ex) texts.push_back(*e);
        }
        worker_ = std::jthread([d, e = embedder_, texts = std::move(texts), rows = std::move(rows),
                                w = opt_.dense_example_weight](std::stop_token stop) {
            result<embedding_batch> got = [&] {
                if constexpr (requires { e.embed_batch(std::span<const std::string>(texts), embed_purpose::document, stop); })
                    return e.embed_batch(std::span<const std::string>(texts), embed_purpose::document, stop);
                else
                    return e.embed_batch(std::span<const std::string>(texts), embed_purpose::document);
            }();
            std::vector<float> dense;
            std::size_t dim = 0;
            bool ok = got && got->size() == texts.size() && !texts.empty() && !(*got)[0].empty();
            if (ok) {
                dim = (*got)[0].size();
                for (const auto& v : *got) ok = ok && v.size() == dim;
            }
            bool partial = false;
            if constexpr (requires { e.fallback_batch(std::span<const std::string>(texts)); }) {
                if (!ok && !stop.stop_requested()) {  // the model failed: the embedder's own vectors meanwhile
                    got = e.fallback_batch(std::span<const std::string>(texts));
                    ok = got->size() == texts.size() && !texts.empty() && !(*got)[0].empty();
                    if (ok) dim = (*got)[0].size();
                    for (const auto& v : *got) ok = ok && v.size() == dim;
                    partial = ok;
                }
            }
            detail::vector_segments segs{{dim, 1.0F}};
            if constexpr (requires { e.segments(); }) {
                // The parts in order; the last takes what is left (fallback vectors made before the model's
                // length was known have none of it, though segments() may know it by now).
                auto parts = e.segments();
                std::size_t head = 0;
                for (std::size_t p = 0; p + 1 < parts.size(); ++p) head += parts[p].first;
                if (!parts.empty() && head <= dim) {
                    parts.back().first = dim - head;
                    segs = std::move(parts);
                }
            }
            if (ok) {
                dense.assign(rows.size() * dim, 0.0F);
                for (std::size_t i = 0; i < rows.size(); ++i) {
                    std::span<float> row(dense.data() + i * dim, dim);
                    const auto& own = (*got)[rows[i].first - 1];
                    std::copy(own.begin(), own.end(), row.begin());
                    std::vector<float> centroid;
                    if (rows[i].second > rows[i].first) centroid.assign(dim, 0.0F);
                    for (std::size_t x = rows[i].first; x < rows[i].second; ++x) {
                        std::vector<float> v = (*got)[x];
                        detail::normalize_segments(v, segs, false);
                        for (std::size_t j = 0; j < dim; ++j) centroid[j] += v[j];
                    }
                    mix_row(row, centroid, w, segs);
                }
            }
            {
                std::lock_guard lock(d->mu);
                d->ok = ok;
                d->partial = partial;
                d->dense = std::move(dense);
                d->dim = dim;
                d->segments = std::move(segs);
                d->done = true;
            }
            d->cv.notify_all();
        });
    }

    /// The fused ranking of `query` (its normalised vector `q`) over snapshot `s` (which has vectors).
    [[nodiscard]] std::vector<search_hit> fuse(const retrieval_snapshot& s, std::string_view query, const std::vector<float>& q,
                                               std::size_t k) const {
        const tool_index& idx = *s.lexical;
        const std::size_t n = idx.size();
        thread_local search_scratch scratch;
        std::vector<search_hit> lex;
        idx.score_all(query, scratch, lex);
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
            float c = detail::dot(q.data(), s.dense.data() + static_cast<std::size_t>(d) * s.dim, s.dim);
            if (c < 1e-5F) c = 0;  // no similarity, or rounding's: the same either way (scaled parts round differently)
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
                if (dense[r].score > 0) rr[dense[r].doc] += opt_.dense_weight_rrf / (opt_.rrf_k + static_cast<float>(r + 1));
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

    retriever_options opt_;
    Embedder embedder_;
    std::vector<tool_doc> docs_;
    std::shared_ptr<const retrieval_snapshot> snap_;
    std::size_t pending_ = 0;
    // A batch embedder's request for the tools' vectors: its thread (joined, and cancelled, when replaced or
    // destroyed) and where it delivers. The thread is declared last: destroyed first.
    std::shared_ptr<detail::dense_delivery> delivery_;
    bool failed_ = false;
    std::jthread worker_;
};

}  // namespace agentkit
