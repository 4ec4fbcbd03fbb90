// spell serve against a bare fastify route doing the same cast (issue 39), imported by
// serve.bench.mjs: one client in this process sends POST /cast one request at a time over a
// keep-alive connection, CASTS requests a round, to `spell serve`'s server and then to a
// fastify app with one route that casts the same spell into the same kind of loom (JSONL) and
// answers { status, result }; the order alternates each round. The ratio of the two means is
// what the server's own layers (guards, limits, redaction, error shape) cost over the framework
// and the cast, measured side by side so that load falls on both.
//
// Then saturated (issue 40): a client process (this file, forked) keeps SATURATED_CLIENTS casts
// in flight for SATURATED_MS a side, against `spell serve`, the fastify route that casts, and a
// fastify route that answers the same JSON without casting; rows are the casts/s ratios of the
// rounds. Both served looms redact every record, as `spell serve`'s loom does (the spell's
// redactor, spell/loom-store.ts), so redaction's cost at rest is in the figure.
import { fork } from "node:child_process";
import http from "node:http";
import { fileURLToPath } from "node:url";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Fastify from "fastify";
import { JsonlStore, Loom } from "../dist/index.js";
import { createHttpServer } from "../dist/protocols/http/server.js";
import { Redactor } from "../dist/core/redact.js";
import { interleave, median, ratio } from "./paired.mjs";
import { rounds, row } from "./report.mjs";

const CASTS = Number(process.env.SERVE_BENCH_PAIRED_CASTS ?? 200);
const SATURATED_CLIENTS = 16;
const SATURATED_MS = Number(process.env.SERVE_BENCH_SATURATED_MS ?? 1000);
const body = JSON.stringify({ intent: "go" });

/** Casts/s with `clients` casts in flight for `ms` against `port` (run in the client process). */
async function saturate(port, clients, ms) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: clients });
  const headers = { "content-type": "application/json", "content-length": Buffer.byteLength(body) };
  const once = () =>
    new Promise((resolve, reject) => {
      const req = http.request(
        { host: "127.0.0.1", port, path: "/cast", method: "POST", agent, headers },
        (res) => {
          res.resume();
          res.on("end", () =>
            res.statusCode === 200 ? resolve() : reject(new Error(`cast: ${res.statusCode}`)),
          );
        },
      );
      req.on("error", reject);
      req.end(body);
    });
  let n = 0;
  const t0 = performance.now();
  const end = t0 + ms;
  await Promise.all(
    Array.from({ length: clients }, async () => {
      while (performance.now() < end) {
        await once();
        n++;
      }
    }),
  );
  agent.destroy();
  return { perSecond: n / ((performance.now() - t0) / 1000), n };
}

if (process.env.SERVE_PAIRED_CLIENT) {
  // The client process: one saturated phase per message, its casts/s sent back.
  process.on("message", ({ port, clients, ms }) =>
    saturate(port, clients, ms).then(
      (done) => process.send(done),
      (err) => process.send({ error: String(err) }),
    ),
  );
}

/**
 * The client process; `phase(port)` resolves to casts/s. `served` has, per port, the CPU this
 * process (the servers' process) spent and the requests answered over every phase.
 */
function saturatingClient() {
  const child = fork(fileURLToPath(import.meta.url), [], {
    env: { ...process.env, SERVE_PAIRED_CLIENT: "1" },
  });
  const served = new Map();
  const phase = (port) =>
    new Promise((resolve, reject) => {
      const cpu = process.cpuUsage();
      child.once("message", (m) => {
        if (m.error) return reject(new Error(m.error));
        const used = process.cpuUsage(cpu);
        const was = served.get(port) ?? { cpuUs: 0, requests: 0 };
        served.set(port, {
          cpuUs: was.cpuUs + used.user + used.system,
          requests: was.requests + m.n,
        });
        resolve(m.perSecond);
      });
      child.send({ port, clients: SATURATED_CLIENTS, ms: SATURATED_MS });
    });
  return { phase, served, close: () => child.kill() };
}

/** `n` casts one at a time against `port`; ms per cast. */
function sequential(port, agent, n) {
  const headers = { "content-type": "application/json", "content-length": Buffer.byteLength(body) };
  const once = () =>
    new Promise((resolve, reject) => {
      const req = http.request(
        { host: "127.0.0.1", port, path: "/cast", method: "POST", agent, headers },
        (res) => {
          const parts = [];
          res.on("data", (d) => parts.push(d));
          res.on("end", () => {
            const text = Buffer.concat(parts).toString("utf8");
            if (res.statusCode !== 200 || JSON.parse(text).status !== "terminated")
              reject(new Error(`cast failed: ${res.statusCode} ${text}`));
            else resolve();
          });
          res.on("error", reject);
        },
      );
      req.on("error", reject);
      req.end(body);
    });
  return (async () => {
    const t0 = performance.now();
    for (let i = 0; i < n; i++) await once();
    return (performance.now() - t0) / n;
  })();
}

const CAST_ALONE = Number(process.env.SERVE_BENCH_CAST_ALONE ?? 2000);

/**
 * Why the saturated ratio to bare fastify stays where it is (issue 40): the servers' CPU per
 * request over the saturated phases, and the CPU of the same cast alone, in this process, one
 * after another, into the same kind of loom. A served cast costs at least the framework's
 * request plus the cast, so a cast costing as much as a whole bare request (the last row ≥ 1)
 * leaves no server above 0.5× of that request's rate.
 */
