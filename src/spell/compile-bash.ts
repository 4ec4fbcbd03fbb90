import type { Medium } from "../circle/medium.js";
import {
  createBashMedium,
  requireSandbox,
  type SandboxMode,
} from "../circle/mediums/bash/index.js";
import { createCodeMedium } from "../circle/mediums/code/index.js";
import { ConfigError } from "../core/errors.js";
import type { Circle as CircleSpec } from "../generated/spell.js";
import type { Warning } from "./rewrite.js";
import type { Locate } from "./validate.js";

const BASH_KEYS = ["root", "writable", "sandbox"] as const;

/**
 * The bash medium as a spell declares it: its workspace (resolved against the spell), whether it
 * may be written, and its sandbox. bubblewrap missing fails here, at load, with the install command;
 * `sandbox: passthrough` is named explicitly and warned about.
 */
export function bashCircleMedium(
  declared: Medium,
  spec: CircleSpec,
  root: string,
  warnings: Warning[],
  locate: Locate,
): Medium {
  if (declared.name !== "bash") {
    const key = BASH_KEYS.find((k) => spec[k] !== undefined);
    if (key)
      throw new ConfigError(
        "bash_key_needs_bash_medium",
        `circle.${key} belongs to the bash medium (medium: bash); this circle's medium is ${declared.name}`,
      );
    return declared;
  }
  const sandbox: SandboxMode = spec.sandbox ?? "bwrap";
  if (sandbox === "passthrough")
    warnings.push({
      message:
        "circle.sandbox: passthrough runs every shell command on this machine with no OS sandbox (no network or filesystem isolation); use it only for tests and trusted machines",
      position: locate(["circle", "sandbox"]),
    });
  requireSandbox(sandbox);
  return createBashMedium({ root, writable: spec.writable === true, sandbox });
}

/** The circle's medium carrying `circle.state`; only the code medium has variables to put it in. */
export function withState(medium: Medium, state: Readonly<Record<string, unknown>>): Medium {
  if (medium.name !== "code") {
    throw new ConfigError(
      "state_needs_code_medium",
      `circle.state needs the code medium (medium: code); this circle's medium is ${medium.name}`,
    );
  }
  return createCodeMedium({ state });
}
