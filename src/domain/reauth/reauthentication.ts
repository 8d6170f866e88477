// Re-authentication (API.md section 7a): a signed-in session proves a credential again and counts
// as recently authenticated for REAUTH_WINDOW_SECONDS, as after a sign-in. The proof is one of:
// the password, a second-step code (a current TOTP code or an unused recovery code, which it uses
// up), or an assertion of one of the account's passkeys. (An account with neither password nor
// two-step signs in again with a linked provider: sso/provider-reauth.ts.) A wrong credential is
// 401 under the sign-in limits, and a code also under the second-step budget, as at sign-in.
import type { ClientInfo, DomainDeps, Viewer } from '../context.js';
import { AppError, badRequest, PROBLEMS, notSignedIn, unauthenticated } from '../errors.js';
import { recacheSession } from '../sessions/session.js';
import { markReauthenticated, type ReauthMethod } from '../sessions/recent-auth.js';
import { advanceCounter, passkeyFailed, verifyPasskeyAssertion } from '../passkeys/assertion.js';
import type { RelyingParty } from '../passkeys/relying-party.js';
import { changeAccount } from '../activity/account-change.js';
import { confirmPassword } from '../passwords/password-confirmation.js';
import { underSignInLimits } from '../passwords/password-check.js';
import { attemptSecondStep, loadSecondStepTarget } from '../two-step/second-step-attempt.js';
import type { SecondStepTarget } from '../two-step/store.js';
import { readSecondStepCode, withCodeUsed, wrongCodeAtSignIn } from '../two-step/second-step.js';

/** What these flows use of the domain's dependencies. */
type FlowDeps = Pick<DomainDeps, 'cache' | 'passwords' | 'cipher' | 'clock' | 'db' | 'sql' | 'events' | 'logger' | 'mailContext' | 'mailNotify' | 'webhookNotify' | 'outbox'>;

export interface ReauthInput {
  password?: string | null | undefined;
  code?: string | null | undefined;
  challengeId?: string | null | undefined;
  response?: unknown;
}

type Proof =
  | { kind: 'password'; password: string }
  | { kind: 'code'; code: string }
  | { kind: 'passkey'; challengeId: string; response: unknown };

const given = <T>(v: T | null | undefined): v is T => v !== undefined && v !== null;

/** Exactly one of the three forms. */
function proofOf(input: ReauthInput): Proof {
  const forms: Proof[] = [];
  if (given(input.password)) forms.push({ kind: 'password', password: input.password });
  if (given(input.code)) forms.push({ kind: 'code', code: input.code });
  if (given(input.challengeId) || given(input.response)) {
    if (!given(input.challengeId) || !given(input.response)) throw badRequest(PROBLEMS.reauthInvalid, 'A passkey re-authentication needs both "challenge_id" and "response".');
    forms.push({ kind: 'passkey', challengeId: input.challengeId, response: input.response });
  }
  if (forms.length !== 1) throw badRequest(PROBLEMS.reauthInvalid, 'Give exactly one of: "password", "code", or "challenge_id" with "response".');
  return forms[0]!;
}

export async function reauthenticate(deps: FlowDeps, rp: RelyingParty, viewer: Viewer, input: ReauthInput, client: ClientInfo): Promise<void> {
  const proof = proofOf(input);
  switch (proof.kind) {
    case 'password':
      await confirmPassword(deps, viewer.accountId, proof.password, client);
      await changeAccount(deps, viewer.accountId, (tx, change) => markReauthenticated(tx, change, deps.clock(), viewer, 'password', client));
      break;
    case 'code':
      await withCode(deps, viewer, proof.code, client);
      break;
    case 'passkey':
      await withPasskey(deps, rp, viewer, proof, client);
      break;
  }
  await recacheSession(deps, viewer.tokenHash);
}

async function accountOf(deps: FlowDeps, viewer: Viewer, client: ClientInfo): Promise<SecondStepTarget> {
  const account = await loadSecondStepTarget(deps, viewer.accountId, client);
  if (!account) throw notSignedIn();
  return account;
}

async function withCode(deps: FlowDeps, viewer: Viewer, typed: string, client: ClientInfo): Promise<void> {
  const account = await accountOf(deps, viewer, client);
  const now = deps.clock();
  const code = readSecondStepCode(deps.cipher, account.totp, typed, now);
  const method: ReauthMethod = code?.kind === 'totp' ? 'totp' : 'recovery_code';
  await attemptSecondStep(
    deps,
    account,
    client,
    { during: 'reauthentication' },
    () => withCodeUsed(deps, account.id, code, now, (tx, change) => markReauthenticated(tx, change, now, viewer, method, client)),
    wrongCodeAtSignIn,
  );
}

async function withPasskey(
  deps: FlowDeps,
  rp: RelyingParty,
  viewer: Viewer,
  proof: { challengeId: string; response: unknown },
  client: ClientInfo,
): Promise<void> {
  const account = await accountOf(deps, viewer, client);
  let refusal: AppError | null = null;
  await underSignInLimits(
    deps,
    { emailKey: account.emailNormalized, knownNetwork: account.knownNetwork },
    client,
    async () => {
      try {
        const assertion = await verifyPasskeyAssertion(deps, rp, proof);
        if (assertion.account.id !== viewer.accountId) throw passkeyFailed('this passkey belongs to another account.');
        const now = deps.clock();
        return await changeAccount(deps, viewer.accountId, async (tx, change) => {
          await advanceCounter(tx, assertion, now);
          return markReauthenticated(tx, change, now, viewer, 'passkey', client);
        });
      } catch (err) {
        // A passkey that does not verify is a wrong credential: counted, answered 401.
        if (err instanceof AppError && err.code === 'UNAUTHENTICATED') {
          refusal = err;
          return null;
        }
        throw err;
      }
    },
    () => refusal ?? unauthenticated(PROBLEMS.passkeyFailed),
  );
}
