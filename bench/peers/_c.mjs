import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import http from "node:http"; import fs from "node:fs";
import { encode } from "gpt-tokenizer/encoding/o200k_base";
const page = fs.readFileSync("pages/form.html");
const srv = http.createServer((q, s) => { s.setHeader("content-type","text/html"); s.end(page); });
await new Promise(r => srv.listen(0, "127.0.0.1", r));
const base = `http://127.0.0.1:${srv.address().port}`;
const t = new StdioClientTransport({ command: process.argv[2], args: ["--headless", "--allowed-origins", base], stderr: "ignore" });
const c = new Client({ name: "p", version: "1" }); await c.connect(t);
const txt = (r) => r.content.filter(x => x.type === "text").map(x => x.text).join("\n");
const show = (label, r) => { const s = txt(r); console.log(`--- ${label} (${encode(s).length} tokens)\n${s}`); return s; };
for (let i = 0; i < 2; i++) {
await c.callTool({ name: "browser_navigate", arguments: { url: base + "/form.html" } });
const snap = txt(await c.callTool({ name: "browser_snapshot", arguments: {} }));
const ref = (re) => { const line = snap.split("\n").find(l => re.test(l)); return line.match(/\[ref=([^\]]+)\]/)[1]; };
show("type", await c.callTool({ name: "browser_type", arguments: { target: ref(/textbox "Full name/), text: "Ada Lovelace" } }));
show("click", await c.callTool({ name: "browser_click", arguments: { target: ref(/checkbox "Subscribe/) } }));
}
await c.close(); srv.close();
