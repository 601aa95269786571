// agentkit/format/formatter.hpp — the formatter policy of an agent_session: what a tool result
// looks like by the time the model sees it.
//
// A formatter is any type with `format(tool_output, const format_context&) const -> tool_output`.
// compact_formatter applies the budgets, in tokens: a per-kind cap (snapshot, page text,
// extraction, search, log) and the hard total cap, parking what it cuts in the artifact store
// when one is given, and a policy for images (keep / store as artifacts / drop). plain_formatter
// passes results through untouched.
//
//   agentkit::compact_formatter f;
//   f.limits.total = 5000;  // tokens
//   f.set_kind("read_page", agentkit::result_kind::page_text);
#pragma once

#include <agentkit/tools/tool.hpp>
#include <agentkit/format/artifacts.hpp>
#include <agentkit/format/budget.hpp>
#include <agentkit/tools/output.hpp>

#include <concepts>
#include <cstddef>
#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <utility>

namespace agentkit {

/// What a formatter knows about the call whose result it formats.
struct format_context {
    std::string_view tool;              ///< the tool's name
    const tool_info* info = nullptr;    ///< its description, when it is a host tool
    artifact_sink_ref artifacts{};      ///< where cut text and stored images go (may be empty)
    std::string_view reader_tool;       ///< the host's artifact-reading tool, named in cut notes ("" = none)
};

/// Anything that turns a tool's output into what the model sees:
/// `tool_output format(tool_output, const format_context&) const`.
template <class F>
concept result_formatter = requires(const F& f, tool_output o, const format_context& c) {
    { f.format(std::move(o), c) } -> std::same_as<tool_output>;
};

/// Passes results through unchanged.
struct plain_formatter {
    /// Returns `o` as it is.
    [[nodiscard]] tool_output format(tool_output o, const format_context&) const { return o; }
};

/// What compact_formatter does with images in a result.
enum class image_policy {
    keep,   ///< images go to the model (up to max_images; the rest are stored or described)
    store,  ///< images go to the artifact store; the model sees a one-line mention with the id
    drop,   ///< images are replaced by a one-line description
};

/// The default formatter: caps each result's text by its kind (budgets), cutting with a note and storing the
/// rest, and handles images.
class compact_formatter {
public:
    budgets limits{};            ///< the token caps per result kind
    token_counter tokens{};      ///< how the caps count (heuristic_tokens unless set)
    image_policy images = image_policy::keep;  ///< what happens to images
    std::size_t max_images = 2;  ///< per result, with image_policy::keep

    /// Classify a tool's results (overrides the name heuristics).
    compact_formatter& set_kind(std::string tool, result_kind k) {
        kinds_[std::move(tool)] = k;
        return *this;
    }

    /// The kind of a tool's results: an explicit set_kind, else a guess from the name
    /// (snapshot, extract, search, log/console/network, read/text/content). An artifact reader
    /// (a name with "artifact") is generic: it reads back what a cut stored, by the length asked
    /// for, and must not be cut to a page-text cap again.
    [[nodiscard]] result_kind kind_of(std::string_view tool) const {
        if (auto it = kinds_.find(tool); it != kinds_.end()) return it->second;
        auto has = [&](std::string_view w) { return tool.find(w) != std::string_view::npos; };
        if (has("artifact")) return result_kind::generic;
        if (has("snapshot")) return result_kind::snapshot;
        if (has("extract")) return result_kind::extraction;
        if (has("search")) return result_kind::search;
        if (has("log") || has("console") || has("network")) return result_kind::log;
        if (has("read") || has("text") || has("content")) return result_kind::page_text;
        return result_kind::generic;
    }

