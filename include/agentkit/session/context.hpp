// agentkit/session/context.hpp — the context manager: what of the history goes into the next
// request.
//
// The full history is kept; each request is built from a prepared copy in which
//   * every tool result but the newest `keep_whole` (and those the model has not seen yet)
//     is compressed to head + tail with a marker
//     (defaults 1,400 + 500 chars: enough to recall a result, far less than re-sending it);
//   * images in those older results become one line ("[image image/png from screenshot,
//     omitted from an older result]");
//   * when a token budget is set, the oldest turns are dropped until the rest fits — whole turns
//     only (an assistant message with its tool calls and the message with their results), so
//     every tool call stays paired with its result; the first user message (the task) is kept.
// Tokens are counted per message with the session's token_counter.
#pragma once

#include <agentkit/core/tokens.hpp>
#include <agentkit/format/budget.hpp>
#include <agentkit/session/message.hpp>
#include <agentkit/core/strings.hpp>

#include <cstddef>
#include <string>
#include <vector>

namespace agentkit {

/// How prepare_context() shortens a history (see the file comment).
struct context_options {
    std::size_t head = 1400;          ///< chars kept from the start of an older result
    std::size_t tail = 500;           ///< chars kept from its end
    std::size_t keep_whole = 1;       ///< newest results kept whole
    bool strip_old_images = true;     ///< images in older results become a one-line description
    std::size_t token_budget = 0;     ///< 0 = no trimming
    std::size_t image_tokens = default_image_tokens;  ///< tokens an image counts for in the estimate
};

/// What prepare_context() did.
struct context_stats {
    std::size_t tokens_before = 0;       ///< the history's estimated tokens
    std::size_t tokens_after = 0;        ///< the prepared copy's estimated tokens
    std::size_t compressed_results = 0;  ///< older tool results cut to head + tail
    std::size_t stripped_images = 0;     ///< images replaced by a one-line description
    std::size_t dropped_messages = 0;    ///< messages dropped to fit the token budget
    std::size_t dropped_turns = 0;       ///< whole turns dropped to fit the token budget
};

/// Prepare a history for the next request (see the file comment). Never reorders messages.
[[nodiscard]] inline std::vector<message> prepare_context(const std::vector<message>& history, const context_options& o,
                                                          const token_counter& tc, context_stats* stats = nullptr) {
    context_stats st;
    std::vector<message> out = history;
    for (const auto& m : out) st.tokens_before += message_tokens(m, tc, o.image_tokens);

    // 1. Compress every result but the newest keep_whole. Results the model has not seen yet
    //    (the newest message with results) are always kept whole.
    std::size_t seen = 0;
    bool newest_message = true;
    for (auto mi = out.rbegin(); mi != out.rend(); ++mi) {
        if (mi->results.empty()) continue;
        const bool unseen = newest_message;
        newest_message = false;
        for (auto ri = mi->results.rbegin(); ri != mi->results.rend(); ++ri) {
            if (++seen <= o.keep_whole || unseen) continue;
            bool changed = false;
            for (auto& b : ri->output.content) {
                if (b.type == content_block::kind::image && o.strip_old_images) {
                    b = content_block::make_text("[image " + b.mime_type + " from " + ri->name +
                                                 ", omitted from an older result]");
                    ++st.stripped_images;
                    changed = true;
                } else if (b.type == content_block::kind::text) {
                    std::string c = head_tail(b.text, o.head, o.tail, "call " + ri->name + " again to see it");
                    if (c.size() != b.text.size()) {
                        b.text = std::move(c);
                        changed = true;
                    }
                } else if (b.type == content_block::kind::structured) {
                    std::string d = b.data.dump();
                    std::string c = head_tail(d, o.head, o.tail, "call " + ri->name + " again to see it");
                    if (c.size() != d.size()) {
                        b = content_block::make_text(std::move(c));
                        changed = true;
                    }
                }
            }
            if (changed) {
                // The assistant message's raw echo is untouched; results are always rebuilt.
                ++st.compressed_results;
            }
        }
    }

    // 2. Trim whole turns, oldest first, down to the budget.
    if (o.token_budget > 0 && out.size() > 2) {
        std::vector<std::size_t> tokens(out.size());
        std::size_t total = 0;
        for (std::size_t i = 0; i < out.size(); ++i) total += tokens[i] = message_tokens(out[i], tc, o.image_tokens);
        // Turn starts: every assistant message after the first message.
        std::vector<std::size_t> starts;
        for (std::size_t i = 1; i < out.size(); ++i)
            if (out[i].role == role::assistant) starts.push_back(i);
        // Never drop the newest turn.
        std::size_t drop_until = 1;  // messages [1, drop_until) are dropped
        std::size_t dropped_turns = 0;
        for (std::size_t t = 0; t + 1 < starts.size() && total > o.token_budget; ++t) {
            const std::size_t end = starts[t + 1];
            for (std::size_t i = drop_until; i < end; ++i) total -= tokens[i];
            drop_until = end;
            ++dropped_turns;
        }
        if (dropped_turns > 0) {
            // Messages between the task and the first turn (user text after the task) go too.
            st.dropped_messages = drop_until - 1;
            st.dropped_turns = dropped_turns;
            out.erase(out.begin() + 1, out.begin() + static_cast<std::ptrdiff_t>(drop_until));
            out.front().text += "\n\n[context: " + count_noun(dropped_turns, "earlier turn") + " removed to fit the context budget]";
        }
    }
    for (const auto& m : out) st.tokens_after += message_tokens(m, tc, o.image_tokens);
    if (stats) *stats = st;
    return out;
}

}  // namespace agentkit
