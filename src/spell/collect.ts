import { ConfigError, SpellbookError } from "../core/errors.js";
import type { Path } from "./source.js";
import type { Locate } from "./validate.js";

/** Collects the errors of one load so all are reported together, each positioned. */
export class ErrorList {
  readonly list: SpellbookError[] = [];
  constructor(private readonly locate: Locate) {}
  /** Runs `fn`; an error it throws is kept, positioned at `path`. */
  guard<T>(path: Path, fn: () => T): T | undefined {
    try {
      return fn();
    } catch (err) {
      this.add(err, path);
      return undefined;
    }
  }
  async guardAsync<T>(path: Path, fn: () => Promise<T>): Promise<T | undefined> {
    try {
      return await fn();
    } catch (err) {
      this.add(err, path);
      return undefined;
    }
  }
  add(err: unknown, path: Path): void {
    if (!(err instanceof SpellbookError)) throw err;
    this.list.push(err.position ? err : new ConfigError(err.code, err.message, this.locate(path)));
  }
}
