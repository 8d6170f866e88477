// The browser bundles the server serves, defined once: scripts/build.mjs builds them into dist/
// for `npm start`, and running from the sources (tests, `npm run dev`) browserBundle() makes the
// same bundle in memory with the same options, so there is no build step to remember and tests
// exercise the code as it is now. Nothing is compiled at run time in production.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { basename, extname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { BuildOptions } from 'esbuild';

/** Paths are relative to src/ (the sources) and to dist/ (the build). */
export interface BrowserBundleSpec {
  /** `out` names the output file: `${out}.js`, or `${out}.css` for a stylesheet. */
  entryPoints: { in: string; out: string }[];
  outdir: string;
  options: BuildOptions;
  /** A change under it makes a new in-memory bundle (`npm run dev`); without it, one per process. */
  watchDir?: string;
}

const BROWSER: BuildOptions = { bundle: true, platform: 'browser', target: 'es2020', minify: true, legalComments: 'none' };

/** /assets/passkeys.js: the /passkeys page's script with @simplewebauthn/browser. */
export const PASSKEYS_BUNDLE: BrowserBundleSpec = {
  entryPoints: [{ in: 'adapters/pages/assets/passkeys.ts', out: 'passkeys' }],
  outdir: 'adapters/pages/assets',
  options: { ...BROWSER, format: 'iife' },
};

/** /assets/console.js and /assets/console.css: the account console. */
export const CONSOLE_BUNDLE: BrowserBundleSpec = {
  entryPoints: [
    { in: 'adapters/console/client/main.ts', out: 'console' },
    { in: 'adapters/console/client/console.css', out: 'console' },
  ],
  outdir: 'adapters/console/assets',
  options: { ...BROWSER, format: 'esm' },
  watchDir: 'adapters/console/client',
};

export const BROWSER_BUNDLES = [PASSKEYS_BUNDLE, CONSOLE_BUNDLE];

/** src/ or dist/, whichever this module runs from. */
const ROOT = fileURLToPath(new URL('../', import.meta.url));

const outputName = (entry: { in: string; out: string }) => `${entry.out}${extname(entry.in) === '.css' ? '.css' : '.js'}`;

type Files = Map<string, string>;

/** The built files, when `npm run build` made them; null when running from the sources. */
function readBuilt(spec: BrowserBundleSpec): Files | null {
  const paths = spec.entryPoints.map((e) => join(ROOT, spec.outdir, outputName(e)));
  return paths.every((p) => existsSync(p)) ? new Map(paths.map((p) => [basename(p), readFileSync(p, 'utf8')])) : null;
}

/** The newest modification time under the watched directory (0 when nothing is watched). */
function sourcesVersion(spec: BrowserBundleSpec): number {
  if (!spec.watchDir) return 0;
  const dir = join(ROOT, spec.watchDir);
  return Math.max(0, ...readdirSync(dir, { recursive: true, encoding: 'utf8' }).map((f) => statSync(join(dir, f)).mtimeMs));
}

async function bundleInMemory(spec: BrowserBundleSpec): Promise<Files> {
  const { build } = await import('esbuild');
  const out = await build({
    ...spec.options,
    entryPoints: spec.entryPoints.map((e) => ({ in: join(ROOT, e.in), out: e.out })),
    outdir: join(ROOT, spec.outdir),
    write: false,
    logLevel: 'silent',
  });
  return new Map(out.outputFiles.map((f) => [basename(f.path), f.text]));
}

/**
 * The bundle's output files by name ('console.css'): the built ones (read once), or an in-memory
 * bundle per version of the sources. A failed build is tried again on the next call.
 */
export function browserBundle(spec: BrowserBundleSpec): (name: string) => Promise<string> {
  let built: Files | null | undefined;
  let cached: { version: number; files: Promise<Files> } | null = null;
  const files = (): Promise<Files> => {
    if (built === undefined) built = readBuilt(spec);
    if (built) return Promise.resolve(built);
    const version = sourcesVersion(spec);
    if (cached?.version !== version) {
      const pending = bundleInMemory(spec);
      cached = { version, files: pending };
      pending.catch(() => {
        if (cached?.files === pending) cached = null;
      });
    }
    return cached.files;
  };
  return async (name) => {
    const text = (await files()).get(name);
    if (text === undefined) throw new Error(`the browser bundle has no ${name}`);
    return text;
  };
}
