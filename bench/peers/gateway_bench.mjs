// agentkit-mcp-gateway in front of six MCP servers from npm and agentkit, against connecting to
// each directly, in one run, through the official MCP TypeScript client (issue 25).
//
//   cd bench/peers && npm ci
//   node gateway_bench.mjs --gateway ../../build-rel/bin/agentkit-mcp-gateway \
//                          --agentkit ../../build-rel/bin/agentkit-browser-mcp [--calls 1000] [--split tune|test|all]
//                          [--tasks FILE] [--examples FILE] [--only tokens,reach,overhead,routing]
//
// Servers (gateway_servers.mjs): server-everything, server-filesystem, server-memory, Playwright
// MCP, chrome-devtools-mcp and agentkit-browser-mcp, the browsers Debian's Chromium headless.
// It prints:
//   1. o200k tokens (gpt-tokenizer) of tools/list at start: each server directly and their sum,
//      against the gateway with --mask menu, router and none. Goal: menu and router <= 5%.
//   2. Every tool reachable within two calls, checked by calling: menu mode enters the tool's
//      server's mode (call 1) and calls the tool (call 2); router mode calls tool_search with the
//      tool's name (call 1) and calls the tool (call 2). A call counts as reaching the tool when
//      the masker let it through: the tool's own answer, or args.invalid from the tool's schema
//      (the bench sends arguments the schema rejects where it can, so that nothing runs; a tool
//      without parameters really runs, all of those are harmless here).
//   3. Relay overhead per call: --calls tools/call of a small tool (server-everything's echo,
//      server-memory's search_nodes), directly and through the gateway (--mask none), interleaved,
//      after --warmup calls each; medians, p90, the difference and the ratio. Goal: the median
//      difference <= 0.5 ms over stdio.
//   4. Routing quality: the plain-language tasks of gateway_tasks.mjs (or of --tasks FILE, a
//      module exporting `groups` and `tasks` in the same format), split into a tuning and a test
//      part by a hash of the text (split()); for the part --split names (tune by default; `all`:
//      every task): tool_search (k = 5) through a fresh --mask router gateway, Recall@1 and
//      Recall@5 (a hit: a right tool among the first k), and the misses. --examples FILE (same
//      format) gives that module's tasks to the gateway as configured examples of their tools
//      (the tasks being searched are left out of them). Every search starts
//      from the same state: the gateway learns from calls, and this part makes none. Both parts
//      of gateway_tasks.mjs have been seen while tuning; a set nobody tuned on goes in --tasks.
//   5. The gateway's RSS (its own process, without the servers) at the end.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport, getDefaultEnvironment } from "@modelcontextprotocol/sdk/client/stdio.js";
import { ToolListChangedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import { encode } from "gpt-tokenizer/encoding/o200k_base";
import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { descriptions, gatewayNames, servers } from "./gateway_servers.mjs";
import { pathToFileURL } from "node:url";

const args = process.argv.slice(2);
const opt = (name, def) => {
  const i = args.indexOf(name);
  return i >= 0 && i + 1 < args.length ? args[i + 1] : def;
};
const flag = (name) => args.includes(name);
const gatewayBin = path.resolve(opt("--gateway", "../../build-rel/bin/agentkit-mcp-gateway"));
const browserMcp = opt("--agentkit", "../../build-rel/bin/agentkit-browser-mcp");
const calls = Number(opt("--calls", "1000"));
const warmup = Number(opt("--warmup", "50"));
const splitName = opt("--split", "tune");
if (!["tune", "test", "all"].includes(splitName)) throw new Error(`--split takes tune, test or all, not ${splitName}`);
const tasksFile = opt("--tasks", "./gateway_tasks.mjs");
const examplesFile = opt("--examples", "");
const { groups, tasks } = await import(pathToFileURL(path.resolve(tasksFile)).href);
if (!Array.isArray(tasks) || typeof groups !== "object")
  throw new Error(`${tasksFile} must export \`groups\` (an object) and \`tasks\` (an array of [label, text])`);
const only = (opt("--only", "tokens,reach,overhead,routing")).split(",");
const tokens = (s) => encode(s).length;
const now = () => performance.now();
const quantile = (xs, q) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.min(s.length - 1, Math.floor(q * (s.length - 1)))] : NaN;
};
const f1 = (x) => (Number.isFinite(x) ? x.toFixed(1) : "-");
const f3 = (x) => (Number.isFinite(x) ? x.toFixed(3) : "-");
const pct = (a, b) => `${((100 * a) / b).toFixed(1)}%`;

