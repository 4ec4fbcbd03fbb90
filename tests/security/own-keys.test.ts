// A name written in a file or a flag is looked up among the table's own entries only:
// `constructor`, `__proto__`, `toString` and the like are unknown names, said cleanly (the file's
// line and column, or exit 3 for a flag), never a TypeError from Object.prototype.
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { EXIT } from "../../src/cli/io.js";
import { runCommand } from "../../src/cli/run.js";
import { validateCommand } from "../../src/cli/validate.js";
import { normalizeMediumName } from "../../src/circle/mediums/index.js";
import { checkFor } from "../../src/conformance/check.js";
import { io } from "../support/io.js";

const NAMES = ["constructor", "__proto__", "toString", "hasOwnProperty", "valueOf"];
const dir = mkdtempSync(join(tmpdir(), "own-keys-"));
let n = 0;
const write = (text: string) => {
  const file = join(dir, `s${n++}.yaml`);
  writeFileSync(file, text);
  return file;
};

const cantrip = (over: { llm?: string; medium?: string; gates?: string; wards?: string }) =>
  write(`llm: ${over.llm ?? "{ provider: scripted, responses: [] }"}
identity: { system_prompt: hi }
circle:
  medium: ${over.medium ?? "conversation"}
  gates: ${over.gates ?? "[done]"}
  wards: ${over.wards ?? "[{ max_turns: 2 }]"}
`);

const council = (triage: string) =>
  write(`kind: council
name: c
intent: q
llm: { provider: scripted, responses: [] }
triage:
  llm: ${triage}
`);

/** `spell validate` and `spell run`: a clean error at file:line:col, exit 3, no JavaScript error. */
async function refused(file: string, line: number) {
  const at = new RegExp(`${file.split("/").pop()!.replace(".", "\\.")}:${line}:\\d+: `);
  for (const command of ["validate", "run"]) {
    const o = io();
    const code =
      command === "validate"
        ? await validateCommand([file], o)
        : await runCommand(file, { intent: "hi", loom: "memory" }, o);
    expect({ command, code, err: o.err }).toMatchObject({ code: EXIT.invalid });
    expect(o.err).toMatch(at);
    expect(o.err).not.toMatch(/TypeError|is not a function|Cannot read|Property description/);
  }
}

describe.each(NAMES)("the name %s", (name) => {
  it("as --llm provider: exit 3, unknown provider", async () => {
    const o = io();
    const file = cantrip({});
    const code = await runCommand(file, { llm: `${name}/x`, intent: "hi", loom: "memory" }, o);
    expect({ code, err: o.err }).toMatchObject({ code: EXIT.invalid });
    expect(o.err).toContain(`unknown provider ${JSON.stringify(name)}`);
  });

  it("as a spell's llm provider", () => refused(cantrip({ llm: `{ provider: ${name} }` }), 1));
  it("as a council's triage llm", () => refused(council(`{ provider: ${name} }`), 6));
  it("as a council's triage llm, a bare word", () => refused(council(name), 6));
  it("as a council's triage llm shorthand", () => refused(council(`${name}/x`), 6));
  it("as a medium", () => refused(cantrip({ medium: name }), 4));
  it("as a gate", () => refused(cantrip({ gates: `[done, ${name}]` }), 5));
  it("as a gate with dependencies", () =>
    refused(cantrip({ gates: `[done, { ${name}: {} }]` }), 5));
  it("as a declared gate without behavior", () =>
    refused(cantrip({ gates: `[done, { name: ${name} }]` }), 5));
  it("as a ward", () => refused(cantrip({ wards: `[{ max_turns: 2 }, { ${name}: 1 }]` }), 6));
});

describe.each(NAMES)("the name %s, from a model or a test file", (name) => {
  it("is a medium name of its own (a child's proposal), not Object's", () => {
    expect(normalizeMediumName(name)).toBe(name);
  });

  it("is no expectation check of the conformance runner", () => {
    expect(checkFor(name)).toBeUndefined();
  });
});
