// The official MCP TypeScript client at revision 2026-07-28 with a task session of
// @modelcontextprotocol/ext-tasks over it, for the tests that drive agentkit's servers' tasks
// (io.modelcontextprotocol/tasks). ext-tasks needs a way to send raw JSON-RPC (the SDK Client
// refuses a `resultType: "task"` answer to tools/call): here a second official Streamable HTTP
// transport, so the headers (MCP-Protocol-Version, Mcp-Method, Mcp-Name) are still the SDK's.
// DEBUG_TASKS=1 logs every exchange.
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import {
  createApplicationInputHandler,
  createTaskSessionEndpointId,
  createTaskSessionFromClient,
  resultFromTaskOutcome,
  DispatchError,
} from "@modelcontextprotocol/ext-tasks/client";

export const VERSION = "2026-07-28";
export const TASKS = "io.modelcontextprotocol/tasks";
const INFO = { name: "agentkit-tasks-test", version: "1.0.0" };

const logFetch = async (u, init = {}) => {
  const r = await fetch(u, init);
  if (process.env.DEBUG_TASKS)
    console.log("WIRE", init.method, String(init.body ?? "").slice(0, 300), "->", r.status, (await r.clone().text()).slice(0, 300));
  return r;
};

async function rawDispatcher(url) {
  const transport = new StreamableHTTPClientTransport(new URL(url), { fetch: logFetch });
  const waiting = new Map();
  let next = 0;
  transport.onmessage = (m) => {
    if (m && "id" in m && ("result" in m || "error" in m) && waiting.has(m.id)) {
      const w = waiting.get(m.id);
      waiting.delete(m.id);
      w(m);
    }
  };
  await transport.start();
  const dispatch = async (request, options = {}) => {
    const id = `raw-${++next}`;
    const answered = new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        waiting.delete(id);
        reject(new DispatchError(`${request.method} got no answer in 30 s`, true));
      }, 30000);
      waiting.set(id, (m) => {
        clearTimeout(timer);
        resolve(m);
      });
    });
    try {
      await transport.send({ jsonrpc: "2.0", id, ...request }, { headers: options.context?.headers, requestSignal: options.signal });
    } catch (e) {
      waiting.delete(id);
      answered.catch(() => {});
      throw new DispatchError(`${request.method} could not be sent: ${e?.message ?? e}`, false, { cause: e });
    }
    const m = await answered;
    return "error" in m ? { kind: "error", error: m.error } : { kind: "result", result: m.result };
  };
  return { dispatch, close: () => transport.close() };
}

/// An endpoint id for `url` (the same one for every connection to it: a task reference names it).
export const endpointOf = (url) => createTaskSessionEndpointId("agentkit", { transport: "streamable-http", url });

/// The official client at 2026-07-28, declaring the extension (and elicitation when `elicit`
/// answers it: request params → the ElicitResult), and a task session over it.
export async function openTaskSession(url, endpointId, { elicit } = {}) {
  const caps = { extensions: { [TASKS]: {} }, ...(elicit ? { elicitation: { form: {} } } : {}) };
  const client = new Client(INFO, { capabilities: caps, versionNegotiation: { mode: { pin: VERSION } } });
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { fetch: logFetch }));
  const raw = await rawDispatcher(url);
  const session = createTaskSessionFromClient(client, {
    endpointId,
    rawDispatch: raw.dispatch,
    v2RequestFraming: { protocolVersion: client.getNegotiatedProtocolVersion() ?? VERSION, clientInfo: INFO, clientCapabilities: caps },
    ...(elicit
      ? {
          onInputRequest: createApplicationInputHandler({
            elicitation: async (request) => elicit(request.params),
            sampling: async () => {
              throw new Error("no sampling here");
            },
            roots: async () => ({ roots: [] }),
          }),
        }
      : {}),
  });
  return {
    client,
    session,
    async close() {
      await session.close();
      await raw.close();
      await client.close();
    },
  };
}

/// An execution's result, whether the server answered at once or with a task.
export const final = async (execution) => resultFromTaskOutcome((await execution.settle()).outcome);
export { resultFromTaskOutcome };
