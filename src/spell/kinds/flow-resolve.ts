/**
 * Resolving a `kind: flow` document: routes parsed, handlers checked (exactly one each), the tape
 * and wards checked, `cast:` spells loaded with the same loader and this document's redactor.
 * Every problem is collected and positioned at file:line:col. `prefix` is the path of the flow
 * inside its file (an inline flow of a flow-tests suite), empty for a flow document.
 */
import { resolve as resolvePath } from "node:path";
import type { Cantrip } from "../../core/cantrip.js";
import {
  ConfigError,
  SpellErrors,
  errorMessage,
  type ErrorCode,
  type SpellbookError,
} from "../../core/errors.js";
import type { Flow as FlowDoc } from "../../generated/flow.js";
import {
  flowLimits,
  parseRoute,
  RouteSyntaxError,
  Tape,
  type FlowLimits,
} from "../../flows/index.js";
import type { LoadOptions } from "../options.js";
import type { Path } from "../source.js";
import type { KindContext } from "./kind.js";

export interface ResolvedFlow {
  doc: FlowDoc;
  limits: FlowLimits;
  /** Loaded `cast:` spells by path as written; undefined values when only validating. */
  casts: Map<string, Cantrip | undefined>;
  prefix: Path;
}

const HANDLERS = {
  receivers: ["js", "cast", "action"],
  senders: ["js", "cast", "message"],
  hooks: ["js", "cast"],
} as const;

type Entry = { path: Path; value: Record<string, unknown>; keys: readonly string[] };

/** Every receiver, sender and hook with its path and the handler keys it may use. */
export function entriesOf(doc: FlowDoc): Entry[] {
  const out: Entry[] = [];
  const add = (path: Path, list: readonly object[] | undefined, keys: readonly string[]) =>
    (list ?? []).forEach((value, i) =>
      out.push({ path: [...path, i], value: value as Record<string, unknown>, keys }),
    );
  add(["hooks", "receive"], doc.hooks?.receive, HANDLERS.hooks);
  add(["hooks", "send"], doc.hooks?.send, HANDLERS.hooks);
  add(["receivers"], doc.receivers, HANDLERS.receivers);
  add(["senders"], doc.senders, HANDLERS.senders);
  return out;
}

export async function resolveFlow(
  doc: FlowDoc,
  ctx: KindContext,
  prefix: Path = [],
): Promise<{ resolved?: ResolvedFlow; errors: SpellbookError[] }> {
  const errors: SpellbookError[] = [];
  const at = (path: Path) => ctx.locate([...prefix, ...path]);
  const fail = (code: ErrorCode, path: Path, message: string) =>
    errors.push(new ConfigError(code, `${[...prefix, ...path].join(".")}: ${message}`, at(path)));
  for (const e of entriesOf(doc)) {
    const given = e.keys.filter((k) => k in e.value);
    if (given.length !== 1)
      fail(
        "flow_handler",
        e.path,
        `give exactly one of ${e.keys.join(", ")} (found ${given.join(", ") || "none"})`,
      );
    if ("trigger" in e.value && !("action" in e.value))
      fail("flow_handler", [...e.path, "trigger"], "trigger goes with a fixed action:");
    if (typeof e.value["route"] !== "string") continue;
    try {
      parseRoute(e.value["route"]);
    } catch (err) {
      if (!(err instanceof RouteSyntaxError)) throw err;
      const path = [...prefix, ...e.path, "route"];
      errors.push(
        new ConfigError(
          "route_syntax",
          `${path.join(".")}: ${err.message}`,
          columnIn(ctx, path, err),
        ),
      );
    }
  }
  try {
    Tape.of(doc.tape?.shape ?? "many", doc.tape?.initial as never);
  } catch (err) {
    fail("tape_shape", ["tape"], errorMessage(err).replace(/^tape: /, ""));
  }
  let limits = flowLimits();
  try {
    limits = flowLimits((doc.wards ?? []) as Record<string, number>[]);
  } catch (err) {
    fail("bad_ward_value", ["wards"], errorMessage(err));
  }
  const casts = await loadCasts(
    doc,
    ctx,
    (path, message) => fail("flow_cast", path, message),
    errors,
  );
  if (errors.length) return { errors: errors.sort(byPosition) };
  return { resolved: { doc, limits, casts, prefix }, errors };
}

async function loadCasts(
  doc: FlowDoc,
  ctx: KindContext,
  fail: (path: Path, message: string) => void,
  errors: SpellbookError[],
): Promise<Map<string, Cantrip | undefined>> {
  const casts = new Map<string, Cantrip | undefined>();
  for (const e of entriesOf(doc)) {
    const path = e.value["cast"];
    if (typeof path !== "string" || casts.has(path)) continue;
    try {
      // A registry reference (oci://…) is fetched by loadNested, under the lock.
      const target = path.startsWith("oci://") ? path : resolvePath(ctx.baseDir, path);
      const loaded = await ctx.loadNested(target, passedOn(ctx));
      if (loaded.kind !== "cantrip")
        fail([...e.path, "cast"], `${path} is a kind: ${loaded.kind} document, not a cantrip`);
      else casts.set(path, loaded.value as Cantrip | undefined);
    } catch (err) {
      // The spell's own errors keep their positions in its file.
      if (err instanceof SpellErrors) errors.push(...err.errors);
      else fail([...e.path, "cast"], `cannot load ${path}: ${errorMessage(err)}`);
    }
  }
  return casts;
}

const byPosition = (a: SpellbookError, b: SpellbookError) =>
  (a.position?.line ?? 0) - (b.position?.line ?? 0) ||
  (a.position?.col ?? 0) - (b.position?.col ?? 0);

/**
 * The position of a route error's column in the file, when the route is written on one line as
 * it reads (plain or quoted, no escapes); else the position of the route itself.
 */
function columnIn(ctx: KindContext, path: Path, err: RouteSyntaxError) {
  const at = ctx.locate(path);
  const line = ctx.source.text.split("\n")[at.line - 1] ?? "";
  const start = at.col - 1 + (line[at.col - 1] === "'" || line[at.col - 1] === '"' ? 1 : 0);
  return line.startsWith(err.route, start) ? { ...at, col: start + err.column } : at;
}

/**
 * What a flow passes on to its cast spells besides env and redactor: the LLM override and the
 * loom, so casts record where the flow's caller asked (undefined: the spell's own loom.path).
 */
function passedOn(ctx: KindContext): LoadOptions {
  const o = ctx.options as LoadOptions;
  return {
    loomPath: o.loomPath,
    defaultLoomPath: o.defaultLoomPath,
    llmSpec: o.llmSpec,
    onWarning: o.onWarning,
    ...(o.llm ? { llm: o.llm } : {}),
  };
}
