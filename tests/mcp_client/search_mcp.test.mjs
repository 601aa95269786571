// agentkit-browser-mcp's web_search (--search, --search-url), driven by the official MCP
// TypeScript client (node --test): a search through a fake SearXNG on 127.0.0.1 that never
// starts the browser, then reading two of its results with browser_batch (the browser starts
// there); a result outside --allowed-origins marked, and reading it refused; a refused key
// naming its variable with the key in no output (stdout, stderr, results); the research mode
// of --tools menu; the start refused for a backend without its key.
//
//   AGENTKIT_BROWSER_MCP=build/bin/agentkit-browser-mcp node --test tests/mcp_client/search_mcp.test.mjs
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import http from "node:http";
import { spawnSync } from "node:child_process";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

const server = process.env.AGENTKIT_BROWSER_MCP;
assert.ok(server, "set AGENTKIT_BROWSER_MCP to the agentkit-browser-mcp binary");

const KEY = "brave-SECRET-key-2f9c61d0";
const textOf = (r) => r.content.filter((c) => c.type === "text").map((c) => c.text).join("\n");

let site;      // the pages the results point to
let searxng;   // a SearXNG answering in its JSON format, results on `site`
let brave;     // a Brave Search API that refuses every key (and echoes it)
let searches = 0;
const origin = (s) => `http://127.0.0.1:${s.address().port}`;

before(async () => {
  site = http.createServer((req, res) => {
    res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
    if (req.url === "/alpha.html") res.end("<!doctype html><title>Alpha</title><h1>Alpha page</h1><p>Alpha costs 12 euros.</p>");
    else if (req.url === "/beta.html") res.end("<!doctype html><title>Beta</title><h1>Beta page</h1><p>Beta costs 15 euros.</p>");
    else res.end("<!doctype html><title>Other</title><p>other</p>");
  });
  await new Promise((r) => site.listen(0, "127.0.0.1", r));
  searxng = http.createServer((req, res) => {
    searches += 1;
    const u = new URL(req.url, "http://x");
    if (u.pathname !== "/search" || u.searchParams.get("format") !== "json") {
      res.writeHead(403);
      res.end("Forbidden");
      return;
    }
    res.writeHead(200, { "content-type": "application/json" });
    res.end(JSON.stringify({
      query: u.searchParams.get("q"), number_of_results: 0,
      results: [
        { url: `${origin(site)}/alpha.html`, title: "Alpha pricing", content: "Alpha costs 12 euros a month.", engine: "brave",
          publishedDate: "2024-05-01T00:00:00", score: 2, category: "general" },
        { url: `${origin(site)}/beta.html`, title: "Beta pricing", content: "Beta costs 15 euros a month.", engine: "brave",
          publishedDate: null, score: 1, category: "general" },
        { url: "https://elsewhere.example/gamma", title: "Gamma pricing", content: "Gamma, elsewhere.", engine: "brave",
          score: 0.5, category: "general" },
      ],
      answers: [], corrections: [], infoboxes: [], suggestions: [], unresponsive_engines: [],
    }));
  });
  await new Promise((r) => searxng.listen(0, "127.0.0.1", r));
  brave = http.createServer((req, res) => {
    res.writeHead(401, { "content-type": "application/json" });
    res.end(JSON.stringify({ type: "ErrorResponse", error: { code: "SUBSCRIPTION_TOKEN_INVALID", detail: `bad token ${req.headers["x-subscription-token"]}` } }));
  });
  await new Promise((r) => brave.listen(0, "127.0.0.1", r));
});
after(() => {
  site?.close();
  searxng?.close();
  brave?.close();
});

async function connect(args, env = {}) {
  const transport = new StdioClientTransport({
    command: server, args: ["--headless", ...args], stderr: "pipe", env: { ...process.env, ...env },
  });
  let stderr = "";
  transport.stderr?.on("data", (d) => { stderr += d.toString(); });
  const client = new Client({ name: "agentkit-search-test", version: "1.0.0" });
  await client.connect(transport);
  return { client, stderr: () => stderr };
}

