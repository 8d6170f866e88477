// What production (NODE_ENV=production) exposes: no GraphQL introspection unless
// GRAPHQL_INTROSPECTION=true, no /metrics on the public port unless METRICS_TOKEN is set,
// METRICS_PORT serving it on its own listener instead, and no start without ENCRYPTION_KEY.
// The embedded database is reachable by this process only (a socket in a private directory).
import assert from 'node:assert/strict';
import { statSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { test } from 'node:test';
import { ConfigError, loadConfig } from '../../src/infra/config.js';
import { gql, gqlCode } from '../support/graphql.js';
import { startTestServer, type TestServer } from '../support/server.js';

const INTROSPECTION = '{ __schema { queryType { name } } }';

async function withServer(env: Record<string, string | undefined>, run: (s: TestServer) => Promise<void>): Promise<void> {
  const s = await startTestServer({ env });
  try {
    await run(s);
  } finally {
    await s.close();
  }
}

function get(port: number, path: string, headers: Record<string, string> = {}): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port, path, headers }, (res) => {
      let text = '';
      res.on('data', (c: Buffer) => (text += c.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
    });
    req.on('error', reject);
    req.end();
  });
}

test('production refuses to start without ENCRYPTION_KEY, and refuses a key that is not 32 bytes', () => {
  assert.throws(() => loadConfig({ NODE_ENV: 'production' }), (e: unknown) => e instanceof ConfigError && /ENCRYPTION_KEY/.test(e.message));
  assert.throws(
    () => loadConfig({ NODE_ENV: 'production', ENCRYPTION_KEY: Buffer.alloc(16).toString('base64') }),
    (e: unknown) => e instanceof ConfigError && /ENCRYPTION_KEY/.test(e.message),
  );
  assert.equal(loadConfig({ NODE_ENV: 'production', ENCRYPTION_KEY: Buffer.alloc(32, 1).toString('base64') }).encryptionKey?.length, 32);
});

/** A secret as an operator makes one (openssl rand -hex 32). */
const METRICS_SECRET = '4f0c1e9a7b2d48c6a1f3e5d7b9c0a2e4f6b8d0c2a4e6f8b0d2c4e6a8f0b2d4c6';

test('production refuses a short or placeholder INTERNAL_API_TOKEN or METRICS_TOKEN, naming the variable in one line', () => {
  const base = { NODE_ENV: 'production', ENCRYPTION_KEY: Buffer.alloc(32, 1).toString('base64') };
  const refused = [
    'CHANGE_ME',
    'changeme',
    'secret',
    'a-real-looking-but-short-token',
    'CHANGE_ME_CHANGE_ME_CHANGE_ME_CHANGE_ME',
    'secretsecretsecretsecretsecretsecret',
    'x'.repeat(40),
    'replace-me-with-a-long-random-string-please',
  ];
  for (const name of ['INTERNAL_API_TOKEN', 'METRICS_TOKEN']) {
    for (const value of refused) {
      assert.throws(
        () => loadConfig({ ...base, [name]: value }),
        (e: unknown) => e instanceof ConfigError && e.message.startsWith(`${name} `) && !e.message.includes('\n') && !e.message.includes(value),
        `${name}=${value}`,
      );
    }
    assert.equal(loadConfig({ ...base, [name]: METRICS_SECRET })[name === 'METRICS_TOKEN' ? 'metricsToken' : 'internalApiToken'], METRICS_SECRET);
    // Outside production the development values stay allowed.
    assert.equal(loadConfig({ [name]: 'CHANGE_ME' })[name === 'METRICS_TOKEN' ? 'metricsToken' : 'internalApiToken'], 'CHANGE_ME');
  }
});

test('in production GraphQL introspection is off, unless GRAPHQL_INTROSPECTION=true', async () => {
  await withServer({ NODE_ENV: 'production' }, async (s) => {
    const r = await gql(s, INTROSPECTION);
    assert.equal(gqlCode(r), 'BAD_REQUEST', r.text);
    assert.equal(r.json.data, undefined);
    assert.equal(gqlCode(await gql(s, '{ me { email } }')), null, 'ordinary queries still run');
  });
  await withServer({ NODE_ENV: 'production', GRAPHQL_INTROSPECTION: 'true' }, async (s) => {
    const r = await gql(s, INTROSPECTION);
    assert.equal(r.json.data.__schema.queryType.name, 'Query');
  });
  await withServer({}, async (s) => {
    assert.equal((await gql(s, INTROSPECTION)).json.data.__schema.queryType.name, 'Query', 'on by default outside production');
  });
});

test('in production /metrics is not on the public port without METRICS_TOKEN; with it, it needs the bearer', async () => {
  await withServer({ NODE_ENV: 'production' }, async (s) => {
    assert.equal((await s.request('/metrics')).status, 404);
  });
  await withServer({ NODE_ENV: 'production', METRICS_TOKEN: METRICS_SECRET }, async (s) => {
    assert.equal((await s.request('/metrics')).status, 401);
    const ok = await s.request('/metrics', { bearer: METRICS_SECRET });
    assert.equal(ok.status, 200);
    assert.match(ok.text, /http_request_duration_seconds/);
  });
});

test('METRICS_PORT serves /metrics on its own listener and takes it off the public port', async () => {
  await withServer({ NODE_ENV: 'production', METRICS_PORT: '0' }, async (s) => {
    assert.equal((await s.request('/metrics')).status, 404);
    const server = s.app.metricsServer;
    assert.ok(server?.listening);
    const port = (server.address() as AddressInfo).port;
    const r = await get(port, '/metrics');
    assert.equal(r.status, 200);
    assert.match(r.text, /http_request_duration_seconds/);
    assert.equal((await get(port, '/status')).status, 404);
  });
});

test(
  'the embedded database listens on a socket in a directory only this user can enter, never on a TCP port',
  { skip: process.env.DATABASE_URL ? 'runs on the embedded database (DATABASE_URL is set)' : false },
  async () => {
    await withServer({}, async (s) => {
      const url = new URL(s.deps.database.url);
      const socketDir = url.searchParams.get('host') ?? '';
      assert.ok(socketDir.startsWith('/'), s.deps.database.url);
      assert.equal(statSync(socketDir).mode & 0o777, 0o700);
      assert.ok(statSync(`${socketDir}/.s.PGSQL.5432`).isSocket());
    });
  },
);
