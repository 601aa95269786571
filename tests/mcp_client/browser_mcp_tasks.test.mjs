// agentkit-browser-mcp's long tools as tasks (the tasks extension, io.modelcontextprotocol/tasks,
// revision 2026-07-28), driven by the official MCP TypeScript client: @modelcontextprotocol/client
// 2.x connects at 2026-07-28 and @modelcontextprotocol/ext-tasks runs the task session (polling,
// cancellation, recovery by id). A browser_wait_for that runs past the server's promote_after (1 s)
// is answered with a task; the session follows it to its result; another is cancelled and the
// browser takes the next call at once; a third is handed off, its connection closed, and a new
// connection reads its result by its id. (node --test)
//
//   AGENTKIT_BROWSER_MCP=build/bin/agentkit-browser-mcp node --test tests/mcp_client/browser_mcp_tasks.test.mjs
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import http from "node:http";
import { startServing } from "./serve.mjs";
import { TASKS, VERSION, endpointOf, final, openTaskSession, resultFromTaskOutcome } from "./tasks_session.mjs";

const binary = process.env.AGENTKIT_BROWSER_MCP;
assert.ok(binary, "set AGENTKIT_BROWSER_MCP to the agentkit-browser-mcp binary");

const textOf = (r) => (r?.content ?? []).filter((c) => c.type === "text").map((c) => c.text).join("\n");

let site;
let server;
before(async () => {
  site = http.createServer((req, res) => {
    res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
    res.end("<!doctype html><title>Tasks</title><h1>A page to wait on</h1><button>Go</button>");
  });
  await new Promise((r) => site.listen(0, "127.0.0.1", r));
  // one browser for every session: the stateless revision has no session to own one
  server = await startServing(binary, ["--headless", "--quiet", "--shared-browser-context"]);
});
after(async () => {
  if (server) {
    const exited = new Promise((r) => server.child.on("exit", r));
    server.child.kill("SIGTERM");
    await exited;
  }
  site?.close();
});

test("long browser tools run as tasks: followed to their result, cancelled, read again after reconnecting", async () => {
  const endpointId = await endpointOf(server.url);
  const first = await openTaskSession(server.url, endpointId);
  assert.equal(first.client.getNegotiatedProtocolVersion(), VERSION);
  assert.ok(first.client.getServerCapabilities()?.extensions?.[TASKS], "the server advertises the tasks extension");
  const page = `http://127.0.0.1:${site.address().port}/`;
  const opened = await first.session.callTool("browser_navigate", { url: page });
  const nav = await final(opened);
  assert.match(textOf(nav), /Tasks/);

  // 1. a wait past promote_after is a task; the session follows it to the browser's answer
  const waited = await first.session.callTool("browser_wait_for", { time: 2 });
  assert.equal(waited.kind, "task");
  const seen = [];
  const { outcome } = await waited.settle({ onEvent: (e) => e.type === "task" && seen.push(e.task.status) });
  const done = resultFromTaskOutcome(outcome);
  assert.notEqual(done.isError, true, textOf(done));
  assert.ok(seen.includes("working"), `statuses seen: ${seen}`);

  // 2. a long wait cancelled: the task says so, and the browser is free for the next call
  const long = await first.session.callTool("browser_wait_for", { time: 25 });
  assert.equal(long.kind, "task");
  await long.cancel();
  assert.equal((await long.result()).status, "cancelled");
  assert.equal((await first.session.task(long.handle.taskId).snapshot()).status, "cancelled");
  const quick = await first.session.callTool("browser_snapshot", {});
  const snap = await final(quick);
  assert.match(textOf(snap), /Go/);

  // 3. a task handed off, its connection closed: a new connection reads its result by id
  const handed = await first.session.callTool("browser_wait_for", { time: 2 });
  assert.equal(handed.kind, "task");
  let reference;
  await handed.handoff((ref) => {
    reference = ref;
  });
  await handed.result();  // the local execution ends before the session closes (it would cancel a live one)
  await first.close();
  const second = await openTaskSession(server.url, endpointId);
  try {
    const again = await second.session.task(reference.taskId).result();
    assert.equal(again.status, "completed");
    assert.notEqual(resultFromTaskOutcome(again).isError, true);
  } finally {
    await second.close();
  }
});
