/**
 * A registry reference, `[oci://]HOST[:PORT]/REPO[:TAG][@DIGEST]`, parsed by the grammar of the
 * OCI distribution spec (repository names and tags) — a host is always named: there is no
 * default registry, so a reference never reaches a host its text does not name.
 */
import { ConfigError } from "../core/errors.js";

export const OCI_SCHEME = "oci://";

/** One path component of a repository name (the distribution spec's `<name>` grammar). */
const COMPONENT = /^[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*$/;
const TAG = /^[A-Za-z0-9_][A-Za-z0-9._-]{0,127}$/;
export const DIGEST = /^sha256:[a-f0-9]{64}$/;
/** A host name or an IPv4 address, an optional port; or a bracketed IPv6 address. */
const HOST =
  /^(?:[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?)*|\[[0-9A-Fa-f:.]+\])(?::[0-9]{1,5})?$/;

export interface Reference {
  /** `HOST[:PORT]`, as written. */
  host: string;
  repository: string;
  tag: string | undefined;
  digest: string | undefined;
}

/** Whether `text` names a spell in a registry rather than a file. */
export const isRemote = (text: string): boolean => text.startsWith(OCI_SCHEME);

/** Parses a reference; a malformed one is the user's mistake (exit 3), named in the error. */
export function parseReference(text: string): Reference {
  const bare = isRemote(text) ? text.slice(OCI_SCHEME.length) : text;
  const bad = (why: string) =>
    new ConfigError("bad_reference", `${JSON.stringify(text)} is not a registry reference: ${why}`);
  const slash = bare.indexOf("/");
  if (slash <= 0)
    throw bad("write HOST[:PORT]/REPOSITORY[:TAG], e.g. localhost:5000/team/triage:1");
  const host = bare.slice(0, slash);
  if (!HOST.test(host)) throw bad(`${JSON.stringify(host)} is not a host`);
  let rest = bare.slice(slash + 1);
  let digest: string | undefined;
  const at = rest.indexOf("@");
  if (at >= 0) {
    digest = rest.slice(at + 1);
    rest = rest.slice(0, at);
    if (!DIGEST.test(digest)) throw bad(`${JSON.stringify(digest)} is not a sha256 digest`);
  }
  let tag: string | undefined;
  const colon = rest.lastIndexOf(":");
  if (colon >= 0) {
    tag = rest.slice(colon + 1);
    rest = rest.slice(0, colon);
    if (!TAG.test(tag)) throw bad(`${JSON.stringify(tag)} is not a tag`);
  }
  if (rest === "" || !rest.split("/").every((c) => COMPONENT.test(c)))
    throw bad(
      `${JSON.stringify(rest)} is not a repository name (lowercase letters, digits, . _ - and /)`,
    );
  return { host, repository: rest, tag, digest };
}

/** The reference as text, without the scheme; the tag `latest` when it names neither. */
export function formatReference(ref: Reference): string {
  const tag = ref.tag ?? (ref.digest ? "" : "latest");
  return `${ref.host}/${ref.repository}${tag ? `:${tag}` : ""}${ref.digest ? `@${ref.digest}` : ""}`;
}

/** What the manifest is fetched by: the digest when there is one, else the tag. */
export const manifestKey = (ref: Reference): string => ref.digest ?? ref.tag ?? "latest";

/** Loopback hosts are reached over plain HTTP, as Docker does; any other needs TLS. */
export function isLoopback(host: string): boolean {
  const name = host.replace(/:[0-9]+$/, "").replace(/^\[|\]$/g, "");
  return name === "localhost" || name === "::1" || /^127\.[0-9]+\.[0-9]+\.[0-9]+$/.test(name);
}
