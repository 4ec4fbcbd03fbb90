/**
 * The ACP agent over stdio: newline-delimited JSON-RPC on stdin/stdout (the SDK's ndJsonStream).
 * stdout carries protocol messages only; whatever else the agent says goes to `log` (stderr).
 * Every message out is redacted; with `debug`, every message in and out is logged too, redacted.
 */
import { Readable, Writable } from "node:stream";
import type { AnyMessage, Stream } from "@agentclientprotocol/sdk";
import { createAcpAgent, type AcpAgentOptions } from "./agent.js";
import { redactMessage, type Redact } from "../redact-out.js";

export interface StdioOptions {
  input: NodeJS.ReadableStream;
  output: NodeJS.WritableStream;
  /** A line for the operator (stderr). */
  log: (line: string) => void;
  /** Log every protocol message (PROD-9: a debug mode for troubleshooting). */
  debug?: boolean;
  /** Stops the agent (SIGTERM): running prompts are cancelled, their turns kept. */
  stop?: Promise<unknown>;
}

/** Serves until the client closes stdin (or `stop`); resolves when the connection is closed. */
export async function serveAcpStdio(agent: AcpAgentOptions, io: StdioOptions): Promise<void> {
  const { ndJsonStream } = await import("@agentclientprotocol/sdk");
  const { app, close } = await createAcpAgent(agent);
  let stream: Stream = ndJsonStream(
    Writable.toWeb(io.output as Writable) as WritableStream<Uint8Array>,
    Readable.toWeb(io.input as Readable) as ReadableStream<Uint8Array>,
  );
  // Issue 38: every message leaves redacted (redact-out.ts), whichever handler made it.
  const redact = (t: string) => agent.redactor.redact(t);
  stream = redacting(stream, redact);
  if (io.debug) stream = tapped(stream, (dir, m) => io.log(redact(`${dir} ${shown(m)}`)));
  const connection = app.connect(stream);
  void io.stop?.then(() => connection.close());
  await connection.closed;
  close();
}

/**
 * A message as the debug log shows it: its JSON, or — nested deeper than JSON.stringify can go
 * on this stack — its id and method, saying so.
 */
function shown(m: AnyMessage): string {
  try {
    return JSON.stringify(m);
  } catch {
    const { id, method } = m as { id?: unknown; method?: unknown };
    return `{"id":${JSON.stringify(id ?? null)},"method":${JSON.stringify(method ?? null)}} (too deeply nested to show)`;
  }
}

/**
 * The same stream, each message shown to `see` on its way in (←) or out (→). What `see` throws
 * is dropped: watching never stops a message.
 */
export function tapped(stream: Stream, see: (dir: "←" | "→", m: AnyMessage) => void): Stream {
  const look = (dir: "←" | "→", m: AnyMessage) => {
    try {
      see(dir, m);
    } catch {
      // the log's problem, never the protocol's
    }
  };
  const incoming = new TransformStream<AnyMessage, AnyMessage>({
    transform(m, c) {
      look("←", m);
      c.enqueue(m);
    },
  });
  const outgoing = new TransformStream<AnyMessage, AnyMessage>({
    transform(m, c) {
      look("→", m);
      c.enqueue(m);
    },
  });
  void outgoing.readable.pipeTo(stream.writable).catch(() => undefined);
  return { readable: stream.readable.pipeThrough(incoming), writable: outgoing.writable };
}

/** The same stream, each message out redacted on its way to the client. */
function redacting(stream: Stream, redact: Redact): Stream {
  const out = new TransformStream<AnyMessage, AnyMessage>({
    transform: (m, c) => c.enqueue(redactMessage(m, redact)),
  });
  void out.readable.pipeTo(stream.writable).catch(() => undefined);
  return { readable: stream.readable, writable: out.writable };
}
