// Issuing a session after any successful sign-in (password, SSO, confirmed link): the session,
// the last-login record, and the new-network alert, committed together.
import type { DomainDeps, ClientInfo } from '../context.js';
import { maskIp, networkOf } from '../network.js';
import { randomUUID } from 'node:crypto';
import type { RenderedEmail, Tx } from '../../infra/mail/outbox.js';
import { loginAlert } from '../emails/messages.js';
import { USER_AGENT_MAX } from '../activity/security-events.js';
import { MAX_SESSIONS, newSession, tombstone, type NewSession } from './session.js';
import { changeIn, type AccountChange } from '../activity/account-change.js';

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
  if (!network) return false;
  const { count } = await tx.knownNetwork.createMany({
    data: [{ accountId, network, firstSeenAt: now }],
    skipDuplicates: true,
  });
  return count === 1;
}

/**
 * Everything a sign-in writes, as one statement (data-modifying CTEs run atomically): the session,
 * the last-login record, the network (new or not), the alert email when the network is new, and
 * the security event.
 * One round trip instead of an interactive transaction's six: sign-in is argon2-bound, and this
 * keeps the rest of it small. The account row is locked first (a), and the eviction and the
 * network insert read from it, so concurrent sign-ins of one account queue on that one lock:
 * taking session-row locks in the eviction before it let two of them deadlock (measured: a few
 * per thousand under 8 at a time).
 */
const SIGN_IN_STATEMENT = `
    WITH a AS (
      UPDATE accounts SET last_login_at = $1, last_login_ip = $2, updated_at = $1 WHERE id = $3
      RETURNING id
    ), s AS (
      INSERT INTO sessions (id, account_id, token_hash, user_agent, ip, created_at, last_seen_at, authenticated_at, expires_at, method, second_step)
      VALUES ($4, $3, $5, $6, $2, $1, $1, $1, $7, $8, $9)
    ), e AS (
      -- At most MAX_SESSIONS live sessions: the least recently used beyond it end with this sign-in.
      DELETE FROM sessions WHERE id IN (
        SELECT id FROM sessions WHERE account_id = (SELECT id FROM a)
        ORDER BY last_seen_at DESC, created_at DESC OFFSET $10
      ) RETURNING token_hash
    ), n AS (
      INSERT INTO known_networks (account_id, network, first_seen_at)
      SELECT a.id, $11::text, $1 FROM a WHERE $11::text IS NOT NULL
      ON CONFLICT DO NOTHING RETURNING network
    ), m AS (
      -- The outbox runs on the database's clock, like every other enqueued email.
      INSERT INTO outbox_emails (id, account_id, kind, to_address, subject, text_body, html_body, next_attempt_at, created_at)
      SELECT $12::text, $3, $13::text, $14::text, $15::text, $16::text, $17::text, now(), now()
      FROM n WHERE $12::text IS NOT NULL
    ), v AS (
      -- The security activity (activity/security-events.ts) records the sign-in with it.
      INSERT INTO security_events (account_id, type, at, ip, user_agent, detail)
      SELECT a.id, 'sign_in', $1, $2, $18, jsonb_build_object('method', $8::text, 'second_step', $9::boolean)
      FROM a
    )
    SELECT EXISTS (SELECT 1 FROM n) AS new_network, ARRAY(SELECT token_hash FROM e) AS evicted`;

interface SignInRow {
  accountId: string;
  session: NewSession;
  how: SignInHow;
  ip: string;
  network: string | null;
  now: Date;
  /**
   * Sealed like every outbox body (infra/mail/outbox.ts); written only when the network is new.
   * null when the caller already knows the network is the account's own (a password login reads
   * it with the account): rendering and sealing the alert is then work for nothing.
   */
  alert: SealedAlert | null;
}

function signInValues(row: SignInRow): unknown[] {
  const { accountId, session, how, ip, network, now, alert } = row;
  return [
    now,
    ip,
    accountId,
    session.id,
    session.tokenHash,
    session.userAgent,
    session.expiresAt,
    how.method,
    how.secondStep,
    MAX_SESSIONS - 1,
    network,
    // No alert: nulls, and the statement skips its insert.
    alert?.id ?? null,
    alert?.kind ?? null,
    alert?.to ?? null,
    alert?.subject ?? null,
    alert?.textBody ?? null,
    alert?.htmlBody ?? null,
    session.userAgent.slice(0, USER_AGENT_MAX),
  ];
}

type SignInResult = { new_network: boolean; evicted: string[] };

/**
 * The statement on its own goes straight to node-postgres (the password login: no Prisma raw path
 * in a login's CPU); with other work that must commit with it, both run in one Prisma transaction.
 */
async function writeSignIn(
  deps: Pick<DomainDeps, 'db' | 'sql' | 'outbox' | 'mailNotify' | 'events'>,
  row: SignInRow,
  extra: SignInExtra | undefined,
): Promise<{ newNetwork: boolean; evicted: string[]; sent: boolean }> {
  const values = signInValues(row);
  let sent = false;
  const result = extra
    ? await deps.db.$transaction(async (tx) => {
        const change = changeIn(tx, deps, row.accountId);
        await extra(tx, change);
        sent = change.sent;
        return tx.$queryRawUnsafe<SignInResult[]>(SIGN_IN_STATEMENT, ...values);
      })
    : await deps.sql<SignInResult>(SIGN_IN_STATEMENT, values);
  return { newNetwork: result[0]?.new_network === true, evicted: result[0]?.evicted ?? [], sent };
}

/**
 * Work that must commit with a sign-in (SSO: the account, the linked identity; a pending link
 * bound), handed the sign-in's AccountChange (activity/account-change.ts) for what it records.
 */
export type SignInExtra = (tx: Tx, change: AccountChange) => Promise<void>;

interface SealedAlert {
  id: string;
  to: string;
  kind: string;
  subject: string;
  textBody: string;
  htmlBody: string;
}

function sealedAlert(deps: Pick<DomainDeps, 'outbox'>, to: string, email: RenderedEmail): SealedAlert {
  return { id: randomUUID(), to, kind: email.kind, subject: email.subject, ...deps.outbox.seal(email) };
}

export async function issueSignIn(
  deps: DomainDeps,
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
): Promise<SignedIn> {
  const now = deps.clock();
  const ip = maskIp(client.ip);
  const { token, session } = newSession(now, client.userAgent);
  const row: SignInRow = {
    accountId: account.id,
    session,
    how,
    ip,
    network: networkOf(client.ip),
    now,
    alert:
      account.knownNetwork === true
        ? null
        : sealedAlert(deps, account.email, loginAlert(deps.mailContext, { at: now, ip, userAgent: client.userAgent })),
  };
  const { newNetwork, evicted, sent } = await writeSignIn(deps, row, extra);
  if (evicted.length > 0) await tombstone(deps, evicted);
  // The account view shows the last login (it listens: accounts/account-view.ts).
  await deps.events.emit('account.signedIn', { accountId: account.id });
  if (newNetwork || sent) deps.mailNotify();
  return { token, sessionId: session.id, expiresAt: session.expiresAt, emailVerified: account.emailVerified };
}
