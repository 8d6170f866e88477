// The sessions' queries: the session rows (validation reads one by token hash, the minute's
// touch, revocation deletes), the sign-in statement, the networks an account has used, the
// revocation epoch, the guards' read of a session and its account, and the second steps a
// session's sign-in may still be waiting for.
import type { Db, DbHandle, Sql, Tx } from '../store.js';
import { SECURITY_EVENT_DATA, webhookFanOut } from '../activity/store.js';

export interface SessionRow {
  id: string;
  accountId: string;
  expiresAt: Date;
  lastSeenAt: Date;
  createdAt: Date;
  authenticatedAt: Date;
}

/** A SessionRow's columns, of the sessions table under `alias` (another statement may join it). */
export const sessionColumns = (alias: string) => `${alias}.id, ${alias}.account_id AS "accountId", ${alias}.expires_at AS "expiresAt",
  ${alias}.last_seen_at AS "lastSeenAt", ${alias}.created_at AS "createdAt", ${alias}.authenticated_at AS "authenticatedAt"`;
const SESSION_COLUMNS = sessionColumns('sessions');

/** The session of a token hash, straight on node-postgres (by its unique index). */
export async function readSessionRow(sql: Sql, tokenHash: string): Promise<SessionRow | null> {
  const [row] = await sql<SessionRow>(`SELECT ${SESSION_COLUMNS} FROM sessions WHERE token_hash = $1`, [tokenHash]);
  return row ?? null;
}

/**
 * The extended expiry, written only when it moves by EXPIRY_STEP ($stepMs ms) or more: last_seen_at
 * is not indexed, so the minute's write is a HOT update (no index touched); expires_at is (the
 * retention's sweep), so it changes at most once an hour per session. nextExpiry (session.ts) is
 * the same rule for the cached copy.
 */
const NEXT_EXPIRY = (slide: string, absoluteMs: string, stepMs: string) =>
  `CASE WHEN LEAST(${slide}::timestamptz, u.created_at + ${absoluteMs} * interval '1 millisecond') >= u.expires_at + ${stepMs} * interval '1 millisecond'
     THEN LEAST(${slide}::timestamptz, u.created_at + ${absoluteMs} * interval '1 millisecond') ELSE u.expires_at END`;

/**
 * The touch is bookkeeping: committed without waiting for the WAL flush (synchronous_commit off
 * for its own transaction only, so it holds behind a transaction pooler too). A crash of
 * PostgreSQL can lose the last fraction of a second of touches; the next use writes them again.
 * Waiting for the flush was most of a touch's time and of PostgreSQL's CPU for it.
 */
const ASYNC_COMMIT = `c AS (SELECT set_config('synchronous_commit', 'off', true) AS v)`;

/**
 * The touches a second of cold checks collected (touches.ts), in one statement: each row's
 * last_seen_at (never moved backwards) and its expiry by the step rule, for the sessions that
 * still exist and have not expired.
 */
export const TOUCH_ROWS = `WITH ${ASYNC_COMMIT}
  UPDATE sessions u SET last_seen_at = v.at, expires_at = ${NEXT_EXPIRY('v.slide', '$4', '$5')}
  FROM unnest($1::text[], $2::timestamptz[], $3::timestamptz[]) AS v(id, at, slide), c
  WHERE u.id = v.id AND u.last_seen_at < v.at AND u.expires_at > v.at`;

export async function touchSessionRows(
  sql: Sql,
  ids: string[],
  lastSeenAt: Date[],
  slidingExpiry: Date[],
  absoluteLifetimeMs: number,
  expiryStepMs: number,
): Promise<void> {
  await sql(TOUCH_ROWS, [ids, lastSeenAt, slidingExpiry, absoluteLifetimeMs, expiryStepMs]);
}

/**
 * The minute's write of last_seen_at and, when it moves by an expiry step or more, the extended
 * expiry (see NEXT_EXPIRY). An update, never an upsert: a revoked (deleted) session stays deleted
 * (null). Answers the row's proof time and its expiry as stored.
 */
export async function touchSessionRow(
  sql: Sql,
  id: string,
  lastSeenAt: Date,
  slidingExpiry: Date,
  absoluteLifetimeMs: number,
  expiryStepMs: number,
): Promise<{ authenticatedAt: Date; expiresAt: Date } | null> {
  const [row] = await sql<{ authenticatedAt: Date; expiresAt: Date }>(
    `WITH ${ASYNC_COMMIT} UPDATE sessions u SET last_seen_at = $2, expires_at = ${NEXT_EXPIRY('$3', '$4', '$5')}
     FROM c WHERE id = $1 RETURNING authenticated_at AS "authenticatedAt", expires_at AS "expiresAt"`,
    [id, lastSeenAt, slidingExpiry, absoluteLifetimeMs, expiryStepMs],
  );
  return row ?? null;
}

