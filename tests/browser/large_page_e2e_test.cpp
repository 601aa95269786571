// End-to-end tests of large pages (real headless Chromium, pages served on 127.0.0.1): a snapshot
// reads a large page's first part (browser/detail/page_part.hpp) and shows the refs a whole read
// shows, the work it does stays the same as the page grows (accessibility nodes read, not wall
// time), and an action's change report on such a page compares the same part.
//
// Each page is read by two browsers: the default one, and one that reads every page whole
// (browser_options::large_page_elements = 0), the reference.
#include <agentkit/agentkit.hpp>

#include "support/http_server.hpp"
#include "support/snapshot_refs.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <cstdlib>
#include <functional>
#include <regex>
#include <string>
#include <vector>

namespace br = agentkit::browser;
using agentkit::test::http_request;
using agentkit::test::http_response;
using agentkit::test::http_server;

namespace {

using agentkit::test::page;

std::size_t count_of(const http_request& r, std::size_t fallback) {
    const auto at = r.query.find("n=");
    return at == std::string::npos ? fallback : static_cast<std::size_t>(std::strtoul(r.query.c_str() + at + 2, nullptr, 10));
}

// Block i's button writes into block i's paragraph; the last block's paragraph has id "last".
std::string blocks(std::size_t n) {
    std::string b = "<h1>Blocks</h1><p id=far>far away: unchanged</p>";
    b += "<button onclick=\"document.getElementById('last').textContent='the last block changed'\">Change the end</button>";
    for (std::size_t i = 0; i < n; ++i) {
        const auto s = std::to_string(i);
        b += "<div><p" + std::string(i + 1 == n ? " id=last" : "") + ">Paragraph " + s + " about item " + s + ".</p><a href=\"/item/" + s +
             "\">Item " + s + "</a> <button onclick=\"this.parentNode.querySelector('p').textContent='clicked " + s +
             "'\">Go " + s + "</button></div>\n";
    }
    return page("Blocks", b);
}

// The second shape, written after the first passed and never tuned on: a long table of rows
// (a cell with a link, a cell with a checkbox), a sidebar list and a same-origin frame at the
// top, and a frame at the bottom that a part read must not show.
std::string table(std::size_t n) {
    std::string b = "<nav><ul><li><a href=/a>Alpha</a></li><li><a href=/b>Beta</a></li></ul></nav>"
                    "<iframe src=/inner title=top-frame></iframe><h2>Rows</h2><table><tr><th>Id</th><th>Name</th><th>Open</th><th>Pick</th></tr>";
    for (std::size_t i = 0; i < n; ++i) {
        const auto s = std::to_string(i);
        b += "<tr><td>" + s + "</td><td>Name " + s + "</td><td><a href=/row/" + s + ">open " + s +
             "</a></td><td><input type=checkbox aria-label=\"pick " + s + "\"></td></tr>\n";
    }
    b += "</table><iframe src=/bottom title=bottom-frame></iframe>";
    return page("Table", b);
}

// A third shape: nested lists (five levels of five, links at the leaves); every list item has a
// ::marker, read as a subtree of its own.
std::string tree() {
    int id = 0;
    std::function<std::string(int)> list = [&](int depth) {
        std::string l = "<ul>";
        for (int i = 0; i < 5; ++i) {
            const auto n = std::to_string(id++);
            l += depth < 4 ? "<li>Folder " + n + list(depth + 1) + "</li>" : "<li><a href=/leaf/" + n + ">Leaf " + n + "</a></li>";
        }
        return l + "</ul>";
    };
    return page("Tree", "<h1>Tree</h1>" + list(0));
}

// A long text with its only controls at the end: a part read is not enough (the budget cuts no
// control in it), so the page is read whole and the controls at the end are shown.
std::string sparse(std::size_t n) {
    std::string b = "<h1>Long text</h1>";
    for (std::size_t i = 0; i < n; ++i) b += "<p>Sentence " + std::to_string(i) + " of a long text.</p>\n";
    b += "<button>Accept</button><a href=/more>Read more</a>";
    return page("Sparse", b);
}

struct site {
    http_server server;
    site() {
        server.route("/blocks", [](const http_request& r) { return http_response::html(blocks(count_of(r, 3000))); });
        server.route("/table", [](const http_request& r) { return http_response::html(table(count_of(r, 3000))); });
        server.route("/tree", http_response::html(tree()));
        server.route("/sparse", [](const http_request& r) { return http_response::html(sparse(count_of(r, 3000))); });
        server.route("/inner", http_response::html(page("Inner", "<button>Inside the top frame</button>")));
        server.route("/bottom", http_response::html(page("Bottom", "<button>Inside the bottom frame</button>")));
    }
};

// A budget of 2,000 tokens keeps the pages (and the reference's whole reads) small enough for a
// sanitized build; the part read scales with the budget, not with the page.
br::browser_options options(bool whole) {
    br::browser_options o;
    o.snapshot_budget = 2000;
    if (whole) o.large_page_elements = 0;
    return o;
}

// The snapshot text without its last line (the budget's note, which says how much was read).
std::string without_note(const std::string& text) {
    const auto end = text.rfind("[cut: showing");
    return end == std::string::npos ? text : text.substr(0, end);
}

// The text with every ref mark written the same: two browsers' ref registries count on from
// different histories (a part read issues no ref for what it did not read), so after the first
// page their numbers differ while the elements they mark are the same.
std::string unnumbered(const std::string& text) { return std::regex_replace(text, std::regex(R"(\[ref=[a-z]+[0-9]+\])"), "[ref]"); }

class LargePageE2E : public ::testing::Test {
protected:
    static void SetUpTestSuite() {
        s_ = new site();
        part_ = new br::browser(options(false));
        whole_ = new br::browser(options(true));
    }
    static void TearDownTestSuite() {
        delete part_;
        delete whole_;
        delete s_;
        part_ = whole_ = nullptr;
        s_ = nullptr;
    }
    // Navigate both browsers to `path` and snapshot it.
    static std::pair<br::page_snapshot, br::page_snapshot> both(const std::string& path) {
        std::pair<br::page_snapshot, br::page_snapshot> out;
        for (auto* b : {part_, whole_}) {
            auto n = b->navigate(s_->server.url(path));
            EXPECT_TRUE(n) << n.error().to_text();
            auto s = b->snapshot();
            EXPECT_TRUE(s) << s.error().to_text();
            if (s) (b == part_ ? out.first : out.second) = *s;
        }
        return out;
    }
    static site* s_;
    static br::browser* part_;
    static br::browser* whole_;
};
site* LargePageE2E::s_ = nullptr;
br::browser* LargePageE2E::part_ = nullptr;
br::browser* LargePageE2E::whole_ = nullptr;

}  // namespace

