// agentkit-mcp-gateway in front of real MCP servers from npm (server-everything, -memory,
// -filesystem, pinned in package.json and package-lock.json here), agentkit's own server, and
// servers having a bad day (one that crashes on start, one that never answers, one that writes
// noise to stdout and dies on request), driven by the official MCP TypeScript client.
//
//   AGENTKIT_MCP_GATEWAY=build/bin/agentkit-mcp-gateway AGENTKIT_TEST_MCP_SERVER=build/bin/agentkit_test_mcp_server \
//   AGENTKIT_TEST_PYTHON=python3 node --test tests/mcp_gateway/
//
// Every test starts its own gateway; stdout must carry nothing but protocol (the client fails
// on anything else), the gateway's own lines are read from its stderr.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { getDefaultEnvironment, StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import http from "node:http";
import { CreateMessageRequestSchema, ElicitationCompleteNotificationSchema, ElicitRequestSchema, ToolListChangedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";

const here = path.dirname(fileURLToPath(import.meta.url));
const gatewayBin = process.env.AGENTKIT_MCP_GATEWAY;
const agentkitServer = process.env.AGENTKIT_TEST_MCP_SERVER;
const python = process.env.AGENTKIT_TEST_PYTHON || "python3";
assert.ok(gatewayBin, "set AGENTKIT_MCP_GATEWAY to the agentkit-mcp-gateway binary");
assert.ok(agentkitServer, "set AGENTKIT_TEST_MCP_SERVER to the agentkit_test_mcp_server binary");
const fake = path.join(here, "..", "mcp", "fixtures", "fake_mcp_server.py");
const pkg = (name) => path.join(here, "node_modules", "@modelcontextprotocol", name, "dist", "index.js");

const work = fs.mkdtempSync(path.join(os.tmpdir(), "agentkit-gateway-"));
fs.writeFileSync(path.join(work, "hello.txt"), "hello from the filesystem server\n");

function config(extra = {}) {
  return {
    mcpServers: {
      everything: { command: process.execPath, args: [pkg("server-everything"), "stdio"], description: "Test tools of every kind" },
      memory: { command: process.execPath, args: [pkg("server-memory")], env: { MEMORY_FILE_PATH: path.join(work, "memory.jsonl") } },
      filesystem: { command: process.execPath, args: [pkg("server-filesystem"), work] },
      agentkit: { command: agentkitServer },
      noisy: { command: python, args: [fake, "noise"] },
      crashy: { command: python, args: [fake, "crash"], env: { SECRET_TOKEN: "do-not-print-me" } },
      sleepy: { command: python, args: [fake, "hang"] },
      flooder: { command: python, args: [fake, "flood"] },
      ...extra,
    },
    frozen: ["everything_echo", "greet"],
  };
}

// a configuration with these servers of config() only
const only = (names) => ({ mcpServers: Object.fromEntries(Object.entries(config().mcpServers).filter(([n]) => names.includes(n))) });

// client: {capabilities, setup(client)} for a client that answers the servers' requests
// client_.args: more gateway arguments; client_.env: more environment variables
async function gateway(mask, cfg = config(), client_ = {}) {
  const file = path.join(work, `config-${mask}-${Date.now()}.json`);
  fs.writeFileSync(file, JSON.stringify(cfg));
  const transport = new StdioClientTransport({
    command: gatewayBin,
    args: ["--config", file, "--mask", mask, "--start-wait", "3000", "--log-dir", work, ...(client_.args || [])],
    stderr: "pipe",
    ...(client_.env ? { env: { ...getDefaultEnvironment(), ...client_.env } } : {}),
  });
  const lines = [];
  const waiters = [];
  transport.stderr.on("data", (d) => {
    for (const l of d.toString().split("\n")) if (l) lines.push(l);
    for (const w of [...waiters]) if (w.check()) waiters.splice(waiters.indexOf(w), 1);
  });
  const client = new Client({ name: "gateway-test", version: "1.0.0" }, client_.capabilities ? { capabilities: client_.capabilities } : undefined);
  client_.setup?.(client);
  const errors = [];
  client.onerror = (e) => errors.push(e);
  await client.connect(transport);
  const changed = [];
  client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
    for (const r of changed.splice(0)) r();
  });
  const g = {
    client,
    errors,
    lines,
    nextListChanged: () => new Promise((r) => changed.push(r)),
    // resolves when the gateway's stderr has `count` lines matching `re`
    stderrLines: (re, count) =>
      new Promise((resolve) => {
        const w = { check: () => lines.filter((l) => re.test(l)).length >= count && (resolve(), true) };
        if (!w.check()) waiters.push(w);
      }),
    close: () => client.close(),
  };
  // the servers that work are up before the test looks (a loaded machine starts them slowly;
  // the gateway serves meanwhile and announces them with list_changed)
  for (const name of ["everything", "memory", "filesystem", "agentkit", "noisy", "flooder"])
    if (cfg.mcpServers[name]) await g.stderrLines(new RegExp(`: ${name}: up`), 1);
  return g;
}

