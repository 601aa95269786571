// The program of docs/mcp-server.md (a notes server with tools, resources, a template and a
// prompt), driven by the official MCP TypeScript client over stdio, over Streamable HTTP and over
// the HTTP+SSE transport of 2024-11-05; and its long tool as a task for a 2026-07-28 client that
// takes tasks (the official client with @modelcontextprotocol/ext-tasks).
//
//   AGENTKIT_DOCS_MCP_SERVER=build/bin/agentkit_docs_mcp_server node --test tests/mcp_client/docs_mcp_server.test.mjs
import { test } from "node:test";
import assert from "node:assert/strict";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { SSEClientTransport } from "@modelcontextprotocol/sdk/client/sse.js";
import { endpointOf, openTaskSession } from "./tasks_session.mjs";
import { startServing } from "./serve.mjs";
import { LoggingMessageNotificationSchema, ResourceUpdatedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";

const program = process.env.AGENTKIT_DOCS_MCP_SERVER;
assert.ok(program, "set AGENTKIT_DOCS_MCP_SERVER to the docs program");

const textOf = (r) => r.content.filter((c) => c.type === "text").map((c) => c.text).join("\n");

/// What every transport must serve the same way.
async function exercise(client) {
  const tools = (await client.listTools()).tools.map((t) => t.name).sort();
  assert.deepEqual(tools, ["export_notes", "read_note", "save_note"]);
  const resources = (await client.listResources()).resources;
  assert.deepEqual(resources.map((r) => r.uri), ["notes://index"]);
  const templates = (await client.listResourceTemplates()).resourceTemplates;
  assert.deepEqual(templates.map((t) => t.uriTemplate), ["notes://note/{title}"]);
  const prompts = (await client.listPrompts()).prompts;
  assert.equal(prompts[0].name, "summarize_note");
  assert.deepEqual(prompts[0].arguments.map((a) => [a.name, a.required]), [["title", true]]);

  const saved = await client.callTool({ name: "save_note", arguments: { title: "shopping", text: "milk, bread" } });
  assert.equal(saved.isError, false, textOf(saved));
  const read = await client.readResource({ uri: "notes://note/shopping" });
  assert.equal(read.contents[0].text, "milk, bread");
  assert.equal(read.contents[0].mimeType, "text/plain");
  const index = await client.readResource({ uri: "notes://index" });
  assert.match(index.contents[0].text, /^shopping$/m);

  const prompt = await client.getPrompt({ name: "summarize_note", arguments: { title: "shopping" } });
  assert.equal(prompt.messages.length, 2);
  assert.equal(prompt.messages[0].content.type, "resource");
  assert.equal(prompt.messages[0].content.resource.text, "milk, bread");
  assert.match(prompt.messages[1].content.text, /one line/);

  const completed = await client.complete({ ref: { type: "ref/prompt", name: "summarize_note" }, argument: { name: "title", value: "sh" } });
  assert.deepEqual(completed.completion.values, ["shopping"]);
  const byTemplate = await client.complete({ ref: { type: "ref/resource", uri: "notes://note/{title}" }, argument: { name: "title", value: "wel" } });
  assert.deepEqual(byTemplate.completion.values, ["welcome"]);

  // errors: a tool's error is a result, protocol errors are errors
  const missing = await client.callTool({ name: "read_note", arguments: { title: "nothing" } });
  assert.equal(missing.isError, true);
  assert.match(textOf(missing), /no note "nothing"/);
  const bad = await client.callTool({ name: "save_note", arguments: { title: "" , text: "x" } });
  assert.equal(bad.isError, true);
  await assert.rejects(client.readResource({ uri: "notes://note/nothing" }));
  await assert.rejects(client.getPrompt({ name: "summarize_note", arguments: {} }));

  // logs and resource updates reach the client
  const logs = [];
  const updates = [];
  client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => logs.push(n.params));
  client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => updates.push(n.params.uri));
  await client.setLoggingLevel("info");
  await client.subscribeResource({ uri: "notes://index" });
  await client.callTool({ name: "save_note", arguments: { title: "todo", text: "write docs" } });
  for (let i = 0; i < 50 && (logs.length === 0 || updates.length === 0); i++) await new Promise((r) => setTimeout(r, 20));
  assert.ok(logs.some((l) => l.data === "saving \"todo\"" && l.logger === "notes"), JSON.stringify(logs));
  assert.ok(updates.includes("notes://index"), JSON.stringify(updates));
}

test("over stdio: tools, resources, a template, a prompt, completions, logs and updates", async () => {
  const transport = new StdioClientTransport({ command: program, args: [], stderr: "pipe" });
  const client = new Client({ name: "docs-test", version: "1.0.0" });
  await client.connect(transport);
  try {
    await exercise(client);
  } finally {
    await client.close();
  }
});

const startHttp = (env = {}) => startServing(program, [], env);

function stop(child) {
  return new Promise((resolve) => {
    child.on("exit", (code, signal) => resolve(code ?? signal));
    child.kill("SIGTERM");
  });
}

