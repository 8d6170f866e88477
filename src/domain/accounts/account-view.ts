// What the dashboard shows of an account (GraphQL `me`, GET /api/account), read on every
// dashboard page load, so it is served from the cache: one versioned read (one round trip to
// Redis), the database only on a miss. The version is the database's own (accounts.view_version,
// moved by triggers in the transaction of every change to what the view shows): a copy read
// from the database is stored under the version it was read at, and only while no newer version
// is known; every committed change (the events below) raises the known version to the
// database's, after its commit, so a copy read before it is never served again, on any instance
// (ADR 25). Because the copy carries its own version, the view needs no version read before the
// database's: a page whose session is not cached either reads both in one statement
// (validateSessionWithView).
import type { Cache } from '../../infra/cache/cache.js';
import { hashTag } from '../../infra/cache/keys.js';
import type { Sql } from '../store.js';
import { readAccountViewRow, readSessionWithView, readViewVersion, type AccountViewRow } from './store.js';
import type { DomainEvents } from '../events.js';
import { loadedSession, SESSION_CACHING, validateSessionToken, type SessionDeps, type ValidSession } from '../sessions/session.js';
import type { CredentialKind } from '../sessions/session.js';

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
// `view:` (not the counter-versioned `account-view:` of before the database kept the version).
const versionKey = (accountId: string) => `view:${hashTag(accountId)}:v`;
const dataPrefix = (accountId: string) => `view:${hashTag(accountId)}:`;
/** Raised to on deletion: no copy of the account's view is served or stored again. */
const GONE = Number.MAX_SAFE_INTEGER;

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

function viewOf(a: AccountViewRow): AccountView {
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

/** Keeps a copy read from the database, unless a newer version is known (a failure of the cache only costs the next read). */
async function store(cache: Cache, row: AccountViewRow, view: AccountView): Promise<void> {
  await cache.storeVersioned(versionKey(row.id), dataPrefix(row.id), row.viewVersion, JSON.stringify(view), VIEW_TTL_MS, VERSION_TTL_MS).catch(() => false);
}

export async function loadAccountView(deps: { sql: Sql; cache: Cache }, accountId: string): Promise<AccountView | null> {
  let reachable = true;
  try {
    const hit = await deps.cache.getVersioned(versionKey(accountId), dataPrefix(accountId));
    if (hit.value) return revive(JSON.parse(hit.value) as Stored);
  } catch {
    // Cache unreachable: the database answers alone.
    reachable = false;
  }
  const row = await readAccountViewRow(deps.sql, accountId);
  if (!row) return null;
  const view = viewOf(row);
  if (reachable) await store(deps.cache, row, view);
  return view;
}

/** The view read with a session on its cache miss, and its store under way, until the session's check is over. */
const readWith = new WeakMap<ValidSession, { view: AccountView; stored: Promise<void> }>();

const SESSION_WITH_VIEW: CredentialKind<ValidSession> = {
  ...SESSION_CACHING,
  async load(deps, tokenHash, epoch) {
    const read = await readSessionWithView(deps.sql, tokenHash);
    if (!read) return null;
    const session = loadedSession(deps, read.session, tokenHash, epoch);
    // Sent now, and in the same write to the cache as the session's own (readThrough's, next).
    deps.cache.gatherWrites();
    const view = viewOf(read.view);
    readWith.set(session, { view, stored: store(deps.cache, read.view, view) });
    return session;
  },
};

/**
 * validateSessionToken for a request that shows the account (GET /api/account): when the session
 * is not cached, its row and the account's view are read in one statement, and the view is kept
 * like any copy read from the database. `view` is then that view; otherwise it is loaded as usual.
 */
export async function validateSessionWithView(deps: SessionDeps, token: string): Promise<{ session: ValidSession; view: AccountView | null } | null> {
  const session = await validateSessionToken(deps, token, SESSION_WITH_VIEW);
  if (!session) return null;
  const read = readWith.get(session);
  if (!read) return { session, view: null };
  readWith.delete(session);
  await read.stored;
  return { session, view: read.view };
}

/** After committing a change to what the view shows: the version the database now has is the newest known. */
async function invalidateAccountView(deps: { sql: Sql; cache: Cache }, accountId: string, committed?: number | null): Promise<void> {
  // A version read in the change's own transaction, after its write, is above every copy read
  // before the commit, which is all the raise must refuse.
  if (typeof committed === 'number') {
    await deps.cache.raiseVersion(versionKey(accountId), committed, VERSION_TTL_MS).catch(() => {});
    return;
  }
  let version: number | null;
  try {
    version = await readViewVersion(deps.sql, accountId);
  } catch {
    // The version is unknown: no copy is stored or served until every copy read before this
    // change has expired; then the next read stores the database's.
    await deps.cache.raiseVersion(versionKey(accountId), GONE, VIEW_TTL_MS).catch(() => {});
    return;
  }
  await deps.cache.raiseVersion(versionKey(accountId), version ?? GONE, VERSION_TTL_MS).catch(() => {});
}

/**
 * Every committed change to an account (activity/account-change.ts), every sign-in (the last
 * login) and a deletion drop the cached view; no flow calls invalidateAccountView by hand.
 */
export function wireAccountView(deps: { events: DomainEvents; cache: Cache; sql: Sql }): void {
  const drop = ({ accountId }: { accountId: string }) => invalidateAccountView(deps, accountId);
  deps.events.on('account.changed', drop);
  deps.events.on('account.signedIn', ({ accountId, viewVersion }) => invalidateAccountView(deps, accountId, viewVersion));
  deps.events.on('account.deleted', drop);
}
