/** A JSON object: not null, not an array. The one check of it, for every layer. */
export const isJsonObject = (v: unknown): v is Record<string, unknown> =>
  v !== null && typeof v === "object" && !Array.isArray(v);
