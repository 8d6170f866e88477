// The security activity's queries: events appended in the transaction of their change, read a
// page at a time newest first, and purged past their retention (with spent second-step
// challenges) by one instance at a time.
import type { Prisma } from '../../generated/prisma/client.js';
import type { DbHandle, Db } from '../store.js';

export interface EventRow {
  accountId: string;
  type: string;
  at: Date;
  ip: string;
  userAgent: string;
  detail: Prisma.InputJsonObject;
}

export async function insertSecurityEvent(db: DbHandle, row: EventRow): Promise<void> {
  await db.securityEvent.create({ data: row, select: { seq: true } });
}

export interface StoredEvent {
  seq: bigint;
  id: string;
  type: string;
  at: Date;
  ip: string;
  userAgent: string;
  detail: unknown;
}

/** Up to `take` events of the account, newest first, strictly older than position `before`. */
export function selectSecurityEvents(db: DbHandle, accountId: string, take: number, before: bigint | null): Promise<StoredEvent[]> {
  return db.securityEvent.findMany({
    where: { accountId, ...(before !== null ? { seq: { lt: before } } : {}) },
    orderBy: { seq: 'desc' },
    take,
    select: { seq: true, id: true, type: true, at: true, ip: true, userAgent: true, detail: true },
  });
}

/**
 * Deletes events older than `cutoff` and challenges expired or used by `now`, under a
 * transaction-level advisory lock (`lockId`): null when another instance holds it.
 */
export function purgeOldRows(db: Db, lockId: number, cutoff: Date, now: Date, deviceCutoff: Date): Promise<{ events: number; challenges: number; devices: number; oauthModels: number } | null> {
  return db.$transaction(async (tx) => {
    const [lock] = await tx.$queryRaw<{ locked: boolean }[]>`SELECT pg_try_advisory_xact_lock(${lockId}) AS locked`;
    if (!lock?.locked) return null;
    const events = await tx.securityEvent.deleteMany({ where: { at: { lt: cutoff } } });
    const challenges = await tx.mfaChallenge.deleteMany({ where: { OR: [{ expiresAt: { lte: now } }, { usedAt: { not: null } }] } });
    const devices = await tx.deviceAuthorization.deleteMany({ where: { expiresAt: { lt: deviceCutoff } } });
    // The authorization server's expired models: codes, refresh tokens, interactions, unused clients.
    const oauthModels = await tx.oAuthModel.deleteMany({ where: { expiresAt: { lte: now } } });
    return { events: events.count, challenges: challenges.count, devices: devices.count, oauthModels: oauthModels.count };
  });
}