export async function deleteSessions(db: DbHandle, ids: string[]): Promise<void> {
  await db.session.deleteMany({ where: { id: { in: ids } } });
}

export type SessionRef = { id: string; tokenHash: string };

/** Every session of the account, but `keepSessionId`. */
export function selectAccountSessions(db: DbHandle, accountId: string, keepSessionId?: string): Promise<SessionRef[]> {
  return db.session.findMany({
    where: { accountId, ...(keepSessionId ? { id: { not: keepSessionId } } : {}) },
    select: { id: true, tokenHash: true },
  });
}

/** One of the account's sessions (another account's answers null, like a missing one). */
export function findAccountSession(db: DbHandle, accountId: string, id: string): Promise<SessionRef | null> {
  return db.session.findFirst({ where: { id, accountId }, select: { id: true, tokenHash: true } });
}

export interface SessionListRow {
  id: string;
  userAgent: string;
  ip: string;
  createdAt: Date;
  lastSeenAt: Date;
  method: string;
  secondStep: boolean;
}

/** The account's live sessions, newest first: straight on node-postgres (a list of up to 100 rows). */
export function selectLiveSessions(sql: Sql, accountId: string, now: Date, take: number): Promise<SessionListRow[]> {
  return sql<SessionListRow>(
    `SELECT id, user_agent AS "userAgent", ip, created_at AS "createdAt", last_seen_at AS "lastSeenAt", method, second_step AS "secondStep"
     FROM sessions WHERE account_id = $1 AND expires_at > $2 ORDER BY created_at DESC LIMIT $3`,
    [accountId, now, take],
  );
}

/** What the guards of API.md 7a read: the session's proof time and its account's address state. */
export function readGuardRow(db: DbHandle, sessionId: string): Promise<{ accountId: string; authenticatedAt: Date; emailVerified: boolean } | null> {
  return db.session
    .findUnique({ where: { id: sessionId }, select: { accountId: true, authenticatedAt: true, account: { select: { emailVerified: true } } } })
    .then((r) => r && { accountId: r.accountId, authenticatedAt: r.authenticatedAt, emailVerified: r.account.emailVerified });
}

/** Marks the session recently authenticated; its token hash, or null when it was revoked meanwhile. */
export async function setAuthenticatedAt(tx: Tx, accountId: string, sessionId: string, at: Date): Promise<string | null> {
  const [row] = await tx.$queryRaw<{ token_hash: string }[]>`
    UPDATE sessions SET authenticated_at = ${at} WHERE id = ${sessionId} AND account_id = ${accountId}
    RETURNING token_hash`;
  return row?.token_hash ?? null;
}

/**
 * Sign-ins waiting for their second step (two-step/mfa-challenge.ts) end when the account's
 * credentials or sessions change: a reset, a password change, logout-all, two-step turned off, a
 * first proof of the address (API.md section 7a). Their mfa_tokens then find nothing.
 */
export async function voidPendingSecondSteps(tx: DbHandle, accountId: string): Promise<void> {
  await tx.mfaChallenge.deleteMany({ where: { accountId } });
}

/** Records that the account has been seen on `network`; true when it is new. */
export async function insertKnownNetwork(tx: DbHandle, accountId: string, network: string, now: Date): Promise<boolean> {
  const { count } = await tx.knownNetwork.createMany({ data: [{ accountId, network, firstSeenAt: now }], skipDuplicates: true });
  return count === 1;
}

export async function readRevocationEpoch(db: Db): Promise<bigint | null> {
  const row = await db.cacheEpoch.findUnique({ where: { id: 1 }, select: { epoch: true } });
  return row?.epoch ?? null;
}

export async function bumpRevocationEpoch(db: Db): Promise<bigint | null> {
  const rows = await db.$queryRaw<{ epoch: bigint }[]>`UPDATE cache_epoch SET epoch = epoch + 1 WHERE id = 1 RETURNING epoch`;
  return rows[0]?.epoch ?? null;
}

/** Live sessions per account: a sign-in past it ends the least recently used one. */
export const MAX_SESSIONS = 100;

/**
 * Everything a sign-in writes, as one statement (data-modifying CTEs run atomically): the session,
 * the last-login record, the network (new or not), the alert email when the network is new, and
 * the security event.
 * One round trip instead of an interactive transaction's six: sign-in is argon2-bound, and this
 * keeps the rest of it small. The account row is locked first (a), and the eviction and the
 * network insert read from it, so concurrent sign-ins of one account queue on that one lock:
 * taking session-row locks in the eviction before it let two of them deadlock (measured: a few
 * per thousand under 8 at a time).
 * It is planned once per connection and its plan reused (a named statement), so the eviction's
 * OFFSET is a literal, not a parameter. With a parameter, PostgreSQL's generic plan guessed a
 * tenth of the account's sessions evicted; on a large table, whose statistics put about 28
 * sessions on an account, that guess cost more than a plan for the actual values, so it planned
 * the statement again on every sign-in: the whole of a login's growth from the small data set
 * to the large one in bench:scale.
 */