test("over Streamable HTTP: the same, and a bearer token when one is set", async () => {
  const token = "docs-token-" + process.pid;
  const s = await startHttp({ NOTES_TOKEN: token });
  try {
    const anonymous = await fetch(s.url, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping" }),
    });
    assert.equal(anonymous.status, 401);
    const transport = new StreamableHTTPClientTransport(new URL(s.url), { requestInit: { headers: { authorization: `Bearer ${token}` } } });
    const client = new Client({ name: "docs-test-http", version: "1.0.0" });
    await client.connect(transport);
    try {
      await exercise(client);
    } finally {
      await client.close();
    }
    assert.equal(s.stdout(), "");
  } finally {
    assert.equal(await stop(s.child), 0);
  }
});

/// Events of an open SSE response, as they arrive: next() gives the next one ({event, data}).
function eventsOf(response) {
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let buffered = "";
  return async function next() {
    for (;;) {
      const end = buffered.indexOf("\n\n");
      if (end >= 0) {
        const block = buffered.slice(0, end);
        buffered = buffered.slice(end + 2);
        const event = /^event: (.*)$/m.exec(block)?.[1] ?? "message";
        const data = block.split("\n").filter((l) => l.startsWith("data: ")).map((l) => l.slice(6)).join("\n");
        if (data !== "" || event !== "message") return { event, data };
        continue;  // a keep-alive comment
      }
      const { value, done } = await reader.read();
      if (done) return null;
      buffered += decoder.decode(value, { stream: true });
    }
  };
}

test("over the HTTP+SSE transport of 2024-11-05: the same, and the session ends with its stream", async () => {
  const s = await startHttp();
  try {
    const sseUrl = new URL(s.url.replace(/\/mcp$/, "/sse"));
    const client = new Client({ name: "docs-test-sse", version: "1.0.0" });
    await client.connect(new SSEClientTransport(sseUrl));
    try {
      await exercise(client);
    } finally {
      await client.close();
    }

    // the wire: the stream's first event names where to POST; each POST is 202, the answers come on the stream
    const aborted = new AbortController();
    const opened = await fetch(sseUrl, { headers: { accept: "text/event-stream" }, signal: aborted.signal });
    assert.equal(opened.status, 200);
    const next = eventsOf(opened);
    const first = await next();
    assert.equal(first.event, "endpoint");
    assert.match(first.data, /^\/sse\?sessionId=[0-9a-f]+$/);
    const post = (message, to = first.data) =>
      fetch(new URL(to, sseUrl), { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(message) });
    const init = { jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2024-11-05", capabilities: {}, clientInfo: { name: "raw", version: "1" } } };
    assert.equal((await post(init)).status, 202);
    const answer = await next();
    assert.equal(answer.event, "message");
    assert.equal(JSON.parse(answer.data).id, 1);
    assert.equal(JSON.parse(answer.data).result.protocolVersion, "2024-11-05");
    assert.equal((await post({ jsonrpc: "2.0", method: "notifications/initialized" })).status, 202);
    assert.equal((await post({ jsonrpc: "2.0", id: 2, method: "ping" }, "/sse")).status, 400);  // no sessionId
    assert.equal((await post({ jsonrpc: "2.0", id: 2, method: "ping" }, "/sse?sessionId=0123")).status, 404);
    assert.equal((await post({ jsonrpc: "2.0", id: 2, method: "ping" })).status, 202);
    assert.deepEqual(JSON.parse((await next()).data), { jsonrpc: "2.0", id: 2, result: {} });
    // the Streamable HTTP endpoint does not take this session
    const crossed = await fetch(s.url, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream", "mcp-session-id": first.data.split("=")[1] },
      body: JSON.stringify({ jsonrpc: "2.0", id: 3, method: "ping" }),
    });
    assert.equal(crossed.status, 404);
    aborted.abort();
    let status = 202;
    for (let i = 0; i < 250 && status !== 404; i++) {
      status = (await post({ jsonrpc: "2.0", id: 4, method: "ping" })).status;
      if (status !== 404) await new Promise((r) => setTimeout(r, 20));
    }
    assert.equal(status, 404, "the session ends when its stream closes");
    assert.equal(s.stdout(), "");
  } finally {
    assert.equal(await stop(s.child), 0);
  }
});

test("over Streamable HTTP at 2026-07-28: export_notes is a task, its question answered through tasks/update", async () => {
  const s = await startHttp();
  try {
    const asked = [];
    const t = await openTaskSession(s.url, await endpointOf(s.url), {
      elicit: (params) => {
        asked.push(params.message);
        return { action: "accept", content: { agree: true } };
      },
    });
    try {
      const execution = await t.session.callTool("export_notes", {});
      assert.equal(execution.kind, "task");  // the handler asked for one: start_task()
      const { outcome } = await execution.settle();
      assert.equal(outcome.status, "completed");
      assert.match(textOf(outcome.result), /^# welcome\n/);
      assert.deepEqual(asked, ["Export every note?"]);
    } finally {
      await t.close();
    }
  } finally {
    await stop(s.child);
  }
});