TEST_F(LargePageE2E, ASnapshotOfALargePageReadsAPartAndShowsWhatAWholeReadShows) {
    for (const std::string path : {"/blocks?n=1200", "/table?n=1200", "/tree"}) {
        SCOPED_TRACE(path);
        auto [part, whole] = both(path);
        EXPECT_TRUE(part.snap.partial());
        EXPECT_FALSE(whole.snap.partial());
        EXPECT_GT(part.snap.page_nodes, 0u);
        EXPECT_LT(part.snap.page_nodes_read, part.snap.page_nodes / 2);
        EXPECT_TRUE(part.snap.truncated());
        EXPECT_EQ(part.snap.refs.size(), whole.snap.refs.size());
        EXPECT_EQ(unnumbered(without_note(part.snap.text)), unnumbered(without_note(whole.snap.text))) << part.snap.text;
        EXPECT_NE(part.snap.text.find("% of a large page read)"), std::string::npos) << part.snap.text;
        EXPECT_LT(part.snap.ax_nodes * 3, whole.snap.ax_nodes);
    }
    // The table's top frame is shown in place; its bottom frame is not read, nor appended.
    ASSERT_TRUE(part_->navigate(s_->server.url("/table?n=1200")));
    auto t = part_->snapshot();
    ASSERT_TRUE(t) << t.error().to_text();
    EXPECT_NE(t->snap.text.find("Inside the top frame"), std::string::npos) << t->snap.text;
    EXPECT_EQ(t->snap.text.find("Inside the bottom frame"), std::string::npos) << t->snap.text;
}

TEST_F(LargePageE2E, TheWorkOfASnapshotDoesNotGrowWithThePage) {
    std::vector<std::size_t> part_nodes, whole_nodes;
    for (const std::string n : {"800", "3200"}) {
        auto [part, whole] = both("/blocks?n=" + n);
        ASSERT_TRUE(part.snap.partial());
        EXPECT_EQ(part.snap.refs.size(), whole.snap.refs.size());
        EXPECT_EQ(unnumbered(without_note(part.snap.text)), unnumbered(without_note(whole.snap.text)));
        part_nodes.push_back(part.snap.ax_nodes);
        whole_nodes.push_back(whole.snap.ax_nodes);
    }
    // a whole read grows with the page (four times the blocks: about four times the nodes); a
    // part read reads what the budget shows
    EXPECT_GT(whole_nodes[1], 3 * whole_nodes[0]);
    EXPECT_LE(part_nodes[1], part_nodes[0] + part_nodes[0] / 4);
    EXPECT_LT(part_nodes[1] * 8, whole_nodes[1]);
}

