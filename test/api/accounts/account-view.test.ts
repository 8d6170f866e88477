// The account view's cache (ADR 25): the database versions what the view shows, a copy carries
// the version it was read at, and the cache keeps the newest version it has been told of. So a
// copy read before a change is never stored over it, and a page whose session is not cached
// reads the session and the view in one statement.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { test } from 'node:test';
import { loadAccountView } from '../../../src/domain/accounts/account-view.js';
import type { Sql } from '../../../src/domain/store.js';
import { timeOrderedTokenKey } from '../../../src/infra/crypto/tokens.js';
import { signedIn } from '../../support/accounts.js';
import { useServer } from '../../support/server.js';
import { spyOnSql } from '../../support/sql-spy.js';

const s = useServer();

async function versionOf(accountId: string): Promise<number> {
  const [row] = await s.deps.sql<{ v: number }>('SELECT view_version::float8 AS v FROM accounts WHERE id = $1', [accountId]);
  return row!.v;
}

test('the database moves the view\'s version with every change the view shows, and with no other', async () => {
  const a = await signedIn(s);
  const id = a.id;
  let v = await versionOf(id);
  const moves = async (what: string, change: () => Promise<unknown>, expected: boolean) => {
    await change();
    const now = await versionOf(id);
    assert.equal(now > v, expected, `${what}: ${v} → ${now}`);
    v = now;
  };
  await moves('the slug', () => s.deps.sql(`UPDATE accounts SET slug = $2 WHERE id = $1`, [id, `v${randomUUID().slice(0, 8)}`]), true);
  await moves('the last login', () => s.deps.sql(`UPDATE accounts SET last_login_at = now() WHERE id = $1`, [id]), true);
  await moves('the password', () => s.deps.sql(`UPDATE accounts SET password_hash = NULL WHERE id = $1`, [id]), true);
  await moves('an unshown column', () => s.deps.sql(`UPDATE accounts SET updated_at = now(), tunnel_count = tunnel_count + 1 WHERE id = $1`, [id]), false);
  await moves('a linked identity', () => s.deps.sql(`INSERT INTO linked_identities (id, account_id, provider, provider_user_id, email) VALUES ($1, $2, 'github', $1, 'x@example.com')`, [randomUUID(), id]), true);
  await moves('its removal', () => s.deps.sql(`DELETE FROM linked_identities WHERE account_id = $1`, [id]), true);
  await moves('TOTP set up', () => s.deps.sql(`INSERT INTO totp_credentials (account_id, secret) VALUES ($1, 'sealed')`, [id]), true);
  await moves('TOTP on', () => s.deps.sql(`UPDATE totp_credentials SET enabled_at = now() WHERE account_id = $1`, [id]), true);
  await moves('ten recovery codes, one statement', () => s.deps.sql(`INSERT INTO recovery_codes (id, account_id, code_hash) SELECT gen_random_uuid()::text, $1, md5(g::text) FROM generate_series(1, 10) g`, [id]), true);
  await moves('a code used', () => s.deps.sql(`UPDATE recovery_codes SET used_at = now() WHERE id = (SELECT id FROM recovery_codes WHERE account_id = $1 LIMIT 1)`, [id]), true);
  await moves('a passkey', () => s.deps.sql(
    `INSERT INTO passkeys (id, account_id, credential_id, public_key, aaguid, backup_eligible, backed_up, name) VALUES ($1, $2, $1, '\\x00', 'aa', false, false, 'key')`,
    [randomUUID(), id],
  ), true);
  await moves('a passkey\'s counter', () => s.deps.sql(`UPDATE passkeys SET counter = counter + 1 WHERE account_id = $1`, [id]), false);
  await moves('a passkey removed', () => s.deps.sql(`DELETE FROM passkeys WHERE account_id = $1`, [id]), true);
});

