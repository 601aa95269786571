// The routing part of gateway_bench.mjs without browsers: the six servers' tool lists, dumped
// once, are served by stand-ins (this file with --serve) behind a real agentkit-mcp-gateway
// --mask router, so a ranking change can be tried in seconds. The numbers of the routing choices
// in bench/README.md were measured with it; the reported ones come from gateway_bench.mjs.
//
//   node gateway_routing_offline.mjs --dump tools.json --agentkit ../../build-rel/bin/agentkit-browser-mcp
//   node gateway_routing_offline.mjs --tools tools.json [--gateway ../../build-rel/bin/agentkit-mcp-gateway]
//        [--tasks gateway_tasks.mjs] [--examples-split tune|test|all] [--misses]
//
// --examples-split P gives the tasks of part P to the gateway as configured examples of their
// tools and reports the other part (all: every task, reported on both: not held out).
// A stand-in answers every call with "ok" (so the router learns from calls as with a real tool).
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { plainBm25 } from "./plain_bm25.mjs";

const args = process.argv.slice(2);
const opt = (n, d) => { const i = args.indexOf(n); return i >= 0 && i + 1 < args.length ? args[i + 1] : d; };
const self = fileURLToPath(import.meta.url);

if (args[0] === "--serve") {
  const { Server } = await import("@modelcontextprotocol/sdk/server/index.js");
  const { StdioServerTransport } = await import("@modelcontextprotocol/sdk/server/stdio.js");
  const { ListToolsRequestSchema, CallToolRequestSchema } = await import("@modelcontextprotocol/sdk/types.js");
  const tools = JSON.parse(fs.readFileSync(args[1], "utf8"))[args[2]];
  const s = new Server({ name: args[2], version: "1" }, { capabilities: { tools: {} } });
  s.setRequestHandler(ListToolsRequestSchema, async () => ({ tools }));
  s.setRequestHandler(CallToolRequestSchema, async (r) => ({ content: [{ type: "text", text: `ok ${r.params.name}` }] }));
  await s.connect(new StdioServerTransport());
} else if (opt("--dump")) {
  const { servers } = await import("./gateway_servers.mjs");
  const specs = servers({ browserMcp: opt("--agentkit"), work: fs.mkdtempSync(path.join(os.tmpdir(), "agentkit-routing-dump-")) });
  const out = {};
  for (const s of specs) {
    const c = new Client({ name: "dump", version: "1" });
    await c.connect(new StdioClientTransport({ command: s.command, args: s.args, env: { ...process.env, ...(s.env || {}) }, stderr: "ignore" }));
    out[s.name] = (await c.listTools()).tools;
    await c.close();
  }
  fs.writeFileSync(opt("--dump"), JSON.stringify(out));
} else {
  const toolsFile = path.resolve(opt("--tools", "tools.json"));
  const all = JSON.parse(fs.readFileSync(toolsFile, "utf8"));
  const { groups, tasks } = await import(pathToFileURL(path.resolve(opt("--tasks", "./gateway_tasks.mjs"))).href);
  const { descriptions, gatewayNames } = await import("./gateway_servers.mjs");
  const split = (t) => (crypto.createHash("sha256").update(t).digest()[0] < 128 ? "tune" : "test");
  const cfg = { mcpServers: {} };
  for (const s of Object.keys(all)) cfg.mcpServers[s] = { command: process.execPath, args: [self, "--serve", toolsFile, s], description: descriptions[s] };
  const exSplit = opt("--examples-split");
  for (const [label, text] of exSplit ? tasks : []) {
    if (exSplit !== "all" && split(text) !== exSplit) continue;
    for (const x of groups[label] || [label]) {
      const [server, ...rest] = x.split("/");
      ((cfg.mcpServers[server].examples ||= {})[rest.join("/")] ||= []).push(text);
    }
  }
  const work = fs.mkdtempSync(path.join(os.tmpdir(), "agentkit-routing-"));
  fs.writeFileSync(path.join(work, "cfg.json"), JSON.stringify(cfg));
  const c = new Client({ name: "routing", version: "1" });
  // --embeddings-url URL --embeddings-model NAME: the gateway fuses that model's vectors (embeddings_server.mjs
  // serves one); --fusion rrf|weighted, --dense-weight W and --model-share S set how, --query-prefix P what the gateway puts before a search request (router.embeddings in the configuration).
  const gwArgs = ["--config", path.join(work, "cfg.json"), "--mask", "router", "--start-wait", "30000"];
  if (opt("--embeddings-url")) {
    cfg.router = { embeddings: { url: opt("--embeddings-url"), model: opt("--embeddings-model", "use-lite"), wait_ms: 120000,
                                 ...(opt("--fusion") ? { fusion: opt("--fusion") } : {}),
                                 ...(opt("--dense-weight") ? { dense_weight: Number(opt("--dense-weight")) } : {}),
                                 ...(opt("--model-share") ? { model_share: Number(opt("--model-share")) } : {}),
                                 ...(opt("--query-prefix") ? { query_prefix: opt("--query-prefix") } : {}) } };
    fs.writeFileSync(path.join(work, "cfg.json"), JSON.stringify(cfg));
  }
  await c.connect(new StdioClientTransport({ command: path.resolve(opt("--gateway", "../../build-rel/bin/agentkit-mcp-gateway")),
    args: gwArgs, env: { ...process.env }, stderr: args.includes("--gateway-stderr") ? "inherit" : "ignore" }));
  const { fromGw, gwName } = gatewayNames(all);
  // The plain baseline (plain_bm25.mjs) over the same tools, under the names the gateway gives them.
  const plain = plainBm25(Object.entries(all).flatMap(([s, ts]) => ts.map((t) => ({ ...t, id: `${s}/${t.name}`, name: gwName[`${s}/${t.name}`] }))));
  const latencies = [];  // ms per tool_search call, through the gateway (MCP over stdio included)
  const run = async (part) => {
    const r = { at1: 0, at5: 0, p1: 0, p5: 0, n: part.length, misses: [] };
    for (const [label, text] of part) {
      const right = new Set(groups[label] || [label]);
      const t0 = performance.now();
      const res = await c.callTool({ name: "tool_search", arguments: { query: text, k: 5 } });
      latencies.push(performance.now() - t0);
      const found = (res.structuredContent?.tools || []).map((t) => fromGw[t.name] || t.name);
      if (found.length && right.has(found[0])) ++r.at1;
      if (found.some((x) => right.has(x))) ++r.at5;
      else r.misses.push(`  - "${text}" [${label}] -> ${found.join(", ")}`);
      const base = plain(text, 5);
      if (base.length && right.has(base[0])) ++r.p1;
      if (base.some((x) => right.has(x))) ++r.p5;
    }
    return r;
  };
  const pct = (a, n) => `${((100 * a) / n).toFixed(1)}%`;
  const show = (name, r) => console.log(`${name}: Recall@1 ${pct(r.at1, r.n)}, Recall@5 ${pct(r.at5, r.n)} (${r.at5}/${r.n}); ` +
                                        `plain BM25 Recall@1 ${pct(r.p1, r.n)}, Recall@5 ${pct(r.p5, r.n)} (${r.p5}/${r.n})`);
  const parts = exSplit && exSplit !== "all" ? [exSplit === "tune" ? "test" : "tune"] : ["tune", "test"];
  const res = {};
  for (const p of parts) show(p, (res[p] = await run(tasks.filter(([, t]) => split(t) === p))));
  const sum = (k) => res.tune[k] + res.test[k];
  if (parts.length === 2) show("all", { at1: sum("at1"), at5: sum("at5"), p1: sum("p1"), p5: sum("p5"), n: sum("n") });
  const at = (q) => { const s = [...latencies].sort((a, b) => a - b); return s[Math.min(s.length - 1, Math.ceil(q * s.length) - 1)].toFixed(2); };
  if (args.includes("--latency")) console.log(`tool_search through the gateway: p50 ${at(0.5)} ms, p99 ${at(0.99)} ms (${latencies.length} calls)`);
  if (args.includes("--misses")) console.log(parts.flatMap((p) => res[p].misses).join("\n"));
  await c.close();
  fs.rmSync(work, { recursive: true, force: true });
}
