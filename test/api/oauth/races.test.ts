// API.md section 13a, "Once means once, even at the same moment", on one instance: exchanges of
// one authorization code and refreshes with one refresh token released together
// (test/support/oauth-races.ts; test/scale/oauth-scale.test.ts runs the same across two
// instances), what a refresh token presented again later or by another client gets, and client
// metadata documents fetched once per client URL at a time. Each race runs a few rounds, so a
// race that is lost only sometimes still shows.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createServer, type Server as HttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { after, before, test } from 'node:test';
import { Redis } from 'ioredis';
import { hashToken } from '../../../src/infra/crypto/tokens.js';
import { REFRESH_GRACE_MS } from '../../../src/adapters/authorization-server/refresh-rotation.js';
import { fromIp, randomIp } from '../../support/accounts.js';
import { useServer, type Server } from '../../support/server.js';
import { createTunnel } from '../../support/tunnels.js';
import { form, pkce, REDIRECT, register } from '../../support/oauth.js';
import {
  approvedCode,
  assertGrantGone,
  assertIntrospects,
  assertRefreshRefused,
  grantIdOf,
  person,
  raceCodeExchange,
  raceRefresh,
  refreshRequest,
  type RaceSetting,
} from '../../support/oauth-races.js';

const TLS = new URL('../../fixtures/tls/', import.meta.url);
const CA_FILE = fileURLToPath(new URL('localhost-cert.pem', TLS));
const ZONE = 'tunnels.example.test';
const INTERNAL = 'internal-test-token-0123456789abcdef';
const s = useServer(() => ({
  env: { ZONE, TRUST_PROXY: 'true', INTERNAL_API_TOKEN: INTERNAL, OAUTH_ALLOW_PRIVATE_CLIENT_URLS: 'true', OAUTH_CLIENT_URLS_CA_FILE: CA_FILE },
}));
const setting = (): RaceSetting => ({ setup: s, targets: [s], internalToken: INTERNAL });
const ROUNDS = 4;

for (const n of [2, 5]) {
  test(`${n} exchanges of one code at the same moment: one gets tokens, the others invalid_grant, and what it got is revoked`, async () => {
    const owner = await person(s);
    for (let round = 0; round < ROUNDS; round++) await raceCodeExchange(setting(), owner, n);
  });

  test(`${n} refreshes with one refresh token at the same moment by its client: one successor, no fork; the original afterwards is reuse`, async () => {
    const owner = await person(s);
    for (let round = 0; round < ROUNDS; round++) await raceRefresh(setting(), owner, n);
  });
}

/** A code exchanged, its refresh token rotated once: the original, its successor and the access tokens. */
async function rotatedOnce(server: Server) {
  const owner = await person(server);
  const { exchange, clientId } = await approvedCode(server, owner);
  const first = await form(server, '/oauth/token', exchange);
  assert.equal(first.status, 200, first.text);
  const rotated = await form(server, '/oauth/token', refreshRequest(first.json.refresh_token, clientId));
  assert.equal(rotated.status, 200, rotated.text);
  return { clientId, original: first.json.refresh_token as string, successor: rotated.json.refresh_token as string, grantId: grantIdOf(first.json.access_token), accessTokens: [first.json.access_token as string, rotated.json.access_token as string] };
}

test('a rotated refresh token presented by another client, even at once: invalid_grant, never the successor', async () => {
  const { clientId, original, successor } = await rotatedOnce(s);
  const other = await register(s);
  await assertRefreshRefused(s, original, other.client_id, 'another client, within 60 s');
  // Presented by that other client with the owner's racing too: the other client never gets the successor.
  const both = await Promise.all([form(s, '/oauth/token', refreshRequest(original, other.client_id)), form(s, '/oauth/token', refreshRequest(original, clientId))]);
  assert.equal(both[0].json.error, 'invalid_grant', both[0].text);
  assert.equal(both[0].json.refresh_token, undefined);
  // (As test/api/oauth/authorization-code.test.ts has it: another client's presentation is
  // refused as a client mismatch before anything else; it does not revoke the grant.)
  assert.equal(both[1].status, 200, both[1].text);
  assert.equal(both[1].json.refresh_token, successor);
});

/**
 * The remembered rotation lives in the shared cache with a real 60 s TTL (refresh-rotation.ts,
 * REFRESH_GRACE_MS): the test clock does not move it (the memory cache reads Date.now, Redis its
 * own clock, and the provider checks tokens on the real clock too). So the test reads the TTL the
 * rotation was stored with, then does what the TTL does at 60 s: the entry goes.
 */
