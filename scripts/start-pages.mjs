#!/usr/bin/env node
// Writes dist/start-pages.json (src/cli/start.ts): the help pages and --version line oclif
// renders for every help command line, rendered here by oclif itself (`spell … ` with the
// start-up path off, stdout a pipe, no setting that changes rendering); and dist/start.json:
// the user agent, which command lines have a page, and the `run` command of the manifest.
import { spawnSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");

/** The environment help is rendered in: none of the settings that send a process to oclif. */
export function plainEnv(env = process.env) {
  const out = { ...env };
  for (const k of Object.keys(out))
    if (/^(OCLIF_|SPELL_|FORCE_COLOR$|DEBUG$)/.test(k)) delete out[k];
  return out;
}

/** Every command line that prints help or the version, from the manifest's commands and topics. */
export function helpForms(manifest) {
  const ids = Object.keys(manifest.commands);
  const topics = [...new Set(ids.filter((id) => id.includes(":")).map((id) => id.split(":")[0]))];
  const forms = [[], ["--help"], ["help"], ["--version"]];
  for (const id of [...ids, ...topics]) {
    const words = id.split(":");
    forms.push([...words, "--help"], ["help", ...words]);
  }
  // A topic that is not a command prints its help when named alone (`spell loom`).
  for (const t of topics) if (!ids.includes(t)) forms.push([t]);
  return forms;
}

/** What oclif itself prints for argv, with the start-up path off. */
export function renderWithOclif(argv, env = plainEnv()) {
  return spawnSync(process.execPath, [join(root, "bin", "run.js"), ...argv], {
    cwd: root,
    env: { ...env, SPELLBOOK_FAST_START: "0" },
    encoding: "utf8",
  });
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const manifest = JSON.parse(readFileSync(join(root, "oclif.manifest.json"), "utf8"));
  const pages = {};
  for (const argv of helpForms(manifest)) {
    const r = renderWithOclif(argv);
    if (r.status !== 0 || r.stderr !== "")
      throw new Error(`spell ${argv.join(" ")} exited ${r.status}:\n${r.stderr}`);
    pages[JSON.stringify(argv)] = r.stdout;
  }
  const userAgent = pages[JSON.stringify(["--version"])].trim();
  const run = manifest.commands["run"];
  // The pages apart: a `spell run` reads start.json only (its help lines are their keys).
  writeFileSync(join(root, "dist", "start-pages.json"), JSON.stringify(pages) + "\n");
  const helps = Object.keys(pages);
  writeFileSync(join(root, "dist", "start.json"), JSON.stringify({ userAgent, helps, run }) + "\n");
}
