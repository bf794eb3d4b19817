// A small ACP client on the official TypeScript SDK, used by the hermes acp
// tests to talk to hermes the way Zed does.
//
// Usage: node acp_client.mjs '<plan JSON>'
//
//   {"sdk": "/.../node_modules/@agentclientprotocol/sdk",
//    "command": "/path/to/hermes", "args": ["acp"], "env": {}, "cwd": "/dir",
//    "steps": [{"op": "initialize"}, {"op": "new"}, {"op": "prompt", "text": "hi",
//              "permission": "once", "cancel_on": "tool_call"},
//              {"op": "load"}, {"op": "list"},
//              {"op": "set_mode", "mode": "yolo"},
//              {"op": "set_option", "config": "model", "value": "m"}]}
//
// "permission" is the option picked when hermes asks ("cancelled" dismisses
// the request); "cancel_on" sends session/cancel when the first update of
// that kind arrives. "load" loads the session opened by "new" again.
// "new" may pass "mcp_servers" and prints the modes, models and config
// options hermes announced; "set_mode" and "set_option" change the
// session's mode and a config option (the model).
// Each step prints one JSON line to stdout with the updates seen.
//
// With "fs": {"buffers": {"/abs/path": "text"}} in the plan, the client
// offers fs/read_text_file and fs/write_text_file as an editor does: a
// read gets the open buffer of the path, or the file on disk; a write
// saves to disk. A prompt step then also prints the paths read and
// written that way.
//
// With "terminal": true in the plan, the client offers terminal/* as an
// editor does and runs each terminal's command with node's child_process
// in a process group of its own, keeping the tail of its output within
// outputByteLimit; kill and release kill the group. A prompt step then
// also prints the terminals created (command, args, cwd) and released.

import { spawn } from "node:child_process";
import { Buffer } from "node:buffer";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import { join } from "node:path";
import { Readable, Writable } from "node:stream";
import { pathToFileURL } from "node:url";

const plan = JSON.parse(process.argv[2]);
const acp = await import(pathToFileURL(join(plan.sdk, "dist", "v1", "stable", "acp.js")).href);
const emit = (obj) => process.stdout.write(JSON.stringify(obj) + "\n");
const message = (err) => String(err?.message ?? err) + (err?.data ? " " + JSON.stringify(err.data) : "");

// connect starts hermes and runs op with a client context on its stdio.
async function connect(state, op) {
  const child = spawn(plan.command, plan.args, { env: plan.env, cwd: plan.cwd, stdio: ["pipe", "pipe", "inherit"] });
  const stream = acp.ndJsonStream(Writable.toWeb(child.stdin), Readable.toWeb(child.stdout));
  const app = acp.client({ name: "hermes-test-client" })
    .onNotification(acp.methods.client.session.update, ({ params }) => {
      const u = params.update;
      state.updates.push(summary(u));
      if (state.cancelOn && u.sessionUpdate === state.cancelOn && !state.cancelled) {
        state.cancelled = true;
        state.ctx.notify(acp.methods.agent.session.cancel, { sessionId: params.sessionId });
      }
    })
    .onRequest(acp.methods.client.fs.readTextFile, ({ params }) => {
      state.fsReads.push(params.path);
      const buffers = plan.fs?.buffers ?? {};
      return { content: params.path in buffers ? buffers[params.path] : readFileSync(params.path, "utf8") };
    })
    .onRequest(acp.methods.client.fs.writeTextFile, ({ params }) => {
      state.fsWrites.push(params.path);
      mkdirSync(dirname(params.path), { recursive: true });
      writeFileSync(params.path, params.content);
      return {};
    })
    .onRequest(acp.methods.client.terminal.create, ({ params }) => createTerminal(state, params))
    .onRequest(acp.methods.client.terminal.output, ({ params }) => {
      const t = terminal(state, params.terminalId);
      return { output: t.out.toString("utf8"), truncated: t.truncated, exitStatus: t.exit ?? null };
    })
    .onRequest(acp.methods.client.terminal.waitForExit, async ({ params }) => await terminal(state, params.terminalId).done)
    .onRequest(acp.methods.client.terminal.kill, async ({ params }) => {
      const t = terminal(state, params.terminalId);
      killGroup(t);
      await t.done;
      return {};
    })
    .onRequest(acp.methods.client.terminal.release, ({ params }) => {
      killGroup(terminal(state, params.terminalId));
      state.terminals.delete(params.terminalId);
      state.released.push(params.terminalId);
      return {};
    })
    .onRequest(acp.methods.client.session.requestPermission, ({ params }) => {
      state.asked.push({ title: params.toolCall.title, options: params.options.map((o) => o.optionId) });
      if (state.permission === "cancelled") return { outcome: { outcome: "cancelled" } };
      return { outcome: { outcome: "selected", optionId: state.permission } };
    });
  try {
    return await app.connectWith(stream, async (ctx) => {
      state.ctx = ctx;
      return await op(ctx);
    });
  } finally {
    child.stdin.end();
    await new Promise((resolve) => (child.exitCode !== null ? resolve() : child.on("exit", resolve)));
  }
}

