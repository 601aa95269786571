// agentkit-browser-mcp driven by the MCP Inspector's CLI mode (npm @modelcontextprotocol/inspector):
//
//   npx @modelcontextprotocol/inspector --cli --method tools/list -- <server> --headless
//
//   AGENTKIT_BROWSER_MCP=build/bin/agentkit-browser-mcp node --test tests/mcp_client/inspector.test.mjs
//
// npx runs the copy installed in this folder (--no-install: nothing is fetched). The catalog the
// inspector may write goes to a temporary directory (MCP_CATALOG_PATH), not to $HOME.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import http from "node:http";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { execFile } from "node:child_process";

const server = process.env.AGENTKIT_BROWSER_MCP;
assert.ok(server, "set AGENTKIT_BROWSER_MCP to the agentkit-browser-mcp binary");

let site;
let tmp;
before(async () => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), "agentkit-inspector-"));
  site = http.createServer((req, res) => {
    res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
    res.end(`<!doctype html><title>Inspected</title><h1>Hello from the inspector test</h1><button>Go</button>`);
  });
  await new Promise((r) => site.listen(0, "127.0.0.1", r));
});
after(() => {
  site?.close();
  if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
});

/// Run the inspector CLI; resolves with its parsed JSON output (stdout).
function inspector(args, serverArgs = []) {
  const argv = ["--no-install", "@modelcontextprotocol/inspector", "--cli", ...args, "--", server, "--headless", "--quiet", ...serverArgs];
  return new Promise((resolve, reject) => {
    execFile("npx", argv, {
      cwd: import.meta.dirname,
      env: { ...process.env, MCP_CATALOG_PATH: path.join(tmp, "mcp.json"), npm_config_update_notifier: "false" },
      timeout: 120000,
      maxBuffer: 16 << 20,
    }, (err, stdout, stderr) => {
      if (err) reject(new Error(`inspector ${args.join(" ")} failed (${err.code}): ${stderr}\n${stdout}`));
      else {
        try {
          resolve(JSON.parse(stdout));
        } catch (e) {
          reject(new Error(`inspector output is not JSON (${e.message}): ${stdout.slice(0, 500)}`));
        }
      }
    });
  });
}

test("inspector --cli --method tools/list lists the browser tools with schemas and annotations", async () => {
  const { tools } = await inspector(["--method", "tools/list"]);
  const names = tools.map((t) => t.name);
  for (const n of ["browser_navigate", "browser_snapshot", "browser_click", "browser_type", "browser_fill_form",
                   "browser_select_option", "browser_press_key", "browser_wait_for", "browser_take_screenshot",
                   "browser_tabs", "browser_close", "browser_interact"])
    assert.ok(names.includes(n), `missing ${n}`);
  const nav = tools.find((t) => t.name === "browser_navigate");
  assert.equal(nav.inputSchema.type, "object");
  assert.deepEqual(nav.inputSchema.required, ["url"]);
  assert.equal(tools.find((t) => t.name === "browser_snapshot").annotations.readOnlyHint, true);
});

test("inspector --cli --method tools/call runs browser_navigate on a local page", async () => {
  const url = `http://127.0.0.1:${site.address().port}/`;
  const r = await inspector(["--method", "tools/call", "--tool-name", "browser_navigate", "--tool-arg", `url=${url}`]);
  assert.equal(r.isError, false, JSON.stringify(r));
  const text = r.content.filter((c) => c.type === "text").map((c) => c.text).join("\n");
  // where it was asked to go, with a success: no header line, the page itself (in its marks) first
  assert.match(text, /^<<page-data \w+>>\ntitle: Inspected\n/);
  assert.doesNotMatch(text, /HTTP 200/);
  assert.match(text, /title: Inspected/);
  assert.match(text, /heading "Hello from the inspector test"|h1 "Hello from the inspector test"/);
  assert.match(text, /button "Go" \[ref=[a-z]\d+\]/);
});

// (The inspector's tools/call looks the tool up in tools/list first and refuses an unlisted one
// itself — "tool_not_found" — so a deferred tool cannot be called through it; the official-client
// tests cover the capability.unsupported envelope.)
test("inspector --cli with --tools menu: the meta-tools are listed and menu_enter is called", async () => {
  const { tools } = await inspector(["--method", "tools/list"], ["--tools", "menu"]);
  assert.deepEqual(tools.map((t) => t.name), ["menu_list", "menu_enter", "menu_exit", "think"]);  // complete, message_user: a session's own
  const r = await inspector(["--method", "tools/call", "--tool-name", "menu_enter", "--tool-arg", "mode=browser"],
                            ["--tools", "menu"]);
  assert.equal(r.isError, false, JSON.stringify(r));
  assert.equal(r.structuredContent.mode, "browser");
  assert.ok(r.structuredContent.tools.includes("browser_navigate"), JSON.stringify(r.structuredContent));
});
