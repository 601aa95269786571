// agentkit/browser/storage.hpp — what a browser keeps for the sites it visits: cookies, web
// storage (localStorage, sessionStorage) and a storage state, the whole of it in one JSON file
// (Playwright's format: `{"cookies": [...], "origins": [{"origin", "localStorage": [...]}]}`),
// so a state saved by either tool loads in the other.
//
//   auto state = b.save_storage();                      // cookies + every visited origin's localStorage
//   std::ofstream("state.json") << to_json(*state).dump(2);
//   auto back = agentkit::browser::parse_storage_state(json::parse(text));
//   auto report = b.restore_storage(*back);            // what the origin policy left out, said
#pragma once

#include <agentkit/core/json.hpp>
#include <agentkit/core/result.hpp>

#include <cstddef>
#include <fstream>
#include <sstream>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

namespace agentkit::browser {

/// A cookie of the browser's context.
struct cookie {
    std::string name;        ///< its name
    std::string value;       ///< its value
    std::string domain;      ///< "example.com" (host-only) or ".example.com" (the domain and its subdomains)
    std::string path = "/";  ///< the path it is sent for
    double expires = -1;     ///< Unix time in seconds; -1: a session cookie
    bool http_only = false;  ///< hidden from the page's scripts
    bool secure = false;     ///< sent over HTTPS only
    std::string same_site;   ///< "Strict", "Lax", "None" or "" (the browser's default)
};

/// Which of a page's web storage areas.
enum class storage_area {
    local,    ///< localStorage: per origin, kept across sessions
    session,  ///< sessionStorage: per origin and tab
};

/// "localStorage" / "sessionStorage".
[[nodiscard]] inline std::string_view storage_area_name(storage_area a) {
    return a == storage_area::local ? "localStorage" : "sessionStorage";
}

/// One item of a web storage area.
struct storage_item {
    std::string name;   ///< its key
    std::string value;  ///< its value
};

/// One origin's localStorage in a storage state.
struct origin_storage {
    std::string origin;                       ///< "https://example.com" (scheme, host, port)
    std::vector<storage_item> local_storage;  ///< its items
};

/// Everything a browser context keeps for its sites that a later session may reuse.
struct storage_state {
    std::vector<cookie> cookies;         ///< every cookie of the context
    std::vector<origin_storage> origins;  ///< the localStorage of every origin that has items
};

/// What restore_storage restored, and what it left out.
struct storage_restore {
    std::size_t cookies = 0;            ///< cookies set
    std::size_t origins = 0;            ///< origins whose localStorage was written
    std::vector<std::string> left_out;  ///< "cookie sid for evil.test: <rule>", one line each
};

/// A cookie as Playwright's storage state writes it.
[[nodiscard]] inline json to_json(const cookie& c) {
    return json{{"name", c.name},          {"value", c.value},   {"domain", c.domain},     {"path", c.path},
                {"expires", c.expires},    {"httpOnly", c.http_only}, {"secure", c.secure},
                {"sameSite", c.same_site.empty() ? std::string("Lax") : c.same_site}};
}

/// The state as a file holds it.
[[nodiscard]] inline json to_json(const storage_state& s) {
    json j = {{"cookies", json::array()}, {"origins", json::array()}};
    for (const auto& c : s.cookies) j["cookies"].push_back(to_json(c));
    for (const auto& o : s.origins) {
        json items = json::array();
        for (const auto& i : o.local_storage) items.push_back({{"name", i.name}, {"value", i.value}});
        j["origins"].push_back({{"origin", o.origin}, {"localStorage", std::move(items)}});
    }
    return j;
}

namespace detail {
inline result<std::string> state_string(const json& o, const char* key, const std::string& where, bool required) {
    auto it = o.find(key);
    if (it == o.end() || it->is_null()) {
        if (required) return fail(errc::args_invalid, where + " has no \"" + key + "\"", "Each entry needs \"" + std::string(key) + "\" (a string).");
        return std::string();
    }
    if (!it->is_string()) return fail(errc::args_invalid, where + "'s \"" + key + "\" is not a string");
    return it->get<std::string>();
}
}  // namespace detail

/// A storage state read from its JSON form (Playwright's format; unknown keys are ignored). An
/// entry without its name, a value of the wrong type or a sameSite other than Strict, Lax or
/// None is an error naming the entry.
[[nodiscard]] inline result<storage_state> parse_storage_state(const json& j) {
    if (!j.is_object()) return fail(errc::args_invalid, "a storage state is a JSON object with \"cookies\" and \"origins\"");
    storage_state s;
    if (auto it = j.find("cookies"); it != j.end() && !it->is_null()) {
        if (!it->is_array()) return fail(errc::args_invalid, "the storage state's \"cookies\" is not an array");
        for (std::size_t i = 0; i < it->size(); ++i) {
            const json& e = (*it)[i];
            const std::string where = "cookie " + std::to_string(i + 1);
            if (!e.is_object()) return fail(errc::args_invalid, where + " is not an object");
            cookie c;
            for (auto [key, field, required] : {std::tuple{"name", &c.name, true}, std::tuple{"value", &c.value, true},
                                                std::tuple{"domain", &c.domain, true}, std::tuple{"path", &c.path, false},
                                                std::tuple{"sameSite", &c.same_site, false}}) {
                auto v = detail::state_string(e, key, where, required);
                if (!v) return fail(v.error());
                if (!v->empty() || required) *field = std::move(*v);  // an empty path keeps "/"
            }
            if (!c.same_site.empty() && c.same_site != "Strict" && c.same_site != "Lax" && c.same_site != "None")
                return fail(errc::args_invalid, where + "'s sameSite is \"" + c.same_site + "\"", "sameSite is Strict, Lax or None.");
            if (auto x = e.find("expires"); x != e.end() && !x->is_null()) {
                if (!x->is_number()) return fail(errc::args_invalid, where + "'s \"expires\" is not a number");
                c.expires = x->get<double>();
            }
            for (auto [key, flag] : {std::pair{"httpOnly", &c.http_only}, std::pair{"secure", &c.secure}})
                if (auto x = e.find(key); x != e.end() && !x->is_null()) {
                    if (!x->is_boolean()) return fail(errc::args_invalid, where + "'s \"" + key + "\" is not true or false");
                    *flag = x->get<bool>();
                }
            s.cookies.push_back(std::move(c));
        }
    }
    if (auto it = j.find("origins"); it != j.end() && !it->is_null()) {
        if (!it->is_array()) return fail(errc::args_invalid, "the storage state's \"origins\" is not an array");
        for (std::size_t i = 0; i < it->size(); ++i) {
            const json& e = (*it)[i];
            const std::string where = "origin " + std::to_string(i + 1);
            if (!e.is_object()) return fail(errc::args_invalid, where + " is not an object");
            origin_storage o;
            auto name = detail::state_string(e, "origin", where, true);
            if (!name) return fail(name.error());
            o.origin = std::move(*name);
            if (auto ls = e.find("localStorage"); ls != e.end() && !ls->is_null()) {
                if (!ls->is_array()) return fail(errc::args_invalid, where + "'s \"localStorage\" is not an array");
                for (std::size_t k = 0; k < ls->size(); ++k) {
                    const std::string item_where = where + "'s item " + std::to_string(k + 1);
                    if (!(*ls)[k].is_object()) return fail(errc::args_invalid, item_where + " is not an object");
                    auto n = detail::state_string((*ls)[k], "name", item_where, true);
                    if (!n) return fail(n.error());
                    auto v = detail::state_string((*ls)[k], "value", item_where, true);
                    if (!v) return fail(v.error());
                    o.local_storage.push_back({std::move(*n), std::move(*v)});
                }
            }
            s.origins.push_back(std::move(o));
        }
    }
    return s;
}

/// A storage state file read and parsed; errors name the file and what is wrong with it.
[[nodiscard]] inline result<storage_state> read_storage_state_file(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) return fail(errc::not_found, "cannot read " + path, "Name a storage state file (browser_storage_state writes one).");
    std::ostringstream text;
    text << in.rdbuf();
    const json j = json::parse(text.str(), nullptr, false);
    if (j.is_discarded()) return fail(errc::args_invalid, path + " is not JSON", "Name a storage state file (browser_storage_state writes one).");
    auto st = parse_storage_state(j);
    if (!st) return fail(errc::args_invalid, path + ": " + st.error().message, st.error().hint);
    return st;
}

}  // namespace agentkit::browser
