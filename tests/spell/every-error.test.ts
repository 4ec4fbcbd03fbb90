import { describe, expect, it } from "vitest";
import { SpellErrors } from "../../src/core/errors.js";
import { loadSpellText } from "../../src/spell/index.js";

/** Every problem of a spell, as `file:line:col: message`, from one load. */
async function problems(text: string): Promise<string[]> {
  try {
    await loadSpellText(text, "s.yaml", { validateOnly: true, env: {} });
  } catch (err) {
    if (err instanceof SpellErrors) return err.errors.map((e) => e.format());
    throw err;
  }
  return [];
}

describe("every error at once", () => {
  it("a schema error does not hide a missing done gate, a missing ward or a gate's dependency", async () => {
    const found = await problems(
      [
        "llm: scripted",
        "identity: { system_prompt: 42 }",
        "circle:",
        "  gates: [echo, { read: { rooot: data } }]",
        "  wards: [{ require_done_tool: false }]",
        "intent: hi",
      ].join("\n"),
    );
    expect(found).toEqual([
      "s.yaml:2:28: identity.system_prompt: must be string,null",
      "s.yaml:4:10: circle must have a done gate",
      expect.stringMatching(/^s\.yaml:4:17: gate read takes no dependency "rooot"/) as unknown,
      "s.yaml:5:10: cantrip must have at least one truncation ward (max_turns or timeout_ms)",
    ]);
  });
  it("an unknown gate does not hide them either (compile stage)", async () => {
    const found = await problems(
      ["llm: scripted", "circle:", "  gates: [{ name: mine }]", "  wards: []", "intent: hi"].join(
        "\n",
      ),
    );
    expect(found.map((f) => f.replace(/^s\.yaml:\d+:\d+: /, ""))).toEqual([
      expect.stringMatching(/^unknown gate "mine"/) as unknown,
      "circle must have a done gate",
      "cantrip must have at least one truncation ward (max_turns or timeout_ms)",
    ]);
  });
  it("a ward with a bad value still is the truncation ward: only the schema error is said", async () => {
    const found = await problems(
      ["llm: scripted", "circle:", "  gates: [done]", "  wards: [{ max_turns: -1 }]"].join("\n"),
    );
    expect(found).toHaveLength(1);
    expect(found[0]).toMatch(/^s\.yaml:4:24: circle\.wards\.0\.max_turns: must be >= 0/);
  });
});

describe("durations longer than a timer can wait", () => {
  it("are refused where they are written (a delay past 2^31-1 ms would fire at once)", async () => {
    const found = await problems(
      [
        "llm:",
        "  provider: scripted",
        "  timeout_ms: 2147483648",
        "  retry: { base_delay_ms: 0, max_delay_ms: 9999999999 }",
        "circle:",
        "  gates: [done]",
        "  medium: code",
        "  wards: [{ max_turns: 2 }, { timeout_ms: 2147483648 }, { max_eval_ms: 3000000000 }]",
        "  approval_timeout_ms: 2147483648",
      ].join("\n"),
    );
    const tail = "must be <= 2147483647 ms (about 24.8 days, the longest a timer can wait)";
    expect(found).toEqual([
      `s.yaml:3:15: llm.timeout_ms: ${tail}`,
      `s.yaml:4:44: llm.retry.max_delay_ms: ${tail}`,
      `s.yaml:8:43: circle.wards.1.timeout_ms: ${tail}`,
      `s.yaml:8:72: circle.wards.2.max_eval_ms: ${tail}`,
      `s.yaml:9:24: circle.approval_timeout_ms: ${tail}`,
    ]);
    // A gate's duration too (its dependencies are checked when the circle is built).
    for (const gate of [
      "{ fetch: { allow: ['https://example.com/'], timeout_ms: 2147483648 } }",
      "{ browser: { allow: ['https://example.com/'], timeout_ms: 2147483648 } }",
      "{ mcp: { name: m, command: node, tools: [t], timeout_ms: 2147483648 } }",
      "{ a2a: { name: a, url: 'https://example.com/', timeout_ms: 2147483648 } }",
    ]) {
      const gateFound = await problems(
        ["llm: scripted", `circle: { gates: [done, ${gate}], wards: [{ max_turns: 2 }] }`].join(
          "\n",
        ),
      );
      expect(gateFound, gate).toEqual([
        expect.stringMatching(
          /^s\.yaml:2:\d+: .*timeout_ms.*2147483647.* \(about 24\.8 days, the longest a timer can wait\)$/,
        ) as unknown,
      ]);
    }
    // The longest a timer can wait is accepted.
    expect(
      await problems(
        [
          "llm: { provider: scripted, timeout_ms: 2147483647 }",
          "identity: { system_prompt: hi }",
          "circle: { gates: [done], wards: [{ timeout_ms: 2147483647 }] }",
        ].join("\n"),
      ),
    ).toEqual([]);
  });
});

describe("YAML 1.1 booleans", () => {
  it.each([
    ["yes", "true"],
    ["on", "true"],
    ["off", "false"],
  ])("%s where a boolean belongs gets a hint to write %s", async (word, meant) => {
    const found = await problems(
      [
        "llm: scripted",
        "circle:",
        "  gates: [done]",
        `  wards: [{ max_turns: 2 }, { require_done_tool: ${word} }]`,
      ].join("\n"),
    );
    expect(found).toEqual([
      `s.yaml:4:50: circle.wards.1.require_done_tool: must be boolean (${JSON.stringify(word)} is a string in YAML 1.2; write ${meant}, as YAML 1.1 would have read it)`,
    ]);
  });
  it("gives no hint for a string that was never a boolean", async () => {
    const found = await problems(
      [
        "llm: scripted",
        "circle:",
        "  gates: [done]",
        "  wards: [{ max_turns: 2 }, { require_done_tool: maybe }]",
      ].join("\n"),
    );
    expect(found[0]).toMatch(/must be boolean$/);
  });
});