const work = fs.mkdtempSync(path.join(os.tmpdir(), "agentkit-gateway-bench-"));
const specs = servers({ browserMcp, work });

// tools/list, every page (a server may paginate: the gateway's pages hold 100 tools)
async function listAll(client) {
  const tools = [];
  let cursor;
  do {
    const page = await client.listTools(cursor ? { cursor } : undefined);
    tools.push(...page.tools);
    cursor = page.nextCursor;
  } while (cursor);
  return tools;
}

const textOf = (r) =>
  (r.content || []).map((c) => (c.type === "text" ? c.text : `[${c.type}]`)).join("\n");

async function connect(command, cmdArgs, env, stderrSink) {
  const transport = new StdioClientTransport({
    command,
    args: cmdArgs,
    env: { ...getDefaultEnvironment(), ...(env || {}) },
    stderr: stderrSink ? "pipe" : "ignore",
  });
  if (stderrSink) transport.stderr.on("data", (d) => stderrSink(d.toString()));
  const client = new Client({ name: "agentkit-gateway-bench", version: "1.0.0" });
  const t0 = now();
  await client.connect(transport);
  return { client, transport, initMs: now() - t0 };
}

function rssKb(pid) {
  try {
    const m = fs.readFileSync(`/proc/${pid}/status`, "utf8").match(/VmRSS:\s+(\d+)/);
    return m ? Number(m[1]) : NaN;
  } catch {
    return NaN;
  }
}

// One gateway over every server, its stderr kept; resolves once every server is up.
async function gateway(mask, examples = {}) {
  const cfg = { mcpServers: {} };
  for (const s of specs)
    cfg.mcpServers[s.name] = { command: s.command, args: s.args, ...(s.env ? { env: s.env } : {}), description: descriptions[s.name],
                               ...(examples[s.name] ? { examples: examples[s.name] } : {}) };
  const file = path.join(work, `gateway-${mask}.json`);
  fs.writeFileSync(file, JSON.stringify(cfg));
  let log = "";
  const waiters = [];
  const sink = (d) => {
    log += d;
    for (const w of [...waiters]) if (w()) waiters.splice(waiters.indexOf(w), 1);
  };
  const g = await connect(gatewayBin, ["--config", file, "--mask", mask, "--start-wait", "60000", "--log-dir", work], {}, sink);
  const upAll = () => specs.every((s) => new RegExp(`: ${s.name}: up`).test(log));
  await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`not every server came up behind the gateway:\n${log}`)), 120000);
    const w = () => upAll() && (clearTimeout(timer), resolve(), true);
    if (!w()) waiters.push(w);
  });
  g.log = () => log;
  g.changed = 0;
  g.client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
    ++g.changed;
  });
  return g;
}

// Arguments that the tool's schema rejects (so that nothing runs), or {} for a tool without
// parameters (which then really runs).
function probeArgs(schema) {
  const props = schema?.properties || {};
  if ((schema?.required || []).length) return {};
  const [name, p] = Object.entries(props)[0] || [];
  if (!name) return {};
  const type = Array.isArray(p?.type) ? p.type[0] : p?.type;
  return { [name]: type === "string" || p?.enum ? 12345 : "not-a-valid-value" };
}
const refused = (text) => /\b(tool\.masked|tool\.unknown|capability\.unsupported)\b/.test(text);

// ---- 1. tokens at start ----------------------------------------------------------------------
const direct = {};
const serverTools = {};  // server -> tools (their own names)
for (const s of specs) {
  const d = await connect(s.command, s.args, s.env);
  const list = await listAll(d.client);
  direct[s.name] = { initMs: d.initMs, tools: list.length, tokens: tokens(JSON.stringify(list)) };
  serverTools[s.name] = list;
  await d.client.close();
}
const directSum = Object.values(direct).reduce((a, d) => a + d.tokens, 0);
const directTools = Object.values(direct).reduce((a, d) => a + d.tools, 0);

