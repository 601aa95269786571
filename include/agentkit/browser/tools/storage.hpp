// agentkit/browser/tools/storage.hpp — browser tools: what the browser keeps for sites (Playwright
// MCP's storage capability, offered with --caps storage): cookies, localStorage and
// sessionStorage of the current page, and the storage state saved to and restored from a file.
// Values are the sites' own: agentkit's layout shows them as page data. The policy's secrets
// are redacted from results and from saved files alike.
// Part of browser/tools.hpp (include that): each tool, its argument struct and a factory;
// tools.hpp registers them in browser_tools().
#pragma once

#include <agentkit/browser/tools/playwright.hpp>
#include <agentkit/browser/tools/support.hpp>

#include <array>
#include <fstream>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

namespace agentkit::browser {

/// Arguments of browser_cookie_list.
struct cookie_list_args {
    std::optional<std::string> domain;  ///< only cookies whose domain contains this
    std::optional<std::string> path;    ///< only cookies whose path starts with this
    static constexpr auto agentkit_fields() {
        return fields(AGENTKIT_FIELD(cookie_list_args, domain, "Only domains containing this"),
                      AGENTKIT_FIELD(cookie_list_args, path, "Only paths starting with this"));
    }
};

/// Arguments of browser_cookie_get and browser_cookie_delete.
struct cookie_name_args {
    std::string name;  ///< the cookie's name
    static constexpr auto agentkit_fields() { return fields(AGENTKIT_FIELD(cookie_name_args, name, "Cookie name")); }
};

/// Arguments of browser_cookie_set.
struct cookie_set_args {
    std::string name;                     ///< its name
    std::string value;                    ///< its value
    std::optional<std::string> domain;    ///< its domain (none: the current page's host)
    std::optional<std::string> path;      ///< its path (none: "/")
    std::optional<double> expires;        ///< Unix time in seconds (none: a session cookie)
    std::optional<bool> httpOnly;         ///< hidden from the page's scripts
    std::optional<bool> secure;           ///< HTTPS only
    std::optional<std::string> sameSite;  ///< Strict, Lax or None
    static constexpr auto agentkit_fields() {
        return fields(AGENTKIT_FIELD(cookie_set_args, name, ""), AGENTKIT_FIELD(cookie_set_args, value, ""),
                      AGENTKIT_FIELD(cookie_set_args, domain, "Default: the page's host"), AGENTKIT_FIELD(cookie_set_args, path, "Default: /"),
                      AGENTKIT_FIELD(cookie_set_args, expires, "Unix time (s)"), AGENTKIT_FIELD(cookie_set_args, httpOnly, ""),
                      AGENTKIT_FIELD(cookie_set_args, secure, ""),
                      AGENTKIT_FIELD(cookie_set_args, sameSite, "", one_of("Strict", "Lax", "None")));
    }
};

/// Arguments of browser_*storage_get and browser_*storage_delete.
struct storage_key_args {
    std::string key;  ///< the item's key
    static constexpr auto agentkit_fields() { return fields(AGENTKIT_FIELD(storage_key_args, key, "Item key")); }
};

/// Arguments of browser_*storage_set.
struct storage_set_args {
    std::string key;    ///< the item's key
    std::string value;  ///< its value
    static constexpr auto agentkit_fields() {
        return fields(AGENTKIT_FIELD(storage_set_args, key, "Item key"), AGENTKIT_FIELD(storage_set_args, value, "Item value"));
    }
};

/// Arguments of browser_storage_state.
struct storage_save_args {
    std::optional<std::string> filename;  ///< the file (workspace-relative; none: storage-state-<time>.json in the output directory)
    static constexpr auto agentkit_fields() {
        return fields(AGENTKIT_FIELD(storage_save_args, filename, "File (default: the output directory)"));
    }
};

/// Arguments of browser_set_storage_state.
struct storage_load_args {
    std::string filename;  ///< the file to restore from (workspace-relative)
    static constexpr auto agentkit_fields() { return fields(AGENTKIT_FIELD(storage_load_args, filename, "State file to restore")); }
};

namespace detail {

/// A result with Playwright code (the storage and route tools): `text` (page data in agentkit's
/// layout when it is the sites') and, in Playwright's layout, its code.
inline result<tool_output> coded_result(tool_state& st, std::string text, std::string code, bool page_text) {
    if (pw_mode(st)) {
        pw::response resp;
        if (!text.empty()) resp.results.push_back(std::move(text));
        if (!code.empty()) resp.code.push_back(std::move(code));
        return pw_finish(st, std::move(resp), {});
    }
    return tool_output::text(page_text ? page_data(text, st.b.boundary()) : text);
}

/// Playwright's code for a call on the page's context or storage: TypeScript as Playwright
/// writes it; the other languages name the same call.
inline std::string storage_code(const tool_state& st, std::string_view object, std::string_view method, const std::vector<std::string>& args) {
    const auto lang = st.options.codegen;
    std::string list;
    for (const auto& a : args) list += (list.empty() ? "" : ", ") + pw::quote(a, lang);
    std::string obj(object);
    if (lang == codegen_language::python && obj == "context()") obj = "context";
    if (lang == codegen_language::csharp && obj == "context()") obj = "Context";
    return pw::statement(obj + "." + pw::call(method, list, lang), lang);
}

inline std::string cookie_line(const cookie& c, bool flags) {
    std::string s = c.name + "=" + c.value + " (domain: " + c.domain + ", path: " + c.path;
    if (flags)
        s += std::string(", httpOnly: ") + (c.http_only ? "true" : "false") + ", secure: " + (c.secure ? "true" : "false") +
             ", sameSite: " + (c.same_site.empty() ? std::string("Lax") : c.same_site);
    return s + ")";
}

}  // namespace detail

/// Make the browser_cookie_list tool.
template <class State>
auto cookie_list_tool(State& st) {
    tool_state* s = &st;
    return browser_tool<"browser_cookie_list">(
        st, "List cookies (optionally by domain/path).",
        [s](const cookie_list_args& a) -> result<tool_output> {
            auto all = s->b.cookies();
            if (!all) return fail(all.error());
            std::string text;
            for (const auto& c : *all) {
                if (a.domain && c.domain.find(*a.domain) == std::string::npos) continue;
                if (a.path && c.path.rfind(*a.path, 0) != 0) continue;
                if (!text.empty()) text += '\n';  // (appended in two steps: g++ -O3 warns falsely on a + b there)
                text += detail::cookie_line(c, false);
            }
            const bool none = text.empty();
            return detail::coded_result(*s, none ? "No cookies found" : std::move(text), detail::storage_code(*s, "context()", "cookies", {}),
                                          !none);
        },
        reading_traits);
}

/// Make the browser_cookie_get tool.
template <class State>
auto cookie_get_tool(State& st) {
    tool_state* s = &st;
    return browser_tool<"browser_cookie_get">(
        st, "Get a cookie by name.",
        [s](const cookie_name_args& a) -> result<tool_output> {
            auto all = s->b.cookies();
            if (!all) return fail(all.error());
            for (const auto& c : *all)
                if (c.name == a.name)
                    return detail::coded_result(*s, detail::cookie_line(c, true), detail::storage_code(*s, "context()", "cookies", {}), true);
            return detail::coded_result(*s, "Cookie '" + a.name + "' not found", detail::storage_code(*s, "context()", "cookies", {}), false);
        },
        reading_traits);
}

/// Make the browser_cookie_set tool.
template <class State>
auto cookie_set_tool(State& st) {
    tool_state* s = &st;
    return browser_tool<"browser_cookie_set">(
        st, "Set a cookie (domain, path, expires, httpOnly, secure, sameSite optional).",
        [s](const cookie_set_args& a) -> result<tool_output> {
            cookie c;
            c.name = a.name;
            c.value = a.value;
            c.domain = a.domain.value_or("");
            c.path = a.path.value_or("/");
            if (a.expires) c.expires = *a.expires;
            c.http_only = a.httpOnly.value_or(false);
            c.secure = a.secure.value_or(false);
            c.same_site = a.sameSite.value_or("");
            auto set = s->b.set_cookie(c);
            if (!set) return fail(set.error());
            nlohmann::ordered_json shown = {{"name", set->name}, {"value", set->value}, {"domain", set->domain}, {"path", set->path}};
            if (a.expires) shown["expires"] = *a.expires;
            if (a.httpOnly) shown["httpOnly"] = *a.httpOnly;
            if (a.secure) shown["secure"] = *a.secure;
            if (a.sameSite) shown["sameSite"] = *a.sameSite;
            std::string code = detail::pw_mode(*s) ? pw::statement("context().addCookies([" + shown.dump() + "])", s->options.codegen) : "";
            return detail::coded_result(*s, detail::pw_mode(*s) ? "" : "cookie " + set->name + " set for " + set->domain,
                                          std::move(code), false);
        },
        action_traits);
}

/// Make the browser_cookie_delete tool.
template <class State>
auto cookie_delete_tool(State& st) {
    tool_state* s = &st;
    return browser_tool<"browser_cookie_delete">(
        st, "Delete a cookie by name.",
        [s](const cookie_name_args& a) -> result<tool_output> {
            if (a.name.empty()) return fail(errc::args_invalid, "name the cookie to delete", "browser_cookie_clear deletes every cookie.");
            auto n = s->b.delete_cookies(a.name);
            if (!n) return fail(n.error());
            return detail::coded_result(*s, detail::pw_mode(*s) ? "" : std::to_string(*n) + " cookie(s) named " + a.name + " deleted",
                                          pw::statement("context().clearCookies({ name: " + pw::js_quote(a.name) + " })", s->options.codegen), false);
        },
        action_traits);
}

/// Make the browser_cookie_clear tool.
template <class State>
auto cookie_clear_tool(State& st) {
    tool_state* s = &st;
    return browser_tool<"browser_cookie_clear">(
        st, "Delete every cookie.",
        [s]() -> result<tool_output> {
            auto n = s->b.delete_cookies();
            if (!n) return fail(n.error());
            return detail::coded_result(*s, detail::pw_mode(*s) ? "" : std::to_string(*n) + " cookie(s) deleted",
                                          detail::storage_code(*s, "context()", "clearCookies", {}), false);
        },
        action_traits);
}

namespace detail {
inline std::string storage_object(storage_area area) { return area == storage_area::local ? "localStorage" : "sessionStorage"; }

template <fixed_string Name>
auto storage_list_tool(tool_state& st, storage_area area, std::string_view description) {
    tool_state* s = &st;
    return browser_tool<Name>(
        st, description,
        [s, area]() -> result<tool_output> {
            auto items = s->b.storage_items(area);
            if (!items) return fail(items.error());
            std::string text;
            for (const auto& i : *items) {
                if (!text.empty()) text += '\n';
                text += i.name + "=" + i.value;
            }
            const bool none = text.empty();
            return coded_result(*s, none ? "No " + storage_object(area) + " items found" : std::move(text),
                                  storage_code(*s, storage_object(area), "items", {}), !none);
        },
        reading_traits);
}

template <fixed_string Name>
auto storage_get_tool(tool_state& st, storage_area area, std::string_view description) {
    tool_state* s = &st;
    return browser_tool<Name>(
        st, description,
        [s, area](const storage_key_args& a) -> result<tool_output> {
            auto v = s->b.storage_value(area, a.key);
            if (!v) return fail(v.error());
            const std::string code = storage_code(*s, storage_object(area), "getItem", {a.key});
            if (!*v) return coded_result(*s, storage_object(area) + " key '" + a.key + "' not found", code, false);
            return coded_result(*s, a.key + "=" + **v, code, true);
        },
        reading_traits);
}

template <fixed_string Name>
auto storage_set_tool(tool_state& st, storage_area area, std::string_view description) {
    tool_state* s = &st;
    return browser_tool<Name>(
        st, description,
        [s, area](const storage_set_args& a) -> result<tool_output> {
            if (auto r = s->b.set_storage_item(area, a.key, a.value); !r) return fail(r.error());
            return coded_result(*s, pw_mode(*s) ? "" : storage_object(area) + " item " + a.key + " set",
                                  storage_code(*s, storage_object(area), "setItem", {a.key, a.value}), false);
        },
        action_traits);
}

template <fixed_string Name>
auto storage_delete_tool(tool_state& st, storage_area area, std::string_view description) {
    tool_state* s = &st;
    return browser_tool<Name>(
        st, description,
        [s, area](const storage_key_args& a) -> result<tool_output> {
            auto n = s->b.remove_storage_items(area, a.key);
            if (!n) return fail(n.error());
            return coded_result(*s, pw_mode(*s) ? "" : storage_object(area) + " item " + a.key + (*n ? " deleted" : " was not there"),
                                  storage_code(*s, storage_object(area), "removeItem", {a.key}), false);
        },
        action_traits);
}

template <fixed_string Name>
auto storage_clear_tool(tool_state& st, storage_area area, std::string_view description) {
    tool_state* s = &st;
    return browser_tool<Name>(
        st, description,
        [s, area]() -> result<tool_output> {
            auto n = s->b.remove_storage_items(area, std::nullopt);
            if (!n) return fail(n.error());
            return coded_result(*s, pw_mode(*s) ? "" : std::to_string(*n) + " " + storage_object(area) + " item(s) deleted",
                                  storage_code(*s, storage_object(area), "clear", {}), false);
        },
        action_traits);
}
}  // namespace detail

// The web storage tools: browser_localstorage_* and browser_sessionstorage_* (list, get, set,
// delete, clear), on the current page's origin (and, for sessionStorage, its tab).
/// Make the browser_localstorage_list tool.
template <class State> auto localstorage_list_tool(State& st) { return detail::storage_list_tool<"browser_localstorage_list">(st, storage_area::local, "List the page's localStorage."); }
/// Make the browser_localstorage_get tool.
template <class State> auto localstorage_get_tool(State& st) { return detail::storage_get_tool<"browser_localstorage_get">(st, storage_area::local, "Get a localStorage item."); }
/// Make the browser_localstorage_set tool.
template <class State> auto localstorage_set_tool(State& st) { return detail::storage_set_tool<"browser_localstorage_set">(st, storage_area::local, "Set a localStorage item."); }
/// Make the browser_localstorage_delete tool.
template <class State> auto localstorage_delete_tool(State& st) { return detail::storage_delete_tool<"browser_localstorage_delete">(st, storage_area::local, "Delete a localStorage item."); }
/// Make the browser_localstorage_clear tool.
template <class State> auto localstorage_clear_tool(State& st) { return detail::storage_clear_tool<"browser_localstorage_clear">(st, storage_area::local, "Clear the page's localStorage."); }
/// Make the browser_sessionstorage_list tool.
template <class State> auto sessionstorage_list_tool(State& st) { return detail::storage_list_tool<"browser_sessionstorage_list">(st, storage_area::session, "List the page's sessionStorage."); }
/// Make the browser_sessionstorage_get tool.
template <class State> auto sessionstorage_get_tool(State& st) { return detail::storage_get_tool<"browser_sessionstorage_get">(st, storage_area::session, "Get a sessionStorage item."); }
/// Make the browser_sessionstorage_set tool.
template <class State> auto sessionstorage_set_tool(State& st) { return detail::storage_set_tool<"browser_sessionstorage_set">(st, storage_area::session, "Set a sessionStorage item."); }
/// Make the browser_sessionstorage_delete tool.
template <class State> auto sessionstorage_delete_tool(State& st) { return detail::storage_delete_tool<"browser_sessionstorage_delete">(st, storage_area::session, "Delete a sessionStorage item."); }
/// Make the browser_sessionstorage_clear tool.
template <class State> auto sessionstorage_clear_tool(State& st) { return detail::storage_clear_tool<"browser_sessionstorage_clear">(st, storage_area::session, "Clear the page's sessionStorage."); }

/// Make the browser_storage_state tool: cookies and localStorage to a JSON file (Playwright's format).
template <class State>
auto storage_save_tool(State& st) {
    tool_state* s = &st;
    return browser_tool<"browser_storage_state">(
        st, "Save cookies and localStorage to a file, for browser_set_storage_state.",
        [s](const storage_save_args& a) -> result<tool_output> {
            auto state = s->b.save_storage();
            if (!state) return fail(state.error());
            auto file = detail::pw_output_file(*s, a.filename, "storage-state", "json");
            if (!file) return fail(file.error());
            auto path = detail::pw_write(*s, *file, to_json(*state).dump(2));
            if (!path) return fail(path.error());
            if (detail::pw_mode(*s))
                return detail::coded_result(*s, "- [Storage state](" + *path + ")",
                                              pw::statement("context().storageState({ path: " + pw::js_quote(*path) + " })", s->options.codegen),
                                              false);
            return tool_output::text("storage state saved to " + *path + ": " + std::to_string(state->cookies.size()) + " cookie(s), " +
                                     std::to_string(state->origins.size()) + " origin(s) with localStorage");
        },
        action_traits);
}

/// Make the browser_set_storage_state tool: replace cookies and localStorage with a file's.
template <class State>
auto storage_load_tool(State& st) {
    tool_state* s = &st;
    return browser_tool<"browser_set_storage_state">(
        st, "Restore cookies and localStorage from a file (clears the current ones first).",
        [s](const storage_load_args& a) -> result<tool_output> {
            if (a.filename.empty()) return fail(errc::args_invalid, "name the storage state file", "A file browser_storage_state saved.");
            auto file = detail::pw_model_file(*s, a.filename);
            if (!file) return fail(file.error());
            auto state = read_storage_state_file(file->string());
            if (!state) return fail(state.error());
            auto r = s->b.restore_storage(*state);
            if (!r) return fail(r.error());
            std::string text = detail::pw_mode(*s) ? "Storage state restored from " + a.filename
                                                   : "storage state restored from " + a.filename + ": " + std::to_string(r->cookies) +
                                                         " cookie(s), " + std::to_string(r->origins) + " origin(s) with localStorage";
            for (const auto& l : r->left_out) text += "\nleft out (policy): " + l;
            return detail::coded_result(*s, std::move(text),
                                          pw::statement("context().setStorageState(" + pw::js_quote(a.filename) + ")", s->options.codegen), false);
        },
        action_traits);
}

}  // namespace agentkit::browser
