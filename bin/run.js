#!/usr/bin/env node
import { loadBundle } from "./load.js";

// SPELLBOOK_TRAIN_CODE_CACHE is set only by the build (scripts/bundle.mjs).
const cli = loadBundle({ writeCache: process.env["SPELLBOOK_TRAIN_CODE_CACHE"] === "1" });
await cli.exports.execute({ dir: import.meta.url });
