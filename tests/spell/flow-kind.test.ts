import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { SpellErrors } from "../../src/core/errors.js";
import { FlowRunner, flowDna } from "../../src/flows/index.js";
import { loadDocument, loadDocumentText } from "../../src/spell/index.js";
import type { CompiledFlow } from "../../src/spell/kinds/flow-kind.js";

const GREETER = join(import.meta.dirname, "../../spells/greeter-flow.yaml");

async function errorsOf(text: string, file = "/tmp/f.yaml"): Promise<string[]> {
  try {
    await loadDocumentText(text, file, { loomPath: "memory" });
  } catch (err) {
    if (err instanceof SpellErrors) return err.errors.map((e) => e.format());
    throw err;
  }
  return [];
}

describe("kind: flow documents", () => {
  it("load into a runnable flow: js hooks and receivers, a cast sender, fixed messages", async () => {
    const doc = await loadDocument(GREETER, { loomPath: "memory" });
    expect(doc.kind).toBe("flow");
    const compiled = doc.value as CompiledFlow;
    try {
      const runner = new FlowRunner(compiled.flow);
      const hi = await runner.cycle({ text: " hi there " });
      expect(hi.emitted.map((e) => e.payload)).toEqual([{ text: "Hello! Nice to hear from you." }]);
      expect(runner.tapeValue()).toEqual({ alice: ["greeted", "talking"] });
      const bye = await runner.cycle({ text: "bye" });
      expect(bye.emitted.map((e) => e.payload)).toEqual([{ text: "Bye!" }]);
      expect(runner.tapeValue()).toEqual({ alice: ["left", "idle"] });
    } finally {
      compiled.dispose();
    }
  });

  it("has DNA naming each handler: js with a digest, the cast by spell and cantrip name", async () => {
    const doc = await loadDocument(GREETER, { loomPath: "memory" });
    const compiled = doc.value as CompiledFlow;
    try {
      const dna = flowDna(compiled.flow);
      expect(dna.flow).toBe("greeter");
      const sender = dna.registrations.find((r) => r.kind === "sender");
      expect(sender).toMatchObject({
        route: "greeted --[]--> talking",
        handler: { module: "./greeter/reply.yaml", function: "greeter-reply", runtime: "cast" },
        actions: ["MOVE"],
        triggers: ["ok"],
        multi: false,
      });
      const hook = dna.registrations[0]!;
      expect(hook.handler).toMatchObject({
        module: "greeter-flow.yaml",
        function: "hooks.receive[0]",
        runtime: "js",
      });
      expect(hook.handler.digest).toMatch(/^sha256:[0-9a-f]{16}$/);
    } finally {
      compiled.dispose();
    }
  });

  it("reports every bad route, handler and tape at file:line:col", async () => {
    const errors = await errorsOf(
      [
        "kind: flow",
        "tape: { shape: single, initial: [a, b] }",
        "receivers:",
        "  - route: 'a,, b'",
        "    action: move",
        "  - route: a --> b",
        "senders:",
        "  - route: b",
        "    js: 'null'",
        "    message: hi",
        "",
      ].join("\n"),
    );
    expect(errors).toEqual([
      "/tmp/f.yaml:2:7: tape: a single tape holds one node",
      expect.stringMatching(
        /^\/tmp\/f\.yaml:4:15: receivers\.0\.route: route "a,, b": col 3: empty token$/,
      ),
      "/tmp/f.yaml:6:5: receivers.1: give exactly one of js, cast, action (found none)",
      "/tmp/f.yaml:8:5: senders.0: give exactly one of js, cast, message (found js, message)",
    ]);
  });

  it("rejects unknown keys by the schema, with a position", async () => {
    const errors = await errorsOf("kind: flow\nreceivers:\n  - route: a\n    acton: move\n");
    expect(errors[0]).toMatch(/^\/tmp\/f\.yaml:4:5: receivers\.0\.acton: unknown key/);
  });

  it("positions a js handler that does not compile", async () => {
    const errors = await errorsOf("kind: flow\nreceivers:\n  - route: a\n    js: 'return ('\n");
    expect(errors).toEqual([
      expect.stringMatching(/^\/tmp\/f\.yaml:4:9: receivers\.0\.js: SyntaxError/),
    ]);
  });

  it("refuses a cast: that is not a cantrip, and reports a broken spell at its own position", async () => {
    const dir = mkdtempSync(join(tmpdir(), "flow-"));
    writeFileSync(join(dir, "other.yaml"), "kind: flow\n");
    writeFileSync(
      join(dir, "broken.yaml"),
      "kind: cantrip\nllm: scripted\nidentity: {}\ncircle: { gates: [done], wardz: 1 }\n",
    );
    const errors = await errorsOf(
      "kind: flow\nsenders:\n  - route: a\n    cast: other.yaml\n  - route: b\n    cast: broken.yaml\n  - route: c\n    cast: gone.yaml\n",
      join(dir, "f.yaml"),
    );
    expect(
      errors.some((e) =>
        /f\.yaml:4:11: senders\.0\.cast: other\.yaml is a kind: flow document, not a cantrip/.test(
          e,
        ),
      ),
    ).toBe(true);
    // Every error of the broken spell at once: its schema error and its missing ward.
    expect(
      errors.some((e) =>
        /broken\.yaml:4:\d+: cantrip must have at least one truncation ward/.test(e),
      ),
    ).toBe(true);
    expect(errors.some((e) => /broken\.yaml:4:\d+: .*wardz/.test(e))).toBe(true);
    expect(
      errors.some((e) => /f\.yaml:8:11: senders\.2\.cast: cannot load gone\.yaml/.test(e)),
    ).toBe(true);
  });

  it("shares its redactor with cast spells: a secret of the spell never shows in the flow's errors", async () => {
    const dir = mkdtempSync(join(tmpdir(), "flow-"));
    writeFileSync(
      join(dir, "s.yaml"),
      "kind: cantrip\nllm: scripted\nidentity: { system_prompt: '${env:FLOW_SECRET}' }\ncircle: { gates: [done], wards: [{ max_turns: 1 }] }\n",
    );
    const text =
      "kind: flow\nname: x\nsenders:\n  - route: a\n    cast: s.yaml\n  - route: 'b,,${env:FLOW_SECRET}'\n    message: 1\n";
    let message = "";
    try {
      await loadDocumentText(text, join(dir, "f.yaml"), {
        loomPath: "memory",
        env: { FLOW_SECRET: "sup3r-s3cret" },
      });
    } catch (err) {
      message = (err as Error).message;
    }
    expect(message).toMatch(/empty token/);
    expect(message).not.toContain("sup3r-s3cret");
  });
});

describe("validating a flow (spell validate)", () => {
  it("compiles its js handlers and reports the one that does not, without running anything", async () => {
    let message = "";
    try {
      await loadDocumentText(
        "kind: flow\nreceivers:\n  - route: a\n    js: move()\nsenders:\n  - route: a\n    js: '}{'\n",
        "/tmp/v.yaml",
        { validateOnly: true },
      );
    } catch (err) {
      message = (err as Error).message;
    }
    expect(message).toMatch(/^\/tmp\/v\.yaml:7:9: senders\.0\.js: SyntaxError/);
  });
});
