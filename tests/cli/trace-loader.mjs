// Reports each package module that gets loaded (used to prove `spell --help` stays light).
export async function resolve(specifier, context, next) {
  const result = await next(specifier, context);
  const m = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(result.url);
  if (m) process.stderr.write(`LOADED ${m[1]}\n`);
  return result;
}
