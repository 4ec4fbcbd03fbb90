import { describe, expect, it } from "vitest";
import { ScriptedLLM } from "../../src/index.js";

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
});
