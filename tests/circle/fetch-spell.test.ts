import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SpellErrors } from "../../src/core/errors.js";
import { loadSpell } from "../../src/spell/index.js";
import { Loopback } from "../support/loopback-http.js";

const web = new Loopback();
beforeAll(() => web.start());
afterAll(() => web.stop());

function spell(gate: string, url: string): string {
  const dir = mkdtempSync(join(tmpdir(), "fetch-spell-"));
  const file = join(dir, "spell.yaml");
  writeFileSync(
    file,
    `llm:
  provider: scripted
  responses:
    - tool_calls: [{ gate: fetch, args: { url: "${url}" } }]
    - tool_calls: [{ gate: done, args: { answer: ok } }]
identity: { system_prompt: You look things up. }
circle:
  gates:
    - done
    - ${gate}
  wards: [{ max_turns: 3 }]
`,
  );
  return file;
}

describe("the fetch gate in a spell", () => {
  it("fetches from a host the spell allows, in any spelling of the gate", async () => {
    web.routes.set("/zen", (_q, res) => res.writeHead(200).end("Keep it logically awesome."));
    for (const gate of [
      `fetch: { allow: ["${web.origin}"] }`,
      `{ name: fetch, dependencies: { allow: ["${web.origin}"], max_bytes: 100 } }`,
    ]) {
      const loaded = await loadSpell(spell(gate, `${web.origin}/zen`), { loomPath: "memory" });
      const result = await loaded.cantrip!.cast("what is the zen?");
      expect(result.status).toBe("terminated");
      const call = result.loom.turns()[0]!.gate_calls[0]!;
      expect(call).toMatchObject({ gate_name: "fetch", is_error: false });
      expect(call.result).toBe("200 OK\n\nKeep it logically awesome.");
    }
  });

  it("a spell without an allowlist gets an error observation naming the host", async () => {
    const before = web.connections;
    const loaded = await loadSpell(spell("fetch", `${web.origin}/zen?key=k`), {
      loomPath: "memory",
    });
    const result = await loaded.cantrip!.cast("what is the zen?");
    const turn = result.loom.turns()[0]!;
    expect(turn.gate_calls[0]).toMatchObject({ gate_name: "fetch", is_error: true });
    expect(turn.gate_calls[0]!.result).toContain("host 127.0.0.1 is not allowed");
    expect(turn.is_error).toBe(true);
    expect(web.connections).toBe(before);
  });

  it("bad configuration is an error of the spell at its line", async () => {
    const errorsOf = async (gate: string) => {
      const err = await loadSpell(spell(gate, "https://x.org/"), { loomPath: "memory" }).catch(
        (e: unknown) => e,
      );
      expect(err).toBeInstanceOf(SpellErrors);
      return (err as SpellErrors).errors.map((e) => e.format()).join("\n");
    };
    const unknown = await errorsOf(`fetch: { allow: [x.org], timeout: 5 }`);
    expect(unknown).toMatch(/spell\.yaml:10:\d+: gate fetch takes no dependency "timeout"/);
    const path = await errorsOf(`fetch: { allow: ["https://x.org/path"] }`);
    expect(path).toMatch(
      /spell\.yaml:10:\d+: .*fetch: allow "https:\/\/x\.org\/path": write a host/,
    );
    const methods = await errorsOf(`fetch: { allow: [x.org], methods: [DELETE] }`);
    expect(methods).toContain('fetch: method "DELETE" is not one of GET, HEAD, POST');
  });
});
