import type { Entity } from "../../core/entity.js";
import type { Identity } from "../../core/identity.js";
import type { LLM } from "../../core/contract.js";
import type { Circle } from "../circle.js";
import type { Gate } from "../gate.js";
import type { ChildLLMSource } from "./child-llms.js";

/** A whole child cantrip named by the spell (`call_entity: { spell: ./child.yaml }`), resolved at load. */
export interface ChildTemplate {
  llm?: LLM;
  identity?: Identity;
  circle?: Circle;
}

/** What a call_entity gate was configured with at construction (CIRCLE-10). */
export interface SpawnConfig {
  /** LLMs children may use: by name, and the default per depth. */
  llms?: ChildLLMSource;
  /** A child spell's cantrip, resolved by the loader. */
  template?: ChildTemplate;
  /** The children's medium when neither the proposal, the LLM nor the template decides. */
  medium?: string;
  /** Gates a proposal may name that neither the template nor the parent has, configured by the spell (COMP-1). */
  offered?: readonly Gate[];
  /** The gate registry the circle was built from: gates that need no configuration, and what the others take. */
  registry?: GateLookup;
}

/** The gate registry as the spawn step sees it (COMP-1: the child's gates come from the same registry). */
export interface GateLookup {
  /**
   * A fresh gate that reaches nothing unconfigured: it takes no dependencies (`done`, `echo`), or
   * is closed without them (`fetch` with an empty allowlist denies every host).
   */
  free(name: string): Gate | undefined;
  /** Whether `free(name)` gives a gate. */
  isFree(name: string): boolean;
  /** The dependencies a registered gate takes (`["root"]` for read); undefined for a name nobody registered. */
  dependencies(name: string): readonly string[] | undefined;
  names(): readonly string[];
}

export interface ParentView {
  entity: Entity;
  circle: Circle;
  /** The parent's depth: 0 for an entity nobody spawned. */
  depth: number;
}
