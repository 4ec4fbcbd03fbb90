/**
 * Sharing spells through a real OCI registry (Debian's docker-registry on loopback, started
 * here): push, pull, run by reference, a child spell by reference, the lock honoured and
 * refusing, inspect, a tampered blob, credentials (basic auth), an unreachable registry, and
 * pulled content whose paths would leave its folder.
 */
import { spawnSync } from "node:child_process";
import { PassThrough, Readable } from "node:stream";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { EXIT } from "../../src/cli/io.js";
import { runCommand } from "../../src/cli/run.js";
import { mcpCommand } from "../../src/cli/mcp.js";
import {
  inspectCommand,
  lockCommand,
  loginCommand,
  pullCommand,
  pushCommand,
} from "../../src/cli/share.js";
import { validateCommand } from "../../src/cli/validate.js";
import { RegistryClient, sha256, OCI_MANIFEST } from "../../src/registry/client.js";
import { CONFIG_TYPE, FILE_TYPE, ARTIFACT_TYPE } from "../../src/registry/artifact.js";
import { io } from "../support/io.js";
import { needs, notBuilt } from "../support/needs.js";
import { freePort, Registry, REGISTRY_MISSING, tokenFront } from "../support/registry.js";

const child = (answer: string) => `name: child
description: Answers one question.
intent: say hi
inputs: { type: object, properties: { topic: { type: string } } }
llm: { provider: scripted, responses: [{ tool_calls: [{ gate: done, args: { answer: "${answer}" } }] }] }
identity: { system_prompt: You are the child. }
circle: { gates: [done], wards: [{ max_turns: 2 }] }
`;

const parent = (ref: string) => `name: parent
intent: ask the child
llm:
  provider: scripted
  responses:
    - tool_calls: [{ gate: call_entity, args: { intent: say hi } }]
    - tool_calls: [{ gate: done, args: { answer: parent done } }]
identity: { system_prompt: You are the parent. }
circle:
  gates: [done, { call_entity: { spell: "${ref}" } }]
  wards: [{ max_turns: 4 }]
`;

/** A folder for one test: its own cache and Docker config, unless shared on purpose. */
function place(env: Record<string, string> = {}) {
  const dir = mkdtempSync(join(tmpdir(), "spell-share-"));
  const e = {
    SPELLBOOK_CACHE: join(dir, "cache"),
    DOCKER_CONFIG: join(dir, "docker"),
    HOME: dir,
    ...env,
  };
  const make = () => {
    const o = io(e);
    o.cwd = dir;
    return o;
  };
  const write = (name: string, text: string) => {
    const p = join(dir, name);
    mkdirSync(join(p, ".."), { recursive: true });
    writeFileSync(p, text);
    return p;
  };
  return { dir, env: e, io: make, write };
}

