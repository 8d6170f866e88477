// Registering a passkey on a signed-in account (API.md section 8): options for the browser's
// ceremony, then its verified result stored as a credential. Both steps need a verified address
// and a recently authenticated session (section 7a). The user handle is the account id
// (never the email, which can change and would be readable from the authenticator); the account's
// existing credentials are excluded so one authenticator is not registered twice; user
// verification and a discoverable credential are required, so the passkey alone signs in.
import type { PublicKeyCredentialCreationOptionsJSON, VerifiedRegistrationResponse } from '@simplewebauthn/server';
import { webauthn } from './webauthn.js';
import { passkeyAdded } from '../emails/messages.js';
import { violates } from '../../infra/db/errors.js';
import { changeAccount } from '../activity/account-change.js';
import type { ClientInfo, DomainDeps, Viewer } from '../context.js';
import { badRequest, conflict, PROBLEMS, notSignedIn } from '../errors.js';
import { maskIp } from '../network.js';
import { putRegistrationChallenge, takeRegistrationChallenge } from './challenges.js';
import { defaultPasskeyName, passkeyName } from './names.js';
import { asRegistrationResponse, reasonOf } from './responses.js';
import { CEREMONY_MS, MAX_PASSKEYS, SUPPORTED_ALGORITHMS, type RelyingParty } from './relying-party.js';
import { insertPasskey, lockAccountPasskeys, readRegistrationAccount, type PasskeyRow } from './store.js';
import { guardAddition } from '../sessions/recent-auth.js';

/** What these flows use of the domain's dependencies. */
type FlowDeps = Pick<DomainDeps, 'cache' | 'clock' | 'db' | 'events' | 'mailContext' | 'mailNotify' | 'webhookNotify' | 'outbox' | 'policy'>;

const FACTOR_GUARD = { verified: true, recent: true } as const;

const tooMany = () => conflict(PROBLEMS.passkeyLimit, `An account holds at most ${MAX_PASSKEYS} passkeys. Remove one first.`);

export async function registrationOptions(deps: FlowDeps, rp: RelyingParty, viewer: Viewer): Promise<PublicKeyCredentialCreationOptionsJSON> {
  await guardAddition(deps, viewer, FACTOR_GUARD);
  const account = await readRegistrationAccount(deps.db, viewer.accountId);
  if (!account) throw notSignedIn();
  if (account.passkeys.length >= MAX_PASSKEYS) throw tooMany();
  const options = await (await webauthn()).generateRegistrationOptions({
    rpName: rp.name,
    rpID: rp.id,
    userID: new TextEncoder().encode(viewer.accountId),
    userName: account.email,
    userDisplayName: account.email,
    timeout: CEREMONY_MS,
    attestationType: 'none',
    excludeCredentials: account.passkeys.map((p) => ({ id: p.credentialId, transports: p.transports })),
    authenticatorSelection: { residentKey: 'required', requireResidentKey: true, userVerification: 'required' },
    supportedAlgorithmIDs: SUPPORTED_ALGORITHMS,
    // The browser reports whether the credential is discoverable (a passkey) or not.
    extensions: { credProps: true },
  });
  await putRegistrationChallenge(deps, viewer.sessionId, viewer.accountId, options.challenge);
  return options;
}

export async function addPasskey(
  deps: FlowDeps,
  rp: RelyingParty,
  viewer: Viewer,
  input: { response: unknown; name?: string | null | undefined },
  client: ClientInfo,
): Promise<PasskeyRow> {
  await guardAddition(deps, viewer, FACTOR_GUARD);
  const givenName = input.name === undefined || input.name === null ? null : passkeyName(input.name);
  const response = asRegistrationResponse(input.response);
  if (!response) throw badRequest(PROBLEMS.passkeyInvalid, 'The passkey could not be verified: "response" is not a WebAuthn registration response.');
  // Taken before verifying: a challenge works once, whatever the outcome.
  const expectedChallenge = await takeRegistrationChallenge(deps, viewer.sessionId, viewer.accountId);
  if (!expectedChallenge) throw badRequest(PROBLEMS.passkeyChallengeExpired, 'No passkey registration is in progress for this session, or it expired. Start again.');
  let verified: VerifiedRegistrationResponse;
  try {
    verified = await (await webauthn()).verifyRegistrationResponse({
      response,
      expectedChallenge,
      expectedOrigin: rp.origins,
      expectedRPID: rp.id,
      requireUserPresence: true,
      requireUserVerification: true,
      supportedAlgorithmIDs: SUPPORTED_ALGORITHMS,
    });
  } catch (err) {
    throw badRequest(PROBLEMS.passkeyInvalid, `The passkey could not be verified: ${reasonOf(err)}`);
  }
  if (!verified.verified) throw badRequest(PROBLEMS.passkeyInvalid, 'The passkey could not be verified.');
  const credProps = (response.clientExtensionResults as { credProps?: { rk?: unknown } }).credProps;
  if (credProps?.rk === false) {
    throw badRequest(PROBLEMS.passkeyInvalid, 'This authenticator made a credential it cannot offer by itself at sign-in. Use one that keeps passkeys.');
  }
  const info = verified.registrationInfo;
  const now = deps.clock();
  const name = givenName ?? defaultPasskeyName(info.aaguid, now);
  let row: PasskeyRow;
  try {
    row = await changeAccount(deps, viewer.accountId, async (tx, change) => {
      // The account row is locked so that concurrent registrations respect the cap.
      const account = await lockAccountPasskeys(tx, viewer.accountId);
      if (!account) throw notSignedIn();
      if (account.passkeys >= MAX_PASSKEYS) throw tooMany();
      const created = await insertPasskey(tx, {
        accountId: viewer.accountId,
        credentialId: info.credential.id,
        publicKey: info.credential.publicKey,
        counter: BigInt(info.credential.counter),
        transports: info.credential.transports ?? [],
        aaguid: info.aaguid,
        backupEligible: info.credentialDeviceType === 'multiDevice',
        backedUp: info.credentialBackedUp,
        name,
        createdAt: now,
      });
      await change.send(account.email, passkeyAdded(deps.mailContext, { at: now, name, ip: maskIp(client.ip), userAgent: client.userAgent }));
      await change.record({ type: 'passkey_added', client, at: now, detail: { passkey_id: created.id, name } });
      return created;
    });
  } catch (err) {
    if (violates(err, 'credential_id', 'credentialId')) throw badRequest(PROBLEMS.passkeyRegistered, 'This passkey is already registered.');
    throw err;
  }
  return row;
}
