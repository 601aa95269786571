// agentkit/cdp/transport.hpp — the transport concept, its type-erased wrapper, and CDP
// transcripts (record what crossed a transport; replay_transport.hpp plays them back).
//
// A transport moves whole CDP messages (one JSON text each) between agentkit and a browser.
// Implementations: pipe_transport (launches Chromium with --remote-debugging-pipe),
// websocket_transport (ws:// endpoint), replay_transport (a recorded transcript).
//
// Example:
//   auto t = agentkit::cdp::pipe_transport::launch({});          // result<pipe_transport>
//   if (!t) return agentkit::fail(t.error());
//   agentkit::cdp::any_transport any{std::move(*t)};
//   auto rec = std::make_shared<agentkit::cdp::transcript_recorder>();
//   any.record_to(rec);                                          // optional
//   agentkit::cdp::connection conn{std::move(any)};
#pragma once

#include <agentkit/core/json.hpp>
#include <agentkit/core/result.hpp>

#include <chrono>
#include <concepts>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <mutex>
#include <sstream>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

namespace agentkit::cdp {

/// A CDP transport.
///
/// Contract (all implementations in agentkit follow it; custom ones must too):
/// - `send(message)` writes one complete JSON text message. Safe to call from several
///   threads and concurrently with `receive`.
/// - `receive(timeout)` returns the next complete message. It is called by one thread at a
///   time. On timeout it returns errc::timeout and the transport stays usable. Once the
///   transport is finished it returns a terminal error — errc::transport_closed (closed by
///   us or by the peer), errc::browser_crashed (the browser process died), errc::transport_io
///   or errc::protocol_error — and keeps returning it.
/// - `close()` may be called from any thread, is idempotent, and makes a blocked `receive`
///   return errc::transport_closed promptly.
/// - `is_open()` is false once closed or failed.
/// Nothing throws on I/O errors.
// The member requirements come first: a type without them (e.g. result<any_transport>) is
// rejected before move_constructible would ask any_transport's converting constructor about it
// again (clang reports that recursion as an error).
template <class T>
concept transport = requires(T& t, const T& ct, std::string_view message, std::chrono::milliseconds timeout) {
                        { t.send(message) } -> std::same_as<result<void>>;
                        { t.receive(timeout) } -> std::same_as<result<std::string>>;
                        { t.close() } -> std::same_as<void>;
                        { ct.is_open() } -> std::convertible_to<bool>;
                    } && std::move_constructible<T>;

/// True for the error codes after which a transport is finished.
[[nodiscard]] inline bool is_terminal_transport_error(const error& e) noexcept {
    return !e.is(errc::timeout);
}

// ---------------------------------------------------------------------------------------
// Transcripts
// ---------------------------------------------------------------------------------------

/// Which way a transcript entry went.
enum class direction {
    sent,      ///< agentkit → browser ("send" in JSONL)
    received,  ///< browser → agentkit ("recv")
    closed,    ///< the transport finished; the message is the error as JSON ("close")
};

/// The direction as written in JSONL: "send", "recv" or "close".
[[nodiscard]] inline std::string_view to_string(direction d) noexcept {
    switch (d) {
        case direction::sent: return "send";
        case direction::received: return "recv";
        case direction::closed: return "close";
    }
    return "?";
}

/// One message that crossed a transport.
struct transcript_entry {
    double time_ms = 0;  ///< milliseconds since recording started
    direction dir = direction::sent;  ///< which way it went
    std::string message;  ///< the JSON text (for `closed`: error::to_json() text)

    /// One JSONL line (without the newline): {"t":1.5,"dir":"send","msg":{...}}.
    /// A message that is not valid JSON is kept verbatim as {"raw":"..."}.
    [[nodiscard]] std::string to_jsonl() const {
        json line = json::object();
        line["t"] = time_ms;
        line["dir"] = std::string(to_string(dir));
        std::string out = line.dump();  // {"dir":"send","t":1.5}
        out.pop_back();
        auto parsed = json::parse(message, nullptr, /*allow_exceptions=*/false);
        if (!parsed.is_discarded()) {
            out += ",\"msg\":";
            out += parsed.dump(-1, ' ', false, json::error_handler_t::replace);
        } else {
            out += ",\"raw\":";
            out += json(message).dump(-1, ' ', false, json::error_handler_t::replace);
        }
        out += '}';
        return out;
    }

