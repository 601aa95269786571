// agentkit/search/backend.hpp — the one concept every search backend meets, and any_backend,
// which holds any of them (the four built in, over HTTP: http_backend.hpp; or the host's own).
//
//   // a host's own backend: anything with name() and search(query, stop_token)
//   struct intranet_search {
//       std::string_view name() const { return "intranet"; }
//       agentkit::result<agentkit::search::results> search(const agentkit::search::query& q, std::stop_token) { ... }
//   };
//   agentkit::search::any_backend b{intranet_search{}};
//   // or from a function
//   auto f = agentkit::search::any_backend::from_function("intranet", [](const query& q, std::stop_token) { ... });
#pragma once

#include <agentkit/core/error.hpp>
#include <agentkit/core/result.hpp>
#include <agentkit/search/query.hpp>

#include <concepts>
#include <functional>
#include <memory>
#include <stop_token>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>

namespace agentkit::search {

/// A search backend: a name and a search that answers results or a structured error (never
/// throws; a requested stop token ends a search in flight with `cancelled`).
template <class B>
concept backend = requires(B& b, const B& cb, const query& q, std::stop_token stop) {
    { cb.name() } -> std::convertible_to<std::string_view>;
    { b.search(q, stop) } -> std::same_as<result<results>>;
};

/// Any backend, by value (copies share the backend). Empty when default-constructed: its
/// search answers `search.unconfigured`.
class any_backend {
public:
    any_backend() = default;
    /// Hold backend `b` (moved in; shared by copies of this any_backend).
    template <class B>
        requires(backend<std::decay_t<B>> && !std::is_same_v<std::decay_t<B>, any_backend>)
    any_backend(B&& b)  // NOLINT(google-explicit-constructor): any backend converts
        : impl_(std::make_shared<model<std::decay_t<B>>>(std::forward<B>(b))) {}

    /// A backend named `name` whose search is `f` (a host's own, in one line).
    [[nodiscard]] static any_backend from_function(std::string name, std::function<result<results>(const query&, std::stop_token)> f) {
        return any_backend(function_backend{std::move(name), std::move(f)});
    }

    /// True when a backend is held.
    [[nodiscard]] explicit operator bool() const noexcept { return impl_ != nullptr; }
    /// The held backend's name ("" when empty).
    [[nodiscard]] std::string_view name() const noexcept { return impl_ ? impl_->name() : std::string_view{}; }
    /// Search with the held backend; `search.unconfigured` when empty; a backend that throws
    /// answers `internal` (nothing leaves as an exception).
    [[nodiscard]] result<results> search(const query& q, std::stop_token stop = {}) {
        if (!impl_)
            return fail(errc::search_unconfigured, "web search has no backend configured",
                        "Configure one: agentkit-browser-mcp --search searxng --search-url URL, or --search brave|tavily|serper "
                        "with the key in BRAVE_API_KEY, TAVILY_API_KEY or SERPER_API_KEY.");
        try {
            return impl_->search(q, std::move(stop));
        } catch (const std::exception& e) {
            return fail(errc::internal, std::string(impl_->name()) + ": the search backend threw: " + e.what());
        } catch (...) {
            return fail(errc::internal, std::string(impl_->name()) + ": the search backend threw");
        }
    }

private:
    struct function_backend {
        std::string label;
        std::function<result<results>(const query&, std::stop_token)> f;
        [[nodiscard]] std::string_view name() const { return label; }
        result<results> search(const query& q, std::stop_token stop) {
            if (!f) return fail(errc::search_unconfigured, label + ": the search function is empty");
            return f(q, std::move(stop));
        }
    };
    struct concept_t {
        virtual ~concept_t() = default;
        [[nodiscard]] virtual std::string_view name() const = 0;
        virtual result<results> search(const query& q, std::stop_token stop) = 0;
    };
    template <class B>
    struct model final : concept_t {
        explicit model(B b) : held(std::move(b)) {}
        [[nodiscard]] std::string_view name() const override { return held.name(); }
        result<results> search(const query& q, std::stop_token stop) override { return held.search(q, std::move(stop)); }
        B held;
    };
    std::shared_ptr<concept_t> impl_;
};

static_assert(backend<any_backend>);

}  // namespace agentkit::search
