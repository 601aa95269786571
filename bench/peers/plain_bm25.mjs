// The plain baseline tool_search must never fall below (issue 46): Okapi BM25 (k1 1.2, b 0.75,
// Lucene's idf) over one bag of words per tool — its name split into words, its title, its
// description and its argument names — with nothing else: no stemming, no stop words, no field
// weights, no related words, no examples. Words are runs of letters and digits, lower-cased; a
// name splits at "_", "-", "." and lower-to-upper case changes.
//
//   import { plainBm25 } from "./plain_bm25.mjs";
//   const rank = plainBm25([{ id: "filesystem/read_file", name: "read_file", description: "..." }]);
//   rank("show me notes.txt", 5);   // ["filesystem/read_file", ...], best first

export function words(text) {
  return String(text || "")
    .replace(/([a-z0-9])([A-Z])/g, "$1 $2")
    .toLowerCase()
    .match(/[a-z0-9]+/g) || [];
}

// The words of a tool: `tool` has name, title?, description?, inputSchema? (MCP's shape).
export function toolWords(tool) {
  const args = Object.keys(tool.inputSchema?.properties || {});
  return [...words(tool.name), ...words(tool.title), ...words(tool.description), ...args.flatMap(words)];
}

// `tools`: [{id, name, title?, description?, inputSchema?}]. Returns rank(query, k) -> ids.
export function plainBm25(tools, { k1 = 1.2, b = 0.75 } = {}) {
  const docs = tools.map((t) => {
    const tf = new Map();
    const ws = toolWords(t);
    for (const w of ws) tf.set(w, (tf.get(w) || 0) + 1);
    return { id: t.id, tf, len: ws.length };
  });
  const n = docs.length;
  const avg = docs.reduce((s, d) => s + d.len, 0) / Math.max(1, n);
  const df = new Map();
  for (const d of docs) for (const w of d.tf.keys()) df.set(w, (df.get(w) || 0) + 1);
  const idf = (w) => Math.log(1 + (n - (df.get(w) || 0) + 0.5) / ((df.get(w) || 0) + 0.5));
  return (query, k = 5) => {
    const q = [...new Set(words(query))].filter((w) => df.has(w));
    const scored = [];
    docs.forEach((d, i) => {
      let s = 0;
      for (const w of q) {
        const f = d.tf.get(w);
        if (f) s += idf(w) * (f * (k1 + 1)) / (f + k1 * (1 - b + (b * d.len) / avg));
      }
      if (s > 0) scored.push([s, i]);
    });
    scored.sort((x, y) => y[0] - x[0] || x[1] - y[1]);
    return scored.slice(0, k).map(([, i]) => docs[i].id);
  };
}