const textOf = (r) => r.content.filter((c) => c.type === "text").map((c) => c.text).join("\n");
const names = async (client) => (await client.listTools()).tools.map((t) => t.name);

test("--mask none: the union of the servers' tools, colliding names namespaced, bad servers left out", async () => {
  const g = await gateway("none");
  try {
    const all = await names(g.client);
    // two servers have "echo": both namespaced; unique names kept
    assert.ok(all.includes("everything_echo"), all.join(","));
    assert.ok(all.includes("noisy_echo"));
    assert.ok(all.includes("flooder_echo"));
    assert.ok(!all.includes("echo"));
    for (const t of ["create_entities", "read_graph", "list_directory", "read_text_file", "greet", "get-sum"])
      assert.ok(all.includes(t), `${t} in ${all.join(",")}`);
    assert.ok(!all.some((n) => n.startsWith("crashy")));
    assert.equal(new Set(all).size, all.length);

    assert.match(textOf(await g.client.callTool({ name: "everything_echo", arguments: { message: "via gateway" } })), /via gateway/);
    assert.equal(textOf(await g.client.callTool({ name: "greet", arguments: { name: "Ada" } })), "Hello, Ada!");
    await g.client.callTool({ name: "create_entities", arguments: { entities: [{ name: "Ada", entityType: "person", observations: ["wrote programs"] }] } });
    assert.match(textOf(await g.client.callTool({ name: "read_graph", arguments: {} })), /wrote programs/);
    assert.match(textOf(await g.client.callTool({ name: "read_text_file", arguments: { path: path.join(work, "hello.txt") } })), /hello from the filesystem server/);
    // a tool the server runs only as a task (execution.taskSupport "required") is an ordinary
    // call through the gateway, which polls the task to its result
    const report = await g.client.callTool({ name: "simulate-research-query", arguments: { topic: "tide pools" } });
    assert.notEqual(report.isError, true, textOf(report));
    assert.match(textOf(report), /Research Report: tide pools/);
    // arguments are checked against the server's schema at the gateway
    const bad = await g.client.callTool({ name: "get-sum", arguments: { a: "one", b: 2 } });
    assert.equal(bad.isError, true);
    assert.match(textOf(bad), /args\.invalid/);
    // a 40 MB answer fails that call alone, naming the server; the gateway goes on
    const huge = await g.client.callTool({ name: "noisy_big", arguments: { bytes: 40 * 1024 * 1024 } });
    assert.equal(huge.isError, true);
    assert.match(textOf(huge), /budget\.exceeded/);
    assert.match(textOf(huge), /noisy/);
    // a server that floods notifications still answers, and so do the others
    assert.equal(textOf(await g.client.callTool({ name: "flooder_echo", arguments: { message: "after the flood" } })), "after the flood");
    assert.equal(textOf(await g.client.callTool({ name: "noisy_echo", arguments: { message: "still here" } })), "still here");
    // the crashed server is named in the gateway's log, with its stderr, without its environment
    await g.stderrLines(/crashy: .*exited with status 3/, 1);
    assert.ok(g.lines.some((l) => /EXAMPLE_API_KEY is not set/.test(l)));
    assert.ok(!g.lines.some((l) => l.includes("do-not-print-me")));
    assert.deepEqual(g.errors, []);  // nothing but protocol on stdout
  } finally {
    await g.close();
  }
});

// Every "properties" object's member order in a schema, by where it is ("" for the top).
function propertyOrders(schema, at = "", out = {}) {
  if (!schema || typeof schema !== "object") return out;
  if (schema.properties && typeof schema.properties === "object" && !Array.isArray(schema.properties)) {
    out[at] = Object.keys(schema.properties);
    for (const [k, v] of Object.entries(schema.properties)) propertyOrders(v, `${at}/${k}`, out);
  }
  if (schema.items) propertyOrders(schema.items, `${at}[]`, out);
  return out;
}

test("tools are listed with their arguments in the order their servers wrote them", async () => {
  const servers = ["everything", "memory", "filesystem"];
  const g = await gateway("none", only(servers));
  try {
    const through = new Map((await g.client.listTools()).tools.map((t) => [t.name, t.inputSchema]));
    let unsorted = 0;
    for (const name of servers) {
      const direct = new Client({ name: "direct", version: "1.0.0" });
      const { command, args, env } = config().mcpServers[name];
      await direct.connect(new StdioClientTransport({ command, args, ...(env ? { env: { ...getDefaultEnvironment(), ...env } } : {}), stderr: "pipe" }));
      try {
        for (const t of (await direct.listTools()).tools) {
          assert.ok(through.has(t.name), `${t.name} through the gateway`);
          const orders = propertyOrders(t.inputSchema);
          assert.deepEqual(propertyOrders(through.get(t.name)), orders, t.name);
          for (const keys of Object.values(orders)) if (keys.join() !== [...keys].sort().join()) ++unsorted;
        }
      } finally {
        await direct.close();
      }
    }
    assert.ok(unsorted >= 3, `servers that write arguments out of key order (${unsorted} schemas)`);
  } finally {
    await g.close();
  }
});

