// Seeing the page, through the MCP server as a model gets it (issue 27):
//  1. snapshot o200k tokens of the peers bench pages (./pages) and the saved pages of
//     ../shared/data/pages/readability, for a server before icon names (--before BINARY) and
//     after (--agentkit BINARY), with the number of controls named by a derived name
//     ("(icon: …)", "(title: …)", "(alt: …)", "(label: …)") and of "[unlabeled #N]" ones;
//  2. time and bytes of a marked screenshot (browser_take_screenshot {marks: true}) against an
//     unmarked one on the same pages (the after server; median of --runs).
//
//   cd bench/peers && node vision_bench.mjs --agentkit ../../build/bin/agentkit-browser-mcp \
//        [--before OLD_BINARY] [--runs 5] [--pages a.html,b.html]
//
// Pages are served on 127.0.0.1 and every other origin is blocked (--allowed-origins).
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { encode } from "gpt-tokenizer/encoding/o200k_base";
import http from "node:http";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const here = path.dirname(fileURLToPath(import.meta.url));
const args = process.argv.slice(2);
const opt = (name, def) => {
  const i = args.indexOf(name);
  return i >= 0 && i + 1 < args.length ? args[i + 1] : def;
};
const after = opt("--agentkit", path.resolve(here, "../../build/bin/agentkit-browser-mcp"));
const before = opt("--before", null);
const runs = Number(opt("--runs", "5"));
const chromium = process.env.AGENTKIT_CHROMIUM || "/usr/lib/chromium/chromium";
const pagesDir = path.join(here, "pages");
const savedDir = path.resolve(here, "../../../shared/data/pages/readability");

const pages = [];
for (const f of fs.readdirSync(pagesDir).filter((f) => f.endsWith(".html")).sort()) pages.push({ name: f, url: "/p/" + f });
if (fs.existsSync(savedDir))
  for (const d of fs.readdirSync(savedDir).sort())
    if (fs.existsSync(path.join(savedDir, d, "source.html"))) pages.push({ name: d, url: `/s/${d}/source.html`, saved: true });
const only = opt("--pages", null);
const chosen = only ? pages.filter((p) => only.split(",").includes(p.name)) : pages;

const server = http.createServer((req, res) => {
  const u = new URL(req.url, "http://127.0.0.1");
  let file = null;
  if (u.pathname.startsWith("/p/")) file = path.join(pagesDir, u.pathname.slice(3));
  else if (u.pathname.startsWith("/s/")) file = path.join(savedDir, u.pathname.slice(3));
  if (!file || !(file.startsWith(pagesDir) || file.startsWith(savedDir)) || !fs.existsSync(file) || fs.statSync(file).isDirectory()) {
    res.writeHead(404, { "content-type": "text/plain" });
    return res.end("not found");
  }
  res.writeHead(200, { "content-type": file.endsWith(".html") ? "text/html; charset=utf-8" : "application/octet-stream" });
  fs.createReadStream(file).pipe(res);
});
await new Promise((r) => server.listen(0, "127.0.0.1", r));
const base = `http://127.0.0.1:${server.address().port}`;

const textOf = (r) => (r.content || []).filter((c) => c.type === "text").map((c) => c.text).join("\n");
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.floor((s.length - 1) / 2)] : NaN;
};

async function connect(binary) {
  const transport = new StdioClientTransport({
    command: path.resolve(binary),
    args: ["--headless", "--no-sandbox", "--quiet", "--executable-path", chromium, "--allowed-origins", base],
    stderr: "ignore",
  });
  const client = new Client({ name: "vision-bench", version: "1.0.0" });
  await client.connect(transport);
  return client;
}

