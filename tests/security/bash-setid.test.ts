import { spawnSync } from "node:child_process";
import { chmodSync, readdirSync, rmSync, statSync } from "node:fs";
import { join } from "node:path";
import { afterEach, expect, it } from "vitest";
import { castBash, hasBwrap, noBwrap } from "../circle/bash-helpers.js";
import { bashSpell, castAs, insideOnly, NOBODY, asNobody } from "./bash-probes.js";
import { needs } from "../support/needs.js";

/**
 * Issue 38: inside the sandbox a command is uid 1000, but outside it is the user running
 * Spellbook — root, when root runs it. In a writable root `cp /usr/bin/bash ./sh && chmod 6755
 * ./sh` left a setuid-root file that any host user ran as `./sh -p -c id` with euid 0. No file a
 * command makes may carry a set-user-ID or set-group-ID bit, nor file capabilities, whoever runs
 * Spellbook: each way of asking for one is tried, then every file made is checked and each copy
 * of bash is run by another user. Harmless were the wall gone: the probes first prove they run
 * inside, make files only in the test's own workspace, the other user runs them only to print
 * `id`, and the folder is deleted at the end.
 */
const MAKE = [
  insideOnly(),
  "cp /usr/bin/bash ./sh-chmod && chmod 6755 ./sh-chmod; echo made-chmod=$?",
  "cp /usr/bin/bash ./sh-chmod-g && chmod g+s ./sh-chmod-g; echo made-chmod-g=$?",
  "install -m 4755 /usr/bin/bash ./sh-install; echo made-install=$?",
  "python3 - <<'PY'",
  "import os",
  "bash = open('/usr/bin/bash', 'rb').read()",
  "def attempt(name, make):",
  "    try:",
  "        make()",
  "        print('made-' + name + '=0')",
  "    except OSError as e:",
  "        print('made-' + name + '=' + e.strerror)",
  "def fchmod():",
  "    fd = os.open('sh-fchmod', os.O_CREAT | os.O_WRONLY, 0o755)",
  "    os.write(fd, bash)",
  "    os.fchmod(fd, 0o6755)",
  "    os.close(fd)",
  "def caps():",
  "    fd = os.open('sh-caps', os.O_CREAT | os.O_WRONLY, 0o755)",
  "    os.write(fd, bash)",
  "    os.close(fd)",
  "    # VFS_CAP_REVISION_2, effective; permitted: CAP_SETUID",
  "    os.setxattr('sh-caps', 'security.capability', bytes.fromhex('0100000280000000000000000000000000000000'))",
  "attempt('fchmod', fchmod)",
  "attempt('open', lambda: os.close(os.open('open-setid', os.O_CREAT | os.O_WRONLY, 0o6755)))",
  "attempt('mknod', lambda: os.mknod('mknod-setid', 0o100000 | 0o6755))",
  "attempt('mkdir', lambda: os.mkdir('dir-setgid', 0o2755))",
  "attempt('caps', caps)",
  "PY",
  "echo MADE",
].join("\n");

/** Some other unprivileged user, who runs what the command made. */
const OTHER = 4242;

const dirs: string[] = [];
afterEach(() => dirs.splice(0).forEach((d) => rmSync(d, { recursive: true, force: true })));

/** Runs `file -p -c id` as OTHER: what it prints. */
function runAsOther(file: string): string {
  const out = spawnSync(
    "setpriv",
    [`--reuid=${OTHER}`, `--regid=${OTHER}`, "--clear-groups", file, "-p", "-c", "id"],
    { encoding: "utf8", timeout: 10_000 },
  );
  return `${out.stdout}${out.stderr}`;
}

/** The made files grant nothing: no set-id bit, no capability, and another user runs them as itself. */
function expectNoPrivilege(dir: string, observation: string): void {
  expect(observation).toContain("INSIDE");
  expect(observation).not.toContain("NOT-INSIDE");
  expect(observation).toContain("MADE");
  const work = join(dir, "work");
  // the other user must reach the files (mkdtemp made the folder 0700)
  for (const d of [dir, work]) chmodSync(d, 0o755);
  const made = readdirSync(work).filter((n) => n !== ".keep");
  // the plain copies are made whatever the wall: the checks below have something to check
  expect(made).toEqual(expect.arrayContaining(["sh-chmod", "sh-chmod-g", "sh-fchmod", "sh-caps"]));
  for (const name of made)
    expect(statSync(join(work, name)).mode & 0o6000, `${name} carries no set-id bit`).toBe(0);
  const attrs = spawnSync(
    "python3",
    ["-c", "import os, sys; print(os.listxattr(sys.argv[1]))", join(work, "sh-caps")],
    { encoding: "utf8" },
  );
  expect(attrs.stdout).not.toContain("security.capability");
  if (process.getuid?.() !== 0) return; // only root can run a file as another user here
  const ran = runAsOther(join(work, "sh-chmod"));
  expect(ran).toMatch(new RegExp(`^uid=${OTHER}`)); // it ran, as OTHER
  for (const name of made.filter((n) => n.startsWith("sh-"))) {
    const id = runAsOther(join(work, name));
    expect(id, `${name} run by uid ${OTHER}`).not.toMatch(/\beuid=|\begid=/);
  }
}

const unprivileged = asNobody();

needs(noBwrap).describe(
  `no file a bash command makes grants privilege on the host (${hasBwrap ? "bubblewrap" : noBwrap})`,
  () => {
    it(`run by this process's user (uid ${process.getuid?.()}): no set-id bit, no file capability; run by uid ${OTHER} it is uid ${OTHER}`, async () => {
      const { dir, turns } = await castBash({
        commands: [MAKE],
        circle: "  root: ./work\n  writable: true",
        files: { "work/.keep": "" },
      });
      dirs.push(dir);
      expectNoPrivilege(dir, turns[0]!.observation);
    });

    unprivileged.it(`run by an unprivileged user (nobody, through setpriv): the same`, () => {
      const { cast, dir } = castAs(NOBODY, bashSpell([MAKE]));
      dirs.push(dir);
      expectNoPrivilege(dir, cast.observations[0]!);
    });
  },
);
