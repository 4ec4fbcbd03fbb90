import { spawn } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Readable } from "node:stream";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { EXIT } from "../../src/cli/io.js";
import { runSummon } from "../../src/cli/summon.js";
import { io } from "../support/io.js";
import { attr, otlpReceiver, type Receiver } from "./receiver.js";

const dir = mkdtempSync(join(tmpdir(), "otel-summon-"));
const spell = join(dir, "talk.yaml");
writeFileSync(
  spell,
  `name: talker
llm: { provider: scripted, responses: [{ content: hello }, { content: again }] }
identity: {}
circle: { gates: [done], wards: [{ max_turns: 3 }] }
intent: say hello
`,
);

let receiver: Receiver;
beforeEach(async () => {
  receiver = await otlpReceiver();
});
afterEach(() => receiver.close());

describe("spell summon --otel", () => {
  it("sends one invoke_agent span per line sent, all of the same entity", async () => {
    const o = Object.assign(io(), { input: Readable.from(["one\n", "two\n"]) });
    expect(await runSummon(spell, { loom: "memory", quiet: true, otel: receiver.url }, o)).toBe(
      EXIT.ok,
    );
    const agents = receiver.spans().filter((s) => s.name === "invoke_agent talker");
    expect(agents).toHaveLength(2);
    expect(new Set(agents.map((s) => attr(s, "gen_ai.agent.id"))).size).toBe(1);
    const chats = receiver.spans().filter((s) => s.name.startsWith("chat "));
    expect(chats.map((c) => agents.some((a) => a.spanId === c.parentSpanId))).toEqual([true, true]);
    expect(chats.map((c) => attr(c, "gen_ai.response.finish_reasons"))).toEqual([
      ["stop"],
      ["stop"],
    ]);
  });
});

describe("the built CLI", () => {
  it("spell run --otel sends the spans before the process exits", async () => {
    const child = spawn(
      process.execPath,
      ["bin/run.js", "run", spell, "--loom", "memory", "--otel", receiver.url],
      {
        stdio: ["ignore", "pipe", "pipe"],
      },
    );
    let err = "";
    child.stderr.on("data", (d: Buffer) => (err += d.toString()));
    const code = await new Promise<number | null>((ok) => child.on("close", ok));
    expect(err).not.toContain("warning: --otel");
    expect(code).toBe(0);
    expect(
      receiver
        .spans()
        .map((s) => s.name)
        .sort(),
    ).toEqual(["chat scripted", "invoke_agent talker"]);
  });
});
