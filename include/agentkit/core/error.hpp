// agentkit/core/error.hpp — structured errors with stable codes.
//
// Every failure agentkit reports carries:
//   code     a stable dotted id ("args.invalid", "tool.unknown", ...) that hosts and
//            models can match on; codes never change meaning once published;
//   message  what went wrong, in one or two sentences;
//   hint     what the caller (usually the model) should do next;
//   details  optional structured JSON (the list of argument problems, candidate names, ...).
#pragma once

#include <agentkit/core/json.hpp>

#include <string>
#include <string_view>
#include <utility>

namespace agentkit {

/// Stable error codes. Use these constants rather than string literals. Every code agentkit
/// reports is listed here, whichever part reports it: one catalogue a host can match against.
namespace errc {
// arguments and dispatch
inline constexpr std::string_view args_invalid = "args.invalid";        ///< arguments failed schema validation
inline constexpr std::string_view args_malformed = "args.malformed";    ///< arguments were not parseable JSON
inline constexpr std::string_view tool_unknown = "tool.unknown";        ///< no tool with that name
inline constexpr std::string_view tool_masked = "tool.masked";          ///< tool exists but is not visible now
inline constexpr std::string_view tool_exception = "tool.exception";    ///< the host handler threw
inline constexpr std::string_view tool_failed = "tool.failed";          ///< the handler reported a failure
inline constexpr std::string_view tool_timeout = "tool.timeout";        ///< the handler did not finish in time
inline constexpr std::string_view tool_cancelled = "tool.cancelled";    ///< the call was cancelled
inline constexpr std::string_view tool_name_taken = "tool.name_taken";  ///< a run-time toolbox already has a tool of that name
inline constexpr std::string_view capability_unsupported = "capability.unsupported";  ///< deferred tool
inline constexpr std::string_view request_invalid = "request.invalid";  ///< a malformed request envelope
inline constexpr std::string_view client_capability_missing = "client.capability_missing";  ///< the caller lacks a capability the tool needs
inline constexpr std::string_view auth_required = "auth.required";  ///< a remote server refused the credentials it got (HTTP 401/403): configure its token
inline constexpr std::string_view url_elicitation_required = "client.url_elicitation_required";  ///< the call can go on once the user has opened URLs (MCP 2025-11-25 -32042; details.elicitations)
inline constexpr std::string_view input_required = "client.input_required";  ///< the call waits for the client's input (MCP 2026-07-28: an input_required result)
// protocol and transport
inline constexpr std::string_view protocol_error = "protocol.error";    ///< peer spoke malformed protocol
inline constexpr std::string_view transport_closed = "transport.closed";///< the connection is gone
inline constexpr std::string_view transport_io = "transport.io";        ///< an I/O error on the transport
inline constexpr std::string_view timeout = "timeout";                  ///< an operation ran out of time
inline constexpr std::string_view cancelled = "cancelled";              ///< the caller cancelled an operation (a stop token, cancel())
inline constexpr std::string_view remote_error = "remote.error";        ///< a remote MCP server answered with a JSON-RPC error (details: server, code, data)
inline constexpr std::string_view cdp_error = "cdp.error";              ///< the browser answered with an error
// browser
inline constexpr std::string_view browser_launch = "browser.launch";    ///< the browser could not be started
inline constexpr std::string_view browser_crashed = "browser.crashed";  ///< the browser or renderer died
inline constexpr std::string_view ref_stale = "ref.stale";              ///< an element ref no longer resolves
inline constexpr std::string_view ref_unknown = "ref.unknown";          ///< an element ref was never issued
inline constexpr std::string_view element_covered = "element.covered";  ///< another element takes the click
inline constexpr std::string_view element_not_visible = "element.not_visible";  ///< the element has no visible box to act on
inline constexpr std::string_view dialog_open = "browser.dialog_open";  ///< a dialog left open (dialog_policy::hold) holds the page until it is answered
inline constexpr std::string_view navigation_failed = "navigation.failed";  ///< a navigation failed (load error, or no page to go back or forward to)
inline constexpr std::string_view policy_blocked = "policy.blocked";    ///< a policy rule refused the action
inline constexpr std::string_view not_found = "not_found";              ///< a looked-up item does not exist
inline constexpr std::string_view budget_exceeded = "budget.exceeded";  ///< a size limit was reached (an artifact larger than the store allows)
// model providers (session)
inline constexpr std::string_view provider_rate_limited = "provider.rate_limited";  ///< HTTP 429 / rate_limit_error
inline constexpr std::string_view provider_overloaded = "provider.overloaded";      ///< HTTP 529 / overloaded_error / 503
inline constexpr std::string_view provider_auth = "provider.auth";                  ///< HTTP 401/403: key missing or wrong
inline constexpr std::string_view provider_invalid = "provider.invalid_request";    ///< HTTP 400/404/413/422
inline constexpr std::string_view provider_error = "provider.error";                ///< HTTP 5xx, api_error, network
inline constexpr std::string_view provider_malformed = "provider.malformed";        ///< a body we could not read
// web search backends (search/)
inline constexpr std::string_view search_unconfigured = "search.unconfigured";  ///< no search backend, or one without its key
inline constexpr std::string_view search_auth = "search.auth";                  ///< HTTP 401/403 from a search backend: the key is wrong or lacks access
inline constexpr std::string_view search_rate_limited = "search.rate_limited";  ///< HTTP 429 from a search backend, after its one bounded retry
inline constexpr std::string_view search_failed = "search.failed";              ///< a search backend answered another error status (4xx, 5xx)
inline constexpr std::string_view search_malformed = "search.malformed";        ///< a search backend's answer could not be read (not JSON, truncated, wrong shape)
// general
inline constexpr std::string_view internal = "internal";                ///< a bug in agentkit; please report
}  // namespace errc

/// A structured error. Cheap to move; compare by `code`.
struct error {
    std::string code;  ///< the stable dotted code, one of errc
    std::string message;  ///< what went wrong, in one or two sentences
    std::string hint;  ///< what the caller should do next (empty: nothing to add)
    json details;  ///< null when there is nothing structured to add

