// agentkit/browser/impl/storage.hpp — browser: what the browser keeps for sites: cookies, web storage, storage state.
// Part of browser.hpp (which includes it at its end); not an entry point of its own.
#pragma once

#include <agentkit/browser/browser.hpp>
#include <agentkit/core/random.hpp>

namespace agentkit::browser {

namespace detail {
// In the page's isolated world: one operation on localStorage or sessionStorage of the main
// frame's origin. An opaque origin (about:blank, data:) has none a site could read.
inline constexpr const char* kStorageScript = R"JS(function(area, op, key, value) {
  if (window.origin === 'null') return { error: 'opaque' };
  let s;
  try { s = area === 'local' ? window.localStorage : window.sessionStorage; }
  catch (e) { return { error: String(e && e.message || e) }; }
  if (!s) return { error: 'none' };
  try {
    switch (op) {
      case 'items': { const out = []; for (let i = 0; i < s.length; ++i) { const k = s.key(i); out.push([k, s.getItem(k)]); } return { items: out }; }
      case 'get': return { value: s.getItem(key) };
      case 'set': s.setItem(key, value); return {};
      case 'remove': { const had = s.getItem(key) !== null; s.removeItem(key); return { removed: had ? 1 : 0 }; }
      case 'clear': { const n = s.length; s.clear(); return { removed: n }; }
      case 'replace': { s.clear(); for (const [k, v] of value) s.setItem(k, v); return {}; }
    }
  } catch (e) { return { error: String(e && e.name === 'QuotaExceededError' ? 'quota' : (e && e.message || e)) }; }
  return { error: 'unknown operation ' + op };
})JS";

inline cookie cookie_from_cdp(const json& c) {
    cookie k;
    k.name = jstr(c, "name");
    k.value = jstr(c, "value");
    k.domain = jstr(c, "domain");
    k.path = jstr(c, "path");
    if (k.path.empty()) k.path = "/";
    const bool session = c.value("session", false);
    k.expires = session ? -1 : c.value("expires", -1.0);
    k.http_only = c.value("httpOnly", false);
    k.secure = c.value("secure", false);
    k.same_site = jstr(c, "sameSite");
    return k;
}

inline json cookie_to_cdp(const cookie& k) {
    json c = {{"name", k.name}, {"value", k.value}, {"domain", k.domain}, {"path", k.path.empty() ? std::string("/") : k.path},
              {"httpOnly", k.http_only}, {"secure", k.secure}};
    if (k.expires >= 0) c["expires"] = k.expires;
    if (!k.same_site.empty()) c["sameSite"] = k.same_site;
    return c;
}

// What a storage script's { error } means for the model.
inline error storage_error(storage_area area, const std::string& what, const std::string& url) {
    const std::string name(storage_area_name(area));
    if (what == "opaque")
        return error(errc::tool_failed, "the page " + url + " has no " + name + " of a site (its origin is opaque)",
                     "Navigate to the site first.");
    if (what == "quota") return error(errc::tool_failed, name + " of " + std::string(url_origin(url)) + " is full (its quota is used up)");
    return error(errc::tool_failed, name + " cannot be used on " + url + ": " + what);
}
}  // namespace detail

AGENTKIT_DECL auto browser::context_params() const -> json {
    json params = json::object();
    if (!eng_->context_id.empty()) params["browserContextId"] = eng_->context_id;
    return params;
}

AGENTKIT_DECL auto browser::origins_shown() -> std::map<std::string, tab_ptr> {
    std::map<std::string, tab_ptr> shown;
    std::lock_guard lock(eng_->mu);
    for (const auto& [id, t] : eng_->tabs)
        if (const auto o = detail::url_origin(t->url); !o.empty() && !t->closed && !t->crashed) shown.emplace(std::string(o), t);
    return shown;
}

AGENTKIT_DECL auto browser::cookies() -> result<std::vector<cookie>> {
    std::lock_guard op(op_mu_);
    auto e = ensure();
    if (!e) return fail(e.error());
    const json params = context_params();
    auto r = call("", "Storage.getCookies", params);
    if (!r) return fail(r.error());
    std::vector<cookie> out;
    for (const auto& c : detail::jarr(*r, "cookies")) out.push_back(detail::cookie_from_cdp(c));
    return out;
}

