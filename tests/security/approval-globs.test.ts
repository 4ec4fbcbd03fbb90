/**
 * Issue 38: `approve:` globs judge what a call reaches, not the text the model wrote. `unless:`
 * matches a file gate's path resolved inside its root and a URL as WHATWG parsing sends it (dot
 * segments removed, percent-encoding decoded once); `command:` matches every simple command of a
 * bash line (a real shell grammar) and a line it cannot parse asks. Every file and folder here is
 * the test's own, in a temporary folder; no URL is fetched.
 */
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  renameSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { ApprovalRecord } from "../../src/core/approval.js";
import { ApprovalPolicy } from "../../src/circle/approvals.js";
import { Circle } from "../../src/circle/circle.js";
import type { Gate, GateContext } from "../../src/circle/gate.js";
import { doneGate } from "../../src/circle/gates/done.js";
import { writeGate } from "../../src/circle/gates/write.js";
import { readGate } from "../../src/circle/gates/read.js";
import { loadSpell } from "../../src/spell/index.js";

const temp = (prefix: string) => mkdtempSync(join(tmpdir(), prefix));

describe("unless: path globs match the path reached inside the gate's root", () => {
  const root = temp("approval-path-");
  mkdirSync(join(root, "notes"));
  writeFileSync(join(root, "notes", "a.txt"), "a note");
  writeFileSync(join(root, "NOT-A-NOTE.txt"), "not a note");
  symlinkSync("..", join(root, "notes", "up")); // a link inside notes/ to the root
  symlinkSync("../NOT-A-NOTE.txt", join(root, "notes", "alias.txt"));
  const write = writeGate({ root, writable: true });
  const read = readGate({ root });
  const policy = new ApprovalPolicy([{ gate: "*", unless: { path: "notes/*" } }]);
  const asks = (path: string) =>
    [write, read].map((g) => policy.asks(g.name, { path, content: "x" }, g.reached) !== undefined);

  it.each([
    "notes/a.txt",
    "notes/new.txt",
    "./notes/a.txt",
    "/notes/a.txt",
    "notes//a.txt",
    "notes/./a.txt",
    "notes/new/deeper.txt",
    "notes/%2e%2e/x.txt", // a name like any other on a filesystem: it stays in notes/
  ])("%s stays in notes/: no ask", (path) => {
    expect(asks(path)).toEqual([false, false]);
  });

  it.each([
    "notes/../NOT-A-NOTE.txt",
    "notes/new/../../NOT-A-NOTE.txt",
    "notes\\..\\NOT-A-NOTE.txt",
    "notes/up/NOT-A-NOTE.txt",
    "notes/alias.txt",
    "notes/..",
    "notes/.",
    "NOTES/a.txt",
    "notes/../../outside.txt",
  ])("%s leaves notes/: asks", (path) => {
    expect(asks(path)).toEqual([true, true]);
  });

  it("a gate that cannot say where its paths lead is judged on the path's resolved text", () => {
    const mcp = new ApprovalPolicy([{ gate: "notes_write", unless: { path: "notes/*" } }]);
    expect(mcp.asks("notes_write", { path: "notes/x.txt" })).toBeUndefined();
    expect(mcp.asks("notes_write", { path: "notes/../NOT-A-NOTE.txt" })).toBeDefined();
    expect(mcp.asks("notes_write", { path: "notes\\..\\NOT-A-NOTE.txt" })).toBeDefined();
    expect(mcp.asks("notes_write", { path: "notes/../../x" })).toBeDefined();
  });

  it("a cast: the write to notes/../NOT-A-NOTE.txt asks (denied, nothing written), notes/b.txt does not", async () => {
    const dir = temp("approval-path-cast-");
    writeFileSync(
      join(dir, "spell.yaml"),
      `
llm:
  provider: scripted
  responses:
    - tool_calls:
        - { gate: write, args: { path: notes/../NOT-A-NOTE.txt, content: overwritten } }
        - { gate: write, args: { path: notes/b.txt, content: a note } }
    - tool_calls: [{ gate: done, args: { answer: ok } }]
identity: {}
circle:
  gates: [done, { write: { root: ., writable: true } }]
  wards: [{ max_turns: 3 }]
  approve:
    - gate: write
      unless: { path: "notes/*" }
`,
    );
    const asked: string[] = [];
    const loaded = await loadSpell(join(dir, "spell.yaml"), { loomPath: "memory" });
    const result = await loaded.cantrip!.cast("write", {
      onApproval: (r) => {
        asked.push((JSON.parse(r.arguments) as { path: string }).path);
        return false;
      },
    });
    expect(asked).toEqual(["notes/../NOT-A-NOTE.txt"]);
    expect(existsSync(join(dir, "NOT-A-NOTE.txt"))).toBe(false);
    expect(existsSync(join(dir, "notes", "b.txt"))).toBe(true);
    expect(result.loom.turns()[0]!.gate_calls.map((c) => c.is_error)).toEqual([true, false]);
  });
});

