// spell serve against a bare fastify route doing the same cast (issue 39), imported by
// serve.bench.mjs: one client in this process sends POST /cast one request at a time over a
// keep-alive connection, CASTS requests a round, to `spell serve`'s server and then to a
// fastify app with one route that casts the same spell into the same kind of loom (JSONL) and
// answers { status, result }; the order alternates each round. The ratio of the two means is
// what the server's own layers (guards, limits, redaction, error shape) cost over the framework
// and the cast, measured side by side so that load falls on both.
import http from "node:http";
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
const body = JSON.stringify({ intent: "go" });

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

/** `makeCantrip(loom)`: serve.bench's 3-turn cantrip. */
export async function serveVersusFastify(makeCantrip) {
  const dir = mkdtempSync(join(tmpdir(), "serve-paired-"));
  const served = makeCantrip(new Loom(new JsonlStore(join(dir, "served.jsonl"))));
  const loaded = { name: "bench", cantrip: served, redactor: new Redactor(), spell: {} };
  const app = await createHttpServer(loaded, { maxConcurrent: 4 });
  await app.listen({ port: 0, host: "127.0.0.1" });

  const plain = makeCantrip(new Loom(new JsonlStore(join(dir, "bare.jsonl"))));
  const bare = Fastify({ logger: false });
  bare.post("/cast", async (req) => {
    const r = await plain.cast(req.body.intent);
    return { status: r.status, result: r.result };
  });
  await bare.listen({ port: 0, host: "127.0.0.1" });

  const agents = [new http.Agent({ keepAlive: true }), new http.Agent({ keepAlive: true })];
  const ports = [app.server.address().port, bare.server.address().port];
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
  } finally {
    for (const a of agents) a.destroy();
    await app.close();
    await bare.close();
    served.loom.close();
    plain.loom.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
