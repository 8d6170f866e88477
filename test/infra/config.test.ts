// Configuration (API.md section 1): a bad value stops start-up with one clear line naming the
// variable; loadConfig applies the documented defaults.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { ConfigError, loadConfig } from '../../src/infra/config.js';

test('loadConfig applies the documented defaults', () => {
  const c = loadConfig({});
  assert.equal(c.port, 4000);
  assert.equal(c.host, '0.0.0.0');
  assert.equal(c.databaseUrl, null);
  assert.equal(c.redisUrl, null);
  assert.equal(c.smtpUrl, null);
  assert.equal(c.mailFrom, 'Tunnel Service <no-reply@localhost>');
  assert.equal(c.baseUrl, 'http://localhost:4000');
  assert.equal(c.appUrl, c.baseUrl);
  assert.equal(c.zone, 'tunnels.localhost');
  assert.equal(c.apiHealthUrl, 'http://127.0.0.1:4000/healthz');
  assert.equal(c.trustProxy, false);
  assert.deepEqual([...c.allowedOrigins], ['http://localhost:4000']);
  assert.equal(c.secureCookies, false);
  assert.equal(c.google, null);
  assert.equal(c.github, null);
  assert.equal(c.internalApiToken, null);
  assert.equal(c.metricsToken, null);
  assert.equal(c.serviceName, 'Tunnel Service');
});

test('loadConfig derives APP_URL, ALLOWED_ORIGINS and secure cookies from BASE_URL and APP_URL', () => {
  const c = loadConfig({ PORT: '8080', BASE_URL: 'https://api.example.com/', APP_URL: 'https://app.example.com/dash', TRUST_PROXY: 'true' });
  assert.equal(c.port, 8080);
  assert.equal(c.baseUrl, 'https://api.example.com');
  assert.equal(c.appUrl, 'https://app.example.com/dash');
  assert.deepEqual([...c.allowedOrigins], ['https://app.example.com']);
  assert.equal(c.secureCookies, true);
  assert.equal(c.trustProxy, 1, 'TRUST_PROXY=true is one hop');
  const listed = loadConfig({ ALLOWED_ORIGINS: 'https://a.example.com, https://b.example.com' });
  assert.deepEqual([...listed.allowedOrigins].sort(), ['https://a.example.com', 'https://b.example.com']);
});

test('loadConfig treats empty strings as unset', () => {
  const c = loadConfig({ PORT: '', DATABASE_URL: '', REDIS_URL: '' });
  assert.equal(c.port, 4000);
  assert.equal(c.databaseUrl, null);
  assert.equal(c.redisUrl, null);
});

const BAD: [Record<string, string>, string][] = [
  [{ PORT: 'abc' }, 'PORT'],
  [{ PORT: '70000' }, 'PORT'],
  [{ PORT: '-1' }, 'PORT'],
  [{ DATABASE_URL: 'not a url' }, 'DATABASE_URL'],
  [{ REDIS_URL: '::::' }, 'REDIS_URL'],
  [{ SMTP_URL: 'smtp//missing-colon' }, 'SMTP_URL'],
  [{ BASE_URL: 'http//api.example.com' }, 'BASE_URL'],
  [{ APP_URL: 'nope' }, 'APP_URL'],
  [{ BASE_URL: 'localhost:4000' }, 'BASE_URL'],
  [{ DATABASE_URL: 'http://db.example.com/tunnels' }, 'DATABASE_URL'],
  [{ REDIS_URL: 'localhost:6379' }, 'REDIS_URL'],
  [{ DATABASE_PREPARED_STATEMENTS: 'sometimes' }, 'DATABASE_PREPARED_STATEMENTS'],
  [{ SMTP_URL: 'mail.example.com:25' }, 'SMTP_URL'],
  [{ TRUST_PROXY: 'yes please' }, 'TRUST_PROXY'],
  [{ ALLOWED_ORIGINS: 'not an origin' }, 'ALLOWED_ORIGINS'],
  [{ ZONE: 'bad zone!' }, 'ZONE'],
  [{ GOOGLE_CLIENT_ID: 'only-the-id' }, 'GOOGLE_CLIENT'],
];

test('hot statements are prepared unless a transaction pooler is declared, or as DATABASE_PREPARED_STATEMENTS says', () => {
  assert.equal(loadConfig({}).databasePreparedStatements, true);
  const pooled = { DATABASE_URL: 'postgresql://u@bouncer:6432/db', DATABASE_DIRECT_URL: 'postgresql://u@db:5432/db' };
  assert.equal(loadConfig(pooled).databasePreparedStatements, false);
  assert.equal(loadConfig({ ...pooled, DATABASE_PREPARED_STATEMENTS: 'true' }).databasePreparedStatements, true, 'PgBouncer 1.21+ with max_prepared_statements');
  assert.equal(loadConfig({ DATABASE_PREPARED_STATEMENTS: 'false' }).databasePreparedStatements, false);
});

test('loadConfig refuses each bad value with a ConfigError naming the variable', () => {
  for (const [env, name] of BAD) {
    assert.throws(
      () => loadConfig(env),
      (err: unknown) => err instanceof ConfigError && err.message.includes(name) && !err.message.includes('\n'),
      JSON.stringify(env),
    );
  }
});

function startMain(env: Record<string, string>): Promise<{ code: number | null; stderr: string; stdout: string }> {
  const dataDir = mkdtempSync(join(tmpdir(), 'cfg-test-'));
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
      env: { PATH: process.env.PATH ?? '', DATA_DIR: dataDir, LOG_LEVEL: 'silent', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    let stdout = '';
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`src/main.ts kept running with ${JSON.stringify(env)}`));
    }, 30_000);
    child.on('exit', (code) => {
      clearTimeout(timer);
      rmSync(dataDir, { recursive: true, force: true });
      resolve({ code, stderr, stdout });
    });
  });
}

for (const [env, name] of [
  [{ PORT: 'eighty' }, 'PORT'],
  [{ DATABASE_URL: 'definitely not a url' }, 'DATABASE_URL'],
] as const) {
  test(`start-up with a bad ${name} exits non-zero with one line on stderr naming it`, async () => {
    const { code, stderr } = await startMain(env);
    assert.notEqual(code, 0);
    const lines = stderr.split('\n').filter((l) => l.trim() !== '' && !l.startsWith('npm warn'));
    assert.equal(lines.length, 1, `stderr: ${stderr}`);
    assert.match(lines[0]!, new RegExp(name));
  });
}
