// agentkit/browser/action_result.hpp — what an action did and what changed, and how a result
// words it for a model (to_text) or a program (to_json).
#pragma once

#include <agentkit/browser/detail/page_data.hpp>
#include <agentkit/browser/policy.hpp>
#include <agentkit/browser/snapshot.hpp>
#include <agentkit/core/json.hpp>

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace agentkit::browser {

/// A JavaScript dialog the page opened during an action, and how it was answered.
struct dialog_record {
    std::string type;  ///< alert, confirm, prompt, beforeunload
    std::string message;  ///< the dialog's text
    std::string default_prompt;  ///< a prompt's default value
    std::string url;   ///< the page that opened it
    bool accepted = false;  ///< it was accepted (OK) rather than dismissed
    std::string prompt_text;  ///< the text entered into a prompt
    bool open = false;  ///< still open, waiting for browser::answer_dialog() (dialog_policy::hold)
};

/// A file chooser open on the page (browser::file_chooser()): the page opened it (a click on an
/// `<input type=file>`, or its showPicker()) and waits for browser::upload() without a ref.
struct file_chooser_info {
    bool multiple = false;  ///< it takes several files
    bool from_input = true;  ///< a file input owns it (false: showOpenFilePicker, which cannot be answered)
};

/// One tab.
struct tab_info {
    std::string id;       ///< the tab's id ("tab1", ...), as select_tab and close_tab take it
    std::string url;      ///< its URL
    std::string title;    ///< its title
    bool active = false;  ///< it is the selected tab
};

/// A download: finished, refused, or (browser::downloads(true)) under way.
struct download_record {
    std::string url;    ///< what was downloaded
    std::string suggested_name;  ///< the file name the page suggested
    std::string path;   ///< where it was saved (empty when refused or failed)
    std::string state;  ///< completed, refused, canceled, failed: <why>, or "in progress"
    std::string rule;   ///< the rule that refused it
    std::string id{};   ///< the browser's id of it (unique in the session; last, with an initializer, so positional initializers stay valid)
};

namespace detail {
/// "scheme://host[:port]" of an absolute http(s)/ws(s) URL; "" for anything else.
inline std::string_view url_origin(std::string_view url) {
    const auto scheme = url.find("://");
    if (scheme == std::string_view::npos || scheme == 0) return {};
    const auto name = url.substr(0, scheme);
    if (name != "http" && name != "https" && name != "ws" && name != "wss") return {};
    const auto end = url.find_first_of("/?#", scheme + 3);
    return url.substr(0, end == std::string_view::npos ? url.size() : end);
}

/// Whether `url` is where `base` asked to go: the same, or a bare origin with the root path the
/// browser adds ("http://h" → "http://h/"; "/docs" → "/docs/" is a move and not the same).
inline bool same_place(const std::string& url, const std::string& base) {
    if (url == base) return true;
    return url.size() == base.size() + 1 && url.back() == '/' && url.compare(0, base.size(), base) == 0 &&
           !url_origin(base).empty() && url_origin(base).size() == base.size();
}

/// `url` as the model needs to read it after being at `base`: path, query and fragment when the
/// origin is the same (the origin costs ~8 tokens and says nothing new), else the whole URL.
inline std::string url_relative_to(const std::string& url, std::string_view base) {
    const auto o = url_origin(url);
    if (o.empty() || o != url_origin(base)) return url;
    std::string rest = url.substr(o.size());
    if (rest.rfind("//", 0) == 0) return url;  // "//host/x" would read as another host
    return rest.empty() || rest[0] != '/' ? "/" + rest : rest;
}
}  // namespace detail

/// What an action did and what changed.
struct action_result {
    std::string action;  ///< what was done ("click", "navigate", ...)
    /// A coordinate action's target: the ref (role "name") of the element at the point, or a
    /// description of it when it has no ref ("" for other actions).
    std::string hit;
    std::string url;  ///< the tab's URL after the action
    std::string title;  ///< the page title after the action
    std::string from_url;       ///< the tab's URL as last reported before the action (URLs are shown against it)
    std::string requested_url;  ///< what a navigate asked for (the result names the URL only when it differs)
    std::string form_get_url;   ///< the URL a GET form submitted to during the action (its query is the form's fields)
    bool navigated = false;  ///< a new document was loaded in the main frame
    int http_status = 0;     ///< of the main document, when navigated (0: unknown)
    std::vector<dialog_record> dialogs;  ///< dialogs opened during the action, as answered
    std::vector<tab_info> opened_tabs;  ///< tabs the action opened
    std::string changes;   ///< snapshot delta ("+ line" / "- line" / "~ line (was …)") or "no visible change"
    std::string snapshot;  ///< the new page's snapshot, when the action loaded a new document
    std::vector<std::string> notes;  ///< waits that ran out, a restarted browser, ...
    std::vector<blocked_request> blocked;    ///< requests the policy refused during the action
    std::vector<download_record> downloads;  ///< downloads during the action
    std::size_t dialogs_dropped = 0;          ///< dialogs beyond the per-action limit (answered, not listed)
    std::string boundary;  ///< nonce of the untrusted-content marks (empty: unmarked)
    std::chrono::milliseconds elapsed{0};  ///< how long the action took

    /// The result as the model reads it: agentkit's notes, then in the marks the reports (blocked
    /// requests, downloads, navigation, tabs), the title, dialogs and the changes or the new page.
    [[nodiscard]] std::string to_text() const {
        std::string s;
        for (const auto& n : notes) s += "note: " + n + "\n";
        // Everything else names what the page chose (the URLs it requested or moved to, its file
        // names, its title, dialogs and text): inside the marks. Outside stay only agentkit's own
        // words: the notes and "no visible change".
        std::string page = reports();
        if (!hit.empty()) page += "hit: " + hit + "\n";  // (a name is the page's text)
        if (navigated) page += "title: " + title + "\n";
        for (const auto& d : dialogs) {
            page += d.type + " dialog \"" + d.message + "\" " + (d.accepted ? "accepted" : "dismissed");
            if (d.type == "prompt" && d.accepted) page += " with \"" + d.prompt_text + "\"";
            page += "\n";
        }
        // (a navigation is a change even when its page is not shown: snapshot mode none)
        const bool no_change = !navigated && snapshot.empty() && (changes.empty() || changes == no_visible_change);
        if (!snapshot.empty()) page += snapshot;
        else if (!no_change) page += changes;
        if (!page.empty()) s += detail::page_data(page, boundary);
        if (no_change) (s += no_visible_change) += '\n';
        if (!s.empty() && s.back() != '\n') s += '\n';
        return s;
    }

    /// The lines that report what happened around the page (blocked requests, downloads, where
    /// the tab went, tabs it opened), one a line; to_text() puts them inside the marks.
    [[nodiscard]] std::string reports() const {
        std::string s;
        // Documents (navigations, popups, form posts) are always listed; subresources beyond a few
        // are counted by type and origin (a page of third-party assets would cost thousands of tokens).
        constexpr std::size_t listed_subresources = 3;
        std::size_t subresources = 0;
        for (const auto& b : blocked)
            if (b.resource_type.rfind("Document", 0) != 0) ++subresources;
        std::map<std::string, std::size_t> by_type;
        std::vector<std::string> origins;
        for (const auto& b : blocked) {
            const bool doc = b.resource_type.rfind("Document", 0) == 0;
            if (doc || subresources <= listed_subresources) {
                s += "blocked " + (b.resource_type.empty() ? std::string("request") : b.resource_type) + " " + b.url + " (policy " + b.rule + ")\n";
                continue;
            }
            ++by_type[b.resource_type.empty() ? std::string("other") : b.resource_type];
            const auto scheme = b.url.find("://");
            if (b.url.empty()) continue;
            std::string origin = scheme == std::string::npos ? b.url : b.url.substr(0, b.url.find('/', scheme + 3));
            if (std::find(origins.begin(), origins.end(), origin) == origins.end()) origins.push_back(std::move(origin));
        }
        if (subresources > listed_subresources) {
            s += "blocked " + std::to_string(subresources) + " requests (";
            bool first = true;
            for (const auto& [type, n] : by_type) {
                s += (first ? "" : ", ") + std::to_string(n) + " " + type;
                first = false;
            }
            s += ")";
            if (!origins.empty()) {
                s += " to " + std::to_string(origins.size()) + (origins.size() == 1 ? " origin: " : " origins: ");
                for (std::size_t i = 0; i < origins.size() && i < 3; ++i) s += (i ? ", " : "") + origins[i];
                if (origins.size() > 3) s += ", …";
            }
            std::vector<std::string> rules;
            for (const auto& b : blocked)
                if (b.resource_type.rfind("Document", 0) != 0 && std::find(rules.begin(), rules.end(), b.rule) == rules.end())
                    rules.push_back(b.rule);
            for (std::size_t i = 0; i < rules.size() && i < 3; ++i) s += (i ? "; policy " : " (policy ") + rules[i];
            if (rules.size() > 3) s += "; …";
            if (!rules.empty()) s += ")";
            if (by_type.size() > by_type.count("Popup")) s += "; browser_network_requests {\"static\": true} lists them";
            s += "\n";
        }
        for (const auto& d : downloads)
            s += "download " + d.suggested_name + ": " + d.state + (d.path.empty() ? std::string() : " → " + d.path) +
                 (d.rule.empty() ? std::string() : " (policy " + d.rule + ")") + "\n";
        if (dialogs_dropped > 0) s += std::to_string(dialogs_dropped) + " more dialogs were answered (not listed)\n";
        if (navigated) {
            // The URL only when it is news (a redirect, or where a click led), against what a
            // navigate asked for or the URL the model last saw (a reload stays put); the status
            // only when it is not a success. A navigate that landed where it was asked, with a
            // success, says nothing: the page following is the news.
            std::string line = "navigated";
            const std::string& base = requested_url.empty() ? from_url : requested_url;
            if (!url.empty() && !detail::same_place(url, base)) {
                // A GET form's query repeats the fields the model just filled in: "?…" stands for it
                // (unless a redirect moved the page elsewhere).
                const auto q = url.find('?');
                if (url == form_get_url && q != std::string::npos && q + 1 < url.size() && url.find('#') == std::string::npos)
                    line += " to " + detail::url_relative_to(url.substr(0, q), base) + "?…";
                else
                    line += " to " + detail::url_relative_to(url, base);
            }
            if (http_status != 0 && (http_status < 200 || http_status > 299)) line += " (HTTP " + std::to_string(http_status) + ")";
            if (requested_url.empty() || line != "navigated") s += line + "\n";
        } else if (!url.empty() && !from_url.empty() && url != from_url) {
            // the same document at another URL (history.pushState, a fragment) or a tab that moved
            // since its last result: where it is now
            s += "url: " + detail::url_relative_to(url, from_url) + "\n";
        }
        for (const auto& t : opened_tabs) s += "new tab " + t.id + ": " + t.url + "\n";
        return s;
    }

    /// The result as JSON (empty fields left out).
    [[nodiscard]] json to_json() const {
        json j = {{"action", action}, {"url", url}, {"title", title}, {"navigated", navigated}, {"changes", changes}};
        if (!from_url.empty()) j["from_url"] = from_url;
        if (!hit.empty()) j["hit"] = hit;
        if (http_status != 0) j["http_status"] = http_status;
        if (!snapshot.empty()) j["snapshot"] = snapshot;
        if (!notes.empty()) j["notes"] = notes;
        json ds = json::array();
        for (const auto& d : dialogs)
            ds.push_back({{"type", d.type}, {"message", d.message}, {"accepted", d.accepted}, {"prompt_text", d.prompt_text}});
        if (!ds.empty()) j["dialogs"] = ds;
        json ts = json::array();
        for (const auto& t : opened_tabs) ts.push_back({{"id", t.id}, {"url", t.url}});
        if (!ts.empty()) j["opened_tabs"] = ts;
        json bs = json::array();
        for (const auto& b : blocked) bs.push_back({{"url", b.url}, {"type", b.resource_type}, {"rule", b.rule}});
        if (!bs.empty()) j["blocked"] = bs;
        json dl = json::array();
        for (const auto& d : downloads)
            dl.push_back({{"url", d.url}, {"name", d.suggested_name}, {"path", d.path}, {"state", d.state}, {"rule", d.rule}});
        if (!dl.empty()) j["downloads"] = dl;
        j["elapsed_ms"] = elapsed.count();
        return j;
    }
};

}  // namespace agentkit::browser
