// The consent's resume (src/adapters/authorization-server/interaction-resume.ts) signs
// oidc-provider's resume cookie itself: the library's internals, not its API. These tests pin the
// version it was written for and run the resume against a bare provider configured with the
// class's cookies: an authorization request, the interaction decided as the consent API decides
// it, then the resume, whose Location must carry the code.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createHash, randomBytes } from 'node:crypto';
import { test } from 'node:test';
import { exportJWK, generateKeyPair } from 'jose';
import inject from 'light-my-request';
import type { Provider } from 'oidc-provider';
import { InteractionResume, WRITTEN_FOR_OIDC_PROVIDER } from '../../../src/adapters/authorization-server/interaction-resume.js';
import { loadOidcProvider, TTL, withLibraryNotices } from '../../../src/adapters/authorization-server/oidc-provider.js';

const ISSUER = 'http://localhost:4999';
const REDIRECT = 'http://127.0.0.1:8765/callback';
const KEY = randomBytes(32).toString('base64url');
const quiet = { warn: () => undefined };

test('oidc-provider is the version the resume scheme was read from', () => {
  const { version } = JSON.parse(readFileSync(new URL('../../../node_modules/oidc-provider/package.json', import.meta.url), 'utf8')) as { version: string };
  const installed = version.split('.').slice(0, 2).join('.');
  assert.equal(
    installed,
    WRITTEN_FOR_OIDC_PROVIDER,
    `oidc-provider is ${version}, the consent's resume was written for ${WRITTEN_FOR_OIDC_PROVIDER}.x. InteractionResume ` +
      '(src/adapters/authorization-server/interaction-resume.ts) signs the provider\'s resume cookie itself: read ' +
      'lib/actions/authorization/interactions.js and resume.js of the new version again (cookie names, which cookie ' +
      'the resume reads, the keygrip signature `<name>.sig`), run this file, then set WRITTEN_FOR_OIDC_PROVIDER.',
  );
});

/** A bare provider with one public client, its cookies InteractionResume's. */
async function bareProvider(resume: InteractionResume): Promise<Provider> {
  const oidc = await loadOidcProvider(quiet);
  const { privateKey } = await generateKeyPair('ES256', { extractable: true });
  const jwk = { ...(await exportJWK(privateKey)), alg: 'ES256', use: 'sig', kid: 'k1' };
  return withLibraryNotices(quiet, () =>
    new oidc.Provider(ISSUER, {
      clients: [{ client_id: 'app', token_endpoint_auth_method: 'none', redirect_uris: [REDIRECT], grant_types: ['authorization_code'], response_types: ['code'], id_token_signed_response_alg: 'ES256' }],
      jwks: { keys: [jwk] } as never,
      cookies: resume.cookies(false),
      features: { devInteractions: { enabled: false } },
      interactions: { url: async (_ctx, interaction) => `/consent/${interaction.uid}` },
      findAccount: async (_ctx, sub) => ({ accountId: sub, claims: async () => ({ sub }) }),
      routes: { authorization: '/oauth/authorize' },
      ttl: { ...TTL },
      renderError: async (ctx, out) => {
        ctx.body = out;
      },
    }),
  );
}

/** An authorization request up to its interaction, decided (login and consent) as the consent API does. */
async function decidedInteraction(provider: Provider): Promise<{ uid: string; returnTo: string }> {
  const challenge = createHash('sha256').update(randomBytes(32).toString('base64url')).digest('base64url');
  const q = new URLSearchParams({ response_type: 'code', client_id: 'app', redirect_uri: REDIRECT, scope: 'openid', state: 'st-1', code_challenge: challenge, code_challenge_method: 'S256' });
  const started = await inject(provider.callback(), { method: 'GET', url: `/oauth/authorize?${q}`, headers: { host: new URL(ISSUER).host } });
  assert.equal(started.statusCode, 303, started.body);
  const uid = String(started.headers.location).split('/').pop()!;
  const interaction = await provider.Interaction.find(uid);
  assert.ok(interaction, 'the interaction is stored');
  const grant = new provider.Grant({ accountId: 'account-1', clientId: 'app' });
  grant.addOIDCScope('openid');
  interaction.result = { login: { accountId: 'account-1' }, consent: { grantId: await grant.save() } };
  await interaction.save(60);
  return { uid, returnTo: interaction.returnTo };
}

test('resume: the provider takes the signed cookie and redirects to the client with the code, state and iss', async () => {
  const resume = new InteractionResume(ISSUER, KEY);
  const provider = await bareProvider(resume);
  const { uid, returnTo } = await decidedInteraction(provider);
  const answer = await resume.resume(provider.callback(), uid, returnTo);
  assert.ok(answer.location, `status ${answer.status}: the provider did not redirect`);
  const back = new URL(answer.location);
  assert.equal(`${back.origin}${back.pathname}`, REDIRECT);
  assert.ok(back.searchParams.get('code'), answer.location);
  assert.equal(back.searchParams.get('state'), 'st-1');
  assert.equal(back.searchParams.get('iss'), ISSUER);
  // Resumed once: the interaction is gone, and a second resume has nowhere to go.
  assert.equal((await resume.resume(provider.callback(), uid, returnTo)).location, null);
});

test('resume: a cookie signed with another key is refused (the signature is what the provider checks)', async () => {
  const provider = await bareProvider(new InteractionResume(ISSUER, KEY));
  const { uid, returnTo } = await decidedInteraction(provider);
  const forged = await new InteractionResume(ISSUER, randomBytes(32).toString('base64url')).resume(provider.callback(), uid, returnTo);
  assert.equal(forged.location, null);
  assert.equal(forged.status, 400);
});
