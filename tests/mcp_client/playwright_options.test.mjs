// agentkit-browser-mcp started with Playwright MCP's command-line options and configuration file:
// what has a meaning here takes effect, what cannot be honoured refuses the start (exit 2, the
// reason on stderr, nothing on stdout), what changes nothing here is accepted with a note on
// stderr. Driven by the official MCP TypeScript client (node --test).
//
//   AGENTKIT_BROWSER_MCP=build/bin/agentkit-browser-mcp node --test tests/mcp_client/playwright_options.test.mjs
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import { spawnSync } from "node:child_process";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { ListRootsRequestSchema } from "@modelcontextprotocol/sdk/types.js";

const server = process.env.AGENTKIT_BROWSER_MCP;
assert.ok(server, "set AGENTKIT_BROWSER_MCP to the agentkit-browser-mcp binary");

const textOf = (r) => r.content.filter((c) => c.type === "text").map((c) => c.text).join("\n");

let site;
let tmp;
const url = (p) => `http://127.0.0.1:${site.address().port}${p}`;
const esc = (s) => String(s).replace(/[<&"]/g, (c) => ({ "<": "&lt;", "&": "&amp;", '"': "&quot;" })[c]);
before(async () => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), "agentkit-pw-options-"));
  fs.writeFileSync(path.join(tmp, "not-json-state.json"), "{not json");
  site = http.createServer((req, res) => {
    if (req.url === "/report.csv") {  // an attachment: a navigation to it downloads it
      res.writeHead(200, { "content-type": "text/csv", "content-disposition": "attachment; filename=report.csv" });
      res.end("a,b\n1,2\n");
      return;
    }
    if (req.url === "/notes") {
      res.writeHead(200, { "content-type": "text/plain" });
      res.end("some notes");
      return;
    }
    res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
    if (req.url === "/keys") {  // a field that acts on each key, as live searches do
      res.end(`<!doctype html><title>Keys</title><label>Search <input id=q
        onkeydown="console.log('down ' + event.key + ' after [' + this.value + ']')"
        onkeyup="document.getElementById('n').textContent = 'keyups: ' + (++window.ups)"></label><p id=n>keyups: 0</p>
        <script>window.ups = 0;</script>`);
      return;
    }
    if (req.url === "/log1" || req.url === "/log2") {
      const name = req.url.slice(1);
      res.end(`<!doctype html><title>${name}</title><button onclick="history.pushState({}, '', '#later'); console.log('${name} after pushState')">Later</button>
        <script>console.log("${name} loaded")</script>`);
      return;
    }
    if (req.url === "/downloads") {
      res.end(`<!doctype html><title>Downloads</title><a href="/notes" download="notes.txt">Get notes</a>`);
      return;
    }
    if (req.url === "/upload") {
      res.end(`<!doctype html><title>Upload</title><input type=file id=f style="display:none">
        <button onclick="document.getElementById('f').click()">Attach</button><button>Other</button><p id=out>none</p>
        <script>f.onchange = () => { out.textContent = "chosen: " + ([...f.files].map((x) => x.name).join(",") || "none"); };</script>`);
      return;
    }
    if (req.url === "/next") {
      res.end(`<!doctype html><title>Next page</title><h1>Arrived</h1><button>Stay</button>`);
      return;
    }
    // the User-Agent the request carried, and the one the page's script sees; console lines
    res.end(`<!doctype html><title>Options</title>
      <p>header: ${esc(req.headers["user-agent"])}</p><p id=s></p>
      <a href="/next">Onwards</a>
      <script>
        document.getElementById("s").textContent = "script: " + navigator.userAgent;
        console.info("an info line"); console.error("an error line");
      </script>`);
  });
  await new Promise((r) => site.listen(0, "127.0.0.1", r));
});
after(() => {
  site?.close();
  fs.rmSync(tmp, { recursive: true, force: true });
});

/// A client on the server started with `args` (no --headless/--quiet added: the options are the
/// test's); stderr is collected. With `roots`, the client declares roots and lists them.
async function connect(args, roots) {
  const transport = new StdioClientTransport({ command: server, args, stderr: "pipe" });
  let stderr = "";
  transport.stderr.on("data", (d) => (stderr += d));
  const client = new Client({ name: "agentkit-pw-options-test", version: "1.0.0" }, roots ? { capabilities: { roots: {} } } : {});
  if (roots) client.setRequestHandler(ListRootsRequestSchema, async () => ({ roots }));
  await client.connect(transport);
  return { client, stderr: () => stderr };
}

const call = async (client, name, args = {}) => {
  const r = await client.callTool({ name, arguments: args });
  assert.equal(r.isError, false, `${name}: ${textOf(r)}`);
  return textOf(r);
};

