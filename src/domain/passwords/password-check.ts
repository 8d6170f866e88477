// The one password check behind every place that asks for a password: login, the confirmation
// of a pending SSO link, and the current password asked again before a sensitive change.
//
// Every attempt is counted before the password is verified, so concurrent guesses cannot
// overtake the limit: 50 parallel wrong passwords get at most the limit's number of 401s and
// 429s for the rest. The budgets:
//   - per account, from networks it has never signed in from (all together): 10 per 15 minutes;
//   - per account and network it has signed in from before: 10 per 15 minutes each, so a
//     stranger spraying from elsewhere cannot lock the owner out of their next correct login;
//   - per account, everywhere: 50 failures per 15 minutes (distributed guessing);
//   - per client network, across accounts: 50 failures per 15 minutes.
// A missing hash (an unknown email, an SSO-only account) still burns one, so timing does not
// tell. Every attempt is counted against its budget, the ceiling and the network before it is
// checked; a success clears its budget and takes back its count from the ceiling and the network,
// so those two count failures. A second step's code (two-step/second-step.ts) is
// counted against the same limits.
import type { Cache } from '../../infra/cache/cache.js';
import type { ClientInfo } from '../context.js';
import { AppError, PROBLEMS, rateLimited } from '../errors.js';
import { recordSecurityEvent } from '../activity/security-events.js';
import type { DomainDeps } from '../context.js';
import { networkOf } from '../network.js';
import type { PasswordHasher } from './password.js';
import { LIMITS, consumeAll, settleAll, type Limit } from '../limits/rate-limit.js';

export interface PasswordSubject {
  /** The account's normalized email (or the typed one, for an unknown address). */
  emailKey: string;
  passwordHash: string | null;
  /** Whether the client's network is one the account has signed in from before. */
  knownNetwork: boolean;
}

/** Per-IP limits count per network (/24, /48): one client hopping addresses is one client. */
export const ipSubject = (ip: string) => networkOf(ip) ?? ip;

/** Who a limited attempt is about: the account's key and whether the client's network is its own. */
export type AttemptSubject = Pick<PasswordSubject, 'emailKey' | 'knownNetwork'>;

/** A success under the sign-in limits whose settlement is still to be sent (attemptUnderSignInLimits). */
export interface LimitedSuccess<T> {
  value: T;
  /**
   * Clears the budget the attempt was counted against and takes its count back from the ceiling
   * and the network, in one round trip. Never rejects: while the cache fails, the in-process
   * counters are settled instead (limits/rate-limit.ts).
   */
  settle: () => Promise<void>;
}

/**
 * Runs one attempt (a password, a second step's code) under the sign-in limits. The attempt is
 * counted against all three before it runs (its budget, the account ceiling, the client network),
 * so parallel attempts queue on the counters and none can overtake a limit, and it runs only when
 * all three still allow it. null from it is a failure: `wrong()` is thrown and the counts stand. A
 * value is a success, handed back with its settlement (LimitedSuccess.settle): the ceiling and the
 * network count failures, so an office behind one address signing in all day never exhausts
 * them. A sign-in sends the settlement in the same tick as its own cache writes after its commit
 * (sessions/sign-in.ts), so that both come back in one read.
 */
export async function attemptUnderSignInLimits<T>(
  deps: { cache: Cache },
  subject: AttemptSubject,
  client: ClientInfo,
  attempt: () => Promise<T | null>,
  wrong: () => AppError,
): Promise<LimitedSuccess<T>> {
  const network = ipSubject(client.ip);
  const [accountLimit, accountSubject]: [Limit, string] = subject.knownNetwork
    ? [LIMITS.loginPerKnownNetwork, `${subject.emailKey}|${network}`]
    : [LIMITS.loginPerAccount, subject.emailKey];
  const ceiling = { limit: LIMITS.loginAccountCeiling, subject: subject.emailKey };
  const perIp = { limit: LIMITS.loginPerIp, subject: network };
  const budget = { limit: accountLimit, subject: accountSubject };
  // The three counters in one round trip, and the success's settlement in one more.
  const counts = await consumeAll(deps.cache, [perIp, ceiling, budget]);
  const refused = counts.filter((c) => !c.allowed);
  if (refused.length > 0) throw rateLimited(PROBLEMS.rateLimited, Math.max(...refused.map((c) => c.retryAfterSeconds)));
  const result = await attempt();
  if (result === null) throw wrong();
  let settled: Promise<void> | null = null;
  return { value: result, settle: () => (settled ??= settleAll(deps.cache, [perIp, ceiling], [budget])) };
}

/** attemptUnderSignInLimits with the success settled before it returns. */
export async function underSignInLimits<T>(
  deps: { cache: Cache },
  subject: AttemptSubject,
  client: ClientInfo,
  attempt: () => Promise<T | null>,
  wrong: () => AppError,
): Promise<T> {
  const { value, settle } = await attemptUnderSignInLimits(deps, subject, client, attempt, wrong);
  await settle();
  return value;
}

/** The password verified under the sign-in limits; a new hash when the stored one used outdated parameters. */
function verifyUnderLimits(
  deps: { cache: Cache; passwords: PasswordHasher },
  subject: PasswordSubject,
  password: string,
  client: ClientInfo,
  wrong: () => AppError,
): Promise<LimitedSuccess<{ rehash: string | null }>> {
  return attemptUnderSignInLimits(
    deps,
    subject,
    client,
    async () => {
      const check = subject.passwordHash
        ? await deps.passwords.verify(subject.passwordHash, password)
        : (await deps.passwords.burn(password), { valid: false, rehash: null });
      return check.valid ? { rehash: check.rehash } : null;
    },
    wrong,
  );
}

/**
 * Verifies `password` against the subject's hash under the sign-in limits. Throws `wrong()` when
 * it does not match, RATE_LIMITED past a limit; returns a new hash to store when the stored one
 * used outdated parameters (null otherwise).
 */
export async function checkPassword(
  deps: { cache: Cache; passwords: PasswordHasher },
  subject: PasswordSubject,
  password: string,
  client: ClientInfo,
  wrong: () => AppError,
): Promise<string | null> {
  const { value, settle } = await verifyUnderLimits(deps, subject, password, client, wrong);
  await settle();
  return value.rehash;
}

/**
 * checkPassword for a sign-in (login, pending-link confirmation): a wrong password for an existing
 * account goes into its security activity, written after the reply, so that an existing account's
 * 401 takes no longer than an unknown address's (which writes nothing). A refused attempt (429)
 * is not written: it checked nothing, and a flood of them must not become a flood of rows. The
 * success comes back unsettled, for the sign-in to settle with its own writes (issueSignIn's
 * `alongside`); the caller must settle it on every path.
 */
export async function checkSignInPassword(
  deps: Pick<DomainDeps, 'cache' | 'passwords' | 'db' | 'clock' | 'background' | 'webhookNotify'>,
  accountId: string | null,
  subject: PasswordSubject,
  password: string,
  client: ClientInfo,
  wrong: () => AppError,
): Promise<LimitedSuccess<{ rehash: string | null }>> {
  try {
    return await verifyUnderLimits(deps, subject, password, client, wrong);
  } catch (err) {
    if (accountId && err instanceof AppError && err.code === 'UNAUTHENTICATED') {
      const failed = { accountId, type: 'sign_in_failed', client, at: deps.clock(), detail: { method: 'password' } } as const;
      deps.background.run('record a failed sign-in', async () => {
        if ((await recordSecurityEvent(deps.db, failed)) > 0) deps.webhookNotify();
      });
    }
    throw err;
  }
}
