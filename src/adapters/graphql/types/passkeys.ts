// Passkeys on the graph (API.md section 8): `me.passkeys`, registration (options, then the
// browser's result), rename, delete, and the public username-less sign-in.
import { addPasskey, registrationOptions } from '../../../domain/passkeys/registration.js';
import { deletePasskey, listPasskeys, renamePasskey } from '../../../domain/passkeys/management.js';
import type { PasskeyRow } from '../../../domain/passkeys/store.js';
import type { RelyingParty } from '../../../domain/passkeys/relying-party.js';
import { passkeyLogin, passkeyLoginOptions } from '../../../domain/passkeys/sign-in.js';
import { builder } from '../builder.js';
import type { GraphQLContext } from '../context.js';
import { AccountRef } from './account.js';
import { AuthPayloadRef } from './session.js';

export const relyingParty = (ctx: GraphQLContext): RelyingParty => ({
  id: ctx.deps.config.webauthn.rpId,
  name: ctx.deps.config.serviceName,
  origins: ctx.deps.config.webauthn.origins,
});

export const PasskeyRef = builder.objectRef<PasskeyRow>('Passkey').implement({
  description: 'A passkey (WebAuthn credential) that signs in to this account without a password.',
  fields: (t) => ({
    id: t.exposeID('id'),
    name: t.exposeString('name', { description: 'Set by the user; by default the authenticator or the date it was added.' }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    lastUsedAt: t.expose('lastUsedAt', { type: 'DateTime', nullable: true }),
    backupEligible: t.exposeBoolean('backupEligible', { description: 'A synced passkey that may live on several devices.' }),
    backedUp: t.exposeBoolean('backedUp', { description: 'Backed up (synced), as the authenticator last reported.' }),
    transports: t.exposeStringList('transports', { description: 'How the browser reaches the authenticator (hints).' }),
  }),
});

const PasskeyLoginOptionsRef = builder
  .objectRef<{ challengeId: string; options: Record<string, unknown> }>('PasskeyLoginOptions')
  .implement({
    description: 'A passkey sign-in challenge: send `options` to the browser, then challengeId with its answer.',
    fields: (t) => ({
      challengeId: t.exposeString('challengeId', { description: 'Works once, for 5 minutes.' }),
      options: t.expose('options', { type: 'JSONObject', description: 'PublicKeyCredentialRequestOptionsJSON.' }),
    }),
  });

builder.objectField(AccountRef, 'passkeys', (t) =>
  t.field({
    type: [PasskeyRef],
    description: 'Registered passkeys, oldest first.',
    resolve: (account, _args, ctx) => listPasskeys(ctx.deps, account.id),
  }),
);

builder.mutationFields((t) => ({
  passkeyRegistrationOptions: t.field({
    type: 'JSONObject',
    description: 'Starts adding a passkey: PublicKeyCredentialCreationOptionsJSON for the browser (valid 5 minutes, for this session).',
    authScopes: { signedIn: true },
    resolve: async (_root, _args, ctx) =>
      (await registrationOptions(ctx.deps, relyingParty(ctx), ctx.viewer!)) as unknown as Record<string, unknown>,
  }),
  addPasskey: t.field({
    type: PasskeyRef,
    description: "Verifies the browser's registration response and stores the passkey.",
    authScopes: { signedIn: true },
    args: {
      response: t.arg({ type: 'JSONObject', required: true, description: 'RegistrationResponseJSON from the browser.' }),
      name: t.arg.string({ required: false }),
    },
    resolve: (_root, args, ctx) => addPasskey(ctx.deps, relyingParty(ctx), ctx.viewer!, args, ctx.client),
  }),
  renamePasskey: t.field({
    type: PasskeyRef,
    authScopes: { signedIn: true },
    args: { id: t.arg.id({ required: true }), name: t.arg.string({ required: true }) },
    resolve: (_root, args, ctx) => renamePasskey(ctx.deps, ctx.viewer!.accountId, String(args.id), args.name),
  }),
  deletePasskey: t.boolean({
    description: 'Removes a passkey; refused when it is the last way to sign in.',
    authScopes: { signedIn: true },
    args: { id: t.arg.id({ required: true }) },
    resolve: async (_root, args, ctx) => {
      await deletePasskey(ctx.deps, ctx.viewer!.accountId, String(args.id), ctx.client);
      return true;
    },
  }),
  passkeyLoginOptions: t.field({
    type: PasskeyLoginOptionsRef,
    description: 'Starts a username-less passkey sign-in (discoverable credentials, user verification required).',
    resolve: async (_root, _args, ctx) => {
      const { challengeId, options } = await passkeyLoginOptions(ctx.deps, relyingParty(ctx), ctx.client);
      return { challengeId, options: options as unknown as Record<string, unknown> };
    },
  }),
  passkeyLogin: t.field({
    type: AuthPayloadRef,
    description: 'Signs in with a passkey (sets the cookie), exactly like login; satisfies two-step sign-in.',
    args: {
      challengeId: t.arg.string({ required: true }),
      response: t.arg({ type: 'JSONObject', required: true, description: 'AuthenticationResponseJSON from the browser.' }),
    },
    resolve: async (_root, args, ctx) => {
      const signedIn = await passkeyLogin(ctx.deps, relyingParty(ctx), args, ctx.client);
      ctx.setSessionCookie(signedIn.token, signedIn.expiresAt);
      return signedIn;
    },
  }),
}));
