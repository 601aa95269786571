// agentkit/visibility/lexicon.hpp — groups of words that ask for the same action or name the
// same thing in requests to tools, for bridging the words a user writes and the words a tool's
// description uses ("add 2 and 3" → "sum", "forget Bob" → "delete").
//
//   agentkit::bm25f_params p;
//   p.lexicon = agentkit::word_lexicon::general();           // the default
//   p.lexicon = std::make_shared<agentkit::word_lexicon>(    // a host's own words
//       std::vector<std::vector<std::string>>{{"invoice", "bill"}, {"customer", "client"}});
//
// A group is a set of words, each related to every other one in it; a word may be in several
// groups. The index (tool_index.hpp) analyses the words with its own analyzer (so "deleting"
// meets "delete") and, for a query word that no tool text uses, adds its related terms that the
// tools do use to the query with a lower weight (bm25f_params::related_weight), for the rankers
// over tool texts; a word the query already has is not added again. A word the catalogue has is
// not expanded: there the user and the tools already speak alike, and widening it only adds noise
// (measured: it cost up to 4 points of Recall@5 on API corpora; bench/README.md).
//
// general() is written as one would for any tool catalogue: everyday verbs of tool requests
// (create, read, change, delete, find, run, move, send, ...), arithmetic words, and the common
// nouns of files, pages, media, messages, errors and records. It holds no tool names and no
// words chosen for one catalogue; a host with a vocabulary of its own (a domain's jargon) gives
// its own lexicon, or extends general()'s groups (groups()).
#pragma once

#include <algorithm>
#include <initializer_list>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace agentkit {

/// Groups of related words (see the file comment). Immutable once made; share it.
class word_lexicon {
public:
    /// A lexicon of these groups (lowercase words; each group relates its words to one another).
    explicit word_lexicon(std::vector<std::vector<std::string>> groups) : groups_(std::move(groups)) {}

    /// The groups, as given.
    [[nodiscard]] const std::vector<std::vector<std::string>>& groups() const noexcept { return groups_; }

    /// The built-in general-purpose lexicon (shared, made once).
    [[nodiscard]] static std::shared_ptr<const word_lexicon> general() {
        static const auto lex = std::make_shared<const word_lexicon>(std::vector<std::vector<std::string>>{
            // actions
            {"create", "make", "new", "add", "generate", "build", "produce", "insert"},
            {"show", "display", "view", "see", "print", "present"},
            {"get", "fetch", "retrieve", "obtain", "return", "give"},
            {"read", "view", "open", "load", "contents"},
            {"update", "edit", "modify", "change", "alter", "adjust", "patch", "replace"},
            {"delete", "remove", "erase", "drop", "forget", "discard", "clear", "destroy", "purge"},
            {"list", "enumerate", "all", "every"},
            {"search", "find", "look", "query", "lookup", "locate", "seek"},
            {"start", "begin", "launch", "enable", "activate"},
            {"stop", "end", "halt", "finish", "terminate", "disable", "deactivate", "cancel"},
            {"close", "shut", "quit", "exit", "dismiss"},
            {"run", "execute", "invoke", "evaluate", "perform"},
            {"move", "rename", "relocate", "transfer"},
            {"copy", "duplicate", "clone"},
            {"save", "store", "keep", "persist", "remember", "memorize", "record", "note"},
            {"write", "type", "enter", "input", "fill"},
            {"click", "press", "tap", "tick", "check", "push"},
            {"select", "choose", "pick", "option"},
            {"navigate", "go", "visit", "browse", "open", "load"},
            {"back", "previous", "prior", "earlier"},
            {"forward", "next"},
            {"wait", "pause", "sleep", "delay", "until"},
            {"send", "post", "submit", "deliver", "transmit"},
            {"download", "fetch", "save"},
            {"upload", "attach"},
            {"compress", "zip", "gzip", "archive", "pack"},
            {"extract", "pull", "scrape", "parse", "harvest"},
            {"summarize", "summary", "digest", "abstract"},
            {"translate", "translation"},
            {"convert", "transform", "turn"},
            {"compare", "diff", "difference"},
            {"repeat", "echo", "mirror"},
            {"test", "check", "verify", "validate"},
            {"emulate", "simulate", "mimic", "pretend", "fake", "spoof", "mock"},
            {"resize", "size", "dimension", "width", "height", "viewport"},
            {"scroll", "swipe"},
            {"hover", "mouse", "pointer", "cursor"},
            {"drag", "drop"},
            {"key", "keyboard", "keystroke", "shortcut"},
            {"count", "tally", "statistics", "stats", "metrics", "usage"},
            // arithmetic
            {"sum", "add", "plus", "total", "addition"},
            {"subtract", "minus", "difference", "deduct"},
            {"multiply", "times", "product"},
            {"divide", "quotient", "ratio"},
            {"calculate", "compute", "math", "arithmetic"},
            // things
            {"image", "picture", "photo", "photograph", "img", "png", "jpg", "jpeg", "graphic", "icon", "logo", "media"},
            {"screenshot", "screen", "capture", "grab"},
            {"video", "movie", "recording", "screencast", "clip", "film"},
            {"audio", "sound", "voice", "speech"},
            {"file", "document"},
            {"folder", "directory", "dir"},
            {"page", "webpage", "website", "site", "url", "address", "web"},
            {"link", "hyperlink", "anchor"},
            {"relation", "relationship", "connection", "link", "association"},
            {"tab", "page", "window"},
            {"browser", "chrome", "chromium"},
            {"error", "exception", "failure", "fault", "warning", "problem"},
            {"console", "log", "logging", "output"},
            {"network", "traffic", "request", "http", "bandwidth"},
            {"memory", "heap", "ram"},
            {"performance", "speed", "trace", "profile", "timing", "throttle", "throttling", "slow"},
            {"location", "geolocation", "gps", "position", "coordinates"},
            {"dialog", "popup", "alert", "prompt", "confirm", "modal"},
            {"form", "field", "textbox", "box"},
            {"entity", "node", "item", "object", "person", "thing"},
            {"observation", "fact", "note", "detail", "attribute"},
            {"environment", "env", "variable", "configuration", "config", "settings"},
            {"annotation", "annotated", "metadata", "label", "tag"},
            {"text", "content", "words", "string"},
            {"table", "rows", "columns", "grid", "spreadsheet"},
            {"permission", "allowed", "access", "authorized"},
            {"info", "information", "details", "properties"},
            {"weather", "forecast", "temperature", "climate"},
            {"email", "mail", "inbox"},
            {"message", "chat", "conversation"},
            {"calendar", "event", "meeting", "appointment", "schedule"},
            {"user", "account", "profile", "member"},
            {"price", "cost", "fee", "charge"},
            {"time", "date", "clock", "timezone"},
            {"style", "css", "appearance", "design", "layout"},
            {"script", "javascript", "js", "code"},
            {"small", "tiny", "little", "mini"},
            {"sample", "example", "demo"},
        });
        return lex;
    }

private:
    std::vector<std::vector<std::string>> groups_;
};

