import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { gateRegistry, type GateRegistry } from "../../src/circle/gates/index.js";
import { doneGate } from "../../src/circle/gates/done.js";
import { SpellSource } from "../../src/spell/source.js";
import { circleTreeExposures, lethalTrifectaWarning } from "../../src/spell/trifecta/check.js";

// Gate names are data here: `fetch` and MCP gates are classified by name and configuration,
// whether or not this build's registry has them (the schema is not consulted).
let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "trifecta-"));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function check(text: string, options: { registry?: GateRegistry; name?: string } = {}) {
  const file = join(dir, options.name ?? "spell.yaml");
  writeFileSync(file, text);
  const source = new SpellSource(file, text);
  const ctx = {
    file,
    baseDir: dir,
    locate: source.position.bind(source),
    env: {},
    ...(options.registry ? { registry: options.registry } : {}),
  };
  return {
    warning: lethalTrifectaWarning(source.toJS(), ctx),
    legs: circleTreeExposures(source.toJS(), ctx),
  };
}

const circle = (gates: string, extra = "") =>
  `circle:\n  medium: code\n  gates:\n    - done\n${gates}  wards:\n    - max_turns: 3\n${extra}`;

describe("lethal trifecta (§4.8)", () => {
  it("warns when read meets fetch with a wildcard allow list, naming each leg at its line and the way to split", () => {
    const { warning } = check(
      circle("    - read: { root: data }\n    - fetch: { allow: ['*'] }\n"),
    );
    expect(warning).toBeDefined();
    const m = warning!.message;
    expect(m).toContain("lethal trifecta (spec §4.8)");
    expect(m).toMatch(/private data \(read: reads files under data, at .*spell\.yaml:5:7/);
    expect(m).toMatch(
      /untrusted input \(fetch: brings in content from the web, at .*spell\.yaml:6:7/,
    );
    expect(m).toMatch(
      /a way out \(fetch: its allow list lets it reach any host, at .*spell\.yaml:6:7/,
    );
    expect(m).toContain("narrow fetch's allow to the hosts it needs");
    expect(m).toContain("split the circle");
    expect(m).toContain("acknowledge: [lethal_trifecta]");
    expect(warning!.position).toMatchObject({ line: 1, col: 1 });
  });

  it("a narrow allow list is untrusted input but no way out", () => {
    const { warning, legs } = check(
      circle("    - read\n    - fetch: { allow: [api.example.com, docs.example.com] }\n"),
    );
    expect(warning).toBeUndefined();
    expect(legs.map((l) => l.leg).sort()).toEqual(["private_data", "untrusted_input"]);
  });

  it("an a2a gate brings in what a remote agent answers; a wildcard in its allow list is a way out too", () => {
    const narrow = check(
      circle(
        "    - read\n    - a2a: { name: reviewer, url: 'https://agents.example.org', allow: [agents.example.org] }\n",
      ),
    );
    expect(narrow.warning).toBeUndefined();
    expect(narrow.legs.find((l) => l.leg === "untrusted_input")).toMatchObject({
      gate: "a2a reviewer",
      why: expect.stringContaining("https://agents.example.org") as unknown,
    });
    const wide = check(
      circle(
        "    - read\n    - a2a: { name: reviewer, url: 'https://a.example.org', allow: ['*.example.org'] }\n",
      ),
    );
    expect(wide.legs.map((l) => l.leg).sort()).toEqual([
      "private_data",
      "untrusted_input",
      "way_out",
    ]);
    expect(wide.warning?.message).toContain("a2a reviewer");
  });

  it("a wildcard in the allow list is wide, in every spelling of the gate", () => {
    for (const gate of [
      "    - fetch: { allow: ['*.example.com'] }\n",
      "    - { name: fetch, allow: ['*'] }\n",
      "    - { name: fetch, dependencies: { allow: ['https://*'] } }\n",
    ]) {
      expect(check(circle(`    - list_dir\n${gate}`)).warning, gate).toBeDefined();
    }
  });

  it("browser: untrusted input with any host allowed, a way out when its allow list is wide, nothing with none", () => {
    const narrow = check(circle("    - read\n    - browser: { allow: [localhost:8080] }\n"));
    expect(narrow.warning).toBeUndefined();
    expect(narrow.legs.map((l) => [l.leg, l.gate]).sort()).toEqual([
      ["private_data", "read"],
      ["untrusted_input", "browser"],
    ]);
    const wide = check(circle("    - read\n    - browser: { allow: ['*.example.org'] }\n"));
    expect(wide.warning?.message).toMatch(
      /a way out \(browser: its allow list lets it reach any host, at .*spell\.yaml:6:7/,
    );
    expect(wide.warning?.message).toContain("narrow browser's allow to the hosts it needs");
    const none = check(circle("    - read\n    - browser: { allow: [] }\n"));
    expect(none.legs.map((l) => l.leg)).toEqual(["private_data"]);
  });

  it("no private data, no warning", () => {
    expect(check(circle("    - fetch: { allow: ['*'] }\n")).warning).toBeUndefined();
  });

  it("fetch with no allow list, or an empty one, reaches no host: no leg at all", () => {
    for (const gate of ["    - fetch\n", "    - fetch: { allow: [] }\n"]) {
      const { warning, legs } = check(circle(`    - read\n${gate}`));
      expect(warning, gate).toBeUndefined();
      expect(
        legs.filter((l) => l.gate === "fetch"),
        gate,
      ).toEqual([]);
    }
  });

  it("acknowledge: [lethal_trifecta] silences it", () => {
    const text = `acknowledge: [lethal_trifecta]\n${circle("    - read\n    - fetch: { allow: ['*'] }\n")}`;
    expect(check(text).warning).toBeUndefined();
  });

  it("state, an MCP gate and a write to a shared place make the three legs", () => {
    const text = circle(
      "    - mcp_github\n    - write: { root: /tmp/outbox, writable: true }\n",
      "  state:\n    notes: { a: 1 }\n",
    );
    const m = check(text).warning?.message ?? "";
    expect(m).toContain("circle.state: data handed to the entity");
    expect(m).toContain("mcp_github: brings in an MCP server's content");
    expect(m).toContain("write: writes to /tmp/outbox, a place others read");
    // The same write inside the spell's folder is no way out.
    const inside = circle("    - mcp_github\n    - write: { root: out, writable: true }\n");
    expect(check(inside).warning).toBeUndefined();
  });

  it("an mcp server declared by the spell is untrusted input, named with its command and tools", () => {
    const text = circle(
      "    - read: { root: data }\n    - mcp: { name: notes, command: node, args: [s.mjs], tools: [search, read] }\n    - fetch: { allow: ['*.example.org'] }\n",
    );
    const { warning, legs } = check(text);
    const mcp = legs.filter((l) => l.gate === "mcp notes");
    expect(mcp).toEqual([
      expect.objectContaining({
        leg: "untrusted_input",
        why: "brings in what the MCP server notes (node) answers to search, read",
        at: expect.objectContaining({ line: 6, col: 7 }) as unknown,
      }),
    ]);
    const m = warning?.message ?? "";
    expect(m).toMatch(
      /untrusted input \(mcp notes: brings in what the MCP server notes \(node\) answers to search, read, at .*spell\.yaml:6:7/,
    );
    // Without the server, read and a wide fetch make two legs only: the MCP server made the third.
    expect(
      check(circle("    - read: { root: data }\n    - fetch: { allow: [x.org] }\n")).warning,
    ).toBeUndefined();
  });

  it("bash with the network (passthrough) is untrusted input and a way out; in bubblewrap it is not", () => {
    const bash = (sandbox: string) =>
      `circle:\n  medium: bash\n  sandbox: ${sandbox}\n  gates: [done]\n  wards: [{ max_turns: 2 }]\n`;
    const m = check(bash("passthrough")).warning?.message ?? "";
    expect(m).toContain("bash: commands reach the network (sandbox: passthrough)");
    expect(m).toContain("bash: commands read the workspace .");
    expect(m).toContain("drop sandbox: passthrough");
    expect(check(bash("bwrap")).warning).toBeUndefined();
  });

  it("a child spell's gates count, at the child file's positions", () => {
    writeFileSync(join(dir, "fetcher.yaml"), circle("    - fetch: { allow: ['*'] }\n"));
    const { warning } = check(circle("    - read\n    - call_entity: { spell: ./fetcher.yaml }\n"));
    expect(warning?.message).toMatch(
      /fetch: its allow list lets it reach any host, at .*fetcher\.yaml:5:7/,
    );
  });

  it("a child spell that names its parent is walked once", () => {
    writeFileSync(join(dir, "b.yaml"), circle("    - call_entity: { spell: ./spell.yaml }\n"));
    const { legs } = check(circle("    - read\n    - call_entity: { spell: ./b.yaml }\n"));
    expect(legs.filter((l) => l.gate === "read")).toHaveLength(1);
  });

  it("a child may ask for a bash medium, which reads the working folder; child_medium_allowlist and max_depth 0 take it away", () => {
    const open =
      check(circle("    - fetch: { allow: ['*'] }\n    - call_entity\n")).warning?.message ?? "";
    expect(open).toContain("call_entity: a child may ask for medium: bash");
    const allow = "    - child_medium_allowlist: [conversation, code]\n";
    expect(
      check(circle("    - fetch: { allow: ['*'] }\n    - call_entity\n", allow)).warning,
    ).toBeUndefined();
    expect(
      check(circle("    - fetch: { allow: ['*'] }\n    - call_entity\n", "    - max_depth: 0\n"))
        .warning,
    ).toBeUndefined();
  });

  it("a gate a child may ask for without configuration counts (read from the registry)", () => {
    // A registry with a web gate that takes no dependencies: any child could ask for it.
    // (Our own fetch without an allow list reaches no host, so it makes no leg.)
    const registry: GateRegistry = {
      ...gateRegistry,
      web_search: { dependencies: [], create: () => doneGate() },
    };
    const text = circle(
      "    - read\n    - call_entity\n",
      "    - child_medium_allowlist: [conversation]\n",
    );
    expect(check(text).warning).toBeUndefined();
    const m = check(text, { registry }).warning?.message ?? "";
    expect(m).toContain("web_search (a child of call_entity may ask for it)");
  });

  it("a gate call_entity offers children counts, at its own line; max_depth 0 takes it away", () => {
    const text = circle(
      "    - read\n    - call_entity:\n        gates:\n          - fetch: { allow: ['*'] }\n",
      "    - child_medium_allowlist: [conversation]\n",
    );
    const m = check(text).warning?.message ?? "";
    expect(m).toMatch(
      /fetch \(offered to children by call_entity\): its allow list lets it reach any host, at .*spell\.yaml:8:13/,
    );
    const warded = text.replace("[conversation]", "[conversation]\n    - max_depth: 0");
    expect(check(warded).warning).toBeUndefined();
  });
});
