// agentkit/tools/output.hpp — what a tool returns: content blocks plus is_error.
#pragma once

#include <agentkit/core/error.hpp>
#include <agentkit/core/json.hpp>

#include <cstddef>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace agentkit {

/// A reference to an artifact kept out of band (a screenshot, a log, text a budget cut).
struct artifact_ref {
    std::string id;           ///< the store's id, e.g. "a7"
    std::string uri;          ///< how a client fetches it, e.g. "agentkit://artifacts/a7"
    std::string mime_type;    ///< "image/png", "text/plain", ...
    std::string name;         ///< a short human name
    std::size_t size = 0;     ///< bytes
    std::string description;  ///< one line: what it is
};

/// One block of tool output.
struct content_block {
    enum class kind { text, image, artifact, structured, tool_reference };
    kind type = kind::text;
    std::string text;       ///< text, base64 data for images, or the tool name of a tool_reference
    std::string mime_type;  ///< images
    artifact_ref artifact;  ///< artifacts
    json data;              ///< structured JSON

    [[nodiscard]] static content_block make_text(std::string t) {
        content_block b;
        b.type = kind::text;
        b.text = std::move(t);
        return b;
    }
    [[nodiscard]] static content_block make_image(std::string base64, std::string mime) {
        content_block b;
        b.type = kind::image;
        b.text = std::move(base64);
        b.mime_type = std::move(mime);
        return b;
    }
    [[nodiscard]] static content_block make_artifact(artifact_ref ref) {
        content_block b;
        b.type = kind::artifact;
        b.mime_type = ref.mime_type;
        b.artifact = std::move(ref);
        return b;
    }
    /// A reference to a tool that becomes available (Anthropic `tool_reference`; other
    /// providers see a line of text naming it).
    [[nodiscard]] static content_block make_tool_reference(std::string tool_name) {
        content_block b;
        b.type = kind::tool_reference;
        b.text = std::move(tool_name);
        return b;
    }
    [[nodiscard]] static content_block make_structured(json j) {
        content_block b;
        b.type = kind::structured;
        b.data = std::move(j);
        return b;
    }
};

/// The result of a tool call as the model will see it.
struct tool_output {
    std::vector<content_block> content;
    std::optional<json> structured;  ///< typed output (MCP structuredContent), when the tool has one
    bool is_error = false;

    [[nodiscard]] static tool_output text(std::string t) {
        tool_output o;
        o.content.push_back(content_block::make_text(std::move(t)));
        return o;
    }
    /// A failure the model should see and act on (not a transport error).
    [[nodiscard]] static tool_output from_error(const error& e) {
        tool_output o;
        o.is_error = true;
        o.content.push_back(content_block::make_text(e.to_text()));
        o.structured = json{{"error", e.to_json()}};
        return o;
    }
    tool_output& add_text(std::string t) {
        content.push_back(content_block::make_text(std::move(t)));
        return *this;
    }
    tool_output& add_image(std::string base64, std::string mime) {
        content.push_back(content_block::make_image(std::move(base64), std::move(mime)));
        return *this;
    }
    tool_output& add_artifact(artifact_ref ref) {
        content.push_back(content_block::make_artifact(std::move(ref)));
        return *this;
    }
    /// All text blocks joined with newlines (images and artifacts as one-line mentions).
    [[nodiscard]] std::string joined_text() const {
        std::string s;
        for (const auto& b : content) {
            if (!s.empty()) s += '\n';
            switch (b.type) {
                case content_block::kind::text: s += b.text; break;
                case content_block::kind::image: s += "[image " + b.mime_type + "]"; break;
                case content_block::kind::artifact:
                    s += "[artifact " + b.artifact.id + " " + b.artifact.mime_type + " " +
                         std::to_string(b.artifact.size) + " bytes]";
                    break;
                case content_block::kind::structured: s += b.data.dump(); break;
                case content_block::kind::tool_reference: s += "[tool " + b.text + " is now available]"; break;
            }
        }
        return s;
    }
};

}  // namespace agentkit
