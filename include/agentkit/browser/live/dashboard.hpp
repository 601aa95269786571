// agentkit/browser/live/dashboard.hpp — the live view dashboard: an HTTP and WebSocket server on
// loopback that shows live views (browser/live/live_view.hpp) to a person: the screen, the steps,
// the console and network, and the controls (pause, resume, step, take control, hand back).
//
// Needs cpp-httplib (through net/http_server.hpp; CMake target agentkit::net).
//
//   agentkit::browser::live_view live(tool_state, "agent");
//   agentkit::browser::dashboard dash;                  // 127.0.0.1, any free port
//   dash.add(live);
//   if (auto up = dash.start(); !up) { ... }        // a non-loopback host is refused
//   std::cerr << dash.url() << '\n';                // http://127.0.0.1:PORT/?token=…  (never on stdout
//                                                   // of an MCP stdio server)
//
// Who may use it. It binds 127.0.0.1 (or ::1) only: start() refuses any other address with
// errc::args_invalid. Every request needs the per-start random token (256 bits from
// getrandom, compared in constant time; `?token=` in the URL); a request without it or with
// a wrong one, with a Host other than the loopback address and port (DNS rebinding), with an
// Origin other than the dashboard's own (another site's page in the person's browser), or
// from a non-loopback address is answered 403. The WebSocket handshake needs a matching Origin.
// Responses carry a strict Content-Security-Policy (only the dashboard's own script, style,
// WebSocket and blob: images; no inline code, no framing), no-referrer, nosniff and no-store;
// artifacts are served under `sandbox`, so an HTML artifact cannot run script.
//
// The WebSocket (/ws?view=NAME): the server sends {"type":"hello"} (the view and its steps),
// {"type":"step"}, {"type":"gate"}, and per frame {"type":"frame",...} followed by the JPEG as
// a binary message; the page answers {"type":"ack","seq"} once it showed the frame (the pump
// sends the next only then, and not before 1/max_fps has passed: see browser/live/frame_pump.hpp),
// {"type":"visibility","visible":false} while it is hidden (it gets no frames then, and the
// last viewer hiding stops the screencast), and sends the controls as
// {"type":"pause"|"resume"|"step"|"take"|"handback"} and input as {"type":"input","event":{...}}
// (live_view::input). Nothing a page asks for waits for the agent's call in flight: the lists
// are read with browser::peek(). Frame latency (browser capture to shown in the page) and
// counts are in stats().
#pragma once

#include <agentkit/browser/live/live_view.hpp>
#include <agentkit/core/base64.hpp>
#include <agentkit/core/error.hpp>
#include <agentkit/core/json.hpp>
#include <agentkit/core/random.hpp>
#include <agentkit/core/result.hpp>
#include <agentkit/core/url.hpp>
#include <agentkit/browser/live/dashboard_page.hpp>
#include <agentkit/net/http_server.hpp>
#include <agentkit/net/websocket.hpp>

#include <algorithm>
#include <array>
#include <chrono>
#include <cctype>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace agentkit::browser {

/// How a dashboard serves.
struct dashboard_options {
    std::string host = "127.0.0.1";  ///< 127.0.0.1, localhost or ::1; anything else is refused
    int port = 0;                    ///< 0: any free port
    std::size_t max_viewers = 8;     ///< WebSocket viewers at once (each holds a server thread)
    std::size_t latency_samples = 4096;  ///< frame latencies kept for stats()
    /// The most frames per second a viewer is sent (0: as many as it shows). The browser is
    /// acknowledged only when a viewer is ready for its next frame (browser/live/frame_pump.hpp), so
    /// this also caps the browser's encoding work, which competes with the agent's page for CPU.
    double max_fps = 15;
};

/// What a dashboard measured (for tests and the bench).
struct dashboard_stats {
    std::uint64_t refused = 0;        ///< requests answered 403
    std::uint64_t frames_sent = 0;    ///< frames sent to viewers
    std::uint64_t frames_shown = 0;   ///< frames viewers acknowledged
    std::uint64_t frame_bytes = 0;    ///< JPEG bytes sent
    std::vector<double> latency_ms;   ///< browser capture → shown in the page, newest last
};

/// The live view dashboard (see the header comment). Add views before or after start().
class dashboard {
public:
    /// A dashboard with these options, not serving yet; the token is drawn now.
    explicit dashboard(dashboard_options o = {}) : opt_(std::move(o)), token_(random_base64url(32)) {}
    dashboard(const dashboard&) = delete;
    dashboard& operator=(const dashboard&) = delete;
    ~dashboard() { stop(); }

