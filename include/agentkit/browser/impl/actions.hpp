// agentkit/browser/impl/actions.hpp — browser: actions on elements: click, hover, drag, type, fill, press, select, check, upload.
// Part of browser.hpp (which includes it at its end); not an entry point of its own.
#pragma once

#include <agentkit/browser/browser.hpp>

namespace agentkit::browser {

AGENTKIT_DECL auto browser::click(std::string_view ref, click_options o) -> result<action_result> {
    return act("click " + std::string(ref), [&](const tab_ptr&) -> result<void> { return click_ref(ref, o); });
}

AGENTKIT_DECL auto browser::double_click(std::string_view ref) -> result<action_result> {
    click_options o;
    o.click_count = 2;
    return act("double click " + std::string(ref), [&](const tab_ptr&) -> result<void> { return click_ref(ref, o); });
}

AGENTKIT_DECL auto browser::hover(std::string_view ref) -> result<action_result> {
    return act("hover " + std::string(ref), [&](const tab_ptr&) -> result<void> {
        auto h = resolve(ref);
        if (!h) return fail(h.error());
        auto p = visible_point(*h, true);
        if (!p) return fail(p.error());
        return mouse(h->tab, "mouseMoved", p->first, p->second, "none", 0, 0);
    });
}

AGENTKIT_DECL auto browser::drag(std::string_view from_ref, std::string_view to_ref) -> result<action_result> {
    return act("drag " + std::string(from_ref) + " to " + std::string(to_ref), [&](const tab_ptr&) -> result<void> {
        auto a = resolve(from_ref);
        if (!a) return fail(a.error());
        auto pa = visible_point(*a, true);
        if (!pa) return fail(pa.error());
        auto b = resolve(to_ref);
        if (!b) return fail(b.error());
        // the drop point once the drag started (scrolling it into view may move the page)
        return mouse_drag(a->tab, *pa, [&]() { return visible_point(*b, false); });
    });
}

AGENTKIT_DECL auto browser::drop(std::string_view ref, const std::vector<std::string>& files,
                                  const std::map<std::string, std::string>& data) -> result<action_result> {
    if (files.empty() && data.empty())
        return fail(errc::args_invalid, "nothing to drop", "Pass the files' paths, data (MIME type to text), or both.");
    return act("drop onto " + std::string(ref), [&](const tab_ptr&) -> result<void> {
        json drag{{"items", json::array()}, {"dragOperationsMask", 1 | 2 | 16}};  // copy, link, move
        for (const auto& [mime, text] : data) drag["items"].push_back(json{{"mimeType", mime}, {"data", text}});
        if (!files.empty()) {
            auto paths = upload_paths(files);
            if (!paths) return fail(paths.error());
            drag["files"] = std::move(*paths);
        }
        auto h = resolve(ref);
        if (!h) return fail(h.error());
        auto p = visible_point(*h, true);
        if (!p) return fail(p.error());
        to_front(h->tab);
        for (const char* type : {"dragEnter", "dragOver", "drop"}) {
            auto r = call(h->tab->session, "Input.dispatchDragEvent", json{{"type", type}, {"x", p->first}, {"y", p->second}, {"data", drag}});
            if (!r) return fail(r.error());
        }
        return {};
    });
}

AGENTKIT_DECL auto browser::mouse_drag(const tab_ptr& t, std::pair<double, double> pa,
                                const std::function<result<std::pair<double, double>>()>& end) -> result<void> {
    // HTML5 drag and drop is intercepted and replayed as drag events; plain mouse drags work as is.
    json intercepted;
    std::mutex imu;
    auto sub = eng_->conn.on("Input.dragIntercepted", [&](const cdp::event& ev) {
        std::lock_guard l(imu);
        intercepted = detail::jobj(ev.params, "data");
    }, t->session);
    (void)call(t->session, "Input.setInterceptDrags", json{{"enabled", true}});
    if (auto r = mouse(t, "mouseMoved", pa.first, pa.second, "none", 0, 0); !r) return r;
    if (auto r = mouse(t, "mousePressed", pa.first, pa.second, "left", 1, 1); !r) return r;
    auto pb = end();
    if (!pb) {
        (void)mouse(t, "mouseReleased", pa.first, pa.second, "left", 1, 0);
        (void)call(t->session, "Input.setInterceptDrags", json{{"enabled", false}});
        return fail(pb.error());
    }
    for (int i = 1; i <= 5; ++i) {
        const double x = pa.first + (pb->first - pa.first) * i / 5.0;
        const double y = pa.second + (pb->second - pa.second) * i / 5.0;
        if (auto r = mouse(t, "mouseMoved", x, y, "left", 0, 1); !r) return r;
    }
    json data;
    {
        std::lock_guard l(imu);
        data = intercepted;
    }
    if (!data.is_null() && !data.empty()) {
        for (const char* type : {"dragEnter", "dragOver", "drop"}) {
            auto r = call(t->session, "Input.dispatchDragEvent",
                          json{{"type", type}, {"x", pb->first}, {"y", pb->second}, {"data", data}});
            if (!r) break;
        }
    }
    auto r = mouse(t, "mouseReleased", pb->first, pb->second, "left", 1, 0);
    (void)call(t->session, "Input.setInterceptDrags", json{{"enabled", false}});
    return r;
}

AGENTKIT_DECL auto browser::secret_target_check(std::string_view ref, const std::vector<std::string>& names) -> result<void> {
    if (names.empty()) return {};
    auto h = resolve(ref);
    if (!h) return fail(h.error());
    // the frame's security origin as the browser knows it (an about:blank or srcdoc frame has
    // its parent's, a sandboxed one none), never what the page's scripts say
    auto tree = call(h->session, "Page.getFrameTree");
    if (!tree) return fail(tree.error());
    std::string origin;
    bool found = false;
    std::vector<const json*> todo{&detail::jobj(*tree, "frameTree")};
    for (int guard = 0; !todo.empty() && !found && guard < 10000; ++guard) {
        const json* n = todo.back();
        todo.pop_back();
        const json& f = detail::jobj(*n, "frame");
        if (detail::jstr(f, "id") == h->frame) {
            origin = detail::jstr(f, "securityOrigin");
            found = true;
        }
        if (const auto c = n->find("childFrames"); c != n->end() && c->is_array())
            for (const auto& ch : *c) todo.push_back(&ch);
    }
    for (const auto& name : names) {
        auto v = opt_.policy.check_secret_origin(name, found ? origin : std::string());
        if (v)
            return fail(errc::policy_blocked, "secret " + name + " is not typed into " + v->url + ": " + v->rule,
                        "Type it only on the site it belongs to; ask the host to add this origin to the secret's origins if it does.",
                        json{{"rule", v->rule}, {"origin", v->url}, {"secret", name}});
    }
    return {};
}

AGENTKIT_DECL auto browser::type(std::string_view ref, std::string_view typed, type_options o) -> result<action_result> {
    std::vector<std::string> used;
    auto sub = opt_.policy.substitute(typed, &used);
    if (!sub) return fail(sub.error());
    const std::string& text = *sub;
    return act("type into " + std::string(ref), [&](const tab_ptr&) -> result<void> {
        if (auto c = secret_target_check(ref, used); !c) return fail(c.error());
        return type_ref(ref, text, o);
    });
}

AGENTKIT_DECL auto browser::fill(const std::vector<fill_field>& fields, std::string_view submit_ref) -> result<action_result> {
    std::vector<std::string> texts;
    std::vector<std::vector<std::string>> used(fields.size());
    texts.reserve(fields.size());
    for (std::size_t i = 0; i < fields.size(); ++i) {
        const auto& f = fields[i];
        const field_kind k = f.kind;
        if (k == field_kind::checkbox || k == field_kind::radio || k == field_kind::combobox) {
            texts.push_back(f.value);
            continue;
        }
        auto sub = opt_.policy.substitute(f.value, &used[i]);
        if (!sub) return fail(sub.error());
        texts.push_back(std::move(*sub));
    }
    std::string what = "fill " + std::to_string(fields.size()) + " fields";
    if (!submit_ref.empty()) what += " and click " + std::string(submit_ref);
    return act(std::move(what), [&](const tab_ptr& t) -> result<void> {
        std::string done;
        for (std::size_t i = 0; i < fields.size(); ++i) {
            const auto& f = fields[i];
            auto one = [&]() -> result<void> {
                const field_kind k = f.kind;
                if (k == field_kind::checkbox || k == field_kind::radio) {
                    const std::string& v = f.value;
                    const bool on = v == "true" || v == "on" || v == "yes" || v == "1" || v == "checked";
                    if (!on && v != "false" && v != "off" && v != "no" && v != "0" && v != "unchecked")
                        return fail(errc::args_invalid, "value \"" + v + "\" is not a checked state", "Use \"true\" or \"false\".");
                    return check_ref(f.ref, on);
                }
                if (k == field_kind::combobox) return select_ref(f.ref, {f.value});
                if (auto c = secret_target_check(f.ref, used[i]); !c) return fail(c.error());
                return type_ref(f.ref, texts[i], {});
            };
            auto r = one();
            // a field the page enables in reaction to the previous one: let the DOM settle once, retry
            if (!r && i > 0 && r.error().details.is_object() && r.error().details.value("disabled", false)) {
                (void)dom_quiet(t);
                r = one();
            }
            if (!r) {
                error e = r.error();
                e.message = (f.name.empty() ? f.ref : f.name) + ": " + e.message;
                if (!done.empty()) e.message = "filled " + done + "; then " + e.message;
                return fail(std::move(e));
            }
            done += (done.empty() ? "" : ", ") + (f.name.empty() ? f.ref : f.name);
        }
        if (submit_ref.empty()) return {};
        if (auto c = click_ref(submit_ref, {}); !c) {
            error e = c.error();
            e.message = "filled " + done + "; then the submit click: " + e.message;
            return fail(std::move(e));
        }
        return {};
    });
}

AGENTKIT_DECL auto browser::press(std::string_view chord, std::string_view ref) -> result<action_result> {
    return act("press " + std::string(chord), [&](const tab_ptr& t) -> result<void> {
        auto parsed = parse_key_chord(chord);
        if (!parsed) return fail(parsed.error());
        tab_ptr target = t;
        if (!ref.empty()) {
            auto h = resolve(ref);
            if (!h) return fail(h.error());
            (void)call(h->session, "DOM.focus", json{{"backendNodeId", h->backend}});
            target = h->tab;
        }
        return press_keys(target, chord);
    });
}

AGENTKIT_DECL auto browser::select(std::string_view ref, std::vector<std::string> values) -> result<action_result> {
    return act("select in " + std::string(ref), [&](const tab_ptr&) -> result<void> { return select_ref(ref, values); });
}

AGENTKIT_DECL auto browser::set_checked(std::string_view ref, bool checked) -> result<action_result> {
    return act(std::string(checked ? "check " : "uncheck ") + std::string(ref),
               [&](const tab_ptr&) -> result<void> { return check_ref(ref, checked); });
}

AGENTKIT_DECL auto browser::upload(std::string_view ref, std::vector<std::string> files) -> result<action_result> {
    const bool chooser = ref.empty();
    return act(chooser ? (files.empty() ? std::string("cancel the file chooser") : std::string("answer the file chooser"))
                       : "upload to " + std::string(ref),
               [&](const tab_ptr& t) -> result<void> {
        std::string session;
        std::int64_t backend = 0;
        bool multiple = false;
        if (chooser) {
            std::optional<detail::file_chooser_rec> c;
            {
                std::lock_guard lock(eng_->mu);
                c = t->chooser;
            }
            if (!c)
                return fail(errc::not_found, "no file chooser is open on the page",
                            "Click the control that opens one first, or pass the file input's ref.");
            if (files.empty()) {  // cancelled: the page hears nothing, as when a person closes the chooser
                std::lock_guard lock(eng_->mu);
                t->chooser.reset();
                return {};
            }
            if (c->backend == 0)
                return fail(errc::tool_failed, "this file chooser was opened by showOpenFilePicker, not by a file input",
                            "It cannot be given files here; look for a file input on the page.");
            session = c->session;
            backend = c->backend;
            multiple = c->multiple;
        } else {
            auto h = resolve(ref);
            if (!h) return fail(h.error());
            auto info = element_info(*h);
            if (!info) return fail(info.error());
            if (detail::jstr(*info, "tag") != "input" || detail::jstr(*info, "type") != "file")
                return fail(errc::args_invalid, "ref " + std::string(ref) + " is not a file input",
                            "Use the ref of an <input type=file> (a button that opens a chooser usually wraps one).");
            session = h->session;
            backend = h->backend;
            multiple = detail::jbool(*info, "multiple");
        }
        if (files.size() > 1 && !multiple)
            return fail(errc::args_invalid, std::string("this ") + (chooser ? "file chooser" : "file input") + " takes one file",
                        "Pass a single path.");
        auto paths = upload_paths(files);
        if (!paths) return fail(paths.error());
        auto r = call(session, "DOM.setFileInputFiles", json{{"files", *paths}, {"backendNodeId", backend}});
        if (!r) return fail(r.error());
        if (chooser) {
            std::lock_guard lock(eng_->mu);
            t->chooser.reset();
        }
        return {};
    });
}

AGENTKIT_DECL auto browser::upload_paths(const std::vector<std::string>& files) -> result<json> {
    browser_policy pol;
    {
        std::lock_guard lock(policy_mu_);
        pol = opt_.policy;
    }
    // the directories files may come from: the uploads directory and the workspace's roots, real
    // paths (symlinks and ".." resolved), so the rule cannot be escaped
    std::vector<std::filesystem::path> dirs;
    std::vector<std::string> names;
    if (!pol.allow_file_access) {
        std::vector<std::string> all = pol.upload_roots;
        if (!pol.uploads_dir.empty()) all.insert(all.begin(), pol.uploads_dir);
        if (all.empty())
            return fail(errc::policy_blocked, "uploads are off (policy rule uploads_dir: no uploads directory is configured)",
                        "The host must configure an uploads directory (policy uploadsDir, --uploads-dir) and put "
                        "the files there, or enable file access.",
                        json{{"rule", "uploads_dir"}});
        for (const auto& d : all) {
            std::error_code ec;
            auto real = std::filesystem::canonical(d, ec);
            if (!ec) dirs.push_back(std::move(real));
            names.push_back(d);
        }
    }
    json paths = json::array();
    for (const auto& f : files) {
        std::error_code ec;
        auto real = std::filesystem::canonical(f, ec);
        if (ec || !std::filesystem::is_regular_file(real, ec))
            return fail(errc::not_found, "no such file: " + f, "Pass paths of existing files.", json{{"path", f}});
        if (!pol.allow_file_access) {
            const bool inside = std::any_of(dirs.begin(), dirs.end(), [&](const std::filesystem::path& dir) {
                auto [d, r] = std::mismatch(dir.begin(), dir.end(), real.begin(), real.end());
                return d == dir.end();
            });
            if (!inside) {
                std::string list;
                for (const auto& n : names) list += (list.empty() ? "" : ", ") + n;
                return fail(errc::policy_blocked,
                            "upload of " + f + " refused (policy rule uploads_dir: only files inside " + list + ")",
                            "Use a file inside " + list + ".",
                            json{{"rule", "uploads_dir"}, {"path", real.string()}, {"allowed", names}});
            }
        }
        paths.push_back(real.string());
    }
    return paths;
}

AGENTKIT_DECL auto browser::file_chooser() -> std::optional<file_chooser_info> {
    if (!eng_) return std::nullopt;
    auto t = current_tab();
    if (!t) return std::nullopt;
    std::lock_guard lock(eng_->mu);
    const auto& c = (*t)->chooser;
    if (!c) return std::nullopt;
    return file_chooser_info{c->multiple, c->backend != 0};
}

AGENTKIT_DECL auto browser::mouse_params(const char* type, double x, double y, const char* button, int count, int buttons, int modifiers) -> json {
    return json{{"type", type}, {"x", x}, {"y", y}, {"button", button}, {"clickCount", count},
                {"buttons", buttons}, {"modifiers", modifiers}};
}

AGENTKIT_DECL auto browser::mouse(const tab_ptr& t, const char* type, double x, double y, const char* button, int count, int buttons, int modifiers) -> result<void> {
    to_front(t);
    auto r = call(t->session, "Input.dispatchMouseEvent", mouse_params(type, x, y, button, count, buttons, modifiers));
    if (!r) return fail(r.error());
    if (std::string_view(type) != "mouseWheel") {  // where the mouse is and what it holds, for the coordinate actions
        t->mouse_x = x;
        t->mouse_y = y;
        t->mouse_buttons = buttons;
    }
    return {};
}

AGENTKIT_DECL auto browser::type_ref(std::string_view ref, const std::string& text, const type_options& o) -> result<void> {
    auto h = resolve(ref);
    if (!h) return fail(h.error());
    auto info = element_info(*h);
    if (!info) return fail(info.error());
    const std::string tag = detail::jstr(*info, "tag"), kind = detail::jstr(*info, "type");
    if (detail::jbool(*info, "disabled"))
        return fail(errc::tool_failed, "ref " + std::string(ref) + " is disabled", "Enable it first or pick another field.",
                    json{{"disabled", true}});
    if (detail::jbool(*info, "readonly")) {  // as Playwright's actions do: wait (bounded) for it to take text
        const auto ms = (opt_.element_wait.count() > 0 ? opt_.element_wait : opt_.call_timeout).count();
        auto w = call_on(*h, detail::kWaitStateScript, json::array({json{{"value", "editable"}}, json{{"value", ms}}}), true,
                         std::chrono::milliseconds(ms + 2000));
        if (!w) return fail(w.error());
        if (*w != json(true))
            return fail(errc::timeout, "ref " + std::string(ref) + " is read-only: Timeout " + std::to_string(ms) + "ms exceeded.",
                        "A read-only field takes no text: type into an editable one.", json{{"readonly", true}});
    }
    const bool value_kind = tag == "input" && (kind == "date" || kind == "time" || kind == "datetime-local" ||
                                               kind == "month" || kind == "week" || kind == "color" || kind == "range");
    (void)call(h->session, "DOM.scrollIntoViewIfNeeded", json{{"backendNodeId", h->backend}});
    if (value_kind) {
        auto r = call_on(*h, detail::kSetValueScript, json::array({json{{"value", std::string(text)}}}));
        if (!r) return fail(r.error());
    } else {
        if (tag != "input" && tag != "textarea" && !detail::jbool(*info, "editable"))
            return fail(errc::args_invalid, "ref " + std::string(ref) + " (<" + tag + ">) is not a text field",
                        "Type into a textbox, searchbox or editable element; use select for a combobox.");
        if (auto f = call(h->session, "DOM.focus", json{{"backendNodeId", h->backend}}); !f) {
            if (auto c = click_ref(ref, {}); !c) return c;
        }
        if (o.replace) (void)call_on(*h, detail::kSelectAllScript, json::array());
        if (text.empty() && o.replace) {
            if (auto k = press_keys(h->tab, "Delete"); !k) return k;
        } else if (o.slowly) {
            to_front(h->tab);
            if (auto r = type_keys(h->tab, text); !r) return r;
        } else {
            to_front(h->tab);
            auto r = call(h->tab->session, "Input.insertText", json{{"text", std::string(text)}});
            if (!r) return fail(r.error());
        }
    }
    if (o.submit) return press_keys(h->tab, "Enter");
    return {};
}

AGENTKIT_DECL auto browser::select_ref(std::string_view ref, const std::vector<std::string>& values) -> result<void> {
    auto h = resolve(ref);
    if (!h) return fail(h.error());
    json wanted = json::array();
    for (const auto& v : values) wanted.push_back(v);
    auto r = call_on(*h, detail::kSelectScript, json::array({json{{"value", wanted}}}));
    if (!r) return fail(r.error());
    const std::string err = detail::jstr(*r, "error");
    if (err == "not_select")
        return fail(errc::args_invalid, "ref " + std::string(ref) + " is not a <select> (it is <" + detail::jstr(*r, "tag") + ">)",
                    "For a custom dropdown, click it and then click the option's ref.");
    // the options are the page's words: quoted in marks, and under "page_data" in the details
    auto options_of = [&](const char* key) { return r->contains(key) ? detail::escape_marks_json((*r)[key]) : json::array(); };
    if (err == "missing")
        return fail(errc::args_invalid,
                    detail::quoting_page("no option " + (*r)["missing"].dump() + " in ref " + std::string(ref),
                                         "options: " + options_of("available").dump(), nonce_),
                    "Pass one of the options shown, as written.",
                    json{{"missing", r->contains("missing") ? (*r)["missing"] : json::array()},
                         {"page_data", {{"available", options_of("available")}}}});
    if (err == "single")
        return fail(errc::args_invalid, "ref " + std::string(ref) + " accepts only one option", "Pass one value.",
                    json{{"error", "single"}});
    if (err == "disabled")
        return fail(errc::tool_failed,
                    detail::quoting_page("the select or an option is disabled", "disabled: " + options_of("disabled").dump(), nonce_),
                    "Pick an enabled option.", json{{"disabled", true}, {"page_data", {{"options", options_of("disabled")}}}});
    return {};
}

AGENTKIT_DECL auto browser::check_ref(std::string_view ref, bool checked) -> result<void> {
    auto h = resolve(ref);
    if (!h) return fail(h.error());
    auto info = element_info(*h);
    if (!info) return fail(info.error());
    if (!detail::jbool(*info, "checkable"))
        return fail(errc::args_invalid, "ref " + std::string(ref) + " is not a checkbox or radio button",
                    "Use click for other elements.");
    if (detail::jbool(*info, "checked") == checked) return {};
    if (!checked && detail::jstr(*info, "type") == "radio")
        return fail(errc::args_invalid, "a radio button cannot be unchecked directly",
                    "Check another radio button of the same group.");
    if (auto c = click_ref(ref, {}); !c) return c;
    auto after = element_info(*h);
    if (!after) return fail(after.error());
    if (detail::jbool(*after, "checked") != checked)
        return fail(errc::tool_failed, "clicking ref " + std::string(ref) + " did not change its checked state",
                    "The page may prevent it; take a snapshot to see why.");
    return {};
}

AGENTKIT_DECL auto browser::click_ref(std::string_view ref, const click_options& o) -> result<void> {
    auto h = resolve(ref);
    if (!h) return fail(h.error());
    auto mods = parse_modifiers(o.modifiers);
    if (!mods) return fail(mods.error());
    const int modifiers = *mods;
    auto p = visible_point(*h, true);
    if (!p && p.error().is(errc::element_not_visible)) {
        // a hidden checkbox, radio or switch: clicked where a person clicks it (kStandInScript)
        if (auto in = stand_in(*h)) p = visible_point(*in, true);
    }
    if (!p) return fail(p.error());
    const char* button = o.button == "right" ? "right" : o.button == "middle" ? "middle" : "left";
    const int mask = o.button == "right" ? 2 : o.button == "middle" ? 4 : 1;
    // The move, presses and releases go out together and are awaited together: Chromium keeps
    // their order (a press flushes the frame-aligned move before it is dispatched), and the
    // move's answer alone would wait for the next frame.
    to_front(h->tab);
    std::vector<std::future<result<json>>> sent;
    auto send = [&](const char* type, const char* b, int count, int buttons) {
        sent.push_back(eng_->conn.call_async("Input.dispatchMouseEvent",
                                             mouse_params(type, p->first, p->second, b, count, buttons, modifiers),
                                             h->tab->session));
    };
    send("mouseMoved", "none", 0, 0);
    for (int i = 1; i <= std::max(1, o.click_count); ++i) {
        send("mousePressed", button, i, mask);
        send("mouseReleased", button, i, 0);
    }
    result<void> out;
    for (auto& f : sent) {
        auto r = await_answer(h->tab->session, "Input.dispatchMouseEvent", std::move(f));
        if (!r && out) out = fail(r.error());
        if (!r && r.error().is(errc::dialog_open)) break;  // the page waits for a dialog: the rest of the click waits too
    }
    h->tab->mouse_x = p->first;  // (sent without mouse(): where the mouse is now)
    h->tab->mouse_y = p->second;
    h->tab->mouse_buttons = 0;
    return out;
}

AGENTKIT_DECL auto browser::type_keys(const tab_ptr& t, std::string_view text) -> result<void> {
    for (std::size_t i = 0; i < text.size();) {
        // one character (a UTF-8 sequence): its key down with its text, then up
        std::size_t n = 1;
        const auto lead = static_cast<unsigned char>(text[i]);
        if (lead >= 0xF0) n = 4;
        else if (lead >= 0xE0) n = 3;
        else if (lead >= 0xC0) n = 2;
        const std::string ch(text.substr(i, n));
        i += n;
        if (ch == "\n" || ch == "\r") {  // a new line is the Enter key
            if (auto r = press_keys(t, "Enter"); !r) return r;
            continue;
        }
        json down{{"type", "keyDown"}, {"key", ch}, {"text", ch}, {"unmodifiedText", ch}};
        json up{{"type", "keyUp"}, {"key", ch}};
        if (ch.size() == 1 && std::isalnum(static_cast<unsigned char>(ch[0]))) {
            const char c = ch[0];
            const bool digit = c >= '0' && c <= '9';
            const int code = digit ? c : std::toupper(static_cast<unsigned char>(c));
            const std::string key_code = digit ? std::string("Digit") + c : std::string("Key") + static_cast<char>(code);
            for (json* e : {&down, &up}) {
                (*e)["code"] = key_code;
                (*e)["windowsVirtualKeyCode"] = code;
                (*e)["nativeVirtualKeyCode"] = code;
            }
        }
        if (auto r = call(t->session, "Input.dispatchKeyEvent", std::move(down)); !r) return fail(r.error());
        if (auto r = call(t->session, "Input.dispatchKeyEvent", std::move(up)); !r) return fail(r.error());
    }
    return {};
}

AGENTKIT_DECL auto browser::press_keys(const tab_ptr& t, std::string_view chord_text) -> result<void> {
    auto chord = parse_key_chord(chord_text);
    if (!chord) return fail(chord.error());
    to_front(t);
    int mods = 0;
    auto key_event = [&](const char* type, const key_def& k, int m) -> result<void> {
        json p = {{"type", type}, {"key", k.key}, {"code", k.code}, {"windowsVirtualKeyCode", k.key_code},
                  {"nativeVirtualKeyCode", k.key_code}, {"modifiers", m}};
        if (std::string_view(type) == "keyDown" && !k.text.empty()) {
            p["text"] = k.text;
            p["unmodifiedText"] = k.text;
        }
        auto r = call(t->session, "Input.dispatchKeyEvent", std::move(p));
        if (!r) return fail(r.error());
        return {};
    };
    static constexpr int bits[] = {1, 2, 4, 8};
    std::size_t bi = 0;
    for (const auto& mk : chord->modifier_keys) {
        while (bi < 4 && (chord->modifiers & bits[bi]) == 0) ++bi;
        if (bi < 4) mods |= bits[bi++];
        if (auto r = key_event("rawKeyDown", mk, mods); !r) return r;
    }
    if (auto r = key_event(chord->key.text.empty() ? "rawKeyDown" : "keyDown", chord->key, chord->modifiers); !r) return r;
    if (auto r = key_event("keyUp", chord->key, chord->modifiers); !r) return r;
    for (auto it = chord->modifier_keys.rbegin(); it != chord->modifier_keys.rend(); ++it)
        if (auto r = key_event("keyUp", *it, 0); !r) return r;
    return {};
}

AGENTKIT_DECL auto browser::open_dialogs() -> std::vector<dialog_record> {
    std::vector<dialog_record> out;
    if (!eng_) return out;
    auto t = current_tab();
    if (!t) return out;
    {
        std::lock_guard lock(eng_->mu);
        for (const auto& [d, session] : (*t)->held_dialogs) out.push_back(d);
    }
    for (auto& d : out) {
        d.message = redact_result(std::move(d.message));
        d.default_prompt = redact_result(std::move(d.default_prompt));
        d.url = redact_result(std::move(d.url));
    }
    return out;
}

AGENTKIT_DECL auto browser::answer_dialog(bool accept, std::optional<std::string> prompt_text) -> result<action_result> {
    return act(accept ? "accept the dialog" : "dismiss the dialog", [&](const tab_ptr& t) -> result<void> {
        dialog_record d;
        std::string session;
        {
            std::lock_guard lock(eng_->mu);
            if (t->held_dialogs.empty())
                return fail(errc::not_found, "no dialog is open on the page", "Answer a dialog only while the last result lists one open.");
            d = t->held_dialogs.front().first;
            session = t->held_dialogs.front().second;
            t->held_dialogs.pop_front();  // before its close event: a dialog raised next is the next one held
        }
        json answer = {{"accept", accept}};
        if (accept && d.type == "prompt") answer["promptText"] = prompt_text ? *prompt_text : d.default_prompt;
        auto r = call(session, "Page.handleJavaScriptDialog", std::move(answer));
        if (!r) return fail(r.error());
        return {};
    });
}

AGENTKIT_DECL auto browser::stand_in(const node_handle& h) -> std::optional<node_handle> {
    auto r = call(h.session, "Runtime.callFunctionOn",
                  json{{"functionDeclaration", detail::kStandInScript}, {"objectId", h.object_id}, {"returnByValue", false}});
    if (!r) return std::nullopt;
    const std::string oid = detail::jstr(detail::jobj(*r, "result"), "objectId");
    if (oid.empty()) return std::nullopt;  // null: no stand-in
    auto d = call(h.session, "DOM.describeNode", json{{"objectId", oid}});
    if (!d) return std::nullopt;
    node_handle out = h;
    out.backend = detail::jint(detail::jobj(*d, "node"), "backendNodeId");
    out.object_id = oid;
    if (out.backend == 0) return std::nullopt;
    return out;
}

}  // namespace agentkit::browser

