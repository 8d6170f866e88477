// The software authenticator the passkey tests use, checked against @simplewebauthn/server's own
// verifier (the one the server runs): a registration and an assertion it makes verify, and each
// knob the server tests turn breaks verification the way a real mistake would.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  generateAuthenticationOptions,
  generateRegistrationOptions,
  verifyAuthenticationResponse,
  verifyRegistrationResponse,
} from '@simplewebauthn/server';
import { cborEncode, FLAGS, SoftwareAuthenticator } from '../../support/webauthn-authenticator.js';

const ORIGIN = 'https://app.example.test';
const RP_ID = 'app.example.test';

test('the CBOR encoder writes the RFC 8949 examples', () => {
  assert.equal(cborEncode(0).toString('hex'), '00');
  assert.equal(cborEncode(23).toString('hex'), '17');
  assert.equal(cborEncode(24).toString('hex'), '1818');
  assert.equal(cborEncode(1000).toString('hex'), '1903e8');
  assert.equal(cborEncode(1000000).toString('hex'), '1a000f4240');
  assert.equal(cborEncode(-1).toString('hex'), '20');
  assert.equal(cborEncode(-100).toString('hex'), '3863');
  assert.equal(cborEncode('IETF').toString('hex'), '6449455446');
  assert.equal(cborEncode(new Uint8Array([1, 2, 3, 4])).toString('hex'), '4401020304');
  assert.equal(cborEncode([1, [2, 3], [4, 5]]).toString('hex'), '8301820203820405');
  assert.equal(cborEncode({ a: 1, b: [2, 3] }).toString('hex'), 'a26161016162820203');
});

async function registered() {
  const authenticator = new SoftwareAuthenticator(ORIGIN);
  const options = await generateRegistrationOptions({ rpName: 'Test', rpID: RP_ID, userName: 'ada@example.com', userID: new TextEncoder().encode('user-1') });
  const response = authenticator.register(options);
  const verified = await verifyRegistrationResponse({ response, expectedChallenge: options.challenge, expectedOrigin: ORIGIN, expectedRPID: RP_ID });
  assert.equal(verified.verified, true);
  return { authenticator, info: verified.registrationInfo! };
}

test('a registration verifies: ES256 key, "none" attestation, UV, counter 0, the credential id it reports', async () => {
  const { authenticator, info } = await registered();
  assert.equal(info.fmt, 'none');
  assert.equal(info.userVerified, true);
  assert.equal(info.credential.counter, 0);
  assert.equal(info.credential.id, authenticator.credentials[0]!.id.toString('base64url'));
  assert.deepEqual(info.credential.transports, ['internal']);
  assert.equal(info.credentialDeviceType, 'singleDevice');
});

test('an assertion verifies and its counter moves forward; a regression, another origin or RP id, or no UV does not', async () => {
  const { authenticator, info } = await registered();
  const verify = async (o: Parameters<SoftwareAuthenticator['authenticate']>[1], counter = info.credential.counter) => {
    const options = await generateAuthenticationOptions({ rpID: RP_ID, userVerification: 'required' });
    const response = authenticator.authenticate(options, o);
    return verifyAuthenticationResponse({
      response,
      expectedChallenge: options.challenge,
      expectedOrigin: ORIGIN,
      expectedRPID: RP_ID,
      credential: { ...info.credential, counter },
      requireUserVerification: true,
    });
  };
  const ok = await verify({});
  assert.equal(ok.verified, true);
  assert.equal(ok.authenticationInfo.newCounter, 1);
  assert.equal(authenticator.authenticate({ challenge: 'x', rpId: RP_ID }).response.userHandle, Buffer.from('user-1').toString('base64url'));
  await assert.rejects(verify({ counter: 3 }, 5), /counter/i);
  await assert.rejects(verify({ origin: 'https://evil.example.test' }), /origin/i);
  await assert.rejects(verify({ rpId: 'evil.example.test' }), /RP ID/i);
  await assert.rejects(verify({ flags: FLAGS.UP }), /verif/i);
});