    /// Show `v` (by its name; a view of the same name is replaced). It must outlive the
    /// dashboard or be remove()d first.
    void add(live_view& v) {
        std::lock_guard lock(mu_);
        views_[v.name()] = &v;
    }
    /// Stop showing `v`: its viewers are disconnected, and remove() returns once they are gone
    /// (then `v` may be destroyed).
    void remove(live_view& v) {
        std::unique_lock lock(mu_);
        if (auto it = views_.find(v.name()); it != views_.end() && it->second == &v) views_.erase(it);
        for (auto& [view, box] : sessions_)
            if (view == &v) {
                std::lock_guard l(box->mu);
                box->closing = true;
                if (box->peer != nullptr) box->peer->wake();
            }
        sessions_cv_.wait(lock, [&] { return sessions_.count(&v) == 0; });
    }

    /// Bind and serve. errc::args_invalid for a host that is not loopback; errc::transport_io
    /// when the port cannot be bound.
    [[nodiscard]] result<void> start() {
        if (token_.empty())
            return fail(errc::internal, "the dashboard could not draw an access token (no random source), so it does not start",
                        "Check that the kernel offers getrandom or /dev/urandom.");
        if (!agentkit::is_loopback_host(opt_.host))
            return fail(errc::args_invalid,
                        "the dashboard binds to loopback only, not " + opt_.host,
                        "It shows and steers a browser: reach it from elsewhere through an SSH tunnel to 127.0.0.1.");
        net::http_server_options so;
        // a loopback name is not resolved (core/url.hpp): it binds 127.0.0.1; an address as given
        const bool name = std::isalpha(static_cast<unsigned char>(opt_.host.empty() ? '0' : opt_.host.front())) != 0;
        so.host = name ? std::string("127.0.0.1")
                       : (opt_.host.size() > 2 && opt_.host.front() == '[' ? opt_.host.substr(1, opt_.host.size() - 2) : opt_.host);
        so.port = opt_.port;
        so.threads = opt_.max_viewers + 4;  // viewers hold a thread each; a few for page loads and API calls
        so.max_body_bytes = 64U * 1024U;
        so.error_response = [](int status, net::http_response& out) { out.body = std::to_string(status) + "\n"; };
        server_ = std::make_unique<net::http_server>(so);
        const auto guarded = [this](auto handler) {
            return [this, handler](const net::http_request& r) -> net::http_response {
                if (auto why = refuse(r); !why.empty()) {
                    ++refused_;
                    return secure(net::http_response::text("forbidden: " + why + "\n", 403));
                }
                return secure(handler(r));
            };
        };
        server_->route("/", guarded([this](const net::http_request&) { return page(); }), "GET");
        server_->route("/app.js", guarded([](const net::http_request&) {
                           net::http_response r;
                           r.content_type = "text/javascript; charset=utf-8";
                           r.body = std::string(dashboard_js);
                           return r;
                       }),
                       "GET");
        server_->route("/app.css", guarded([](const net::http_request&) {
                           net::http_response r;
                           r.content_type = "text/css; charset=utf-8";
                           r.body = std::string(dashboard_css);
                           return r;
                       }),
                       "GET");
        server_->route("/api/views", guarded([this](const net::http_request&) { return views_json(); }), "GET");
        server_->route("/api/steps", guarded([this](const net::http_request& r) { return steps_json(r); }), "GET");
        server_->route("/api/events", guarded([this](const net::http_request& r) { return events_json(r); }), "GET");
        server_->route("/artifact", guarded([this](const net::http_request& r) { return artifact(r); }), "GET");
        server_->route("/ws", guarded([this](const net::http_request& r) { return viewer(r); }), "GET");
        if (auto up = server_->start(); !up) {
            server_.reset();
            return fail(up.error());
        }
        return {};
    }

    /// Stop serving (idempotent): viewers are disconnected.
    void stop() {
        if (server_) server_->stop();
        server_.reset();
    }

    /// The port bound (0 before start()).
    [[nodiscard]] int port() const noexcept { return server_ ? server_->port() : 0; }
    /// The page's URL with the token: give it to the person, never to stdout of a stdio server.
    [[nodiscard]] std::string url() const { return origin() + "/?token=" + token_; }
    /// "http://127.0.0.1:PORT".
    [[nodiscard]] std::string origin() const { return server_ ? server_->origin() : std::string(); }
    /// The per-start token.
    [[nodiscard]] const std::string& token() const noexcept { return token_; }
    /// What it measured so far.
    [[nodiscard]] dashboard_stats stats() const {
        std::lock_guard lock(mu_);
        dashboard_stats s = stats_;
        s.refused = refused_.load();
        s.latency_ms.assign(latency_.begin(), latency_.end());
        return s;
    }

