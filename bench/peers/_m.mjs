import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import http from "node:http"; import fs from "node:fs";
const page = fs.readFileSync("pages/form.html");
const srv = http.createServer((q, s) => { const url = new URL(q.url, "http://x"); if (url.pathname === "/submit") { const f=[...url.searchParams.entries()].map(([k,v])=>`<li>${k}=${v}</li>`).join(""); s.end(`<!doctype html><title>Thanks</title><h1>Thanks!</h1><ul>${f}</ul>`); } else { s.setHeader("content-type","text/html"); s.end(page);} });
await new Promise(r => srv.listen(0, "127.0.0.1", r));
const base = `http://127.0.0.1:${srv.address().port}`;
const t = new StdioClientTransport({ command: process.argv[2], args: ["--headless", "--allowed-origins", base], stderr: "pipe" });
t.stderr.on("data", d => process.stdout.write("[err] " + d));
const c = new Client({ name: "p", version: "1" }); await c.connect(t);
const txt = (r) => r.content.filter(x => x.type === "text").map(x => x.text).join("\n");
await c.callTool({ name: "browser_navigate", arguments: { url: base + "/list.html" } });
for (let i = 0; i < 3; i++) {
let t0 = performance.now();
const snap = txt(await c.callTool({ name: "browser_navigate", arguments: { url: base + "/form.html" } }));
console.log("navigate", (performance.now()-t0).toFixed(1));
const ref = (re) => { const line = snap.split("\n").find(l => re.test(l)); return line.match(/\[ref=([^\]]+)\]/)[1]; };
const fields = [["Full name","textbox",/textbox "Full name/,"Ada Lovelace"],["Email","textbox",/textbox "Email/,"ada@example.com"],["Age","textbox",/spinbutton "Age|textbox "Age/,"36"],["Country","combobox",/combobox "Country/,"Norway"],["Subscribe","checkbox",/checkbox "Subscribe/,"true"]].map(([name,type,re,value])=>({name,type,target:ref(re),value}));
t0 = performance.now();
await c.callTool({ name: "browser_fill_form", arguments: { fields, submit: ref(/button "Send"/) } });
console.log("fill", (performance.now()-t0).toFixed(1));
}
await c.close(); srv.close();
