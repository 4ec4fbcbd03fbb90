import { execFileSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { expect, it } from "vitest";
import { pidsLimitKind } from "../../src/circle/mediums/bash/index.js";
import { insideOnly, victim } from "../security/bash-probes.js";
import { castBash, noBwrap } from "./bash-helpers.js";
import { needs, onlyWhere } from "../support/needs.js";

const pidsLimit = pidsLimitKind();
const ROOT = "  root: ./work";

/** Escapes tried from inside the sandbox (issue 13): every one must be held. */
needs(noBwrap).describe(`bash sandbox holds (in bubblewrap)`, () => {
  it("has no network: no interface but loopback, no route out", async () => {
    const { turns } = await castBash({
      commands: [
        // the outside address is tried only once the command is in a network namespace of its own
        `${insideOnly()}\nls /sys/class/net 2>/dev/null || cat /proc/net/dev | tail -n +3 | cut -d: -f1; (exec 3<>/dev/tcp/1.1.1.1/80) 2>/dev/null && echo CONNECTED || echo no-route`,
      ],
      circle: ROOT,
      files: { "work/.keep": "" },
    });
    const obs = turns[0]!.observation;
    expect(obs).toMatch(/^INSIDE\n/);
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
        // the host's /usr is only asked (access), never written: were the bind writable, nothing changes
        "echo x > a.txt; echo y > new.txt; [ -w /usr ] && echo usr-writable; echo z > /spell/bin/done; echo t > /tmp/t; ls /tmp",
        "ls -A /tmp | wc -l",
      ],
      circle: ROOT,
      files: { "work/a.txt": "original" },
    });
    expect(readFileSync(join(dir, "work/a.txt"), "utf8")).toBe("original");
    expect(existsSync(join(dir, "work/new.txt"))).toBe(false);
    expect(turns[0]!.observation.match(/Read-only file system/g)?.length).toBe(3);
    expect(turns[0]!.observation).not.toContain("usr-writable");
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

  it("sees its own /proc only and cannot signal a host process (a sleep this test started)", async () => {
    // Never `kill -9 -1`: with the pid namespace gone, that reaches every process of the host.
    const target = victim();
    try {
      const { turns } = await castBash({
        commands: [
          `${insideOnly()}\nls /proc | grep -c '^[0-9]'; kill -9 ${target.pid} 2>&1; echo still-here`,
        ],
        circle: ROOT,
        files: { "work/.keep": "" },
      });
      const [inside, count, ...rest] = turns[0]!.observation.split("\n");
      expect(inside).toBe("INSIDE");
      expect(Number(count)).toBeLessThan(10); // the sandbox's own few processes
      expect(rest.join("\n")).toMatch(/No such process\nstill-here/);
      expect(target.alive()).toBe(true);
    } finally {
      target.stop();
    }
  });

  it("kills a command that never ends at max_command_ms, with what it started", async () => {
    const t0 = Date.now();
    const mark = `1000.${Date.now() % 1_000_000}`; // this test's sleep, not another process's
    const { turns } = await castBash({
      commands: [`(sleep ${mark} &) ; while true; do :; done`],
      circle: ROOT,
      wards: "[{ max_turns: 1 }, { max_command_ms: 300 }]",
      files: { "work/.keep": "" },
    });
    expect(Date.now() - t0).toBeLessThan(5000);
    expect(turns[0]!.observation).toContain("[killed after 300 ms (max_command_ms)");
    const left = execFileSync("ps", ["-eo", "args"]).toString();
    expect(left).not.toContain(`sleep ${mark}`);
  });

  onlyWhere(pidsLimit ? undefined : "no pids cgroup here and ulimit -u does not bind root").it(
    `a fork bomb meets the pids limit and the host stays up (${pidsLimit ?? "no pids limit"})`,
    async () => {
      // A bomb with a floor: 2^9 processes at most (4 × the limit), each leaf a marked sleep, so
      // were the limit gone it would hold a bounded number of processes, ended with the command.
      const mark = `3601.${Date.now() % 1_000_000}`;
      const { turns } = await castBash({
        commands: [
          [
            insideOnly(),
            "mkfifo /tmp/tick && exec 9<> /tmp/tick", // read -t on it: a wait with no fork
            `bomb() { if [ $1 -gt 0 ]; then bomb $(($1 - 1)) | bomb $(($1 - 1)) & wait; else exec sleep ${mark}; fi; }`,
            "bomb 8 2> /tmp/err &",
            'until [[ -s /tmp/err ]]; do read -t 0.05 -u 9; done; read -r first < /tmp/err; echo "$first"',
          ].join("\n"),
        ],
        circle: ROOT,
        wards: "[{ max_turns: 1 }, { max_command_ms: 60000 }]",
        files: { "work/.keep": "" },
      });
      const obs = turns[0]!.observation;
      expect(obs.split("\n")[0]).toBe("INSIDE");
      // the limit refused a fork, and the command went on (its shell answered)
      expect(obs).toMatch(/fork: retry: Resource temporarily unavailable\n\[exit 0\]$/);
      expect(execFileSync("ps", ["-eo", "args"]).toString()).not.toContain(mark);
    },
  );
});
