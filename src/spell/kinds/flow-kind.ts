/**
 * The `flow` kind (seed 003): Summoner routes whose receivers, senders and hooks are `js:`
 * (QuickJS sandbox), `cast:` (a cantrip decides) or fixed (`action:`, `message:`). The snake_case
 * document becomes a routes `Flow` here, once. See docs/design/FLOWS.md.
 */
import { basename } from "node:path";
import { ConfigError, errorMessage, type SpellbookError } from "../../core/errors.js";
import type { Flow as FlowDoc, FlowTest } from "../../generated/flow.js";
import validateFlow from "../../generated/flow-validate.js";
import { Flow, type Action, type HandlerIdentity } from "../../flows/index.js";
import { castHook, castReceiver, castSender } from "../../flows/cast-handlers.js";
import { JsHandlers, jsDigest } from "../../flows/js-handlers.js";
import type { LoadOptions } from "../options.js";
import type { Path } from "../source.js";
import { entriesOf, resolveFlow, type ResolvedFlow } from "./flow-resolve.js";
import type { DocumentKind, KindContext } from "./kind.js";

/** A loaded flow: the routes Flow, its document's tests, and the sandbox to release. */
export interface CompiledFlow {
  flow: Flow;
  tests: FlowTest[];
  dispose(): void;
}

export const flowKind: DocumentKind<FlowDoc, ResolvedFlow, CompiledFlow | undefined> = {
  name: "flow",
  validator: validateFlow,
  resolve: (doc, ctx) => resolveFlow(doc, ctx),
  compile: (resolved, ctx) => compileFlow(resolved, ctx),
};

const upper = (a: string) => a.toUpperCase() as Action;

export async function compileFlow(
  resolved: ResolvedFlow,
  ctx: KindContext,
): Promise<{ value?: CompiledFlow; errors: SpellbookError[] }> {
  const { doc, limits, casts, prefix } = resolved;
  if ((ctx.options as LoadOptions).validateOnly) return { errors: await checkJs(resolved, ctx) };
  const flow = new Flow({
    name: doc.name ?? basename(ctx.file),
    tape: {
      shape: doc.tape?.shape ?? "many",
      initial: doc.tape?.initial as never,
      entryKey: doc.tape?.entry_key ?? "_",
    },
    limits,
  });
  const entries = entriesOf(doc);
  const js = entries.some((e) => "js" in e.value)
    ? await JsHandlers.open(limits.maxHandlerMs, limits.maxMemoryMb)
    : undefined;
  const jsPaths: Path[] = [];
  const env = { js, casts, module: basename(ctx.file), jsPaths };
  for (const entry of entries) register(flow, entry, env);
  const errors = js ? await jsErrors(js, jsPaths, prefix, ctx) : [];
  if (errors.length) {
    js?.dispose();
    return { errors };
  }
  return { value: { flow, tests: doc.tests ?? [], dispose: () => js?.dispose() }, errors };
}

/** Validating only: the js handlers are compiled in a sandbox that is then released. */
async function checkJs({ doc, limits, prefix }: ResolvedFlow, ctx: KindContext) {
  const entries = entriesOf(doc).filter((e) => typeof e.value["js"] === "string");
  if (!entries.length) return [];
  const js = await JsHandlers.open(limits.maxHandlerMs, limits.maxMemoryMb);
  try {
    for (const e of entries) js.add(roleOf(e.path), e.value["js"] as string);
    return await jsErrors(
      js,
      entries.map((e) => e.path),
      prefix,
      ctx,
    );
  } finally {
    js.dispose();
  }
}

const roleOf = (path: Path) =>
  path[0] === "hooks" ? "hook" : path[0] === "receivers" ? "receiver" : "sender";

/** A js handler that does not compile, at its position. */
async function jsErrors(
  js: JsHandlers,
  paths: Path[],
  prefix: Path,
  ctx: KindContext,
): Promise<SpellbookError[]> {
  try {
    await js.compile();
    return [];
  } catch (err) {
    const message = errorMessage(err);
    const m = /^js handler (\d+): (.*)$/s.exec(message);
    const path = [...prefix, ...(paths[Number(m?.[1] ?? 0)] ?? []), "js"];
    return [
      new ConfigError("flow_js", `${path.join(".")}: ${m?.[2] ?? message}`, ctx.locate(path)),
    ];
  }
}

interface RegisterEnv {
  js: JsHandlers | undefined;
  casts: ResolvedFlow["casts"];
  module: string;
  /** The path of each js handler, in the order the sandbox numbers them. */
  jsPaths: Path[];
}

/** The handler and identity of one entry, registered on the flow. */
function register(
  flow: Flow,
  { path, value }: { path: Path; value: Record<string, unknown> },
  env: RegisterEnv,
) {
  const { js, casts, module, jsPaths } = env;
  const where = path
    .map((p) => (typeof p === "number" ? `[${p}]` : `.${p}`))
    .join("")
    .slice(1);
  const identity: HandlerIdentity = { module, function: where };
  const source = value["js"];
  const cast = value["cast"];
  const cantrip = typeof cast === "string" ? casts.get(cast) : undefined;
  if (typeof source === "string") {
    jsPaths.push(path);
    Object.assign(identity, { runtime: "js", digest: jsDigest(source) });
  } else if (cantrip)
    Object.assign(identity, { module: cast, function: cantrip.name, runtime: "cast" });
  else Object.assign(identity, { runtime: "action" });
  const priority = (value["priority"] as number[] | undefined) ?? [];
  const options = { priority, identity };
  if (path[0] === "hooks") {
    const fn = typeof source === "string" ? js!.add("hook", source) : castHook(cantrip!);
    flow.hook(path[1] as "receive" | "send", fn, options);
  } else if (path[0] === "receivers") {
    const action = value["action"] as string | undefined;
    const trigger = (value["trigger"] as string | undefined) ?? null;
    const fn =
      typeof source === "string"
        ? js!.add("receiver", source)
        : cantrip
          ? castReceiver(cantrip)
          : () => ({ action: upper(action!), trigger });
    flow.receive(value["route"] as string, fn, options);
  } else {
    const on = (value["on"] ?? {}) as { actions?: string[]; triggers?: (string | null)[] };
    const message = value["message"];
    const fn =
      typeof source === "string"
        ? js!.add("sender", source)
        : cantrip
          ? castSender(cantrip)
          : () => message;
    flow.send(value["route"] as string, fn, {
      ...options,
      ...(on.actions ? { actions: on.actions.map(upper) } : {}),
      ...(on.triggers ? { triggers: on.triggers } : {}),
      multi: value["multi"] === true,
    });
  }
}
