// The MCP gate against a server that misbehaves: limits that keep a cast bounded and secrets hidden.
import { resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { Redactor } from "../../src/core/redact.js";
import { mcpGates } from "../../src/circle/gates/mcp.js";
import type { GateContext } from "../../src/circle/gate.js";

const HOSTILE = resolve("tests/fixtures/mcp/hostile-server.mjs");
const SECRET = "tok-5a4b3c2d1e";

function hostile(mode: string) {
  const redactor = new Redactor();
  redactor.add(SECRET);
  const [gate] = mcpGates(
    {
      name: "h",
      command: process.execPath,
      args: [HOSTILE, mode],
      env: { HOSTILE_SECRET: SECRET },
      cwd: process.cwd(),
      tools: ["echo"],
      timeoutMs: 3000,
    },
    { redactor },
  );
  const release = gate!.hold!("e1");
  const ctx = { entityId: "e1", signal: new AbortController().signal } as GateContext;
  const run = (): Promise<unknown> => Promise.resolve(gate!.execute({}, ctx));
  return { gate: gate!, run, release };
}

describe("mcp gates against a misbehaving server", () => {
  it("a listing whose next page never ends is an error, not a hang", async () => {
    const { run, release } = hostile("cursor");
    try {
      await expect(run()).rejects.toThrow(/h_echo/);
    } finally {
      release();
    }
  }, 120_000);

  it("a huge result is cut, saying so", async () => {
    const { run, release } = hostile("big");
    try {
      const result = String(await run());
      expect(result.length).toBeLessThan(200_000);
      expect(result).toMatch(/cut at/);
    } finally {
      release();
    }
  }, 120_000);

  it("a huge error, or a huge tool description, is cut too", async () => {
    const { gate, run, release } = hostile("bigerror");
    try {
      const message = await run().then(
        () => "no error",
        (e: unknown) => (e as Error).message,
      );
      expect(message.length).toBeLessThan(200_000);
      expect(message).toMatch(/cut at/);
      expect(gate.description.length).toBeLessThan(20_000);
    } finally {
      release();
    }
  }, 120_000);

  it("a secret the server writes to stderr in pieces is still redacted in the error", async () => {
    const { run, release } = hostile("stderr");
    try {
      const err = (await run().then(
        () => null,
        (e: Error) => e,
      ))!;
      expect(err.message).toContain("stderr");
      expect(err.message).not.toContain(SECRET.slice(4));
    } finally {
      release();
    }
  }, 120_000);

  it("a secret in the tool's schema or in a key of its structured result is redacted", async () => {
    const { gate, run, release } = hostile("schema");
    try {
      const result = await run();
      expect(JSON.stringify(result)).not.toContain(SECRET);
      expect(JSON.stringify(gate.parameters)).not.toContain(SECRET);
      expect(JSON.stringify(gate.parameters)).toContain("[REDACTED]");
    } finally {
      release();
    }
  }, 120_000);

  it("a server that never answers a call, or never answers at all, is an error within the timeout", async () => {
    // Both servers at once: each waits out its own 3 s timeout.
    await Promise.all(
      ["silent", "mute"].map(async (mode) => {
        const { run, release } = hostile(mode);
        const started = Date.now();
        try {
          await expect(run(), mode).rejects.toThrow(/h_echo: .*(timed out|did not start)/i);
          expect(Date.now() - started, mode).toBeLessThan(8000);
        } finally {
          release();
        }
      }),
    );
  }, 120_000);
});
