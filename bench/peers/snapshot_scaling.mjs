// How a snapshot's cost grows with the page (issue 48), side by side in one run.
//
//   cd bench/peers && npm ci && node snapshot_scaling.mjs --agentkit ../../build-rel/bin/agentkit-browser-mcp
//        [--no-playwright] [--chrome-devtools] [--sizes 1000,2000,4000,8000,16000,32000] [--runs N]
//        [--shapes blocks,table,tree,frames,saved]
//
// Pages, made here and served on 127.0.0.1:
//   blocks  N blocks, each a paragraph, a link and a button (3N lines), for every N of --sizes
//   flat    the same N blocks with no element around each (3N siblings of one parent)
//   table   a table of N/2 rows of five cells (one of them a link), for the smallest and largest N
//   tree    nested lists, six levels of four (5,460 items, the inner ones folders)
//   frames  100 same-origin iframes of 50 links each (5,000 links)
//   saved   the largest saved page of ../shared/data/pages/readability (wikipedia-2)
// For each server and page: navigate ms, snapshot ms (median of --runs), the snapshot's o200k
// tokens, a click on the page's first button and its result's ms and tokens, and ms per 1,000
// elements (the page's element count, counted in its HTML) for navigate and snapshot. Ratios
// are agentkit / peer. What "linear" means here: agentkit's snapshot ms per 1,000 blocks at the
// largest N within 1.3x of the smallest.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport, getDefaultEnvironment } from "@modelcontextprotocol/sdk/client/stdio.js";
import { encode } from "gpt-tokenizer/encoding/o200k_base";
import http from "node:http";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { cli, findRef, median, serverSpecs, textOf } from "./browser_servers.mjs";

const here = path.dirname(fileURLToPath(import.meta.url));
const { flag, opt, chromium } = cli(process.argv.slice(2));
const runs = Number(opt("--runs", "1"));
const sizes = opt("--sizes", "1000,2000,4000,8000,16000,32000").split(",").map(Number);
const shapes = new Set(opt("--shapes", "blocks,flat,table,tree,frames,saved").split(","));
const tokens = (s) => encode(s).length;
const now = () => performance.now();
const savedPage = path.resolve(here, "../../../shared/data/pages/readability/wikipedia-2/source.html");

// ---- pages ---------------------------------------------------------------------------------
const head = (title) => `<!doctype html><html><head><meta charset="utf-8"><title>${title}</title></head><body>`;
const click = `onclick="this.parentNode.querySelector('p').textContent='clicked'"`;
function blocksPage(n) {
  const parts = [head(`${n} blocks`), `<h1>${n} blocks</h1>`];
  for (let i = 0; i < n; ++i)
    parts.push(`<div><p>Paragraph ${i} says something about item ${i}.</p><a href="/item/${i}">Item ${i}</a> <button ${click}>Go ${i}</button></div>`);
  return parts.join("\n");
}
// The same blocks with no element around each: 3N siblings in one parent.
function flatPage(n) {
  const parts = [head(`${n} flat blocks`), `<h1>${n} flat blocks</h1>`];
  for (let i = 0; i < n; ++i)
    parts.push(`<p>Paragraph ${i} says something about item ${i}.</p><a href="/item/${i}">Item ${i}</a> <button onclick="this.textContent='clicked'">Go ${i}</button>`);
  return parts.join("\n");
}
function tablePage(rows) {
  const parts = [head(`${rows} rows`), `<h1>${rows} rows</h1><button ${click}>Go</button><p>table</p><table><tr><th>Id</th><th>Name</th><th>City</th><th>Score</th><th>Link</th></tr>`];
  for (let i = 0; i < rows; ++i)
    parts.push(`<tr><td>${i}</td><td>Name ${i}</td><td>City ${i % 97}</td><td>${(i * 37) % 1000}</td><td><a href="/row/${i}">open</a></td></tr>`);
  return parts.join("\n") + "</table>";
}
function treePage(levels = 6, fan = 4) {
  let id = 0;
  const list = (depth) => {
    let s = "<ul>";
    for (let i = 0; i < fan; ++i) {
      const n = id++;
      s += depth < levels - 1 ? `<li>Folder ${n}${list(depth + 1)}</li>` : `<li><a href="/leaf/${n}">Leaf ${n}</a></li>`;
    }
    return s + "</ul>";
  };
  return `${head("tree")}<h1>tree</h1><div><p>tree</p><button ${click}>Go</button></div>${list(0)}`;
}
function framesPage(frames = 100, links = 50) {
  const parts = [head(`${frames} frames`), `<h1>${frames} frames</h1><div><p>frames</p><button ${click}>Go</button></div>`];
  for (let f = 0; f < frames; ++f) parts.push(`<iframe src="/frame/${f}?links=${links}" width="300" height="60"></iframe>`);
  return parts.join("\n");
}
function framePage(f, links) {
  const parts = [head(`frame ${f}`)];
  for (let i = 0; i < links; ++i) parts.push(`<a href="/f/${f}/${i}">Frame ${f} link ${i}</a>`);
  return parts.join("\n");
}
const elements = (html) => (html.match(/<[a-zA-Z]/g) || []).length;