    error() = default;
    /// A new error; `details` is null when left out.
    error(std::string_view code_, std::string message_, std::string hint_ = {}, json details_ = nullptr)
        : code(code_), message(std::move(message_)), hint(std::move(hint_)), details(std::move(details_)) {}

    /// True when this error has the given code.
    [[nodiscard]] bool is(std::string_view c) const noexcept { return code == c; }

    /// `{"code":..,"message":..,"hint":..,"details":..}` (hint/details omitted when empty).
    [[nodiscard]] json to_json() const {
        json j = json::object();
        j["code"] = code;
        j["message"] = message;
        if (!hint.empty()) j["hint"] = hint;
        if (!details.is_null()) j["details"] = details;
        return j;
    }

    /// One line for a model: `error[code]: message Hint: hint` (a message that ends its own
    /// lines, a quoted block of page text, puts the hint on a line of its own).
    [[nodiscard]] std::string to_text() const {
        std::string s;
        s.reserve(code.size() + message.size() + hint.size() + 16);
        s += "error[";
        s += code;
        s += "]: ";
        s += message;
        if (!hint.empty()) {
            s += message.empty() || message.back() != '\n' ? " Hint: " : "Hint: ";  // after a quoted block: its own line
            s += hint;
        }
        return s;
    }

    /// Rebuild from the JSON produced by to_json(); unknown shapes become `internal`.
    [[nodiscard]] static error from_json(const json& j) {
        if (!j.is_object() || !j.contains("code") || !j["code"].is_string())
            return error(errc::internal, "malformed error object", {}, j);
        error e;
        e.code = j["code"].get<std::string>();
        if (auto it = j.find("message"); it != j.end() && it->is_string()) e.message = it->get<std::string>();
        if (auto it = j.find("hint"); it != j.end() && it->is_string()) e.hint = it->get<std::string>();
        if (auto it = j.find("details"); it != j.end()) e.details = *it;
        return e;
    }

    friend bool operator==(const error& a, const error& b) {
        return a.code == b.code && a.message == b.message && a.hint == b.hint && a.details == b.details;
    }
};

/// Replace every occurrence of `secret` in `s` with "[redacted]" (no-op for an empty secret).
inline void scrub_secret(std::string& s, std::string_view secret) {
    if (secret.empty()) return;
    for (std::size_t at = s.find(secret); at != std::string::npos; at = s.find(secret, at)) s.replace(at, secret.size(), "[redacted]");
}

/// `e` with `secret` scrubbed from its message, hint and details (a service that echoes a key back in an
/// error must not make agentkit show it).
[[nodiscard]] inline error scrub_secret(error e, std::string_view secret) {
    if (secret.empty()) return e;
    scrub_secret(e.message, secret);
    scrub_secret(e.hint, secret);
    if (!e.details.is_null()) {
        std::string d = e.details.dump();
        if (d.find(secret) != std::string::npos) {
            scrub_secret(d, secret);
            e.details = json::parse(d, nullptr, false);
            if (e.details.is_discarded()) e.details = nullptr;
        }
    }
    return e;
}

}  // namespace agentkit
