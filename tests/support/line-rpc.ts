/**
 * A CLI command that speaks newline-delimited JSON-RPC on its streams (`spell mcp`, `spell acp`),
 * run in-process on pipes: raw requests in, and every byte it wrote out, as a client reads it.
 */
import { PassThrough } from "node:stream";

export interface LineStreams {
  input: NodeJS.ReadableStream;
  output: NodeJS.WritableStream;
  stop: Promise<unknown>;
}

export interface LineSession {
  /** Sends a request and resolves with its response (the message whose id is `id`). */
  request(id: number, method: string, params?: unknown): Promise<Record<string, unknown>>;
  notify(method: string, params?: unknown): void;
  /** Everything the command wrote on its output so far. */
  text(): string;
  /** Closes its input and resolves with its exit code. */
  close(): Promise<number>;
}

export function lineSession(run: (streams: LineStreams) => Promise<number>): LineSession {
  const input = new PassThrough();
  const output = new PassThrough();
  let out = "";
  const waiting = new Map<number, (m: Record<string, unknown>) => void>();
  const settle = () => {
    for (const line of out.split("\n").filter((l) => l.trim() !== "")) {
      const m = JSON.parse(line) as Record<string, unknown>;
      const done = typeof m["id"] === "number" && !m["method"] ? waiting.get(m["id"]) : undefined;
      if (done) {
        waiting.delete(m["id"] as number);
        done(m);
      }
    }
  };
  output.on("data", (d: Buffer) => {
    out += d.toString();
    settle();
  });
  const exit = run({ input, output, stop: new Promise(() => undefined) });
  const write = (m: Record<string, unknown>) =>
    input.write(`${JSON.stringify({ jsonrpc: "2.0", ...m })}\n`);
  return {
    request: (id, method, params) =>
      new Promise((resolve, reject) => {
        waiting.set(id, resolve);
        void exit.then(() => reject(new Error(`the command ended before answering ${method}`)));
        write({ id, method, ...(params === undefined ? {} : { params }) });
        settle();
      }),
    notify: (method, params) => void write({ method, ...(params === undefined ? {} : { params }) }),
    text: () => out,
    close: async () => {
      input.end();
      return exit;
    },
  };
}