describe("an exempted call runs on what was judged", () => {
  const policy = new ApprovalPolicy([{ gate: "*", unless: { path: "notes/*" } }]);
  const contextWith = (judged: Record<string, string>) =>
    ({
      entityId: "ent_test",
      turnId: "turn_test",
      depth: 0,
      signal: new AbortController().signal,
      judged,
    }) as unknown as GateContext;

  /** A root with notes/a.txt and hooks/; judged, then notes/ swapped for a link to hooks/. */
  function judgedThenSwapped(gate: (root: string) => Gate, args: Record<string, string>) {
    const root = temp("approval-swap-");
    mkdirSync(join(root, "notes"));
    mkdirSync(join(root, "hooks"));
    writeFileSync(join(root, "notes", "a.txt"), "a note");
    writeFileSync(join(root, "hooks", "a.txt"), "a hook");
    const g = gate(root);
    const judged: Record<string, string> = {};
    expect(policy.asks(g.name, args, g.reached, judged)).toBeUndefined();
    expect(judged).toEqual({ path: args["path"] });
    renameSync(join(root, "notes"), join(root, "notes-before"));
    symlinkSync("hooks", join(root, "notes"));
    return { root, run: () => g.execute(args, contextWith(judged)) };
  }

  it("a write whose folder became a link since the judgement is refused; nothing lands there", () => {
    const { root, run } = judgedThenSwapped((r) => writeGate({ root: r, writable: true }), {
      path: "notes/a.txt",
      content: "overwritten",
    });
    expect(run).toThrow(/changed since it was approved/);
    expect(readFileSync(join(root, "hooks", "a.txt"), "utf8")).toBe("a hook");
  });

  it("a read whose folder became a link since the judgement is refused", () => {
    const { run } = judgedThenSwapped((r) => readGate({ root: r }), { path: "notes/a.txt" });
    expect(run).toThrow(/changed since it was approved/);
  });

  it("Circle.callGate hands the gate what the glob judged (and nothing when it asked)", async () => {
    const probe: Gate = {
      name: "probe",
      description: "says what it was handed",
      parameters: { type: "object", properties: { path: { type: "string" } } },
      execute: (_args, ctx) => ctx.judged ?? "none",
    };
    const circle = new Circle({
      gates: [doneGate(), probe],
      wards: [{ max_turns: 1 }],
      approvals: policy,
    });
    const ctx = contextWith({});
    const exempted = await circle.callGate(
      "probe",
      { path: "notes/../notes/x" },
      { ...ctx, judged: undefined },
    );
    expect(exempted.value).toEqual({ path: "notes/x" });
    const asked = await circle.callGate(
      "probe",
      { path: "x" },
      {
        ...ctx,
        judged: undefined,
        approver: () => true,
      },
    );
    expect(asked.value).toBe("none");
  });
});