    /// Parse one JSONL line.
    [[nodiscard]] static result<transcript_entry> from_jsonl(std::string_view line) {
        auto j = json::parse(line, nullptr, /*allow_exceptions=*/false);
        if (j.is_discarded() || !j.is_object())
            return fail(errc::protocol_error, "transcript line is not a JSON object",
                        "Each line of a transcript is {\"t\":ms,\"dir\":\"send|recv|close\",\"msg\":{...}}.");
        transcript_entry e;
        if (auto t = j.find("t"); t != j.end() && t->is_number()) e.time_ms = t->get<double>();
        const auto d = j.find("dir");
        if (d == j.end() || !d->is_string())
            return fail(errc::protocol_error, "transcript line has no \"dir\"");
        const auto ds = d->get<std::string>();
        if (ds == "send") e.dir = direction::sent;
        else if (ds == "recv") e.dir = direction::received;
        else if (ds == "close") e.dir = direction::closed;
        else return fail(errc::protocol_error, "transcript line has unknown dir '" + ds + "'");
        if (auto m = j.find("msg"); m != j.end()) e.message = m->dump();
        else if (auto r = j.find("raw"); r != j.end() && r->is_string()) e.message = r->get<std::string>();
        else return fail(errc::protocol_error, "transcript line has neither \"msg\" nor \"raw\"");
        return e;
    }
};

/// A whole transcript as JSONL text.
[[nodiscard]] inline std::string to_jsonl(const std::vector<transcript_entry>& entries) {
    std::string out;
    for (const auto& e : entries) {
        out += e.to_jsonl();
        out += '\n';
    }
    return out;
}

/// Parse JSONL text (blank lines ignored). Errors name the line number.
[[nodiscard]] inline result<std::vector<transcript_entry>> parse_transcript(std::string_view jsonl) {
    std::vector<transcript_entry> out;
    std::size_t line_no = 0;
    while (!jsonl.empty()) {
        ++line_no;
        const auto nl = jsonl.find('\n');
        std::string_view line = jsonl.substr(0, nl);
        jsonl = nl == std::string_view::npos ? std::string_view{} : jsonl.substr(nl + 1);
        if (line.find_first_not_of(" \t\r") == std::string_view::npos) continue;
        auto e = transcript_entry::from_jsonl(line);
        if (!e) {
            auto err = e.error();
            err.message = "transcript line " + std::to_string(line_no) + ": " + err.message;
            return fail(std::move(err));
        }
        out.push_back(std::move(*e));
    }
    return out;
}

/// Load a JSONL transcript file.
[[nodiscard]] inline result<std::vector<transcript_entry>> load_transcript(const std::filesystem::path& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) return fail(errc::not_found, "cannot open transcript " + path.string());
    std::ostringstream ss;
    ss << in.rdbuf();
    return parse_transcript(ss.str());
}

/// Records transport traffic, in memory and/or appended line by line (flushed) to a JSONL
/// file, so a transcript survives a crash of the recording process. Thread-safe.
class transcript_recorder {
public:
    /// In memory only.
    transcript_recorder() = default;

    /// Append to a JSONL file (truncated first); keep entries in memory too when asked.
    [[nodiscard]] static result<std::shared_ptr<transcript_recorder>> open_file(const std::filesystem::path& path,
                                                                                bool keep_in_memory = false) {
        std::FILE* f = std::fopen(path.c_str(), "we");
        if (f == nullptr) return fail(errc::transport_io, "cannot open transcript file " + path.string());
        auto r = std::make_shared<transcript_recorder>();
        r->file_ = f;
        r->keep_ = keep_in_memory;
        return r;
    }

    transcript_recorder(const transcript_recorder&) = delete;
    transcript_recorder& operator=(const transcript_recorder&) = delete;
    ~transcript_recorder() {
        if (file_ != nullptr) std::fclose(file_);
    }

    /// Record one message (time is relative to the recorder's creation).
    void record(direction d, std::string_view message) {
        transcript_entry e;
        e.time_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start_).count();
        e.dir = d;
        e.message = std::string(message);
        std::lock_guard lock(mu_);
        if (file_ != nullptr) {
            const std::string line = e.to_jsonl() + "\n";
            std::fwrite(line.data(), 1, line.size(), file_);
            std::fflush(file_);
        }
        if (keep_) entries_.push_back(std::move(e));
    }

    /// A copy of the entries recorded so far (empty for a file-only recorder).
    [[nodiscard]] std::vector<transcript_entry> entries() const {
        std::lock_guard lock(mu_);
        return entries_;
    }

    /// Write the in-memory entries as a JSONL file.
    [[nodiscard]] result<void> save(const std::filesystem::path& path) const {
        const std::string text = to_jsonl(entries());
        std::ofstream out(path, std::ios::binary | std::ios::trunc);
        if (!out) return fail(errc::transport_io, "cannot write transcript " + path.string());
        out.write(text.data(), static_cast<std::streamsize>(text.size()));
        if (!out) return fail(errc::transport_io, "cannot write transcript " + path.string());
        return {};
    }