function servePages(pages) {
  const server = http.createServer((req, res) => {
    const url = new URL(req.url, "http://127.0.0.1");
    let body = pages.get(url.pathname)?.html;
    if (url.pathname.startsWith("/frame/")) body = framePage(url.pathname.slice(7), Number(url.searchParams.get("links") || 50));
    if (body === undefined) body = `${head("page")}<p>${url.pathname}</p>`;
    res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
    res.end(body);
  });
  return new Promise((resolve) => server.listen(0, "127.0.0.1", () => resolve(server)));
}

function buildPages() {
  const pages = [];
  if (shapes.has("blocks")) for (const n of sizes) pages.push({ name: `blocks ${n}`, unit: n, unitName: "blocks", html: blocksPage(n) });
  if (shapes.has("flat")) for (const n of sizes) pages.push({ name: `flat ${n}`, unit: n, unitName: "blocks", html: flatPage(n) });
  if (shapes.has("table"))
    for (const n of [...new Set([sizes[0], sizes[sizes.length - 1]])]) pages.push({ name: `table ${n / 2} rows`, unit: n / 2, unitName: "rows", html: tablePage(n / 2) });
  if (shapes.has("tree")) pages.push({ name: "tree 6x4", html: treePage() });
  if (shapes.has("frames")) {
    const p = { name: "frames 100x50", html: framesPage() };
    p.elements = elements(p.html) + 100 * (elements(framePage(0, 50)));
    pages.push(p);
  }
  if (shapes.has("saved") && fs.existsSync(savedPage)) pages.push({ name: "saved wikipedia-2", html: fs.readFileSync(savedPage, "utf8") });
  pages.forEach((p, i) => {
    p.path = `/p${i}`;
    p.elements ??= elements(p.html);
  });
  return pages;
}

// ---- servers -------------------------------------------------------------------------------
async function runServer(spec, base, pages) {
  const transport = new StdioClientTransport({
    command: spec.command,
    args: spec.args,
    stderr: "ignore",
    ...(spec.env ? { env: { ...getDefaultEnvironment(), ...spec.env } } : {}),
  });
  const client = new Client({ name: "agentkit-scaling", version: "1.0.0" });
  await client.connect(transport);
  const call = (name, a) => client.callTool({ name, arguments: { ...(spec.commonArgs || {}), ...a } }, undefined, { timeout: 600000 });
  const timed = async (fn) => {
    const t0 = now();
    const r = await fn();
    return { r, ms: now() - t0 };
  };
  const out = {};
  for (const p of pages) {
    const row = { navMs: [], snapMs: [] };
    try {
      for (let i = 0; i < runs; ++i) {
        const nav = await timed(() => call(spec.tools.navigate, { url: base + p.path, ...(spec.uidStyle ? { type: "url" } : {}) }));
        if (nav.r.isError) throw new Error(`navigate: ${textOf(nav.r).slice(0, 200)}`);
        row.navMs.push(nav.ms);
        row.navTokens = tokens(textOf(nav.r));
        const snap = await timed(() => call(spec.tools.snapshot, {}));
        if (snap.r.isError) throw new Error(`snapshot: ${textOf(snap.r).slice(0, 200)}`);
        row.snapMs.push(snap.ms);
        row.snapTokens = tokens(textOf(snap.r));
        if (i === runs - 1) {
          const ref = findRef(textOf(snap.r), /button "Go( 0)?"/);
          if (ref) {
            const c = await timed(() => call(spec.tools.click, spec.uidStyle ? { uid: ref } : { target: ref, element: "Go" }));
            row.clickMs = c.ms;
            row.clickTokens = tokens(textOf(c.r));
            row.clickError = c.r.isError ? textOf(c.r).slice(0, 120) : undefined;
          }
        }
      }
    } catch (e) {
      row.error = String(e.message || e);
    }
    out[p.name] = row;
    process.stderr.write(`  ${spec.name} ${p.name}: nav ${median(row.navMs).toFixed(0)} ms, snapshot ${median(row.snapMs).toFixed(0)} ms${row.error ? " " + row.error : ""}\n`);
  }
  await client.close();
  return out;
}