AGENTKIT_DECL auto browser::set_cookie(cookie c) -> result<cookie> {
    std::lock_guard op(op_mu_);
    if (c.name.empty() && c.value.empty()) return fail(errc::args_invalid, "a cookie needs a name or a value");
    for (const std::string* field : {&c.name, &c.value, &c.domain, &c.path})
        if (field->find_first_of(";\r\n") != std::string::npos || field->find('\0') != std::string::npos)
            return fail(errc::args_invalid, "a cookie's name, value, domain and path have no ';' and no line breaks");
    if (!c.same_site.empty() && c.same_site != "Strict" && c.same_site != "Lax" && c.same_site != "None")
        return fail(errc::args_invalid, "sameSite is Strict, Lax or None, not \"" + c.same_site + "\"");
    auto e = ensure();
    if (!e) return fail(e.error());
    if (c.domain.empty()) {  // the current page's host
        auto t = current_tab();
        if (!t) return fail(t.error());
        std::string url;
        {
            std::lock_guard lock(eng_->mu);
            url = (*t)->url;
        }
        auto u = agentkit::parse_url(url);  // the host as the page names it (the policy's canonical spelling is not the cookie's)
        if (!u || u->host.empty() || (u->scheme != "http" && u->scheme != "https"))
            return fail(errc::args_invalid, "the page " + url + " has no host to set a cookie for", "Name the cookie's domain, or navigate to the site first.");
        c.domain = u->host_text();
    }
    if (c.path.empty()) c.path = "/";
    if (auto v = opt_.policy.check_host(c.domain)) return fail(policy_error(*v, "setting a cookie"));
    json params = context_params();
    params["cookies"] = json::array({detail::cookie_to_cdp(c)});
    auto r = call("", "Storage.setCookies", params);
    if (!r) return fail(errc::args_invalid, "the browser refused the cookie " + c.name + ": " + r.error().message);
    return c;
}

AGENTKIT_DECL auto browser::delete_cookies(std::string_view name) -> result<std::size_t> {
    std::lock_guard op(op_mu_);
    auto e = ensure();
    if (!e) return fail(e.error());
    const json params = context_params();
    auto all = call("", "Storage.getCookies", params);
    if (!all) return fail(all.error());
    std::vector<cookie> gone;
    for (const auto& c : detail::jarr(*all, "cookies"))
        if (name.empty() || detail::jstr(c, "name") == name) gone.push_back(detail::cookie_from_cdp(c));
    if (gone.empty()) return std::size_t{0};
    if (name.empty()) {
        if (auto r = call("", "Storage.clearCookies", params); !r) return fail(r.error());
        return gone.size();
    }
    // one name: deleted through a page of this context (the Storage domain deletes all or none)
    auto t = current_tab();
    if (!t) return fail(t.error());
    std::string session;
    {
        std::lock_guard lock(eng_->mu);
        session = (*t)->session;
    }
    for (const auto& c : gone)
        if (auto r = call(session, "Network.deleteCookies", json{{"name", c.name}, {"domain", c.domain}, {"path", c.path}}); !r)
            return fail(r.error());
    return gone.size();
}

AGENTKIT_DECL auto browser::storage_call(storage_area area, std::string_view op, json args) -> result<json> {
    auto e = ensure();
    if (!e) return fail(e.error());
    auto t = current_tab();
    if (!t) return fail(t.error());
    std::string url;
    {
        std::lock_guard lock(eng_->mu);
        url = (*t)->url;
    }
    json call_args = json::array({json{{"value", area == storage_area::local ? "local" : "session"}}, json{{"value", std::string(op)}}});
    for (auto& a : args) call_args.push_back(json{{"value", std::move(a)}});
    auto r = isolated_call(*t, detail::kStorageScript, std::move(call_args));
    if (!r) return fail(redact_result(r.error()));
    if (r->is_object() && r->contains("error")) return fail(redact_result(detail::storage_error(area, detail::jstr(*r, "error"), url)));
    return *r;
}

