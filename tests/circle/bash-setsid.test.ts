import { existsSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, it } from "vitest";
import { Circle } from "../../src/circle/circle.js";
import { doneGate } from "../../src/circle/gates/index.js";
import { createBashMedium } from "../../src/circle/mediums/bash/index.js";
import { bashStep } from "./bash-helpers.js";
import { needs } from "../support/needs.js";

const SETSID = existsSync("/usr/bin/setsid");

/**
 * A process that leaves the command's process group (setsid) in passthrough, where no pid
 * namespace ends it with the shell. Before, it held the turn: `setsid done x` waited forever (done
 * waits for the command to end, the command's pipes waited for done's client), and an escaped
 * process holding stdout kept the turn past max_command_ms.
 */
async function step(root: string, command: string) {
  const circle = new Circle({
    medium: createBashMedium({ root, writable: true, sandbox: "passthrough" }),
    gates: [doneGate()],
    wards: [{ max_turns: 3 }, { max_command_ms: 2000 }],
  });
  return bashStep(circle, command);
}

/** Ends what a test left behind, if the runtime did not. */
function killPidFile(file: string): void {
  if (!existsSync(file)) return;
  try {
    process.kill(Number(readFileSync(file, "utf8").trim()), "SIGKILL");
  } catch {
    // ended by the runtime, as it should be
  }
}

needs(
  SETSID ? undefined : "/usr/bin/setsid is missing, the probe's way to leave the group",
).describe("bash passthrough: a process that leaves the group", () => {
  it("`setsid done x` ends the loop with x instead of waiting for itself", async () => {
    const root = mkdtempSync(join(tmpdir(), "bash-escape-"));
    const out = await step(root, 'setsid done "x"; echo after');
    expect(out.gateCalls.map((g) => [g.gate_name, g.result])).toEqual([["done", "x"]]);
    expect(out.observation).not.toContain("after");
  });

  it("an escaped process holding stdout does not keep the turn open", async () => {
    const root = mkdtempSync(join(tmpdir(), "bash-escape-"));
    const pidFile = join(root, "esc.pid");
    try {
      const out = await step(
        root,
        "setsid sh -c 'echo $$ > esc.pid; exec sleep 600' & " +
          "while [ ! -s esc.pid ]; do sleep 0.02; done; echo hi",
      );
      expect(out.observation).toMatch(/^hi\n/);
    } finally {
      killPidFile(pidFile);
    }
  });
});
