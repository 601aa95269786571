// agentkit/visibility/intent.hpp — deferred tool loading by intent class: the user's message
// picks a class, and only that class's tools are loaded.
//
//   agentkit::intent_classes<> m({
//       {.name = "chat", .description = "Conversation answered from knowledge", .tools = {},
//        .keywords = {{"hello", 2}, {"thank", 2}, {"explain", 1}}},
//       {.name = "browser", .description = "The web: search, open pages, click, fill forms",
//        .tools = {"browser_search", "browser_navigate", "browser_click"},
//        .keywords = {{"search", 2}, {"website", 2}, {"click", 2}, {"news", 1}},
//        .patterns = {{agentkit::intent_patterns::url, 3}}},
//       {.name = "local", .description = "Files and programs on this machine",
//        .tools = {"file_read", "file_write", "shell_exec"},
//        .keywords = {{"file", 2}, {"folder", 2}, {"run", 1}},
//        .patterns = {{agentkit::intent_patterns::file_path, 3}}},
//   }, {.fallback = {"browser", "local"}, .always = {"think"}});
//   agentkit::notify_user_message(m, "open https://example.com and read the top story");
//   // visible: request_tools, think, browser_search, browser_navigate, browser_click
//
// Each user message is classified into one or more host-declared classes; the visible tools
// are the union of their groups plus `always` tools and the `request_tools` meta-tool, which
// widens the set (by class or by tool name) when the classification was too narrow. The
// default classifier scores keywords (analysed like the router: case-folded, stemmed,
// multi-word phrases allowed) and regular-expression patterns, all weights host-configured;
// when nothing scores, the fallback classes apply (conservative by default: every class).
// A host classifier plugs in through the intent_classifier concept.
#pragma once

#include <agentkit/visibility/analyzer.hpp>
#include <agentkit/core/error.hpp>
#include <agentkit/core/json.hpp>
#include <agentkit/core/result.hpp>
#include <agentkit/core/strings.hpp>
#include <agentkit/tools/output.hpp>
#include <agentkit/tools/tool.hpp>
#include <agentkit/visibility/masker.hpp>
#include <agentkit/visibility/signal.hpp>

#include <algorithm>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <regex>
#include <set>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

namespace agentkit {

/// Ready-made patterns (ECMAScript syntax) for intent classes.
namespace intent_patterns {
/// A URL or a bare domain name (example.com, www.example.org).
inline constexpr const char* url = R"((https?://|www\.)\S+|\b[a-z0-9-]+\.(com|org|net|io|dev|ai|gov|edu|co)\b)";
/// A file path (/x, ./x, ~/x, C:\\x) or a file name with a common extension.
inline constexpr const char* file_path = R"((^|\s)(~|\.{1,2})?/[^\s]+|\b[A-Za-z]:\\|\b[\w-]+\.(txt|md|pdf|csv|json|ya?ml|docx?|xlsx?|py|js|ts|cpp|hpp|h|c|rs|go|log|sh)\b)";
/// An e-mail address.
inline constexpr const char* email = R"(\b[\w.+-]+@[\w-]+\.[\w.]+\b)";
/// Code: a Markdown code fence (three backticks) or one of the words def, class, function, \#include, import.
inline constexpr const char* code_block = R"(```|\b(def|class|function|#include|import)\b)";
}  // namespace intent_patterns

/// A keyword of an intent class and the score it adds when the message contains it.
struct weighted_keyword {
    std::string text;  ///< a word or a phrase ("pull request"); matched as analysed terms
    double weight = 1;  ///< added to the class's score when the message contains the keyword
};
/// A pattern of an intent class and the score it adds when the message matches it.
struct weighted_pattern {
    std::string regex;  ///< ECMAScript, matched case-insensitively anywhere in the message
    double weight = 1;  ///< added to the class's score when the message matches the pattern
};

/// A host-declared class of requests and the tools it needs.
struct intent_class {
    std::string name{};                ///< the class name (request_tools and the state message use it)
    std::string description{};         ///< what requests the class covers (listed in the system prompt)
    std::vector<std::string> tools{};  ///< the tool group (may be empty: chat-only)
    std::vector<weighted_keyword> keywords{};  ///< keywords that score for the class (keyword_classifier)
    std::vector<weighted_pattern> patterns{};  ///< patterns that score for the class (keyword_classifier)
};

/// The outcome of classifying one message: the chosen classes (by name) and, optionally,
/// every class's score.
struct intent_result {
    std::vector<std::string> classes;  ///< the chosen classes' names; empty: the fallback classes apply
    /// (class name, score) for every class, when the classifier reports them.
    std::vector<std::pair<std::string, double>> scores;
};

/// A classifier: prepared once with the classes, then asked for each message. It must not
/// throw (the masker falls back to its fallback classes if it does anyway).
template <class C>
concept intent_classifier = requires(C& c, const C& cc, const std::vector<intent_class>& classes, std::string_view msg) {
    { c.prepare(classes) } -> std::same_as<void>;
    { cc.classify(msg) } -> std::convertible_to<intent_result>;
};

/// The default classifier: keyword and pattern scoring. A class is chosen when its score
/// reaches `threshold` and at least `relative` × the best score (so "both" happens when two
/// classes are both clearly present, and a weak second signal does not widen the set).
class keyword_classifier {
public:
    /// When a class is chosen (see the class comment).
    struct options {
        double threshold = 1.0;  ///< the least score a class needs
        double relative = 0.5;   ///< the least fraction of the best score a class needs
    };
    keyword_classifier() = default;
    /// A classifier with these options.
    explicit keyword_classifier(options o) : opt_(o) {}

