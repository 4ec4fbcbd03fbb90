import { inspect, type InspectOptionsStylized } from "node:util";
import { inspectRedacted, redactedCopy } from "./printed.js";
import { carried, type LLM, type Message, type ToolChoice } from "./contract.js";
import { castPlaces, castScopeFor } from "./cast-places.js";
import { Entity } from "./entity.js";
import type { CastOptions, EntityOptions, EntitySource, SummonOptions } from "./entity-options.js";
import { ConfigError } from "./errors.js";
import { EventBus } from "./events.js";
import { alsoStreaming, streamEvents, type CastEvents } from "./event-stream.js";
import { createIdentity, identityRecord, type Identity, type IdentityInput } from "./identity.js";
import { newId } from "./ids.js";
import { keepShape } from "./kept-shapes.js";
import { CastRun } from "./loop.js";
import type { LoomWriter } from "./loom-writer.js";
import type { CircleLike, Presentation } from "./medium.js";
import type { CastResult } from "./result.js";
import { wholeHistory, type ContextView } from "./view.js";

export interface CantripInit<L extends LoomWriter = LoomWriter> {
  llm: LLM | null | undefined;
  identity: Identity | IdentityInput | null | undefined;
  circle: CircleLike | null | undefined;
  /** Where turns go. Injected: core builds no loom of its own (the package entry gives a default). */
  loom: L;
  name?: string;
  /** What the LLM is sent of the history each turn; the whole history by default. */
  view?: ContextView;
  /** The spell file the cantrip was loaded from (the loom's index of entities names it). */
  source?: string;
  /**
   * How the cantrip prints itself (`util.inspect`, `console.log`): its spell's redaction, so a
   * debug log carries no `${env:…}` value of its identity or gates (PROD-8). Default: none.
   */
  redact?: (text: string) => string;
  /** The cantrip's id; default a new one. A cast's `nextCantrip` keeps its cantrip's. */
  id?: string;
}

/**
 * What `cast` returns: the outcome, and the cantrip to cast next (seed 002's `next_cantrip`): the
 * same id, identity, circle, loom and view, with the LLM's runtime state carried forward — a
 * scripted model goes on from where this cast left it. The cantrip that was cast is unchanged.
 * `nextCantrip` is not enumerable: a result printed or encoded as JSON is the outcome alone.
 */
export type CantripCastResult<L extends LoomWriter = LoomWriter> = CastResult<L> & {
  readonly nextCantrip: Cantrip<L>;
};

export type { CastOptions, SummonOptions } from "./entity-options.js";

/**
 * LLM + identity + circle (§1.4). A value: built once, validated at construction, cast many
 * times; every cast or summon produces an independent entity (CANTRIP-2, ENTITY-6).
 */
export class Cantrip<L extends LoomWriter = LoomWriter> implements EntitySource<L> {
  readonly id: string;
  readonly name: string;
  readonly llm: LLM;
  readonly identity: Identity;
  readonly circle: CircleLike;
  readonly loom: L;
  readonly view: ContextView;
  readonly toolChoice: ToolChoice;
  readonly extra: Readonly<Record<string, unknown>>;
  readonly source: string | undefined;
  /** The presentation, replaced only when `prepare` learns more (the cantrip is frozen). */
  private readonly shown: { presentation: Presentation };
  private readonly redact: ((text: string) => string) | undefined;

  constructor(init: CantripInit<L>) {
    // CANTRIP-1: an LLM, an identity and a circle.
    if (!init.llm) throw new ConfigError("missing_llm", "cantrip requires an llm");
    if (init.identity === null || init.identity === undefined) {
      throw new ConfigError("missing_identity", "cantrip requires an identity");
    }
    if (!init.circle) throw new ConfigError("missing_circle", "cantrip requires a circle");
    this.id = init.id ?? newId("cantrip");
    this.name = init.name ?? "cantrip";
    this.llm = init.llm;
    this.identity = isIdentity(init.identity) ? init.identity : createIdentity(init.identity);
    this.circle = init.circle;
    this.loom = init.loom;
    this.view = init.view ?? wholeHistory;
    this.source = init.source;
    this.redact = init.redact;
    this.shown = { presentation: Object.freeze(this.circle.present()) };
    this.toolChoice = this.identity.toolChoice ?? this.presentation.toolChoice;
    this.extra = Object.freeze({ ...this.identity.hyperparameters });
    Object.freeze(this);
  }

