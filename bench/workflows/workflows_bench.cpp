// agentkit-bench-workflows — browser workflows (search, read, fill a form, ...),
// counted per call: round trips and tokens before and after compound tools.
//
// Each workflow runs through agent_session against the scripted model (Anthropic Messages
// format, with the prompt-cache simulator), twice:
//   before  single-action browser tools with the verbose return strings the seed measured
//           (navigate / click / type / screenshot / search / read_page / extract);
//   after   compound tools (fill_form, interact with url + steps, extract with url) returning
//           agentkit's compact strings, under compact_formatter's budgets.
// Both use the same system prompt, context manager (1,400 + 500 head/tail compression) and
// stand-in page content sized like the seed's measurements (ARIA snapshots 4-6K chars,
// screenshots ~1,600 image tokens). Tokens are chars / 4, as in the seed.
//
// Columns: tool round trips (model calls that issued tool calls, the seed's count), API calls
// (including the final answer), input tokens summed over the calls, of which cache reads,
// effective input (fresh + 10% of cache reads + 125% of cache writes), output tokens.
#include <agentkit/agentkit.hpp>

#include <cstdio>
#include <string>
#include <vector>

namespace ak = agentkit;
using ak::json;

namespace {

// ---- stand-in page content ---------------------------------------------------------------
std::string snapshot(const std::string& title, std::size_t fields, std::size_t filler_lines) {
    std::string s = "- document \"" + title + "\"\n  - banner\n    - link \"Home\" [ref=e1]\n    - link \"Explore\" [ref=e2]\n"
                    "    - link \"Notifications\" [ref=e3]\n    - link \"Messages\" [ref=e4]\n  - main\n";
    static const char* labels[] = {"Name", "Email", "Phone", "Company", "Message", "Subject", "Country"};
    for (std::size_t i = 0; i < fields; ++i)
        s += "    - textbox \"" + std::string(labels[i % 7]) + "\" [ref=f" + std::to_string(i) + "]\n";
    for (std::size_t i = 0; i < filler_lines; ++i)
        s += "    - article \"Item " + std::to_string(i) + ": a paragraph of page content with a link\" [ref=a" + std::to_string(i) +
             "]\n      - link \"Read more about item " + std::to_string(i) + "\" [ref=l" + std::to_string(i) + "]\n";
    s += "    - button \"Submit\" [ref=b1]\n  - contentinfo\n";
    return s;
}
std::string search_results_verbose(const std::string& q) {
    std::string s = "Search results for \"" + q + "\":\n";
    for (int i = 1; i <= 8; ++i)
        s += std::to_string(i) + ". Result title number " + std::to_string(i) + " - A snippet of about one hundred and twenty characters that "
             "describes what the page is about in some detail. (https://site" + std::to_string(i) + ".example.com/page)\n";
    return s;
}
std::string article_text(std::size_t paragraphs) {
    std::string s;
    for (std::size_t i = 0; i < paragraphs; ++i)
        s += "Paragraph " + std::to_string(i) + ": the pricing table lists plan " + std::to_string(i) +
             " at a monthly price with seats, storage and support terms described in full sentences here.\n";
    return s;
}

// ---- tool arguments ------------------------------------------------------------------------
struct url_args {
    std::string url;
    static constexpr auto agentkit_fields() { return ak::fields(AGENTKIT_FIELD(url_args, url, "URL", ak::min_length(1))); }
};
struct ref_args {
    std::string ref;
    static constexpr auto agentkit_fields() { return ak::fields(AGENTKIT_FIELD(ref_args, ref, "Element ref or label", ak::min_length(1))); }
};
struct text_args {
    std::string text;
    std::optional<std::string> ref;
    static constexpr auto agentkit_fields() {
        return ak::fields(AGENTKIT_FIELD(text_args, text, "Text to type"), AGENTKIT_FIELD(text_args, ref, "Target element"));
    }
};
struct query_args {
    std::string query;
    static constexpr auto agentkit_fields() { return ak::fields(AGENTKIT_FIELD(query_args, query, "Query", ak::min_length(1))); }
};
struct selector_args {
    std::string selector;
    std::optional<std::string> url;
    static constexpr auto agentkit_fields() {
        return ak::fields(AGENTKIT_FIELD(selector_args, selector, "What to extract (CSS selector or description)"),
                          AGENTKIT_FIELD(selector_args, url, "Navigate here first"));
    }
};
struct no_args_t {
    static constexpr auto agentkit_fields() { return ak::fields(); }
};
struct field_arg {
    std::string label;
    std::string value;
    static constexpr auto agentkit_fields() {
        return ak::fields(AGENTKIT_FIELD(field_arg, label, "Label, placeholder or name"), AGENTKIT_FIELD(field_arg, value, "Value"));
    }
};
struct fill_args {
    std::vector<field_arg> fields;
    std::optional<std::string> submit;
    static constexpr auto agentkit_fields() {
        return ak::fields(AGENTKIT_FIELD(fill_args, fields, "Fields to fill", ak::max_items(20)),
                          AGENTKIT_FIELD(fill_args, submit, "Button to click after filling"));
    }
};
struct step_arg {
    std::string action;
    std::optional<std::string> ref;
    std::optional<std::string> text;
    static constexpr auto agentkit_fields() {
        return ak::fields(AGENTKIT_FIELD(step_arg, action, "click, type, wait, read", ak::one_of("click", "type", "wait", "read")),
                          AGENTKIT_FIELD(step_arg, ref, "Target"), AGENTKIT_FIELD(step_arg, text, "Text for type"));
    }
};
struct interact_args {
    std::optional<std::string> url;
    std::vector<step_arg> steps;
    static constexpr auto agentkit_fields() {
        return ak::fields(AGENTKIT_FIELD(interact_args, url, "Navigate here first"),
                          AGENTKIT_FIELD(interact_args, steps, "Steps, in order", ak::max_items(8)));
    }
};

// ---- before: single-action tools, verbose strings ("before": one action per call, verbose result strings) --------------------
const auto b_navigate = ak::tool<"browser_navigate">("Navigate to a URL and return the page's ARIA snapshot.", [](const url_args& a) {
    const bool home = a.url.find("home") != std::string::npos;
    return "Page: " + std::string(home ? "Home / X" : "Contact us") + "\nURL: " + a.url + "\n\n" +
           snapshot(home ? "Home / X" : "Contact us", home ? 1 : 5, home ? 40 : 28);
}, ak::open_world);
const auto b_click = ak::tool<"browser_click">("Click an element by ref or visible text. Falls back to text match, then coordinates.",
    [](const ref_args& a) {
        const bool submit = a.ref == "Submit";
        return "Clicked \"" + a.ref + "\". Page title: \"" + (submit ? "Thanks" : "Contact us") + "\" URL: https://example.com/contact" +
               (submit ? "/thanks" : "");
    });
const auto b_type = ak::tool<"browser_type">("Type text into the focused field.", [](const text_args& a) {
    return "Typed \"" + a.text + "\" into the text field.";
});
const auto b_screenshot = ak::tool<"browser_screenshot">("Take a screenshot of the page.", [](const no_args_t&) {
    ak::tool_output o = ak::tool_output::text("Screenshot of https://x.com/home");
    o.add_image(std::string(6400, 'Q'), "image/jpeg");  // ~1,600 tokens at chars/4, as the seed measured
    return o;
}, ak::read_only);
const auto b_search = ak::tool<"browser_search">("Search the web.", [](const query_args& a) { return search_results_verbose(a.query); },
                                                 ak::read_only | ak::parallel_safe);
const auto b_extract = ak::tool<"browser_extract">("Extract content from the current page.", [](const selector_args&) {
    return article_text(30);
}, ak::read_only);

// ---- after: compound tools, compact strings ------------------------------------------------
const auto a_navigate = ak::tool<"navigate">("Open a URL; returns Title (url) and the page snapshot.", [](const url_args& a) {
    return "Contact us (" + a.url + ")\n\n" + snapshot("Contact us", 5, 28);
}, ak::open_world);
const auto a_fill = ak::tool<"fill_form">("Fill form fields by label and optionally click submit, in one call.", [](const fill_args& a) {
    std::vector<ak::compact::field_result> r;
    for (const auto& f : a.fields) r.emplace_back(f.label);
    std::string s = ak::compact::filled(r);
    if (a.submit) s += " submit:ok → Thanks (https://example.com/contact/thanks)";
    return s;
});
const auto a_interact = ak::tool<"interact">("Run up to 8 steps (click, type, wait, read) in one call, optionally after opening url.",
    [](const interact_args& a) {
        std::vector<ak::compact::step> st;
        for (const auto& s : a.steps) st.emplace_back(s.action);
        return ak::compact::steps(st) + " → Home / X (https://x.com/home) · toast \"Your post was sent\"";
    });
const auto a_search = ak::tool<"search">("Search the web.", [](const query_args& a) {
    std::vector<ak::compact::search_hit> hits;
    for (int i = 1; i <= 8; ++i)
        hits.push_back({"Result title number " + std::to_string(i),
                        "A snippet of about one hundred and twenty characters that describes what the page is about in some detail.",
                        "https://site" + std::to_string(i) + ".example.com/page"});
    return ak::compact::search_results(a.query, hits, 90);
}, ak::read_only | ak::parallel_safe);
const auto a_extract = ak::tool<"extract">("Extract content (optionally after opening url); capped at 4,000 chars.", [](const selector_args&) {
    return article_text(30);
}, ak::read_only);

// ---- measurement -----------------------------------------------------------------------------
struct measured {
    std::size_t tool_round_trips = 0;
    std::size_t api_calls = 0;
    ak::usage u;
    std::size_t max_call_input = 0;
};

ak::token_counter chars_over_4() {
    return ak::token_counter::from_function([](std::string_view s) { return (s.size() + 3) / 4; });
}

template <class Toolbox>
measured run(Toolbox tools, std::vector<ak::scripted_reply> script, const char* task) {
    ak::session_options o;
    o.tokens = chars_over_4();
    o.context.image_tokens = 1600;
    o.builtin_complete = false;  // the seed's workflows end with a prose answer
    ak::agent_session s{std::move(tools), ak::all_visible{}, ak::compact_formatter{}, o};
    ak::scripted_model m(ak::provider::anthropic, std::move(script), chars_over_4());
    const auto r = s.run(m, task);
    measured out;
    if (!r.ok()) std::fprintf(stderr, "run failed: %s\n", r.error ? r.error->to_text().c_str() : std::string(ak::to_string(r.reason)).c_str());
    for (const auto& t : s.metrics().turns) {
        ++out.api_calls;
        if (!t.tools.empty()) ++out.tool_round_trips;
        out.max_call_input = std::max(out.max_call_input, t.usage.input_tokens);
    }
    out.u = s.metrics().usage;
    return out;
}

json fields5() {
    return json::array({{{"label", "Name"}, {"value", "Ada Lovelace"}},
                        {{"label", "Email"}, {"value", "ada@analytical.engine"}},
                        {{"label", "Phone"}, {"value", "+44 20 7946 0018"}},
                        {{"label", "Company"}, {"value", "Analytical Engines Ltd"}},
                        {{"label", "Message"}, {"value", "Please send the brochure."}}});
}

void row(const char* name, const char* seed_before, const char* seed_after, const measured& b, const measured& a) {
    auto pct = [](double x, double y) { return y > 0 ? 100.0 * (1.0 - x / y) : 0.0; };
    std::printf("%-22s | %-6s → %-6s | %2zu → %-2zu (%2zu → %-2zu calls) | %7zu → %-6zu (-%2.0f%%) | %6zu → %-6zu | %7.0f → %-7.0f (-%2.0f%%) | %4zu → %-4zu\n",
                name, seed_before, seed_after, b.tool_round_trips, a.tool_round_trips, b.api_calls, a.api_calls,
                b.u.input_tokens, a.u.input_tokens, pct(static_cast<double>(a.u.input_tokens), static_cast<double>(b.u.input_tokens)),
                b.u.cache_read_tokens, a.u.cache_read_tokens, b.u.effective_input(), a.u.effective_input(),
                pct(a.u.effective_input(), b.u.effective_input()), b.u.output_tokens, a.u.output_tokens);
}

}  // namespace

