// End-to-end tests of widgets that pages build without ARIA, or with only some of it, against
// real headless Chromium on pages served from 127.0.0.1: punctuation after inline elements,
// items of a list whose listener serves them (event delegation), rows and cards that listen on
// themselves and hold controls of their own, icon-only controls named by their classes, trees
// whose closed folders hide their children, web components' slotted labels and icon glyphs at
// the click point, editable regions without a role, sortable column headers, grids whose one
// listener serves their cells, and toggles that hide their input. Each pattern has two pages written apart (the
// second was not looked at while the renderer's rules were written); every control is driven
// through its ref and the page says what the click did.
#include <agentkit/agentkit.hpp>

#include "support/http_server.hpp"
#include "support/snapshot_refs.hpp"

#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

namespace br = agentkit::browser;
using agentkit::test::http_response;
using agentkit::test::http_server;
using agentkit::test::page;
using agentkit::test::ref_on;

namespace {

struct widget_site {
    http_server server;
    br::browser b;
    widget_site() : b(br::browser_options{}) {}

    // The snapshot of `html` served at `path`.
    std::string open(const std::string& path, const std::string& title, const std::string& html) {
        server.route(path, http_response::html(page(title, html)));
        auto nav = b.navigate(server.url(path));
        EXPECT_TRUE(nav) << nav.error().to_text();
        return nav ? nav->snapshot : std::string();
    }
    // Clicks the control on the line of `snapshot` that contains `needle`; what the click changed.
    std::string click(const std::string& snapshot, const std::string& needle) {
        const std::string ref = ref_on(snapshot, needle);
        EXPECT_FALSE(ref.empty()) << "no ref on a line with `" << needle << "` in\n" << snapshot;
        if (ref.empty()) return {};
        auto r = b.click(ref);
        EXPECT_TRUE(r) << r.error().to_text();
        return r ? r->to_text() : std::string();
    }
    std::string snapshot() {
        auto s = b.snapshot();
        EXPECT_TRUE(s) << s.error().to_text();
        return s ? s->snap.text : std::string();
    }
};

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

}  // namespace

// A text run of punctuation only after an inline element (a closing quote and a full stop, a
// "+" between two keys, a decimal point between two spans) belongs to the sentence; separators
// between links still go.
TEST(WidgetPatternsE2E, PunctuationAfterAnInlineElementStaysInItsSentence) {
    widget_site s;
    const std::string a = s.open("/a", "Task", R"(<p>Enter an item that starts with "<b>Ce</b>" and ends with "<b>lic</b>".</p>
<p>Press <kbd>Ctrl</kbd>+<kbd>S</kbd>, then (<i>optionally</i>) close.</p>
<nav><a href="#1">Home</a> | <a href="#2">About</a> · <a href="#3">Help</a></nav>)");
    EXPECT_TRUE(has(a, "Enter an item that starts with \"Ce\" and ends with \"lic\".")) << a;
    EXPECT_TRUE(has(a, "Press Ctrl+S, then (optionally) close.")) << a;
    EXPECT_FALSE(has(a, "|")) << "separators between links carry nothing:\n" << a;
    EXPECT_FALSE(has(a, "·")) << a;
    // the second page, written apart
    const std::string b = s.open("/b", "Price", R"(<div class="total">Total: <span>$</span><span>12</span>.<span>99</span></div>
<p>Run <code>make</code>; then <em>wait</em>!</p><p>"<strong>Quoted</strong>," she said.</p>)");
    EXPECT_TRUE(has(b, "Total: $12.99")) << b;
    EXPECT_TRUE(has(b, "Run make; then wait!")) << b;
    EXPECT_TRUE(has(b, "\"Quoted,\" she said.")) << b;
}