    /// True when `a` equals `b`, in time that depends only on their lengths.
    [[nodiscard]] static bool same_token(std::string_view a, std::string_view b) noexcept {
        unsigned char diff = a.size() == b.size() ? 0 : 1;
        const std::size_t n = std::max(a.size(), b.size());
        for (std::size_t i = 0; i < n; ++i) {
            const auto x = static_cast<unsigned char>(i < a.size() ? a[i] : 0);
            const auto y = static_cast<unsigned char>(i < b.size() ? b[i] : 0);
            diff = static_cast<unsigned char>(diff | (x ^ y));
        }
        return diff == 0;
    }

private:
    /// A viewer's place in its view's frame pump while its page is visible (id 0: none).
    struct viewer_link {
        live_view& view;
        std::function<void()> wake;
        std::chrono::steady_clock::duration interval;
        std::uint64_t id = 0;
        void attach() {
            if (id == 0) id = view.attach_viewer(wake, interval);
        }
        void detach() {
            if (id != 0) view.detach_viewer(std::exchange(id, 0));
        }
    };

    /// The value of `name` in a query string, percent- and '+'-decoded ("" when absent).
    static std::string query_param(std::string_view query, std::string_view name) {
        const auto hex = [](char c) {
            if (c >= '0' && c <= '9') return c - '0';
            const char l = static_cast<char>(c | 0x20);
            return l >= 'a' && l <= 'f' ? l - 'a' + 10 : -1;
        };
        std::size_t pos = 0;
        while (pos <= query.size()) {
            const auto end = std::min(query.find('&', pos), query.size());
            const auto part = query.substr(pos, end - pos);
            const auto eq = part.find('=');
            if (part.substr(0, eq) == name) {
                const std::string_view v = eq == std::string_view::npos ? std::string_view() : part.substr(eq + 1);
                std::string out;
                for (std::size_t i = 0; i < v.size(); ++i) {
                    if (v[i] == '%' && i + 2 < v.size() && hex(v[i + 1]) >= 0 && hex(v[i + 2]) >= 0) {
                        out += static_cast<char>(hex(v[i + 1]) * 16 + hex(v[i + 2]));
                        i += 2;
                    } else {
                        out += v[i] == '+' ? ' ' : v[i];
                    }
                }
                return out;
            }
            pos = end + 1;
        }
        return {};
    }

    /// Why `r` is refused ("" when it may pass).
    std::string refuse(const net::http_request& r) const {
        const std::string& a = r.remote_addr;
        if (!agentkit::is_loopback_host(a)) return "not from loopback";
        const std::string port = std::to_string(server_->port());
        const std::string host = r.header("Host");
        if (host != "127.0.0.1:" + port && host != "localhost:" + port && host != "[::1]:" + port) return "wrong Host";
        if (r.has_header("Origin")) {
            const std::string o = r.header("Origin");
            if (o != "http://127.0.0.1:" + port && o != "http://localhost:" + port && o != "http://[::1]:" + port)
                return "foreign Origin";
        } else if (net::is_websocket_upgrade(r)) {
            return "a WebSocket needs an Origin";
        }
        if (token_.empty()) return "no token could be drawn (no random source): every request is refused";
        if (!same_token(query_param(r.query, "token"), token_)) return "missing or wrong token";
        return {};
    }

    net::http_response secure(net::http_response r) const {
        const std::string port = server_ ? std::to_string(server_->port()) : "0";
        if (r.status != 101) {
            r.headers.emplace_back("Content-Security-Policy",
                                   "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' blob:; connect-src 'self' "
                                   "ws://127.0.0.1:" + port + " ws://localhost:" + port + " ws://[::1]:" + port +
                                       "; base-uri 'none'; form-action 'none'; frame-ancestors 'none'");
            r.headers.emplace_back("Referrer-Policy", "no-referrer");
            r.headers.emplace_back("X-Content-Type-Options", "nosniff");
            r.headers.emplace_back("X-Frame-Options", "DENY");
            r.headers.emplace_back("Cache-Control", "no-store");
        }
        return r;
    }

    net::http_response page() const {
        std::string html(dashboard_html);
        for (std::size_t p = html.find("{{TOKEN}}"); p != std::string::npos; p = html.find("{{TOKEN}}", p))
            html.replace(p, 9, token_);
        return net::http_response::html(std::move(html));
    }

