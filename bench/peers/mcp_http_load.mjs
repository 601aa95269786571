// MCP over Streamable HTTP under load: agentkit's conformance server against the MCP reference
// server (@modelcontextprotocol/server-everything, built on the TypeScript SDK's
// StreamableHTTPServerTransport), side by side in one run, driven by the same client.
//
//   cd bench/peers && npm ci && node mcp_http_load.mjs [--agentkit ../../build/bin/agentkit-conformance-server]
//                                                      [--sessions 64] [--calls 1000] [--warmup 10]
//                                                      [--no-peer] [--json] [--timeout-ms 30000]
//
// Each server runs on a free port of 127.0.0.1 (server-everything listens on every interface of
// the port it is given; only 127.0.0.1 is ever sent to). --sessions sessions run at once, each:
// POST initialize (protocol 2025-11-25; the answer's Mcp-Session-Id is sent on every later
// request, with MCP-Protocol-Version), POST notifications/initialized (must be 202), --warmup
// tools/call not measured, then --calls sequential tools/call of a trivial tool (agentkit:
// test_simple_text, no arguments; server-everything: echo {message}), then DELETE. The measured
// calls of all sessions start together after every session is set up.
// The client is raw HTTP/1.1 over node:http with one keep-alive Agent (maxSockets = sessions),
// not the MCP SDK client, so its overhead is small and the same for both servers. Every answer
// is checked: HTTP 200, JSON or SSE (text/event-stream, parsed), a JSON-RPC result for the
// request's id (no error, no isError) with the expected text. Latency is per call, from the
// request to the last byte of its answer.
//
// agentkit's conformance server keeps its http_options defaults: at most 64 sessions (a 65th
// initialize is answered 503) and 64 connections served at once (one thread each), so
// --sessions above 64 fails there by design.
// Per server: calls, errors, wall time, calls/s, p50/p99/max ms, server RSS idle (before any
// session) and peak (sampled from /proc/<pid>/status every 100 ms) and VmHWM at the end, server
// CPU time over the measured calls (and per 1,000 calls), this client's CPU time over them.
// server-everything is measured as its node process. Its per-request console.log goes to
// /dev/null (stdout ignored for both servers). Ratios are agentkit / reference.
// Exit code 1 when any request failed or a server would not start; servers are stopped with
// SIGTERM (SIGKILL after 5 s, reported).
import http from "node:http";
import net from "node:net";
import fs from "node:fs";
import path from "node:path";
import { spawn, execFileSync } from "node:child_process";
import { fileURLToPath } from "node:url";

const here = path.dirname(fileURLToPath(import.meta.url));
const args = process.argv.slice(2);
const flag = (name) => args.includes(name);
const opt = (name, def) => {
  const i = args.indexOf(name);
  return i >= 0 && i + 1 < args.length ? args[i + 1] : def;
};
const intOpt = (name, def, min) => {
  const v = opt(name, String(def));
  const n = Number(v);
  if (!Number.isInteger(n) || n < min) {
    console.error(`mcp_http_load: ${name} takes a whole number >= ${min}, not ${v}`);
    process.exit(2);
  }
  return n;
};
if (flag("--help") || flag("-h")) {
  console.log(
    "Usage: node mcp_http_load.mjs [--agentkit PATH] [--sessions N] [--calls M] [--warmup W] [--no-peer] [--json] [--timeout-ms MS]",
  );
  process.exit(0);
}
const sessions = intOpt("--sessions", 64, 1);
const calls = intOpt("--calls", 1000, 1);
const warmup = intOpt("--warmup", 10, 0);
const timeoutMs = intOpt("--timeout-ms", 30000, 1);
const asJson = flag("--json");
const agentkitPath = path.resolve(opt("--agentkit", path.join(here, "../../build/bin/agentkit-conformance-server")));
const peerDir = path.join(here, "node_modules/@modelcontextprotocol/server-everything");
const PROTOCOL = "2025-11-25";
const log = (...a) => {
  if (!asJson) console.error(...a);
};

let clkTck = 100;
try {
  clkTck = Number(execFileSync("getconf", ["CLK_TCK"], { encoding: "utf8" }).trim()) || 100;
} catch {}

