// agentkit/visibility/router.hpp — the retrieval router: a model searches the catalogue by
// plain words (tool_search) and the best matches become visible (as in AnyTool and RAG-MCP).
//
//   agentkit::router<> r({.k = 5, .pinned = {"think"}});                  // lexical BM25F
//   agentkit::router<agentkit::hashed_ngram_embedder> h({}, {});          // hybrid
//   agentkit::router<agentkit::embedding_endpoint<net::http_client>> m({}, endpoint);  // a model's vectors
//
// The model sees the `tool_search` meta-tool, the pinned tools, and the tools its recent
// searches surfaced (as tool_reference blocks for Anthropic's defer_loading). A search is a
// natural-language query against the BM25F index of every tool (names split into words,
// descriptions, argument names and descriptions, example requests); surfaced tools stay
// visible for the following turns, least recently used first out once `max_visible` is
// reached. The router learns from usage: when a surfaced tool is then called successfully,
// the query that found it becomes one of its examples (and so does the user's message, if
// learn_from_user_messages), and the index is rebuilt — off the query path — before the next
// search. What it learns is bounded (max_learned_per_tool: the oldest learned example of a tool
// goes first; a query it already learned for that tool is not learned twice), reported to
// on_learn as it happens (a host persists it there), and comes back through
// tool_info::examples or router_options::examples. With an embedding model behind an endpoint
// (a batch_embedder: embedding_endpoint.hpp), its vectors are fused once they have arrived and
// while it answers; until then, and whenever it fails, tool_search ranks by words alone.
#pragma once

#include <agentkit/visibility/retriever.hpp>
#include <agentkit/core/error.hpp>
#include <agentkit/core/json.hpp>
#include <agentkit/core/result.hpp>
#include <agentkit/core/strings.hpp>
#include <agentkit/tools/output.hpp>
#include <agentkit/tools/tool.hpp>
#include <agentkit/visibility/masker.hpp>
#include <agentkit/visibility/signal.hpp>

#include <algorithm>
#include <chrono>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <initializer_list>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

namespace agentkit {

/// How a router searches, what it keeps visible and what it learns.
struct router_options {
    std::size_t k = 5;             ///< tools per search unless the model asks for another k
    std::size_t max_k = 20;        ///< the most a search may return
    std::size_t max_visible = 24;  ///< surfaced tools kept visible (least recently used dropped)
    std::vector<std::string> pinned;  ///< host tools always visible
    bool learn_from_calls = true;     ///< a successful call of a surfaced tool teaches its query
    bool learn_from_user_messages = false;  ///< ... and the user's last message
    std::size_t relearn_batch = 1;    ///< rebuild the index once this many examples are pending
    std::size_t searches_remembered = 4;  ///< how many recent searches can be credited by a call
    /// Learned examples kept per tool (0: no bound); past it, the tool's oldest learned one goes.
    std::size_t max_learned_per_tool = 100;
    /// Called with (tool, example) for every example learned from a call (not for learn()).
    std::function<void(const std::string&, const std::string&)> on_learn{};
    bool reference_blocks = true;     ///< tool_search results carry tool_reference blocks
    /// Example requests per tool name (history persisted by the host), added at bind.
    std::map<std::string, std::vector<std::string>> examples{};
    /// Host tools left out (a capability the host has not turned on): not indexed, never
    /// surfaced; a call answers capability.unsupported with `omitted_hint`.
    std::vector<std::string> omitted{};
    std::string omitted_hint = "This tool is not offered by this host.";  ///< see `omitted`
    retriever_options retrieval{};  ///< the retriever's scoring and fusion options
    /// With a batch embedder (a model behind an endpoint): how long bind() waits for the tools' vectors
    /// before it returns (0: not at all; searches rank by words alone until they arrive).
    std::chrono::milliseconds vectors_wait{0};
};

namespace detail {
/// A type nothing converts to: `std::initializer_list<empty_braces>` matches `{}` alone (see router's constructors).
struct empty_braces {
    empty_braces() = delete;
};
}  // namespace detail

/// The retrieval router: a masker whose tool_search meta-tool surfaces the best-matching tools (see the file
/// comment).
template <class Embedder = no_embedder>
class router {
public:
    /// A router with these options and embedder; it has no tools until bind().
    router(router_options o, Embedder e) : opt_(std::move(o)), embedder_(std::move(e)) {}
    /// A router with these options and a default-made embedder (an embedder that needs arguments, as
    /// embedding_endpoint, is given with the options).
    explicit router(router_options o = {})
        requires std::default_initializable<Embedder>
        : router(std::move(o), Embedder{}) {}
    /// A router with the default options, written `router<>({})`: without this overload the empty braces
    /// could make a router_options or a router (the copy constructor's), and the call would be ambiguous.
    explicit router(std::initializer_list<detail::empty_braces>)
        requires std::default_initializable<Embedder>
        : router(router_options{}) {}

