import type { ChildLLMSource } from "../circle/spawn/index.js";
import type { LLM } from "../core/contract.js";
import { PricedLLM } from "../llm/priced.js";
import type { Price } from "../llm/prices.js";
import { ScriptedLLM } from "../llm/providers/scripted.js";

/**
 * call_entity's LLMs in a case (COMP-7): `name:` lets a proposal pick one; children otherwise get
 * `child_llm_l<depth>`, then `child_llm`. An LLM of `type: code_circle` speaks code.
 */
export function childLLMs(
  setup: Record<string, unknown>,
  llms: ReadonlyMap<string, object>,
): ChildLLMSource {
  const scripted = [...llms].filter((e): e is [string, ScriptedLLM] => e[1] instanceof ScriptedLLM);
  const choice = (key: string | undefined) => {
    const llm = scripted.find(([k]) => k === key)?.[1];
    if (!llm || key === undefined) return undefined;
    const type = (setup[key] as { type?: unknown } | null)?.type;
    return {
      llm: priced(llm),
      medium: type === "code_circle" ? "code" : "conversation",
    };
  };
  return {
    pick(name, depth) {
      if (name !== undefined)
        return Promise.resolve(choice(scripted.find(([, l]) => l.name === name)?.[0]));
      return Promise.resolve(choice(`child_llm_l${depth}`) ?? choice("child_llm"));
    },
    names: () => scripted.map(([, l]) => l.name),
  };
}

/** The `price:` a case gave each of its scripted LLMs. */
const prices = new WeakMap<object, Price>();

/** Remembers the `price:` of a scripted LLM's setup (or of the spell's own llm block). */
export function setPrice(llm: object, spec: unknown): void {
  const price = (spec as { price?: Price } | null | undefined)?.price;
  if (price) prices.set(llm, price);
}

/** A case's LLM at the price its setup gave it (the loom's cost, max_cost_usd); else as is. */
export function priced(llm: LLM, scripted: object = llm): LLM {
  const price = prices.get(scripted);
  return price ? new PricedLLM(llm, "scripted", undefined, price) : llm;
}
