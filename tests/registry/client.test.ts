/**
 * The registry client's rules that need no registry: references, plain HTTP only for loopback,
 * paths from an artifact, challenges, Docker config credentials, and where a credential may go
 * (two loopback servers stand for two origins).
 */
import { mkdirSync, mkdtempSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { createServer, type IncomingHttpHeaders, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { unsafePath } from "../../src/registry/artifact.js";
import { parseChallenge, RegistryClient, sha256 } from "../../src/registry/client.js";
import {
  credentialFor,
  dockerConfigPath,
  storeCredential,
} from "../../src/registry/credentials.js";
import { formatReference, isLoopback, parseReference } from "../../src/registry/reference.js";
import { unreachable } from "../../src/registry/http.js";

describe("references", () => {
  it("parses HOST[:PORT]/REPO[:TAG][@DIGEST], with or without oci://", () => {
    expect(parseReference("oci://localhost:5000/team/triage:1")).toEqual({
      host: "localhost:5000",
      repository: "team/triage",
      tag: "1",
      digest: undefined,
    });
    const d = `sha256:${"a".repeat(64)}`;
    expect(parseReference(`ghcr.io/acme/spells/x@${d}`)).toMatchObject({
      tag: undefined,
      digest: d,
    });
    expect(formatReference(parseReference("example.com/a"))).toBe("example.com/a:latest");
  });

  it("refuses a reference with no host, an upper-case repository, a bad tag or digest, naming why", () => {
    expect(() => parseReference("triage")).toThrow(/write HOST\[:PORT\]\/REPOSITORY/);
    expect(() => parseReference("h.io/Team/x")).toThrow(/is not a repository name/);
    expect(() => parseReference("h.io/x:-bad")).toThrow(/is not a tag/);
    expect(() => parseReference("h.io/x@sha256:abc")).toThrow(/is not a sha256 digest/);
    expect(() => parseReference("h.io/a/../b")).toThrow(/is not a repository name/);
  });

  it("reaches loopback over plain HTTP and any other host over HTTPS unless --plain-http", () => {
    expect(isLoopback("localhost:5000")).toBe(true);
    expect(isLoopback("127.0.0.1")).toBe(true);
    expect(isLoopback("[::1]:5000")).toBe(true);
    expect(isLoopback("localhost.example.com")).toBe(false);
    expect(isLoopback("10.0.0.1:5000")).toBe(false);
    expect(new RegistryClient({ host: "127.0.0.1:5000" }).base).toBe("http://127.0.0.1:5000");
    expect(new RegistryClient({ host: "registry.example.com" }).base).toBe(
      "https://registry.example.com",
    );
    expect(new RegistryClient({ host: "10.0.0.1:5000", plainHttp: true }).base).toBe(
      "http://10.0.0.1:5000",
    );
  });
});

describe("paths from an artifact", () => {
  it("refuses absolute paths, .. segments, backslashes and empty segments", () => {
    expect(unsafePath("spell.yaml")).toBeUndefined();
    expect(unsafePath("kids/a.yaml")).toBeUndefined();
    expect(unsafePath("/etc/passwd")).toBe("is absolute");
    expect(unsafePath("C:/x")).toBe("is absolute");
    expect(unsafePath("../x")).toBe("climbs out of its folder with ..");
    expect(unsafePath("a/../../x")).toBe("climbs out of its folder with ..");
    expect(unsafePath("a\\..\\x")).toBe("holds a backslash or NUL");
    expect(unsafePath("a//x")).toBe("has an empty or . segment");
    expect(unsafePath("./x")).toBe("has an empty or . segment");
  });
});

describe("challenges", () => {
  it("reads a Bearer challenge's realm, service and scope, quoted or not", () => {
    expect(
      parseChallenge(
        'Bearer realm="https://auth.example.com/token",service="registry.example.com",scope="repository:a/b:pull"',
      ),
    ).toEqual({
      scheme: "bearer",
      params: {
        realm: "https://auth.example.com/token",
        service: "registry.example.com",
        scope: "repository:a/b:pull",
      },
    });
    expect(parseChallenge('Basic realm="x"')).toEqual({ scheme: "basic", params: { realm: "x" } });
  });
});

describe("credentials from the Docker config", () => {
  it("reads auths from DOCKER_CONFIG, else ~/.docker; spell login's store keeps the rest, mode 0600", () => {
    const home = mkdtempSync(join(tmpdir(), "spell-cred-"));
    mkdirSync(join(home, ".docker"));
    writeFileSync(
      join(home, ".docker", "config.json"),
      JSON.stringify({
        auths: { "r.example.com": { auth: Buffer.from("ann:pw1").toString("base64") } },
        other: 1,
      }),
    );
    expect(credentialFor("r.example.com", { HOME: home })).toEqual({
      username: "ann",
      password: "pw1",
    });
    expect(credentialFor("elsewhere.example.com", { HOME: home })).toBeUndefined();
    const dc = join(home, "dc");
    expect(dockerConfigPath({ HOME: home, DOCKER_CONFIG: dc })).toBe(join(dc, "config.json"));
    expect(credentialFor("r.example.com", { HOME: home, DOCKER_CONFIG: dc })).toBeUndefined();
    const path = storeCredential(
      "r.example.com",
      { username: "ann", password: "pw2" },
      { HOME: home },
    );
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect((JSON.parse(readFileSync(path, "utf8")) as { other: number }).other).toBe(1);
    expect(credentialFor("r.example.com", { HOME: home })).toEqual({
      username: "ann",
      password: "pw2",
    });
  });
});

describe("a Docker credential helper", () => {
  it("is asked with the host on stdin when the config names it for that host", () => {
    const dir = mkdtempSync(join(tmpdir(), "spell-helper-"));
    const helper = join(dir, "docker-credential-spelltest");
    writeFileSync(
      helper,
      '#!/bin/sh\nread host\n[ "$host" = "r.example.com" ] && echo \'{"Username":"h","Secret":"from-helper"}\' || exit 1\n',
      { mode: 0o755 },
    );
    writeFileSync(
      join(dir, "config.json"),
      JSON.stringify({ credHelpers: { "r.example.com": "spelltest" } }),
    );
    const env = { DOCKER_CONFIG: dir, PATH: `${dir}:${process.env["PATH"] ?? ""}` };
    expect(credentialFor("r.example.com", env)).toEqual({ username: "h", password: "from-helper" });
    expect(credentialFor("other.example.com", env)).toBeUndefined();
  });
});

/** A loopback server recording each request's headers; `answer` decides the reply. */
async function server(
  answer: (url: string, res: ServerResponse, headers: IncomingHttpHeaders) => void,
) {
  const seen: { url: string; headers: IncomingHttpHeaders }[] = [];
  const s = createServer((req, res) => {
    seen.push({ url: req.url ?? "", headers: req.headers });
    answer(req.url ?? "", res, req.headers);
  });
  await new Promise<void>((r) => s.listen(0, "127.0.0.1", r));
  const port = (s.address() as AddressInfo).port;
  return { port, seen, close: () => new Promise<void>((r) => s.close(() => r())) };
}

describe("where a credential goes", () => {
  const credential = { username: "u", password: "secret-credential-1d9e" };
  const auth = `Basic ${Buffer.from(`u:${credential.password}`).toString("base64")}`;

  it("a redirect to another origin loses the Authorization header", async () => {
    const bytes = Buffer.from("blob bytes");
    const other = await server((_, res) => res.writeHead(200).end(bytes));
    const reg = await server((_, res, headers) => {
      if (headers.authorization !== auth)
        return void res.writeHead(401, { "www-authenticate": 'Basic realm="r"' }).end();
      res.writeHead(307, { location: `http://localhost:${other.port}/storage/blob` }).end();
    });
    const client = new RegistryClient({ host: `127.0.0.1:${reg.port}`, credential });
    // The registry asks for Basic first: the client answers its challenge.
    const got = await client.getBlob("a/b", sha256(bytes)).catch((e: Error) => e);
    expect(got).toEqual(bytes);
    expect(reg.seen.map((r) => r.headers.authorization)).toEqual([undefined, auth]);
    expect(other.seen).toHaveLength(1);
    expect(other.seen[0]!.headers.authorization).toBeUndefined();
    await other.close();
    await reg.close();
  });

  it("a token realm on another host over plain HTTP gets no credential", async () => {
    const realm = await server((_, res) =>
      res.writeHead(200, { "content-type": "application/json" }).end('{"token":"t1"}'),
    );
    const reg = await server((_, res) => {
      res
        .writeHead(401, {
          "www-authenticate": `Bearer realm="http://localhost:${realm.port}/token",service="s"`,
        })
        .end();
    });
    const client = new RegistryClient({ host: `127.0.0.1:${reg.port}`, credential });
    await expect(client.check()).rejects.toThrow(/refused the stored credential/);
    expect(realm.seen.length).toBeGreaterThan(0);
    for (const r of realm.seen) expect(r.headers.authorization).toBeUndefined();
    // The registry got the token, never the password.
    for (const r of reg.seen) expect(r.headers.authorization ?? "").not.toBe(auth);
    await realm.close();
    await reg.close();
  });
});

describe("a registry that cannot be reached", () => {
  const failed = (code: string) =>
    Object.assign(new TypeError("fetch failed"), { cause: { code } });

  it("a one-label host that does not resolve: says a reference begins with the registry's host", () => {
    const said = unreachable("acme", failed("ENOTFOUND"));
    expect(said).toMatch(/^cannot reach the registry acme: no such host \(ENOTFOUND\); /);
    expect(said).toContain('"acme/…" names the host "acme"');
    expect(said).toContain("docker.io/acme/…");
  });

  it("a host with a domain, a port or localhost: the reason alone", () => {
    expect(unreachable("ghcr.io", failed("ENOTFOUND"))).toBe(
      "cannot reach the registry ghcr.io: no such host (ENOTFOUND)",
    );
    expect(unreachable("127.0.0.1:5000", failed("ECONNREFUSED"))).toBe(
      "cannot reach the registry 127.0.0.1:5000: connection refused (ECONNREFUSED)",
    );
    expect(unreachable("localhost", failed("ECONNREFUSED"))).not.toContain("begins with");
    expect(unreachable("acme", failed("ECONNREFUSED"))).not.toContain("begins with");
  });
});
