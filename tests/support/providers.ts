import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import type { Message, ToolDefinition } from "../../src/core/contract.js";
import { Redactor } from "../../src/core/redact.js";
import {
  startLoopbackProvider,
  type LoopbackReply,
  type LoopbackServer,
} from "../../src/llm/loopback/server.js";
import type { ProviderContext } from "../../src/llm/registry.js";

export { startLoopbackProvider, type LoopbackReply, type LoopbackServer };

/** The adapters' tool: echo, one required string `text`. */
export const ECHO_TOOL: ToolDefinition = {
  name: "echo",
  description: "returns its text",
  parameters: { type: "object", properties: { text: { type: "string" } }, required: ["text"] },
};
/** The adapters' question: a system prompt and a user message. */
export const ASK_FILES: Message[] = [
  { role: "system", content: "You count files." },
  { role: "user", content: "How many files?" },
];

const FIXTURES = join(dirname(fileURLToPath(import.meta.url)), "..", "fixtures", "providers");

/** A recorded wire fixture as text (`openai/chat-text.sse`). */
export function fixtureText(name: string): string {
  return readFileSync(join(FIXTURES, name), "utf8");
}

/** A recorded JSON body. */
export function fixtureJson(name: string): unknown {
  return JSON.parse(fixtureText(name)) as unknown;
}

/** Reply with a recorded body. */
export const body = (
  name: string,
  status = 200,
  headers?: Record<string, string>,
): LoopbackReply => ({
  status,
  body: fixtureJson(name),
  ...(headers ? { headers } : {}),
});

/** Reply with a recorded SSE stream. */
export const sse = (name: string, dropAfter?: number): LoopbackReply => ({
  sse: fixtureText(name),
  ...(dropAfter !== undefined ? { dropAfter } : {}),
});

/** The SSE fixture parsed into its `data:` payloads (for the pure accumulators). */
export function sseEvents(name: string): unknown[] {
  return fixtureText(name)
    .split(/\n\n/)
    .map((e) =>
      e
        .split("\n")
        .find((l) => l.startsWith("data: "))
        ?.slice(6),
    )
    .filter((d): d is string => d !== undefined && d !== "[DONE]")
    .map((d) => JSON.parse(d) as unknown);
}

/** A provider context for tests: its own redactor and env, no real waits, warnings collected. */
export function testContext(
  env: Record<string, string> = {},
): ProviderContext & { warnings: string[]; sleeps: number[] } {
  const warnings: string[] = [];
  const sleeps: number[] = [];
  return {
    redactor: new Redactor(),
    env,
    baseDir: process.cwd(),
    warn: (m) => warnings.push(m),
    sleep: (ms) => {
      sleeps.push(ms);
      return Promise.resolve();
    },
    warnings,
    sleeps,
  };
}

/** Runs `fn` against a loopback provider serving `replies`, and closes it afterwards. */
export async function withProvider<T>(
  replies: LoopbackReply[],
  fn: (server: LoopbackServer) => Promise<T>,
): Promise<T> {
  const server = await startLoopbackProvider(replies);
  try {
    return await fn(server);
  } finally {
    await server.close();
  }
}

/** Awaits a promise expected to fail and returns the error (fails the test if it resolves). */
export async function failure(
  promise: Promise<unknown>,
): Promise<Error & { code?: string; status?: number; retryAfterMs?: number }> {
  try {
    await promise;
  } catch (err) {
    return err as Error & { code?: string; status?: number };
  }
  throw new Error("expected the promise to fail, but it resolved");
}

/** A chat completion that calls `done` with `answer` and, in its text, leaks `secret`. */
export const doneReplyLeaking = (answer: string, secret: string): LoopbackReply => ({
  body: {
    id: "c",
    object: "chat.completion",
    model: "m",
    choices: [
      {
        index: 0,
        finish_reason: "tool_calls",
        message: {
          role: "assistant",
          content: `the answer holds ${secret}`,
          tool_calls: [
            {
              id: "d1",
              type: "function",
              function: { name: "done", arguments: JSON.stringify({ answer }) },
            },
          ],
        },
      },
    ],
    usage: { prompt_tokens: 5, completion_tokens: 5 },
  },
});
