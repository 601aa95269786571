// agentkit/browser/impl/recording.hpp — browser: screen recordings (screencast frames).
// Part of browser.hpp (which includes it at its end); not an entry point of its own.
#pragma once

#include <agentkit/browser/browser.hpp>

namespace agentkit::browser {

AGENTKIT_DECL auto browser::start_recording(recording_options o) -> result<void> {
    std::lock_guard op(op_mu_);
    auto e = ensure();
    if (!e) return fail(e.error());
    auto t = current_tab();
    if (!t) return fail(t.error());
    {
        std::lock_guard lock(eng_->mu);
        if (eng_->recording) return fail(errc::args_invalid, "a recording is already running", "Stop it first.");
        eng_->recording = true;
        eng_->recording_session = (*t)->session;
        eng_->frames.clear();
        eng_->frames_dropped = 0;
    }
    recording_started_ = clock::now();
    auto r = call((*t)->session, "Page.startScreencast",
                  json{{"format", "jpeg"}, {"quality", std::clamp(o.quality, 1, 100)}, {"maxWidth", std::max(16, o.max_width)},
                       {"maxHeight", std::max(16, o.max_height)}, {"everyNthFrame", 1}});
    if (!r) {
        std::lock_guard lock(eng_->mu);
        eng_->recording = false;
        return fail(r.error());
    }
    return {};
}

AGENTKIT_DECL auto browser::stop_recording() -> result<recording> {
    std::lock_guard op(op_mu_);
    if (!eng_) return fail(errc::not_found, "no recording is running", "Start one with start_recording.");
    std::string session;
    {
        std::lock_guard lock(eng_->mu);
        if (!eng_->recording) return fail(errc::not_found, "no recording is running", "Start one with start_recording.");
        session = eng_->recording_session;
    }
    bool live = false;
    {
        std::lock_guard lock(live_mu_);
        live = live_session_ == session && live_capture_;
    }
    if (!live) (void)call(session, "Page.stopScreencast");  // a live view still watching keeps it
    recording out;
    {
        std::lock_guard lock(eng_->mu);
        eng_->recording = false;
        for (auto& [ts, data] : eng_->frames) out.frames.push_back(recording_frame{ts, std::move(data)});
        eng_->frames.clear();
        out.dropped = std::exchange(eng_->frames_dropped, 0);
    }
    out.seconds = std::chrono::duration<double>(clock::now() - recording_started_).count();
    if (out.frames.empty()) {  // nothing changed on screen: one frame of the final state
        auto shot = call(session, "Page.captureScreenshot", json{{"format", "jpeg"}, {"quality", 60}});
        if (shot && !detail::jstr(*shot, "data").empty()) {
            out.frames.push_back(recording_frame{0, detail::jstr(*shot, "data")});
            out.notes.push_back("the screen did not change during the recording; one frame of its final state");
        }
    }
    return out;
}
}  // namespace agentkit::browser
