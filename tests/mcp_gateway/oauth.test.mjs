// agentkit-mcp-gateway signing in to an HTTP server that asks for OAuth 2.1 (issue 25): the
// server is oauth_front.mjs (resource + authorization server, dynamic registration, PKCE) in
// front of a second gateway serving agentkit's test server over Streamable HTTP. The test plays
// the person: it reads the sign-in URL from the gateway's stderr and follows it like a browser.
// Checked: the server's tools appear after the sign-in (list_changed), the other servers answer
// meanwhile and a call for it says it waits for a sign-in; tokens, codes and client ids are
// never printed; the token file is 0600 in a 0700 directory; a restart signs in with no person
// (the stored tokens, no new registration); a revoked access token is refreshed without a
// person; a declined sign-in is reported and the next attempt can succeed; a gateway stopped
// while it waits for a sign-in exits; a machine client (client_credentials) needs no sign-in;
// configuration mistakes are named without echoing secrets.
//
//   AGENTKIT_MCP_GATEWAY=build/bin/agentkit-mcp-gateway AGENTKIT_TEST_MCP_SERVER=build/bin/agentkit_test_mcp_server \
//   node --test tests/mcp_gateway/oauth.test.mjs
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { lineWatch } from "./line_watch.mjs";
import { ToolListChangedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import { oauthFront } from "./oauth_front.mjs";

const gatewayBin = process.env.AGENTKIT_MCP_GATEWAY;
const agentkitServer = process.env.AGENTKIT_TEST_MCP_SERVER;
assert.ok(gatewayBin, "set AGENTKIT_MCP_GATEWAY to the agentkit-mcp-gateway binary");
assert.ok(agentkitServer, "set AGENTKIT_TEST_MCP_SERVER to the agentkit_test_mcp_server binary");
const work = fs.mkdtempSync(path.join(os.tmpdir(), "agentkit-gateway-oauth-"));
const textOf = (r) => r.content.filter((c) => c.type === "text").map((c) => c.text).join("\n");

// The upstream: a gateway serving Streamable HTTP with a bearer token, in front of agentkit's test server.
async function httpUpstream(t) {
  const token = "up-" + Math.random().toString(36).slice(2);
  const file = path.join(work, `upstream-${Date.now()}.json`);
  fs.writeFileSync(file, JSON.stringify({ mcpServers: { agentkit: { command: agentkitServer } } }));
  const child = spawn(gatewayBin, ["--config", file, "--mask", "none", "--port", "0"], {
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...process.env, AGENTKIT_MCP_TOKEN: token },
  });
  t.after(() => child.kill("SIGTERM"));
  const log = lineWatch(child.stderr);
  const url = (await log.until(/serving http:\/\/\S+/)).match(/serving (http:\/\/\S+)/)[1];
  return { url, token };
}

async function frontFor(t) {
  const up = await httpUpstream(t);
  const front = await oauthFront({ upstream: up.url, upstreamHeaders: { Authorization: `Bearer ${up.token}` } });
  t.after(() => front.close());
  return front;
}

// A gateway over stdio: "remote" behind OAuth beside a local server ("local").
async function gateway(front, authDir, { oauth = true, env = {} } = {}) {
  const file = path.join(work, `config-${Date.now()}-${Math.random().toString(36).slice(2)}.json`);
  fs.writeFileSync(file, JSON.stringify({ mcpServers: { remote: { url: front.url, oauth }, local: { command: agentkitServer } } }));
  const transport = new StdioClientTransport({
    command: gatewayBin,
    args: ["--config", file, "--mask", "none", "--start-wait", "3000", "--auth-dir", authDir, "--sign-in-wait", "60000"],
    env: { ...process.env, ...env },
    stderr: "pipe",
  });
  const log = lineWatch(transport.stderr);
  const client = new Client({ name: "gateway-oauth", version: "1.0.0" });
  let changes = 0;
  const changed = [];
  client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
    ++changes;
    for (const w of changed.splice(0)) w();
  });
  await client.connect(transport);
  await log.until(/: local: up/);
  return {
    client,
    log,
    close: () => client.close(),
    // resolves at the next tools/list_changed (or at once when one came since `since`)
    listChanged: (since) => new Promise((resolve) => (changes > since ? resolve() : changed.push(resolve))),
    changes: () => changes,
  };
}