  /**
   * PROD-8: printed through the spell's redaction. Strings are never cut into `'…' +` pieces
   * (breakLength: Infinity, a property a line), so a secret is whole when it is redacted.
   */
  [inspect.custom](depth: number, options: InspectOptionsStylized): string {
    if (depth < 0) return options.stylize("[Cantrip]", "special");
    const { redact, ...fields } = this;
    return inspectRedacted("Cantrip", fields, options, redact);
  }

  /** `JSON.stringify(cantrip)`: what it is — its identity, LLM, medium and gates — redacted. */
  toJSON(): unknown {
    const value = {
      id: this.id,
      name: this.name,
      source: this.source ?? null,
      llm: this.llm.name,
      identity: identityRecord(this.identity),
      medium: this.circle.mediumName,
      tools: this.presentation.tools.map((t) => t.name),
    };
    return redactedCopy(value, this.redact);
  }

  /** A text as this cantrip prints it: through its spell's redaction (its entity prints so). */
  printed(text: string): string {
    return this.redact ? this.redact(text) : text;
  }

  /**
   * The circle's presentation (§4.6): computed at construction, and again when `prepare` learns
   * what lives outside the spell (an MCP server's tools). It never changes during a cast.
   */
  get presentation(): Presentation {
    return this.shown.presentation;
  }

  /** Called by an entity before each cast: a circle with gates outside the spell reaches them. */
  async prepare(): Promise<void> {
    const { circle } = this;
    if (circle.prepare && (await circle.prepare()))
      this.shown.presentation = Object.freeze(circle.present());
  }

  /** One-shot: summon, run the intent, release the entity (casting is summoning with cleanup). */
  async cast(intent: string, options: CastOptions = {}): Promise<CantripCastResult<L>> {
    // A cast's entity is not kept (nothing to register or hold) unless it is named to continue.
    const { resumeEntity, seat, within, ...rest } = options;
    const named = resumeEntity === undefined ? {} : { entity: resumeEntity };
    // Its scripted models' places are the cast's own (a child's are its parent's): see cast-places.ts.
    const scope = within ? within.places : castScopeFor(seat);
    const inScope = <T>(fn: () => T): T =>
      scope ? castPlaces.run(scope, fn) : castPlaces.exit(fn);
    const entity = this.open({ ...rest, ...named }, false, resumeEntity !== undefined);
    entity.places = scope;
    let result: CastResult<L>;
    try {
      result = await inScope(() => entity.send(intent, { resume: resumeEntity !== undefined }));
    } finally {
      entity.dispose();
    }
    return withNext(
      result,
      inScope(() => this.next()),
    );
  }

  /**
   * One cast read as its events (§7.5), the async-iterator form of `onEvent`: `for await (const
   * e of cantrip.events(intent))`, then `await run.result` for what `cast` returns. Leaving the
   * loop early cancels the cast (reason "cancelled"); `options` are `cast`'s (core/event-stream.ts).
   */
  events(intent: string, options: CastOptions = {}): CastEvents<CantripCastResult<L>> {
    return streamEvents((onEvent, closed) =>
      this.cast(intent, alsoStreaming(options, onEvent, closed)),
    );
  }

  /**
   * The cantrip to cast next (seed 002's `next_cantrip`): this one with its LLM's runtime state
   * as it stands now carried into an LLM of its own (`LLM.carry`; an LLM with none is shared).
   * Built as this cantrip's own class; the same id, so the loom keeps one identity record.
   */
  next(): Cantrip<L> {
    const llm = carried(this.llm);
    const Class = this.constructor as new (init: CantripInit<L>) => Cantrip<L>;
    return new Class({
      id: this.id,
      name: this.name,
      llm,
      identity: this.identity,
      circle: this.circle,
      loom: this.loom,
      view: this.view,
      ...(this.source === undefined ? {} : { source: this.source }),
      ...(this.redact ? { redact: this.redact } : {}),
    });
  }

