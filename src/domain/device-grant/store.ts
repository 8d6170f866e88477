// The device authorization rows: created by the device's request, decided by the console (under
// the approving account's change), polled and exchanged once by the device. Both codes are looked
// up by their SHA-256 (unique indexes).
import type { Db, DbHandle, Tx } from '../store.js';

export type DeviceStatus = 'pending' | 'approved' | 'denied' | 'exchanged';

export interface DeviceRow {
  id: string;
  clientId: string;
  scopes: string[];
  userAgent: string;
  ip: string;
  status: DeviceStatus;
  intervalSeconds: number;
  lastPolledAt: Date | null;
  accountId: string | null;
  expiresAt: Date;
  createdAt: Date;
}

const ROW = {
  id: true,
  clientId: true,
  scopes: true,
  userAgent: true,
  ip: true,
  status: true,
  intervalSeconds: true,
  lastPolledAt: true,
  accountId: true,
  expiresAt: true,
  createdAt: true,
} as const;

const asRow = (r: Omit<DeviceRow, 'status'> & { status: string }): DeviceRow => r as DeviceRow;

export async function insertDeviceRow(
  db: Db,
  row: { deviceCodeHash: string; userCodeHash: string; clientId: string; scopes: string[]; userAgent: string; ip: string; intervalSeconds: number; expiresAt: Date; createdAt: Date },
): Promise<void> {
  await db.deviceAuthorization.create({ data: row, select: { id: true } });
}

/** Frees a user code an expired request still holds (the unique index spans every row). */
export async function releaseExpiredUserCode(db: Db, userCodeHash: string, now: Date): Promise<void> {
  await db.deviceAuthorization.deleteMany({ where: { userCodeHash, expiresAt: { lte: now } } });
}

/** A pending, unexpired request by its user code. */
export async function findPendingByUserCode(db: DbHandle, userCodeHash: string, now: Date): Promise<DeviceRow | null> {
  const row = await db.deviceAuthorization.findFirst({ where: { userCodeHash, status: 'pending', expiresAt: { gt: now } }, select: ROW });
  return row ? asRow(row) : null;
}

/** Decides a pending, unexpired request; null when there is none by that code (any more). */
export async function decideDeviceRow(tx: Tx, userCodeHash: string, decision: 'approved' | 'denied', accountId: string, now: Date): Promise<DeviceRow | null> {
  const claimed = await tx.deviceAuthorization.updateMany({
    where: { userCodeHash, status: 'pending', expiresAt: { gt: now } },
    data: { status: decision, accountId, decidedAt: now },
  });
  if (claimed.count === 0) return null;
  const row = await tx.deviceAuthorization.findUnique({ where: { userCodeHash }, select: ROW });
  return row ? asRow(row) : null;
}

/** The polled row, locked until the transaction ends (polls of one device queue behind each other). */
export async function lockByDeviceCode(tx: Tx, deviceCodeHash: string): Promise<DeviceRow | null> {
  const [locked] = await tx.$queryRaw<{ id: string }[]>`SELECT id FROM device_authorizations WHERE device_code_hash = ${deviceCodeHash} FOR UPDATE`;
  if (!locked) return null;
  const row = await tx.deviceAuthorization.findUnique({ where: { id: locked.id }, select: ROW });
  return row ? asRow(row) : null;
}

export async function recordPoll(tx: Tx, id: string, at: Date, intervalSeconds: number): Promise<void> {
  await tx.deviceAuthorization.update({ where: { id }, data: { lastPolledAt: at, intervalSeconds }, select: { id: true } });
}

/** The single exchange: approved → exchanged; false when another exchange (or expiry) came first. */
export async function markExchanged(tx: Tx, id: string, now: Date): Promise<boolean> {
  const done = await tx.deviceAuthorization.updateMany({ where: { id, status: 'approved', expiresAt: { gt: now } }, data: { status: 'exchanged', lastPolledAt: now } });
  return done.count === 1;
}
