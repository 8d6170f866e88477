// Account: the `me` query and the account mutations of API.md section 5.
import { type DocumentNode, type FieldNode, type GraphQLResolveInfo, Kind } from 'graphql';
import { confirmEmailChange, requestEmailChange } from '../../../domain/accounts/email-change.js';
import { resendVerification, verifyEmail } from '../../../domain/accounts/email-verification.js';
import { deleteAccountWithOrgs } from '../../../domain/orgs/account-deletion.js';
import { changePassword } from '../../../domain/accounts/password-change.js';
import { forgotPassword, resetPassword } from '../../../domain/accounts/password-reset.js';
import { signup } from '../../../domain/accounts/signup.js';
import { renameSlug } from '../../../domain/accounts/slug-rename.js';
import { loadAccountView, type AccountView } from '../../../domain/accounts/account-view.js';
import { notSignedIn } from '../../../domain/errors.js';
import { builder } from '../builder.js';
import { TOKEN_REACH } from '../field-policy.js';
import type { GraphQLContext } from '../context.js';

export const LinkedProviderRef = builder.objectRef<AccountView['linkedProviders'][number]>('LinkedProvider').implement({
  tokenScopes: TOKEN_REACH.account,
  fields: (t) => ({
    provider: t.exposeString('provider'),
    email: t.exposeString('email'),
    linkedAt: t.expose('linkedAt', { type: 'DateTime' }),
  }),
});

export const LastLoginRef = builder.objectRef<{ at: Date; ip: string }>('LastLogin').implement({
  tokenScopes: TOKEN_REACH.account,
  fields: (t) => ({
    at: t.expose('at', { type: 'DateTime' }),
    ip: t.exposeString('ip', { description: 'Masked: 203.0.113.x or 2001:db8:1::x' }),
  }),
});

// Backed by the cached account view, not by a Prisma row: `me` is read on every dashboard page
// and answers from one cache read. Lists that change often (sessions, tunnels) are fields that
// query the database when asked for.
export const AccountRef = builder.objectRef<AccountView>('Account').implement({
  fields: (t) => ({
    // A token sees the id and the slug (its tunnels' hosts) under any scope, the rest under
    // account:read; fields added to Account elsewhere declare their own reach or have none.
    id: t.exposeID('id', { tokenScopes: TOKEN_REACH.any }),
    email: t.expose('email', { type: 'EmailAddress', tokenScopes: TOKEN_REACH.account }),
    emailVerified: t.exposeBoolean('emailVerified', { tokenScopes: TOKEN_REACH.account }),
    slug: t.exposeString('slug', { tokenScopes: TOKEN_REACH.any }),
    plan: t.exposeString('plan', { tokenScopes: TOKEN_REACH.account }),
    hasPassword: t.exposeBoolean('hasPassword', { tokenScopes: TOKEN_REACH.account }),
    linkedProviders: t.field({ type: [LinkedProviderRef], tokenScopes: TOKEN_REACH.account, resolve: (a) => a.linkedProviders }),
    lastLogin: t.field({ type: LastLoginRef, nullable: true, tokenScopes: TOKEN_REACH.account, resolve: (a) => a.lastLogin }),
  }),
});

async function viewOf(ctx: GraphQLContext, accountId: string): Promise<AccountView> {
  const view = await loadAccountView(ctx.deps, accountId);
  if (!view) throw notSignedIn();
  return view;
}

/**
 * Fields of Account that read only the account's id (lists queried by it). A `me` that selects
 * nothing else, as every REST list does (GET /api/sessions, /api/account/activity, /api/tunnels…),
 * is answered without loading the account view: one cache round trip less per request.
 */
const ID_ONLY_FIELDS = new Set(['__typename', 'id', 'sessions', 'securityEvents', 'oauthGrants', 'passkeys', 'serviceTokens', 'tunnels', 'webhooks']);

function needsView(info: GraphQLResolveInfo): boolean {
  return info.fieldNodes.some(selectsView);
}

/** Whether a selection of `me` reads the view (a fragment may select anything: it does). */
function selectsView(me: FieldNode): boolean {
  return (me.selectionSet?.selections ?? []).some((s) => s.kind !== Kind.FIELD || !ID_ONLY_FIELDS.has(s.name.value));
}

/**
 * Whether an operation shows the signed-in account: a root `me` selecting a field of the view.
 * Its REST route then reads a session that is not cached with the view (rest/mount.ts).
 */
