// Lists every tool of the gateway bench's servers (gateway_servers.mjs), one per line:
// server, name, description (cut), parameters|required. For writing and checking the labels of
// gateway_tasks.mjs.
//
//   node gateway_dump.mjs ../../build-rel/bin/agentkit-browser-mcp > tools.tsv
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { servers } from "./gateway_servers.mjs";
const specs = servers({ browserMcp: process.argv[2], work: fs.mkdtempSync(path.join(os.tmpdir(), "agentkit-gateway-dump-")) });
for (const s of specs) {
  const c = new Client({ name: "dump", version: "1" });
  await c.connect(new StdioClientTransport({ command: s.command, args: s.args, env: { ...process.env, ...(s.env || {}) }, stderr: "ignore" }));
  const { tools } = await c.listTools();
  for (const t of tools) console.log(`${s.name}\t${t.name}\t${(t.description || "").replace(/\s+/g, " ").slice(0, 160)}\t${Object.keys(t.inputSchema?.properties || {}).join(",")}|${(t.inputSchema?.required || []).join(",")}`);
  await c.close();
}
