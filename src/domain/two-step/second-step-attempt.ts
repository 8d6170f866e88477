// Every place that takes a second-step code runs it through here: the sign-in's second step,
// re-authentication by code, turning two-step off and making new recovery codes (API.md section
// 7a). Besides the sign-in limits (password-check.ts), whose per-account budget a correct password
// clears, a code is counted against the account's own failure budget: 10 wrong codes an hour,
// whatever passwords or successes come between. The attempt is counted before it is checked (so
// parallel guesses cannot overtake the budget) and taken back when it was not a wrong code; past
// the budget every attempt answers 429, a right code included, until the hour ends. From the
// third wrong code in an hour the owner hears of it, once an hour (the mfa-failed notice).
import { mfaFailed } from '../emails/messages.js';
import { recordSecurityEventQuietly, type SecurityEventDetail } from '../activity/security-events.js';
import { changeAccount } from '../activity/account-change.js';
import type { ClientInfo, DomainDeps } from '../context.js';
import { type AppError, PROBLEMS, rateLimited } from '../errors.js';
import { maskIp } from '../network.js';
import { readSecondStepTarget, type SecondStepTarget } from './store.js';
import { underSignInLimits } from '../passwords/password-check.js';
import { LIMITS, consume, consumeAll, settleAll } from '../limits/rate-limit.js';

/** What these flows use of the domain's dependencies. */
type FlowDeps = Pick<DomainDeps, 'cache' | 'clock' | 'db' | 'events' | 'logger' | 'mailContext' | 'mailNotify' | 'webhookNotify' | 'outbox'>;

/** The wrong code of an hour from which the owner gets the mfa-failed notice. */
export const MFA_FAILED_NOTICE_AT = 3;

export interface SecondStepAccount {
  id: string;
  email: string;
  emailNormalized: string;
  /** Whether the client's network is one the account has signed in from (the sign-in limits). */
  knownNetwork: boolean;
}

/** One read of what a second step needs (the TOTP credential, the network); null for an unknown account. */
export function loadSecondStepTarget(deps: Pick<DomainDeps, 'db'>, accountId: string, client: ClientInfo): Promise<SecondStepTarget | null> {
  return readSecondStepTarget(deps.db, accountId, client.ip);
}

/**
 * Runs `attempt` (null: the code was wrong) under the account's second-step budget and the
 * sign-in limits. A wrong code throws `wrong()`, is recorded in the security activity as
 * mfa_failed (with `detail`) and stays counted.
 */
export async function attemptSecondStep<T>(
  deps: FlowDeps,
  account: SecondStepAccount,
  client: ClientInfo,
  detail: SecurityEventDetail,
  attempt: () => Promise<T | null>,
  wrong: () => AppError,
): Promise<T> {
  const failures = { limit: LIMITS.secondStepFailures, subject: account.id };
  const [budget] = await consumeAll(deps.cache, [failures]);
  if (!budget!.allowed) {
    throw rateLimited(PROBLEMS.tooManyWrongCodes, budget!.retryAfterSeconds, 'Too many wrong codes for this account. Codes are refused until the hour ends.');
  }
  let failed = false;
  try {
    return await underSignInLimits(
      deps,
      { emailKey: account.emailNormalized, knownNetwork: account.knownNetwork },
      client,
      async () => {
        const result = await attempt();
        failed = result === null;
        return result;
      },
      wrong,
    );
  } finally {
    if (failed) await recordWrongCode(deps, account, client, detail, budget!.count);
    else await settleAll(deps.cache, [failures], []);
  }
}

async function recordWrongCode(
  deps: FlowDeps,
  account: SecondStepAccount,
  client: ClientInfo,
  detail: SecurityEventDetail,
  failuresThisHour: number,
): Promise<void> {
  const at = deps.clock();
  await recordSecurityEventQuietly(deps, { accountId: account.id, type: 'mfa_failed', client, at, detail });
  if (failuresThisHour < MFA_FAILED_NOTICE_AT) return;
  try {
    const { allowed } = await consume(deps.cache, LIMITS.mfaFailedNotice, account.id);
    if (!allowed) return;
    const notice = mfaFailed(deps.mailContext, { at, ip: maskIp(client.ip), userAgent: client.userAgent });
    await changeAccount(deps, account.id, (_tx, change) => change.send(account.email, notice));
  } catch (err) {
    deps.logger.error({ err: (err as Error).message }, 'mfa-failed notice not queued');
  }
}
