import type { LLM, Message, ToolChoice } from "./contract.js";
import { Entity, type EntityOptions, type EntitySource } from "./entity.js";
import { ConfigError } from "./errors.js";
import { EventBus, type EventListener } from "./events.js";
import { createIdentity, identityRecord, type Identity, type IdentityInput } from "./identity.js";
import { newId } from "./ids.js";
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
}

export interface CastOptions extends Omit<EntityOptions, "history"> {
  onEvent?: EventListener;
}

/**
 * LLM + identity + circle (§1.4). A value: built once, validated at construction, cast many
 * times; every cast or summon produces an independent entity (CANTRIP-2, ENTITY-6).
 */
export class Cantrip<L extends LoomWriter = LoomWriter> implements EntitySource<L> {
  readonly id = newId("cantrip");
  readonly name: string;
  readonly llm: LLM;
  readonly identity: Identity;
  readonly circle: CircleLike;
  readonly loom: L;
  readonly view: ContextView;
  /** Computed once: the circle's presentation does not change during a cast (§4.6). */
  readonly presentation: Presentation;
  readonly toolChoice: ToolChoice;
  readonly extra: Readonly<Record<string, unknown>>;

  constructor(init: CantripInit<L>) {
    // CANTRIP-1: an LLM, an identity and a circle.
    if (!init.llm) throw new ConfigError("missing_llm", "cantrip requires an llm");
    if (init.identity === null || init.identity === undefined) {
      throw new ConfigError("missing_identity", "cantrip requires an identity");
    }
    if (!init.circle) throw new ConfigError("missing_circle", "cantrip requires a circle");
    this.name = init.name ?? "cantrip";
    this.llm = init.llm;
    this.identity = isIdentity(init.identity) ? init.identity : createIdentity(init.identity);
    this.circle = init.circle;
    this.loom = init.loom;
    this.view = init.view ?? wholeHistory;
    this.presentation = Object.freeze(this.circle.present());
    this.toolChoice = this.identity.toolChoice ?? this.presentation.toolChoice;
    this.extra = Object.freeze({ ...this.identity.hyperparameters });
    Object.freeze(this);
  }

  /** One-shot: summon, run the intent, release the entity (casting is summoning with cleanup). */
  async cast(intent: string, options: CastOptions = {}): Promise<CastResult<L>> {
    const entity = this.summon(options);
    try {
      return await entity.send(intent);
    } finally {
      entity.dispose();
    }
  }

  /** A persistent entity: `send` runs an intent and state accumulates across sends (ENTITY-5). */
  summon(options: CastOptions & { history?: Message[] } = {}): Entity<L> {
    const bus = new EventBus();
    if (options.onEvent) bus.on(options.onEvent);
    this.loom.recordIdentity(
      this.id,
      identityRecord(this.identity),
      this.presentation.tools.map((t) => t.name),
      this.circle.mediumName,
    );
    return new Entity(this, bus, options);
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

function isIdentity(value: Identity | IdentityInput): value is Identity {
  return Object.isFrozen(value) && "hyperparameters" in value && "systemPrompt" in value;
}
