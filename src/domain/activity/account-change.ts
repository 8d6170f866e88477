// The one seam for what a change to an account does besides its own writes (as Kratos's hooks and
// better-auth's plugins: the effect is registered once, not repeated at each call site). In the
// change's transaction: the security event (API.md section 10), the emails it sends (a notice,
// a link) and the webhook events (section 15, with one pending delivery per subscribed endpoint),
// so they commit or roll back with it. Once it has committed: the mail worker is woken when
// something was queued, the webhook worker likewise, and `account.changed` is emitted (the
// account view drops its cached copy). Flows say what happened through the AccountChange they
// are handed; none of them wakes a worker or refreshes a view by hand. Sign-ins go through
// sessions/sign-in.ts's issueSignIn, which hands its extra work the same AccountChange and does
// the same after its commit.
import { inTransaction, type Tx } from '../store.js';
import type { RenderedEmail } from '../../infra/mail/outbox.js';
import type { DomainDeps } from '../context.js';
import { recordSecurityEvent, type SecurityEventInput } from './security-events.js';
import { writeWebhookEvent, type WebhookEventData, type WebhookEventType } from './webhook-events.js';

export type ChangeDeps = Pick<DomainDeps, 'db' | 'outbox' | 'mailNotify' | 'webhookNotify' | 'events'>;

/** What a flow says about its change, inside its transaction. */
export interface AccountChange {
  /** Records a security event of the account (and its `account.security` webhook event), committed with the change. */
  record(event: Omit<SecurityEventInput, 'accountId'>): Promise<void>;
  /** Queues an email (a notice, a link expiring at `linkExpiresAt`) for the account, committed with the change. */
  send(to: string, email: RenderedEmail, linkExpiresAt?: Date): Promise<void>;
  /** Writes a webhook event for the account's subscribed endpoints, committed with the change. */
  publish(type: WebhookEventType, data: WebhookEventData, at: Date): Promise<void>;
}

/** An AccountChange bound to a transaction someone else opened; `committed()` runs after it commits. */
export interface PendingChange extends AccountChange {
  /** Whether an email was queued. */
  readonly sent: boolean;
  /** Whether a webhook delivery was queued. */
  readonly queued: boolean;
  committed(): Promise<void>;
}

export function changeIn(tx: Tx, deps: Pick<ChangeDeps, 'outbox' | 'mailNotify' | 'webhookNotify' | 'events'>, accountId: string): PendingChange {
  let sent = false;
  let queued = false;
  return {
    async record(event) {
      if ((await recordSecurityEvent(tx, { ...event, accountId })) > 0) queued = true;
    },
    async send(to, email, linkExpiresAt) {
      if (await deps.outbox.enqueue(tx, to, email, accountId, linkExpiresAt)) sent = true;
    },
    async publish(type, data, at) {
      if ((await writeWebhookEvent(tx, accountId, type, data, at)) > 0) queued = true;
    },
    get sent() {
      return sent;
    },
    get queued() {
      return queued;
    },
    committed: async () => {
      if (queued) deps.webhookNotify();
      await accountChanged(deps, accountId, sent);
    },
  };
}

/** Runs `work` in one transaction with the account's change; after the commit, its effects. */
export async function changeAccount<T>(deps: ChangeDeps, accountId: string, work: (tx: Tx, change: AccountChange) => Promise<T>): Promise<T> {
  const held: { change?: PendingChange } = {};
  const result = await inTransaction(deps.db, (tx) => work(tx, (held.change = changeIn(tx, deps, accountId))));
  await held.change?.committed();
  return result;
}

/** What follows a committed change: mail woken when something was queued, the account's views told. */
export async function accountChanged(deps: Pick<ChangeDeps, 'mailNotify' | 'webhookNotify' | 'events'>, accountId: string, sent: boolean): Promise<void> {
  if (sent) deps.mailNotify();
  await deps.events.emit('account.changed', { accountId });
}
