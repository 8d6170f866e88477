// Issuing a session after any successful sign-in (password, SSO, confirmed link): the session,
// the last-login record, and the new-network alert, committed together.
import type { DomainDeps, ClientInfo } from '../context.js';
import { maskIp, networkOf } from './network.js';
import { randomUUID } from 'node:crypto';
import type { Tx } from '../../infra/mail/outbox.js';
import { loginAlert, type RenderedEmail } from '../../infra/mail/templates.js';
import { USER_AGENT_MAX } from '../activity/security-events.js';
import { MAX_SESSIONS, newSession, tombstone, type NewSession } from './session.js';

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
 * keeps the rest of it small.
 */
async function writeSignIn(
  db: Tx,
  row: {
    accountId: string;
    session: NewSession;
    how: SignInHow;
    ip: string;
    network: string | null;
    now: Date;
    /** Sealed like every outbox body (infra/mail/outbox.ts); written only when the network is new. */
    alert: { id: string; to: string; kind: string; subject: string; textBody: string; htmlBody: string };
  },
): Promise<{ newNetwork: boolean; evicted: string[] }> {
  const { accountId, session, how, ip, network, now, alert } = row;
  // The account row is locked first (a), and the eviction and the network insert read from it,
  // so concurrent sign-ins of one account queue on that one lock: taking session-row locks in the
  // eviction before it let two of them deadlock (measured: a few per thousand under 8 at a time).
  const result = await db.$queryRaw<{ new_network: boolean; evicted: string[] }[]>`
    WITH a AS (
      UPDATE accounts SET last_login_at = ${now}, last_login_ip = ${ip}, updated_at = ${now} WHERE id = ${accountId}
      RETURNING id
    ), s AS (
      INSERT INTO sessions (id, account_id, token_hash, user_agent, ip, created_at, last_seen_at, expires_at, method, second_step)
      VALUES (${session.id}, ${accountId}, ${session.tokenHash}, ${session.userAgent}, ${ip}, ${now}, ${now}, ${session.expiresAt}, ${how.method}, ${how.secondStep})
    ), e AS (
      -- At most MAX_SESSIONS live sessions: the least recently used beyond it end with this sign-in.
      DELETE FROM sessions WHERE id IN (
        SELECT id FROM sessions WHERE account_id = (SELECT id FROM a)
        ORDER BY last_seen_at DESC, created_at DESC OFFSET ${MAX_SESSIONS - 1}
      ) RETURNING token_hash
    ), n AS (
      INSERT INTO known_networks (account_id, network, first_seen_at)
      SELECT a.id, ${network}::text, ${now} FROM a WHERE ${network}::text IS NOT NULL
      ON CONFLICT DO NOTHING RETURNING network
    ), m AS (
      -- The outbox runs on the database's clock, like every other enqueued email.
      INSERT INTO outbox_emails (id, account_id, kind, to_address, subject, text_body, html_body, next_attempt_at, created_at)
      SELECT ${alert.id}, ${accountId}, ${alert.kind}, ${alert.to}, ${alert.subject}, ${alert.textBody}, ${alert.htmlBody}, now(), now()
      FROM n
    ), v AS (
      -- The security activity (activity/security-events.ts) records the sign-in with it.
      INSERT INTO security_events (account_id, type, at, ip, user_agent, detail)
      SELECT a.id, 'sign_in', ${now}, ${ip}, ${session.userAgent.slice(0, USER_AGENT_MAX)},
        jsonb_build_object('method', ${how.method}::text, 'second_step', ${how.secondStep}::boolean)
      FROM a
    )
    SELECT EXISTS (SELECT 1 FROM n) AS new_network, ARRAY(SELECT token_hash FROM e) AS evicted`;
  return { newNetwork: result[0]?.new_network === true, evicted: result[0]?.evicted ?? [] };
}

function sealedAlert(deps: Pick<DomainDeps, 'outbox'>, to: string, email: RenderedEmail) {
  return { id: randomUUID(), to, kind: email.kind, subject: email.subject, ...deps.outbox.seal(email) };
}

export async function issueSignIn(
  deps: DomainDeps,
  account: { id: string; email: string; emailVerified: boolean },
  client: ClientInfo,
  /** Recorded on the session: the session list shows it. */
  how: SignInHow,
  /** Work that must commit with the sign-in (SSO: the account, the linked identity). */
  extra?: (tx: Tx) => Promise<void>,
): Promise<SignedIn> {
  const now = deps.clock();
  const ip = maskIp(client.ip);
  const { token, session } = newSession(now, client.userAgent);
  const row = {
    accountId: account.id,
    session,
    how,
    ip,
    network: networkOf(client.ip),
    now,
    alert: sealedAlert(deps, account.email, loginAlert(deps.mailContext, { at: now, ip, userAgent: client.userAgent })),
  };
  const { newNetwork, evicted } = extra
    ? await deps.db.$transaction(async (tx) => {
        await extra(tx);
        return writeSignIn(tx, row);
      })
    : await writeSignIn(deps.db, row);
  if (evicted.length > 0) await tombstone(deps, evicted);
  // The account view shows the last login (it listens: accounts/account-view.ts).
  await deps.events.emit('account.signedIn', { accountId: account.id });
  if (newNetwork) deps.mailNotify();
  return { token, sessionId: session.id, expiresAt: session.expiresAt, emailVerified: account.emailVerified };
}
