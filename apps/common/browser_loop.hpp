// The parcel-quote browser loop: agentkit-demo's composition, packaged so agentkit-bot runs the
// very same loop with any model (a real provider over HTTP, or the scripted agent).
//
//   - the bundled site (apps/demo/site.hpp) served on 127.0.0.1 by this process;
//   - headless Chromium, allowed to reach that site only (plus origins the host adds);
//   - the browser tools behind a menu: the agent starts at ROOT and enters `browser` (page
//     work) or `devtools` (tabs, console, network, uploads...);
//   - an agent_session (compact formatter, screenshots kept out of band in the browser's store);
//   - `quote_agent`: the scripted agent that fills and submits the form in one compound call
//     and reads the quote, picking every element ref from the tool results it is sent.
//
//   demo::browser_loop loop(cfg);
//   if (auto up = loop.start(); !up) { ... up.error() says what failed (browser.launch: no Chromium) }
//   demo::scripted_quote_model model(ak::provider::anthropic, loop.url());   // or any model
//   ak::run_result r = loop.run(model, demo::with_url(demo::quote_task, loop.url()), limits);
//   std::puts(ak::render_report(loop.session().make_report()).c_str());
#pragma once

#include <agentkit/agentkit.hpp>
#include <agentkit/browser/menu.hpp>
#include <agentkit/browser/tools.hpp>
#include <agentkit/net/http_server.hpp>

#include <cctype>
#include <chrono>
#include <cstddef>
#include <cstdio>
#include <exception>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "../demo/site.hpp"
#include "browser_agent.hpp"

namespace demo {

namespace ak = agentkit;
namespace br = agentkit::browser;

/// The demo task; {url} stands for the bundled form page.
inline constexpr const char* quote_task =
    "Get a shipping quote on the parcel-quote page at {url} for Ada Lovelace (ada@example.com): a 2.5 kg "
    "parcel to Lisbon, express delivery. Report the total price and the quote id.";

/// `task` with every "{url}" replaced by `url`.
[[nodiscard]] inline std::string with_url(std::string task, std::string_view url) {
    for (std::size_t p = task.find("{url}"); p != std::string::npos; p = task.find("{url}", p + url.size()))
        task.replace(p, 5, url);
    return task;
}

// ---- the scripted agent --------------------------------------------------------------------

/// The quote as read from the page: "EUR 36.75" and "Q-1A2B".
struct quote_seen {
    std::string total;
    std::string id;
};

[[nodiscard]] inline std::optional<quote_seen> read_quote(std::string_view text) {
    const std::size_t t = text.find("Total: EUR ");
    const std::size_t q = text.find("Quote Q-");
    if (t == std::string_view::npos || q == std::string_view::npos) return std::nullopt;
    auto digits = [](char ch) { return std::isdigit(static_cast<unsigned char>(ch)) != 0; };
    quote_seen s;
    s.total = "EUR ";
    for (std::size_t i = t + 11; i < text.size(); ++i) {
        const bool dot_then_digit = text[i] == '.' && i + 1 < text.size() && digits(text[i + 1]);
        if (!digits(text[i]) && !dot_then_digit) break;
        s.total += text[i];
    }
    s.id = "Q-";
    for (std::size_t k = q + 8; k < text.size() && s.id.size() < 6 && std::isxdigit(static_cast<unsigned char>(text[k])) != 0; ++k)
        s.id += text[k];
    if (s.total.size() <= 4 || s.id.size() < 6) return std::nullopt;
    return s;
}

/// The scripted agent: each step reads the newest tool results from the request it is sent and
/// decides, the way a model would, what to call next. Refs come only from those results.
class quote_agent {
public:
    quote_agent(ak::provider p, std::string url) : provider_(p), url_(std::move(url)) {}

