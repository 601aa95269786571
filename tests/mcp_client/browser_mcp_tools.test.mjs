// agentkit-browser-mcp's --tools sets (menu, router, core with deferred tools) and its lazy
// browser start, driven by the official MCP TypeScript client (node --test).
//
//   AGENTKIT_BROWSER_MCP=build/bin/agentkit-browser-mcp node --test tests/mcp_client/browser_mcp_tools.test.mjs
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import http from "node:http";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { ToolListChangedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";

const server = process.env.AGENTKIT_BROWSER_MCP;
assert.ok(server, "set AGENTKIT_BROWSER_MCP to the agentkit-browser-mcp binary");

const textOf = (r) => r.content.filter((c) => c.type === "text").map((c) => c.text).join("\n");
const namesOf = async (c) => (await c.listTools()).tools.map((t) => t.name);

const MENU_META = ["menu_list", "menu_enter", "menu_exit", "think"];  // complete, message_user: a session's own
const CORE = ["browser_navigate", "browser_navigate_back", "browser_snapshot", "browser_click", "browser_type",
              "browser_fill_form", "browser_select_option", "browser_press_key", "browser_wait_for",
              "browser_take_screenshot", "browser_tabs", "browser_interact", "browser_artifact"];

let site;
const page = () => `http://127.0.0.1:${site.address().port}/page.html`;
before(async () => {
  site = http.createServer((req, res) => {
    res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
    res.end(`<!doctype html><title>Tools</title><h1>Tool sets</h1><button>Press me</button>`);
  });
  await new Promise((r) => site.listen(0, "127.0.0.1", r));
});
after(() => site?.close());

/// A client on the server started with `args`; `changes` counts notifications/tools/list_changed
/// and `nextChange()` resolves on the next one.
async function connect(args) {
  const transport = new StdioClientTransport({ command: server, args: ["--headless", "--quiet", ...args], stderr: "ignore" });
  const client = new Client({ name: "agentkit-tools-test", version: "1.0.0" });
  const state = { changes: 0, waiters: [] };
  client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
    state.changes += 1;
    for (const w of state.waiters.splice(0)) w();
  });
  await client.connect(transport);
  state.nextChange = () => new Promise((resolve) => state.waiters.push(resolve));
  return { client, state };
}

test("--tools menu: only the menu's meta-tools at first; menu_enter sends list_changed and lists the mode's tools", async () => {
  const { client, state } = await connect(["--tools", "menu"]);
  try {
    const caps = client.getServerCapabilities();
    assert.equal(caps.tools.listChanged, true);
    assert.deepEqual(await namesOf(client), MENU_META);
    assert.match(client.getInstructions(), /Tool menu/);
    assert.equal(client.getInstructions().split("## Tool menu").length, 2, "the menu explained once");
    assert.doesNotMatch(client.getInstructions(), /MENU_STATE|message_user|\bcomplete\b/);  // a session's, not a client's

    const hidden = await client.callTool({ name: "browser_navigate", arguments: { url: page() } });
    assert.equal(hidden.isError, true);
    assert.match(textOf(hidden), /tool\.masked/);
    assert.match(textOf(hidden), /menu_enter/);
    assert.equal(state.changes, 0, "no list change before a mode is entered");

    const changed = state.nextChange();
    const enter = await client.callTool({ name: "menu_enter", arguments: { mode: "browser" } });
    assert.equal(enter.isError, false, textOf(enter));
    await changed;
    assert.equal(state.changes, 1);
    const inBrowser = await namesOf(client);
    for (const n of ["browser_navigate", "browser_snapshot", "browser_click", "browser_type", "browser_fill_form",
                     "browser_interact", "browser_take_screenshot"])
      assert.ok(inBrowser.includes(n), `menu mode browser lists ${n}: ${inBrowser}`);
    assert.ok(!inBrowser.includes("browser_drag"), "devtools tools stay hidden in mode browser");
    assert.deepEqual(inBrowser.slice(0, MENU_META.length), MENU_META, "the meta-tools stay listed first");

    // The newly listed tools really run (the browser starts here).
    const nav = await client.callTool({ name: "browser_navigate", arguments: { url: page() } });
    assert.equal(nav.isError, false, textOf(nav));
    assert.match(textOf(nav), /Tool sets/);

    const again = state.nextChange();
    const dev = await client.callTool({ name: "menu_enter", arguments: { mode: "devtools" } });
    assert.equal(dev.isError, false, textOf(dev));
    await again;
    const inDev = await namesOf(client);
    assert.ok(inDev.includes("browser_drag") && inDev.includes("browser_tabs"), `${inDev}`);
    assert.ok(!inDev.includes("browser_click"), "page-work tools leave with mode browser");

    const bad = await client.callTool({ name: "menu_enter", arguments: { mode: "nowhere" } });
    assert.equal(bad.isError, true);
    assert.equal(state.changes, 2, "an unknown mode changes nothing");
  } finally {
    await client.close();
  }
});

