// Side-by-side benchmark of MCP browser servers through the official MCP TypeScript client.
//
//   cd bench/peers && npm ci && node browser_bench.mjs [--agentkit ../../build/bin/agentkit-browser-mcp]
//                                                      [--no-playwright] [--chrome-devtools] [--agent-browser] [--runs N]
//                                                      [--agentkit-no-policy] [--dump-snapshots] [--dump-form]
//                                                      [--ref-session N] [--tasks] [--dump-tasks] [--pages a,b,…]
//
// Playwright MCP and agentkit both run with --allowed-origins set to the page server (agentkit
// enforces it by request interception, which has a cost); --agentkit-no-policy measures
// agentkit without it.
//
// Every server runs in the same process tree, against the same pages, served by this script
// on 127.0.0.1, in one run. For each server it reports: spawn-to-initialize ms, tools/list
// tokens, navigate / snapshot / click / type ms and tokens per page, a 5-field form fill
// (calls, tokens returned, the median ms of --runs fills), and the server's RSS (its own
// process, without the browser). --agent-browser adds agent-browser (tools/list, navigate and
// snapshot rows only) and a row per page comparing its default snapshot (interactive elements
// only) with agentkit's interactive_only snapshot. --ref-session N adds the o200k tokens of a ref
// over an N-page session (each server's own ref syntax). --tasks runs four multi-step tasks
// (pages/tasks/: a shop, its search and help pages, a two-step sign-up; and the form fill) the
// way a scripted model would with each server's own tools: it acts on refs it finds in the last
// result it got, takes a snapshot when that result has not got what it needs, and reads the
// answer from the page; the tokens of every result count. Rows: each task's tokens (or
// "failed"), tasks solved, tokens per solved task, calls (issue 18). --pages names the saved pages
// (../shared/data/pages/readability/NAME) measured after form and list, instead of the five.
// Tokens are real o200k tokens (gpt-tokenizer). Ratios are agentkit / peer.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport, getDefaultEnvironment } from "@modelcontextprotocol/sdk/client/stdio.js";
import { encode } from "gpt-tokenizer/encoding/o200k_base";
import http from "node:http";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { cli, findRef, median, serverSpecs, textOf } from "./browser_servers.mjs";
import { runTask } from "./browser_tasks.mjs";

const here = path.dirname(fileURLToPath(import.meta.url));
const { flag, opt, chromium } = cli(process.argv.slice(2));
const runs = Number(opt("--runs", "3"));
const tokens = (s) => encode(s).length;
const now = () => performance.now();

// ---- pages ---------------------------------------------------------------------------------
const pagesDir = path.join(here, "pages");
const readabilityDir = path.resolve(here, "../../../shared/data/pages/readability");
function servePages() {
  const server = http.createServer((req, res) => {
    const url = new URL(req.url, "http://127.0.0.1");
    if (url.pathname === "/submit") {
      const fields = [...url.searchParams.entries()].map(([k, v]) => `<li>${k}=${v}</li>`).join("");
      res.writeHead(200, { "content-type": "text/html" });
      res.end(`<!doctype html><title>Thanks</title><h1>Thanks!</h1><ul>${fields}</ul>`);
      return;
    }
    let file = null;
    if (url.pathname.startsWith("/readability/")) file = path.join(readabilityDir, url.pathname.slice(13));
    else file = path.join(pagesDir, url.pathname === "/" ? "index.html" : url.pathname.slice(1));
    if (!file.startsWith(pagesDir) && !file.startsWith(readabilityDir)) file = null;
    if (!file || !fs.existsSync(file) || fs.statSync(file).isDirectory()) {
      res.writeHead(404, { "content-type": "text/plain" });
      res.end("not found");
      return;
    }
    const type = file.endsWith(".html") ? "text/html; charset=utf-8" : file.endsWith(".js") ? "text/javascript" : "application/octet-stream";
    res.writeHead(200, { "content-type": type });
    fs.createReadStream(file).pipe(res);
  });
  return new Promise((resolve) => server.listen(0, "127.0.0.1", () => resolve(server)));
}