async function main() {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "agentkit-scaling-"));
  const pages = buildPages();
  const server = await servePages(new Map(pages.map((p) => [p.path, p])));
  const base = `http://127.0.0.1:${server.address().port}`;
  const specs = serverSpecs(tmp, base, {
    chromium,
    playwright: !flag("--no-playwright"),
    chromeDevtools: flag("--chrome-devtools"),
    agentBrowser: false,
    agentkit: opt("--agentkit", null),
    agentkitNoPolicy: flag("--agentkit-no-policy"),
  }).map((s) => (s.name === "agentkit" ? { ...s, args: [...s.args, "--timeout-navigation", "600000", "--timeout-action", "600000"] } : s));
  const results = {};
  try {
    for (const spec of specs) {
      process.stderr.write(`running ${spec.name}...\n`);
      results[spec.name] = await runServer(spec, base, pages);
    }
  } finally {
    server.close();
    fs.rmSync(tmp, { recursive: true, force: true });
  }
  const names = Object.keys(results);
  const fmt = (x) => (x === undefined || Number.isNaN(x) ? "-" : Number.isInteger(x) ? String(x) : x.toFixed(1));
  const header = ["page", "elements", "metric", ...names, ...(names.includes("agentkit") ? names.filter((n) => n !== "agentkit").map((n) => `agentkit/${n}`) : [])];
  const rows = [header];
  for (const p of pages) {
    const metric = (label, get) => {
      const vals = names.map((n) => (results[n][p.name].error ? undefined : get(results[n][p.name])));
      const ak = vals[names.indexOf("agentkit")];
      const ratios = names.includes("agentkit")
        ? names.filter((n) => n !== "agentkit").map((n) => {
            const v = vals[names.indexOf(n)];
            return ak !== undefined && v ? (ak / v).toFixed(2) + "x" : "-";
          })
        : [];
      rows.push([p.name, String(p.elements), label, ...vals.map(fmt), ...ratios]);
    };
    metric("navigate ms", (r) => median(r.navMs));
    metric("snapshot ms", (r) => median(r.snapMs));
    metric("snapshot ms / 1k elements", (r) => (median(r.snapMs) * 1000) / p.elements);
    if (p.unit) metric(`snapshot ms / 1k ${p.unitName}`, (r) => (median(r.snapMs) * 1000) / p.unit);
    metric("navigate ms / 1k elements", (r) => (median(r.navMs) * 1000) / p.elements);
    metric("snapshot tokens", (r) => r.snapTokens);
    metric("navigate tokens", (r) => r.navTokens);
    metric("click ms", (r) => r.clickMs);
    metric("click tokens", (r) => r.clickTokens);
  }
  const width = header.map((_, i) => Math.max(...rows.map((r) => String(r[i] ?? "").length)));
  for (const r of rows) console.log(r.map((c, i) => String(c ?? "").padEnd(width[i])).join("  "));
  for (const n of names)
    for (const p of pages) if (results[n][p.name].error) console.log(`${n} ${p.name}: ${results[n][p.name].error}`);
  for (const shape of ["blocks", "flat"]) {
    const blocks = pages.filter((p) => p.name.startsWith(shape + " "));
    if (blocks.length < 2) continue;
    for (const n of names) {
      const per = (p) => median(results[n][p.name].snapMs) / p.unit;
      console.log(`${n}: ${shape}: snapshot ms per 1k blocks at ${blocks.at(-1).unit} / at ${blocks[0].unit}: ${(per(blocks.at(-1)) / per(blocks[0])).toFixed(2)}x`);
    }
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
