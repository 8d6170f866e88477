// The console's browser bundle: src/adapters/console/client/main.ts (+ console.css), built by
// scripts/build.mjs into dist/adapters/console/assets/ for `npm start`. Running from the sources
// (tests, `npm run dev`) there is no built file next to this module, so the same esbuild options
// bundle it in memory on first use, and again after a source file changes: no build step to
// remember, and tests exercise the code as it is now.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** esbuild options of the console bundle (scripts/build.mjs imports nothing from src, so it repeats them). */
export const CONSOLE_BUNDLE = {
  bundle: true,
  format: 'esm',
  platform: 'browser',
  target: 'es2020',
  minify: true,
  legalComments: 'none',
  sourcemap: false,
} as const;

const BUILT_DIR = new URL('./assets/', import.meta.url);
const CLIENT_DIR = new URL('./client/', import.meta.url);

export interface ConsoleAssets {
  js: string;
  css: string;
}

/** The built files, when `npm run build` made them (read once). */
function readBuilt(): ConsoleAssets | null {
  const js = new URL('console.js', BUILT_DIR);
  const css = new URL('console.css', BUILT_DIR);
  return existsSync(js) && existsSync(css) ? { js: readFileSync(js, 'utf8'), css: readFileSync(css, 'utf8') } : null;
}

/** The newest modification time under client/: a change (`npm run dev`) makes a new bundle. */
function sourcesVersion(): number {
  const dir = fileURLToPath(CLIENT_DIR);
  return Math.max(0, ...readdirSync(dir, { recursive: true, encoding: 'utf8' }).map((f) => statSync(join(dir, f)).mtimeMs));
}

async function bundle(): Promise<ConsoleAssets> {
  const { build } = await import('esbuild');
  const out = await build({
    ...CONSOLE_BUNDLE,
    entryPoints: [
      { in: fileURLToPath(new URL('main.ts', CLIENT_DIR)), out: 'console' },
      { in: fileURLToPath(new URL('console.css', CLIENT_DIR)), out: 'console' },
    ],
    outdir: '/console-bundle',
    write: false,
    logLevel: 'silent',
  });
  const pick = (ext: string) => {
    const file = out.outputFiles.find((f) => f.path.endsWith(ext));
    if (!file) throw new Error(`the console bundle has no ${ext} file`);
    return file.text;
  };
  return { js: pick('.js'), css: pick('.css') };
}

let built: ConsoleAssets | null | undefined;
let cached: { version: number; assets: Promise<ConsoleAssets> } | null = null;

/** The bundle: the built files, or one in-memory bundle per version of the sources. */
export function consoleAssets(): Promise<ConsoleAssets> {
  if (built === undefined) built = readBuilt();
  if (built) return Promise.resolve(built);
  const version = sourcesVersion();
  if (cached?.version !== version) {
    const assets = bundle();
    cached = { version, assets };
    // A failed build is tried again on the next request.
    assets.catch(() => {
      if (cached?.assets === assets) cached = null;
    });
  }
  return cached.assets;
}