TEST_F(LargePageE2E, ALongTextWhoseControlsAreAtItsEndIsReadWhole) {
    auto [part, whole] = both("/sparse?n=3200");
    EXPECT_FALSE(part.snap.partial());
    EXPECT_EQ(unnumbered(part.snap.text), unnumbered(whole.snap.text));
    EXPECT_NE(part.snap.text.find("button \"Accept\""), std::string::npos) << part.snap.text;
}

TEST_F(LargePageE2E, AnActionsChangeReportComparesTheSamePartAndSaysWhenThePageChangedBeyondIt) {
    auto n = part_->navigate(s_->server.url("/blocks?n=1500"));
    ASSERT_TRUE(n) << n.error().to_text();
    auto s = part_->snapshot();
    ASSERT_TRUE(s) << s.error().to_text();
    ASSERT_TRUE(s->snap.partial());
    const std::string go = agentkit::test::ref_on(s->snap.text, "button \"Go 0\"");
    ASSERT_FALSE(go.empty()) << s->snap.text;
    auto c = part_->click(go);
    ASSERT_TRUE(c) << c.error().to_text();
    EXPECT_NE(c->changes.find("clicked 0"), std::string::npos) << c->changes;
    for (const auto& note : c->notes) EXPECT_EQ(note.find("changed beyond"), std::string::npos) << note;

    const std::string end = agentkit::test::ref_on(s->snap.text, "button \"Change the end\"");
    ASSERT_FALSE(end.empty()) << s->snap.text;
    auto e = part_->click(end);
    ASSERT_TRUE(e) << e.error().to_text();
    bool said = false;
    for (const auto& note : e->notes) said = said || note.find("the page also changed beyond the part") != std::string::npos;
    EXPECT_TRUE(said) << e->to_text();
    auto last = part_->cdp_call("Runtime.evaluate", agentkit::json{{"expression", "document.getElementById('last').textContent"},
                                                                   {"returnByValue", true}});
    ASSERT_TRUE(last);
    EXPECT_EQ((*last)["result"]["value"], "the last block changed");
}

// In an agent_session the session's formatter (a 6,000-character cap for snapshots) leaves a
// browser result as the engine fitted it: the controls the engine kept, in its priority order up
// to its own budget, all reach the model. (Before, a prefix cut by characters dropped the last.)
TEST_F(LargePageE2E, ASnapshotInAnAgentSessionKeepsEveryControlTheEngineKept) {
    br::bounded_artifacts store;
    br::tool_state st(*part_, store);
    agentkit::agent_session session{br::browser_tools(st), agentkit::all_visible{}, agentkit::compact_formatter{}};
    agentkit::tool_context ctx;
    auto nav = session.serve_call("browser_navigate", agentkit::json{{"url", s_->server.url("/blocks?n=1200")}}, ctx);
    ASSERT_TRUE(nav) << nav.error().to_text();
    ASSERT_FALSE(nav->is_error) << nav->joined_text();
    // a snapshot of 6,000 tokens: well over the formatter's 1,500 for a snapshot
    const agentkit::json args{{"budget", 6000}};
    auto served = session.serve_call("browser_snapshot", args, ctx);
    ASSERT_TRUE(served) << served.error().to_text();
    const std::string text = served->joined_text();
    auto marks = [](const std::string& t) {
        std::size_t n = 0;
        for (auto at = t.find("[ref="); at != std::string::npos; at = t.find("[ref=", at + 1)) ++n;
        return n;
    };
    EXPECT_GT(agentkit::token_counter{}.count(text), agentkit::budgets{}.snapshot) << text;
    EXPECT_NE(text.find("lines of snapshot (~6,000 tokens;"), std::string::npos) << text;
    EXPECT_EQ(text.find("snapshot of browser_snapshot"), std::string::npos) << "cut again by the formatter:\n" << text;
    EXPECT_TRUE(session.artifacts().empty());
    // every control the tool shows outside a session is there, the last ones included
    auto tools = br::browser_tools(st);
    auto direct = tools.call("browser_snapshot", args, ctx);
    ASSERT_TRUE(direct) << direct.error().to_text();
    const auto prefix = agentkit::token_prefix(text, agentkit::budgets{}.snapshot, agentkit::token_counter{});
    EXPECT_LT(marks(text.substr(0, prefix)), marks(text) * 3 / 4) << "what a prefix cut kept";
    EXPECT_EQ(marks(text), marks(direct->joined_text()));
}
