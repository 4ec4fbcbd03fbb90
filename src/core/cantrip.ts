import type { Circle } from "../circle/circle.js";
import type { Presentation } from "../circle/medium.js";
import type { LLM, Message, ToolChoice } from "../llm/contract.js";
import { Loom } from "../loom/loom.js";
import { Entity, type CastResult, type EntityOptions } from "./entity.js";
import { isoNow } from "./clock.js";
import { ConfigError } from "./errors.js";
import { EventBus, type EventListener } from "./events.js";
import { createIdentity, identityRecord, type Identity, type IdentityInput } from "./identity.js";
import { newId } from "./ids.js";

export interface CantripInit {
  llm: LLM | null | undefined;
  identity: Identity | IdentityInput | null | undefined;
  circle: Circle | null | undefined;
  /** Where turns go; an in-memory loom when absent. */
  loom?: Loom;
  name?: string;
}

export interface CastOptions extends Omit<EntityOptions, "history"> {
  onEvent?: EventListener;
}

/**
 * LLM + identity + circle (§1.4). A value: built once, validated at construction, cast many
 * times; every cast or summon produces an independent entity (CANTRIP-2, ENTITY-6).
 */
export class Cantrip {
  readonly id = newId("cantrip");
  readonly name: string;
  readonly llm: LLM;
  readonly identity: Identity;
  readonly circle: Circle;
  readonly loom: Loom;
  /** Computed once: the circle's presentation does not change during a cast (§4.6). */
  readonly presentation: Presentation;
  readonly toolChoice: ToolChoice;
  readonly extra: Readonly<Record<string, unknown>>;

  constructor(init: CantripInit) {
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
    this.loom = init.loom ?? new Loom();
    this.presentation = Object.freeze(this.circle.medium.present(this.circle));
    this.toolChoice = this.identity.toolChoice ?? this.presentation.toolChoice;
    this.extra = Object.freeze({ ...this.identity.hyperparameters });
    Object.freeze(this);
  }

  /** One-shot: summon, run the intent, release the entity (casting is summoning with cleanup). */
  async cast(intent: string, options: CastOptions = {}): Promise<CastResult> {
    const entity = this.summon(options);
    try {
      return await entity.send(intent);
    } finally {
      entity.dispose();
    }
  }

  /** A persistent entity: `send` runs an intent and state accumulates across sends (ENTITY-5). */
  summon(options: CastOptions & { history?: Message[] } = {}): Entity {
    const bus = new EventBus();
    if (options.onEvent) bus.on(options.onEvent);
    this.loom.recordIdentity({
      id: `identity_${this.id}`,
      cantrip_id: this.id,
      role: "identity",
      identity: identityRecord(this.identity),
      tools: this.presentation.tools.map((t) => t.name),
      medium: this.circle.medium.name,
      timestamp: isoNow(),
    });
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