// A list whose one listener serves its items (an autocomplete's suggestions): each item gets a
// ref of its own, and a click on it reaches the listener with the item as its target.
TEST(WidgetPatternsE2E, ItemsOfADelegatedListAreControls) {
    widget_site s;
    const std::string a = s.open("/a", "Delegated", R"(<label>City <input id=q></label>
<ul id=sugg class=suggestions><li>Lisbon</li><li>Lima</li><li>Lyon</li></ul><p id=out>none</p>
<script>sugg.addEventListener('click', e => { const li = e.target.closest('li'); if (!li) return;
  q.value = li.textContent; out.textContent = 'Picked ' + li.textContent; });</script>)");
    for (const char* item : {"Lisbon", "Lima", "Lyon"})
        EXPECT_FALSE(ref_on(a, std::string("clickable \"") + item + "\"").empty()) << item << " has no ref:\n" << a;
    EXPECT_FALSE(has(a, "Lisbon Lima")) << "the list is not one control:\n" << a;
    EXPECT_TRUE(has(s.click(a, "\"Lima\""), "Picked Lima"));

    // the second page, written apart: divs of one class, a mousedown listener on their container
    const std::string b = s.open("/b", "People", R"(<input id=who aria-label="Search people">
<div class=results id=res><div class=result data-value=ada>Ada Lovelace</div><div class=result data-value=alan>Alan Turing</div>
<div class=result data-value=grace>Grace Hopper</div></div><p id=sel>nobody selected</p>
<script>res.addEventListener('mousedown', e => { const r = e.target.closest('.result');
  if (r) { who.value = r.textContent; sel.textContent = 'Selected ' + r.dataset.value; e.preventDefault(); } });</script>)");
    const std::string said = s.click(b, "\"Alan Turing\"");
    EXPECT_TRUE(has(said, "Selected alan")) << said;
    EXPECT_FALSE(ref_on(b, "\"Grace Hopper\"").empty()) << b;

    // what stays structure: a listened list of links (the links are the controls), a listened
    // form (its fields are), a listened panel of long text with a button
    const std::string c = s.open("/c", "Structure", R"(<ul onclick="void 0"><li><a href="#a">Alpha</a></li><li><a href="#b">Beta</a></li></ul>
<form onclick="void 0">Name: <input name=n> Email: <input name=e></form>
<div class=panel onclick="void 0"><p>)" + std::string(300, 'x') + R"(</p><button>OK</button></div>)");
    EXPECT_FALSE(ref_on(c, "link \"Alpha\"").empty()) << c;
    EXPECT_FALSE(has(c, "clickable")) << "no container became a control:\n" << c;
}

// A row or a card with its own listener that holds controls of its own (an inbox row with star
// and trash icons, a product card with a wishlist button) is a control, its controls below it.
TEST(WidgetPatternsE2E, ARowWithItsOwnListenerKeepsItsRefBesideItsIcons) {
    widget_site s;
    const std::string a = s.open("/a", "Inbox", R"(<style>.row{display:flex;gap:8px}.star,.trash{display:inline-block;width:16px;height:16px;background:#fc0}</style>
<div id=list><div class=row data-id=1><span class=star></span><span class=from>Cathrine</span><span class=subject>Scelerisque feu..</span><span class=trash></span></div>
<div class=row data-id=2><span class=star></span><span class=from>Bob</span><span class=subject>Lunch on Friday</span><span class=trash></span></div></div>
<p id=out>no message open</p>
<script>for (const r of document.querySelectorAll('.row')) {
  r.addEventListener('click', () => out.textContent = 'Opened message from ' + r.querySelector('.from').textContent);
  r.querySelector('.star').addEventListener('click', e => { e.stopPropagation(); out.textContent = 'Starred ' + r.dataset.id; });
  r.querySelector('.trash').addEventListener('click', e => { e.stopPropagation(); out.textContent = 'Deleted ' + r.dataset.id; }); }</script>)");
    EXPECT_TRUE(has(s.click(a, "clickable \"Bob Lunch on Friday\""), "Opened message from Bob")) << a;
    // the icons are listed below their row (the first star is row 1's)
    EXPECT_TRUE(has(s.click(a, "(icon: star)"), "Starred 1")) << a;
    EXPECT_TRUE(has(s.click(a, "(icon: trash)"), "Deleted 1")) << a;
    EXPECT_FALSE(has(a, "\nCathrine\n")) << "a row's text is said once, on its line:\n" << a;

    // the second page, written apart: cards with a pointer cursor and a named button
    const std::string b = s.open("/b", "Shop", R"(<style>.grid{display:grid;grid-template-columns:repeat(3,200px);gap:10px}.card{cursor:pointer;padding:8px}</style>
<h2>Lamps</h2><div class=grid>
<article class=card data-sku=a1><span class=title>Brass desk lamp</span> <span class=price>$49</span><button class=fav aria-label="Save to wishlist">&#9825;</button></article>
<article class=card data-sku=b2><span class=title>Paper floor lamp</span> <span class=price>$89</span><button class=fav aria-label="Save to wishlist">&#9825;</button></article>
</div><p id=msg>-</p>
<script>for (const c of document.querySelectorAll('.card')) { c.addEventListener('click', () => msg.textContent = 'Viewing ' + c.dataset.sku);
  c.querySelector('.fav').addEventListener('click', e => { e.stopPropagation(); msg.textContent = 'Saved ' + c.dataset.sku; }); }</script>)");
    EXPECT_TRUE(has(s.click(b, "clickable \"Paper floor lamp $89\""), "Viewing b2")) << b;
    EXPECT_TRUE(has(s.click(b, "button \"Save to wishlist\""), "Saved a1")) << b;
    EXPECT_FALSE(has(b, "$49♡")) << "a card's name is not its button's text:\n" << b;
}