/// The kinds of literal values a request carries, as the words a tool's text uses for the
/// argument that takes them: a URL or domain ("https://a.org", "news.example.com") → "url",
/// "page", "website"; a file name with a common extension or a path ("notes.txt",
/// "archive/2026") → "file", "path" (an image file also "image"); an e-mail address → "email".
/// A request that names a value usually needs the tool that takes one ("open example.com").
[[nodiscard]] inline std::vector<std::string> value_kinds(std::string_view text) {
    static constexpr std::string_view tlds[] = {"com", "org", "net", "io", "dev", "edu", "gov", "co", "uk", "de", "fr", "app", "ai"};
    static constexpr std::string_view images[] = {"png", "jpg", "jpeg", "gif", "svg", "webp", "bmp"};
    static constexpr std::string_view files[] = {"txt", "md", "json", "csv", "pdf", "html", "xml", "yaml", "yml", "log", "zip",
                                                 "gz", "tar", "mp4", "mp3", "wav", "py", "js", "ts", "cpp", "hpp", "h", "c",
                                                 "doc", "docx", "xls", "xlsx", "toml", "ini", "sh"};
    auto in = [](std::string_view w, const auto& list) {
        for (const auto& x : list)
            if (w == x) return true;
        return false;
    };
    auto lower = [](std::string_view w) {
        std::string s(w);
        for (auto& c : s) c = (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
        return s;
    };
    std::vector<std::string> out;
    auto add = [&](std::initializer_list<std::string_view> ws) {
        for (auto w : ws)
            if (std::find(out.begin(), out.end(), w) == out.end()) out.emplace_back(w);
    };
    std::size_t i = 0;
    while (i < text.size()) {
        while (i < text.size() && (text[i] == ' ' || text[i] == '\t' || text[i] == '\n' || text[i] == '\r')) ++i;
        std::size_t j = i;
        while (j < text.size() && text[j] != ' ' && text[j] != '\t' && text[j] != '\n' && text[j] != '\r') ++j;
        std::string tok = lower(text.substr(i, j - i));
        i = j;
        while (!tok.empty() && std::string_view("?!,;:.)]}'\"`").find(tok.back()) != std::string_view::npos) tok.pop_back();
        while (!tok.empty() && std::string_view("([{'\"`").find(tok.front()) != std::string_view::npos) tok.erase(0, 1);
        if (tok.size() < 3) continue;
        if (tok.find("://") != std::string::npos || tok.rfind("www.", 0) == 0) {
            add({"url", "page", "website"});
            continue;
        }
        const auto at = tok.find('@');
        if (at != std::string::npos && at > 0 && tok.find('.', at) != std::string::npos) {
            add({"email"});
            continue;
        }
        const auto dot = tok.rfind('.');
        if (dot != std::string::npos && dot > 0 && dot + 1 < tok.size()) {
            const std::string_view ext = std::string_view(tok).substr(dot + 1);
            if (in(ext, images)) add({"file", "path", "image"});
            else if (in(ext, files)) add({"file", "path"});
            else if (in(ext, tlds)) add({"url", "page", "website"});
            continue;
        }
        const auto slash = tok.find('/');
        if (slash != std::string::npos && tok.size() > 1) add({"file", "path"});
    }
    return out;
}

}  // namespace agentkit
