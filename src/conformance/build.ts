import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import type { Cantrip } from "../core/cantrip.js";
import { ConfigError, SpellErrors } from "../core/errors.js";
import { Redactor } from "../core/redact.js";
import type { Spell } from "../spell/index.js";
import type { LLM } from "../core/contract.js";
import type { RecordedQuery, ScriptedLLM } from "../llm/providers/scripted.js";
import { RetryingLLM, retryPolicy, type RetrySpec } from "../llm/retry.js";
import { Loom } from "../loom/core/index.js";
import { loadDocument } from "../spell/index.js";
import { retrySpecOf } from "../spell/llm-spec.js";
import { caseGates } from "./test-gates.js";
import { schemaErrors } from "../spell/validate.js";
import { buildCantrip, cantripKind } from "../spell/kinds/cantrip.js";
import { MockOpenAI } from "./mock-openai.js";
import { gateSpelling } from "./spellings.js";
import { childLLMs, priced } from "./child-llms.js";
import { setupLLMs } from "./setup-llms.js";

/** A setup LLM whose queries the expectations can read (scripted, or a mock provider's wire log). */
export interface RecordingLLM {
  readonly invocations: RecordedQuery[];
  /** Queries answered so far. */
  readonly queries: number;
  /** Replies listed in the case that no query asked for. */
  unused(): number;
}

export interface Built {
  llms: Map<string, RecordingLLM>;
  /** The LLM a construct or cast without `llm:` uses: `llm`, or the only kind of LLM a case declares (named ones). */
  defaultLLM: string;
  /** Builds (or reuses) the cantrip served by the named setup LLM; errors are the library's. */
  cantrip(llmKey?: string): Promise<Cantrip<Loom>>;
  /** The cantrip the named LLM serves from now on: a cast's `nextCantrip` (seed 002). */
  advance(llmKey: string, next: Cantrip<Loom>): void;
  loom: Loom;
  redactor: Redactor;
  /** The spell document the setup was translated into (what a user would have written). */
  spell: Spell;
  cleanup(): void;
}

export interface BuildOptions {
  location: string;
  /** For a spell's own tests: the spell's document, which setup overrides. */
  base?: Spell;
  baseDir?: string;
}

/** `setup.filesystem`: the files the gates see, in a temporary folder. */
function setupFilesystem(setup: Record<string, unknown>): string | undefined {
  if (!setup["filesystem"]) return undefined;
  const root = mkdtempSync(join(tmpdir(), "spellbook-fs-"));
  for (const [path, content] of Object.entries(setup["filesystem"] as Record<string, unknown>)) {
    const host = join(root, path);
    mkdirSync(dirname(host), { recursive: true });
    writeFileSync(host, typeof content === "string" ? content : JSON.stringify(content));
  }
  return root;
}

/** Translates a case's setup into a spell document and compiles it with the real loader. */
export function buildSetup(setup: Record<string, unknown>, options: BuildOptions): Built {
  const llms = setupLLMs(setup, options.base);
  const root = setupFilesystem(setup);
  const spell = toSpell(setup, options.base, root);
  const loom = new Loom();
  const redactor = new Redactor();
  const cache = new Map<string, Cantrip<Loom>>();
  const build = (llmKey: string) =>
    buildCase(spell, llmKey, { setup, llms, loom, redactor, root, options });
  return {
    llms,
    defaultLLM: defaultLLM(setup, llms),
    loom,
    redactor,
    spell,
    async cantrip(llmKey = "llm") {
      const cantrip = cache.get(llmKey) ?? (await build(llmKey));
      cache.set(llmKey, cantrip);
      return cantrip;
    },
    advance(llmKey, next) {
      cache.set(llmKey, next);
    },
    cleanup() {
      for (const llm of llms.values()) if (llm instanceof MockOpenAI) llm.close();
      if (root) rmSync(root, { recursive: true, force: true });
    },
  };
}

/** `llm` when the setup declares it (even as null) or declares no other; else its first named LLM. */
function defaultLLM(setup: Record<string, unknown>, llms: ReadonlyMap<string, unknown>): string {
  if ("llm" in setup || llms.has("llm")) return "llm";
  const named = [...llms.keys()].filter((k) => !/^(child|fork)_llm/.test(k));
  return named[0] ?? "llm";
}

interface CaseParts {
  setup: Record<string, unknown>;
  llms: Map<string, ScriptedLLM | MockOpenAI>;
  loom: Loom;
  redactor: Redactor;
  root: string | undefined;
  options: BuildOptions;
}

