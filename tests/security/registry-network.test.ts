/**
 * A malicious registry against the client (docs/design/REGISTRY.md, "Walls"): where the
 * credential goes (an upload's Location elsewhere, a 401 from elsewhere, a token realm
 * elsewhere), floods (an error body, a descriptor's size), digests in another algorithm or
 * malformed, and secrets — the password, its base64 with the user name, a token — in errors and
 * in `spell inspect`'s output. Loopback servers only.
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { EXIT } from "../../src/cli/io.js";
import { inspectCommand } from "../../src/cli/share.js";
import { RegistryClient } from "../../src/registry/client.js";
import { storeCredential } from "../../src/registry/credentials.js";
import { fetchSpell } from "../../src/registry/remote.js";
import { FakeRegistry, sha } from "../support/fake-registry.js";
import { io } from "../support/io.js";

const USER = "alice";
const PASSWORD = "hunter2-very-secret";
const BASIC = Buffer.from(`${USER}:${PASSWORD}`).toString("base64");
const SPELL = "name: fake\nintent: hi\nllm: { provider: scripted, responses: [] }\n";

const running: FakeRegistry[] = [];
async function fake(hook?: Parameters<typeof FakeRegistry.start>[0]) {
  const f = await FakeRegistry.start(hook);
  running.push(f);
  return f;
}
afterEach(async () => {
  await Promise.all(running.splice(0).map((f) => f.stop()));
});

const credential = { username: USER, password: PASSWORD };
const leaks = (text: string) =>
  text.includes(PASSWORD) || text.includes(BASIC) || text.includes(BASIC.replace(/=+$/, ""));

describe("where the credential goes", () => {
  it("sends no Authorization to where an upload's Location points, nor answers that host's 401", async () => {
    const other = await fake((req, res) => {
      res.writeHead(401, {
        "www-authenticate": `Bearer realm="http://127.0.0.1:${other.port}/token",service="x"`,
      });
      res.end();
      return true;
    });
    const registry = await fake((req, res) => {
      if (!req.headers.authorization) {
        res.writeHead(401, { "www-authenticate": 'Basic realm="r"' }).end();
        return true;
      }
      if (req.method === "HEAD") return (void res.writeHead(404).end(), true);
      if (req.method === "POST") {
        res.writeHead(202, { location: `http://127.0.0.1:${other.port}/upload/1` }).end();
        return true;
      }
      return false;
    });
    const client = new RegistryClient({ host: registry.host, credential });
    await expect(client.pushBlob("team/x", Buffer.from("bytes"))).rejects.toThrow(
      /needs a credential|refused/,
    );
    expect(other.seen.length).toBeGreaterThan(0);
    for (const s of other.seen) expect(s.headers.authorization).toBeUndefined();
    expect(other.seen.some((s) => s.url.startsWith("/token"))).toBe(false);
  });

  it("drops Authorization on a redirect to another origin", async () => {
    const cdn = await fake();
    const registry = await fake((req, res) => {
      if (!req.headers.authorization) {
        res.writeHead(401, { "www-authenticate": 'Basic realm="r"' }).end();
        return true;
      }
      if (req.url?.includes("/blobs/")) {
        res.writeHead(307, { location: `http://127.0.0.1:${cdn.port}${req.url}` }).end();
        return true;
      }
      return false;
    });
    const bytes = Buffer.from("blob");
    cdn.blobs.set(sha(bytes), bytes);
    const client = new RegistryClient({ host: registry.host, credential });
    expect((await client.getBlob("team/x", sha(bytes), bytes.length)).toString()).toBe("blob");
    expect(cdn.seen.length).toBe(1);
    expect(cdn.seen[0]!.headers.authorization).toBeUndefined();
  });

  it("sends the password to a token realm on another host only over HTTPS", async () => {
    const realm = await fake((req, res) => {
      res.writeHead(200, { "content-type": "application/json" }).end('{"token":"tok-1234567"}');
      return true;
    });
    const registry = await fake((req, res) => {
      if (req.headers.authorization !== "Bearer tok-1234567") {
        res.writeHead(401, {
          "www-authenticate": `Bearer realm="http://127.0.0.1:${realm.port}/token",service="s"`,
        });
        res.end();
        return true;
      }
      return false;
    });
    await new RegistryClient({ host: registry.host, credential }).check();
    expect(realm.seen.length).toBe(1);
    expect(realm.seen[0]!.headers.authorization).toBeUndefined();
  });
});

describe("floods", () => {
  it("reads an error's body to a bound, not to its end", async () => {
    let sent = 0;
    let closed = false;
    const registry = await fake((req, res) => {
      res.writeHead(500, { "content-type": "application/json" });
      const chunk = Buffer.alloc(64 * 1024, 0x41);
      const pump = () => {
        while (sent < 64 * 1024 * 1024 && !closed) {
          sent += chunk.length;
          if (!res.write(chunk)) return void res.once("drain", pump);
        }
        res.end();
      };
      res.on("close", () => (closed = true));
      pump();
      return true;
    });
    await expect(new RegistryClient({ host: registry.host }).check()).rejects.toThrow(/HTTP 500/);
    expect(sent).toBeLessThan(64 * 1024 * 1024);
  });

  it("refuses a descriptor whose size is huge before asking for the blob", async () => {
    const registry = await fake();
    registry.artifact("big/x", "1", [{ path: "spell.yaml", text: SPELL, size: 2 ** 40 }]);
    const env = { SPELLBOOK_CACHE: mkdtempSync(join(tmpdir(), "spell-flood-")) };
    await expect(fetchSpell(`${registry.host}/big/x:1`, { env })).rejects.toThrow(/over/);
    expect(registry.seen.some((s) => s.url.includes("/blobs/"))).toBe(false);
  });

  it("stops reading a blob longer than its descriptor says", async () => {
    const registry = await fake();
    const text = SPELL + "x".repeat(1024 * 1024);
    registry.artifact("lie/x", "1", [{ path: "spell.yaml", text, size: 10 }]);
    const env = { SPELLBOOK_CACHE: mkdtempSync(join(tmpdir(), "spell-flood-")) };
    await expect(fetchSpell(`${registry.host}/lie/x:1`, { env })).rejects.toThrow(/size differs/);
  });
});

describe("digests", () => {
  it("refuses a layer digest in another algorithm or malformed", async () => {
    const registry = await fake();
    const env = { SPELLBOOK_CACHE: mkdtempSync(join(tmpdir(), "spell-digest-")) };
    registry.artifact("alg/x", "1", [
      { path: "spell.yaml", text: SPELL, digest: `sha512:${"a".repeat(128)}` },
    ]);
    await expect(fetchSpell(`${registry.host}/alg/x:1`, { env })).rejects.toThrow(
      /no sha256 digest/,
    );
    registry.artifact("alg/y", "1", [
      { path: "spell.yaml", text: SPELL, digest: `sha256:${"A".repeat(64)}` },
    ]);
    await expect(fetchSpell(`${registry.host}/alg/y:1`, { env })).rejects.toThrow(
      /no sha256 digest/,
    );
  });
});

describe("secrets", () => {
  it("never prints what the registry echoes back of the credential as a digest", async () => {
    const registry = await fake((req, res) => {
      if (!req.headers.authorization) {
        res.writeHead(401, { "www-authenticate": 'Basic realm="r"' }).end();
        return true;
      }
      const echoed = req.headers.authorization.replace(/^Basic /, "");
      res.writeHead(200, { "docker-content-digest": `sha256:${echoed}` }).end("{}");
      return true;
    });
    const client = new RegistryClient({ host: registry.host, credential });
    const err = await client.getManifest("team/x", "1").catch((e: Error) => e);
    expect(err).toBeInstanceOf(Error);
    expect((err as Error).message).toMatch(/malformed digest/);
    expect(leaks((err as Error).message)).toBe(false);
  });

  it("refuses a token that is not a token, without quoting it", async () => {
    const token = "tok-secret-value\r\nX-Injected: 1";
    const registry = await fake((req, res) => {
      if (req.url?.startsWith("/token")) {
        res.writeHead(200).end(JSON.stringify({ token }));
        return true;
      }
      res.writeHead(401, {
        "www-authenticate": `Bearer realm="http://${registry.host}/token",service="s"`,
      });
      res.end();
      return true;
    });
    const err = await new RegistryClient({ host: registry.host, credential })
      .check()
      .catch((e: Error) => e);
    expect((err as Error).message).toMatch(/malformed token/);
    expect((err as Error).message).not.toContain("tok-secret-value");
  });

  it("spell inspect shows annotations without the password (or its base64) and with escapes shown", async () => {
    const registry = await fake((req, res) => {
      if (!req.headers.authorization) {
        res.writeHead(401, { "www-authenticate": 'Basic realm="r"' }).end();
        return true;
      }
      return false;
    });
    registry.artifact("team/x", "1", [{ path: "spell.yaml", text: SPELL }], {
      annotations: {
        "org.opencontainers.image.description": `pw ${PASSWORD} b64 ${BASIC}`,
        "dev.spellbook.note": "clear\u001b[2Jscreen\nreference: fake",
      },
    });
    const dir = mkdtempSync(join(tmpdir(), "spell-inspect-"));
    const env = { DOCKER_CONFIG: join(dir, "docker"), HOME: dir, SPELLBOOK_CACHE: dir };
    storeCredential(registry.host, credential, env);
    const text = io(env);
    expect(await inspectCommand(`${registry.host}/team/x:1`, {}, text)).toBe(EXIT.ok);
    expect(leaks(text.out)).toBe(false);
    expect(text.out).toContain("[REDACTED]");
    expect(text.out).not.toContain("\u001b");
    expect(text.out).toContain("clear\\u{1b}[2Jscreen\\u{a}reference: fake");
    const json = io(env);
    expect(await inspectCommand(`${registry.host}/team/x:1`, { json: true }, json)).toBe(EXIT.ok);
    expect(leaks(json.out)).toBe(false);
  });
});
