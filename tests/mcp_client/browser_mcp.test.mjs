// agentkit-browser-mcp driven by the official MCP TypeScript client (node --test).
//
//   AGENTKIT_BROWSER_MCP=build/bin/agentkit-browser-mcp node --test tests/mcp_client/
//
// Pages are served by this file on two origins (127.0.0.1 and localhost, different ports), so
// the cross-origin iframe is a real out-of-process frame. Every byte the server writes to
// stdout is checked to be a JSON-RPC message.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import http from "node:http";
import { spawn } from "node:child_process";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

const server = process.env.AGENTKIT_BROWSER_MCP;
assert.ok(server, "set AGENTKIT_BROWSER_MCP to the agentkit-browser-mcp binary");

let a; // 127.0.0.1 origin
let b; // localhost origin (cross-origin)
const pages = {
  "/form.html": () => `<!doctype html><title>Form</title><h1>Register</h1>
<form action="/done" method="get">
<label>Name <input name="name"></label>
<label>Email <input type="email" name="email"></label>
<label>Plan <select name="plan"><option>Free</option><option>Pro</option></select></label>
<label><input type="checkbox" name="terms" value="yes"> I accept</label>
<button>Register</button></form>`,
  "/done": (url) =>
    `<!doctype html><title>Done</title><h1>Welcome ${url.searchParams.get("name")}</h1><p>plan=${url.searchParams.get("plan")} terms=${url.searchParams.get("terms")}</p>`,
  "/frames.html": () => `<!doctype html><title>Frames</title><h1>Frames</h1>
<div id="host"></div>
<script>const r=document.getElementById('host').attachShadow({mode:'open'});
r.innerHTML='<button onclick="this.textContent=\\'shadow clicked\\'">Shadow button</button>';</script>
<iframe src="http://localhost:${b.address().port}/inner.html" width="400" height="120"></iframe>`,
  "/inner.html": () =>
    `<!doctype html><title>Inner</title><button onclick="this.textContent='frame clicked'">Frame button</button>`,
};

function serve() {
  const s = http.createServer((req, res) => {
    const url = new URL(req.url, "http://x");
    const page = pages[url.pathname];
    if (!page) {
      res.writeHead(404);
      res.end();
      return;
    }
    res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
    res.end(page(url));
  });
  return new Promise((resolve) => s.listen(0, "127.0.0.1", () => resolve(s)));
}

const textOf = (r) => r.content.filter((c) => c.type === "text").map((c) => c.text).join("\n");
const refOf = (snapshot, re) => {
  for (const line of snapshot.split("\n")) if (re.test(line)) return line.match(/\[ref=([a-z]\d+)\]/)?.[1];
  return undefined;
};

let client;
let transport;
before(async () => {
  a = await serve();
  b = await serve();
  transport = new StdioClientTransport({ command: server, args: ["--headless", "--quiet"], stderr: "ignore" });
  client = new Client({ name: "agentkit-test", version: "1.0.0" });
  await client.connect(transport);
});
after(async () => {
  await client?.close();
  a?.close();
  b?.close();
});

test("lists the Playwright MCP tool names with annotations", async () => {
  const { tools } = await client.listTools();
  const names = tools.map((t) => t.name);
  for (const n of ["browser_navigate", "browser_snapshot", "browser_click", "browser_type", "browser_fill_form",
                   "browser_select_option", "browser_press_key", "browser_take_screenshot", "browser_tabs", "browser_close"])
    assert.ok(names.includes(n), `missing ${n}`);
  const snap = tools.find((t) => t.name === "browser_snapshot");
  assert.equal(snap.annotations.readOnlyHint, true);
  const click = tools.find((t) => t.name === "browser_click");
  // `ref` is advertised; Playwright MCP's `target` and `element` are accepted (the calls below use
  // `target`) but not listed: they would cost tokens in every tool
  assert.ok(click.inputSchema.properties.ref, "ref advertised");
  assert.equal(click.inputSchema.properties.target, undefined);
  assert.equal(click.inputSchema.properties.element, undefined);
  assert.equal(JSON.stringify(tools).includes('"additionalProperties":false'), false);
});

