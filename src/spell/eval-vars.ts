/**
 * A case's `vars` put into its intent: `{{name}}` is replaced by the value of `name`. One small
 * function on purpose: spells' own `inputs:` will share the same substitution (issue 23 notes).
 * A `{{name}}` the vars do not give is returned as missing, never left in silently.
 */
export function substituteVars(
  template: string,
  vars: Readonly<Record<string, string | number | boolean>>,
): { text: string; missing: string[] } {
  const missing: string[] = [];
  const text = template.replace(/\{\{\s*([A-Za-z_][\w.-]*)\s*\}\}/g, (whole, name: string) => {
    if (!Object.prototype.hasOwnProperty.call(vars, name)) {
      missing.push(name);
      return whole;
    }
    return String(vars[name]);
  });
  return { text, missing };
}
