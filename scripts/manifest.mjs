#!/usr/bin/env node
// Writes oclif.manifest.json after the build, so `spell` finds its commands without globbing
// dist/commands and importing every command file at start-up.
import { writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { Plugin } from "@oclif/core";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const plugin = new Plugin({
  root,
  type: "core",
  ignoreManifest: true,
  errorOnManifestCreate: true,
});
await plugin.load();
writeFileSync(join(root, "oclif.manifest.json"), JSON.stringify(plugin.manifest, null, 2) + "\n");
