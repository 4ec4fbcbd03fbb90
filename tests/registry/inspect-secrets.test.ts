// Issue 40 (night): `spell inspect` shows the registry's text; the stored password (the one
// secret it knows) is redacted in every string before the JSON it prints is encoded, then in the
// text — a password with `"` and `\`, held quoted three times in a pushed spell's description and
// its inputs' annotation, was printed quoted four times by --json. Fake credentials only; the
// registry runs on loopback.
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { EXIT } from "../../src/cli/io.js";
import { inspectCommand, loginCommand, pushCommand } from "../../src/cli/share.js";
import { io } from "../support/io.js";
import { needs } from "../support/needs.js";
import { Registry, REGISTRY_MISSING } from "../support/registry.js";
import { SHAPED, expectNoSecret, quoted } from "../support/exit-secrets.js";

const PASSWORD = 'pw"hidden\\vault-7f3a';

needs(REGISTRY_MISSING).describe("spell inspect prints no registry password (issue 40)", () => {
  let registry: Registry;
  const user = { username: "alice", password: PASSWORD };
  beforeAll(async () => {
    registry = await Registry.start(user);
  });
  afterAll(() => registry?.stop());

  it("--json and the text, with the password quoted three times in the spell's fields", async () => {
    const dir = mkdtempSync(join(tmpdir(), "inspect-secrets-"));
    const env = { SPELLBOOK_CACHE: join(dir, "cache"), DOCKER_CONFIG: join(dir, "docker") };
    const deep = quoted(3, PASSWORD);
    const main = join(dir, "spell.json");
    writeFileSync(
      main,
      JSON.stringify({
        name: "inspected",
        description: deep,
        intent: "go",
        // Quoted twice: push writes the inputs into an annotation as JSON text (a third time).
        inputs: {
          type: "object",
          properties: { t: { type: "string", description: quoted(2, PASSWORD) } },
        },
        llm: { provider: "scripted", responses: [{ content: "hi" }] },
        identity: { system_prompt: SHAPED },
        circle: { gates: ["done"], wards: [{ max_turns: 1 }] },
      }),
    );
    const ref = `${registry.host}/team/inspected:1`;
    expect(await loginCommand(registry.host, { ...user }, io(env))).toBe(EXIT.ok);
    const pushed = io(env);
    expect(await pushCommand(main, ref, {}, pushed), pushed.err).toBe(EXIT.ok);
    for (const json of [true, false]) {
      const o = io(env);
      expect(await inspectCommand(ref, { json }, o), o.err).toBe(EXIT.ok);
      expect(o.out).toContain("[REDACTED]");
      expectNoSecret(
        o.out + o.err,
        `spell inspect${json ? " --json" : ""}`,
        PASSWORD,
        "vault-7f3a",
      );
    }
  });
});
