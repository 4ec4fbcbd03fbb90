import type { Medium } from "../../medium.js";
import { capabilityText, JS_TOOL } from "./capability.js";
import { loadCodeEngine } from "../../../sandbox/index.js";
import { CodeSession } from "./session.js";

export {
  configureCodeEngine,
  loadCodeEngine,
  type CodeEngine,
  type CodeEngineOptions,
  sandboxLimits,
  type SandboxLimits,
} from "../../../sandbox/index.js";

export { JS_TOOL } from "./capability.js";

export interface CodeMediumOptions {
  /** Variables injected into every sandbox of the circle (circle.state, a child's context). */
  state?: Readonly<Record<string, unknown>>;
}

/**
 * The code medium (§4.1, MEDIUM-2): JavaScript in a QuickJS sandbox. The LLM sees one tool,
 * `js`, with tool_choice required (§4.6); the gates are functions inside the sandbox.
 */
export function createCodeMedium(options: CodeMediumOptions = {}): Medium {
  const state = Object.freeze({ ...(options.state ?? {}) });
  return {
    name: "code",
    state,
    present(circle) {
      // Start loading the engine now, so the first turn does not wait for the WASM compile.
      loadCodeEngine().catch(() => undefined);
      return {
        tools: [JS_TOOL],
        toolChoice: "required",
        capability: capabilityText(circle, state),
      };
    },
    open(circle, context) {
      return new CodeSession(circle, context, state);
    },
  };
}

export const codeMedium: Medium = createCodeMedium();