private:
    mutable std::mutex mu_;
    std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
    std::vector<transcript_entry> entries_;
    std::FILE* file_ = nullptr;
    bool keep_ = true;
};

// ---------------------------------------------------------------------------------------
// any_transport
// ---------------------------------------------------------------------------------------

/// A type-erased transport (one virtual call per message), so that `connection` and the
/// layers above it are not templates. Optionally records a transcript of everything that
/// passes through it. Itself satisfies `transport`. An empty any_transport is closed.
class any_transport {
public:
    any_transport() = default;

    /// Wrap any transport (implicit).
    template <class T>
        requires(!std::same_as<std::remove_cvref_t<T>, any_transport> && transport<std::remove_cvref_t<T>>)
    any_transport(T&& t)  // NOLINT(google-explicit-constructor): deliberate implicit erasure
        : impl_(std::make_unique<model<std::remove_cvref_t<T>>>(std::forward<T>(t))) {}

    any_transport(any_transport&&) noexcept = default;
    any_transport& operator=(any_transport&&) noexcept = default;
    ~any_transport() = default;

    /// Send through the wrapped transport (recorded when recording); transport_closed when empty.
    [[nodiscard]] result<void> send(std::string_view message) {
        if (!impl_) return closed_error();
        if (auto rec = impl_->recorder()) rec->record(direction::sent, message);
        return impl_->send(message);
    }

    /// Receive from the wrapped transport (recorded when recording); transport_closed when empty.
    [[nodiscard]] result<std::string> receive(std::chrono::milliseconds timeout) {
        if (!impl_) return closed_error();
        auto r = impl_->receive(timeout);
        if (auto rec = impl_->recorder()) {
            if (r) rec->record(direction::received, *r);
            else if (is_terminal_transport_error(r.error()) && !impl_->close_recorded) {
                impl_->close_recorded = true;
                rec->record(direction::closed, r.error().to_json().dump());
            }
        }
        return r;
    }

    /// Close the wrapped transport.
    void close() {
        if (impl_) impl_->close();
    }

    /// True when a transport is wrapped and open.
    [[nodiscard]] bool is_open() const { return impl_ && impl_->is_open(); }
    /// True when a transport is wrapped.
    [[nodiscard]] explicit operator bool() const noexcept { return static_cast<bool>(impl_); }

    /// Record every message from now on (nullptr stops recording). Thread-safe.
    void record_to(std::shared_ptr<transcript_recorder> recorder) {
        if (impl_) impl_->set_recorder(std::move(recorder));
    }

    ///@{
    /// The wrapped transport when it is a T (e.g. to reach pipe_transport::pid()), else null.
    template <class T>
    [[nodiscard]] T* target() noexcept {
        auto* m = dynamic_cast<model<T>*>(impl_.get());
        return m != nullptr ? &m->value : nullptr;
    }
    template <class T>
    [[nodiscard]] const T* target() const noexcept {
        const auto* m = dynamic_cast<const model<T>*>(impl_.get());
        return m != nullptr ? &m->value : nullptr;
    }
    ///@}

private:
    static unexpected_error closed_error() {
        return fail(errc::transport_closed, "no transport", "Construct the any_transport from a real transport.");
    }

    struct concept_t {
        virtual ~concept_t() = default;
        virtual result<void> send(std::string_view) = 0;
        virtual result<std::string> receive(std::chrono::milliseconds) = 0;
        virtual void close() = 0;
        [[nodiscard]] virtual bool is_open() const = 0;

        std::shared_ptr<transcript_recorder> recorder() {
            std::lock_guard lock(rec_mu);
            return rec;
        }
        void set_recorder(std::shared_ptr<transcript_recorder> r) {
            std::lock_guard lock(rec_mu);
            rec = std::move(r);
        }
        std::mutex rec_mu;
        std::shared_ptr<transcript_recorder> rec;
        bool close_recorded = false;  // touched only by the (single) receiving thread
    };

    template <class T>
    struct model final : concept_t {
        explicit model(T&& t) : value(std::move(t)) {}
        explicit model(const T& t) : value(t) {}
        result<void> send(std::string_view m) override { return value.send(m); }
        result<std::string> receive(std::chrono::milliseconds t) override { return value.receive(t); }
        void close() override { value.close(); }
        [[nodiscard]] bool is_open() const override { return static_cast<bool>(value.is_open()); }
        T value;
    };

    std::unique_ptr<concept_t> impl_;
};

static_assert(transport<any_transport>);

}  // namespace agentkit::cdp
