/**
 * The council's default OpenRouter models, each with a fallback list (OpenRouter's `models`
 * field: tried in order when a model errs, is down or refuses). Triage's default is the brief's
 * model under OpenRouter's id for it: the brief's dated id has been refused by OpenRouter.
 */
export const TRIAGE_MODEL = "anthropic/claude-sonnet-4";
export const DEFAULT_MODEL = "openrouter/auto";

/**
 * The fallback list of `model`: itself, then the default model; the default model itself falls
 * back to the triage model, so no default stands alone. At most 3 entries, none twice.
 */
export function fallbackList(model: string, defaultModel: string = DEFAULT_MODEL): string[] {
  const list = [model, defaultModel];
  if (model === defaultModel) list.push(model === TRIAGE_MODEL ? DEFAULT_MODEL : TRIAGE_MODEL);
  return [...new Set(list)].slice(0, 3);
}