// ---- /proc -----------------------------------------------------------------------------------
function procStatus(pid) {
  try {
    const s = fs.readFileSync(`/proc/${pid}/status`, "utf8");
    const kb = (k) => {
      const m = s.match(new RegExp(`^${k}:\\s+(\\d+) kB`, "m"));
      return m ? Number(m[1]) : NaN;
    };
    return { rssKb: kb("VmRSS"), hwmKb: kb("VmHWM"), threads: Number((s.match(/^Threads:\s+(\d+)/m) || [])[1]) };
  } catch {
    return null;
  }
}
function procCpuSec(pid) {
  try {
    const s = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
    const f = s.slice(s.lastIndexOf(")") + 2).split(" "); // fields from 3 (state) on
    return (Number(f[11]) + Number(f[12])) / clkTck; // utime, stime (fields 14, 15)
  } catch {
    return NaN;
  }
}

// ---- servers ---------------------------------------------------------------------------------
const live = new Set();
process.on("exit", () => {
  for (const c of live) c.kill("SIGKILL");
});
for (const sig of ["SIGINT", "SIGTERM"]) {
  process.on(sig, () => {
    for (const c of live) c.kill("SIGKILL");
    process.exit(130);
  });
}

function freePort() {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.on("error", reject);
    s.listen(0, "127.0.0.1", () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

function serverSpecs() {
  const specs = [
    {
      key: "agentkit",
      label: "agentkit",
      version: "", // the serverInfo.version its initialize answers
      command: agentkitPath,
      args: async () => ["--port", "0"],
      env: {},
      ready: (text) => {
        const m = text.match(/serving (http:\/\/\S+)/);
        return m ? m[1] : null;
      },
      tool: "test_simple_text",
      arguments: () => ({}),
      expect: () => "This is a simple text response for testing.",
    },
  ];
  if (!flag("--no-peer")) {
    let version = "";
    try {
      version = JSON.parse(fs.readFileSync(path.join(peerDir, "package.json"), "utf8")).version;
    } catch {}
    let port = 0;
    specs.push({
      key: "reference",
      label: "server-everything",
      version,
      command: process.execPath,
      args: async () => [path.join(peerDir, "dist/index.js"), "streamableHttp"],
      env: {}, // PORT set at start
      pickPort: async () => (port = await freePort()),
      ready: (text) => (/listening on port (\d+)/.test(text) ? `http://127.0.0.1:${port}/mcp` : null),
      tool: "echo",
      arguments: (s, i) => ({ message: `s${s}c${i}` }),
      expect: (s, i) => `Echo: s${s}c${i}`,
    });
  }
  return specs;
}

async function startServer(spec) {
  if (!fs.existsSync(spec.command)) throw new Error(`${spec.label}: ${spec.command} not found`);
  if (spec.key === "reference" && !fs.existsSync(path.join(peerDir, "dist/index.js")))
    throw new Error(`server-everything is not installed: cd ${here} && npm ci`);
  const env = { ...process.env, ...spec.env };
  if (spec.pickPort) env.PORT = String(await spec.pickPort());
  const child = spawn(spec.command, await spec.args(), { env, stdio: ["ignore", "ignore", "pipe"] });
  live.add(child);
  const exited = new Promise((resolve) => child.on("exit", (code, signal) => resolve({ code, signal })));
  let stderr = "";
  child.stderr.setEncoding("utf8");
  const url = await new Promise((resolve, reject) => {
    let done = false;
    const timer = setTimeout(() => finish(new Error(`${spec.label}: not serving after 15 s; stderr: ${stderr.slice(-500)}`)), 15000);
    const finish = (err, u) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      err ? reject(err) : resolve(u);
    };
    child.stderr.on("data", (d) => {
      stderr = (stderr + d).slice(-8192);
      const u = spec.ready(stderr);
      if (u) finish(null, u);
    });
    child.on("error", (e) => finish(new Error(`${spec.label}: ${e.message}`)));
    exited.then(({ code, signal }) =>
      finish(new Error(`${spec.label}: exited (${signal ?? `code ${code}`}) before serving; stderr: ${stderr.slice(-500)}`)),
    );
  }).catch((e) => {
    child.kill("SIGKILL");
    live.delete(child);
    throw e;
  });
  return { child, url, exited, stderrTail: () => stderr.slice(-500) };
}

async function stopServer(srv) {
  const { child, exited } = srv;
  if (child.exitCode !== null || child.signalCode !== null) {
    live.delete(child);
    const e = await exited;
    return { clean: false, how: `had already exited (${e.signal ?? `code ${e.code}`}) before SIGTERM` };
  }
  const t0 = performance.now();
  child.kill("SIGTERM");
  let timer;
  const timeout = new Promise((r) => (timer = setTimeout(() => r(null), 5000)));
  let e = await Promise.race([exited, timeout]);
  clearTimeout(timer);
  const ms = performance.now() - t0;
  if (!e) {
    child.kill("SIGKILL");
    e = await exited;
    live.delete(child);
    return { clean: false, how: `still running 5 s after SIGTERM: killed (SIGKILL)` };
  }
  live.delete(child);
  const clean = e.code === 0 || e.signal === "SIGTERM";
  return { clean, how: `${e.signal ? `signal ${e.signal}` : `exit code ${e.code}`} after ${ms.toFixed(0)} ms` };
}

// ---- client ----------------------------------------------------------------------------------
function request(agent, url, method, headers, body) {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method, agent, headers, timeout: timeoutMs }, (res) => {
      const chunks = [];
      res.on("data", (c) => chunks.push(c));
      res.on("end", () => resolve({ status: res.statusCode, headers: res.headers, body: Buffer.concat(chunks).toString("utf8") }));
      res.on("error", reject);
    });
    req.on("timeout", () => req.destroy(Object.assign(new Error(`no answer within ${timeoutMs} ms`), { code: "TIMEOUT" })));
    req.on("error", reject);
    req.end(body);
  });
}

