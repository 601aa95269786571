// Fake search services for the tests: answers shaped like each service's documented examples
// (SearXNG's /search?format=json, Brave's web search, Tavily's /search, Serper's /search),
// written from their documentation.
#pragma once

#include <agentkit/core/json.hpp>

#include <string>

namespace fake {

using agentkit::json;

inline json searxng_answer() {
    return json{{"query", "rust async"},
                {"number_of_results", 0},
                {"results",
                 {{{"url", "https://rust-lang.github.io/async-book/"},
                   {"title", "Asynchronous Programming in Rust"},
                   {"content", "This book aims to be a comprehensive guide to async programming in Rust."},
                   {"engine", "duckduckgo"},
                   {"parsed_url", {"https", "rust-lang.github.io", "/async-book/", "", "", ""}},
                   {"template", "default.html"},
                   {"engines", {"duckduckgo", "brave"}},
                   {"positions", {1, 2}},
                   {"publishedDate", "2024-03-05T00:00:00"},
                   {"score", 4.0},
                   {"category", "general"}},
                  {{"url", "https://tokio.rs/tokio/tutorial"},
                   {"title", "Tutorial | Tokio"},
                   {"content", "Tokio is an asynchronous runtime for the Rust programming language."},
                   {"engine", "brave"},
                   {"engines", {"brave"}},
                   {"positions", {2}},
                   {"publishedDate", nullptr},
                   {"score", 1.5},
                   {"category", "general"}},
                  {{"url", "https://docs.rs/futures/latest/futures/"},
                   {"title", "futures - Rust"},
                   {"content", "Abstractions for asynchronous programming."},
                   {"engine", "google"},
                   {"engines", {"google"}},
                   {"score", 1.0},
                   {"category", "general"}}}},
                {"answers", json::array()},
                {"corrections", json::array()},
                {"infoboxes",
                 {{{"infobox", "Rust (programming language)"},
                   {"id", "https://en.wikipedia.org/wiki/Rust_(programming_language)"},
                   {"content", "Rust is a general-purpose programming language emphasizing performance, type safety and concurrency."},
                   {"engine", "wikipedia"},
                   {"urls", {{{"title", "Official website"}, {"url", "https://www.rust-lang.org/"}}}}}}},
                {"suggestions", {"rust async await", "rust tokio"}},
                {"unresponsive_engines", json::array()}};
}

inline json brave_answer() {
    return json{{"type", "search"},
                {"query", {{"original", "brave search"}, {"show_strict_warning", false}, {"is_navigational", true}, {"more_results_available", true}}},
                {"mixed", {{"type", "mixed"}, {"main", {{{"type", "web"}, {"index", 0}, {"all", false}}}}}},
                {"web",
                 {{"type", "search"},
                  {"results",
                   {{{"title", "Private Search Engine - <strong>Brave</strong> Search"},
                     {"url", "https://search.brave.com/"},
                     {"is_source_local", false},
                     {"is_source_both", false},
                     {"description", "Search the web privately with <strong>Brave</strong> Search &amp; stay in control."},
                     {"page_age", "2024-05-02T10:00:00"},
                     {"age", "May 2, 2024"},
                     {"language", "en"},
                     {"family_friendly", true},
                     {"type", "search_result"},
                     {"subtype", "generic"},
                     {"meta_url", {{"scheme", "https"}, {"netloc", "search.brave.com"}, {"hostname", "search.brave.com"}, {"path", ""}}}},
                    {{"title", "Brave Search API"},
                     {"url", "https://brave.com/search/api/"},
                     {"description", "Power your search and AI apps with the Brave Search API."},
                     {"age", "3 days ago"},
                     {"type", "search_result"}}}},
                  {"family_friendly", true}}},
                {"infobox",
                 {{"type", "graph"},
                  {"results",
                   {{{"type", "infobox"},
                     {"title", "Brave Search"},
                     {"url", "https://en.wikipedia.org/wiki/Brave_Search"},
                     {"description", "Search engine"},
                     {"long_desc", "Brave Search is a search engine developed by Brave Software, Inc."}}}}}}};
}

inline json tavily_answer() {
    return json{{"query", "Who is Leo Messi?"},
                {"answer", "Lionel Messi is an Argentine professional footballer."},
                {"images", json::array()},
                {"results",
                 {{{"title", "Lionel Messi Facts | Britannica"},
                   {"url", "https://www.britannica.com/facts/Lionel-Messi"},
                   {"content", "Lionel Messi, an Argentine footballer, is widely regarded as one of the greatest."},
                   {"score", 0.81025416},
                   {"raw_content", nullptr}},
                  {{"title", "Lionel Messi - Wikipedia"},
                   {"url", "https://en.wikipedia.org/wiki/Lionel_Messi"},
                   {"content", "Lionel Andrés Messi is an Argentine professional footballer."},
                   {"score", 0.7},
                   {"published_date", "Tue, 02 Jul 2024 10:00:00 GMT"},
                   {"raw_content", nullptr}},
                  {{"title", "Messi stats"},
                   {"url", "https://example.org/messi"},
                   {"content", "Goals and assists."},
                   {"score", 0.5},
                   {"raw_content", nullptr}}}},
                {"response_time", "1.67"}};
}

inline json serper_answer() {
    return json{{"searchParameters", {{"q", "apple inc"}, {"gl", "us"}, {"hl", "en"}, {"type", "search"}, {"num", 10}, {"page", 1}}},
                {"knowledgeGraph",
                 {{"title", "Apple"},
                  {"type", "Technology company"},
                  {"website", "http://www.apple.com/"},
                  {"description", "Apple Inc. is an American multinational technology company headquartered in Cupertino, California."},
                  {"descriptionSource", "Wikipedia"},
                  {"descriptionLink", "https://en.wikipedia.org/wiki/Apple_Inc."},
                  {"attributes", {{"Headquarters", "Cupertino, CA"}, {"CEO", "Tim Cook (Aug 24, 2011–)"}}}}},
                {"organic",
                 {{{"title", "Apple"},
                   {"link", "https://www.apple.com/"},
                   {"snippet", "Discover the innovative world of Apple and shop everything iPhone, iPad, Apple Watch, Mac."},
                   {"sitelinks", {{{"title", "Support"}, {"link", "https://support.apple.com/"}}}},
                   {"position", 1}},
                  {{"title", "Apple Inc. - Wikipedia"},
                   {"link", "https://en.wikipedia.org/wiki/Apple_Inc."},
                   {"snippet", "Apple Inc. is an American multinational technology company."},
                   {"date", "Jun 3, 2024"},
                   {"attributes", {{"Founded", "April 1, 1976"}}},
                   {"position", 2}}}},
                {"peopleAlsoAsk", {{{"question", "What does Apple Inc do?"}, {"snippet", "Apple designs..."}, {"title", "Apple"}, {"link", "https://www.apple.com/"}}}},
                {"relatedSearches", {{{"query", "apple inc stock"}}}}};
}

}  // namespace fake
