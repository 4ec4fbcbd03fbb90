import { describe, expect, it } from "vitest";
import type { ToolDefinition } from "../../src/core/contract.js";
import { createOpenAICompatible } from "../../src/llm/providers/openai/openai-llm.js";
import { ScriptedLLM } from "../../src/llm/providers/scripted.js";
import { RequiredToolChoiceLLM, TOOL_REQUIRED_REMINDER } from "../../src/llm/require-tool.js";
import { body, failure, testContext, withProvider } from "../support/providers.js";

const tools: ToolDefinition[] = [
  { name: "echo", description: "echo", parameters: { type: "object" } },
];
const ask = [{ role: "user" as const, content: "say hi" }];

describe("tool_choice required (LLM-5)", () => {
  it("re-prompts a reply without a tool call; one answer, usage summed, reprompts in metadata", async () => {
    const inner = new ScriptedLLM({
      responses: [
        { content: "I would say hi.", usage: { prompt_tokens: 10, completion_tokens: 5 } },
        {
          tool_calls: [{ gate: "echo", args: { text: "hi" } }],
          usage: { prompt_tokens: 20, completion_tokens: 3 },
        },
      ],
      recordInputs: true,
    });
    const r = await new RequiredToolChoiceLLM(inner).query(ask, { tools, toolChoice: "required" });
    expect(r.toolCalls).toHaveLength(1);
    expect(r.usage).toEqual({ promptTokens: 30, completionTokens: 8, cachedTokens: 0 });
    expect(r.metadata?.["reprompts"]).toBe(1);
    expect(inner.invocations[1]!.messages).toEqual([
      ...ask,
      { role: "assistant", content: "I would say hi." },
      { role: "user", content: TOOL_REQUIRED_REMINDER },
    ]);
  });

  it("fails with its own code after the re-prompts are used up", async () => {
    const inner = new ScriptedLLM({
      responses: [{ content: "a" }, { content: "b" }, { content: "c" }],
    });
    const err = await failure(
      new RequiredToolChoiceLLM(inner).query(ask, { tools, toolChoice: "required" }),
    );
    expect(err.code).toBe("tool_choice_required_unmet");
    expect(err.message).toContain("after 2 re-prompts");
    expect(inner.unused()).toBe(0);
  });

  it("does nothing with tool_choice auto, or without tools", async () => {
    for (const options of [
      { tools, toolChoice: "auto" as const },
      { toolChoice: "required" as const },
    ]) {
      const inner = new ScriptedLLM({ responses: [{ content: "just text" }] });
      const r = await new RequiredToolChoiceLLM(inner).query(ask, options);
      expect(r.content).toBe("just text");
      expect(r.metadata?.["reprompts"]).toBeUndefined(); // passed through untouched: no re-prompt
    }
  });

  it("simulates forcing on a local server that ignores tool_choice (through the real SDK)", async () => {
    await withProvider(
      [body("openai/local-text-only.json"), body("openai/local-no-tool-ids.json")],
      async (server) => {
        const adapter = createOpenAICompatible(
          "local",
          { provider: "local", model: "qwen3:8b", baseUrl: `${server.url}/v1` },
          testContext(),
        );
        const r = await new RequiredToolChoiceLLM(adapter).query(ask, {
          tools,
          toolChoice: "required",
        });
        expect(r.toolCalls![0]!.name).toBe("echo");
        expect(r.metadata?.["reprompts"]).toBe(1);
        expect(server.requests).toHaveLength(2);
        const second = server.requests[1]!.body as {
          messages: { role: string; content: string }[];
          tool_choice: string;
        };
        expect(second.tool_choice).toBe("required");
        expect(second.messages.slice(-2)).toEqual([
          { role: "assistant", content: "I would echo hi." },
          { role: "user", content: TOOL_REQUIRED_REMINDER },
        ]);
      },
    );
  });
});
