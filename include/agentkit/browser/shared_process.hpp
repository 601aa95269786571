// agentkit/browser/shared_process.hpp — one local browser process shared by several browser
// objects, each in a browser context of its own: agentkit-browser-mcp --isolated over HTTP,
// where every client session gets its own cookies, storage and tabs but not its own Chromium.
//
//   auto proc = std::make_shared<agentkit::browser::shared_process>(opts);   // nothing starts yet
//   agentkit::browser::browser a(proc->lease(opts));   // each start: a WebSocket to the process
//   agentkit::browser::browser b(proc->lease(opts));   // launched by the first start that needs it
//
// The process is launched by the first browser start that needs it (a launch failure fails that
// start, saying why) and again by the next start after it died. It is closed when the last
// lease ends: the options lease() returns take a lease at their browser's first start and give it
// back when they and every copy of them are gone (a browser keeps its copy until it is
// destroyed), so the process outlives every browser that used it, and no longer.
//
// The process listens on a DevTools port on 127.0.0.1 (its WebSocket path holds a random id, but
// a local process that reads the port's /json/version can drive it, as with any
// launch_over_websocket browser); the origin policy, downloads and the page guard are each
// browser's own, in its own context, as with cdp_endpoint.
#pragma once

#include <agentkit/browser/options.hpp>
#include <agentkit/cdp/websocket_transport.hpp>
#include <agentkit/core/result.hpp>

#include <cstddef>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <utility>

namespace agentkit::browser {

/// A local browser process several browser objects share (see the top of this header).
/// Thread-safe. Keep it in a shared_ptr: leases hold it.
class shared_process : public std::enable_shared_from_this<shared_process> {
public:
    /// Told when the process is launched and when it is closed (the last lease ended) or found
    /// dead at the next start; called with no lock held, on the thread that caused it.
    struct hooks {
        std::function<void()> launched;  ///< the process was launched
        std::function<void()> closed;    ///< it was closed, or found dead
    };

    /// The process `o.launch` describes (its executable, headless mode, flags, profile);
    /// o.transport_factory, cdp_endpoint and webdriver must be empty (lease() fails the
    /// start otherwise).
    explicit shared_process(const browser_options& o, hooks h = {}) : launch_(process_launch_options(o)), hooks_(std::move(h)) {
        launch_.user_data_dir.clear();  // a shared process has a profile of its own; each browser a context there
    }
    shared_process(const shared_process&) = delete;
    shared_process& operator=(const shared_process&) = delete;
    ~shared_process() {
        std::unique_lock lock(mu_);
        close_locked(lock, false);
    }

    /// `o` with its transport_factory set to a new WebSocket connection to this process
    /// (launching it when it is not running), so that a browser made with them creates a context
    /// of its own there. The options hold a lease from the first start on, until they and every
    /// copy of them are gone (see the top); a browser that never starts holds none.
    [[nodiscard]] browser_options lease(browser_options o) {
        if (!o.cdp_endpoint.empty() || !o.webdriver.url.empty() || o.transport_factory) {
            o.transport_factory = [] () -> result<cdp::any_transport> {
                return fail(errc::args_invalid, "shared_process::lease: these options already reach a browser (cdp_endpoint, webdriver or transport_factory)");
            };
            return o;
        }
        auto held = std::make_shared<holder>();
        held->process = shared_from_this();
        o.transport_factory = [held] { return held->process->connect(*held); };
        return o;
    }

    /// Leases held now.
    [[nodiscard]] std::size_t leases() const {
        std::lock_guard lock(mu_);
        return leases_;
    }
    /// Whether the process is running now.
    [[nodiscard]] bool running() const {
        std::lock_guard lock(mu_);
        return alive_locked();
    }
    /// The launched process's pid, or -1.
    [[nodiscard]] int pid() const {
        std::lock_guard lock(mu_);
        return alive_locked() ? owner_->pid() : -1;
    }

private:
    /// One lease: taken by the first connect(), given back when the last copy of the options goes.
    struct holder {
        std::shared_ptr<shared_process> process;
        bool held = false;  // guarded by process->mu_
        holder() = default;
        holder(const holder&) = delete;
        holder& operator=(const holder&) = delete;
        ~holder() {
            if (process) process->release(*this);
        }
    };

    /// A new connection to the process, launching it first when it is not running.
    result<cdp::any_transport> connect(holder& h) {
        std::unique_lock lock(mu_);
        if (!h.held) {
            h.held = true;
            ++leases_;
        }
        for (int attempt = 0;; ++attempt) {
            if (owner_ && !alive_locked()) close_locked(lock, true);  // it died: said once, then launched anew
            if (!owner_) {
                auto t = cdp::websocket_transport::launch(launch_);
                if (!t) return fail(t.error());
                owner_ = std::make_unique<cdp::websocket_transport>(std::move(*t));
                if (hooks_.launched) {
                    lock.unlock();
                    hooks_.launched();
                    lock.lock();
                }
                if (!owner_) return fail(errc::browser_launch, "the shared browser process closed while it was starting");
            }
            const std::string url = owner_->url();
            lock.unlock();
            auto c = cdp::websocket_transport::connect(url);
            if (c) return cdp::any_transport{std::move(*c)};
            lock.lock();
            // A process that is going away closes its port before its exit can be seen: wait for
            // that exit (within 2 s), then launch anew, once.
            if (attempt == 0 && owner_ && owner_->url() == url && owner_->process() != nullptr &&
                owner_->process()->wait_exit(std::chrono::milliseconds(2000)))
                continue;
            return fail(errc::browser_launch, "cannot connect to the shared browser process: " + c.error().message);
        }
    }

    void release(holder& h) {
        std::unique_lock lock(mu_);
        if (!h.held) return;
        h.held = false;
        if (--leases_ == 0) close_locked(lock, true);
    }

    bool alive_locked() const {
        return owner_ && owner_->is_open() && owner_->process() != nullptr && !owner_->process()->exited();
    }

    // Close the process (when there is one), telling hooks_.closed when `tell`.
    void close_locked(std::unique_lock<std::mutex>& lock, bool tell) {
        if (!owner_) return;
        auto owner = std::move(owner_);
        owner->close();  // stops the process
        owner.reset();
        if (tell && hooks_.closed) {
            lock.unlock();
            hooks_.closed();
            lock.lock();
        }
    }

    cdp::launch_options launch_;
    hooks hooks_;
    mutable std::mutex mu_;
    std::unique_ptr<cdp::websocket_transport> owner_;  // the connection that launched the process
    std::size_t leases_ = 0;
};

}  // namespace agentkit::browser