// Controls named by nothing the accessibility tree reads: their classes (a plain word, a BEM
// element or modifier, a js- hook) or a data-action hook name them, as derived names.
TEST(WidgetPatternsE2E, IconOnlyControlsAreNamedByTheirClasses) {
    widget_site s;
    const std::string a = s.open("/a", "Icons", R"(<style>.actions>*{display:inline-block;width:18px;height:18px;background:#888}</style>
<p>Hello there.</p><div class=actions><span class="star"></span><span class="trash"></span><span class="more"></span><i class="reply"></i></div>
<p id=out>idle</p>
<script>for (const el of document.querySelectorAll('.actions > *')) el.addEventListener('click', () => out.textContent = 'Did ' + el.className);</script>)");
    for (const char* icon : {"star", "trash", "more", "reply"})
        EXPECT_TRUE(has(s.click(a, std::string("clickable (icon: ") + icon + ")"), std::string("Did ") + icon)) << a;
    EXPECT_FALSE(has(a, "unlabeled")) << a;

    // the second page, written apart
    const std::string b = s.open("/b", "Post", R"(<p>A post about lamps.</p><div class=toolbar>
<a class="toolbar__btn toolbar__btn--share" href="#"><svg width=16 height=16><circle cx=8 cy=8 r=6></circle></svg></a>
<div class="icon-btn" data-action="archive" style="width:20px;height:20px;display:inline-block;background:#aaa"></div>
<button class="btn js-retweet"><svg width=16 height=16><rect width=12 height=12></rect></svg></button>
<span class="text-gray-500 w-4 h-4 flex" style="display:inline-block;width:16px;height:16px;background:#ccc"></span></div><p id=log>-</p>
<script>for (const el of document.querySelectorAll('.toolbar > *')) el.addEventListener('click', e => { e.preventDefault(); log.textContent = 'Clicked ' + el.className; });</script>)");
    EXPECT_TRUE(has(s.click(b, "link (icon: share)"), "Clicked toolbar__btn toolbar__btn--share")) << b;
    EXPECT_TRUE(has(s.click(b, "clickable (action: archive)"), "Clicked icon-btn")) << b;
    EXPECT_TRUE(has(s.click(b, "button (icon: retweet)"), "Clicked btn js-retweet")) << b;
    EXPECT_TRUE(has(b, "clickable [unlabeled #1]")) << "utility classes name nothing:\n" << b;
    EXPECT_FALSE(has(b, "\"share\"")) << "derived, never an accessible name:\n" << b;
}

// A tree of nested lists without ARIA: a folder whose child list is hidden reads "collapsed", an
// open one "expanded", and opening one shows its items.
TEST(WidgetPatternsE2E, TreesWithoutAriaSayWhichFoldersAreClosed) {
    widget_site s;
    const std::string a = s.open("/a", "Files", R"(<style>ul{list-style:none}.caret{cursor:pointer}.nested{display:none}.active{display:block}</style>
<ul id=tree><li><span class=caret>Documents</span><ul class=nested><li>resume.pdf</li>
  <li><span class=caret>Taxes</span><ul class=nested><li>2025.pdf</li></ul></li></ul></li>
 <li><span class=caret>Pictures</span><ul class=nested><li>dog.png</li></ul></li><li>notes.txt</li></ul>
<script>for (const c of document.querySelectorAll('.caret')) c.addEventListener('click', () => c.parentElement.querySelector('.nested').classList.toggle('active'));</script>)");
    EXPECT_TRUE(has(a, "clickable \"Documents\" collapsed")) << a;
    EXPECT_TRUE(has(a, "clickable \"Pictures\" collapsed")) << a;
    EXPECT_FALSE(has(a, "resume.pdf")) << a;
    const std::string opened = s.click(a, "\"Documents\"");
    EXPECT_TRUE(has(opened, "resume.pdf")) << opened;
    const std::string after = s.snapshot();
    EXPECT_TRUE(has(after, "clickable \"Documents\" expanded")) << after;
    EXPECT_TRUE(has(after, "clickable \"Taxes\" collapsed")) << after;
    EXPECT_TRUE(has(s.click(after, "\"Taxes\""), "2025.pdf"));

    // the second page, written apart: nested divs, the children hidden by an inline style
    const std::string b = s.open("/b", "Library", R"(<style>.label{cursor:pointer}.children{margin-left:16px}</style><div class=tree>
 <div class=node><div class=label>Music</div><div class=children style="display:none"><div class=node><div class=leaf>Jazz</div></div></div></div>
 <div class=node><div class=label>Films</div><div class=children style="display:none"><div class=node><div class=leaf>Noir</div></div></div></div></div>
<script>for (const l of document.querySelectorAll('.label')) l.addEventListener('click', () => {
  const ch = l.nextElementSibling; ch.style.display = ch.style.display === 'none' ? '' : 'none'; });</script>)");
    EXPECT_TRUE(has(b, "clickable \"Music\" collapsed")) << b;
    EXPECT_TRUE(has(b, "clickable \"Films\" collapsed")) << b;
    const std::string music = s.click(b, "\"Music\"");
    EXPECT_TRUE(has(music, "Jazz")) << music;
    EXPECT_FALSE(has(s.snapshot(), "\"Music\" collapsed"));
}

