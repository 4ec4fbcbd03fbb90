/**
 * `spell view --allow-fork`: a fork from a turn, asked by the page (POST /api/l/ID/fork with
 * `{ turn, intent, llm? }`). It spends the user's tokens, so it is refused unless the server was
 * started with --allow-fork (the route does not exist otherwise), and — on top of the guard
 * (loopback, or the token) — unless the request carries the page's `x-spell-view: fork` header
 * and a JSON body (neither can be sent by a form or by another site's script without a CORS
 * preflight, which the guard refuses) and no foreign Origin (even with the token: a page on
 * another port of the same host would carry the same-site cookie). One fork runs at a time. The
 * fork itself is the command's (`spell loom fork`, given by the caller): the spell recorded
 * beside the loom for the entity, continuing with the intent, on its LLM or the one named —
 * which the server checks is one it offers (--fork-llm, or a model the loom has seen): the
 * page's list is not trusted. An intent with control characters (other than tab and newline)
 * is refused; the turn must be one of this loom's (its id is looked up, never used as a path).
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type { ViewerIndex } from "../../loom/viewer/index.js";
import { fail } from "../http/cast-route.js";
import type { ViewerSources } from "./sources.js";

export interface ForkRequest {
  turn: string;
  intent: string;
  llm?: string | undefined;
}

export interface ForkAnswer {
  entity: string;
  status: string;
  reason: string;
  last_turn_id: string | null;
}

/** Runs a fork of the loom at `path` (on disk); throws an Error whose message says why it failed. */
export type ForkRunner = (path: string, request: ForkRequest) => Promise<ForkAnswer>;

type Send = (reply: FastifyReply, value: unknown) => FastifyReply;

const LLM = /^[\w.-]+\/[\w.:/@+-]+$/;
const MAX_INTENT = 20_000;
/** Control characters an intent may not hold: C0 but tab, newline, return; DEL; C1. */
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f]/;

/** The models the loom has seen (`provider/model`), offered in the page's form. */
function models(index: ViewerIndex): string[] {
  const seen = new Set<string>();
  for (const t of index.turns.values()) if (t.llm) seen.add(t.llm);
  return [...seen].sort();
}

/** Why a fork request must be refused before its body is read, or undefined. */
function refusal(req: FastifyRequest): string | undefined {
  if (req.headers["x-spell-view"] !== "fork")
    return "a fork is asked by the viewer's page (x-spell-view: fork)";
  const origin = req.headers.origin;
  if (origin !== undefined && origin !== `http://${req.headers.host ?? ""}`)
    return `Origin ${JSON.stringify(origin.slice(0, 100))} is not this server's page`;
  return undefined;
}

function parse(body: unknown): ForkRequest | string {
  if (!body || typeof body !== "object" || Array.isArray(body)) return "the body is not an object";
  const { turn, intent, llm } = body as Record<string, unknown>;
  if (typeof turn !== "string" || !turn || turn.length > 200) return "turn: a turn id";
  if (typeof intent !== "string" || !intent.trim() || intent.length > MAX_INTENT)
    return `intent: the text the fork continues with (1 to ${MAX_INTENT} characters)`;
  if (CONTROL.test(intent)) return "intent: control characters are not allowed";
  if (
    llm !== undefined &&
    llm !== "" &&
    (typeof llm !== "string" || !LLM.test(llm) || llm.length > 200)
  )
    return "llm: provider/model";
  return { turn, intent, llm: typeof llm === "string" && llm ? llm : undefined };
}

type Fork = { run: ForkRunner; models: readonly string[] };

/** The models a fork may run on: those given (--fork-llm) first, then those the loom has seen. */
function offered(index: ViewerIndex, fork: Fork): string[] {
  return [...fork.models, ...models(index).filter((m) => !fork.models.includes(m))];
}

/** What the page may do: fork or not, and the models to offer (given ones first). */
function featuresRoute(
  app: FastifyInstance,
  sources: ViewerSources,
  send: Send,
  fork?: Fork,
): void {
  const cache = new Map<string, { version: number; models: string[] }>();
  app.get<{ Params: { s: string } }>("/api/l/:s/features", (req, reply) => {
    const s = sources.get(req.params.s);
    if (s?.kind !== "loom") return fail(reply, 404, "not_found", "no loom");
    if (!fork) return send(reply, { fork: false, models: [] });
    let c = cache.get(s.id);
    if (c?.version !== s.index.version) {
      c = { version: s.index.version, models: offered(s.index, fork) };
      cache.set(s.id, c);
    }
    return send(reply, { fork: true, models: c.models });
  });
}

/** Why the turn or the model asked is not this loom's or not offered, or undefined. */
function notHere(index: ViewerIndex, asked: ForkRequest, fork: Fork): string | undefined {
  if (!index.turns.has(asked.turn)) return `no turn ${JSON.stringify(asked.turn)} in this loom`;
  // The page offers these; the server holds to them (a request may name anything).
  if (asked.llm !== undefined && !offered(index, fork).includes(asked.llm))
    return "llm: that model is not offered (the spell's, the loom's, or one given with --fork-llm)";
  return undefined;
}

export function forkRoutes(
  app: FastifyInstance,
  sources: ViewerSources,
  send: Send,
  redact: (text: string) => string,
  /** The fork and the models to offer first (`--fork-llm`); undefined without --allow-fork. */
  fork: Fork | undefined,
): void {
  featuresRoute(app, sources, send, fork);
  if (!fork) return;
  let running = false;
  app.post<{ Params: { s: string } }>(
    "/api/l/:s/fork",
    {
      // Refused before the body is read: another site's request costs a header check.
      onRequest: async (req, reply) => {
        const why = refusal(req);
        if (why) return fail(reply.header("connection", "close"), 403, "fork_refused", why);
        return undefined;
      },
      bodyLimit: 64 * 1024,
    },
    async (req, reply) => {
      if (!req.headers["content-type"]?.startsWith("application/json"))
        return fail(reply, 403, "fork_refused", "a fork request's body is JSON");
      const s = sources.get(req.params.s);
      if (s?.kind !== "loom") return fail(reply, 404, "not_found", "no loom");
      const asked = parse(req.body);
      if (typeof asked === "string") return fail(reply, 400, "fork_invalid", redact(asked));
      try {
        // The turn must be known: what is left to read is read first (in the background).
        await s.index.look();
        await s.index.whenRead();
      } catch {
        return fail(reply, 404, "not_found", "no loom");
      }
      const why = notHere(s.index, asked, fork);
      if (why) return fail(reply, 400, "fork_invalid", redact(why));
      if (running) return fail(reply, 409, "fork_busy", "a fork is running; wait for it");
      running = true;
      try {
        return send(reply, await sources.withOnDisk(s.path, (path) => fork.run(path, asked)));
      } catch (err) {
        const message = err instanceof Error ? err.message : String(err);
        return fail(reply, 422, "fork_failed", redact(message));
      } finally {
        running = false;
      }
    },
  );
}
