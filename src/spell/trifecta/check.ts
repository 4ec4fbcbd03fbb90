/**
 * The lethal-trifecta check (spec §4.8): a warning when one circle, its children included, joins
 * private data, untrusted input and a way out. Children are the child spells of call_entity
 * (walked through their files, their own children too) and what any child may ask for: the
 * parent's gates, the gates call_entity offers children, the built-ins that take no
 * dependencies, and a bash medium of its own.
 */
import { readFileSync } from "node:fs";
import { dirname, isAbsolute, join, resolve } from "node:path";
import { gateRegistry, type GateRegistry } from "../../circle/gates/index.js";
import { DELEGATION_GATES } from "../../circle/gate-names.js";
import { Redactor } from "../../core/redact.js";
import { interpolateEnv, renameOldWords, type Warning } from "../rewrite.js";
import { SpellSource } from "../source.js";
import type { Locate } from "../validate.js";
import {
  circleExposures,
  gateExposures,
  gateParts,
  isObj,
  type CircleView,
  type Exposure,
  type Leg,
  type Obj,
} from "./legs.js";

export type { Exposure, Leg } from "./legs.js";

/** The word a spell writes in `acknowledge:` to accept the trifecta on purpose. */
export const LETHAL_TRIFECTA = "lethal_trifecta";

export interface TrifectaContext {
  file: string;
  baseDir: string;
  locate: Locate;
  env: NodeJS.ProcessEnv;
  redactor?: Redactor;
  /** Gates a child may ask for without configuration come from here; default the built-ins. */
  registry?: GateRegistry;
}

interface Walk extends TrifectaContext {
  seen: Set<string>;
}

/** Every leg the document's circle makes, its children's included. */
export function circleTreeExposures(doc: unknown, ctx: TrifectaContext): Exposure[] {
  return walk(doc, { ...ctx, seen: new Set([resolve(ctx.file)]) });
}

function walk(doc: unknown, ctx: Walk): Exposure[] {
  const circle = isObj(doc) ? doc["circle"] : undefined;
  if (!isObj(circle)) return [];
  const view: CircleView = { circle, file: ctx.file, baseDir: ctx.baseDir, locate: ctx.locate };
  const out = circleExposures(view);
  const gates = Array.isArray(circle["gates"]) ? (circle["gates"] as unknown[]) : [];
  let delegates = false;
  gates.forEach((item, i) => {
    const parts = gateParts(item);
    if (!parts) return;
    const path = ["circle", "gates", i];
    out.push(...gateExposures(parts.name, parts.config, path, view));
    if (!DELEGATION_GATES.includes(parts.name) || wardedOff(circle)) return;
    // What any child may ask for is said once, at the first delegation gate.
    if (!delegates) out.push(...proposedExposures(parts.name, path, circle, view, ctx));
    delegates = true;
    out.push(...offeredExposures(item, parts, path, view));
    if (typeof parts.config["spell"] === "string")
      out.push(...childSpellExposures(parts.config["spell"], ctx));
  });
  return out;
}

/** COMP-6: at max_depth 0 there are no children. */
function wardedOff(circle: Obj): boolean {
  return wardsOf(circle).some((w) => w["max_depth"] === 0);
}

const wardsOf = (circle: Obj): Obj[] =>
  (Array.isArray(circle["wards"]) ? (circle["wards"] as unknown[]) : []).filter(isObj);

/** A child may have a bash medium unless `child_medium_allowlist` leaves bash out. */
function bashChildAllowed(circle: Obj): boolean {
  for (const w of wardsOf(circle)) {
    const list = w["child_medium_allowlist"];
    if (Array.isArray(list) && !list.some((m) => m === "bash" || m === "shell")) return false;
  }
  return true;
}

/** What a child may ask for beyond the parent's own gates: a bash medium, gates free of configuration. */
function proposedExposures(
  gate: string,
  path: (string | number)[],
  circle: Obj,
  view: CircleView,
  ctx: Walk,
): Exposure[] {
  const out: Exposure[] = [];
  const at = view.locate(path);
  if (bashChildAllowed(circle))
    out.push({
      leg: "private_data",
      gate,
      why: "a child may ask for medium: bash, whose commands read the working folder",
      at,
    });
  for (const [name, entry] of Object.entries(ctx.registry ?? gateRegistry)) {
    if (entry.dependencies.length > 0) continue;
    for (const e of gateExposures(name, {}, path, view))
      out.push({ ...e, gate: `${name} (a child of ${gate} may ask for it)` });
  }
  return out;
}