    // --- masker ------------------------------------------------------------------------------
    /// Index the host's catalogue (with router_options::examples) and clear the surfaced tools; unknown
    /// pinned tools become problems().
    void bind(const std::vector<tool_info>& host_catalogue) {
        std::vector<tool_info> catalogue;
        for (const auto& t : host_catalogue)
            if (std::find(opt_.omitted.begin(), opt_.omitted.end(), t.name) == opt_.omitted.end()) catalogue.push_back(t);
        auto docs = tool_docs_from(catalogue);
        for (auto& d : docs)
            if (auto it = opt_.examples.find(d.name); it != opt_.examples.end())
                d.examples.insert(d.examples.end(), it->second.begin(), it->second.end());
        names_.clear();
        summaries_.clear();
        for (const auto& t : catalogue) {
            names_.push_back(t.name);
            summaries_[t.name] = {t.title, tool_summary(t)};
        }
        known_ = std::unordered_set<std::string>(names_.begin(), names_.end());
        retriever_ = std::make_unique<tool_retriever<Embedder>>(std::move(docs), opt_.retrieval, embedder_);
        if (opt_.vectors_wait.count() > 0) retriever_->wait_for_vectors(opt_.vectors_wait);
        surfaced_.clear();
        searches_.clear();
        learned_.clear();
        problems_.clear();
        for (const auto& p : opt_.pinned)
            if (!known_.count(p)) problems_.push_back("pinned tool \"" + p + "\" is unknown");
        signal_.bump();
    }

    /// The tool_search meta-tool (arguments: query, k).
    [[nodiscard]] std::vector<tool_info> meta_tools() const {
        tool_info t;
        t.name = "tool_search";
        t.description = "Find tools for a task: describe what you want to do in a few words; the best matching tools "
                        "become available from your next step on.";
        t.input_schema = json{
            {"type", "object"},
            {"properties",
             {{"query", {{"type", "string"}, {"description", "What you want to do, in plain words"}, {"minLength", 1}}},
              {"k", {{"type", "integer"}, {"description", "How many tools to return"}, {"minimum", 1},
                     {"maximum", static_cast<std::int64_t>(opt_.max_k)}}}}},
            {"required", json::array({"query"})},
            {"additionalProperties", false}};
        t.traits = read_only;
        return {t};
    }

    /// True for tool_search, pinned tools and surfaced tools.
    [[nodiscard]] bool is_visible(std::string_view name) const {
        if (name == "tool_search") return true;
        const std::string n(name);
        if (!known_.count(n)) return false;
        return is_pinned(n) || std::find(surfaced_.begin(), surfaced_.end(), n) != surfaced_.end();
    }

    /// tool_search, then the pinned and surfaced tools in catalogue order.
    [[nodiscard]] std::vector<std::string> visible() const {
        std::vector<std::string> out{"tool_search"};
        for (const auto& n : names_)
            if (is_pinned(n) || std::find(surfaced_.begin(), surfaced_.end(), n) != surfaced_.end()) out.push_back(n);
        return out;
    }