test("--tools router: tool_search surfaces tools, sends list_changed, and the found tools become callable", async () => {
  const { client, state } = await connect(["--tools", "router"]);
  try {
    const first = await namesOf(client);
    assert.deepEqual(first, ["tool_search", "browser_navigate", "browser_snapshot"]);
    assert.match(client.getInstructions(), /tool_search/);

    const hidden = await client.callTool({ name: "browser_click", arguments: { ref: "e1" } });
    assert.equal(hidden.isError, true);
    assert.match(textOf(hidden), /tool\.masked/);
    assert.match(textOf(hidden), /tool_search/);

    const changed = state.nextChange();
    const found = await client.callTool({ name: "tool_search", arguments: { query: "click a button on the page" } });
    assert.equal(found.isError, false, textOf(found));
    const surfaced = found.structuredContent.tools.map((t) => t.name);
    assert.ok(surfaced.includes("browser_click"), `tool_search found ${surfaced}`);
    assert.match(textOf(found), /browser_click/);
    await changed;
    const after = await namesOf(client);
    assert.ok(after.includes("browser_click"), `${after}`);
    for (const n of surfaced) assert.ok(after.includes(n), `surfaced ${n} is listed`);

    // A search that surfaces nothing new sends no notification: the same query again.
    const before = state.changes;
    await client.callTool({ name: "tool_search", arguments: { query: "click a button on the page" } });
    assert.equal(state.changes, before);

    const nav = await client.callTool({ name: "browser_navigate", arguments: { url: page() } });
    const ref = textOf(nav).match(/button "Press me" \[ref=([a-z]\d+)\]/)?.[1];
    assert.ok(ref, textOf(nav));
    const click = await client.callTool({ name: "browser_click", arguments: { ref } });
    assert.equal(click.isError, false, textOf(click));

    const bad = await client.callTool({ name: "tool_search", arguments: { query: "" } });
    assert.equal(bad.isError, true);
    assert.match(textOf(bad), /args\.invalid/);
  } finally {
    await client.close();
  }
});

test("--tools core: the core set is listed; a deferred tool answers with the capability.unsupported envelope as a result", async () => {
  const { client, state } = await connect(["--tools", "core"]);
  try {
    const names = await namesOf(client);
    assert.deepEqual([...names].sort(), [...CORE].sort());

    const drag = await client.callTool({
      name: "browser_drag",
      arguments: { startRef: "e1", startElement: "a", endRef: "e2", endElement: "b" },
    });
    assert.equal(drag.isError, false, "a deferred tool's envelope is a normal result");
    assert.deepEqual(
      { ...drag.structuredContent, reason: undefined, alternative: undefined },
      { ok: false, error: "capability.unsupported", tool: "browser_drag", reference: "playwright-mcp:browser_drag",
        scope: "browser-core", reason: undefined, alternative: undefined },
    );
    assert.match(drag.structuredContent.reason, /--tools core/);
    assert.match(drag.structuredContent.alternative, /--tools all/);
    assert.match(textOf(drag), /^capability\.unsupported: browser_drag is not offered here/);

    // An agentkit-only tool has no Playwright MCP counterpart to refer to.
    const extract = await client.callTool({ name: "browser_extract", arguments: {} });
    assert.equal(extract.isError, false);
    assert.equal(extract.structuredContent.tool, "browser_extract");
    assert.equal(extract.structuredContent.reference, "");

    // A name that is no tool at all stays a JSON-RPC error (invalid params).
    await assert.rejects(client.callTool({ name: "no_such_tool", arguments: {} }), (e) => e.code === -32602);

    const nav = await client.callTool({ name: "browser_navigate", arguments: { url: page() } });
    assert.equal(nav.isError, false, textOf(nav));
    assert.equal(state.changes, 0, "a frozen scope never changes the list");
  } finally {
    await client.close();
  }
});

