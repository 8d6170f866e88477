// The accounts' queries: the account row (sign-up, the login read, verification, slug, email,
// password, deletion), its single-use email tokens, what the account view shows, and what the
// first proof of an address removes.
import type { DbHandle, Sql, Tx } from '../store.js';
import { sessionColumns, type SessionRow } from '../sessions/store.js';

// --- the account row

export function findAccountByEmail(db: DbHandle, emailNormalized: string): Promise<{ id: string; email: string } | null> {
  // A person's: an organization's row (kind 'org') has no address to find it by.
  return db.account.findFirst({ where: { emailNormalized, kind: 'person' }, select: { id: true, email: true } });
}

export interface LoginAccount {
  id: string;
  email: string;
  emailVerified: boolean;
  passwordHash: string | null;
  /** The client's network is one the account has signed in from before. */
  knownNetwork: boolean;
  /** Two-step sign-in is on. */
  twoStep: boolean;
}

/**
 * The account and whether it knows the client's network, in one indexed statement straight on
 * node-postgres: Prisma's model API builds, runs and shapes a relation filter in the client, and
 * even its raw path plans and maps each result, which showed in the CPU of a login.
 */
export async function findLoginAccount(sql: Sql, emailKey: string, network: string): Promise<LoginAccount | null> {
  const [row] = await sql<LoginAccount>(
    `SELECT a.id, a.email, a.email_verified AS "emailVerified", a.password_hash AS "passwordHash",
      EXISTS (SELECT 1 FROM known_networks n WHERE n.account_id = a.id AND n.network = $1) AS "knownNetwork",
      EXISTS (SELECT 1 FROM totp_credentials t WHERE t.account_id = a.id AND t.enabled_at IS NOT NULL) AS "twoStep"
    FROM accounts a WHERE a.email_normalized = $2 AND a.kind = 'person'`,
    [network, emailKey],
  );
  return row ?? null;
}

export interface NewPasswordAccount {
  id: string;
  email: string;
  emailNormalized: string;
  passwordHash: string;
  slug: string;
  createdAt: Date;
}

export function insertPasswordAccount(tx: Tx, account: NewPasswordAccount): Promise<{ id: string; email: string; emailVerified: boolean; slug: string }> {
  return tx.account.create({ data: account, select: { id: true, email: true, emailVerified: true, slug: true } });
}

export function readAccountState(db: DbHandle, accountId: string): Promise<{ email: string; emailVerified: boolean; slug: string } | null> {
  return db.account.findUnique({ where: { id: accountId }, select: { email: true, emailVerified: true, slug: true } });
}

/** Marks the address verified; true when it was not (the first proof of the address). */
export async function markVerified(tx: DbHandle, accountId: string): Promise<boolean> {
  const { count } = await tx.account.updateMany({ where: { id: accountId, emailVerified: false }, data: { emailVerified: true } });
  return count === 1;
}

/** The welcome email goes once per account, ever: true for the one caller that claims it. */
export async function claimWelcome(tx: DbHandle, accountId: string, now: Date): Promise<boolean> {
  const { count } = await tx.account.updateMany({ where: { id: accountId, welcomeSentAt: null }, data: { welcomeSentAt: now } });
  return count === 1;
}

export async function setSlug(tx: DbHandle, accountId: string, slug: string): Promise<void> {
  await tx.account.update({ where: { id: accountId }, data: { slug } });
}

/** The new address, proved by its link: verified with it. */
export async function setEmail(tx: DbHandle, accountId: string, email: string, emailNormalized: string): Promise<void> {
  await tx.account.update({ where: { id: accountId }, data: { email, emailNormalized, emailVerified: true } });
}

/** A reset: the new hash, and the address proved by the link. */
export async function setResetPassword(tx: DbHandle, accountId: string, passwordHash: string): Promise<{ email: string }> {
  return tx.account.update({ where: { id: accountId }, data: { passwordHash, emailVerified: true }, select: { email: true } });
}

export async function setPassword(tx: DbHandle, accountId: string, passwordHash: string): Promise<void> {
  await tx.account.update({ where: { id: accountId }, data: { passwordHash } });
}

