// The console's browser bundle: src/adapters/console/client/main.ts (+ console.css), built by
// scripts/build.mjs into dist/adapters/console/assets/ for `npm start`. Running from the sources
// (tests, `npm run dev`) there is no built file next to this module, so the same esbuild options
// bundle it in memory once, on first use: no build step to remember, and tests exercise the
// code as it is now.
import { existsSync, readFileSync } from 'node:fs';
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

async function load(): Promise<ConsoleAssets> {
  const js = new URL('console.js', BUILT_DIR);
  const css = new URL('console.css', BUILT_DIR);
  if (existsSync(js) && existsSync(css)) return { js: readFileSync(js, 'utf8'), css: readFileSync(css, 'utf8') };
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

let cached: Promise<ConsoleAssets> | null = null;
/** The bundle, built or read once per process (a failed build is retried on the next call). */
export function consoleAssets(): Promise<ConsoleAssets> {
  cached ??= load().catch((err: unknown) => {
    cached = null;
    throw err;
  });
  return cached;
}
