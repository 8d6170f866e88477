// Two-step sign-in on the graph (API.md section 7): `me.mfa`, enrolment and the second step of a
// sign-in. verifyMfa answers like login (AuthPayload, the cookie set).
import type { AccountView } from '../../../domain/accounts/account-view.js';
import { verifyMfa } from '../../../domain/two-step/mfa-challenge.js';
import { confirmTotp, disableTotp, regenerateRecoveryCodes, setupTotp } from '../../../domain/two-step/mfa-enrolment.js';
import { builder } from '../builder.js';
import { TOKEN_REACH } from '../field-policy.js';
import { AccountRef } from './account.js';
import { AuthPayloadRef, authAnswer } from './session.js';

const MfaSummaryRef = builder.objectRef<AccountView['mfa']>('MfaSummary').implement({
  description: 'Two-step sign-in of the account.',
  tokenScopes: TOKEN_REACH.account,
  fields: (t) => ({
    totp: t.exposeBoolean('totp', { description: 'Two-step sign-in with an authenticator app is on.' }),
    recoveryCodesLeft: t.exposeInt('recoveryCodesLeft', { description: 'Unused recovery codes.' }),
    passkeys: t.exposeInt('passkeys', { description: 'Registered passkeys (a passkey sign-in needs no second step).' }),
  }),
});

builder.objectField(AccountRef, 'mfa', (t) =>
  t.field({
    type: MfaSummaryRef,
    tokenScopes: TOKEN_REACH.account,
    // A view cached before this field existed has none: empty until the cache entry is replaced.
    resolve: (a) => a.mfa ?? { totp: false, recoveryCodesLeft: 0, passkeys: 0 },
  }),
);

const TotpSetupRef = builder.objectRef<{ secret: string; otpauthUrl: string; qrSvg: string }>('TotpSetup').implement({
  description: 'A pending authenticator (10 minutes): add it to the app, then confirmTotp with a code from it.',
  fields: (t) => ({
    secret: t.exposeString('secret', { description: 'Base32, for typing into the app.' }),
    otpauthUrl: t.exposeString('otpauthUrl', { description: 'otpauth://totp/… (issuer: the service name, label: the account email).' }),
    qrSvg: t.exposeString('qrSvg', { description: 'The otpauth URL as an inline SVG QR code.' }),
  }),
});

const RecoveryCodesRef = builder.objectRef<{ recoveryCodes: string[] }>('RecoveryCodes').implement({
  description: 'Ten single-use recovery codes, shown this once; earlier ones are void.',
  fields: (t) => ({ recoveryCodes: t.exposeStringList('recoveryCodes') }),
});

builder.mutationFields((t) => ({
  setupTotp: t.field({
    type: TotpSetupRef,
    authScopes: { signedIn: true },
    hashesPassword: true,
    args: { currentPassword: t.arg.string({ required: false, description: 'Absent for an account without a password.' }) },
    resolve: (_root, args, ctx) => setupTotp(ctx.deps, ctx.viewer!, args, ctx.client),
  }),
  confirmTotp: t.field({
    type: RecoveryCodesRef,
    authScopes: { signedIn: true },
    args: { code: t.arg.string({ required: true }) },
    resolve: async (_root, args, ctx) => ({ recoveryCodes: await confirmTotp(ctx.deps, ctx.viewer!, args.code, ctx.client) }),
  }),
  disableTotp: t.boolean({
    authScopes: { signedIn: true },
    hashesPassword: true,
    args: {
      currentPassword: t.arg.string({ required: false, description: 'Absent for an account without a password: the code alone.' }),
      code: t.arg.string({ required: true, description: 'A TOTP code or a recovery code.' }),
    },
    resolve: async (_root, args, ctx) => {
      await disableTotp(ctx.deps, ctx.viewer!, args, ctx.client);
      return true;
    },
  }),
  regenerateRecoveryCodes: t.field({
    type: RecoveryCodesRef,
    description: 'New recovery codes (earlier ones void). Needs a recently authenticated session (REAUTH_REQUIRED otherwise).',
    authScopes: { signedIn: true },
    hashesPassword: true,
    args: {
      currentPassword: t.arg.string({ required: false, description: 'Absent for an account without a password.' }),
      code: t.arg.string({ required: true, description: 'A current TOTP code or an unused recovery code (used up).' }),
    },
    resolve: async (_root, args, ctx) => ({
      recoveryCodes: await regenerateRecoveryCodes(ctx.deps, ctx.viewer!, args, ctx.client),
    }),
  }),
  verifyMfa: t.field({
    type: AuthPayloadRef,
    description: 'The second step of a sign-in: the mfaToken and a 6-digit TOTP code or a recovery code. Signs in like login.',
    args: { mfaToken: t.arg.string({ required: true }), code: t.arg.string({ required: true }) },
    resolve: async (_root, args, ctx) => authAnswer(ctx, await verifyMfa(ctx.deps, args, ctx.client)),
  }),
}));