/** The gates `call_entity: { gates: [...] }` offers children (COMP-1): a child may have any of them. */
function offeredExposures(
  item: unknown,
  parts: { name: string; config: Obj },
  path: (string | number)[],
  view: CircleView,
): Exposure[] {
  const offered = parts.config["gates"];
  if (!Array.isArray(offered)) return [];
  const key = isObj(item) && typeof item["name"] === "string" ? "dependencies" : parts.name;
  return offered.flatMap((o: unknown, j: number) => {
    const p = gateParts(o);
    if (!p) return [];
    return gateExposures(p.name, p.config, [...path, key, "gates", j], view).map((e) => ({
      ...e,
      gate: `${p.name} (offered to children by ${parts.name})`,
    }));
  });
}

/** The legs of a child spell's circle (and its children), at the child file's positions. */
function childSpellExposures(written: string, ctx: Walk): Exposure[] {
  const abs = isAbsolute(written) ? written : resolve(ctx.baseDir, written);
  if (ctx.seen.has(abs)) return [];
  ctx.seen.add(abs);
  const file = isAbsolute(written) ? written : join(dirname(ctx.file), written);
  const child = readChild(abs, file, ctx);
  if (!child) return []; // the load itself reports a child it cannot read
  return walk(child.doc, { ...ctx, file, baseDir: dirname(abs), locate: child.locate });
}

function readChild(
  abs: string,
  file: string,
  ctx: Walk,
): { doc: unknown; locate: Locate } | undefined {
  let text: string;
  try {
    text = readFileSync(abs, "utf8");
  } catch {
    return undefined;
  }
  const source = new SpellSource(file, text);
  if (source.syntaxErrors().length) return undefined;
  renameOldWords(source, []);
  interpolateEnv(source, ctx.env, ctx.redactor ?? new Redactor(), []);
  return { doc: source.toJS(), locate: source.position.bind(source) };
}

const LEG_WORDS: Record<Leg, string> = {
  private_data: "private data",
  untrusted_input: "untrusted input",
  way_out: "a way out",
};

function named(exposures: Exposure[]): string {
  const shown = exposures
    .slice(0, 3)
    .map((e) => `${e.gate}: ${e.why}, at ${e.at.file}:${e.at.line}:${e.at.col}`);
  const more = exposures.length > 3 ? `; and ${exposures.length - 3} more` : "";
  return `${shown.join("; ")}${more}`;
}

/** The warning's text when all three legs are there; undefined otherwise. */
export function trifectaMessage(exposures: Exposure[]): string | undefined {
  const by = (leg: Leg) => exposures.filter((e) => e.leg === leg);
  const legs = (["private_data", "untrusted_input", "way_out"] as const).map(by);
  if (legs.some((l) => l.length === 0)) return undefined;
  const joined = legs
    .map((l) => `${LEG_WORDS[l[0]!.leg]} (${named(l)})`)
    .map((s, i) => (i === 2 ? `and ${s}` : s))
    .join(", ");
  const remedies = [...new Set(exposures.map((e) => e.remedy).filter((r) => r !== undefined))];
  const untrusted = [...new Set(legs[1]!.map((e) => e.gate))].join(", ");
  return (
    `lethal trifecta (spec §4.8): this circle, its children included, joins ${joined}. ` +
    "Text from the untrusted input can tell the entity to send the private data out. " +
    `Remove one leg${remedies.length ? ` (${remedies.join("; ")})` : ""}, or split the circle: ` +
    `read the untrusted input (${untrusted}) in a separate spell that has neither private data ` +
    "nor a way out, and hand its answer on as data. " +
    `If this circle is meant to hold all three, write acknowledge: [${LETHAL_TRIFECTA}].`
  );
}

/** The warning for a cantrip document, unless it acknowledges the trifecta. */
export function lethalTrifectaWarning(doc: unknown, ctx: TrifectaContext): Warning | undefined {
  if (!isObj(doc)) return undefined;
  const ack = doc["acknowledge"];
  if (Array.isArray(ack) && ack.includes(LETHAL_TRIFECTA)) return undefined;
  const message = trifectaMessage(circleTreeExposures(doc, ctx));
  if (message === undefined) return undefined;
  const redacted = ctx.redactor ? ctx.redactor.redact(message) : message;
  return { message: redacted, position: ctx.locate(["circle"], { key: true }) };
}
