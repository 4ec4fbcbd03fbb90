/**
 * A table's own entry for a name that came from a file, a flag or a model: never one of
 * Object.prototype's (`constructor`, `__proto__`, `toString`…), which a plain `table[name]`
 * would find.
 */
export const ownEntry = <T>(table: Readonly<Record<string, T>>, name: string): T | undefined =>
  Object.hasOwn(table, name) ? table[name] : undefined;
