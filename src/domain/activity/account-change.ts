// The one seam for what a change to an account does besides its own writes (as Kratos's hooks and
// better-auth's plugins: the effect is registered once, not repeated at each call site). In the
// change's transaction: the security event (API.md section 10) and the emails it sends (a notice,
// a link), so they commit or roll back with it; the webhook event of API.md section 15 belongs
// here too. Once it has committed: the mail worker is woken when something was queued, and
// `account.changed` is emitted (the account view drops its cached copy). Flows say what
// happened through the AccountChange they are handed; none of them wakes the mail worker or
// refreshes a view by hand. Sign-ins go through sessions/sign-in.ts's issueSignIn, which hands
// its extra work the same AccountChange and does the same after its commit.
import { inTransaction, type Tx } from '../store.js';
import type { RenderedEmail } from '../../infra/mail/outbox.js';
import type { DomainDeps } from '../context.js';
import { recordSecurityEvent, type SecurityEventInput } from './security-events.js';

export type ChangeDeps = Pick<DomainDeps, 'db' | 'outbox' | 'mailNotify' | 'events'>;

/** What a flow says about its change, inside its transaction. */
export interface AccountChange {
  /** Records a security event of the account, committed with the change. */
  record(event: Omit<SecurityEventInput, 'accountId'>): Promise<void>;
  /** Queues an email (a notice, a link expiring at `linkExpiresAt`) for the account, committed with the change. */
  send(to: string, email: RenderedEmail, linkExpiresAt?: Date): Promise<void>;
}

/** An AccountChange bound to a transaction someone else opened; `committed()` runs after it commits. */
export interface PendingChange extends AccountChange {
  /** Whether an email was queued. */
  readonly sent: boolean;
  committed(): Promise<void>;
}

export function changeIn(tx: Tx, deps: Pick<ChangeDeps, 'outbox' | 'mailNotify' | 'events'>, accountId: string): PendingChange {
  let sent = false;
  return {
    record: (event) => recordSecurityEvent(tx, { ...event, accountId }),
    async send(to, email, linkExpiresAt) {
      await deps.outbox.enqueue(tx, to, email, accountId, linkExpiresAt);
      sent = true;
    },
    get sent() {
      return sent;
    },
    committed: () => accountChanged(deps, accountId, sent),
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
export async function accountChanged(deps: Pick<ChangeDeps, 'mailNotify' | 'events'>, accountId: string, sent: boolean): Promise<void> {
  if (sent) deps.mailNotify();
  await deps.events.emit('account.changed', { accountId });
}
