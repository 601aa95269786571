// agentkit/mcp/http/oauth_store.hpp — OAuth tokens and client registrations kept in a file between
// runs, so a host signs in once per server, not once per start (mcp/http/oauth.hpp). The file is the
// user's alone: written whole to a new 0600 file beside it, then renamed over it; its directory
// is created 0700. Needs what mcp/http/oauth.hpp needs (agentkit::curl, OpenSSL).
//
//   agentkit::mcp::oauth_file_store store("/home/me/.local/state/agentkit/remote.oauth.json");
//   agentkit::mcp::oauth_options oo;
//   oo.redirect_uri = back.redirect_uri();  // listen on store.redirect_uri()'s port to keep its registrations
//   store.attach(oo);   // oo.tokens and oo.registrations from the file; on_tokens / on_registration save
//   // the store must outlive the authorizer made from oo (its callbacks write through it)
//
// The file: {"version": 1, "redirect_uri": "...", "tokens": {...}, "registrations": {"<issuer>":
// {...}}}. A file that cannot be read or is not this shape is treated as empty (load() says why;
// the next save replaces it), never as an error that stops the host. Nothing here prints a token
// or a secret; an error names the file, never its content.
#pragma once

#include <agentkit/mcp/http/oauth.hpp>
#include <agentkit/core/error.hpp>
#include <agentkit/core/json.hpp>
#include <agentkit/core/result.hpp>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <utility>

namespace agentkit::mcp {

/// What an oauth_file_store holds.
struct oauth_stored {
    std::string redirect_uri;                                         ///< the redirect URI the registrations were made with
    std::optional<oauth_tokens> tokens;                               ///< the last tokens
    std::map<std::string, oauth_client_registration> registrations;  ///< by issuer
};

/// Tokens and registrations in one private file (see the file comment). Thread-safe.
class oauth_file_store {
public:
    /// The store in `file` (read now; a missing file is an empty store).
    explicit oauth_file_store(std::filesystem::path file) : file_(std::move(file)) { (void)load(); }

    /// The file.
    [[nodiscard]] const std::filesystem::path& file() const noexcept { return file_; }

    /// Read the file again. A missing file is empty (no error); an unreadable or malformed one is
    /// empty too, and the error says what was wrong with it (never its content).
    result<void> load() {
        std::lock_guard lock(mu_);
        data_ = oauth_stored{};
        std::error_code ec;
        if (!std::filesystem::exists(file_, ec)) return {};
        std::ifstream in(file_, std::ios::binary);
        const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
        if (!in && !in.eof())
            return fail(errc::transport_io, "cannot read " + file_.string(), "Check the file's permissions; sign-in will run again.");
        const json j = json::parse(text, nullptr, false);
        if (!j.is_object() || j.value("version", 0) != 1)
            return fail(errc::args_invalid, file_.string() + " is not an agentkit OAuth store (version 1); it is ignored and replaced on the next sign-in",
                        "Remove the file if it belongs to something else.");
        data_.redirect_uri = text_of(j, "redirect_uri");
        if (auto t = j.find("tokens"); t != j.end() && t->is_object() && !text_of(*t, "access_token").empty()) {
            oauth_tokens k;
            k.access_token = text_of(*t, "access_token");
            k.refresh_token = text_of(*t, "refresh_token");
            k.scope = text_of(*t, "scope");
            k.issuer = text_of(*t, "issuer");
            k.resource = text_of(*t, "resource");
            if (auto d = t->find("dpop"); d != t->end() && d->is_boolean()) k.dpop = d->get<bool>();
            if (auto e = t->find("expires_at"); e != t->end() && e->is_number_integer())
                k.expires_at = std::chrono::system_clock::time_point(std::chrono::seconds(e->get<std::int64_t>()));
            data_.tokens = std::move(k);
        }
        if (auto r = j.find("registrations"); r != j.end() && r->is_object())
            for (const auto& [issuer, c] : r->items()) {
                if (!c.is_object() || text_of(c, "client_id").empty()) continue;
                oauth_client_registration reg;
                reg.client_id = text_of(c, "client_id");
                reg.client_secret = text_of(c, "client_secret");
                reg.token_endpoint_auth_method = text_of(c, "token_endpoint_auth_method");
                if (reg.token_endpoint_auth_method.empty()) reg.token_endpoint_auth_method = "none";
                reg.redirect_uri = text_of(c, "redirect_uri");
                data_.registrations[issuer] = std::move(reg);
            }
        return {};
    }

    /// What the file held at the last load() or save.
    [[nodiscard]] oauth_stored stored() const {
        std::lock_guard lock(mu_);
        return data_;
    }
    /// The redirect URI kept in the file ("" when none): listen there again to keep using the
    /// registrations made with it.
    [[nodiscard]] std::string redirect_uri() const {
        std::lock_guard lock(mu_);
        return data_.redirect_uri;
    }