test("fills and submits a form using only refs from the snapshot", async () => {
  const nav = await client.callTool({ name: "browser_navigate", arguments: { url: `http://127.0.0.1:${a.address().port}/form.html` } });
  assert.equal(nav.isError, false, textOf(nav));
  const snap = textOf(await client.callTool({ name: "browser_snapshot", arguments: {} }));
  const name = refOf(snap, /textbox "Name"/);
  const email = refOf(snap, /textbox "Email"/);
  const plan = refOf(snap, /combobox "Plan"/);
  const terms = refOf(snap, /checkbox "I accept"/);
  const submit = refOf(snap, /button "Register"/);
  assert.ok(name && email && plan && terms && submit, snap);
  const r = await client.callTool({
    name: "browser_fill_form",
    arguments: {
      fields: [
        { name: "Name", type: "textbox", target: name, value: "Ada" },
        { name: "Email", type: "textbox", ref: `[ref=${email}]`, value: "ada@example.com" },
        { name: "Plan", type: "combobox", ref: plan, value: "Pro" },
        { name: "Terms", type: "checkbox", ref: terms, value: "true" },
      ],
      submit,
    },
  });
  assert.equal(r.isError, false, textOf(r));
  assert.match(textOf(r), /Welcome Ada/);
  assert.match(textOf(r), /plan=Pro terms=yes/);

  // per-call metrics: the fill's CDP round trips and the time it waited for the page to settle
  const m = textOf(await client.callTool({ name: "browser_metrics", arguments: { last: 3 } }));
  const fill = m.match(/^browser_fill_form: 1 call, \d+ bytes \(~\d+ tokens\), \d+ ms, (\d+) CDP round trips, (\d+) ms waiting$/m);
  assert.ok(fill, m);
  assert.ok(Number(fill[1]) >= 8, `a 4-field fill and a click take several CDP commands: ${m}`);
  assert.ok(Number(fill[2]) > 0, `the submit's navigation was waited for: ${m}`);
  const lastCalls = m.split("\n").filter((l) => /^browser_\w+ (ok|error) \d+ \d+ \d+ \d+$/.test(l)).map((l) => l.split(" ")[0]);
  assert.deepEqual(lastCalls, ["browser_navigate", "browser_snapshot", "browser_fill_form"], m);
});

test("clicks inside a cross-origin iframe and inside a shadow root", async () => {
  await client.callTool({ name: "browser_navigate", arguments: { url: `http://127.0.0.1:${a.address().port}/frames.html` } });
  const snap = textOf(await client.callTool({ name: "browser_snapshot", arguments: {} }));
  const inFrame = refOf(snap, /button "Frame button"/);
  const inShadow = refOf(snap, /button "Shadow button"/);
  assert.ok(inFrame && inShadow, snap);
  const r1 = await client.callTool({ name: "browser_click", arguments: { target: inFrame } });
  assert.equal(r1.isError, false, textOf(r1));
  assert.match(textOf(r1), /frame clicked/);
  const r2 = await client.callTool({ name: "browser_click", arguments: { ref: inShadow } });
  assert.equal(r2.isError, false, textOf(r2));
  assert.match(textOf(r2), /shadow clicked/);
});

test("invalid arguments and stale refs are tool errors the model can act on", async () => {
  const bad = await client.callTool({ name: "browser_click", arguments: { ref: 42 } });
  assert.equal(bad.isError, true);
  assert.match(textOf(bad), /args\.invalid/);
  const missing = await client.callTool({ name: "browser_type", arguments: { text: "x" } });
  assert.equal(missing.isError, true);
  assert.match(textOf(missing), /ref/);
  const unknown = await client.callTool({ name: "browser_click", arguments: { ref: "e99999" } });
  assert.equal(unknown.isError, true);
  assert.match(textOf(unknown), /ref\.(unknown|stale)/);
});

// A raw session, outside the SDK: malformed JSON and stdout purity from start to end.
test("malformed JSON gets -32700 and stdout holds only JSON-RPC", async () => {
  const child = spawn(server, ["--quiet"], { stdio: ["pipe", "pipe", "ignore"] });
  let out = "";
  child.stdout.on("data", (d) => (out += d));
  const send = (s) => child.stdin.write(s + "\n");
  send(JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "raw", version: "1" } } }));
  send(JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }));
  send('{"jsonrpc": "2.0", "id": 2, "method": ');
  send(JSON.stringify({ jsonrpc: "2.0", id: 3, method: "tools/call", params: { name: "browser_navigate", arguments: { url: 7 } } }));
  send(JSON.stringify({ jsonrpc: "2.0", id: 4, method: "no/such" }));
  child.stdin.end();
  const code = await new Promise((resolve) => child.on("exit", resolve));
  assert.equal(code, 0);
  const lines = out.split("\n");
  assert.equal(lines.pop(), "", "output ends with a newline");
  const msgs = lines.map((l) => JSON.parse(l));
  for (const m of msgs) assert.equal(m.jsonrpc, "2.0");
  const byId = Object.fromEntries(msgs.filter((m) => "id" in m).map((m) => [String(m.id), m]));
  assert.equal(byId["1"].result.protocolVersion, "2025-11-25");
  assert.equal(byId["null"].error.code, -32700);
  assert.equal(byId["3"].result.isError, true);
  assert.equal(byId["4"].error.code, -32601);
});

