import { inspect } from "node:util";
import { describe, expect, it } from "vitest";
import { loadSpellText } from "../../src/spell/index.js";
import { expectNoSecret } from "../support/secret-decodings.js";

// Seed 002, Cantrip: "Construct a cantrip and inspect it." — and the values reached from it
// (`cantrip.llm`, `.identity`, `.circle`), the entity a summon gives, a cast's result and its
// `nextCantrip`. A loaded spell's `${env:…}` values (an API key, a secret in the system prompt and
// in a gate's headers) show in none of them, printed or encoded (PROD-8). Before: the identity,
// an entity and a loom printed the system prompt's secret; JSON.stringify(cantrip) did too.
const KEY = "sk-live-0123456789abcdefghij";
const OTHER = "vault-pass-9f3kQ";

const keyed = () =>
  loadSpellText(
    `name: keyed
llm: { provider: openai, model: m, api_key: '\${env:MY_KEY}', base_url: 'http://127.0.0.1:9/v1' }
identity: { system_prompt: 'The vault password is \${env:OTHER}.' }
circle:
  gates:
    - done
    - a2a: { name: reviewer, url: 'http://127.0.0.1:9', allow: ['http://127.0.0.1:9'], headers: { authorization: 'Bearer \${env:OTHER}' } }
    - mcp: { name: search, url: 'http://127.0.0.1:9/mcp', headers: { Authorization: 'Bearer \${env:MY_KEY}' }, tools: [query] }
  wards: [{ max_turns: 1 }]
`,
    "keyed.yaml",
    { env: { MY_KEY: KEY, OTHER }, loomPath: "memory" },
  );

/** A cast needs no network: a scripted model, the secret in the prompt and the answer's gate. */
const scripted = () =>
  loadSpellText(
    `name: scripted
llm: { provider: scripted, responses: [{ tool_calls: [{ gate: done, args: { answer: ok } }] }, { content: again }] }
identity: { system_prompt: 'The vault password is \${env:OTHER}.' }
circle: { gates: [done], wards: [{ max_turns: 2 }] }
`,
    "scripted.yaml",
    { env: { OTHER }, loomPath: "memory" },
  );

const clean = (value: unknown, where: string) => {
  for (const depth of [0, 2, Infinity]) {
    for (const text of [
      inspect(value, { depth }),
      inspect(value, { depth, showHidden: true, colors: true }),
      inspect({ nested: [value] }, { depth }),
    ]) {
      expectNoSecret(text, KEY, `${where}, inspect depth ${depth}`);
      expectNoSecret(text, OTHER, `${where}, inspect depth ${depth}`);
    }
  }
  const json = JSON.stringify(value) ?? "";
  expectNoSecret(json, KEY, `${where}, JSON`);
  expectNoSecret(json, OTHER, `${where}, JSON`);
};

describe("seed 002: construct a cantrip and inspect it — no secret shows", () => {
  it("the cantrip, its llm, identity and circle, and the entity a summon gives", async () => {
    const cantrip = (await keyed()).cantrip!;
    clean(cantrip, "the cantrip");
    clean(cantrip.llm, "cantrip.llm");
    clean(cantrip.identity, "cantrip.identity");
    clean(cantrip.circle, "cantrip.circle");
    const entity = cantrip.summon();
    clean(entity, "an entity");
    clean(cantrip.loom, "its loom (the identity recorded)");
    // What it is still shows, redacted — not an empty shell.
    expect(inspect(cantrip.identity)).toContain(
      "systemPrompt: 'The vault password is [REDACTED].'",
    );
    expect(JSON.parse(JSON.stringify(cantrip.identity))).toEqual({
      systemPrompt: "The vault password is [REDACTED].",
      hyperparameters: {},
    });
    expect(JSON.parse(JSON.stringify(cantrip))).toMatchObject({
      name: "keyed",
      identity: { system_prompt: "The vault password is [REDACTED]." },
      tools: ["done", "reviewer", "search_query"],
    });
    // The values the runtime reads are the real ones.
    expect(cantrip.identity.systemPrompt).toBe(`The vault password is ${OTHER}.`);
    expect(entity.history[0]!.content).toBe(`The vault password is ${OTHER}.`);
    entity.dispose();
  });

  it("a cast's result and its nextCantrip, cast again", async () => {
    const cantrip = (await scripted()).cantrip!;
    const result = await cantrip.cast("go");
    expect(result.result).toBe("ok");
    clean(result, "the result");
    clean(result.nextCantrip, "result.nextCantrip");
    clean(result.nextCantrip.identity, "nextCantrip.identity");
    const again = await result.nextCantrip.cast("go on");
    expect(again.result).toBe("again");
    clean(again, "the second result");
  });
});
