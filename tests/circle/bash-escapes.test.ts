import { execFileSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { pidsLimitKind } from "../../src/circle/mediums/bash/index.js";
import { castBash, hasBwrap, noBwrap } from "./bash-helpers.js";

const pidsLimit = pidsLimitKind();
const SKIP = hasBwrap ? "in bubblewrap" : `skipped: ${noBwrap}`;
const ROOT = "  root: ./work";

/** Escapes tried from inside the sandbox (issue 13): every one must be held. */
describe.skipIf(!hasBwrap)(`bash sandbox holds (${SKIP})`, () => {
  it("has no network: no interface but loopback, no route out", async () => {
    const { turns } = await castBash({
      commands: [
        "ls /sys/class/net 2>/dev/null || cat /proc/net/dev | tail -n +3 | cut -d: -f1; (exec 3<>/dev/tcp/1.1.1.1/80) 2>/dev/null && echo CONNECTED || echo no-route",
      ],
      circle: ROOT,
      files: { "work/.keep": "" },
    });
    const obs = turns[0]!.observation;
    expect(obs).toContain("no-route");
    expect(obs).not.toContain("CONNECTED");
    expect(obs).not.toMatch(/eth0|ens|wlan/);
  });

  it("sees only its root: the spell's folder, the host's home and secrets are not there", async () => {
    const { turns, dir } = await castBash({
      commands: [
        "cat ../outside.txt; cat $OLDPWD/outside.txt; ls /root /home /etc/shadow 2>&1 | head -3; env | sort",
      ],
      circle: ROOT,
      files: { "work/a.txt": "in", "outside.txt": "TOP-SECRET" },
    });
    const obs = turns[0]!.observation;
    expect(readFileSync(join(dir, "outside.txt"), "utf8")).toBe("TOP-SECRET");
    expect(obs).not.toContain("TOP-SECRET");
    expect(obs).toContain("No such file or directory");
    // A filtered environment: only what the runtime sets, no host variables.
    const names = obs
      .split("\n")
      .filter((l) => /^[A-Z_]+=/.test(l))
      .map((l) => l.split("=")[0]);
    // bash adds PWD, SHLVL and _ itself; nothing comes from the host's environment.
    expect(names).toEqual([
      "HOME",
      "LANG",
      "PATH",
      "PWD",
      "SHLVL",
      "SPELL_GATE_CLIENT",
      "SPELL_GATE_RUNNER",
      "SPELL_GATE_SOCKET",
      "TMPDIR",
      "_",
    ]);
  });

  it("cannot write a read-only root, the system, or the gate folder; /tmp is fresh", async () => {
    const { turns, dir } = await castBash({
      commands: [
        "echo x > a.txt; echo y > new.txt; touch /usr/evil; echo z > /spell/bin/done; echo t > /tmp/t; ls /tmp",
        "ls -A /tmp | wc -l",
      ],
      circle: ROOT,
      files: { "work/a.txt": "original" },
    });
    expect(readFileSync(join(dir, "work/a.txt"), "utf8")).toBe("original");
    expect(existsSync(join(dir, "work/new.txt"))).toBe(false);
    expect(turns[0]!.observation.match(/Read-only file system/g)?.length).toBe(4);
    expect(turns[1]!.observation).toBe("0\n[exit 0]"); // the next command's /tmp is empty again
  });

  it("writable: true lets commands change the root, and only the root", async () => {
    const { dir } = await castBash({
      commands: ["echo changed > a.txt; echo x > ../escape.txt"],
      circle: `${ROOT}\n  writable: true`,
      files: { "work/a.txt": "original" },
    });
    expect(readFileSync(join(dir, "work/a.txt"), "utf8")).toBe("changed\n");
    expect(existsSync(join(dir, "escape.txt"))).toBe(false);
  });

  it("sees its own /proc only and cannot signal the host", async () => {
    const host = process.pid;
    const { turns } = await castBash({
      commands: [`ls /proc | grep -c '^[0-9]'; kill -9 ${host} 2>&1; kill -9 -1; echo still-here`],
      circle: ROOT,
      files: { "work/.keep": "" },
    });
    const [count] = turns[0]!.observation.split("\n");
    expect(Number(count)).toBeLessThan(10); // the sandbox's own few processes
    expect(() => process.kill(host, 0)).not.toThrow(); // this test process is alive
  });

  it("kills a command that never ends at max_command_ms, with what it started", async () => {
    const t0 = Date.now();
    const { turns } = await castBash({
      commands: ["(sleep 1000 &) ; while true; do :; done"],
      circle: ROOT,
      wards: "[{ max_turns: 1 }, { max_command_ms: 300 }]",
      files: { "work/.keep": "" },
    });
    expect(Date.now() - t0).toBeLessThan(5000);
    expect(turns[0]!.observation).toContain("[killed after 300 ms (max_command_ms)");
    const left = execFileSync("ps", ["-eo", "args"]).toString();
    expect(left).not.toContain("sleep 1000");
  });

  it.skipIf(!pidsLimit)(
    `a fork bomb meets the pids limit and the host stays up (${pidsLimit ?? "skipped: no pids cgroup here and ulimit -u does not bind root"})`,
    async () => {
      const { turns } = await castBash({
        commands: ["bomb() { bomb | bomb & }; bomb; sleep 1; echo survived"],
        circle: ROOT,
        wards: "[{ max_turns: 1 }, { max_command_ms: 3000 }]",
        files: { "work/.keep": "" },
      });
      const obs = turns[0]!.observation;
      expect(obs).toContain("fork: retry: Resource temporarily unavailable"); // the limit refused forks
      expect(obs.startsWith("survived\n")).toBe(true); // and the command went on
      expect(execFileSync("ps", ["-eo", "args"]).toString()).not.toMatch(/bomb/);
    },
  );
});
