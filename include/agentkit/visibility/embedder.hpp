// agentkit/visibility/embedder.hpp — what turns text into dense vectors for tool search: the two
// shapes a retriever takes (see retriever.hpp), a model-free one, and a host's own function.
//
//   embedder        dimension() and embed(text, out): synchronous, cannot fail (a local model,
//                   hashed_ngram_embedder below)
//   batch_embedder  embed_batch(texts, purpose) -> result<vectors>: many texts at once, may fail
//                   (a model behind a network endpoint: embedding_endpoint.hpp; a host's function:
//                   function_embedder below). A retriever with one ranks by words alone while it
//                   fails, and fuses again once it answers.
//
//   agentkit::function_embedder f([](std::span<const std::string> texts, agentkit::embed_purpose)
//                                     -> agentkit::result<std::vector<std::vector<float>>> { ... });
//   agentkit::router<agentkit::function_embedder> r({}, f);
#pragma once

#include <agentkit/core/result.hpp>
#include <agentkit/visibility/analyzer.hpp>

#include <algorithm>
#include <atomic>
#include <concepts>
#include <exception>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <stop_token>
#include <string>
#include <string_view>
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

/// What a text is embedded as: a tool's text (stored with the index) or a search request. Some
/// models want them marked apart ("search_query: " prefixes, an input_type field).
enum class embed_purpose {
    document,  ///< a tool's text or one of its examples
    query,     ///< a tool_search request (embedded on the query path: keep it short)
};

/// Many vectors, one per text, in the texts' order.
using embedding_batch = std::vector<std::vector<float>>;

/// Turns many texts into vectors at once, and may fail (a model behind a network endpoint).
/// embed_batch() is called from several threads at once (searches run in parallel) and must not
/// throw; it returns one vector per text, all of one length (need not be normalised), or an error.
/// Optional: `bool ready() const` — false while a failed endpoint cools down (a retriever then
/// does not ask it for tool vectors).
template <class E>
concept batch_embedder = requires(const E& e, std::span<const std::string> texts, embed_purpose p) {
    { e.embed_batch(texts, p) } -> std::same_as<result<embedding_batch>>;
};

/// A host's embedding function as a batch_embedder: any callable from (texts, purpose) to
/// result<embedding_batch>. Copies share the function. A function that throws fails the batch
/// (`internal`, with the exception's text), which a retriever treats as any other failure. A
/// retriever calls it from its own thread and from every thread that searches, at once: the
/// function must allow that (embed_batch() adds no lock).
class function_embedder {
public:
    /// The function type.
    using function = std::function<result<embedding_batch>(std::span<const std::string>, embed_purpose)>;

    function_embedder() = default;
    /// Wrap `f` (an empty function fails every batch).
    explicit function_embedder(function f) : f_(std::make_shared<const function>(std::move(f))) {}

    /// A synchronous embedder (E satisfies `embedder`) as a batch one.
    template <embedder E>
    [[nodiscard]] static function_embedder from(E e) {
        return function_embedder([e = std::move(e)](std::span<const std::string> texts, embed_purpose) -> result<embedding_batch> {
            embedding_batch out(texts.size(), std::vector<float>(e.dimension(), 0.0F));
            for (std::size_t i = 0; i < texts.size(); ++i) e.embed(texts[i], out[i]);
            return out;
        });
    }

    /// The function's vectors for `texts`.
    [[nodiscard]] result<embedding_batch> embed_batch(std::span<const std::string> texts, embed_purpose p) const {
        if (!f_ || !*f_) return fail(errc::internal, "function_embedder: no function to call", "Construct it with one.");
        try {
            return (*f_)(texts, p);
        } catch (const std::exception& e) {
            return fail(errc::internal, std::string("the embedding function threw: ") + e.what());
        } catch (...) {
            return fail(errc::internal, "the embedding function threw");
        }
    }

private:
    std::shared_ptr<const function> f_;
};

static_assert(batch_embedder<function_embedder>);

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

