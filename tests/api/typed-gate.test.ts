// A gate written in code with its arguments typed from its schema (issue 45): a JSON Schema
// literal typed by json-schema-to-ts, or a zod schema (Standard JSON Schema). The types are
// checked by tsc (this file is in tsconfig's include); the behaviour by the casts below.
import { describe, expect, expectTypeOf, it } from "vitest";
import { z } from "zod";
import {
  Cantrip,
  Circle,
  ConfigError,
  ScriptedLLM,
  doneGate,
  gate,
  type CantripEvent,
  type GateCallRecord,
  type ScriptedResponse,
} from "../../src/index.js";

const call = (gateName: string, args: Record<string, unknown>): ScriptedResponse => ({
  tool_calls: [{ gate: gateName, args }],
});
const done = (answer: unknown): ScriptedResponse => call("done", { answer });

/** Casts with scripted replies and the gate; the records of its gate calls and the result. */
async function castWith(g: ReturnType<typeof gate>, responses: ScriptedResponse[]) {
  const cantrip = new Cantrip({
    llm: new ScriptedLLM({ responses }),
    identity: { systemPrompt: "Use the gate." },
    circle: new Circle({ gates: [doneGate(), g], wards: [{ max_turns: 5 }] }),
  });
  const records: GateCallRecord[] = [];
  const result = await cantrip.cast("go", {
    onEvent: (e: CantripEvent) => {
      if (e.type === "tool_result" && e.record.gate_name === g.name) records.push(e.record);
    },
  });
  return { cantrip, result, records };
}

describe("gate() with a JSON Schema literal", () => {
  const seen: unknown[] = [];
  const add = gate({
    name: "add",
    description: "Add two numbers.",
    parameters: {
      type: "object",
      properties: {
        a: { type: "number" },
        b: { type: "number" },
        label: { type: "string", enum: ["sum", "total"] },
      },
      required: ["a", "b"],
      additionalProperties: false,
    },
    execute(args) {
      expectTypeOf(args).toEqualTypeOf<{ a: number; b: number; label?: "sum" | "total" }>();
      seen.push(args);
      return args.a + args.b;
    },
  });

  it("is presented with its schema and runs with the model's arguments", async () => {
    seen.length = 0;
    const { cantrip, result, records } = await castWith(add, [
      call("add", { a: 2, b: 3 }),
      done("5"),
    ]);
    const tool = cantrip.presentation.tools.find((t) => t.name === "add");
    expect(tool).toMatchObject({
      description: "Add two numbers.",
      parameters: { type: "object", required: ["a", "b"], additionalProperties: false },
    });
    expect(records).toEqual([expect.objectContaining({ result: "5", is_error: false })]);
    expect(seen).toEqual([{ a: 2, b: 3 }]);
    expect(result.status).toBe("terminated");
  });

  it("refuses arguments that do not match before execute runs: the entity reads why", async () => {
    seen.length = 0;
    const { records } = await castWith(add, [
      call("add", { a: 2, b: 3, label: "difference" }),
      done("x"),
    ]);
    expect(records).toHaveLength(1);
    expect(records[0]!.is_error).toBe(true);
    expect(records[0]!.result).toMatch(/add: argument label: must be one of "sum", "total"/);
    expect(seen).toEqual([]);
  });

  it("types an optional argument as optional and an open schema with an index signature", () => {
    gate({
      name: "open",
      description: "Open.",
      parameters: { type: "object", properties: { q: { type: "string" } } },
      execute(args) {
        expectTypeOf(args.q).toEqualTypeOf<string | undefined>();
        expectTypeOf(args).toHaveProperty("anything");
        return null;
      },
    });
  });
});

describe("gate() with a zod schema (Standard JSON Schema)", () => {
  const seen: unknown[] = [];
  const repeat = gate({
    name: "repeat",
    description: "Repeat a word.",
    parameters: z.object({
      word: z.string().min(1).describe("The word."),
      times: z.number().int().default(2),
    }),
    execute({ word, times }) {
      expectTypeOf(word).toEqualTypeOf<string>();
      expectTypeOf(times).toEqualTypeOf<number>();
      seen.push({ word, times });
      return word.repeat(times);
    },
  });

  it("is presented with zod's JSON Schema (no $schema) and runs with zod's output", async () => {
    seen.length = 0;
    const { cantrip, records } = await castWith(repeat, [
      call("repeat", { word: "ab" }),
      done("abab"),
    ]);
    const tool = cantrip.presentation.tools.find((t) => t.name === "repeat")!;
    expect(tool.parameters).toMatchObject({
      type: "object",
      properties: { word: { type: "string", description: "The word." } },
    });
    expect(tool.parameters).not.toHaveProperty("$schema");
    // zod's output: the default filled in.
    expect(seen).toEqual([{ word: "ab", times: 2 }]);
    expect(records[0]).toMatchObject({ result: "abab", is_error: false });
  });

  it("refuses what zod refuses, naming the argument, before execute runs", async () => {
    seen.length = 0;
    const { records } = await castWith(repeat, [call("repeat", { word: "" }), done("x")]);
    expect(records[0]!.is_error).toBe(true);
    expect(records[0]!.result).toMatch(/repeat: argument word: /);
    expect(seen).toEqual([]);
  });
});

describe("gate() refuses a definition it cannot present", () => {
  it("a name the providers would refuse", () => {
    expect(() =>
      gate({
        name: "two words",
        description: "x",
        parameters: { type: "object" },
        execute: () => null,
      }),
    ).toThrow(ConfigError);
  });

  it("parameters that are not an object's schema", () => {
    let error: unknown;
    try {
      gate({
        name: "n",
        description: "x",
        parameters: z.string() as never,
        execute: () => null,
      });
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).code).toBe("bad_gate");
    expect((error as Error).message).toMatch(/type: object/);
  });
});
