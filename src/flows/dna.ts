/**
 * DNA (seed 003 §7): the registrations of a flow as a deterministic JSON document, and Ed25519
 * signatures over it (node:crypto) for interchange, pinned to the profile version (§9, §10).
 */
import { createPrivateKey, createPublicKey, sign, verify, type KeyObject } from "node:crypto";
import { ConfigError } from "../core/errors.js";
import type { Flow, Registration } from "./registry.js";
import { PROFILE_ID, PROFILE_VERSION } from "./version.js";

export interface DnaRegistration {
  kind: "receiver" | "sender" | "hook";
  /** Absent for hooks. */
  route?: string;
  /** Hooks only. */
  direction?: "receive" | "send";
  priority: number[];
  handler: { module: string; function: string; runtime?: string; digest?: string };
  /** Senders only: null means no filter. */
  actions?: string[] | null;
  triggers?: (string | null)[] | null;
  multi?: boolean;
}

export interface Dna {
  profile: string;
  version: string;
  flow: string;
  registrations: DnaRegistration[];
}

const KIND_ORDER = { hook: 0, receiver: 1, sender: 2 } as const;

function entry(r: Registration): DnaRegistration {
  const base = { kind: r.kind, priority: [...r.priority], handler: { ...r.identity } };
  if (r.kind === "hook") return { ...base, direction: r.direction };
  if (r.kind === "receiver") return { ...base, route: r.routeText };
  return {
    ...base,
    route: r.routeText,
    actions: r.actions ? [...new Set(r.actions)].sort() : null,
    triggers: r.triggers ? sortTriggers(r.triggers) : null,
    multi: r.multi,
  };
}

/**
 * A filter list is a set: sorted (null first) and without repeats, so DNA bytes do not depend on
 * the order it was written in (§7: a stable ordering for signing and diffing).
 */
function sortTriggers(triggers: readonly (string | null)[]): (string | null)[] {
  const names = [...new Set(triggers.filter((t): t is string => t !== null))].sort();
  return triggers.includes(null) ? [null, ...names] : names;
}

/** The DNA of a flow: hooks (receive, then send), receivers, senders, each in run order. */
export function flowDna(flow: Flow): Dna {
  const regs = [...flow.registrations()].sort((a, b) => {
    const k = KIND_ORDER[a.kind] - KIND_ORDER[b.kind];
    if (k || a.kind !== "hook" || b.kind !== "hook") return k;
    return a.direction === b.direction ? 0 : a.direction === "receive" ? -1 : 1;
  });
  return {
    profile: PROFILE_ID,
    version: PROFILE_VERSION,
    flow: flow.name,
    registrations: regs.map(entry),
  };
}

/** JSON with object keys sorted at every level and no whitespace: the bytes that are signed. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(sortKeys(value));
}

/** The same, indented for people; parses to the same value as canonicalJson. */
export function prettyJson(value: unknown): string {
  return JSON.stringify(sortKeys(value), null, 2);
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value === null || typeof value !== "object") return value;
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(value).sort()) {
    const v = (value as Record<string, unknown>)[k];
    if (v !== undefined) out[k] = sortKeys(v);
  }
  return out;
}

export interface SignedDna {
  dna: Dna;
  signature: { alg: "Ed25519"; public_key: string; value: string };
}

/** Signs the canonical JSON of a DNA with an Ed25519 private key (PEM). */
export function signDna(dna: Dna, privateKeyPem: string): SignedDna {
  const key = keyOf(() => createPrivateKey(privateKeyPem));
  const value = sign(null, Buffer.from(canonicalJson(dna)), key).toString("base64");
  const publicKey = createPublicKey(key).export({ type: "spki", format: "pem" }).toString();
  return { dna, signature: { alg: "Ed25519", public_key: publicKey, value } };
}

export interface DnaCheck {
  ok: boolean;
  reason?: string;
}

/**
 * Checks a signed DNA: the signature over its canonical JSON, with `publicKeyPem` when given
 * (else the key it carries, which proves integrity only), and that its profile's major version
 * is ours (version pinning).
 */
export function verifyDna(signed: SignedDna, publicKeyPem?: string): DnaCheck {
  const sig = signed.signature;
  if (sig?.alg !== "Ed25519") return { ok: false, reason: "not an Ed25519 signature" };
  const key = keyOf(() => createPublicKey(publicKeyPem ?? sig.public_key));
  const good = verify(
    null,
    Buffer.from(canonicalJson(signed.dna)),
    key,
    Buffer.from(sig.value, "base64"),
  );
  if (!good) return { ok: false, reason: "the signature does not match the DNA" };
  const major = String(signed.dna.version ?? "").split(".")[0];
  if (major !== PROFILE_VERSION.split(".")[0])
    return {
      ok: false,
      reason: `profile version ${signed.dna.version} is not ${PROFILE_VERSION}'s major`,
    };
  return { ok: true };
}

function keyOf(make: () => KeyObject): KeyObject {
  let key: KeyObject;
  try {
    key = make();
  } catch (err) {
    throw new ConfigError("bad_key", `not a usable key: ${(err as Error).message}`);
  }
  if (key.asymmetricKeyType !== "ed25519")
    throw new ConfigError(
      "bad_key",
      `an Ed25519 key is needed, not ${key.asymmetricKeyType ?? "a secret key"}`,
    );
  return key;
}
