// Sessions: a random token on the wire (behind its creation second), its key (the SHA-256 behind
// that second) in the database and as the cache key.
// Validation is one cache read; a miss falls back to the database. Revocation writes a tombstone
// over the cache entry, so a revoked token fails on its very next request on any instance, even
// if a concurrent miss was about to re-cache it; a tombstone that cannot be written (Redis
// unreachable) bumps the revocation epoch instead (revocation-epoch.ts), and a cached entry of an
// older epoch is not trusted; after an outage of the cache, nor is one whose epoch was read before
// the cache answered again (it may predate a bump made during the outage). Sliding 30-day
// lifetime within an absolute 90 days; last_seen_at is written at most once a minute.
import { orFallback, type Cache } from '../../infra/cache/cache.js';
import { generateTimeOrderedToken, isWellFormedTimeOrderedToken, timeOrderedTokenKey } from '../../infra/crypto/tokens.js';
import { timeOrderedUuid } from '../../infra/crypto/random.js';
import type { Db, Sql, Tx } from '../store.js';
import { deleteSessions, readSessionRow, selectAccountSessions, touchSessionRow, type SessionRef, type SessionRow } from './store.js';
import { revocationEpoch } from './revocation-epoch.js';
import { changeAccount, type AccountChange, type ChangeDeps } from '../activity/account-change.js';
import type { SessionTouches } from './touches.js';

export const SESSION_LIFETIME_MS = 30 * 24 * 3600 * 1000;
/** However often it is used, a session ends 90 days after it was made. */
export const SESSION_ABSOLUTE_LIFETIME_MS = 90 * 24 * 3600 * 1000;
/** Live sessions per account (the sign-in statement ends the least recently used beyond it). */
export { MAX_SESSIONS } from './store.js';
export const LAST_SEEN_INTERVAL_MS = 60_000;
/**
 * The stored expiry moves only in steps of at least this (the minute's write of last_seen_at
 * then touches no index): a session ends at most this much before 30 days after its last use.
 */
export const EXPIRY_STEP_MS = 3600_000;
/** How long a credential's cache entry lives (a tombstone outlives every entry it covers). */
export const CACHE_TTL_MS = 10 * 60_000;
const REVOKED = 'revoked';

export interface SessionDeps {
  db: Db;
  sql: Sql;
  cache: Cache;
  clock: () => Date;
  /** The cold checks' touches, written behind the request (touches.ts). */
  touches: SessionTouches;
}

export interface ValidSession {
  id: string;
  accountId: string;
  tokenHash: string;
  expiresAt: number;
  lastSeenAt: number;
  createdAt: number;
  /** When the session last proved a credential (sign-in or re-authentication), epoch ms. */
  authenticatedAt: number;
  /** The revocation epoch the entry was cached under. */
  epoch: number;
}

const cacheKey = (tokenHash: string) => `session:${tokenHash}`;

export interface NewSession {
  id: string;
  tokenHash: string;
  userAgent: string;
  expiresAt: Date;
}

/** A fresh token (returned once, to the client) and the row that stores only its hash. */
export function newSession(now: Date, userAgent: string): { token: string; session: NewSession } {
  // Time-ordered: the token's key (its hash behind its creation second) lands on the right-most
  // page of the token index too; a 32-character token of before is still looked up by its hash.
  const token = generateTimeOrderedToken(now);
  return {
    token,
    session: {
      // Time-ordered (UUIDv7): every sign-in's insert lands on the right-most page of the
      // primary key's index instead of a random one of a large index.
      id: timeOrderedUuid(),
      tokenHash: timeOrderedTokenKey(token),
      userAgent: userAgent.slice(0, 512),
      expiresAt: new Date(now.getTime() + SESSION_LIFETIME_MS),
    },
  };
}

/**
 * The revocation epoch an entry is cached under, or checked against: read after `since`
 * (revocation-epoch.ts). The memory cache is one instance's own: its tombstones cannot be lost,
 * so no epoch is needed.
 */
function epochOf(deps: Pick<SessionDeps, 'db' | 'cache'>, since = 0): number | Promise<number> {
  return deps.cache.kind === 'memory' ? 0 : revocationEpoch(deps.db).current(since);
}

/**
 * The session of a token, through the cache. `kind` says how a miss is loaded: by default the
 * session row alone; account-view.ts reads the account's view with it in the same statement.
 */
export async function validateSessionToken(deps: SessionDeps, token: string, kind: CredentialKind<ValidSession> = SESSION_CREDENTIAL): Promise<ValidSession | null> {
  if (!isWellFormedTimeOrderedToken(token)) return null;
  const tokenHash = timeOrderedTokenKey(token);
  const now = deps.clock().getTime();
  const session = await readThrough(deps, tokenHash, kind, now);
  if (!session) return null;
  if (session.expiresAt <= now || now >= session.createdAt + SESSION_ABSOLUTE_LIFETIME_MS) {
    await revokeSessions(deps, [{ id: session.id, tokenHash }]);
    return null;
  }
  if (now - session.lastSeenAt >= LAST_SEEN_INTERVAL_MS) await touch(deps, session, now);
  return session;
}