export function operationShowsAccount(document: DocumentNode): boolean {
  return document.definitions.some(
    (d) => d.kind === Kind.OPERATION_DEFINITION && d.selectionSet.selections.some((s) => s.kind === Kind.FIELD && s.name.value === 'me' && selectsView(s)),
  );
}

/**
 * The account as the id-only fields see it. Only those fields can read it (needsView chose it), so
 * the view's other members are never read.
 */
const idOnly = (id: string): AccountView => ({ id }) as AccountView;

builder.queryField('me', (t) =>
  t.field({
    type: AccountRef,
    nullable: true,
    description: 'The signed-in account; null when signed out.',
    // The way to the account's profile and to its tunnels.
    tokenScopes: TOKEN_REACH.any,
    resolve: (_root, _args, ctx, info) => {
      if (!ctx.viewer) return null;
      if (!needsView(info)) return idOnly(ctx.viewer.accountId);
      return ctx.accountView ?? loadAccountView(ctx.deps, ctx.viewer.accountId);
    },
  }),
);

const VerifyEmailPayload = builder.objectRef<{ emailVerified: boolean }>('VerifyEmailPayload').implement({
  fields: (t) => ({ emailVerified: t.exposeBoolean('emailVerified') }),
});

const EmailChangePayload = builder.objectRef<{ email: string }>('EmailChangePayload').implement({
  fields: (t) => ({ email: t.expose('email', { type: 'EmailAddress' }) }),
});

builder.mutationFields((t) => ({
  signup: t.field({
    type: AccountRef,
    hashesPassword: true,
    args: { email: t.arg.string({ required: true }), password: t.arg.string({ required: true }) },
    resolve: async (_root, args, ctx) => viewOf(ctx, (await signup(ctx.deps, args, ctx.client)).id),
  }),
  verifyEmail: t.field({
    type: VerifyEmailPayload,
    args: { token: t.arg.string({ required: true }) },
    resolve: (_root, args, ctx) => verifyEmail(ctx.deps, args.token, ctx.client),
  }),
  resendVerification: t.boolean({
    authScopes: { signedIn: true },
    resolve: async (_root, _args, ctx) => {
      await resendVerification(ctx.deps, ctx.viewer!.accountId);
      return true;
    },
  }),
  changeEmail: t.boolean({
    authScopes: { signedIn: true },
    hashesPassword: true,
    args: { currentPassword: t.arg.string({ required: true }), newEmail: t.arg.string({ required: true }) },
    resolve: async (_root, args, ctx) => {
      await requestEmailChange(ctx.deps, ctx.viewer!.accountId, args, ctx.client);
      return true;
    },
  }),
  confirmEmailChange: t.field({
    type: EmailChangePayload,
    args: { token: t.arg.string({ required: true }) },
    resolve: (_root, args, ctx) => confirmEmailChange(ctx.deps, args.token, ctx.client),
  }),
  changePassword: t.boolean({
    authScopes: { signedIn: true },
    hashesPassword: true,
    args: { currentPassword: t.arg.string({ required: true }), newPassword: t.arg.string({ required: true }) },
    resolve: async (_root, args, ctx) => {
      await changePassword(ctx.deps, ctx.viewer!, args, ctx.client);
      return true;
    },
  }),
  forgotPassword: t.boolean({
    args: { email: t.arg.string({ required: true }) },
    resolve: async (_root, args, ctx) => {
      forgotPassword(ctx.deps, args.email);
      return true;
    },
  }),
  resetPassword: t.boolean({
    hashesPassword: true,
    args: { token: t.arg.string({ required: true }), newPassword: t.arg.string({ required: true }) },
    resolve: async (_root, args, ctx) => {
      await resetPassword(ctx.deps, args, ctx.client);
      return true;
    },
  }),
  renameSlug: t.field({
    type: AccountRef,
    authScopes: { signedIn: true },
    args: { slug: t.arg.string({ required: true }) },
    resolve: async (_root, args, ctx) => {
      await renameSlug(ctx.deps, ctx.viewer!.accountId, args.slug, ctx.client);
      return viewOf(ctx, ctx.viewer!.accountId);
    },
  }),
  deleteAccount: t.boolean({
    authScopes: { signedIn: true },
    hashesPassword: true,
    args: { email: t.arg.string({ required: true }), password: t.arg.string({ required: true }) },
    resolve: async (_root, args, ctx) => {
      await deleteAccountWithOrgs(ctx.deps, ctx.viewer!, args, ctx.client);
      ctx.clearSessionCookie();
      return true;
    },
  }),
}));