test("--tools rejects an unknown set", async () => {
  const { spawnSync } = await import("node:child_process");
  const r = spawnSync(server, ["--tools", "some"], { encoding: "utf8" });
  assert.equal(r.status, 2);
  assert.equal(r.stdout, "");
  assert.match(r.stderr, /--tools takes all, core, menu or router/);
  const help = spawnSync(server, ["--help"], { encoding: "utf8" });
  assert.equal(help.stdout, "");
  for (const set of ["all", "core", "menu", "router"]) assert.match(help.stderr, new RegExp(`^\\s+${set}\\s`, "m"));
});

test("lazy start: initialize and tools/list work without a browser; a browser tool then reports the launch error", async () => {
  const t0 = performance.now();
  const { client } = await connect(["--executable-path", "/nonexistent/agentkit-test/chromium"]);
  try {
    const names = await namesOf(client);
    const ms = performance.now() - t0;
    assert.ok(names.includes("browser_navigate") && names.length >= 20, `${names}`);
    assert.ok(ms < 5000, `initialize + tools/list took ${ms} ms`);

    // arguments in the order the tools declare them (a JSON object keeps the order it was written in)
    const listed = (await client.listTools()).tools;
    const argsOf = (name) => Object.keys(listed.find((t) => t.name === name).inputSchema.properties);
    assert.deepEqual(argsOf("browser_click"), ["ref", "doubleClick", "button", "modifiers"]);
    assert.deepEqual(argsOf("browser_type"), ["ref", "text", "submit"]);

    const nav = await client.callTool({ name: "browser_navigate", arguments: { url: page() } });
    assert.equal(nav.isError, true);
    assert.match(textOf(nav), /browser\.launch/);
    assert.match(textOf(nav), /\/nonexistent\/agentkit-test\/chromium/);

    // The server is still up and answers again the same way.
    await client.ping();
    const snap = await client.callTool({ name: "browser_snapshot", arguments: {} });
    assert.equal(snap.isError, true);
    assert.match(textOf(snap), /browser\.launch/);
  } finally {
    await client.close();
  }
});

test("--websockets: a worker's socket to an origin off the list is refused in the network stack by default, not under script", async () => {
  const crypto = await import("node:crypto");
  // B: a WebSocket endpoint that counts the upgrades that reach it
  let upgrades = 0;
  const b = http.createServer((req, res) => res.end("b"));
  b.on("upgrade", (req, sock) => {
    upgrades += 1;
    const accept = crypto.createHash("sha1").update(req.headers["sec-websocket-key"] + "258EAFA5-E914-47DA-95CA-C5AB0DC85B11").digest("base64");
    sock.write(`HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: ${accept}\r\n\r\n`);
    sock.on("error", () => {});
  });
  await new Promise((r) => b.listen(0, "127.0.0.1", r));
  // A: a page whose dedicated worker (which the page-script guard does not reach) opens the socket
  const a = http.createServer((req, res) => {
    if (req.url === "/worker.js") {
      res.writeHead(200, { "content-type": "text/javascript" });
      res.end(`const s = new WebSocket("ws://127.0.0.1:${b.address().port}/"); s.onopen = () => postMessage("open"); s.onerror = () => postMessage("refused");`);
      return;
    }
    res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
    res.end(`<!doctype html><title>WS</title><p id=o>waiting</p><script>new Worker("/worker.js").onmessage = (e) => { document.getElementById("o").textContent = "socket " + e.data; };</script>`);
  });
  await new Promise((r) => a.listen(0, "127.0.0.1", r));
  const origin = `http://127.0.0.1:${a.address().port}`;
  const run = async (extra) => {
    const { client } = await connect(["--allowed-origins", origin, ...extra]);
    try {
      const nav = await client.callTool({ name: "browser_navigate", arguments: { url: `${origin}/` } });
      assert.equal(nav.isError, false, textOf(nav));
      const w = await client.callTool({ name: "browser_wait_for", arguments: { text: "socket " } });
      assert.equal(w.isError, false, textOf(w));
      return textOf(await client.callTool({ name: "browser_snapshot", arguments: {} }));
    } finally {
      await client.close();
    }
  };
  try {
    assert.match(await run([]), /socket refused/);
    assert.equal(upgrades, 0, "the default (auto, a local browser) refuses it before it leaves the browser");
    assert.match(await run(["--websockets", "script"]), /socket open/);
    assert.equal(upgrades, 1, "script: only the page-script guard, which a worker escapes");
  } finally {
    a.close();
    b.close();
  }
  const { spawnSync } = await import("node:child_process");
  const bad = spawnSync(server, ["--websockets", "sometimes"], { encoding: "utf8" });
  assert.equal(bad.status, 2);
  assert.equal(bad.stdout, "");
  assert.match(bad.stderr, /--websockets takes auto, proxy or script/);
});