describe("unless: url globs match the URL as it is sent (the docs' fetch example)", () => {
  const policy = new ApprovalPolicy([
    { gate: "fetch", unless: { url: "https://api.github.com/repos/acme/*" } },
  ]);
  const asks = (url: string) => policy.asks("fetch", { url }) !== undefined;
  const base = "https://api.github.com/repos/acme";

  it.each([
    `${base}/widgets`,
    `${base}/widgets/issues?state=open`,
    "HTTPS://API.GITHUB.COM/repos/acme/widgets", // scheme and host are case-blind
    "https://api.github.com:443/repos/acme/widgets",
    `${base}/widgets/./issues`,
    `${base}/widgets/../gadgets`, // still inside acme/
    `${base}/wid%67ets`, // decoded once: widgets
    `${base}/%252e%252e/x`, // decoded once only: a name "%2e%2e" inside acme/widgets' folder
    `${base}/widgets#../../../user/keys`, // a fragment is never sent
  ])("%s reaches acme's repos: no ask", (url) => {
    expect(asks(url)).toBe(false);
  });

  it.each([
    `${base}/../../user/keys`,
    `${base}/%2e%2e/%2E%2E/admin`,
    `${base}/.%2e/.%2E/orgs`,
    `${base}/%2e%2e%2f%2e%2e%2fuser/keys`, // decoded once it climbs: servers differ, so it asks
    `${base}/..%2f..%2fuser/keys`,
    `${base}/..%5c..%5cuser/keys`,
    `${base}\\..\\..\\user\\keys`, // a backslash is a slash in an http(s) URL
    `${base}//../../user/keys`,
    `${base}/..`,
    `${base}/\t../\n../user/keys`, // tabs and newlines are dropped before parsing
    "https://user:pw@api.github.com/repos/acme/widgets", // credentials: another request
    "https://api.github.com./repos/acme/widgets", // a trailing dot: not the name the glob wrote
    "https://api.github.com/repos/ACME/widgets",
    "not a url",
  ])("%s does not reach acme's repos as the glob says: asks", (url) => {
    expect(asks(url)).toBe(true);
  });

  it("an absent or non-string url asks", () => {
    expect(policy.asks("fetch", {})).toBeDefined();
    expect(policy.asks("fetch", { url: ["https://api.github.com/repos/acme/x"] })).toBeDefined();
  });
});

describe("unless: naming two arguments exempts only when both match", () => {
  const policy = new ApprovalPolicy([
    { gate: "write", unless: { path: "notes/*", content: "draft:*" } },
  ]);
  it.each([
    [{ path: "notes/a.txt", content: "draft: hello" }, false],
    [{ path: "notes/a.txt", content: "rm -rf" }, true],
    [{ path: "src/a.ts", content: "draft: hello" }, true],
    [{ path: "notes/a.txt" }, true],
    [{ content: "draft: hello" }, true],
  ] as const)("%j asks: %s", (args, asked) => {
    expect(policy.asks("write", args) !== undefined).toBe(asked);
  });
});

describe("command: globs match every simple command of a bash line", () => {
  const policy = new ApprovalPolicy([{ command: "git push*" }]);
  const asks = async (line: string) => (await policy.asksCommand(line)) !== undefined;

  it.each([
    "git push",
    "git push --force origin main",
    "cd . && git push",
    "true; git push",
    "false || git push",
    "echo x | git push",
    "(git push)",
    "{ git push; }",
    "echo $(git push)",
    "echo `git push`",
    "echo <(git push)",
    "if true; then git push; fi",
    "for r in a; do git push; done",
    "f() { git push; }; f",
    "cat <<EOF\n$(git push)\nEOF",
    "ls\ngit push",
    "git  push",
    "git\tpush",
    "x=1 git push",
    "git push >/dev/null 2>&1",
    "g\\it push",
    "'git' push",
    '"git" "push"',
    "g\"i\"t p'u'sh",
    "env git push",
    "sudo -n git push",
    "sh -c 'cd . && git push'",
    "$GIT push", // a name only known when it runs may be git
    "git $WHAT",
    "gi? push", // a file-name pattern may expand to git
    "git pu{sh,ll}",
  ])("%j asks", async (line) => {
    expect(await asks(line)).toBe(true);
  });

  it.each([
    "git status",
    "cd . && git status",
    "git pull; git log | head",
    "echo git",
    "ls -la | wc -l",
    "echo 'it is done'",
  ])("%j needs no ask", async (line) => {
    expect(await asks(line)).toBe(false);
  });

  it.each(["git push 'unclosed", "echo $(", "if true; then"])(
    "%j cannot be parsed: asks",
    async (line) => {
      expect(await policy.asksCommand(line)).toMatch(/cannot be parsed/);
    },
  );

  it("a circle with no command rule does not parse at all: an unparseable line needs no ask", async () => {
    expect(await new ApprovalPolicy([{ gate: "write" }]).asksCommand("echo $(")).toBeUndefined();
  });

  it("a bash cast: `cd . && touch made` asks under `touch *`; denied, nothing is made", async () => {
    const dir = temp("approval-command-");
    writeFileSync(join(dir, "spell.yaml"), bashSpell(`[{ command: "touch *" }]`));
    const asked: string[] = [];
    const result = await (
      await loadSpell(join(dir, "spell.yaml"), { loomPath: "memory" })
    ).cantrip!.cast("go", {
      onApproval: (r) => {
        asked.push((JSON.parse(r.arguments) as { command: string }).command);
        return false;
      },
    });
    expect(asked).toEqual(["cd . && touch made-by-bash"]);
    expect(existsSync(join(dir, "made-by-bash"))).toBe(false);
    expect(result.loom.turns()[0]!.observation).toMatch(/bash was not run: approval denied/);
  });
});