/** The case's spell, validated, resolved and compiled by the loader, served by the named LLM. */
async function buildCase(spell: Spell, llmKey: string, parts: CaseParts): Promise<Cantrip<Loom>> {
  const { setup, llms, loom, redactor, root, options } = parts;
  const location = options.location;
  const locate = () => ({ file: location, line: 0, col: 0 });
  const problems = schemaErrors(spell, locate, cantripKind.validator);
  if (problems.length) throw new SpellErrors(problems);
  const scripted = llms.get(llmKey);
  const served = await serve(scripted, retrySpecOf(setup["retry"]), redactor);
  const llm = served && priced(served, scripted);
  if (!llm && setup[llmKey] === undefined && llmKey !== "llm") {
    throw new ConfigError("unknown_llm", `setup declares no llm named ${llmKey}`);
  }
  const loadNested = (file: string) =>
    loadDocument(file, { loomPath: "memory", redactor }).then((d) => ({
      kind: d.kind,
      value: d.value,
    }));
  const context = {
    file: location,
    baseDir: options.baseDir ?? root ?? process.cwd(),
    locate,
    env: process.env,
    redactor,
    warnings: [],
    llm,
    loomPath: "memory",
    loom,
    childLLMs: childLLMs(setup, llms),
    gates: caseGates,
  };
  const { cantrip, errors } = await buildCantrip(spell, context, loadNested);
  if (!cantrip) throw errors.length === 1 ? errors[0]! : new SpellErrors(errors);
  return cantrip;
}

/** The LLM a cast queries: a mock provider's real adapter, or the script — retried when setup.retry asks (PROD-2). */
async function serve(
  llm: ScriptedLLM | MockOpenAI | undefined,
  retry: RetrySpec | undefined,
  redactor: Redactor,
): Promise<LLM | undefined> {
  if (llm instanceof MockOpenAI) return llm.llm({ redactor, retry, baseDir: process.cwd() });
  if (!llm || !retry) return llm;
  return new RetryingLLM(llm, retryPolicy(retry), { sleep: () => Promise.resolve() });
}

/** setup → the spell a user would write: identity, circle (gates rooted in the temp filesystem). */
function toSpell(
  setup: Record<string, unknown>,
  base: Spell | undefined,
  root: string | undefined,
): Spell {
  const spell: Record<string, unknown> = base
    ? (structuredClone(base) as Record<string, unknown>)
    : { identity: {} };
  delete spell["tests"];
  delete spell["loom"];
  if ("identity" in setup)
    spell["identity"] =
      setup["identity"] === null
        ? undefined
        : { ...(base?.identity ?? {}), ...(setup["identity"] as object) };
  if (setup["circle"] !== undefined || (base?.circle && root)) {
    const circle: Record<string, unknown> = {
      ...(base?.circle ?? {}),
      ...((setup["circle"] as object | undefined) ?? {}),
    };
    if (Array.isArray(circle["gates"]))
      circle["gates"] = circle["gates"].map((g, i) =>
        rootGate(gateSpelling(g, `circle.gates[${i}]`), root),
      );
    spell["circle"] = circle;
  }
  for (const key of ["folding", "inputs", "output_schema"])
    if (setup[key] !== undefined) spell[key] = setup[key];
  if (spell["identity"] === undefined) delete spell["identity"];
  return spell;
}

const FILE_GATES = new Set(["read", "read_ephemeral", "list_dir", "search", "write"]);

/** File gates see the case's filesystem: their root moves into the temp directory. */
function rootGate(gate: unknown, root: string | undefined): unknown {
  if (!root) return gate;
  if (typeof gate === "string")
    return FILE_GATES.has(gate) ? { name: gate, dependencies: { root } } : gate;
  const g = gate as Record<string, unknown>;
  const [only, deps] = Object.entries(g)[0] ?? [];
  if (typeof g["name"] !== "string" && only && FILE_GATES.has(only)) {
    // `{ read: { root: data } }` → the same gate, rooted at data/ inside the case's filesystem.
    const sub =
      typeof (deps as { root?: unknown } | null)?.root === "string"
        ? (deps as { root: string }).root
        : "/";
    return { [only]: { ...(deps as object | null), root: join(root, sub) } };
  }
  if (typeof g["name"] === "string" && FILE_GATES.has(g["name"])) {
    const deps = { ...((g["dependencies"] as Record<string, unknown>) ?? {}) };
    deps["root"] = join(root, typeof deps["root"] === "string" ? deps["root"] : "/");
    return { ...g, dependencies: deps };
  }
  return gate;
}