    /// Analyse the classes' keywords and compile their patterns (ones that fail go to bad_patterns()).
    void prepare(const std::vector<intent_class>& classes) {
        classes_.clear();
        for (const auto& c : classes) {
            prepared p;
            p.name = c.name;
            for (const auto& k : c.keywords) {
                auto terms = analyzer_.terms(k.text);
                if (!terms.empty()) p.keywords.push_back({std::move(terms), k.weight});
            }
            for (const auto& pat : c.patterns) {
                try {
                    p.patterns.push_back({std::regex(pat.regex, std::regex::ECMAScript | std::regex::icase), pat.weight});
                } catch (const std::regex_error&) {
                    bad_patterns_.push_back(c.name + ": " + pat.regex);
                }
            }
            classes_.push_back(std::move(p));
        }
    }

    /// Score every class against `message`; choose those that pass the threshold and the relative bar.
    [[nodiscard]] intent_result classify(std::string_view message) const {
        intent_result r;
        const auto terms = analyzer_.terms(message);
        const std::string text(message);
        double best = 0;
        std::vector<double> score(classes_.size(), 0.0);
        for (std::size_t i = 0; i < classes_.size(); ++i) {
            const auto& c = classes_[i];
            for (const auto& k : c.keywords)
                if (contains_phrase(terms, k.terms)) score[i] += k.weight;
            for (const auto& p : c.patterns) {
                try {
                    if (std::regex_search(text, p.re)) score[i] += p.weight;
                } catch (...) {  // regex complexity errors: the pattern simply does not score
                }
            }
            best = std::max(best, score[i]);
            r.scores.emplace_back(c.name, score[i]);
        }
        if (best >= opt_.threshold)
            for (std::size_t i = 0; i < classes_.size(); ++i)
                if (score[i] >= opt_.threshold && score[i] >= opt_.relative * best) r.classes.push_back(classes_[i].name);
        return r;
    }

    /// Patterns that failed to compile (they never score).
    [[nodiscard]] const std::vector<std::string>& bad_patterns() const noexcept { return bad_patterns_; }

private:
    struct keyword_rule {
        std::vector<std::string> terms;
        double weight;
    };
    struct pattern_rule {
        std::regex re;
        double weight;
    };
    struct prepared {
        std::string name;
        std::vector<keyword_rule> keywords;
        std::vector<pattern_rule> patterns;
    };
    static bool contains_phrase(const std::vector<std::string>& hay, const std::vector<std::string>& needle) {
        if (needle.empty() || needle.size() > hay.size()) return false;
        for (std::size_t i = 0; i + needle.size() <= hay.size(); ++i)
            if (std::equal(needle.begin(), needle.end(), hay.begin() + static_cast<std::ptrdiff_t>(i))) return true;
        return false;
    }

