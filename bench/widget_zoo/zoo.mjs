// The widget zoo (issue 43): widgets of popular component libraries (pinned in package.json,
// served from this folder on 127.0.0.1, never from a CDN) and pages of our own with the patterns
// libraries build without ARIA, each driven by a scripted policy that acts only through a
// server's refs and reads only its text (../peers/browser_tasks.mjs), through agentkit-browser-mcp
// beside Playwright MCP and chrome-devtools-mcp in the same run.
//
//   cd bench/widget_zoo && npm ci && cd ../peers && npm ci && cd ../widget_zoo
//   (the React widgets, react/zoo.jsx, are bundled with the pinned esbuild at start)
//   node zoo.mjs --agentkit ../../build/bin/agentkit-browser-mcp [--no-playwright] [--chrome-devtools]
//                [--only NAME,...] [--dump NAME]
//
// For each widget and server: operated or not (the page then shows what the widget did), calls,
// o200k tokens of every result, milliseconds; per server: widgets operated and tokens per
// operated widget. A step's `find` is the line a model would look for, written to match each
// server's spelling: the first line that matches and carries a ref is acted on.
import http from "node:http";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

const here = path.dirname(fileURLToPath(import.meta.url));
const peers = path.join(here, "../peers");
const { Client } = await import(path.join(peers, "node_modules/@modelcontextprotocol/sdk/dist/esm/client/index.js"));
const { StdioClientTransport, getDefaultEnvironment } = await import(path.join(peers, "node_modules/@modelcontextprotocol/sdk/dist/esm/client/stdio.js"));
const { cli, serverSpecs } = await import(path.join(peers, "browser_servers.mjs"));
const { runTask } = await import(path.join(peers, "browser_tasks.mjs"));

const click = (find) => ({ do: "click", find });
const type = (find, text) => ({ do: "type", find, text });

