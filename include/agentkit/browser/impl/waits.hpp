// agentkit/browser/impl/waits.hpp — browser: browser_wait_for: text, text gone, element states.
// Part of browser.hpp (which includes it at its end); not an entry point of its own.
#pragma once

#include <agentkit/browser/browser.hpp>

namespace agentkit::browser {

AGENTKIT_DECL auto browser::wait_for(wait_options o) -> result<action_result> {
    if (o.timeout.count() <= 0) o.timeout = opt_.call_timeout;
    std::string what = !o.text.empty() ? "wait for \"" + o.text + "\""
                      : !o.text_gone.empty() ? "wait for \"" + o.text_gone + "\" to disappear"
                                             : "wait for " + o.ref + " " + o.state;
    return act(what, [&](const tab_ptr& t) -> result<void> { return wait_condition(t, o); });
}

AGENTKIT_DECL auto browser::wait_condition(const tab_ptr& t, const wait_options& o) -> result<void> {
    wait_timer timer(wait_us_);
    const auto deadline = clock::now() + o.timeout;
    auto remaining = [&] {
        return std::max<std::int64_t>(0, std::chrono::duration_cast<std::chrono::milliseconds>(deadline - clock::now()).count());
    };
    if (!o.text.empty() || !o.text_gone.empty()) {
        const bool gone = o.text.empty();
        const std::string needle = gone ? o.text_gone : o.text;
        for (int attempt = 0; attempt < 50; ++attempt) {
            const auto ms = remaining();
            auto r = call(t->session, "Runtime.evaluate",
                          json{{"expression", "(" + std::string(detail::kWaitTextScript) + ")(" + json(needle).dump() + "," +
                                                  (gone ? "true" : "false") + "," + std::to_string(ms) + ")"},
                               {"awaitPromise", true}, {"returnByValue", true}},
                          std::chrono::milliseconds(ms + 2000));
            if (r && !r->contains("exceptionDetails")) {
                if (detail::jobj(*r, "result").value("value", json(false)) == json(true)) return {};
                break;  // timed out in the page
            }
            if (r && r->contains("exceptionDetails") && eng_->conn.is_open()) {
                // the document was replaced during the wait: wait for the next one to load
            }
            if (!r && (r.error().is(errc::browser_crashed) || r.error().is(errc::tool_cancelled))) return fail(r.error());
            if (remaining() <= 0) break;
            std::uint64_t mark = 0;
            {
                std::lock_guard lock(eng_->mu);
                mark = t->nav_committed;
            }
            wait_until([&] { return !t->main_loading || t->nav_committed > mark || t->closed; },
                       std::chrono::milliseconds(remaining()));
            if (!eng_->conn.is_open()) return fail(crashed_error(error(errc::browser_crashed, "the browser died")));
            if (detail::op_stop.stop_requested()) return fail(cancelled_error("the wait"));
        }
        return fail(errc::timeout,
                    gone ? "\"" + needle + "\" was still on the page: Timeout " + std::to_string(o.timeout.count()) + "ms exceeded."
                         : "\"" + needle + "\" did not appear: Timeout " + std::to_string(o.timeout.count()) + "ms exceeded.",
                    "Take a snapshot to see the page; the action may have failed.");
    }
    if (!o.ref.empty()) {
        static const std::set<std::string> states{"visible", "hidden", "enabled", "disabled", "checked", "unchecked", "gone"};
        if (states.count(o.state) == 0)
            return fail(errc::args_invalid, "unknown state \"" + o.state + "\"",
                        "Use visible, hidden, enabled, disabled, checked, unchecked or gone.");
        auto h = resolve(o.ref);
        if (!h) {
            if (h.error().is(errc::ref_stale) && (o.state == "gone" || o.state == "hidden")) return {};
            return fail(h.error());
        }
        const auto ms = remaining();
        auto r = call_on(*h, detail::kWaitStateScript, json::array({json{{"value", o.state}}, json{{"value", ms}}}), true,
                         std::chrono::milliseconds(ms + 2000));
        if (!r) {
            if (r.error().is(errc::browser_crashed) || r.error().is(errc::tool_cancelled)) return fail(r.error());
            if ((o.state == "gone" || o.state == "hidden") && !eng_->conn.is_open()) return fail(r.error());
            if (o.state == "gone" || o.state == "hidden") return {};  // its document went away
            return fail(r.error());
        }
        if (*r == json(true)) {
            if (o.state == "gone") refs_.retire(o.ref);
            return {};
        }
        return fail(errc::timeout, "ref " + o.ref + " was not " + o.state + ": Timeout " + std::to_string(o.timeout.count()) + "ms exceeded.",
                    "Take a snapshot to see its state.");
    }
    return fail(errc::args_invalid, "wait_for needs text, text_gone or ref", "Pass what to wait for.");
}
}  // namespace agentkit::browser