// ---- servers -------------------------------------------------------------------------------
const serverOptions = () => ({
  chromium,
  playwright: !flag("--no-playwright"),
  chromeDevtools: flag("--chrome-devtools"),
  agentBrowser: flag("--agent-browser"),
  agentkit: opt("--agentkit", null),
  agentkitNoPolicy: flag("--agentkit-no-policy"),
});

// ---- ref parity ----------------------------------------------------------------------------
// The issue's target: agentkit's snapshot is at most half of Playwright MCP's tokens "with every
// interactive element still carrying a ref". This checks the second half: each interactive
// element Playwright MCP gives a ref to must have a ref-carrying line in agentkit's snapshot
// with the same role and accessible name (normalised: unescaped, lower case, whitespace
// collapsed; a name agentkit clipped with "…" matches by prefix). An element agentkit shows
// with a ref under another role (e.g. "clickable" for a div Playwright calls "button") counts
// as matched and is reported as a role difference.
const interactiveRoles = new Set(["link", "button", "textbox", "checkbox", "radio", "combobox", "listbox", "option", "menuitem",
  "menuitemcheckbox", "menuitemradio", "tab", "switch", "slider", "spinbutton", "searchbox", "treeitem"]);
const normName = (s) => s.replace(/\\(.)/g, "$1").replace(/\s+/g, " ").trim().toLowerCase();

// Playwright MCP YAML: `- link "Home" [ref=e4] [cursor=pointer]:`, `- button [ref=e5]`. An
// element Playwright leaves unnamed (its name-from-content differs from Chromium's, e.g. a link
// wrapping an article) keeps its link URL and the texts below it, to be matched by those.
function playwrightInteractive(snapshot) {
  const out = [];
  const lines = snapshot.split("\n");
  for (let i = 0; i < lines.length; ++i) {
    const m = lines[i].match(/^(\s*)- ([a-z]+)(?: "((?:[^"\\]|\\.)*)")?.*?\[ref=[^\]]+\]/);
    if (!m || !interactiveRoles.has(m[2])) continue;
    const e = { role: m[2], name: normName(m[3] ?? ""), line: lines[i].trim(), url: "", texts: [] };
    if (!e.name)
      for (let j = i + 1; j < lines.length && lines[j].match(/^\s*/)[0].length > m[1].length; ++j) {
        const u = lines[j].match(/^\s*- \/url: "?([^"]*)"?$/);
        if (u && !e.url) e.url = u[1];
        const t = lines[j].match(/^\s*- '?(?:text|heading|img|generic|paragraph)(?: "((?:[^"\\]|\\.)*)")?[^:]*(?:: "?(.*?)"?'?)?$/);
        if (t && (t[1] || t[2])) e.texts.push(normName(t[1] || t[2]));
      }
    out.push(e);
  }
  return out;
}

// agentkit: ` link "Home" / [ref=e1]`, `- button "Go" [ref=e3]`, `checkbox [Task 1] unchecked [ref=e7]`.
function agentkitRefLines(snapshot) {
  const out = [];
  for (const line of snapshot.split("\n")) {
    if (!/\[ref=[^\]]+\]/.test(line)) continue;
    const m = line.match(/^\s*(?:- )?([A-Za-z][A-Za-z0-9]*)(?: "((?:[^"\\]|\\.)*)")?/);
    if (!m) continue;
    const bracket = m[2] === undefined ? line.slice(m[0].length).match(/^ \[([^\]]*)\]/) : null;
    const url = m[1] === "link" ? (line.match(/ (\S+) \[ref=[^\]]+\]\s*$/) || [])[1] ?? "" : "";
    out.push({ role: m[1], name: normName(m[2] ?? ""), label: bracket ? normName(bracket[1]) : "", url, used: false });
  }
  return out;
}

// agentkit's interactive-only view against its full snapshot: each ref of the full snapshot but
// those of landmarks and containers (handles, not controls) must lead a line of the view.
const containerLine = /^(?:- )?(?:dialog|alertdialog|alert|banner|navigation|main|contentinfo|complementary|form|search|region|menu|menubar|tablist|tabpanel|toolbar|tree|grid|table|radiogroup|feed)\b/;
function interactiveParity(full, io) {
  const led = new Set(io.split("\n").map((l) => (l.match(/^\s*([a-gi-z]\d+) /) || [])[1]).filter(Boolean));
  let total = 0, kept = 0;
  for (const line of full.split("\n")) {
    const m = line.match(/\[ref=([a-z]\d+)\]/);
    if (!m || containerLine.test(line.trim())) continue;
    ++total;
    if (led.has(m[1])) ++kept;
  }
  return { total, kept };
}

