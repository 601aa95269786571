// What the browser benches (browser_bench.mjs, snapshot_scaling.mjs) share: the MCP browser
// servers they run side by side, as each is started for them (command lines, tool names, ref
// styles), the command line's flags, and reading results (text, refs, medians).
//
//   serverSpecs(tmp, base, { chromium, playwright, chromeDevtools, agentBrowser, agentkit, agentkitNoPolicy })
//   const { flag, opt, chromium } = cli(process.argv.slice(2))
//   textOf(callToolResult), findRef(snapshotText, /pattern/), median(numbers)
//
// tmp: a folder for config files; base: the page server's origin (the origin lists name it);
// agentkit: the path of agentkit-browser-mcp, or null to leave it out.
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const here = path.dirname(fileURLToPath(import.meta.url));

/// The command line: flag("--x") is true when given, opt("--x", def) the word after it (else def);
/// chromium: --chromium, else $AGENTKIT_CHROMIUM, else Debian's binary.
export function cli(args) {
  const flag = (name) => args.includes(name);
  const opt = (name, def) => {
    const i = args.indexOf(name);
    return i >= 0 && i + 1 < args.length ? args[i + 1] : def;
  };
  return { flag, opt, chromium: opt("--chromium", process.env.AGENTKIT_CHROMIUM || "/usr/lib/chromium/chromium") };
}

export const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.floor((s.length - 1) / 2)] : NaN;
};

export const textOf = (r) =>
  (r.content || [])
    .map((c) => (c.type === "text" ? c.text : c.type === "image" ? `[image ${c.data?.length ?? 0}b]` : JSON.stringify(c)))
    .join("\n");

// Find the ref of a line matching `pattern` in a snapshot ("[ref=e12]", agent-browser's
// "[expanded=false, ref=e12]" or chrome-devtools "uid=1_2").
export function findRef(snapshot, pattern) {
  for (const line of snapshot.split("\n")) {
    if (!pattern.test(line)) continue;
    const m = line.match(/\bref=([A-Za-z0-9_]+)/) || line.match(/uid=(\S+)/);  // [ref=e5], [level=1, ref=e5], uid=1_2
    if (m) return m[1];
  }
  return null;
}

// Playwright MCP's tool names, which agentkit-browser-mcp keeps (a drop-in).
const playwrightToolNames = {
  navigate: "browser_navigate",
  snapshot: "browser_snapshot",
  click: "browser_click",
  type: "browser_type",
  fill: "browser_fill_form",
};

export function serverSpecs(tmp, base, o) {
  const specs = [];
  if (o.playwright) {
    const config = path.join(tmp, "playwright-mcp.json");
    fs.writeFileSync(
      config,
      JSON.stringify({
        browser: {
          browserName: "chromium",
          isolated: true,
          launchOptions: { executablePath: o.chromium, headless: true, chromiumSandbox: false },
        },
      }),
    );
    specs.push({
      name: "playwright-mcp",
      command: process.execPath,
      args: [path.join(here, "node_modules/@playwright/mcp/cli.js"), "--headless", "--isolated", "--config", config, "--allowed-origins", base],
      tools: playwrightToolNames,
    });
  }
  if (o.chromeDevtools) {
    specs.push({
      name: "chrome-devtools-mcp",
      command: process.execPath,
      args: [
        path.join(here, "node_modules/chrome-devtools-mcp/build/src/bin/chrome-devtools-mcp.js"),
        "--headless",
        "--no-usage-statistics",
        "--no-performance-crux",
        "--isolated",
        "--executablePath",
        o.chromium,
        "--chromeArg=--no-sandbox",
      ],
      tools: { navigate: "navigate_page", snapshot: "take_snapshot", click: "click", type: "fill", fill: "fill_form" },
      uidStyle: true,
      commonArgs: { pageId: 1 },  // 1.11 requires the page on every page tool (the first page is 1)
    });
  }
  if (o.agentBrowser) {
    // agent-browser's native binary ships in its npm package; it is pointed at our Chromium
    // (its `install` command, which downloads a browser, is never run). Its snapshot lists
    // interactive elements only by default: it is compared with agentkit's interactive_only
    // snapshot, and it takes part in the tools/list and navigate/snapshot rows only.
    specs.push({
      name: "agent-browser",
      command: path.join(here, "node_modules/agent-browser/bin/agent-browser-linux-x64"),
      args: ["mcp"],
      env: {
        AGENT_BROWSER_EXECUTABLE_PATH: o.chromium,
        AGENT_BROWSER_ARGS: "--no-sandbox",
        AGENT_BROWSER_SESSION: `bench${process.pid}`,
        AGENT_BROWSER_ALLOWED_DOMAINS: "127.0.0.1",
      },
      snapshotOnly: true,
      interactiveByDefault: true,
      closeTool: "agent_browser_close",
      tools: { navigate: "agent_browser_open", snapshot: "agent_browser_snapshot" },
    });
  }
  const ak = o.agentkit;
  if (ak) {
    specs.push({
      name: "agentkit",
      command: path.resolve(ak),
      args: ["--headless", "--executable-path", o.chromium, ...(o.agentkitNoPolicy ? [] : ["--allowed-origins", base])],
      fillSubmits: true,
      tools: playwrightToolNames,
    });
  }
  return specs;
}
