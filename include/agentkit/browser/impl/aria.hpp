// agentkit/browser/impl/aria.hpp — browser: Playwright MCP's aria snapshot and its refs (the
// compatible output mode): the snapshot, resolving its refs, and the locator of a ref.
// Part of browser.hpp (which includes it at its end); not an entry point of its own.
#pragma once

#include <agentkit/browser/browser.hpp>
#include <agentkit/browser/detail/aria_script.hpp>

namespace agentkit::browser {

namespace detail {
/// Whether `ref` has the form of an aria ref: e12, f1e3.
inline bool is_aria_ref(std::string_view ref) {
    std::size_t i = 0;
    auto digits = [&] {
        const std::size_t from = i;
        while (i < ref.size() && ref[i] >= '0' && ref[i] <= '9') ++i;
        return i > from;
    };
    if (i < ref.size() && ref[i] == 'f') {
        ++i;
        if (!digits()) return false;
    }
    if (i >= ref.size() || ref[i] != 'e') return false;
    ++i;
    return digits() && i == ref.size();
}

/// Playwright MCP's words for a ref the last snapshot does not have (or a selector nothing matches).
inline error aria_ref_missing(std::string_view ref) {
    if (!is_aria_ref(ref))
        return error{errc::not_found, "\"" + std::string(ref) + "\" does not match any elements.",
                     "Use a ref from the latest snapshot, or a CSS selector that matches an element.", json{{"target", ref}}};
    return error{errc::ref_unknown, "Ref " + std::string(ref) + " not found in the current page snapshot. Try capturing new snapshot.",
                 "Take a new snapshot (browser_snapshot) and use the refs it shows.", json{{"ref", ref}}};
}

/// The arguments of a question to the aria script about one element: call_on() runs it on the
/// element, in the element's own world, keeping nothing there (opts.stateless).
inline json aria_element_query(json query) {
    return json::array({json{{"value", json{{"query", std::move(query)}, {"stateless", true}}}}});
}
}  // namespace detail

AGENTKIT_DECL auto browser::aria_snapshot(const aria_snapshot_options& o) -> result<std::string> {
    std::lock_guard op(op_mu_);
    auto t = begin_page_call();
    if (!t) return fail(t.error());
    int main_seq = 0, next_seq = 1;
    {
        // A new main document after a non-blank one takes the next frame number, as Playwright's
        // frames do (its refs read f2e1 then).
        std::lock_guard lock(eng_->mu);
        auto& ts = **t;
        const std::string loader = main_loader(*t);
        if (!ts.aria_loader.empty() && loader != ts.aria_loader && !ts.aria_url.empty() && ts.aria_url != "about:blank")
            ts.aria_main_seq = ts.aria_next_seq++;
        ts.aria_loader = loader;
        main_seq = ts.aria_main_seq;
        next_seq = ts.aria_next_seq;
    }
    json opts = {{"mainSeq", main_seq}, {"nextSeq", next_seq}, {"depth", o.depth}, {"boxes", o.boxes},
                 {"testIdAttribute", o.test_id_attribute}};
    if (!o.root_ref.empty()) opts["rootRef"] = o.root_ref;
    auto r = isolated_call(*t, detail::kAriaSnapshotScript, json::array({json{{"value", opts}}}));
    if (!r) return fail(r.error());
    if (!r->is_object()) return fail(errc::tool_failed, "the aria snapshot script returned nothing");
    if (r->contains("error")) return fail(detail::aria_ref_missing(o.root_ref));
    std::string url, title;
    fill_url_title(*t, url, title);
    {
        std::lock_guard lock(eng_->mu);
        (*t)->aria_next_seq = std::max(next_seq, static_cast<int>(r->value("nextSeq", next_seq)));
        (*t)->aria_url = url;
    }
    return r->value("yaml", std::string());
}

AGENTKIT_DECL auto browser::resolve_aria(std::string_view ref) -> result<node_handle> {
    auto t = current_tab();
    if (!t) return fail(t.error());
    auto obj = isolated_call(*t, detail::kAriaElementScript, json::array({json{{"value", ref}}}), false);
    if (!obj) return fail(obj.error());
    const std::string object_id = detail::jstr(*obj, "objectId");
    if (object_id.empty()) return fail(detail::aria_ref_missing(ref));
    node_handle h;
    h.tab = *t;
    h.ref = std::string(ref);
    h.session = (*t)->session;
    h.object_id = object_id;
    auto d = call(h.session, "DOM.describeNode", json{{"objectId", object_id}});
    if (!d) return fail(d.error());
    h.backend = detail::jint(detail::jobj(*d, "node"), "backendNodeId");
    {
        std::lock_guard lock(eng_->mu);
        h.frame = (*t)->main_frame;
        h.target.loader_id = main_loader(*t);
    }
    // An element of a same-origin frame: its frame is its document's owner's content frame
    // (null for the main document's elements: no objectId, nothing more to ask).
    auto fo = call(h.session, "Runtime.callFunctionOn",
                   json{{"functionDeclaration", "function(){ return this.ownerDocument.defaultView && this.ownerDocument.defaultView.frameElement; }"},
                        {"objectId", object_id}});
    if (const std::string fid = fo ? detail::jstr(detail::jobj(*fo, "result"), "objectId") : std::string(); !fid.empty())
        if (auto fd = call(h.session, "DOM.describeNode", json{{"objectId", fid}}); fd)
            if (auto f = detail::jstr(detail::jobj(*fd, "node"), "frameId"); !f.empty()) h.frame = f;
    h.target.session_id = h.session;
    h.target.frame_id = h.frame;
    h.target.backend_node_id = h.backend;
    return h;
}

AGENTKIT_DECL auto browser::document_title() -> result<std::string> {
    std::lock_guard op(op_mu_);
    auto e = ensure();
    if (!e) return fail(e.error());
    auto t = current_tab();
    if (!t) return fail(t.error());
    auto r = isolated_eval(*t, "document.title");
    if (!r) return fail(r.error());
    return r->is_string() ? r->get<std::string>() : std::string();
}

AGENTKIT_DECL auto browser::aria_locator(std::string_view ref) -> result<json> {
    std::lock_guard op(op_mu_);
    auto e = ensure();
    if (!e) return fail(e.error());
    if (!opt_.aria_refs) {  // agentkit's refs: the element, asked in its own world
        auto h = resolve(ref);
        if (!h) return fail(h.error());
        auto r = call_on(*h, detail::kAriaSnapshotScript, detail::aria_element_query(json{{"kind", "locator"}}));
        if (!r) return fail(r.error());
        if (!r->is_object() || !r->contains("locator") || !(*r)["locator"].is_object())
            return fail(errc::tool_failed, "no locator for ref " + std::string(ref));
        return (*r)["locator"];
    }
    auto t = current_tab();
    if (!t) return fail(t.error());
    auto r = isolated_call(*t, detail::kAriaLocatorScript, json::array({json{{"value", ref}}}));
    if (!r) return fail(r.error());
    if (!r->is_object()) return fail(detail::aria_ref_missing(ref));
    return *r;
}

AGENTKIT_DECL auto browser::find_element(const element_query& q) -> result<json> {
    std::lock_guard op(op_mu_);
    auto t = begin_page_call();
    if (!t) return fail(t.error());
    json query = q.role.empty() ? json{{"kind", "text"}, {"text", q.text}} : json{{"kind", "role"}, {"role", q.role}, {"name", q.name}};
    auto r = isolated_call(*t, detail::kAriaSnapshotScript,
                           json::array({json{{"value", json{{"query", std::move(query)}, {"testIdAttribute", q.test_id_attribute}}}}}));
    if (!r) return fail(r.error());
    if (!r->is_object()) return fail(errc::tool_failed, "the element query returned nothing");
    return r->value("locator", json());
}

AGENTKIT_DECL auto browser::element_value(std::string_view ref) -> result<json> {
    std::lock_guard op(op_mu_);
    auto e = ensure();
    if (!e) return fail(e.error());
    auto h = resolve(ref);
    if (!h) return fail(h.error());
    auto r = call_on(*h, detail::kAriaSnapshotScript, detail::aria_element_query(json{{"kind", "value"}}));
    if (!r) return fail(r.error());
    if (!r->is_object()) return fail(errc::tool_failed, "the element query returned nothing");
    return *r;
}

AGENTKIT_DECL auto browser::element_items(std::string_view ref, const std::vector<std::string>& items) -> result<json> {
    std::lock_guard op(op_mu_);
    auto e = ensure();
    if (!e) return fail(e.error());
    const json query = {{"kind", "items"}, {"items", items}};
    result<json> r = json();
    if (ref.empty()) {  // the whole page (its main document)
        auto t = current_tab();
        if (!t) return fail(t.error());
        r = isolated_call(*t, detail::kAriaSnapshotScript, json::array({json{{"value", json{{"query", query}}}}}));
    } else {
        auto h = resolve(ref);
        if (!h) return fail(h.error());
        r = call_on(*h, detail::kAriaSnapshotScript, detail::aria_element_query(query));
    }
    if (!r) return fail(r.error());
    if (!r->is_object()) return fail(errc::tool_failed, "the element query returned nothing");
    return *r;
}

AGENTKIT_DECL auto browser::match_lines(const std::vector<std::string>& lines, std::string_view text,
                                        const std::optional<std::string>& regex, std::string* query)
    -> result<std::vector<std::size_t>> {
    std::lock_guard op(op_mu_);
    auto e = ensure();
    if (!e) return fail(e.error());
    auto t = current_tab();
    if (!t) return fail(t.error());
    json q = {{"kind", "lines"}, {"lines", lines}};
    if (regex) q["regex"] = *regex;
    else q["text"] = std::string(text);
    auto r = isolated_call(*t, detail::kAriaSnapshotScript, json::array({json{{"value", json{{"query", std::move(q)}}}}}));
    if (!r) return fail(r.error());
    if (!r->is_object()) return fail(errc::tool_failed, "the line search returned nothing");
    if (r->contains("error"))
        return fail(errc::args_invalid, r->value("error", std::string("Invalid regular expression")),  // JavaScript's words
                    "Give `regex` as a JavaScript regular expression: a pattern, or /pattern/flags.");
    if (query) *query = r->value("query", std::string());
    std::vector<std::size_t> out;
    for (const auto& i : r->value("matched", json::array()))
        if (i.is_number_unsigned() && i.get<std::size_t>() < lines.size()) out.push_back(i.get<std::size_t>());
    return out;
}

}  // namespace agentkit::browser
