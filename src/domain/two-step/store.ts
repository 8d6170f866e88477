// Two-step sign-in's queries: the TOTP credential (sealed secret, pending setup, last used step),
// recovery codes (only their hashes), and the challenges of sign-ins waiting for their second step.
import { knownNetworkOf, type DbHandle, type Tx } from '../store.js';

export interface TotpRow {
  secret: string;
  enabledAt: Date | null;
}

/** Whether a first step on the account must be followed by a second. */
export async function readTotpOn(db: DbHandle, accountId: string): Promise<boolean> {
  const row = await db.totpCredential.findUnique({ where: { accountId }, select: { enabledAt: true } });
  return row?.enabledAt != null;
}

/** What a setup needs of the account: its address, whether it has a password, whether TOTP is on. */
export async function readSetupAccount(db: DbHandle, accountId: string): Promise<{ email: string; hasPassword: boolean; totpOn: boolean } | null> {
  const a = await db.account.findUnique({
    where: { id: accountId },
    select: { email: true, passwordHash: true, totpCredential: { select: { enabledAt: true } } },
  });
  return a && { email: a.email, hasPassword: a.passwordHash !== null, totpOn: a.totpCredential?.enabledAt != null };
}

/** A new pending setup replaces a pending one, never an enabled one; false when TOTP is on. */
export async function writePendingTotp(db: DbHandle, accountId: string, secret: string, pendingUntil: Date, now: Date): Promise<boolean> {
  const written = await db.$executeRaw`
    INSERT INTO totp_credentials (account_id, secret, pending_until, created_at) VALUES (${accountId}, ${secret}, ${pendingUntil}, ${now})
    ON CONFLICT (account_id) DO UPDATE SET secret = EXCLUDED.secret, pending_until = EXCLUDED.pending_until,
      last_used_step = NULL, created_at = EXCLUDED.created_at
    WHERE totp_credentials.enabled_at IS NULL`;
  return written === 1;
}

export function readPendingTotp(db: DbHandle, accountId: string): Promise<(TotpRow & { pendingUntil: Date | null; email: string }) | null> {
  return db.totpCredential
    .findUnique({ where: { accountId }, select: { secret: true, enabledAt: true, pendingUntil: true, account: { select: { email: true } } } })
    .then((r) => r && { secret: r.secret, enabledAt: r.enabledAt, pendingUntil: r.pendingUntil, email: r.account.email });
}

/** Turns the pending setup with this secret on, its confirming step used; false when it is gone or changed. */
export async function enableTotp(tx: Tx, accountId: string, secret: string, step: bigint, now: Date): Promise<boolean> {
  const { count } = await tx.totpCredential.updateMany({
    where: { accountId, enabledAt: null, pendingUntil: { gt: now }, secret },
    data: { enabledAt: now, pendingUntil: null, lastUsedStep: step },
  });
  return count === 1;
}

/** Turns two-step off: the credential and the recovery codes go. */
export async function deleteTotp(tx: Tx, accountId: string): Promise<void> {
  await tx.totpCredential.delete({ where: { accountId } });
  await tx.recoveryCode.deleteMany({ where: { accountId } });
}

/** Uses a TOTP step once: only when it is later than the last one used (one conditional UPDATE). */
export async function useTotpStep(tx: DbHandle, accountId: string, step: bigint): Promise<boolean> {
  const { count } = await tx.totpCredential.updateMany({
    where: { accountId, enabledAt: { not: null }, OR: [{ lastUsedStep: null }, { lastUsedStep: { lt: step } }] },
    data: { lastUsedStep: step },
  });
  return count === 1;
}

/** Voids every earlier recovery code and stores the new hashes. */
export async function replaceRecoveryCodeHashes(tx: Tx, accountId: string, hashes: string[], now: Date): Promise<void> {
  await tx.recoveryCode.deleteMany({ where: { accountId } });
  await tx.recoveryCode.createMany({ data: hashes.map((codeHash) => ({ accountId, codeHash, createdAt: now })) });
}

/** Uses a recovery code once: only the request that flips used_at succeeds. */
export async function useRecoveryCodeHash(tx: DbHandle, accountId: string, codeHash: string, now: Date): Promise<boolean> {
  const { count } = await tx.recoveryCode.updateMany({ where: { accountId, codeHash, usedAt: null }, data: { usedAt: now } });
  return count === 1;
}

/** The account as a code is checked against it: its TOTP credential and who the attempt counts against. */
export interface SecondStepTarget {
  id: string;
  email: string;
  emailNormalized: string;
  emailVerified: boolean;
  /** Whether the client's network is one the account has signed in from (the sign-in limits). */
  knownNetwork: boolean;
  totp: TotpRow | null;
}

export async function readSecondStepTarget(db: DbHandle, accountId: string, ip: string): Promise<SecondStepTarget | null> {
  const account = await db.account.findUnique({
    where: { id: accountId },
    select: {
      id: true,
      email: true,
      emailNormalized: true,
      emailVerified: true,
      knownNetworks: knownNetworkOf(ip),
      totpCredential: { select: { secret: true, enabledAt: true } },
    },
  });
  if (!account) return null;
  const { knownNetworks, totpCredential, ...rest } = account;
  return { ...rest, knownNetwork: knownNetworks.length > 0, totp: totpCredential };
}

/** A new challenge; the account's spent ones (expired or used) go with it. */
export async function insertChallenge(
  db: DbHandle,
  row: { accountId: string; tokenHash: string; method: string; pendingLinkId: string | null; createdAt: Date; expiresAt: Date },
): Promise<void> {
  await db.mfaChallenge.deleteMany({ where: { accountId: row.accountId, OR: [{ expiresAt: { lte: row.createdAt } }, { usedAt: { not: null } }] } });
  await db.mfaChallenge.create({ data: row });
}

export interface CountedChallenge {
  id: string;
  accountId: string;
  method: string;
  pendingLinkId: string | null;
  /** Attempts so far, this one included. */
  failures: number;
  expiresAt: Date;
}

/** Counts an attempt on the live challenge of this token hash before anything is checked; null when there is none. */
export async function countChallengeAttempt(db: DbHandle, tokenHash: string, now: Date): Promise<CountedChallenge | null> {
  const [c] = await db.$queryRaw<{ id: string; account_id: string; method: string; pending_link_id: string | null; failures: number; expires_at: Date }[]>`
    UPDATE mfa_challenges SET failures = failures + 1
    WHERE token_hash = ${tokenHash} AND used_at IS NULL AND expires_at > ${now}
    RETURNING id, account_id, method, pending_link_id, failures, expires_at`;
  return c ? { id: c.id, accountId: c.account_id, method: c.method, pendingLinkId: c.pending_link_id, failures: c.failures, expiresAt: c.expires_at } : null;
}

/** Uses the challenge once; false when it was used or expired meanwhile. */
export async function useChallenge(tx: Tx, id: string, now: Date): Promise<boolean> {
  const { count } = await tx.mfaChallenge.updateMany({ where: { id, usedAt: null, expiresAt: { gt: now } }, data: { usedAt: now } });
  return count === 1;
}
