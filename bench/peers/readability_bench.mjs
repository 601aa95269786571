// Readable mode on the real saved pages of ../shared/data/pages/readability, through the MCP
// server as a model would get it: o200k tokens of `browser_snapshot {readable: true}` and the
// share of the words of each page's expected.html (its main content) that the output keeps; and the
// tokens of the full snapshot and of the interactive-only view, with the controls of the first
// that the second lacks (0 when the view keeps every control).
//
//   cd bench/peers && node readability_bench.mjs --agentkit ../../build/bin/agentkit-browser-mcp [--budget N]
//                                                [--pages-dir DIR]   (DIR/NAME/{source,expected}.html; default the shared pages)
//
// Pages are served on 127.0.0.1 and every other origin is blocked (--allowed-origins), so no
// run waits on the network.
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
const binary = opt("--agentkit", path.resolve(here, "../../build/bin/agentkit-browser-mcp"));
const dir = path.resolve(opt("--pages-dir", path.resolve(here, "../../../shared/data/pages/readability")));
const budget = opt("--budget", null);

// expected.html is HTML; the tool's output is plain text, where a "<" (SQL, math, escaped marks)
// must not start a tag that swallows everything up to the next ">".
const plainWords = (text) => text.toLowerCase().match(/[\p{L}\p{N}]+/gu) || [];
const words = (text) =>
  text
    .replace(/<script[\s\S]*?<\/script>/gi, " ")
    .replace(/<style[\s\S]*?<\/style>/gi, " ")
    .replace(/<[^>]+>/g, " ")
    .replace(/&nbsp;/g, " ")
    .replace(/&amp;/g, "&")
    .replace(/&lt;/g, "<")
    .replace(/&gt;/g, ">")
    .replace(/&quot;/g, '"')
    .replace(/&#39;|&rsquo;|&lsquo;/g, "'")
    .toLowerCase()
    .match(/[\p{L}\p{N}]+/gu) || [];

function share(expectedWords, output) {
  const have = new Map();
  for (const w of plainWords(output)) have.set(w, (have.get(w) || 0) + 1);
  let kept = 0;
  for (const w of expectedWords) {
    const n = have.get(w) || 0;
    if (n > 0) {
      ++kept;
      have.set(w, n - 1);
    }
  }
  return expectedWords.length ? kept / expectedWords.length : 1;
}

const server = http.createServer((req, res) => {
  const file = path.join(dir, decodeURIComponent(new URL(req.url, "http://x").pathname));
  if (!file.startsWith(dir) || !fs.existsSync(file) || fs.statSync(file).isDirectory()) {
    res.writeHead(404);
    res.end();
    return;
  }
  res.writeHead(200, { "content-type": file.endsWith(".html") ? "text/html; charset=utf-8" : "application/octet-stream" });
  fs.createReadStream(file).pipe(res);
});
await new Promise((r) => server.listen(0, "127.0.0.1", r));
const base = `http://127.0.0.1:${server.address().port}`;

const transport = new StdioClientTransport({ command: binary, args: ["--headless", "--quiet", "--allowed-origins", base], stderr: "ignore" });
const client = new Client({ name: "readability-bench", version: "1" });
await client.connect(transport);
const textOf = (r) => r.content.filter((c) => c.type === "text").map((c) => c.text).join("\n");

// The interactive-only view keeps every control of the full snapshot: each ref the full snapshot
// gives, except on the lines of landmarks and containers (their refs are handles, not controls),
// leads a line of the view (`e5 button "Send"`).
const containers = /^(?:- )?(?:dialog|alertdialog|alert|banner|navigation|main|contentinfo|complementary|form|search|region|menu|menubar|tablist|tabpanel|toolbar|tree|grid|table|radiogroup|feed)\b/;
function missingControls(full, io) {
  const led = new Set(io.split("\n").map((l) => (l.match(/^\s*([a-gi-z]\d+) /) || [])[1]).filter(Boolean));
  let missing = 0;
  for (const line of full.split("\n")) {
    const m = line.match(/\[ref=([a-z]\d+)\]/);
    if (m && !containers.test(line.trim()) && !led.has(m[1])) ++missing;
  }
  return missing;
}

const rows = [];
for (const name of fs.readdirSync(dir).sort()) {
  const src = path.join(dir, name, "source.html");
  const exp = path.join(dir, name, "expected.html");
  if (!fs.existsSync(src) || !fs.existsSync(exp)) continue;
  await client.callTool({ name: "browser_navigate", arguments: { url: `${base}/${name}/source.html` } }, undefined, { timeout: 120000 });
  const a = { readable: true };
  if (budget) a.budget = Number(budget);
  const r = await client.callTool({ name: "browser_snapshot", arguments: a }, undefined, { timeout: 120000 });
  const out = textOf(r);
  const full = textOf(await client.callTool({ name: "browser_snapshot", arguments: { budget: 100000 } }, undefined, { timeout: 120000 }));
  const io = textOf(await client.callTool({ name: "browser_snapshot", arguments: { budget: 100000, interactive_only: true } }, undefined, { timeout: 120000 }));
  rows.push({ name, tokens: encode(out).length, share: share(words(fs.readFileSync(exp, "utf8")), out), fullTokens: encode(full).length,
    ioTokens: encode(io).length, ioMissing: missingControls(full, io), error: r.isError });
}
await client.close();
server.close();

const pad = (s, n) => String(s).padEnd(n);
console.log(pad("page", 34), pad("readable tokens", 16), pad("main-content words kept", 24), pad("full snapshot tokens", 21),
  pad("interactive-only tokens", 24), "controls missing from it");
for (const r of rows)
  console.log(pad(r.name, 34), pad(r.tokens, 16), pad((100 * r.share).toFixed(1) + "%", 24), pad(r.fullTokens, 21), pad(r.ioTokens, 24), r.ioMissing,
    r.error ? "(error)" : "");
const mean = (f) => rows.reduce((s, r) => s + f(r), 0) / rows.length;
const sorted = [...rows].sort((x, y) => x.share - y.share);
console.log(`\n${rows.length} pages: readable mode mean ${mean((r) => r.tokens).toFixed(0)} tokens (o200k), ` +
  `mean ${(100 * mean((r) => r.share)).toFixed(1)}% of expected.html words kept (lowest ${sorted[0].name} ${(100 * sorted[0].share).toFixed(1)}%), ` +
  `full snapshot mean ${mean((r) => r.fullTokens).toFixed(0)} tokens, interactive-only mean ${mean((r) => r.ioTokens).toFixed(0)} tokens ` +
  `(${rows.reduce((n, r) => n + r.ioMissing, 0)} controls of the full snapshots missing from it)`);
