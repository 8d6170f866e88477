// The resolver's in-process layer against invalidations that arrive while a lookup is under way
// (domain/cards/resolver.ts): only one that would have dropped the lookup's answer (its host, or
// its tunnel) keeps that answer out of the layer. The database is a stand-in whose answers the
// test releases, so an invalidation can be placed exactly between a lookup's query and its answer.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import pino from 'pino';
import { CardResolver, REFRESH_AHEAD_MS, TTL } from '../../../src/domain/cards/resolver.js';
import type { Sql } from '../../../src/infra/db/client.js';
import { MemoryCache } from '../../../src/infra/cache/memory.js';

const ZONE = 'tunnels.example';
const HOST = `api--alice.${ZONE}`;
const TUNNEL_ID = 'tunnel-1';

/** A database whose every query waits until the test releases it; it answers one tunnel row for HOST (not discoverable). */
function heldDatabase(): { sql: Sql; queries: () => number; release: () => void } {
  let queries = 0;
  let waiting: (() => void)[] = [];
  const sql = (<Row>(_text: string, values: readonly unknown[]): Promise<Row[]> => {
    queries++;
    const found = values[0] === 'alice' && values[1] === 'api';
    const row = { id: TUNNEL_ID, subdomain: 'api', customDomain: null, discoverable: false, pinnedTools: null, access: 'public', slug: 'alice' };
    return new Promise<Row[]>((resolve) => waiting.push(() => resolve(found ? [row as Row] : [])));
  }) as Sql;
  return {
    sql,
    queries: () => queries,
    release: () => {
      const now = waiting;
      waiting = [];
      for (const go of now) go();
    },
  };
}

function resolverOn(sql: Sql, clock: () => Date = () => new Date()): CardResolver {
  return new CardResolver({
    sql,
    cache: new MemoryCache(),
    clock,
    logger: pino({ level: 'silent' }),
    config: { zone: ZONE, serviceName: 'Tunnels', cardSchemaUrl: 'https://example.com/schema.json', baseUrl: 'https://api.example.com' },
  });
}

/** Starts a lookup of `host`, lets `during` run while its query is held, then lets it finish. */
async function lookUpAcross(resolver: CardResolver, db: ReturnType<typeof heldDatabase>, host: string, during: () => Promise<void>) {
  const pending = resolver.resolve(host);
  await new Promise((r) => setImmediate(r));
  assert.equal(db.queries() > 0, true, 'the lookup reached the database');
  await during();
  db.release();
  return pending;
}

test('a lookup fills the in-process layer when the invalidations during it concern other hosts and tunnels', async () => {
  const db = heldDatabase();
  const resolver = resolverOn(db.sql);
  const r = await lookUpAcross(resolver, db, HOST, () => resolver.invalidate([`web--bob.${ZONE}`, 'cards.example.org'], ['tunnel-2']));
  assert.deepEqual(r, { kind: 'none', tunnelId: TUNNEL_ID, prm: null });
  assert.deepEqual(resolver.peek(HOST), { kind: 'none', tunnelId: TUNNEL_ID, prm: null }, 'answered in process from now on');
});

test('an invalidation of the looked-up host during the lookup keeps its answer out of the in-process layer', async () => {
  const db = heldDatabase();
  const resolver = resolverOn(db.sql);
  await lookUpAcross(resolver, db, HOST, () => resolver.invalidate([HOST], []));
  assert.equal(resolver.peek(HOST), undefined);
  const before = db.queries();
  const again = resolver.resolve(HOST);
  await new Promise((r) => setImmediate(r));
  assert.equal(db.queries(), before + 1, 'the next request asks the database again');
  db.release();
  await again;
  assert.deepEqual(resolver.peek(HOST), { kind: 'none', tunnelId: TUNNEL_ID, prm: null });
});

test('an invalidation of the tunnel the lookup finds (by id, without its host) keeps the answer out too', async () => {
  const db = heldDatabase();
  const resolver = resolverOn(db.sql);
  await lookUpAcross(resolver, db, HOST, () => resolver.invalidate([], [TUNNEL_ID]));
  assert.equal(resolver.peek(HOST), undefined);
});

test('an unknown host is kept out by an invalidation naming it (a tunnel just created on it)', async () => {
  const db = heldDatabase();
  const resolver = resolverOn(db.sql);
  const host = `new--carol.${ZONE}`;
  const r = await lookUpAcross(resolver, db, host, () => resolver.invalidate([host], ['tunnel-3']));
  assert.deepEqual(r, { kind: 'none', tunnelId: null, prm: null });
  assert.equal(resolver.peek(host), undefined);
});

test('a lookup that outlives the invalidations kept in memory does not fill the in-process layer', async () => {
  const db = heldDatabase();
  const resolver = resolverOn(db.sql);
  await lookUpAcross(resolver, db, HOST, async () => {
    // More unrelated invalidations than the resolver keeps: the oldest, possibly about this host, are gone.
    for (let i = 0; i < 600; i++) await resolver.invalidate([`h${i}--someone.${ZONE}`], []);
  });
  assert.equal(resolver.peek(HOST), undefined);
});

