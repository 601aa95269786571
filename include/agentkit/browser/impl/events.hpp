// agentkit/browser/impl/events.hpp — browser: CDP events on the dispatcher thread: targets, frames, navigation, network, console, dialogs.
// Part of browser.hpp (which includes it at its end); not an entry point of its own.
#pragma once

#include <agentkit/browser/browser.hpp>

namespace agentkit::browser {

AGENTKIT_DECL auto browser::tab_of_frame(engine& e, const std::string& frame) -> std::string {
    for (const auto& [id, t] : e.tabs)
        if (t->frames.count(frame) != 0 || t->target_id == frame) return id;
    return {};
}

AGENTKIT_DECL auto browser::on_browser_event(engine& e, const cdp::event& ev) -> bool {
    const std::string& m = ev.method;
    const json& p = ev.params;
    if (m == "Fetch.requestPaused") {
        const json& req = detail::jobj(p, "request");
        const std::string url = detail::jstr(req, "url");
        const std::string rid = detail::jstr(p, "requestId");
        // A request of another context's page (a main frame's id is its target's id) is
        // not ours: the session owning that context judges and reports it. Without this,
        // every session sharing the browser listed the others' refused URLs as its own
        // and applied its policy to their pages. Unknown frames are judged as before.
        bool foreign = false;
        if (const std::string frame = detail::jstr(p, "frameId"); !frame.empty()) {
            std::lock_guard lock(e.mu);
            foreign = e.foreign_targets.count(frame) != 0;
        }
        if (foreign) {
            e.conn.call_async("Fetch.continueRequest", json{{"requestId", rid}}, ev.session_id, [](result<json>) {});
            return true;
        }
        auto v = opt_.policy.check(url);
        if (!v) {
            if (route_request(e, ev)) return true;  // a route, an empty page of restore_storage, offline
            e.conn.call_async("Fetch.continueRequest", json{{"requestId", rid}}, ev.session_id, [](result<json>) {});
            return true;
        }
        {
            std::lock_guard lock(e.mu);
            blocked_request b;
            b.url = url;
            b.resource_type = detail::jstr(p, "resourceType");
            if (detail::jstr(req, "method") == "POST" && b.resource_type == "Document") b.resource_type = "Document (form post)";
            b.rule = v->rule;
            b.tab = tab_of_frame(e, detail::jstr(p, "frameId"));
            record_blocked(e, std::move(b));
        }
        e.conn.call_async("Fetch.failRequest", json{{"requestId", rid}, {"errorReason", "BlockedByClient"}}, ev.session_id,
                          [](result<json>) {});
        e.cv.notify_all();
        return true;
    }
    if (m == "Browser.downloadWillBegin") {
        download_record d;
        d.url = detail::jstr(p, "url");
        d.suggested_name = sanitize_filename(detail::jstr(p, "suggestedFilename"));
        std::lock_guard lock(e.mu);
        const std::string guid = detail::jstr(p, "guid");
        d.id = guid;
        ++e.downloads_begun;
        if (opt_.policy.downloads_dir.empty()) {
            d.state = "refused";
            d.rule = "downloads: no downloads directory is configured";
            e.downloads.emplace_back(++e.seq, std::move(d));
        } else if (opt_.policy.max_downloads != 0 && downloads_started_ >= opt_.policy.max_downloads) {
            // over the count: canceled at once; it stays pending with its rule until its end
            // (canceled, or completed first and then deleted), which records it as refused
            cancel_download(e, guid);
            d.state = "refused";  // never started, as far as the model is concerned
            d.rule = "max_downloads: " + std::to_string(opt_.policy.max_downloads) + " per browser";
            e.pending_downloads[guid] = std::move(d);
        } else {
            ++downloads_started_;
            e.pending_downloads[guid] = std::move(d);
        }
        while (e.downloads.size() > 100) e.downloads.pop_front();
        e.cv.notify_all();
        return true;
    }
    if (m == "Browser.downloadProgress") {
        const std::string state = detail::jstr(p, "state");
        std::lock_guard lock(e.mu);
        auto it = e.pending_downloads.find(detail::jstr(p, "guid"));
        if (it == e.pending_downloads.end()) return true;
        if (state == "inProgress") {
            // over the size bound (announced or received so far): cancel it once; the
            // "canceled" progress that follows reports it with the rule
            const auto max = opt_.policy.max_download_bytes;
            const double total = p.value("totalBytes", 0.0), received = p.value("receivedBytes", 0.0);
            if (max != 0 && it->second.rule.empty() && (total > static_cast<double>(max) || received > static_cast<double>(max))) {
                it->second.rule = "max_download_bytes: " + std::to_string(max);
                cancel_download(e, it->first);
            }
            return true;
        }
        if (state != "completed" && state != "canceled") return true;
        download_record d = std::move(it->second);
        const std::string guid = it->first;
        e.pending_downloads.erase(it);
        if (d.state.empty()) d.state = state;  // (one refused by the count stays refused)
        namespace fs = std::filesystem;
        const fs::path staged = fs::path(download_staging_) / guid;
        if (state == "completed") {
            // A download can finish before its cancel arrives (a fast server): one over the
            // bound is deleted here instead of kept.
            std::error_code sec;
            const auto size = fs::file_size(staged, sec);
            const auto max = opt_.policy.max_download_bytes;
            if (!d.rule.empty() || (max != 0 && !sec && size > max)) {
                fs::remove(staged, sec);
                if (d.state == "completed") d.state = "canceled";
                if (d.rule.empty()) d.rule = "max_download_bytes: " + std::to_string(max);
            }
        }
        if (d.state == "completed") {
            std::error_code ec;
            const fs::path dir = fs::absolute(opt_.policy.downloads_dir, ec);
            fs::path target = dir / d.suggested_name;
            const std::string stem = fs::path(d.suggested_name).stem().string(), ext = fs::path(d.suggested_name).extension().string();
            for (int i = 2; fs::exists(target, ec) && i < 1000; ++i) target = dir / (stem + " (" + std::to_string(i) + ")" + ext);
            // the owner's only before it leaves the private directory
            fs::permissions(staged, fs::perms::owner_read | fs::perms::owner_write, fs::perm_options::replace, ec);
            if (!ec) fs::rename(staged, target, ec);
            if (ec) {
                d.state = "failed: " + ec.message();
                std::error_code rec;
                fs::remove(staged, rec);
            } else {
                d.path = target.string();
            }
        }
        e.downloads.emplace_back(++e.seq, std::move(d));
        e.cv.notify_all();
        return true;
    }
    return false;
}

AGENTKIT_DECL auto browser::on_event(engine& e, const cdp::event& ev) -> void {
    const std::string& m = ev.method;
    if (m.rfind("Target.", 0) == 0) {
        on_target_event(e, ev);
        return;
    }
    if (m == "Fetch.requestPaused" || m.rfind("Browser.download", 0) == 0) {
        (void)on_browser_event(e, ev);
        return;
    }
    if (m == "Page.screencastFrame") {
        std::shared_ptr<std::function<void(screencast_frame)>> live;
        std::uint64_t gen = 0;
        {
            std::lock_guard lock(live_mu_);
            if (live_sink_ && ev.session_id == live_session_) {
                live = live_sink_;
                ++live_calls_;  // set_screencast_sink() waits for this call (below) to return
                live_caller_ = std::this_thread::get_id();
            }
            gen = engine_gen_;
        }
        bool recorded = false;
        {
            std::lock_guard lock(e.mu);
            recorded = e.recording && ev.session_id == e.recording_session;
        }
        {
            struct sink_call_end {  // on every way out of this block
                browser* self;
                bool active;
                ~sink_call_end() {
                    if (!active) return;
                    {
                        std::lock_guard lock(self->live_mu_);
                        --self->live_calls_;
                    }
                    self->live_cv_.notify_all();
                }
            } end_of_sink_call{this, live != nullptr};
            // a recording keeps its own pace (every frame); a live view alone is paced by its viewers
            if (!live || recorded)
                e.conn.call_async("Page.screencastFrameAck", json{{"sessionId", detail::jint(ev.params, "sessionId")}}, ev.session_id,
                                  [](result<json>) {});
            if (live) {
                const json& md = detail::jobj(ev.params, "metadata");
                screencast_frame f;
                f.data = detail::jstr(ev.params, "data");
                f.session = ev.session_id;
                f.ack_id = static_cast<int>(detail::jint(ev.params, "sessionId"));
                f.engine = gen;
                f.timestamp = detail::jnum(md, "timestamp");
                f.css_width = detail::jnum(md, "deviceWidth");
                f.css_height = detail::jnum(md, "deviceHeight");
                f.page_scale = md.contains("pageScaleFactor") ? detail::jnum(md, "pageScaleFactor") : 1.0;
                f.offset_top = detail::jnum(md, "offsetTop");
                f.needs_ack = !recorded;
                try {
                    (*live)(std::move(f));
                } catch (...) {
                }
            }
        }
        std::lock_guard lock(e.mu);
        if (!e.recording || ev.session_id != e.recording_session) return;
        e.frames.emplace_back(detail::jnum(detail::jobj(ev.params, "metadata"), "timestamp"), detail::jstr(ev.params, "data"));
        while (e.frames.size() > std::max<std::size_t>(1, opt_.recording_max_frames)) {
            e.frames.pop_front();
            ++e.frames_dropped;
        }
        e.cv.notify_all();
        return;
    }
    tab_ptr t;
    std::string answer_session;
    bool stop_script = false, pause_console = false;
    json answer;
    {
        std::lock_guard lock(e.mu);
        auto it = e.by_session.find(ev.session_id);
        if (it == e.by_session.end()) return;
        t = it->second;
        const json& p = ev.params;
        const bool page_session = ev.session_id == t->session;
        if (m == "Page.frameNavigated") {
            const json& f = detail::jobj(p, "frame");
            const std::string id = detail::jstr(f, "id");
            auto& rec = t->frames[id];
            rec.loader = detail::jstr(f, "loaderId");
            rec.url = detail::jstr(f, "url") + detail::jstr(f, "urlFragment");
            rec.parent = detail::jstr(f, "parentId");
            rec.session = ev.session_id;
            if (rec.parent.empty() && page_session) {
                t->main_frame = id;
                t->url = rec.url;
                t->nav_committed = ++e.seq;
                t->leaving = false;
                t->chooser.reset();  // the document that opened it is gone
                t->console_document = t->console_dropped + t->console.size();
                if (detail::jstr(p, "type") == "BackForwardCacheRestore") t->lifecycle[rec.loader].insert("load");
            }
            refs_.frame_navigated(id, rec.loader);
        } else if (m == "Page.navigatedWithinDocument") {
            const std::string id = detail::jstr(p, "frameId");
            if (id == t->main_frame) {
                t->url = detail::jstr(p, "url");
                t->same_doc = ++e.seq;
            }
            if (auto fr = t->frames.find(id); fr != t->frames.end()) fr->second.url = detail::jstr(p, "url");
        } else if (m == "Page.frameAttached") {
            auto& rec = t->frames[detail::jstr(p, "frameId")];
            rec.parent = detail::jstr(p, "parentFrameId");
            rec.session = ev.session_id;
        } else if (m == "Page.frameDetached") {
            if (detail::jstr(p, "reason") != "swap") t->frames.erase(detail::jstr(p, "frameId"));
        } else if (m == "Page.frameRequestedNavigation") {
            if (detail::jstr(p, "frameId") == t->main_frame) {
                t->nav_requested = ++e.seq;
                t->form_get_url = detail::jstr(p, "reason") == "formSubmissionGet" ? detail::jstr(p, "url") : std::string();
            }
        } else if (m == "Page.frameStartedLoading") {
            if (detail::jstr(p, "frameId") == t->main_frame) {
                t->main_loading = true;
                t->nav_started = ++e.seq;
            }
        } else if (m == "Page.frameStoppedLoading") {
            if (detail::jstr(p, "frameId") == t->main_frame) {
                t->main_loading = false;
                t->nav_stopped = ++e.seq;
            }
        } else if (m == "Page.lifecycleEvent") {
            const std::string name = detail::jstr(p, "name");
            t->lifecycle[detail::jstr(p, "loaderId")].insert(name);
            if (name == "DOMContentLoaded") t->dom_ready_at.emplace(detail::jstr(p, "loaderId"), clock::now());
        } else if (m == "Page.loadEventFired") {
            if (page_session) {
                t->main_loaded = ++e.seq;
                if (auto fr = t->frames.find(t->main_frame); fr != t->frames.end()) t->lifecycle[fr->second.loader].insert("load");
            }
        } else if (m == "Page.javascriptDialogOpening") {
            dialog_record d;
            d.type = detail::jstr(p, "type");
            d.message = detail::jstr(p, "message");
            d.default_prompt = detail::jstr(p, "defaultPrompt");
            d.url = detail::jstr(p, "url");
            dialog_action a = dialog_action::accept;
            bool hold = false;
            {
                std::lock_guard pl(policy_mu_);
                const auto& pol = opt_.dialogs;
                a = d.type == "alert" ? pol.alert : d.type == "confirm" ? pol.confirm : d.type == "prompt" ? pol.prompt : pol.beforeunload;
                d.prompt_text = pol.prompt_text.empty() ? d.default_prompt : pol.prompt_text;
                hold = pol.hold;
            }
            if (hold) {  // left open until answer_dialog(); the action that raised it reports it open
                d.open = true;
                d.prompt_text.clear();
                t->held_dialogs.emplace_back(d, ev.session_id);
                t->dialogs.push_back(std::move(d));
            } else {
                d.accepted = a == dialog_action::accept;
                answer = {{"accept", d.accepted}};
                if (d.type == "prompt" && d.accepted) answer["promptText"] = d.prompt_text;
                answer_session = ev.session_id;
                if (t->dialogs.size() < std::max<std::size_t>(1, opt_.policy.max_dialogs_per_action)) {
                    t->dialogs.push_back(std::move(d));
                } else {
                    // a flood: the script raising them is stopped as the dialog is answered, and the
                    // page runs no script until the next action. A loop of 100,000 alerts would hold
                    // the page, and every call waiting on it, for minutes; a timer raising one every
                    // 4 ms would keep a navigation away from ever starting.
                    ++t->dialogs_dropped;
                    if (!t->leaving && t->scripts_stopped.insert(ev.session_id).second) {
                        stop_script = true;
                        t->action_notes.push_back("the page raised more than " + std::to_string(opt_.policy.max_dialogs_per_action) +
                                                 " dialogs: its scripts were stopped until the next action");
                    }
                }
            }
        } else if (m == "Page.fileChooserOpened") {  // intercepted: the page waits for upload() or nothing
            detail::file_chooser_rec c;
            if (auto b = p.find("backendNodeId"); b != p.end() && b->is_number_integer()) c.backend = b->get<std::int64_t>();
            c.multiple = detail::jstr(p, "mode") == "selectMultiple";
            c.session = ev.session_id;
            bool hold = false;
            {
                std::lock_guard pl(policy_mu_);
                hold = opt_.dialogs.hold;
            }
            if (!hold)  // held (Playwright's modal state): the result lists it open instead
                t->action_notes.push_back(detail::file_chooser_note(c));
            t->chooser = c;
        } else if (m == "Page.javascriptDialogClosed") {  // answered (by answer_dialog() or out of band)
            for (auto it2 = t->held_dialogs.begin(); it2 != t->held_dialogs.end(); ++it2)
                if (it2->second == ev.session_id) {
                    t->held_dialogs.erase(it2);
                    break;
                }
        } else if (m == "Network.requestWillBeSent") {
            const std::string key = ev.session_id + "|" + detail::jstr(p, "requestId");
            const std::string type = detail::jstr(p, "type");
            if (!p.contains("redirectResponse") && type != "EventSource" && type != "WebSocket")
                t->inflight[key] = ++e.seq;
            const json& req = detail::jobj(p, "request");
            network_entry n;
            n.method = detail::jstr(req, "method");
            n.url = detail::jstr(req, "url");
            n.resource_type = type;
            n.request_headers = detail::logged_headers(detail::jobj(req, "headers"));
            if (req.contains("postData") && req["postData"].is_string())
                n.post_data = detail::bounded_body(req["postData"].get<std::string>(), 64 * 1024);
            t->request_start[key] = detail::jnum(p, "timestamp");
            if (auto r = detail::jobj(p, "redirectResponse"); !r.empty()) {
                for (auto it2 = t->network.rbegin(); it2 != t->network.rend(); ++it2)
                    if (it2->first == key) {
                        it2->second.status = static_cast<int>(detail::jint(r, "status"));
                        it2->second.finished = true;
                        break;
                    }
            }
            // the browser's own favicon fetch is no request of the page (Playwright leaves it out too)
            if (!detail::is_favicon_url(n.url)) t->network.emplace_back(key, std::move(n));
            while (t->network.size() > opt_.network_capacity) {
                t->network.pop_front();
                ++t->network_dropped;
            }
        } else if (m == "Network.responseReceived") {
            const std::string key = ev.session_id + "|" + detail::jstr(p, "requestId");
            const json& r = detail::jobj(p, "response");
            if (detail::jstr(p, "type") == "Document" && !detail::jstr(p, "loaderId").empty())
                t->doc_status[detail::jstr(p, "loaderId")] = static_cast<int>(detail::jint(r, "status"));
            for (auto it2 = t->network.rbegin(); it2 != t->network.rend(); ++it2)
                if (it2->first == key) {
                    it2->second.status = static_cast<int>(detail::jint(r, "status"));
                    it2->second.mime_type = detail::jstr(r, "mimeType");
                    it2->second.status_text = detail::jstr(r, "statusText");
                    it2->second.response_headers = detail::logged_headers(detail::jobj(r, "headers"));
                    break;
                }
        } else if (m == "Network.loadingFinished" || m == "Network.loadingFailed") {
            const std::string key = ev.session_id + "|" + detail::jstr(p, "requestId");
            t->inflight.erase(key);
            const double start = t->request_start.count(key) != 0 ? t->request_start[key] : 0;
            t->request_start.erase(key);
            for (auto it2 = t->network.rbegin(); it2 != t->network.rend(); ++it2)
                if (it2->first == key) {
                    it2->second.finished = true;
                    it2->second.error = detail::jstr(p, "errorText");
                    if (start > 0) it2->second.duration_ms = (detail::jnum(p, "timestamp") - start) * 1000.0;
                    break;
                }
        } else if (m == "Runtime.consoleAPICalled") {
            // oversized messages (the connection summarised them) in a flood: console events off
            // for this session until the next action, so that the browser stops serialising them
            if (p.contains("agentkit_oversized") && ++t->oversized_console > opt_.max_oversized_console &&
                t->console_paused.insert(ev.session_id).second) {
                pause_console = true;
                t->action_notes.push_back("the page logged more than " + std::to_string(opt_.max_oversized_console) +
                                         " console messages over 256 KB: the script logging them was stopped and console "
                                         "messages were paused until the next action");
            }
            console_message c;
            c.level = detail::jstr(p, "type");
            c.text = detail::clip(detail::args_text(p.contains("args") ? p["args"] : json::array()), 2000);
            const json& st = detail::jobj(p, "stackTrace");
            if (st.contains("callFrames") && st["callFrames"].is_array()) {
                // the first frame of the page's own (the console clip's frame has no URL)
                for (const auto& fr : st["callFrames"]) {
                    if (!fr.is_object() || detail::jstr(fr, "url").empty()) continue;
                    c.url = detail::jstr(fr, "url");
                    c.line = static_cast<int>(detail::jint(fr, "lineNumber")) + 1;
                    break;
                }
            }
            t->console.push_back(std::move(c));
            while (t->console.size() > opt_.console_capacity) {
                t->console.pop_front();
                ++t->console_dropped;
            }
        } else if (m == "Runtime.exceptionThrown") {
            const json& ex = detail::jobj(p, "exceptionDetails");
            console_message c;
            c.level = "exception";
            c.text = detail::jstr(detail::jobj(ex, "exception"), "description");
            if (c.text.empty()) c.text = detail::jstr(ex, "text");
            c.text = detail::clip(c.text, 2000);
            c.url = detail::jstr(ex, "url");
            c.line = static_cast<int>(detail::jint(ex, "lineNumber")) + 1;
            t->console.push_back(std::move(c));
            while (t->console.size() > opt_.console_capacity) {
                t->console.pop_front();
                ++t->console_dropped;
            }
        } else if (m == "Runtime.bindingCalled" && detail::jstr(p, "name") == "__agentkitBlocked") {
            const json rep = json::parse(detail::jstr(p, "payload"), nullptr, false);
            blocked_request b;
            b.url = detail::jstr(rep, "url");
            b.resource_type = "WebSocket";
            b.tab = t->id;
            // the page can call the binding: only a real refusal is recorded, with the policy's own rule
            if (auto v = b.url.empty() ? std::nullopt : opt_.policy.check(b.url)) {
                b.rule = v->rule;
                record_blocked(e, std::move(b));
            }
        } else if (m == "Inspector.targetCrashed") {
            if (page_session) t->crashed = true;
        } else {
            return;
        }
    }
    e.cv.notify_all();
    if (pause_console) {
        // the loop logging them holds the renderer: only an interrupt reaches it
        e.conn.call_async("Runtime.terminateExecution", json::object(), ev.session_id, [](result<json>) {});
        e.conn.call_async("Runtime.disable", json::object(), ev.session_id, [](result<json>) {});
    }
    if (!answer_session.empty()) {
        if (stop_script) {
            e.conn.call_async("Emulation.setScriptExecutionDisabled", json{{"value", true}}, answer_session, [](result<json>) {});
            e.conn.call_async("Runtime.terminateExecution", json::object(), answer_session, [](result<json>) {});
        }
        e.conn.call_async("Page.handleJavaScriptDialog", answer, answer_session, [](result<json>) {});
    }
}

AGENTKIT_DECL auto browser::on_target_event(engine& e, const cdp::event& ev) -> void {
    const std::string& m = ev.method;
    const json& p = ev.params;
    if (m == "Target.attachedToTarget" && !ev.session_id.empty()) {
        const json& info = detail::jobj(p, "targetInfo");
        const std::string sid = detail::jstr(p, "sessionId");
        const std::string type = detail::jstr(info, "type");
        if (type == "iframe") {
            {
                std::lock_guard lock(e.mu);
                auto it = e.by_session.find(ev.session_id);
                if (it == e.by_session.end()) return;
                auto t = it->second;
                t->children[sid] = detail::child_rec{detail::jstr(info, "targetId"), ev.session_id, detail::jstr(info, "url")};
                e.by_session[sid] = t;
            }
            for (const char* method : {"Page.enable", "Runtime.enable", "Network.enable", "DOM.enable"})
                e.conn.call_async(method, json::object(), sid, [](result<json>) {});
            install_session_policy(e, sid, nullptr);
            e.conn.call_async("Page.setLifecycleEventsEnabled", json{{"enabled", true}}, sid, [](result<json>) {});
            e.conn.call_async("Page.setInterceptFileChooserDialog", json{{"enabled", true}}, sid, [](result<json>) {});
            e.conn.call_async("Target.setAutoAttach",
                              json{{"autoAttach", true}, {"waitForDebuggerOnStart", true}, {"flatten", true}}, sid,
                              [](result<json>) {});
        }
        e.conn.call_async("Runtime.runIfWaitingForDebugger", json::object(), sid, [](result<json>) {});
        e.cv.notify_all();
        return;
    }
    if (m == "Target.detachedFromTarget") {
        const std::string sid = detail::jstr(p, "sessionId");
        std::lock_guard lock(e.mu);
        auto it = e.by_session.find(sid);
        if (it == e.by_session.end()) return;
        auto t = it->second;
        if (sid == t->session) t->closed = true;
        else t->children.erase(sid);
        e.by_session.erase(it);
        e.cv.notify_all();
        return;
    }
    if (m == "Target.targetDestroyed") {
        std::lock_guard lock(e.mu);
        e.foreign_targets.erase(detail::jstr(p, "targetId"));
        if (auto it = e.by_target.find(detail::jstr(p, "targetId")); it != e.by_target.end()) it->second->closed = true;
        e.cv.notify_all();
        return;
    }
    if (m == "Target.targetCrashed") {
        std::lock_guard lock(e.mu);
        if (auto it = e.by_target.find(detail::jstr(p, "targetId")); it != e.by_target.end()) it->second->crashed = true;
        e.cv.notify_all();
        return;
    }
    if (m == "Target.targetInfoChanged" || m == "Target.targetCreated") {
        const json& info = detail::jobj(p, "targetInfo");
        if (const std::string ctx = detail::jstr(info, "browserContextId"); !ctx.empty() && ctx != e.context_id) {
            std::lock_guard lock(e.mu);
            e.foreign_targets.insert(detail::jstr(info, "targetId"));
            return;
        }
        if (detail::jstr(info, "type") != "page" || detail::jstr(info, "browserContextId") != e.context_id) return;
        const std::string id = detail::jstr(info, "targetId");
        std::string opener = detail::jstr(info, "openerId");
        {
            std::lock_guard lock(e.mu);
            if (auto it = e.by_target.find(id); it != e.by_target.end()) {
                it->second->title = detail::jstr(info, "title");
                return;
            }
            if (m != "Target.targetCreated" || opener.empty() || e.adopting.count(id) != 0) return;
        }
        // A popup (window.open, target=_blank): adopt it as a new tab, unless there are too many.
        // Tabs still being adopted count: a burst of popups from one script arrives before
        // the first of them is attached.
        {
            std::lock_guard lock(e.mu);
            if (e.adopting.count(id) != 0) return;
            std::size_t open_tabs = e.adopting.size();
            for (const auto& [k, t] : e.tabs) open_tabs += t->closed ? 0U : 1U;
            if (open_tabs < std::max<std::size_t>(1, opt_.policy.max_tabs)) {
                e.adopting.insert(id);  // marked here, so an action finishing now waits for it
                e.front_tab.clear();    // the popup is in front now
                e.spawn_worker([this, &e, id, opener] { (void)adopt(e, id, opener, true); });
                return;
            }
            blocked_request b;
            b.url = detail::jstr(info, "url");
            b.resource_type = "Popup";
            b.rule = "max_tabs: " + std::to_string(opt_.policy.max_tabs) + " tabs are open";
            if (auto o = e.by_target.find(opener); o != e.by_target.end()) b.tab = o->second->id;
            record_blocked(e, std::move(b));
        }
        e.conn.call_async("Target.closeTarget", json{{"targetId", id}}, "", [](result<json>) {});
    }
}
}  // namespace agentkit::browser
