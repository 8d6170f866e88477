// Delivers outbox rows. Claims due rows with FOR UPDATE SKIP LOCKED (several instances can run
// workers), deletes a row once sent, and backs off exponentially on failure, so an SMTP outage
// delays mail but never loses it and never fails the request that caused it.
import type { Logger } from 'pino';
import type { Cipher } from '../crypto/cipher.js';
import { isSealed } from '../crypto/cipher.js';
import type { Sql } from '../db/client.js';
import type { MailTransport } from './transport.js';

interface OutboxRow {
  id: string;
  kind: string;
  to_address: string;
  subject: string;
  text_body: string;
  html_body: string;
  attempts: number;
  expires_at: Date | null;
  extra_headers: string | null;
}

export interface MailWorkerOptions {
  /** Every statement of the worker: named prepared statements on the pool (ADR 19). */
  sql: Sql;
  transport: MailTransport;
  from: string;
  logger: Logger;
  /** Opens sealed bodies (src/infra/mail/outbox.ts). */
  cipher: Cipher;
  /** The application clock: a link email unsent when its link expires is dropped. */
  clock: () => Date;
  pollMs?: number;
  batchSize?: number;
  /** Base of the exponential backoff; attempt n waits base * 2^(n-1), capped at 10 minutes. */
  retryBaseMs?: number;
}

/**
 * Every instance, once per poll interval (however many batches a busy second drains): unsent
 * emails whose link has expired (a partial index on expires_at, so the sweep reads only such rows
 * however long the queue).
 */
export const OUTBOX_EXPIRED_SWEEP =
  'WITH d AS (DELETE FROM outbox_emails WHERE expires_at IS NOT NULL AND expires_at <= $1 RETURNING 1) SELECT count(*)::int AS n FROM d';
/** A row done with: sent, or dropped because its link expired. */
const OUTBOX_REMOVE = 'DELETE FROM outbox_emails WHERE id = $1';
const OUTBOX_RETRY = 'UPDATE outbox_emails SET attempts = attempts + 1, next_attempt_at = $2, last_error = $3 WHERE id = $1';

/**
 * Claims due rows with a lease in one statement: no transaction stays open while SMTP talks, and
 * a worker that dies mid-send leaves rows that become due again when the lease runs out. Due
 * rows are taken in next_attempt_at order, read off its index with the limit (a new email is due
 * when written, so that is oldest first; a retried one queues behind what is due before it).
 * RETURNING follows the table's physical order, not the subquery's: the claimed rows are sorted
 * again so a batch goes out oldest first.
 */
export const OUTBOX_CLAIM = `
  WITH claimed AS (
    UPDATE outbox_emails SET next_attempt_at = now() + interval '2 minutes'
    WHERE id IN (
      SELECT id FROM outbox_emails WHERE next_attempt_at <= now()
      ORDER BY next_attempt_at LIMIT $1 FOR UPDATE SKIP LOCKED)
    RETURNING id, kind, to_address, subject, text_body, html_body, attempts, expires_at, extra_headers, created_at)
  SELECT id, kind, to_address, subject, text_body, html_body, attempts, expires_at, extra_headers
  FROM claimed ORDER BY created_at, id`;

export class MailWorker {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  private again = false;
  private stopped = false;
  /** When the expired-link sweep last ran (the process's monotonic clock, not the application's). */
  private sweptAt = -Infinity;

  constructor(private readonly opts: MailWorkerOptions) {}

  start(): void {
    this.stopped = false;
    this.schedule(0);
  }

  /** Called after a transaction that enqueued mail: deliver now rather than at the next poll. */
  nudge(): void {
    if (this.stopped) return;
    if (this.running) {
      this.again = true;
      return;
    }
    this.schedule(0);
  }

  private schedule(ms: number): void {
    if (this.stopped) return;
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = null;
      this.running = this.drain().finally(() => {
        this.running = null;
        const next = this.again ? 0 : (this.opts.pollMs ?? 1000);
        this.again = false;
        this.schedule(next);
      });
    }, ms);
    this.timer.unref();
  }

  /**
   * Sends every due row; returns when none is left. Exposed for tests and shutdown. A batch that
   * claimed fewer rows than its size found the queue empty: no second claim to learn that (an
   * email enqueued meanwhile nudges, and the nudge drains again).
   */
  async drain(): Promise<void> {
    const size = this.opts.batchSize ?? 20;
    for (;;) {
      const { claimed, sent } = await this.sendBatch(size).catch((err: unknown) => {
        this.opts.logger.warn({ err: (err as Error).message }, 'mail outbox poll failed');
        return { claimed: 0, sent: 0 };
      });
      if (sent === 0 || claimed < size || this.stopped) return;
    }
  }

  private async sendBatch(size: number): Promise<{ claimed: number; sent: number }> {
    const { sql, transport, from, logger } = this.opts;
    const base = this.opts.retryBaseMs ?? 2000;
    // A link that has expired is worth nothing and must not arrive late: drop, never send. Once
    // per poll interval; the check before each send below covers a link expiring in between.
    const tick = performance.now();
    if (tick - this.sweptAt >= (this.opts.pollMs ?? 1000)) {
      this.sweptAt = tick;
      const [{ n: dropped } = { n: 0 }] = await sql<{ n: number }>(OUTBOX_EXPIRED_SWEEP, [this.opts.clock()]);
      if (dropped > 0) logger.warn({ dropped }, 'dropped unsent emails whose links had expired');
    }
    const rows = await sql<OutboxRow>(OUTBOX_CLAIM, [size]);
    let sent = 0;
    for (const row of rows) {
      // A slow server can hold a batch past a link's expiry: look again just before each send.
      if (row.expires_at && row.expires_at <= this.opts.clock()) {
        await sql(OUTBOX_REMOVE, [row.id]);
        logger.warn({ kind: row.kind }, 'dropped an unsent email whose link expired during its batch');
        continue;
      }
      try {
        await transport.send({
          id: row.id,
          kind: row.kind,
          from,
          to: row.to_address,
          subject: row.subject,
          text: this.open(row.text_body),
          html: this.open(row.html_body),
          ...(row.extra_headers ? { headers: JSON.parse(this.open(row.extra_headers)) as Record<string, string> } : {}),
        });
        await sql(OUTBOX_REMOVE, [row.id]);
        sent++;
      } catch (err) {
        const delay = Math.min(base * 2 ** row.attempts, 600_000);
        const message = String((err as Error).message).slice(0, 500);
        await sql(OUTBOX_RETRY, [row.id, new Date(Date.now() + delay), message]);
        logger.warn({ kind: row.kind, attempts: row.attempts + 1, retryInMs: delay, err: message }, 'email delivery failed; will retry');
      }
    }
    // When every claimed row failed, stop this drain: the backoff decides when to try again.
    return { claimed: rows.length, sent };
  }

  /** Bodies written before sealing existed (and the login alert, which carries no link) are plain. */
  private open(body: string): string {
    if (!isSealed(body)) return body;
    try {
      return this.opts.cipher.open(body);
    } catch {
      throw new Error('cannot open the sealed body: is ENCRYPTION_KEY the same on every instance?');
    }
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    await this.running;
  }
}