/** What an account's deletion must clean up after the row is gone: its sessions and tunnels. */
export async function readDeletionLeftovers(
  tx: Tx,
  accountId: string,
): Promise<{ credentials: string[]; tunnels: { id: string; subdomain: string; customDomain: string | null }[] }> {
  const sessions = await tx.session.findMany({ where: { accountId }, select: { tokenHash: true } });
  const tokens = await tx.serviceToken.findMany({ where: { accountId }, select: { tokenHash: true } });
  const tunnels = await tx.tunnel.findMany({ where: { accountId }, select: { id: true, subdomain: true, customDomain: true } });
  return { credentials: [...sessions, ...tokens].map((c) => c.tokenHash), tunnels };
}

/** One statement: every owned table cascades. */
export async function deleteAccountRow(tx: Tx, accountId: string): Promise<void> {
  await tx.account.delete({ where: { id: accountId } });
}

// --- email tokens (links)

export interface EmailTokenRow {
  id: string;
  accountId: string;
  kind: string;
  newEmail: string | null;
  usedAt: Date | null;
  expiresAt: Date;
}

export async function insertEmailToken(
  tx: DbHandle,
  row: { accountId: string; kind: string; tokenHash: string; newEmail: string | null; createdAt: Date; expiresAt: Date },
): Promise<void> {
  await tx.emailToken.create({ data: row });
}

export function findEmailTokenByHash(db: DbHandle, tokenHash: string): Promise<EmailTokenRow | null> {
  return db.emailToken.findUnique({
    where: { tokenHash },
    select: { id: true, accountId: true, kind: true, newEmail: true, usedAt: true, expiresAt: true },
  });
}

/** Marks the token used; false when another request used it first (single use under races). */
export async function markEmailTokenUsed(tx: DbHandle, id: string, now: Date): Promise<boolean> {
  const { count } = await tx.emailToken.updateMany({ where: { id, usedAt: null }, data: { usedAt: now } });
  return count === 1;
}

/** Every outstanding link of this kind stops working. */
export async function voidEmailTokens(tx: DbHandle, accountId: string, kind: string, now: Date): Promise<void> {
  await tx.emailToken.updateMany({ where: { accountId, kind, usedAt: null }, data: { usedAt: now } });
}

// --- the first proof of an address (address-proof.ts)

/** Removes the identities linked while the address was unverified; answers their providers. */
export async function removeIdentitiesLinkedWhileUnverified(tx: Tx, accountId: string): Promise<void> {
  await tx.linkedIdentity.deleteMany({ where: { accountId, linkedWhileUnverified: true } });
}

export async function voidPendingLinks(tx: Tx, accountId: string, now: Date): Promise<void> {
  await tx.pendingLink.updateMany({ where: { accountId, usedAt: null }, data: { usedAt: now } });
}

/**
 * Removes every passkey, TOTP credential, recovery code and service token of the account;
 * answers the passkeys removed and whether TOTP was on.
 */
export async function removeFactors(
  tx: Tx,
  accountId: string,
): Promise<{ passkeys: { id: string; name: string }[]; totpWasOn: boolean; serviceTokens: { id: string; name: string; tokenHash: string }[] }> {
  const [passkeys, totp, serviceTokens] = await Promise.all([
    tx.passkey.findMany({ where: { accountId }, select: { id: true, name: true } }),
    tx.totpCredential.findUnique({ where: { accountId }, select: { enabledAt: true } }),
    tx.serviceToken.findMany({ where: { accountId }, select: { id: true, name: true, tokenHash: true } }),
  ]);
  await tx.passkey.deleteMany({ where: { accountId } });
  await tx.totpCredential.deleteMany({ where: { accountId } });
  await tx.recoveryCode.deleteMany({ where: { accountId } });
  await tx.serviceToken.deleteMany({ where: { accountId } });
  return { passkeys, totpWasOn: totp?.enabledAt != null, serviceTokens };
}

// --- the account view (account-view.ts)

export interface AccountViewRow {
  id: string;
  email: string;
  emailVerified: boolean;
  slug: string;
  plan: string;
  passwordHash: string | null;
  lastLoginAt: Date | null;
  lastLoginIp: string | null;
  linkedIdentities: { provider: string; email: string; linkedAt: Date }[];
  totpOn: boolean;
  unusedRecoveryCodes: number;
  passkeys: number;
  /** The database's version of all of the above (migration 20261207000000). */
  viewVersion: number;
}