    /// Apply the image policy, then cut the text to the cap of the tool's result kind (the rest is stored
    /// when `c.artifacts` is set); the text of a result its tool already fitted (tool_output::fitted)
    /// is left as it is.
    [[nodiscard]] tool_output format(tool_output o, const format_context& c) const {
        handle_images(o, c);
        if (o.fitted) return o;  // the tool's own budget already cut it, in its own order
        const result_kind k = kind_of(c.tool);
        const std::size_t cap = limits.cap(k);
        std::size_t text_size = 0;
        for (const auto& b : o.content) text_size += block_tokens(b);
        if (text_size <= cap) return o;
        // Merge every textual block into one (images and tool references keep their place)
        // and cut it with a note that says what was cut and where the rest is.
        std::string merged;
        std::vector<content_block> kept;
        std::size_t text_pos = o.content.size();
        for (std::size_t i = 0; i < o.content.size(); ++i) {
            auto& b = o.content[i];
            if (b.type == content_block::kind::image || b.type == content_block::kind::tool_reference) {
                kept.push_back(std::move(b));
                continue;
            }
            if (text_pos == o.content.size()) text_pos = kept.size();
            if (!merged.empty()) merged += '\n';
            merged += block_text(b);
        }
        std::size_t other = 0;
        for (const auto& b : kept) other += block_tokens(b);
        const std::size_t room = cap > other ? cap - other : 0;
        std::string what = std::string(to_string(k));
        if (!c.tool.empty()) what += " of " + std::string(c.tool);
        content_block t = content_block::make_text(cap_tokens(merged, room, tokens, what, c.artifacts, nullptr, {}, c.reader_tool));
        if (text_pos > kept.size()) text_pos = kept.size();
        kept.insert(kept.begin() + static_cast<std::ptrdiff_t>(text_pos), std::move(t));
        o.content = std::move(kept);
        return o;
    }

private:
    [[nodiscard]] static std::string block_text(const content_block& b) {
        switch (b.type) {
            case content_block::kind::text: return b.text;
            case content_block::kind::structured: return b.data.dump();
            case content_block::kind::artifact:
                return "[artifact " + b.artifact.id + " " + b.artifact.mime_type + " " + group_digits(b.artifact.size) +
                       " bytes" + (b.artifact.name.empty() ? std::string() : ": " + b.artifact.name) + "]";
            case content_block::kind::tool_reference: return "[tool " + b.text + " is now available]";
            case content_block::kind::image: return "[image " + b.mime_type + "]";
        }
        return {};
    }
    [[nodiscard]] std::size_t block_tokens(const content_block& b) const {
        if (b.type == content_block::kind::image) return 0;  // images are budgeted by count, not tokens
        if (b.type == content_block::kind::text) return tokens.count(b.text);
        return tokens.count(block_text(b));
    }

    void handle_images(tool_output& o, const format_context& c) const {
        std::size_t seen = 0;
        for (auto& b : o.content) {
            if (b.type != content_block::kind::image) continue;
            ++seen;
            const bool keep = images == image_policy::keep && seen <= max_images;
            if (keep) continue;
            const std::size_t approx_bytes = b.text.size() / 4 * 3;
            std::string line;
            if (images != image_policy::drop && c.artifacts) {
                artifact_blob blob;
                blob.mime_type = b.mime_type;
                blob.name = "image from " + std::string(c.tool);
                blob.description = blob.name;
                blob.data = b.text;
                blob.base64 = true;
                if (auto ref = c.artifacts.put(std::move(blob))) {
                    line = "[image " + b.mime_type + " (" + group_digits(approx_bytes) + " bytes) stored as artifact " +
                           ref->id + " (" + ref->uri + ")]";
                }
            }
            if (line.empty())
                line = "[image " + b.mime_type + " (" + group_digits(approx_bytes) + " bytes) from " +
                       std::string(c.tool) + " not shown]";
            b = content_block::make_text(std::move(line));
        }
    }

    std::map<std::string, result_kind, std::less<>> kinds_;
};

static_assert(result_formatter<plain_formatter>);
static_assert(result_formatter<compact_formatter>);

}  // namespace agentkit
