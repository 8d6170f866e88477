// Two-step sign-in paths of API.md section 7 (the login row's mfa_required answer is
// authPayloadJson in accounts.ts).
import { graphql } from '../../documents/graphql.js';
import { route, type RestRoute } from '../route.js';
import { AuthPayloadFields, authPayloadJson } from './accounts.js';

export const mfaRoutes: RestRoute[] = [
  route({
    method: 'POST',
    url: '/api/account/mfa/totp/setup',
    document: graphql('mutation ($currentPassword: String) { setupTotp(currentPassword: $currentPassword) { secret otpauthUrl qrSvg } }'),
    body: { current_password: 'currentPassword' },
    status: 200,
    respond: ({ setupTotp: t }) => ({ secret: t.secret, otpauth_url: t.otpauthUrl, qr_svg: t.qrSvg }),
  }),
  route({
    method: 'POST',
    url: '/api/account/mfa/totp/confirm',
    document: graphql('mutation ($code: String!) { confirmTotp(code: $code) { recoveryCodes } }'),
    body: { code: 'code' },
    status: 200,
    respond: (d) => ({ recovery_codes: d.confirmTotp.recoveryCodes }),
  }),
  route({
    method: 'DELETE',
    url: '/api/account/mfa/totp',
    document: graphql('mutation ($currentPassword: String, $code: String!) { disableTotp(currentPassword: $currentPassword, code: $code) }'),
    body: { current_password: 'currentPassword', code: 'code' },
    status: 204,
  }),
  route({
    method: 'POST',
    url: '/api/account/mfa/recovery-codes',
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
    document: graphql(
      'mutation ($mfaToken: String!, $code: String!) { verifyMfa(mfaToken: $mfaToken, code: $code) { ...AuthPayloadFields } }',
      [AuthPayloadFields],
    ),
    body: { mfa_token: 'mfaToken', code: 'code' },
    status: 200,
    respond: (d) => authPayloadJson(d.verifyMfa),
  }),
];
