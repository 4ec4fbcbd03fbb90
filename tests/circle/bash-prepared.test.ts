import {
  mkdtempSync,
  readFileSync,
  readdirSync,
  readlinkSync,
  realpathSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { expect, it } from "vitest";
import { Circle } from "../../src/circle/circle.js";
import { doneGate } from "../../src/circle/gates/index.js";
import { createBashMedium } from "../../src/circle/mediums/bash/index.js";
import type { SandboxMode } from "../../src/circle/mediums/bash/sandbox.js";
import { noBwrap } from "./bash-helpers.js";
import { needs } from "../support/needs.js";

/**
 * Issue 21: a bash session starts the next command's sandbox while the model writes the command
 * (session.ts, `prepared`). The walls stay per command: each command still gets a sandbox of its
 * own (a fresh /tmp, pid and mount namespace, nothing left of the command before), stdin
 * /dev/null; the sandbox started ahead is out of the running command's sight, and ends with the
 * session.
 */
const usage = { promptTokens: 0, completionTokens: 0, cachedTokens: 0 };

function session(root: string, sandbox: SandboxMode) {
  const circle = new Circle({
    medium: createBashMedium({ root, writable: false, sandbox }),
    gates: [doneGate()],
    wards: [{ max_turns: 10 }, { max_command_ms: 20_000 }],
  });
  const s = circle.open({ entity: undefined, depth: 0 });
  const signal = new AbortController().signal;
  let n = 0;
  const run = async (command: string): Promise<string> => {
    const call = { id: `c${n}`, name: "bash", arguments: JSON.stringify({ command }) };
    const scope = { entityId: "e", turnId: `t${n++}`, signal, requireDone: false };
    const step = await s.execute({ content: null, toolCalls: [call], usage }, scope);
    return step.observation;
  };
  return { run, dispose: () => s.dispose() };
}

/**
 * The host's processes working in `root` (the sandbox's outer processes start there); with
 * `waiting`, only a sandbox waiting for its command (its arguments hold the shell that reads it).
 */
function processesIn(root: string, waiting = false): number[] {
  const pids: number[] = [];
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      if (readlinkSync(`/proc/${name}/cwd`) !== root) continue;
      if (waiting && !readFileSync(`/proc/${name}/cmdline`, "utf8").includes("read -r -N"))
        continue;
      pids.push(Number(name));
    } catch {
      // gone, or not ours to read
    }
  }
  return pids;
}

/** Waits (generously: a busy machine) until `cond` holds; returns whether it did. */
async function eventually(cond: () => boolean, ms = 20_000): Promise<boolean> {
  for (const end = Date.now() + ms; Date.now() < end; await sleep(20)) if (cond()) return true;
  return cond();
}

needs(noBwrap).describe(`bash: the next sandbox started ahead (in bubblewrap)`, () => {
  it("each command still has a sandbox of its own: /tmp, pid and mount namespace, no process of the command before", async () => {
    const root = realpathSync(mkdtempSync(join(tmpdir(), "bash-prepared-")));
    const mark = `3602.${Date.now() % 1_000_000}`;
    const { run, dispose } = session(root, "bwrap");
    const ns = 'echo "$(readlink /proc/self/ns/pid) $(readlink /proc/self/ns/mnt)"';
    try {
      const first = await run(`echo t > /tmp/t; (sleep ${mark} &); ${ns}`);
      const second = await run(
        `ls -A /tmp | wc -l; ${ns}; ps -eo args | grep -c '^sleep ${mark}'; readlink /proc/self/fd/0`,
      );
      const [firstNs] = first.split("\n");
      const [tmpCount, secondNs, sleeps, stdin] = second.split("\n");
      expect(firstNs).toMatch(/^pid:\[\d+\] mnt:\[\d+\]$/);
      expect(tmpCount).toBe("0");
      const [pid1, mnt1] = firstNs!.split(" ");
      const [pid2, mnt2] = secondNs!.split(" ");
      expect(pid2).not.toBe(pid1);
      expect(mnt2).not.toBe(mnt1);
      expect(sleeps).toBe("0"); // the first command's sleep is not in the second's sandbox
      expect(stdin).toBe("/dev/null");
    } finally {
      dispose();
    }
  });

  it("a running command cannot see the sandbox waiting for the next one", async () => {
    const root = realpathSync(mkdtempSync(join(tmpdir(), "bash-prepared-")));
    const { run, dispose } = session(root, "bwrap");
    try {
      // the command waits for the host's word, given once the next sandbox is seen waiting
      const third = run(
        "until [ -e /work/go ]; do read -t 0.05 <> <(:) || :; done; echo INSIDE; ps -eo pid=,args= | grep '[r]ead -r -N' | awk '{ print $1 }' | paste -sd,",
      );
      expect(await eventually(() => processesIn(root, true).length > 0)).toBe(true);
      writeFileSync(join(root, "go"), "");
      const [inside, seen] = (await third).split("\n");
      expect(inside).toBe("INSIDE");
      // only its own pid 1 (bwrap, whose arguments hold the waiting shell): not the next sandbox
      expect(seen).toBe("1");
    } finally {
      dispose();
    }
  });

  for (const mode of ["bwrap", "passthrough"] as const)
    it(`a session that ends leaves no sandbox behind, the one started ahead included (${mode})`, async () => {
      const root = realpathSync(mkdtempSync(join(tmpdir(), "bash-prepared-")));
      const { run, dispose } = session(root, mode);
      expect(await run("echo one")).toContain("one");
      // the next command's sandbox is waiting: the probe sees it (so it would see one left behind)
      expect(await eventually(() => processesIn(root, true).length > 0)).toBe(true);
      dispose();
      expect(await eventually(() => processesIn(root).length === 0)).toBe(true);
    });
});
