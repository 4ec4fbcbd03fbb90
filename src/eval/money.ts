/**
 * Money as people read it, one function for the eval progress line and the eval summary:
 * three decimals under a dollar ($0.012), two from a dollar ($1.23), and under a tenth of a
 * cent only "<$0.001" (summary.json and results.jsonl keep the exact figure).
 */
export function formatMoney(usd: number): string {
  if (usd === 0) return "$0";
  if (usd < 0.001) return "<$0.001";
  if (usd < 0.9995) return `$${usd.toFixed(3)}`;
  return `$${usd.toFixed(2)}`;
}
