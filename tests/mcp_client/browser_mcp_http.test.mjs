// agentkit-browser-mcp --port: MCP over Streamable HTTP, driven by the official MCP TypeScript
// client (StreamableHTTPClientTransport). Every client session has a browser of its own; one
// never sees another's pages, refs or artifacts; a session's end closes its browser; the
// transport's guards (Host/Origin, bearer token, session bound) answer with their HTTP status;
// SIGTERM ends the server and every browser. (node --test)
//
//   AGENTKIT_BROWSER_MCP=build/bin/agentkit-browser-mcp node --test tests/mcp_client/browser_mcp_http.test.mjs
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import http from "node:http";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { SSEClientTransport } from "@modelcontextprotocol/sdk/client/sse.js";
import os from "node:os";
import path from "node:path";
import { startServing } from "./serve.mjs";

const server = process.env.AGENTKIT_BROWSER_MCP;
assert.ok(server, "set AGENTKIT_BROWSER_MCP to the agentkit-browser-mcp binary");

const textOf = (r) => r.content.filter((c) => c.type === "text").map((c) => c.text).join("\n");

let site;
const url = (p) => `http://127.0.0.1:${site.address().port}${p}`;
before(async () => {
  site = http.createServer((req, res) => {
    res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
    const name = req.url.slice(1) || "home";
    res.end(`<!doctype html><title>Page ${name}</title><h1>Only for ${name}</h1><button>Press ${name}</button>`);
  });
  await new Promise((r) => site.listen(0, "127.0.0.1", r));
});
after(() => site?.close());

/// The server on a free port; resolves once it serves, with its URL, its process and output.
const start = (args = [], env = {}) => startServing(server, ["--headless", "--quiet", ...args], env);

/// SIGTERM; resolves with the exit code (fails the test after 15 s).
function stop(s) {
  return new Promise((resolve, reject) => {
    if (s.child.exitCode !== null) return resolve(s.child.exitCode);
    const timer = setTimeout(() => reject(new Error("the server did not exit within 15 s of SIGTERM")), 15000);
    s.child.on("exit", (code, signal) => {
      clearTimeout(timer);
      resolve(code ?? signal);
    });
    s.child.kill("SIGTERM");
  });
}

async function connect(endpoint, headers = {}) {
  const transport = new StreamableHTTPClientTransport(new URL(endpoint), { requestInit: { headers } });
  const client = new Client({ name: "agentkit-http-test", version: "1.0.0" });
  await client.connect(transport);
  return { client, transport };
}

const call = async (client, name, args = {}) => {
  const r = await client.callTool({ name, arguments: args });
  return { text: textOf(r), isError: r.isError === true };
};

/// Chromium browser processes (not their helpers) that are children of `pid`.
function browsersOf(pid) {
  const out = [];
  for (const entry of fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, "utf8");
      const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      if (ppid !== pid) continue;
      const cmd = fs.readFileSync(`/proc/${entry}/cmdline`, "utf8");
      if (/chrom/i.test(cmd) && !cmd.includes("--type=")) out.push(Number(entry));
    } catch {
      // the process ended while we looked
    }
  }
  return out;
}

