/**
 * An eval's `spells:` by registry reference (README "Sharing spells"): fetched like `spell run`
 * fetches one, from a loopback registry (a fake one: node:http), and cast per case. A spell
 * fetched so names its own child by reference: the child is fetched under the same spell.lock
 * (eval, and `spell run oci://… --repeat`), so a tag moved after `spell lock` changes nothing.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { evalCommand } from "../../src/cli/eval.js";
import { EXIT } from "../../src/cli/io.js";
import { runCommand } from "../../src/cli/run.js";
import { lockCommand } from "../../src/cli/share.js";
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

const kid = (answer: string) => `name: kid
intent: say hi
llm: { provider: scripted, cycle: true, responses: [{ tool_calls: [{ gate: done, args: { answer: "${answer}" } }] }] }
identity: { system_prompt: You are the child. }
circle: { gates: [done], wards: [{ max_turns: 2 }] }
`;

const parent = (ref: string) => `name: parent
intent: ask the child
llm:
  provider: scripted
  cycle: true
  responses:
    - tool_calls: [{ gate: call_entity, args: { intent: say hi } }]
    - tool_calls: [{ gate: done, args: { answer: "3" } }]
identity: { system_prompt: You are the parent. }
circle:
  gates: [done, { call_entity: { spell: "${ref}" } }]
  wards: [{ max_turns: 4 }]
`;

/** Every file's text under `dir`, joined: where the casts' looms and reports went. */
function allText(dir: string): string {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => readFileSync(join(e.parentPath, e.name), "utf8"))
    .join("\n");
}

it("the child a spell fetched by reference names is fetched under the eval's spell.lock", async () => {
  fake.artifact("team/kid", "1", [{ path: "kid.yaml", text: kid("version one") }]);
  fake.artifact("team/parent", "1", [
    { path: "parent.yaml", text: parent(`oci://${fake.host}/team/kid:1`) },
  ]);
  const dir = mkdtempSync(join(tmpdir(), "spell-eval-oci-lock-"));
  writeFileSync(
    join(dir, "eval.yaml"),
    `kind: eval\nname: locked\nspells: ["oci://${fake.host}/team/parent:1"]\ncases:\n  - { name: A, intent: "1 + 2?", expect: [{ result: "3" }] }\n`,
  );
  const env = { SPELLBOOK_CACHE: join(dir, "cache"), DOCKER_CONFIG: join(dir, "d"), HOME: dir };
  const o = () => {
    const made = io(env);
    made.cwd = dir;
    return made;
  };
  const locked = o();
  expect(await lockCommand(join(dir, "eval.yaml"), {}, locked), locked.err).toBe(EXIT.ok);
  const lock = readFileSync(join(dir, "spell.lock"), "utf8");
  expect(lock).toContain(`oci://${fake.host}/team/kid:1`);

  // The child's tag moves after the lock; a fresh cache, so nothing is served from before.
  fake.artifact("team/kid", "1", [{ path: "kid.yaml", text: kid("version two") }]);
  rmSync(env.SPELLBOOK_CACHE, { recursive: true, force: true });

  const evaluated = o();
  const out = join(dir, "out");
  expect(await evalCommand("eval.yaml", { out }, evaluated, false), evaluated.err).toBe(EXIT.ok);
  expect(allText(out)).toContain("version one");
  expect(allText(out)).not.toContain("version two");

  // spell run of the parent by reference, --repeat: its casts load it again, under the lock too.
  const ran = o();
  const repeated = join(dir, "repeated");
  const code = await runCommand(
    `oci://${fake.host}/team/parent:1`,
    { repeat: 2, out: repeated, loom: "memory" },
    ran,
  );
  expect(code, ran.err).toBe(EXIT.ok);
  expect(allText(repeated)).toContain("version one");
  expect(allText(repeated)).not.toContain("version two");
});
