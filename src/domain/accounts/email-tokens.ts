// Single-use credentials carried by email links. Verification and email-change links live 24
// hours, reset links 1 hour (API.md section 3).
import { generateToken, hashToken, isWellFormedToken } from '../../infra/crypto/tokens.js';
import type { DbHandle } from '../store.js';
import { findEmailTokenByHash, insertEmailToken, type EmailTokenRow } from './store.js';

export type EmailTokenKind = 'verify-email' | 'change-email' | 'reset-password';

export const EMAIL_TOKEN_TTL_MS: Record<EmailTokenKind, number> = {
  'verify-email': 24 * 3600_000,
  'change-email': 24 * 3600_000,
  'reset-password': 3600_000,
};

export async function issueEmailToken(
  tx: DbHandle,
  now: Date,
  input: { accountId: string; kind: EmailTokenKind; newEmail?: string },
): Promise<{ token: string; expiresAt: Date }> {
  const token = generateToken();
  const expiresAt = new Date(now.getTime() + EMAIL_TOKEN_TTL_MS[input.kind]);
  await insertEmailToken(tx, { accountId: input.accountId, kind: input.kind, tokenHash: hashToken(token), newEmail: input.newEmail ?? null, createdAt: now, expiresAt });
  return { token, expiresAt };
}

/** Looks a presented token up (used or not); null when unknown or of another kind. */
export async function findEmailToken(db: DbHandle, token: unknown, kind: EmailTokenKind): Promise<EmailTokenRow | null> {
  if (!isWellFormedToken(token)) return null;
  const row = await findEmailTokenByHash(db, hashToken(token));
  return row && row.kind === kind ? row : null;
}
