// agentkit/browser/impl/tabs.hpp — browser: tabs: creating, adopting (popups), selecting, closing, listing; viewport and focus.
// Part of browser.hpp (which includes it at its end); not an entry point of its own.
#pragma once

#include <agentkit/browser/browser.hpp>

namespace agentkit::browser {

AGENTKIT_DECL auto browser::tabs() -> result<std::vector<tab_info>> {
    std::lock_guard op(op_mu_);
    auto e = ensure();
    if (!e) return fail(e.error());
    return list_tabs();
}

AGENTKIT_DECL auto browser::new_tab(std::string url) -> result<action_result> {
    std::lock_guard op(op_mu_);
    // a refused URL opens no tab (and leaves the current one selected)
    if (!url.empty())
        if (auto v = opt_.policy.check_navigation(url, opt_.allow_evaluate))
            return fail(redact_result(policy_error(*v, "navigation")));
    auto e = ensure();
    if (!e) return fail(e.error());
    auto t = create_tab();
    if (!t) return fail(t.error());
    {
        std::lock_guard lock(eng_->mu);
        eng_->current = (*t)->id;
    }
    to_front(*t);
    if (url.empty()) {
        action_result r;
        r.action = "new tab";
        r.url = "about:blank";
        r.changes = "opened " + (*t)->id + " (about:blank)";
        take_notes(r);
        return r;
    }
    return finish_action(navigate_locked(url));
}

AGENTKIT_DECL auto browser::select_tab(std::string_view id) -> result<action_result> {
    std::lock_guard op(op_mu_);
    auto e = ensure();
    if (!e) return fail(e.error());
    auto t = find_tab(id);
    if (!t) return fail(t.error());
    {
        std::lock_guard lock(eng_->mu);
        eng_->current = (*t)->id;
    }
    to_front(*t);
    begin_call(*t);
    action_result r;
    r.action = "select tab " + (*t)->id;
    auto s = take_snapshot(*t, page_view_options(), page_read::part);
    if (!s) return fail(s.error());
    r.url = s->url;
    r.title = s->title;
    r.snapshot = show_new_page(*t, *s, r.notes, false);  // the tab's page whole, remembered as shown
    take_notes(r);
    return finish_action(std::move(r));
}

AGENTKIT_DECL auto browser::close_tab(std::string_view id) -> result<action_result> {
    std::lock_guard op(op_mu_);
    auto e = ensure();
    if (!e) return fail(e.error());
    std::shared_ptr<detail::tab_state> t;
    if (id.empty()) {
        auto c = current_tab();
        if (!c) return fail(c.error());
        t = *c;
    } else {
        auto f = find_tab(id);
        if (!f) return fail(f.error());
        t = *f;
    }
    auto r0 = call("", "Target.closeTarget", json{{"targetId", t->target_id}});
    if (!r0) return fail(r0.error());
    wait_until([&] { return t->closed; }, 5000ms);
    forget_tab(t);
    action_result r;
    r.action = "close tab " + t->id;
    std::string cur;
    {
        std::lock_guard lock(eng_->mu);
        cur = eng_->current;
    }
    r.changes = "closed " + t->id + (cur.empty() ? std::string("; no tab is open") : "; current tab: " + cur);
    take_notes(r);
    return finish_action(std::move(r));
}

AGENTKIT_DECL auto browser::resize(viewport_size v) -> result<action_result> {
    return act("resize", [&](const tab_ptr& t) -> result<void> {
        {
            std::lock_guard pl(policy_mu_);
            if (v.user_agent.empty()) v.user_agent = opt_.viewport.user_agent;
            opt_.viewport = v;
        }
        return apply_viewport(t->session);
    });
}

AGENTKIT_DECL auto browser::create_tab() -> result<tab_ptr> {
    auto r = call("", "Target.createTarget", json{{"url", "about:blank"}, {"browserContextId", eng_->context_id}});
    if (!r) return fail(r.error());
    const std::string id = detail::jstr(*r, "targetId");
    auto t = adopt(*eng_, id, {});
    // a target that could not be attached (e.g. its renderer died meanwhile) is not left behind
    if (!t && eng_->conn.is_open()) (void)call("", "Target.closeTarget", json{{"targetId", id}}, 3000ms);
    return t;
}

AGENTKIT_DECL auto browser::apply_viewport(const std::string& session) -> result<void> {
    viewport_size v;
    {
        std::lock_guard pl(policy_mu_);
        v = opt_.viewport;
    }
    auto r = call(session, "Emulation.setDeviceMetricsOverride",
                  json{{"width", v.width}, {"height", v.height}, {"deviceScaleFactor", v.device_scale_factor},
                       {"mobile", v.mobile}});
    if (!r) return fail(r.error());
    auto t = call(session, "Emulation.setTouchEmulationEnabled",
                  json{{"enabled", v.touch || v.mobile}, {"maxTouchPoints", (v.touch || v.mobile) ? 5 : 1}});
    if (!t) return fail(t.error());
    if (auto ua = user_agent_params(v)) {
        auto u = call(session, "Emulation.setUserAgentOverride", *ua);
        if (!u) return fail(u.error());
    }
    return {};
}

AGENTKIT_DECL auto browser::adopt(engine& e, const std::string& target_id, const std::string& opener, bool premarked) -> result<tab_ptr> {
    if (!premarked) {
        std::unique_lock lock(e.mu);
        if (auto it = e.by_target.find(target_id); it != e.by_target.end()) return it->second;
        if (e.adopting.count(target_id) != 0) {
            e.cv.wait_for(lock, opt_.call_timeout, [&] { return e.by_target.count(target_id) != 0 || e.adopting.count(target_id) == 0; });
            if (auto it = e.by_target.find(target_id); it != e.by_target.end()) return it->second;
            return fail(errc::timeout, "the tab " + target_id + " could not be attached");
        }
        e.adopting.insert(target_id);
    }
    auto done = [&](const tab_ptr& t) {
        std::lock_guard lock(e.mu);
        e.adopting.erase(target_id);
        if (t) {
            e.tabs[t->id] = t;
            e.by_target[target_id] = t;
            if (!opener.empty())
                if (auto o = e.by_target.find(opener); o != e.by_target.end()) o->second->opened.push_back(t->id);
        }
        e.cv.notify_all();
    };
    auto sid = e.conn.attach_to_target(target_id);
    if (!sid) {
        done(nullptr);
        if (!e.conn.is_open()) return fail(crashed_error(sid.error()));
        return fail(sid.error());
    }
    auto t = std::make_shared<detail::tab_state>();
    t->target_id = target_id;
    t->session = *sid;
    {
        std::lock_guard lock(e.mu);
        t->id = "tab" + std::to_string(e.next_tab++);
        e.by_session[*sid] = t;
    }
    std::vector<std::future<result<json>>> fs;
    for (const char* method : {"Page.enable", "Runtime.enable", "Network.enable", "DOM.enable", "Inspector.enable"})
        fs.push_back(e.conn.call_async(method, json::object(), *sid));
    fs.push_back(e.conn.call_async("Page.setLifecycleEventsEnabled", json{{"enabled", true}}, *sid));
    // file choosers come to upload() (Page.fileChooserOpened), never as a native dialog; a browser
    // without it still works (choosers then open nowhere, as headless ones do)
    e.conn.call_async("Page.setInterceptFileChooserDialog", json{{"enabled", true}}, *sid, [](result<json>) {});
    install_session_policy(e, *sid, &fs);
    fs.push_back(e.conn.call_async("Target.setAutoAttach",
                                   json{{"autoAttach", true}, {"waitForDebuggerOnStart", true}, {"flatten", true}}, *sid));
    viewport_size v;
    {
        std::lock_guard pl(policy_mu_);
        v = opt_.viewport;
    }
    fs.push_back(e.conn.call_async("Emulation.setDeviceMetricsOverride",
                                   json{{"width", v.width}, {"height", v.height}, {"deviceScaleFactor", v.device_scale_factor},
                                        {"mobile", v.mobile}},
                                   *sid));
    // the rest of the emulation (what resize() applies), only where it differs from the default
    if (v.touch || v.mobile)
        fs.push_back(e.conn.call_async("Emulation.setTouchEmulationEnabled", json{{"enabled", true}, {"maxTouchPoints", 5}}, *sid));
    if (auto ua = user_agent_params(v)) fs.push_back(e.conn.call_async("Emulation.setUserAgentOverride", *ua, *sid));
    auto tree_f = e.conn.call_async("Page.getFrameTree", json::object(), *sid);
    std::optional<error> err;
    for (auto& f : fs) {
        auto r = f.get();
        if (!r && !err) err = r.error();
    }
    auto tree = tree_f.get();
    if (!tree && !err) err = tree.error();
    if (err) {
        {
            std::lock_guard lock(e.mu);
            e.by_session.erase(*sid);
        }
        done(nullptr);
        if (!e.conn.is_open()) return fail(crashed_error(*err));
        return fail(*err);
    }
    e.conn.call_async("Runtime.runIfWaitingForDebugger", json::object(), *sid, [](result<json>) {});
    {
        std::lock_guard lock(e.mu);
        const json& fr = detail::jobj(detail::jobj(*tree, "frameTree"), "frame");
        if (t->main_frame.empty()) {
            t->main_frame = detail::jstr(fr, "id");
            auto& rec = t->frames[t->main_frame];
            if (rec.loader.empty()) rec.loader = detail::jstr(fr, "loaderId");
            if (rec.url.empty()) rec.url = detail::jstr(fr, "url");
            rec.session = *sid;
            t->url = rec.url;
        }
    }
    done(t);
    return t;
}

AGENTKIT_DECL auto browser::current_tab(bool proceed) -> result<tab_ptr> {
    tab_ptr dead;
    {
        std::lock_guard lock(eng_->mu);
        auto it = eng_->tabs.find(eng_->current);
        if (it == eng_->tabs.end() || it->second->closed)
            return fail(errc::not_found, "no tab is open", "Open one with new_tab or navigate.");
        if (!it->second->crashed) return it->second;
        dead = it->second;
    }
    auto nt = replace_tab(dead);
    if (!nt) return fail(nt.error());
    const std::string what = "the page in " + dead->id + " crashed (its renderer died); it was replaced by a new blank tab " + (*nt)->id;
    if (proceed) {
        restart_notes_.push_back(what);
        return *nt;
    }
    return fail(errc::browser_crashed, what, "Navigate again; refs of the crashed page are gone.", json{{"new_tab", (*nt)->id}});
}

AGENTKIT_DECL auto browser::replace_tab(const tab_ptr& dead) -> result<tab_ptr> {
    auto nt = create_tab();
    if (!nt && eng_->conn.is_open()) nt = create_tab();
    if (!nt) return fail(nt.error());
    (void)call("", "Target.closeTarget", json{{"targetId", dead->target_id}}, 3000ms);
    forget_tab(dead);
    std::lock_guard lock(eng_->mu);
    eng_->current = (*nt)->id;
    return *nt;
}

AGENTKIT_DECL auto browser::stop_scripts(const tab_ptr& t, const std::string& session, std::chrono::milliseconds waited) -> bool {
    if (!eng_ || !eng_->conn.is_open()) return false;
    auto r = call(session.empty() ? t->session : session, "Runtime.terminateExecution", json::object(), 3000ms);
    if (!r) return false;
    restart_notes_.push_back("a script kept the page busy for more than " + std::to_string(waited.count()) +
                             " ms; it was stopped (the page's scripts may be in a broken state)");
    return true;
}

// Before the page in `t` is left (navigate, reload, back, forward). Once a navigation is on its
// way to a renderer whose main thread never yields, Chromium holds every later message to that
// renderer until the commit, which never comes, so not even a stop reaches it (a navigate waited
// its whole timeout, and the tab answered nothing after). So a page that does not answer a quick
// probe has its scripts stopped first. A page that answers nothing, not even the stop, is closed
// and a new tab opened in its place when `replace` (a navigation to a URL); otherwise an error
// says to navigate to a URL. Returns the tab to go on in.
AGENTKIT_DECL auto browser::ready_to_leave(const tab_ptr& t, bool replace) -> result<tab_ptr> {
    {
        std::lock_guard lock(eng_->mu);
        // a held dialog is the page waiting for its answer, not a hang; a dead page is replaced elsewhere
        if (t->crashed || t->closed || !t->held_dialogs.empty()) return t;
    }
    // a healthy page answers within milliseconds; one busy this long is left anyway
    const auto bound = std::min<std::chrono::milliseconds>(opt_.call_timeout, 2000ms);
    auto probe = call(t->session, "Runtime.evaluate", json{{"expression", "1"}, {"returnByValue", true}}, bound);
    if (probe || !probe.error().is(errc::timeout)) return t;
    if (stop_scripts(t, {}, bound)) return t;
    {
        std::lock_guard lock(eng_->mu);
        if (t->crashed || !eng_->conn.is_open()) return t;  // the navigation reports it
    }
    const std::string what = "the page in " + t->id + " answered nothing, not even a request to stop its scripts";
    if (!replace)
        return fail(errc::timeout, what, "Navigate to a URL: the tab is then closed and a new one opened in its place.");
    auto nt = replace_tab(t);
    if (!nt) return fail(nt.error());
    restart_notes_.push_back(what + "; it was closed and " + (*nt)->id + " opened in its place");
    return *nt;
}

AGENTKIT_DECL auto browser::find_tab(std::string_view id) -> result<tab_ptr> {
    std::lock_guard lock(eng_->mu);
    auto it = eng_->tabs.find(std::string(id));
    if (it == eng_->tabs.end() || it->second->closed) {
        std::string known;
        for (const auto& [k, t] : eng_->tabs)
            if (!t->closed) known += (known.empty() ? "" : ", ") + k;
        return fail(errc::not_found, "no tab " + std::string(id), "Open tabs: " + (known.empty() ? std::string("none") : known));
    }
    return it->second;
}

AGENTKIT_DECL auto browser::forget_tab(const tab_ptr& t) -> void {
    std::lock_guard lock(eng_->mu);
    // its refs can never resolve again: retire them (they were kept for the session's life)
    std::set<std::string> frames = {t->main_frame, t->target_id};
    for (const auto& [id, f] : t->frames) frames.insert(id);
    for (const auto& [sid, c] : t->children) frames.insert(c.frame_id);
    refs_.retire_frames(frames);
    eng_->tabs.erase(t->id);
    eng_->by_target.erase(t->target_id);
    for (auto it = eng_->by_session.begin(); it != eng_->by_session.end();)
        it = it->second == t ? eng_->by_session.erase(it) : std::next(it);
    if (eng_->current == t->id) eng_->current = eng_->tabs.empty() ? std::string() : eng_->tabs.rbegin()->first;
}

AGENTKIT_DECL auto browser::list_tabs() -> std::vector<tab_info> {
    std::vector<tab_ptr> ts;
    std::string cur;
    {
        std::lock_guard lock(eng_->mu);
        for (const auto& [k, t] : eng_->tabs)
            if (!t->closed) ts.push_back(t);
        cur = eng_->current;
    }
    std::vector<tab_info> out;
    for (const auto& t : ts) {
        tab_info i;
        i.id = t->id;
        i.active = t->id == cur;
        fill_url_title(t, i.url, i.title);
        i.url = redact_result(std::move(i.url));
        i.title = redact_result(std::move(i.title));
        out.push_back(std::move(i));
    }
    return out;
}

AGENTKIT_DECL auto browser::fill_url_title(const tab_ptr& t, std::string& url, std::string& title) -> void {
    auto r = call("", "Target.getTargetInfo", json{{"targetId", t->target_id}}, 5000ms);
    if (r) {
        const json& info = detail::jobj(*r, "targetInfo");
        url = detail::jstr(info, "url");
        title = detail::jstr(info, "title");
        std::lock_guard lock(eng_->mu);
        t->title = title;  // Chromium announces no title change (Target.targetInfoChanged comes at commit): keep
                           // the freshest for peek()
        return;
    }
    std::lock_guard lock(eng_->mu);
    url = t->url;
    title = t->title;
}

AGENTKIT_DECL auto browser::to_front(const tab_ptr& t) -> void {
    {
        std::lock_guard lock(eng_->mu);
        if (eng_->front_tab == t->id) return;
    }
    if (call(t->session, "Page.bringToFront", json::object(), 3000ms)) {
        std::lock_guard lock(eng_->mu);
        eng_->front_tab = t->id;
    }
}
}  // namespace agentkit::browser