// A custom dropdown's popup (role=listbox on a div or a list, role=option items, built by a
// script): its options are lines of their own with refs, to be clicked, where a native select's
// stay listed inline (select_option picks them). An empty combobox input shows its placeholder.
TEST(WidgetPatternsE2E, AScriptBuiltListboxGivesEachOptionItsRef) {
    widget_site s;
    const std::string a = s.open("/a", "Fruit", R"(<label id=l>Fruit</label>
<input role=combobox aria-labelledby=l aria-expanded=false aria-controls=pop placeholder="Pick a fruit" id=in>
<div id=pop role=listbox aria-labelledby=l hidden></div><p id=out>fruit: none</p>
<select aria-label="Native"><option>One</option><option>Two</option></select>
<script>
const pop = document.getElementById('pop'), inp = document.getElementById('in');
inp.addEventListener('click', () => {
  pop.innerHTML = '';
  for (const f of ['Apple', 'Banana', 'Cherry']) {
    const o = document.createElement('div'); o.setAttribute('role', 'option'); o.textContent = f;
    o.addEventListener('mousedown', () => { out.textContent = 'fruit: ' + f; pop.hidden = true; inp.setAttribute('aria-expanded', 'false'); });
    pop.appendChild(o);
  }
  pop.hidden = false; inp.setAttribute('aria-expanded', 'true');
});
</script>)");
    EXPECT_TRUE(has(a, "combobox \"Fruit\" placeholder=\"Pick a fruit\" [ref=")) << a;
    EXPECT_TRUE(has(a, "combobox \"Native\" = \"One\" options: One|Two [ref=")) << "a native select keeps its options inline:\n" << a;
    const std::string opened = s.click(a, "combobox \"Fruit\"");
    EXPECT_TRUE(has(opened, "option \"Banana\" [ref=")) << opened;
    EXPECT_FALSE(has(opened, "options: Apple|Banana|Cherry")) << opened;
    const std::string picked = s.click(opened, "option \"Banana\"");
    EXPECT_TRUE(has(picked, "fruit: Banana")) << picked;

    // the second page, written apart: a list that is a listbox, always open, items picked by a click
    const std::string b = s.open("/b", "Size", R"(<h3 id=h>Size</h3>
<ul role=listbox aria-labelledby=h id=sizes><li role=option aria-selected=true>Small</li><li role=option>Medium</li><li role=option>Large</li></ul>
<p id=said>size: Small</p><select multiple aria-label="Extras"><option>Milk</option><option>Sugar</option></select>
<script>
document.getElementById('sizes').addEventListener('click', (e) => {
  for (const li of document.querySelectorAll('#sizes li')) li.setAttribute('aria-selected', String(li === e.target));
  said.textContent = 'size: ' + e.target.textContent;
});
</script>)");
    EXPECT_TRUE(has(b, "option \"Small\" selected [ref=")) << b;
    EXPECT_TRUE(has(b, "options: Milk|Sugar")) << "a native multiple select keeps its options inline:\n" << b;
    const std::string medium = s.click(b, "option \"Medium\"");
    EXPECT_TRUE(has(medium, "size: Medium")) << medium;
    EXPECT_TRUE(has(s.snapshot(), "option \"Medium\" selected [ref=")) << s.snapshot();

    // a menu widget's way: role=option on a <div> inside each <li>, which Chromium does not take
    // as an option (the tree has a generic <div>); the list's one listener serves the items
    const std::string c = s.open("/c", "Speed", R"(<span id=k>Speed</span>
<ul role=listbox aria-labelledby=k id=speeds><li><div role=option>Slow</div></li><li><div role=option>Fast</div></li></ul>
<p id=sp>speed: none</p>
<script>document.getElementById('speeds').addEventListener('click', (e) => { sp.textContent = 'speed: ' + e.target.textContent; });</script>)");
    EXPECT_TRUE(has(c, "option \"Fast\" [ref=")) << c;
    const std::string fast = s.click(c, "option \"Fast\"");
    EXPECT_TRUE(has(fast, "speed: Fast")) << fast;

    // a combobox that owns its popup (aria-owns): the listbox and its items below it; the
    // combobox's own text is its value, not an option
    const std::string d = s.open("/d", "Tone", R"(<span role=combobox aria-label=Tone aria-owns=tones aria-expanded=true tabindex=0>Warm</span>
<ul role=listbox id=tones><li><div role=option>Warm</div></li><li><div role=option>Cold</div></li></ul><p id=tn>tone: none</p>
<script>document.getElementById('tones').addEventListener('click', (e) => { tn.textContent = 'tone: ' + e.target.textContent; });</script>)");
    EXPECT_TRUE(has(d, "option \"Cold\" [ref=")) << d;
    EXPECT_EQ(d.find("option \"Warm\""), d.rfind("option \"Warm\"")) << "the value is not an option:\n" << d;
    EXPECT_FALSE(has(d, "options: ")) << d;
    EXPECT_TRUE(has(s.click(d, "option \"Cold\""), "tone: Cold"));

    // a tag input: its search field inside its combobox is a control of its own
    const std::string e = s.open("/e", "Tags", R"(<span role=combobox aria-label=Tags aria-expanded=false tabindex=-1><ul><li>red</li></ul>
<input type=search aria-label="Search tags" id=q></span><p id=tq>typed: none</p>
<script>q.addEventListener('click', () => { tq.textContent = 'typed: focus'; });</script>)");
    EXPECT_TRUE(has(e, "searchbox \"Search tags\" [ref=")) << e;
    EXPECT_TRUE(has(s.click(e, "searchbox \"Search tags\""), "typed: focus"));
}

