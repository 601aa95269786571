import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { encode } from "gpt-tokenizer/encoding/o200k_base";
import fs from "fs"; import http from "http"; import path from "path";
const roots = { "/readability/": "/work/shared/data/pages/readability/", "/": "/work/main/bench/peers/pages/" };
const srv = http.createServer((q, r) => { for (const [p, d] of Object.entries(roots)) if (q.url.startsWith(p)) { try { const b = fs.readFileSync(path.join(d, q.url.slice(p.length).split("?")[0])); r.writeHead(200, {"content-type": q.url.endsWith(".html")?"text/html":"application/octet-stream"}); r.end(b);} catch { r.writeHead(404); r.end(); } return; } });
await new Promise((ok) => srv.listen(0, "127.0.0.1", ok));
const base = `http://127.0.0.1:${srv.address().port}`;
const pages = { form: "/form.html", list: "/list.html", "nytimes-2": "/readability/nytimes-2/source.html", "medium-2": "/readability/medium-2/source.html", "lwn-1": "/readability/lwn-1/source.html", cnn: "/readability/cnn/source.html" };
const which = process.argv[2];
const spec = which === "ak" ? { command: "/work/main/build-rel/bin/agentkit-browser-mcp", args: ["--allowed-origins", base], nav: "browser_navigate", snap: "browser_snapshot", extra: {} }
 : { command: process.execPath, args: ["node_modules/chrome-devtools-mcp/build/src/bin/chrome-devtools-mcp.js", "--headless", "--no-usage-statistics", "--no-performance-crux", "--isolated", "--executablePath", "/usr/lib/chromium/chromium", "--chromeArg=--no-sandbox"], nav: "navigate_page", snap: "take_snapshot", extra: { pageId: 1 } , navx: { type: "url" } };
const c = new Client({ name: "x", version: "1" });
await c.connect(new StdioClientTransport({ command: spec.command, args: spec.args, stderr: "ignore" }));
for (const [n, p] of Object.entries(pages)) {
  await c.callTool({ name: spec.nav, arguments: { ...spec.extra, ...(spec.navx||{}), url: base + p } }, undefined, { timeout: 120000 });
  const r = await c.callTool({ name: spec.snap, arguments: { ...spec.extra } }, undefined, { timeout: 120000 });
  const t = r.content.filter((x) => x.type === "text").map((x) => x.text).join("\n");
  fs.writeFileSync(`/tmp/snapcmp/${which}-${n}.txt`, t);
  console.log(which, n, encode(t).length);
}
await c.close(); srv.close();
