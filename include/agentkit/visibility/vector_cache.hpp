// agentkit/visibility/vector_cache.hpp — text vectors kept so that no text is embedded twice: in
// memory, and optionally in one file per model on disk, so that a restarted gateway does not
// re-embed a thousand tools.
//
//   agentkit::vector_cache c("/var/cache/agentkit", "text-embedding-3-small|1536");
//   if (auto v = c.find("read a file")) use(*v);
//   c.put({{"read a file", vec}});            // kept in memory and appended to the file
//
// The file (<dir>/embeddings-<16 hex digits of the SHA-1 of the key>.bin) starts with the line
// "agentkit-vectors 1 <key>\n"; then one record per text: the SHA-1 of the text (20 bytes), the
// dimension (4 bytes) and the floats (4 bytes each), all little-endian. It is only ever appended
// to; a record cut short (a process killed while writing) is dropped when read and written over.
// A file whose first line names another key or version is not read (and not written): the cache
// then lives in memory only and problem() says why. On a big-endian machine the cache is memory
// only. Thread-safe: every member may be called from several threads at once.
#pragma once

#include <agentkit/core/sha1.hpp>

#include <array>
#include <bit>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

namespace agentkit {

/// Vectors by text, in memory and (with a directory) on disk; see the file comment.
class vector_cache {
public:
    /// A cache for vectors made under `key` (a model's name and whatever else changes its vectors); with an
    /// empty `dir`, in memory only. Reads the file when there is one; problem() tells what went wrong.
    explicit vector_cache(std::string dir = {}, std::string key = {}) : key_(std::move(key)) {
        if (dir.empty()) return;
        if constexpr (std::endian::native != std::endian::little) {
            problem_ = "the vector cache is kept in memory only on a big-endian machine";
            return;
        } else {
            const auto digest = sha1_digest(key_);
            path_ = (std::filesystem::path(dir) / ("embeddings-" + to_hex(digest.data(), 8) + ".bin")).string();
            std::error_code ec;
            std::filesystem::create_directories(dir, ec);
            if (ec) {
                problem_ = "cannot create the vector cache's folder " + dir + ": " + ec.message();
                path_.clear();
                return;
            }
            load();
        }
    }

    /// The vector kept for `text`, if any.
    [[nodiscard]] std::optional<std::vector<float>> find(std::string_view text) const {
        const auto h = hash(text);
        std::lock_guard lock(mu_);
        if (auto it = map_.find(h); it != map_.end()) return it->second;
        return std::nullopt;
    }

    /// Keep these (text, vector) pairs, in memory and on disk. A text already kept is left as it was.
    void put(const std::vector<std::pair<std::string, std::vector<float>>>& entries) {
        std::lock_guard lock(mu_);
        std::string out;
        for (const auto& [text, v] : entries) {
            const auto h = hash(text);
            if (!map_.emplace(h, v).second || path_.empty()) continue;
            out.append(h);
            append_u32(out, static_cast<std::uint32_t>(v.size()));
            const auto at = out.size();
            out.resize(at + v.size() * sizeof(float));
            if (!v.empty()) std::memcpy(out.data() + at, v.data(), v.size() * sizeof(float));
        }
        if (out.empty() || path_.empty()) return;
        std::ofstream f(path_, std::ios::binary | std::ios::app);
        if (f) f.write(out.data(), static_cast<std::streamsize>(out.size()));
        if (!f) {
            problem_ = "cannot write the vector cache " + path_ + "; vectors are kept in memory only";
            path_.clear();
        }
    }

    /// How many vectors are kept.
    [[nodiscard]] std::size_t size() const {
        std::lock_guard lock(mu_);
        return map_.size();
    }
    /// The cache file ("" when in memory only).
    [[nodiscard]] std::string path() const {
        std::lock_guard lock(mu_);
        return path_;
    }
    /// What went wrong reading or writing the file ("" when nothing did).
    [[nodiscard]] std::string problem() const {
        std::lock_guard lock(mu_);
        return problem_;
    }

private:
    static std::string hash(std::string_view text) {
        const auto d = sha1_digest(text);
        return std::string(reinterpret_cast<const char*>(d.data()), d.size());
    }
    static void append_u32(std::string& out, std::uint32_t v) {
        for (int i = 0; i < 4; ++i) out += static_cast<char>((v >> (8 * i)) & 0xFFU);
    }
    [[nodiscard]] std::string header() const { return "agentkit-vectors 1 " + key_ + "\n"; }

    void load() {
        std::error_code ec;
        if (!std::filesystem::exists(path_, ec)) {
            std::ofstream f(path_, std::ios::binary | std::ios::trunc);
            f << header();
            if (!f) {
                problem_ = "cannot create the vector cache " + path_ + "; vectors are kept in memory only";
                path_.clear();
            }
            return;
        }
        std::ifstream f(path_, std::ios::binary);
        std::string data((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
        const std::string head = header();
        if (data.compare(0, head.size(), head) != 0) {
            problem_ = path_ + " was written for other vectors (or by another version); vectors are kept in memory only";
            path_.clear();
            return;
        }
        std::size_t at = head.size();
        std::size_t good = at;
        while (at + 24 <= data.size()) {
            std::uint32_t dim = 0;
            for (int i = 0; i < 4; ++i) dim |= static_cast<std::uint32_t>(static_cast<unsigned char>(data[at + 20 + static_cast<std::size_t>(i)])) << (8 * i);
            const std::size_t bytes = std::size_t{dim} * sizeof(float);
            if (dim > (1U << 16) || at + 24 + bytes > data.size()) break;
            std::vector<float> v(dim);
            if (dim != 0) std::memcpy(v.data(), data.data() + at + 24, bytes);
            map_.emplace(data.substr(at, 20), std::move(v));
            at += 24 + bytes;
            good = at;
        }
        if (good != data.size()) {  // a record cut short: drop it, so that the next one follows a whole one
            std::filesystem::resize_file(path_, good, ec);
            if (ec) {
                problem_ = "cannot repair the vector cache " + path_ + " (" + ec.message() + "); vectors are kept in memory only";
                path_.clear();
            }
        }
    }

    mutable std::mutex mu_;
    std::string key_;
    std::string path_;
    std::string problem_;
    std::unordered_map<std::string, std::vector<float>> map_;
};

}  // namespace agentkit
