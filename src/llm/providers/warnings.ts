/**
 * Settings a provider cannot honour are reported, never silently dropped: in the turn's
 * metadata (`warnings`) every time, and to the warning sink once per distinct message.
 */
export class ProviderWarnings {
  private readonly told = new Set<string>();

  constructor(private readonly sink: ((message: string) => void) | undefined) {}

  /** Reports new warnings; returns metadata to merge into the response (empty when none). */
  report(warnings: readonly string[]): Record<string, unknown> {
    if (!warnings.length) return {};
    for (const w of warnings) {
      if (this.told.has(w)) continue;
      this.told.add(w);
      if (this.sink) this.sink(w);
      else process.emitWarning(w, { code: "SPELLBOOK_LLM" });
    }
    return { warnings: [...warnings] };
  }
}
