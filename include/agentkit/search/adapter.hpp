// agentkit/search/adapter.hpp — what a backend's wire format is to agentkit: an adapter that
// writes the HTTP request for a query (build) and reads the service's answer into results
// (parse), with its name, the environment variable of its key and its default URL. The four
// adapters (searxng.hpp, brave.hpp, tavily.hpp, serper.hpp) are small because the rest is shared:
// http_backend.hpp sends the request and maps statuses to errors, and the helpers here read a
// body without ever crashing on one (a body that is not JSON, is cut short or has the wrong
// shape is a `search.malformed` error naming the backend and what was wrong).
//
//   struct my_wire {
//       static constexpr std::string_view name = "mine", key_env = "MINE_KEY", default_url = "https://...";
//       static net::client_request build(const query& q, const endpoint& e);
//       static result<results> parse(std::string_view body, const query& q);
//   };
//   static_assert(agentkit::search::wire_adapter<my_wire>);
#pragma once

#include <agentkit/core/http.hpp>
#include <agentkit/core/error.hpp>
#include <agentkit/core/json.hpp>
#include <agentkit/core/result.hpp>
#include <agentkit/search/query.hpp>

#include <cctype>
#include <concepts>
#include <cstddef>
#include <string>
#include <string_view>
#include <utility>

namespace agentkit::search {

/// Where a backend is and how it is authenticated.
struct endpoint {
    std::string url;  ///< the service's search URL (an adapter's default_url unless configured)
    std::string key;  ///< the API key ("" for a backend without one); sent in a header, never shown
};

/// A backend's wire format: a name, the environment variable its key is read from ("" when it
/// needs none), the URL used when none is configured ("" when it must be configured), the
/// request for a query and the reading of an answer's body (a 2xx one; http_backend handles the
/// other statuses).
template <class A>
concept wire_adapter = requires(const query& q, const endpoint& e, std::string_view body) {
    { A::name } -> std::convertible_to<std::string_view>;
    { A::key_env } -> std::convertible_to<std::string_view>;
    { A::default_url } -> std::convertible_to<std::string_view>;
    { A::build(q, e) } -> std::same_as<net::client_request>;
    { A::parse(body, q) } -> std::same_as<result<results>>;
};

namespace detail {

/// A JSON reader that only notes where the text stops being JSON (no value is built).
struct error_position : nlohmann::json_sax<json> {
    std::size_t byte = 0;  ///< where parsing failed (the text's size: it ended early)
    bool null() override { return true; }
    bool boolean(bool) override { return true; }
    bool number_integer(number_integer_t) override { return true; }
    bool number_unsigned(number_unsigned_t) override { return true; }
    bool number_float(number_float_t, const string_t&) override { return true; }
    bool string(string_t&) override { return true; }
    bool binary(binary_t&) override { return true; }
    bool start_object(std::size_t) override { return true; }
    bool key(string_t&) override { return true; }
    bool end_object() override { return true; }
    bool start_array(std::size_t) override { return true; }
    bool end_array() override { return true; }
    bool parse_error(std::size_t position, const std::string&, const nlohmann::detail::exception&) override {
        byte = position;
        return false;
    }
};

}  // namespace detail

/// The `search.malformed` error of backend `backend`: `what` was wrong with its answer.
[[nodiscard]] inline error malformed_answer(std::string_view backend, std::string what) {
    return error(errc::search_malformed, std::string(backend) + ": the search backend's answer could not be read: " + std::move(what),
                 "Search again; if it keeps failing, the backend (or the --search-url) does not speak this backend's API.",
                 json{{"backend", backend}});
}

/// The body as a JSON object, or `search.malformed`: not JSON (saying where it stops: a body cut
/// short is named as such), or JSON that is not an object. Never throws.
[[nodiscard]] inline result<json> read_object(std::string_view backend, std::string_view body) {
    if (body.empty()) return fail(malformed_answer(backend, "the body is empty"));
    json j = json::parse(body.begin(), body.end(), nullptr, false);
    if (j.is_discarded()) {
        // tell a truncated body (valid up to its end) from one that is not JSON at all
        detail::error_position where;
        (void)json::sax_parse(body.begin(), body.end(), &where, json::input_format_t::json, false);
        const bool truncated = where.byte >= body.size();
        return fail(malformed_answer(backend, truncated ? "the JSON ends early (a truncated answer of " + std::to_string(body.size()) + " bytes)"
                                                        : "the body is not JSON"));
    }
    if (!j.is_object()) return fail(malformed_answer(backend, "the JSON is not an object"));
    return j;
}

/// The string member `key` of object `o`, "" when absent, null or not a string (numbers are
/// written out).
[[nodiscard]] inline std::string text_of(const json& o, std::string_view key) {
    if (!o.is_object()) return {};
    auto it = o.find(std::string(key));
    if (it == o.end()) return {};
    if (it->is_string()) return it->get<std::string>();
    if (it->is_number()) return it->dump();
    return {};
}

/// `s` as plain text: HTML tags removed (some backends mark the query's words with <strong>),
/// the common entities decoded (&amp; &lt; &gt; &quot; &#39; &#x27; &nbsp;), runs of white space
/// made one space.
[[nodiscard]] inline std::string plain_text(std::string_view s) {
    static constexpr std::pair<std::string_view, std::string_view> entities[] = {
        {"&amp;", "&"}, {"&lt;", "<"}, {"&gt;", ">"}, {"&quot;", "\""}, {"&#39;", "'"}, {"&#x27;", "'"}, {"&nbsp;", " "}};
    std::string out;
    out.reserve(s.size());
    for (std::size_t i = 0; i < s.size();) {
        const char c = s[i];
        if (c == '<') {
            const std::size_t end = s.find('>', i);
            const bool tag = end != std::string_view::npos && end > i + 1 &&
                             (std::isalpha(static_cast<unsigned char>(s[i + 1])) != 0 || s[i + 1] == '/');
            if (tag) {
                i = end + 1;
                continue;
            }
        } else if (c == '&') {
            bool decoded = false;
            for (const auto& [from, to] : entities)
                if (s.substr(i, from.size()) == from) {
                    out += to;
                    i += from.size();
                    decoded = true;
                    break;
                }
            if (decoded) continue;
        }
        if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
            if (!out.empty() && out.back() != ' ') out += ' ';
            ++i;
            continue;
        }
        out += c;
        ++i;
    }
    while (!out.empty() && out.back() == ' ') out.pop_back();
    return out;
}