    /// How to find tools with tool_search (stable).
    [[nodiscard]] std::string prompt_section() const {
        return "## Tool search\nThere are " + std::to_string(names_.size()) +
               " tools; only a few are loaded at a time. To find one, call tool_search with a short description of "
               "what you want to do (for example \"convert a PDF to text\"); the tools it returns can be called from "
               "your next step on. Search again when the task moves on instead of forcing an unsuitable tool.\n";
    }

    /// "[TOOLS] loaded: ... | find more: tool_search": the tools visible now.
    [[nodiscard]] std::string state_message() const {
        auto v = visible();
        v.erase(v.begin());
        return "[TOOLS] loaded: " + (v.empty() ? std::string("none") : join(v, ", ")) + " | find more: tool_search";
    }

    /// Answer a tool_search call (see search()); nullopt for any other name.
    [[nodiscard]] std::optional<result<tool_output>> handle_meta(std::string_view name, const json& args) {
        if (name != "tool_search") return std::nullopt;
        if (!args.is_object() || !args.contains("query") || !args["query"].is_string() ||
            args["query"].get<std::string>().find_first_not_of(" \t\r\n") == std::string::npos)
            return result<tool_output>(fail(errc::args_invalid, "tool_search: \"query\" is required and must be a non-empty string",
                                            "Call tool_search with {\"query\": \"what you want to do\"}."));
        std::size_t k = opt_.k;
        if (auto it = args.find("k"); it != args.end() && it->is_number_integer()) {
            const auto v = it->get<std::int64_t>();
            k = v < 1 ? 1 : static_cast<std::size_t>(v);
        }
        k = std::min(k, opt_.max_k);
        return search(args["query"].get<std::string>(), k);
    }

    /// tool.masked naming the tool_search call that loads the tool, or tool.unknown with the closest names.
    [[nodiscard]] result<tool_output> answer_hidden(std::string_view name) const {
        const std::string n(name);
        if (std::find(opt_.omitted.begin(), opt_.omitted.end(), n) != opt_.omitted.end())
            return fail(errc::capability_unsupported, n + " is not offered here", opt_.omitted_hint, json{{"tool", n}});
        if (!known_.count(n)) {
            auto close = closest_names(name, names_, 3);
            return fail(errc::tool_unknown, "no tool named \"" + n + "\"",
                        close.empty() ? "Call tool_search with a description of what you want to do."
                                      : "Did you mean " + join(close, ", ") + "? Call tool_search to load it.",
                        json{{"candidates", close}});
        }
        return fail(errc::tool_masked, n + " exists but is not loaded",
                    "Call tool_search with {\"query\": \"" + n + "\"} (or a description of the task), then call " + n +
                        " again.",
                    json{{"tool", n}});
    }

    /// After a successful call, keep the tool surfaced and learn the query that found it (learn_from_calls).
    void observe_call(std::string_view name, const json&, bool ok) {
        if (!retriever_) return;
        const std::string n(name);
        if (!ok || !known_.count(n)) return;
        touch(n);  // a used tool stays loaded
        if (!opt_.learn_from_calls) return;
        for (auto it = searches_.rbegin(); it != searches_.rend(); ++it) {
            if (std::find(it->hits.begin(), it->hits.end(), n) == it->hits.end()) continue;
            if (it->credited.insert(n).second) {
                learn_from_use(n, it->query);
                if (opt_.learn_from_user_messages && !it->user_message.empty()) learn_from_use(n, it->user_message);
            }
            break;
        }
    }

    /// Moves whenever the visible set changes.
    [[nodiscard]] std::uint64_t version() const noexcept { return signal_.version(); }

    // --- optional capabilities -----------------------------------------------------------------
    /// Install the callback run when version() moves.
    void set_on_change(std::function<void(std::uint64_t)> cb) { signal_.set_on_change(std::move(cb)); }
    /// Remember the user's latest message (learned with a query when learn_from_user_messages).
    void on_user_message(std::string_view text) { last_user_message_.assign(text); }

