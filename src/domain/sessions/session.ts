// Sessions: a random token on the wire, its SHA-256 in the database and as the cache key.
// Validation is one cache read; a miss falls back to the database. Revocation writes a tombstone
// over the cache entry, so a revoked token fails on its very next request on any instance, even
// if a concurrent miss was about to re-cache it. Sliding 30-day lifetime; last_seen_at is written
// at most once a minute.
import { randomUUID } from 'node:crypto';
import { orFallback, type Cache } from '../../infra/cache/cache.js';
import { generateToken, hashToken, isWellFormedToken } from '../../infra/crypto/tokens.js';
import type { Db } from '../../infra/db/client.js';

export const SESSION_LIFETIME_MS = 30 * 24 * 3600 * 1000;
export const LAST_SEEN_INTERVAL_MS = 60_000;
const CACHE_TTL_MS = 10 * 60_000;
const REVOKED = 'revoked';

export interface SessionDeps {
  db: Db;
  cache: Cache;
  clock: () => Date;
}

export interface ValidSession {
  id: string;
  accountId: string;
  tokenHash: string;
  expiresAt: number;
  lastSeenAt: number;
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
  const token = generateToken();
  return {
    token,
    session: {
      id: randomUUID(),
      tokenHash: hashToken(token),
      userAgent: userAgent.slice(0, 512),
      expiresAt: new Date(now.getTime() + SESSION_LIFETIME_MS),
    },
  };
}

export async function validateSessionToken(deps: SessionDeps, token: string): Promise<ValidSession | null> {
  if (!isWellFormedToken(token)) return null;
  const tokenHash = hashToken(token);
  const key = cacheKey(tokenHash);
  const now = deps.clock().getTime();
  const cached = await orFallback(deps.cache.get(key), null);
  if (cached === REVOKED) return null;
  let session: ValidSession | null = cached ? (JSON.parse(cached) as ValidSession) : null;
  if (!session) {
    const row = await deps.db.session.findUnique({
      where: { tokenHash },
      select: { id: true, accountId: true, expiresAt: true, lastSeenAt: true },
    });
    if (!row) return null;
    session = {
      id: row.id,
      accountId: row.accountId,
      tokenHash,
      expiresAt: row.expiresAt.getTime(),
      lastSeenAt: row.lastSeenAt.getTime(),
    };
    // Never overwrite a tombstone written by a revocation that raced this read.
    await orFallback(deps.cache.setIfAbsent(key, JSON.stringify(session), ttlFor(session, now)), false);
  }
  if (session.expiresAt <= now) {
    await revokeSessions(deps, [{ id: session.id, tokenHash }]);
    return null;
  }
  if (now - session.lastSeenAt >= LAST_SEEN_INTERVAL_MS) await touch(deps, session, now);
  return session;
}

function ttlFor(session: ValidSession, now: number): number {
  return Math.max(1000, Math.min(CACHE_TTL_MS, session.expiresAt - now));
}

async function touch(deps: SessionDeps, session: ValidSession, now: number): Promise<void> {
  // One writer per session per minute across instances: the lock is keyed by the last_seen_at
  // value being replaced, so the (injectable) clock alone decides when a minute has passed; a
  // wall-clock-only lock would also block the next due write whenever the clock runs ahead.
  const lock = `session-touch:${session.id}:${session.lastSeenAt}`;
  const won = await orFallback(deps.cache.setIfAbsent(lock, '1', LAST_SEEN_INTERVAL_MS), true);
  if (!won) return;
  session.lastSeenAt = now;
  session.expiresAt = now + SESSION_LIFETIME_MS;
  const updated = await deps.db.session.updateMany({
    where: { id: session.id },
    data: { lastSeenAt: new Date(now), expiresAt: new Date(session.expiresAt) },
  });
  if (updated.count === 0) return;
  const key = cacheKey(session.tokenHash);
  if ((await orFallback(deps.cache.get(key), null)) !== REVOKED) {
    await orFallback(deps.cache.set(key, JSON.stringify(session), ttlFor(session, now)), undefined);
  }
}

/** Deletes the rows and tombstones their cache entries. */
export async function revokeSessions(
  deps: Pick<SessionDeps, 'db' | 'cache'>,
  sessions: { id: string; tokenHash: string }[],
): Promise<void> {
  if (sessions.length === 0) return;
  await deps.db.session.deleteMany({ where: { id: { in: sessions.map((s) => s.id) } } });
  await tombstone(deps.cache, sessions.map((s) => s.tokenHash));
}

export async function tombstone(cache: Cache, tokenHashes: string[]): Promise<void> {
  await Promise.all(tokenHashes.map((h) => orFallback(cache.set(cacheKey(h), REVOKED, CACHE_TTL_MS), undefined)));
}

/** Revokes every session of an account, optionally keeping one (change-password). */
export async function revokeAccountSessions(
  deps: Pick<SessionDeps, 'db' | 'cache'>,
  accountId: string,
  keepSessionId?: string,
): Promise<void> {
  const rows = await deps.db.session.findMany({
    where: { accountId, ...(keepSessionId ? { id: { not: keepSessionId } } : {}) },
    select: { id: true, tokenHash: true },
  });
  await revokeSessions(deps, rows);
}
