// Emails are rows written in the same transaction as the change that causes them, so a change
// and its email commit or roll back together; the worker delivers them afterwards.
import type { Prisma } from '../../generated/prisma/client.js';
import type { RenderedEmail } from './templates.js';

export type Tx = Prisma.TransactionClient;

export async function enqueueEmail(tx: Tx, to: string, email: RenderedEmail, accountId: string | null): Promise<void> {
  await tx.outboxEmail.create({
    data: {
      accountId,
      kind: email.kind,
      toAddress: to,
      subject: email.subject,
      textBody: email.text,
      htmlBody: email.html,
    },
  });
}
