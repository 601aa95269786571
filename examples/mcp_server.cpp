// A toolbox served to any MCP client over stdio. stdout carries only protocol messages.
//   { "mcpServers": { "notes": { "command": "/path/to/agentkit-example-mcp_server" } } }
#include <agentkit/mcp.hpp>

#include <map>
#include <mutex>
#include <string>

namespace ak = agentkit;

struct note_args {
    std::string title;
    std::string text;
    static constexpr auto agentkit_fields() {
        return ak::fields(AGENTKIT_FIELD(note_args, title, "Short title", ak::min_length(1)),
                          AGENTKIT_FIELD(note_args, text, "The note"));
    }
};
struct find_args {
    std::string title;
    static constexpr auto agentkit_fields() { return ak::fields(AGENTKIT_FIELD(find_args, title, "Title of the note")); }
};

int main() {
    std::map<std::string, std::string> notes;
    std::mutex mu;
    ak::toolbox tools{
        ak::tool<"save_note">("Save a note under a title (replaces one with the same title).",
                              [&](const note_args& a) {
                                  std::lock_guard lock(mu);
                                  notes[a.title] = a.text;
                                  return "saved \"" + a.title + "\"";
                              }, ak::idempotent),
        ak::tool<"read_note">("Read the note with this title.",
                              [&](const find_args& a) -> ak::result<std::string> {
                                  std::lock_guard lock(mu);
                                  auto it = notes.find(a.title);
                                  if (it == notes.end())
                                      return ak::fail(ak::errc::not_found, "no note \"" + a.title + "\"", "Save it first.");
                                  return it->second;
                              }, ak::read_only)};
    ak::mcp::server_options o;
    o.name = "notes";
    ak::mcp::server srv{ak::mcp::backend_for(tools), o};
    return ak::mcp::run_stdio(srv, 0, 1, ak::mcp::stop_on_signals());
}
