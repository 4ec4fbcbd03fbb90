import { describe, expect, it } from "vitest";
import { ConfigError, SpellErrors } from "../../src/core/errors.js";
import {
  defaultKinds,
  loadDocumentText,
  loadSpellText,
  spellOf,
  type DocumentKind,
} from "../../src/spell/index.js";

/** A tiny kind, registered by the test itself: `kind: greeting` with a `to:` name. */
const validator = Object.assign(
  (data: unknown) => {
    const ok = typeof (data as { to?: unknown }).to === "string";
    validator.errors = ok
      ? null
      : [
          {
            keyword: "required",
            instancePath: "",
            schemaPath: "#/required",
            params: { missingProperty: "to" },
          },
        ];
    return ok;
  },
  {
    errors: null as
      null | { keyword: string; instancePath: string; schemaPath: string; params: object }[],
  },
);

const stages: string[] = [];
const greetingKind: DocumentKind<{ to: string }, string, string> = {
  name: "greeting",
  validator: validator,
  resolve(doc, ctx) {
    stages.push("resolve");
    if (doc.to === "nobody")
      return Promise.resolve({
        errors: [new ConfigError("schema", "to: nobody to greet", ctx.locate(["to"]))],
      });
    return Promise.resolve({ resolved: doc.to.toUpperCase(), errors: [] });
  },
  compile(resolved) {
    stages.push("compile");
    return Promise.resolve({ value: `hello, ${resolved}`, errors: [] });
  },
};

const kinds = () => defaultKinds().register(greetingKind);

describe("document kinds", () => {
  it("dispatches on kind: through the registry — validate, resolve, compile", async () => {
    stages.length = 0;
    const loaded = await loadDocumentText(
      "kind: greeting\nname: hi\nto: ada\n",
      "g.yaml",
      {},
      kinds(),
    );
    expect(loaded.kind).toBe("greeting");
    expect(loaded.name).toBe("hi");
    expect(loaded.value).toBe("hello, ADA");
    expect(stages).toEqual(["resolve", "compile"]);
  });

  it("reports the kind's schema errors and resolve errors at file:line:col", async () => {
    const schema = await loadDocumentText(
      "kind: greeting\nname: hi\n",
      "g.yaml",
      {},
      kinds(),
    ).catch((e: unknown) => e);
    expect(schema).toBeInstanceOf(SpellErrors);
    expect((schema as SpellErrors).message).toContain('missing required key "to"');
    const resolved = await loadDocumentText(
      "kind: greeting\nto: nobody\n",
      "g.yaml",
      {},
      kinds(),
    ).catch((e: unknown) => e);
    expect((resolved as SpellErrors).errors[0]?.format()).toBe("g.yaml:2:5: to: nobody to greet");
  });

  it("an unknown kind is an error at the kind key, with did-you-mean", async () => {
    const err = await loadDocumentText("kind: greting\nto: ada\n", "g.yaml", {}, kinds()).catch(
      (e: unknown) => e,
    );
    expect((err as SpellErrors).errors[0]?.format()).toBe(
      'g.yaml:1:7: kind: unknown document kind "greting"; did you mean "greeting"?',
    );
  });

  it("the built-in registry does not know a kind a test registered on its own copy", async () => {
    const err = await loadDocumentText("kind: greeting\nto: ada\n", "g.yaml").catch(
      (e: unknown) => e,
    );
    expect((err as SpellErrors).errors[0]?.code).toBe("unknown_kind");
  });

  it("a document without kind: is a cantrip; loadSpell refuses another kind", async () => {
    const spell = await loadSpellText(
      "llm: scripted/x\nidentity: { system_prompt: hi }\ncircle: { gates: [done], wards: [{ max_turns: 1 }] }\n",
      "s.yaml",
      { validateOnly: true },
    );
    expect(spell.kind).toBe("cantrip");
    const greeting = await loadDocumentText("kind: greeting\nto: ada\n", "g.yaml", {}, kinds());
    expect(() => spellOf(greeting)).toThrow(/kind: greeting document, not a cantrip/);
  });

  it("a kind is registered once", () => {
    expect(() => kinds().register(greetingKind as DocumentKind)).toThrow(/registered twice/);
  });
});