// A cancelled call is never answered: behind a storm of cancellations of unknown and odd ids,
// and when the cancellation writes the id as another JSON number of the same value (5.0 for 5).
// Each long call would answer after 3 s; a ping sent after they would have answered proves
// nothing of theirs arrived (messages come in order on stdout).
test("a cancelled browser call is never answered, whatever the cancellations around it", async () => {
  const child = spawn(server, ["--headless", "--quiet"], { stdio: ["pipe", "pipe", "ignore"] });
  const msgs = [];
  let buf = "";
  const waiters = [];
  child.stdout.on("data", (d) => {
    buf += d;
    for (let i; (i = buf.indexOf("\n")) >= 0; ) {
      msgs.push(JSON.parse(buf.slice(0, i)));
      buf = buf.slice(i + 1);
      for (const w of waiters.splice(0)) w();
    }
  });
  const until = async (pred) => {
    while (!pred()) await new Promise((r) => waiters.push(r));
    return msgs.find(pred);
  };
  const send = (s) => child.stdin.write(s + "\n");
  const answer = (id) => until(() => msgs.some((m) => m.id === id)).then(() => msgs.find((m) => m.id === id));
  send(JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "raw", version: "1" } } }));
  await answer(1);
  send(JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }));
  send(JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "browser_navigate", arguments: { url: `http://127.0.0.1:${a.address().port}/form.html` } } }));
  assert.notEqual((await answer(2)).result.isError, true);
  const wait = (id) => send(JSON.stringify({ jsonrpc: "2.0", id, method: "tools/call", params: { name: "browser_wait_for", arguments: { time: 3 }, _meta: { progressToken: `p${id}` } } }));
  // a storm: 3,000 unknown ids and odd ones, then the real cancellation
  wait(5);
  let storm = "";
  for (let i = 0; i < 3000; ++i) storm += JSON.stringify({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 100000 + i } }) + "\n";
  for (const odd of ['"5"', "5.5", "-5", "50", "[5]", '{"id":5}', "true", "null"])
    storm += `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":${odd}}}\n`;
  child.stdin.write(storm);
  send(JSON.stringify({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 5, reason: "user" } }));
  // the same id written as 5.0: the same request
  wait(6);
  send('{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":6.0}}');
  // a call nobody cancelled still answers
  send(JSON.stringify({ jsonrpc: "2.0", id: 7, method: "tools/call", params: { name: "browser_wait_for", arguments: { time: 3.5 } } }));
  assert.notEqual((await answer(7)).result.isError, true);
  send(JSON.stringify({ jsonrpc: "2.0", id: 8, method: "ping" }));
  await answer(8);
  assert.deepEqual(msgs.filter((m) => m.id === 5 || m.id === 6), [], "a cancelled call was answered");
  child.stdin.end();
  assert.equal(await new Promise((resolve) => child.on("exit", resolve)), 0);
});

