// agentkit-web-eval driven by the official MCP TypeScript client (node --test).
//
//   AGENTKIT_WEB_EVAL=build/bin/agentkit-web-eval node --test tests/mcp_client/web_eval.test.mjs
//
// The page is served by this file on 127.0.0.1. Checks the Result / Summary / Artifacts contract: web_eval_agent
// answers with Result / Summary / Artifacts as one text, never an inlined image; the
// screenshots come back only through get_screenshots(session_id); stdout stays pure JSON-RPC.
// Without a key the scripted page reader answers, and the Summary says first that no model ran;
// with a model (a fake OpenAI-compatible server here, in the documented Chat Completions format)
// the Summary names it and the answer is the model's.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import http from "node:http";
import { spawn } from "node:child_process";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

const server = process.env.AGENTKIT_WEB_EVAL;
assert.ok(server, "set AGENTKIT_WEB_EVAL to the agentkit-web-eval binary");

const hits = [];
let site;
const page = `<!doctype html><title>Release notes</title><h1>Widget release notes</h1>
<p>Welcome to the changelog of the widget toolkit.</p>
<p>The newest version is 4.7.1, released on 2025-11-02.</p>
<p>Version 4.6 added dark mode.</p>
<a href="/old">Older releases</a>
<script>console.log("notes page loaded"); fetch("/api/latest")</script>`;

// No key reaches the server under test, whatever the caller's environment holds.
const envWithoutKeys = () => {
  const env = { ...process.env };
  for (const k of ["ANTHROPIC_API_KEY", "OPENAI_API_KEY", "OPENAI_BASE_URL", "ANTHROPIC_BASE_URL", "AGENTKIT_MODEL"]) delete env[k];
  return env;
};

let client;
before(async () => {
  site = http.createServer((req, res) => {
    hits.push(req.url);
    res.writeHead(req.url === "/" ? 200 : 404, { "content-type": "text/html; charset=utf-8" });
    res.end(req.url === "/" ? page : "");
  });
  await new Promise((r) => site.listen(0, "127.0.0.1", r));
  client = new Client({ name: "agentkit-web-eval-test", version: "1.0.0" });
  await client.connect(new StdioClientTransport({ command: server, args: ["--quiet"], env: envWithoutKeys(), stderr: "ignore" }));
});
after(async () => {
  await client?.close();
  site?.close();
});

const url = () => `http://127.0.0.1:${site.address().port}/`;
const textOf = (r) => r.content.filter((c) => c.type === "text").map((c) => c.text).join("\n");

test("lists web_eval_agent and get_screenshots", async () => {
  const { tools } = await client.listTools();
  const ev = tools.find((t) => t.name === "web_eval_agent");
  assert.ok(ev, "web_eval_agent listed");
  assert.deepEqual([...ev.inputSchema.required].sort(), ["task", "url"]);
  const gs = tools.find((t) => t.name === "get_screenshots");
  assert.ok(gs, "get_screenshots listed");
  assert.deepEqual(gs.inputSchema.required, ["session_id"]);
});

