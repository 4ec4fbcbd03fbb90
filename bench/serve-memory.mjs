// spell serve's memory (issue 20), imported by serve.bench.mjs: it must be bounded by the work
// in flight, not by history. Two rows, each measured in this process after full collections:
// RSS and JS heap with 0, 100 and 1,000 idle sessions (each has had one send), and after
// serving 0, 50 and 100 MB of looms (casts of big turns into a JSONL loom, a session's loom
// read back over HTTP every 10 MB). Both should stay flat.
import http from "node:http";
import { URL } from "node:url";
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  Cantrip,
  Circle,
  createIdentity,
  doneGate,
  echoGate,
  JsonlStore,
  Loom,
} from "../dist/index.js";
import { createHttpServer } from "../dist/protocols/http/server.js";
import { Redactor } from "../dist/core/redact.js";
import { row } from "./report.mjs";

const BIG = "x".repeat(Number(process.env.SERVE_BENCH_TURN_BYTES ?? 100_000));

/** echo (with `text`), echo, done — counted from the context since the last intent. */
const llm = (text) => ({
  name: "bench/memory",
  query(messages) {
    let since = 0;
    for (let i = messages.length - 1; i >= 0 && messages[i].role !== "user"; i--)
      if (messages[i].role === "assistant") since++;
    const args = since < 2 ? { text } : { answer: "ok" };
    const name = since < 2 ? "echo" : "done";
    return Promise.resolve({
      content: null,
      toolCalls: [{ id: `c${since}`, name, arguments: JSON.stringify(args), input: args }],
      usage: { promptTokens: 10, completionTokens: 2, cachedTokens: 0 },
    });
  },
});

async function server(text) {
  const dir = mkdtempSync(join(tmpdir(), "serve-memory-"));
  const file = join(dir, "loom.jsonl");
  const cantrip = new Cantrip({
    llm: llm(text),
    identity: createIdentity({ systemPrompt: "bench" }),
    circle: new Circle({ gates: [doneGate(), echoGate()], wards: [{ max_turns: 5 }] }),
    loom: new Loom(new JsonlStore(file)),
  });
  const loaded = { name: "bench", cantrip, redactor: new Redactor(), spell: {} };
  const app = await createHttpServer(loaded, { maxSessions: 5000, maxConcurrent: 64 });
  const url = new URL(await app.listen({ port: 0, host: "127.0.0.1" }));
  const agent = new http.Agent({ keepAlive: true, maxSockets: 16 });
  const call = (method, path, body) =>
    new Promise((resolve, reject) => {
      const data = body === undefined ? undefined : JSON.stringify(body);
      const headers = data ? { "content-type": "application/json" } : {};
      const req = http.request(
        { host: url.hostname, port: url.port, method, path, agent, headers },
        (res) => {
          const parts = [];
          res.on("data", (d) => parts.push(d));
          res.on("end", () => resolve({ status: res.statusCode, text: Buffer.concat(parts) }));
        },
      );
      req.on("error", reject);
      req.end(data);
    });
  const close = async () => {
    agent.destroy();
    await app.close();
    cantrip.loom.close();
    rmSync(dir, { recursive: true, force: true });
  };
  return { call, close, file };
}

function measure() {
  globalThis.gc?.();
  globalThis.gc?.();
  const { rss, heapUsed } = process.memoryUsage();
  return { rss: rss / 1e6, heap: heapUsed / 1e6 };
}

/** Two rows: RSS and JS heap after full collections. */
function memoryRows(name, m, note) {
  row(`${name}: RSS`, m.rss, { unit: "MB", digits: 0, better: "lower", note });
  row(`${name}: JS heap`, m.heap, { unit: "MB", digits: 1, better: "lower" });
}

export async function idleSessions() {
  const s = await server("hi");
  const open = async (n) => {
    for (let i = 0; i < n; i++) {
      const { text } = await s.call("POST", "/sessions");
      const { id } = JSON.parse(text.toString());
      await s.call("POST", `/sessions/${id}/send`, { intent: "go" });
    }
  };
  const at0 = measure();
  await open(100);
  const at100 = measure();
  await open(900);
  const at1000 = measure();
  await s.close();
  const perSession = ((at1000.heap - at100.heap) * 1e6) / 900;
  memoryRows("0 idle sessions", at0);
  memoryRows("100 idle sessions", at100);
  memoryRows("1,000 idle sessions", at1000);
  row("JS heap per idle session", perSession / 1e3, { unit: "KB", digits: 1, better: "lower" });
}

export async function servedLooms(totalMb = Number(process.env.SERVE_BENCH_LOOM_MB ?? 100)) {
  const s = await server(BIG);
  const { text } = await s.call("POST", "/sessions");
  const { id } = JSON.parse(text.toString());
  await s.call("POST", `/sessions/${id}/send`, { intent: "go" });
  const rows = [[0, measure()]];
  let nextRead = 10;
  const size = () => statSync(s.file).size / 1e6;
  while (size() < totalMb) {
    await Promise.all(Array.from({ length: 8 }, () => s.call("POST", "/cast", { intent: "go" })));
    if (size() >= nextRead) {
      await s.call("GET", `/sessions/${id}/loom`);
      nextRead += 10;
    }
    if (rows.length === 1 && size() >= totalMb / 2) rows.push([size(), measure()]);
  }
  rows.push([size(), measure()]);
  await s.close();
  for (const [i, [mb, m]] of rows.entries())
    memoryRows(
      `after serving ${["no", "half the", "all the"][i]} looms`,
      m,
      `(${mb.toFixed(0)} MB)`,
    );
}
