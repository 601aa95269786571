// Shared by agentkit-demo and agentkit-web-eval: what a scripted "model" needs to act on a
// real page the way a model does — read the newest tool result out of the request it is sent
// (in each provider's own format) and pick element refs from the snapshot text in it, never
// from hard-coded refs — plus `any_model`, a type-erased model so a host can plug in a real
// one (agentkit::model_client) where the scripted one is used.
#pragma once

#include <agentkit/agentkit.hpp>

#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace demo {

namespace ak = agentkit;

namespace detail {
inline void append_text_parts(const ak::json& content, std::string& out) {
    if (content.is_string()) {
        out += content.get<std::string>();
        return;
    }
    if (!content.is_array()) return;
    for (const auto& part : content) {
        if (!part.is_object()) continue;
        auto t = part.find("text");
        if (t != part.end() && t->is_string()) {
            if (!out.empty() && out.back() != '\n') out += '\n';
            out += t->get<std::string>();
        }
    }
}
}  // namespace detail

/// The text of every tool result of the newest turn in `request` (joined by newlines), in the
/// provider's format: Anthropic tool_result blocks, Chat Completions `tool` messages, Responses
/// function_call_output items. Empty when the request carries no tool result yet.
[[nodiscard]] inline std::string last_tool_results(ak::provider p, const ak::json& request) {
    std::string out;
    if (!request.is_object()) return out;
    if (p == ak::provider::anthropic) {
        auto m = request.find("messages");
        if (m == request.end() || !m->is_array()) return out;
        for (auto it = m->rbegin(); it != m->rend(); ++it) {
            if (!it->is_object() || it->value("role", "") != "user") continue;
            auto c = it->find("content");
            if (c == it->end() || !c->is_array()) continue;
            bool any = false;
            for (const auto& b : *c) {
                if (!b.is_object() || b.value("type", "") != "tool_result") continue;
                any = true;
                if (auto rc = b.find("content"); rc != b.end()) detail::append_text_parts(*rc, out);
                out += '\n';
            }
            if (any) return out;
        }
        return out;
    }
    const bool chat = p == ak::provider::openai_chat;
    auto items = request.find(chat ? "messages" : "input");
    if (items == request.end() || !items->is_array()) return out;
    // the trailing run of tool outputs (a state message may follow them)
    std::vector<const ak::json*> run;
    for (auto it = items->rbegin(); it != items->rend(); ++it) {
        const bool is_result = it->is_object() && (chat ? it->value("role", "") == "tool"
                                                        : it->value("type", "") == "function_call_output");
        if (is_result) run.push_back(&*it);
        else if (!run.empty()) break;
    }
    for (auto it = run.rbegin(); it != run.rend(); ++it) {
        const ak::json& r = **it;
        if (auto c = r.find(chat ? "content" : "output"); c != r.end()) detail::append_text_parts(*c, out);
        out += '\n';
    }
    return out;
}

/// The ref of the first snapshot line showing `role "name…"`, e.g. find_ref(text, "textbox",
/// "Name") on `textbox "Name" [ref=e3]` gives "e3".
[[nodiscard]] inline std::optional<std::string> find_ref(std::string_view text, std::string_view role,
                                                         std::string_view name) {
    const std::string needle = std::string(role) + " \"" + std::string(name);
    std::size_t pos = 0;
    while (pos < text.size()) {
        std::size_t end = text.find('\n', pos);
        if (end == std::string_view::npos) end = text.size();
        const std::string_view line = text.substr(pos, end - pos);
        pos = end + 1;
        if (line.find(needle) == std::string_view::npos) continue;
        const std::size_t r = line.find("[ref=");
        if (r == std::string_view::npos) continue;
        const std::size_t close = line.find(']', r);
        if (close == std::string_view::npos) continue;
        return std::string(line.substr(r + 5, close - r - 5));
    }
    return std::nullopt;
}

/// The rest of the first line containing `marker` (after it), trimmed; nullopt when absent.
[[nodiscard]] inline std::optional<std::string> line_after(std::string_view text, std::string_view marker) {
    const std::size_t at = text.find(marker);
    if (at == std::string_view::npos) return std::nullopt;
    std::size_t end = text.find('\n', at);
    if (end == std::string_view::npos) end = text.size();
    std::string s(text.substr(at + marker.size(), end - at - marker.size()));
    while (!s.empty() && (s.back() == ' ' || s.back() == '\r' || s.back() == '"')) s.pop_back();
    while (!s.empty() && (s.front() == ' ' || s.front() == '"' || s.front() == ':')) s.erase(s.begin());
    return s;
}

/// Any model behind one type: a function from request to response body, and the provider
/// whose format both speak. A scripted_model, an HTTP client (agentkit::model_client), a
/// recorded fixture... A model that streams tool calls or can be cancelled keeps doing so
/// behind it (any_model is a streaming_model and a cancellable_model; for a model that is
/// neither, the tool-call callback is never called and cancel() does nothing).
class any_model {
public:
    /// Refer to `m` (which must outlive this any_model).
    template <class M>
        requires ak::provider_aware_model<M>
    explicit any_model(M& m) : any_model(std::shared_ptr<M>(std::shared_ptr<M>{}, &m)) {}
    /// Share ownership of `m`.
    template <class M>
        requires ak::provider_aware_model<M>
    explicit any_model(std::shared_ptr<M> m) : provider_(m->provider()), complete_([m](const ak::json& r) { return m->complete(r); }) {
        if constexpr (ak::streaming_model<M>)
            stream_ = [m](const ak::json& r, const std::function<void(const ak::json&)>& f) { return m->complete(r, f); };
        if constexpr (ak::cancellable_model<M>) cancel_ = [m] { m->cancel(); };
    }
    /// A function answering in provider `p`'s format.
    any_model(ak::provider p, std::function<ak::result<ak::json>(const ak::json&)> f)
        : provider_(p), complete_(std::move(f)) {}

    [[nodiscard]] ak::provider provider() const noexcept { return provider_; }
    [[nodiscard]] ak::result<ak::json> complete(const ak::json& request) { return complete_(request); }
    /// Streamed when the model streams: `on_tool_call` gets each tool call as soon as it is complete.
    [[nodiscard]] ak::result<ak::json> complete(const ak::json& request, const std::function<void(const ak::json&)>& on_tool_call) {
        return stream_ ? stream_(request, on_tool_call) : complete_(request);
    }
    /// Cancel the model's request in flight (when it can be cancelled).
    void cancel() noexcept {
        if (cancel_) {
            try {
                cancel_();
            } catch (...) {
            }
        }
    }

private:
    ak::provider provider_;
    std::function<ak::result<ak::json>(const ak::json&)> complete_;
    std::function<ak::result<ak::json>(const ak::json&, const std::function<void(const ak::json&)>&)> stream_;
    std::function<void()> cancel_;
};
static_assert(ak::provider_aware_model<any_model> && ak::streaming_model<any_model> && ak::cancellable_model<any_model>);

}  // namespace demo