AGENTKIT_DECL auto browser::storage_items(storage_area area) -> result<std::vector<storage_item>> {
    std::lock_guard op(op_mu_);
    auto r = storage_call(area, "items", json::array());
    if (!r) return fail(r.error());
    std::vector<storage_item> out;
    for (const auto& kv : detail::jarr(*r, "items"))
        if (kv.is_array() && kv.size() == 2 && kv[0].is_string() && kv[1].is_string())
            out.push_back({kv[0].get<std::string>(), kv[1].get<std::string>()});
    return out;
}

AGENTKIT_DECL auto browser::storage_value(storage_area area, std::string_view key) -> result<std::optional<std::string>> {
    std::lock_guard op(op_mu_);
    auto r = storage_call(area, "get", json::array({std::string(key)}));
    if (!r) return fail(r.error());
    const auto it = r->find("value");
    if (it == r->end() || !it->is_string()) return std::optional<std::string>{};
    return std::optional<std::string>{it->get<std::string>()};
}

AGENTKIT_DECL auto browser::set_storage_item(storage_area area, std::string_view key, std::string_view value) -> result<void> {
    std::lock_guard op(op_mu_);
    auto r = storage_call(area, "set", json::array({std::string(key), std::string(value)}));
    if (!r) return fail(r.error());
    return {};
}

AGENTKIT_DECL auto browser::remove_storage_items(storage_area area, std::optional<std::string_view> key) -> result<std::size_t> {
    std::lock_guard op(op_mu_);
    auto r = key ? storage_call(area, "remove", json::array({std::string(*key)})) : storage_call(area, "clear", json::array());
    if (!r) return fail(r.error());
    return static_cast<std::size_t>(r->value("removed", 0));
}

AGENTKIT_DECL auto browser::on_origin_page(const std::string& origin, const char* fn, json args) -> result<json> {
    if (auto v = opt_.policy.check(origin + "/")) return fail(policy_error(*v, "opening " + origin));
    const std::string url = origin + "/.agentkit-storage-" + random_hex(8);
    {
        std::lock_guard lock(routes_mu_);
        blank_pages_.insert(url);
    }
    auto forget = [&] {
        std::lock_guard lock(routes_mu_);
        blank_pages_.erase(url);
    };
    auto t = create_tab();
    if (!t) {
        forget();
        return fail(t.error());
    }
    result<json> out = fail(errc::tool_failed, "the temporary page of " + origin + " did not load");
    auto nav = call((*t)->session, "Page.navigate", json{{"url", url}}, opt_.navigation_timeout);
    if (!nav) out = fail(nav.error());
    else if (const std::string err = detail::jstr(*nav, "errorText"); !err.empty())
        out = fail(errc::navigation_failed, "the temporary page of " + origin + " did not load: " + err);
    else {
        const std::string loader = detail::jstr(*nav, "loaderId");
        const auto& tab = *t;
        if (wait_until([&] { return load_done(tab, loader) || tab->closed || tab->crashed; }, opt_.navigation_timeout))
            out = isolated_call(tab, fn, std::move(args));
        else
            out = fail(errc::timeout, "the temporary page of " + origin + " did not load within " +
                                          std::to_string(opt_.navigation_timeout.count()) + " ms");
    }
    (void)call("", "Target.closeTarget", json{{"targetId", (*t)->target_id}}, 3000ms);
    forget_tab(*t);
    forget();
    return out;
}

AGENTKIT_DECL auto browser::save_storage() -> result<storage_state> {
    std::lock_guard op(op_mu_);
    auto e = ensure();
    if (!e) return fail(e.error());
    return save_locked();
}

AGENTKIT_DECL auto browser::profile_state_file() const -> std::string {
    if (opt_.launch.user_data_dir.empty() || !opt_.cdp_endpoint.empty() || !opt_.webdriver.url.empty() || opt_.transport_factory) return {};
    return (std::filesystem::path(opt_.launch.user_data_dir) / "agentkit-storage-state.json").string();
}

