// Turning two-step sign-in on and off (API.md sections 7 and 7a). Setup needs a verified address
// and makes a new TOTP key, stored sealed (AES-256-GCM) and pending for 10 minutes; a code from the
// authenticator confirms it, turns two-step on and answers ten recovery codes, once. Turning it
// off needs the password and a code (TOTP or recovery); new recovery codes need a recently
// authenticated session, the password and a code, which they use up. An account without a
// password (SSO only) is asked for no password. Every code is taken under the second-step budget
// and the sign-in limits (second-step-attempt.ts). The notices mfa-enabled, mfa-disabled and
// recovery-codes-regenerated (API.md section 10) commit with the change.
import type { ClientInfo, DomainDeps, Viewer } from '../context.js';
import { badRequest, conflict, PROBLEMS, notSignedIn } from '../errors.js';
import { mfaDisabled, mfaEnabled, recoveryCodesRegenerated } from '../emails/messages.js';
import { changeAccount } from '../activity/account-change.js';
import { maskIp } from '../network.js';
import { requireRecentAuth, requireVerifiedAddress } from '../sessions/recent-auth.js';
import { voidPendingSecondSteps } from '../sessions/store.js';
import { confirmPassword, confirmPasswordIfSet } from '../passwords/password-confirmation.js';
import { replaceRecoveryCodes } from './recovery-codes.js';
import { attemptSecondStep, loadSecondStepTarget } from './second-step-attempt.js';
import { deleteTotp, enableTotp, readPendingTotp, readSetupAccount, writePendingTotp, type SecondStepTarget } from './store.js';
import { openTotpKey, readSecondStepCode, withCodeUsed, wrongCode } from './second-step.js';
import { describeTotpKey, matchTotpStep, newTotpKey, totpSecretText, type TotpEnrolment } from './totp.js';

/** What these flows use of the domain's dependencies. */
type FlowDeps = Pick<DomainDeps, 'cache' | 'passwords' | 'cipher' | 'clock' | 'db' | 'events' | 'logger' | 'mailContext' | 'mailNotify' | 'webhookNotify' | 'outbox' | 'policy'>;

export const TOTP_SETUP_TTL_MS = 10 * 60_000;

const alreadyOn = () => conflict(PROBLEMS.twoStepOn, 'Two-step sign-in is already on. Turn it off before setting up another authenticator.');
const notOn = () => badRequest(PROBLEMS.twoStepOff, 'Two-step sign-in is not on.');
const noPendingSetup = () => badRequest(PROBLEMS.twoStepOff, 'No two-step setup is pending. Start the setup again.');

export async function setupTotp(
  deps: FlowDeps,
  viewer: Viewer,
  input: { currentPassword?: string | null },
  client: ClientInfo,
): Promise<TotpEnrolment> {
  await requireVerifiedAddress(deps, viewer);
  const account = await readSetupAccount(deps.db, viewer.accountId);
  if (!account) throw notSignedIn();
  // An account without a password (SSO only) has nothing to ask for.
  if (account.hasPassword) await confirmPassword(deps, viewer.accountId, input.currentPassword ?? '', client);
  if (account.totpOn) throw alreadyOn();
  const key = newTotpKey();
  const now = deps.clock();
  const secret = deps.cipher.seal(totpSecretText(key));
  const pendingUntil = new Date(now.getTime() + TOTP_SETUP_TTL_MS);
  // A new setup replaces a pending one, never an enabled one.
  if (!(await writePendingTotp(deps.db, viewer.accountId, secret, pendingUntil, now))) throw alreadyOn();
  return describeTotpKey(key, deps.mailContext.serviceName, account.email);
}

export async function confirmTotp(deps: FlowDeps, viewer: Viewer, code: string, client: ClientInfo): Promise<string[]> {
  const now = deps.clock();
  const pending = await readPendingTotp(deps.db, viewer.accountId);
  if (!pending || pending.enabledAt || !pending.pendingUntil || pending.pendingUntil <= now) throw noPendingSetup();
  const step = matchTotpStep(openTotpKey(deps.cipher, pending.secret), code.replace(/\s/g, ''), now);
  if (step === null) throw wrongCode();
  return changeAccount(deps, viewer.accountId, async (tx, change) => {
    // The confirming code counts as used: it cannot sign in a second time.
    if (!(await enableTotp(tx, viewer.accountId, pending.secret, step, now))) throw noPendingSetup();
    const recoveryCodes = await replaceRecoveryCodes(tx, viewer.accountId, now);
    await change.record({ type: 'mfa_enabled', client, at: now, detail: { method: 'totp' } });
    await change.send(pending.email, mfaEnabled(deps.mailContext, { at: now }));
    return recoveryCodes;
  });
}

export async function disableTotp(
  deps: FlowDeps,
  viewer: Viewer,
  input: { currentPassword?: string | null; code: string },
  client: ClientInfo,
): Promise<void> {
  await confirmPasswordIfSet(deps, viewer.accountId, input.currentPassword, client);
  const now = deps.clock();
  const account = await enabledTarget(deps, viewer, client);
  const code = readSecondStepCode(deps.cipher, account.totp, input.code, now);
  // A stolen session and password must not be able to try codes until one passes.
  await attemptSecondStep(deps, account, client, { during: 'turning two-step off' }, () =>
    withCodeUsed(deps, viewer.accountId, code, now, async (tx, change) => {
      await deleteTotp(tx, viewer.accountId);
      // Pending second steps of sign-ins die with it.
      await voidPendingSecondSteps(tx, viewer.accountId);
      await change.record({ type: 'mfa_disabled', client, at: now, detail: { method: 'totp' } });
      await change.send(account.email, mfaDisabled(deps.mailContext, { at: now }));
      return true;
    }),
    wrongCode,
  );
}

export async function regenerateRecoveryCodes(
  deps: FlowDeps,
  viewer: Viewer,
  input: { currentPassword?: string | null | undefined; code: string },
  client: ClientInfo,
): Promise<string[]> {
  await requireRecentAuth(deps, viewer);
  await confirmPasswordIfSet(deps, viewer.accountId, input.currentPassword, client);
  const now = deps.clock();
  const account = await enabledTarget(deps, viewer, client);
  // A second factor, not the password alone: new codes could otherwise turn two-step off.
  const code = readSecondStepCode(deps.cipher, account.totp, input.code, now);
  return attemptSecondStep(deps, account, client, { during: 'new recovery codes' }, () =>
    withCodeUsed(deps, viewer.accountId, code, now, async (tx, change) => {
      const recoveryCodes = await replaceRecoveryCodes(tx, viewer.accountId, now);
      await change.record({ type: 'recovery_codes_regenerated', client, at: now });
      await change.send(account.email, recoveryCodesRegenerated(deps.mailContext, { at: now, ip: maskIp(client.ip), userAgent: client.userAgent }));
      return recoveryCodes;
    }),
    wrongCode,
  );
}

/** The account a code is checked against; 400 unless two-step is on. */
async function enabledTarget(deps: FlowDeps, viewer: Viewer, client: ClientInfo): Promise<SecondStepTarget> {
  const account = await loadSecondStepTarget(deps, viewer.accountId, client);
  if (!account) throw notSignedIn();
  if (!account.totp?.enabledAt) throw notOn();
  return account;
}