    // --- API -----------------------------------------------------------------------------------
    /// Search and surface the top k tools (the tool_search meta-tool).
    [[nodiscard]] result<tool_output> search(std::string_view query, std::size_t k) {
        if (!retriever_) return fail(errc::internal, "router: search before bind()");
        if (retriever_->pending() >= std::max<std::size_t>(opt_.relearn_batch, 1)) retriever_->rebuild();
        if constexpr (tool_retriever<Embedder>::batched) {
            retriever_->refresh();
            if (retriever_->vectors_due()) retriever_->retry_vectors();
        }
        auto hits = retriever_->search(query, k);
        // An exact tool name in the query goes first.
        std::vector<std::string> found;
        const std::string q(trim(query));
        if (known_.count(q)) found.push_back(q);
        for (const auto& h : hits) {
            const auto& name = retriever_->doc(h.doc).name;
            if (found.size() >= k) break;
            if (std::find(found.begin(), found.end(), name) == found.end()) found.push_back(name);
        }
        const auto before = visible();
        for (auto it = found.rbegin(); it != found.rend(); ++it) touch(*it);
        if (visible() != before) signal_.bump();
        searches_.push_back({std::string(query), last_user_message_, found, {}});
        while (searches_.size() > std::max<std::size_t>(opt_.searches_remembered, 1)) searches_.pop_front();

        if (found.empty())
            return tool_output::text("No tool matches \"" + std::string(query) + "\". Try other words for the task.");
        std::string text = "Tools for \"" + std::string(query) + "\" (callable from your next step):";
        json tools = json::array();
        for (const auto& name : found) {
            const auto i = retriever_->index().find(name);
            const std::string& desc = retriever_->doc(static_cast<std::size_t>(i)).description;
            const auto& [title, summary] = summaries_[name];
            text += "\n- " + name + ": " + summary;
            json t{{"name", name}, {"description", desc}};
            if (!title.empty()) t["title"] = title;
            tools.push_back(std::move(t));
        }
        tool_output o = tool_output::text(std::move(text));
        if (opt_.reference_blocks)
            for (const auto& name : found) o.content.push_back(content_block::make_tool_reference(name));
        o.structured = json{{"query", std::string(query)}, {"tools", std::move(tools)}};
        return o;
    }

    /// Teach the router an example request for a tool (applied before the next search).
    bool learn(std::string_view tool, std::string_view example) {
        return retriever_ && retriever_->add_example(tool, example);
    }

    /// The examples learned from calls per tool, oldest first (what on_learn was told, within
    /// max_learned_per_tool).
    [[nodiscard]] std::map<std::string, std::vector<std::string>> learned() const {
        std::map<std::string, std::vector<std::string>> out;
        for (const auto& [tool, texts] : learned_) out[tool] = {texts.begin(), texts.end()};
        return out;
    }

    /// Every example the router holds per tool (declared + learned), for persistence.
    [[nodiscard]] std::map<std::string, std::vector<std::string>> examples() const {
        std::map<std::string, std::vector<std::string>> out;
        if (!retriever_) return out;
        for (std::size_t i = 0; i < retriever_->size(); ++i)
            if (!retriever_->doc(i).examples.empty()) out[retriever_->doc(i).name] = retriever_->doc(i).examples;
        return out;
    }

    /// The conversation's state, to save with a session: {"masker": "router", "surfaced": [tool, ...] (most
    /// recently used first), "searches": [{"query", "user_message", "hits", "credited"}, ...] (oldest first),
    /// "learned": {tool: [example, ...]}, "last_user_message": text}.
    [[nodiscard]] json save_state() const {
        json searches = json::array();
        for (const auto& r : searches_)
            searches.push_back(json{{"query", r.query}, {"user_message", r.user_message}, {"hits", r.hits},
                                    {"credited", std::set<std::string>(r.credited.begin(), r.credited.end())}});
        json learned = json::object();
        for (const auto& [tool, texts] : learned_) learned[tool] = std::vector<std::string>(texts.begin(), texts.end());
        return json{{"masker", "router"}, {"surfaced", surfaced()}, {"searches", std::move(searches)},
                    {"learned", std::move(learned)}, {"last_user_message", last_user_message_}};
    }