test("--allowed-origins is enforced in the browser: a blocked origin is refused, requests to it never arrive", async () => {
  const hits = [];
  const other = http.createServer((req, res) => {
    hits.push(req.url);
    res.writeHead(200, { "content-type": "text/html" });
    res.end("<title>other</title><p>other origin</p>");
  });
  await new Promise((r) => other.listen(0, "127.0.0.1", r));
  const otherUrl = `http://127.0.0.1:${other.address().port}`;
  pages["/links.html"] = () => `<!doctype html><title>Links</title><a href="${otherUrl}/x">elsewhere</a>
<button onclick="fetch('${otherUrl}/api').catch(() => document.title = 'fetch refused')">call</button>`;
  const t = new StdioClientTransport({
    command: server,
    args: ["--headless", "--quiet", "--allowed-origins", `http://127.0.0.1:${a.address().port}`],
    stderr: "ignore",
  });
  const c = new Client({ name: "agentkit-policy-test", version: "1.0.0" });
  await c.connect(t);
  try {
    const direct = await c.callTool({ name: "browser_navigate", arguments: { url: `${otherUrl}/direct` } });
    assert.equal(direct.isError, true);
    assert.match(textOf(direct), /policy\.blocked/);
    assert.match(textOf(direct), /allowed_origins/);
    const nav = await c.callTool({ name: "browser_navigate", arguments: { url: `http://127.0.0.1:${a.address().port}/links.html` } });
    assert.notEqual(nav.isError, true, textOf(nav));
    assert.match(textOf(nav), /<<page-data [a-z]{6}>>[^]*<<end [a-z]{6}>>/);
    const link = await c.callTool({ name: "browser_click", arguments: { ref: refOf(textOf(nav), /elsewhere/) } });
    assert.match(textOf(link), /blocked Document .*\/x \(policy allowed_origins/);
    const nav2 = await c.callTool({ name: "browser_navigate", arguments: { url: `http://127.0.0.1:${a.address().port}/links.html` } });
    const call = await c.callTool({ name: "browser_click", arguments: { ref: refOf(textOf(nav2), /call/) } });
    assert.match(textOf(call), /blocked \w+ .*\/api \(policy allowed_origins/);
    assert.deepEqual(hits, []);
  } finally {
    await c.close();
    other.close();
  }
});

test("browser_interact runs several steps in one call and checks expect_text / expect_url at the end", async () => {
  const form = `http://127.0.0.1:${a.address().port}/form.html`;
  const snap = textOf(await client.callTool({ name: "browser_navigate", arguments: { url: form } }));
  const ref = (re) => refOf(snap, re);
  const r = await client.callTool({
    name: "browser_interact",
    arguments: {
      steps: [
        { action: "type", ref: ref(/textbox "Name"/), text: "Grace" },
        { action: "type", target: ref(/textbox "Email"/), text: "grace@example.com" },
        { action: "select", ref: ref(/combobox "Plan"/), value: "Pro" },
        { action: "check", ref: ref(/checkbox "I accept"/) },
        { action: "wait", text: "I accept" },
        { action: "click", ref: ref(/button "Register"/) },
      ],
      expect_text: "plan=Pro terms=yes",
      expect_url: "/done?name=Grace",
    },
  });
  const text = textOf(r);
  assert.equal(r.isError, false, text);
  assert.match(text, /^type:\d+ms type:\d+ms select:\d+ms check:\d+ms wait:\d+ms click:\d+ms$/m);
  assert.match(text, /expect_text "plan=Pro terms=yes": ok/);
  assert.match(text, /expect_url "\/done\?name=Grace": ok/);
  assert.match(text, /Welcome Grace/, "the last step's change report (the click's navigation) is included");
});

test("browser_interact names where its steps led against the page before the first step", async () => {
  const start = `http://127.0.0.1:${a.address().port}/form.html`;
  const there = `http://localhost:${b.address().port}/done?name=Lin&plan=Pro&terms=yes`;
  await client.callTool({ name: "browser_navigate", arguments: { url: start } });
  // only the wait's result is shown: the navigate step's URL, which it does not repeat, is news
  const r = await client.callTool({
    name: "browser_interact",
    arguments: { steps: [{ action: "navigate", url: there }, { action: "wait", text: "Welcome Lin" }] },
  });
  const text = textOf(r);
  assert.equal(r.isError, false, text);
  assert.ok(text.includes(`\nurl: ${there}\n`), text);
});

test("browser_interact stops at the first failing step and says which", async () => {
  const form = `http://127.0.0.1:${a.address().port}/form.html`;
  const snap = textOf(await client.callTool({ name: "browser_navigate", arguments: { url: form } }));
  const r = await client.callTool({
    name: "browser_interact",
    arguments: {
      steps: [
        { action: "type", ref: refOf(snap, /textbox "Name"/), text: "Linus" },
        { action: "click", ref: "e99999" },
        { action: "type", ref: refOf(snap, /textbox "Email"/), text: "never@example.com" },
      ],
      expect_text: "Welcome",
    },
  });
  const text = textOf(r);
  assert.equal(r.isError, true, text);
  assert.match(text, /^type:\d+ms click:fail\(ref\.(unknown|stale)\) type:skip$/m, "one line: the steps run, the failure, the steps not run");
  assert.match(text, /step 2 \(click\) failed: error\[ref\.(unknown|stale)\]/);
  assert.doesNotMatch(text, /expect_text/, "postconditions are not checked after a failed step");
  // The page shows step 1's effect and not step 3's.
  const now = textOf(await client.callTool({ name: "browser_snapshot", arguments: {} }));
  assert.match(now, /textbox "Name"[^\n]*Linus/, now);
  assert.doesNotMatch(now, /never@example\.com/, now);
});

test("browser_interact reports unmet postconditions as an error", async () => {
  const form = `http://127.0.0.1:${a.address().port}/form.html`;
  const r = await client.callTool({
    name: "browser_interact",
    arguments: { steps: [{ action: "navigate", url: form }], expect_text: "No such text anywhere", expect_url: "/done" },
  });
  const text = textOf(r);
  assert.equal(r.isError, true, text);
  assert.match(text, /^navigate:\d+ms$/m);
  assert.match(text, /expect_text "No such text anywhere": NOT FOUND/);
  assert.match(text, /expect_url "\/done": NO \(at http:\/\/127\.0\.0\.1:\d+\/form\.html\)/);
  const bad = await client.callTool({ name: "browser_interact", arguments: { steps: [] } });
  assert.equal(bad.isError, true);
  assert.match(textOf(bad), /args\.invalid/);
  const noUrl = await client.callTool({ name: "browser_interact", arguments: { steps: [{ action: "navigate" }] } });
  assert.equal(noUrl.isError, true);
  assert.match(textOf(noUrl), /step 1 \(navigate\) failed: .*navigate needs `url`/);
});

// A raw session with a real browser: every byte on stdout is a JSON-RPC message while
// Chromium runs (its output and the per-call metrics go to stderr).
test("stdout holds only JSON-RPC while Chromium runs (navigate, snapshot, screenshot)", async () => {
  const child = spawn(server, ["--headless"], { stdio: ["pipe", "pipe", "pipe"] });
  let out = "";
  let err = "";
  const waiting = new Map();
  let scanned = 0;
  child.stdout.on("data", (d) => {
    out += d;
    for (let nl = out.indexOf("\n", scanned); nl >= 0; nl = out.indexOf("\n", scanned)) {
      const line = out.slice(scanned, nl);
      scanned = nl + 1;
      let msg;
      try { msg = JSON.parse(line); } catch { continue; } // reported by the checks below
      if (msg && "id" in msg && waiting.has(msg.id)) waiting.get(msg.id)(msg);
    }
  });
  child.stderr.on("data", (d) => (err += d));
  const exited = new Promise((resolve) => child.on("exit", resolve));
  let nextId = 1;
  const request = (method, params) => {
    const id = nextId++;
    const p = new Promise((resolve) => waiting.set(id, resolve));
    child.stdin.write(JSON.stringify({ jsonrpc: "2.0", id, method, params }) + "\n");
    return p;
  };
  const init = await request("initialize", { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "1" } });
  assert.equal(init.result.protocolVersion, "2025-06-18");
  child.stdin.write(JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }) + "\n");
  const nav = await request("tools/call", { name: "browser_navigate", arguments: { url: `http://127.0.0.1:${a.address().port}/form.html` } });
  assert.equal(nav.result.isError, false, JSON.stringify(nav));
  const snap = await request("tools/call", { name: "browser_snapshot", arguments: {} });
  assert.match(snap.result.content[0].text, /button "Register"/);
  const shot = await request("tools/call", { name: "browser_take_screenshot", arguments: {} });
  assert.equal(shot.result.isError, false, JSON.stringify(shot));
  child.stdin.end();
  assert.equal(await exited, 0);

  assert.ok(out.endsWith("\n"), "output ends with a newline");
  const lines = out.slice(0, -1).split("\n");
  assert.ok(lines.length >= 4, out);
  for (const line of lines) {
    let m;
    assert.doesNotThrow(() => (m = JSON.parse(line)), `not JSON on stdout: ${line.slice(0, 200)}`);
    assert.equal(m.jsonrpc, "2.0", line.slice(0, 200));
    const response = "id" in m && ("result" in m) !== ("error" in m) && !("method" in m);
    const notification = typeof m.method === "string" && !("id" in m);
    assert.ok(response || notification, `not a JSON-RPC response or notification: ${line.slice(0, 200)}`);
  }
  assert.match(err, /\[agentkit\] browser_navigate ok/, "per-call metrics go to stderr");
});
