/**
 * `--plain-http` for a registry that is not on loopback. The registry (Debian's docker-registry,
 * plain HTTP on 127.0.0.1) is reached under a name that is not loopback (`spells.registry.test`):
 * this file's fetch resolves `*.registry.test` to 127.0.0.1 and refuses every other name, so no
 * request leaves the machine. Without the flag the client speaks HTTPS to that name, and the
 * plain-HTTP registry cannot answer; with it, pull and run by reference work.
 */
import type { LookupAddress, LookupOptions } from "node:dns";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Agent, getGlobalDispatcher, setGlobalDispatcher, type Dispatcher } from "undici";
import { afterAll, beforeAll, expect, it } from "vitest";
import { EXIT } from "../../src/cli/io.js";
import { runCommand } from "../../src/cli/run.js";
import { pullCommand, pushCommand } from "../../src/cli/share.js";
import { io } from "../support/io.js";
import { needs } from "../support/needs.js";
import { Registry, REGISTRY_MISSING } from "../support/registry.js";

const NAME = "spells.registry.test";
type Answer = (err: NodeJS.ErrnoException | null, addresses: LookupAddress[]) => void;

/** Every name this file's fetch looked up, so a test can tell which host a request went to. */
const looked: string[] = [];

const spell = `name: far
intent: say hi
llm: { provider: scripted, responses: [{ tool_calls: [{ gate: done, args: { answer: "from afar" } }] }] }
identity: { system_prompt: You answer. }
circle: { gates: [done], wards: [{ max_turns: 2 }] }
`;

needs(REGISTRY_MISSING).describe("--plain-http to a registry that is not loopback", () => {
  let registry: Registry;
  let before: Dispatcher;
  let dir: string;
  const env = () => ({
    SPELLBOOK_CACHE: join(dir, "cache"),
    DOCKER_CONFIG: join(dir, "docker"),
    HOME: dir,
  });
  const made = () => {
    const o = io(env());
    o.cwd = dir;
    return o;
  };
  const ref = () => `${NAME}:${registry.port}/team/far:1`;

  beforeAll(async () => {
    registry = await Registry.start();
    dir = mkdtempSync(join(tmpdir(), "spell-plain-http-"));
    before = getGlobalDispatcher();
    const lookup = (host: string, options: LookupOptions, answer: Answer) => {
      looked.push(host);
      if (!host.endsWith(".registry.test")) {
        answer(Object.assign(new Error(`refused to resolve ${host}`), { code: "ENOTFOUND" }), []);
        return;
      }
      const address = { address: "127.0.0.1", family: 4 };
      // Node asks for all addresses (an array) or one (address, family) depending on the caller.
      if (options.all) answer(null, [address]);
      else (answer as unknown as (e: null, a: string, f: number) => void)(null, "127.0.0.1", 4);
    };
    setGlobalDispatcher(new Agent({ connect: { lookup } }));
    // Pushed by its loopback name, where plain HTTP needs no flag.
    const file = join(dir, "far.yaml");
    writeFileSync(file, spell);
    const pushed = made();
    expect(await pushCommand(file, `${registry.host}/team/far:1`, {}, pushed), pushed.err).toBe(
      EXIT.ok,
    );
  });
  afterAll(async () => {
    setGlobalDispatcher(before);
    await registry?.stop();
  });

  it("without --plain-http, speaks HTTPS to a name that is not loopback, and fails clearly", async () => {
    looked.length = 0;
    const pulled = made();
    const code = await pullCommand(ref(), { out: "nope" }, pulled);
    expect(code).not.toBe(EXIT.ok);
    expect(looked).toContain(NAME); // the request did go to the registry's name…
    expect(pulled.err).toContain(NAME); // …and the error names the registry
    expect(pulled.err).not.toMatch(/pulled/);
  });

  it("with --plain-http, pulls over HTTP from that name", async () => {
    looked.length = 0;
    const pulled = made();
    expect(await pullCommand(ref(), { out: "got", plainHttp: true }, pulled), pulled.err).toBe(
      EXIT.ok,
    );
    expect(looked).toContain(NAME);
    expect(readFileSync(join(dir, "got", "far.yaml"), "utf8")).toBe(spell);
  });

  it("spell run oci://… --plain-http runs the spell from that name", async () => {
    const ran = made();
    const code = await runCommand(
      `oci://${ref()}`,
      { loom: "memory", json: true, "plain-http": true },
      ran,
    );
    expect(code, ran.err).toBe(EXIT.ok);
    expect((JSON.parse(ran.out) as { result: unknown }).result).toBe("from afar");
  });
});
