// The six MCP servers of the gateway bench (gateway_bench.mjs), each as {name, command, args,
// env}: the same command line whether it is started directly or by agentkit-mcp-gateway.
// Browsers are Debian's Chromium, headless, without a sandbox (the bench runs as root) and with
// Chromium's background networking off; nothing is downloaded.
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const here = path.dirname(fileURLToPath(import.meta.url));
const mod = (p) => path.join(here, "node_modules", p);

// Chromium switches that keep a headless browser off the network unless a page asks.
export const offlineFlags = [
  "--no-sandbox",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-domain-reliability",
  "--disable-sync",
  "--no-first-run",
  "--no-default-browser-check",
  "--metrics-recording-only",
];

export function servers({ browserMcp, work, chromium = "/usr/lib/chromium/chromium" }) {
  fs.mkdirSync(work, { recursive: true });
  const files = path.join(work, "files");
  fs.mkdirSync(files, { recursive: true });
  fs.writeFileSync(path.join(files, "notes.txt"), "gateway bench notes\n");
  const pwConfig = path.join(work, "playwright-mcp.json");
  fs.writeFileSync(pwConfig, JSON.stringify({
    browser: { browserName: "chromium", isolated: true,
               launchOptions: { executablePath: chromium, headless: true, chromiumSandbox: false, args: offlineFlags } },
  }));
  const node = process.execPath;
  const list = [
    { name: "everything", command: node, args: [mod("@modelcontextprotocol/server-everything/dist/index.js"), "stdio"] },
    { name: "filesystem", command: node, args: [mod("@modelcontextprotocol/server-filesystem/dist/index.js"), files] },
    { name: "memory", command: node, args: [mod("@modelcontextprotocol/server-memory/dist/index.js")],
      env: { MEMORY_FILE_PATH: path.join(work, "memory.jsonl") } },
    { name: "playwright", command: node, args: [mod("@playwright/mcp/cli.js"), "--headless", "--isolated", "--config", pwConfig] },
    { name: "chrome-devtools", command: node,
      args: [mod("chrome-devtools-mcp/build/src/bin/chrome-devtools-mcp.js"), "--headless", "--no-usage-statistics",
             "--no-performance-crux", "--isolated", "--executablePath", chromium, ...offlineFlags.map((f) => `--chromeArg=${f}`)] },
  ];
  if (browserMcp)
    list.push({ name: "agentkit-browser", command: path.resolve(browserMcp),
                args: ["--headless", "--executable-path", chromium, "--no-sandbox"] });
  return list;
}

// What each server is for, as a user would write it in the configuration (the menu's modes).
export const descriptions = {
  everything: "The MCP reference test server: echo, sums, sample images, resources, annotations, logging and long-running demo operations",
  filesystem: "Files and folders on this machine: read, write, edit, move, search, list, file information",
  memory: "A knowledge graph that remembers entities, relations and observations between conversations",
  playwright: "A web browser driven by Playwright: navigate, click, type, forms, screenshots, tabs, console and network",
  "chrome-devtools": "Chrome DevTools: browse and act on pages, plus performance traces, Lighthouse audits, heap snapshots, CSS, emulation",
  "agentkit-browser": "agentkit's browser: navigate, compact snapshots, actions, several steps or URLs in one call, extraction, artifacts",
};

// The names the gateway gives the servers' tools: a tool's own name (characters outside
// [A-Za-z0-9_.-] as "_", at most 64) unless two servers have it, then <server>_<name>.
// `serverTools`: { server: [tool, ...] }. Returns both directions: "server/tool" -> gateway name
// (gwName) and gateway name -> "server/tool" (fromGw), and the rule for one name (localName).
export function gatewayNames(serverTools) {
  const localName = (s) => s.replace(/[^A-Za-z0-9_.-]/g, "_").slice(0, 64);
  const count = {};
  for (const ts of Object.values(serverTools)) for (const t of ts) count[localName(t.name)] = (count[localName(t.name)] || 0) + 1;
  const gwName = {}, fromGw = {};
  for (const [s, ts] of Object.entries(serverTools))
    for (const t of ts) {
      const n = count[localName(t.name)] > 1 ? localName(`${s}_${t.name}`) : localName(t.name);
      gwName[`${s}/${t.name}`] = n;
      fromGw[n] = `${s}/${t.name}`;
    }
  return { gwName, fromGw, localName };
}