let sessionId;
test("web_eval_agent returns Result / Summary / Artifacts with the answer read from the page", async () => {
  const before = hits.length;
  const r = await client.callTool({
    name: "web_eval_agent",
    arguments: { url: url(), task: "What is the newest version number of the widget?" },
  });
  assert.notEqual(r.isError, true, textOf(r));
  assert.equal(r.content.length, 1, "a single text content");
  assert.equal(r.content[0].type, "text");
  const text = r.content[0].text;
  assert.match(text, /^Result: The page "Release notes" \(main heading "Widget release notes"\) says: .*newest version is 4\.7\.1/);
  assert.match(text, /\nSummary:\n(- .*\n)+Artifacts:\n/);
  assert.match(text, /\nSummary:\n- no model ran: scripted page reader /, "the Summary says first that no model ran");
  assert.match(text, /- completed after \d+ model turns?/);
  const m = text.match(/- session_id: (\S+)/);
  assert.ok(m, text);
  sessionId = m[1];
  assert.match(text, /- stored: 1 screenshot \(/);
  assert.match(text, new RegExp(`get_screenshots\\(session_id="${sessionId}"\\)`));
  assert.doesNotMatch(text, /base64|data:image/, "no image inlined");
  assert.ok(hits.length > before && hits.slice(before).includes("/"), "the page was really requested");
});

test("get_screenshots returns the run's screenshots as images", async () => {
  assert.ok(sessionId, "needs the previous test's session");
  const r = await client.callTool({ name: "get_screenshots", arguments: { session_id: sessionId } });
  assert.notEqual(r.isError, true, textOf(r));
  const images = r.content.filter((c) => c.type === "image");
  assert.equal(images.length, 1);
  assert.equal(images[0].mimeType, "image/png");
  const png = Buffer.from(images[0].data, "base64");
  assert.deepEqual([...png.subarray(0, 4)], [0x89, 0x50, 0x4e, 0x47], "a PNG");
  assert.match(textOf(r), /1 screenshot of session .*agent_step 1/s);
});

test("get_run_events returns the run's steps, console and network, filtered and in pages", async () => {
  assert.ok(sessionId, "needs the first run's session");
  const all = textOf(await client.callTool({ name: "get_run_events", arguments: { session_id: sessionId } }));
  assert.match(all, /^\d+ of \d+ events after 0 of session /);
  assert.match(all, /\n1 step browser_navigate \{"url":"http:\/\/127\.0\.0\.1:\d+\/"\} — ok, \d+ ms, ~\d+ tokens: /, all);
  assert.match(all, /\n\d+ console \[(log|info)\] notes page loaded/, all);
  assert.match(all, /\n\d+ network GET http:\/\/127\.0\.0\.1:\d+\/ 200 Document/, all);
  const net = textOf(await client.callTool({ name: "get_run_events", arguments: { session_id: sessionId, kinds: ["network"] } }));
  assert.doesNotMatch(net, /\n\d+ (step|console) /, "only the kinds asked for");
  assert.match(net, /\n\d+ network /);
  // a page after event 1, and a budget so small that one event fills it: the answer says where to go on
  const page = textOf(await client.callTool({ name: "get_run_events", arguments: { session_id: sessionId, since: 1, max_tokens: 50 } }));
  assert.match(page, /events after 1 of session/);
  assert.doesNotMatch(page, /\n1 step /, "since skips what was read");
  const total = Number(all.match(/^\d+ of (\d+)/)[1]);
  assert.ok(total >= 4, all);  // navigate, the console line, the document and the page's fetch
  const more = page.match(/more: call get_run_events with since=(\d+)/);
  assert.ok(more, page);
  const rest = textOf(await client.callTool({ name: "get_run_events", arguments: { session_id: sessionId, since: Number(more[1]) } }));
  assert.match(rest, new RegExp(`\\n${Number(more[1]) + 1} `), "the next page starts where the last ended");
  const bad = await client.callTool({ name: "get_run_events", arguments: { session_id: sessionId, kinds: ["dom"] } });
  assert.equal(bad.isError, true);
  assert.match(textOf(bad), /unknown kind "dom"/);
});

test("an unknown session and a bad URL are tool errors the model can act on", async () => {
  const r = await client.callTool({ name: "get_screenshots", arguments: { session_id: "s-nope" } });
  assert.equal(r.isError, true);
  assert.match(textOf(r), /no session "s-nope"/);
  const bad = await client.callTool({ name: "web_eval_agent", arguments: { url: "ftp://x", task: "t" } });
  assert.equal(bad.isError, true);
  assert.match(textOf(bad), /http:\/\/ or https:\/\//);
});

test("stdout holds only JSON-RPC, across a whole run", async () => {
  const child = spawn(server, [], { stdio: ["pipe", "pipe", "ignore"], env: envWithoutKeys() });
  let out = "";
  child.stdout.on("data", (d) => (out += d));
  const send = (o) => child.stdin.write(JSON.stringify(o) + "\n");
  send({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "raw", version: "1" } } });
  send({ jsonrpc: "2.0", method: "notifications/initialized" });
  send({ jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "web_eval_agent", arguments: { url: url(), task: "newest version" } } });
  // end input only once the run has answered (the server finishes in-flight calls either way)
  await new Promise((resolve) => {
    const check = () => (out.includes('"id":2') ? resolve() : child.stdout.once("data", check));
    check();
  });
  child.stdin.end();
  const code = await new Promise((resolve) => child.on("exit", resolve));
  assert.equal(code, 0);
  const lines = out.split("\n");
  assert.equal(lines.pop(), "", "output ends with a newline");
  const msgs = lines.map((l) => JSON.parse(l));
  for (const m of msgs) assert.equal(m.jsonrpc, "2.0");
  const run = msgs.find((m) => m.id === 2);
  assert.match(run.result.content[0].text, /^Result: .*4\.7\.1/);
});