// page, widget, steps, and what the page shows once the widget was operated
export const widgets = [
  { lib: "jquery-ui", name: "autocomplete", start: "/pages/jquery-ui.html", check: /auto: Central African Republic/,
    steps: [type(/textbox "Country/, "Ce"), click(/Central African Republic/)] },
  { lib: "jquery-ui", name: "tabs", start: "/pages/jquery-ui.html", check: /Returns accepted for 30 days/, steps: [click(/tab "Returns"/)] },
  { lib: "jquery-ui", name: "accordion", start: "/pages/jquery-ui.html", check: /Two years of warranty/, steps: [click(/Warranty/)] },
  { lib: "jquery-ui", name: "menu", start: "/pages/jquery-ui.html", check: /menu: Save as/, steps: [click(/Save as/)] },
  { lib: "jquery-ui", name: "dialog", start: "/pages/jquery-ui.html", check: /dialog: deleted/,
    steps: [click(/button "Delete draft"/), click(/button "Delete"(?! draft)/)] },
  { lib: "jquery-ui", name: "datepicker", start: "/pages/jquery-ui.html", check: /date: 03\/15\/2026/,
    steps: [click(/textbox "Delivery date/), click(/link "15"/)] },
  { lib: "jquery-ui", name: "selectmenu", start: "/pages/jquery-ui.html", check: /size: Medium/,
    steps: [click(/combobox[^\n]*"Small"|combobox[^\n]*Size|button[^\n]*Small/), click(/option "Medium"|"Medium"|Medium/)] },
  { lib: "bootstrap", name: "dropdown", start: "/pages/bootstrap.html", check: /sort: rating/,
    steps: [click(/button "Sort by"/), click(/Rating/)] },
  { lib: "bootstrap", name: "modal", start: "/pages/bootstrap.html", check: /modal: subscribed/,
    steps: [click(/button "Subscribe"/), click(/button "Confirm"/)] },
  { lib: "bootstrap", name: "tabs", start: "/pages/bootstrap.html", check: /Five stars from Ada/, steps: [click(/tab "Reviews"/)] },
  { lib: "bootstrap", name: "collapse", start: "/pages/bootstrap.html", check: /Open 9 to 5/, steps: [click(/Opening hours/)] },
  { lib: "bootstrap", name: "offcanvas", start: "/pages/bootstrap.html", check: /filter: in stock true/,
    steps: [click(/button "Filters"/), click(/checkbox "In stock only"/)] },
  { lib: "bootstrap", name: "toast", start: "/pages/bootstrap.html", check: /Draft saved at noon/, steps: [click(/Save draft/)] },
  { lib: "bootstrap", name: "carousel", start: "/pages/bootstrap.html", check: /Slide: Porto/, steps: [click(/Next/)] },
  { lib: "select2", name: "single", start: "/pages/pickers.html", check: /select2: OSL/,
    steps: [click(/combobox[^\n]*"Pick one"(?![^\n]*options)|"Pick one"(?![^\n]*options)/), click(/Oslo/)] },
  { lib: "select2", name: "multiple", start: "/pages/pickers.html", check: /tags: green/,
    steps: [click(/searchbox|textbox[^\n]*(Search|Tags)/), click(/green/)] },
  { lib: "tom-select", name: "single", start: "/pages/pickers.html", check: /tom: banana/,
    steps: [click(/Pick a fruit/), click(/Banana/)] },
  { lib: "flatpickr", name: "date", start: "/pages/pickers.html", check: /checkin: 2026-03-15/,
    steps: [click(/textbox "Check-in/), click(/March 15, 2026|"15"/)] },
  { lib: "jstree", name: "tree", start: "/pages/pickers.html", check: /tree: Budget\.xlsx/,
    steps: [click(/Projects/), click(/Budget\.xlsx/)] },
  { lib: "shoelace", name: "select", start: "/pages/shoelace.html", check: /plan: team/,
    steps: [click(/combobox[^\n]*(Plan|Choose a plan)/), click(/option "Team"|"Team"/)] },
  { lib: "shoelace", name: "switch", start: "/pages/shoelace.html", check: /dark: on/, steps: [click(/switch[^\n]*Dark mode|Dark mode/)] },
  { lib: "shoelace", name: "tabs", start: "/pages/shoelace.html", check: /Invoices go out/, steps: [click(/tab "Billing"|Billing/)] },
  { lib: "shoelace", name: "dropdown", start: "/pages/shoelace.html", check: /action: duplicate/,
    steps: [click(/button "Project actions"|Project actions/), click(/menuitem "Duplicate"|Duplicate/)] },
  { lib: "shoelace", name: "dialog", start: "/pages/shoelace.html", check: /account: deleted/,
    steps: [click(/button "Delete account"|Delete account/), click(/button "Delete forever"|Delete forever/)] },
  { lib: "shoelace", name: "details", start: "/pages/shoelace.html", check: /Parcels leave the warehouse/, steps: [click(/Shipping details/)] },
  { lib: "quill", name: "bold text", start: "/pages/quill.html", check: /bold: Hello/,
    steps: [click(/textbox|Compose a note/), click(/button[^\n]*[Bb]old|[Bb]old/), type(/textbox|Compose a note/, "Hello")] },
  { lib: "fullcalendar", name: "next month, a day", start: "/pages/calendar.html", check: /day: 2026-04-15/,
    steps: [click(/button[^\n]*[Nn]ext|[Nn]ext month/), click(/April 15, 2026|"15"(?![^\n]*March)/)] },
  { lib: "ag-grid", name: "sort", start: "/pages/grid.html", check: /sort: price asc/, steps: [click(/columnheader "Price"|Price/)] },
  { lib: "ag-grid", name: "filter", start: "/pages/grid.html", check: /rows: 8/, steps: [type(/textbox[^\n]*Make|Make Filter/, "Tesla")] },
  { lib: "ag-grid", name: "next page", start: "/pages/grid.html", check: /page: 2/, steps: [click(/button[^\n]*Next Page|Next Page/)] },
  { lib: "element-plus", name: "select", start: "/pages/element-plus.html", check: /warehouse: Rotterdam/,
    steps: [click(/Select a warehouse/), click(/option "Rotterdam"|Rotterdam/)] },
  { lib: "element-plus", name: "cascader", start: "/pages/element-plus.html", check: /destination: asia\/tokyo/,
    steps: [click(/Pick a destination/), click(/Asia/), click(/Tokyo/)] },
  { lib: "element-plus", name: "table sort", start: "/pages/element-plus.html", check: /sort: total ascending/, steps: [click(/columnheader "Total"|Total/)] },
  { lib: "element-plus", name: "switch", start: "/pages/element-plus.html", check: /express: on/, steps: [click(/switch[^\n]*Express|Express shipping/)] },
  { lib: "mui", name: "select", start: "/pages/react.html", check: /age: middle/,
    steps: [click(/combobox[^\n]*Age group|Age group/), click(/option "30 to 60"|30 to 60/)] },
  { lib: "mui", name: "autocomplete", start: "/pages/react.html", check: /city: Copenhagen/,
    steps: [click(/combobox[^\n]*Home city|Home city/), click(/option "Copenhagen"|Copenhagen/)] },
  { lib: "mui", name: "data grid next page", start: "/pages/react.html", check: /grid page: 2/,
    steps: [click(/button[^\n]*[Nn]ext page/)] },
  { lib: "react-select", name: "single", start: "/pages/react.html", check: /flavour: mint/,
    steps: [click(/combobox[^\n]*Flavour|Choose a flavour/), click(/option "Mint"|Mint/)] },
  { lib: "radix", name: "dropdown menu", start: "/pages/react.html", check: /document: share/,
    steps: [click(/button "Document options"|Document options/), click(/menuitem "Share"|Share/)] },
  { lib: "own", name: "delegated list", start: "/pages/own-delegated.html", check: /Picked Lima/, steps: [click(/Lima/)] },
  { lib: "own", name: "inbox row", start: "/pages/own-inbox.html", check: /Opened message from Bob/, steps: [click(/Bob/)] },
  { lib: "own", name: "icon-only star", start: "/pages/own-icons.html", check: /Did star/, steps: [click(/star/)] },
  { lib: "own", name: "tree folder", start: "/pages/own-tree.html", check: /2025\.pdf/, steps: [click(/Documents/), click(/Taxes/)] },
];

// The React widgets (react/zoo.jsx) bundled with esbuild from the pinned packages into `dir`,
// served at /build/.
async function bundle(dir) {
  const esbuild = await import(path.join(here, "node_modules/esbuild/lib/main.js"));
  await (esbuild.default ?? esbuild).build({
    entryPoints: [path.join(here, "react/zoo.jsx")], bundle: true, minify: true, outfile: path.join(dir, "react-zoo.js"),
    define: { "process.env.NODE_ENV": '"production"' }, jsx: "automatic", logLevel: "error",
  });
}

function serve(root, built) {
  const types = { ".html": "text/html; charset=utf-8", ".js": "text/javascript", ".css": "text/css", ".svg": "image/svg+xml", ".png": "image/png", ".gif": "image/gif" };
  const server = http.createServer((req, res) => {
    const p = path.normalize(decodeURIComponent(req.url.split("?")[0])).replace(/^(\.\.[/\\])+/, "");
    const base = p.startsWith("/build/") ? built : root;
    const file = path.join(base, p.startsWith("/build/") ? p.slice("/build/".length) : p);
    if (!file.startsWith(base) || !fs.existsSync(file) || fs.statSync(file).isDirectory()) {
      res.writeHead(404);
      return res.end();
    }
    res.writeHead(200, { "content-type": types[path.extname(file)] || "application/octet-stream" });
    fs.createReadStream(file).pipe(res);
  });
  return new Promise((ok) => server.listen(0, "127.0.0.1", () => ok(server)));
}

async function main() {
  const { flag, opt, chromium } = cli(process.argv.slice(2));
  const only = opt("--only", "") ? opt("--only", "").split(",") : null;
  const dump = opt("--dump", "");
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "agentkit-zoo-"));
  const built = path.join(tmp, "build");
  await bundle(built);
  const server = await serve(here, built);
  const base = `http://127.0.0.1:${server.address().port}`;
  const specs = serverSpecs(tmp, base, { chromium, playwright: !flag("--no-playwright"), chromeDevtools: flag("--chrome-devtools"), agentkit: opt("--agentkit", null) });
  const chosen = widgets.filter((w) => !only || only.includes(w.lib) || only.includes(`${w.lib}/${w.name}`));
  const rows = {};
  for (const spec of specs) {
    for (const w of chosen) {  // a server of its own per widget: no state carries over
      const client = new Client({ name: "agentkit-zoo", version: "1.0.0" });
      await client.connect(new StdioClientTransport({ command: spec.command, args: spec.args, stderr: "ignore",
        ...(spec.env ? { env: { ...getDefaultEnvironment(), ...spec.env } } : {}) }));
      const call = (name, a) => client.callTool({ name, arguments: { ...(spec.commonArgs || {}), ...a } }, undefined, { timeout: 120000 });
      const r = await runTask(spec, call, base, w);
      await client.close();
      const key = `${w.lib}/${w.name}`;
      (rows[key] ??= {})[spec.name] = r;
      if (dump && (dump === key || dump === w.lib)) console.error(`==== ${spec.name} ${key}\n${r.log.join("\n")}\n${r.error}`);
    }
  }
  server.close();
  const names = specs.map((s) => s.name);
  const pad = (s, n) => String(s).padEnd(n);
  console.log(pad("widget", 28) + names.map((n) => pad(n + " (ok calls tokens ms)", 40)).join(""));
  for (const [key, by] of Object.entries(rows))
    console.log(pad(key, 28) + names.map((n) => { const r = by[n]; return pad(`${r.solved ? "yes" : "NO "} ${r.calls} ${r.tokens} ${Math.round(r.ms)}`, 40); }).join(""));
  for (const n of names) {
    const rs = Object.values(rows).map((by) => by[n]);
    const ok = rs.filter((r) => r.solved);
    const tok = ok.reduce((a, r) => a + r.tokens, 0);
    console.log(`${n}: ${ok.length}/${rs.length} widgets operated, ${ok.length ? Math.round(tok / ok.length) : "-"} tokens per operated widget` +
      (ok.length < rs.length ? `; not operated: ${Object.entries(rows).filter(([, by]) => !by[n].solved).map(([k, by]) => `${k} (${by[n].error.slice(0, 80)})`).join("; ")}` : ""));
  }
  // the same widgets operated by both: tokens side by side (the issue's ratio)
  if (names.length > 1) {
    const ak = names.find((n) => n === "agentkit");
    for (const n of names.filter((m) => m !== ak)) {
      const both = Object.values(rows).filter((by) => by[ak]?.solved && by[n]?.solved);
      const a = both.reduce((s, by) => s + by[ak].tokens, 0), p = both.reduce((s, by) => s + by[n].tokens, 0);
      if (both.length) console.log(`on the ${both.length} widgets both operate: agentkit ${a} tokens, ${n} ${p} (${(a / p).toFixed(2)}x)`);
    }
  }
}

await main();