/**
 * How one kind of credential is cached: a constant per kind, so a check allocates no closure
 * (the session check is a hot path).
 */
export interface CredentialKind<T extends { epoch: number }> {
  revive(cached: string): T;
  load(deps: Pick<SessionDeps, 'db' | 'sql' | 'clock' | 'touches' | 'cache'>, tokenHash: string, epoch: number): Promise<T | null>;
  ttlMs(value: T, now: number): number;
}

/**
 * A credential (a session, or a service token: tokens/token-check.ts) through the cache keyed by
 * its hash: null when tombstoned; a miss, or an entry of an older revocation epoch, is loaded
 * from the database and cached, never over a tombstone written by a revocation that raced it.
 */
export async function readThrough<T extends { epoch: number }>(deps: SessionDeps, tokenHash: string, kind: CredentialKind<T>, now: number): Promise<T | null> {
  const key = cacheKey(tokenHash);
  const cached = await orFallback(deps.cache.get(key), null);
  if (cached === REVOKED) return null;
  const hit: T | null = cached ? kind.revive(cached) : null;
  // A hit is vouched for only by an epoch read since the cache last answered again after an
  // outage: a revocation made during it could not tombstone the entry, and its bump may be newer
  // than an epoch this instance read before or during the outage.
  const epoch = await epochOf(deps, hit === null ? 0 : deps.cache.reachableSince());
  // Cached before a revocation that could not reach the cache (or the epoch is unknown): ask the database.
  const stale = hit !== null && (hit.epoch !== epoch || epoch < 0);
  if (hit && !stale) return hit;
  const value = await kind.load(deps, tokenHash, epoch);
  if (!value || epoch < 0) return value;
  const json = JSON.stringify(value);
  const ttl = kind.ttlMs(value, now);
  await orFallback(stale ? deps.cache.setUnless(key, json, ttl, REVOKED) : deps.cache.setIfAbsent(key, json, ttl).then(() => undefined), undefined);
  return value;
}

/** Replaces a credential's cached entry (after a change it shows), unless it is tombstoned. */
export async function recache(deps: Pick<SessionDeps, 'cache'>, tokenHash: string, value: { epoch: number }, ttlMs: number): Promise<void> {
  await orFallback(deps.cache.setUnless(cacheKey(tokenHash), JSON.stringify(value), ttlMs, REVOKED), undefined);
}

/** An entry cached before authenticatedAt existed proved its credential when it was made. */
function revive(cached: string): ValidSession {
  const session = JSON.parse(cached) as ValidSession;
  session.authenticatedAt ??= session.createdAt;
  return session;
}

function sessionOf(row: SessionRow, tokenHash: string, epoch: number): ValidSession {
  return {
    id: row.id,
    accountId: row.accountId,
    tokenHash,
    expiresAt: row.expiresAt.getTime(),
    lastSeenAt: row.lastSeenAt.getTime(),
    createdAt: row.createdAt.getTime(),
    authenticatedAt: row.authenticatedAt.getTime(),
    epoch,
  };
}

/**
 * The expiry a touch at `now` leaves (the store's rule, for the cached copy): 30 days after the
 * use, within the absolute lifetime, moved only when it moves by an expiry step or more.
 */
export function nextExpiry(expiresAt: number, createdAt: number, now: number): number {
  const slid = Math.min(now + SESSION_LIFETIME_MS, createdAt + SESSION_ABSOLUTE_LIFETIME_MS);
  return slid >= expiresAt + EXPIRY_STEP_MS ? slid : expiresAt;
}

/**
 * A cache miss: one read by the token's hash. When the minute's touch is due it is queued, written
 * within a second with the other checks' (touches.ts), and the entry cached here already carries
 * it, so the check that follows has nothing left to write.
 */
async function loadSession(deps: Pick<SessionDeps, 'sql' | 'clock' | 'touches'>, tokenHash: string, epoch: number): Promise<ValidSession | null> {
  const row = await readSessionRow(deps.sql, tokenHash);
  return row && loadedSession(deps, row, tokenHash, epoch);
}

/** A session row read on a cache miss, as it is cached: with the minute's touch queued when due. */
export function loadedSession(deps: Pick<SessionDeps, 'clock' | 'touches'>, row: SessionRow, tokenHash: string, epoch: number): ValidSession {
  const session = sessionOf(row, tokenHash, epoch);
  const now = deps.clock().getTime();
  if (now - session.lastSeenAt >= LAST_SEEN_INTERVAL_MS && session.expiresAt > now) {
    deps.touches.add(session.id, new Date(now), new Date(now + SESSION_LIFETIME_MS));
    storedExpiry.set(session, session.expiresAt);
    session.lastSeenAt = now;
    session.expiresAt = nextExpiry(session.expiresAt, session.createdAt, now);
  }
  return session;
}

/**
 * After a change to the session's row that its cached entry shows (a re-authentication): the
 * entry is read again from the database and replaced, unless a revocation's tombstone is there.
 */