describe("fail closed", () => {
  it("an approve: [{ gate: bash }] rule asks before every command, the harmless ones too", async () => {
    const dir = temp("approval-bash-gate-");
    writeFileSync(join(dir, "spell.yaml"), bashSpell("[{ gate: bash }]"));
    const asked: string[] = [];
    const result = await (
      await loadSpell(join(dir, "spell.yaml"), { loomPath: "memory" })
    ).cantrip!.cast("go", {
      onApproval: (r) => {
        const { command } = JSON.parse(r.arguments) as { command: string };
        asked.push(command);
        return command === "done ok"; // only the end is allowed
      },
    });
    expect(asked).toEqual(["cd . && touch made-by-bash", "echo fine", "done ok"]);
    expect(existsSync(join(dir, "made-by-bash"))).toBe(false);
    expect(result.loom.turns()[1]!.observation).toMatch(/bash was not run: approval denied/);
    expect(result.status).toBe("terminated");
  });

  it.each([{ allow: "no" }, { allow: 0 }, { allow: 1 }, { allow: "yes" }, { allow: null }, {}])(
    "a library approver answering %j denies; nothing is written",
    async (answer) => {
      const dir = temp("approval-answer-");
      writeFileSync(
        join(dir, "spell.yaml"),
        `
llm:
  provider: scripted
  responses:
    - tool_calls: [{ gate: write, args: { path: out.txt, content: hello } }]
    - tool_calls: [{ gate: done, args: { answer: finished } }]
identity: {}
circle:
  gates: [done, { write: { root: ., writable: true } }]
  wards: [{ max_turns: 3 }]
  approve: [{ gate: write }]
`,
      );
      const loaded = await loadSpell(join(dir, "spell.yaml"), { loomPath: "memory" });
      const result = await loaded.cantrip!.cast("write", {
        onApproval: () => answer as unknown as boolean,
      });
      expect(existsSync(join(dir, "out.txt"))).toBe(false);
      const turn = result.loom.turns()[0]!;
      const [record] = (turn.metadata["approvals"] ?? []) as ApprovalRecord[];
      expect(record).toMatchObject({ allowed: false, reason: "malformed answer" });
      expect(turn.gate_calls[0]!.result).toMatch(/approval denied \(malformed answer/);
    },
  );
});

/** A bash-medium spell (no OS sandbox: the commands only touch the test's folder). */
const bashSpell = (approve: string) => `
llm:
  provider: scripted
  responses:
    - tool_calls: [{ gate: bash, args: { command: "cd . && touch made-by-bash" } }]
    - tool_calls: [{ gate: bash, args: { command: "echo fine" } }]
    - tool_calls: [{ gate: bash, args: { command: "done ok" } }]
identity: {}
circle:
  medium: bash
  sandbox: passthrough
  writable: true
  gates: [done]
  wards: [{ max_turns: 5 }]
  approve: ${approve}
`;