// The view's columns of account `a` (every one but its id): its row, its linked identities as
// JSON, the counts as scalar subqueries, each on its account_id index, and the version the
// database keeps of all of it (migration 20261207000000).
const VIEW_COLUMNS = `a.email, a.email_verified AS "emailVerified", a.slug, a.plan, a.password_hash AS "passwordHash",
    a.last_login_at AS "lastLoginAt", a.last_login_ip AS "lastLoginIp",
    (SELECT coalesce(json_agg(json_build_object('provider', l.provider, 'email', l.email, 'linkedAt', l.linked_at) ORDER BY l.linked_at), '[]')
       FROM linked_identities l WHERE l.account_id = a.id) AS "linkedIdentities",
    EXISTS (SELECT 1 FROM totp_credentials t WHERE t.account_id = a.id AND t.enabled_at IS NOT NULL) AS "totpOn",
    (SELECT count(*)::int FROM recovery_codes r WHERE r.account_id = a.id AND r.used_at IS NULL) AS "unusedRecoveryCodes",
    (SELECT count(*)::int FROM passkeys p WHERE p.account_id = a.id) AS passkeys,
    a.view_version::float8 AS "viewVersion"`;

/**
 * The account view in one statement straight on node-postgres (a cold cache reads it for every
 * signed-in dashboard load). Through the model API it was several statements and Prisma's result
 * mapping.
 */
const ACCOUNT_VIEW = `SELECT a.id, ${VIEW_COLUMNS} FROM accounts a WHERE a.id = $1`;

type ViewColumns = Omit<AccountViewRow, 'id' | 'linkedIdentities'> & { linkedIdentities: { provider: string; email: string; linkedAt: string }[] };

function viewRowOf(id: string, row: ViewColumns): AccountViewRow {
  return {
    id,
    email: row.email,
    emailVerified: row.emailVerified,
    slug: row.slug,
    plan: row.plan,
    passwordHash: row.passwordHash,
    lastLoginAt: row.lastLoginAt,
    lastLoginIp: row.lastLoginIp,
    linkedIdentities: row.linkedIdentities.map((l) => ({ ...l, linkedAt: new Date(l.linkedAt) })),
    totpOn: row.totpOn,
    unusedRecoveryCodes: row.unusedRecoveryCodes,
    passkeys: row.passkeys,
    viewVersion: row.viewVersion,
  };
}

export async function readAccountViewRow(sql: Sql, accountId: string): Promise<AccountViewRow | null> {
  const [row] = await sql<ViewColumns & { id: string }>(ACCOUNT_VIEW, [accountId]);
  return row ? viewRowOf(row.id, row) : null;
}

/** The database's version of the account's view; null when the account is gone. */
export async function readViewVersion(sql: Sql, accountId: string): Promise<number | null> {
  const [row] = await sql<{ v: number }>('SELECT view_version::float8 AS v FROM accounts WHERE id = $1', [accountId]);
  return row?.v ?? null;
}

/**
 * A session by its token's hash and its account's view, in one statement: what a signed-in page
 * that shows the account needs when neither is cached (account-view.ts).
 */
const SESSION_WITH_VIEW = `SELECT ${sessionColumns('s')}, ${VIEW_COLUMNS}
  FROM sessions s JOIN accounts a ON a.id = s.account_id WHERE s.token_hash = $1`;

export async function readSessionWithView(sql: Sql, tokenHash: string): Promise<{ session: SessionRow; view: AccountViewRow } | null> {
  const [row] = await sql<SessionRow & ViewColumns>(SESSION_WITH_VIEW, [tokenHash]);
  if (!row) return null;
  const session: SessionRow = {
    id: row.id,
    accountId: row.accountId,
    expiresAt: row.expiresAt,
    lastSeenAt: row.lastSeenAt,
    createdAt: row.createdAt,
    authenticatedAt: row.authenticatedAt,
  };
  return { session, view: viewRowOf(row.accountId, row) };
}
