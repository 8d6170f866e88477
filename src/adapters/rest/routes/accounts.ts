// /auth and /api/account paths of API.md section 4 (password flows; SSO rows live with SSO).
import { signedIn, type Data, type RestRoute } from '../route.js';

interface AccountData {
  id: string;
  email: string;
  emailVerified: boolean;
  slug: string;
  plan: string;
  linkedProviders: { provider: string; email: string; linkedAt: string }[];
  lastLogin: { at: string; ip: string } | null;
}

export const accountJson = (a: AccountData) => ({
  id: a.id,
  email: a.email,
  email_verified: a.emailVerified,
  slug: a.slug,
  plan: a.plan,
  linked_providers: a.linkedProviders.map((p) => ({ provider: p.provider, email: p.email, linked_at: p.linkedAt })),
  last_login: a.lastLogin ? { at: a.lastLogin.at, ip: a.lastLogin.ip } : null,
});

export const authPayloadJson = (p: { token: string; emailVerified: boolean; expiresAt: string }) => ({
  token: p.token,
  email_verified: p.emailVerified,
  expires_at: p.expiresAt,
});

export const ACCOUNT_FIELDS = 'id email emailVerified slug plan linkedProviders { provider email linkedAt } lastLogin { at ip }';

export const accountRoutes: RestRoute[] = [
  {
    method: 'POST',
    url: '/auth/signup',
    document: 'mutation ($email: String!, $password: String!) { signup(email: $email, password: $password) { id email emailVerified slug } }',
    body: { email: 'email', password: 'password' },
    status: 201,
    respond: (d: Data) => {
      const a = d.signup as Pick<AccountData, 'id' | 'email' | 'emailVerified' | 'slug'>;
      return { id: a.id, email: a.email, email_verified: a.emailVerified, slug: a.slug };
    },
  },
  {
    method: 'POST',
    url: '/auth/login',
    document: 'mutation ($email: String!, $password: String!) { login(email: $email, password: $password) { token emailVerified expiresAt } }',
    body: { email: 'email', password: 'password' },
    status: 200,
    respond: (d) => authPayloadJson(d.login as Parameters<typeof authPayloadJson>[0]),
  },
  {
    method: 'POST',
    url: '/auth/verify-email',
    document: 'mutation ($token: String!) { verifyEmail(token: $token) { emailVerified } }',
    body: { token: 'token' },
    status: 200,
    respond: () => ({ email_verified: true }),
  },
  {
    method: 'POST',
    url: '/auth/resend-verification',
    document: 'mutation { resendVerification }',
    status: 204,
  },
  {
    method: 'POST',
    url: '/auth/change-email',
    document:
      'mutation ($currentPassword: String!, $newEmail: String!) { changeEmail(currentPassword: $currentPassword, newEmail: $newEmail) }',
    body: { current_password: 'currentPassword', new_email: 'newEmail' },
    status: 202,
    respond: () => ({ status: 'confirmation_sent' }),
  },
  {
    method: 'POST',
    url: '/auth/confirm-email-change',
    document: 'mutation ($token: String!) { confirmEmailChange(token: $token) { email } }',
    body: { token: 'token' },
    status: 200,
    respond: (d) => ({ email: (d.confirmEmailChange as { email: string }).email }),
  },
  {
    method: 'POST',
    url: '/auth/change-password',
    document:
      'mutation ($currentPassword: String!, $newPassword: String!) { changePassword(currentPassword: $currentPassword, newPassword: $newPassword) }',
    body: { current_password: 'currentPassword', new_password: 'newPassword' },
    status: 204,
  },
  {
    method: 'POST',
    url: '/auth/forgot-password',
    document: 'mutation ($email: String!) { forgotPassword(email: $email) }',
    body: { email: 'email' },
    bodyFallback: { email: '' },
    status: 204,
  },
  {
    method: 'POST',
    url: '/auth/reset-password',
    document: 'mutation ($token: String!, $newPassword: String!) { resetPassword(token: $token, newPassword: $newPassword) }',
    body: { token: 'token', new_password: 'newPassword' },
    status: 204,
  },
  {
    method: 'GET',
    url: '/api/account',
    document: `query { me { ${ACCOUNT_FIELDS} } }`,
    status: 200,
    respond: (d) => accountJson(signedIn(d.me as AccountData | null)),
  },
  {
    method: 'PATCH',
    url: '/api/account/slug',
    document: 'mutation ($slug: String!) { renameSlug(slug: $slug) { slug } }',
    body: { slug: 'slug' },
    status: 200,
    respond: (d) => ({ slug: (d.renameSlug as { slug: string }).slug }),
  },
  {
    method: 'DELETE',
    url: '/api/account',
    document: 'mutation ($email: String!, $password: String!) { deleteAccount(email: $email, password: $password) }',
    body: { email: 'email', password: 'password' },
    status: 204,
  },
];
