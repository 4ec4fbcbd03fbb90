/** Priority tuples (seed 003 §6.1): compared lexicographically, ascending; a prefix comes first. */
export type Priority = readonly number[];

export function comparePriority(a: Priority, b: Priority): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const d = a[i]! - b[i]!;
    if (d !== 0) return d < 0 ? -1 : 1;
  }
  return a.length - b.length;
}

/** Plain code-unit order: the same in every locale, so orderings are deterministic. */
export function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
