// agentkit/browser/impl/settle.hpp — browser: how an action settles (navigation, requests, DOM quiet) and what its result reports.
// Part of browser.hpp (which includes it at its end); not an entry point of its own.
#pragma once

#include <agentkit/browser/browser.hpp>

namespace agentkit::browser {

AGENTKIT_DECL auto browser::dom_quiet(const tab_ptr& t) -> quiet_result {
    {
        std::lock_guard lock(policy_mu_);
        if (!opt_.emulation.javascript_enabled) return quiet_result::quiet;  // no script of the page runs to change it (nor ours to watch)
    }
    const auto q = opt_.dom_quiet.count();
    const auto mx = opt_.dom_quiet_timeout.count();
    auto r = call(t->session, "Runtime.evaluate",
                  json{{"expression", "(" + std::string(detail::kQuietScript) + ")(" + std::to_string(q) + "," +
                                          std::to_string(mx) + ")"},
                       {"awaitPromise", true}, {"returnByValue", true}},
                  opt_.dom_quiet_timeout + 2000ms);
    if (!r) {
        if (!eng_->conn.is_open()) return quiet_result::failed;
        return quiet_result::navigated;  // context destroyed by a navigation, most likely
    }
    if (r->contains("exceptionDetails")) return quiet_result::navigated;
    return detail::jstr(detail::jobj(*r, "result"), "value") == "busy" ? quiet_result::busy : quiet_result::quiet;
}

AGENTKIT_DECL auto browser::main_loader(const tab_ptr& t) -> std::string {
    auto f = t->frames.find(t->main_frame);
    return f == t->frames.end() ? std::string() : f->second.loader;
}

AGENTKIT_DECL auto browser::load_held_back(const tab_ptr& t) -> bool {
    if (opt_.load_event_timeout.count() <= 0 || t->nav_started > t->nav_committed) return false;
    const std::string ld = main_loader(t);
    if (ld.empty() || t->lifecycle[ld].count("load") != 0) return false;
    const auto ready = t->dom_ready_at.find(ld);
    return ready != t->dom_ready_at.end() && clock::now() - ready->second >= opt_.load_event_timeout;
}

AGENTKIT_DECL auto browser::load_done(const tab_ptr& t, const std::string& loader) -> bool {
    return t->lifecycle[loader].count("load") != 0 || (loader == main_loader(t) && load_held_back(t));
}

AGENTKIT_DECL auto browser::settle(const tab_ptr& t, std::uint64_t mark, std::vector<std::string>& notes, clock::time_point deadline)
    -> void {
    wait_timer timer(wait_us_);
    constexpr int rounds = 4;
    int nav_rounds = 0;
    // one bound for the whole action, whatever the page does in each round
    auto left = [&](std::chrono::milliseconds want) {
        const auto rest = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - clock::now());
        return std::max(std::chrono::milliseconds(0), std::min(want, rest));
    };
    auto out_of_time = [&] {
        if (clock::now() < deadline) return false;
        notes.push_back("stopped waiting for the page: the action's bound of " + std::to_string(opt_.navigation_timeout.count()) +
                        " ms is used up");
        return true;
    };
    for (int round = 0; round < rounds; ++round) {
        if (out_of_time()) return;
        bool stopped = false;  // a flood stopped the page's scripts: nothing can change it, and nothing measures it
        {
            std::lock_guard lock(eng_->mu);
            stopped = t->scripts_stopped.count(t->session) != 0;
        }
        auto q = stopped ? quiet_result::quiet : dom_quiet(t);
        if (q == quiet_result::failed) return;
        // the events Chromium sent before the answer (a navigation starting or finishing,
        // requests) may not have been dispatched yet: judge the state only once they have
        (void)eng_->conn.sync_events();
        bool nav_pending = false;
        {
            std::lock_guard lock(eng_->mu);
            // (a document whose load event is held back never stops loading: its requested
            // navigation is done once it committed)
            const bool held = load_held_back(t);
            nav_pending = (t->main_loading && !held) ||
                          (t->nav_requested > mark && t->nav_requested > t->nav_stopped && !(held && t->nav_committed > t->nav_requested)) ||
                          (t->nav_committed > mark && !load_done(t, main_loader(t)));
        }
        if (nav_pending || q == quiet_result::navigated) {
            std::uint64_t wait_mark = 0;
            {
                std::lock_guard lock(eng_->mu);
                wait_mark = eng_->seq;
            }
            const bool loaded = wait_until(
                [&] {
                    if (t->closed || t->crashed) return true;
                    // a document finished loading meanwhile: progress (the next round looks again), so a
                    // page that navigates in a loop uses up the rounds instead of the timeout
                    if (t->main_loaded > wait_mark) return true;
                    const bool req_open = t->nav_requested > mark && t->nav_requested > t->nav_stopped &&
                                          t->nav_requested > t->nav_started;
                    if (req_open) return false;
                    if (t->main_loading && !load_held_back(t)) return false;
                    return t->nav_committed <= mark || load_done(t, main_loader(t)) || t->nav_stopped > t->nav_committed;
                },
                left(opt_.navigation_timeout));
            if (!loaded && eng_->conn.is_open() && !out_of_time())
                notes.push_back("the page was still loading after " + std::to_string(opt_.navigation_timeout.count()) + " ms");
            if (!eng_->conn.is_open()) return;
            if (++nav_rounds == rounds) {  // every round saw another navigation: a page that navigates in a loop
                notes.push_back("the page kept navigating (a new document in each of " + std::to_string(rounds) +
                                " settle rounds); stopped waiting for it");
                std::lock_guard lock(eng_->mu);
                t->looping = true;
            }
            continue;  // check the new document is quiet
        }
        bool busy_net = false;
        {
            std::lock_guard lock(eng_->mu);
            for (const auto& [k, s] : t->inflight) busy_net = busy_net || s > mark;
        }
        if (busy_net) {
            const bool idle = wait_until(
                [&] {
                    for (const auto& [k, s] : t->inflight)
                        if (s > mark) return false;
                    return true;
                },
                left(opt_.network_idle_timeout));
            if (!idle) {
                if (eng_->conn.is_open())
                    notes.push_back("some requests the action started were still running after " +
                                    std::to_string(opt_.network_idle_timeout.count()) + " ms");
                return;
            }
            continue;  // responses may change the DOM: check it is quiet again
        }
        if (q == quiet_result::busy)
            notes.push_back("the page kept changing for " + std::to_string(opt_.dom_quiet_timeout.count()) + " ms");
        return;
    }
}