test("a server's questions during a call reach the gateway's client (elicitation, sampling) and its answers go back", async () => {
  const asked = [];
  let decline = false;
  const g = await gateway("none", only(["everything", "memory"]), {
    capabilities: { elicitation: {}, sampling: {} },
    setup: (c) => {
      c.setRequestHandler(ElicitRequestSchema, async (req) => {
        asked.push(req.params);
        return decline ? { action: "decline" } : { action: "accept", content: { name: "Ada Lovelace", check: true } };
      });
      c.setRequestHandler(CreateMessageRequestSchema, async (req) => {
        asked.push(req.params);
        return { model: "scripted-model", role: "assistant", content: { type: "text", text: `scripted answer to <${req.params.messages[0].content.text}>` } };
      });
    },
  });
  try {
    const all = await names(g.client);
    // the gateway tells the servers it can answer both, so the tools that need them are offered
    assert.ok(all.includes("trigger-elicitation-request"), all.join(","));
    assert.ok(all.includes("trigger-sampling-request"), all.join(","));

    const e = await g.client.callTool({ name: "trigger-elicitation-request", arguments: {} });
    assert.notEqual(e.isError, true, textOf(e));
    assert.equal(asked.length, 1);
    assert.equal(asked[0].message, "Please provide inputs for the following fields:");
    assert.deepEqual(asked[0].requestedSchema.required, ["name"]);
    assert.match(textOf(e), /Ada Lovelace/);

    const s = await g.client.callTool({ name: "trigger-sampling-request", arguments: { prompt: "tide pools", maxTokens: 20 } });
    assert.notEqual(s.isError, true, textOf(s));
    assert.equal(asked.length, 2);
    assert.equal(asked[1].systemPrompt, "You are a helpful test server.");
    assert.equal(asked[1].maxTokens, 20);
    assert.match(textOf(s), /scripted answer to <Resource trigger-sampling-request context: tide pools>/);
    assert.match(textOf(s), /scripted-model/);

    // the user's refusal is an answer too, passed back as given
    decline = true;
    const d = await g.client.callTool({ name: "trigger-elicitation-request", arguments: {} });
    assert.equal(asked.length, 3);
    assert.match(textOf(d), /decline/i);
    assert.doesNotMatch(textOf(d), /Ada Lovelace/);

    // the other server is not held up meanwhile, and stdout carried nothing but protocol
    await g.client.callTool({ name: "create_entities", arguments: { entities: [{ name: "Relay tester", entityType: "person", observations: ["asked twice"] }] } });
    assert.match(textOf(await g.client.callTool({ name: "read_graph", arguments: {} })), /asked twice/);
    assert.deepEqual(g.errors, []);
  } finally {
    await g.close();
  }

  // a client that answers neither: the call fails, naming what is missing; the gateway goes on
  const plain = await gateway("none", only(["everything"]));
  try {
    const e = await plain.client.callTool({ name: "trigger-elicitation-request", arguments: {} });
    assert.equal(e.isError, true);
    assert.match(textOf(e), /did not declare the elicitation capability/);
    const s = await plain.client.callTool({ name: "trigger-sampling-request", arguments: { prompt: "x" } });
    assert.equal(s.isError, true);
    assert.match(textOf(s), /did not declare the sampling capability/);
    assert.match(textOf(await plain.client.callTool({ name: "echo", arguments: { message: "still here" } })), /still here/);
  } finally {
    await plain.close();
  }

  // "relay_input": false: the servers are not told, so those tools are not offered
  const off = await gateway("none", { ...only(["everything"]), relay_input: false }, { capabilities: { elicitation: {}, sampling: {} } });
  try {
    const all = await names(off.client);
    assert.ok(all.includes("echo"), all.join(","));
    assert.ok(!all.includes("trigger-elicitation-request"), all.join(","));
    assert.ok(!all.includes("trigger-sampling-request"), all.join(","));
  } finally {
    await off.close();
  }
});

