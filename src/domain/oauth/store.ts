// The authorization server's queries (API.md section 13): its signing keys, read and rotated
// under a transaction-level advisory lock so one instance at a time creates or drops a key.
import type { Db, Tx } from '../store.js';

export interface SigningKeyRow {
  kid: string;
  alg: string;
  privateJwk: string;
  publicJwk: string;
  activeFrom: Date;
}

const KEY = { kid: true, alg: true, privateJwk: true, publicJwk: true, activeFrom: true } as const;

/** Arbitrary, distinct from the other advisory locks (migrations, purge, names). */
const KEYS_LOCK_ID = 730_118_013;

/** Runs `work` with the key table locked against other instances' rotations (they wait). */
export function withKeysLocked<T>(db: Db, work: (tx: Tx) => Promise<T>): Promise<T> {
  return db.$transaction(async (tx) => {
    await tx.$executeRaw`SELECT pg_advisory_xact_lock(${KEYS_LOCK_ID})`;
    return work(tx);
  });
}

/** Every key, newest activation first. */
export function selectSigningKeys(db: Db | Tx): Promise<SigningKeyRow[]> {
  return db.oAuthSigningKey.findMany({ select: KEY, orderBy: { activeFrom: 'desc' } });
}

export async function insertSigningKey(tx: Tx, row: SigningKeyRow): Promise<void> {
  await tx.oAuthSigningKey.create({ data: row, select: { kid: true } });
}

export async function deleteSigningKeys(tx: Tx, kids: readonly string[]): Promise<void> {
  if (kids.length > 0) await tx.oAuthSigningKey.deleteMany({ where: { kid: { in: [...kids] } } });
}
