// The domain's door to the database. Every query lives in the store of its area
// (src/domain/<area>/store.ts); flows call store functions, handing them `deps.db` or the `tx` of
// the transaction they run in, and never touch the client themselves (`npm run lint` proves it:
// only store modules import the database client, and no other domain or adapter file reads a
// member of `db` or `tx`). This root store holds what every area shares: the handles' types and
// the transaction that commits several stores' writes together.
import type { Db, DbHandle, Sql, Tx } from '../infra/db/client.js';
import { networkOf } from './network.js';

export type { Db, DbHandle, Sql, Tx };

/** Runs `work` in one transaction: its stores' writes commit or roll back together. */
export function inTransaction<T>(db: Db, work: (tx: Tx) => Promise<T>): Promise<T> {
  return db.$transaction(work);
}

/**
 * The relation select of an account's known network for a client address (the sign-in limits):
 * one row when the account has signed in from that network, none otherwise.
 */
export const knownNetworkOf = (ip: string) => ({ where: { network: networkOf(ip) ?? '' }, select: { network: true }, take: 1 }) as const;