const bareUrl = (u) => u.replace(/^(https?:)?\/\//, "").replace(/…$/, "");
function refParity(pwSnapshot, akSnapshot) {
  const want = playwrightInteractive(pwSnapshot);
  const have = agentkitRefLines(akSnapshot);
  const prefixOf = (a, b) => a.length > 0 && b.startsWith(a);
  const sameName = (a, w) => {
    if (a.name === w.name) return true;
    if (a.name.endsWith("…") && prefixOf(a.name.slice(0, -1).trimEnd(), w.name)) return true;
    if (!a.name && a.label && a.label === w.name) return true;  // unnamed: labelled by its neighbour text
    if (!w.name) {  // Playwright gave no name: the same link target, or a name made of the texts inside
      if (w.url && a.url && (bareUrl(w.url) === bareUrl(a.url) || prefixOf(bareUrl(a.url), bareUrl(w.url)) ||
          (a.url.startsWith("/") && bareUrl(w.url).endsWith(bareUrl(a.url))))) return true;
      const an = a.name.replace(/…$/, "");
      if (w.texts.some((t) => t && an && (prefixOf(an, t) || prefixOf(t, an)))) return true;
      if (!a.name && !w.texts.length) return true;
    }
    return false;
  };
  const missing = [];
  let matched = 0;
  let otherRole = 0;
  const unmatched = [];
  for (const w of want) {  // first pass: same role and name
    const a = have.find((x) => !x.used && x.role === w.role && sameName(x, w));
    if (a) {
      a.used = true;
      ++matched;
    } else unmatched.push(w);
  }
  for (const w of unmatched) {  // second pass: the same element under another role
    const a = have.find((x) => !x.used && sameName(x, w) && (w.name || w.url || w.texts.length));
    if (a) {
      a.used = true;
      ++matched;
      ++otherRole;
    } else missing.push(w.line + (w.url ? ` (${w.url})` : w.texts.length ? ` ("${w.texts[0]}")` : ""));
  }
  return { total: want.length, matched, otherRole, missing };
}

function rssKb(pid) {
  try {
    const s = fs.readFileSync(`/proc/${pid}/status`, "utf8");
    const m = s.match(/VmRSS:\s+(\d+)/);
    return m ? Number(m[1]) : NaN;
  } catch {
    return NaN;
  }
}

async function timed(fn) {
  const t0 = now();
  const r = await fn();
  return { ms: now() - t0, r };
}

// ---- tasks: tokens per solved task (issue 18) ----------------------------------------------
// Each step names what a model would look for in the page (a line of the snapshot), not a ref.
// Patterns accept each server's spelling of a role ("textbox"/"searchbox", "spinbutton").
const benchTasks = [
  {
    name: "shop", start: "/tasks/shop.html", check: /2 × Blue Kettle/,
    steps: [
      { do: "click", find: /link "Blue Kettle"/ },
      { do: "select", find: /combobox "Quantity/, value: "2" },
      { do: "click", find: /button "Add to cart"/ },
      { do: "read", want: /2 × Blue Kettle/ },
    ],
  },
  {
    name: "search", start: "/tasks/shop.html", check: /KD-4542/,
    steps: [
      { do: "type", find: /(?:textbox|searchbox) "Search the shop/, text: "kettle", submit: true },
      { do: "click", find: /link "Kettle descaling guide"/ },
      { do: "read", want: /KD-4542/ },
    ],
  },
  {
    name: "sign-up", start: "/tasks/signup.html", check: /Welcome, Ada \(Pro plan\)/,
    steps: [
      { do: "fill", fields: [
        { find: /textbox "Full name/, name: "Full name", type: "textbox", value: "Ada" },
        { find: /textbox "Email/, name: "Email", type: "textbox", value: "ada@example.com" },
      ], submit: /button "Next"/ },
      { do: "click", find: /radio "Pro plan/ },
      { do: "click", find: /checkbox "I accept the terms/ },
      { do: "click", find: /button "Create account"/ },
      { do: "read", want: /Welcome, Ada \(Pro plan\)/ },
    ],
  },
  {
    name: "form", start: "/form.html", check: /Thanks/,
    steps: [
      { do: "fill", fields: [
        { find: /textbox "Full name/, name: "Full name", type: "textbox", value: "Ada Lovelace" },
        { find: /textbox "Email/, name: "Email", type: "textbox", value: "ada@example.com" },
        { find: /(?:spinbutton|textbox) "Age/, name: "Age", type: "textbox", value: "36" },
        { find: /combobox "Country/, name: "Country", type: "combobox", value: "Norway" },
        { find: /checkbox "Subscribe/, name: "Subscribe", type: "checkbox", value: "true" },
      ], submit: /button "Send"/ },
      { do: "read", want: /Thanks/ },
    ],
  },
];

async function runServer(spec, base, pages) {
  const out = { name: spec.name, pages: {} };
  const transport = new StdioClientTransport({
    command: spec.command,
    args: spec.args,
    stderr: "ignore",
    ...(spec.env ? { env: { ...getDefaultEnvironment(), ...spec.env } } : {}),
  });
  const client = new Client({ name: "agentkit-bench", version: "1.0.0" });
  const t0 = now();
  await client.connect(transport);
  out.initializeMs = now() - t0;
  out.rssKbIdle = rssKb(transport.pid);
  const list = await client.listTools();
  out.toolCount = list.tools.length;
  out.toolsListTokens = tokens(JSON.stringify(list.tools));
  const call = (name, a) => client.callTool({ name, arguments: { ...(spec.commonArgs || {}), ...a } }, undefined, { timeout: 120000 });
  const refArg = (ref) => (spec.uidStyle ? { uid: ref } : { target: ref, element: "target element" });

  for (const p of pages) {
    const res = { navMs: [], snapMs: [], navTokens: 0, snapTokens: 0 };
    for (let i = 0; i < runs; ++i) {
      const nav = await timed(() => call(spec.tools.navigate, { url: base + p.path, ...(spec.uidStyle ? { type: "url" } : {}) }));
      res.navMs.push(nav.ms);
      res.navTokens = tokens(textOf(nav.r));
      const snap = await timed(() => call(spec.tools.snapshot, {}));
      res.snapMs.push(snap.ms);
      res.snapTokens = tokens(textOf(snap.r));
      res.snapshotText = textOf(snap.r);
    }
    out.pages[p.name] = { navMs: median(res.navMs), snapMs: median(res.snapMs), navTokens: res.navTokens, snapTokens: res.snapTokens, snapshotText: res.snapshotText };
    // the interactive-only view (issue 18): agent-browser's default snapshot, agentkit's
    // interactive_only mode
    if (spec.interactiveByDefault) {
      out.pages[p.name].interactiveTokens = res.snapTokens;
      out.pages[p.name].interactiveText = res.snapshotText;
    } else if (spec.name === "agentkit") {
      out.pages[p.name].interactiveText = textOf(await call(spec.tools.snapshot, { interactive_only: true }));
      out.pages[p.name].interactiveTokens = tokens(out.pages[p.name].interactiveText);
    }
    // For the ref parity check, agentkit's whole snapshot: its default one is cut to a 6000-token
    // budget on big pages (the rest goes to an artifact), while Playwright MCP's is never cut;
    // comparing a cut snapshot would count elements as missing that agentkit does give refs to.
    if (spec.name === "agentkit") out.pages[p.name].fullSnapshotText = textOf(await call(spec.tools.snapshot, { budget: 100000 }));
  }

  // Refs over a long session (issue 18): --ref-session N navigates N pages (the bench pages in
  // turn, each visit a new document) and reads each one's snapshot; the mean o200k tokens of a
  // ref's id as the model reads and writes it ("e938"; chrome-devtools-mcp's "12_3"), over every
  // ref shown, and the last one.
  const sessionPages = Number(opt("--ref-session", "0"));
  if (sessionPages > 0) {
    let refs = 0;
    let refTokens = 0;
    let last = "";
    for (let i = 0; i < sessionPages; ++i) {
      const p = pages[i % pages.length];
      await call(spec.tools.navigate, { url: base + p.path, ...(spec.uidStyle ? { type: "url" } : {}) });
      const text = textOf(await call(spec.tools.snapshot, {}));
      for (const m of text.matchAll(spec.uidStyle ? /\buid=([A-Za-z0-9_]+)/g : /\bref=([A-Za-z0-9_]+)/g)) {
        ++refs;
        refTokens += tokens(m[1]);
        last = m[1];
      }
    }
    out.refSession = { refs, mean: (refTokens / refs).toFixed(2), last };
  }

  if (flag("--tasks")) {
    out.tasks = {};
    for (const task of benchTasks) out.tasks[task.name] = await runTask(spec, call, base, task);
  }

  if (spec.snapshotOnly) {
    if (spec.closeTool) await call(spec.closeTool, {}).catch(() => {});
    out.rssKbEnd = rssKb(transport.pid);
    await client.close();
    return out;
  }

  // click and type on the form page
  {
    const clickMs = [];
    const typeMs = [];
    for (let i = 0; i < runs; ++i) {
      await call(spec.tools.navigate, { url: base + "/form.html", ...(spec.uidStyle ? { type: "url" } : {}) });
      const snap = textOf(await call(spec.tools.snapshot, {}));
      const name = findRef(snap, /textbox "Full name/);
      const box = findRef(snap, /checkbox "Subscribe/);
      if (!name || !box) throw new Error(`${spec.name}: refs not found in snapshot:\n${snap}`);
      const typed = await timed(() =>
        call(spec.tools.type, spec.uidStyle ? { uid: name, value: "Ada Lovelace" } : { ...refArg(name), text: "Ada Lovelace" }),
      );
      typeMs.push(typed.ms);
      const clicked = await timed(() => call(spec.tools.click, refArg(box)));
      if (clicked.r.isError) throw new Error(`${spec.name}: click failed: ${textOf(clicked.r)}`);
      if (typed.r.isError) throw new Error(`${spec.name}: type failed: ${textOf(typed.r)}`);
      clickMs.push(clicked.ms);
      out.clickTokens = tokens(textOf(clicked.r));
      out.typeTokens = tokens(textOf(typed.r));
    }
    out.clickMs = median(clickMs);
    out.typeMs = median(typeMs);
  }

  // a 5-field form fill, the way a model would do it: snapshot, then fill + submit. Run `runs`
  // times (a fresh page each time): the median ms; calls and tokens of the last run.
  const formFill = async () => {
    const t = now();
    let calls = 0;
    let returned = 0;
    const texts = [];
    const c = async (name, a) => {
      ++calls;
      const r = await call(name, a);
      returned += tokens(textOf(r));
      texts.push(`-- ${name} (${tokens(textOf(r))} tokens)\n${textOf(r)}`);
      return r;
    };
    // Each server is used the way it is meant to be: a navigate that already returns the page's
    // refs needs no separate snapshot call.
    let snap = textOf(await c(spec.tools.navigate, { url: base + "/form.html", ...(spec.uidStyle ? { type: "url" } : {}) }));
    if (!/\[ref=|uid=/.test(snap)) snap = textOf(await c(spec.tools.snapshot, {}));
    const ref = (re) => findRef(snap, re);
    const fields = [
      { name: "Full name", type: "textbox", ref: ref(/textbox "Full name/), value: "Ada Lovelace" },
      { name: "Email", type: "textbox", ref: ref(/textbox "Email/), value: "ada@example.com" },
      { name: "Age", type: "textbox", ref: ref(/spinbutton "Age|textbox "Age/), value: "36" },
      { name: "Country", type: "combobox", ref: ref(/combobox "Country/), value: "Norway" },
      { name: "Subscribe", type: "checkbox", ref: ref(/checkbox "Subscribe/), value: "true" },
    ];
    if (fields.some((f) => !f.ref)) throw new Error(`${spec.name}: form refs missing:\n${snap}`);
    const submit = ref(/button "Send"/);
    let done;
    if (spec.uidStyle) {
      await c(spec.tools.fill, { elements: fields.map((f) => ({ uid: f.ref, value: f.value })) });
    } else if (spec.fillSubmits) {
      done = textOf(await c(spec.tools.fill, { fields: fields.map((f) => ({ name: f.name, type: f.type, target: f.ref, value: f.value })), submit }));
    } else {
      await c(spec.tools.fill, { fields: fields.map((f) => ({ name: f.name, type: f.type, target: f.ref, value: f.value })) });
    }
    if (done === undefined) done = textOf(await c(spec.tools.click, refArg(submit)));
    const ms = now() - t;  // the check below is the bench's, not the model's: not timed
    if (!/Thanks/.test(done) && !/Thanks/.test(textOf(await call(spec.tools.snapshot, {}))))
      throw new Error(`${spec.name}: the form was not submitted: ${done}`);
    return { calls, tokens: returned, ms, texts };
  };
  {
    const fills = [];
    for (let i = 0; i < runs; ++i) fills.push(await formFill());
    out.form = { ...fills[fills.length - 1], ms: median(fills.map((f) => f.ms)), all: fills.map((f) => f.ms) };
  }
  out.rssKbEnd = rssKb(transport.pid);
  await client.close();
  return out;
}

async function main() {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "agentkit-bench-"));
  const server = await servePages();
  const base = `http://127.0.0.1:${server.address().port}`;
  const wanted = opt("--pages")?.split(",") ?? ["wikipedia", "nytimes-2", "medium-2", "lwn-1", "cnn"];
  const readable = fs.existsSync(readabilityDir)
    ? wanted.filter((n) => fs.existsSync(path.join(readabilityDir, n, "source.html")))
    : [];
  const pages = [
    { name: "form", path: "/form.html" },
    { name: "list", path: "/list.html" },
    ...readable.map((n) => ({ name: n, path: `/readability/${n}/source.html` })),
  ];
  const results = [];
  try {
    for (const spec of serverSpecs(tmp, base, serverOptions())) {
      process.stderr.write(`running ${spec.name}...\n`);
      results.push(await runServer(spec, base, pages));
    }
  } finally {
    server.close();
    fs.rmSync(tmp, { recursive: true, force: true });
  }
  const ak = results.find((r) => r.name === "agentkit");
  const ratio = (a, b) => (a !== undefined && b ? (a / b).toFixed(2) + "x" : "-");
  const fmt = (x) => (typeof x === "number" ? (Number.isInteger(x) ? String(x) : x.toFixed(1)) : String(x));
  const rows = [];
  // a server that does not take part in a row (agent-browser: snapshots only) shows "-"
  const value = (get, r) => {
    try {
      return get(r);
    } catch {
      return undefined;
    }
  };
  const row = (label, get) => {
    const cells = results.map((r) => (value(get, r) === undefined ? "-" : fmt(value(get, r))));
    const peers = results.filter((r) => r !== ak).map((r) => (ak ? ratio(value(get, ak), value(get, r)) : "-"));
    rows.push([label, ...cells, ...peers]);
  };
  row("initialize ms", (r) => r.initializeMs);
  row("tools/list tokens", (r) => r.toolsListTokens);
  row("tool count", (r) => r.toolCount);
  row("server RSS MB (idle)", (r) => r.rssKbIdle / 1024);
  row("server RSS MB (end)", (r) => r.rssKbEnd / 1024);
  for (const p of pages) {
    row(`${p.name}: navigate ms`, (r) => r.pages[p.name].navMs);
    row(`${p.name}: navigate tokens`, (r) => r.pages[p.name].navTokens);
    row(`${p.name}: snapshot ms`, (r) => r.pages[p.name].snapMs);
    row(`${p.name}: snapshot tokens`, (r) => r.pages[p.name].snapTokens);
  }
  if (results.some((r) => r.name === "agent-browser"))
    for (const p of pages) row(`${p.name}: interactive-only snapshot tokens`, (r) => r.pages[p.name].interactiveTokens);
  if (ak)  // ref parity of the interactive-only view: every control of the full snapshot leads a line of it
    for (const p of pages) {
      const { fullSnapshotText: full, interactiveText: io } = ak.pages[p.name];
      if (full === undefined || io === undefined) continue;
      const q = interactiveParity(full, io);
      rows.push([`${p.name}: interactive-only controls kept`, ...results.map((r) => (r === ak ? `${q.kept}/${q.total}` : "-")),
        ...results.filter((r) => r !== ak).map(() => "-")]);
    }
  const pw = results.find((r) => r.name === "playwright-mcp");
  const parity = {};
  if (ak && pw) {
    for (const p of pages) parity[p.name] = refParity(pw.pages[p.name].snapshotText, ak.pages[p.name].fullSnapshotText);
    const prow = (label, get) => rows.push([label, ...results.map((r) => (r === ak ? get() : "-")), ...results.filter((r) => r !== ak).map(() => "-")]);
    for (const p of pages) {
      const q = parity[p.name];
      prow(`${p.name}: interactive refs matched`, () => `${q.matched}/${q.total}` + (q.otherRole ? ` (${q.otherRole} other role)` : ""));
      prow(`${p.name}: interactive refs missing`, () => String(q.missing.length));
    }
  }
  if (results.some((r) => r.refSession)) {
    row(`refs over ${opt("--ref-session", "0")} pages: tokens per ref`, (r) => r.refSession.mean);
    rows.push([`refs over ${opt("--ref-session", "0")} pages: last ref`, ...results.map((r) => r.refSession?.last ?? "-"), ...results.filter((r) => r !== ak).map(() => "")]);
  }
  row("click ms", (r) => r.clickMs);
  row("click result tokens", (r) => r.clickTokens);
  row("type ms", (r) => r.typeMs);
  row("form fill calls", (r) => r.form.calls);
  row("form fill tokens returned", (r) => r.form.tokens);
  row("form fill ms (median)", (r) => r.form.ms);
  rows.push(["form fill ms (each run)", ...results.map((r) => (r.form ? r.form.all.map((x) => x.toFixed(0)).join(" ") : "-")), ...results.filter((r) => r !== ak).map(() => "")]);
  if (flag("--tasks")) {
    for (const t of benchTasks) row(`task ${t.name}: tokens (solved only)`, (r) => (r.tasks[t.name].solved ? r.tasks[t.name].tokens : undefined));
    for (const t of benchTasks) row(`task ${t.name}: calls`, (r) => r.tasks[t.name].calls);
    const solved = (r) => Object.values(r.tasks).filter((x) => x.solved);
    rows.push(["tasks solved", ...results.map((r) => `${solved(r).length}/${benchTasks.length}`), ...results.filter((r) => r !== ak).map(() => "")]);
    row("tokens per solved task", (r) => (solved(r).length ? solved(r).reduce((a, x) => a + x.tokens, 0) / solved(r).length : undefined));
    row("calls per solved task", (r) => (solved(r).length ? solved(r).reduce((a, x) => a + x.calls, 0) / solved(r).length : undefined));
  }
  const header = ["metric", ...results.map((r) => r.name), ...results.filter((r) => r !== ak).map((r) => `agentkit/${r.name}`)];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => String(r[i]).length)));
  const line = (cells) => cells.map((c, i) => String(c).padEnd(widths[i])).join("  ");
  console.log(line(header));
  for (const r of rows) console.log(line(r));
  for (const [name, q] of Object.entries(parity))
    if (q.missing.length)
      console.log(`\n${name}: ${q.missing.length} of Playwright MCP's ${q.total} interactive refs have no ref-carrying line in agentkit's snapshot, e.g.\n  ` +
        q.missing.slice(0, 8).join("\n  "));
  if (flag("--dump-snapshots"))
    for (const r of results)
      for (const p of pages) {
        console.log(`\n==== ${r.name} ${p.name}\n${r.pages[p.name].fullSnapshotText ?? r.pages[p.name].snapshotText}`);
        if (r.pages[p.name].fullSnapshotText !== undefined && r.pages[p.name].interactiveText !== undefined)
          console.log(`\n==== ${r.name} ${p.name} interactive-only\n${r.pages[p.name].interactiveText}`);
      }
  if (flag("--tasks"))
    for (const r of results)
      for (const [name, t] of Object.entries(r.tasks))
        if (!t.solved) console.log(`\n${r.name}: task ${name} failed: ${t.error}`);
  if (flag("--dump-tasks"))
    for (const r of results)
      for (const [name, t] of Object.entries(r.tasks ?? {})) console.log(`\n==== ${r.name} task ${name}\n${t.log.join("\n")}`);
  if (flag("--dump-form"))
    for (const r of results) if (r.form) console.log(`\n==== ${r.name} form fill\n${r.form.texts.join("\n")}`);
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