const SIGN_IN_STATEMENT = `
    WITH a AS (
      UPDATE accounts SET last_login_at = $1, last_login_ip = $2, updated_at = $1 WHERE id = $3
      RETURNING id, view_version
    ), s AS (
      INSERT INTO sessions (id, account_id, token_hash, user_agent, ip, created_at, last_seen_at, authenticated_at, expires_at, method, second_step)
      VALUES ($4, $3, $5, $6, $2, $1, $1, $1, $7, $8, $9)
    ), e AS (
      -- At most MAX_SESSIONS live sessions: the least recently used beyond it end with this sign-in.
      DELETE FROM sessions WHERE id IN (
        SELECT id FROM sessions WHERE account_id = (SELECT id FROM a)
        ORDER BY last_seen_at DESC, created_at DESC OFFSET ${MAX_SESSIONS - 1}
      ) RETURNING token_hash
    ), n AS (
      INSERT INTO known_networks (account_id, network, first_seen_at)
      SELECT a.id, $10::text, $1 FROM a WHERE $10::text IS NOT NULL
      ON CONFLICT DO NOTHING RETURNING network
    ), m AS (
      -- The outbox runs on the database's clock, like every other enqueued email.
      INSERT INTO outbox_emails (id, account_id, kind, to_address, subject, text_body, html_body, next_attempt_at, created_at)
      SELECT $11::text, $3, $12::text, $13::text, $14::text, $15::text, $16::text, now(), now()
      FROM n WHERE $11::text IS NOT NULL
    ), v AS (
      -- The security activity (activity/security-events.ts) records the sign-in with it.
      INSERT INTO security_events (account_id, type, at, ip, user_agent, detail)
      SELECT a.id, 'sign_in', $1, $2, $17, jsonb_build_object('method', $8::text, 'second_step', $9::boolean)
      FROM a
      RETURNING id, account_id, type, at, ip, user_agent, detail
    ), ${webhookFanOut({ account: '$3', type: "'account.security'", data: SECURITY_EVENT_DATA('v'), at: '$1', source: 'v' })}
    SELECT EXISTS (SELECT 1 FROM n) AS new_network, ARRAY(SELECT token_hash FROM e) AS evicted, (SELECT count(*)::int FROM wd) AS queued,
      (SELECT view_version::float8 FROM a) AS view_version`;

/** The statement's parameters, in its order ($1 … $17). */
export interface SignInValues {
  now: Date;
  /** Masked. */
  ip: string;
  accountId: string;
  sessionId: string;
  tokenHash: string;
  userAgent: string;
  expiresAt: Date;
  method: string;
  secondStep: boolean;
  network: string | null;
  /** The alert email, sealed; null: none (the statement skips its insert). */
  alert: { id: string; kind: string; to: string; subject: string; textBody: string; htmlBody: string } | null;
  /** The user agent as the activity keeps it. */
  eventUserAgent: string;
}

function parameters(v: SignInValues): unknown[] {
  const a = v.alert;
  return [
    v.now, v.ip, v.accountId, v.sessionId, v.tokenHash, v.userAgent, v.expiresAt, v.method, v.secondStep, v.network,
    a?.id ?? null, a?.kind ?? null, a?.to ?? null, a?.subject ?? null, a?.textBody ?? null, a?.htmlBody ?? null,
    v.eventUserAgent,
  ];
}

export interface SignInResult {
  newNetwork: boolean;
  /** Webhook deliveries of its `account.security` event queued (API.md section 15). */
  queued: number;
  /** Token hashes of the sessions the sign-in ended (past MAX_SESSIONS). */
  evicted: string[];
  /** The account view's version the sign-in committed (it shows the last login: account-view.ts). */
  viewVersion: number | null;
}

type SignInRow = { new_network: boolean; evicted: string[]; queued: number; view_version: number | null };
const resultOf = (rows: SignInRow[]): SignInResult => ({
  newNetwork: rows[0]?.new_network === true,
  evicted: rows[0]?.evicted ?? [],
  queued: rows[0]?.queued ?? 0,
  viewVersion: rows[0]?.view_version ?? null,
});

/** The statement on its own, straight on node-postgres (a password login: no Prisma raw path in its CPU). */
export async function runSignIn(sql: Sql, values: SignInValues): Promise<SignInResult> {
  return resultOf(await sql<SignInRow>(SIGN_IN_STATEMENT, parameters(values)));
}

/** The statement inside the caller's transaction, with other work that commits with it. */
export async function runSignInIn(tx: Tx, values: SignInValues): Promise<SignInResult> {
  return resultOf(await tx.$queryRawUnsafe<SignInRow[]>(SIGN_IN_STATEMENT, ...parameters(values)));
}
