// What the dashboard shows of an account (GraphQL `me`, GET /api/account), read on every
// dashboard page load, so it is served from the cache: one versioned read (one round trip to
// Redis), the database only on a miss. Every write that changes what the view shows calls
// invalidateAccountView after it commits; the version bump makes any concurrently cached stale
// copy unreachable, on every instance.
import type { Cache } from '../../infra/cache/cache.js';
import { hashTag } from '../../infra/cache/keys.js';
import type { Sql } from '../store.js';
import { readAccountViewRow } from './store.js';
import type { DomainEvents } from '../events.js';

export interface AccountView {
  id: string;
  email: string;
  emailVerified: boolean;
  slug: string;
  plan: string;
  hasPassword: boolean;
  lastLogin: { at: Date; ip: string } | null;
  linkedProviders: { provider: string; email: string; linkedAt: Date }[];
  /** Two-step sign-in: TOTP on, unused recovery codes, passkeys. */
  mfa: { totp: boolean; recoveryCodesLeft: number; passkeys: number };
}

const VIEW_TTL_MS = 5 * 60_000;
const VERSION_TTL_MS = 24 * 3600_000;
// One hash tag: the versioned read is one script over both keys, so they share a cluster slot.
const versionKey = (accountId: string) => `account-view:${hashTag(accountId)}:v`;
const dataPrefix = (accountId: string) => `account-view:${hashTag(accountId)}:`;

interface Stored extends Omit<AccountView, 'lastLogin' | 'linkedProviders'> {
  lastLogin: { at: string; ip: string } | null;
  linkedProviders: { provider: string; email: string; linkedAt: string }[];
}

function revive(s: Stored): AccountView {
  return {
    ...s,
    lastLogin: s.lastLogin ? { at: new Date(s.lastLogin.at), ip: s.lastLogin.ip } : null,
    linkedProviders: s.linkedProviders.map((p) => ({ ...p, linkedAt: new Date(p.linkedAt) })),
  };
}

async function readDatabase(sql: Sql, accountId: string): Promise<AccountView | null> {
  const a = await readAccountViewRow(sql, accountId);
  if (!a) return null;
  return {
    id: a.id,
    email: a.email,
    emailVerified: a.emailVerified,
    slug: a.slug,
    plan: a.plan,
    hasPassword: a.passwordHash !== null,
    lastLogin: a.lastLoginAt ? { at: a.lastLoginAt, ip: a.lastLoginIp ?? 'unknown' } : null,
    linkedProviders: a.linkedIdentities,
    mfa: { totp: a.totpOn, recoveryCodesLeft: a.totpOn ? a.unusedRecoveryCodes : 0, passkeys: a.passkeys },
  };
}

export async function loadAccountView(deps: { sql: Sql; cache: Cache }, accountId: string): Promise<AccountView | null> {
  let version: string | null = null;
  try {
    const hit = await deps.cache.getVersioned(versionKey(accountId), dataPrefix(accountId));
    if (hit.value) return revive(JSON.parse(hit.value) as Stored);
    version = hit.version;
  } catch {
    // Cache unreachable: the database answers alone.
  }
  const view = await readDatabase(deps.sql, accountId);
  if (view && version !== null) {
    await deps.cache.set(dataPrefix(accountId) + version, JSON.stringify(view), VIEW_TTL_MS).catch(() => {});
  }
  return view;
}

/** After committing any change to what the view shows (wireAccountView calls it on the events). */
async function invalidateAccountView(cache: Cache, accountId: string): Promise<void> {
  await cache.bump(versionKey(accountId), VERSION_TTL_MS).catch(() => {});
}

/**
 * Every committed change to an account (activity/account-change.ts), every sign-in (the last
 * login) and a deletion drop the cached view; no flow calls invalidateAccountView by hand.
 */
export function wireAccountView(deps: { events: DomainEvents; cache: Cache }): void {
  const drop = ({ accountId }: { accountId: string }) => invalidateAccountView(deps.cache, accountId);
  deps.events.on('account.changed', drop);
  deps.events.on('account.signedIn', drop);
  deps.events.on('account.deleted', drop);
}