function parseSse(text) {
  const out = [];
  for (const block of text.split(/\r?\n\r?\n/)) {
    const data = [];
    for (const line of block.split(/\r?\n/)) if (line.startsWith("data:")) data.push(line.slice(line[5] === " " ? 6 : 5));
    const d = data.join("\n");
    if (d.trim()) out.push(JSON.parse(d)); // priming events carry empty data
  }
  return out;
}

class CallError extends Error {
  constructor(kind, message) {
    super(message);
    this.kind = kind;
  }
}

// The JSON-RPC response to `id` in an answer, or a CallError.
function rpcResult(res, id) {
  if (res.status !== 200) throw new CallError(`http ${res.status}`, `HTTP ${res.status}: ${res.body.slice(0, 200)}`);
  const ct = String(res.headers["content-type"] || "");
  let msgs;
  try {
    if (ct.startsWith("application/json")) msgs = [JSON.parse(res.body)];
    else if (ct.startsWith("text/event-stream")) msgs = parseSse(res.body);
    else throw new CallError("content-type", `unexpected Content-Type ${ct || "(none)"}`);
  } catch (e) {
    if (e instanceof CallError) throw e;
    throw new CallError("bad body", `unparsable ${ct} body: ${res.body.slice(0, 200)}`);
  }
  const m = msgs.find((x) => x && x.id === id && ("result" in x || "error" in x));
  if (!m) throw new CallError("no response", `no JSON-RPC response for id ${id} in: ${res.body.slice(0, 200)}`);
  if (m.error) throw new CallError(`rpc ${m.error.code}`, `JSON-RPC error ${m.error.code}: ${m.error.message}`);
  return m.result;
}

const baseHeaders = { "Content-Type": "application/json", Accept: "application/json, text/event-stream" };

