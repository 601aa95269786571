// An MCP server program started on a free port for a test: resolves once its stderr names the
// URL it serves ("serving http://…/mcp"), with the process, the URL, and what it wrote so far on
// stderr and stdout (which, over HTTP, must stay empty of protocol).
import { spawn } from "node:child_process";

export function startServing(binary, args = [], env = {}) {
  const child = spawn(binary, [...args, "--port", "0"], { stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, ...env } });
  let stderr = "";
  let stdout = "";
  child.stdout.on("data", (d) => (stdout += d));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no URL on stderr within 30 s: ${stderr}`)), 30000);
    child.on("exit", (code) => reject(new Error(`${binary} exited (${code}) before serving: ${stderr}`)));
    child.stderr.on("data", (d) => {
      stderr += d;
      const m = /serving (http:\/\/\S+\/mcp)/.exec(stderr);
      if (m) {
        clearTimeout(timer);
        child.removeAllListeners("exit");
        resolve({ child, url: m[1], stderr: () => stderr, stdout: () => stdout });
      }
    });
  });
}
