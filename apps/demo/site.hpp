// agentkit-demo's bundled site: a parcel-quote form and the page that answers it, served on
// 127.0.0.1 by the demo itself. The quote is computed by the server from what was submitted,
// so the agent can only report it after really filling and submitting the form.
#pragma once

#include <agentkit/core/url.hpp>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace demo::site {

inline constexpr std::string_view form_page = R"(<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Parcel quote</title>
<style>body{font-family:sans-serif;max-width:32rem;margin:2rem auto}label{display:block;margin:.5rem 0}</style>
</head><body>
<h1>Parcel quote</h1>
<p>Tell us about your parcel and we will quote the shipping price.</p>
<form action="/quote" method="get">
  <label>Name <input name="name" autocomplete="off"></label>
  <label>Email <input name="email" type="email" autocomplete="off"></label>
  <label>Weight in kg <input name="weight" inputmode="decimal" autocomplete="off"></label>
  <label>Destination <select name="destination">
    <option>Oslo</option><option>Lisbon</option><option>Tokyo</option></select></label>
  <label><input type="checkbox" name="express" value="yes"> Express delivery</label>
  <button type="submit">Get quote</button>
</form>
</body></html>
)";

[[nodiscard]] inline std::string query_param(std::string_view query, std::string_view key) {
    std::size_t pos = 0;
    while (pos <= query.size()) {
        std::size_t end = query.find('&', pos);
        if (end == std::string_view::npos) end = query.size();
        const std::string_view kv = query.substr(pos, end - pos);
        const std::size_t eq = kv.find('=');
        if (kv.substr(0, eq) == key) return eq == std::string_view::npos ? std::string() : agentkit::form_decode(kv.substr(eq + 1));
        pos = end + 1;
    }
    return {};
}

[[nodiscard]] inline std::string html_escape(std::string_view s) {
    std::string out;
    for (char c : s) {
        switch (c) {
            case '<': out += "&lt;"; break;
            case '>': out += "&gt;"; break;
            case '&': out += "&amp;"; break;
            case '"': out += "&quot;"; break;
            default: out += c;
        }
    }
    return out;
}

/// The quote page for a submitted query string: price = (base + per-kg × weight) × 1.5 if
/// express; the quote id is a hash of the inputs.
[[nodiscard]] inline std::pair<int, std::string> quote_page(std::string_view query) {
    const std::string name = query_param(query, "name");
    const std::string weight_s = query_param(query, "weight");
    const std::string dest = query_param(query, "destination");
    const bool express = query_param(query, "express") == "yes";
    char* end = nullptr;
    const double weight = std::strtod(weight_s.c_str(), &end);
    long base = 0, per_kg = 0;  // cents
    if (dest == "Oslo") base = 900, per_kg = 400;
    else if (dest == "Lisbon") base = 1200, per_kg = 500;
    else if (dest == "Tokyo") base = 2500, per_kg = 900;
    if (name.empty() || base == 0 || end == weight_s.c_str() || weight <= 0 || weight > 30) {
        return {400, "<!doctype html><title>Quote error</title><h1>Quote error</h1><p>Please give a name, a destination "
                     "and a weight between 0 and 30 kg.</p><a href=\"/\">Back</a>"};
    }
    long cents = base + static_cast<long>(static_cast<double>(per_kg) * weight + 0.5);
    if (express) cents = (cents * 3 + 1) / 2;
    std::uint32_t h = 2166136261U;
    for (char c : name + "|" + weight_s + "|" + dest + (express ? "|x" : "|s")) h = (h ^ static_cast<unsigned char>(c)) * 16777619U;
    char id[16];
    std::snprintf(id, sizeof id, "Q-%04X", static_cast<unsigned>(h & 0xffffU));
    char total[48];
    std::snprintf(total, sizeof total, "EUR %ld.%02ld", cents / 100, cents % 100);
    std::string body = "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>Your quote</title></head><body>";
    body += "<h1>Quote " + std::string(id) + "</h1>";
    body += "<p>Thank you, " + html_escape(name) + ".</p>";
    body += "<p>Total: " + std::string(total) + " for " + html_escape(weight_s) + " kg to " + html_escape(dest) +
            (express ? ", express" : ", standard") + ".</p>";
    body += "<a href=\"/\">New quote</a></body></html>";
    return {200, body};
}

}  // namespace demo::site
