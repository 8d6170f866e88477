// Issuing a session after any successful sign-in (password, SSO, confirmed link): the session,
// the last-login record, and the new-network alert, committed together.
import type { DomainDeps, ClientInfo } from '../context.js';
import { maskIp, networkOf } from '../network.js';
import { randomUUID } from 'node:crypto';
import type { RenderedEmail } from '../../infra/mail/outbox.js';
import { inTransaction, type Tx } from '../store.js';
import { insertKnownNetwork, runSignIn, runSignInIn, type SignInResult, type SignInValues } from './store.js';
import { loginAlert } from '../emails/messages.js';
import { USER_AGENT_MAX } from '../activity/security-events.js';
import { newSession, tombstone } from './session.js';
import { changeIn, type AccountChange } from '../activity/account-change.js';

/** What these flows use of the domain's dependencies. */
type FlowDeps = Pick<DomainDeps, 'cache' | 'clock' | 'db' | 'events' | 'mailContext' | 'mailNotify' | 'webhookNotify' | 'outbox' | 'sql' >;

/** How a sign-in was made: the first step's method and whether a second step was passed. */
export type SignInMethod = 'password' | 'google' | 'github' | 'passkey';
export interface SignInHow {
  method: SignInMethod;
  secondStep: boolean;
}

export interface SignedIn {
  token: string;
  sessionId: string;
  expiresAt: Date;
  emailVerified: boolean;
}

/** Records that the account has been seen on this client's network; true when it is new. */
export async function rememberNetwork(tx: Tx, accountId: string, ip: string, now: Date): Promise<boolean> {
  const network = networkOf(ip);
  return network ? insertKnownNetwork(tx, accountId, network, now) : false;
}

/**
 * Work that must commit with a sign-in (SSO: the account, the linked identity; a pending link
 * bound), handed the sign-in's AccountChange (activity/account-change.ts) for what it records.
 */
export type SignInExtra = (tx: Tx, change: AccountChange) => Promise<void>;

/**
 * The statement on its own goes straight to node-postgres (the password login: no Prisma raw path
 * in a login's CPU); with other work that must commit with it, both run in one transaction.
 */
async function writeSignIn(
  deps: Pick<DomainDeps, 'db' | 'sql' | 'outbox' | 'mailNotify' | 'webhookNotify' | 'events'>,
  values: SignInValues,
  extra: SignInExtra | undefined,
): Promise<SignInResult & { sent: boolean }> {
  if (!extra) return { ...(await runSignIn(deps.sql, values)), sent: false };
  let sent = false;
  let queued = false;
  const result = await inTransaction(deps.db, async (tx) => {
    const change = changeIn(tx, deps, values.accountId);
    await extra(tx, change);
    sent = change.sent;
    queued = change.queued;
    return runSignInIn(tx, values);
  });
  return { ...result, sent, queued: result.queued + (queued ? 1 : 0) };
}

/** The login alert, sealed like every outbox body, for the statement to write when the network is new. */
function sealedAlert(deps: Pick<DomainDeps, 'outbox'>, to: string, email: RenderedEmail): SignInValues['alert'] {
  return { id: randomUUID(), to, kind: email.kind, subject: email.subject, ...deps.outbox.seal(email) };
}

export async function issueSignIn(
  deps: FlowDeps,
  account: {
    id: string;
    email: string;
    emailVerified: boolean;
    /**
     * The client's network is one the account has signed in from, as read with the account: no
     * alert is rendered. (A network forgotten in between is recorded again, without an alert.)
     */
    knownNetwork?: boolean;
  },
  client: ClientInfo,
  /** Recorded on the session: the session list shows it. */
  how: SignInHow,
  /** Work that must commit with the sign-in. */
  extra?: SignInExtra,
  /**
   * The caller's own cache writes (a password's settled limits, password-check.ts), sent in the
   * same tick as the sign-in's so that their replies come back in one read; run whether or not
   * the sign-in commits. Must not reject.
   */
  alongside?: () => Promise<void>,
): Promise<SignedIn> {
  const now = deps.clock();
  const ip = maskIp(client.ip);
  const { token, session } = newSession(now, client.userAgent);
  const values: SignInValues = {
    now,
    ip,
    accountId: account.id,
    sessionId: session.id,
    tokenHash: session.tokenHash,
    userAgent: session.userAgent,
    expiresAt: session.expiresAt,
    method: how.method,
    secondStep: how.secondStep,
    network: networkOf(client.ip),
    // Null when the caller already knows the network is the account's own (a password login
    // reads it with the account): rendering and sealing the alert is then work for nothing.
    alert:
      account.knownNetwork === true
        ? null
        : sealedAlert(deps, account.email, loginAlert(deps.mailContext, { at: now, ip, userAgent: client.userAgent })),
    eventUserAgent: session.userAgent.slice(0, USER_AGENT_MAX),
  };
  let written: Awaited<ReturnType<typeof writeSignIn>>;
  try {
    written = await writeSignIn(deps, values, extra);
  } catch (err) {
    await alongside?.();
    throw err;
  }
  const { newNetwork, evicted, sent, queued, viewVersion } = written;
  if (queued > 0) deps.webhookNotify();
  // After the commit, in one tick: the evicted sessions' tombstones, the account view's
  // invalidation (it shows the last login; it listens: accounts/account-view.ts) and the caller's
  // writes. Each sends its command before its first await, so the replies come back together:
  // one wakeup of the event loop instead of one per command (round trips are the largest part of
  // a login's main-thread CPU: bench/HISTORY.md).
  await Promise.all([
    evicted.length > 0 ? tombstone(deps, evicted) : undefined,
    deps.events.emit('account.signedIn', { accountId: account.id, viewVersion }),
    alongside?.(),
  ]);
  if (newNetwork || sent) deps.mailNotify();
  return { token, sessionId: session.id, expiresAt: session.expiresAt, emailVerified: account.emailVerified };
}