test("Playwright MCP's command line works as it is: the user agent, the console level and no-op options take effect or are noted", async () => {
  const ua = "agentkit-options-test/1.0 (Playwright flags)";
  const { client, stderr } = await connect([
    "--headless", "--isolated", "--no-sandbox", "--browser", "chromium", "--user-agent", ua,
    "--timeout-navigation", "60000", "--timeout-action=5000", "--viewport-size", "800x600",
    "--image-responses", "omit", "--console-level", "error", "--codegen", "none", "--caps", "devtools,vision",
    "--no-webmcp", "--idle-timeout", "0", "--snapshot-mode", "full",
  ]);
  try {
    const nav = await call(client, "browser_navigate", { url: url("/") });
    assert.ok(nav.includes(`header: ${ua}`), nav);   // the request's header
    assert.ok(nav.includes(`script: ${ua}`), nav);   // navigator.userAgent
    assert.match(nav, /link "Onwards"/);             // --snapshot-mode full: the page in the result
    const consoleText = await call(client, "browser_console_messages");
    assert.match(consoleText, /an error line/);
    assert.doesNotMatch(consoleText, /an info line/);  // --console-level error: the default level
    const all = await call(client, "browser_console_messages", { level: "info" });
    assert.match(all, /an info line/);                 // a level named in the call still wins
    const shot = await client.callTool({ name: "browser_take_screenshot", arguments: {} });
    assert.equal(shot.content.some((c) => c.type === "image"), false);  // --image-responses omit
    // --caps vision: Playwright MCP's coordinate tools are listed, with its argument names
    const { tools } = await client.listTools();
    const click = tools.find((t) => t.name === "browser_mouse_click_xy");
    assert.ok(click, "browser_mouse_click_xy is listed");
    assert.deepEqual(Object.keys(click.inputSchema.properties).sort(), ["button", "clickCount", "delay", "x", "y"]);
    for (const name of ["browser_mouse_move_xy", "browser_mouse_drag_xy", "browser_mouse_down", "browser_mouse_up", "browser_mouse_wheel"])
      assert.ok(tools.some((t) => t.name === name), name);
    const clicked = await call(client, "browser_mouse_click_xy", { x: 5, y: 5 });
    assert.match(clicked, /hit: /);
  } finally {
    await client.close();
  }
  assert.match(stderr(), /--codegen shows code only with --output-mode playwright/);
  assert.doesNotMatch(stderr(), /vision tools are not offered/);
});

