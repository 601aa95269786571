// agentkit/browser/impl/navigation.hpp — browser: navigate, reload, back and forward.
// Part of browser.hpp (which includes it at its end); not an entry point of its own.
#pragma once

#include <agentkit/browser/browser.hpp>

namespace agentkit::browser {

AGENTKIT_DECL auto browser::navigate(std::string url) -> result<action_result> {
    std::lock_guard op(op_mu_);
    if (auto v = opt_.policy.check_navigation(url, opt_.allow_evaluate))
        return fail(redact_result(policy_error(*v, "navigation")));
    auto e = ensure();
    if (!e) return fail(e.error());
    return finish_action(navigate_locked(url));
}

AGENTKIT_DECL auto browser::reload() -> result<action_result> {
    return act("reload", [&](const tab_ptr& t) -> result<void> {
        if (auto l = ready_to_leave(t, false); !l) return fail(l.error());
        release_flood_stops(t);  // the page runs again as it did (a flood is stopped again)
        auto r = call(t->session, "Page.reload", json{{"ignoreCache", false}});
        if (!r) return fail(r.error());
        return {};
    }, /*expect_navigation=*/true);
}

AGENTKIT_DECL auto browser::navigate_locked(const std::string& url) -> result<action_result> {
    auto ct = current_tab(/*proceed=*/true);
    if (!ct) return fail(ct.error());
    ct = ready_to_leave(*ct, /*replace=*/true);
    if (!ct) return fail(ct.error());
    std::string loader;
    auto go = [&](const tab_ptr& t) -> result<void> {
        bool looping = false, stopped = false;
        {
            std::lock_guard lock(eng_->mu);
            looping = std::exchange(t->looping, false);
            stopped = !t->scripts_stopped.empty();
        }
        // A page navigating itself in a loop would cancel this navigation with its next one, and
        // a page whose dialog flood was stopped would flood again once its scripts run: leave
        // either on about:blank first (it commits at once and runs no script).
        if (looping || stopped) (void)call(t->session, "Page.navigate", json{{"url", "about:blank"}}, opt_.navigation_timeout);
        release_flood_stops(t);
        const auto start = clock::now();
        std::uint64_t downloads_before = 0;
        {
            // the page being left may flood dialogs until the new one commits: they are answered,
            // never stopped by a terminate that would cut its unload short
            std::lock_guard lock(eng_->mu);
            t->leaving = true;
            downloads_before = eng_->downloads_begun;
        }
        auto n = call(t->session, "Page.navigate", json{{"url", url}}, opt_.navigation_timeout);
        {
            std::lock_guard lock(eng_->mu);
            t->leaving = false;
        }
        if (!n) return fail(n.error());
        const std::string err = detail::jstr(*n, "errorText");
        if (err.find("BLOCKED_BY_CLIENT") != std::string::npos) {
            std::optional<blocked_request> b;
            {
                std::lock_guard lock(eng_->mu);
                for (auto it = eng_->blocked.rbegin(); it != eng_->blocked.rend(); ++it)
                    if (it->second.resource_type.rfind("Document", 0) == 0) {
                        b = it->second;
                        break;
                    }
            }
            if (b)
                return fail(policy_error(policy_violation{b->rule, b->url},
                                         b->url == url ? std::string("navigation") : "navigation to " + url + " redirected; the request"));
        }
        // a URL that answers with a download (Content-Disposition: attachment) aborts the
        // navigation: the page stays, and the download is the result
        if (err == "net::ERR_ABORTED") {
            bool began = false;  // (read under the engine's lock, in the wait)
            (void)wait_until([&] { return (began = eng_->downloads_begun > downloads_before) || t->closed || t->crashed; },
                             std::chrono::seconds(2));
            if (began) return {};
        }
        if (!err.empty())
            return fail(errc::navigation_failed, "navigation to " + url + " failed: " + err,
                        "Check the URL and that the server is reachable.", json{{"url", url}, {"error", err}});
        loader = detail::jstr(*n, "loaderId");
        if (!loader.empty()) {
            wait_timer timer(wait_us_);
            const auto spent = std::chrono::duration_cast<std::chrono::milliseconds>(clock::now() - start);
            const bool loaded = wait_until([&] { return load_done(t, loader) || t->closed || t->crashed; },
                                           std::max(std::chrono::milliseconds(0), opt_.navigation_timeout - spent));
            if (!loaded && !eng_->conn.is_open()) return fail(crashed_error(error(errc::browser_crashed, "the browser died")));
        }
        return {};
    };
    auto r = act_locked("navigate to " + url, *ct, go, true);
    if (r && !loader.empty()) {
        std::lock_guard lock(eng_->mu);
        if (auto s = (*ct)->doc_status.find(loader); s != (*ct)->doc_status.end()) r->http_status = s->second;
        r->navigated = true;
    }
    if (r) r->requested_url = url;
    if (r && r->snapshot.empty() && r->navigated && opt_.snapshot_after_navigation) {
        auto s = take_snapshot(*ct, page_view_options(), page_read::part);
        // a URL the model asked for starts something (often a task, maybe in a new
        // conversation): shown whole; what follows its links is shown against it
        if (s) r->snapshot = show_new_page(*ct, *s, r->notes, false);
    }
    if (r && r->navigated && r->snapshot.empty()) forget_shown(*ct);  // the model did not see this page
    return r;
}

AGENTKIT_DECL auto browser::history(int delta) -> result<action_result> {
    return act(delta < 0 ? "back" : "forward", [&](const tab_ptr& t) -> result<void> {
        if (auto l = ready_to_leave(t, false); !l) return fail(l.error());  // (before the history: a held renderer answers it no more)
        auto h = call(t->session, "Page.getNavigationHistory");
        if (!h) return fail(h.error());
        const auto idx = detail::jint(*h, "currentIndex") + delta;
        const json& entries = h->contains("entries") ? (*h)["entries"] : json::array();
        if (idx < 0 || static_cast<std::size_t>(idx) >= entries.size())
            return fail(errc::navigation_failed, std::string("there is no page to go ") + (delta < 0 ? "back" : "forward") + " to",
                        "Navigate to a URL instead.");
        std::uint64_t m = 0;
        {
            std::lock_guard lock(eng_->mu);
            m = eng_->seq;
        }
        auto r = call(t->session, "Page.navigateToHistoryEntry",
                      json{{"entryId", detail::jint(entries[static_cast<std::size_t>(idx)], "id")}});
        if (!r) return fail(r.error());
        // The answer comes when the navigation is asked for, not when it commits: on a busy
        // machine settle could find the old document quiet and return before the commit, and
        // the result then did not report the navigation while its changes showed the new
        // page (1 back in 564 under bench/soak). Wait for the commit (or the end) first.
        (void)wait_until([&] { return t->closed || t->crashed || t->nav_committed > m || t->same_doc > m || t->nav_stopped > m; },
                         opt_.navigation_timeout);
        return {};
    }, true);
}
}  // namespace agentkit::browser