// A web component's button whose label is light-DOM text slotted into its shadow tree: the hit
// test names the host at the click point (the text's parent), which is not a cover. Nor is an
// icon font's glyph drawn by ::before over a button's middle (the hit is the pseudo-element).
TEST(WidgetPatternsE2E, SlottedLabelsAndIconGlyphsDoNotCoverTheirOwnControls) {
    widget_site s;
    const std::string a = s.open("/a", "Component", R"(<fancy-button id="fb">Project actions</fancy-button><p id="out">none</p>
<style>.next::before{content:"\203A";font-size:48px;line-height:1}</style>
<button aria-label="Next month" onclick="document.getElementById('out2').textContent='moved on'"><span class="next"></span></button><p id="out2">still</p>
<script>customElements.define('fancy-button', class extends HTMLElement { constructor() { super();
  this.attachShadow({mode: 'open'}).innerHTML = '<button style="font-size:28px;padding:12px"><slot></slot></button>';
  this.shadowRoot.querySelector('button').addEventListener('click', () => document.getElementById('out').textContent = 'opened'); } });</script>)");
    EXPECT_TRUE(has(s.click(a, "button \"Project actions\""), "opened"));
    EXPECT_TRUE(has(s.click(a, "button \"Next month\""), "moved on"));
    // the second page, written apart: a named slot inside a role=button div, the listener on
    // the host; a close link whose ::after glyph is larger than the link
    const std::string b = s.open("/b", "Mail", R"(<mail-action id="ma"><span slot="label">Archive</span></mail-action><p id="o">kept</p>
<style>a.x{display:inline-block;width:30px;height:30px;position:relative} a.x::after{content:"\00D7";font-size:40px;position:absolute;left:0;top:-8px}</style>
<a class="x" href="#closed" aria-label="Close banner" onclick="document.getElementById('o2').textContent='banner closed'"></a><p id="o2">banner open</p>
<script>customElements.define('mail-action', class extends HTMLElement { constructor() { super();
  this.attachShadow({mode: 'open'}).innerHTML = '<div role="button" tabindex="0" style="display:inline-block;padding:10px;border:1px solid"><slot name="label"></slot></div>';
  this.addEventListener('click', () => document.getElementById('o').textContent = 'archived'); } });</script>)");
    EXPECT_TRUE(has(s.click(b, "button \"Archive\""), "archived"));
    EXPECT_TRUE(has(s.click(b, "link \"Close banner\""), "banner closed"));
}