async function castBound(cantrip, served, ports) {
  const us = { unit: "µs", digits: 1, better: "lower" };
  const per = (port) => {
    const s = served.get(port);
    return s.cpuUs / s.requests;
  };
  row("server CPU per request, saturated: spell serve", per(ports.serve), us);
  row("server CPU per request, saturated: fastify route casting", per(ports.cast), us);
  row("server CPU per request, saturated: fastify returning JSON", per(ports.json), us);
  const rounds3 = [];
  for (let r = 0; r < 3; r++) {
    globalThis.gc?.();
    const cpu = process.cpuUsage();
    for (let i = 0; i < CAST_ALONE; i++) await cantrip.cast("go");
    const used = process.cpuUsage(cpu);
    rounds3.push((used.user + used.system) / CAST_ALONE);
  }
  const alone = median(rounds3);
  row("CPU of the cast alone (3 turns, JSONL loom, redacting), in process", alone, {
    ...us,
    note: `(median of 3 rounds of ${CAST_ALONE})`,
  });
  row("the cast alone / a whole bare fastify JSON request, CPU", alone / per(ports.json), {
    unit: "×",
    note: "(≥ 1: no server reaches 0.5× of bare fastify's rate)",
  });
}

/** `makeCantrip(loom)`: serve.bench's 3-turn cantrip. */
export async function serveVersusFastify(makeCantrip) {
  const dir = mkdtempSync(join(tmpdir(), "serve-paired-"));
  const redactor = new Redactor();
  redactor.add("sk-bench-key-0123456789abcdef"); // a spell's provider key, as loaded
  const redact = (text) => redactor.redact(text);
  const served = makeCantrip(new Loom(new JsonlStore(join(dir, "served.jsonl"), { redact })));
  const loaded = { name: "bench", cantrip: served, redactor, spell: {} };
  const app = await createHttpServer(loaded, { maxConcurrent: 4 });
  await app.listen({ port: 0, host: "127.0.0.1" });

  const plain = makeCantrip(new Loom(new JsonlStore(join(dir, "bare.jsonl"), { redact })));
  const bare = Fastify({ logger: false });
  bare.post("/cast", async (req) => {
    const r = await plain.cast(req.body.intent);
    return { status: r.status, result: r.result };
  });
  await bare.listen({ port: 0, host: "127.0.0.1" });
  // The framework alone: the answer of a cast, without the cast.
  const json = Fastify({ logger: false });
  json.post("/cast", async () => ({ status: "terminated", result: "ok" }));
  await json.listen({ port: 0, host: "127.0.0.1" });

  const agents = [new http.Agent({ keepAlive: true }), new http.Agent({ keepAlive: true })];
  const ports = [app.server.address().port, bare.server.address().port];
  const client = saturatingClient();
  try {
    await sequential(ports[0], agents[0], 50); // warm both paths up
    await sequential(ports[1], agents[1], 50);
    const t = await interleave(rounds(7), {
      serve: () => sequential(ports[0], agents[0], CASTS),
      fastify: () => sequential(ports[1], agents[1], CASTS),
    });
    const ms = { unit: "ms", digits: 3, better: "lower" };
    row("one cast over HTTP, one at a time: spell serve", median(t.serve), ms);
    row("one cast over HTTP, one at a time: bare fastify route", median(t.fastify), ms);
    row("spell serve / bare fastify route, same cast", ratio(t.serve, t.fastify), {
      better: "lower",
      paired: true,
      note: `(${CASTS} casts a round)`,
    });

    const jsonPort = json.server.address().port;
    for (const port of [...ports, jsonPort]) await client.phase(port); // warm up
    client.served.clear();
    const s = await interleave(rounds(5), {
      serve: () => client.phase(ports[0]),
      cast: () => client.phase(ports[1]),
      json: () => client.phase(jsonPort),
    });
    const perS = { unit: "casts/s", digits: 0, better: "higher" };
    const note = `(${SATURATED_CLIENTS} clients, ${SATURATED_MS} ms a side a round)`;
    row("saturated: spell serve", median(s.serve), perS);
    row("saturated: bare fastify route casting", median(s.cast), perS);
    row("saturated: bare fastify returning JSON", median(s.json), perS);
    const overJson = ratio(s.serve, s.json);
    row("saturated casts/s: spell serve / bare fastify returning JSON", overJson, {
      better: "higher",
      paired: true,
      target: "≥ 0.5×",
      ok: overJson.median >= 0.5,
      note,
    });
    // What the cast and its loom leave of that (no server could beat it).
    row(
      "saturated casts/s: fastify route casting / fastify returning JSON",
      ratio(s.cast, s.json),
      {
        better: "higher",
        paired: true,
        note,
      },
    );
    row("saturated casts/s: spell serve / fastify route casting", ratio(s.serve, s.cast), {
      better: "higher",
      paired: true,
      note,
    });
    await castBound(plain, client.served, { serve: ports[0], cast: ports[1], json: jsonPort });
  } finally {
    client.close();
    for (const a of agents) a.destroy();
    await app.close();
    await bare.close();
    await json.close();
    served.loom.close();
    plain.loom.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
