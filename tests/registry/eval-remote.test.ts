/**
 * An eval's `spells:` by registry reference (README "Sharing spells"): fetched like `spell run`
 * fetches one, from a loopback registry (a fake one: node:http), and cast per case.
 */
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { evalCommand } from "../../src/cli/eval.js";
import { EXIT } from "../../src/cli/io.js";
import { FakeRegistry } from "../support/fake-registry.js";
import { io } from "../support/io.js";

const SPELL = `name: answerer
intent: answer
llm: { provider: scripted, cycle: true, responses: [{ tool_calls: [{ gate: done, args: { answer: "3" } }] }] }
identity: { system_prompt: You answer. }
circle: { gates: [done], wards: [{ max_turns: 2 }] }
`;

let fake: FakeRegistry;
beforeAll(async () => {
  fake = await FakeRegistry.start();
});
afterAll(() => fake?.stop());

it("runs an eval whose spell is an oci:// reference", async () => {
  fake.artifact("team/answerer", "1", [{ path: "answerer.yaml", text: SPELL }]);
  const dir = mkdtempSync(join(tmpdir(), "spell-eval-oci-"));
  writeFileSync(
    join(dir, "eval.yaml"),
    `kind: eval\nname: remote\nspells: ["oci://${fake.host}/team/answerer:1"]\ncases:\n  - { name: A, intent: "1 + 2?", expect: [{ result: "3" }] }\n`,
  );
  const o = io({ SPELLBOOK_CACHE: join(dir, "cache"), DOCKER_CONFIG: join(dir, "d"), HOME: dir });
  o.cwd = dir;
  const code = await evalCommand("eval.yaml", { out: join(dir, "out") }, o, false);
  expect(code, o.err).toBe(EXIT.ok);
  expect(fake.seen.some((s) => s.url.includes("/manifests/1"))).toBe(true);
});