    live_view* find(const net::http_request& r) {
        std::lock_guard lock(mu_);
        const std::string name = query_param(r.query, "view");
        if (auto it = views_.find(name); it != views_.end()) return it->second;
        if (name.empty() && views_.size() == 1) return views_.begin()->second;
        return nullptr;
    }

    net::http_response views_json() {
        std::vector<live_view*> vs;
        {
            std::lock_guard lock(mu_);
            for (const auto& [n, v] : views_) vs.push_back(v);
        }
        json out = json::array();
        for (auto* v : vs) out.push_back(v->describe());
        return net::http_response::json_text(out.dump());
    }

    net::http_response steps_json(const net::http_request& r) {
        auto* v = find(r);
        if (v == nullptr) return net::http_response::text("no such view\n", 404);
        std::uint64_t after = 0;
        try {
            after = std::stoull("0" + query_param(r.query, "after"));
        } catch (...) {
        }
        json out = json::array();
        for (const auto& s : v->steps().since(after)) out.push_back(s.to_json());
        return net::http_response::json_text(out.dump());
    }

    net::http_response events_json(const net::http_request& r) {
        auto* v = find(r);
        if (v == nullptr) return net::http_response::text("no such view\n", 404);
        const std::string kind = query_param(r.query, "kind");
        if (kind != "console" && kind != "network") return net::http_response::text("kind is console or network\n", 400);
        // read as the browser's events left them: a dashboard never waits for (or delays) the agent's call
        const auto p = v->page_browser().peek(kind == "console", kind == "network");
        json out = json::array();
        for (const auto& c : p.console) out.push_back(json{{"level", c.level}, {"text", c.text}, {"url", c.url}, {"line", c.line}});
        for (const auto& n : p.network)
            out.push_back(json{{"method", n.method}, {"url", n.url}, {"type", n.resource_type}, {"status", n.status}, {"error", n.error},
                               {"ms", n.duration_ms}});
        return net::http_response::json_text(out.dump());
    }

    net::http_response artifact(const net::http_request& r) {
        auto* v = find(r);
        if (v == nullptr) return net::http_response::text("no such view\n", 404);
        auto a = v->store().get(query_param(r.query, "id"));
        if (!a) return net::http_response::text("no such artifact\n", 404);
        net::http_response out;
        const bool image = a->mime_type.rfind("image/", 0) == 0;
        out.content_type = image ? a->mime_type : "text/plain; charset=utf-8";  // never served as HTML
        if (a->base64) {
            auto bytes = base64_decode(a->data);
            out.body = bytes ? std::move(*bytes) : std::string();
        } else {
            out.body = std::move(a->data);
        }
        out.headers.emplace_back("Content-Security-Policy", "sandbox; default-src 'none'");
        return out;
    }

