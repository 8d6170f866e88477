// The authorization server's queries (API.md section 13): its signing keys, read and rotated
// under a transaction-level advisory lock so one instance at a time creates or drops a key.
import type { Db, DbHandle, Tx } from '../store.js';
import { deleteGrants, GRANT_KIND } from '../oauth-revocation/store.js';

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
  accountId: string | null;
  expiresAt: Date | null;
}

export async function upsertModel(db: Db, m: ModelWrite): Promise<void> {
  const data = { payload: m.payload as object, grantId: m.grantId, uid: m.uid, userCode: m.userCode, accountId: m.accountId, expiresAt: m.expiresAt };
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

/** Marks the model consumed; false when it already was (or is gone): someone else used it first. */
export async function consumeModel(db: Db, kind: string, id: string, now: Date): Promise<boolean> {
  const { count } = await db.oAuthModel.updateMany({ where: { kind, id, consumedAt: null }, data: { consumedAt: now } });
  return count === 1;
}

/** The grant a stored code or token belongs to. */
export async function grantIdOf(db: Db, kind: string, id: string): Promise<string | null> {
  const row = await db.oAuthModel.findUnique({ where: { kind_id: { kind, id } }, select: { grantId: true } });
  return row?.grantId ?? null;
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
  /** Owned by an organization (API.md section 18): its verified members are allowed too. */
  ownerIsOrg: boolean;
}

export async function findOAuthTunnel(db: Db, where: { subdomain: string; slug: string } | { customDomain: string }): Promise<OAuthTunnelRow | null> {
  const row = await db.tunnel.findFirst({
    where: { access: 'oauth', ...('customDomain' in where ? { customDomain: where.customDomain } : { subdomain: where.subdomain, account: { slug: where.slug } }) },
    select: { id: true, accountId: true, subdomain: true, customDomain: true, allowedEmails: true, account: { select: { slug: true, kind: true } } },
  });
  return (
    row && { id: row.id, ownerId: row.accountId, subdomain: row.subdomain, customDomain: row.customDomain, allowedEmails: row.allowedEmails, slug: row.account.slug, ownerIsOrg: row.account.kind === 'org' }
  );
}

export function findAccountForGrant(db: Db, id: string): Promise<{ id: string; email: string; emailVerified: boolean } | null> {
  // A person only: an organization is never the subject of a grant.
  return db.account.findFirst({ where: { id, kind: 'person' }, select: { id: true, email: true, emailVerified: true } });
}

/** Account id → address, for the holders of a tunnel owner's grant list (one query). */
export async function holderEmails(db: Db, ids: readonly string[]): Promise<Map<string, string>> {
  if (ids.length === 0) return new Map();
  const rows = await db.account.findMany({ where: { id: { in: [...ids] } }, select: { id: true, email: true } });
  return new Map(rows.map((r) => [r.id, r.email]));
}

/** A stored grant, as the console lists it. */
export interface GrantRow {
  id: string;
  accountId: string;
  clientId: string;
  /** Resource indicator → its scopes (space-separated). */
  resources: Record<string, string>;
  createdAt: Date;
  lastUsedAt: Date | null;
  /** The tunnel it was given for. */
  tunnelId: string | null;
}


function grantOf(r: { id: string; payload: unknown; usedAt: Date | null; tunnelId: string | null }): GrantRow | null {
  const p = r.payload as { accountId?: unknown; clientId?: unknown; resources?: unknown; iat?: unknown };
  if (typeof p.accountId !== 'string' || typeof p.clientId !== 'string') return null;
  const resources = typeof p.resources === 'object' && p.resources !== null ? (p.resources as Record<string, string>) : {};
  return { id: r.id, accountId: p.accountId, clientId: p.clientId, resources, createdAt: new Date(typeof p.iat === 'number' ? p.iat * 1000 : 0), lastUsedAt: r.usedAt, tunnelId: r.tunnelId };
}

/** The account's live grants, newest first. */
export async function selectAccountGrants(db: Db, accountId: string, now: Date): Promise<GrantRow[]> {
  const rows = await db.oAuthModel.findMany({ where: { kind: GRANT_KIND, accountId, ...unexpired(now) }, select: { id: true, payload: true, usedAt: true, tunnelId: true } });
  return rows.map(grantOf).filter((g): g is GrantRow => g !== null).sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime());
}

