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

/** One stored model of the authorization server (oidc-provider's adapter contract). */
export interface ModelRow {
  payload: Record<string, unknown>;
  consumed: boolean;
}

export interface ModelWrite {
  kind: string;
  id: string;
  payload: Record<string, unknown>;
  grantId: string | null;
  uid: string | null;
  userCode: string | null;
  expiresAt: Date | null;
}

export async function upsertModel(db: Db, m: ModelWrite): Promise<void> {
  const data = { payload: m.payload as object, grantId: m.grantId, uid: m.uid, userCode: m.userCode, expiresAt: m.expiresAt };
  await db.oAuthModel.upsert({ where: { kind_id: { kind: m.kind, id: m.id } }, create: { kind: m.kind, id: m.id, ...data }, update: data, select: { id: true } });
}

const unexpired = (now: Date) => ({ OR: [{ expiresAt: null }, { expiresAt: { gt: now } }] });

function rowOf(r: { payload: unknown; consumedAt: Date | null } | null): ModelRow | null {
  return r ? { payload: r.payload as Record<string, unknown>, consumed: r.consumedAt !== null } : null;
}

export async function findModel(db: Db, kind: string, id: string, now: Date): Promise<ModelRow | null> {
  return rowOf(await db.oAuthModel.findFirst({ where: { kind, id, ...unexpired(now) }, select: { payload: true, consumedAt: true } }));
}

export async function findModelBy(db: Db, kind: string, by: { uid: string } | { userCode: string }, now: Date): Promise<ModelRow | null> {
  return rowOf(await db.oAuthModel.findFirst({ where: { kind, ...by, ...unexpired(now) }, select: { payload: true, consumedAt: true } }));
}

export async function consumeModel(db: Db, kind: string, id: string, now: Date): Promise<void> {
  await db.oAuthModel.updateMany({ where: { kind, id, consumedAt: null }, data: { consumedAt: now } });
}

export async function destroyModel(db: Db, kind: string, id: string): Promise<void> {
  await db.oAuthModel.deleteMany({ where: { kind, id } });
}

export async function destroyGrantModels(db: Db, grantId: string): Promise<void> {
  await db.oAuthModel.deleteMany({ where: { grantId } });
}

/** An `oauth` tunnel's facts for the authorization server (not a hot path: Prisma is fine). */
export interface OAuthTunnelRow {
  id: string;
  ownerId: string;
  subdomain: string;
  customDomain: string | null;
  allowedEmails: string[];
  slug: string;
}

export async function findOAuthTunnel(db: Db, where: { subdomain: string; slug: string } | { customDomain: string }): Promise<OAuthTunnelRow | null> {
  const row = await db.tunnel.findFirst({
    where: { access: 'oauth', ...('customDomain' in where ? { customDomain: where.customDomain } : { subdomain: where.subdomain, account: { slug: where.slug } }) },
    select: { id: true, accountId: true, subdomain: true, customDomain: true, allowedEmails: true, account: { select: { slug: true } } },
  });
  return row && { id: row.id, ownerId: row.accountId, subdomain: row.subdomain, customDomain: row.customDomain, allowedEmails: row.allowedEmails, slug: row.account.slug };
}

export function findAccountForGrant(db: Db, id: string): Promise<{ id: string; email: string } | null> {
  return db.account.findUnique({ where: { id }, select: { id: true, email: true } });
}
