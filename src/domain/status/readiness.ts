// Readiness (/readyz): can this instance serve traffic, i.e. are the database and the cache
// reachable? Liveness (/healthz) asks less: only whether the process answers.
import type { Cache } from '../../infra/cache/cache.js';
import type { Db } from '../store.js';
import { pingDatabase } from './store.js';
import { withTimeout } from '../../infra/timeout.js';

export interface ReadinessDeps {
  db: Db;
  cache: Cache;
}

export type CheckOutcome = 'ok' | 'unreachable';

export interface Readiness {
  ready: boolean;
  checks: { database: CheckOutcome; cache: CheckOutcome };
}

/** Each check is bounded, so a hung dependency reports "unreachable" instead of hanging the probe. */
export const READINESS_TIMEOUT_MS = 2000;

export async function checkReadiness(deps: ReadinessDeps, timeoutMs = READINESS_TIMEOUT_MS): Promise<Readiness> {
  const [database, cache] = await Promise.all([
    bounded(() => pingDatabase(deps.db), timeoutMs),
    bounded(() => deps.cache.ping(), timeoutMs),
  ]);
  return { ready: database === 'ok' && cache === 'ok', checks: { database, cache } };
}

function bounded(check: () => Promise<unknown>, timeoutMs: number): Promise<CheckOutcome> {
  return withTimeout(check(), timeoutMs, () => new Error('timed out')).then(
    (): CheckOutcome => 'ok',
    (): CheckOutcome => 'unreachable',
  );
}
