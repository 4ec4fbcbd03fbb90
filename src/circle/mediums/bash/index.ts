import type { Medium } from "../../medium.js";
import { BASH_TOOL, capabilityText } from "./capability.js";
import type { BashOptions } from "./options.js";
import { requireSandbox } from "./sandbox.js";
import { BashSession } from "./session.js";

export { BASH_TOOL } from "./capability.js";
export type { BashOptions } from "./options.js";
export { bwrapProblem, BWRAP_INSTALL, requireSandbox, type SandboxMode } from "./sandbox.js";
export { memoryLimitKind, pidsLimitKind } from "./cgroup.js";

/**
 * The bash medium (seed 002 "Medium"): one shell command per turn in bubblewrap, the gates
 * commands on PATH that call back to the host. The LLM sees one tool, `bash`, tool_choice required.
 */
export function createBashMedium(options: BashOptions): Medium {
  return {
    name: "bash",
    present(circle) {
      requireSandbox(options.sandbox);
      return {
        tools: [BASH_TOOL],
        toolChoice: "required",
        capability: capabilityText(circle, options),
      };
    },
    open(circle, context) {
      requireSandbox(options.sandbox);
      return new BashSession(circle, context, options);
    },
  };
}

/** The registry's bash medium (a child's `medium: bash`): the working folder, read-only, bubblewrap. */
export const bashMedium: Medium = {
  name: "bash",
  present: (circle) => createBashMedium(registryOptions()).present(circle),
  open: (circle, context) => createBashMedium(registryOptions()).open(circle, context),
};

const registryOptions = (): BashOptions => ({
  root: process.cwd(),
  writable: false,
  sandbox: "bwrap",
});