export async function recacheSession(deps: Pick<SessionDeps, 'db' | 'sql' | 'cache' | 'clock'>, tokenHash: string): Promise<void> {
  const epoch = await epochOf(deps);
  if (epoch < 0) return;
  const row = await readSessionRow(deps.sql, tokenHash);
  if (!row) return;
  const session = sessionOf(row, tokenHash, epoch);
  await recache(deps, tokenHash, session, ttlFor(session, deps.clock().getTime()));
}

/**
 * The row's expiry while a queued touch extends the cached copy's: the entry lives no longer than
 * the stored row, so a touch that never lands (the instance died) cannot keep a session accepted
 * that the database has let expire; the read after it sees the row as it is.
 */
const storedExpiry = new WeakMap<ValidSession, number>();

function ttlFor(session: ValidSession, now: number): number {
  return Math.max(1000, Math.min(CACHE_TTL_MS, (storedExpiry.get(session) ?? session.expiresAt) - now));
}

const SESSION_CREDENTIAL: CredentialKind<ValidSession> = { revive, load: loadSession, ttlMs: ttlFor };

/** How a cached session is read back and how long it is kept: for another way of loading it (validateSessionToken). */
export const SESSION_CACHING: Pick<CredentialKind<ValidSession>, 'revive' | 'ttlMs'> = { revive, ttlMs: ttlFor };

async function touch(deps: SessionDeps, session: ValidSession, now: number): Promise<void> {
  // One writer per session per minute across instances: the lock is keyed by the last_seen_at
  // value being replaced, so the (injectable) clock alone decides when a minute has passed; a
  // wall-clock-only lock would also block the next due write whenever the clock runs ahead.
  const lock = `session-touch:${session.id}:${session.lastSeenAt}`;
  const won = await orFallback(deps.cache.setIfAbsent(lock, '1', LAST_SEEN_INTERVAL_MS), true);
  if (!won) return;
  // An update, never an upsert: a revoked (deleted) session stays deleted. The row's proof time
  // and expiry come back with it, so a re-authentication on another instance is not overwritten
  // here, and the cache holds the expiry the row has.
  const row = await touchSessionRow(deps.sql, session.id, new Date(now), new Date(now + SESSION_LIFETIME_MS), SESSION_ABSOLUTE_LIFETIME_MS, EXPIRY_STEP_MS);
  if (!row) return;
  session.lastSeenAt = now;
  session.expiresAt = row.expiresAt.getTime();
  session.authenticatedAt = Math.max(session.authenticatedAt, row.authenticatedAt.getTime());
  // Atomically: a tombstone written meanwhile stays.
  await recache(deps, session.tokenHash, session, ttlFor(session, now));
}

/** Deletes the rows and tombstones their cache entries. */
export async function revokeSessions(deps: Pick<SessionDeps, 'db' | 'cache'>, sessions: SessionRef[]): Promise<void> {
  if (sessions.length === 0) return;
  await deleteSessions(deps.db, sessions.map((s) => s.id));
  await tombstone(deps, sessions.map((s) => s.tokenHash));
}

/**
 * revokeSessions as a change of the account the person asked for: `record` says what happened
 * (the security event), committed with the delete (activity/account-change.ts).
 */
export async function revokeSessionsAsChange(
  deps: Pick<SessionDeps, 'db' | 'cache'> & ChangeDeps,
  accountId: string,
  sessions: SessionRef[],
  record: (tx: Tx, change: AccountChange) => Promise<void>,
): Promise<void> {
  await changeAccount(deps, accountId, async (tx, change) => {
    await deleteSessions(tx, sessions.map((s) => s.id));
    await record(tx, change);
  });
  await tombstone(deps, sessions.map((s) => s.tokenHash));
}

/**
 * Marks the tokens revoked in the cache; when the cache cannot take the marks, bumps the
 * revocation epoch so that no instance trusts a cached copy of them any more.
 */
export async function tombstone(deps: Pick<SessionDeps, 'db' | 'cache'>, tokenHashes: string[]): Promise<void> {
  if (tokenHashes.length === 0) return;
  const written = await Promise.all(
    tokenHashes.map((h) => deps.cache.setReplicated(cacheKey(h), REVOKED, CACHE_TTL_MS).then(() => true, () => false)),
  );
  if (written.every(Boolean) || deps.cache.kind === 'memory') return;
  await revocationEpoch(deps.db).bump();
}

/** Every session of the account, but `keepSessionId`. */
export function accountSessions(deps: Pick<SessionDeps, 'db'>, accountId: string, keepSessionId?: string): Promise<SessionRef[]> {
  return selectAccountSessions(deps.db, accountId, keepSessionId);
}

/** Revokes every session of an account, optionally keeping one (change-password). */
export async function revokeAccountSessions(deps: Pick<SessionDeps, 'db' | 'cache'>, accountId: string, keepSessionId?: string): Promise<void> {
  await revokeSessions(deps, await accountSessions(deps, accountId, keepSessionId));
}
