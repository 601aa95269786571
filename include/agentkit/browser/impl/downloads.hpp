// agentkit/browser/impl/downloads.hpp — browser: downloads: the list of this session's downloads and waiting for them.
// Part of browser.hpp (which includes it at its end); not an entry point of its own.
#pragma once

#include <agentkit/browser/browser.hpp>

namespace agentkit::browser {

AGENTKIT_DECL auto browser::downloads(bool in_progress) -> std::vector<download_record> {
    std::lock_guard op(op_mu_);
    std::vector<download_record> out;
    if (!eng_) return out;
    std::lock_guard lock(eng_->mu);
    for (const auto& [seq, d] : eng_->downloads) out.push_back(d);
    if (in_progress)
        for (const auto& [guid, d] : eng_->pending_downloads) {
            out.push_back(d);
            out.back().state = "in progress";
        }
    return out;
}

AGENTKIT_DECL auto browser::wait_downloads(std::size_t count, std::chrono::milliseconds timeout) -> std::vector<download_record> {
    {
        std::lock_guard op(op_mu_);
        if (!eng_) return {};
        std::unique_lock lock(eng_->mu);
        eng_->cv.wait_for(lock, timeout, [&] { return eng_->downloads.size() >= count || !eng_->conn.is_open(); });
    }
    return downloads();
}

AGENTKIT_DECL auto browser::sanitize_filename(std::string n) -> std::string {
    std::string o;
    for (char c : n) {
        const auto u = static_cast<unsigned char>(c);
        o += (std::isalnum(u) || c == '.' || c == '-' || c == '_' || c == ' ' || u >= 0x80) ? c : '_';
    }
    while (!o.empty() && (o.front() == '.' || o.front() == ' ')) o.erase(o.begin());
    while (!o.empty() && (o.back() == '.' || o.back() == ' ')) o.pop_back();
    if (o.size() > 120) o = o.substr(o.size() - 120);
    return o.empty() ? std::string("download") : o;
}

AGENTKIT_DECL auto browser::cancel_download(engine& e, const std::string& guid) -> void {
    e.conn.call_async("Browser.cancelDownload", json{{"guid", guid}, {"browserContextId", e.context_id}}, {}, [](result<json>) {});
}
}  // namespace agentkit::browser