    options opt_{};
    text_analyzer analyzer_{};
    std::vector<prepared> classes_;
    std::vector<std::string> bad_patterns_;
};
static_assert(intent_classifier<keyword_classifier>);

/// A host classifier from a function: (message) -> class names.
class function_classifier {
public:
    /// The host function: a message in, the names of its classes out.
    using fn = std::function<std::vector<std::string>(std::string_view)>;
    function_classifier() = default;
    /// A classifier that asks `f`.
    explicit function_classifier(fn f) : f_(std::move(f)) {}
    /// Nothing to prepare: the function knows its classes.
    void prepare(const std::vector<intent_class>&) {}
    /// The classes `f` returns for `message` (none when `f` is empty or throws).
    [[nodiscard]] intent_result classify(std::string_view message) const {
        intent_result r;
        if (!f_) return r;
        try {
            r.classes = f_(message);
        } catch (...) {  // a host classifier never throws into the library
            r.classes.clear();
        }
        return r;
    }

private:
    fn f_;
};
static_assert(intent_classifier<function_classifier>);

/// How intent_classes chooses and widens the visible tools.
struct intent_options {
    /// Classes used when nothing scores (and before the first message). Empty: every class.
    std::vector<std::string> fallback;
    /// Host tools visible whatever the class (e.g. think, a read-only lookup).
    std::vector<std::string> always;
    /// Widening by request_tools lasts for the rest of the session (otherwise until the next
    /// user message).
    bool sticky_widening = true;
    /// request_tools results carry tool_reference blocks (Anthropic defer_loading).
    bool reference_blocks = true;
};

/// A masker that shows the tools of the classes the user's latest message falls into (see the file comment).
template <intent_classifier Classifier = keyword_classifier>
class intent_classes {
public:
    /// A masker over these classes, options and classifier; until the first message the fallback classes apply.
    explicit intent_classes(std::vector<intent_class> classes, intent_options o = {}, Classifier c = {})
        : classes_(std::move(classes)), opt_(std::move(o)), classifier_(std::move(c)) {
        classifier_.prepare(classes_);
        active_ = fallback_classes();
    }

    // --- masker ------------------------------------------------------------------------------
    /// Take the host's catalogue; classes or `always` tools naming unknown tools become problems().
    void bind(const std::vector<tool_info>& catalogue) {
        catalogue_.clear();
        known_.clear();
        for (const auto& t : catalogue) {
            catalogue_.push_back(t.name);
            known_.insert(t.name);
        }
        problems_.clear();
        for (const auto& c : classes_)
            for (const auto& t : c.tools)
                if (!known_.count(t)) problems_.push_back("class \"" + c.name + "\" lists unknown tool \"" + t + "\"");
        for (const auto& t : opt_.always)
            if (!known_.count(t)) problems_.push_back("always-visible tool \"" + t + "\" is unknown");
        recompute();
        signal_.bump();
    }

    /// The request_tools meta-tool (arguments: classes, tools, reason).
    [[nodiscard]] std::vector<tool_info> meta_tools() const {
        tool_info t;
        t.name = "request_tools";
        std::string classes;
        for (const auto& c : classes_) classes += (classes.empty() ? "" : ", ") + c.name;
        t.description = "Load more tools when the ones you have do not fit the task: name classes (" + classes +
                        ") or tools. With neither, every tool is loaded.";
        json class_enum = json::array();
        for (const auto& c : classes_) class_enum.push_back(c.name);
        t.input_schema = json{
            {"type", "object"},
            {"properties",
             {{"classes", {{"type", "array"}, {"items", {{"type", "string"}, {"enum", class_enum}}}, {"description", "Classes to load"}}},
              {"tools", {{"type", "array"}, {"items", {{"type", "string"}}}, {"description", "Tool names to load"}}},
              {"reason", {{"type", "string"}, {"description", "Why the tools are needed"}}}}},
            {"additionalProperties", false}};
        return {t};
    }

