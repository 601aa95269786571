// agentkit/net/sse.hpp — a Server-Sent Events reader: bytes in, events out.
//
// The `text/event-stream` format as the HTML Living Standard defines it: lines end with CRLF,
// LF or CR (a CR at the end of one chunk and an LF at the start of the next are one line end);
// `field: value` lines (one space after the colon dropped), `:` comment lines ignored, `data`
// lines joined with "\n", an empty line dispatches the event (an event without data is not
// dispatched), a leading UTF-8 BOM skipped, an unfinished event at the end of the stream
// dropped. Feed it whatever pieces the transport delivers:
//
//   agentkit::net::sse_reader sse;
//   bool ok = sse.feed(chunk, [](const agentkit::net::sse_event& e) {
//       std::printf("%s: %s\n", e.event.c_str(), e.data.c_str());
//       return true;                       // false stops reading (feed returns false)
//   });
//
// Standard library only: no HTTP library needed (the model client, session/model_client.hpp,
// reads provider streams with it). One event may hold at most `max_event_bytes`; a longer one
// makes feed() fail (a stream that never ends a line cannot grow the reader without bound).
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

namespace agentkit::net {

/// One dispatched event.
struct sse_event {
    std::string event = "message";  ///< the `event:` field ("message" when the event named none)
    std::string data;               ///< the `data:` lines, joined with "\n"
    std::string id;                 ///< the last `id:` seen (it carries over to later events)
    std::optional<long> retry_ms;   ///< a `retry:` field of this event, when it had one
};

/// Incremental reader of a `text/event-stream` body.
class sse_reader {
public:
    /// `max_event_bytes`: the most one event (its lines together) may hold.
    explicit sse_reader(std::size_t max_event_bytes = std::size_t{16} << 20U) : max_(max_event_bytes) {}

    /// Read `bytes`, calling `on_event(const sse_event&) -> bool` for every event completed by
    /// them. Returns false when on_event returned false or the event grew past the bound
    /// (overflowed() tells which); the reader should not be fed again after that.
    template <class F>
    bool feed(std::string_view bytes, F&& on_event) {
        for (std::size_t i = 0; i < bytes.size(); ++i) {
            const char c = bytes[i];
            if (bom_pending_) {
                // a UTF-8 byte-order mark (EF BB BF) at the very start is not part of the stream
                static constexpr unsigned char bom[3] = {0xEF, 0xBB, 0xBF};
                if (static_cast<unsigned char>(c) == bom[bom_seen_]) {
                    if (++bom_seen_ == 3) bom_pending_ = false;
                    continue;
                }
                bom_pending_ = false;
                for (std::size_t k = 0; k < bom_seen_; ++k) line_ += static_cast<char>(bom[k]);
            }
            if (c == '\n' && after_cr_) {  // the LF of a CRLF whose CR ended the line already
                after_cr_ = false;
                continue;
            }
            after_cr_ = c == '\r';
            if (c == '\r' || c == '\n') {
                if (!line(on_event)) return false;
                continue;
            }
            line_ += c;
            if (line_.size() + pending_bytes_ > max_) {
                overflowed_ = true;
                return false;
            }
        }
        return true;
    }

    /// True when feed() failed because one event exceeded max_event_bytes.
    [[nodiscard]] bool overflowed() const noexcept { return overflowed_; }
    /// Events dispatched so far.
    [[nodiscard]] std::size_t events() const noexcept { return events_; }
    /// True when bytes of an event that has not ended yet are held (at the end of a stream:
    /// it was cut inside an event).
    [[nodiscard]] bool partial() const noexcept { return !line_.empty() || has_data_ || pending_bytes_ > 0; }

private:
    template <class F>
    bool line(F& on_event) {
        std::string l;
        l.swap(line_);  // not a move construction: g++ 12 -O3 then warns falsely (-Wmaybe-uninitialized)
        if (l.empty()) return dispatch(on_event);
        if (l.front() == ':') return true;  // a comment (servers send them as keep-alives)
        std::string_view field = l;
        std::string_view value;
        if (const std::size_t colon = field.find(':'); colon != std::string_view::npos) {
            value = field.substr(colon + 1);
            field = field.substr(0, colon);
            if (!value.empty() && value.front() == ' ') value.remove_prefix(1);
        }
        pending_bytes_ += l.size();
        if (field == "data") {
            cur_.data.append(value);
            cur_.data += '\n';
            has_data_ = true;
        } else if (field == "event") {
            cur_.event.assign(value);
            named_ = !value.empty();  // an empty name means the default, "message"
        } else if (field == "id") {
            if (value.find('\0') == std::string_view::npos) last_id_.assign(value);
        } else if (field == "retry") {
            bool digits = !value.empty();
            long v = 0;
            for (char ch : value) {
                if (ch < '0' || ch > '9' || v > 100000000L) {
                    digits = false;
                    break;
                }
                v = v * 10 + (ch - '0');
            }
            if (digits) cur_.retry_ms = v;
        }
        return true;  // unknown fields are ignored
    }

    template <class F>
    bool dispatch(F& on_event) {
        pending_bytes_ = 0;
        if (!has_data_) {  // nothing to dispatch: the event's name and retry are reset
            cur_ = sse_event{};
            named_ = false;
            return true;
        }
        cur_.data.pop_back();  // the last "\n"
        if (!named_) cur_.event = "message";
        cur_.id = last_id_;
        ++events_;
        sse_event e = std::move(cur_);
        cur_ = sse_event{};
        has_data_ = false;
        named_ = false;
        return static_cast<bool>(on_event(static_cast<const sse_event&>(e)));
    }

    std::size_t max_;
    std::string line_;
    sse_event cur_;
    std::string last_id_;
    std::size_t pending_bytes_ = 0;  ///< bytes of the finished lines of the current event
    std::size_t events_ = 0;
    std::size_t bom_seen_ = 0;
    bool bom_pending_ = true;
    bool after_cr_ = false;
    bool has_data_ = false;
    bool named_ = false;
    bool overflowed_ = false;
};

}  // namespace agentkit::net
