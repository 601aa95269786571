// agentkit/visibility/usage_log.hpp — what a router learned from usage (query → tool pairs),
// bounded and optionally kept in a file, so that the next router (after a restart, or a
// gateway's new catalogue) starts from it.
//
//   auto log = std::make_shared<agentkit::usage_log>(agentkit::usage_log_options{.file = "usage.json"});
//   if (auto ok = log->load(); !ok) report(ok.error());      // a bad file is reported, never overwritten
//   agentkit::router_options o;
//   o.examples = log->examples();                             // what earlier sessions learned
//   o.on_learn = [log](const std::string& tool, const std::string& q) { (void)log->add(tool, q); };
//
// The file is JSON, {"version": 1, "examples": {"<tool>": ["<query>", ...]}}, oldest first,
// written whole to a temporary file beside it and renamed over it (a reader never sees half a
// file). A file that cannot be read as that shape is left as it is: load() says what is wrong
// and the log then keeps what it learns in memory only, so nothing is lost or clobbered.
// Bounds: max_per_tool examples per tool and max_total over all tools; past them the oldest go
// (the tool's own oldest, then the oldest of all). The same query is not kept twice for a tool.
// Thread-safe.
#pragma once

#include <agentkit/core/error.hpp>
#include <agentkit/core/json.hpp>
#include <agentkit/core/result.hpp>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <deque>
#include <fstream>
#include <iterator>
#include <map>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

namespace agentkit {

/// Where a usage_log keeps its examples and how many.
struct usage_log_options {
    std::string file;                ///< the JSON file to load and save ("": memory only)
    std::size_t max_per_tool = 100;  ///< examples kept per tool (at least 1)
    std::size_t max_total = 20000;   ///< examples kept over all tools (at least 1)
};

/// A bounded, optionally persisted record of the queries that found each tool (see the file comment).
class usage_log {
public:
    /// An empty log with these options (call load() to read the file).
    explicit usage_log(usage_log_options o = {}) : opt_(std::move(o)) {
        if (opt_.max_per_tool == 0) opt_.max_per_tool = 1;
        if (opt_.max_total == 0) opt_.max_total = 1;
    }

    /// Read the file (a missing file is an empty log). On a file that is not the log's JSON
    /// shape: args.invalid naming the file and what is wrong; the file is then never written.
    result<void> load() {
        std::lock_guard lock(mu_);
        if (opt_.file.empty()) return {};
        std::ifstream in(opt_.file, std::ios::binary);
        if (!in) return {};
        const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
        auto bad = [&](const std::string& what) {
            readonly_ = true;
            return fail(errc::args_invalid, "usage log " + opt_.file + ": " + what,
                        "Fix or remove the file; until then what is learned is kept in memory only and the file is "
                        "left as it is.");
        };
        const json j = json::parse(text, nullptr, false);
        if (j.is_discarded()) return bad("not JSON");
        if (!j.is_object() || !j.contains("examples") || !j["examples"].is_object())
            return bad("no \"examples\" object ({\"version\": 1, \"examples\": {\"tool\": [\"query\", ...]}})");
        std::vector<std::pair<std::string, std::string>> read;
        for (const auto& [tool, list] : j["examples"].items()) {
            if (!list.is_array()) return bad("\"" + tool + "\" is not an array of strings");
            for (const auto& q : list) {
                if (!q.is_string()) return bad("\"" + tool + "\" is not an array of strings");
                read.emplace_back(tool, q.get<std::string>());
            }
        }
        for (auto& [tool, q] : read) insert(tool, std::move(q));
        return {};
    }

    /// Record that `query` found `tool`; true when it was new (then the file is rewritten, if
    /// there is one). A failed write is returned (the example stays in memory).
    result<bool> add(const std::string& tool, const std::string& query) {
        std::lock_guard lock(mu_);
        if (tool.empty() || query.find_first_not_of(" \t\r\n") == std::string::npos) return false;
        if (!insert(tool, query)) return false;
        if (auto ok = save_locked(); !ok) return fail(ok.error());
        return true;
    }

    /// Every tool's examples, oldest first.
    [[nodiscard]] std::map<std::string, std::vector<std::string>> examples() const {
        std::lock_guard lock(mu_);
        std::map<std::string, std::vector<std::string>> out;
        for (const auto& [tool, qs] : by_tool_) out[tool] = {qs.begin(), qs.end()};
        return out;
    }

    /// The number of examples kept.
    [[nodiscard]] std::size_t size() const {
        std::lock_guard lock(mu_);
        return order_.size();
    }

    /// Write the file now (nothing without one, or after load() refused it).
    result<void> save() const {
        std::lock_guard lock(mu_);
        return save_locked();
    }

    /// The options in use.
    [[nodiscard]] const usage_log_options& options() const noexcept { return opt_; }

private:
    bool insert(const std::string& tool, std::string query) {
        auto& qs = by_tool_[tool];
        for (const auto& q : qs)
            if (q == query) return false;
        qs.push_back(query);
        order_.emplace_back(tool, std::move(query));
        if (qs.size() > opt_.max_per_tool) drop(tool, qs.front());
        while (order_.size() > opt_.max_total) drop(order_.front().first, order_.front().second);
        return true;
    }
    void drop(std::string tool, std::string query) {  // by value: the arguments may live in what is erased
        auto& qs = by_tool_[tool];
        for (auto it = qs.begin(); it != qs.end(); ++it)
            if (*it == query) {
                qs.erase(it);
                break;
            }
        if (qs.empty()) by_tool_.erase(tool);
        for (auto it = order_.begin(); it != order_.end(); ++it)
            if (it->first == tool && it->second == query) {
                order_.erase(it);
                break;
            }
    }
    result<void> save_locked() const {
        if (opt_.file.empty() || readonly_) return {};
        json ex = json::object();
        for (const auto& [tool, qs] : by_tool_) ex[tool] = json(std::vector<std::string>(qs.begin(), qs.end()));
        const std::string tmp = opt_.file + ".tmp";
        {
            std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
            out << json{{"version", 1}, {"examples", std::move(ex)}}.dump(1) << '\n';
            if (!out.flush())
                return fail(errc::internal, "usage log: cannot write " + tmp, "Check that the directory exists and is writable.");
        }
        if (std::rename(tmp.c_str(), opt_.file.c_str()) != 0) {
            std::remove(tmp.c_str());
            return fail(errc::internal, "usage log: cannot replace " + opt_.file, "Check that the directory is writable.");
        }
        return {};
    }

    usage_log_options opt_;
    mutable std::mutex mu_;
    std::map<std::string, std::deque<std::string>> by_tool_;    // oldest first
    std::deque<std::pair<std::string, std::string>> order_;     // (tool, query), oldest first
    bool readonly_ = false;
};

}  // namespace agentkit
