// A small MCP client on the official TypeScript SDK, used by the mcpserver
// tests to talk to hermes the way Claude Desktop or Cursor would.
//
// Usage: node client.mjs '<plan JSON>'
//
// The plan names the SDK's directory (ESM ignores NODE_PATH, so the SDK is
// imported by absolute path), the transport and the steps to run:
//
//   {"sdk": "/.../node_modules/@modelcontextprotocol/sdk",
//    "transport": "stdio", "command": "/path/to/server", "args": [], "env": {},
//    "steps": [{"op": "list"}, {"op": "call", "name": "x", "arguments": {}}]}
//
//   {"sdk": "...", "transport": "http", "url": "http://127.0.0.1:1234/mcp",
//    "token": "optional bearer token", "terminate": true, "steps": [...]}
//
// Steps: "list" lists the tools; "call" calls one; "pause" prints a line
// and waits for a line on stdin; "await_list_changed" waits (up to
// timeout_ms) for notifications/tools/list_changed. Each step prints one
// JSON line to stdout; so does the connection, first.

import { join } from "node:path";
import { createInterface } from "node:readline";
import { pathToFileURL } from "node:url";

const plan = JSON.parse(process.argv[2]);
const load = (file) => import(pathToFileURL(join(plan.sdk, "dist", "esm", file)).href);
const emit = (obj) => process.stdout.write(JSON.stringify(obj) + "\n");
const message = (err) => String(err?.message ?? err);

const { Client } = await load("client/index.js");
const { ToolListChangedNotificationSchema } = await load("types.js");

let transport;
if (plan.transport === "stdio") {
  const { StdioClientTransport } = await load("client/stdio.js");
  transport = new StdioClientTransport({
    command: plan.command,
    args: plan.args ?? [],
    env: plan.env ?? {},
    stderr: "inherit",
  });
} else {
  const { StreamableHTTPClientTransport } = await load("client/streamableHttp.js");
  const headers = plan.token ? { Authorization: `Bearer ${plan.token}` } : {};
  transport = new StreamableHTTPClientTransport(new URL(plan.url), { requestInit: { headers } });
}

const client = new Client({ name: "hermes-test-client", version: "1.0.0" });
let changes = 0;
let waiters = [];
client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
  changes++;
  for (const wake of waiters.splice(0)) wake();
});

try {
  await client.connect(transport);
} catch (err) {
  emit({ op: "connect", error: message(err) });
  process.exit(0);
}
emit({ op: "connect", server: client.getServerVersion(), session: transport.sessionId ?? null });

const stdin = createInterface({ input: process.stdin })[Symbol.asyncIterator]();

for (const step of plan.steps ?? []) {
  switch (step.op) {
    case "list": {
      const res = await client.listTools();
      emit({ op: "list", tools: res.tools });
      break;
    }
    case "call": {
      try {
        const res = await client.callTool({ name: step.name, arguments: step.arguments ?? {} });
        emit({ op: "call", name: step.name, result: res });
      } catch (err) {
        emit({ op: "call", name: step.name, error: message(err) });
      }
      break;
    }
    case "pause": {
      emit({ op: "pause" });
      await stdin.next();
      break;
    }
    case "await_list_changed": {
      if (changes === 0) {
        await new Promise((wake) => {
          waiters.push(wake);
          setTimeout(wake, step.timeout_ms ?? 20000);
        });
      }
      emit({ op: "await_list_changed", changes });
      changes = 0;
      break;
    }
    default:
      emit({ op: step.op, error: `unknown step ${step.op}` });
  }
}

if (plan.terminate && transport.terminateSession) {
  await transport.terminateSession();
}
await client.close();
emit({ op: "closed" });
process.exit(0);
