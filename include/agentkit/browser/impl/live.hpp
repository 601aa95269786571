// agentkit/browser/impl/live.hpp — browser: what a live view needs (browser/live/dashboard.hpp): a
// screencast paced by its viewers, a person's input, and the change report on hand-back.
// Part of browser.hpp (which includes it at its end); not an entry point of its own.
#pragma once

#include <agentkit/browser/browser.hpp>

namespace agentkit::browser {

AGENTKIT_DECL auto browser::set_screencast_sink(std::function<void(screencast_frame)> sink) -> void {
    std::unique_lock lock(live_mu_);
    live_sink_ = sink ? std::make_shared<std::function<void(screencast_frame)>>(std::move(sink)) : nullptr;
    // the old sink may be running on the event thread: wait until it returned (unless this is it)
    const auto self = std::this_thread::get_id();
    live_cv_.wait(lock, [&] { return live_calls_ == 0 || live_caller_ == self; });
}

AGENTKIT_DECL auto browser::start_screencast(screencast_options o) -> result<std::string> {
    std::lock_guard op(op_mu_);
    if (!eng_ || !eng_->conn.is_open())
        return fail(errc::not_found, "the browser has not started", "The screencast starts with the agent's first browser call.");
    auto t = current_tab();
    if (!t) return fail(t.error());
    std::string old_session;
    {
        std::lock_guard lock(live_mu_);
        if (live_session_ == (*t)->session && live_opt_.max_width == o.max_width && live_opt_.max_height == o.max_height &&
            live_opt_.quality == o.quality && live_opt_.max_frames_in_flight == o.max_frames_in_flight &&
            live_opt_.send_last_frame == o.send_last_frame && live_opt_.every_nth_frame == o.every_nth_frame)
            return live_tab_;
        old_session = live_session_;
        live_session_ = (*t)->session;
        live_tab_ = (*t)->id;
        live_opt_ = o;
        live_capture_ = true;
    }
    bool recording_there = false;
    {
        std::lock_guard lock(eng_->mu);
        recording_there = eng_->recording && eng_->recording_session == old_session;
    }
    // a screencast moving to another tab, or restarting with other options (Chromium refuses a
    // second start on a session that casts)
    if (!old_session.empty() && !recording_there) (void)call(old_session, "Page.stopScreencast");
    auto r = call((*t)->session, "Page.startScreencast", screencast_params(o));
    if (!r) {
        std::lock_guard lock(live_mu_);
        live_session_.clear();
        live_tab_.clear();
        live_capture_ = false;
        return fail(r.error());
    }
    return (*t)->id;
}

AGENTKIT_DECL auto browser::stop_screencast() -> void {
    std::lock_guard op(op_mu_);
    std::string session;
    {
        std::lock_guard lock(live_mu_);
        session = std::exchange(live_session_, std::string());
        live_tab_.clear();
        if (!std::exchange(live_capture_, false)) session.clear();  // turned off already
    }
    if (session.empty() || !eng_ || !eng_->conn.is_open()) return;
    {
        std::lock_guard lock(eng_->mu);
        if (eng_->recording && eng_->recording_session == session) return;  // the recording still needs it
    }
    (void)call(session, "Page.stopScreencast");
}

AGENTKIT_DECL auto browser::screencast_params(const screencast_options& o) -> json {
    return json{{"format", "jpeg"}, {"quality", std::clamp(o.quality, 1, 100)}, {"maxWidth", std::max(16, o.max_width)},
                {"maxHeight", std::max(16, o.max_height)}, {"everyNthFrame", std::max(1, o.every_nth_frame)},
                {"maxFramesInFlight", std::max(1, o.max_frames_in_flight)}, {"sendLastFrame", o.send_last_frame}};
}

AGENTKIT_DECL auto browser::set_screencast_capture(bool on) -> void {
    std::lock_guard lock(live_mu_);  // held while sending: the starts and stops reach the browser in order
    if (live_session_.empty() || live_capture_ == on || !eng_ || !eng_->conn.is_open()) return;
    {
        std::lock_guard e(eng_->mu);
        if (eng_->recording && eng_->recording_session == live_session_) return;  // the recording keeps it on
    }
    live_capture_ = on;
    if (on) eng_->conn.call_async("Page.startScreencast", screencast_params(live_opt_), live_session_, [](result<json>) {});
    else eng_->conn.call_async("Page.stopScreencast", json::object(), live_session_, [](result<json>) {});
}

AGENTKIT_DECL auto browser::screencast_capturing() -> bool {
    std::lock_guard lock(live_mu_);
    return live_capture_;
}

AGENTKIT_DECL auto browser::screencast_tab() -> std::string {
    std::lock_guard lock(live_mu_);
    return live_tab_;
}

AGENTKIT_DECL auto browser::peek(bool console, bool network, std::size_t max_events) -> live_peek {
    live_peek out;
    std::lock_guard live(live_mu_);  // held where the engine is replaced: eng_ stays put meanwhile
    if (!eng_ || !eng_->conn.is_open()) return out;
    out.running = true;
    std::lock_guard lock(eng_->mu);
    tab_ptr current;
    for (const auto& [id, t] : eng_->tabs) {
        if (t->closed) continue;
        const bool active = id == eng_->current;
        if (active) current = t;
        out.tabs.push_back(tab_info{id, redact_result(t->url), redact_result(t->title), active});
    }
    if (!current) return out;
    if (console) {
        const std::size_t skip = current->console.size() > max_events ? current->console.size() - max_events : 0;
        for (auto it = current->console.begin() + static_cast<std::ptrdiff_t>(skip); it != current->console.end(); ++it) {
            console_message m = *it;
            m.text = redact_result(std::move(m.text));
            m.url = redact_result(std::move(m.url));
            out.console.push_back(std::move(m));
        }
    }
    if (network) {
        const std::size_t skip = current->network.size() > max_events ? current->network.size() - max_events : 0;
        for (auto it = current->network.begin() + static_cast<std::ptrdiff_t>(skip); it != current->network.end(); ++it) {
            network_entry n = it->second;
            n.url = redact_result(std::move(n.url));
            out.network.push_back(std::move(n));
        }
    }
    return out;
}

AGENTKIT_DECL auto browser::ack_screencast_frame(const screencast_frame& f) -> void {
    if (!f.needs_ack) return;
    std::lock_guard lock(live_mu_);
    if (!eng_ || f.engine != engine_gen_ || !eng_->conn.is_open()) return;
    eng_->conn.call_async("Page.screencastFrameAck", json{{"sessionId", f.ack_id}}, f.session, [](result<json>) {});
}

AGENTKIT_DECL auto browser::dispatch_input(std::string_view method, json params) -> result<void> {
    if (method != "Input.dispatchMouseEvent" && method != "Input.dispatchKeyEvent" && method != "Input.insertText")
        return fail(errc::args_invalid, "not an input method: " + std::string(method),
                    "Use Input.dispatchMouseEvent, Input.dispatchKeyEvent or Input.insertText.");
    std::lock_guard op(op_mu_);
    if (!eng_ || !eng_->conn.is_open()) return fail(errc::not_found, "the browser has not started");
    auto t = current_tab();
    if (!t) return fail(t.error());
    auto r = call((*t)->session, method, std::move(params));
    if (!r) return fail(r.error());
    return {};
}

AGENTKIT_DECL auto browser::mark_page() -> result<page_mark> {
    std::lock_guard op(op_mu_);
    if (!eng_ || !eng_->conn.is_open()) return page_mark{};
    auto t = current_tab();
    if (!t) return page_mark{};
    std::lock_guard lock(eng_->mu);
    return page_mark{(*t)->id, main_loader(*t), eng_->seq};
}

AGENTKIT_DECL auto browser::changes_since(const page_mark& m) -> result<action_result> {
    std::lock_guard op(op_mu_);
    auto e = ensure();
    if (!e) return fail(e.error());
    auto ct = current_tab();
    if (!ct) return fail(ct.error());
    const tab_ptr t = *ct;
    begin_call(t);
    action_result out;
    out.action = "handed back";
    std::vector<snapshot_line> before;
    {
        std::lock_guard lock(eng_->mu);
        out.from_url = t->reported_url.empty() ? t->url : t->reported_url;
        out.navigated = m.tab != t->id || (t->nav_committed > m.seq && main_loader(t) != m.loader);
        for (const auto& [seq, b] : eng_->blocked)
            if (seq > m.seq) out.blocked.push_back(b);
        for (const auto& [seq, d] : eng_->downloads)
            if (seq > m.seq) out.downloads.push_back(d);
        before = t->last_lines;
        out.dialogs = std::exchange(t->dialogs, {});
    }
    if (m.tab != t->id) out.notes.push_back("the current tab is now " + t->id + (m.tab.empty() ? "" : " (was " + m.tab + ")"));
    auto snap = take_snapshot(t, page_view_options());
    if (!snap) {
        if (snap.error().is(errc::browser_crashed)) return fail(snap.error());
        out.notes.push_back("no snapshot: " + snap.error().message);
        fill_url_title(t, out.url, out.title);
    } else {
        out.url = snap->url;
        out.title = snap->title;
        if (out.navigated) {
            out.snapshot = show_new_page(t, *snap, out.notes, false);  // whole: a person led there
        } else {
            out.changes = format_delta(diff_snapshots(before, snap->snap.lines), opt_.delta_budget, opt_.tokens);
            std::lock_guard lock(eng_->mu);  // the model knows the page as it is now
            detail::remember_regions(t->shown, detail::url_origin(snap->url), snap->snap.text);
        }
    }
    set_reported_url(t, out.url);
    return finish_action(std::move(out));
}
}  // namespace agentkit::browser
