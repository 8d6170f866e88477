// A password login's cache writes after its commit (src/domain/accounts/login.ts,
// sessions/sign-in.ts): the sign-in limits' settlement and the account view's invalidation leave
// together, after the sign-in statement, so that their replies come back in one read; and the
// limits are settled even when the sign-in cannot commit.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import pino from 'pino';
import { wireAccountView } from '../../../src/domain/accounts/account-view.js';
import { login } from '../../../src/domain/accounts/login.js';
import { DomainEvents } from '../../../src/domain/events.js';
import { PasswordHasher } from '../../../src/domain/passwords/password.js';
import type { Sql } from '../../../src/domain/store.js';
import { MemoryCache } from '../../../src/infra/cache/memory.js';
import { OwnerTunnelLists } from '../../../src/domain/tunnels/owner-lists.js';

const PASSWORD = 'correct horse battery';
const EMAIL = 'round-trips@example.com';
const ACCOUNT_ID = '0192f0c4-1111-7000-8000-000000000001';
const passwords = new PasswordHasher();
const passwordHash = await passwords.hash(PASSWORD);

/** Every cache command in order, with how many commands had been answered when it was sent. */
interface Sent {
  command: string;
  answeredBefore: number;
}

/** The memory cache, answering each command in a later turn of the event loop, as a server would. */
class RecordingCache extends MemoryCache {
  readonly sent: Sent[] = [];
  private answered = 0;

  private record<T>(command: string, op: () => Promise<T>): Promise<T> {
    this.sent.push({ command, answeredBefore: this.answered });
    const result = op();
    return new Promise<T>((resolve, reject) =>
      setImmediate(() => {
        this.answered++;
        result.then(resolve, reject);
      }),
    );
  }

  override hitMany(counters: readonly { key: string; windowMs: number }[]) {
    return this.record('hitMany', () => super.hitMany(counters));
  }

  override settleCounters(unhit: readonly string[], del: readonly string[]) {
    return this.record('settleCounters', () => super.settleCounters(unhit, del));
  }

  override raiseVersion(versionKey: string, version: number, ttlMs: number) {
    return this.record('raiseVersion', () => super.raiseVersion(versionKey, version, ttlMs));
  }
}

function setup(signIn: () => Promise<unknown[]>) {
  const cache = new RecordingCache();
  const events = new DomainEvents(pino({ level: 'silent' }));
  const order: string[] = [];
  const sql = (async (text: string) => {
    if (text.includes('FROM accounts a WHERE a.email_normalized')) {
      return [{ id: ACCOUNT_ID, email: EMAIL, emailVerified: true, passwordHash, knownNetwork: true, twoStep: false }];
    }
    if (text.includes('INSERT INTO sessions')) {
      order.push('sign-in statement');
      return signIn();
    }
    throw new Error(`unexpected statement: ${text.slice(0, 60)}`);
  }) as Sql;
  wireAccountView({ events, cache, sql });
  const originalSettle = cache.settleCounters.bind(cache);
  cache.settleCounters = (unhit, del) => {
    order.push('settle');
    return originalSettle(unhit, del);
  };
  const deps = {
    sql,
    cache,
    events,
    clock: () => new Date(),
    mailNotify: () => {},
    webhookNotify: () => {},
    tunnelLists: new OwnerTunnelLists(),
    passwords,
    background: { run: () => {}, pending: 0 },
    // Not reached by a password login from a known network without a rehash: no transaction,
    // no alert to render or seal.
    db: undefined as never,
    mailContext: undefined as never,
    outbox: undefined as never,
  };
  return { deps, cache, order };
}

const client = { ip: '203.0.113.7', userAgent: 'test' };

test('after the sign-in commits, the limits are settled in the same round trip as the account view is invalidated', async () => {
  // The sign-in statement reads the view's version it committed: no statement after it.
  const { deps, cache, order } = setup(async () => [{ new_network: false, evicted: [], queued: 0, view_version: 7 }]);
  const signedIn = await login(deps, { email: EMAIL, password: PASSWORD }, client);
  assert.ok('token' in signedIn && signedIn.token.length > 0);
  assert.deepEqual(order, ['sign-in statement', 'settle'], 'settled after the commit, once');
  const after = cache.sent.filter((s) => s.command !== 'hitMany');
  assert.deepEqual(after.map((s) => s.command).sort(), ['raiseVersion', 'settleCounters']);
  assert.equal((await cache.getVersioned(`view:{${ACCOUNT_ID}}:v`, `view:{${ACCOUNT_ID}}:`)).version, '7', 'the known version is the one committed');
  // Both were sent before either was answered: one round trip, not two in a row.
  assert.deepEqual(new Set(after.map((s) => s.answeredBefore)).size, 1, JSON.stringify(cache.sent));
  // The attempt's counts were taken back: the ceiling and the network count failures only.
  assert.equal((await cache.peek(`rl:login-account-all:${EMAIL}`))?.count, 0);
  assert.equal((await cache.peek('rl:login-ip:203.0.113.0/24'))?.count, 0);
  assert.equal(await cache.peek(`rl:login-account-net:${EMAIL}|203.0.113.0/24`), null, 'the budget is cleared');
});

test('a right password whose sign-in cannot commit still has its counts taken back', async () => {
  const { deps, cache, order } = setup(async () => {
    throw new Error('connection terminated');
  });
  await assert.rejects(login(deps, { email: EMAIL, password: PASSWORD }, client), /connection terminated/);
  assert.deepEqual(order, ['sign-in statement', 'settle']);
  assert.equal((await cache.peek(`rl:login-account-all:${EMAIL}`))?.count, 0);
  assert.equal(cache.sent.some((s) => s.command === 'raiseVersion'), false, 'nothing committed: the view stands');
});

test('a wrong password is counted and not settled', async () => {
  const { deps, cache, order } = setup(async () => [{ new_network: false, evicted: [], queued: 0 }]);
  await assert.rejects(login(deps, { email: EMAIL, password: 'wrong password' }, client), (err: Error & { code?: string }) => err.code === 'UNAUTHENTICATED');
  assert.deepEqual(order, []);
  assert.equal((await cache.peek(`rl:login-account-all:${EMAIL}`))?.count, 1);
  assert.equal((await cache.peek(`rl:login-account-net:${EMAIL}|203.0.113.0/24`))?.count, 1);
});