test("URL-mode elicitation: a question, a -32042 error and a completion notice reach the client that declared URL mode; other clients read what to open", async () => {
  const cfg = { mcpServers: { ...only(["everything"]).mcpServers, urls: { command: python, args: [fake, "urls"] } } };
  const asked = [];
  const completed = [];
  const g = await gateway("none", cfg, {
    capabilities: { elicitation: { form: {}, url: {} } },
    setup: (c) => {
      c.setRequestHandler(ElicitRequestSchema, async (req) => {
        asked.push(req.params);
        return { action: "accept" };
      });
      c.setNotificationHandler(ElicitationCompleteNotificationSchema, (n) => completed.push(n.params.elicitationId));
    },
  });
  await g.stderrLines(/: urls: up/, 1);
  try {
    // a real server that offers its URL tool only to clients that declared URL mode: offered
    const all = await names(g.client);
    assert.ok(all.includes("trigger-url-elicitation"), all.join(","));
    const r = await g.client.callTool({ name: "trigger-url-elicitation", arguments: { url: "https://example.com/authorize?x=1" } });
    assert.notEqual(r.isError, true, textOf(r));
    assert.equal(asked.length, 1);
    assert.equal(asked[0].mode, "url");
    assert.equal(asked[0].url, "https://example.com/authorize?x=1");
    assert.ok(asked[0].elicitationId);
    assert.match(textOf(r), /completed the URL elicitation flow/);

    // its error path: the client gets -32042 itself, with the elicitations as the server gave them
    await assert.rejects(g.client.callTool({ name: "trigger-url-elicitation", arguments: { url: "https://example.com/a", errorPath: true } }), (e) => {
      assert.equal(e.code, -32042);
      assert.equal(e.data.elicitations.length, 1);
      assert.equal(e.data.elicitations[0].mode, "url");
      assert.equal(e.data.elicitations[0].url, "https://modelcontextprotocol.io");
      return true;
    });

    // the completion notices go to the client that was asked; an id never passed on goes nowhere
    await assert.rejects(g.client.callTool({ name: "connect", arguments: {} }), (e) => e.code === -32042 && /^el-connect-/.test(e.data.elicitations[0].elicitationId));
    const fromError = (await g.client.callTool({ name: "connect", arguments: {} }).catch((e) => e)).data.elicitations[0].elicitationId;
    const q = await g.client.callTool({ name: "ask_url", arguments: {} });
    assert.match(textOf(q), /answer: \{"action": "accept"\}/);
    const fromQuestion = asked.at(-1).elicitationId;
    assert.match(fromQuestion, /^el-ask-/);
    assert.match(textOf(await g.client.callTool({ name: "complete", arguments: { id: "el-never-asked" } })), /sent/);
    assert.match(textOf(await g.client.callTool({ name: "complete", arguments: { id: fromQuestion } })), /sent/);
    assert.match(textOf(await g.client.callTool({ name: "complete", arguments: { id: fromError } })), /sent/);
    assert.match(textOf(await g.client.callTool({ name: "complete", arguments: { id: fromError } })), /sent/);  // once only
    assert.deepEqual(completed, [fromQuestion, fromError]);
    assert.deepEqual(g.errors, []);
  } finally {
    await g.close();
  }

  // a client of form mode only: the server hears -32602 for a URL question, and a -32042 becomes
  // a tool error that names what to open
  const formOnly = [];
  const f = await gateway("none", cfg, {
    capabilities: { elicitation: {} },
    setup: (c) => c.setRequestHandler(ElicitRequestSchema, async (req) => (formOnly.push(req.params), { action: "accept", content: {} })),
  });
  await f.stderrLines(/: urls: up/, 1);
  try {
    const q = await f.client.callTool({ name: "ask_url", arguments: {} });
    assert.match(textOf(q), /-32602/);
    assert.match(textOf(q), /did not declare URL-mode elicitation/);
    const c = await f.client.callTool({ name: "connect", arguments: {} });
    assert.equal(c.isError, true);
    assert.match(textOf(c), /https:\/\/auth\.example\.test\/connect\/\d+/);
    assert.match(textOf(c), /call the tool again/);
    assert.deepEqual(formOnly, []);
    assert.match(textOf(await f.client.callTool({ name: "echo", arguments: { message: "still here" } })), /still here/);
  } finally {
    await f.close();
  }
});

test("a question that names its task (2025-11-25 tasks) reaches that task's call while other calls of the server run", async () => {
  const cfg = { mcpServers: { tasky: { command: python, args: [fake, "tasks"] } } };
  const asked = [];
  const g = await gateway("none", cfg, {
    capabilities: { elicitation: {} },
    setup: (c) => c.setRequestHandler(ElicitRequestSchema, async (req) => (asked.push(req.params), { action: "accept", content: { topic: "lichens" } })),
  });
  await g.stderrLines(/: tasky: up/, 1);
  try {
    const abort = new AbortController();
    const endless = g.client.callTool({ name: "endless", arguments: {} }, undefined, { signal: abort.signal }).catch((e) => e);
    // until the server holds the endless task (its log says so; each look is a round trip): from
    // then on two of its calls run when the other one asks
    let log = "";
    for (let i = 0; i < 500 && !/endless as a task/.test(log); ++i) log = textOf(await g.client.callTool({ name: "task_log", arguments: {} }));
    assert.match(log, /endless as a task/);
    const r = await g.client.callTool({ name: "clarify", arguments: {} });
    assert.notEqual(r.isError, true, textOf(r));
    assert.match(textOf(r), /clarified: \{"topic": "lichens"\}/);
    assert.equal(asked.length, 1);
    assert.equal(asked[0].message, "Which topic?");
    abort.abort();
    await endless;
    assert.deepEqual(g.errors, []);
  } finally {
    await g.close();
  }
});

