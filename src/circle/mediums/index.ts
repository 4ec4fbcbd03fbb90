import type { Medium } from "../medium.js";
import { bashMedium } from "./bash/index.js";
import { codeMedium } from "./code/index.js";
import { conversationMedium } from "./conversation.js";
import { ownEntry } from "../../core/own.js";

/** Mediums by name, built here in one place. The schema's medium enum must match these keys (a test checks). */
export const mediumRegistry: Readonly<Record<string, Medium>> = {
  conversation: conversationMedium,
  code: codeMedium,
  bash: bashMedium,
};

/** Implementation-specific spellings other runtimes use, mapped to our medium names. */
const SPELLINGS: Readonly<Record<string, string>> = {
  conversation: "conversation",
  tool_calling: "conversation",
  "tool-calling": "conversation",
  chat: "conversation",
  code: "code",
  code_circle: "code",
  js: "code",
  javascript: "code",
  quickjs: "code",
  bash: "bash",
  shell: "bash",
};

export const normalizeMediumName = (name: string): string =>
  ownEntry(SPELLINGS, name.toLowerCase()) ?? name;