    /// True for request_tools and for the tools of the active classes, `always` and requested ones.
    [[nodiscard]] bool is_visible(std::string_view name) const {
        return name == "request_tools" || visible_set_.count(std::string(name)) != 0;
    }

    /// request_tools, then the visible host tools in catalogue order.
    [[nodiscard]] std::vector<std::string> visible() const {
        std::vector<std::string> out{"request_tools"};
        for (const auto& t : catalogue_)
            if (visible_set_.count(t)) out.push_back(t);
        return out;
    }

    /// The tool-loading instructions and the list of classes (stable).
    [[nodiscard]] std::string prompt_section() const {
        std::string s = "## Tool loading\nOnly the tools for the kind of request at hand are loaded. If you need a tool "
                        "that is not loaded, call request_tools with its class or its name; do not give up or guess.\n"
                        "Classes:\n";
        for (const auto& c : classes_) {
            s += "- " + c.name;
            if (!c.description.empty()) s += ": " + c.description;
            s += c.tools.empty() ? " (no tools)\n" : " (" + count_noun(c.tools.size(), "tool") + ")\n";
        }
        return s;
    }

    /// "[TOOLS] loaded: <classes> ...": the active classes, widenings and tool count.
    [[nodiscard]] std::string state_message() const {
        std::string s = "[TOOLS] loaded: ";
        s += active_.empty() ? std::string("none") : join(active_, ", ");
        if (!extra_.empty()) s += " + " + join(extra_, ", ");
        s += " (" + count_noun(visible_set_.size(), "tool") + ") | more: request_tools";
        return s;
    }

    /// Answer a request_tools call (see request()); nullopt for any other name.
    [[nodiscard]] std::optional<result<tool_output>> handle_meta(std::string_view name, const json& args) {
        if (name != "request_tools") return std::nullopt;
        return request(args);
    }

    /// tool.masked naming the request_tools call that loads the tool, or tool.unknown for a name not in the toolbox.
    [[nodiscard]] result<tool_output> answer_hidden(std::string_view name) const {
        const std::string n(name);
        if (!known_.count(n)) {
            auto close = closest_names(name, catalogue_, 3);
            return fail(errc::tool_unknown, "no tool named \"" + n + "\"",
                        close.empty() ? "Call request_tools to load more tools." : "Did you mean " + join(close, ", ") + "?",
                        json{{"candidates", close}});
        }
        std::vector<std::string> in;
        for (const auto& c : classes_)
            if (std::find(c.tools.begin(), c.tools.end(), n) != c.tools.end()) in.push_back(c.name);
        std::string hint = "Call request_tools with {\"tools\": [\"" + n + "\"]}";
        if (!in.empty()) hint += " or {\"classes\": [\"" + in.front() + "\"]}";
        hint += ", then call " + n + " again.";
        return fail(errc::tool_masked, n + " is not loaded for this request", std::move(hint),
                    json{{"tool", n}, {"classes", in}});
    }

    /// Ignores the call.
    void observe_call(std::string_view, const json&, bool) {}
    /// Moves whenever the visible set changes.
    [[nodiscard]] std::uint64_t version() const noexcept { return signal_.version(); }

    // --- optional capabilities -----------------------------------------------------------------
    /// Install the callback run when version() moves.
    void set_on_change(std::function<void(std::uint64_t)> cb) { signal_.set_on_change(std::move(cb)); }

    /// Classify a new user message and load its classes' tools.
    void on_user_message(std::string_view text) {
        intent_result r;
        try {
            r = classifier_.classify(text);
        } catch (...) {
            r = {};
        }
        std::vector<std::string> chosen;
        for (const auto& c : r.classes)
            if (find_class(c) && std::find(chosen.begin(), chosen.end(), c) == chosen.end()) chosen.push_back(c);
        if (chosen.empty()) chosen = fallback_classes();
        last_scores_ = std::move(r.scores);
        active_ = std::move(chosen);
        if (!opt_.sticky_widening) {
            extra_.clear();
            extra_tools_.clear();
        }
        update();
    }

