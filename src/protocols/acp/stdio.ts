/**
 * The ACP agent over stdio: newline-delimited JSON-RPC on stdin/stdout (the SDK's ndJsonStream).
 * stdout carries protocol messages only; whatever else the agent says goes to `log` (stderr).
 * With `debug`, every message in and out is logged too, redacted.
 */
import { Readable, Writable } from "node:stream";
import type { AnyMessage, Stream } from "@agentclientprotocol/sdk";
import { createAcpAgent, type AcpAgentOptions } from "./agent.js";

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
  if (io.debug)
    stream = tapped(stream, (dir, m) =>
      io.log(agent.redactor.redact(`${dir} ${JSON.stringify(m)}`)),
    );
  const connection = app.connect(stream);
  void io.stop?.then(() => connection.close());
  await connection.closed;
  close();
}

/** The same stream, each message shown to `see` on its way in (←) or out (→). */
export function tapped(stream: Stream, see: (dir: "←" | "→", m: AnyMessage) => void): Stream {
  const incoming = new TransformStream<AnyMessage, AnyMessage>({
    transform(m, c) {
      see("←", m);
      c.enqueue(m);
    },
  });
  const outgoing = new TransformStream<AnyMessage, AnyMessage>({
    transform(m, c) {
      see("→", m);
      c.enqueue(m);
    },
  });
  void outgoing.readable.pipeTo(stream.writable).catch(() => undefined);
  return { readable: stream.readable.pipeThrough(incoming), writable: outgoing.writable };
}
