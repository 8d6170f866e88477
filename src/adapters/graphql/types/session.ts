// Sessions: sign-in, the session list on `me`, and the ways to end sessions.
import { login } from '../../../domain/accounts/login.js';
import { logout, logoutAll, revokeOtherSession } from '../../../domain/sessions/management.js';
import { MAX_SESSIONS } from '../../../domain/sessions/session.js';
import { builder } from '../builder.js';
import { AccountRef } from './account.js';

export const AuthPayloadRef = builder
  .objectRef<{ token: string; emailVerified: boolean; expiresAt: Date }>('AuthPayload')
  .implement({
    description: 'A new session. The token is the bearer credential; the session cookie is set too.',
    fields: (t) => ({
      token: t.exposeString('token'),
      emailVerified: t.exposeBoolean('emailVerified'),
      expiresAt: t.expose('expiresAt', { type: 'DateTime' }),
    }),
  });

builder.prismaObject('Session', {
  fields: (t) => ({
    id: t.exposeID('id'),
    userAgent: t.exposeString('userAgent'),
    ip: t.exposeString('ip', { description: 'Masked: 203.0.113.x or 2001:db8:1::x' }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    lastSeenAt: t.expose('lastSeenAt', { type: 'DateTime' }),
    method: t.exposeString('method', { description: 'How the session was made: password, google, github or passkey.' }),
    secondStep: t.exposeBoolean('secondStep', { description: 'A second step (TOTP or recovery code) was passed.' }),
    current: t.boolean({
      description: 'True for the session making this request.',
      resolve: (s, _args, ctx) => s.id === ctx.viewer?.sessionId,
    }),
  }),
});

builder.objectField(AccountRef, 'sessions', (t) =>
  t.prismaField({
    type: ['Session'],
    description: `Live sessions, newest first (an account holds at most ${MAX_SESSIONS}).`,
    resolve: (query, account, _args, ctx) =>
      ctx.deps.db.session.findMany({
        ...query,
        where: { accountId: account.id, expiresAt: { gt: ctx.deps.clock() } },
        orderBy: { createdAt: 'desc' },
        take: MAX_SESSIONS,
      }),
  }),
);

builder.mutationFields((t) => ({
  login: t.field({
    type: AuthPayloadRef,
    args: { email: t.arg.string({ required: true }), password: t.arg.string({ required: true }) },
    resolve: async (_root, args, ctx) => {
      const signedIn = await login(ctx.deps, args, ctx.client);
      ctx.setSessionCookie(signedIn.token, signedIn.expiresAt);
      return signedIn;
    },
  }),
  revokeSession: t.boolean({
    authScopes: { signedIn: true },
    args: { id: t.arg.id({ required: true }) },
    resolve: async (_root, args, ctx) => {
      await revokeOtherSession(ctx.deps, ctx.viewer!, String(args.id), ctx.client);
      return true;
    },
  }),
  logout: t.boolean({
    authScopes: { signedIn: true },
    resolve: async (_root, _args, ctx) => {
      await logout(ctx.deps, ctx.viewer!);
      ctx.clearSessionCookie();
      return true;
    },
  }),
  logoutAll: t.boolean({
    authScopes: { signedIn: true },
    resolve: async (_root, _args, ctx) => {
      await logoutAll(ctx.deps, ctx.viewer!, ctx.client);
      ctx.clearSessionCookie();
      return true;
    },
  }),
}));