async function runServer(spec) {
  const errors = { call: 0, setup: 0, close: 0, kinds: {}, samples: [] };
  const note = (where, e) => {
    errors[where]++;
    const kind = `${where}: ${e.kind || e.code || "client"}`;
    errors.kinds[kind] = (errors.kinds[kind] || 0) + 1;
    if (errors.samples.length < 5) errors.samples.push(`${kind}: ${e.message}`);
  };
  const statuses = {}; // every HTTP status seen, by step
  const seen = (step, res) => {
    const ct = String(res.headers["content-type"] || "").split(";")[0];
    const k = `${step} ${res.status}${ct ? " " + ct : ""}${res.body.length ? "" : " (empty)"}`;
    statuses[k] = (statuses[k] || 0) + 1;
  };

  const srv = await startServer(spec);
  const pid = srv.child.pid;
  const agent = new http.Agent({ keepAlive: true, maxSockets: sessions, maxFreeSockets: sessions });
  let sockets = 0; // connections the client had to open (keep-alive reuse, server-side closes)
  const origCreate = agent.createConnection.bind(agent);
  agent.createConnection = (...a) => {
    sockets++;
    const sock = origCreate(...a);
    sock.setNoDelay(true); // the client never holds back a write (Nagle); whatever the server does is its own
    return sock;
  };

  await new Promise((r) => setTimeout(r, 500)); // let it settle
  const idle = procStatus(pid);
  let peakKb = idle ? idle.rssKb : NaN;
  let peakThreads = idle ? idle.threads : NaN;
  const sampler = setInterval(() => {
    const s = procStatus(pid);
    if (s) {
      if (!(s.rssKb <= peakKb)) peakKb = s.rssKb;
      if (!(s.threads <= peakThreads)) peakThreads = s.threads;
    }
  }, 100);

  const lat = new Float64Array(sessions * calls);
  let nLat = 0;
  let nextId = 1;
  let serverInfo = null;
  const sess = Array.from({ length: sessions }, (_, i) => ({ i, sid: null, headers: null, ok: false }));

  async function callTool(s, i) {
    const id = nextId++;
    const body = JSON.stringify({ jsonrpc: "2.0", id, method: "tools/call", params: { name: spec.tool, arguments: spec.arguments(s.i, i) } });
    const t0 = performance.now();
    const res = await request(agent, srv.url, "POST", s.headers, body);
    const ms = performance.now() - t0;
    seen("tools/call", res);
    const r = rpcResult(res, id);
    if (r.isError) throw new CallError("isError", `tool error: ${JSON.stringify(r.content).slice(0, 200)}`);
    const text = Array.isArray(r.content) && r.content[0] && r.content[0].type === "text" ? r.content[0].text : undefined;
    if (text !== spec.expect(s.i, i)) throw new CallError("wrong text", `unexpected result ${JSON.stringify(r).slice(0, 200)}`);
    return ms;
  }

  async function setup(s) {
    try {
      const init = {
        jsonrpc: "2.0",
        id: 0,
        method: "initialize",
        params: { protocolVersion: PROTOCOL, capabilities: {}, clientInfo: { name: "agentkit-mcp-http-load", version: "1" } },
      };
      const res = await request(agent, srv.url, "POST", baseHeaders, JSON.stringify(init));
      seen("initialize", res);
      const r = rpcResult(res, 0);
      if (r.serverInfo && !serverInfo) serverInfo = r.serverInfo;
      const sid = res.headers["mcp-session-id"];
      if (!sid) throw new CallError("no session id", "initialize answered without Mcp-Session-Id");
      s.sid = sid;
      s.headers = { ...baseHeaders, "Mcp-Session-Id": sid, "MCP-Protocol-Version": r.protocolVersion || PROTOCOL };
      const n = await request(agent, srv.url, "POST", s.headers, JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }));
      seen("notifications/initialized", n);
      if (n.status !== 202) throw new CallError(`initialized http ${n.status}`, `notifications/initialized: HTTP ${n.status} (want 202): ${n.body.slice(0, 200)}`);
      for (let i = 0; i < warmup; i++) await callTool(s, -1 - i);
      s.ok = true;
    } catch (e) {
      note("setup", e);
    }
  }

  async function run(s) {
    if (!s.ok) return;
    for (let i = 0; i < calls; i++) {
      try {
        lat[nLat++] = await callTool(s, i);
      } catch (e) {
        note("call", e);
      }
    }
  }

  async function close(s) {
    if (!s.sid) return;
    try {
      const res = await request(agent, srv.url, "DELETE", s.headers);
      seen("DELETE", res);
      if (res.status < 200 || res.status > 299) throw new CallError(`http ${res.status}`, `DELETE: HTTP ${res.status}: ${res.body.slice(0, 200)}`);
    } catch (e) {
      note("close", e);
    }
  }

  let out;
  try {
    const tSetup = performance.now();
    await Promise.all(sess.map(setup));
    const setupMs = performance.now() - tSetup;
    const afterSetup = procStatus(pid);
    const cpu0 = procCpuSec(pid);
    const ccpu0 = process.cpuUsage();
    const t0 = performance.now();
    await Promise.all(sess.map(run));
    const wallMs = performance.now() - t0;
    const ccpu = process.cpuUsage(ccpu0);
    const cpu = procCpuSec(pid) - cpu0;
    const afterLoad = procStatus(pid);
    await Promise.all(sess.map(close));
    clearInterval(sampler);
    const end = procStatus(pid);
    if (end && !(end.rssKb <= peakKb)) peakKb = end.rssKb;

    const l = Array.from(lat.subarray(0, nLat)).sort((a, b) => a - b);
    const pct = (p) => (l.length ? l[Math.min(l.length - 1, Math.ceil((p / 100) * l.length) - 1)] : NaN);
    const opened = sess.filter((s) => s.ok).length;
    out = {
      server: spec.label,
      version: spec.version || (serverInfo && serverInfo.version) || "",
      server_info: serverInfo ? `${serverInfo.name} ${serverInfo.version}` : null,
      url: srv.url,
      pid,
      tool: spec.tool,
      sessions_opened: opened,
      setup_ms: setupMs,
      calls: sessions * calls, // planned; a session that could not be set up counts its calls as errors
      calls_ok: nLat,
      errors: errors.call + (sessions - opened) * calls,
      setup_errors: errors.setup,
      close_errors: errors.close,
      error_kinds: errors.kinds,
      error_samples: errors.samples,
      http_statuses: statuses,
      wall_s: wallMs / 1000,
      calls_per_s: nLat / (wallMs / 1000),
      p50_ms: pct(50),
      p99_ms: pct(99),
      max_ms: l.length ? l[l.length - 1] : NaN,
      rss_idle_mb: idle ? idle.rssKb / 1024 : NaN,
      rss_sessions_open_mb: afterSetup ? afterSetup.rssKb / 1024 : NaN,
      rss_after_load_mb: afterLoad ? afterLoad.rssKb / 1024 : NaN,
      rss_peak_mb: peakKb / 1024,
      vmhwm_mb: end ? end.hwmKb / 1024 : NaN,
      threads_idle: idle ? idle.threads : NaN,
      threads_peak: peakThreads,
      server_cpu_s: cpu,
      server_cpu_ms_per_1k_calls: nLat ? (cpu * 1000 * 1000) / nLat : NaN,
      client_cpu_s: (ccpu.user + ccpu.system) / 1e6,
      client_sockets_opened: sockets,
    };
  } finally {
    clearInterval(sampler);
    agent.destroy();
    const stop = await stopServer(srv);
    if (out) {
      out.stop = stop.how;
      out.stopped_cleanly = stop.clean;
    } else if (!stop.clean) log(`${spec.label}: ${stop.how}`);
  }
  return out;
}

