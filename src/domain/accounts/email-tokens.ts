// Single-use credentials carried by email links. Verification and email-change links live 24
// hours, reset links 1 hour (API.md section 3).
import { generateToken, hashToken, isWellFormedToken } from '../../infra/crypto/tokens.js';
import type { Db } from '../../infra/db/client.js';
import type { Tx } from '../../infra/mail/outbox.js';

export type EmailTokenKind = 'verify-email' | 'change-email' | 'reset-password';

export const EMAIL_TOKEN_TTL_MS: Record<EmailTokenKind, number> = {
  'verify-email': 24 * 3600_000,
  'change-email': 24 * 3600_000,
  'reset-password': 3600_000,
};

export async function issueEmailToken(
  tx: Tx,
  now: Date,
  input: { accountId: string; kind: EmailTokenKind; newEmail?: string },
): Promise<{ token: string; expiresAt: Date }> {
  const token = generateToken();
  const expiresAt = new Date(now.getTime() + EMAIL_TOKEN_TTL_MS[input.kind]);
  await tx.emailToken.create({
    data: {
      accountId: input.accountId,
      kind: input.kind,
      tokenHash: hashToken(token),
      newEmail: input.newEmail ?? null,
      createdAt: now,
      expiresAt,
    },
  });
  return { token, expiresAt };
}

export interface EmailTokenRow {
  id: string;
  accountId: string;
  newEmail: string | null;
  usedAt: Date | null;
  expiresAt: Date;
}

/** Looks a presented token up (used or not); null when unknown or of another kind. */
export async function findEmailToken(db: Db | Tx, token: unknown, kind: EmailTokenKind): Promise<EmailTokenRow | null> {
  if (!isWellFormedToken(token)) return null;
  const row = await db.emailToken.findUnique({
    where: { tokenHash: hashToken(token) },
    select: { id: true, accountId: true, kind: true, newEmail: true, usedAt: true, expiresAt: true },
  });
  return row && row.kind === kind ? row : null;
}

/** Marks the token used; false when another request used it first (single use under races). */
export async function markEmailTokenUsed(tx: Tx, id: string, now: Date): Promise<boolean> {
  const { count } = await tx.emailToken.updateMany({ where: { id, usedAt: null }, data: { usedAt: now } });
  return count === 1;
}