    ak::scripted_reply operator()(const ak::json& request) {
        if (!entered_) {
            entered_ = true;
            return ak::script::call({{"menu_enter", {{"mode", "browser"}}}});
        }
        if (!navigated_) {
            navigated_ = true;
            return ak::script::call({{"browser_navigate", {{"url", url_}}}});
        }
        const std::string seen = last_tool_results(provider_, request);
        if (auto q = read_quote(seen)) {
            answer_ = "The express quote for a 2.5 kg parcel to Lisbon is " + q->total + " (quote " + q->id + ").";
            // a screenshot of the answer for the record, and complete, in one response
            return ak::script::call({{"browser_take_screenshot", ak::json::object()}, {"complete", {{"summary", answer_}}}});
        }
        if (!submitted_) {
            auto name = find_ref(seen, "textbox", "Name");
            auto email = find_ref(seen, "textbox", "Email");
            auto weight = find_ref(seen, "textbox", "Weight");
            auto dest = find_ref(seen, "combobox", "Destination");
            auto express = find_ref(seen, "checkbox", "Express");
            auto button = find_ref(seen, "button", "Get quote");
            if (name && email && weight && dest && express && button) {
                submitted_ = true;
                ak::json fields = ak::json::array({
                    {{"name", "Name"}, {"type", "textbox"}, {"ref", *name}, {"value", "Ada Lovelace"}},
                    {{"name", "Email"}, {"type", "textbox"}, {"ref", *email}, {"value", "ada@example.com"}},
                    {{"name", "Weight in kg"}, {"type", "textbox"}, {"ref", *weight}, {"value", "2.5"}},
                    {{"name", "Destination"}, {"type", "combobox"}, {"ref", *dest}, {"value", "Lisbon"}},
                    {{"name", "Express delivery"}, {"type", "checkbox"}, {"ref", *express}, {"value", "true"}},
                });
                return ak::script::call({{"browser_fill_form", {{"fields", std::move(fields)}, {"submit", *button}}}});
            }
        }
        if (snapshots_ < 1) {  // the result did not show what is needed: look at the whole page once
            ++snapshots_;
            return ak::script::call({{"browser_snapshot", ak::json::object()}});
        }
        return ak::script::say(submitted_ ? "I submitted the form but the page shows no quote."
                                  : "I could not find the form's fields on the page.");
    }

    /// The quote sentence once the agent has read it; empty before.
    [[nodiscard]] const std::string& answer() const noexcept { return answer_; }

private:
    ak::provider provider_;
    std::string url_;
    bool entered_ = false, navigated_ = false, submitted_ = false;
    int snapshots_ = 0;
    std::string answer_;
};

/// quote_agent as a model: a scripted_model (realistic usage and prompt caching, each
/// provider's wire format) whose every reply is chosen by the agent.
class scripted_quote_model {
public:
    scripted_quote_model(ak::provider p, std::string url, int steps = 8) : agent_(p, std::move(url)), model_(p, {}) {
        for (int i = 0; i < steps; ++i) model_.then([this](const ak::json& r) { return agent_(r); });
    }
    scripted_quote_model(const scripted_quote_model&) = delete;
    scripted_quote_model& operator=(const scripted_quote_model&) = delete;

    [[nodiscard]] ak::provider provider() const noexcept { return model_.provider(); }
    [[nodiscard]] ak::result<ak::json> complete(const ak::json& request) { return model_.complete(request); }
    [[nodiscard]] const std::vector<ak::json>& requests() const noexcept { return model_.requests(); }
    [[nodiscard]] const std::string& answer() const noexcept { return agent_.answer(); }

private:
    quote_agent agent_;
    ak::scripted_model model_;
};
static_assert(ak::provider_aware_model<scripted_quote_model>);

// ---- the composition -----------------------------------------------------------------------

struct browser_loop_options {
    std::string chromium;                    ///< "" = $AGENTKIT_CHROMIUM, else the default path
    std::vector<std::string> extra_origins;  ///< origins the browser may open besides the bundled site
    ak::session_options session{};           ///< model name, compat mode, on_turn...
};

/// The bundled site, headless Chromium and the session over the browser tools behind the menu.
/// start() once, then run() a model (once).
class browser_loop {
public:
    using store_t = std::remove_reference_t<decltype(std::declval<br::tool_state&>().store)>;
    using tools_t = decltype(br::browser_tools(std::declval<br::tool_state&>()));
    using menu_t = decltype(br::make_browser_menu<tools_t>());
    using session_t = ak::agent_session<tools_t, menu_t, ak::compact_formatter>;

