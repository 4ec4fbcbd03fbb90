import type { LLM } from "../../core/contract.js";

/** The LLM a child gets, and the medium that LLM speaks when it has an opinion (code for a code LLM). */
export interface ChildLLMChoice {
  llm: LLM;
  medium?: string;
}

/**
 * Where the LLMs of children come from (COMP-7): names a proposal may use (`llm: "fast"`) and
 * defaults per depth. A source with no opinion returns undefined: the child then uses the
 * parent's LLM.
 */
export interface ChildLLMSource {
  /** The LLM called `name`; without a name, the default for a child at `depth` (1 = a child of the root). */
  pick(name: string | undefined, depth: number): Promise<ChildLLMChoice | undefined>;
  /** The names this source answers to, for error messages. */
  names(): string[];
}

/** Asks each source in turn. */
export function combineSources(...sources: (ChildLLMSource | undefined)[]): ChildLLMSource {
  const list = sources.filter((s): s is ChildLLMSource => s !== undefined);
  return {
    async pick(name, depth) {
      for (const source of list) {
        const choice = await source.pick(name, depth);
        if (choice) return choice;
      }
      return undefined;
    },
    names: () => [...new Set(list.flatMap((s) => s.names()))],
  };
}
