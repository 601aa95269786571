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
    /// Embedded contents. When one is set the block carries the resource itself, not only a
    /// link: MCP sends it as an embedded resource, {"type": "resource", "resource": {uri,
    /// mimeType, text | blob}}, instead of a resource_link. Other consumers mention it as an
    /// artifact, like a link.
    std::optional<std::string> text;  ///< UTF-8 text contents
    std::optional<std::string> blob;  ///< base64 binary contents (used when `text` is not set)

    /// True when the contents travel with the reference (an embedded resource).
    [[nodiscard]] bool embedded() const noexcept { return text.has_value() || blob.has_value(); }
};

/// One block of tool output.
struct content_block {
    /// What a block holds.
    enum class kind { text, image, artifact, structured, tool_reference };
    kind type = kind::text;  ///< which of the fields below hold the block's contents
    std::string text;       ///< text, base64 data for images, or the tool name of a tool_reference
    std::string mime_type;  ///< images
    artifact_ref artifact;  ///< artifacts
    json data;              ///< structured JSON

    /// A text block.
    [[nodiscard]] static content_block make_text(std::string t) {
        content_block b;
        b.type = kind::text;
        b.text = std::move(t);
        return b;
    }
    /// An image block: base64-encoded data of the given MIME type.
    [[nodiscard]] static content_block make_image(std::string base64, std::string mime) {
        content_block b;
        b.type = kind::image;
        b.text = std::move(base64);
        b.mime_type = std::move(mime);
        return b;
    }
    /// A block referring to an artifact (a resource_link, or an embedded resource when `ref` has contents).
    [[nodiscard]] static content_block make_artifact(artifact_ref ref) {
        content_block b;
        b.type = kind::artifact;
        b.mime_type = ref.mime_type;
        b.artifact = std::move(ref);
        return b;
    }
    /// An embedded text resource (MCP `{"type": "resource"}` with `text`): `uri` names it
    /// (required by MCP), the contents travel in the result.
    [[nodiscard]] static content_block make_resource(std::string uri, std::string mime, std::string text,
                                                     std::string name = {}) {
        artifact_ref r;
        r.uri = std::move(uri);
        r.mime_type = std::move(mime);
        r.name = std::move(name);
        r.size = text.size();
        r.text = std::move(text);
        return make_artifact(std::move(r));
    }
    /// An embedded binary resource (MCP `{"type": "resource"}` with `blob`, base64).
    [[nodiscard]] static content_block make_resource_blob(std::string uri, std::string mime, std::string base64,
                                                          std::string name = {}) {
        artifact_ref r;
        r.uri = std::move(uri);
        r.mime_type = std::move(mime);
        r.name = std::move(name);
        r.size = base64.size() / 4 * 3;  // about the decoded size
        r.blob = std::move(base64);
        return make_artifact(std::move(r));
    }
    /// A reference to a tool that becomes available (Anthropic `tool_reference`; other
    /// providers see a line of text naming it).
    [[nodiscard]] static content_block make_tool_reference(std::string tool_name) {
        content_block b;
        b.type = kind::tool_reference;
        b.text = std::move(tool_name);
        return b;
    }
    /// A block of structured JSON.
    [[nodiscard]] static content_block make_structured(json j) {
        content_block b;
        b.type = kind::structured;
        b.data = std::move(j);
        return b;
    }
};

/// The result of a tool call as the model will see it.
struct tool_output {
    std::vector<content_block> content;  ///< the blocks, in order
    std::optional<json> structured;  ///< typed output (MCP structuredContent), when the tool has one
    bool is_error = false;           ///< the call failed: the blocks describe the error for the model
    /// The tool already fitted its text to its own budget (cut in its own priority order, the
    /// rest stored, e.g. every browser tool): a result formatter leaves the text as it is and
    /// handles only the images. Not sent anywhere; false for a tool that leaves fitting to the host.
    bool fitted = false;

    /// Output of one text block.
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
    /// Append a text block; returns `*this`.
    tool_output& add_text(std::string t) {
        content.emplace_back().text = std::move(t);  // (a kind::text block)
        return *this;
    }
    /// Append an image block (base64 data of the given MIME type); returns `*this`.
    tool_output& add_image(std::string base64, std::string mime) {
        content.push_back(content_block::make_image(std::move(base64), std::move(mime)));
        return *this;
    }
    /// Append a block referring to an artifact; returns `*this`.
    tool_output& add_artifact(artifact_ref ref) {
        content.push_back(content_block::make_artifact(std::move(ref)));
        return *this;
    }
    /// An embedded text resource (see content_block::make_resource).
    tool_output& add_resource(std::string uri, std::string mime, std::string text, std::string name = {}) {
        content.push_back(content_block::make_resource(std::move(uri), std::move(mime), std::move(text), std::move(name)));
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
                    if (b.artifact.text) {  // an embedded text resource is text
                        s += *b.artifact.text;
                        break;
                    }
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