// A contenteditable region without a role (a rich-text editor) is a text field: its words are
// its value, what CSS draws while it is empty its placeholder; typing into it works.
TEST(WidgetPatternsE2E, AnEditableRegionWithoutARoleIsATextField) {
    widget_site s;
    const std::string a = s.open("/a", "Editor", R"(<style>.ed:empty::before{content:attr(data-placeholder);color:#999}</style>
<div class="ed" contenteditable="true" data-placeholder="Compose a note" style="min-height:60px;border:1px solid"></div><p id="out">empty</p>
<script>document.querySelector('.ed').addEventListener('input', (e) => document.getElementById('out').textContent = 'note: ' + e.target.textContent);</script>)");
    EXPECT_TRUE(has(a, "textbox placeholder=\"Compose a note\" [ref=")) << a;
    const std::string ref = ref_on(a, "textbox placeholder=");
    ASSERT_FALSE(ref.empty()) << a;
    auto typed = s.b.type(ref, "Hello there");
    ASSERT_TRUE(typed) << typed.error().to_text();
    const std::string after = s.snapshot();
    EXPECT_TRUE(has(after, "textbox focused = \"Hello there\" [ref=" + ref + "]")) << after;
    EXPECT_TRUE(has(after, "note: Hello there")) << after;
    // the second page, written apart: plain-text editing, named by aria-label, with words
    // already in it and a nested paragraph; an editable element inside it is not a field of its own
    const std::string b = s.open("/b", "Comment", R"(<div contenteditable="plaintext-only" aria-label="Comment" style="border:1px solid"><p>First line</p><p>second <span contenteditable="true">part</span></p></div>)");
    EXPECT_TRUE(has(b, "textbox \"Comment\" = \"First line second part\"")) << b;
    EXPECT_EQ(b.find("textbox", b.find("textbox") + 1), std::string::npos) << b;
}

// A column header that says how it is sorted (aria-sort, "none" included) is a control: a
// click on it sorts, and the header says the new order.
TEST(WidgetPatternsE2E, ASortableColumnHeaderIsAControlThatSaysItsOrder) {
    widget_site s;
    const std::string a = s.open("/a", "Grid", R"(<div role="grid" id="g">
<div role="row"><div role="columnheader" aria-sort="none">Make</div><div role="columnheader" aria-sort="none">Price</div></div>
<div role="row"><div role="gridcell">Volvo</div><div role="gridcell">300</div></div>
<div role="row"><div role="gridcell">Ford</div><div role="gridcell">100</div></div></div><p id="out">unsorted</p>
<script>document.addEventListener('click', (e) => { const h = e.target.closest('[role=columnheader]'); if (!h) return;
  h.setAttribute('aria-sort', 'ascending'); document.getElementById('out').textContent = 'sorted by ' + h.textContent; });</script>)");
    EXPECT_TRUE(has(a, "columnheader \"Price\" [ref=")) << a;
    EXPECT_TRUE(has(s.click(a, "columnheader \"Price\""), "sorted by Price"));
    const std::string after = s.snapshot();
    EXPECT_TRUE(has(after, "columnheader \"Price\" sorted ascending [ref=")) << after;
    // the second page, written apart: a native table, one column already sorted, the listener on the table
    const std::string b = s.open("/b", "Orders", R"(<table id="t"><thead><tr><th aria-sort="descending">Date</th><th aria-sort="none">Total</th><th>Note</th></tr></thead>
<tbody><tr><td>May 2</td><td>12</td><td>a</td></tr><tr><td>May 1</td><td>30</td><td>b</td></tr></tbody></table><p id="o">by date</p>
<script>document.getElementById('t').addEventListener('click', (e) => { const th = e.target.closest('th'); if (th) document.getElementById('o').textContent = 'by ' + th.textContent.toLowerCase(); });</script>)");
    EXPECT_TRUE(has(b, "columnheader \"Date\" sorted descending [ref=")) << b;
    EXPECT_TRUE(has(s.click(b, "columnheader \"Total\""), "by total"));
    EXPECT_EQ(ref_on(b, "\"Note\""), "") << "a header that says nothing of sorting stays text:\n" << b;
}

