// /auth and /api/account paths of API.md section 4 (password flows; SSO rows live with SSO).
import { print } from 'graphql';
import { graphql, type ResultOf } from '../../documents/graphql.js';
import { route, signedIn, type RestRoute } from '../route.js';

const AccountFields = graphql(`
  fragment AccountFields on Account {
    id email emailVerified slug plan linkedProviders { provider email linkedAt } lastLogin { at ip }
    mfa { totp recoveryCodesLeft passkeys }
    reauthenticatedUntil
  }
`);

export const AuthPayloadFields = graphql(
  'fragment AuthPayloadFields on AuthPayload { token emailVerified expiresAt mfaRequired mfaToken }',
);

const meDocument = graphql('query { me { ...AccountFields } }', [AccountFields]);

/** The query behind GET /api/account, as text (the benchmarks send it to /graphql). */
export const ACCOUNT_QUERY = print(meDocument);

export const accountJson = (a: ResultOf<typeof AccountFields>) => ({
  id: a.id,
  email: a.email,
  email_verified: a.emailVerified,
  slug: a.slug,
  plan: a.plan,
  linked_providers: a.linkedProviders.map((p) => ({ provider: p.provider, email: p.email, linked_at: p.linkedAt })),
  last_login: a.lastLogin ? { at: a.lastLogin.at, ip: a.lastLogin.ip } : null,
  mfa: { totp: a.mfa.totp, recovery_codes_left: a.mfa.recoveryCodesLeft, passkeys: a.mfa.passkeys },
  reauthenticated_until: a.reauthenticatedUntil,
});

/** A session, or (two-step sign-in on) only what the second step needs: API.md section 7. */
export const authPayloadJson = (p: ResultOf<typeof AuthPayloadFields>) =>
  p.mfaRequired
    ? { mfa_required: true, mfa_token: p.mfaToken, expires_at: p.expiresAt }
    : { token: p.token, email_verified: p.emailVerified, expires_at: p.expiresAt };

export const accountRoutes: RestRoute[] = [
  route({
    method: 'POST',
    url: '/auth/signup',
    document: graphql('mutation ($email: String!, $password: String!) { signup(email: $email, password: $password) { id email emailVerified slug } }'),
    body: { email: 'email', password: 'password' },
    status: 201,
    respond: ({ signup: a }) => ({ id: a.id, email: a.email, email_verified: a.emailVerified, slug: a.slug }),
  }),
  route({
    method: 'POST',
    url: '/auth/login',
    document: graphql(
      'mutation ($email: String!, $password: String!) { login(email: $email, password: $password) { ...AuthPayloadFields } }',
      [AuthPayloadFields],
    ),
    body: { email: 'email', password: 'password' },
    status: 200,
    respond: (d) => authPayloadJson(d.login),
  }),
  route({
    method: 'POST',
    url: '/auth/verify-email',
    document: graphql('mutation ($token: String!) { verifyEmail(token: $token) { emailVerified } }'),
    body: { token: 'token' },
    status: 200,
    respond: () => ({ email_verified: true }),
  }),
  route({
    method: 'POST',
    url: '/auth/resend-verification',
    document: graphql('mutation { resendVerification }'),
    status: 204,
  }),
  route({
    method: 'POST',
    url: '/auth/change-email',
    document: graphql(
      'mutation ($currentPassword: String!, $newEmail: String!) { changeEmail(currentPassword: $currentPassword, newEmail: $newEmail) }',
    ),
    body: { current_password: 'currentPassword', new_email: 'newEmail' },
    status: 202,
    respond: () => ({ status: 'confirmation_sent' }),
  }),
  route({
    method: 'POST',
    url: '/auth/confirm-email-change',
    document: graphql('mutation ($token: String!) { confirmEmailChange(token: $token) { email } }'),
    body: { token: 'token' },
    status: 200,
    respond: (d) => ({ email: d.confirmEmailChange.email }),
  }),
  route({
    method: 'POST',
    url: '/auth/change-password',
    document: graphql(
      'mutation ($currentPassword: String!, $newPassword: String!) { changePassword(currentPassword: $currentPassword, newPassword: $newPassword) }',
    ),
    body: { current_password: 'currentPassword', new_password: 'newPassword' },
    status: 204,
  }),
  route({
    method: 'POST',
    url: '/auth/forgot-password',
    document: graphql('mutation ($email: String!) { forgotPassword(email: $email) }'),
    body: { email: 'email' },
    bodyFallback: { email: '' },
    status: 204,
  }),
  route({
    method: 'POST',
    url: '/auth/reset-password',
    document: graphql('mutation ($token: String!, $newPassword: String!) { resetPassword(token: $token, newPassword: $newPassword) }'),
    body: { token: 'token', new_password: 'newPassword' },
    status: 204,
  }),
  route({
    method: 'GET',
    url: '/api/account',
    document: meDocument,
    status: 200,
    respond: (d) => accountJson(signedIn(d.me)),
  }),
  route({
    method: 'POST',
    url: '/api/account/reauth',
    document: graphql(
      'mutation ($password: String, $code: String, $challengeId: String, $response: JSONObject) { reauthenticate(password: $password, code: $code, challengeId: $challengeId, response: $response) }',
    ),
    body: { password: 'password', code: 'code', challenge_id: 'challengeId', response: 'response' },
    status: 204,
  }),
  route({
    method: 'PATCH',
    url: '/api/account/slug',
    document: graphql('mutation ($slug: String!) { renameSlug(slug: $slug) { slug } }'),
    body: { slug: 'slug' },
    status: 200,
    respond: (d) => ({ slug: d.renameSlug.slug }),
  }),
  route({
    method: 'DELETE',
    url: '/api/account',
    document: graphql('mutation ($email: String!, $password: String!) { deleteAccount(email: $email, password: $password) }'),
    body: { email: 'email', password: 'password' },
    status: 204,
  }),
];