test("browser_evaluate calls a function (Playwright MCP's semantics), evaluates a plain expression, and says what JSON cannot hold", async () => {
  const { client } = await connect(["--allow-evaluate"]);
  try {
    await client.callTool({ name: "browser_navigate", arguments: { url: page() } });
    const ev = async (args) => {
      const r = await client.callTool({ name: "browser_evaluate", arguments: args });
      assert.equal(r.isError, false, textOf(r));
      // the value is the page's data: inside the marks
      const m = /^<<page-data (\w+)>>\n([\s\S]*)\n<<end \1>>\n?$/.exec(textOf(r));
      assert.ok(m, textOf(r));
      return m[2];
    };
    assert.equal(await ev({ function: "() => location.pathname" }), '"/page.html"');
    assert.equal(await ev({ function: "document.title" }), '"Tools"');
    assert.equal(await ev({ function: "async () => [1, 2].map((x) => x * 2)" }), "[2,4]");
    assert.equal(await ev({ function: "() => { document.title = 'set'; }" }), "undefined");
    assert.match(await ev({ function: "() => () => 1" }), /^a function: /);
    const snap = textOf(await client.callTool({ name: "browser_snapshot", arguments: {} }));
    const ref = /button "Press me".*\[ref=([a-z]\d+)\]/.exec(snap)?.[1];
    assert.ok(ref, snap);
    assert.equal(await ev({ function: "(el) => el.textContent", ref }), '"Press me"');
  } finally {
    await client.close();
  }
});

test("a cancelled browser_wait_for stops at once and the next call does not queue behind it", async () => {
  const { client } = await connect([]);
  try {
    await client.callTool({ name: "browser_navigate", arguments: { url: page() } });
    for (const args of [{ text: "never on this page", timeout: 8 }, { time: 8 }]) {
      const abort = new AbortController();
      const started = Date.now();
      const waiting = client.callTool({ name: "browser_wait_for", arguments: args }, undefined, { signal: abort.signal });
      await new Promise((r) => setTimeout(r, 500));
      abort.abort("the test cancels");
      await assert.rejects(waiting);
      const next = await client.callTool({ name: "browser_snapshot", arguments: {} });
      const took = Date.now() - started;
      assert.equal(next.isError, false, textOf(next));
      assert.match(textOf(next), /Press me/);
      // the 8 s wait would still be running: the snapshot did not wait behind it
      assert.ok(took < 6000, `the next call ended ${took} ms after the wait began (${JSON.stringify(args)})`);
    }
  } finally {
    await client.close();
  }
});

test("an action that fails on the page names a screenshot artifact in its error", async () => {
  const { client } = await connect([]);
  try {
    await client.callTool({ name: "browser_navigate", arguments: { url: page() } });
    const r = await client.callTool({ name: "browser_wait_for", arguments: { text: "never on this page", timeout: 0.3 } });
    assert.equal(r.isError, true);
    const id = /screenshot of the page when it failed: artifact (\S+) /i.exec(textOf(r))?.[1];
    assert.ok(id, textOf(r));
    const shot = await client.callTool({ name: "browser_artifact", arguments: { id } });
    assert.equal(shot.isError, false, textOf(shot));
    assert.ok(shot.content.some((c) => c.type === "image" || /image\/jpeg/.test(JSON.stringify(c))), JSON.stringify(shot).slice(0, 300));
  } finally {
    await client.close();
  }
});
