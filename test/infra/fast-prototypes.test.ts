// Every module of the server, and every package it loads on demand, leaves the built-in
// prototypes in V8's fast mode. A library that turns one into a dictionary (ioredis 6 did it to
// String.prototype with `class VerbatimString extends String`) makes every `str.method` load in
// optimized code, node's own HTTP code included, a generic inline-cache call: it cost the raw card
// and /status answers about 10% of their CPU per request (README, benchmarks).
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { test } from 'node:test';

const PROTOTYPES = ['String', 'Object', 'Array', 'Function', 'RegExp', 'Map', 'Set', 'Promise', 'Number', 'Symbol', 'Date', 'Error', 'Uint8Array'];

test('after loading every server module and on-demand package, the built-in prototypes are still in fast mode', () => {
  const script = `
    import { readdirSync, readFileSync } from 'node:fs';
    import { join, resolve } from 'node:path';
    import { pathToFileURL } from 'node:url';
    const src = resolve('src');
    const files = readdirSync(src, { recursive: true })
      .map(String)
      .filter((f) => f.endsWith('.ts') && !f.endsWith('.d.ts'))
      // Browser code, and the two entry points, which start a server or run the migrations.
      .filter((f) => !f.startsWith(join('adapters', 'console', 'client')) && !f.startsWith(join('adapters', 'pages', 'assets')))
      .filter((f) => f !== 'main.ts' && f !== 'migrate.ts');
    for (const f of files) await import(pathToFileURL(join(src, f)).href);
    // Packages loaded with import() inside functions, which importing the modules does not reach.
    const onDemand = new Set(files.flatMap((f) => [...readFileSync(join(src, f), 'utf8').matchAll(/import\\((['"])([^.'"][^'"]*)\\1\\)/g)].map((m) => m[2])));
    for (const p of onDemand) await import(p);
    const slow = ${JSON.stringify(PROTOTYPES)}.filter((n) => !%HasFastProperties(globalThis[n].prototype));
    console.log(JSON.stringify({ modules: files.length, onDemand: [...onDemand], slow }));
    process.exit(0);
  `;
  const out = execFileSync(process.execPath, ['--allow-natives-syntax', '--import', 'tsx', '--input-type=module', '-e', script], {
    encoding: 'utf8',
    env: { ...process.env, LOG_LEVEL: 'silent' },
    timeout: 120_000,
  });
  const result = JSON.parse(out.trim().split('\n').pop()!) as { modules: number; onDemand: string[]; slow: string[] };
  assert.ok(result.modules > 100, `every module was loaded (${result.modules})`);
  assert.ok(result.onDemand.includes('@simplewebauthn/server'), `on-demand packages found: ${result.onDemand.join(', ')}`);
  assert.deepEqual(result.slow, [], 'prototypes left in dictionary mode');
});
