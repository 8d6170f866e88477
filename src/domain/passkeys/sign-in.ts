// Username-less sign-in with a passkey (API.md section 8): options carry a fresh challenge and no
// credential list (the authenticator offers its discoverable credentials for this RP id), with
// user verification required. The assertion is checked in assertion.ts; the counter update
// commits with the session, conditionally, so two concurrent uses of one assertion cannot both
// sign in. A passkey is possession and user verification at once, so it satisfies two-step
// sign-in: no TOTP code is asked.
import type { PublicKeyCredentialRequestOptionsJSON } from '@simplewebauthn/server';
import { webauthn } from './webauthn.js';
import { recordSecurityEventQuietly } from '../activity/security-events.js';
import type { ClientInfo, DomainDeps } from '../context.js';
import { LIMITS_PASSKEY_OPTIONS_PER_NETWORK } from './limits.js';
import { reserve } from '../limits/rate-limit.js';
import { networkOf } from '../network.js';
import { issueSignIn, type SignedIn } from '../sessions/sign-in.js';
import { putSignInChallenge } from './challenges.js';
import { CEREMONY_MS, type RelyingParty } from './relying-party.js';
import { advanceCounter, verifyPasskeyAssertion, type AssertionInput } from './assertion.js';

/** What these flows use of the domain's dependencies. */
type FlowDeps = Pick<DomainDeps, 'cache' | 'clock' | 'db' | 'events' | 'logger' | 'mailContext' | 'mailNotify' | 'webhookNotify' | 'outbox' | 'sql'>;

export async function passkeyLoginOptions(
  deps: FlowDeps,
  rp: RelyingParty,
  client: ClientInfo,
): Promise<{ challengeId: string; options: PublicKeyCredentialRequestOptionsJSON }> {
  // Public and writes to the shared cache: bounded per client network.
  await reserve(deps.cache, LIMITS_PASSKEY_OPTIONS_PER_NETWORK, networkOf(client.ip) ?? client.ip);
  const options = await (await webauthn()).generateAuthenticationOptions({ rpID: rp.id, userVerification: 'required', timeout: CEREMONY_MS });
  const challengeId = await putSignInChallenge(deps, options.challenge);
  return { challengeId, options };
}

export async function passkeyLogin(deps: FlowDeps, rp: RelyingParty, input: AssertionInput, client: ClientInfo): Promise<SignedIn> {
  // From the passkey on, the account is known: a failed signature is in its security activity.
  const assertion = await verifyPasskeyAssertion(deps, rp, input, (passkey) =>
    recordSecurityEventQuietly(deps, {
      accountId: passkey.accountId,
      type: 'sign_in_failed',
      client,
      at: deps.clock(),
      detail: { method: 'passkey', passkey_id: passkey.id },
    }),
  );
  const now = deps.clock();
  return issueSignIn(deps, assertion.account, client, { method: 'passkey', secondStep: false }, (tx) => advanceCounter(tx, assertion, now));
}