needs(REGISTRY_MISSING).describe("sharing spells through an OCI registry (no auth)", () => {
  let registry: Registry;
  beforeAll(async () => {
    registry = await Registry.start();
  });
  afterAll(() => registry?.stop());

  it("pushes a spell with the files it names, pulls it back byte for byte, and runs it by reference", async () => {
    const p = place();
    const main = p.write("src/ask.yaml", child("from the registry"));
    const ref = `${registry.host}/team/ask:1`;
    const pushed = p.io();
    expect(await pushCommand(main, ref, {}, pushed)).toBe(EXIT.ok);
    expect(pushed.out).toMatch(/^sha256:[a-f0-9]{64}\n$/);
    expect(pushed.err).toContain(`pushed 1 file to ${ref}`);

    const pulled = p.io();
    expect(await pullCommand(ref, { out: "got" }, pulled)).toBe(EXIT.ok);
    expect(readFileSync(join(p.dir, "got", "ask.yaml"), "utf8")).toBe(readFileSync(main, "utf8"));
    expect(pulled.out.trim().endsWith(join("got", "ask.yaml"))).toBe(true);
    expect(pulled.err).toContain(pushed.out.trim());

    const ran = p.io();
    const code = await runCommand(`oci://${ref}`, { loom: "memory", json: true }, ran);
    expect(ran.err).toBe(ran.err); // shown on failure below
    expect(code, ran.err).toBe(EXIT.ok);
    expect((JSON.parse(ran.out) as { result: unknown }).result).toBe("from the registry");
    // Cached by digest: the manifest's digest names the folder.
    const digest = pushed.out.trim().slice("sha256:".length);
    expect(existsSync(join(p.env.SPELLBOOK_CACHE, "oci", "sha256", digest, "manifest.json"))).toBe(
      true,
    );
  });

  it("packs child spells and $file data, and runs a parent whose child is a registry reference", async () => {
    const p = place();
    p.write("kid/data.json", '{"n": 1}\n');
    p.write("kid/helper.yaml", child("helper"));
    // The answer comes from the packed data file: the child reads it in its code medium.
    const main = p.write(
      "kid/kid.yaml",
      `name: kid
intent: say hi
inputs: { type: object, properties: { topic: { type: string } } }
identity: { system_prompt: You are the child. }
llm: { provider: scripted, responses: [{ code: "done(data.n === 1 ? 'the child from the registry' : 'no data')" }] }
circle:
  medium: code
  state: { data: { $file: data.json } }
  gates: [done, { call_entity: { spell: ./helper.yaml } }]
  wards: [{ max_turns: 2 }]
`,
    );
    const ref = `${registry.host}/team/kid:1`;
    const pushed = p.io();
    expect(await pushCommand(main, ref, {}, pushed), pushed.err).toBe(EXIT.ok);
    expect(pushed.err).toContain("pushed 3 files");

    const inspected = p.io();
    expect(await inspectCommand(ref, {}, inspected), inspected.err).toBe(EXIT.ok);
    expect(inspected.out).toContain(`digest: ${pushed.out.trim()}`);
    expect(inspected.out).toContain("org.opencontainers.image.version: 1");
    expect(inspected.out).toContain("dev.spellbook.main: kid.yaml");
    expect(inspected.out).toContain('inputs: {"type":"object"');
    expect(inspected.out).toMatch(/ {2}data\.json \(9 bytes, sha256:/);
    expect(inspected.out).toContain("  helper.yaml (");

    const top = p.write("top/parent.yaml", parent(`oci://${ref}`));
    const loom = join(p.dir, "run.jsonl");
    const ran = p.io();
    expect(await runCommand(top, { loom, json: true }, ran), ran.err).toBe(EXIT.ok);
    expect((JSON.parse(ran.out) as { result: unknown }).result).toBe("parent done");
    expect(readFileSync(loom, "utf8")).toContain("the child from the registry");
  });

  it("a lock pins the child: a moved tag changes nothing, a reference not in the lock is refused, --update moves the pin", async () => {
    const p = place();
    const kid = p.write("kid/kid.yaml", child("version one"));
    const ref = `${registry.host}/team/pinned:1`;
    expect(await pushCommand(kid, ref, {}, p.io())).toBe(EXIT.ok);
    const top = p.write("top/parent.yaml", parent(`oci://${ref}`));

    const warned = p.io();
    expect(await validateCommand([top], warned)).toBe(EXIT.ok);
    expect(warned.err).toMatch(
      new RegExp(
        `parent\\.yaml:10:\\d+: warning: oci://${ref.replace(/\./g, "\\.")} is not pinned`,
      ),
    );

    const locked = p.io();
    expect(await lockCommand(top, {}, locked), locked.err).toBe(EXIT.ok);
    const lock = JSON.parse(readFileSync(join(p.dir, "top", "spell.lock"), "utf8")) as {
      remote: Record<string, string>;
    };
    expect(lock.remote[`oci://${ref}`]).toMatch(/^sha256:/);
    const quiet = p.io();
    expect(await validateCommand([top], quiet)).toBe(EXIT.ok);
    expect(quiet.err).not.toContain("not pinned");

    // The tag moves to version two; a fresh cache, so the lock's digest is fetched again.
    writeFileSync(kid, child("version two"));
    expect(await pushCommand(kid, ref, {}, p.io())).toBe(EXIT.ok);
    rmSync(p.env.SPELLBOOK_CACHE, { recursive: true, force: true });
    const loom = join(p.dir, "locked.jsonl");
    const ran = p.io();
    expect(await runCommand(top, { loom }, ran), ran.err).toBe(EXIT.ok);
    expect(readFileSync(loom, "utf8")).toContain("version one");
    expect(readFileSync(loom, "utf8")).not.toContain("version two");

    // A reference the lock does not hold is refused, named.
    const other = `oci://${registry.host}/team/pinned:2`;
    expect(await pushCommand(kid, other.slice(6), {}, p.io())).toBe(EXIT.ok);
    writeFileSync(top, parent(other));
    const refused = p.io();
    expect(await runCommand(top, { loom: "memory" }, refused)).toBe(EXIT.invalid);
    expect(refused.err).toContain(`${other} is not in ${join(p.dir, "top", "spell.lock")}`);

    // --update pins what the tags name now.
    writeFileSync(top, parent(`oci://${ref}`));
    expect(await lockCommand(top, { update: true }, p.io())).toBe(EXIT.ok);
    const loom2 = join(p.dir, "updated.jsonl");
    expect(await runCommand(top, { loom: loom2 }, p.io())).toBe(EXIT.ok);
    expect(readFileSync(loom2, "utf8")).toContain("version two");
  });

  it("spell mcp takes a reference too", async () => {
    const p = place();
    const main = p.write("m/tool.yaml", child("as a tool"));
    const ref = `${registry.host}/team/tool:1`;
    expect(await pushCommand(main, ref, {}, p.io())).toBe(EXIT.ok);
    const served = p.io();
    const input = Readable.from([]);
    const code = await mcpCommand([`oci://${ref}`], { loom: "memory" }, served, {
      input,
      output: new PassThrough(),
      stop: new Promise(() => undefined),
    });
    expect(code, served.err).toBe(EXIT.ok);
    expect(served.err).toContain("spell mcp: child waiting for an MCP client");
  });

  it("spell validate takes a reference, and a flow's cast: may be one", async () => {
    const p = place();
    const root = join(import.meta.dirname, "..", "..");
    const ref = `${registry.host}/team/reply:1`;
    const reply = join(root, "spells", "greeter", "reply.yaml");
    expect(await pushCommand(reply, ref, {}, p.io())).toBe(EXIT.ok);
    const checked = p.io();
    expect(await validateCommand([`oci://${ref}`], checked), checked.err).toBe(EXIT.ok);
    expect(checked.out).toBe(`oci://${ref}: ok\n`);
    const flow = p.write(
      "flow/greeter-flow.yaml",
      readFileSync(join(root, "spells", "greeter-flow.yaml"), "utf8").replace(
        "cast: ./greeter/reply.yaml",
        `cast: oci://${ref}`,
      ),
    );
    const flowChecked = p.io();
    expect(await validateCommand([flow], flowChecked), flowChecked.err).toBe(EXIT.ok);
    expect(flowChecked.err).toContain(`warning: oci://${ref} is not pinned`);
    const missing = p.io();
    writeFileSync(
      flow,
      readFileSync(flow, "utf8").replace(
        `cast: oci://${ref}`,
        `cast: oci://${registry.host}/team/none:1`,
      ),
    );
    expect(await validateCommand([flow], missing)).toBe(EXIT.invalid);
    expect(missing.err).toContain(`${registry.host}/team/none:1 is not in the registry`);
  });

  it("a lock hashes MCP server scripts: a changed script is refused, named", async () => {
    const p = place();
    p.write("srv/server.mjs", "// a server\n");
    const spell = p.write(
      "srv/spell.yaml",
      `llm: { provider: scripted, responses: [{ tool_calls: [{ gate: done, args: { answer: ok } }] }] }
circle:
  gates: [done, { mcp: { name: notes, command: node, args: [./server.mjs], tools: [search] } }]
  wards: [{ max_turns: 2 }]
`,
    );
    const locked = p.io();
    expect(await lockCommand(spell, {}, locked), locked.err).toBe(EXIT.ok);
    expect(locked.out).toMatch(/^server\.mjs sha256:[a-f0-9]{64}$/m);
    writeFileSync(join(p.dir, "srv", "server.mjs"), "// changed\n");
    const ran = p.io();
    expect(await runCommand(spell, { loom: "memory" }, ran)).toBe(EXIT.invalid);
    expect(ran.err).toContain("MCP server script server.mjs differs from");
  });

  it("refuses a blob whose bytes do not match its digest (exit 4)", async () => {
    const p = place();
    const main = p.write("t/tamper.yaml", child("untouched"));
    const ref = `${registry.host}/team/tamper:1`;
    expect(await pushCommand(main, ref, {}, p.io())).toBe(EXIT.ok);
    const digest = sha256(readFileSync(main));
    const blob = registry.blobPath(digest);
    writeFileSync(blob, readFileSync(blob, "utf8").replace("untouched", "tampered!"));
    const pulled = p.io();
    expect(await pullCommand(ref, { out: "out" }, pulled)).toBe(EXIT.failure);
    expect(pulled.err).toContain(
      `blob ${digest} of ${registry.host}/team/tamper is refused: its bytes do not match its digest`,
    );
    expect(existsSync(join(p.dir, "out", "tamper.yaml"))).toBe(false);
    const ran = p.io();
    expect(await runCommand(`oci://${ref}`, { loom: "memory" }, ran)).toBe(EXIT.failure);
  });

  it("refuses pulled files whose paths are absolute or climb out with .., and spells naming such paths", async () => {
    const p = place();
    const client = new RegistryClient({ host: registry.host });
    const push = async (repo: string, files: Record<string, string>, main: string) => {
      const layers = [];
      for (const [path, text] of Object.entries(files)) {
        const bytes = Buffer.from(text);
        layers.push({
          mediaType: FILE_TYPE,
          digest: await client.pushBlob(repo, bytes),
          size: bytes.length,
          annotations: { "org.opencontainers.image.title": path },
        });
      }
      const config = Buffer.from(
        JSON.stringify({
          main,
          kind: "cantrip",
          name: "evil",
          requires: ">=0.1.0",
          files: Object.keys(files),
        }),
      );
      const manifest = {
        schemaVersion: 2,
        mediaType: OCI_MANIFEST,
        artifactType: ARTIFACT_TYPE,
        config: {
          mediaType: CONFIG_TYPE,
          digest: await client.pushBlob(repo, config),
          size: config.length,
        },
        layers,
      };
      await client.putManifest(repo, "1", Buffer.from(JSON.stringify(manifest)));
      return `${registry.host}/${repo}:1`;
    };
    for (const [repo, path, why] of [
      ["evil/dots", "../escape.yaml", "climbs out of its folder with .."],
      ["evil/deep", "a/../../escape.yaml", "climbs out of its folder with .."],
      ["evil/abs", "/tmp/escape.yaml", "is absolute"],
    ] as const) {
      const ref = await push(repo, { [path]: child("x") }, path);
      const pulled = p.io();
      expect(await pullCommand(ref, { out: "out" }, pulled)).toBe(EXIT.invalid);
      expect(pulled.err).toContain(`refused: file ${JSON.stringify(path)} ${why}`);
    }
    expect(existsSync(join(p.dir, "escape.yaml"))).toBe(false);

    const named = await push(
      "evil/names",
      {
        "main.yaml": `${child("x")}`.replace(
          "circle: {",
          "circle: { state: { s: { $file: ../../etc/passwd } }, ",
        ),
      },
      "main.yaml",
    );
    const refused = p.io();
    expect(await runCommand(`oci://${named}`, { loom: "memory" }, refused)).toBe(EXIT.invalid);
    expect(refused.err).toMatch(
      /refused: its paths leave its folder:\n {2}main\.yaml:\d+:\d+: "\.\.\/\.\.\/etc\/passwd" leaves the spell's folder/,
    );
    const absolute = await push(
      "evil/root",
      {
        "main.yaml": `${child("x")}`.replace(
          "gates: [done]",
          "gates: [done, { read: { root: /etc } }]",
        ),
      },
      "main.yaml",
    );
    const refused2 = p.io();
    expect(await runCommand(`oci://${absolute}`, { loom: "memory" }, refused2)).toBe(EXIT.invalid);
    expect(refused2.err).toContain('"/etc" is an absolute path');

    // push refuses to pack what it could not unpack.
    const local = p.write(
      "l/spell.yaml",
      `${child("x")}`.replace("circle: {", "circle: { state: { s: { $file: ../outside.json } }, "),
    );
    const pushed = p.io();
    expect(await pushCommand(local, `${registry.host}/team/nope:1`, {}, pushed)).toBe(EXIT.invalid);
    expect(pushed.err).toMatch(
      /spell\.yaml:\d+:\d+: "\.\.\/outside\.json" leaves the spell's folder/,
    );

    // A gate's root outside the folder: said to be a folder, located where an editor opens it.
    const rooted = p.write(
      "r/spell.yaml",
      child("x").replace("gates: [done]", "gates: [done, { read: { root: .. } }]"),
    );
    const refusedRoot = p.io();
    expect(await pushCommand(rooted, `${registry.host}/team/nope:1`, {}, refusedRoot)).toBe(
      EXIT.invalid,
    );
    expect(refusedRoot.err).toContain(`${join(p.dir, "r", "spell.yaml")}:`);
    expect(refusedRoot.err).toMatch(
      /"\.\." leaves the spell's folder: pulled elsewhere, this folder would be another one/,
    );
  });

  it("names a missing tag, and a malformed reference (exit 3)", async () => {
    const p = place();
    const missing = p.io();
    expect(await pullCommand(`${registry.host}/team/none:9`, {}, missing)).toBe(EXIT.failure);
    expect(missing.err).toContain(`${registry.host}/team/none:9 is not in the registry`);
    const bad = p.io();
    expect(await pullCommand(`${registry.host}/Team/UPPER`, {}, bad)).toBe(EXIT.invalid);
    expect(bad.err).toContain("is not a repository name");
  });
});

needs(REGISTRY_MISSING).describe("a registry that needs a credential (htpasswd basic auth)", () => {
  let registry: Registry;
  const user = { username: "alice", password: "correct-horse-7f3a" };
  beforeAll(async () => {
    registry = await Registry.start(user);
  });
  afterAll(() => registry?.stop());

  it("refuses a wrong credential with a clear error that never shows it; spell login stores a right one", async () => {
    const p = place();
    const main = p.write("s/spell.yaml", child("behind a password"));
    const ref = `${registry.host}/team/private:1`;

    const none = p.io();
    expect(await pushCommand(main, ref, {}, none)).toBe(EXIT.failure);
    expect(none.err).toContain(
      `the registry ${registry.host}/team/private needs a credential (HTTP 401): log in with spell login ${registry.host}`,
    );

    const wrong = p.io();
    expect(
      await loginCommand(registry.host, { username: "alice", password: "wrong-pass-91c2" }, wrong),
    ).toBe(EXIT.failure);
    expect(wrong.err).toBe(
      `login failed: the registry ${registry.host} refused the username "alice" with that password (HTTP 401); nothing was stored\n`,
    );
    expect(wrong.err + wrong.out).not.toContain("wrong-pass-91c2");
    expect(existsSync(join(p.env.DOCKER_CONFIG, "config.json"))).toBe(false);

    const right = p.io();
    expect(await loginCommand(registry.host, { ...user }, right), right.err).toBe(EXIT.ok);
    expect(right.out + right.err).not.toContain(user.password);
    const config = JSON.parse(readFileSync(join(p.env.DOCKER_CONFIG, "config.json"), "utf8")) as {
      auths: Record<string, { auth: string }>;
    };
    expect(Buffer.from(config.auths[registry.host]!.auth, "base64").toString()).toBe(
      `alice:${user.password}`,
    );

    const pushed = p.io();
    expect(await pushCommand(main, ref, {}, pushed), pushed.err).toBe(EXIT.ok);
    const ran = p.io();
    expect(await runCommand(`oci://${ref}`, { loom: "memory", json: true }, ran), ran.err).toBe(
      EXIT.ok,
    );
    expect((JSON.parse(ran.out) as { result: unknown }).result).toBe("behind a password");

    // A stored credential the registry refuses: named as refused, never shown.
    writeFileSync(
      join(p.env.DOCKER_CONFIG, "config.json"),
      JSON.stringify({
        auths: {
          [registry.host]: { auth: Buffer.from("alice:stale-secret-55e1").toString("base64") },
        },
      }),
    );
    rmSync(p.env.SPELLBOOK_CACHE, { recursive: true, force: true });
    const stale = p.io();
    expect(await runCommand(`oci://${ref}`, { loom: "memory" }, stale)).toBe(EXIT.failure);
    expect(stale.err).toContain("refused the stored credential");
    expect(stale.err).not.toContain("stale-secret-55e1");
  });
});

needs(REGISTRY_MISSING).describe("an unreachable registry", () => {
  it("is a clear error with exit 4", async () => {
    const p = place();
    const port = await freePort();
    const pulled = p.io();
    expect(await pullCommand(`127.0.0.1:${port}/team/x:1`, {}, pulled)).toBe(EXIT.failure);
    expect(pulled.err).toBe(
      `cannot reach the registry 127.0.0.1:${port}: connection refused (ECONNREFUSED)\n`,
    );
    const ran = p.io();
    expect(await runCommand(`oci://127.0.0.1:${port}/team/x:1`, { loom: "memory" }, ran)).toBe(
      EXIT.failure,
    );
    expect(ran.err).toContain("cannot reach the registry");
  });
});

needs(REGISTRY_MISSING).describe(
  "a registry behind the token flow (Bearer challenge, token endpoint)",
  () => {
    let registry: Registry;
    let front: Awaited<ReturnType<typeof tokenFront>>;
    const user = { username: "bob", password: "token-pass-2b8d" };
    beforeAll(async () => {
      registry = await Registry.start();
      front = await tokenFront(registry, user);
    });
    afterAll(async () => {
      await front?.close();
      await registry?.stop();
    });

    it("gets a token for the scope the challenge names, pushes and pulls with it; a wrong credential is refused", async () => {
      const p = place();
      const main = p.write("s/spell.yaml", child("through a token"));
      const ref = `${front.host}/team/tokened:1`;
      const wrong = p.io();
      expect(
        await loginCommand(front.host, { username: "bob", password: "nope-3c1f" }, wrong),
      ).toBe(EXIT.failure);
      expect(wrong.err).toBe(
        `login failed: the registry ${front.host} refused the username "bob" with that password (HTTP 401); nothing was stored\n`,
      );
      expect(wrong.err).not.toContain("nope-3c1f");

      expect(await loginCommand(front.host, { ...user }, p.io())).toBe(EXIT.ok);
      const pushed = p.io();
      expect(await pushCommand(main, ref, {}, pushed), pushed.err).toBe(EXIT.ok);
      expect(front.scopes).toContain("repository:team/tokened:pull,push");
      const pulled = p.io();
      expect(await pullCommand(ref, { out: "out" }, pulled), pulled.err).toBe(EXIT.ok);
      expect(readFileSync(join(p.dir, "out", "spell.yaml"), "utf8")).toBe(
        readFileSync(main, "utf8"),
      );
      expect(front.scopes).toContain("repository:team/tokened:pull");
    });
  },
);

needs(REGISTRY_MISSING, notBuilt()).describe("the built CLI", () => {
  let registry: Registry;
  beforeAll(async () => {
    registry = await Registry.start();
  });
  afterAll(() => registry?.stop());
  const bin = join(import.meta.dirname, "..", "..", "bin", "run.js");

  it("spell push, spell run oci://, and an unreachable registry's exit 4", async () => {
    const p = place();
    const main = p.write("s/hello.yaml", child("hello from the built CLI"));
    const ref = `${registry.host}/team/hello:1`;
    const spell = (...args: string[]) =>
      spawnSync(process.execPath, [bin, ...args], {
        cwd: p.dir,
        env: { ...process.env, ...p.env },
        encoding: "utf8",
        timeout: 60_000,
      });
    const pushed = spell("push", main, ref);
    expect(pushed.status, pushed.stderr).toBe(0);
    expect(pushed.stdout).toMatch(/^sha256:[a-f0-9]{64}\n$/);
    const ran = spell("run", `oci://${ref}`, "--json", "--loom", "memory");
    expect(ran.status, ran.stderr).toBe(0);
    expect((JSON.parse(ran.stdout) as { result: unknown }).result).toBe("hello from the built CLI");
    const port = await freePort();
    const down = spell("pull", `127.0.0.1:${port}/team/x:1`);
    expect(down.status).toBe(4);
    expect(down.stderr).toContain(
      `cannot reach the registry 127.0.0.1:${port}: connection refused`,
    );
    const bad = spell("run", "oci://nohost");
    expect(bad.status).toBe(3);
  });
});