    /// Return to a state save_state() returned (learned examples go back into the index, not twice when
    /// router_options::examples already has them; on_learn is not called); args.invalid, the router unchanged,
    /// for another masker's state, a malformed one or a tool the bound catalogue lacks.
    [[nodiscard]] result<void> restore_state(const json& saved) {
        if (auto ok = detail::check_state_kind(saved, "router"); !ok) return ok;
        const std::string where = "router state";
        auto unknown = [&](const std::string& field, const std::string& tool) {
            return fail(errc::args_invalid, where + ": " + field + " names \"" + tool + "\", a tool the bound catalogue does not have",
                        "Restore into a router bound to the tools the state was saved with, or start the session afresh.");
        };
        auto surfaced = detail::state_strings(saved, "surfaced", where);
        if (!surfaced) return fail(surfaced.error());
        for (const auto& t : *surfaced)
            if (!known_.count(t)) return unknown("\"surfaced\"", t);
        auto last = detail::state_string(saved, "last_user_message", where);
        if (!last) return fail(last.error());
        const auto ss = saved.find("searches");
        if (ss == saved.end() || !ss->is_array())
            return fail(errc::args_invalid, where + ": \"searches\" is missing or not an array", std::string(detail::state_hint));
        std::deque<search_record> searches;
        for (std::size_t i = 0; i < ss->size(); ++i) {
            const json& s = (*ss)[i];
            const std::string at = where + ": searches[" + std::to_string(i) + "]";
            if (!s.is_object()) return fail(errc::args_invalid, at + " is not an object", std::string(detail::state_hint));
            auto query = detail::state_string(s, "query", at);
            if (!query) return fail(query.error());
            auto user = detail::state_string(s, "user_message", at);
            if (!user) return fail(user.error());
            auto hits = detail::state_strings(s, "hits", at);
            if (!hits) return fail(hits.error());
            auto credited = detail::state_strings(s, "credited", at);
            if (!credited) return fail(credited.error());
            for (const auto* list : {&*hits, &*credited})
                for (const auto& t : *list)
                    if (!known_.count(t)) return unknown(at, t);
            searches.push_back({std::move(*query), std::move(*user), std::move(*hits),
                                std::unordered_set<std::string>(credited->begin(), credited->end())});
        }
        const auto ls = saved.find("learned");
        if (ls == saved.end() || !ls->is_object())
            return fail(errc::args_invalid, where + ": \"learned\" is missing or not an object", std::string(detail::state_hint));
        std::map<std::string, std::deque<std::string>> learned;
        for (auto it = ls->begin(); it != ls->end(); ++it) {
            if (!known_.count(it.key())) return unknown("\"learned\"", it.key());
            auto texts = detail::state_strings(*ls, it.key(), where + ": \"learned\"");
            if (!texts) return fail(texts.error());
            for (const auto& t : *texts)
                if (t.find_first_not_of(" \t\r\n") == std::string::npos)
                    return fail(errc::args_invalid, where + ": \"learned\" holds an empty example for \"" + it.key() + "\"",
                                std::string(detail::state_hint));
            auto& mine = learned[it.key()];
            mine.assign(texts->begin(), texts->end());
            while (opt_.max_learned_per_tool > 0 && mine.size() > opt_.max_learned_per_tool) mine.pop_front();
        }
        // Everything checked: replace the state.
        const auto before = visible();
        if (retriever_) {
            bool changed = false;
            for (const auto& [tool, texts] : learned_)
                for (const auto& t : texts) changed = retriever_->remove_example(tool, t) || changed;
            for (const auto& [tool, texts] : learned) {
                const auto i = retriever_->index().find(tool);
                if (i < 0) continue;
                for (const auto& t : texts) {
                    const auto& ex = retriever_->doc(static_cast<std::size_t>(i)).examples;
                    if (std::find(ex.begin(), ex.end(), t) == ex.end()) changed = retriever_->add_example(tool, t) || changed;
                }
            }
            if (changed) retriever_->rebuild();
        }
        learned_ = std::move(learned);
        surfaced_.clear();
        for (auto it = surfaced->rbegin(); it != surfaced->rend(); ++it) touch(*it);
        while (searches.size() > std::max<std::size_t>(opt_.searches_remembered, 1)) searches.pop_front();
        searches_ = std::move(searches);
        last_user_message_ = std::move(*last);
        if (visible() != before) signal_.bump();
        return {};
    }

