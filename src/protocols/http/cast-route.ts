/**
 * One cast over HTTP, for POST /cast and a session's send: the bound on casts at once (429 +
 * Retry-After beyond it), a client that disconnects cancels its cast, and the answer as JSON
 * or, when the client asks for it, as Server-Sent Events — every event through the one
 * streaming redactor (core/redact-stream.ts), so a secret split across deltas never goes out.
 */
import { setMaxListeners } from "node:events";
import type { FastifyReply, FastifyRequest } from "fastify";
import type { ErrorCode } from "../../core/error-codes.js";
import type { CantripEvent } from "../../core/events.js";
import type { Redactor } from "../../core/redact.js";
import { redactedJson, redactingListener } from "../../core/redact-stream.js";
import type { CastResult } from "../../core/result.js";
import type { Loom } from "../../loom/core/index.js";
import { resultJson } from "../result-json.js";

export type Run = (
  onEvent: ((e: CantripEvent) => void) | undefined,
  signal: AbortSignal,
) => Promise<CastResult<Loom>>;

export type Secrets = Pick<Redactor, "redact" | "longest" | "longestEscaped">;

/** The answer text each reply's cast redacted as it is sent (onSend then leaves it as it is). */
const redactedAnswers = new WeakMap<FastifyReply, string>();

/** Whether `payload` is the very text a cast sent on `reply`, already redacted. */
export const sentRedacted = (reply: FastifyReply, payload: string): boolean =>
  redactedAnswers.get(reply) === payload;

export const fail = (reply: FastifyReply, status: number, code: ErrorCode, message: string) =>
  reply.code(status).send({ error: { code, message } });

export interface CastSlots {
  running: number;
  readonly limit: number;
  /** A listener of every cast besides the client's (ServeOptions.observe). */
  readonly observe?: (() => (e: CantripEvent) => void) | undefined;
}

/** `run` with the slots' observer listening too, when there is one. */
function observed(run: Run, slots: CastSlots): Run {
  const observer = slots.observe?.();
  if (!observer) return run;
  return (onEvent, signal) =>
    run((e) => {
      observer(e);
      onEvent?.(e);
    }, signal);
}

export async function cast(
  req: FastifyRequest,
  reply: FastifyReply,
  slots: CastSlots,
  secrets: Secrets,
  given: Run,
): Promise<unknown> {
  if (slots.running >= slots.limit) {
    void reply.header("retry-after", "1");
    return fail(
      reply,
      429,
      "too_many_casts",
      `${slots.limit} casts are running; try again shortly`,
    );
  }
  slots.running++;
  const run = observed(given, slots);
  // A cast may be quiet for minutes: the socket's silence bound does not apply while it runs.
  // (A socket of fastify's `inject` has no timeouts.)
  const socket = req.raw.socket as Partial<Pick<typeof req.raw.socket, "setTimeout">>;
  socket.setTimeout?.(0);
  // A client that goes away cancels its cast; the turns before it stay in the loom.
  const signal = clientGone(req);
  try {
    if (req.headers.accept?.includes("text/event-stream"))
      return await stream(reply, run, signal, secrets);
    const result = await run(undefined, signal);
    // Every string redacted, then the text as sent (no second parse and serialisation per cast).
    const json = answerJson(resultJson(result, result.loom.store.location), secrets);
    redactedAnswers.set(reply, json);
    return reply
      .code(result.status === "failed" ? 502 : 200)
      .type("application/json; charset=utf-8")
      .send(json);
  } finally {
    slots.running--;
  }
}

/** Each connection's "client gone" signal (see clientGone). */
const connections = new WeakMap<object, AbortSignal>();

/**
 * Aborted ("client_disconnected") when the request's connection closes, cancelling every cast
 * still running on it: one per connection, not a controller and a listener per request (~4 µs of
 * a served cast's CPU, issue 40). A cast whose answer went out no longer listens to it.
 */
function clientGone(req: FastifyRequest): AbortSignal {
  const socket = req.raw.socket;
  let signal = connections.get(socket);
  if (!signal) {
    const controller = new AbortController();
    signal = controller.signal;
    // Pipelined requests: one listener each while its cast runs (bounded by the slots).
    setMaxListeners(0, signal);
    socket.once("close", () => controller.abort("client_disconnected"));
    connections.set(socket, signal);
  }
  return signal;
}

/** Server-Sent Events: every engine event as it happens (redacted across deltas), then the result. */
async function stream(reply: FastifyReply, run: Run, signal: AbortSignal, secrets: Secrets) {
  reply.hijack();
  const raw = reply.raw;
  raw.writeHead(200, {
    "content-type": "text/event-stream",
    "cache-control": "no-cache",
    connection: "keep-alive",
  });
  const send = (event: string, json: string) => raw.write(`event: ${event}\ndata: ${json}\n\n`);
  // Each event (redacted by the listener) is also redacted as the text it is sent as (a secret
  // JSON-escaped by encoding).
  const onEvent = redactingListener(
    (e) => send(e.type, secrets.redact(JSON.stringify(e))),
    secrets,
  );
  try {
    const result = await run(onEvent, signal);
    send("result", answerJson(resultJson(result, result.loom.store.location), secrets));
  } catch (err) {
    send("error", answerJson({ code: "cast_failed", message: (err as Error).message }, secrets));
  }
  raw.end();
}

/** An answer as the JSON text sent: each of its strings redacted before encoding, then the text. */
function answerJson(value: unknown, secrets: Secrets): string {
  return redactedJson(value, (t) => secrets.redact(t));
}