  /** A persistent entity: `send` runs an intent and state accumulates across sends (ENTITY-5). */
  summon(options: SummonOptions = {}): Entity<L> {
    return this.open(options, true);
  }

  /** `mayBeNew`: a named entity the loom does not know yet starts fresh under that id. */
  private open(options: SummonOptions, keep: boolean, mayBeNew = false): Entity<L> {
    const { entity: resume, ...rest } = options;
    if (!castShapesKept) keepCastShapes();
    const bus = new EventBus();
    if (options.onEvent) bus.on(options.onEvent);
    this.loom.recordIdentity(
      this.id,
      identityRecord(this.identity),
      this.presentation.tools.map((t) => t.name),
      this.circle.mediumName,
    );
    const named = resume !== undefined && !mayBeNew;
    const keeper = keep || resume !== undefined ? this.keeper(named) : undefined;
    const point = resume === undefined ? {} : this.resumeLater(resume);
    return new Entity(this, bus, { ...rest, ...point, ...(keeper ? { keeper } : {}) });
  }

  /** A named entity: its thread is read once the entity is held (Entity.ready), not before. */
  private resumeLater(entityId: string): EntityOptions {
    if (!this.loom.resumeEntity || !this.loom.holdEntity)
      throw new ConfigError("resume_unsupported", "this loom does not keep entities to resume");
    return { id: entityId, resume: () => this.resumePoint(entityId) };
  }

  /** Where a named entity's thread ends, its context and rebuild (or a fresh start: no turns yet). */
  private resumePoint(entityId: string): EntityOptions {
    const loom = this.loom;
    if (!loom.resumeEntity) return {};
    const medium = this.circle.mediumName;
    const codeTool = medium === "code" ? (this.presentation.tools[0]?.name ?? "js") : null;
    const point = loom.resumeEntity(entityId, codeTool);
    if (!point) return { id: entityId }; // registered without a turn: holdEntity checks it exists
    const head = this.initialMessages();
    return {
      id: entityId,
      history: [...head, ...point.messages],
      marks: point.marks.map((m) => ({ ...m, start: m.start + head.length })),
      parentTurnId: point.lastTurnId,
      sequence: point.sequence,
      recorded: point.cast,
      ...(point.rebuild.length ? { rebuild: point.rebuild } : {}),
    };
  }

  private keeper(resumed: boolean): EntityOptions["keeper"] {
    const loom = this.loom;
    if (!loom.holdEntity) return undefined;
    const info = {
      cantripName: this.name,
      medium: this.circle.mediumName,
      source: this.source,
      resumed,
    };
    return (entityId) => loom.holdEntity!(entityId, info);
  }

  /** The fixed head of every context: identity, then the circle's capability text (§4.6). */
  initialMessages(): Message[] {
    const messages: Message[] = [];
    if (this.identity.systemPrompt)
      messages.push({ role: "system", content: this.identity.systemPrompt });
    if (this.presentation.capability)
      messages.push({ role: "system", content: this.presentation.capability });
    return messages;
  }
}

function withNext<L extends LoomWriter>(
  result: CastResult<L>,
  nextCantrip: Cantrip<L>,
): CantripCastResult<L> {
  Object.defineProperty(result, "nextCantrip", { value: nextCantrip, enumerable: false });
  return result as CantripCastResult<L>;
}

function isIdentity(value: Identity | IdentityInput): value is Identity {
  return Object.isFrozen(value) && "hyperparameters" in value && "systemPrompt" in value;
}

let castShapesKept = false;

/**
 * An entity, its bus and a cast's run (its tally, its abort controller), kept from the first
 * entity on (core/kept-shapes.ts). Made on a stub cantrip and never run (no timer, no outer
 * signal): they hold nothing of a real cast's.
 */
function keepCastShapes(): void {
  castShapesKept = true;
  const stub = {
    id: "",
    name: "",
    view: wholeHistory,
    initialMessages: (): Message[] => [],
    circle: { wards: [], open: () => ({}) },
    llm: { name: "" },
    presentation: { tools: [] },
    extra: {},
  } as unknown as EntitySource;
  const entity = new Entity(stub, new EventBus());
  keepShape(entity);
  keepShape(new CastRun(entity, undefined));
}
