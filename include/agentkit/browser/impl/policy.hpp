// agentkit/browser/impl/policy.hpp — browser: the origin policy in the browser: request interception, the WebSocket gate and guard, refusals.
// Part of browser.hpp (which includes it at its end); not an entry point of its own.
#pragma once

#include <agentkit/browser/browser.hpp>

namespace agentkit::browser {

AGENTKIT_DECL auto browser::blocked_requests() -> std::vector<blocked_request> {
    std::lock_guard op(op_mu_);
    std::vector<blocked_request> out;
    if (!eng_) return out;
    std::lock_guard lock(eng_->mu);
    for (const auto& [seq, b] : eng_->blocked) out.push_back(b);
    return out;
}

AGENTKIT_DECL auto browser::websocket_gate_stats() -> std::optional<socket_gate_stats> {
    std::lock_guard op(op_mu_);
    if (!eng_ || !eng_->gate) return std::nullopt;
    return eng_->gate->stats();
}

AGENTKIT_DECL auto browser::use_socket_gate() const -> bool {
    if (!opt_.policy.intercepts()) return false;  // nothing to enforce: the CDP conversation stays as it was
    switch (opt_.websockets) {
        case websocket_enforcement::proxy: return true;
        case websocket_enforcement::script_only: return false;
        case websocket_enforcement::automatic: break;
    }
    if (opt_.transport_factory) return false;
    if (reuses_default_context()) return false;  // the gate is a context's proxy: the default one has none of ours
    if (!opt_.webdriver.url.empty() || !opt_.cdp_endpoint.empty()) {
        // a browser elsewhere reaches the gate (on this host's loopback) only when it runs here
        auto u = cdp::detail::parse_url(!opt_.webdriver.url.empty() ? opt_.webdriver.url : opt_.cdp_endpoint);
        if (!u) return false;
        return agentkit::is_loopback_host(u->host);
    }
    for (const auto& a : opt_.launch.extra_args)
        for (const char* flag : {"--proxy-server", "--proxy-pac-url", "--proxy-auto-detect"})
            if (a.rfind(flag, 0) == 0) return false;  // the host's own proxy stays in charge
    return true;
}

AGENTKIT_DECL auto browser::judge_socket(engine& e, const std::string& host, std::uint16_t port) -> std::optional<std::string> {
    auto v = opt_.policy.check_socket(host, port);
    if (!v) return std::nullopt;
    {
        std::lock_guard lock(e.mu);
        blocked_request b;
        b.url = v->url;
        b.resource_type = "WebSocket";
        b.rule = v->rule;
        record_blocked(e, std::move(b));
    }
    e.cv.notify_all();
    return v->rule;
}

AGENTKIT_DECL auto browser::apply_policy() -> result<void> {
    const auto& P = opt_.policy;
    if (auto v = P.validate(); !v) return fail(v.error());
    {  // always: the scheme rules (file:, chrome:, ...) hold for every request, origin lists or not
        auto f = call("", "Fetch.enable", json{{"patterns", json::array({json{{"urlPattern", "*"}, {"requestStage", "Request"}}})}});
        if (!f) return fail(errc::browser_launch, "request interception could not be enabled: " + f.error().message,
                            "The policy cannot be enforced with this browser.");
    }
    json dl = {{"behavior", "deny"}, {"browserContextId", eng_->context_id}, {"eventsEnabled", true}};
    if (!P.downloads_dir.empty()) {
        std::error_code ec;
        std::filesystem::create_directories(P.downloads_dir, ec);
        auto abs = std::filesystem::absolute(P.downloads_dir, ec);
        if (ec) return fail(errc::args_invalid, "downloads directory " + P.downloads_dir + " is not usable: " + ec.message());
        // Chromium writes into a private directory: an unfinished download is no one else's
        // to read, and a finished one appears in downloads_dir whole, as the owner's only.
        if (download_staging_.empty()) {
            // staging directories left by a process that died (a crash, SIGKILL)
            constexpr std::string_view prefix = ".agentkit-partial-";
            for (const auto& entry : std::filesystem::directory_iterator(abs, ec)) {
                const std::string name = entry.path().filename().string();
                if (name.rfind(prefix, 0) != 0) continue;
                const auto pid = std::strtol(name.c_str() + prefix.size(), nullptr, 10);
                if (pid > 0 && ::kill(static_cast<pid_t>(pid), 0) != 0 && errno == ESRCH) {
                    std::error_code rec;
                    std::filesystem::remove_all(entry.path(), rec);
                }
            }
            ec.clear();
            static std::atomic<unsigned> counter{0};
            for (int i = 0; i < 100 && download_staging_.empty(); ++i) {
                const auto p = abs / (std::string(prefix) + std::to_string(::getpid()) + "-" + std::to_string(counter.fetch_add(1)));
                if (std::filesystem::create_directory(p, ec)) {
                    std::filesystem::permissions(p, std::filesystem::perms::owner_all, std::filesystem::perm_options::replace, ec);
                    if (ec) return fail(errc::args_invalid, "cannot make " + p.string() + " private: " + ec.message());
                    download_staging_ = p.string();
                }
            }
            if (download_staging_.empty())
                return fail(errc::args_invalid, "cannot create a private staging directory in " + abs.string());
        }
        dl["behavior"] = "allowAndName";
        dl["downloadPath"] = download_staging_;
    }
    if (auto d = call("", "Browser.setDownloadBehavior", dl); !d)
        return fail(errc::browser_launch, "download behaviour could not be set: " + d.error().message,
                    "Downloads cannot be controlled with this browser.");
    return {};
}

AGENTKIT_DECL auto browser::socket_guard_source() const -> std::string {
    json rules = {{"allowed", json::array()}, {"blocked", json::array()}};
    auto add = [&](const std::vector<std::string>& list, const char* key) {
        for (const auto& s : list)
            if (auto p = policy_detail::parse_pattern(s))
                rules[key].push_back({{"text", p->text}, {"scheme", p->scheme}, {"host", p->host}, {"port", p->port}});
    };
    add(opt_.policy.allowed_origins, "allowed");
    add(opt_.policy.blocked_origins, "blocked");
    std::string src = detail::kSocketGuardScript;
    const std::string key = "__AGENTKIT_RULES__";
    src.replace(src.find(key), key.size(), rules.dump());
    return src;
}

AGENTKIT_DECL auto browser::install_session_policy(engine& e, const std::string& sid, std::vector<std::future<result<json>>>* wait) -> void {
    auto c = e.conn.call_async("Page.addScriptToEvaluateOnNewDocument", json{{"source", detail::kConsoleClipScript}, {"runImmediately", true}}, sid);
    if (wait) wait->push_back(std::move(c));
    // language, time zone, media, script, CSP: sent before the session's page runs (its target
    // waits for the debugger until adopted), never failing an adoption (the values were checked)
    for (auto& [method, params] : emulation_calls()) e.conn.call_async(method, params, sid, [](result<json>) {});
    for (const auto& source : opt_.init_scripts) {  // the host's init scripts, before the page's own
        auto i = e.conn.call_async("Page.addScriptToEvaluateOnNewDocument", json{{"source", source}, {"runImmediately", true}}, sid);
        if (wait) wait->push_back(std::move(i));
    }
    if (offline_.load()) {  // set_offline(true) holds for tabs opened after it
        auto o = e.conn.call_async("Network.emulateNetworkConditions",
                                   json{{"offline", true}, {"latency", 0}, {"downloadThroughput", -1}, {"uploadThroughput", -1}}, sid);
        if (wait) wait->push_back(std::move(o));
    }
    if (!opt_.policy.intercepts()) return;
    auto b = e.conn.call_async("Runtime.addBinding", json{{"name", "__agentkitBlocked"}}, sid);
    auto g = e.conn.call_async("Page.addScriptToEvaluateOnNewDocument", json{{"source", socket_guard_source()}, {"runImmediately", true}}, sid);
    if (wait) {
        wait->push_back(std::move(b));
        wait->push_back(std::move(g));
    }
}

AGENTKIT_DECL auto browser::record_blocked(engine& e, blocked_request b) -> void {
    if (opt_.on_event) {
        auto ev = agentkit::make_event(agentkit::event_kind::request_blocked, "browser");
        ev.name = b.url;
        ev.detail = b.rule;
        ev.data = json{{"type", b.resource_type}, {"tab", b.tab}};
        agentkit::notify(opt_.on_event, ev);
    }
    e.blocked.emplace_back(++e.seq, std::move(b));
    while (e.blocked.size() > 200) e.blocked.pop_front();
}

AGENTKIT_DECL auto browser::policy_error(const policy_violation& v, std::string_view what) const -> error {
    return error(errc::policy_blocked, std::string(what) + " to " + v.url + " blocked by policy rule " + v.rule,
                 "The browser's policy does not allow this URL; pick another page or ask the host to change the policy.",
                 json{{"rule", v.rule}, {"url", v.url}});
}
}  // namespace agentkit::browser