/// A model's vectors stacked with a local embedder's: each text's vector is the local one followed by the
/// model's, and segments() tells a retriever to normalise the two parts apart and weigh them (1 −
/// remote_share) and remote_share, so that a cosine is (1 − share)·cosine(local) + share·cosine(model).
/// When the model cannot embed a search request, the model's part is zeros: the search ranks exactly as
/// with the local embedder alone. When it cannot embed the tools' texts, the batch fails, and a retriever
/// uses fallback_batch() (the local part alone) until the model answers. `Local` satisfies
/// `embedder`, `Remote` `batch_embedder`. Copies share what they learned of the model's dimension.
///
///   agentkit::blended_embedder<agentkit::hashed_ngram_embedder, endpoint_t> b({}, endpoint, 0.2F);
template <class Local, class Remote>
class blended_embedder {
    static_assert(embedder<Local>, "agentkit: blended_embedder's Local must satisfy agentkit::embedder");
    static_assert(batch_embedder<Remote>, "agentkit: blended_embedder's Remote must satisfy agentkit::batch_embedder");

public:
    /// `local` and `remote` blended, the remote's share of the cosine `remote_share` (clamped to 0..1).
    blended_embedder(Local local, Remote remote, float remote_share = 0.2F)
        : local_(std::move(local)), remote_(std::move(remote)), share_(std::clamp(remote_share, 0.0F, 1.0F)),
          remote_dim_(std::make_shared<std::atomic<std::size_t>>(0)) {}

    /// The stacked vectors of `texts` (see the class comment).
    [[nodiscard]] result<embedding_batch> embed_batch(std::span<const std::string> texts, embed_purpose p) const {
        return embed_batch(texts, p, {});
    }
    /// embed_batch(), `stop` passed to the remote embedder when it takes one.
    [[nodiscard]] result<embedding_batch> embed_batch(std::span<const std::string> texts, embed_purpose p, std::stop_token stop) const {
        result<embedding_batch> remote = [&] {
            if constexpr (requires { remote_.embed_batch(texts, p, stop); }) return remote_.embed_batch(texts, p, stop);
            else return remote_.embed_batch(texts, p);
        }();
        std::size_t rd = remote_dim_->load();
        bool with_remote = true;
        if (remote && remote->size() == texts.size() && !remote->empty() && !(*remote)[0].empty() &&
            (rd == 0 || (*remote)[0].size() == rd)) {
            rd = (*remote)[0].size();
            remote_dim_->store(rd);
        } else if (p == embed_purpose::document) {
            if (remote) return fail(errc::provider_malformed, "the embedding model answered " + std::to_string(remote->size()) +
                                                                  " vectors of another shape for " + std::to_string(texts.size()) + " texts");
            return fail(std::move(remote.error()));
        } else {
            with_remote = false;  // a search request the model cannot embed: its part is zeros
        }
        const std::size_t ld = local_.dimension();
        embedding_batch out(texts.size(), std::vector<float>(ld + rd, 0.0F));
        for (std::size_t i = 0; i < texts.size(); ++i) {
            std::span<float> row(out[i]);
            local_.embed(texts[i], row.first(ld));
            if (with_remote && (*remote)[i].size() == rd)
                std::copy((*remote)[i].begin(), (*remote)[i].end(), row.begin() + static_cast<std::ptrdiff_t>(ld));
        }
        return out;
    }

    /// The tools' vectors while the model cannot give its part: the local part, the model's zeros (a retriever
    /// uses them, and asks embed_batch() again once ready()).
    [[nodiscard]] embedding_batch fallback_batch(std::span<const std::string> texts) const {
        const std::size_t ld = local_.dimension();
        embedding_batch out(texts.size(), std::vector<float>(ld + remote_dim_->load(), 0.0F));
        for (std::size_t i = 0; i < texts.size(); ++i) local_.embed(texts[i], std::span<float>(out[i]).first(ld));
        return out;
    }

    /// The two parts (local, then the model's) with their shares of a cosine; the model's part is empty until
    /// the model has answered once.
    [[nodiscard]] std::vector<std::pair<std::size_t, float>> segments() const {
        return {{local_.dimension(), 1.0F - share_}, {remote_dim_->load(), share_}};
    }
    /// The remote embedder's ready() (true when it has none).
    [[nodiscard]] bool ready() const {
        if constexpr (requires { remote_.ready(); }) return remote_.ready();
        else return true;
    }
    /// The remote embedder.
    [[nodiscard]] const Remote& remote() const noexcept { return remote_; }
    /// The remote's share of the cosine.
    [[nodiscard]] float remote_share() const noexcept { return share_; }

private:
    Local local_;
    Remote remote_;
    float share_;
    std::shared_ptr<std::atomic<std::size_t>> remote_dim_;
};

}  // namespace agentkit
