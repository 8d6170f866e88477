// The process as `npm start` runs it: embedded defaults, data kept in DATA_DIR across restarts,
// and a clean exit on SIGTERM and SIGINT.
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { request } from './support/http.js';

const dataDir = mkdtempSync(join(tmpdir(), 'lifecycle-test-'));
after(() => rmSync(dataDir, { recursive: true, force: true }));

interface Running {
  child: ChildProcess;
  url: string;
  output: () => string;
}

/** Starts src/main.ts with no DATABASE_URL / REDIS_URL / SMTP_URL (the zero-service defaults). */
function start(): Promise<Running> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
    env: { PATH: process.env.PATH ?? '', DATA_DIR: dataDir, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no listening line within 60 s:\n${out}`)), 60_000);
    const onData = (c: Buffer) => {
      out += c.toString();
      const m = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve({ child, url: m[1]!, output: () => out });
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', (c: Buffer) => (out += c.toString()));
    child.on('exit', (code) => reject(new Error(`exited with ${code} before listening:\n${out}`)));
  });
}

function stop(r: Running, signal: NodeJS.Signals): Promise<number | null> {
  return new Promise((resolve) => {
    r.child.removeAllListeners('exit');
    r.child.once('exit', (code) => resolve(code));
    r.child.kill(signal);
  });
}

test('the embedded server keeps its data across a restart and exits cleanly on SIGTERM and SIGINT', async () => {
  const email = `lifecycle-${Date.now()}@example.com`;
  const password = 'kept across restarts';

  const first = await start();
  assert.match(first.output(), /embedded \(PGlite\)/);
  // Started without npm start's settings: it says which (src/infra/runtime-flags.ts).
  assert.match(first.output(), /node runs without --no-allocation-site-pretenuring/);
  assert.match(first.output(), /MALLOC_ARENA_MAX is not set/);
  const signup = await request(first.url, '/auth/signup', { method: 'POST', body: { email, password } });
  assert.equal(signup.status, 201);
  assert.equal(await stop(first, 'SIGTERM'), 0);
  assert.match(first.output(), /shutting down/);

  const second = await start();
  const login = await request(second.url, '/auth/login', { method: 'POST', body: { email, password } });
  assert.equal(login.status, 200, 'the account created before the restart signs in');
  assert.equal(await stop(second, 'SIGINT'), 0);
});