// A grid whose one listener serves its cells (a calendar's month): each named cell is a control
// of its own, not one clickable holding every day.
TEST(WidgetPatternsE2E, CellsOfAGridWhoseListenerServesThemAreControls) {
    widget_site s;
    std::string days;
    for (int w = 0; w < 4; ++w) {
        days += "<tr role=\"row\">";
        for (int d = 1; d <= 7; ++d) {
            const std::string n = std::to_string(w * 7 + d);
            days += "<td role=\"gridcell\" aria-label=\"June " + n + ", 2026\" data-date=\"2026-06-";
            days += n + "\">" + n + "</td>";
        }
        days += "</tr>";
    }
    const std::string a = s.open("/a", "Calendar", "<p id=\"out\">day: none</p><table role=\"grid\"><tbody id=\"days\">" + days +
                                                      "</tbody></table><script>document.getElementById('days').addEventListener('mousedown', (e) => {"
                                                      " const c = e.target.closest('td'); if (c) document.getElementById('out').textContent = 'day: ' + c.dataset.date; });</script>");
    EXPECT_TRUE(has(a, "gridcell \"June 15, 2026\" [ref=")) << a;
    EXPECT_FALSE(has(a, "clickable \"1 2 3")) << a;
    EXPECT_TRUE(has(s.click(a, "gridcell \"June 15, 2026\""), "day: 2026-06-15"));
    // the second page, written apart: no ARIA, a plain table in a div that listens for clicks
    const std::string b = s.open("/b", "Seats", R"(<div id="plan"><table><tr><td>A1</td><td>A2</td><td>A3</td></tr><tr><td>B1</td><td>B2</td><td>B3</td></tr></table></div><p id="o">seat: none</p>
<script>document.getElementById('plan').addEventListener('click', (e) => { const c = e.target.closest('td'); if (c) document.getElementById('o').textContent = 'seat: ' + c.textContent; });</script>)");
    EXPECT_TRUE(has(s.click(b, "\"B2\""), "seat: B2")) << b;
    EXPECT_FALSE(has(b, "clickable \"A1 A2")) << b;
}

// A checkbox or switch the page hides under a styled toggle, its words hidden from the
// accessibility tree: named from the toggle's words, and clicked where a person clicks it.
TEST(WidgetPatternsE2E, AHiddenToggleIsNamedAndClickedThroughItsWrapper) {
    widget_site s;
    const std::string a = s.open("/a", "Toggle", R"(<div class="sw" id="sw" style="display:inline-flex;gap:8px;cursor:pointer">
<input type="checkbox" role="switch" id="el-id-1024-7" style="position:absolute;width:0;height:0;opacity:0;margin:0">
<span style="width:40px;height:20px;background:#ccc;border-radius:10px"></span><span aria-hidden="true">Express shipping</span></div><p id="out">express: off</p>
<script>const i = document.querySelector('#sw input'); document.getElementById('sw').addEventListener('click', (e) => { e.preventDefault();
  i.checked = !i.checked; document.getElementById('out').textContent = 'express: ' + (i.checked ? 'on' : 'off'); });</script>)");
    EXPECT_TRUE(has(a, "switch [Express shipping] unchecked [ref=")) << a;
    EXPECT_TRUE(has(s.click(a, "switch [Express shipping]"), "express: on"));
    // the second page, written apart: a custom checkbox whose native input is clipped away
    // inside its <label>; the label's words are visible
    const std::string b = s.open("/b", "Terms", R"(<label class="check"><input type="checkbox" id="t" style="position:absolute;clip:rect(0 0 0 0);width:1px;height:1px;overflow:hidden" onchange="document.getElementById('o').textContent = this.checked ? 'accepted' : 'not accepted'"><span class="box" style="display:inline-block;width:16px;height:16px;border:1px solid"></span> I accept the terms</label><p id="o">not accepted</p>)");
    EXPECT_TRUE(has(s.click(b, "checkbox \"I accept the terms\""), "accepted")) << b;
    // a hidden checkbox beside another control has no stand-in (a click around it could reach
    // that control): the click says it is not visible, and changes nothing
    const std::string c = s.open("/c", "Prefs", R"(<div><input type="checkbox" aria-label="Newsletter" onchange="document.getElementById('o').textContent='changed'" style="position:absolute;width:0;height:0;opacity:0;margin:0"><button>Save</button></div><p id="o">as it was</p>)");
    const std::string ref = ref_on(c, "checkbox \"Newsletter\"");
    ASSERT_FALSE(ref.empty()) << c;
    auto r = s.b.click(ref);
    ASSERT_FALSE(r) << r->to_text();
    EXPECT_TRUE(r.error().is(agentkit::errc::element_not_visible)) << r.error().to_text();
    EXPECT_TRUE(has(s.snapshot(), "as it was"));
}