/// Polls `fn` every 100 ms until it holds; fails after `ms`.
async function eventually(fn, ms, what) {
  const deadline = Date.now() + ms;
  for (;;) {
    if (await fn()) return;
    if (Date.now() > deadline) assert.fail(`not within ${ms} ms: ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

test("two HTTP clients each have their own browser: pages, refs and tabs never cross; a session's end closes its browser", async () => {
  const s = await start();
  try {
    const a = await connect(s.url);
    const b = await connect(s.url);
    assert.notEqual(a.transport.sessionId, b.transport.sessionId);
    const tools = await a.client.listTools();
    assert.ok(tools.tools.some((t) => t.name === "browser_navigate"));

    const na = await call(a.client, "browser_navigate", { url: url("/alpha") });
    const nb = await call(b.client, "browser_navigate", { url: url("/beta") });
    assert.equal(na.isError, false, na.text);
    assert.equal(nb.isError, false, nb.text);
    assert.match(na.text, /Only for alpha/);
    assert.match(nb.text, /Only for beta/);

    // A's page and tabs show nothing of B's, and the other way round
    const sa = await call(a.client, "browser_snapshot");
    const tabsA = await call(a.client, "browser_tabs", { action: "list" });
    assert.doesNotMatch(sa.text + tabsA.text, /beta/);
    const sb = await call(b.client, "browser_snapshot");
    assert.doesNotMatch(sb.text, /alpha/);
    // a ref of B's page does not act on A's page
    const refB = /button "Press beta".*\[ref=([a-z]\d+)\]/.exec(sb.text)?.[1];
    const refA = /button "Press alpha".*\[ref=([a-z]\d+)\]/.exec(sa.text)?.[1];
    assert.ok(refA && refB, sa.text + sb.text);
    if (refA !== refB) {
      const cross = await call(a.client, "browser_click", { target: refB, element: "Press beta" });
      assert.equal(cross.isError, true, cross.text);
    }
    await eventually(() => browsersOf(s.child.pid).length === 2, 10000, "two browsers, one per session");

    // ending A's session (DELETE) closes its browser; B works on
    await a.transport.terminateSession();
    await a.client.close();
    await eventually(() => browsersOf(s.child.pid).length === 1, 15000, "A's browser closed with its session");
    const again = await call(b.client, "browser_snapshot");
    assert.match(again.text, /Only for beta/);
    await b.client.close();
    assert.equal(s.stdout(), "", "nothing on stdout over HTTP");
  } finally {
    assert.equal(await stop(s), 0, s.stderr());
  }
  assert.deepEqual(browsersOf(s.child.pid), []);
});

test("--isolated: sessions share one browser process, each in a context of its own; the last session's end closes it", async () => {
  const s = await start(["--isolated"], { DEBUG: "pw:mcp:test" });
  const lines = () => s.stderr().split("\n").filter((l) => l.startsWith("pw:mcp:test ")).map((l) => l.slice(12));
  const count = (what) => lines().filter((l) => l === what).length;
  try {
    const a = await connect(s.url);
    const b = await connect(s.url);
    const na = await call(a.client, "browser_navigate", { url: url("/alpha") });
    assert.equal(na.isError, false, na.text);
    // A's pages and tabs are not B's: each session has a context (a profile) of its own
    const nb = await call(b.client, "browser_navigate", { url: url("/beta") });
    assert.equal(nb.isError, false, nb.text);
    const sa = await call(a.client, "browser_tabs", { action: "list" });
    assert.doesNotMatch(sa.text, /beta/);
    assert.doesNotMatch((await call(b.client, "browser_tabs", { action: "list" })).text, /alpha/);
    await eventually(() => browsersOf(s.child.pid).length === 1, 10000, "one browser process for both sessions");
    const first = browsersOf(s.child.pid)[0];

    // A's end closes its context, not the process B uses
    await a.transport.terminateSession();
    await a.client.close();
    assert.equal(count("close context"), 1, lines().join("\n"));
    assert.deepEqual(browsersOf(s.child.pid), [first]);
    assert.match((await call(b.client, "browser_snapshot")).text, /Only for beta/);

    // the process dies: B's next call starts a new one
    process.kill(first, "SIGKILL");
    await eventually(() => /browser disconnected/.test(s.stderr()), 10000, "the disconnect said on stderr");
    const again = await call(b.client, "browser_navigate", { url: url("/gamma") });
    assert.equal(again.isError, false, again.text);
    assert.match(again.text, /Only for gamma/);
    const second = browsersOf(s.child.pid);
    assert.equal(second.length, 1);
    assert.notEqual(second[0], first);

    // the last session's end closes the process before DELETE answers
    await b.transport.terminateSession();
    await b.client.close();
    assert.deepEqual(browsersOf(s.child.pid), []);
    assert.deepEqual(
      { sessions: count("create http session"), ended: count("delete http session"), browsers: count("create browser (isolated)"),
        contexts: count("create context"), closed: count("close browser") },
      { sessions: 2, ended: 2, browsers: 2, contexts: 3, closed: 2 },
      lines().join("\n"));
  } finally {
    assert.equal(await stop(s), 0, s.stderr());
  }
});

test("--user-data-dir over the HTTP+SSE transport: the next session starts on the profile the last one just left, and finds its data", async () => {
  const profile = fs.mkdtempSync(path.join(os.tmpdir(), "agentkit-profile-"));
  const s = await start(["--user-data-dir", profile, "--allow-evaluate"]);
  const sse = async () => {
    const client = new Client({ name: "agentkit-sse-test", version: "1.0.0" });
    await client.connect(new SSEClientTransport(new URL("/sse", s.url)));
    return client;
  };
  try {
    const a = await sse();
    assert.equal((await call(a, "browser_navigate", { url: url("/kept") })).isError, false);
    assert.equal((await call(a, "browser_evaluate", { function: "() => { localStorage.kept = 'yes'; return 1; }" })).isError, false);
    await a.close();  // the stream's end is the session's: its browser closes, the profile is let go
    const b = await sse();  // at once: its browser waits for the last one to let the profile go
    const nav = await call(b, "browser_navigate", { url: url("/kept") });
    assert.equal(nav.isError, false, nav.text);
    const kept = await call(b, "browser_evaluate", { function: "() => localStorage.kept" });
    assert.match(kept.text, /yes/);
    await b.close();
  } finally {
    assert.equal(await stop(s), 0, s.stderr());
    fs.rmSync(profile, { recursive: true, force: true });
  }
});

test("--shared-browser-context: every session drives the one browser", async () => {
  const s = await start(["--shared-browser-context"]);
  try {
    const a = await connect(s.url);
    const b = await connect(s.url);
    await call(a.client, "browser_navigate", { url: url("/shared") });
    const sb = await call(b.client, "browser_snapshot");
    assert.match(sb.text, /Only for shared/);
    await a.client.close();
    await b.client.close();
  } finally {
    assert.equal(await stop(s), 0, s.stderr());
  }
});

test("the transport's guards: a foreign Origin or Host is 403, a missing bearer token 401, sessions beyond --max-sessions 503", async () => {
  const token = "test-token-" + process.pid;
  const s = await start(["--max-sessions", "1"], { AGENTKIT_MCP_TOKEN: token });
  const init = {
    jsonrpc: "2.0", id: 1, method: "initialize",
    params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "raw", version: "1" } },
  };
  const post = (headers) => fetch(s.url, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/json, text/event-stream", ...headers },
    body: JSON.stringify(init),
  });
  try {
    const auth = { authorization: `Bearer ${token}` };
    assert.equal((await post({})).status, 401);
    assert.equal((await post({ authorization: "Bearer wrong" })).status, 401);
    const foreign = await post({ ...auth, origin: "http://evil.example" });
    assert.equal(foreign.status, 403);
    assert.equal((await foreign.json()).error.code < 0, true);
    // (fetch cannot set Host: node:http can)
    const foreignHost = await new Promise((resolve, reject) => {
      const u = new URL(s.url);
      const req = http.request({
        host: u.hostname, port: u.port, path: u.pathname, method: "POST",
        headers: { host: "evil.example", "content-type": "application/json", accept: "application/json, text/event-stream", ...auth },
      }, (res) => {
        res.resume();
        res.on("end", () => resolve(res.statusCode));
      });
      req.on("error", reject);
      req.end(JSON.stringify(init));
    });
    assert.equal(foreignHost, 403);

    const first = await connect(s.url, auth);  // the one session allowed
    const second = await post(auth);
    assert.equal(second.status, 503, await second.text());
    await first.transport.terminateSession();
    await first.client.close();
    const third = await connect(s.url, auth);  // its place is free again
    await third.client.close();
    // the token never reaches stderr
    assert.doesNotMatch(s.stderr(), new RegExp(token));
  } finally {
    assert.equal(await stop(s), 0, s.stderr());
  }
});

test("SIGTERM while a session's browser is open: the server exits 0 and no browser is left", async () => {
  const s = await start();
  const a = await connect(s.url);
  await call(a.client, "browser_navigate", { url: url("/term") });
  await eventually(() => browsersOf(s.child.pid).length === 1, 10000, "the session's browser");
  const pids = browsersOf(s.child.pid);
  assert.equal(await stop(s), 0, s.stderr());
  for (const pid of pids) {
    let alive = true;
    try {
      process.kill(pid, 0);
    } catch {
      alive = false;
    }
    assert.equal(alive, false, `browser ${pid} outlived the server`);
  }
});
