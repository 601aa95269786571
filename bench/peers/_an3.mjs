import { encode } from "gpt-tokenizer/encoding/o200k_base";
import fs from "node:fs";
const t = (s) => encode(s).length;
const txt = fs.readFileSync(process.argv[2], "utf8");
const max = Number(process.argv[3] || 60), clipAt = Number(process.argv[4] || 80);
const cut = (u) => {
  u = u.replace(/…$/, "");
  if (u.length <= max) return u;
  const q = u.search(/[?#]/); if (q > 0) u = u.slice(0, q) + "…";
  if (u.length > clipAt) u = u.slice(0, clipAt) + "…";
  return u;
};
for (const p of txt.split(/\n==== /)) {
  const nl = p.indexOf("\n"); const head = p.slice(0, nl); const body = p.slice(nl + 1);
  if (!head.startsWith("agentkit") || head.includes("interactive")) continue;
  const b2 = body.replace(/^(\s*(?:- )?link (?:"(?:[^"\\]|\\.)*"|\[[^\]]*\]|\([^)]*\))) (\S+) (\[ref=e\d+\])$/gm, (m, a, u, r) => `${a} ${cut(u)} ${r}`);
  console.log(head.padEnd(20), t(body), "->", t(b2), (t(b2)/t(body)).toFixed(3));
}