// While a modal layer is open (a dropdown's or a dialog's portal), modal managers move the focus
// into it and hide the rest of the page with aria-hidden; a click there reaches the backdrop. The page behind is
// not listed (it came out as one clickable holding all its text), and comes back once the layer
// closes. aria-hidden on a small part of a page still lists its visible controls.
TEST(WidgetPatternsE2E, ThePageBehindAModalLayerIsNotListed) {
    widget_site s;
    const std::string a = s.open("/a", "Prefs", R"(<div id="root" style="min-height:90vh"><h1>Preferences</h1>
<button id="open">Age group</button><p id="out">age: none</p><button>Save all</button></div>
<script>const root = document.getElementById('root');
root.addEventListener('click', (e) => { if (e.target.id !== 'open') return;
  const layer = document.createElement('div'); layer.id = 'layer'; layer.setAttribute('role', 'presentation');
  layer.style = 'position:fixed;inset:0;background:rgba(0,0,0,.2)';
  layer.innerHTML = '<ul role="listbox" style="background:white;width:200px;margin:80px"><li role="option" tabindex="-1">Under 30</li><li role="option" tabindex="-1">Over 30</li></ul>';
  layer.addEventListener('click', (ev) => { const o = ev.target.closest('[role=option]'); if (o) document.getElementById('out').textContent = 'age: ' + o.textContent;
    layer.remove(); root.removeAttribute('aria-hidden'); });
  document.body.appendChild(layer); root.setAttribute('aria-hidden', 'true'); layer.querySelector('[role=option]').focus(); });</script>)");
    EXPECT_TRUE(has(a, "button \"Save all\" [ref=")) << a;
    s.click(a, "button \"Age group\"");
    const std::string open = s.snapshot();
    EXPECT_TRUE(has(open, "option \"Over 30\" [ref=")) << open;
    EXPECT_FALSE(has(open, "Save all")) << "the page behind the layer is listed:\n" << open;
    EXPECT_FALSE(has(open, "clickable \"Preferences")) << open;
    EXPECT_TRUE(has(s.click(open, "option \"Over 30\""), "age: Over 30"));
    EXPECT_TRUE(has(s.snapshot(), "button \"Save all\" [ref="));
    // the second page, written apart: a dialog layer over a <main> hidden by aria-hidden, and a
    // small aria-hidden toolbar elsewhere whose visible button stays listed
    const std::string b = s.open("/b", "Shop", R"(<main aria-hidden="true" style="min-height:95vh"><a href="#cart">Cart</a><p>Products</p></main>
<div class="modal" style="position:fixed;top:20px;left:20px;background:white;padding:20px"><div role="dialog" aria-modal="true" aria-label="Cookies"><button onclick="this.textContent='accepted'">Accept cookies</button></div></div>
<div aria-hidden="true" style="position:fixed;bottom:0;right:0;width:120px"><button onclick="this.textContent='helped'">Help</button></div>)");
    EXPECT_TRUE(has(b, "button \"Accept cookies\" [ref=")) << b;
    EXPECT_FALSE(has(b, "Cart")) << b;
    EXPECT_TRUE(has(b, "Help")) << "a small aria-hidden part still lists its controls:\n" << b;
}

// A native control that only backs a widget built in its place (shrunk to a pixel, out of the tab
// order: Tom Select's <select>) is not listed: the widget is the control. A custom checkbox's
// visually hidden input, still focusable, stays.
TEST(WidgetPatternsE2E, ANativeControlThatOnlyBacksAWidgetIsNotListed) {
    widget_site s;
    const std::string a = s.open("/a", "Fruit", R"(<label for="f-input">Fruit</label>
<select id="f" tabindex="-1" style="position:absolute;width:1px;height:1px;clip:rect(0 0 0 0);overflow:hidden"><option>Pick a fruit</option><option>Apple</option></select>
<div class="picker"><input id="f-input" role="combobox" placeholder="Pick a fruit" onclick="document.getElementById('o').textContent='opened'"></div><p id="o">closed</p>)");
    EXPECT_FALSE(has(a, "options: Pick a fruit|Apple")) << a;
    EXPECT_TRUE(has(s.click(a, "combobox \"Fruit\""), "opened")) << a;
    // shrunk in one direction only, clipped away (as Tom Select hides its <select>)
    const std::string one = s.open("/one", "Size", R"(<select tabindex="-1" aria-label="Size" style="position:absolute;width:1px;clip:rect(0 0 0 0);overflow:hidden"><option>S</option><option>M</option></select><button>Pick a size</button>)");
    EXPECT_FALSE(has(one, "options: S|M")) << one;
    EXPECT_TRUE(has(one, "button \"Pick a size\"")) << one;
    // the second page, written apart: a hidden text input that backs a date widget, beside a
    // visually hidden but focusable checkbox, which stays
    const std::string b = s.open("/b", "Trip", R"H(<input type="text" name="date" tabindex="-1" style="position:absolute;width:0;height:0;border:0;padding:0">
<button onclick="this.textContent='calendar shown'">Choose a date</button>
<label><input type="checkbox" style="position:absolute;width:1px;height:1px;clip:rect(0 0 0 0)"> Return trip</label>)H");
    EXPECT_FALSE(has(b, "[date]")) << b;
    EXPECT_FALSE(has(b, "textbox")) << b;
    EXPECT_TRUE(has(b, "checkbox \"Return trip\"")) << b;
}