test('peek remembers its last answer only while it stands: an invalidation, another fill or the expiry ends it', async () => {
  const db = heldDatabase();
  let now = Date.parse('2026-11-26T12:00:00Z');
  const resolver = resolverOn(db.sql, () => new Date(now));
  const unknown = `nobody--no-one.${ZONE}`;
  const fill = async (host: string) => {
    const pending = resolver.resolve(host);
    await new Promise((r) => setImmediate(r));
    db.release();
    return pending;
  };
  await fill(HOST);
  await fill(unknown);
  const tunnel = { kind: 'none', tunnelId: TUNNEL_ID, prm: null };
  const none = { kind: 'none', tunnelId: null, prm: null };
  // Asked twice in a row (the second answer is the remembered one), then the other host.
  assert.deepEqual(resolver.peek(HOST), tunnel);
  assert.deepEqual(resolver.peek(HOST), tunnel);
  assert.deepEqual(resolver.peek(unknown), none);
  assert.deepEqual(resolver.peek(HOST), tunnel);
  // An invalidation of the remembered host: gone at once.
  await resolver.invalidate([HOST], []);
  assert.equal(resolver.peek(HOST), undefined);
  // By tunnel id, right after the answer was remembered again.
  await fill(HOST);
  assert.deepEqual(resolver.peek(HOST), tunnel);
  await resolver.invalidate([], [TUNNEL_ID]);
  assert.equal(resolver.peek(HOST), undefined);
  // The remembered unknown host expires with its entry (30 s), not later.
  assert.deepEqual(resolver.peek(unknown), none);
  now += 29_999;
  assert.deepEqual(resolver.peek(unknown), none);
  now += 1;
  assert.equal(resolver.peek(unknown), undefined);
});

test('an entry asked for in its last 5 s is reloaded in the background and served meanwhile, so demand never waits for it', async () => {
  const db = heldDatabase();
  let now = Date.parse('2026-11-26T12:00:00Z');
  const resolver = resolverOn(db.sql, () => new Date(now));
  const unknown = `nobody--no-one.${ZONE}`;
  const none = { kind: 'none', tunnelId: null, prm: null };
  const first = resolver.resolve(unknown);
  await new Promise((r) => setImmediate(r));
  db.release();
  await first;
  assert.equal(db.queries(), 1);
  // Asked before its last REFRESH_AHEAD_MS: served, nothing reloaded.
  now += TTL.unknownMs - REFRESH_AHEAD_MS - 1;
  assert.deepEqual(resolver.peek(unknown), none);
  await new Promise((r) => setImmediate(r));
  assert.equal(db.queries(), 1);
  // In its last 5 s: still served at once, one reload starts, and further requests join it.
  now += 1;
  assert.deepEqual(resolver.peek(unknown), none);
  assert.deepEqual(resolver.peek(unknown), none);
  await new Promise((r) => setImmediate(r));
  assert.equal(db.queries(), 2);
  db.release();
  await new Promise((r) => setImmediate(r));
  // Past the old entry's expiry the reloaded one answers, with no lookup on the way.
  now += REFRESH_AHEAD_MS;
  assert.deepEqual(resolver.peek(unknown), none);
  await new Promise((r) => setImmediate(r));
  assert.equal(db.queries(), 2);
});

test('a reload ahead of expiry that fails is not retried; the entry is served until its expiry, and not after', async () => {
  let now = Date.parse('2026-11-26T12:00:00Z');
  let queries = 0;
  const sql = (<Row>(): Promise<Row[]> => (++queries === 1 ? Promise.resolve([]) : Promise.reject(new Error('connection refused')))) as Sql;
  const warnings: string[] = [];
  const resolver = new CardResolver({
    sql,
    cache: new MemoryCache(),
    clock: () => new Date(now),
    logger: pino({ level: 'warn' }, { write: (line: string) => void warnings.push(JSON.parse(line).msg) }),
    config: { zone: ZONE, serviceName: 'Tunnels', cardSchemaUrl: 'https://example.com/schema.json', baseUrl: 'https://api.example.com' },
  });
  const unknown = `nobody--no-one.${ZONE}`;
  await resolver.resolve(unknown);
  now += TTL.unknownMs - 1;
  assert.deepEqual(resolver.peek(unknown), { kind: 'none', tunnelId: null, prm: null });
  await new Promise((r) => setImmediate(r));
  assert.equal(queries, 2);
  assert.deepEqual(warnings, ['card reload ahead of expiry failed']);
  // One attempt per entry: the next requests are served without trying again.
  assert.deepEqual(resolver.peek(unknown), { kind: 'none', tunnelId: null, prm: null });
  await new Promise((r) => setImmediate(r));
  assert.equal(queries, 2);
  now += 1;
  assert.equal(resolver.peek(unknown), undefined);
});