test("web_search answers without the browser, then browser_batch reads two results", async () => {
  const { client, stderr } = await connect([
    "--search", "searxng", "--search-url", origin(searxng), "--allowed-origins", origin(site),
  ]);
  try {
    const tools = (await client.listTools()).tools;
    const ws = tools.find((t) => t.name === "web_search");
    assert.ok(ws, "web_search is listed");
    assert.equal(ws.annotations?.readOnlyHint, true);
    assert.match(client.getInstructions(), /web_search/);

    const r = await client.callTool({ name: "web_search", arguments: { query: "pricing plans", count: 3 } });
    assert.equal(r.isError, false, textOf(r));
    const text = textOf(r);
    assert.match(text, /1\. Alpha pricing - Alpha costs 12 euros a month\. \(http:\/\/127\.0\.0\.1:\d+\/alpha\.html, 2024-05-01T00:00:00\)/);
    assert.match(text, /2\. Beta pricing - /);
    assert.match(text, /3\. Gamma pricing - .*\[blocked by policy: allowed_origins: not in the allowed list\]/);
    assert.match(text, /<<page-data /);
    const metrics = textOf(await client.callTool({ name: "browser_metrics", arguments: {} }));
    assert.match(metrics, /web_search/);
    // the call's metrics line: no CDP command was sent for it (no browser involved)
    assert.match(stderr(), /\[agentkit\] web_search ok \d+ ms, \d+ bytes, ~\d+ tokens, 0 CDP round trips/);

    const urls = [...text.matchAll(/\((http:\/\/127\.0\.0\.1:\d+\/[a-z]+\.html)/g)].map((m) => m[1]);
    assert.deepEqual(urls.length, 2, text);
    const read = await client.callTool({ name: "browser_batch", arguments: { urls } });
    assert.equal(read.isError, false, textOf(read));
    assert.match(textOf(read), /Alpha costs 12 euros/);
    assert.match(textOf(read), /Beta costs 15 euros/);

    const refused = await client.callTool({ name: "browser_navigate", arguments: { url: "https://elsewhere.example/gamma" } });
    assert.equal(refused.isError, true);
    assert.match(textOf(refused), /policy\.blocked/);

    // the same query again: the cache answers, the backend is not asked
    const before = searches;
    const again = await client.callTool({ name: "web_search", arguments: { query: "pricing plans", count: 3 } });
    assert.match(textOf(again), /from cache/);
    assert.equal(searches, before);

    const bad = await client.callTool({ name: "web_search", arguments: { query: "x", count: 99 } });
    assert.equal(bad.isError, true);
    assert.match(textOf(bad), /args\.invalid/);
    const ok = await client.callTool({ name: "web_search", arguments: { query: "after an error", count: 1 } });
    assert.equal(ok.isError, false, textOf(ok));
  } finally {
    await client.close();
  }
});

test("a refused key names BRAVE_API_KEY and the key appears in no output", async () => {
  const { client, stderr } = await connect(["--search", "brave", "--search-url", `${origin(brave)}/res/v1/web/search`],
                                           { BRAVE_API_KEY: KEY });
  try {
    const r = await client.callTool({ name: "web_search", arguments: { query: "anything" } });
    assert.equal(r.isError, true);
    const text = textOf(r);
    assert.match(text, /search\.auth/);
    assert.match(text, /BRAVE_API_KEY/);
    assert.ok(!JSON.stringify(r).includes(KEY), "the key is not in the result");
  } finally {
    await client.close();
  }
  assert.ok(!stderr().includes(KEY), "the key is not on stderr");
});

test("--tools menu: the research mode lists web_search, browser_batch and browser_extract", async () => {
  const { client } = await connect(["--tools", "menu", "--search", "searxng", "--search-url", origin(searxng)]);
  try {
    const list = textOf(await client.callTool({ name: "menu_list", arguments: {} }));
    assert.match(list, /research/);
    const enter = await client.callTool({ name: "menu_enter", arguments: { mode: "research" } });
    assert.equal(enter.isError, false, textOf(enter));
    const names = (await client.listTools()).tools.map((t) => t.name);
    for (const n of ["web_search", "browser_batch", "browser_extract"]) assert.ok(names.includes(n), `${n} in ${names}`);
    const r = await client.callTool({ name: "web_search", arguments: { query: "pricing" } });
    assert.equal(r.isError, false, textOf(r));
  } finally {
    await client.close();
  }
});

test("without --search, web_search is not listed, and a call says how to configure a backend", async () => {
  const { client } = await connect([]);
  try {
    const names = (await client.listTools()).tools.map((t) => t.name);
    assert.ok(!names.includes("web_search"), "not offered without a backend");
    assert.ok(names.includes("browser_batch"));
    assert.doesNotMatch(client.getInstructions(), /web_search/);
    const r = await client.callTool({ name: "web_search", arguments: { query: "x" } });
    assert.equal(r.isError, true);
    assert.match(textOf(r), /search\.unconfigured/);
    assert.match(textOf(r), /--search/);
  } finally {
    await client.close();
  }
});

test("the start is refused for a backend without its key or URL, naming what to set", () => {
  const env = { ...process.env };
  delete env.TAVILY_API_KEY;
  const noKey = spawnSync(server, ["--search", "tavily"], { env, encoding: "utf8", input: "" });
  assert.equal(noKey.status, 2);
  assert.match(noKey.stderr, /TAVILY_API_KEY/);
  assert.equal(noKey.stdout, "", "nothing but protocol on stdout");
  const noUrl = spawnSync(server, ["--search", "searxng"], { env, encoding: "utf8", input: "" });
  assert.equal(noUrl.status, 2);
  assert.match(noUrl.stderr, /--search-url/);
  const help = spawnSync(server, ["--help"], { encoding: "utf8" });
  for (const s of ["--search BACKEND", "BRAVE_API_KEY", "TAVILY_API_KEY", "SERPER_API_KEY"]) assert.ok(help.stderr.includes(s), s);
});
