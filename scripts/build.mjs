// Transpiles src/ to dist/ (one .js file per .ts file, no bundling) with esbuild, which tsx already
// brings. `npm start` runs the compiled files with plain node: faster start and about 45 MiB less
// resident memory than running the TypeScript through a loader. Type checking is `npm run typecheck`.
import { readdirSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { build } from 'esbuild';
import { tsImport } from 'tsx/esm/api';

const walk = (dir) =>
  readdirSync(dir, { withFileTypes: true }).flatMap((d) =>
    d.isDirectory() ? walk(join(dir, d.name)) : d.name.endsWith('.ts') && !d.name.endsWith('.d.ts') ? [join(dir, d.name)] : [],
  );

// The browser bundles (entry points, output and esbuild options) are defined once, in
// src/adapters/browser-bundle.ts, which bundles them in memory when running from the sources.
const { BROWSER_BUNDLES } = await tsImport('../src/adapters/browser-bundle.ts', import.meta.url);
// Browser code is bundled below, not transpiled for node.
const browserDirs = BROWSER_BUNDLES.flatMap((b) => b.entryPoints.map((e) => join('src', dirname(e.in))));

rmSync('dist', { recursive: true, force: true });
await build({
  entryPoints: walk('src').filter((f) => !browserDirs.some((dir) => f.startsWith(dir))),
  outdir: 'dist',
  outbase: 'src',
  platform: 'node',
  format: 'esm',
  target: 'node20',
  sourcemap: 'linked',
  logLevel: 'warning',
});

for (const bundle of BROWSER_BUNDLES) {
  await build({
    ...bundle.options,
    entryPoints: bundle.entryPoints.map((e) => ({ in: join('src', e.in), out: e.out })),
    outdir: join('dist', bundle.outdir),
    logLevel: 'warning',
  });
}
