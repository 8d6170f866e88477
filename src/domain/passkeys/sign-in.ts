// Username-less sign-in with a passkey (API.md section 8): options carry a fresh challenge and no
// credential list (the authenticator offers its discoverable credentials for this RP id), with
// user verification required. The assertion is checked by @simplewebauthn/server against the
// stored public key; the signature counter must move forward (a cloned authenticator or a replay
// shows as a regression), and the counter update commits with the session, conditionally, so two
// concurrent uses of one assertion cannot both sign in. A passkey is possession and user
// verification at once, so it satisfies two-step sign-in: no TOTP code is asked.
import type { PublicKeyCredentialRequestOptionsJSON, VerifiedAuthenticationResponse } from '@simplewebauthn/server';
import { webauthn } from './webauthn.js';
import { recordSecurityEventQuietly } from '../activity/security-events.js';
import type { ClientInfo, DomainDeps } from '../context.js';
import { AppError, badRequest } from '../errors.js';
import { LIMITS_PASSKEY_OPTIONS_PER_NETWORK } from './limits.js';
import { reserve } from '../accounts/rate-limit.js';
import { networkOf } from '../network.js';
import { issueSignIn, type SignedIn } from '../sessions/sign-in.js';
import { putSignInChallenge, takeSignInChallenge } from './challenges.js';
import { CEREMONY_MS, type RelyingParty } from './relying-party.js';
import { asAuthenticationResponse, reasonOf } from './responses.js';

const failed = (why: string) => new AppError('UNAUTHENTICATED', `Passkey sign-in failed: ${why}`);

export async function passkeyLoginOptions(
  deps: DomainDeps,
  rp: RelyingParty,
  client: ClientInfo,
): Promise<{ challengeId: string; options: PublicKeyCredentialRequestOptionsJSON }> {
  // Public and writes to the shared cache: bounded per client network.
  await reserve(deps.cache, LIMITS_PASSKEY_OPTIONS_PER_NETWORK, networkOf(client.ip) ?? client.ip);
  const options = await (await webauthn()).generateAuthenticationOptions({ rpID: rp.id, userVerification: 'required', timeout: CEREMONY_MS });
  const challengeId = await putSignInChallenge(deps, options.challenge);
  return { challengeId, options };
}

export async function passkeyLogin(
  deps: DomainDeps,
  rp: RelyingParty,
  input: { challengeId: string; response: unknown },
  client: ClientInfo,
): Promise<SignedIn> {
  // The challenge is consumed first: it works once, whatever the outcome.
  const expectedChallenge = await takeSignInChallenge(deps, input.challengeId);
  if (!expectedChallenge) throw badRequest('Unknown, used or expired challenge_id. Ask for new options.');
  const response = asAuthenticationResponse(input.response);
  if (!response) throw failed('"response" is not a WebAuthn authentication response.');
  const passkey = await deps.db.passkey.findUnique({
    where: { credentialId: response.id },
    select: {
      id: true,
      accountId: true,
      publicKey: true,
      counter: true,
      transports: true,
      account: { select: { id: true, email: true, emailVerified: true } },
    },
  });
  if (!passkey) throw failed('this passkey is not registered here.');
  // A discoverable credential returns the user handle it was made with: the account id.
  const userHandle = response.response.userHandle;
  if (userHandle !== undefined && Buffer.from(userHandle, 'base64url').toString('utf8') !== passkey.accountId) {
    throw failed('the passkey does not belong to the account it names.');
  }
  // From here the account is known: a failure is in its security activity.
  const refuse = async (why: string) => {
    await recordSecurityEventQuietly(deps, {
      accountId: passkey.accountId,
      type: 'sign_in_failed',
      client,
      at: deps.clock(),
      detail: { method: 'passkey', passkey_id: passkey.id },
    });
    return failed(why);
  };
  let verified: VerifiedAuthenticationResponse;
  try {
    verified = await (await webauthn()).verifyAuthenticationResponse({
      response,
      expectedChallenge,
      expectedOrigin: rp.origins,
      expectedRPID: rp.id,
      credential: {
        id: response.id,
        publicKey: new Uint8Array(passkey.publicKey),
        counter: Number(passkey.counter),
        transports: passkey.transports,
      },
      requireUserVerification: true,
    });
  } catch (err) {
    throw await refuse(reasonOf(err));
  }
  if (!verified.verified) throw await refuse('the signature does not verify.');
  const { newCounter, credentialBackedUp } = verified.authenticationInfo;
  const now = deps.clock();
  return issueSignIn(deps, passkey.account, client, { method: 'passkey', secondStep: false }, async (tx) => {
    // Compare-and-set on the counter: a concurrent sign-in with the same counter value loses.
    const updated = await tx.$executeRaw`
      UPDATE passkeys SET counter = ${BigInt(newCounter)}, last_used_at = ${now}, backed_up = ${credentialBackedUp}
      WHERE id = ${passkey.id} AND (counter < ${BigInt(newCounter)} OR (counter = 0 AND ${BigInt(newCounter)} = 0))`;
    if (updated !== 1) throw failed(`Response counter value ${newCounter} was lower than expected.`);
  });
}
