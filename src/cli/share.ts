/**
 * Sharing spells through an OCI registry (README "Sharing spells", docs/design/REGISTRY.md): spell
 * push, pull, inspect, lock and login (open-spell.ts makes the oci:// spell of run/eval/serve/mcp a
 * local file); the registry code loads only when a command needs it. Errors print without
 * credentials; exit 3 for the reference, the lock or a refused path, 4 for the registry.
 */
import {
  closeSync,
  constants,
  existsSync,
  mkdirSync,
  openSync,
  readFileSync,
  writeSync,
} from "node:fs";
import { basename, join, resolve } from "node:path";
import { errorMessage, SpellbookError } from "../core/errors.js";
import { Redactor } from "../core/redact.js";
import { redactedJson } from "../core/redact-stream.js";
import { EXIT, displayPath, print, type CliIO } from "./io.js";
import { exitFor } from "./load.js";
import type { ShareFlags } from "./open-spell.js";

const registry = () => import("../registry/index.js");

/** Prints an error (the registry client's messages never hold a credential) and its exit. */
function fail(err: unknown, io: CliIO): number {
  io.stderr(`${errorMessage(err)}\n`);
  if (!(err instanceof SpellbookError)) throw err;
  return exitFor(err);
}

/** `spell push FILE REF`: packs, uploads the blobs then the manifest, prints the digest. */
export async function pushCommand(
  file: string,
  refText: string,
  flags: ShareFlags,
  io: CliIO,
): Promise<number> {
  try {
    const reg = await registry();
    const { pack } = await import("../registry/artifact.js");
    const ref = reg.parseReference(refText);
    if (ref.digest) {
      io.stderr(
        `spell push ${refText}: push to a tag, not a digest (the digest is the content's)\n`,
      );
      return EXIT.invalid;
    }
    const path = resolve(io.cwd, file);
    if (!existsSync(path)) {
      io.stderr(`spell push: ${file} does not exist\n`);
      return EXIT.invalid;
    }
    const packed = pack(path, ref.tag ?? "latest");
    const client = reg.clientFor(ref, {
      env: io.env,
      plainHttp: flags.plainHttp,
      signal: io.signal,
    });
    for (const blob of packed.blobs) await client.pushBlob(ref.repository, blob.bytes, blob.digest);
    const digest = await client.putManifest(ref.repository, ref.tag ?? "latest", packed.manifest);
    io.stderr(
      `pushed ${packed.blobs.length - 1} file${packed.blobs.length === 2 ? "" : "s"} to ${reg.formatReference(ref)}\n`,
    );
    await print(io, `${digest}\n`);
    return EXIT.ok;
  } catch (err) {
    return fail(err, io);
  }
}

/** `spell pull REF [--out DIR]`: fetched into the cache (every digest checked), copied to DIR. */
export async function pullCommand(
  refText: string,
  flags: ShareFlags & { out?: string | undefined },
  io: CliIO,
): Promise<number> {
  try {
    const reg = await registry();
    const ref = reg.parseReference(refText);
    const got = await reg.fetchSpell(refText, {
      env: io.env,
      plainHttp: flags.plainHttp,
      signal: io.signal,
    });
    const out = resolve(io.cwd, flags.out ?? basename(ref.repository));
    mkdirSync(out, { recursive: true });
    const { FsRoot, at } = await import("../circle/gates/fs-root.js");
    const root = new FsRoot(out);
    // The layers' paths (checked when fetched), never the config's list: that is the registry's
    // text and could name anything.
    for (const rel of got.files) {
      const bytes = readFileSync(join(got.dir, ...rel.split("/")));
      const opened = root.open(rel, { makeDirs: true, missingOk: true, noLinks: true });
      try {
        if (opened.stat && !opened.stat.isFile())
          throw new Error(`${rel} is in ${out} already and is not a file`);
        const fd = openSync(
          at(opened.dir, opened.name),
          constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC | constants.O_NOFOLLOW,
          0o644,
        );
        try {
          writeSync(fd, bytes);
        } finally {
          closeSync(fd);
        }
      } finally {
        if (opened.fd !== undefined) closeSync(opened.fd);
        closeSync(opened.dir);
      }
    }
    io.stderr(
      `pulled ${reg.formatReference(ref)} (${got.digest}) into ${displayPath(io.cwd, out)}\n`,
    );
    await print(io, `${displayPath(io.cwd, join(out, ...got.config.main.split("/")))}\n`);
    return EXIT.ok;
  } catch (err) {
    if (err instanceof Error && !(err instanceof SpellbookError)) {
      io.stderr(`spell pull: ${err.message}\n`);
      return EXIT.failure;
    }
    return fail(err, io);
  }
}

