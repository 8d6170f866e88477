// Sessions: sign-in, the session list on `me`, and the ways to end sessions.
import { login } from '../../../domain/accounts/login.js';
import { listSessions, logout, logoutAll, revokeOtherSession } from '../../../domain/sessions/management.js';
import type { SessionListRow } from '../../../domain/sessions/store.js';
import { MAX_SESSIONS } from '../../../domain/sessions/session.js';
import { isMfaRequired, type MfaRequired } from '../../../domain/two-step/mfa-challenge.js';
import type { SignedIn } from '../../../domain/sessions/sign-in.js';
import { builder } from '../builder.js';
import type { GraphQLContext } from '../context.js';
import { AccountRef } from './account.js';

/** A sign-in's answer: a session, or (two-step sign-in on) the mfa_token of the second step. */
export interface AuthPayload {
  token: string | null;
  emailVerified: boolean | null;
  expiresAt: Date;
  mfaRequired: boolean;
  mfaToken: string | null;
}

// A resolver may also return the domain's SignedIn as it is (passkey sign-in does): no second step.
export const AuthPayloadRef = builder.objectRef<AuthPayload | SignedIn>('AuthPayload').implement({
  description:
    'A sign-in\'s answer. Either a new session (token: the bearer credential; the session cookie is set too), or, when the ' +
    'account has two-step sign-in on, mfaRequired with the mfaToken for verifyMfa and no session yet (token and emailVerified null).',
  fields: (t) => ({
    token: t.exposeString('token', { nullable: true, description: 'The session token; null when mfaRequired.' }),
    emailVerified: t.exposeBoolean('emailVerified', { nullable: true, description: 'Null when mfaRequired.' }),
    expiresAt: t.expose('expiresAt', { type: 'DateTime', description: "The session's expiry, or the mfaToken's when mfaRequired." }),
    mfaRequired: t.boolean({
      description: 'True: no session yet; call verifyMfa with mfaToken and a code.',
      resolve: (p) => 'mfaRequired' in p && p.mfaRequired,
    }),
    mfaToken: t.string({
      nullable: true,
      description: 'Lives 5 minutes, works once.',
      resolve: (p) => ('mfaToken' in p ? p.mfaToken : null),
    }),
  }),
});

/** Sets the cookie when a session was issued, and shapes either answer. */
export function authAnswer(ctx: GraphQLContext, result: SignedIn | MfaRequired): AuthPayload {
  if (isMfaRequired(result)) {
    return { token: null, emailVerified: null, expiresAt: result.expiresAt, mfaRequired: true, mfaToken: result.mfaToken };
  }
  ctx.setSessionCookie(result.token, result.expiresAt);
  return { token: result.token, emailVerified: result.emailVerified, expiresAt: result.expiresAt, mfaRequired: false, mfaToken: null };
}

const SessionRef = builder.objectRef<SessionListRow>('Session').implement({
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
  t.field({
    type: [SessionRef],
    description: `Live sessions, newest first (an account holds at most ${MAX_SESSIONS}).`,
    resolve: (account, _args, ctx) => listSessions(ctx.deps, account.id),
  }),
);

builder.mutationFields((t) => ({
  login: t.field({
    type: AuthPayloadRef,
    hashesPassword: true,
    args: { email: t.arg.string({ required: true }), password: t.arg.string({ required: true }) },
    resolve: async (_root, args, ctx) => authAnswer(ctx, await login(ctx.deps, args, ctx.client)),
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