test("a server's question while several of its calls run is not guessed at: it is refused, naming why", async () => {
  const cfg = { mcpServers: { asker: { command: python, args: [fake, "normal"] } } };
  const seen = [];
  const g = await gateway("none", cfg, {
    capabilities: { elicitation: {}, sampling: {} },
    setup: (c) => {
      c.setRequestHandler(ElicitRequestSchema, async (req) => (seen.push(req.params.message), { action: "accept", content: { name: "Ada" } }));
      c.setRequestHandler(CreateMessageRequestSchema, async () => (seen.push("sampling"), { model: "m", role: "assistant", content: { type: "text", text: "hello" } }));
    },
  });
  try {
    await g.stderrLines(/asker: up/, 1);
    // one call in flight: both questions reach this client; roots the gateway does not offer
    const one = JSON.parse(textOf(await g.client.callTool({ name: "ask", arguments: {} })));
    assert.equal(one.sampling.content.text, "hello");
    assert.deepEqual(one.elicitation, { action: "accept", content: { name: "Ada" } });
    assert.match(JSON.stringify(one.roots), /not offered/);
    assert.deepEqual([...seen].sort(), ["Your name?", "sampling"]);
    // two calls of that server in flight: a stdio server does not say which one asks
    const stop = new AbortController();
    let started;
    const inFlight = new Promise((r) => (started = r));  // its first progress: the server has the call
    const hanging = g.client.callTool({ name: "hang", arguments: {} }, undefined, { signal: stop.signal, onprogress: () => started() }).catch((e) => e);
    await inFlight;
    const two = JSON.parse(textOf(await g.client.callTool({ name: "ask", arguments: {} })));
    assert.match(two.sampling.message, /while 2 of its calls run.*does not guess/);
    assert.match(two.elicitation.message, /while 2 of its calls run/);
    assert.deepEqual([...seen].sort(), ["Your name?", "sampling"]);
    stop.abort();
    await hanging;
    assert.equal(textOf(await g.client.callTool({ name: "echo", arguments: { message: "after" } })), "after");
  } finally {
    await g.close();
  }
});

test("a server that dies is restarted; meanwhile its tools say so and the others answer", async () => {
  const g = await gateway("none");
  try {
    const died = await g.client.callTool({ name: "noisy_die", arguments: {} });
    assert.equal(died.isError, true);
    assert.match(textOf(died), /noisy/);
    await g.stderrLines(/noisy: down/, 1);
    // the others are not held up
    assert.equal(textOf(await g.client.callTool({ name: "greet", arguments: { name: "Bo" } })), "Hello, Bo!");
    await g.stderrLines(/: noisy: up/, 2);  // restarted
    assert.equal(textOf(await g.client.callTool({ name: "noisy_echo", arguments: { message: "back" } })), "back");
    assert.deepEqual(g.errors, []);
  } finally {
    await g.close();
  }
});

