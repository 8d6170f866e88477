// Service-token validation (API.md section 12): the same cache as sessions, keyed by the token's
// SHA-256 in the same key space (a token and a session never share a hash), so the same tombstones
// and revocation epoch stop a revoked token on its next request on every instance, Redis outage
// included. An expired token is refused (and stays listed); last_used_at and its masked address
// are written at most once a minute, by one instance.
import { orFallback } from '../../infra/cache/cache.js';
import { hashToken } from '../../infra/crypto/tokens.js';
import { maskIp } from '../network.js';
import { CACHE_TTL_MS, LAST_SEEN_INTERVAL_MS, readThrough, recache, type CredentialKind, type SessionDeps } from '../sessions/session.js';
import { isWellFormedServiceToken } from './format.js';
import { isTokenScope, type TokenScope } from './scopes.js';
import { readTokenRow, touchTokenRow } from './store.js';

export interface ValidToken {
  id: string;
  accountId: string;
  tokenHash: string;
  scopes: TokenScope[];
  /** Epoch ms; null: never expires. */
  expiresAt: number | null;
  /** Epoch ms of the last recorded use; 0 before the first. */
  lastUsedAt: number;
  /** The revocation epoch the entry was cached under. */
  epoch: number;
}

async function readToken(deps: Pick<SessionDeps, 'db'>, tokenHash: string, epoch: number): Promise<ValidToken | null> {
  const row = await readTokenRow(deps.db, tokenHash);
  if (!row) return null;
  return {
    id: row.id,
    accountId: row.accountId,
    tokenHash,
    scopes: row.scopes.filter(isTokenScope),
    expiresAt: row.expiresAt?.getTime() ?? null,
    lastUsedAt: row.lastUsedAt?.getTime() ?? 0,
    epoch,
  };
}

const ttlFor = (t: ValidToken, now: number): number => Math.max(1000, Math.min(CACHE_TTL_MS, (t.expiresAt ?? Infinity) - now));

const TOKEN_CREDENTIAL: CredentialKind<ValidToken> = { revive: (raw) => JSON.parse(raw) as ValidToken, load: readToken, ttlMs: ttlFor };

export async function validateServiceToken(deps: SessionDeps, token: string, ip: string): Promise<ValidToken | null> {
  if (!isWellFormedServiceToken(token)) return null;
  const tokenHash = hashToken(token);
  const now = deps.clock().getTime();
  const found = await readThrough(deps, tokenHash, TOKEN_CREDENTIAL, now);
  if (!found || (found.expiresAt !== null && found.expiresAt <= now)) return null;
  if (now - found.lastUsedAt >= LAST_SEEN_INTERVAL_MS) await touch(deps, found, now, ip);
  return found;
}

async function touch(deps: SessionDeps, token: ValidToken, now: number, ip: string): Promise<void> {
  // One writer per token per minute across instances (as sessions' last_seen_at).
  const won = await orFallback(deps.cache.setIfAbsent(`token-touch:${token.id}:${token.lastUsedAt}`, '1', LAST_SEEN_INTERVAL_MS), true);
  if (!won) return;
  token.lastUsedAt = now;
  await touchTokenRow(deps.db, token.id, new Date(now), maskIp(ip));
  await recache(deps, token.tokenHash, token, ttlFor(token, now));
}