// createTerminal runs a terminal's command as an editor would.
function createTerminal(state, params) {
  const id = `term-${++state.terminalCount}`;
  const env = { ...process.env };
  for (const e of params.env ?? []) env[e.name] = e.value;
  const child = spawn(params.command, params.args ?? [], { cwd: params.cwd ?? undefined, env, detached: true, stdio: ["ignore", "pipe", "pipe"] });
  const t = { child, out: Buffer.alloc(0), truncated: false, exit: undefined, limit: params.outputByteLimit ?? Infinity };
  const keep = (chunk) => {
    t.out = Buffer.concat([t.out, chunk]);
    if (t.out.length > t.limit) {
      let from = t.out.length - t.limit;
      while (from < t.out.length && (t.out[from] & 0xc0) === 0x80) from++;
      t.out = t.out.subarray(from);
      t.truncated = true;
    }
  };
  child.stdout.on("data", keep);
  child.stderr.on("data", keep);
  t.done = new Promise((resolve) => child.on("close", (code, signal) => {
    t.exit = { exitCode: code, signal };
    resolve(t.exit);
  }));
  state.terminals.set(id, t);
  state.created.push({ command: params.command, args: params.args, cwd: params.cwd });
  return { terminalId: id };
}

// terminal is the running terminal id.
function terminal(state, id) {
  const t = state.terminals.get(id);
  if (!t) throw new Error(`no terminal ${id}`);
  return t;
}

// killGroup kills a terminal's command with everything it started.
function killGroup(t) {
  if (t.exit) return;
  try {
    process.kill(-t.child.pid, "SIGKILL");
  } catch {}
}

// summary is an update in a few fields the test checks.
function summary(u) {
  const text = (c) => (c?.type === "text" ? c.text : undefined);
  switch (u.sessionUpdate) {
    case "agent_message_chunk":
    case "agent_thought_chunk":
    case "user_message_chunk":
      return { kind: u.sessionUpdate, text: text(u.content) };
    case "tool_call":
      return { kind: u.sessionUpdate, id: u.toolCallId, toolKind: u.kind, title: u.title, status: u.status, locations: u.locations };
    case "tool_call_update":
      return {
        kind: u.sessionUpdate, id: u.toolCallId, status: u.status, locations: u.locations,
        text: (u.content ?? []).map((c) => text(c.content) ?? "").join(""),
        diffs: (u.content ?? []).filter((c) => c.type === "diff").map((c) => ({ path: c.path, oldText: c.oldText ?? null, newText: c.newText })),
        terminals: (u.content ?? []).filter((c) => c.type === "terminal").map((c) => c.terminalId),
      };
    case "plan":
      return { kind: u.sessionUpdate, entries: u.entries };
    case "available_commands_update":
      return { kind: u.sessionUpdate, names: u.availableCommands.map((c) => c.name) };
    case "current_mode_update":
      return { kind: u.sessionUpdate, id: u.currentModeId };
    case "usage_update":
      return { kind: u.sessionUpdate, used: u.used, size: u.size };
  }
  return { kind: u.sessionUpdate };
}

const state = { updates: [], asked: [], fsReads: [], fsWrites: [], sessionId: undefined, terminals: new Map(), terminalCount: 0, created: [], released: [] };
const M = acp.methods.agent;
await connect(state, async (ctx) => {
  for (const step of plan.steps) {
    state.updates = [];
    state.asked = [];
    state.fsReads = [];
    state.fsWrites = [];
    state.created = [];
    state.released = [];
    try {
      switch (step.op) {
        case "initialize": {
          const caps = plan.fs ? { fs: { readTextFile: true, writeTextFile: true } } : {};
          if (plan.terminal) caps.terminal = true;
          const r = await ctx.request(M.initialize, { protocolVersion: acp.PROTOCOL_VERSION ?? 1, clientCapabilities: caps });
          emit({ op: step.op, result: r });
          break;
        }
        case "new": {
          const r = await ctx.request(M.session.new, { cwd: plan.cwd, mcpServers: step.mcp_servers ?? [] });
          state.sessionId = r.sessionId;
          emit({ op: step.op, sessionId: r.sessionId, result: { modes: r.modes, models: r.models, configOptions: r.configOptions } });
          break;
        }
        case "prompt": {
          state.permission = step.permission ?? "cancelled";
          state.cancelOn = step.cancel_on;
          state.cancelled = false;
          const r = await ctx.request(M.session.prompt, { sessionId: state.sessionId, prompt: [{ type: "text", text: step.text }] });
          emit({ op: step.op, stopReason: r.stopReason, updates: state.updates, asked: state.asked, fsReads: state.fsReads, fsWrites: state.fsWrites,
            created: state.created, released: state.released });
          break;
        }
        case "load": {
          await ctx.request(M.session.load, { sessionId: state.sessionId, cwd: plan.cwd, mcpServers: [] });
          emit({ op: step.op, updates: state.updates });
          break;
        }
        case "set_mode": {
          await ctx.request(M.session.setMode, { sessionId: state.sessionId, modeId: step.mode });
          emit({ op: step.op, updates: state.updates });
          break;
        }
        case "set_option": {
          const r = await ctx.request(M.session.setConfigOption, { sessionId: state.sessionId, configId: step.config, value: step.value });
          emit({ op: step.op, result: r });
          break;
        }
        case "list": {
          const r = await ctx.request(M.session.list, {});
          emit({ op: step.op, sessions: r.sessions.map((s) => s.sessionId) });
          break;
        }
      }
    } catch (err) {
      emit({ op: step.op, error: message(err) });
    }
  }
});
process.exit(0);