template <class F>
auto browser::act(std::string what, F&& f, bool expect_navigation) -> result<action_result> {
    std::lock_guard op(op_mu_);
    auto e = ensure();
    if (!e) return fail(e.error());
    auto ct = current_tab();
    if (!ct) return fail(ct.error());
    return finish_action(act_locked(std::move(what), *ct, std::forward<F>(f), expect_navigation));
}

AGENTKIT_DECL auto browser::set_reported_url(const tab_ptr& t, const std::string& url) -> void {
    std::lock_guard lock(eng_->mu);
    t->reported_url = url;
}

AGENTKIT_DECL auto browser::finish_action(result<action_result> r) const -> result<action_result> {
    if (!r) return fail(redact_result(r.error()));
    auto& a = *r;
    a.url = redact_result(std::move(a.url));
    a.from_url = redact_result(std::move(a.from_url));
    a.requested_url = redact_result(std::move(a.requested_url));
    a.form_get_url = redact_result(std::move(a.form_get_url));
    a.title = redact_result(std::move(a.title));
    a.changes = redact_result(std::move(a.changes));
    a.snapshot = redact_result(std::move(a.snapshot));
    for (auto& n : a.notes) n = redact_result(std::move(n));
    for (auto& d : a.dialogs) {
        d.message = redact_result(std::move(d.message));
        d.prompt_text = redact_result(std::move(d.prompt_text));
        d.default_prompt = redact_result(std::move(d.default_prompt));
        d.url = redact_result(std::move(d.url));
    }
    for (auto& t : a.opened_tabs) {
        t.url = redact_result(std::move(t.url));
        t.title = redact_result(std::move(t.title));
    }
    for (auto& b : a.blocked) b.url = redact_result(std::move(b.url));
    for (auto& d : a.downloads) d.url = redact_result(std::move(d.url));
    a.boundary = nonce_;
    return r;
}