// ---- report ----------------------------------------------------------------------------------
const fmt = (v, d = 1) =>
  v === undefined || v === null || Number.isNaN(v) ? "n/a" : Number(v).toLocaleString("en-US", { minimumFractionDigits: d, maximumFractionDigits: d });
const ratio = (a, b) => (a > 0 && b > 0 ? a / b : NaN);

const rows = [
  ["calls (ok)", (r) => `${r.calls} (${r.calls_ok})`, null],
  ["errors: calls / setup / close", (r) => `${r.errors} / ${r.setup_errors} / ${r.close_errors}`, null],
  ["sessions set up in ms", (r) => fmt(r.setup_ms), "setup_ms"],
  ["wall s", (r) => fmt(r.wall_s, 2), "wall_s"],
  ["calls/s", (r) => fmt(r.calls_per_s, 0), "calls_per_s"],
  ["p50 ms", (r) => fmt(r.p50_ms, 2), "p50_ms"],
  ["p99 ms", (r) => fmt(r.p99_ms, 2), "p99_ms"],
  ["max ms", (r) => fmt(r.max_ms, 2), "max_ms"],
  ["RSS idle MB", (r) => fmt(r.rss_idle_mb), "rss_idle_mb"],
  ["RSS sessions open MB", (r) => fmt(r.rss_sessions_open_mb), "rss_sessions_open_mb"],
  ["RSS peak MB (100 ms samples)", (r) => fmt(r.rss_peak_mb), "rss_peak_mb"],
  ["VmHWM at end MB", (r) => fmt(r.vmhwm_mb), "vmhwm_mb"],
  ["threads idle / peak", (r) => `${r.threads_idle} / ${r.threads_peak}`, null],
  ["server CPU s (measured calls)", (r) => fmt(r.server_cpu_s, 2), "server_cpu_s"],
  ["server CPU ms / 1k calls", (r) => fmt(r.server_cpu_ms_per_1k_calls), "server_cpu_ms_per_1k_calls"],
  ["client CPU s", (r) => fmt(r.client_cpu_s, 2), "client_cpu_s"],
  ["client sockets opened", (r) => String(r.client_sockets_opened), null],
  ["stop (SIGTERM)", (r) => r.stop, null],
];