test("--mask menu: a server without a description is described by its instructions' first sentence, as plain text, once", async () => {
  // the real server-everything's instructions (markdown: headings, bullets, code spans), and a
  // fake server's whose first sentence runs past 200 bytes with two-byte characters at the cut
  const long = "# Fjord tools\n\nThe **ferry** `timetable` of [Ærøskøbing](https://ferry.example) " + "ø".repeat(120) + " ends here. Second sentence.";
  const cfg = config();
  cfg.mcpServers.everything = { command: process.execPath, args: [pkg("server-everything"), "stdio"] };
  cfg.mcpServers.noisy = { command: python, args: [fake, "normal"], env: { FAKE_INSTRUCTIONS: long } };
  const g = await gateway("menu", cfg);
  try {
    const listed = textOf(await g.client.callTool({ name: "menu_list", arguments: {} }));
    const line = (mode) => listed.split("\n").find((l) => l.startsWith(`- ${mode} — `)) ?? "";
    const everything = line("everything");
    assert.match(everything, /^- everything — Audience: These instructions are written for an LLM or autonomous agent integrating with the Everything MCP Server\.: /, listed);
    assert.doesNotMatch(everything, /#|\(use for:|Follow them/);
    const noisy = line("noisy");
    assert.match(noisy, /^- noisy — The ferry timetable of Ærøskøbing ø+\.\.\.: /, listed);  // marks and the link's URL gone
    const description = noisy.slice("- noisy — ".length, noisy.indexOf("...") + 3);
    assert.ok(Buffer.byteLength(description) <= 200, `${Buffer.byteLength(description)} bytes: ${description}`);
    assert.ok(!description.includes("\uFFFD"));  // no character split at the cut
  } finally {
    await g.close();
  }
});

test("--mask menu: a mode per server; entering one shows its tools (list_changed)", async () => {
  const g = await gateway("menu");
  try {
    const start = await names(g.client);
    assert.ok(start.includes("menu_enter"));
    assert.ok(!start.includes("read_graph"));
    // complete and message_user belong to an agent session's loop: not served; the menu is explained instead
    assert.ok(!start.includes("complete") && !start.includes("message_user"), start.join(","));
    assert.match(g.client.getInstructions() ?? "", /## Tool menu\n[^]*menu_list tells you the current mode/);
    const listed = textOf(await g.client.callTool({ name: "menu_list", arguments: {} }));
    for (const mode of ["everything", "memory", "filesystem", "agentkit", "noisy"]) assert.match(listed, new RegExp(mode));
    const changed = g.nextListChanged();
    await g.client.callTool({ name: "menu_enter", arguments: { mode: "memory" } });
    await changed;
    const inMemory = await names(g.client);
    assert.ok(inMemory.includes("read_graph"));
    assert.ok(!inMemory.includes("list_directory"));
    const hidden = await g.client.callTool({ name: "list_directory", arguments: { path: work } });
    assert.equal(hidden.isError, true);
    assert.match(textOf(hidden), /filesystem/);  // names the mode to enter
  } finally {
    await g.close();
  }
});

test("--mask router: tool_search finds a tool, which becomes callable", async () => {
  const g = await gateway("router");
  try {
    const start = await names(g.client);
    assert.ok(start.includes("tool_search"));
    assert.ok(!start.includes("create_entities"));
    const found = textOf(await g.client.callTool({ name: "tool_search", arguments: { query: "create entities in the knowledge graph" } }));
    assert.match(found, /create_entities/);
    const after = await names(g.client);
    assert.ok(after.includes("create_entities"), `${after.join(",")}\n${g.lines.join("\n")}\n${found}`);
  } finally {
    await g.close();
  }
});

test("--mask router: configured examples and what it learned from calls (kept in the usage file across runs) change what tool_search finds", async () => {
  const usageFile = path.join(work, `usage-${Date.now()}.json`);
  const cfg = {
    mcpServers: {
      everything: { command: process.execPath, args: [pkg("server-everything"), "stdio"], description: "Test tools of every kind",
                    examples: { echo: ["parrot my words back"] } },
    },
    router: { usage_file: usageFile, max_learned_per_tool: 5 },
  };
  const first = (r) => r.structuredContent?.tools?.[0]?.name;
  const query = "zyxwv quantities";  // words no tool uses
  let g = await gateway("router", cfg);
  try {
    assert.equal(first(await g.client.callTool({ name: "tool_search", arguments: { query: "parrot" } })), "echo");
    assert.notEqual(first(await g.client.callTool({ name: "tool_search", arguments: { query } })), "get-sum");
    // the model searched with more words, found get-sum and used it
    const found = await g.client.callTool({ name: "tool_search", arguments: { query: `sum of two numbers, ${query}` } });
    assert.equal(first(found), "get-sum", textOf(found));
    const sum = await g.client.callTool({ name: "get-sum", arguments: { a: 2, b: 3 } });
    assert.ok(!sum.isError, textOf(sum));
    assert.deepEqual(JSON.parse(fs.readFileSync(usageFile, "utf8")).examples["get-sum"], [`sum of two numbers, ${query}`]);
    assert.equal(first(await g.client.callTool({ name: "tool_search", arguments: { query } })), "get-sum");
  } finally {
    await g.close();
  }
  // a new gateway starts from the file
  g = await gateway("router", cfg);
  try {
    assert.equal(first(await g.client.callTool({ name: "tool_search", arguments: { query } })), "get-sum");
  } finally {
    await g.close();
  }
  // a file it cannot read is reported and left as it is
  fs.writeFileSync(usageFile, "not json");
  g = await gateway("router", cfg);
  try {
    await g.stderrLines(/usage log .*not JSON/, 1);
    await g.client.callTool({ name: "tool_search", arguments: { query: "sum of two numbers" } });
    await g.client.callTool({ name: "get-sum", arguments: { a: 1, b: 1 } });
    assert.equal(fs.readFileSync(usageFile, "utf8"), "not json");
  } finally {
    await g.close();
  }
});

// A fake OpenAI-compatible embeddings endpoint on 127.0.0.1: a "model" that maps words to four
// meanings, so that a request sharing no word with a tool finds it by meaning. Requests without the
// key are refused.
function fakeEmbeddings(key) {
  const meaning = { zettelkasten: 0, entities: 0, entity: 0, graph: 0, knowledge: 0, observations: 0, relations: 0,
                    sum: 1, add: 1, numbers: 1, echo: 2, message: 2, file: 3, directory: 3 };
  const vec = (t) => {
    const v = [0.01, 0.01, 0.01, 0.01];
    for (const w of t.toLowerCase().match(/[a-z]+/g) || []) if (w in meaning) v[meaning[w]] += 1;
    return v;
  };
  const seen = { requests: 0, texts: 0 };
  const server = http.createServer(async (req, res) => {
    let body = "";
    for await (const c of req) body += c;
    res.setHeader("content-type", "application/json");
    if (req.headers.authorization !== `Bearer ${key}`) { res.statusCode = 401; return res.end(JSON.stringify({ error: { message: "bad key" } })); }
    const input = JSON.parse(body).input;
    seen.requests++;
    seen.texts += input.length;
    res.end(JSON.stringify({ data: input.map((t, index) => ({ index, embedding: vec(t) })) }));
  });
  return new Promise((resolve) => server.listen(0, "127.0.0.1", () => resolve({ server, seen, url: `http://127.0.0.1:${server.address().port}/v1` })));
}

test("--mask router with an embedding model: a request found by meaning; the endpoint killed, every search still answers by words, said once; the key never shown", async () => {
  const key = "emb-secret-0f3a9c";
  const fake = await fakeEmbeddings(key);
  const cacheDir = path.join(work, `vectors-${Date.now()}`);
  const cfg = {
    mcpServers: {
      everything: { command: process.execPath, args: [pkg("server-everything"), "stdio"], description: "Test tools of every kind" },
      memory: { command: process.execPath, args: [pkg("server-memory")], env: { MEMORY_FILE_PATH: path.join(work, "memory-emb.jsonl") } },
    },
    router: { embeddings: { key_env: "AGENTKIT_TEST_EMBEDDINGS_KEY", cache_dir: cacheDir } },
  };
  const query = "a zettelkasten for Ada";  // no tool uses these words; the model puts them with the graph's
  const memoryTools = ["create_entities", "create_relations", "add_observations", "delete_entities", "delete_observations",
                       "delete_relations", "read_graph", "search_nodes", "open_nodes"];
  const found = async (g, q) => {
    const r = await g.client.callTool({ name: "tool_search", arguments: { query: q, k: 5 } });
    assert.ok(!r.isError, textOf(r));
    return (r.structuredContent?.tools || []).map((t) => t.name);
  };
  const topThreeFromTheGraph = (hits) => hits.length >= 3 && hits.slice(0, 3).every((n) => memoryTools.includes(n));
  // without the model (words and character n-grams): chance hits, not the graph's tools first
  let g = await gateway("router", { mcpServers: cfg.mcpServers });
  try {
    const plain = await found(g, query);
    assert.ok(!topThreeFromTheGraph(plain), plain.join(", "));
  } finally {
    await g.close();
  }
  g = await gateway("router", cfg, { args: ["--embeddings-url", fake.url, "--embeddings-model", "meanings-4"],
                                     env: { AGENTKIT_TEST_EMBEDDINGS_KEY: key } });
  try {
    const hits = await found(g, query);
    assert.ok(topThreeFromTheGraph(hits), `${hits.join(", ")}\n${g.lines.join("\n")}`);
    assert.ok(fs.readdirSync(cacheDir).some((f) => f.startsWith("embeddings-")), "the tools' vectors are kept on disk");
    // the endpoint dies: searches answer (by words), and the log says so once
    await new Promise((r) => { fake.server.closeAllConnections(); fake.server.close(r); });
    for (const q of ["add two numbers", "echo my message back", "list the directory"]) assert.ok((await found(g, q)).length > 0, q);
    await g.stderrLines(/embeddings endpoint .* failed .*words alone/, 1);
    await found(g, "one more search, after the line");
    assert.equal(g.lines.filter((l) => /embeddings endpoint/.test(l)).length, 1, g.lines.join("\n"));
    assert.ok(!g.lines.some((l) => l.includes(key)), "the key is never printed");
  } finally {
    await g.close();
  }
});

test("a wrong shape of examples, router or relay_input stops the gateway with a message naming it", async () => {
  for (const [bad, re] of [[{ examples: ["x"] }, /"examples" maps tool names/], [{ router: { learn: "yes" } }, /"router" is .*"learn"/],
                           [{ router: { embeddings: { url: "http://127.0.0.1:1/v1", model: "m", api_key: "sk-in-the-file" } } },
                            /a key is read from the environment variable/],
                           [{ router: { embeddings: { url: "http://127.0.0.1:1/v1" } } }, /"url" without "model"/],
                           [{ relay_input: "yes" }, /"relay_input" is true or false/]]) {
    const cfg = { mcpServers: { everything: { command: process.execPath, args: [pkg("server-everything"), "stdio"], ...(bad.examples ? { examples: bad.examples } : {}) } },
                  ...(bad.router ? { router: bad.router } : {}), ...("relay_input" in bad ? { relay_input: bad.relay_input } : {}) };
    const file = path.join(work, `bad-${Date.now()}.json`);
    fs.writeFileSync(file, JSON.stringify(cfg));
    const r = spawnSync(gatewayBin, ["--config", file, "--mask", "router"], { encoding: "utf8", input: "" });
    assert.equal(r.status, 2, r.stderr);
    assert.match(r.stderr, re);
    assert.ok(!r.stderr.includes("sk-in-the-file"), r.stderr);
    assert.equal(r.stdout, "");
  }
});

test("--mask frozen: only the configured tools; the rest answer capability.unsupported", async () => {
  const g = await gateway("frozen");
  try {
    assert.deepEqual((await names(g.client)).sort(), ["everything_echo", "greet"]);
    const r = await g.client.callTool({ name: "read_graph", arguments: {} });
    assert.match(textOf(r), /capability\.unsupported/);
  } finally {
    await g.close();
  }
});

test("--port: the same gateway over Streamable HTTP", async () => {
  const { spawn } = await import("node:child_process");
  const { StreamableHTTPClientTransport } = await import("@modelcontextprotocol/sdk/client/streamableHttp.js");
  const cfg = {
    mcpServers: { agentkit: { command: agentkitServer }, memory: config().mcpServers.memory, everything: config().mcpServers.everything, urls: { command: python, args: [fake, "urls"] } },
  };
  const file = path.join(work, "config-http.json");
  fs.writeFileSync(file, JSON.stringify(cfg));
  const child = spawn(gatewayBin, ["--config", file, "--mask", "none", "--port", "0"], { stdio: ["ignore", "pipe", "pipe"] });
  let out = "";
  child.stdout.on("data", (d) => (out += d));
  try {
    const url = await new Promise((resolve, reject) => {
      let err = "";
      child.stderr.on("data", (d) => {
        err += d;
        const m = err.match(/serving (http:\/\/\S+)/);
        if (m) resolve(m[1]);
      });
      child.on("exit", (code) => reject(new Error(`the gateway exited (${code}): ${err}`)));
    });
    const client = new Client({ name: "gateway-http-test", version: "1.0.0" });
    await client.connect(new StreamableHTTPClientTransport(new URL(url)));
    const all = await names(client);
    assert.ok(all.includes("greet") && all.includes("read_graph"), all.join(","));
    assert.equal(textOf(await client.callTool({ name: "greet", arguments: { name: "Http" } })), "Hello, Http!");
    // a server's question during a call goes to the client of that call, on that request's
    // stream: this one answers it, and a second client that declared nothing is not asked
    const asker = new Client({ name: "gateway-http-asker", version: "1.0.0" }, { capabilities: { elicitation: {} } });
    let asked = 0;
    asker.setRequestHandler(ElicitRequestSchema, async () => {
      ++asked;
      return { action: "accept", content: { name: "Grace Hopper" } };
    });
    await asker.connect(new StreamableHTTPClientTransport(new URL(url)));
    const e = await asker.callTool({ name: "trigger-elicitation-request", arguments: {} });
    assert.notEqual(e.isError, true, textOf(e));
    assert.match(textOf(e), /Grace Hopper/);
    assert.equal(asked, 1);
    const other = await client.callTool({ name: "trigger-elicitation-request", arguments: {} });
    assert.equal(other.isError, true);
    assert.match(textOf(other), /did not declare the elicitation capability/);
    assert.equal(asked, 1);

    // a URL elicitation's completion notice reaches the client it was given to, on its session's
    // stream, even when another client's call makes the server send it
    const urlClient = new Client({ name: "gateway-http-url", version: "1.0.0" }, { capabilities: { elicitation: { form: {}, url: {} } } });
    let noticed;
    const notice = new Promise((resolve) => (noticed = resolve));
    urlClient.setNotificationHandler(ElicitationCompleteNotificationSchema, (n) => noticed(n.params.elicitationId));
    await urlClient.connect(new StreamableHTTPClientTransport(new URL(url)));
    const required = await urlClient.callTool({ name: "connect", arguments: {} }).catch((err) => err);
    assert.equal(required.code, -32042, String(required));
    const id = required.data.elicitations[0].elicitationId;
    assert.match(textOf(await client.callTool({ name: "complete", arguments: { id } })), /sent/);
    let timer;
    const late = new Promise((_, reject) => (timer = setTimeout(() => reject(new Error("no completion notice within 20 s")), 20000)));
    assert.equal(await Promise.race([notice, late]), id);
    clearTimeout(timer);
    await urlClient.close();
    await asker.close();
    await client.close();
    assert.equal(out, "");  // nothing on stdout in HTTP mode
  } finally {
    child.kill("SIGTERM");
  }
});
