/**
 * One base error with a stable `code`, in three families (STYLE.md §4):
 * the user's spell or call is wrong, the system failed, the model misbehaved.
 */

import type { ErrorCode } from "./error-codes.js";
import { ownEntry } from "./own.js";

export type { ErrorCode } from "./error-codes.js";

export interface SourcePosition {
  file: string;
  line: number;
  col: number;
}

export type ErrorFamily = "spell" | "system" | "model";

export class SpellbookError extends Error {
  override readonly name: string = "SpellbookError";
  readonly code: ErrorCode;
  readonly family: ErrorFamily;
  readonly position: SourcePosition | undefined;

  constructor(
    code: ErrorCode,
    message: string,
    options: { family?: ErrorFamily; position?: SourcePosition; cause?: unknown } = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    this.family = options.family ?? "spell";
    this.position = options.position;
  }

  /** `file:line:col: message` when the error comes from a file, else the message. */
  format(): string {
    const p = this.position;
    return p ? `${p.file}:${p.line}:${p.col}: ${this.message}` : this.message;
  }

  static isInstance(value: unknown): value is SpellbookError {
    return value instanceof SpellbookError;
  }
}

/** The user's configuration or call is wrong (a spell, a cantrip built in code, an action). */
export class ConfigError extends SpellbookError {
  override readonly name: string = "ConfigError";
  constructor(code: ErrorCode, message: string, position?: SourcePosition) {
    super(code, message, position ? { family: "spell", position } : { family: "spell" });
  }
}

/** Something outside the spell failed: IO, a provider, the network. */
export class SystemError extends SpellbookError {
  override readonly name: string = "SystemError";
  readonly status: number | undefined;
  constructor(
    code: ErrorCode,
    message: string,
    options: { status?: number; cause?: unknown } = {},
  ) {
    super(code, message, { family: "system", cause: options.cause });
    this.status = options.status;
  }
}

/** The model returned something the contract forbids (LLM-3, LLM-4, LLM-7). */
export class ModelError extends SpellbookError {
  override readonly name: string = "ModelError";
  constructor(code: ErrorCode, message: string) {
    super(code, message, { family: "model" });
  }
}

/** A collection of errors reported together (the loader collects, never stops at the first). */
export class SpellErrors extends SpellbookError {
  override readonly name: string = "SpellErrors";
  readonly errors: readonly SpellbookError[];
  constructor(errors: readonly SpellbookError[]) {
    super(
      errors.length === 1 ? (errors[0]?.code ?? "spell_invalid") : "spell_invalid",
      errors.map((e) => e.format()).join("\n"),
      { family: "spell" },
    );
    this.errors = errors;
  }
  override format(): string {
    return this.message;
  }
}

export function errorMessage(err: unknown): string {
  if (err instanceof SpellbookError) return err.format();
  if (err instanceof Error) return err.message;
  return String(err);
}

/** The common reasons a file cannot be read, in words (Node's message repeats the path). */
const UNREADABLE: Readonly<Record<string, string>> = {
  ENOENT: "no such file",
  ENOTDIR: "a part of its path is not a folder",
  EISDIR: "it is a folder, not a file",
  EACCES: "permission denied",
  EPERM: "permission denied",
};

/**
 * Why a file could not be read, for "cannot read FILE: …" (the caller names the file): the
 * common errno codes in plain words, any other error's own message.
 */
export function unreadableBecause(err: unknown): string {
  const code = (err as { code?: unknown } | null)?.code;
  return (typeof code === "string" && ownEntry(UNREADABLE, code)) || errorMessage(err);
}