// The person: open the sign-in URL the gateway printed, follow the redirect back to its listener.
async function signIn(log, count = 1) {
  const line = await log.until(/remote: sign-in needed: open this URL in a browser within \d+ s: /, count);
  const url = line.match(/(http:\/\/\S+)$/)[1];
  const approve = await fetch(url, { redirect: "manual" });
  assert.equal(approve.status, 302);
  const back = await fetch(approve.headers.get("location"));
  return { status: back.status, page: await back.text() };
}

function assertNothingIssuedIn(front, texts) {
  for (const secret of front.state.issued)
    for (const t of texts) assert.ok(!t.includes(secret), `an issued token or code was printed: ${t}`);
}

test("signs in once through the printed URL, keeps the tokens private, restarts without a person, refreshes a revoked token", async (t) => {
  const front = await frontFor(t);
  const authDir = path.join(work, "auth-a");
  const g = await gateway(front, authDir);
  const seen = [];
  try {
    // before the sign-in: the local server answers; the remote one says it waits for a person
    assert.equal(textOf(await g.client.callTool({ name: "greet", arguments: { name: "Local" } })), "Hello, Local!");
    await g.log.until(/remote: sign-in needed/);
    const waiting = await g.client.callTool({ name: "remote_greet", arguments: { name: "x" } });
    assert.equal(waiting.isError, true);
    assert.match(textOf(waiting), /remote \(waiting for a person to sign in/);
    seen.push(textOf(waiting));

    const before = g.changes();
    const back = await signIn(g.log);
    assert.equal(back.status, 200);
    assert.match(back.page, /Signed in/);
    await g.log.until(/: remote: up/);
    await g.listChanged(before);
    const names = (await g.client.listTools()).tools.map((x) => x.name).sort();
    assert.ok(names.includes("remote_greet") && names.includes("local_greet"), names.join(","));
    const r = await g.client.callTool({ name: "remote_greet", arguments: { name: "Remote" } });
    assert.equal(textOf(r), "Hello, Remote!");
    seen.push(textOf(r));
    assert.equal(front.state.registrations, 1);
    assert.equal(front.state.authorizations, 1);

    // a stale link: the listener refuses it and nothing changes
    const lines = g.log.lines.filter((l) => /sign-in needed/.test(l));
    const redirect = new URL(new URL(lines[0].match(/(http:\/\/\S+)$/)[1]).searchParams.get("redirect_uri"));
    redirect.searchParams.set("code", "forged");
    redirect.searchParams.set("state", "not-the-state");
    assert.equal((await fetch(redirect)).status, 400);

    // a revoked access token: refreshed with no person, the call goes through
    front.revokeAccess();
    const again = await g.client.callTool({ name: "remote_greet", arguments: { name: "Again" } });
    assert.equal(textOf(again), "Hello, Again!");
    assert.equal(front.state.refreshes, 1);
    assert.equal(front.state.authorizations, 1);
  } finally {
    await g.close();
  }
  seen.push(...g.log.lines);
  assertNothingIssuedIn(front, seen);

  // the token file: the user's alone
  const file = path.join(authDir, "remote.oauth.json");
  assert.equal(fs.statSync(file).mode & 0o777, 0o600);
  assert.equal(fs.statSync(authDir).mode & 0o777, 0o700);
  assert.deepEqual(fs.readdirSync(authDir), ["remote.oauth.json"]);  // no temporary file left

  // a restart: the stored tokens and registration; no sign-in line, no new registration
  const g2 = await gateway(front, authDir);
  try {
    await g2.log.until(/: remote: up/);
    assert.equal(textOf(await g2.client.callTool({ name: "remote_greet", arguments: { name: "Back" } })), "Hello, Back!");
    assert.ok(!g2.log.lines.some((l) => /sign-in needed/.test(l)), g2.log.lines.join("\n"));
    assert.equal(front.state.registrations, 1);
    assert.equal(front.state.authorizations, 1);
    // the stored access token was revoked meanwhile? no: it was refreshed before and is valid
    front.revokeAccess();
    assert.equal(textOf(await g2.client.callTool({ name: "remote_greet", arguments: { name: "Twice" } })), "Hello, Twice!");
    assert.equal(front.state.refreshes, 2);  // with the refresh token stored by the first gateway
  } finally {
    await g2.close();
  }
  assertNothingIssuedIn(front, g2.log.lines);
});

test("a declined sign-in reaches the model with what to do; the next attempt signs in", async (t) => {
  const front = await frontFor(t);
  front.state.deny = true;
  const g = await gateway(front, path.join(work, "auth-b"));
  try {
    const back = await signIn(g.log);
    assert.equal(back.status, 200);
    assert.match(back.page, /not completed/);
    await g.log.until(/remote: .*access_denied/);
    const r = await g.client.callTool({ name: "remote_greet", arguments: { name: "x" } });
    assert.equal(r.isError, true);
    assert.match(textOf(r), /remote \(.*access_denied.*declined/);
    // the gateway tries again with backoff and prints a new URL: approve this time
    front.state.deny = false;
    const before = g.changes();
    assert.equal((await signIn(g.log, 2)).status, 200);
    await g.log.until(/: remote: up/);
    await g.listChanged(before);
    assert.equal(textOf(await g.client.callTool({ name: "remote_greet", arguments: { name: "Yes" } })), "Hello, Yes!");
  } finally {
    await g.close();
  }
  assertNothingIssuedIn(front, g.log.lines);
});

test("a gateway stopped while it waits for a sign-in exits at once", async (t) => {
  const front = await frontFor(t);
  const file = path.join(work, "config-stop.json");
  fs.writeFileSync(file, JSON.stringify({ mcpServers: { remote: { url: front.url, oauth: true } } }));
  const child = spawn(gatewayBin, ["--config", file, "--auth-dir", path.join(work, "auth-c"), "--sign-in-wait", "600000"], {
    stdio: ["pipe", "pipe", "pipe"],
  });
  const log = lineWatch(child.stderr);
  const exited = new Promise((resolve) => child.on("exit", (code, signal) => resolve({ code, signal })));
  await log.until(/remote: sign-in needed/);
  child.stdin.end();  // the MCP client went away
  const how = await exited;  // bounded by the test's timeout; the sign-in wait is 10 minutes
  assert.equal(how.signal, null);
  assert.equal(how.code, 0);
});

test("a machine client (client_credentials) needs no sign-in; its secret comes from the environment and is never printed", async (t) => {
  const front = await frontFor(t);
  const secret = "machine-" + Math.random().toString(36).slice(2);
  front.state.machines.set("svc-1", secret);
  const file = path.join(work, "config-machine.json");
  fs.writeFileSync(file, JSON.stringify({
    mcpServers: { remote: { url: front.url, oauth: { client_id: "svc-1", client_secret_env: "AGENTKIT_TEST_SVC_SECRET", client_credentials: true } } },
  }));
  const transport = new StdioClientTransport({
    command: gatewayBin,
    args: ["--config", file, "--mask", "none", "--start-wait", "5000", "--auth-dir", path.join(work, "auth-e")],
    env: { ...process.env, AGENTKIT_TEST_SVC_SECRET: secret },
    stderr: "pipe",
  });
  const log = lineWatch(transport.stderr);
  const client = new Client({ name: "gateway-oauth-machine", version: "1.0.0" });
  await client.connect(transport);
  try {
    await log.until(/: remote: up/);
    assert.equal(textOf(await client.callTool({ name: "greet", arguments: { name: "Machine" } })), "Hello, Machine!");
    assert.equal(front.state.clientCredentials, 1);
    assert.equal(front.state.authorizations, 0);
    assert.ok(!log.lines.some((l) => /sign-in needed/.test(l) || l.includes(secret)), log.lines.join("\n"));
  } finally {
    await client.close();
  }
  assertNothingIssuedIn(front, log.lines);
});

test("configuration mistakes are named, and a secret in the file is refused without being echoed", async () => {
  const run = (servers, env = {}) =>
    new Promise((resolve) => {
      const file = path.join(work, `bad-${Math.random().toString(36).slice(2)}.json`);
      fs.writeFileSync(file, JSON.stringify({ mcpServers: servers }));
      const child = spawn(gatewayBin, ["--config", file], { stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, ...env } });
      let out = "";
      let err = "";
      child.stdout.on("data", (d) => (out += d));
      child.stderr.on("data", (d) => (err += d));
      child.on("exit", (code) => resolve({ code, out, err }));
    });
  const noUrl = await run({ s: { command: "true", oauth: true } });
  assert.equal(noUrl.code, 2);
  assert.match(noUrl.err, /server "s": "oauth" needs a "url"/);
  const secret = "hunter2-" + Math.random().toString(36).slice(2);
  const inFile = await run({ s: { url: "http://127.0.0.1:9/mcp", oauth: { client_id: "c", client_secret: secret } } });
  assert.equal(inFile.code, 2);
  assert.match(inFile.err, /secrets are not read from the file/);
  assert.match(inFile.err, /client_secret_env/);
  assert.ok(!inFile.err.includes(secret) && !inFile.out.includes(secret));
  const unknownKey = await run({ s: { url: "http://127.0.0.1:9/mcp", oauth: { scope: "x" } } });
  assert.equal(unknownKey.code, 2);
  assert.match(unknownKey.err, /has no "scope" \(client_id, client_secret_env, client_metadata_url, scopes, redirect_port, client_credentials/);
  const machineWithoutId = await run({ s: { url: "http://127.0.0.1:9/mcp", oauth: { client_credentials: true, client_secret_env: "X" } } });
  assert.equal(machineWithoutId.code, 2);
  assert.match(machineWithoutId.err, /"client_credentials" needs the "client_id"/);
});

test("a client secret named by client_secret_env that is not set: the server's calls say which variable", async (t) => {
  const front = await frontFor(t);
  const file = path.join(work, "config-env.json");
  fs.writeFileSync(file, JSON.stringify({
    mcpServers: { remote: { url: front.url, oauth: { client_id: "pre", client_secret_env: "AGENTKIT_TEST_NO_SUCH_SECRET" } }, local: { command: agentkitServer } },
  }));
  const env = { ...process.env };
  delete env.AGENTKIT_TEST_NO_SUCH_SECRET;
  const transport = new StdioClientTransport({ command: gatewayBin, args: ["--config", file, "--mask", "none", "--start-wait", "3000", "--auth-dir", path.join(work, "auth-d")], env, stderr: "pipe" });
  const log = lineWatch(transport.stderr);
  const client = new Client({ name: "gateway-oauth-env", version: "1.0.0" });
  await client.connect(transport);
  try {
    await log.until(/: local: up/);
    await log.until(/remote: .*AGENTKIT_TEST_NO_SUCH_SECRET/);
    const r = await client.callTool({ name: "remote_greet", arguments: { name: "x" } });
    assert.equal(r.isError, true);
    assert.match(textOf(r), /AGENTKIT_TEST_NO_SUCH_SECRET, which is not set/);
    assert.equal(front.state.authorizations, 0);
  } finally {
    await client.close();
  }
});
