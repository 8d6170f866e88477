// Two-step sign-in paths of API.md section 7 (the login row's mfa_required answer is
// authPayloadJson in accounts.ts).
import { graphql } from '../../documents/graphql.js';
import { route, type RestRoute } from '../route.js';
import { AuthPayload, RecoveryCodes, TotpSetup } from '../schemas.js';
import { AuthPayloadFields, authPayloadJson } from './accounts.js';

export const mfaRoutes: RestRoute[] = [
  route({
    method: 'POST',
    url: '/api/account/mfa/totp/setup',
    summary: 'Start TOTP setup: a secret pending for 10 minutes until confirmed.',
    errors: { 401: 'Wrong password.', 403: 'The address is not verified.', 409: 'Two-step sign-in is already on.', 429: 'Too many wrong passwords (the sign-in limits).' },
    response: TotpSetup,
    document: graphql('mutation ($currentPassword: String) { setupTotp(currentPassword: $currentPassword) { secret otpauthUrl qrSvg } }'),
    body: { current_password: 'currentPassword' },
    status: 200,
    respond: ({ setupTotp: t }) => ({ secret: t.secret, otpauth_url: t.otpauthUrl, qr_svg: t.qrSvg }),
  }),
  route({
    method: 'POST',
    url: '/api/account/mfa/totp/confirm',
    summary: 'Confirm TOTP with a code: two-step sign-in is on; the recovery codes are shown once.',
    errors: { 400: 'Wrong code, or no pending setup.' },
    response: RecoveryCodes,
    document: graphql('mutation ($code: String!) { confirmTotp(code: $code) { recoveryCodes } }'),
    body: { code: 'code' },
    status: 200,
    respond: (d) => ({ recovery_codes: d.confirmTotp.recoveryCodes }),
  }),
  route({
    method: 'DELETE',
    url: '/api/account/mfa/totp',
    summary: 'Turn two-step sign-in off.',
    errors: { 400: 'Wrong code.', 401: 'Wrong password.', 429: 'Too many wrong codes this hour.' },
    document: graphql('mutation ($currentPassword: String, $code: String!) { disableTotp(currentPassword: $currentPassword, code: $code) }'),
    body: { current_password: 'currentPassword', code: 'code' },
    status: 204,
  }),
  route({
    method: 'POST',
    url: '/api/account/mfa/recovery-codes',
    summary: 'Replace the recovery codes (earlier ones stop working).',
    errors: { 400: 'Two-step sign-in is off, or no valid code.', 401: 'Wrong password.', 403: 'Recent authentication is needed (REAUTH_REQUIRED).', 429: 'Too many wrong passwords or codes.' },
    response: RecoveryCodes,
    document: graphql(
      'mutation ($currentPassword: String, $code: String!) { regenerateRecoveryCodes(currentPassword: $currentPassword, code: $code) { recoveryCodes } }',
    ),
    body: { current_password: 'currentPassword', code: 'code' },
    status: 200,
    respond: (d) => ({ recovery_codes: d.regenerateRecoveryCodes.recoveryCodes }),
  }),
  route({
    method: 'POST',
    url: '/auth/mfa/verify',
    summary: 'Complete a two-step sign-in with a TOTP or recovery code.',
    public: true,
    setsCookie: true,
    errors: { 400: 'Unknown, used or expired mfa_token.', 401: 'Wrong code.', 409: 'The provider identity was linked meanwhile (an SSO sign-in completing its second step).', 429: 'Too many wrong codes.' },
    response: AuthPayload,
    document: graphql(
      'mutation ($mfaToken: String!, $code: String!) { verifyMfa(mfaToken: $mfaToken, code: $code) { ...AuthPayloadFields } }',
      [AuthPayloadFields],
    ),
    body: { mfa_token: 'mfaToken', code: 'code' },
    status: 200,
    respond: (d) => authPayloadJson(d.verifyMfa),
  }),
];
