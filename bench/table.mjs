// The benches' result table (bash, code, gate-budget): rows of { metric, value, target, ok },
// printed as aligned columns under a header.
const cols = ["metric", "value", "target", "ok"];

export function printTable(rows) {
  const width = (k) => Math.max(...rows.map((r) => String(r[k]).length), k.length);
  const line = (r) => cols.map((c) => String(r[c]).padEnd(width(c))).join("  ");
  console.log(line(Object.fromEntries(cols.map((c) => [c, c]))));
  console.log(cols.map((c) => "-".repeat(width(c))).join("  "));
  for (const r of rows) console.log(line(r));
}
