// agentkit/format/artifact_reader.hpp — the tool that reads stored artifacts back, for any host.
//
// Budgets park what they cut in an artifact store and name the artifact in the result; a model
// can read it only when the host has a tool for that. Add this one to a toolbox:
//
//   agentkit::bounded_artifacts store;
//   agentkit::toolbox tools{my_tool, agentkit::artifact_reader(store)};   // "read_artifact"
//   // or another name: agentkit::artifact_reader<"fetch_artifact">(store)
//
// Give the same store to the session as its artifact sink (agent_session's last constructor
// argument), so that what the session's budgets cut is what the tool reads:
//
//   agentkit::agent_session session{tools, masker, formatter, options, agentkit::artifact_sink_ref(store)};
//
// An agent_session whose toolbox has it names it in cut notes' hints and in its report
// ("read_artifact(id=\"a3\")"); without one, reports name artifacts by URI. Text comes back by
// offset and length (or from the first line containing a section text) with a note of how much
// is left; images come back as image blocks.
#pragma once

#include <agentkit/core/fixed_string.hpp>
#include <agentkit/core/result.hpp>
#include <agentkit/format/artifacts.hpp>
#include <agentkit/tools/output.hpp>
#include <agentkit/tools/tool.hpp>
#include <agentkit/tools/traits.hpp>

#include <algorithm>
#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <utility>

namespace agentkit {

/// The name agentkit looks for when it tells a model how to read an artifact.
inline constexpr std::string_view default_artifact_reader_name = "read_artifact";

/// Arguments of an artifact-reading tool.
struct artifact_read_args {
    std::string id;                      ///< the artifact id (e.g. a3)
    std::optional<int> offset;           ///< where to start, in characters (text artifacts); default 0
    std::optional<int> length;           ///< how many characters; default 20000
    std::optional<std::string> section;  ///< start at the first line containing this text instead
    /// The fields: id, offset, length, section.
    static constexpr auto agentkit_fields() {
        return fields(AGENTKIT_FIELD(artifact_read_args, id, "e.g. a3", min_length(1)),
                      AGENTKIT_FIELD(artifact_read_args, offset, "Start character", minimum(0)),
                      AGENTKIT_FIELD(artifact_read_args, length, "Characters", range(1, 200000)),
                      AGENTKIT_FIELD(artifact_read_args, section, "Start at the first line containing this"));
    }
};

/// Read one slice of an artifact as a tool result: the text (passed through `text_filter`, when
/// given, e.g. to escape page data) with a note of what is left, or the image.
template <class Store>
[[nodiscard]] result<tool_output> read_artifact_output(const Store& store, const artifact_read_args& a,
                                                       const std::function<std::string(std::string)>& text_filter = {}) {
    read_options ro;
    ro.offset = static_cast<std::size_t>(std::max(0, a.offset.value_or(0)));
    ro.length = static_cast<std::size_t>(std::max(1, a.length.value_or(20000)));
    ro.section = a.section.value_or("");
    auto sl = store.read(a.id, ro);
    if (!sl) return fail(sl.error());
    if (sl->binary) {
        tool_output o;
        o.add_text(sl->ref.name + " (" + sl->ref.mime_type + ", " + std::to_string(sl->ref.size) + " bytes)");
        o.add_image(sl->text, sl->ref.mime_type);
        return o;
    }
    std::string text = text_filter ? text_filter(std::move(sl->text)) : std::move(sl->text);
    if (sl->next < sl->total)
        text += "\n[" + std::to_string(sl->total - sl->next) + " more characters: offset " + std::to_string(sl->next) + "]";
    return tool_output::text(std::move(text));
}

/// A read-only tool named `Name` that reads `store`'s artifacts (the store must outlive it).
template <fixed_string Name = "read_artifact", class Store>
[[nodiscard]] auto artifact_reader(const Store& store) {
    const Store* s = &store;
    return tool<Name>(
        "Read a stored artifact (cut text, a full snapshot, a log, a screenshot) by id; text by offset and length.",
        [s](const artifact_read_args& a) { return read_artifact_output(*s, a); }, read_only | idempotent | parallel_safe);
}

}  // namespace agentkit