    /// One viewer's WebSocket: frames paced by its acks, events as they happen, its controls.
    net::http_response viewer(const net::http_request& r) {
        auto* v = find(r);
        if (v == nullptr) return net::http_response::text("no such view\n", 404);
        return net::websocket_upgrade(r, [this, v](net::websocket_peer& peer) {
            auto box = std::make_shared<outbox>();
            box->peer = &peer;
            std::multimap<live_view*, std::shared_ptr<outbox>>::iterator me;
            {
                std::lock_guard lock(mu_);
                me = sessions_.emplace(v, box);
            }
            const auto lid = v->listen([box](const json& e) {
                std::lock_guard l(box->mu);
                if (box->peer == nullptr) return;
                if (box->q.size() < 10000) box->q.push_back(e.dump());
                box->peer->wake();
            });
            const auto interval = std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                std::chrono::duration<double>(opt_.max_fps > 0 ? 1.0 / opt_.max_fps : 0.0));
            const auto wake = [box] {
                std::lock_guard l(box->mu);
                if (box->peer != nullptr) box->peer->wake();
            };
            viewer_link link{*v, wake, interval};
            link.attach();
            json hello{{"type", "hello"}, {"view", v->describe()}, {"steps", json::array()}};
            for (const auto& s : v->steps().since(0)) hello["steps"].push_back(s.to_json());
            bool ok = peer.send(hello.dump());
            std::map<std::uint64_t, double> sent_at;  // seq → the frame's capture time (epoch s)
            const auto closing = [&box] {
                std::lock_guard l(box->mu);
                return box->closing;
            };
            while (ok && !closing()) {
                // wait for a message, a wake (a frame came, an event), or the end of this viewer's
                // frame interval (then take() lets the browser send the next frame)
                auto wait = std::chrono::milliseconds(30000);
                if (link.id != 0)
                    if (const auto due = v->frames().due(link.id)) {
                        const auto left = std::chrono::ceil<std::chrono::milliseconds>(*due - std::chrono::steady_clock::now());
                        wait = std::clamp(left, std::chrono::milliseconds(0), wait);
                    }
                auto m = peer.receive(wait);
                if (!m) break;
                if (*m) ok = command(*v, link, peer, **m, sent_at);
                std::deque<std::string> out;
                {
                    std::lock_guard l(box->mu);
                    out.swap(box->q);
                }
                for (const auto& s : out)
                    if (ok) ok = peer.send(s);
                if (!ok || link.id == 0) continue;
                if (auto f = v->frames().take(link.id)) {
                    auto jpeg = base64_decode(f->frame->data);
                    json meta{{"type", "frame"},         {"seq", f->seq},
                              {"css_width", f->frame->css_width}, {"css_height", f->frame->css_height},
                              {"page_scale", f->frame->page_scale}, {"timestamp", f->frame->timestamp}};
                    ok = jpeg && peer.send(meta.dump()) && peer.send(*jpeg, ws::opcode::binary);
                    if (ok) {
                        sent_at[f->seq] = f->frame->timestamp;
                        std::lock_guard lock(mu_);
                        ++stats_.frames_sent;
                        stats_.frame_bytes += jpeg->size();
                    }
                }
            }
            {
                std::lock_guard l(box->mu);
                box->peer = nullptr;
            }
            v->unlisten(lid);
            link.detach();
            std::lock_guard lock(mu_);
            sessions_.erase(me);
            sessions_cv_.notify_all();
        });
    }

    /// Handle one message of a viewer; false to end its connection.
    bool command(live_view& v, viewer_link& link, net::websocket_peer& peer, const net::websocket_message& m,
                 std::map<std::uint64_t, double>& sent_at) {
        if (m.op != ws::opcode::text) return true;
        const json c = json::parse(m.data, nullptr, false);
        if (!c.is_object()) return peer.send(json{{"type", "error"}, {"message", "a message is a JSON object"}}.dump());
        const std::string type = c.value("type", "");
        if (type == "ack") {
            const auto seq = c.value("seq", std::uint64_t{0});
            if (auto it = sent_at.find(seq); it != sent_at.end()) {
                const double now = std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
                std::lock_guard lock(mu_);
                ++stats_.frames_shown;
                if (it->second > 0) {
                    latency_.push_back((now - it->second) * 1000.0);
                    while (latency_.size() > opt_.latency_samples) latency_.pop_front();
                }
                sent_at.erase(sent_at.begin(), std::next(it));
            }
            if (link.id != 0) v.frames().viewer_ack(link.id);
            return true;
        }
        if (type == "visibility") {  // a hidden page gets no frames: the last viewer hiding stops the screencast
            if (c.value("visible", true)) link.attach();
            else link.detach();
            return true;
        }
        result<void> done;
        if (type == "pause") v.gate().pause();
        else if (type == "resume") v.gate().resume();
        else if (type == "step") v.gate().step();
        else if (type == "take") done = v.take_control();
        else if (type == "handback") {
            auto rep = v.hand_back();
            if (rep) return peer.send(json{{"type", "report"}, {"text", *rep}}.dump());
            done = fail(rep.error());
        } else if (type == "input") {
            done = v.input(c.contains("event") ? c["event"] : json());
        } else {
            done = fail(errc::args_invalid, "unknown message type: " + type);
        }
        if (!done) return peer.send(json{{"type", "error"}, {"message", done.error().message}}.dump());
        return true;
    }

    dashboard_options opt_;
    std::string token_;
    std::unique_ptr<net::http_server> server_;
    mutable std::mutex mu_;
    std::map<std::string, live_view*, std::less<>> views_;
    /// A viewer's queue of events to send, and its peer while it is connected.
    struct outbox {
        std::mutex mu;
        std::deque<std::string> q;
        net::websocket_peer* peer = nullptr;
        bool closing = false;  // its view is being removed
    };
    std::multimap<live_view*, std::shared_ptr<outbox>> sessions_;  // under mu_
    std::condition_variable sessions_cv_;
    std::atomic<std::uint64_t> refused_{0};
    dashboard_stats stats_;
    std::deque<double> latency_;
};

}  // namespace agentkit::browser