function table(results) {
  const ak = results.find((r) => r.key === "agentkit")?.r;
  const ref = results.find((r) => r.key === "reference")?.r;
  const head = ["metric", ...results.map(({ r }) => `${r.server}${r.version ? " " + r.version : ""}`)];
  if (ak && ref) head.push("agentkit / reference");
  const lines = [head];
  for (const [name, get, key] of rows) {
    const line = [name, ...results.map(({ r }) => get(r))];
    if (ak && ref) line.push(key ? `${fmt(ratio(ak[key], ref[key]), 2)}x` : "");
    lines.push(line);
  }
  const w = head.map((_, c) => Math.max(...lines.map((l) => String(l[c]).length)));
  const s = lines.map((l) => "| " + l.map((x, c) => String(x).padEnd(w[c])).join(" | ") + " |");
  s.splice(1, 0, "|" + w.map((n) => "-".repeat(n + 2)).join("|") + "|");
  return s.join("\n");
}

async function main() {
  const results = [];
  let failed = false;
  log(`mcp_http_load: ${sessions} sessions x ${calls} calls (+${warmup} warmup each), node ${process.version}, ${PROTOCOL}`);
  for (const spec of serverSpecs()) {
    log(`${spec.label}: starting`);
    try {
      const r = await runServer(spec);
      results.push({ key: spec.key, r });
      log(`${spec.label}: ${r.calls_ok}/${r.calls} calls ok, ${fmt(r.calls_per_s, 0)} calls/s, p50 ${fmt(r.p50_ms, 2)} ms, stop: ${r.stop}`);
      if (r.errors || r.setup_errors || r.close_errors) {
        failed = true;
        for (const x of r.error_samples) log(`  ${spec.label}: ${x}`);
      }
      if (!r.stopped_cleanly) log(`  ${spec.label}: did not exit cleanly: ${r.stop}`);
    } catch (e) {
      failed = true;
      log(`${spec.label}: ${e.message}`);
      results.push({ key: spec.key, r: null, error: e.message });
    }
  }
  const ok = results.filter((x) => x.r);
  const ak = ok.find((x) => x.key === "agentkit")?.r;
  const ref = ok.find((x) => x.key === "reference")?.r;
  if (asJson) {
    const ratios = {};
    if (ak && ref) for (const [, , key] of rows) if (key) ratios[key] = ratio(ak[key], ref[key]);
    const o = {
      config: { sessions, calls, warmup, timeout_ms: timeoutMs, protocol: PROTOCOL, node: process.version, agentkit: agentkitPath },
      servers: Object.fromEntries(results.map((x) => [x.key, x.r ?? { error: x.error }])),
      ratios_agentkit_over_reference: ak && ref ? ratios : null,
      failed,
    };
    console.log(JSON.stringify(o, null, 2));
  } else if (ok.length) {
    console.log(`\nMCP over Streamable HTTP: ${sessions} sessions x ${calls} sequential tools/call (+${warmup} warmup), 127.0.0.1, keep-alive\n`);
    console.log(table(ok));
    for (const { r } of ok) {
      const st = Object.entries(r.http_statuses)
        .map(([k, v]) => `${k}: ${v}`)
        .join(", ");
      console.log(`\n${r.server} (${r.tool}) answers (step status content-type): ${st}`);
      if (Object.keys(r.error_kinds).length) console.log(`${r.server} errors by kind: ${JSON.stringify(r.error_kinds)}`);
    }
  }
  process.exitCode = failed ? 1 : 0;
}

await main();
