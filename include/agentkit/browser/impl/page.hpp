// agentkit/browser/impl/page.hpp — browser: reading the page: screenshots, evaluate, console and network logs, structured extraction.
// Part of browser.hpp (which includes it at its end); not an entry point of its own.
#pragma once

#include <agentkit/browser/browser.hpp>

namespace agentkit::browser {

AGENTKIT_DECL auto browser::screenshot(screenshot_options o) -> result<screenshot_result> {
    std::lock_guard op(op_mu_);
    auto e = ensure();
    if (!e) return fail(e.error());
    auto t = current_tab();
    if (!t) return fail(t.error());
    if (o.format != "png" && o.format != "jpeg" && o.format != "webp")
        return fail(errc::args_invalid, "screenshot format must be png, jpeg or webp");
    if (o.marks && !o.ref.empty())
        return fail(errc::args_invalid, "marks are drawn on the viewport or the full page, not on one element",
                    "Leave out the ref (or marks).");
    json p = {{"format", o.format}};
    if (o.format != "png") p["quality"] = std::clamp(o.quality, 1, 100);
    screenshot_result out;
    out.mime_type = "image/" + o.format;
    auto m = call((*t)->session, "Page.getLayoutMetrics");
    if (!m) return fail(m.error());
    const json& vv = detail::jobj(*m, "cssVisualViewport");
    out.width = detail::jnum(vv, "clientWidth");
    out.height = detail::jnum(vv, "clientHeight");
    if (!o.ref.empty()) {
        auto h = resolve(o.ref);
        if (!h) return fail(h.error());
        (void)call(h->session, "DOM.scrollIntoViewIfNeeded", json{{"backendNodeId", h->backend}});
        auto box = call(h->session, "DOM.getBoxModel", json{{"backendNodeId", h->backend}});
        if (!box) return fail(errc::element_not_visible, "ref " + o.ref + " has no box to capture", "It may be hidden.");
        const json& q = detail::jobj(*box, "model");
        auto border = q.find("border");
        if (border == q.end() || !border->is_array() || border->size() < 8)
            return fail(errc::element_not_visible, "ref " + o.ref + " has no box to capture");
        double x0 = 1e18, y0 = 1e18, x1 = -1e18, y1 = -1e18;
        for (std::size_t i = 0; i + 1 < border->size(); i += 2) {
            const double x = (*border)[i].get<double>(), y = (*border)[i + 1].get<double>();
            x0 = std::min(x0, x), x1 = std::max(x1, x), y0 = std::min(y0, y), y1 = std::max(y1, y);
        }
        auto off = frame_offset(h->tab, h->session);
        if (!off) return fail(off.error());
        auto m2 = call((*t)->session, "Page.getLayoutMetrics");
        if (!m2) return fail(m2.error());
        const json& v2 = detail::jobj(*m2, "cssVisualViewport");
        p["clip"] = {{"x", x0 + off->first + detail::jnum(v2, "pageX")}, {"y", y0 + off->second + detail::jnum(v2, "pageY")},
                     {"width", std::max(1.0, x1 - x0)}, {"height", std::max(1.0, y1 - y0)}, {"scale", 1}};
        out.width = x1 - x0;
        out.height = y1 - y0;
    } else if (o.full_page) {
        const json& cs = detail::jobj(*m, "cssContentSize");
        out.width = detail::jnum(cs, "width");
        out.height = detail::jnum(cs, "height");
        p["clip"] = {{"x", 0}, {"y", 0}, {"width", out.width}, {"height", out.height}, {"scale", 1}};
        p["captureBeyondViewport"] = true;
    }
    // Image pixels per CSS pixel (the device pixel ratio, read where the page cannot restyle it).
    double dpr = 1;
    if (auto d = isolated_eval(*t, "devicePixelRatio"); d && d->is_number() && d->get<double>() > 0) dpr = d->get<double>();
    // The image's pixels per device pixel: CSS pixels asked for, then shrunk to the bounds.
    auto shrink_for = [&](double css_w, double css_h) {
        double k = o.css_pixels ? 1 / dpr : 1;
        const double w = css_w * dpr * k, h = css_h * dpr * k;
        double s = 1;
        if (o.max_side > 0 && std::max(w, h) > o.max_side) s = o.max_side / std::max(w, h);
        if (o.max_pixels > 0 && w * h * s * s > o.max_pixels) s = std::sqrt(o.max_pixels / (w * h));
        return k * s;
    };
    double k = 1;
    if (p.contains("clip")) {  // an element or the full page: scaled as it is captured
        k = shrink_for(out.width, out.height);
        p["clip"]["scale"] = k;
    }
    auto capture = [&](json params) -> result<std::string> {
        auto r = call((*t)->session, "Page.captureScreenshot", std::move(params), opt_.navigation_timeout);
        if (!r) return fail(r.error());
        std::string data = detail::jstr(*r, "data");
        if (data.empty()) return fail(errc::protocol_error, "Page.captureScreenshot returned no data");
        return data;
    };
    auto first = capture(p);
    if (!first) return fail(first.error());
    out.base64 = std::move(*first);
    out.scale = dpr * k;
    if (o.ref.empty() && !o.full_page) {
        // the viewport's image has the scrollbars too: its CSS size is the image's over the scale
        if (const auto px = detail::image_size_of(out.base64); px.width > 0 && px.height > 0) {
            out.width = px.width / dpr;
            out.height = px.height / dpr;
            if (const double kv = shrink_for(out.width, out.height); kv < 1) {  // the same view again, scaled
                json again = p;
                again["clip"] = {{"x", detail::jnum(vv, "pageX")}, {"y", detail::jnum(vv, "pageY")}, {"width", out.width},
                                 {"height", out.height}, {"scale", kv}};
                auto scaled = capture(std::move(again));
                if (!scaled) return fail(scaled.error());
                out.base64 = std::move(*scaled);
                out.scale = dpr * kv;
            }
        }
    }
    if (o.marks) {
        if (auto mk = mark_screenshot(*t, out, o, detail::jnum(vv, "pageX"), detail::jnum(vv, "pageY")); !mk) return fail(mk.error());
        out.snapshot = finish_snapshot(std::move(*out.snapshot)).value_or(page_snapshot{});
    }
    return out;
}

AGENTKIT_DECL auto browser::evaluate(std::string_view expression, std::string_view ref) -> result<evaluated> {
    std::lock_guard op(op_mu_);
    if (!opt_.allow_evaluate && !opt_.policy.allow_evaluate)
        return fail(errc::policy_blocked, "JavaScript evaluation is disabled (policy rule allow_evaluate)",
                    "The host must enable browser_options::allow_evaluate (or policy allowEvaluate) to allow it.",
                    json{{"rule", "allow_evaluate"}});
    auto e = ensure();
    if (!e) return fail(e.error());
    auto t = current_tab();
    if (!t) return fail(t.error());
    // Every step keeps the value by reference: a function is then called, a promise awaited,
    // and what comes out is read by value at the end (or described, when JSON cannot hold it).
    std::string session;
    auto release = [&](const std::string& object_id) {
        if (!object_id.empty())
            eng_->conn.call_async("Runtime.releaseObject", json{{"objectId", object_id}}, session, [](result<json>) {});
    };
    auto ok = [](const result<json>& x) { return x && !x->contains("exceptionDetails"); };
    result<json> r = json();
    if (!ref.empty()) {
        auto h = resolve(ref);
        if (!h) return fail(h.error());
        session = h->session;
        r = call(session, "Runtime.callFunctionOn",
                 json{{"functionDeclaration", "function(){ const v = (" + std::string(expression) + "); return typeof v === 'function' ? v(this) : v; }"},
                      {"objectId", h->object_id}, {"returnByValue", false}, {"awaitPromise", true}, {"userGesture", true}});
    } else {
        session = (*t)->session;
        // REPL mode: statements, top-level await, `let` declared again; an anonymous
        // `function () {…}` is an expression there only in parentheses (a statement needs a name)
        std::string source(expression);
        const auto first = source.find_first_not_of(" \t\r\n");
        if (first != std::string::npos && (source.compare(first, 9, "function ") == 0 || source.compare(first, 9, "function(") == 0 ||
                                           source.compare(first, 15, "async function ") == 0 || source.compare(first, 15, "async function(") == 0))
            source = "(" + source + ")";
        r = call(session, "Runtime.evaluate",
                 json{{"expression", source}, {"returnByValue", false}, {"awaitPromise", true},
                      {"userGesture", true}, {"replMode", true}});
        if (ok(r) && detail::jstr(detail::jobj(*r, "result"), "type") == "function") {  // `() => value`: call it
            const std::string fn = detail::jstr(detail::jobj(*r, "result"), "objectId");
            r = call(session, "Runtime.callFunctionOn",
                     json{{"functionDeclaration", "function(){ return this(); }"}, {"objectId", fn}, {"returnByValue", false},
                          {"awaitPromise", true}, {"userGesture", true}});
            release(fn);
        }
        if (ok(r) && detail::jstr(detail::jobj(*r, "result"), "subtype") == "promise") {
            // (an expression whose value is a promise completes with the promise in REPL mode)
            const std::string p = detail::jstr(detail::jobj(*r, "result"), "objectId");
            r = call(session, "Runtime.awaitPromise", json{{"promiseObjectId", p}, {"returnByValue", false}});
            release(p);
        }
    }
    if (!r && r.error().is(errc::timeout) && stop_scripts(*t, {}, opt_.call_timeout))
        return fail(errc::timeout, "the script did not finish within " + std::to_string(opt_.call_timeout.count()) + " ms; it was stopped",
                    "Avoid long-running scripts; the page is usable again.");
    if (!r) return fail(redact_result(r.error()));
    if (r->contains("exceptionDetails")) {
        const json& ex = detail::jobj(*r, "exceptionDetails");
        std::string what = detail::jstr(detail::jobj(ex, "exception"), "description");
        if (what.empty()) what = detail::jstr(ex, "text");
        return fail(redact_result(error(errc::tool_failed,
                                             detail::quoting_page("the script threw", "exception: " + detail::page_quote(what, 2000), nonce_),
                                             "Fix the expression.", json{{"page_data", detail::escape_marks_json(ex)}})));
    }
    const json res = detail::jobj(*r, "result");
    const std::string type = detail::jstr(res, "type");
    const std::string object_id = detail::jstr(res, "objectId");
    evaluated out;
    auto described = [&](std::string kind, std::string text) {
        out.kind = std::move(kind);
        out.text = redact_result(std::move(text));
        release(object_id);
        return out;
    };
    auto head = [](std::string d) {  // a function's source: its first line, bounded
        d = d.substr(0, d.find('\n'));
        if (d.size() > 120) d = d.substr(0, utf8_safe_prefix(d, 120)) + "…";
        return d;
    };
    if (type == "undefined") return described("undefined", "undefined");
    if (type == "function") return described("function", "a function: " + head(detail::jstr(res, "description")));
    if (type == "symbol") return described("symbol", detail::jstr(res, "description"));
    if (res.contains("unserializableValue")) {
        const std::string u = detail::jstr(res, "unserializableValue");
        return described(type == "bigint" ? "bigint" : "number", u);
    }
    const std::string subtype = detail::jstr(res, "subtype");
    if (!object_id.empty() && !subtype.empty() && subtype != "array" && subtype != "null" && subtype != "typedarray")
        return described("object", detail::jstr(res, "description"));  // a node, a Date, a RegExp, a Map, an Error: {} by value
    if (res.contains("value")) {
        out.value = redact_result(res["value"]);
    } else if (!object_id.empty()) {
        auto v = call(session, "Runtime.callFunctionOn",
                      json{{"functionDeclaration", "function(){ return this; }"}, {"objectId", object_id}, {"returnByValue", true}});
        if (!ok(v) || !detail::jobj(*v, "result").contains("value"))  // a DOM node, a cycle: no JSON form
            return described("object", detail::jstr(res, "description").empty() ? std::string("an object") : detail::jstr(res, "description"));
        out.value = redact_result(detail::jobj(*v, "result")["value"]);
        release(object_id);
    }
    out.text = out.value.dump(-1, ' ', false, json::error_handler_t::replace);
    return out;
}

template <class F>
auto browser::on_current_tab(F&& f) -> result<std::invoke_result_t<F, detail::tab_state&>> {
    std::lock_guard op(op_mu_);
    auto e = ensure();
    if (!e) return fail(e.error());
    auto t = current_tab();
    if (!t) return fail(t.error());
    // The page's events up to now are counted before the tab's logs are read: a flood of console
    // messages may trail the snapshot that saw the flood end, part of it still on its way from
    // the renderer under load. One round trip to the tab's own session comes back behind every
    // event the page sent before it (a session's events and answers keep their order); then the
    // dispatcher has handled all that arrived. Skipped for a page that cannot answer (held by a
    // dialog flood, crashed, closed). Bounded: the round trip is waited for while messages keep
    // arriving (a flood still being read, which takes seconds under load), for at most
    // call_timeout, and given up after a second in which nothing arrived.
    std::string session;
    bool answers = false;
    {
        std::lock_guard lock(eng_->mu);
        session = (*t)->session;
        answers = !(*t)->stuck && !(*t)->crashed && !(*t)->closed;
    }
    // A cancelled call stops waiting at the next slice.
    const auto deadline = clock::now() + opt_.call_timeout;
    if (answers && !session.empty()) {
        auto answered = eng_->conn.call_async("Runtime.getHeapUsage", json::object(), session, opt_.call_timeout);
        auto seen = eng_->conn.received_messages();
        while (answered.wait_for(std::chrono::milliseconds(1000)) != std::future_status::ready) {
            const auto now_seen = eng_->conn.received_messages();
            if (now_seen == seen || clock::now() >= deadline || detail::op_stop.stop_requested()) break;
            seen = now_seen;
        }
    }
    while (!eng_->conn.sync_events(std::chrono::milliseconds(1000)) && eng_->conn.is_open() && clock::now() < deadline &&
           !detail::op_stop.stop_requested()) {
    }
    std::lock_guard lock(eng_->mu);
    return f(**t);
}

AGENTKIT_DECL auto browser::console_messages(bool clear, std::size_t* dropped, bool this_document) -> result<std::vector<console_message>> {
    return on_current_tab([&](detail::tab_state& t) {
        std::size_t from = 0;  // the first message of the current document, when only those are asked for
        if (this_document && t.console_document > t.console_dropped) from = std::min(t.console_document - t.console_dropped, t.console.size());
        std::vector<console_message> out(t.console.begin() + static_cast<std::ptrdiff_t>(from), t.console.end());
        if (dropped) *dropped = t.console_dropped + from;
        if (clear) {
            t.console.clear();
            t.console_dropped = 0;
            t.console_document = 0;
        }
        for (auto& m : out) {
            m.text = redact_result(std::move(m.text));
            m.url = redact_result(std::move(m.url));
        }
        return out;
    });
}

AGENTKIT_DECL auto browser::network_requests(bool clear, std::size_t* dropped) -> result<std::vector<network_entry>> {
    return on_current_tab([&](detail::tab_state& t) {
        std::vector<network_entry> out;
        for (const auto& [k, v] : t.network) out.push_back(v);
        if (dropped) *dropped = t.network_dropped;
        if (clear) {
            t.network.clear();
            t.network_dropped = 0;
        }
        for (auto& n : out) {  // a secret typed into a form is in the request that sends it
            n.url = redact_result(std::move(n.url));
            for (auto* hs : {&n.request_headers, &n.response_headers})
                for (auto& h : *hs) h.second = redact_result(std::move(h.second));
            if (n.post_data) n.post_data = redact_result(std::move(*n.post_data));
        }
        return out;
    });
}

AGENTKIT_DECL auto browser::pdf() -> result<std::string> {
    std::lock_guard op(op_mu_);
    auto t = begin_page_call();
    if (!t) return fail(t.error());
    auto r = call((*t)->session, "Page.printToPDF", json{{"printBackground", true}, {"preferCSSPageSize", true}}, opt_.navigation_timeout);
    if (!r) {
        if (r.error().is(errc::browser_crashed)) return fail(r.error());
        return fail(errc::tool_failed, "the page could not be printed as a PDF: " + r.error().message,
                    "A headed browser prints only in recent versions; take a screenshot instead.");
    }
    auto bytes = base64_decode(detail::jstr(*r, "data"));
    if (!bytes) return fail(errc::protocol_error, "the PDF the browser sent is not valid base64");
    return std::move(*bytes);
}

AGENTKIT_DECL auto browser::response_body(std::size_t position) -> result<std::string> {
    std::lock_guard op(op_mu_);
    auto e = ensure();
    if (!e) return fail(e.error());
    auto t = current_tab();
    if (!t) return fail(t.error());
    std::string key;
    {
        std::lock_guard lock(eng_->mu);
        if (position >= (*t)->network.size()) return fail(errc::not_found, "no such request in the tab's network log");
        key = (*t)->network[position].first;
    }
    // a body still arriving is not there yet: wait (a little) for the request to end. (A fetch
    // whose body the page never reads may not end: the browser holds no body to give then.)
    const bool ended = wait_until(
        [&] {
            for (const auto& [k, entry] : (*t)->network)
                if (k == key) return entry.finished;
            return true;  // gone from the log: ask anyway
        },
        std::min<std::chrono::milliseconds>(opt_.call_timeout, std::chrono::milliseconds(3000)));
    const auto bar = key.find('|');
    auto r = call(key.substr(0, bar), "Network.getResponseBody", json{{"requestId", key.substr(bar + 1)}});
    if (!r) {
        if (r.error().is(errc::browser_crashed)) return fail(r.error());
        return fail(errc::not_found,
                    ended ? "the browser does not hold this response's body (" + r.error().message + ")"
                          : "this response's body has not arrived (the page may not have read it)",
                    "Load the page again to read it.");
    }
    std::string body = detail::jstr(*r, "body");
    if (detail::jbool(*r, "base64Encoded")) {
        auto bytes = base64_decode(body);
        if (!bytes) return fail(errc::protocol_error, "the response body is not valid base64");
        body = std::move(*bytes);
    }
    return redact_result(std::move(body));
}

AGENTKIT_DECL auto browser::extract(extract_options o) -> result<json> {
    std::lock_guard op(op_mu_);
    if (o.kind != "auto" && o.kind != "table" && o.kind != "list" && o.kind != "fields")
        return fail(errc::args_invalid, "extract kind must be auto, table, list or fields");
    if (o.kind == "fields" && (!o.schema.is_object() || o.schema.empty()))
        return fail(errc::args_invalid, "fields extraction needs a schema", "e.g. {\"price\": \"number\", \"title\": \"string\"}");
    auto e = ensure();
    if (!e) return fail(e.error());
    auto t = current_tab();
    if (!t) return fail(t.error());
    const json args = json::array({json{{"value", o.kind}}, json{{"value", o.schema}},
                                    json{{"value", static_cast<std::int64_t>(std::max<std::size_t>(1, o.max_items))}}});
    result<json> r = json();
    if (!o.ref.empty()) {
        auto h = resolve(o.ref);
        if (!h) return fail(h.error());
        r = call_on(*h, detail::kExtractScript, args, false, opt_.call_timeout);
    } else {
        auto doc = call((*t)->session, "Runtime.evaluate", json{{"expression", "document"}});
        if (!doc) return fail(doc.error());
        node_handle h;
        h.tab = *t;
        h.session = (*t)->session;
        h.object_id = detail::jstr(detail::jobj(*doc, "result"), "objectId");
        r = call_on(h, detail::kExtractScript, args, false, opt_.call_timeout);
    }
    if (!r && r.error().is(errc::timeout) && stop_scripts(*t, {}, opt_.call_timeout))
        return fail(errc::timeout, "the page was busy; its script was stopped", "Try again.");
    if (!r) return fail(redact_result(r.error()));
    if (r->contains("error"))
        return fail(errc::not_found, detail::jstr(*r, "error") + (o.ref.empty() ? std::string() : " (in ref " + o.ref + ")"),
                    "Pick the ref of the table or list (take a snapshot), or another kind.");
    return redact_result(std::move(*r));
}
}  // namespace agentkit::browser
