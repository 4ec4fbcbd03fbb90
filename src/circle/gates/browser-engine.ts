/**
 * One headless Chromium per process, driven through playwright-core and launched on first use:
 * the driver is imported then (`spell --help` and spells without a browser load none of it). The
 * driver kills the browser's process group when this process exits; the browser closes when
 * its last page does (so a finished `spell run` ends), and a browser that crashed or closed is
 * launched again by the next call.
 */
import type { Browser } from "playwright-core";
import { errorMessage } from "../../core/errors.js";

/** The system's Chromium (Debian's); `SPELLBOOK_CHROMIUM` names another. Never downloaded. */
export const chromiumPath = (): string => process.env["SPELLBOOK_CHROMIUM"] || "/usr/bin/chromium";

const ARGS = [
  "--disable-gpu",
  "--disable-quic",
  // WebRTC sends UDP (STUN, peers) around the proxy: only what the proxy carries is allowed.
  "--webrtc-ip-handling-policy=disable_non_proxied_udp",
  "--force-webrtc-ip-handling-policy",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

/**
 * Chromium's own sandbox (its renderers in namespaces of their own, seccomp) stays on for every
 * user but root: as root Chromium refuses to start with it (crbug.com/638180), so there — CI,
 * containers — it runs with `--no-sandbox`, and the allow list's routing and proxy are the wall.
 */
export function chromiumArgs(uid: number | undefined = process.getuid?.()): string[] {
  return uid === 0 ? ["--no-sandbox", ...ARGS] : [...ARGS];
}

/** What to do when Chromium's sandbox cannot start here (no unprivileged user namespaces). */
const NO_SANDBOX_HINT =
  "; Chromium's sandbox needs unprivileged user namespaces (sysctl kernel.unprivileged_userns_clone=1, or an AppArmor profile allowing them for Chromium)";

let launching: Promise<Browser> | undefined;
let users = 0;

/** Takes a use of the process's browser (a page about to open); `releaseBrowser` gives it back. */
export function acquireBrowser(timeoutMs: number): Promise<Browser> {
  users++;
  return sharedBrowser(timeoutMs);
}

/** The last use given back closes the browser: nothing keeps a finished process alive. */
export function releaseBrowser(): Promise<void> {
  users = Math.max(0, users - 1);
  return users === 0 ? closeSharedBrowser() : Promise.resolve();
}

/** The process's browser, launched when first asked for (again after a crash). */
export function sharedBrowser(timeoutMs: number): Promise<Browser> {
  launching ??= launch(timeoutMs).catch((err: unknown) => {
    launching = undefined;
    const why = firstLine(err);
    const hint = /no usable sandbox/i.test(errorMessage(err)) ? NO_SANDBOX_HINT : "";
    throw new Error(`browser: Chromium did not start (${chromiumPath()}): ${why}${hint}`);
  });
  return launching;
}

async function launch(timeoutMs: number): Promise<Browser> {
  const { chromium } = await import("playwright-core");
  // The driver's own signal handlers stay off: the CLI decides what a Ctrl-C does; the driver's
  // exit handler (always on) still kills the browser's process group.
  const args = chromiumArgs();
  const browser = await chromium.launch({
    executablePath: chromiumPath(),
    args,
    // The driver adds --no-sandbox itself unless told the sandbox is wanted.
    chromiumSandbox: !args.includes("--no-sandbox"),
    headless: true,
    timeout: Math.max(timeoutMs, 30_000),
    handleSIGINT: false,
    handleSIGTERM: false,
    handleSIGHUP: false,
  });
  const mine = launching;
  browser.on("disconnected", () => {
    if (launching === mine) launching = undefined;
  });
  return browser;
}

/** Closes the process's browser, if one runs (tests; a process that exits needs none). */
export async function closeSharedBrowser(): Promise<void> {
  const current = launching;
  launching = undefined;
  if (current) await current.then((b) => b.close()).catch(() => undefined);
}

/** The first line of a driver error (the rest is its call log). */
export const firstLine = (err: unknown): string =>
  errorMessage(err)
    .split("\n")[0]!
    .replace(/^[a-zA-Z]+\.[a-zA-Z]+: /, "");
