import { encode } from "gpt-tokenizer/encoding/o200k_base";
import fs from "node:fs";
const t = (s) => encode(s).length;
const txt = fs.readFileSync(process.argv[2], "utf8");
for (const p of txt.split(/\n==== /)) {
  const nl = p.indexOf("\n"); const head = p.slice(0, nl); const body = p.slice(nl + 1);
  if (!head.startsWith("agentkit")) continue;
  let ref = 0, text = 0, struct = 0, head2 = 0, hd = 0;
  for (const l of body.split("\n")) {
    const n = t(l + "\n");
    if (/\[ref=/.test(l)) ref += n; else if (/^\s*h\d /.test(l)) hd += n; else if (/^(url:|title:|<<|\()/.test(l)) head2 += n; else if (/^\s*(banner|navigation|main|contentinfo|complementary|form|search|region|menubar|menu|toolbar|list|table|dialog)\b/.test(l)) struct += n; else text += n;
  }
  console.log(head.padEnd(36), "total", t(body), "reflines", ref, "text", text, "headings", hd, "struct", struct, "header", head2);
}
for (const s of [' [ref=e5]', ' [ref=e66]', ' [ref=e282]', ' [ref=e1234]', ' [e66]', ' e66', ' #66', ' [66]', ' link "DealBook"', ' link DealBook', ' @e66', ' ref=e66', 'e1', 'e12', 'e123', 'e1234', 'e12345', 'ab12', 'fx123', 'b5', 'c12', 'x3k', 'e5a'])
  console.log(JSON.stringify(s), t(s));
