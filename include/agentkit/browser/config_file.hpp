// agentkit/browser/config_file.hpp — a Playwright MCP configuration file (its `Config` JSON, or
// INI: config_ini.hpp) read into a server_config, every key through the command line's own
// handling; a key this server does not know is refused by name. Part of browser/config.hpp
// (include that).
#pragma once

#include <agentkit/browser/server_config.hpp>
#include <agentkit/browser/config_ini.hpp>
#include <agentkit/core/http.hpp>

#include <cctype>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

namespace agentkit::browser {

namespace config_detail {

/// What is wrong with a BCP 47 language tag ("fr-FR", "zh-Hant-TW"), if anything.
inline std::optional<std::string> locale_problem(const std::string& v) {
    std::size_t part = 0, len = 0;
    for (std::size_t i = 0; i <= v.size(); ++i) {
        if (i == v.size() || v[i] == '-' || v[i] == '_') {
            if (len == 0 || len > 8 || (part == 0 && (len < 2 || len > 3))) return "\"" + v + "\" is not a language tag such as fr-FR";
            ++part;
            len = 0;
        } else if (!std::isalnum(static_cast<unsigned char>(v[i])) || (part == 0 && !std::isalpha(static_cast<unsigned char>(v[i])))) {
            return "\"" + v + "\" is not a language tag such as fr-FR";
        } else {
            ++len;
        }
    }
    return std::nullopt;
}

/// What is wrong with an IANA time zone ("Europe/Paris"), if anything: one the system's
/// zone database (/usr/share/zoneinfo) does not have, when it has one.
inline std::optional<std::string> timezone_problem(const std::string& v) {
    const bool shape = !v.empty() && v.find("..") == std::string::npos && v.front() != '/' &&
                       std::all_of(v.begin(), v.end(), [](char ch) { return std::isalnum(static_cast<unsigned char>(ch)) || ch == '/' || ch == '_' || ch == '-' || ch == '+'; });
    if (!shape) return "\"" + v + "\" is not a time zone such as Europe/Paris";
    std::error_code ec;
    if (std::filesystem::is_directory("/usr/share/zoneinfo", ec) && !std::filesystem::is_regular_file("/usr/share/zoneinfo/" + v, ec))
        return "\"" + v + "\" is not a time zone this system knows (/usr/share/zoneinfo)";
    return std::nullopt;
}

/// Top-level keys of a Playwright MCP configuration file that are its command-line options.
inline constexpr std::array<std::pair<std::string_view, std::string_view>, 11> kConfigKeyFlags{{
    {"outputMode", "--output-mode"},
    {"capabilities", "--caps"},
    {"imageResponses", "--image-responses"},
    {"outputMaxSize", "--output-max-size"},
    {"codegen", "--codegen"},
    {"testIdAttribute", "--test-id-attribute"},
    {"filePaths", "--file-paths"},
    {"allowUnrestrictedFileAccess", "--allow-unrestricted-file-access"},
    {"sharedBrowserContext", "--shared-browser-context"},
    {"saveSession", "--save-session"},
    {"extension", "--extension"},
}};

}  // namespace config_detail

/// A Playwright MCP configuration file (its `Config` type). Every key is honoured, refused or
/// accepted as it is on the command line; a key this server does not know is refused (it will
/// not start rather than ignore it), so what a file asks for is never silently dropped.
/// Read a --config file (JSON, Playwright MCP's layout; or INI, config_ini.hpp: a `.ini` file,
/// or one that is not JSON and does not start with `{`) into `c`: every key through the command
/// line's own handling (the same values, checks and notes); errc::args_invalid names the key.
inline result<void> apply_config_file(server_config& c, const std::string& path) {
    using namespace config_detail;
    std::string err;
    std::ifstream in(path, std::ios::binary);
    if (!in) {
        return fail(errc::args_invalid, "cannot read config file " + path);
    }
    std::ostringstream raw;
    raw << in.rdbuf();
    std::string text = raw.str();
    if (text.rfind("\xEF\xBB\xBF", 0) == 0) text.erase(0, 3);  // a byte order mark
    const bool ini_name = path.size() > 4 && path.compare(path.size() - 4, 4, ".ini") == 0;
    json j = ini_name ? json(nullptr) : json::parse(text, nullptr, false);
    if (ini_name || (j.is_discarded() && trim_ascii(text).rfind('{', 0) != 0)) {
        auto ini = ini_config(text);
        if (!ini) return fail(errc::args_invalid, "config file " + path + " (INI): " + ini.error().message);
        j = std::move(*ini);
    }
    if (j.is_discarded() || !j.is_object()) {
        return fail(errc::args_invalid, "config file " + path + " is not a JSON object");
    }
    bool ok = true;
    auto wrong = [&](const std::string& key, const char* expected) {
        if (ok) err = "config " + path + ": " + key + " must be " + expected;
        ok = false;
    };
    auto unknown = [&](const std::string& key) { c.unsupported.push_back("config key " + key); };
    auto object = [&](const std::string& key, const json& v) {
        if (!v.is_object()) wrong(key, "an object");
        return v.is_object();
    };
    // through the command line's handling: the same values, checks and notes
    auto option = [&](const std::string& key, const std::string& flag, const json& v) {
        const auto takes = playwright_option_takes_value(flag);
        if (!takes) {  // a flag name this file's handling does not know: a defect, never dropped
            if (ok) err = "config " + path + ": " + key + " has no handling (" + flag + ")";
            ok = false;
            return;
        }
        std::optional<std::string> value;
        if (!*takes) {
            // a switch: only a boolean turns it on or off ("false" or 0 must not turn it on)
            if (!v.is_boolean()) return wrong(key, "true or false");
            if (!v.get<bool>()) return;
        } else if (v.is_string()) {
            value = v.get<std::string>();
        } else if (v.is_number_integer()) {
            value = std::to_string(v.get<long long>());
        } else if (v.is_array()) {
            std::string list;
            for (const auto& e : v) {
                if (!e.is_string()) return wrong(key, "a list of strings");
                list += (list.empty() ? "" : ",") + e.get<std::string>();
            }
            value = list;
        } else {
            return wrong(key, "a string, a number or a list of strings");
        }
        const std::size_t refused = c.unsupported.size(), noted = c.notes.size();
        if (auto applied = playwright_option_apply(c, flag, value); !applied) {
            if (ok) err = "config " + path + ": " + key + ": " + applied.error().message;
            ok = false;
        }
        // say it with the file's name for it
        for (auto* list : {&c.unsupported, &c.notes})
            for (std::size_t i = list == &c.unsupported ? refused : noted; i < list->size(); ++i)
                if ((*list)[i].rfind(flag, 0) == 0) (*list)[i] = "config " + key + (*list)[i].substr(flag.size());
    };
    auto str = [&](const json& o, const char* k, const std::string& key, std::string& dst) {
        if (!o[k].is_string()) return wrong(key, "a string");
        dst = o[k].get<std::string>();
    };
    for (const auto& [k, v] : j.items()) {
        if (k == "browser") {
            if (!object(k, v)) continue;
            for (const auto& [bk, bv] : v.items()) {
                const std::string key = "browser." + bk;
                if (bk == "browserName") {
                    option(key, "--browser", bv);
                } else if (bk == "isolated") {
                    if (!bv.is_boolean()) wrong(key, "a boolean");  // a temporary profile is the default
                    else c.isolated = c.isolated || bv.get<bool>();
                } else if (bk == "cdpHeaders") {
                    if (!bv.is_object()) {
                        wrong(key, "an object of header names and values");
                        continue;
                    }
                    for (auto h = bv.begin(); h != bv.end(); ++h) {
                        if (!h.value().is_string() || !net::valid_header(h.key(), h.value().get<std::string>())) {
                            wrong(key + "." + h.key(), "a header value without line breaks, under a name of letters, digits and -");
                            continue;
                        }
                        c.browser.cdp_headers.emplace_back(h.key(), h.value().get<std::string>());
                    }
                } else if (bk == "userDataDir") {
                    str(v, "userDataDir", key, c.browser.launch.user_data_dir);
                } else if (bk == "cdpEndpoint") {
                    str(v, "cdpEndpoint", key, c.browser.cdp_endpoint);
                } else if (bk == "cdpTimeout") {
                    option(key, "--cdp-timeout", bv);
                } else if (bk == "remoteEndpoint") {
                    option(key, "--endpoint", json("endpoint"));
                } else if (bk == "initScript") {  // files, relative to the configuration file
                    if (!bv.is_array() || !std::all_of(bv.begin(), bv.end(), [](const json& x) { return x.is_string(); })) {
                        wrong(key, "a list of JavaScript files");
                        continue;
                    }
                    for (const auto& f : bv) {
                        std::filesystem::path file = f.get<std::string>();
                        if (file.is_relative()) file = std::filesystem::path(path).parent_path() / file;
                        option(key, "--init-script", json(file.string()));
                    }
                } else if (bk == "initPage") {
                    option(key, "--init-page", json("page"));
                } else if (bk == "launchOptions") {
                    if (!object(key, bv)) continue;
                    for (const auto& [lk, lv] : bv.items()) {
                        const std::string lkey = key + "." + lk;
                        if (lk == "executablePath") {
                            str(bv, "executablePath", lkey, c.browser.launch.executable);
                        } else if (lk == "headless") {
                            if (!lv.is_boolean()) wrong(lkey, "a boolean");
                            else c.browser.launch.headless = lv.get<bool>();
                        } else if (lk == "args") {
                            if (!lv.is_array()) {
                                wrong(lkey, "a list of strings");
                                continue;
                            }
                            for (const auto& a : lv) {
                                if (!a.is_string()) {
                                    wrong(lkey, "a list of strings");
                                    break;
                                }
                                c.browser.launch.extra_args.push_back(a.get<std::string>());
                            }
                        } else if (lk == "proxy") {
                            if (!lv.is_object() || !lv.value("server", json()).is_string() ||
                                (lv.contains("bypass") && !lv["bypass"].is_string())) {
                                wrong(lkey, "{\"server\": \"host:port\", \"bypass\": \"a.com,b.com\"}");
                                continue;
                            }
                            if (!c.config_proxy) c.config_proxy = lv;
                        } else if (lk == "channel") {
                            option(lkey, "--browser", lv);
                        } else if (lk == "chromiumSandbox") {
                            if (!lv.is_boolean()) wrong(lkey, "a boolean");
                            else option(lkey, lv.get<bool>() ? "--sandbox" : "--no-sandbox", true);
                        } else {
                            unknown(lkey);
                        }
                    }
                } else if (bk == "contextOptions") {
                    if (!object(key, bv)) continue;
                    for (const auto& [ck, cv] : bv.items()) {
                        const std::string ckey = key + "." + ck;
                        if (ck == "viewport") {
                            if (!cv.is_object() || !cv.value("width", json()).is_number_integer() ||
                                !cv.value("height", json()).is_number_integer()) {
                                wrong(ckey, "{\"width\": W, \"height\": H}");
                                continue;
                            }
                            c.browser.viewport.width = cv["width"].get<int>();
                            c.browser.viewport.height = cv["height"].get<int>();
                        } else if (ck == "deviceScaleFactor") {
                            if (!cv.is_number() || cv.get<double>() <= 0 || cv.get<double>() > 10) {
                                wrong(ckey, "a number of device pixels per CSS pixel, above 0 and at most 10");
                                continue;
                            }
                            c.browser.viewport.device_scale_factor = cv.get<double>();
                        } else if (ck == "isMobile" || ck == "hasTouch") {
                            if (!cv.is_boolean()) {
                                wrong(ckey, "true or false");
                                continue;
                            }
                            (ck == "isMobile" ? c.browser.viewport.mobile : c.browser.viewport.touch) = cv.get<bool>();
                        } else if (ck == "locale" || ck == "timezoneId") {
                            if (!cv.is_string()) {
                                wrong(ckey, "a string");
                                continue;
                            }
                            const std::string val = cv.get<std::string>();
                            if (auto bad = ck == "locale" ? config_detail::locale_problem(val) : config_detail::timezone_problem(val)) {
                                if (ok) err = "config " + path + ": " + ckey + ": " + *bad;
                                ok = false;
                                continue;
                            }
                            (ck == "locale" ? c.browser.emulation.locale : c.browser.emulation.timezone_id) = val;
                        } else if (ck == "colorScheme" || ck == "reducedMotion" || ck == "forcedColors" || ck == "contrast") {
                            static const std::map<std::string, std::vector<std::string>> allowed{
                                {"colorScheme", {"light", "dark", "no-preference"}}, {"reducedMotion", {"reduce", "no-preference"}},
                                {"forcedColors", {"active", "none"}}, {"contrast", {"more", "no-preference"}}};
                            const auto& list = allowed.at(ck);
                            if (!cv.is_string() || std::find(list.begin(), list.end(), cv.get<std::string>()) == list.end()) {
                                wrong(ckey, "one of the CSS values of that media feature");
                                continue;
                            }
                            auto& m = c.browser.emulation.media;
                            (ck == "colorScheme" ? m.color_scheme : ck == "reducedMotion" ? m.reduced_motion : ck == "forcedColors" ? m.forced_colors : m.contrast) = cv.get<std::string>();
                        } else if (ck == "javaScriptEnabled" || ck == "bypassCSP") {
                            if (!cv.is_boolean()) {
                                wrong(ckey, "true or false");
                                continue;
                            }
                            (ck == "javaScriptEnabled" ? c.browser.emulation.javascript_enabled : c.browser.emulation.bypass_csp) = cv.get<bool>();
                        } else if (ck == "permissions") {
                            if (!cv.is_array() || !std::all_of(cv.begin(), cv.end(), [](const json& x) { return x.is_string(); })) {
                                wrong(ckey, "a list of permission names");
                                continue;
                            }
                            for (const auto& x : cv) c.browser.permissions.push_back(x.get<std::string>());
                        } else if (ck == "userAgent") {
                            option(ckey, "--user-agent", cv);
                        } else if (ck == "proxy") {
                            if (!cv.is_object() || !cv.value("server", json()).is_string() ||
                                (cv.contains("bypass") && !cv["bypass"].is_string())) {
                                wrong(ckey, "{\"server\": \"host:port\", \"bypass\": \"a.com,b.com\"}");
                                continue;
                            }
                            c.config_proxy = cv;
                        } else if (ck == "storageState") {  // a file's path, or the state itself
                            if (cv.is_string()) {
                                option(ckey, "--storage-state", cv);
                            } else if (auto st = parse_storage_state(cv); st) {
                                c.browser.initial_storage = std::move(*st);
                            } else {
                                if (ok) err = "config " + path + ": " + ckey + ": " + st.error().message;
                                ok = false;
                            }
                        } else if (ck == "ignoreHTTPSErrors") {
                            option(ckey, "--ignore-https-errors", cv);
                        } else {
                            unknown(ckey);
                        }
                    }
                } else {
                    unknown(key);
                }
            }
        } else if (k == "network") {
            if (!object(k, v)) continue;
            for (const auto& [nk, nv] : v.items()) {
                if (nk != "allowedOrigins" && nk != "blockedOrigins") {
                    unknown("network." + nk);
                    continue;
                }
                auto list = policy_detail::read_origin_list(nv);
                if (!list) {  // an unreadable list must not become "no list" (every origin allowed)
                    wrong("network." + nk, "a list of origins (strings)");
                    continue;
                }
                auto& dst = nk == "allowedOrigins" ? c.browser.policy.allowed_origins : c.browser.policy.blocked_origins;
                dst.insert(dst.end(), list->begin(), list->end());
            }
        } else if (k == "outputDir") {
            str(j, "outputDir", k, c.store.dir);
            c.store.keep = true;
        } else if (k == "secrets") {
            if (v.is_object()) {
                for (auto it = v.begin(); it != v.end(); ++it) {
                    if (!it.value().is_string() && !it.value().is_object()) {  // a secret that is not redacted is worse than no start
                        wrong("secrets." + it.key(), "a string");
                        continue;
                    }
                    if (auto one = browser_policy::read_secret(c.browser.policy, it.key(), it.value()); !one) {
                        wrong("secrets." + it.key(), "a string or {\"value\": string, \"origins\": [origins]}");
                        continue;
                    }
                }
                drop_empty_secrets(c);
            } else if (v.is_string()) {
                if (auto s = load_secrets(c, v.get<std::string>()); !s) return fail(s.error());
            } else {
                wrong(k, "an object or a dotenv file path");
            }
        } else if (k == "timeouts") {
            if (!object(k, v)) continue;
            for (const auto& [tk, tv] : v.items()) {
                const std::string key = "timeouts." + tk;
                if (tk == "action") option(key, "--timeout-action", tv);
                else if (tk == "navigation") option(key, "--timeout-navigation", tv);
                else if (tk == "settle") option(key, "--timeout-settle", tv);
                else if (tk == "idle") option(key, "--idle-timeout", tv);
                else if (tk == "expect") c.notes.push_back(key + " has no effect here: there are no expect (testing) tools");
                else unknown(key);
            }
        } else if (k == "snapshot") {
            if (!object(k, v)) continue;
            for (const auto& [sk, sv] : v.items()) {
                if (sk == "mode") option("snapshot.mode", "--snapshot-mode", sv);
                else if (sk == "boxes") option("snapshot.boxes", "--snapshot-boxes", sv);
                else unknown("snapshot." + sk);
            }
        } else if (k == "console") {
            if (!object(k, v)) continue;
            for (const auto& [ck, cv] : v.items()) {
                if (ck == "level") option("console.level", "--console-level", cv);
                else unknown("console." + ck);
            }
        } else if (k == "search") {
            if (!object(k, v)) continue;
            for (const auto& [sk, sv] : v.items()) {
                const std::string key = "search." + sk;
                if (sk != "backend" && sk != "url") {
                    // keys come from the environment only: a file with one is refused, not read
                    if (sk.find("key") != std::string::npos || sk.find("Key") != std::string::npos) {
                        if (ok) err = "config " + path + ": " + key + ": search keys are read from the environment only "
                                      "(BRAVE_API_KEY, TAVILY_API_KEY, SERPER_API_KEY), never from a file";
                        ok = false;
                    } else {
                        unknown(key);
                    }
                } else if (!sv.is_string()) {
                    wrong(key, "a string");
                } else if (auto r = search_option_apply(c, sk == "backend" ? "--search" : "--search-url", sv.get<std::string>()); !r) {
                    if (ok) err = "config " + path + ": " + key + ": " + r.error().message;
                    ok = false;
                }
            }
        } else if (k == "server") {
            if (!object(k, v)) continue;
            for (const auto& [sk, sv] : v.items()) {
                if (sk == "port") option("server.port", "--port", sv);
                else if (sk == "host") option("server.host", "--host", sv);
                else if (sk == "allowedHosts") option("server.allowedHosts", "--allowed-hosts", sv);
                else unknown("server." + sk);
            }
        } else if (auto f = std::find_if(kConfigKeyFlags.begin(), kConfigKeyFlags.end(),
                                         [&key = k](const auto& kf) { return kf.first == key; });  // (clang 14: no binding captures)
                   f != kConfigKeyFlags.end()) {
            option(k, std::string(f->second), v);
        } else if (k == "webmcp") {
            if (!v.is_boolean()) wrong(k, "a boolean");  // never exposed: false is what it is, true cannot be
            else if (v.get<bool>()) c.notes.push_back("webmcp has no effect here: page-registered WebMCP tools are never exposed");
        } else {
            unknown(k);
        }
    }
    if (!ok) return fail(errc::args_invalid, err);
    if (auto p = c.browser.policy.validate(); !p) return fail(errc::args_invalid, p.error().message);
    return {};
}

}  // namespace agentkit::browser
