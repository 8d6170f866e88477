// Names that address a tunnel from outside (an account's slug: every `<sub>--<slug>.ZONE` host;
// a custom domain) are held for 30 days after a rename or a deletion frees them. Until then no
// other account can claim them, so an MCP client still pinned to the old host never reaches a
// stranger's server. The account that freed a name may take it back at once.
import type { DbHandle, Tx } from '../store.js';
import { holdName, lockName, readNameHold } from './store.js';
import { conflict, PROBLEMS } from '../errors.js';

export const NAME_HOLD_MS = 30 * 24 * 3600_000;

export type NameKind = 'slug' | 'domain';

/**
 * Serializes every claim and release of these names until the transaction ends (a transaction
 * lock, safe behind PgBouncer's transaction pooling). Taken in one sorted order, so two renames
 * that swap names queue instead of deadlocking. Without it, a claim could check the hold before a
 * concurrent release committed and then take the name the moment the release freed it.
 */
export async function lockNames(tx: Tx, kind: NameKind, names: string[]): Promise<void> {
  for (const name of [...new Set(names)].sort()) {
    await lockName(tx, `${kind}:${name}`);
  }
}

/** Holds the names for their last owner; call inside the transaction that frees them. */
export async function releaseNames(tx: Tx, kind: NameKind, names: string[], accountId: string, now: Date): Promise<void> {
  await lockNames(tx, kind, names);
  const holdUntil = new Date(now.getTime() + NAME_HOLD_MS);
  for (const name of new Set(names)) await holdName(tx, kind, name, accountId, now, holdUntil);
}

/** True when another account freed this name less than 30 days ago. */
export async function isHeldForAnother(db: DbHandle, kind: NameKind, name: string, accountId: string | null, now: Date): Promise<boolean> {
  const held = await readNameHold(db, kind, name);
  return held !== null && held.holdUntil > now && held.accountId !== accountId;
}

/** Claims a name for the account inside the transaction that takes it: 409 while held for another. */
export async function claimName(tx: Tx, kind: NameKind, name: string, accountId: string, now: Date): Promise<void> {
  await lockNames(tx, kind, [name]);
  if (await isHeldForAnother(tx, kind, name, accountId, now)) {
    throw kind === 'slug'
      ? conflict(PROBLEMS.slugHeld, 'That slug was released recently and is held for 30 days; choose another.', 'slug')
      : conflict(PROBLEMS.customDomainHeld, 'That custom domain was released recently and is held for 30 days.', 'customDomain');
  }
}