/** `spell inspect REF`: the manifest, its annotations and the spell's interface; nothing runs. */
export async function inspectCommand(
  refText: string,
  flags: ShareFlags & { json?: boolean | undefined },
  io: CliIO,
): Promise<number> {
  try {
    const reg = await registry();
    const { readManifest, layerPaths, readConfig } = await import("../registry/artifact.js");
    const ref = reg.parseReference(refText);
    const client = reg.clientFor(ref, {
      env: io.env,
      plainHttp: flags.plainHttp,
      signal: io.signal,
    });
    const where = reg.formatReference(ref);
    const got = await client.getManifest(ref.repository, ref.digest ?? ref.tag ?? "latest");
    const manifest = readManifest(got.bytes, where);
    const paths = layerPaths(manifest, where);
    const config = readConfig(
      await client.getBlob(ref.repository, manifest.config.digest, manifest.config.size),
      where,
    ) as unknown as Partial<Record<"name" | "description" | "kind" | "main" | "requires", string>> &
      Record<"inputs" | "output_schema", unknown>;
    const files = manifest.layers.map((l, i) => ({
      path: paths[i]!,
      digest: l.digest,
      size: l.size,
    }));
    const { shown, json } = showing(reg.credentialFor(ref.host, io.env)?.password);
    const all = { reference: where, digest: got.digest, manifest, config, files };
    if (flags.json) return await print(io, `${json(all, 2)}\n`).then(() => EXIT.ok);
    const lines = [
      `reference: ${where}`,
      `digest: ${got.digest}`,
      `artifact type: ${manifest.artifactType ?? "(none)"}`,
      `name: ${String(config["name"])}`,
      ...(config["description"] ? [`description: ${String(config["description"])}`] : []),
      `kind: ${String(config["kind"])}`,
      `main: ${String(config["main"])}`,
      `requires: spellbook ${String(config["requires"])}`,
      "annotations:",
      ...Object.entries(manifest.annotations ?? {}).map(([k, v]) => `  ${k}: ${v}`),
      ...(config["inputs"] !== undefined ? [`inputs: ${json(config["inputs"])}`] : []),
      ...(config["output_schema"] !== undefined
        ? [`output_schema: ${json(config["output_schema"])}`]
        : []),
      "files:",
      ...files.map((f) => `  ${f.path} (${f.size} bytes, ${f.digest})`),
    ];
    await print(io, `${lines.map(shown).join("\n")}\n`);
    return EXIT.ok;
  } catch (err) {
    return fail(err, io);
  }
}

/** `spell lock FILE|REF [--update]`: writes spell.lock and prints each pin. */
export async function lockCommand(
  target: string,
  flags: ShareFlags & { update?: boolean | undefined },
  io: CliIO,
): Promise<number> {
  try {
    const reg = await registry();
    const remote = target.startsWith("oci://");
    const path = remote ? target : resolve(io.cwd, target);
    if (!remote && !existsSync(path)) {
      io.stderr(`spell lock: ${target} does not exist\n`);
      return EXIT.invalid;
    }
    const lock = await reg.lockSpell(path, {
      env: io.env,
      plainHttp: flags.plainHttp,
      signal: io.signal,
      update: flags.update === true,
      lockDir: io.cwd,
    });
    const lines = [
      ...Object.entries(lock.remote).map(([ref, digest]) => `${ref} ${digest}`),
      ...Object.entries(lock.scripts).map(([file, digest]) => `${file} ${digest}`),
    ];
    io.stderr(`wrote ${displayPath(io.cwd, lock.file)}\n`);
    await print(io, lines.length ? `${lines.join("\n")}\n` : "");
    return EXIT.ok;
  } catch (err) {
    return fail(err, io);
  }
}