int main() {
    const auto before_tools = [] { return ak::toolbox{b_navigate, b_click, b_type, b_screenshot, b_search, b_extract}; };
    const auto after_tools = [] { return ak::toolbox{a_navigate, a_fill, a_interact, a_search, a_extract}; };

    // Fill a 5-field form: navigate, then click+type per field, then submit.
    std::vector<ak::scripted_reply> form_before{ak::script::call({{"browser_navigate", {{"url", "https://example.com/contact"}}}})};
    for (const auto& f : fields5()) {
        form_before.push_back(ak::script::call({{"browser_click", {{"ref", f["label"]}}}}));
        form_before.push_back(ak::script::call({{"browser_type", {{"text", f["value"]}}}}));
    }
    form_before.push_back(ak::script::call({{"browser_click", {{"ref", "Submit"}}}}));
    form_before.push_back(ak::script::say("The form was submitted; the page says Thanks."));
    const std::vector<ak::scripted_reply> form_after{
        ak::script::call({{"navigate", {{"url", "https://example.com/contact"}}}}),
        ak::script::call({{"fill_form", {{"fields", fields5()}, {"submit", "Submit"}}}}),
        ak::script::say("The form was submitted; the page says Thanks."),
    };

    // Post a message: navigate, click composer, type, click Post, verify.
    const std::vector<ak::scripted_reply> post_before{
        ak::script::call({{"browser_navigate", {{"url", "https://x.com/home"}}}}),
        ak::script::call({{"browser_click", {{"ref", "Post text"}}}}),
        ak::script::call({{"browser_type", {{"text", "hello world from agentkit"}}}}),
        ak::script::call({{"browser_click", {{"ref", "Post"}}}}),
        ak::script::call({{"browser_screenshot", json::object()}}),
        ak::script::say("Posted \"hello world from agentkit\"."),
    };
    const std::vector<ak::scripted_reply> post_after{
        ak::script::call({{"interact",
                   {{"url", "https://x.com/home"},
                    {"steps", json::array({{{"action", "click"}, {"ref", "Post text"}},
                                           {{"action", "type"}, {"text", "hello world from agentkit"}},
                                           {{"action", "click"}, {"ref", "Post"}},
                                           {{"action", "read"}}})}}}}),
        ak::script::say("Posted \"hello world from agentkit\"."),
    };

    // Search then extract.
    const std::vector<ak::scripted_reply> search_before{
        ak::script::call({{"browser_search", {{"query", "acme pricing plans"}}}}),
        ak::script::call({{"browser_navigate", {{"url", "https://site1.example.com/page"}}}}),
        ak::script::call({{"browser_extract", {{"selector", "pricing table"}}}}),
        ak::script::say("Plan 0 costs ... (summary of the pricing table)."),
    };
    const std::vector<ak::scripted_reply> search_after{
        ak::script::call({{"search", {{"query", "acme pricing plans"}}}}),
        ak::script::call({{"extract", {{"selector", "pricing table"}, {"url", "https://site1.example.com/page"}}}}),
        ak::script::say("Plan 0 costs ... (summary of the pricing table)."),
    };

    const measured fb = run(before_tools(), form_before, "Fill the contact form at https://example.com/contact for Ada Lovelace.");
    const measured fa = run(after_tools(), form_after, "Fill the contact form at https://example.com/contact for Ada Lovelace.");
    const measured pb = run(before_tools(), post_before, "Go to x.com and post 'hello world from agentkit'.");
    const measured pa = run(after_tools(), post_after, "Go to x.com and post 'hello world from agentkit'.");
    const measured sb = run(before_tools(), search_before, "Find Acme's pricing plans.");
    const measured sa = run(after_tools(), search_after, "Find Acme's pricing plans.");

    std::printf("Browser workflows — before (single-action tools, verbose strings) → after (compound tools, compact strings)\n");
    std::printf("scripted model, Anthropic format, prompt-cache simulator; tokens = chars/4 as in the seed\n\n");
    std::printf("%-22s | %-15s | %-28s | %-24s | %-15s | %-28s | %s\n", "workflow", "seed trips", "tool round trips (API calls)",
                "input tokens (sum)", "cache reads", "effective input", "output");
    std::printf("%s\n", std::string(170, '-').c_str());
    row("fill a 5-field form", "12", "2", fb, fa);
    row("post a message", "5", "1", pb, pa);
    row("search then extract", "2-3", "2-3", sb, sa);
    std::printf("\nlargest single request (input tokens): form %zu → %zu, post %zu → %zu, search %zu → %zu\n", fb.max_call_input,
                fa.max_call_input, pb.max_call_input, pa.max_call_input, sb.max_call_input, sa.max_call_input);
    std::printf("seed's per-call estimate for comparison: ~5,200 (first call) to ~6,000-8,000 (iteration 3+) with a 1,800-token\n"
                "system prompt and 27 tools (~2,082 tokens); these toolsets are 5-6 tools with agentkit's default prompt.\n");
    return 0;
}
