// agentkit/browser/output_files.hpp — what a browser server leaves in its output directory
// besides the tools' own files: the session log (every tool call, its arguments and its result,
// in session-<time>/session.md: --save-session) and the bound on the directory's size (oldest
// files go first: --output-max-size).
//
//   agentkit::browser::session_log log(".playwright-mcp");
//   log.record("browser_navigate", {{"url", "http://127.0.0.1:8080/"}}, output);  // folder made at the first call
//   agentkit::browser::trim_output_dir(".playwright-mcp", 5'000'000);
//
// A log entry is what the model saw: the result as the tool wrote it (already redacted of the
// session's secrets) and the arguments as the model gave them, passed through the redactor the
// host gives (a secret's value a model somehow typed is not written). A write that fails (a full
// disk, a read-only file) is reported to the caller and loses only that entry: the next call
// opens the file again.
#pragma once

#include <agentkit/browser/playwright_output.hpp>
#include <agentkit/core/json.hpp>
#include <agentkit/core/result.hpp>
#include <agentkit/tools/output.hpp>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <mutex>
#include <sstream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace agentkit::browser {

/// The fields of a result as the session log writes them, in the order the result shows them.
/// A result in Playwright MCP's layout gives one field per section (`result`, `code`, `page`,
/// `snapshot`, `events`, ..., fences removed); any other text is one `result` field. Images and
/// other non-text blocks are listed by type and size, never inlined; `isError` when it failed.
/// A snapshot the result links as a file (`- [Snapshot](path)`, Playwright's layout for an action)
/// is logged as that file's text when `links_base` is given (what the paths are relative to: the
/// workspace), so an entry says what the page was even after the file is gone.
[[nodiscard]] inline nlohmann::ordered_json session_log_fields(const tool_output& out, const std::filesystem::path& links_base = {}) {
    static constexpr std::pair<std::string_view, std::string_view> keys[] = {
        {"Error", "error"}, {"Result", "result"}, {"Ran Playwright code", "code"}, {"Open tabs", "tabs"}, {"Page", "page"},
        {"Modal state", "modal"}, {"Snapshot", "snapshot"}, {"Events", "events"}};
    nlohmann::ordered_json fields = nlohmann::ordered_json::object();
    std::string loose;  // text outside any section
    auto add = [&](const std::string& key, std::string value) {
        if (fields.contains(key)) fields[key] = fields[key].get<std::string>() + "\n" + value;
        else fields[key] = std::move(value);
    };
    nlohmann::ordered_json attachments = nlohmann::ordered_json::array();
    for (const auto& b : out.content) {
        if (b.type != content_block::kind::text) {
            if (b.type == content_block::kind::image)
                attachments.push_back(b.mime_type + ", " + std::to_string(b.text.size() * 3 / 4) + " bytes");
            else if (b.type == content_block::kind::artifact)
                attachments.push_back(b.artifact.uri);
            continue;
        }
        const bool sectioned = b.text.rfind("### ", 0) == 0;
        if (!sectioned) {
            (loose += loose.empty() ? "" : "\n") += b.text;
            continue;
        }
        std::string key, body;
        auto flush = [&] {
            if (key.empty()) return;
            while (!body.empty() && body.back() == '\n') body.pop_back();
            add(key, std::move(body));
            body.clear();
        };
        std::size_t pos = 0;
        while (pos <= b.text.size()) {
            std::size_t end = b.text.find('\n', pos);
            if (end == std::string::npos) end = b.text.size();
            const std::string_view line(b.text.data() + pos, end - pos);
            if (line.rfind("### ", 0) == 0) {
                flush();
                const std::string_view title = line.substr(4);
                key.clear();
                for (const auto& [t, k] : keys)
                    if (title == t) key = std::string(k);
                if (key.empty()) key = ascii_lower(std::string(title));
            } else if (line.rfind("```", 0) != 0) {  // fences are the layout's, not the content's
                (body += line) += '\n';
            }
            pos = end + 1;
        }
        flush();
    }
    if (!links_base.empty() && fields.contains("snapshot")) {
        const std::string link = fields["snapshot"].get<std::string>();
        constexpr std::string_view head = "- [Snapshot](";
        if (link.rfind(head, 0) == 0 && link.back() == ')' && link.find('\n') == std::string::npos) {
            const std::filesystem::path file(link.substr(head.size(), link.size() - head.size() - 1));
            std::ifstream in(file.is_absolute() ? file : links_base / file, std::ios::binary);
            std::ostringstream text;
            if (in && text << in.rdbuf()) {
                std::string yaml = text.str();
                while (!yaml.empty() && yaml.back() == '\n') yaml.pop_back();
                fields["snapshot"] = std::move(yaml);
            }
        }
    }
    if (!loose.empty()) add("result", std::move(loose));
    if (!attachments.empty()) fields["attachments"] = std::move(attachments);
    if (out.is_error) fields["isError"] = true;
    return fields;
}

