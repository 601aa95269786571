// A test fixture: an MCP server that asks for OAuth 2.1, as the MCP authorization specification
// describes one, in front of a real MCP server. One HTTP server on 127.0.0.1 plays both roles:
//   - the protected resource: /mcp needs "Bearer <access token it issued>", else 401 with
//     WWW-Authenticate naming its resource metadata; an accepted request is forwarded (streamed,
//     both ways) to `upstream` with the upstream's own headers in place of the Authorization;
//   - the authorization server: RFC 9728 and RFC 8414 metadata, dynamic registration (RFC 7591),
//     /authorize answering at once with a redirect (the "user" approves or, with deny, declines),
//     /token for authorization_code (PKCE S256 checked against the challenge, redirect_uri and
//     client checked), refresh_token and client_credentials (a machine client in state.machines,
//     client_secret_basic) grants.
// It records what it issued (tokens, codes, client ids) so a test can check none is printed,
// and counts registrations, authorizations and refreshes.
import crypto from "node:crypto";
import http from "node:http";

export async function oauthFront({ upstream, upstreamHeaders = {} }) {
  const state = {
    issued: [],          // every secret-ish string handed out (tokens, codes)
    clients: new Map(),  // client_id -> { redirect_uris }
    codes: new Map(),    // code -> { client_id, redirect_uri, challenge, resource }
    access: new Set(),   // valid access tokens
    refresh: new Map(),  // refresh token -> client_id
    registrations: 0,
    authorizations: 0,
    refreshes: 0,
    deny: false,
    mcpRequests: 0,
    refusals: 0,
    machines: new Map(),  // pre-registered machine clients: client_id -> secret
    clientCredentials: 0,
  };
  const server = http.createServer();
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  const origin = `http://127.0.0.1:${server.address().port}`;
  const resource = `${origin}/mcp`;
  const b64url = (buf) => buf.toString("base64").replace(/=+$/, "").replace(/\+/g, "-").replace(/\//g, "_");
  const mint = (prefix) => {
    const v = `${prefix}-${crypto.randomBytes(12).toString("hex")}`;
    state.issued.push(v);
    return v;
  };
  const json = (res, status, body, headers = {}) => {
    res.writeHead(status, { "Content-Type": "application/json", "Cache-Control": "no-store", ...headers });
    res.end(JSON.stringify(body));
  };
  const readBody = (req) =>
    new Promise((resolve) => {
      const parts = [];
      req.on("data", (d) => parts.push(d));
      req.on("end", () => resolve(Buffer.concat(parts).toString()));
    });

  server.on("request", async (req, res) => {
    const u = new URL(req.url, origin);
    if (u.pathname === "/.well-known/oauth-protected-resource/mcp" || u.pathname === "/.well-known/oauth-protected-resource")
      return json(res, 200, { resource, authorization_servers: [origin], scopes_supported: ["tools"] });
    if (u.pathname === "/.well-known/oauth-authorization-server")
      return json(res, 200, {
        issuer: origin,
        authorization_endpoint: `${origin}/authorize`,
        token_endpoint: `${origin}/token`,
        registration_endpoint: `${origin}/register`,
        response_types_supported: ["code"],
        grant_types_supported: ["authorization_code", "refresh_token", "client_credentials"],
        code_challenge_methods_supported: ["S256"],
        token_endpoint_auth_methods_supported: ["none", "client_secret_basic"],
        scopes_supported: ["tools", "offline_access"],
      });
    if (u.pathname === "/register" && req.method === "POST") {
      const body = JSON.parse(await readBody(req));
      const id = `client-${++state.registrations}-${crypto.randomBytes(4).toString("hex")}`;
      state.clients.set(id, { redirect_uris: body.redirect_uris || [] });
      return json(res, 201, { client_id: id, redirect_uris: body.redirect_uris, token_endpoint_auth_method: "none" });
    }
    if (u.pathname === "/authorize") {
      const q = u.searchParams;
      const client = state.clients.get(q.get("client_id"));
      if (!client || !client.redirect_uris.includes(q.get("redirect_uri")) || q.get("code_challenge_method") !== "S256" || !q.get("code_challenge"))
        return json(res, 400, { error: "invalid_request" });
      ++state.authorizations;
      const back = new URL(q.get("redirect_uri"));
      back.searchParams.set("state", q.get("state"));
      if (state.deny) {
        back.searchParams.set("error", "access_denied");
      } else {
        const code = mint("code");
        state.codes.set(code, { client_id: q.get("client_id"), redirect_uri: q.get("redirect_uri"), challenge: q.get("code_challenge"), resource: q.get("resource") });
        back.searchParams.set("code", code);
        back.searchParams.set("iss", origin);
      }
      res.writeHead(302, { Location: back.toString() });
      return res.end();
    }
    if (u.pathname === "/token" && req.method === "POST") {
      const f = new URLSearchParams(await readBody(req));
      const issue = (client_id) => {
        const access = mint("at");
        const refresh = mint("rt");
        state.access.add(access);
        state.refresh.set(refresh, client_id);
        return json(res, 200, { access_token: access, token_type: "Bearer", expires_in: 3600, refresh_token: refresh, scope: "tools offline_access" });
      };
      if (f.get("grant_type") === "authorization_code") {
        const c = state.codes.get(f.get("code"));
        state.codes.delete(f.get("code"));
        const verifierOk = c && b64url(crypto.createHash("sha256").update(f.get("code_verifier") || "").digest()) === c.challenge;
        if (!c || !verifierOk || c.client_id !== f.get("client_id") || c.redirect_uri !== f.get("redirect_uri") || f.get("resource") !== resource)
          return json(res, 400, { error: "invalid_grant" });
        return issue(c.client_id);
      }
      if (f.get("grant_type") === "client_credentials") {
        // a pre-registered machine client, client_secret_basic
        const basic = (req.headers.authorization || "").match(/^Basic (.+)$/);
        const [id, secret] = basic ? Buffer.from(basic[1], "base64").toString().split(":").map(decodeURIComponent) : [];
        if (!state.machines.has(id) || state.machines.get(id) !== secret) return json(res, 401, { error: "invalid_client" });
        ++state.clientCredentials;
        const access = mint("at");
        state.access.add(access);
        return json(res, 200, { access_token: access, token_type: "Bearer", expires_in: 3600, scope: f.get("scope") || "" });
      }
      if (f.get("grant_type") === "refresh_token") {
        const owner = state.refresh.get(f.get("refresh_token"));
        if (!state.clients.has(f.get("client_id"))) return json(res, 401, { error: "invalid_client" });
        if (!owner || owner !== f.get("client_id")) return json(res, 400, { error: "invalid_grant" });
        state.refresh.delete(f.get("refresh_token"));
        ++state.refreshes;
        return issue(owner);
      }
      return json(res, 400, { error: "unsupported_grant_type" });
    }
    if (u.pathname === "/mcp") {
      ++state.mcpRequests;
      const m = (req.headers.authorization || "").match(/^Bearer (.+)$/);
      if (!m || !state.access.has(m[1])) {
        ++state.refusals;
        req.resume();
        res.writeHead(401, { "WWW-Authenticate": `Bearer resource_metadata="${origin}/.well-known/oauth-protected-resource/mcp", scope="tools"` });
        return res.end();
      }
      const headers = { ...req.headers };
      delete headers.authorization;
      delete headers.host;
      for (const [k, v] of Object.entries(upstreamHeaders)) headers[k.toLowerCase()] = v;
      const target = new URL(upstream);
      const out = http.request({ hostname: target.hostname, port: target.port, path: target.pathname, method: req.method, headers }, (up) => {
        res.writeHead(up.statusCode, up.headers);
        up.pipe(res);
      });
      out.on("error", () => {
        if (!res.headersSent) res.writeHead(502);
        res.end();
      });
      req.pipe(out);
      return;
    }
    res.writeHead(404);
    res.end();
  });

  return {
    url: resource,
    state,
    revokeAccess: () => state.access.clear(),
    forgetClients: () => state.clients.clear(),
    close: () => new Promise((resolve) => { server.closeAllConnections?.(); server.close(resolve); }),
  };
}