async function snapshots(binary) {
  const client = await connect(binary);
  const out = {};
  try {
    for (const p of chosen) {
      const nav = await client.callTool({ name: "browser_navigate", arguments: { url: base + p.url } });
      if (nav.isError) throw new Error(`${p.name}: ${textOf(nav)}`);
      const snap = textOf(await client.callTool({ name: "browser_snapshot", arguments: {} }));
      out[p.name] = {
        tokens: encode(snap).length,
        derived: (snap.match(/ \((icon|title|alt|label): /g) || []).length,
        unlabeled: (snap.match(/\[unlabeled #\d+\]/g) || []).length,
        examples: snap.split("\n").filter((l) => / \((icon|title|alt|label): /.test(l)).slice(0, 3).map((l) => l.trim()),
      };
    }
  } finally {
    await client.close();
  }
  return out;
}

async function screenshots(binary) {
  const client = await connect(binary);
  const out = {};
  try {
    for (const p of chosen) {
      await client.callTool({ name: "browser_navigate", arguments: { url: base + p.url } });
      const row = {};
      for (const marks of [false, true]) {
        const ms = [];
        let kb = 0, drawn = 0, off = 0;
        for (let i = 0; i < runs; ++i) {
          const t0 = performance.now();
          const r = await client.callTool({ name: "browser_take_screenshot", arguments: marks ? { marks: true } : {} });
          ms.push(performance.now() - t0);
          const t = textOf(r);
          if (r.isError) throw new Error(`${p.name}: ${t}`);
          kb = Number((t.match(/, (\d+) KB/) || [])[1]);
          drawn = Number((t.match(/marked \((\d+)\)/) || [0, 0])[1]);
          off = Number((t.match(/not on the image \(off-screen or hidden, (\d+)\)/) || [0, 0])[1]);
        }
        row[marks ? "marked" : "plain"] = { ms: median(ms), kb, drawn, off };
      }
      out[p.name] = row;
    }
  } finally {
    await client.close();
  }
  return out;
}

const fmt = (x, d = 1) => (Number.isFinite(x) ? x.toFixed(d) : "-");
const now = await snapshots(after);
const old = before ? await snapshots(before) : null;
console.log(`## snapshot tokens${old ? " before → after icon names" : ""} (o200k)\n`);
console.log(`| page | ${old ? "before | after | change | " : "tokens | "}derived names | unlabeled${old ? " (before → after)" : ""} | examples |`);
console.log(`|---|${old ? "---|---|---|" : "---|"}---|---|---|`);
let sumB = 0, sumA = 0, sumBench = [0, 0];
for (const p of chosen) {
  const a = now[p.name], b = old?.[p.name];
  sumA += a.tokens;
  if (b) {
    sumB += b.tokens;
    if (!p.saved) sumBench = [sumBench[0] + b.tokens, sumBench[1] + a.tokens];
  }
  const change = b ? `${fmt(((a.tokens - b.tokens) / b.tokens) * 100, 2)}%` : "";
  console.log(`| ${p.name}${p.saved ? " (saved)" : ""} | ${b ? `${b.tokens} | ${a.tokens} | ${change} | ` : `${a.tokens} | `}${a.derived} | ${b ? `${b.unlabeled} → ` : ""}${a.unlabeled} | ${a.examples.join("; ").replace(/\|/g, "\\|")} |`);
}
if (old) {
  console.log(`\nall pages: ${sumB} → ${sumA} tokens (${fmt(((sumA - sumB) / sumB) * 100, 2)}%)`);
  console.log(`peers bench pages: ${sumBench[0]} → ${sumBench[1]} tokens (${fmt(((sumBench[1] - sumBench[0]) / sumBench[0]) * 100, 2)}%)`);
}
const shots = await screenshots(after);
console.log(`\n## marked against unmarked screenshots (median of ${runs}, through MCP)\n`);
console.log("| page | unmarked ms | marked ms | unmarked KB | marked KB | refs drawn | not on the image |");
console.log("|---|---|---|---|---|---|---|");
for (const p of chosen) {
  const r = shots[p.name];
  console.log(`| ${p.name} | ${fmt(r.plain.ms)} | ${fmt(r.marked.ms)} | ${r.plain.kb} | ${r.marked.kb} | ${r.marked.drawn} | ${r.marked.off} |`);
}
server.close();