    /// The conversation's state, to save with a session: {"masker": "intent_classes", "active": [class, ...],
    /// "extra": [class, ...], "extra_tools": [tool, ...], "last_scores": [[class, score], ...]}.
    [[nodiscard]] json save_state() const {
        json scores = json::array();
        for (const auto& [name, score] : last_scores_) scores.push_back(json::array({name, score}));
        return json{{"masker", "intent_classes"}, {"active", active_}, {"extra", extra_},
                    {"extra_tools", extra_tools_}, {"last_scores", std::move(scores)}};
    }

    /// Return to a state save_state() returned; args.invalid, the masker unchanged, for another masker's state, a
    /// malformed one, or a class or tool it does not have.
    [[nodiscard]] result<void> restore_state(const json& saved) {
        if (auto ok = detail::check_state_kind(saved, "intent_classes"); !ok) return ok;
        const std::string where = "intent_classes state";
        auto active = detail::state_strings(saved, "active", where);
        if (!active) return fail(active.error());
        auto extra = detail::state_strings(saved, "extra", where);
        if (!extra) return fail(extra.error());
        auto tools = detail::state_strings(saved, "extra_tools", where);
        if (!tools) return fail(tools.error());
        std::vector<std::string> names;
        for (const auto& c : classes_) names.push_back(c.name);
        for (const auto* list : {&*active, &*extra})
            for (const auto& c : *list)
                if (!find_class(c))
                    return fail(errc::args_invalid, where + ": no class named \"" + c + "\"",
                                "Restore a state saved with the same classes (" + join(names, ", ") + "), or start the session afresh.");
        for (const auto& t : *tools)
            if (!known_.count(t))
                return fail(errc::args_invalid, where + ": the bound catalogue has no tool named \"" + t + "\"",
                            "Restore into a masker bound to the tools the state was saved with, or start the session afresh.");
        const auto sc = saved.find("last_scores");
        if (sc == saved.end() || !sc->is_array())
            return fail(errc::args_invalid, where + ": \"last_scores\" is missing or not an array", std::string(detail::state_hint));
        std::vector<std::pair<std::string, double>> scores;
        for (std::size_t i = 0; i < sc->size(); ++i) {
            const json& p = (*sc)[i];
            if (!p.is_array() || p.size() != 2 || !p[0].is_string() || !p[1].is_number())
                return fail(errc::args_invalid, where + ": \"last_scores\"[" + std::to_string(i) + "] is not a [class, score] pair",
                            std::string(detail::state_hint));
            scores.emplace_back(p[0].get<std::string>(), p[1].get<double>());
        }
        active_ = std::move(*active);
        extra_ = std::move(*extra);
        extra_tools_ = std::set<std::string>(tools->begin(), tools->end());
        last_scores_ = std::move(scores);
        update();
        return {};
    }

    // --- API -----------------------------------------------------------------------------------
    /// The classes chosen for the latest message (or the fallback classes).
    [[nodiscard]] const std::vector<std::string>& active_classes() const noexcept { return active_; }
    /// Every class's score for the latest message, as the classifier reported them.
    [[nodiscard]] const std::vector<std::pair<std::string, double>>& last_scores() const noexcept { return last_scores_; }
    /// The classes, as given.
    [[nodiscard]] const std::vector<intent_class>& classes() const noexcept { return classes_; }
    /// What bind() found wrong: unknown tool names in classes or `always`.
    [[nodiscard]] const std::vector<std::string>& problems() const noexcept { return problems_; }
    /// The classifier in use.
    [[nodiscard]] const Classifier& classifier() const noexcept { return classifier_; }