    /// With a batch embedder: wait up to `timeout` for the tools' vectors asked for at bind() (or since), and
    /// put them in use; true when searches fuse them afterwards. Without one: true for a hybrid router.
    bool wait_for_vectors(std::chrono::milliseconds timeout) {
        return retriever_ && retriever_->wait_for_vectors(timeout);
    }

    /// The retriever over the bound catalogue; null before bind().
    [[nodiscard]] const tool_retriever<Embedder>* retriever() const noexcept { return retriever_.get(); }
    /// The surfaced tools, most recently used first.
    [[nodiscard]] std::vector<std::string> surfaced() const { return {surfaced_.begin(), surfaced_.end()}; }
    /// What bind() found wrong: pinned tools missing from the toolbox.
    [[nodiscard]] const std::vector<std::string>& problems() const noexcept { return problems_; }
    /// The options in use.
    [[nodiscard]] const router_options& options() const noexcept { return opt_; }

private:
    struct search_record {
        std::string query;
        std::string user_message;
        std::vector<std::string> hits;
        std::unordered_set<std::string> credited;
    };

    static std::string_view trim(std::string_view s) {
        const auto b = s.find_first_not_of(" \t\r\n\"'`");
        if (b == std::string_view::npos) return {};
        const auto e = s.find_last_not_of(" \t\r\n\"'`");
        return s.substr(b, e - b + 1);
    }
    // One example learned from a call: not twice for a tool, the tool's oldest learned one out
    // past max_learned_per_tool, then on_learn.
    void learn_from_use(const std::string& tool, const std::string& text) {
        auto& mine = learned_[tool];
        if (std::find(mine.begin(), mine.end(), text) != mine.end()) return;
        if (!retriever_->add_example(tool, text)) return;
        mine.push_back(text);
        while (opt_.max_learned_per_tool > 0 && mine.size() > opt_.max_learned_per_tool) {
            retriever_->remove_example(tool, mine.front());
            mine.pop_front();
        }
        if (opt_.on_learn) opt_.on_learn(tool, text);
    }
    [[nodiscard]] bool is_pinned(const std::string& n) const {
        return std::find(opt_.pinned.begin(), opt_.pinned.end(), n) != opt_.pinned.end();
    }
    void touch(const std::string& n) {
        if (is_pinned(n)) return;
        auto it = std::find(surfaced_.begin(), surfaced_.end(), n);
        if (it != surfaced_.end()) surfaced_.erase(it);
        surfaced_.push_front(n);
        while (surfaced_.size() > std::max<std::size_t>(opt_.max_visible, 1)) surfaced_.pop_back();
    }

    router_options opt_;
    Embedder embedder_;
    std::unique_ptr<tool_retriever<Embedder>> retriever_;
    /// Per tool of the catalogue: its title and the line tool_search shows (tool_summary).
    std::unordered_map<std::string, std::pair<std::string, std::string>> summaries_;
    std::vector<std::string> names_;
    std::unordered_set<std::string> known_;
    std::deque<std::string> surfaced_;  // most recently used first
    std::deque<search_record> searches_;
    std::map<std::string, std::deque<std::string>> learned_;  // per tool, oldest first
    std::string last_user_message_;
    std::vector<std::string> problems_;
    visibility_signal signal_;
};

static_assert(masker<router<>>);
static_assert(observable_masker<router<>>);
static_assert(message_aware_masker<router<>>);

}  // namespace agentkit
