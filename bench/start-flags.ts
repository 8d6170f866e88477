// The node flags of `npm start`: package.json's start script runs `node <flags> dist/main.js`.
// Read by the benchmarks (they start every node process with them) and by the deploy test (the
// image's CMD must pass the same ones).
import { readFileSync } from 'node:fs';

export function startFlags(packageJsonPath: URL | string): string[] {
  const pkg = JSON.parse(readFileSync(packageJsonPath, 'utf8')) as { scripts?: Record<string, string> };
  const flags = /\bnode((?: --[\w-]+(?:=\S+)?)*) dist\/main\.js/.exec(pkg.scripts?.start ?? '')?.[1];
  if (flags === undefined) throw new Error('package.json: the start script does not run `node … dist/main.js`');
  return flags.split(' ').filter(Boolean);
}