test("--storage-state starts the browser with a file's cookies and localStorage; --caps storage,network offer their tools", async () => {
  const origin = url("");
  const state = path.join(tmp, "state.json");
  fs.writeFileSync(state, JSON.stringify({
    cookies: [{ name: "sid", value: "from-file", domain: "127.0.0.1", path: "/" },
              { name: "tracker", value: "x", domain: "ads.example", path: "/" }],
    origins: [{ origin, localStorage: [{ name: "basket", value: "mug" }] }],
  }));
  const { client, stderr } = await connect(["--headless", "--quiet", "--no-sandbox", "--allowed-origins", origin,
                                            "--storage-state", state, "--caps", "storage,network", "--allow-evaluate"]);
  try {
    const { tools } = await client.listTools();
    for (const name of ["browser_cookie_list", "browser_localstorage_set", "browser_storage_state", "browser_route", "browser_network_state_set"])
      assert.ok(tools.some((t) => t.name === name), name);
    assert.deepEqual(Object.keys(tools.find((t) => t.name === "browser_cookie_set").inputSchema.properties).sort(),
                     ["domain", "expires", "httpOnly", "name", "path", "sameSite", "secure", "value"]);
    const nav = await call(client, "browser_navigate", { url: url("/notes") });
    assert.match(nav, /storage state: left out cookie tracker for ads\.example: allowed_origins/);  // the policy's refusal, said once
    const seen = await call(client, "browser_evaluate", { function: "() => document.cookie + '|' + localStorage.getItem('basket')" });
    assert.match(seen, /sid=from-file\|mug/);
    assert.match(await call(client, "browser_cookie_get", { name: "sid" }), /sid=from-file \(domain: 127\.0\.0\.1, path: \/, httpOnly: false/);
  } finally {
    await client.close();
  }
  assert.doesNotMatch(stderr(), /not offered/);
  // a file that is not there yet: the browser's start says so, and the start after it is written uses it
  const later = path.join(tmp, "later-state.json");
  const waiting = await connect(["--headless", "--quiet", "--no-sandbox", "--storage-state", later, "--allow-evaluate"]);
  try {
    const r = await waiting.client.callTool({ name: "browser_navigate", arguments: { url: url("/notes") } });
    assert.equal(r.isError, true);
    assert.match(textOf(r), /storage state file could not be used: cannot read .*later-state\.json/);
    fs.writeFileSync(later, JSON.stringify({ cookies: [{ name: "late", value: "1", domain: "127.0.0.1", path: "/" }], origins: [] }));
    await call(waiting.client, "browser_navigate", { url: url("/notes") });
    assert.match(await call(waiting.client, "browser_evaluate", { function: "() => document.cookie" }), /late=1/);
  } finally {
    await waiting.client.close();
  }
  assert.match(waiting.stderr(), /later-state\.json does not exist yet/);
  // without the capabilities: not listed, and a call says how to turn them on
  const plain = await connect(["--headless", "--quiet"]);
  try {
    const { tools } = await plain.client.listTools();
    assert.ok(!tools.some((t) => t.name.startsWith("browser_cookie") || t.name === "browser_route"));
    const r = await plain.client.callTool({ name: "browser_cookie_list", arguments: {} });
    assert.match(textOf(r), /--caps storage/);
  } finally {
    await plain.client.close();
  }
});

test("without --caps vision the coordinate tools are not listed, and a call says how to turn them on", async () => {
  const { client } = await connect(["--headless", "--quiet"]);
  try {
    const { tools } = await client.listTools();
    assert.equal(tools.some((t) => t.name.startsWith("browser_mouse_")), false);
    const r = await client.callTool({ name: "browser_mouse_click_xy", arguments: { x: 1, y: 1 } });
    assert.match(textOf(r), /capability\.unsupported: browser_mouse_click_xy is not offered here .*--caps vision/);
  } finally {
    await client.close();
  }
});

test("--caps testing lists the assertion tools, and without it a call says how to turn them on", async () => {
  const testing = ["browser_verify_element_visible", "browser_verify_text_visible", "browser_verify_list_visible",
    "browser_verify_value", "browser_generate_locator"];
  const { client } = await connect(["--headless", "--quiet"]);
  try {
    const { tools } = await client.listTools();
    assert.equal(tools.some((t) => testing.includes(t.name)), false);
    assert.ok(tools.some((t) => t.name === "browser_find"), "browser_find is a core tool");
    const r = await client.callTool({ name: "browser_verify_text_visible", arguments: { text: "Onwards" } });
    assert.match(textOf(r), /capability\.unsupported: browser_verify_text_visible is not offered here .*--caps testing/);
  } finally {
    await client.close();
  }
  const on = await connect(["--headless", "--quiet", "--caps", "testing"]);
  try {
    const { tools } = await on.client.listTools();
    for (const name of testing) assert.ok(tools.some((t) => t.name === name), name);
    assert.equal(tools.some((t) => t.name.startsWith("browser_mouse_")), false);  // vision stays off
    await call(on.client, "browser_navigate", { url: url("/") });
    assert.match(await call(on.client, "browser_verify_text_visible", { text: "onwards" }), /verified: /);
    const missing = await on.client.callTool({ name: "browser_verify_text_visible", arguments: { text: "no such words" } });
    assert.equal(missing.isError, true);
    assert.match(textOf(missing), /Text not found/);
  } finally {
    await on.client.close();
  }
});

// The same rule under the menu and the router: without --caps vision there is no vision mode
// and tool_search finds no coordinate tool; a call (or entering the mode) says how to turn them
// on. With --caps vision both reach them.
const notOffered = (tool) => new RegExp(`capability\\.unsupported\\]?: ${tool} is not offered here[\\s\\S]*--caps vision`);
test("--tools menu: the vision mode only with --caps vision", async () => {
  const { client } = await connect(["--headless", "--quiet", "--tools", "menu"]);
  try {
    const list = await call(client, "menu_list");
    assert.match(list, /- browser/);
    assert.doesNotMatch(list, /vision|browser_mouse_/);
    const enter = await client.callTool({ name: "menu_enter", arguments: { mode: "vision" } });
    assert.equal(enter.isError, true);
    assert.match(textOf(enter), /capability\.unsupported\]?: mode "vision" is not offered here[\s\S]*--caps vision[\s\S]*menu_enter with one of: browser/);
    const r = await client.callTool({ name: "browser_mouse_click_xy", arguments: { x: 1, y: 1 } });
    assert.match(textOf(r), notOffered("browser_mouse_click_xy"));
    await call(client, "menu_enter", { mode: "devtools" });  // the session goes on
  } finally {
    await client.close();
  }
  const on = await connect(["--headless", "--quiet", "--tools", "menu", "--caps", "vision"]);
  try {
    assert.match(await call(on.client, "menu_list"), /- vision[^\n]*browser_mouse_click_xy/);
    await call(on.client, "menu_enter", { mode: "vision" });
    const { tools } = await on.client.listTools();
    assert.ok(tools.some((t) => t.name === "browser_mouse_click_xy"), tools.map((t) => t.name).join(", "));
  } finally {
    await on.client.close();
  }
});