test('a copy read before a change is never stored over it: the next page shows the change', async () => {
  const a = await signedIn(s);
  // Cached at first, then dropped from the cache's reach by a change made elsewhere.
  assert.equal((await s.request('/api/account', { bearer: a.token })).json.slug, a.slug);
  await s.deps.sql(`UPDATE accounts SET plan = 'pro' WHERE id = $1`, [a.id]);
  await s.deps.events.emit('account.changed', { accountId: a.id });
  // A read that reaches the database, then waits while a change commits and is announced.
  let release!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  let read!: () => void;
  const readDone = new Promise<void>((r) => (read = r));
  const slow = (async <Row>(text: string, values: readonly unknown[]) => {
    const rows = await s.deps.sql<Row>(text, values);
    read();
    await gate;
    return rows;
  }) as Sql;
  const stale = loadAccountView({ sql: slow, cache: s.deps.cache }, a.id);
  await readDone;
  const renamed = `late${randomUUID().slice(0, 8)}`;
  const patch = await s.request('/api/account/slug', { method: 'PATCH', bearer: a.token, body: { slug: renamed } });
  assert.equal(patch.status, 200, patch.text);
  release();
  assert.equal((await stale)!.slug, a.slug, 'the slow read saw the account before the change');
  const after = await s.request('/api/account', { bearer: a.token });
  assert.equal(after.json.slug, renamed, 'the stale copy was not stored where the page reads');
  assert.equal(after.json.plan, 'pro');
});

test('the cache keeps the newest version it is told of: an older copy is refused, a newer one raises it', async () => {
  const key = `view:{t-${randomUUID()}}:`;
  const cache = s.deps.cache;
  await cache.raiseVersion(`${key}v`, 6, 60_000);
  assert.equal(await cache.storeVersioned(`${key}v`, key, 5, 'old', 60_000, 60_000), false);
  assert.deepEqual(await cache.getVersioned(`${key}v`, key), { version: '6', value: null });
  await cache.raiseVersion(`${key}v`, 4, 60_000);
  assert.equal((await cache.getVersioned(`${key}v`, key)).version, '6', 'never lowered');
  assert.equal(await cache.storeVersioned(`${key}v`, key, 6, 'same', 60_000, 60_000), true);
  assert.deepEqual(await cache.getVersioned(`${key}v`, key), { version: '6', value: 'same' });
  assert.equal(await cache.storeVersioned(`${key}v`, key, 9, 'newer', 60_000, 60_000), true);
  assert.deepEqual(await cache.getVersioned(`${key}v`, key), { version: '9', value: 'newer' });
});

test('a page that shows the account reads a session not cached with its view, in one statement, then neither', async () => {
  const a = await signedIn(s);
  const warm = await s.request('/api/account', { bearer: a.token });
  assert.equal(warm.status, 200);
  await s.deps.sql(`UPDATE accounts SET plan = 'team' WHERE id = $1`, [a.id]);
  await s.deps.events.emit('account.changed', { accountId: a.id });
  await s.deps.cache.del(`session:${timeOrderedTokenKey(a.token)}`);
  const spy = spyOnSql(s);
  try {
    const cold = await s.request('/api/account', { bearer: a.token });
    assert.equal(cold.status, 200);
    assert.deepEqual(cold.json, { ...warm.json, plan: 'team' });
    assert.equal(spy.statements.length, 1, spy.statements.join('\n---\n'));
    spy.reset();
    assert.deepEqual((await s.request('/api/account', { bearer: a.token })).json, cold.json);
    assert.equal(spy.statements.length, 0, 'the session and the view were both kept');
    // A list (no field of the view) reads the session alone.
    await s.deps.cache.del(`session:${timeOrderedTokenKey(a.token)}`);
    assert.equal((await s.request('/api/sessions', { bearer: a.token })).status, 200);
    assert.doesNotMatch(spy.statements.join('\n'), /JOIN accounts a ON a.id = s.account_id/);
  } finally {
    spy.restore();
  }
});

test('a deleted account\'s view is neither served nor stored again', async () => {
  const a = await signedIn(s);
  assert.equal((await s.request('/api/account', { bearer: a.token })).status, 200);
  const del = await s.request('/api/account', { method: 'DELETE', bearer: a.token, body: { email: a.email, password: a.password } });
  assert.equal(del.status, 204, del.text);
  assert.equal(await loadAccountView(s.deps, a.id), null);
  const { version, value } = await s.deps.cache.getVersioned(`view:{${a.id}}:v`, `view:{${a.id}}:`);
  assert.equal(value, null);
  assert.equal(Number(version), Number.MAX_SAFE_INTEGER);
});
