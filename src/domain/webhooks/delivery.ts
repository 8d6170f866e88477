// Delivers webhook events (API.md section 15) from the database, at least once. Every instance
// runs a worker; each claims due deliveries with a lease (webhooks/store.ts claimDue: FOR UPDATE
// SKIP LOCKED, so two workers never take the same row), posts them with no transaction open,
// then logs the attempt and moves the delivery on only while its lease still holds. A worker
// killed mid-delivery leaves its rows to come due again when the lease ends, longer than any
// attempt can take; a receiver that is down gets the retries of the schedule. An endpoint whose
// deliveries have all failed for five days is disabled, with the `webhook-disabled` notice (to
// its owner; for an organization's endpoint, to its owners and admins).
import type { Logger } from 'pino';
import type { Cipher } from '../../infra/crypto/cipher.js';
import type { Outbox } from '../../infra/mail/outbox.js';
import { FetchFailed, RefusedUrl, publicFetch, type PublicFetchOptions } from '../../infra/net/public-fetch.js';
import { inTransaction, type Db } from '../store.js';
import { webhookDisabled, type MailContext } from '../emails/messages.js';
import { membersAllowedTo } from '../membership/access.js';
import { connectionFailureText, statusAnswerText, timeoutText } from './delivery-errors.js';
import { signedHeaders } from './signing.js';
import { claimDue, disableFailingEndpoint, recordAttempt, type ClaimedDelivery } from './store.js';

/** Bytes of a receiver's answer read at most. */
export const RESPONSE_BYTES_MAX = 64 * 1024;
/** Failing this long with no success disables an endpoint. */
export const DISABLE_AFTER_MS = 5 * 24 * 3600_000;

export type DeliveryOutcome = 'delivered' | 'retrying' | 'failed';

export interface WebhookWorkerDeps {
  db: Db;
  cipher: Cipher;
  clock: () => Date;
  logger: Logger;
  outbox: Outbox;
  mailNotify: () => void;
  mailContext: MailContext;
  /** Milliseconds after each failed attempt before the next (WEBHOOK_RETRY_SCHEDULE). */
  retryScheduleMs: readonly number[];
  /** One attempt's bound (15 s). */
  timeoutMs: number;
  /** WEBHOOK_ALLOW_PRIVATE: http and private addresses (development, tests). */
  allowPrivate: boolean;
  /** Tests: a resolver or a CA for a loopback receiver. */
  fetchOptions?: Pick<PublicFetchOptions, 'resolve' | 'ca'>;
  /** Each finished attempt, for the metrics. */
  observe?: (outcome: DeliveryOutcome, seconds: number) => void;
  pollMs?: number;
  /** Deliveries attempted at once by this worker. */
  batchSize?: number;
}

interface Sent {
  statusCode: number | null;
  /** Why it failed, in words (delivery-errors.ts); null on success. */
  error: string | null;
  durationMs: number;
  /** The underlying error's own message, for the server's log only. */
  cause?: string;
}

export class WebhookWorker {
  private timer: NodeJS.Timeout | null = null;
  private readonly inFlight = new Set<Promise<void>>();
  private pumping: Promise<void> | null = null;
  private again = false;
  private stopped = true;

  constructor(private readonly deps: WebhookWorkerDeps) {}

  /** Longer than an attempt can take (its deadline covers resolution, connection and body). */
  get leaseMs(): number {
    return this.deps.timeoutMs + 10_000;
  }

  private get slots(): number {
    return this.deps.batchSize ?? 10;
  }

  start(): void {
    this.stopped = false;
    this.timer = setInterval(() => this.nudge(), this.deps.pollMs ?? 1000);
    this.timer.unref();
    this.nudge();
  }

  /** A transaction that queued deliveries has committed (or a slot freed): claim what is due now. */
  nudge(): void {
    if (this.stopped) return;
    if (this.pumping) {
      this.again = true;
      return;
    }
    this.pumping = this.pump().finally(() => {
      this.pumping = null;
      if (this.again) {
        this.again = false;
        this.nudge();
      }
    });
  }

  /**
   * Claims due deliveries while a slot is free; each attempt runs on its own, so one slow
   * receiver holds one slot for at most its time bound, never the others' deliveries.
   */
  private async pump(): Promise<void> {
    while (!this.stopped) {
      const free = this.slots - this.inFlight.size;
      if (free <= 0) return;
      const now = this.deps.clock();
      const leasedUntil = new Date(now.getTime() + this.leaseMs);
      let claimed: ClaimedDelivery[];
      try {
        claimed = await claimDue(this.deps.db, now, this.leaseMs, free);
      } catch (err) {
        this.deps.logger.warn({ err: (err as Error).message }, 'webhook queue poll failed');
        return;
      }
      for (const d of claimed) {
        const task: Promise<void> = this.attempt(d, leasedUntil)
          .catch((err: unknown) => this.deps.logger.error({ err: (err as Error).message, webhook: d.webhookId }, 'webhook attempt could not be recorded'))
          .finally(() => {
            this.inFlight.delete(task);
            this.nudge();
          });
        this.inFlight.add(task);
      }
      if (claimed.length < free) return;
    }
  }

