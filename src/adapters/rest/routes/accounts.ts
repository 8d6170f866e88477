// /auth and /api/account paths of API.md section 4 (password flows; SSO rows live with SSO).
import { print } from 'graphql';
import { graphql, type ResultOf } from '../../documents/graphql.js';
import { present, route, signedIn, type RestRoute } from '../route.js';
import { Account, AuthPayload, SignedUp } from '../schemas.js';
import { z } from 'zod';

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
    ? { mfa_required: true as const, mfa_token: present(p.mfaToken), expires_at: p.expiresAt }
    : { token: present(p.token), email_verified: present(p.emailVerified), expires_at: p.expiresAt };

export const accountRoutes: RestRoute[] = [
  route({
    method: 'POST',
    url: '/auth/signup',
    summary: 'Create an account; a verification email is sent.',
    public: true,
    errors: { 400: 'Invalid email, or a password of the wrong length or found in a breach.', 409: 'The email is taken.', 429: 'Too many sign-ups from this network (SIGNUP_RATE_LIMIT an hour).' },
    response: SignedUp,
    document: graphql('mutation ($email: String!, $password: String!) { signup(email: $email, password: $password) { id email emailVerified slug } }'),
    body: { email: 'email', password: 'password' },
    status: 201,
    respond: ({ signup: a }) => ({ id: a.id, email: a.email, email_verified: a.emailVerified, slug: a.slug }),
  }),
  route({
    method: 'POST',
    url: '/auth/login',
    summary: 'Sign in with email and password (a session, or the second step when two-step sign-in is on).',
    public: true,
    setsCookie: true,
    errors: { 401: 'Wrong credentials (the same answer for an unknown email).', 429: 'Too many attempts.' },
    response: AuthPayload,
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
    summary: 'Prove the address with the token from the verification email.',
    public: true,
    errors: { 400: 'Unknown or expired token.' },
    response: z.strictObject({ email_verified: z.literal(true) }),
    document: graphql('mutation ($token: String!) { verifyEmail(token: $token) { emailVerified } }'),
    body: { token: 'token' },
    status: 200,
    respond: () => ({ email_verified: true as const }),
  }),
  route({
    method: 'POST',
    url: '/auth/resend-verification',
    summary: 'Send the verification email again (nothing is sent when already verified).',
    errors: { 429: 'Past 5 in 15 minutes.' },
    document: graphql('mutation { resendVerification }'),
    status: 204,
  }),
  route({
    method: 'POST',
    url: '/auth/change-email',
    summary: 'Start an email change: a confirmation link goes to the new address.',
    errors: { 400: 'Invalid address.', 401: 'Wrong password.', 409: 'The address is in use.', 429: 'Past 5 requests in 15 minutes.' },
    response: z.strictObject({ status: z.literal('confirmation_sent') }),
    document: graphql(
      'mutation ($currentPassword: String!, $newEmail: String!) { changeEmail(currentPassword: $currentPassword, newEmail: $newEmail) }',
    ),
    body: { current_password: 'currentPassword', new_email: 'newEmail' },
    status: 202,
    respond: () => ({ status: 'confirmation_sent' as const }),
  }),
  route({
    method: 'POST',
    url: '/auth/confirm-email-change',
    summary: 'Confirm an email change with the token from the link.',
    public: true,
    errors: { 400: 'Unknown or expired token.', 409: 'The address was taken meanwhile.' },
    response: z.strictObject({ email: z.string() }),
    document: graphql('mutation ($token: String!) { confirmEmailChange(token: $token) { email } }'),
    body: { token: 'token' },
    status: 200,
    respond: (d) => ({ email: d.confirmEmailChange.email }),
  }),
  route({
    method: 'POST',
    url: '/auth/change-password',
    summary: 'Change the password; other sessions are signed out.',
    errors: { 400: 'Wrong length, or found in a breach.', 401: 'Wrong current password.', 429: 'Too many wrong passwords (the sign-in limits).' },
    document: graphql(
      'mutation ($currentPassword: String!, $newPassword: String!) { changePassword(currentPassword: $currentPassword, newPassword: $newPassword) }',
    ),
    body: { current_password: 'currentPassword', new_password: 'newPassword' },
    status: 204,
  }),
  route({
    method: 'POST',
    url: '/auth/forgot-password',
    summary: 'Send a reset link when the address has an account (the answer is the same either way).',
    public: true,
    errors: { 400: 'Only for a body that is not JSON.', 429: 'Too many requests from this network.' },
    document: graphql('mutation ($email: String!) { forgotPassword(email: $email) }'),
    body: { email: 'email' },
    bodyFallback: { email: '' },
    status: 204,
  }),
  route({
    method: 'POST',
    url: '/auth/reset-password',
    summary: 'Set a new password with the token from the reset link.',
    public: true,
    errors: { 400: 'Bad token, or a password of the wrong length or found in a breach.' },
    document: graphql('mutation ($token: String!, $newPassword: String!) { resetPassword(token: $token, newPassword: $newPassword) }'),
    body: { token: 'token', new_password: 'newPassword' },
    status: 204,
  }),
  route({
    method: 'GET',
    url: '/api/account',
    summary: 'The signed-in account.',
    operationId: 'getAccount',
    document: meDocument,
    response: Account,
    status: 200,
    respond: (d) => accountJson(signedIn(d.me)),
  }),
  route({
    method: 'POST',
    url: '/api/account/reauth',
    summary: 'Authenticate again (password, code, or passkey assertion) to open the recent-authentication window.',
    errors: { 400: 'None or more than one credential given.', 401: 'Wrong credential.', 429: 'Too many attempts.' },
    document: graphql(
      'mutation ($password: String, $code: String, $challengeId: String, $response: JSONObject) { reauthenticate(password: $password, code: $code, challengeId: $challengeId, response: $response) }',
    ),
    body: { password: 'password', code: 'code', challenge_id: 'challengeId', response: 'response' },
    status: 204,
  }),
  route({
    method: 'PATCH',
    url: '/api/account/slug',
    summary: "Change the account's slug.",
    errors: { 400: 'The slug breaks a rule.', 409: 'The slug is taken.' },
    response: z.strictObject({ slug: z.string() }),
    document: graphql('mutation ($slug: String!) { renameSlug(slug: $slug) { slug } }'),
    body: { slug: 'slug' },
    status: 200,
    respond: (d) => ({ slug: d.renameSlug.slug }),
  }),
  route({
    method: 'DELETE',
    url: '/api/account',
    summary: 'Delete the account and everything it owns, with the organizations it is the only member of.',
    errors: {
      400: 'The typed email does not match.',
      401: 'Wrong password.',
      409: 'The account is the last owner of organizations with other members (ownsOrganizations, naming them).',
      429: 'Too many wrong passwords (the sign-in limits).',
    },
    document: graphql('mutation ($email: String!, $password: String!) { deleteAccount(email: $email, password: $password) }'),
    body: { email: 'email', password: 'password' },
    status: 204,
  }),
];
