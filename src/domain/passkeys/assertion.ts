// Checking a passkey assertion, for a sign-in and for a re-authentication (API.md sections 8 and
// 7a): the challenge (from POST /auth/passkey/options) is consumed first, so it works once
// whatever the outcome; the credential is looked up by its id and its signature checked by
// @simplewebauthn/server against the stored public key with user verification required. The
// signature counter must move forward (a cloned authenticator or a replay shows as a
// regression): advanceCounter, in the caller's transaction, is a compare-and-set, so two
// concurrent uses of one assertion cannot both pass.
import type { VerifiedAuthenticationResponse } from '@simplewebauthn/server';
import type { Tx } from '../store.js';
import { advancePasskeyCounter, findCredential } from './store.js';
import type { DomainDeps } from '../context.js';
import { AppError, badRequest, PROBLEMS } from '../errors.js';
import { takeSignInChallenge } from './challenges.js';
import type { RelyingParty } from './relying-party.js';
import { asAuthenticationResponse, reasonOf } from './responses.js';
import { webauthn } from './webauthn.js';

export const passkeyFailed = (why: string) => new AppError(PROBLEMS.passkeyFailed, `Passkey sign-in failed: ${why}`);

export interface AssertionInput {
  challengeId: string;
  response: unknown;
}

export interface VerifiedAssertion {
  passkeyId: string;
  account: { id: string; email: string; emailVerified: boolean };
  newCounter: bigint;
  backedUp: boolean;
}

/**
 * Verifies the assertion. `onRefused` runs when a known passkey's signature does not verify (the
 * sign-in records it in the account's activity); every failure throws UNAUTHENTICATED, an
 * unknown or used challenge BAD_REQUEST.
 */
export async function verifyPasskeyAssertion(
  deps: Pick<DomainDeps, 'db' | 'cache' | 'clock'>,
  rp: RelyingParty,
  input: AssertionInput,
  onRefused: (passkey: { id: string; accountId: string }) => Promise<void> = async () => {},
): Promise<VerifiedAssertion> {
  const expectedChallenge = await takeSignInChallenge(deps, input.challengeId);
  if (!expectedChallenge) throw badRequest(PROBLEMS.passkeyChallengeExpired, 'Unknown, used or expired challenge_id. Ask for new options.');
  const response = asAuthenticationResponse(input.response);
  if (!response) throw passkeyFailed('"response" is not a WebAuthn authentication response.');
  const passkey = await findCredential(deps.db, response.id);
  if (!passkey) throw passkeyFailed('this passkey is not registered here.');
  // A discoverable credential returns the user handle it was made with: the account id.
  const userHandle = response.response.userHandle;
  if (userHandle !== undefined && Buffer.from(userHandle, 'base64url').toString('utf8') !== passkey.accountId) {
    throw passkeyFailed('the passkey does not belong to the account it names.');
  }
  const refuse = async (why: string) => {
    await onRefused({ id: passkey.id, accountId: passkey.accountId });
    return passkeyFailed(why);
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
  return { passkeyId: passkey.id, account: passkey.account, newCounter: BigInt(newCounter), backedUp: credentialBackedUp };
}

/** Records the use in `tx`: compare-and-set on the counter, so a concurrent use of the same value loses. */
export async function advanceCounter(tx: Tx, assertion: VerifiedAssertion, now: Date): Promise<void> {
  const { passkeyId, newCounter, backedUp } = assertion;
  if (!(await advancePasskeyCounter(tx, passkeyId, newCounter, backedUp, now))) {
    throw passkeyFailed(`Response counter value ${newCounter} was lower than expected.`);
  }
}