// gateway names: the server's own name unless two servers have it, then <server>_<name>
const { gwName, fromGw, localName } = gatewayNames(serverTools);

const results = { direct, directSum, directTools, masks: {} };
console.log(`agentkit-mcp-gateway bench, ${new Date().toISOString()}, ${specs.length} servers, ${directTools} tools`);
console.log("\n## tools/list at start (o200k tokens)\n");
console.log("| server | tools | tokens | initialize ms |\n|---|---|---|---|");
for (const [n, d] of Object.entries(direct)) console.log(`| ${n} (direct) | ${d.tools} | ${d.tokens.toLocaleString("en")} | ${f1(d.initMs)} |`);
console.log(`| **all six, direct** | ${directTools} | ${directSum.toLocaleString("en")} | |`);

for (const mask of ["menu", "router", "none"]) {
  if (!only.includes("tokens") && !(mask === "none" && only.includes("overhead"))) continue;
  const g = await gateway(mask);
  const list = await listAll(g.client);
  const t = tokens(JSON.stringify(list));
  results.masks[mask] = { tools: list.length, tokens: t, names: list.map((x) => x.name) };
  console.log(`| gateway --mask ${mask} | ${list.length} | ${t.toLocaleString("en")} (${pct(t, directSum)} of direct) | ${f1(g.initMs)} |`);
  if (mask === "none") {
    const missing = Object.values(gwName).filter((n) => !results.masks.none.names.includes(n));
    if (missing.length) console.log(`  (not listed by --mask none: ${missing.join(", ")})`);
  }
  await g.client.close();
}

// ---- 2. every tool within two calls --------------------------------------------------------
if (only.includes("reach")) {
  console.log("\n## every tool within two calls (checked by calling)\n");
  for (const mask of ["menu", "router"]) {
    const g = await gateway(mask);
    let reached = 0;
    const failed = [];
    for (const [s, ts] of Object.entries(serverTools)) {
      for (const tool of ts) {
        const name = gwName[`${s}/${tool.name}`];
        let first;
        if (mask === "menu") first = await g.client.callTool({ name: "menu_enter", arguments: { mode: localName(s) } });
        else first = await g.client.callTool({ name: "tool_search", arguments: { query: name } });
        const listed = (await listAll(g.client)).some((x) => x.name === name);
        let second;
        try {
          second = await g.client.callTool({ name, arguments: probeArgs(tool.inputSchema) }, undefined, { timeout: 60000 });
        } catch (e) {
          second = { content: [{ type: "text", text: String(e) }], isError: true };
        }
        const text = textOf(second);
        if (!first.isError && listed && !refused(text)) ++reached;
        else failed.push(`${name} (${first.isError ? "first call failed: " + textOf(first).slice(0, 80) : !listed ? "not listed" : text.slice(0, 120)})`);
      }
    }
    results.masks[mask] = { ...(results.masks[mask] || {}), reached, failed };
    console.log(`--mask ${mask}: ${reached} / ${directTools} tools reached within two calls${failed.length ? "; not: " + failed.join("; ") : ""}`);
    await g.client.close();
  }
}

// ---- 3. relay overhead -----------------------------------------------------------------------
if (only.includes("overhead")) {
  console.log(`\n## relay overhead per call (${calls} calls each, interleaved, after ${warmup} warm-up calls; ms)\n`);
  console.log("| call | direct median / p90 | gateway median / p90 | difference of medians | ratio |\n|---|---|---|---|---|");
  const g = await gateway("none");
  const cases = [
    { server: "everything", tool: "echo", args: { message: "relay overhead probe" } },
    { server: "memory", tool: "search_nodes", args: { query: "nothing-matches-this" } },
  ];
  for (const c of cases) {
    const spec = specs.find((s) => s.name === c.server);
    const d = await connect(spec.command, spec.args, spec.env);
    const name = gwName[`${c.server}/${c.tool}`];
    const dm = [];
    const gm = [];
    for (let i = 0; i < warmup + calls; ++i) {
      let t0 = now();
      const a = await d.client.callTool({ name: c.tool, arguments: c.args });
      const dt = now() - t0;
      t0 = now();
      const b = await g.client.callTool({ name, arguments: c.args });
      const gt = now() - t0;
      if (a.isError || b.isError || textOf(a) !== textOf(b)) throw new Error(`${c.tool}: answers differ: ${textOf(a)} / ${textOf(b)}`);
      if (i >= warmup) {
        dm.push(dt);
        gm.push(gt);
      }
    }
    await d.client.close();
    const dmed = quantile(dm, 0.5);
    const gmed = quantile(gm, 0.5);
    results[`overhead_${c.tool}`] = { direct: dmed, gateway: gmed };
    console.log(`| ${c.server} ${c.tool} | ${f3(dmed)} / ${f3(quantile(dm, 0.9))} | ${f3(gmed)} / ${f3(quantile(gm, 0.9))} | ${f3(gmed - dmed)} | ${(gmed / dmed).toFixed(2)}× |`);
  }
  console.log(`\ngateway RSS after the calls: ${(rssKb(g.transport.pid) / 1024).toFixed(1)} MB (its own process)`);
  await g.client.close();
}