AGENTKIT_DECL auto browser::save_locked() -> result<storage_state> {
    storage_state s;
    const json params = context_params();
    auto r = call("", "Storage.getCookies", params);
    if (!r) return fail(r.error());
    for (const auto& c : detail::jarr(*r, "cookies")) s.cookies.push_back(detail::cookie_from_cdp(c));
    // every origin a document came from; read where a tab shows it, else in a temporary tab
    std::set<std::string> origins;
    {
        std::lock_guard lock(routes_mu_);
        origins = visited_origins_;
    }
    const auto shown = origins_shown();
    for (const auto& [origin, t] : shown) origins.insert(origin);
    const json args = json::array({json{{"value", "local"}}, json{{"value", "items"}}});
    for (const auto& origin : origins) {
        if (origin.rfind("http", 0) != 0 || opt_.policy.check(origin + "/")) continue;  // no page of it may load now
        result<json> items = fail(errc::tool_failed, "");
        if (auto it = shown.find(origin); it != shown.end()) items = isolated_call(it->second, detail::kStorageScript, args);
        if (!items || (items->is_object() && items->contains("error"))) items = on_origin_page(origin, detail::kStorageScript, args);
        if (!items) return fail(redact_result(items.error()));
        origin_storage o;
        o.origin = origin;
        for (const auto& kv : detail::jarr(*items, "items"))
            if (kv.is_array() && kv.size() == 2 && kv[0].is_string() && kv[1].is_string())
                o.local_storage.push_back({kv[0].get<std::string>(), kv[1].get<std::string>()});
        if (!o.local_storage.empty()) s.origins.push_back(std::move(o));
    }
    return s;
}

AGENTKIT_DECL auto browser::restore_storage(const storage_state& s) -> result<storage_restore> {
    std::lock_guard op(op_mu_);
    auto e = ensure();
    if (!e) return fail(e.error());
    return restore_locked(s);
}

AGENTKIT_DECL auto browser::restore_locked(const storage_state& s) -> result<storage_restore> {
    storage_restore report;
    json cookies = json::array();
    for (const auto& c : s.cookies) {
        if (auto v = opt_.policy.check_host(c.domain)) {
            report.left_out.push_back("cookie " + c.name + " for " + c.domain + ": " + v->rule);
            continue;
        }
        cookies.push_back(detail::cookie_to_cdp(c));
    }
    const json params = context_params();
    if (auto r = call("", "Storage.clearCookies", params); !r) return fail(r.error());
    if (!cookies.empty()) {
        json set = params;
        set["cookies"] = std::move(cookies);
        if (auto r = call("", "Storage.setCookies", set); !r)
            return fail(errc::args_invalid, "the browser refused the storage state's cookies: " + r.error().message,
                        "Each cookie needs a name, a value and a domain; sameSite is Strict, Lax or None.");
        report.cookies = set["cookies"].size();
    }
    // localStorage: the state's origins written, the open tabs' other origins cleared
    const auto shown = origins_shown();
    std::set<std::string> written;
    for (const auto& o : s.origins) {
        const std::string origin(detail::url_origin(o.origin + "/"));
        if (origin.empty() || origin.rfind("http", 0) != 0) {
            report.left_out.push_back("localStorage of " + o.origin + ": not an http(s) origin");
            continue;
        }
        if (auto v = opt_.policy.check(origin + "/")) {
            report.left_out.push_back("localStorage of " + origin + ": " + v->rule);
            continue;
        }
        json items = json::array();
        for (const auto& i : o.local_storage) items.push_back(json::array({i.name, i.value}));
        const json args = json::array({json{{"value", "local"}}, json{{"value", "replace"}}, json{{"value", nullptr}}, json{{"value", std::move(items)}}});
        result<json> r = fail(errc::tool_failed, "");
        if (auto it = shown.find(origin); it != shown.end()) r = isolated_call(it->second, detail::kStorageScript, args);
        if (!r || (r->is_object() && r->contains("error"))) r = on_origin_page(origin, detail::kStorageScript, args);
        if (!r) return fail(redact_result(r.error()));
        if (r->is_object() && r->contains("error"))
            return fail(redact_result(detail::storage_error(storage_area::local, detail::jstr(*r, "error"), origin)));
        written.insert(origin);
        {
            std::lock_guard lock(routes_mu_);
            visited_origins_.insert(origin);
        }
        ++report.origins;
    }
    const json clear = json::array({json{{"value", "local"}}, json{{"value", "clear"}}});
    for (const auto& [origin, t] : shown)
        if (!written.count(origin)) (void)isolated_call(t, detail::kStorageScript, clear);  // best effort: a page may have none
    return report;
}

}  // namespace agentkit::browser