    /// The request_tools meta-tool.
    [[nodiscard]] result<tool_output> request(const json& args) {
        std::vector<std::string> want_classes, want_tools;
        if (args.is_object()) {
            auto read = [&](const char* key, std::vector<std::string>& into) -> bool {
                auto it = args.find(key);
                if (it == args.end() || it->is_null()) return true;
                if (it->is_string()) {
                    into.push_back(it->get<std::string>());
                    return true;
                }
                if (!it->is_array()) return false;
                for (const auto& v : *it) {
                    if (!v.is_string()) return false;
                    into.push_back(v.get<std::string>());
                }
                return true;
            };
            if (!read("classes", want_classes) || !read("tools", want_tools))
                return fail(errc::args_invalid, "request_tools: \"classes\" and \"tools\" are arrays of strings",
                            "Call request_tools with {\"classes\": [...]} or {\"tools\": [...]}.");
        } else if (!args.is_null()) {
            return fail(errc::args_invalid, "request_tools: arguments must be an object",
                        "Call request_tools with {\"classes\": [...]} or {\"tools\": [...]}.");
        }
        std::vector<std::string> names;
        for (const auto& c : classes_) names.push_back(c.name);
        for (const auto& c : want_classes)
            if (!find_class(c))
                return fail(errc::args_invalid, "request_tools: no class named \"" + c + "\"",
                            "Use one of: " + join(names, ", ") + ".", json{{"classes", names}});
        for (const auto& t : want_tools)
            if (!known_.count(t)) {
                auto close = closest_names(t, catalogue_, 3);
                return fail(errc::args_invalid, "request_tools: no tool named \"" + t + "\"",
                            close.empty() ? "Request a class instead: " + join(names, ", ") + "."
                                          : "Did you mean " + join(close, ", ") + "?",
                            json{{"candidates", close}});
            }
        if (want_classes.empty() && want_tools.empty()) want_classes = names;  // everything
        const auto before = visible_set_;
        for (const auto& c : want_classes)
            if (std::find(active_.begin(), active_.end(), c) == active_.end() &&
                std::find(extra_.begin(), extra_.end(), c) == extra_.end())
                extra_.push_back(c);
        for (const auto& t : want_tools) extra_tools_.insert(t);
        update();
        std::vector<std::string> added;
        for (const auto& t : catalogue_)
            if (visible_set_.count(t) && !before.count(t)) added.push_back(t);
        tool_output o = tool_output::text(added.empty() ? "Those tools were already loaded."
                                                        : "Loaded " + count_noun(added.size(), "tool") + ": " + join(added, ", ") + ".");
        if (opt_.reference_blocks)
            for (const auto& t : added) o.content.push_back(content_block::make_tool_reference(t));
        o.structured = json{{"loaded", added}};
        return o;
    }

private:
    [[nodiscard]] const intent_class* find_class(std::string_view n) const {
        for (const auto& c : classes_)
            if (c.name == n) return &c;
        return nullptr;
    }
    [[nodiscard]] std::vector<std::string> fallback_classes() const {
        std::vector<std::string> out;
        for (const auto& f : opt_.fallback)
            if (find_class(f)) out.push_back(f);
        if (out.empty() && opt_.fallback.empty())
            for (const auto& c : classes_) out.push_back(c.name);
        return out;
    }
    void recompute() {
        visible_set_.clear();
        auto add_class = [&](const std::string& n) {
            if (const auto* c = find_class(n))
                for (const auto& t : c->tools)
                    if (known_.count(t)) visible_set_.insert(t);
        };
        for (const auto& c : active_) add_class(c);
        for (const auto& c : extra_) add_class(c);
        for (const auto& t : extra_tools_) visible_set_.insert(t);
        for (const auto& t : opt_.always)
            if (known_.count(t)) visible_set_.insert(t);
    }
    void update() {
        const auto before = visible_set_;
        recompute();
        if (before != visible_set_) signal_.bump();
    }

    std::vector<intent_class> classes_;
    intent_options opt_;
    Classifier classifier_;
    std::vector<std::string> catalogue_;
    std::set<std::string> known_;
    std::vector<std::string> active_;
    std::vector<std::string> extra_;
    std::set<std::string> extra_tools_;
    std::set<std::string> visible_set_;
    std::vector<std::pair<std::string, double>> last_scores_;
    std::vector<std::string> problems_;
    visibility_signal signal_;
};

static_assert(masker<intent_classes<>>);
static_assert(message_aware_masker<intent_classes<>>);
static_assert(observable_masker<intent_classes<>>);

}  // namespace agentkit