test("--dashboard serves the live view on loopback: the URL on stderr only, the token required", async () => {
  const child = spawn(server, ["--quiet", "--dashboard"], { stdio: ["pipe", "pipe", "pipe"], env: envWithoutKeys() });
  let out = "";
  let err = "";
  child.stdout.on("data", (d) => (out += d));
  const url = await new Promise((resolve, reject) => {
    const t = setTimeout(() => reject(new Error("no URL on stderr: " + err)), 20000);
    child.stderr.on("data", (d) => {
      err += d;
      const m = err.match(/live view at (http:\/\/127\.0\.0\.1:\d+\/\?token=[A-Za-z0-9_-]+)/);
      if (m) {
        clearTimeout(t);
        resolve(m[1]);
      }
    });
  });
  const ok = await fetch(url);
  assert.equal(ok.status, 200);
  assert.match(ok.headers.get("content-security-policy"), /default-src 'none'/);
  const views = await fetch(url.replace("/?", "/api/views?"));
  assert.deepEqual(await views.json(), [], "no run, no view");
  assert.equal((await fetch(url.replace(/token=.*/, "token=wrong"))).status, 403);
  assert.equal((await fetch(url.replace(/\?token=.*/, ""))).status, 403);
  child.stdin.end();
  assert.equal(await new Promise((resolve) => child.on("exit", resolve)), 0);
  assert.equal(out, "", "nothing on stdout without a request");
});

test("with a model, the model answers and the Summary names it", async () => {
  // a fake OpenAI-compatible server: browser_navigate to the page, then complete with what it saw
  const requests = [];
  const fake = http.createServer((req, res) => {
    let body = "";
    req.on("data", (d) => (body += d));
    req.on("end", () => {
      const sent = JSON.parse(body);
      requests.push({ url: req.url, auth: req.headers.authorization, body: sent });
      const seen = JSON.stringify(sent.messages);
      const call = requests.length === 1
        ? { name: "browser_navigate", arguments: JSON.stringify({ url: url() }) }
        : { name: "complete", arguments: JSON.stringify({ result: `model saw ${/4\.7\.1/.test(seen) ? "4.7.1" : "nothing"}` }) };
      const answer = {
        id: `chatcmpl-fake${requests.length}`, object: "chat.completion", created: 1741569952, model: "fake-model",
        choices: [{ index: 0, finish_reason: "tool_calls", logprobs: null,
                    message: { role: "assistant", content: null, refusal: null,
                               tool_calls: [{ id: `call_fake_${requests.length}`, type: "function", function: call }] } }],
        usage: { prompt_tokens: 100, completion_tokens: 10, total_tokens: 110, prompt_tokens_details: { cached_tokens: 0 } },
      };
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify(answer));
    });
  });
  await new Promise((r) => fake.listen(0, "127.0.0.1", r));
  const base = `http://127.0.0.1:${fake.address().port}/v1`;
  const withModel = new Client({ name: "agentkit-web-eval-model-test", version: "1.0.0" });
  try {
    await withModel.connect(new StdioClientTransport({
      command: server,
      args: ["--quiet", "--provider", "openai_compatible", "--base-url", base, "--model", "fake-model"],
      env: envWithoutKeys(),
      stderr: "ignore",
    }));
    const r = await withModel.callTool({ name: "web_eval_agent", arguments: { url: url(), task: "What is the newest version?" } });
    assert.notEqual(r.isError, true, textOf(r));
    const text = textOf(r);
    assert.match(text, /^Result: model saw 4\.7\.1\n/, "the model's answer, from the page it was sent");
    assert.match(text, new RegExp(`\\nSummary:\\n- model: fake-model \\(openai_compatible at ${base.replace(/[.]/g, "\\.")}/chat/completions\\)\\n`));
    assert.doesNotMatch(text, /no model ran/);
    assert.equal(requests.length, 2, "two model turns");
    assert.equal(requests[0].url, "/v1/chat/completions");
    assert.equal(requests[0].auth, undefined, "no key sent to a local server");
    assert.equal(requests[0].body.model, "fake-model");
    assert.ok(requests[0].body.tools.some((t) => t.function?.name === "browser_navigate"), "the browser tools offered");
  } finally {
    await withModel.close();
    fake.close();
  }
});