/// The session log (--save-session): one folder per log, `session-<UTC time>` in the output
/// directory, made at the first entry, and `session.md` in it, an entry per tool call:
///
///     ### Tool call: browser_click
///     - Args
///     ```json
///     { "ref": "e2" }          (pretty-printed)
///     ```
///     - Result
///     ```json
///     { "code": "...", "page": "...", "snapshot": "..." }
///     ```
///
/// Entries are appended under a lock, so calls running at once each write whole entries.
class session_log {
public:
    /// Called once when the folder is made (a server prints "Session: <folder>").
    std::function<void(const std::filesystem::path&)> on_open;
    /// Applied to the arguments' text before it is written (a browser's redact()).
    std::function<std::string(std::string)> redact;
    /// What the paths of linked snapshot files are relative to (the workspace): such a snapshot
    /// is logged as its text (session_log_fields). Empty: links are logged as they are.
    std::filesystem::path links_base;

    /// A log whose folder will be made in `output_dir`.
    explicit session_log(std::filesystem::path output_dir) : dir_(std::move(output_dir)) {}

    /// The folder, once the first entry made it (empty before).
    [[nodiscard]] std::filesystem::path folder() const {
        std::lock_guard lock(mu_);
        return folder_;
    }

    /// Append one call. An error says why the entry was not written (the folder could not be
    /// made, the file not opened or written); the next call tries again.
    result<void> record(std::string_view tool, const json& args, const tool_output& out) {
        std::string args_text = args.is_null() ? "{}" : args.dump(2, ' ', false, json::error_handler_t::replace);
        if (redact) args_text = redact(std::move(args_text));
        const std::string entry = "### Tool call: " + std::string(tool) + "\n- Args\n```json\n" + args_text + "\n```\n- Result\n```json\n" +
                                  session_log_fields(out, links_base).dump(2, ' ', false, json::error_handler_t::replace) + "\n```\n\n";
        std::lock_guard lock(mu_);
        if (folder_.empty()) {
            std::error_code ec;
            std::filesystem::path f = dir_ / pw::file_stamp("session");
            std::filesystem::create_directories(f, ec);
            if (ec) return fail(errc::tool_failed, "the session log's folder " + f.string() + " cannot be made: " + ec.message());
            folder_ = std::filesystem::absolute(f, ec);
            if (ec) folder_ = f;
            if (on_open) on_open(folder_);
        }
        const auto file = folder_ / "session.md";
        std::ofstream os(file, std::ios::binary | std::ios::app);
        if (!os) return fail(errc::tool_failed, "the session log " + file.string() + " cannot be opened: " + std::strerror(errno));
        os << entry;
        os.flush();
        if (!os) return fail(errc::tool_failed, "the session log " + file.string() + " cannot be written: " + std::strerror(errno));
        return {};
    }

private:
    std::filesystem::path dir_;
    mutable std::mutex mu_;
    std::filesystem::path folder_;
};

/// What trim_output_dir removed.
struct trimmed_files {
    std::vector<std::filesystem::path> removed;  ///< oldest first
    std::uintmax_t bytes = 0;                    ///< their sizes, summed
};

/// Keep the files under `dir` within `max_bytes` (--output-max-size), counting `incoming` bytes
/// about to be written: the oldest files (by modification time) go first, until the rest and the
/// incoming file fit or nothing evictable is left. Never removed: a session log (`session.md`),
/// anything under a directory named in `keep_dirs` (e.g. an artifact store's own folder, which
/// bounds itself), and, when `keep_newest`, the newest file (the one a call just wrote, even when
/// it alone is over the bound). Emptied folders stay. A directory that does not exist is within
/// any bound.
inline trimmed_files trim_output_dir(const std::filesystem::path& dir, std::uintmax_t max_bytes, std::uintmax_t incoming = 0,
                                     bool keep_newest = false, const std::vector<std::filesystem::path>& keep_dirs = {}) {
    namespace fs = std::filesystem;
    trimmed_files out;
    std::error_code ec;
    if (max_bytes == 0 || !fs::is_directory(dir, ec)) return out;
    struct file {
        fs::path path;
        fs::file_time_type time;
        std::uintmax_t size;
    };
    std::vector<file> files;
    std::uintmax_t total = incoming;
    for (auto it = fs::recursive_directory_iterator(dir, fs::directory_options::skip_permission_denied, ec);
         !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
        std::error_code fe;
        if (it->is_directory(fe)) {
            if (std::any_of(keep_dirs.begin(), keep_dirs.end(), [&](const fs::path& k) { return fs::equivalent(k, it->path(), fe); }))
                it.disable_recursion_pending();
            continue;
        }
        if (!it->is_regular_file(fe)) continue;
        const auto size = it->file_size(fe);
        if (fe) continue;
        total += size;
        if (it->path().filename() == "session.md") continue;
        const auto time = it->last_write_time(fe);
        if (fe) continue;
        files.push_back({it->path(), time, size});
    }
    if (total <= max_bytes) return out;
    std::sort(files.begin(), files.end(), [](const file& a, const file& b) { return a.time < b.time; });
    if (keep_newest && !files.empty()) files.pop_back();
    for (const auto& f : files) {
        if (total <= max_bytes) break;
        std::error_code re;
        if (fs::remove(f.path, re) && !re) {
            total -= f.size;
            out.bytes += f.size;
            out.removed.push_back(f.path);
        }
    }
    return out;
}

}  // namespace agentkit::browser