  /** Attempts every delivery due now and waits for them (tests, shutdown). */
  async drain(): Promise<void> {
    this.nudge();
    while (this.pumping || this.inFlight.size > 0) {
      await this.pumping;
      await Promise.all(this.inFlight);
    }
  }

  private secretsOf(d: ClaimedDelivery, now: Date): string[] {
    const secrets = [this.deps.cipher.open(d.secret)];
    if (d.previousSecret && d.previousSecretUntil && d.previousSecretUntil > now) secrets.push(this.deps.cipher.open(d.previousSecret));
    return secrets;
  }

  private async send(d: ClaimedDelivery, at: Date): Promise<Sent> {
    const body = JSON.stringify({ type: d.type, timestamp: d.eventAt.toISOString(), data: d.data });
    const started = performance.now();
    try {
      const res = await publicFetch(d.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...signedHeaders(d.eventId, at, body, this.secretsOf(d, at)) },
        body,
        timeoutMs: this.deps.timeoutMs,
        maxBytes: RESPONSE_BYTES_MAX,
        allowPrivate: this.deps.allowPrivate,
        allowHttp: this.deps.allowPrivate,
        ...this.deps.fetchOptions,
      });
      const ok = res.status >= 200 && res.status < 300;
      return { statusCode: res.status, error: ok ? null : statusAnswerText(res.status), durationMs: Math.round(res.durationMs) };
    } catch (err) {
      const durationMs = Math.round(performance.now() - started);
      // A refused address says so in words already; a timeout is the attempt's bound.
      if (err instanceof RefusedUrl) return { statusCode: null, error: err.message, durationMs };
      if (err instanceof FetchFailed && err.timedOut) return { statusCode: null, error: timeoutText(this.deps.timeoutMs), durationMs, cause: err.message };
      return { statusCode: null, error: connectionFailureText(err), durationMs, cause: (err as Error).message };
    }
  }

  private async attempt(d: ClaimedDelivery, leasedUntil: Date): Promise<void> {
    const at = this.deps.clock();
    let sent: Sent;
    try {
      sent = await this.send(d, at);
    } catch (err) {
      // A secret that cannot be opened (ENCRYPTION_KEY differs): retried like a failed attempt.
      sent = { statusCode: null, error: 'The service could not sign this delivery (it cannot read the endpoint’s secret); it will try again.', durationMs: 0, cause: (err as Error).message };
    }
    const attempt = d.attempts + 1;
    const ok = sent.error === null;
    const wait = d.manual ? undefined : this.deps.retryScheduleMs[d.attempts];
    const status = ok ? 'succeeded' : wait === undefined ? 'failed' : 'pending';
    const nextAttemptAt = status === 'pending' ? new Date(at.getTime() + wait!) : null;
    const recorded = await recordAttempt(
      this.deps.db,
      { deliveryId: d.id, webhookId: d.webhookId, attempt, statusCode: sent.statusCode, error: sent.error, durationMs: sent.durationMs, at, nextAttemptAt, status },
      leasedUntil,
    );
    const outcome: DeliveryOutcome = ok ? 'delivered' : status === 'failed' ? 'failed' : 'retrying';
    this.deps.observe?.(outcome, sent.durationMs / 1000);
    const log = { webhook: d.webhookId, event: d.eventId, type: d.type, attempt, statusCode: sent.statusCode, durationMs: sent.durationMs };
    if (!recorded) this.deps.logger.warn(log, 'webhook attempt not recorded: its lease ended (another worker owns the delivery) or the endpoint was deleted');
    else if (ok) this.deps.logger.info(log, 'webhook delivered');
    else this.deps.logger.warn({ ...log, err: sent.error, cause: sent.cause, next: nextAttemptAt }, status === 'failed' ? 'webhook delivery failed for good' : 'webhook delivery failed; will retry');
    if (recorded && !ok) await this.disableIfFailing(d.webhookId, at);
  }

  private async disableIfFailing(webhookId: string, now: Date): Promise<void> {
    const cutoff = new Date(now.getTime() - DISABLE_AFTER_MS);
    const disabled = await inTransaction(this.deps.db, async (tx) => {
      const endpoint = await disableFailingEndpoint(tx, webhookId, cutoff, now);
      if (!endpoint) return null;
      const host = new URL(endpoint.url).host;
      // An organization has no address: its owners and admins, who manage its endpoints, are told.
      const to = endpoint.org === null ? [{ accountId: endpoint.accountId, email: endpoint.email }] : await membersAllowedTo(tx, endpoint.accountId, 'webhooks.manage');
      const notice = webhookDisabled(this.deps.mailContext, { host, at: now, ...(endpoint.org === null ? {} : { org: endpoint.org }) });
      for (const r of to) await this.deps.outbox.enqueue(tx, r.email, notice, r.accountId);
      return endpoint;
    });
    if (!disabled) return;
    this.deps.logger.warn({ webhook: webhookId }, 'webhook endpoint disabled after five days of failures');
    this.deps.mailNotify();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    await this.pumping;
    await Promise.all(this.inFlight);
  }
}
