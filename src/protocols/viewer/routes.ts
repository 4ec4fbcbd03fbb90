/**
 * The viewer's API: the sources, a loom's entities (paged), an entity's tree rows and thread
 * (paged), one turn whole, an eval run's table. A loom is looked at again at each request (its
 * appended bytes read, or being read in the background while there are many), so a running
 * cast's turns appear as they land. Every answer goes out
 * through `send`, which redacts every string value before it is encoded.
 */
import { redactingReplacer } from "../../core/redact-stream.js";
import type { FastifyInstance, FastifyReply } from "fastify";
import type { ErrorCode } from "../../core/error-codes.js";
import type { ViewerIndex } from "../../loom/viewer/index.js";
import { entityLayout, threadRows, type TreeLayout } from "../../loom/viewer/index.js";
import { forkRoutes, type ForkRunner } from "./fork-route.js";
import { queryEntities, type EntityQuery } from "./entity-query.js";
import { readEvalRun } from "./evals.js";
import type { ViewerSources } from "./sources.js";

type Params = { s: string; e?: string; t?: string };
type Query = { offset?: string; limit?: string } & EntityQuery;

const MAX_PAGE = 1000;
/** While a loom is read in the background, a tree is laid out again at most this often. */
const RELAYOUT_MS = 1000;

export function fail(reply: FastifyReply, status: number, code: ErrorCode, message: string) {
  return reply
    .code(status)
    .type("application/json")
    .send(JSON.stringify({ error: { code, message } }));
}

type Send = (reply: FastifyReply, value: unknown) => FastifyReply;

const missing = (reply: FastifyReply, what: string) => fail(reply, 404, "not_found", `no ${what}`);

export function apiRoutes(
  app: FastifyInstance,
  sources: ViewerSources,
  redact: (t: string) => string,
  fork?: ForkRunner,
  forkModels: readonly string[] = [],
) {
  const replacer = redactingReplacer(redact);
  const send: Send = (reply, value) =>
    reply.type("application/json").send(JSON.stringify(value, replacer));

  app.get("/api/sources", (_req, reply) =>
    send(
      reply,
      sources.list().map((s) => ({
        id: s.id,
        kind: s.kind,
        name: s.name,
        ...(s.kind === "eval" ? { loom: s.loom } : {}),
      })),
    ),
  );
  loomRoutes(app, sources, send, redact);
  forkRoutes(app, sources, send, redact, fork && { run: fork, models: forkModels });
  app.get<{ Params: Params }>("/api/evals/:s", (req, reply) => {
    const s = sources.get(req.params.s);
    if (s?.kind !== "eval") return missing(reply, "eval run");
    const table = readEvalRun((name) => sources.readText(`${s.path}/${name}`));
    if (!table) return missing(reply, "eval run");
    // The summary as pairs: its keys are the run's words, redacted like its values.
    return send(reply, {
      name: s.name,
      loom: s.loom,
      summary: Object.entries(table.summary),
      rows: table.rows,
    });
  });
}

/**
 * A loom's index, looked at again (a little appended is read now, much in the background);
 * undefined when it is removed or no longer a file inside, or its store cannot be read.
 */
async function freshLoom(sources: ViewerSources, id: string): Promise<ViewerIndex | undefined> {
  const s = sources.get(id);
  if (s?.kind !== "loom") return undefined;
  try {
    await s.index.look();
  } catch {
    return undefined;
  }
  return s.index;
}

/** A turn read back (from its line, or its store), or null when it cannot be read now. */
async function readTurn(index: ViewerIndex, id: string) {
  try {
    return await index.readTurn(id);
  } catch {
    return null;
  }
}

/** A loom's routes; the loom is looked at again (its appended bytes read) at each request. */
function loomRoutes(
  app: FastifyInstance,
  sources: ViewerSources,
  send: Send,
  redact: (t: string) => string,
) {
  const layouts = new Map<string, { version: number; layout: TreeLayout; at: number }>();
  const loom = (id: string) => freshLoom(sources, id);
  app.get<{ Params: Params }>("/api/l/:s/stat", async (req, reply) => {
    const index = await loom(req.params.s);
    if (!index) return missing(reply, "loom");
    return send(reply, {
      version: index.version,
      turns: index.order.length,
      entities: index.entities.size,
      problem: index.problem,
      reading: index.reading,
    });
  });
  app.get<{ Params: Params; Querystring: Query }>("/api/l/:s/entities", async (req, reply) => {
    const index = await loom(req.params.s);
    if (!index) return missing(reply, "loom");
    return send(reply, page(queryEntities(index.entities.values(), req.query, redact), req.query));
  });
  app.get<{ Params: Params; Querystring: Query }>("/api/l/:s/e/:e/rows", async (req, reply) => {
    const index = await loom(req.params.s);
    const entity = index?.entities.get(req.params.e ?? "");
    if (!index || !entity) return missing(reply, "entity");
    const key = `${req.params.s}\n${entity.id}`;
    let cached = layouts.get(key);
    // Laid out again when the loom changed; while a big loom is read in the background (a new
    // version every slice), at most once a second: a 100,000-turn tree takes 60–300 ms.
    const now = performance.now();
    const stale =
      cached === undefined ||
      (cached.version !== index.version && (!index.reading || now - cached.at >= RELAYOUT_MS));
    if (stale) {
      cached = { version: index.version, layout: entityLayout(index, entity.id), at: now };
      layouts.set(key, cached);
    }
    const { offset, limit } = range(req.query);
    const { layout } = cached!;
    return send(reply, { entity, total: layout.length, offset, rows: layout.rows(offset, limit) });
  });
  app.get<{ Params: Params; Querystring: Query }>("/api/l/:s/e/:e/thread", async (req, reply) => {
    const index = await loom(req.params.s);
    const entity = index?.entities.get(req.params.e ?? "");
    if (!index || !entity) return missing(reply, "entity");
    return send(reply, { entity, ...page(threadRows(index, entity.id), req.query) });
  });
  app.get<{ Params: Params }>("/api/l/:s/t/:t", async (req, reply) => {
    const index = await loom(req.params.s);
    const turn = index && (await readTurn(index, req.params.t ?? ""));
    if (!index || !turn) return missing(reply, "turn");
    return send(reply, turnDetail(index, turn.id, turn));
  });
}

function range(query: Query): { offset: number; limit: number } {
  const offset = Math.max(0, Number.parseInt(query.offset ?? "0", 10) || 0);
  const limit = Math.min(MAX_PAGE, Math.max(1, Number.parseInt(query.limit ?? "200", 10) || 200));
  return { offset, limit };
}

function page<T>(all: T[], query: Query): { total: number; offset: number; rows: T[] } {
  const { offset, limit } = range(query);
  return { total: all.length, offset, rows: all.slice(offset, offset + limit) };
}

/** A turn whole, with the folds that cover it and the entities that hang from it. */
export function turnDetail(index: ViewerIndex, id: string, turn: unknown) {
  const t = index.turns.get(id)!;
  const folds = index.folds.filter(
    (f) => f.entity_id === t.entity && t.seq >= f.from_sequence && t.seq <= f.to_sequence,
  );
  const hanging = (index.children.get(id) ?? [])
    .map((c) => index.turns.get(c))
    .filter((c): c is NonNullable<typeof c> => c !== undefined && c.entity !== t.entity)
    .map((c) => ({ entity: c.entity, kind: c.forkOf ? "fork" : "child" }));
  return { turn, view: t, folds, hanging };
}
