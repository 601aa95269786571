// agentkit/browser/impl/lifecycle.hpp — browser: starting, restarting and closing the browser; the CDP call helpers every operation uses.
// Part of browser.hpp (which includes it at its end); not an entry point of its own.
#pragma once

#include <agentkit/browser/browser.hpp>

namespace agentkit::browser {

namespace detail {
/// Whether a browser with these options launches its own process (else it reaches one).
inline bool launches_process(const browser_options& o) { return !o.transport_factory && o.webdriver.url.empty() && o.cdp_endpoint.empty(); }
}  // namespace detail

AGENTKIT_DECL auto browser::start() -> result<void> {
    std::lock_guard op(op_mu_);
    auto e = ensure();
    if (!e) return fail(e.error());
    return {};
}

AGENTKIT_DECL auto browser::close() -> void {
    std::lock_guard op(op_mu_);
    shutdown();
}

AGENTKIT_DECL auto browser::browser_pid() -> int {
    std::lock_guard op(op_mu_);
    if (!eng_) return -1;
    if (auto* p = eng_->conn.transport_as<cdp::pipe_transport>()) return p->pid();
    if (auto* w = eng_->conn.transport_as<cdp::websocket_transport>()) return w->pid();
    return -1;
}

AGENTKIT_DECL auto browser::cdp_call(std::string_view method, json params) -> result<json> {
    std::lock_guard op(op_mu_);
    auto e = ensure();
    if (!e) return fail(e.error());
    auto t = current_tab();
    if (!t) return fail(t.error());
    return call((*t)->session, method, std::move(params));
}

AGENTKIT_DECL auto browser::cdp_browser_call(std::string_view method, json params) -> result<json> {
    std::lock_guard op(op_mu_);
    auto e = ensure();
    if (!e) return fail(e.error());
    return call("", method, std::move(params));
}

AGENTKIT_DECL auto browser::shutdown() -> void {
    refs_.retire_all();  // a closed browser's nodes are gone (refs would be kept for the session's life)
    if (!eng_) return;
    if (const std::string file = profile_state_file(); !file.empty() && eng_->conn.is_open() && !eng_->context_id.empty()) {
        // the profile keeps what its sites stored for the next browser on it (readable by its user only)
        if (auto st = save_locked()) {
            const std::string tmp = file + ".tmp";
            {
                std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
                out << to_json(*st).dump();
            }
            std::error_code ec;
            std::filesystem::permissions(tmp, std::filesystem::perms::owner_read | std::filesystem::perms::owner_write,
                                         std::filesystem::perm_options::replace, ec);
            std::filesystem::rename(tmp, file, ec);
        }
    }
    const bool told = eng_->announced && eng_->conn.is_open();
    if (eng_->conn.is_open() && eng_->own_context && !eng_->context_id.empty())
        (void)eng_->conn.call("Target.disposeBrowserContext", json{{"browserContextId", eng_->context_id}}, {}, 3000ms);
    eng_->sub.unsubscribe();
    eng_->conn.close();
    if (told && opt_.on_event) {  // (a browser that went away by itself was told as browser_disconnected)
        auto ev = agentkit::make_event(agentkit::event_kind::browser_closed, "browser");
        ev.detail = detail::launches_process(opt_) ? "launched" : "connected";
        agentkit::notify(opt_.on_event, ev);
    }
    std::lock_guard live(live_mu_);
    eng_.reset();
    live_session_.clear();
    live_tab_.clear();
    live_capture_ = false;
}

AGENTKIT_DECL auto browser::ensure() -> result<void> {
    if (eng_ && eng_->conn.is_open()) return {};
    if (eng_) {
        auto why = eng_->conn.failure();
        restart_notes_.push_back("the previous browser stopped (" + (why ? why->message : std::string("unknown reason")) +
                                 "); a new browser was started — earlier tabs and refs are gone, take a new snapshot");
        refs_.retire_all();
        eng_->sub.unsubscribe();
        eng_->conn.close();
        std::lock_guard live(live_mu_);
        eng_.reset();
        live_session_.clear();
        live_tab_.clear();
        live_capture_ = false;
    }
    cdp::any_transport transport;
    std::optional<cdp::webdriver_session> webdriver;  // deleted here when the start fails before the engine owns it
    const cdp::launch_options lo = process_launch_options(opt_);
    if (opt_.transport_factory) {
        auto t = opt_.transport_factory();
        if (!t) return fail(t.error());
        if (!*t) return fail(errc::browser_launch, "the transport factory returned an empty transport");
        transport = std::move(*t);
    } else if (!opt_.webdriver.url.empty()) {
        auto s = cdp::webdriver_session::create(opt_.webdriver, lo);
        if (!s) return fail(s.error());
        const std::string endpoint = s->cdp_endpoint();
        auto url = endpoint.rfind("ws://", 0) == 0 ? result<std::string>(endpoint) : cdp::discover_websocket_url(endpoint);
        if (!url) return fail(errc::browser_launch, "the WebDriver session's CDP endpoint " + endpoint + " cannot be reached: " + url.error().message);
        auto t = cdp::websocket_transport::connect(*url);
        if (!t) return fail(errc::browser_launch, "cannot connect to the WebDriver session's CDP endpoint: " + t.error().message);
        transport = std::move(*t);
        webdriver = std::move(*s);
    } else if (!opt_.cdp_endpoint.empty()) {
        for (const auto& [k, v] : opt_.cdp_headers)
            if (!net::valid_header(k, v))
                return fail(errc::args_invalid, "browser_options::cdp_headers: \"" + k.substr(0, 64) + "\" is not a header (a name of letters, "
                                                "digits and -, a value without line breaks)");
        if (opt_.use_default_context && opt_.websockets == websocket_enforcement::proxy)
            return fail(errc::args_invalid, "websockets = proxy needs a browser context of its own, and use_default_context asks for the browser's default one",
                        "Set websockets to automatic or script_only, or use_default_context to false.");
        auto url = cdp::discover_websocket_url(opt_.cdp_endpoint, std::chrono::milliseconds(10000), opt_.cdp_headers);
        if (!url) return fail(url.error());
        cdp::websocket_options wo;
        wo.headers = opt_.cdp_headers;
        auto t = cdp::websocket_transport::connect(*url, wo);
        if (!t) return fail(t.error());
        transport = std::move(*t);
    } else if (opt_.launch_over_websocket) {
        auto t = cdp::websocket_transport::launch(lo);
        if (!t) return fail(t.error());
        transport = std::move(*t);
    } else {
        auto t = cdp::pipe_transport::launch(lo);
        if (!t) return fail(t.error());
        transport = std::move(*t);
    }
    cdp::connection_options co;
    co.default_timeout = opt_.call_timeout;
    co.sent_counter = sent_;
    co.on_call_sent = opt_.on_cdp_call;
    if (opt_.on_event)
        co.on_call_done = [obs = opt_.on_event](std::string_view method, std::string_view sid, double ms, const error* failure) {
            auto ev = agentkit::make_event(agentkit::event_kind::cdp_command, "browser");
            ev.name = std::string(method);
            ev.detail = std::string(sid);
            ev.ms = ms;
            if (failure != nullptr) {
                ev.error_code = failure->code;
                ev.error_message = failure->message;
            }
            agentkit::notify(obs, ev);
        };
    if (opt_.on_event)
        co.on_closed = [obs = opt_.on_event](const error& why) {
            auto ev = agentkit::make_event(agentkit::event_kind::browser_disconnected, "browser");
            ev.error_code = why.code;
            ev.error_message = why.message;
            agentkit::notify(obs, ev);
        };
    auto e = std::make_unique<engine>(std::move(transport), std::move(co));
    e->webdriver = std::move(webdriver);
    auto* raw = e.get();
    e->sub = e->conn.on("*", [this, raw](const cdp::event& ev) { on_event(*raw, ev); });
    {
        std::lock_guard live(live_mu_);
        eng_ = std::move(e);
        ++engine_gen_;
    }
    json ctx_params{{"disposeOnDetach", true}};
    if (use_socket_gate()) {
        // WebSockets of this context go through the gate (the policy in the network stack);
        // http(s) goes direct, under request interception. See socket_gate.hpp.
        auto g = socket_gate::start([this, raw](const std::string& host, std::uint16_t port) { return judge_socket(*raw, host, port); });
        if (!g) {
            auto err = g.error();
            shutdown();
            return fail(errc::browser_launch, err.message, "Set browser_options::websockets to script_only to run without the gate.");
        }
        eng_->gate = std::move(*g);
        ctx_params["proxyServer"] = eng_->gate->proxy_server();
        ctx_params["proxyBypassList"] = socket_gate::kBypassList;
    }
    const bool shared_context = reuses_default_context();
    if (shared_context) {
        auto ctx = default_context_id();
        if (!ctx) {
            auto err = ctx.error();
            shutdown();
            return fail(err);
        }
        eng_->context_id = *ctx;
    } else {
        auto ctx = call("", "Target.createBrowserContext", ctx_params);
        if (!ctx) {
            auto err = ctx.error();
            if (ctx_params.contains("proxyServer") && err.hint.empty())
                err.hint = "The browser context was created with the WebSocket gate's proxy settings; "
                           "set browser_options::websockets to script_only for a browser that refuses them.";
            shutdown();
            return fail(err);
        }
        eng_->context_id = detail::jstr(*ctx, "browserContextId");
        eng_->own_context = true;
    }
    if (!opt_.permissions.empty()) {
        auto types = permission_types(opt_.permissions);
        auto granted = types ? call("", "Browser.grantPermissions", json{{"permissions", *types}, {"browserContextId", eng_->context_id}})
                             : result<json>(fail(types.error()));
        if (!granted) {
            auto err = granted.error();
            shutdown();
            return fail(err);
        }
    }
    if (auto d = call("", "Target.setDiscoverTargets", json{{"discover", true}}); !d) {
        auto err = d.error();
        shutdown();
        return fail(err);
    }
    if (!opt_.emulation.locale.empty() && browser_user_agent_.empty())  // navigator.language follows Accept-Language
        if (auto v = call("", "Browser.getVersion"); v) browser_user_agent_ = detail::jstr(*v, "userAgent");
    if (auto pe = apply_policy(); !pe) {
        auto err = pe.error();
        shutdown();
        return fail(err);
    }
    auto t = shared_context ? adopt_open_tabs() : create_tab();
    if (!t) {
        auto err = t.error();
        shutdown();
        return fail(err);
    }
    {
        std::lock_guard lock(eng_->mu);
        eng_->current = (*t)->id;
    }
    if (const std::string file = profile_state_file(); !file.empty()) {  // what the profile kept from its last browser
        std::error_code ec;
        if (std::filesystem::exists(file, ec))
            if (auto kept = read_storage_state_file(file)) {
                auto r = restore_locked(*kept);
                if (!r) restart_notes_.push_back("the profile's saved cookies and storage could not be restored: " + r.error().message);
            }
    }
    std::optional<storage_state> initial = opt_.initial_storage;
    if (!opt_.initial_storage_file.empty()) {
        auto st = read_storage_state_file(opt_.initial_storage_file);
        if (!st) {
            auto err = error(errc::browser_launch, "the storage state file could not be used: " + st.error().message, st.error().hint);
            shutdown();
            return fail(err);
        }
        initial = std::move(*st);
    }
    if (initial) {  // every start, a restart after a crash too: the profile is new
        auto r = restore_locked(*initial);
        if (!r) {
            auto err = error(errc::browser_launch, "the initial storage state could not be restored: " + r.error().message, r.error().hint);
            shutdown();
            return fail(err);
        }
        for (const auto& l : r->left_out) restart_notes_.push_back("storage state: left out " + l);
    }
    eng_->announced = true;
    if (opt_.on_event) {
        auto ev = agentkit::make_event(agentkit::event_kind::browser_started, "browser");
        ev.detail = detail::launches_process(opt_) ? "launched" : "connected";
        agentkit::notify(opt_.on_event, ev);
    }
    return {};
}

AGENTKIT_DECL auto browser::reuses_default_context() const -> bool {
    return opt_.use_default_context && !opt_.cdp_endpoint.empty() && opt_.webdriver.url.empty() && !opt_.transport_factory;
}

AGENTKIT_DECL auto browser::default_context_id() -> result<std::string> {
    // Chromium names it in Target.getBrowserContexts (defaultBrowserContextId, 2024 on); else it is
    // the context of a page no created context holds; else that of a tab opened to find out.
    auto all = call("", "Target.getBrowserContexts");
    if (!all) return fail(all.error());
    if (std::string id = detail::jstr(*all, "defaultBrowserContextId"); !id.empty()) return id;
    std::set<std::string> created;
    for (const auto& c : detail::jarr(*all, "browserContextIds"))
        if (c.is_string()) created.insert(c.get<std::string>());
    auto targets = call("", "Target.getTargets");
    if (!targets) return fail(targets.error());
    for (const auto& info : detail::jarr(*targets, "targetInfos"))
        if (detail::jstr(info, "type") == "page")
            if (std::string id = detail::jstr(info, "browserContextId"); !id.empty() && created.count(id) == 0) return id;
    auto made = call("", "Target.createTarget", json{{"url", "about:blank"}});
    if (!made) return fail(made.error());
    auto info = call("", "Target.getTargetInfo", json{{"targetId", detail::jstr(*made, "targetId")}});
    if (!info) return fail(info.error());
    std::string id = detail::jstr(detail::jobj(*info, "targetInfo"), "browserContextId");
    if (id.empty()) return fail(errc::browser_launch, "the browser does not name its default browser context",
                                "Set browser_options::use_default_context to false (a context of agentkit's own).");
    return id;
}

AGENTKIT_DECL auto browser::adopt_open_tabs() -> result<tab_ptr> {
    // The default context's open pages, in the browser's order, become tabs; the first is current.
    auto targets = call("", "Target.getTargets");
    if (!targets) return fail(targets.error());
    tab_ptr first;
    for (const auto& info : detail::jarr(*targets, "targetInfos")) {
        if (detail::jstr(info, "type") != "page" || detail::jstr(info, "browserContextId") != eng_->context_id) continue;
        auto t = adopt(*eng_, detail::jstr(info, "targetId"), {});
        if (!t) {
            if (!eng_->conn.is_open()) return fail(t.error());
            continue;  // a page that went away meanwhile
        }
        if (!first) first = *t;
    }
    if (first) return first;
    return create_tab();
}

AGENTKIT_DECL auto browser::release_flood_stops(const tab_ptr& t) -> void {
    std::set<std::string> scripts, console;
    {
        std::lock_guard lock(eng_->mu);
        scripts.swap(t->scripts_stopped);
        console.swap(t->console_paused);
        t->oversized_console = 0;
    }
    // each action starts with the page as it was; a page that floods again is stopped again
    std::vector<std::future<result<json>>> wait;
    for (const auto& sid : scripts) wait.push_back(eng_->conn.call_async("Emulation.setScriptExecutionDisabled", json{{"value", false}}, sid));
    for (const auto& sid : console) wait.push_back(eng_->conn.call_async("Runtime.enable", json::object(), sid));
    for (auto& f : wait) (void)f.get();
}

AGENTKIT_DECL auto browser::take_notes(action_result& r) -> void {
    auto n = take_restart_notes();
    r.notes.insert(r.notes.begin(), n.begin(), n.end());
}

AGENTKIT_DECL auto browser::crashed_error(const error& cause) const -> error {
    return error(errc::browser_crashed, "the browser is gone: " + cause.message,
                 "The next browser call starts a new browser; then take a new snapshot.", cause.details);
}

AGENTKIT_DECL auto browser::call(std::string_view session, std::string_view method, json params, std::optional<std::chrono::milliseconds> timeout) -> result<json> {
    if (!eng_) return fail(errc::browser_crashed, "no browser is running", "Call again: the browser starts lazily.");
    if (detail::op_stop.stop_possible() || holding_dialogs()) {  // wait in slices: abandon the call on a stop or an open dialog
        if (detail::op_stop.stop_requested()) return fail(cancelled_error(method));
        if (dialog_holds(session, method)) return fail(dialog_open_error(method));
        return await_answer(session, method, eng_->conn.call_async(method, std::move(params), session, timeout));
    }
    auto r = eng_->conn.call(method, std::move(params), session, timeout);
    if (!r && !eng_->conn.is_open()) return fail(crashed_error(r.error()));
    return r;
}

AGENTKIT_DECL auto browser::await_answer(std::string_view session, std::string_view method, std::future<result<json>> fut) -> result<json> {
    const bool slices = detail::op_stop.stop_possible() || holding_dialogs();
    while (slices && fut.wait_for(20ms) != std::future_status::ready) {
        if (detail::op_stop.stop_requested()) return fail(cancelled_error(method));
        if (dialog_holds(session, method)) return fail(dialog_open_error(method));
    }
    auto r = fut.get();
    if (!r && !eng_->conn.is_open()) return fail(crashed_error(r.error()));
    return r;
}

AGENTKIT_DECL auto browser::holding_dialogs() const -> bool {
    std::lock_guard pl(policy_mu_);
    return opt_.dialogs.hold;
}

AGENTKIT_DECL auto browser::dialog_holds(std::string_view session, std::string_view method) const -> bool {
    if (method == "Page.handleJavaScriptDialog" || session.empty() || !holding_dialogs()) return false;
    std::lock_guard lock(eng_->mu);
    auto it = eng_->by_session.find(std::string(session));
    return it != eng_->by_session.end() && !it->second->held_dialogs.empty();
}

AGENTKIT_DECL auto browser::dialog_open_error(std::string_view method) -> error {
    return error(errc::dialog_open, "a dialog is open on the page (" + std::string(method) + " was not waited for)",
                 "Answer it first (browser_handle_dialog).");
}

AGENTKIT_DECL auto browser::cancelled_error(std::string_view method) -> error {
    return error(errc::tool_cancelled, "cancelled (" + std::string(method) + " was abandoned)",
                 "The call was cancelled; the browser is ready for the next one.");
}

AGENTKIT_DECL auto browser::call_on(const node_handle& h, const char* fn, json args, bool await_promise, std::optional<std::chrono::milliseconds> timeout) -> result<json> {
    auto r = call(h.session, "Runtime.callFunctionOn",
                  json{{"functionDeclaration", fn}, {"objectId", h.object_id}, {"arguments", std::move(args)},
                       {"returnByValue", true}, {"awaitPromise", await_promise}},
                  timeout);
    if (!r) return fail(r.error());
    if (r->contains("exceptionDetails")) {
        const json& ex = detail::jobj(*r, "exceptionDetails");
        std::string what = detail::jstr(detail::jobj(ex, "exception"), "description");
        if (what.empty()) what = detail::jstr(ex, "text");
        return fail(errc::tool_failed, detail::quoting_page("page script failed", "exception: " + detail::page_quote(what, 300), nonce_));
    }
    const json& res = detail::jobj(*r, "result");
    return res.contains("value") ? res["value"] : json();
}

template <class Pred>
auto browser::wait_until(Pred pred, std::chrono::milliseconds timeout) -> bool {
    const auto deadline = clock::now() + timeout;
    std::unique_lock lock(eng_->mu);
    for (;;) {
        if (pred()) return true;
        const auto now = clock::now();
        if (now >= deadline) return false;
        if (!eng_->conn.is_open() || detail::op_stop.stop_requested()) return false;
        eng_->cv.wait_for(lock, std::min<clock::duration>(deadline - now, 20ms));
    }
}
}  // namespace agentkit::browser