    explicit browser_loop(browser_loop_options o) : opts_(std::move(o)) {}
    browser_loop(const browser_loop&) = delete;
    browser_loop& operator=(const browser_loop&) = delete;
    ~browser_loop() { close(); }

    /// Serve the site on 127.0.0.1 and launch Chromium. Errors: errc::internal when the site
    /// cannot be served; the browser's error (errc::browser_launch, ...) when Chromium cannot start.
    [[nodiscard]] ak::result<void> start() {
        site_ = std::make_unique<ak::net::http_server>();
        site_->route("/", ak::net::http_response::html(std::string(site::form_page)));
        site_->route("/quote", [](const ak::net::http_request& r) {
            auto [status, body] = site::quote_page(r.query);
            auto resp = ak::net::http_response::html(std::move(body));
            resp.status = status;
            return resp;
        });
        if (auto up = site_->start(); !up)
            return ak::fail(ak::errc::internal, "cannot serve the bundled page on 127.0.0.1: " + up.error().message);

        br::browser_options bo;
        if (!opts_.chromium.empty()) bo.launch.executable = opts_.chromium;
        bo.policy.allowed_origins.push_back(site_->origin());  // the agent may reach the bundled site only...
        for (const auto& o : opts_.extra_origins) bo.policy.allowed_origins.push_back(o);  // ...and what the host adds
        browser_ = std::make_unique<br::browser>(bo);
        if (auto started = browser_->start(); !started) return ak::fail(started.error());
        store_ = std::make_unique<store_t>();
        state_ = std::make_unique<br::tool_state>(*browser_, *store_);
        // menu_enter's tool_reference blocks load deferred tools (Anthropic defer_loading) under
        // the stable exposure, the session's default; with visible_only the tool list itself
        // changes when a mode is entered and the blocks would add nothing.
        ak::menu_options mo;
        mo.reference_blocks = !opts_.session.exposure || *opts_.session.exposure != ak::exposure::visible_only;
        session_.emplace(br::browser_tools(*state_), br::make_browser_menu<tools_t>(std::move(mo)), ak::compact_formatter{},
                         opts_.session, ak::artifact_sink_ref(*store_));
        return {};
    }

    /// The bundled form page (valid after start()).
    [[nodiscard]] std::string url() const { return site_ ? site_->url("/") : std::string(); }

    /// Run the loop with `model` on `task` (after a successful start()).
    template <ak::model Model>
    ak::run_result run(Model& model, std::string task, const ak::run_limits& limits) {
        return session_->run(model, std::move(task), limits);
    }

    [[nodiscard]] session_t& session() { return *session_; }
    [[nodiscard]] const br::tool_state& tools_state() const { return *state_; }
    [[nodiscard]] std::size_t pages_served() const { return site_ ? site_->hits("/") : 0; }
    [[nodiscard]] std::size_t quote_requests() const { return site_ ? site_->hits("/quote") : 0; }

    /// `[browser] calls=3 result_bytes=... browser_ms=... mode=browser`
    [[nodiscard]] std::string browser_line() {
        if (!state_) return "[browser] not started";
        char buf[200];
        std::snprintf(buf, sizeof buf, "[browser] calls=%zu result_bytes=%zu result_tokens~%zu browser_ms=%lld mode=%s",
                      state_->total.calls, state_->total.bytes, state_->total.tokens, static_cast<long long>(state_->total.ms),
                      std::string(session_->get_masker().current_mode()).c_str());
        return buf;
    }

    /// Close the browser (the site is served until the loop is destroyed, after the browser).
    void close() {
        if (browser_) browser_->close();
    }

private:
    browser_loop_options opts_;
    std::unique_ptr<ak::net::http_server> site_;
    std::unique_ptr<br::browser> browser_;
    std::unique_ptr<store_t> store_;
    std::unique_ptr<br::tool_state> state_;
    std::optional<session_t> session_;
};

}  // namespace demo