// ---- 4. routing quality ----------------------------------------------------------------------
export function split(text) {
  return crypto.createHash("sha256").update(text).digest()[0] < 128 ? "tune" : "test";
}
if (only.includes("routing")) {
  const part = tasks.filter(([, text]) => splitName === "all" || split(text) === splitName);
  console.log(`\n## routing: tool_search on the ${splitName} part of ${tasksFile} (${part.length} of ${tasks.length} tasks; tune ${tasks.filter(([, t]) => split(t) === "tune").length}, test ${tasks.filter(([, t]) => split(t) === "test").length})\n`);
  const exists = (x) => serverTools[x.split("/")[0]]?.some((t) => t.name === x.split("/").slice(1).join("/"));
  const unknown = [...new Set(part.flatMap(([label]) => groups[label] || [label]))].filter((x) => !exists(x));
  if (unknown.length) console.log(`labels naming no tool of the servers (those tasks can only miss): ${unknown.join(", ")}\n`);
  // --examples FILE: that module's tasks become the configured examples of their tools (as a
  // usage history would); a task that is also being searched is left out of them.
  const examples = {};
  let exampleCount = 0;
  if (examplesFile) {
    const searched = new Set(part.map(([, t]) => t));
    const ex = await import(pathToFileURL(path.resolve(examplesFile)).href);
    for (const [label, text] of ex.tasks) {
      if (searched.has(text)) continue;
      ++exampleCount;
      for (const x of ex.groups[label] || [label]) {
        const [server, ...rest] = x.split("/");
        ((examples[server] ||= {})[rest.join("/")] ||= []).push(text);
      }
    }
    console.log(`examples: ${exampleCount} tasks of ${examplesFile} as configured examples of their tools\n`);
  }
  const g = await gateway("router", examples);
  let at1 = 0;
  let at5 = 0;
  let menuOk = 0;
  const misses = [];
  for (const [label, text] of part) {
    const right = new Set(groups[label] || [label]);
    const r = await g.client.callTool({ name: "tool_search", arguments: { query: text, k: 5 } });
    const found = (r.structuredContent?.tools || []).map((t) => fromGw[t.name] || t.name);
    if (found.length && right.has(found[0])) ++at1;
    if (found.slice(0, 5).some((x) => right.has(x))) ++at5;
    else misses.push(`  - "${text}" [${label}] -> ${found.join(", ")}`);
    // menu mode: the right tool is in its server's mode, reached by menu_enter then the call
    if ([...right].some(exists)) ++menuOk;
  }
  console.log(`tool_search Recall@1 ${pct(at1, part.length)} (${at1}/${part.length}), Recall@5 ${pct(at5, part.length)} (${at5}/${part.length})`);
  console.log(`menu: the right tool is in its server's mode for ${menuOk}/${part.length} tasks (menu_enter, then the call)`);
  if (misses.length) console.log(`misses at 5:\n${misses.join("\n")}`);
  results.routing = { split: splitName, tasks: tasksFile, examples: exampleCount, n: part.length, at1, at5 };
  await g.client.close();
}
if (flag("--json")) console.log(JSON.stringify(results));
fs.rmSync(work, { recursive: true, force: true });
