import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { servers } from "./gateway_servers.mjs";
const specs = servers({ browserMcp: process.argv[2], work: "/tmp/gwb-dump" });
for (const s of specs) {
  const c = new Client({ name: "dump", version: "1" });
  await c.connect(new StdioClientTransport({ command: s.command, args: s.args, env: { ...process.env, ...(s.env || {}) }, stderr: "ignore" }));
  const { tools } = await c.listTools();
  for (const t of tools) console.log(`${s.name}\t${t.name}\t${(t.description || "").replace(/\s+/g, " ").slice(0, 160)}\t${Object.keys(t.inputSchema?.properties || {}).join(",")}|${(t.inputSchema?.required || []).join(",")}`);
  await c.close();
}
