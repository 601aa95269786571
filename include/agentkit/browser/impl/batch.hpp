// agentkit/browser/impl/batch.hpp — browser: batch reading: several URLs in temporary tabs, concurrently, within one budget.
// Part of browser.hpp (which includes it at its end); not an entry point of its own.
#pragma once

#include <agentkit/browser/browser.hpp>

namespace agentkit::browser {

AGENTKIT_DECL auto browser::batch_read(const std::vector<std::string>& urls, std::size_t budget) -> result<std::vector<batch_page>> {
    std::lock_guard op(op_mu_);
    if (urls.empty()) return fail(errc::args_invalid, "no URLs to read");
    if (urls.size() > 20) return fail(errc::args_invalid, "at most 20 URLs per batch");
    auto e = ensure();
    if (!e) return fail(e.error());
    std::vector<batch_page> out(urls.size());
    std::vector<tab_ptr> tabs(urls.size());
    std::vector<std::string> loaders(urls.size());
    std::uint64_t mark = 0;
    {
        std::lock_guard lock(eng_->mu);
        mark = eng_->seq;
    }
    // a browser that dies mid-batch: one clear error (every page and temporary tab is gone)
    auto died = [&]() -> std::optional<error> {
        if (eng_->conn.is_open()) return std::nullopt;
        return crashed_error(eng_->conn.failure().value_or(error(errc::browser_crashed, "the connection ended")));
    };
    std::vector<std::future<result<json>>> navs(urls.size());
    for (std::size_t i = 0; i < urls.size(); ++i) {
        out[i].url = urls[i];
        if (auto v = opt_.policy.check_navigation(urls[i], opt_.allow_evaluate)) {
            out[i].error_ = policy_error(*v, "navigation");
            continue;
        }
        auto t = create_tab();
        if (!t) {
            if (t.error().is(errc::browser_crashed)) return fail(t.error());
            out[i].error_ = t.error();
            continue;
        }
        tabs[i] = *t;
        navs[i] = eng_->conn.call_async("Page.navigate", json{{"url", urls[i]}}, (*t)->session, opt_.navigation_timeout);
    }
    for (std::size_t i = 0; i < urls.size(); ++i) {
        if (!tabs[i]) continue;
        auto n = navs[i].get();
        if (!n) {
            out[i].error_ = n.error();
            continue;
        }
        const std::string err = detail::jstr(*n, "errorText");
        if (!err.empty()) {
            out[i].error_ = error(errc::navigation_failed, "navigation to " + urls[i] + " failed: " + err);
            continue;
        }
        loaders[i] = detail::jstr(*n, "loaderId");
    }
    if (auto d = died()) return fail(redact_result(*d));
    const auto deadline = clock::now() + opt_.navigation_timeout;
    for (std::size_t i = 0; i < urls.size(); ++i) {
        if (!tabs[i] || loaders[i].empty()) continue;
        const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - clock::now());
        const auto& t = tabs[i];
        const auto& ld = loaders[i];
        if (!wait_until([&] { return load_done(t, ld) || t->closed || t->crashed; },
                        std::max(left, std::chrono::milliseconds(1))))
            out[i].error_ = error(errc::timeout, urls[i] + " did not finish loading within " +
                                                     std::to_string(opt_.navigation_timeout.count()) + " ms");
    }
    // capture every page, concurrently (each is its own tab: its own sessions and state; the
    // connection, the ref registry and the engine state are thread-safe), then share the
    // budget: pages that need less than an equal share give the rest away
    std::vector<std::future<result<capture_result>>> captures(urls.size());
    for (std::size_t i = 0; i < urls.size(); ++i) {
        if (!tabs[i] || out[i].error_) continue;
        captures[i] = std::async(std::launch::async, [this, t = tabs[i]] { return capture(t, false); });
    }
    std::vector<std::optional<capture_result>> caps(urls.size());
    std::vector<std::size_t> need(urls.size(), 0);
    for (std::size_t i = 0; i < urls.size(); ++i) {
        if (!captures[i].valid()) continue;
        auto cap = captures[i].get();
        if (!cap) {
            out[i].error_ = cap.error();
            continue;
        }
        snapshot_options so;
        so.token_budget = 0;
        auto full = render_snapshot(cap->frames, cap->dom, refs_, so, opt_.tokens);
        need[i] = std::max<std::size_t>(1, full.total_tokens);
        caps[i] = std::move(*cap);
        fill_url_title(tabs[i], out[i].final_url, out[i].title);
        std::lock_guard lock(eng_->mu);
        if (auto s = tabs[i]->doc_status.find(loaders[i]); s != tabs[i]->doc_status.end()) out[i].http_status = s->second;
    }
    if (auto d = died()) return fail(redact_result(*d));
    std::vector<std::size_t> share(urls.size(), 0);
    {
        std::size_t left = budget, open = 0;
        for (std::size_t i = 0; i < urls.size(); ++i) open += caps[i] ? 1U : 0U;
        std::vector<bool> done(urls.size(), false);
        bool changed = true;
        while (open > 0 && changed) {
            changed = false;
            const std::size_t fair = left / open;
            for (std::size_t i = 0; i < urls.size(); ++i)
                if (caps[i] && !done[i] && need[i] <= fair) {
                    share[i] = need[i];
                    left -= need[i];
                    done[i] = true;
                    --open;
                    changed = true;
                }
        }
        for (std::size_t i = 0; i < urls.size(); ++i)
            if (caps[i] && !done[i]) share[i] = std::max<std::size_t>(100, open ? left / open : 100);
    }
    for (std::size_t i = 0; i < urls.size(); ++i) {
        if (!caps[i]) continue;
        snapshot_options so;
        so.token_budget = share[i];
        auto snap = render_snapshot(caps[i]->frames, caps[i]->dom, refs_, so, opt_.tokens);
        out[i].text = redact_result(snap.text);
        out[i].full_text = redact_result(snap.full_text);
        out[i].tokens = snap.tokens;
        out[i].truncated = snap.truncated();
    }
    {
        std::lock_guard lock(eng_->mu);
        for (std::size_t i = 0; i < urls.size(); ++i) {
            if (!tabs[i]) continue;
            for (const auto& [seq, b] : eng_->blocked)
                if (seq > mark && b.tab == tabs[i]->id) out[i].blocked.push_back(b);
        }
    }
    for (std::size_t i = 0; i < urls.size(); ++i) {
        if (!tabs[i]) continue;
        (void)call("", "Target.closeTarget", json{{"targetId", tabs[i]->target_id}}, 3000ms);
        forget_tab(tabs[i]);
    }
    for (auto& p : out) {
        p.url = redact_result(std::move(p.url));  // as asked: shown in the header, compared with final_url
        p.final_url = redact_result(std::move(p.final_url));
        p.title = redact_result(std::move(p.title));
        if (p.error_) p.error_ = redact_result(*p.error_);
    }
    return out;
}
}  // namespace agentkit::browser