/** Live grants given for the tunnel (grants from before grants named theirs: by its /mcp URLs), newest first. */
export async function selectTunnelGrants(db: Db, tunnelId: string, resources: readonly string[], now: Date): Promise<GrantRow[]> {
  const rows = await db.$queryRaw<{ id: string; payload: unknown; usedAt: Date | null; tunnelId: string | null }[]>`
    SELECT id, payload, used_at AS "usedAt", tunnel_id AS "tunnelId" FROM oauth_models
    WHERE kind = ${GRANT_KIND} AND (expires_at IS NULL OR expires_at > ${now})
    AND (tunnel_id = ${tunnelId} OR (tunnel_id IS NULL AND payload->'resources' ?| ${[...resources]}::text[]))`;
  return rows.map(grantOf).filter((g): g is GrantRow => g !== null).sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime());
}

export async function findGrant(db: Db, id: string, now: Date): Promise<GrantRow | null> {
  const row = await db.oAuthModel.findFirst({ where: { kind: GRANT_KIND, id, ...unexpired(now) }, select: { id: true, payload: true, usedAt: true, tunnelId: true } });
  return row ? grantOf(row) : null;
}

/** The grant and everything it issued (codes, refresh tokens): gone in one statement. */
export const deleteGrantAndModels = (db: DbHandle, id: string): Promise<void> => deleteGrants(db, [id]);

export async function touchGrant(db: Db, id: string, at: Date): Promise<void> {
  await db.oAuthModel.updateMany({ where: { kind: GRANT_KIND, id }, data: { usedAt: at } });
}

/** Registered clients' names (dynamic registration); a metadata-document client is named by its URL. */
export async function clientNames(db: Db, ids: readonly string[]): Promise<Map<string, string>> {
  if (ids.length === 0) return new Map();
  const rows = await db.oAuthModel.findMany({ where: { kind: 'Client', id: { in: [...ids] } }, select: { id: true, payload: true } });
  return new Map(rows.map((r) => [r.id, String((r.payload as { client_name?: unknown }).client_name ?? r.id)]));
}


/** Marks a new grant as given for this tunnel (its id, not its URL). */
export async function setGrantTunnel(db: DbHandle, grantId: string, tunnelId: string): Promise<void> {
  await db.oAuthModel.updateMany({ where: { kind: GRANT_KIND, id: grantId }, data: { tunnelId } });
}

/** The tunnel a grant was given for (null: unknown grant, or one from before grants named theirs). */
export async function grantTunnelId(db: Db, grantId: string): Promise<string | null> {
  const row = await db.oAuthModel.findUnique({ where: { kind_id: { kind: GRANT_KIND, id: grantId } }, select: { tunnelId: true } });
  return row?.tunnelId ?? null;
}



/** A registered client that got tokens is in use: it no longer expires. */
export async function keepClient(db: Db, clientId: string): Promise<void> {
  await db.oAuthModel.updateMany({ where: { kind: 'Client', id: clientId, expiresAt: { not: null } }, data: { expiresAt: null } });
}

/** An operator-registered client as stored (oidc-provider's client metadata; the secret sealed). */
export interface StoredClient {
  client_id: string;
  client_name: string;
  redirect_uris: string[];
  application_type: 'web' | 'native';
  grant_types: string[];
  response_types: string[];
  token_endpoint_auth_method: string;
  client_id_issued_at: number;
  client_secret?: string;
  [flag: string]: unknown;
}

/** A client that never expires (the operator's). */
export async function insertClient(db: Db, clientId: string, metadata: StoredClient): Promise<void> {
  await db.oAuthModel.create({ data: { kind: 'Client', id: clientId, payload: metadata as object, expiresAt: null }, select: { id: true } });
}

export async function selectOperatorClients(db: Db, flag: string): Promise<StoredClient[]> {
  const rows = await db.$queryRaw<{ payload: StoredClient }[]>`
    SELECT payload FROM oauth_models WHERE kind = 'Client' AND (payload->>${flag}) = 'true' ORDER BY payload->>'client_id'`;
  return rows.map((r) => r.payload);
}

/** The client, its grants and everything they issued; false when there was no such client. */
export async function deleteClientModels(db: Db, clientId: string): Promise<boolean> {
  return db.$transaction(async (tx) => {
    const { count } = await tx.oAuthModel.deleteMany({ where: { kind: 'Client', id: clientId } });
    if (count === 0) return false;
    const grants = await tx.$queryRaw<{ id: string }[]>`SELECT id FROM oauth_models WHERE kind = ${GRANT_KIND} AND payload->>'clientId' = ${clientId}`;
    await deleteGrants(tx, grants.map((g) => g.id));
    return true;
  });
}
