import { describe, expect, it } from "vitest";
import { ScriptedLLM } from "../../src/index.js";
import type { ScriptedResponse } from "../../src/llm/providers/scripted.js";

describe("the scripted LLM's tool calls", () => {
  it("carry what the script says on every cycle, even after a gate changed the arguments it was given", async () => {
    const llm = new ScriptedLLM({
      responses: [{ tool_calls: [{ gate: "echo", args: { text: "hi", n: 1 } }] }],
      cycle: true,
    });
    for (let round = 0; round < 3; round++) {
      const call = (await llm.query([{ role: "user", content: "go" }])).toolCalls![0]!;
      expect(JSON.parse(call.arguments)).toEqual({ text: "hi", n: 1 });
      expect(call.input).toEqual({ text: "hi", n: 1 });
      // A gate that writes into its arguments (as a gate may: they are its own object).
      call.input!["text"] = "changed";
      delete call.input!["n"];
    }
  });

  it("write each call's arguments as the JSON text of the script's arguments", async () => {
    const llm = new ScriptedLLM({
      responses: [
        {
          tool_calls: [
            { gate: "echo", args: { text: 'quote " and \\ and é', list: [1, null] } },
            { gate: "done", args: "not an object" },
          ],
        },
      ],
    });
    const calls = (await llm.query([{ role: "user", content: "go" }])).toolCalls!;
    expect(calls.map((c) => c.arguments)).toEqual([
      JSON.stringify({ text: 'quote " and \\ and é', list: [1, null] }),
      JSON.stringify("not an object"),
    ]);
    expect(calls[1]!.input).toBeUndefined();
  });

  it("encode a reply added to the script after it was read, and give no `input` for arguments that are no object", async () => {
    const responses: ScriptedResponse[] = [{ tool_calls: [{ gate: "echo", args: "text" }] }];
    const llm = new ScriptedLLM({ responses });
    responses.push({ tool_calls: [{ gate: "echo", args: { text: "added later" } }] });
    const first = (await llm.query([{ role: "user", content: "go" }])).toolCalls![0]!;
    expect(first).toStrictEqual({ id: "call_1", name: "echo", arguments: '"text"' });
    const second = (await llm.query([{ role: "user", content: "go" }])).toolCalls![0]!;
    expect(second).toStrictEqual({
      id: "call_2",
      name: "echo",
      arguments: '{"text":"added later"}',
    });
  });

  it("give each query's calls their own decoded arguments, never the script's object", async () => {
    const args = { text: "hi", nested: { n: 1 } };
    const llm = new ScriptedLLM({ responses: [{ tool_calls: [{ gate: "echo", args }] }] });
    const call = (await llm.query([{ role: "user", content: "go" }])).toolCalls![0]!;
    expect(call).toStrictEqual({
      id: "call_1",
      name: "echo",
      arguments: '{"text":"hi","nested":{"n":1}}',
      input: { text: "hi", nested: { n: 1 } },
    });
    expect(call.input).not.toBe(args);
    expect(call.input!["nested"]).not.toBe(args.nested);
  });
});

describe("the scripted LLM's replay record (metadata.llm_response)", () => {
  it("lists each call's id, name and arguments in that order, thinking only when there is some", async () => {
    const llm = new ScriptedLLM({
      responses: [
        {
          content: "two calls",
          tool_calls: [
            { gate: "echo", args: { text: "a" }, id: "x" },
            { gate: "done", args: { answer: 1 } },
          ],
        },
        { content: "just text", thinking: "hmm" },
      ],
    });
    const first = await llm.query([{ role: "user", content: "go" }]);
    // The bytes the loom writes: key order included.
    expect(JSON.stringify(first.metadata)).toBe(
      JSON.stringify({
        llm_response: {
          content: "two calls",
          tool_calls: [
            { id: "x", name: "echo", arguments: '{"text":"a"}' },
            { id: "call_1", name: "done", arguments: '{"answer":1}' },
          ],
        },
      }),
    );
    const second = await llm.query([{ role: "user", content: "go" }]);
    expect(JSON.stringify(second.metadata)).toBe(
      '{"llm_response":{"content":"just text","tool_calls":null,"thinking":"hmm"}}',
    );
  });
});