    /// Give `o` the stored tokens and registrations, and save what the authorizer gets later
    /// (chaining any on_tokens / on_registration `o` had). Call after o.redirect_uri is set.
    void attach(oauth_options& o) {
        {
            std::lock_guard lock(mu_);
            if (data_.tokens && !o.tokens) o.tokens = data_.tokens;
            for (const auto& [issuer, c] : data_.registrations) o.registrations.emplace(issuer, c);
        }
        const std::string redirect = o.redirect_uri;
        o.on_tokens = [this, redirect, before = std::move(o.on_tokens)](const oauth_tokens& t) {
            {
                std::lock_guard lock(mu_);
                data_.tokens = t;
                data_.redirect_uri = redirect;
                (void)save_locked();
            }
            if (before) before(t);
        };
        o.on_registration = [this, redirect, before = std::move(o.on_registration)](const std::string& issuer, const oauth_client_registration& c) {
            {
                std::lock_guard lock(mu_);
                data_.registrations[issuer] = c;
                data_.redirect_uri = redirect;
                (void)save_locked();
            }
            if (before) before(issuer, c);
        };
    }

    /// Write what is held now (normally done by attach()'s callbacks).
    result<void> save() {
        std::lock_guard lock(mu_);
        return save_locked();
    }

    /// Forget everything and remove the file (a sign-out).
    result<void> clear() {
        std::lock_guard lock(mu_);
        data_ = oauth_stored{};
        std::error_code ec;
        std::filesystem::remove(file_, ec);
        if (ec) return fail(errc::transport_io, "cannot remove " + file_.string() + ": " + ec.message(), "Remove it by hand.");
        return {};
    }

    /// The last error a save met ("" when the last save worked): callbacks cannot return one.
    [[nodiscard]] std::string last_save_error() const {
        std::lock_guard lock(mu_);
        return save_error_;
    }

private:
    static std::string text_of(const json& j, const char* k) {
        auto it = j.find(k);
        return it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
    }

    json to_json_locked() const {
        json j{{"version", 1}, {"redirect_uri", data_.redirect_uri}, {"registrations", json::object()}};
        if (data_.tokens) {
            const auto& t = *data_.tokens;
            json tj{{"access_token", t.access_token}, {"refresh_token", t.refresh_token}, {"scope", t.scope}, {"issuer", t.issuer}, {"resource", t.resource}};
            if (t.dpop) tj["dpop"] = true;
            if (t.expires_at)
                tj["expires_at"] = std::chrono::duration_cast<std::chrono::seconds>(t.expires_at->time_since_epoch()).count();
            j["tokens"] = std::move(tj);
        }
        for (const auto& [issuer, c] : data_.registrations)
            j["registrations"][issuer] = {{"client_id", c.client_id},
                                          {"client_secret", c.client_secret},
                                          {"token_endpoint_auth_method", c.token_endpoint_auth_method},
                                          {"redirect_uri", c.redirect_uri}};
        return j;
    }

    result<void> save_locked() {
        auto failed = [&](const std::string& what) -> result<void> {
            save_error_ = what;
            return fail(errc::transport_io, what, "Check that the directory is writable by this user; the tokens stay in memory until then.");
        };
        std::error_code ec;
        const auto dir = file_.parent_path();
        if (!dir.empty() && !std::filesystem::exists(dir, ec)) {
            std::filesystem::create_directories(dir, ec);
            if (ec) return failed("cannot create " + dir.string() + ": " + ec.message());
            std::filesystem::permissions(dir, std::filesystem::perms::owner_all, std::filesystem::perm_options::replace, ec);
        }
        const std::string text = to_json_locked().dump(2) + "\n";
        const std::string tmp = file_.string() + ".tmp" + std::to_string(::getpid());
        ::unlink(tmp.c_str());
        const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
        if (fd < 0) return failed("cannot write " + tmp + ": " + std::strerror(errno));
        std::size_t off = 0;
        while (off < text.size()) {
            const ssize_t n = ::write(fd, text.data() + off, text.size() - off);
            if (n < 0 && errno == EINTR) continue;
            if (n <= 0) {
                const std::string why = std::strerror(errno);
                ::close(fd);
                ::unlink(tmp.c_str());
                return failed("cannot write " + tmp + ": " + why);
            }
            off += static_cast<std::size_t>(n);
        }
        const bool synced = ::fsync(fd) == 0;
        ::close(fd);
        if (!synced || ::rename(tmp.c_str(), file_.c_str()) != 0) {
            const std::string why = std::strerror(errno);
            ::unlink(tmp.c_str());
            return failed("cannot replace " + file_.string() + ": " + why);
        }
        save_error_.clear();
        return {};
    }

    std::filesystem::path file_;
    mutable std::mutex mu_;
    oauth_stored data_;
    std::string save_error_;
};

}  // namespace agentkit::mcp
