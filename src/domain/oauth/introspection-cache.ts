// Introspection at the speed of a session check (API.md section 13: the edge asks for every MCP
// request, or every minute per token). An active answer is cached under the token's hash, behind
// one version for all of them: one round trip (a versioned read) answers a warm call, with no
// signature check and no database statement. Whatever can turn a token inactive (a grant revoked
// by any path, a tunnel's access, allow-list, host or deletion, an account's address, trust or
// deletion) bumps the version after it commits, so every instance stops trusting every cached
// answer at once; the next call per token answers from the database again.
//
// A bump that cannot reach the cache (Redis unreachable) bumps the revocation epoch in the
// database instead (sessions/revocation-epoch.ts), and an answer is trusted only while it was
// cached under the current epoch, read since the cache last answered again after an outage: a
// revocation is never undone by a cache coming back. Inactive answers are not cached.
import { hashToken } from '../../infra/crypto/tokens.js';
import type { DomainDeps } from '../context.js';
import { revocationEpoch } from '../sessions/revocation-epoch.js';

/** RFC 7662 answers: inactive says nothing else. */
export type Introspection =
  | { active: false }
  | { active: true; sub: string; aud: string; client_id: string; scope: string; exp: number; email: string };

/** An active answer is kept at most this long (and never past the token's expiry). */
const ANSWER_TTL_MS = 10 * 60_000;
const VERSION_TTL_MS = 24 * 3600_000;
// One hash tag: the versioned read is one script over both keys, so they share a cluster slot.
const VERSION_KEY = 'oauth-introspection:{v}:v';
const dataPrefix = (tokenHash: string) => `oauth-introspection:{v}:${tokenHash}:`;

type CacheDeps = Pick<DomainDeps, 'cache' | 'db' | 'clock'>;

interface Stored {
  answer: Introspection & { active: true };
  epoch: number;
}

const epochOf = (deps: CacheDeps, since: number): number | Promise<number> => (deps.cache.kind === 'memory' ? 0 : revocationEpoch(deps.db).current(since));

/** The cached answer for `token`, or `introspect`'s (cached when active). */
export async function cachedIntrospection(deps: CacheDeps, token: string, introspect: () => Promise<Introspection>): Promise<Introspection> {
  const tokenHash = hashToken(token);
  let read: { version: string; value: string | null };
  try {
    read = await deps.cache.getVersioned(VERSION_KEY, dataPrefix(tokenHash));
  } catch {
    return introspect();
  }
  const now = deps.clock().getTime();
  if (read.value !== null) {
    const stored = JSON.parse(read.value) as Stored;
    const epoch = await epochOf(deps, deps.cache.reachableSince());
    if (epoch >= 0 && stored.epoch === epoch && stored.answer.exp * 1000 > now) return stored.answer;
  }
  const epoch = await epochOf(deps, 0);
  const answer = await introspect();
  if (answer.active && epoch >= 0) {
    const ttl = Math.min(ANSWER_TTL_MS, answer.exp * 1000 - now);
    if (ttl > 0) await deps.cache.set(dataPrefix(tokenHash) + read.version, JSON.stringify({ answer, epoch } satisfies Stored), ttl).catch(() => undefined);
  }
  return answer;
}

/**
 * After a change that can turn tokens inactive has committed: no cached answer is trusted any
 * more, on any instance (the database's epoch when the cache cannot be told).
 */
export async function invalidateIntrospections(deps: Pick<DomainDeps, 'cache' | 'db'>): Promise<void> {
  try {
    await deps.cache.bump(VERSION_KEY, VERSION_TTL_MS);
  } catch {
    await revocationEpoch(deps.db).bump();
  }
}

/** Every change that can alter an introspection drops the cached answers (wired once, in deps.ts). */
export function wireIntrospections(deps: Pick<DomainDeps, 'cache' | 'db' | 'events'>): void {
  const drop = () => invalidateIntrospections(deps);
  deps.events.on('account.changed', drop);
  deps.events.on('account.deleted', drop);
  deps.events.on('account.slugChanged', drop);
  deps.events.on('tunnel.changed', drop);
}