/// The array member `key` of `o`: nullptr when absent or null; `search.malformed` when present
/// but not an array (a wrong shape is said, not taken for "no results").
[[nodiscard]] inline result<const json*> array_of(std::string_view backend, const json& o, std::string_view key) {
    auto it = o.find(std::string(key));
    if (it == o.end() || it->is_null()) return static_cast<const json*>(nullptr);
    if (!it->is_array()) return fail(malformed_answer(backend, "\"" + std::string(key) + "\" is not a list"));
    return &*it;
}

/// Append the hit read from result object `r` (its title, URL, date and snippet under the
/// given member names) when it has an http(s) URL; entries that are not objects or have no
/// usable URL are skipped (a backend's odd entry does not spoil the rest). Stops at the query's
/// count.
inline void add_hit(results& out, const query& q, const json& r, std::string_view title_key, std::string_view url_key,
                    std::string_view date_key, std::string_view snippet_key) {
    if (!r.is_object() || out.hits.size() >= static_cast<std::size_t>(q.count)) return;
    hit h;
    h.url = text_of(r, url_key);
    if (h.url.rfind("http://", 0) != 0 && h.url.rfind("https://", 0) != 0) return;
    h.title = plain_text(text_of(r, title_key));
    if (h.title.empty()) h.title = h.url;
    if (!date_key.empty()) h.date = text_of(r, date_key);
    h.snippet = plain_text(text_of(r, snippet_key));
    out.hits.push_back(std::move(h));
}

}  // namespace agentkit::search