test('a rotated refresh token presented again after 60 s by its client: reuse, the whole grant revoked', async () => {
  const { clientId, original, successor, grantId, accessTokens } = await rotatedOnce(s);
  assert.equal(REFRESH_GRACE_MS, 60_000);
  const key = `oauth:rt:next:${hashToken(original)}`;
  assert.notEqual(await s.deps.cache.get(key), null, 'the rotation is remembered');
  const ttl = await ttlOf(s, key);
  assert.ok(ttl > 55_000 && ttl <= 60_000, `remembered for 60 s (${ttl} ms left)`);
  await s.deps.cache.del(key); // 60 s later
  await assertRefreshRefused(s, original, clientId, 'the original, 60 s after its rotation');
  await assertRefreshRefused(s, successor, clientId, 'its successor, the grant revoked');
  for (const token of accessTokens) await assertIntrospects(setting(), token, false, 'an access token of the revoked grant');
  await assertGrantGone(setting(), grantId, 'reuse after 60 s');
});

/** Milliseconds the cache keeps `key`: Redis's PTTL, or the memory cache's own entry. */
async function ttlOf(server: Server, key: string): Promise<number> {
  if (server.deps.cache.kind === 'memory') {
    const entries = (server.deps.cache as unknown as { entries: Map<string, { expiresAt: number }> }).entries;
    return entries.get(key)!.expiresAt - Date.now();
  }
  const redis = new Redis(process.env.REDIS_URL!, { lazyConnect: true });
  try {
    await redis.connect();
    return await redis.pttl(key);
  } finally {
    redis.disconnect();
  }
}

// Client ID metadata documents (section 13a: "fetched at most once per client URL at a time"): a
// document server on loopback, with the test CA, that answers after 300 ms and counts requests.
let docs: HttpsServer;
let docsPort = 0;
const fetchedPaths = new Map<string, number>();
const DOCUMENT_DELAY_MS = 300;

before(async () => {
  docs = createServer({ cert: readFileSync(CA_FILE), key: readFileSync(new URL('localhost-key.pem', TLS)) }, (req, res) => {
    const path = req.url ?? '';
    fetchedPaths.set(path, (fetchedPaths.get(path) ?? 0) + 1);
    const clientId = `https://localhost:${docsPort}${path}`;
    const doc = { client_id: clientId, client_name: 'Slow Document', redirect_uris: [REDIRECT], token_endpoint_auth_method: 'none', grant_types: ['authorization_code', 'refresh_token'], response_types: ['code'] };
    setTimeout(() => {
      res.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'max-age=60' });
      res.end(JSON.stringify(doc));
    }, DOCUMENT_DELAY_MS);
  });
  await new Promise<void>((r) => docs.listen(0, '127.0.0.1', r));
  docsPort = (docs.address() as AddressInfo).port;
});
after(() => new Promise((r) => docs.close(r)));

test('5 authorization requests of one metadata-document client at once: the document is fetched once', async () => {
  const owner = await person(s);
  const tunnel = await createTunnel(s, owner, { access: 'oauth' });
  const resource = `https://${tunnel.host}/mcp`;
  for (let round = 0; round < ROUNDS; round++) {
    // A URL of its own each round: the provider caches a fetched document (max-age).
    const path = `/apps/slow-${round}-${Date.now().toString(36)}.json`;
    const clientId = `https://localhost:${docsPort}${path}`;
    const requests = Array.from({ length: 5 }, () => {
      const q = new URLSearchParams({ response_type: 'code', client_id: clientId, redirect_uri: REDIRECT, code_challenge: pkce().challenge, code_challenge_method: 'S256', state: 'st', scope: 'mcp', resource });
      // Each from a network of its own: /oauth/authorize is limited per network.
      return s.request(`/oauth/authorize?${q}`, { headers: fromIp(randomIp()) });
    });
    const answers = await Promise.all(requests);
    for (const r of answers) assert.equal(r.status, 302, `${r.status} ${r.text}`);
    for (const r of answers) assert.match(String(r.headers.location), /\/oauth\/consent\?request=/);
    assert.equal(fetchedPaths.get(path), 1, `the document server saw ${fetchedPaths.get(path)} requests for ${path}`);
  }
});
