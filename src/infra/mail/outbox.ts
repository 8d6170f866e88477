// Emails are rows written in the same transaction as the change that causes them, so a change
// and its email commit or roll back together; the worker delivers them afterwards. Bodies are
// stored sealed (AES-256-GCM): a link email is a credential until it is sent, and a sent row is
// deleted. A link email carries its link's expiry: still unsent then, it is dropped, not sent.
import type { Cipher } from '../crypto/cipher.js';
import type { Tx } from '../db/client.js';

/** An email as the domain renders it (domain/emails/messages.ts) and the worker sends it. */
export interface RenderedEmail {
  /** Sent as X-Email-Kind. */
  kind: string;
  subject: string;
  text: string;
  html: string;
  /** Extra headers (List-Unsubscribe…), stored sealed like the bodies. */
  headers?: Record<string, string>;
}


export interface Outbox {
  /**
   * Queues the email in the caller's transaction; answers whether it did. An address without an
   * `@` (an organization's empty one above all) is never queued: nothing would deliver it.
   */
  enqueue(tx: Tx, to: string, email: RenderedEmail, accountId: string | null, linkExpiresAt?: Date): Promise<boolean>;
  /** The bodies as enqueue stores them, for a statement that writes the row itself (sign-in). */
  seal(email: RenderedEmail): { textBody: string; htmlBody: string };
}

/** Something that can be an address: a local part, an `@`, a domain. */
const isDeliverable = (to: string): boolean => {
  const at = to.lastIndexOf('@');
  return at > 0 && at < to.length - 1;
};

export function createOutbox(cipher: Cipher): Outbox {
  return {
    seal: (email) => ({ textBody: cipher.seal(email.text), htmlBody: cipher.seal(email.html) }),
    async enqueue(tx, to, email, accountId, linkExpiresAt) {
      if (!isDeliverable(to)) return false;
      await tx.outboxEmail.create({
        data: {
          accountId,
          kind: email.kind,
          toAddress: to,
          subject: email.subject,
          textBody: cipher.seal(email.text),
          htmlBody: cipher.seal(email.html),
          expiresAt: linkExpiresAt ?? null,
          extraHeaders: email.headers ? cipher.seal(JSON.stringify(email.headers)) : null,
        },
      });
      return true;
    },
  };
}