AGENTKIT_DECL auto browser::finish_snapshot(result<page_snapshot> r) const -> result<page_snapshot> {
    if (!r) return fail(redact_result(r.error()));
    r->url = redact_result(std::move(r->url));
    r->title = redact_result(std::move(r->title));
    r->snap.text = redact_result(std::move(r->snap.text));
    r->snap.full_text = redact_result(std::move(r->snap.full_text));
    for (auto& n : r->notes) n = redact_result(std::move(n));
    r->boundary = nonce_;
    return r;
}

template <class F>
auto browser::act_locked(std::string what, tab_ptr t, F&& f, bool expect_navigation) -> result<action_result> {
    const auto t0 = clock::now();
    begin_call(t);
    if (!t->has_last && !expect_navigation) {
        auto base = take_snapshot(t, page_view_options(), page_read::part);
        if (!base && base.error().is(errc::browser_crashed)) return fail(base.error());
    }
    std::uint64_t mark = 0;
    std::string loader_before;
    std::set<std::string> tabs_before;
    std::string out_from;
    {
        std::lock_guard lock(eng_->mu);
        mark = eng_->seq;
        loader_before = main_loader(t);
        out_from = t->reported_url.empty() ? t->url : t->reported_url;
        t->dialogs.clear();
        t->opened.clear();
    }
    if (!expect_navigation) release_flood_stops(t);  // a navigation leaves the stopped page first (navigate_locked)
    action_result out;
    out.action = std::move(what);
    out.from_url = std::move(out_from);
    take_notes(out);
    auto r = f(t);
    // a dialog left open (dialog_policy::hold) ends the action: it is what the action led to
    if (!r && !r.error().is(errc::dialog_open)) {
        if (!eng_->conn.is_open() && !r.error().is(errc::browser_crashed)) return fail(crashed_error(r.error()));
        return fail(r.error());
    }
    if (r) settle(t, mark, out.notes, t0 + opt_.navigation_timeout);
    if (r && opt_.min_settle.count() > 0) {  // no sooner than min_settle: a timer the action set off is seen
        const auto rest = std::chrono::duration_cast<std::chrono::milliseconds>(t0 + opt_.min_settle - clock::now());
        if (rest.count() > 0) (void)wait_until([&] { return t->closed || t->crashed || !t->held_dialogs.empty(); }, rest);
    }
    {
        std::lock_guard lock(eng_->mu);
        out.notes.insert(out.notes.end(), t->action_notes.begin(), t->action_notes.end());
        t->action_notes.clear();
        if (main_loader(t) != loader_before && load_held_back(t))
            out.notes.push_back("the page's load event had not fired " + std::to_string(opt_.load_event_timeout.count()) +
                                " ms after its document was ready (an image, frame or request it waits for is still "
                                "pending): shown as it is");
    }
    if (!eng_->conn.is_open()) {
        auto why = eng_->conn.failure();
        return fail(crashed_error(why.value_or(error(errc::browser_crashed, "the connection ended"))));
    }
    std::vector<std::string> opened;
    {
        std::unique_lock lock(eng_->mu);
        // popups the action opened are adopted off the dispatcher: report them once attached
        eng_->cv.wait_for(lock, opt_.call_timeout, [&] { return eng_->adopting.empty(); });
        out.dialogs = std::exchange(t->dialogs, {});
        out.dialogs_dropped = std::exchange(t->dialogs_dropped, 0);
        opened = std::exchange(t->opened, {});
        for (const auto& [seq, b] : eng_->blocked)
            if (seq > mark) out.blocked.push_back(b);
        for (const auto& [seq, d] : eng_->downloads)
            if (seq > mark) out.downloads.push_back(d);
        const std::string now_loader = main_loader(t);
        out.navigated = t->nav_committed > mark && now_loader != loader_before;
        if (out.navigated)
            if (auto s = t->doc_status.find(now_loader); s != t->doc_status.end()) out.http_status = s->second;
        if (out.navigated && t->nav_requested > mark) out.form_get_url = t->form_get_url;
    }
    // A popup comes to the front; the current tab stays the opener, and input to a tab in
    // the background is not processed: bring the current tab back.
    if (!opened.empty()) to_front(t);
    for (const auto& id : opened) {
        tab_info ti;
        ti.id = id;
        auto nt = find_tab(id);
        if (nt) fill_url_title(*nt, ti.url, ti.title);
        // A popup whose URL the policy refuses is closed (its requests were blocked already).
        if (nt) {
            std::string pending;
            {
                std::lock_guard lock(eng_->mu);
                for (const auto& b : out.blocked)
                    if (b.tab == id && b.resource_type.rfind("Document", 0) == 0) pending = b.url;
            }
            auto v = opt_.policy.check(ti.url);
            if (v || !pending.empty()) {
                (void)call("", "Target.closeTarget", json{{"targetId", (*nt)->target_id}});
                forget_tab(*nt);
                {
                    std::lock_guard lock(eng_->mu);
                    if (eng_->current.empty() || eng_->tabs.count(eng_->current) == 0) eng_->current = t->id;
                }
                out.notes.push_back("a popup to " + (v ? ti.url : pending) + " was blocked by policy" +
                                    (v ? " rule " + v->rule : std::string()) + " and closed");
                continue;
            }
        }
        out.opened_tabs.push_back(std::move(ti));
    }
    if (t->closed) {
        out.changes = "the tab closed";
        out.elapsed = std::chrono::duration_cast<std::chrono::milliseconds>(clock::now() - t0);
        return out;
    }
    bool dialog_open = false;
    {
        std::lock_guard lock(eng_->mu);
        dialog_open = !t->held_dialogs.empty();
    }
    if (dialog_open) {  // the page waits for the dialog's answer: no snapshot until then
        out.changes = "a dialog is open: answer it (answer_dialog) to go on";
        fill_url_title(t, out.url, out.title);
        out.elapsed = std::chrono::duration_cast<std::chrono::milliseconds>(clock::now() - t0);
        return out;
    }
    std::vector<snapshot_line> before;
    std::int64_t before_boundary = 0;
    std::uint64_t before_tail = 0;
    {
        std::lock_guard lock(eng_->mu);
        before = t->last_lines;
        before_boundary = t->last_boundary;
        before_tail = t->last_tail;
    }
    // A large page read in part before is read to the same node again: the change report
    // compares like with like, and says when the page changed beyond it.
    auto snap = take_snapshot(t, page_view_options(), out.navigated ? page_read::part : page_read::same_part);
    if (!snap) {
        if (snap.error().is(errc::browser_crashed)) return fail(snap.error());
        out.notes.push_back("no snapshot after the action: " + snap.error().message);
        fill_url_title(t, out.url, out.title);
    } else {
        out.url = snap->url;
        out.title = snap->title;
        if (out.navigated) {
            // a page an action led to shows what it repeats of the last as one line; a navigate,
            // back or reload (expected) shows its page whole
            if (opt_.snapshot_after_navigation) out.snapshot = show_new_page(t, *snap, out.notes, !expect_navigation);
            else forget_shown(t);  // the model did not see this page: nothing is "as before" on the next
        } else {
            out.changes = format_delta(diff_snapshots(before, snap->snap.lines), opt_.delta_budget, opt_.tokens);
            if (before_boundary != 0 && snap->part_boundary == before_boundary && snap->part_tail_digest != before_tail)
                out.notes.push_back(
                    "the page also changed beyond the part of this large page a snapshot reads (" +
                    std::to_string(snap->snap.percent_read()) +
                    "% from its top): snapshot a subtree by ref, use viewport_only, or search the page text to see it");
            // the model knows the page as it is now (what it saw and the changes): the next
            // page's repeats are compared with that, not with the page before the action
            std::lock_guard lock(eng_->mu);
            detail::remember_regions(t->shown, detail::url_origin(snap->url), snap->snap.text);
        }
    }
    set_reported_url(t, out.url);  // the result names it (or it is where the model already was)
    out.elapsed = std::chrono::duration_cast<std::chrono::milliseconds>(clock::now() - t0);
    return out;
}
}  // namespace agentkit::browser