test("--tools router: tool_search finds coordinate tools only with --caps vision", async () => {
  const query = { query: "click the mouse at x y pixel coordinates of the screenshot", k: 10 };
  const { client } = await connect(["--headless", "--quiet", "--tools", "router"]);
  try {
    const found = await call(client, "tool_search", query);
    assert.doesNotMatch(found, /browser_mouse_/);
    const r = await client.callTool({ name: "browser_mouse_click_xy", arguments: { x: 1, y: 1 } });
    assert.match(textOf(r), notOffered("browser_mouse_click_xy"));
  } finally {
    await client.close();
  }
  const on = await connect(["--headless", "--quiet", "--tools", "router", "--caps", "vision"]);
  try {
    assert.match(await call(on.client, "tool_search", query), /browser_mouse_click_xy/);
  } finally {
    await on.client.close();
  }
});

test("--snapshot-mode none: a navigation's result names the page, browser_snapshot shows it", async () => {
  const { client } = await connect(["--headless", "--quiet", "--snapshot-mode", "none"]);
  try {
    const nav = await call(client, "browser_navigate", { url: url("/") });
    assert.match(nav, /title: Options/);
    assert.doesNotMatch(nav, /\[ref=|no visible change/);
    const snap = await call(client, "browser_snapshot");
    const ref = snap.match(/link "Onwards".*\[ref=([a-z]\d+)\]/)?.[1];
    assert.ok(ref, snap);
    const click = await call(client, "browser_click", { target: ref, element: "Onwards" });
    assert.match(click, /^<<page-data [a-z]{6}>>\nnavigated to \/next\n/);  // where the page led: inside the marks
    assert.match(click, /title: Next page/);
    assert.doesNotMatch(click, /Arrived|\[ref=|no visible change/);
  } finally {
    await client.close();
  }
});

test("a Playwright MCP configuration file: its keys take effect", async () => {
  const ua = "agentkit-config-test/2.0";
  const config = path.join(tmp, "config.json");
  fs.writeFileSync(config, JSON.stringify({
    browser: {
      browserName: "chromium",
      isolated: true,
      launchOptions: { headless: true, chromiumSandbox: false },
      contextOptions: { viewport: { width: 900, height: 700 }, userAgent: ua },
    },
    timeouts: { navigation: 60000, action: 5000 },
    snapshot: { mode: "none" },
    console: { level: "error" },
    codegen: "none",
    webmcp: false,
  }));
  const { client } = await connect(["--quiet", "--config", config]);
  try {
    const nav = await call(client, "browser_navigate", { url: url("/") });
    assert.doesNotMatch(nav, /\[ref=/);  // snapshot.mode none
    const snap = await call(client, "browser_snapshot");
    assert.ok(snap.includes(`header: ${ua}`) && snap.includes(`script: ${ua}`), snap);
    assert.doesNotMatch(await call(client, "browser_console_messages"), /an info line/);
  } finally {
    await client.close();
  }
});

test("what cannot be honoured refuses the start, naming the option and why; stdout stays empty", () => {
  const refused = [
    [["--extension"], /--extension \(the Playwright browser extension is not supported/],
    [["--cdp-endpoint", "http://127.0.0.1:9", "--proxy-server", "http://proxy:3128"], /--proxy-server with a browser this server does not launch/],
    [["--save-trace"], /--save-trace \(a trace of the whole session is not supported/],
    [["--browser", "webkit"], /--browser webkit \(agentkit drives Chromium-family browsers/],
    [["--idle-timeout", "60000"], /--idle-timeout 60000/],
    [["--cdp-endpoint", "http://127.0.0.1:9", "--ignore-https-errors"], /--ignore-https-errors with --cdp-endpoint/],
  ];
  for (const [args, why] of refused) {
    const r = spawnSync(server, args, { encoding: "utf8", input: "" });
    assert.equal(r.status, 2, `${args}: ${r.stderr}`);
    assert.equal(r.stdout, "", `${args}`);
    assert.match(r.stderr, why);
    assert.match(r.stderr, /Refusing to start rather than ignore/);
  }
  // bad values are named with what the option takes
  const bad = [
    [["--snapshot-mode", "sometimes"], /--snapshot-mode takes full, incremental or none, not "sometimes"/],
    [["--console-level", "loud"], /--console-level takes error, warning, info or debug/],
    [["--timeout-action", "soon"], /--timeout-action takes a positive number of milliseconds/],
    [["--browser", "netscape"], /--browser takes chromium, chrome/],
    [["--no-sandbox=yes"], /--no-sandbox takes no value/],
    [["--max-artifacts", "-1"], /--max-artifacts takes a whole number, not "-1"/],
    [["--max-downloads", "5x"], /--max-downloads takes a whole number, not "5x"/],
    [["--port", "70000"], /--port takes a port number from 0 to 65535, not "70000"/],
    [["--storage-state", path.join(tmp, "not-json-state.json")], /--storage-state: .*not-json-state\.json is not JSON/],
    [["--port", "8931", "--max-sessions", "0"], /--max-sessions takes a whole number of at least 1, not "0"/],
  ];
  for (const [args, why] of bad) {
    const r = spawnSync(server, args, { encoding: "utf8", input: "" });
    assert.equal(r.status, 2, `${args}: ${r.stderr}`);
    assert.equal(r.stdout, "");
    assert.match(r.stderr, why);
  }
  // a channel that is not installed is said before the start, with the path looked at
  if (!fs.existsSync("/opt/microsoft/msedge-canary/msedge")) {
    const edge = spawnSync(server, ["--browser", "msedge-canary"], { encoding: "utf8", input: "" });
    assert.equal(edge.status, 2);
    assert.match(edge.stderr, /--browser msedge-canary: no browser at \/opt\/microsoft\/msedge-canary\/msedge/);
  }
  // contradictions and a second policy file (whose defaults would undo the first's bounds)
  const both = spawnSync(server, ["--sandbox", "--no-sandbox"], { encoding: "utf8", input: "" });
  assert.equal(both.status, 2);
  assert.match(both.stderr, /--sandbox and --no-sandbox .* contradict/);
  const policy = path.join(tmp, "empty-policy.json");
  fs.writeFileSync(policy, "{}");
  const twice = spawnSync(server, ["--policy", policy, "--policy", policy], { encoding: "utf8", input: "" });
  assert.equal(twice.status, 2);
  assert.match(twice.stderr, /--policy is given twice/);
  // an older Playwright MCP mode name is accepted
  const incremental = spawnSync(server, ["--snapshot-mode", "incremental", "--help"], { encoding: "utf8", input: "" });
  assert.equal(incremental.status, 0, incremental.stderr);
});

test("a configuration file's keys that cannot be honoured, or are unknown, refuse the start by their names", () => {
  const cases = [
    [{ browser: { launchOptions: { slowMo: 100 } } }, /config key browser\.launchOptions\.slowMo/],
    [{ browser: { contextOptions: { storageState: path.join(tmp, "not-json-state.json") } } }, /--storage-state: .*not-json-state\.json is not JSON/],
    [{ browser: { contextOptions: { storageState: { cookies: [{ name: "a" }] } } } }, /browser\.contextOptions\.storageState: cookie 1 has no "value"/],
    [{ server: { port: 8931, tls: true } }, /config key server\.tls/],
    [{ browser: { initScript: ["a.js"] } }, /--init-script: cannot read .*a\.js/],
    [{ extension: true }, /config extension/],
    [{ somethingNew: 1 }, /config key somethingNew/],
  ];
  for (const [cfg, why] of cases) {
    const file = path.join(tmp, "refused.json");
    fs.writeFileSync(file, JSON.stringify(cfg));
    const r = spawnSync(server, ["--config", file], { encoding: "utf8", input: "" });
    assert.equal(r.status, 2, `${JSON.stringify(cfg)}: ${r.stderr}`);
    assert.equal(r.stdout, "");
    assert.match(r.stderr, why);
  }
  const file = path.join(tmp, "typed.json");
  fs.writeFileSync(file, JSON.stringify({ timeouts: { navigation: "soon" } }));
  const typed = spawnSync(server, ["--config", file], { encoding: "utf8", input: "" });
  assert.equal(typed.status, 2);
  assert.match(typed.stderr, /--timeout-navigation takes a positive number of milliseconds, not "soon"/);
  // wrong types: a switch is on only for true; an unreadable origin list is not "no list"
  for (const [cfg, why] of [
    [{ codegen: true }, /codegen must be a string, a number or a list of strings/],
    [{ browser: { contextOptions: { ignoreHTTPSErrors: "false" } } }, /ignoreHTTPSErrors must be true or false/],
    [{ allowUnrestrictedFileAccess: 1 }, /allowUnrestrictedFileAccess must be true or false/],
    [{ network: { allowedOrigins: [123] } }, /network\.allowedOrigins must be a list of origins/],
    [{ network: { allowedOrigins: 5 } }, /network\.allowedOrigins must be a list of origins/],
    [{ secrets: { TOKEN: 42 } }, /secrets\.TOKEN must be a string/],
  ]) {
    fs.writeFileSync(file, JSON.stringify(cfg));
    const r = spawnSync(server, ["--config", file], { encoding: "utf8", input: "" });
    assert.equal(r.status, 2, `${JSON.stringify(cfg)}: ${r.stderr}`);
    assert.equal(r.stdout, "");
    assert.match(r.stderr, why);
  }
});

test("--policy joins the options given before it: an origin list set earlier still holds (it used to be dropped)", async () => {
  const other = http.createServer((req, res) => res.end("<!doctype html><title>Other</title><p>other origin</p>"));
  await new Promise((r) => other.listen(0, "127.0.0.1", r));
  let hits = 0;
  other.on("request", () => (hits += 1));
  const policy = path.join(tmp, "policy.json");
  fs.writeFileSync(policy, JSON.stringify({ blockedOrigins: ["http://blocked.invalid"], downloadsDir: path.join(tmp, "dl") }));
  const allowed = `http://127.0.0.1:${site.address().port}`;
  const { client } = await connect(["--headless", "--quiet", "--allowed-origins", allowed, "--policy", policy]);
  try {
    await call(client, "browser_navigate", { url: url("/") });
    const off = await client.callTool({ name: "browser_navigate", arguments: { url: `http://127.0.0.1:${other.address().port}/` } });
    assert.equal(off.isError, true, textOf(off));
    assert.match(textOf(off), /allowed_origins/);
    assert.equal(hits, 0, "the request never left the browser");
  } finally {
    await client.close();
    other.close();
  }
  // a directory named by an option and by the file must agree
  const clash = spawnSync(server, ["--downloads-dir", path.join(tmp, "elsewhere"), "--policy", policy], { encoding: "utf8", input: "" });
  assert.equal(clash.status, 2);
  assert.equal(clash.stdout, "");
  assert.match(clash.stderr, /downloadsDir is .*dl but an earlier option set .*elsewhere/);
  const twice = spawnSync(server, ["--policy", policy, "--downloads-dir", path.join(tmp, "elsewhere")], { encoding: "utf8", input: "" });
  assert.equal(twice.status, 2);
  assert.match(twice.stderr, /--downloads-dir .*elsewhere: it is already .*dl/);
});

test("--output-mode playwright --allow-uploads: a file chooser is a modal state, answered from the client's roots", async () => {
  const root = fs.mkdtempSync(path.join(tmp, "root-"));
  const inside = path.join(root, "inside.txt");
  const outside = path.join(tmp, "outside.txt");
  fs.writeFileSync(inside, "inside");
  fs.writeFileSync(outside, "outside");
  const { client } = await connect(["--headless", "--quiet", "--output-mode", "playwright", "--allow-uploads", "--output-dir", tmp],
    [{ name: "workspace", uri: `file://${root}` }]);
  // Playwright's layout leaves isError out when it is false
  const ok = async (name, args = {}) => {
    const r = await client.callTool({ name, arguments: args });
    assert.notEqual(r.isError, true, `${name}: ${textOf(r)}`);
    return textOf(r);
  };
  try {
    await ok("browser_navigate", { url: url("/upload") });
    const nav = await ok("browser_snapshot");
    const ref = (name) => nav.match(new RegExp(`button "${name}" \\[ref=(e\\d+)\\]`))?.[1];
    assert.ok(ref("Attach") && ref("Other"), nav);
    // nothing to answer yet
    const early = await client.callTool({ name: "browser_file_upload", arguments: { paths: [inside] } });
    assert.equal(early.isError, true);
    assert.match(textOf(early), /can only be used when there is related modal state present/);
    // the click opens the chooser: the modal state, and other page tools refused until it is answered
    const click = await ok("browser_click", { element: "Attach", ref: ref("Attach") });
    assert.match(click, /### Modal state\n- \[File chooser\]: can be handled by browser_file_upload/, click);
    const other = await client.callTool({ name: "browser_click", arguments: { element: "Other", ref: ref("Other") } });
    assert.equal(other.isError, true);
    assert.match(textOf(other), /Error: Tool "browser_click" does not handle the modal state\./);
    assert.match(textOf(other), /- \[File chooser\]/);
    // a file outside the client's roots is refused in Playwright's words; the chooser stays open
    const refused = await client.callTool({ name: "browser_file_upload", arguments: { paths: [outside] } });
    assert.equal(refused.isError, true);
    assert.match(textOf(refused), new RegExp(`File access denied: .*outside\\.txt is outside allowed roots\\. Allowed roots: ${root}`));
    const up = await ok("browser_file_upload", { paths: [inside] });
    assert.match(up, /await fileChooser\.setFiles\(\['.*inside\.txt'\]\);/, up);
    assert.doesNotMatch(up, /### Modal state/);
    const snap = await ok("browser_snapshot");
    assert.match(snap, /chosen: inside\.txt/, snap);
  } finally {
    await client.close();
  }
});

test("--allow-downloads: a download's start and end are events, the file in the output directory; without it, refused", async () => {
  const out = fs.mkdtempSync(path.join(tmp, "out-"));
  const { client } = await connect(["--headless", "--quiet", "--output-mode", "playwright", "--allow-downloads", "--output-dir", out]);
  const ok = async (name, args = {}) => {
    const r = await client.callTool({ name, arguments: args });
    assert.notEqual(r.isError, true, `${name}: ${textOf(r)}`);
    return textOf(r);
  };
  try {
    await ok("browser_navigate", { url: url("/downloads") });
    const ref = (await ok("browser_snapshot")).match(/link "Get notes" \[ref=(e\d+)\]/)?.[1];
    assert.ok(ref);
    // the events of one result and the next ones, until the download has ended
    let events = await ok("browser_click", { element: "Get notes", ref });
    for (let i = 0; i < 50 && !/Downloaded file notes\.txt/.test(events); ++i) events += "\n" + (await ok("browser_snapshot"));
    const saved = path.join(out, "notes.txt");
    assert.match(events, new RegExp(`- Downloading file notes\\.txt \\.\\.\\.\\n- Downloaded file notes\\.txt to "[^"]*notes\\.txt"`), events);
    assert.equal(fs.readFileSync(saved, "utf8"), "some notes");
    // each is said once
    assert.doesNotMatch(await ok("browser_snapshot"), /Download(ing|ed) file/);
    // a URL that answers with an attachment: not a failed navigation, the page stays
    let nav = await ok("browser_navigate", { url: url("/report.csv") });
    for (let i = 0; i < 50 && !/Downloaded file report\.csv/.test(nav); ++i) nav += "\n" + (await ok("browser_snapshot"));
    assert.match(nav, /- Downloaded file report\.csv to/, nav);
    assert.equal(fs.readFileSync(path.join(out, "report.csv"), "utf8"), "a,b\n1,2\n");
    assert.match(await ok("browser_snapshot"), /Page URL: .*\/downloads/);
  } finally {
    await client.close();
  }
  // downloads are off unless enabled: the result says it was refused, and nothing is written
  const off = await connect(["--headless", "--quiet", "--output-mode", "playwright", "--output-dir", out]);
  try {
    const r = await off.client.callTool({ name: "browser_navigate", arguments: { url: url("/report.csv") } });
    let text = textOf(r);
    for (let i = 0; i < 20 && !/Download of report\.csv/.test(text); ++i)
      text += "\n" + textOf(await off.client.callTool({ name: "browser_snapshot", arguments: {} }));
    assert.match(text, /- Download of report\.csv refused \(policy downloads: no downloads directory is configured\)/, text);
    assert.doesNotMatch(text, /Downloading file/);
  } finally {
    await off.client.close();
  }
});

test("browser_type slowly presses a key per character, in both layouts; the default inserts the text at once", async () => {
  for (const layout of ["playwright", "agentkit"]) {
    const { client } = await connect(["--headless", "--quiet", "--output-mode", layout, "--output-dir", tmp]);
    const run = async (name, args = {}) => {
      const r = await client.callTool({ name, arguments: args });
      assert.notEqual(r.isError, true, `${layout} ${name}: ${textOf(r)}`);
      return textOf(r);
    };
    try {
      await run("browser_navigate", { url: url("/keys") });
      const snap = await run("browser_snapshot");
      const ref = snap.match(/textbox "Search"[^\n]*\[ref=(e\d+)\]/)?.[1];
      assert.ok(ref, snap);
      const typed = await run("browser_type", { element: "Search", ref, text: "Hé!", slowly: true });
      if (layout === "playwright") assert.match(typed, /await page\.getByRole\('textbox', \{ name: 'Search' \}\)\.pressSequentially\('Hé!'\);/, typed);
      const log = await run("browser_console_messages", layout === "playwright" ? {} : { recent: 20 });
      for (const line of ["down H after []", "down é after [H]", "down ! after [Hé]"]) assert.ok(log.includes(line), `${layout}: ${line} in\n${log}`);
      assert.match(await run("browser_snapshot"), /keyups: 3/);
      // without slowly the text arrives at once: no key events
      await run("browser_type", { element: "Search", ref, text: "abc" });
      assert.match(await run("browser_snapshot"), /keyups: 3/);
    } finally {
      await client.close();
    }
  }
});

test("Playwright's layout: browser_console_messages lists the current page's messages, all: true every page's", async () => {
  const { client } = await connect(["--headless", "--quiet", "--output-mode", "playwright", "--output-dir", tmp]);
  const run = async (name, args = {}) => {
    const r = await client.callTool({ name, arguments: args });
    assert.notEqual(r.isError, true, `${name}: ${textOf(r)}`);
    return textOf(r);
  };
  try {
    await run("browser_navigate", { url: url("/log1") });
    await run("browser_navigate", { url: url("/log2") });
    // a same-document navigation keeps the page: its messages stay listed
    // (a second document's refs carry a frame number, as Playwright's do: f1e2)
    const ref = (await run("browser_snapshot")).match(/button "Later" \[ref=((?:f\d+)?e\d+)\]/)?.[1];
    assert.ok(ref);
    await run("browser_click", { element: "Later", ref });
    const current = await run("browser_console_messages");
    assert.match(current, /log2 loaded/);
    assert.match(current, /log2 after pushState/);
    assert.doesNotMatch(current, /log1/);
    const all = await run("browser_console_messages", { all: true });
    assert.match(all, /log1 loaded[\s\S]*log2 loaded[\s\S]*log2 after pushState/);
  } finally {
    await client.close();
  }
});

test("Playwright's layout: browser_evaluate's code shows a function as given and an expression as () => (expression)", async () => {
  const { client } = await connect(["--headless", "--quiet", "--output-mode", "playwright", "--allow-evaluate", "--output-dir", tmp]);
  try {
    await client.callTool({ name: "browser_navigate", arguments: { url: url("/log1") } });
    const cases = [
      ["[1,2,3].map(x => x*2)", "() => ([1,2,3].map(x => x*2))", /2,\s*4,\s*6/],
      ["document.title", "() => (document.title)", /"log1"/],
      ["() => document.title", "() => document.title", /"log1"/],
      ["async () => 6 * 7", "async () => 6 * 7", /42/],
      ["function () { return [1].length; }", "function () { return [1].length; }", /1/],
      ["(({a}) => a)({a: 5})", "() => ((({a}) => a)({a: 5}))", /5/],
    ];
    for (const [fn, code, result] of cases) {
      const text = textOf(await client.callTool({ name: "browser_evaluate", arguments: { function: fn } }));
      assert.ok(text.includes(`await page.evaluate('${code.replace(/'/g, "\\'")}');`), `${fn}:\n${text}`);
      assert.match(text, result, text);
    }
  } finally {
    await client.close();
  }
});

test("Playwright's layout: its words for refused arguments and capabilities that are off; a secret by its name; PW_LANG_NAME", async () => {
  const secrets = path.join(tmp, "secrets.env");
  fs.writeFileSync(secrets, "X-PASSWORD=hunter2-long\n");
  const transport = new StdioClientTransport({
    command: server,
    args: ["--headless", "--quiet", "--output-mode", "playwright", "--secrets", secrets, "--output-dir", tmp],
    env: { ...process.env, PW_LANG_NAME: "python" },
    stderr: "pipe",
  });
  const client = new Client({ name: "agentkit-pw-words", version: "1.0.0" });
  await client.connect(transport);
  try {
    const missing = await client.callTool({ name: "browser_navigate", arguments: {} });
    assert.equal(missing.isError, true);
    assert.match(textOf(missing), /### Error\nInvalid arguments for tool "browser_navigate":\n  Invalid input: expected string, received undefined at url/);
    const wrong = await client.callTool({ name: "browser_navigate", arguments: { url: 5 } });
    assert.match(textOf(wrong), /Invalid input: expected string, received number at url/);
    const off = await client.callTool({ name: "browser_cookie_list", arguments: {} });
    assert.equal(off.isError, true);
    assert.match(textOf(off), /^### Error\nTool "browser_cookie_list" not found\n### Result\n.*--caps storage/);
    const nav = textOf(await client.callTool({ name: "browser_navigate", arguments: { url: url("/keys") } }));
    assert.match(nav, /page\.goto\("http:\/\/127\.0\.0\.1:\d+\/keys"\)/);  // PW_LANG_NAME=python
    // the name of a secret stands for it: typed as its value, shown and coded by name
    const snap = textOf(await client.callTool({ name: "browser_snapshot", arguments: {} }));
    const field = snap.match(/textbox "Search"[^\n]*\[ref=(\w+)\]/)?.[1];
    assert.ok(field, snap);
    const typed = textOf(await client.callTool({ name: "browser_type", arguments: { target: field, text: "X-PASSWORD" } }));
    assert.match(typed, /\.fill\(os\.environ\["X-PASSWORD"\]\)/);
    assert.doesNotMatch(typed, /hunter2/);
    // page-level keys stay JavaScript whatever the language
    assert.match(textOf(await client.callTool({ name: "browser_press_key", arguments: { key: "Escape" } })), /await page\.keyboard\.press\('Escape'\);/);
    const logged = textOf(await client.callTool({ name: "browser_console_messages", arguments: {} }));
    assert.match(logged, /down Escape after \[<secret>X-PASSWORD<\/secret>\]/);  // the page's own log of the value, redacted
    assert.doesNotMatch(logged, /hunter2/);
  } finally {
    await client.close();
  }
});

test("--init-script runs before the page's own scripts in every page; --device emulates the device", async () => {
  const script = path.join(tmp, "init.js");
  fs.writeFileSync(script, "window.__initRan = (window.__initRan || 0) + 1; console.log('init script ran');");
  const { client } = await connect(["--headless", "--quiet", "--no-sandbox", "--allow-evaluate", "--init-script", script, "--device", "iPhone 15"]);
  try {
    await call(client, "browser_navigate", { url: url("/keys") });
    const seen = await call(client, "browser_evaluate", { function: "() => [window.__initRan, screen.width, navigator.userAgent.includes('iPhone'), matchMedia('(pointer: coarse)').matches].join(',')" });
    assert.match(seen, /1,393,true,true/);
    assert.match(await call(client, "browser_console_messages", { level: "info" }), /init script ran/);
    await call(client, "browser_navigate", { url: url("/notes") });  // a new document runs it again
    assert.match(await call(client, "browser_evaluate", { function: "() => window.__initRan" }), /1/);
  } finally {
    await client.close();
  }
});