/**
 * `spell login HOST`: the password from stdin (`--password-stdin`) or asked at the terminal,
 * checked against the registry (`/v2/`, through its challenge), then stored in the Docker config.
 */
export async function loginCommand(
  host: string,
  flags: ShareFlags & { username?: string | undefined; password?: string | undefined },
  io: CliIO,
): Promise<number> {
  try {
    const reg = await registry();
    reg.parseReference(`${host}/x`);
    const username = flags.username ?? (io.question ? await ask(io, "Username: ") : undefined);
    if (!username) {
      io.stderr("spell login: give --username (or run it at a terminal)\n");
      return EXIT.invalid;
    }
    // Never asked at the terminal (it would be echoed) nor taken as a flag (it would be in the
    // shell's history and the process list): stdin only.
    const password = flags.password;
    if (!password) {
      io.stderr(
        'spell login: give the password on stdin: echo "$TOKEN" | spell login HOST --username NAME --password-stdin\n',
      );
      return EXIT.invalid;
    }
    const { RegistryClient } = await import("../registry/client.js");
    const client = new RegistryClient({
      host,
      credential: { username, password },
      plainHttp: flags.plainHttp === true,
      signal: io.signal,
    });
    try {
      await client.check();
    } catch (err) {
      const redactor = new Redactor();
      redactor.add(password);
      // The client's words for a refusal speak of a stored credential; here none was stored.
      const said =
        err instanceof SpellbookError && err.code === "registry_auth"
          ? `login failed: the registry ${host} refused the username ${JSON.stringify(username)} with that password (${/HTTP \d+/.exec(err.message)?.[0] ?? "refused"}); nothing was stored`
          : errorMessage(err);
      io.stderr(`${redactor.redact(said)}\n`);
      return err instanceof SpellbookError ? exitFor(err) : EXIT.failure;
    }
    const { storeCredential } = await import("../registry/credentials.js");
    const path = storeCredential(host, { username, password }, io.env);
    io.stdout(`Login succeeded: ${username}@${host}, stored in ${path}\n`);
    return EXIT.ok;
  } catch (err) {
    return fail(err, io);
  }
}

/**
 * Everything inspect shows is the registry's text: the stored password (in any spelling) is
 * redacted, and control characters (a terminal's escapes) are shown escaped; as JSON, each
 * string is redacted before it is encoded, then the text.
 */
function showing(password: string | undefined) {
  const redactor = new Redactor();
  redactor.add(password);
  const redact = (text: string) => redactor.redact(text);
  return {
    shown: (text: string) => redact(escapeControls(text)),
    json: (value: unknown, space?: number) => redactedJson(value, redact, space),
  };
}

/** Control and direction-changing characters as `\\u{…}` (a newline too: one value, one line). */
function escapeControls(text: string): string {
  return text.replace(
    // eslint-disable-next-line no-control-regex -- control characters are what it escapes
    /[\u0000-\u001f\u007f-\u009f\u061c\u200b-\u200f\u202a-\u202e\u2066-\u2069]/gu,
    (c) => `\\u{${c.codePointAt(0)!.toString(16)}}`,
  );
}

async function ask(io: CliIO, text: string): Promise<string | undefined> {
  const answer = await io.question?.(text, io.signal ?? new AbortController().signal);
  return answer?.trim() || undefined;
}
