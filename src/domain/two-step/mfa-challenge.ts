// Two-step sign-in (API.md section 7). A first step that succeeds (password, SSO, a confirmed
// pending link) on an account with TOTP on issues no session: it leaves a challenge, whose
// mfa_token (random, only its SHA-256 stored) lives 5 minutes and works once. POST
// /auth/mfa/verify then takes the token and a code and issues the session exactly like a
// login. Each attempt is counted before the code is checked: on the token (past 5 it is void:
// 429), then against the account's second-step budget and sign-in limits (second-step-attempt.ts).
import { generateToken, hashToken, isWellFormedToken } from '../../infra/crypto/tokens.js';
import { isUniqueViolation } from '../../infra/db/errors.js';
import { countChallengeAttempt, insertChallenge, useChallenge } from './store.js';
import type { ClientInfo, DomainDeps } from '../context.js';
import { badRequest, conflict, PROBLEMS, rateLimited } from '../errors.js';
import { issueSignIn, type SignInMethod, type SignedIn } from '../sessions/sign-in.js';
import { bindPendingLink } from '../identities/pending-link-binding.js';
import { attemptSecondStep, loadSecondStepTarget } from './second-step-attempt.js';
import { readSecondStepCode, SpentCode, useSecondStepCode, wrongCodeAtSignIn } from './second-step.js';

/** What these flows use of the domain's dependencies. */
type FlowDeps = Pick<DomainDeps, 'cache' | 'cipher' | 'clock' | 'db' | 'events' | 'logger' | 'mailContext' | 'mailNotify' | 'webhookNotify' | 'outbox' | 'sql'>;

export const MFA_TOKEN_TTL_MS = 5 * 60_000;
/** Codes tried per mfa_token; the next attempt finds it void. */
export const MFA_TOKEN_MAX_ATTEMPTS = 5;

/** The answer of a first step on an account with two-step on: no session yet. */
export interface MfaRequired {
  mfaRequired: true;
  mfaToken: string;
  expiresAt: Date;
}

export const isMfaRequired = (v: SignedIn | MfaRequired): v is MfaRequired => 'mfaRequired' in v;

const invalidMfaToken = () => badRequest(PROBLEMS.signInAttemptInvalid, 'This sign-in attempt is invalid, expired or already used. Sign in again.');

export async function createMfaChallenge(
  deps: Pick<DomainDeps, 'db' | 'clock'>,
  input: { accountId: string; method: Exclude<SignInMethod, 'passkey'>; pendingLinkId?: string },
): Promise<MfaRequired> {
  const token = generateToken();
  const now = deps.clock();
  const expiresAt = new Date(now.getTime() + MFA_TOKEN_TTL_MS);
  // The account's spent challenges go as new ones come: at most the live ones are kept.
  await insertChallenge(deps.db, {
    accountId: input.accountId,
    tokenHash: hashToken(token),
    method: input.method,
    pendingLinkId: input.pendingLinkId ?? null,
    createdAt: now,
    expiresAt,
  });
  return { mfaRequired: true, mfaToken: token, expiresAt };
}

export async function verifyMfa(deps: FlowDeps, input: { mfaToken: string; code: string }, client: ClientInfo): Promise<SignedIn> {
  if (!isWellFormedToken(input.mfaToken)) throw invalidMfaToken();
  const now = deps.clock();
  // Counted on the token before anything is checked: the 6th attempt finds it void.
  const challenge = await countChallengeAttempt(deps.db, hashToken(input.mfaToken), now);
  if (!challenge) throw invalidMfaToken();
  if (challenge.failures > MFA_TOKEN_MAX_ATTEMPTS) {
    throw rateLimited(PROBLEMS.tooManyWrongCodes, Math.max(1, Math.ceil((challenge.expiresAt.getTime() - now.getTime()) / 1000)), 'Too many wrong codes. Sign in again.');
  }
  const account = await loadSecondStepTarget(deps, challenge.accountId, client);
  if (!account) throw invalidMfaToken();
  const code = readSecondStepCode(deps.cipher, account.totp, input.code, now);
  const method = challenge.method as SignInMethod;
  try {
    return await attemptSecondStep(
      deps,
      account,
      client,
      { method },
      async () => {
        if (!code) return null;
        try {
          return await issueSignIn(deps, account, client, { method, secondStep: true }, async (tx, change) => {
            if (!(await useChallenge(tx, challenge.id, now))) throw invalidMfaToken();
            if (!(await useSecondStepCode(tx, account.id, code, now))) throw new SpentCode();
            if (challenge.pendingLinkId) await bindPendingLink(deps, tx, change, challenge.pendingLinkId, account, client, now);
          });
        } catch (err) {
          if (err instanceof SpentCode) return null; // a replayed code is a wrong code
          throw err;
        }
      },
      wrongCodeAtSignIn,
    );
  } catch (err) {
    if (isUniqueViolation(err)) throw conflict(PROBLEMS.linkConflict, 'This identity or provider has been linked meanwhile; nothing was changed.');
    throw err;
  }
}
