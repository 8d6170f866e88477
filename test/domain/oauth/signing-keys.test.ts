// The authorization server's signing keys (API.md section 13): one key signs; its successor is
// published a day before it signs; the predecessor stays published two days after, so a token
// signed before a rotation still verifies against the JWKS after it; private halves are sealed;
// instances racing to rotate make one key.
// On a real PostgreSQL this file works on a fresh database of its own (every other server of the
// run signs with the shared keys, which this file's moved clock would rotate away under them);
// embedded, each file has its own database anyway. It empties the key table first.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createLocalJWKSet, importJWK, jwtVerify, SignJWT } from 'jose';
import { ensureSigningKeys, jwksOf, KEY_PUBLISH_AHEAD_MS, KEY_RETAIN_MS, KEY_ROTATION_MS, type KeySet } from '../../../src/domain/oauth/signing-keys.js';
import { useFixture } from '../../support/fixture.js';
import { freshDatabase, type FreshDatabase } from '../../support/scale.js';
import { startTestServer, type TestServer } from '../../support/server.js';

const world = useFixture(
  async (): Promise<{ server: TestServer; db: FreshDatabase | null }> => {
    const db = process.env.DATABASE_URL ? await freshDatabase(process.env.DATABASE_URL, 't_keys') : null;
    return { server: await startTestServer(db ? { env: { DATABASE_URL: db.url } } : {}), db };
  },
  async ({ server, db }) => {
    await server.close();
    await db?.drop();
  },
);
const s = {
  get deps() {
    return world().server.deps;
  },
  get clock() {
    return world().server.clock;
  },
};
const MINUTE = 60_000;

async function sign(set: KeySet): Promise<string> {
  const key = await importJWK(set.signing.privateJwk, 'ES256');
  const now = Math.floor(s.clock.now().getTime() / 1000);
  return new SignJWT({ scope: 'mcp' }).setProtectedHeader({ alg: 'ES256', kid: set.signing.kid, typ: 'at+jwt' }).setIssuedAt(now).setExpirationTime(now + 3600).sign(key);
}

const verifies = async (token: string, set: KeySet) => {
  try {
    await jwtVerify(token, createLocalJWKSet(jwksOf(set)), { currentDate: s.clock.now() });
    return true;
  } catch {
    return false;
  }
};

test('the first call makes one signing key; later calls use it; only its public half is published, the private one is sealed', async () => {
  await s.deps.db.oAuthSigningKey.deleteMany({});
  const [a, b] = await Promise.all([ensureSigningKeys(s.deps), ensureSigningKeys(s.deps)]);
  assert.equal(a.signing.kid, b.signing.kid, 'instances racing at start make one key');
  assert.equal(await s.deps.db.oAuthSigningKey.count(), 1);
  assert.equal((await ensureSigningKeys(s.deps)).signing.kid, a.signing.kid);
  assert.equal(a.signing.alg, 'ES256');
  const jwks = jwksOf(a);
  assert.deepEqual(Object.keys(jwks.keys[0]!).sort(), ['alg', 'crv', 'kid', 'kty', 'use', 'x', 'y']);
  const row = await s.deps.db.oAuthSigningKey.findUniqueOrThrow({ where: { kid: a.signing.kid } });
  assert.match(row.privateJwk, /^enc:v1:/);
  assert.ok(!row.privateJwk.includes(String(a.signing.privateJwk.d)), 'the private scalar is not stored in the clear');
  assert.equal(await verifies(await sign(a), a), true);
});

test('rotation: the successor is published a day ahead, signs after 30 days, and the old key verifies for two more days', async () => {
  const first = await ensureSigningKeys(s.deps);
  const token = await sign(first);
  const from = first.signing.activeFrom.getTime();
  // Not yet due: no successor.
  s.clock.advance(from + KEY_ROTATION_MS - KEY_PUBLISH_AHEAD_MS - MINUTE - s.clock.now().getTime());
  assert.equal((await ensureSigningKeys(s.deps)).published.length, 1);
  // A day before the switch: the successor is published, the first key still signs.
  s.clock.advance(2 * MINUTE);
  const madeAt = s.clock.now().getTime();
  const ahead = await ensureSigningKeys(s.deps);
  assert.equal(ahead.signing.kid, first.signing.kid);
  assert.equal(ahead.published.length, 2);
  const successor = ahead.published[1]!;
  // Due 30 days after the first, and never published less than a day before it signs.
  assert.ok(successor.activeFrom.getTime() >= from + KEY_ROTATION_MS);
  assert.ok(successor.activeFrom.getTime() - madeAt >= KEY_PUBLISH_AHEAD_MS);
  assert.ok(successor.activeFrom.getTime() - madeAt < KEY_PUBLISH_AHEAD_MS + 5 * MINUTE);
  // The switch: the successor signs; a token the first key signed still verifies.
  s.clock.advance(successor.activeFrom.getTime() - s.clock.now().getTime());
  const switched = await ensureSigningKeys(s.deps);
  assert.equal(switched.signing.kid, successor.kid);
  assert.deepEqual(switched.published.map((k) => k.kid), [successor.kid, first.signing.kid]);
  const fresh = await sign(switched);
  assert.equal(await verifies(fresh, switched), true);
  const jwks = createLocalJWKSet(jwksOf(switched));
  await assert.doesNotReject(jwtVerify(token, jwks, { currentDate: new Date(from + 30 * MINUTE) }), 'signed before the rotation, verified after it');
  // A key that was never published does not verify: the JWKS is what decides.
  await assert.rejects(jwtVerify(token, createLocalJWKSet({ keys: [successor.publicJwk] }), { currentDate: new Date(from + 30 * MINUTE) }));
  // Two days on, the old key is gone.
  s.clock.advance(KEY_RETAIN_MS - MINUTE);
  assert.equal((await ensureSigningKeys(s.deps)).published.length, 2, 'still published just before');
  s.clock.advance(2 * MINUTE);
  const later = await ensureSigningKeys(s.deps);
  assert.deepEqual(later.published.map((k) => k.kid), [successor.kid]);
  assert.equal(await s.deps.db.oAuthSigningKey.count({ where: { kid: first.signing.kid } }), 0);
});

test('instances racing at a rotation make one successor', async () => {
  const now = await ensureSigningKeys(s.deps);
  s.clock.advance(now.signing.activeFrom.getTime() + KEY_ROTATION_MS - KEY_PUBLISH_AHEAD_MS + MINUTE - s.clock.now().getTime());
  const sets = await Promise.all(Array.from({ length: 5 }, () => ensureSigningKeys(s.deps)));
  assert.equal(new Set(sets.map((x) => x.published.map((k) => k.kid).join())).size, 1, 'every instance sees the same keys');
  assert.equal(sets[0]!.published.length, 2);
  assert.equal(await s.deps.db.oAuthSigningKey.count({ where: { activeFrom: { gt: s.clock.now() } } }), 1);
});
