// Organizations (API.md section 18): create, list, read, rename (name; slug by an owner), delete.
// An organization is an account row of kind `org` (membership/store.ts), so its slug follows every
// account slug rule in the same namespace (the unique index and the 30-day holds of
// tunnels/released-names.ts are the accounts'), and a slug rename moves its tunnel hosts through
// the same `account.slugChanged` event as an account's.
import type { DomainDeps } from '../context.js';
import { conflict, invalidInput, notSignedIn, PROBLEMS, verifyAddressFirst } from '../errors.js';
import { violates } from '../../infra/db/errors.js';
import { changeAccount } from '../activity/account-change.js';
import { assertValidSlug } from '../accounts/slug.js';
import { renameSlug } from '../accounts/slug-rename.js';
import { claimName, releaseNames } from '../tunnels/released-names.js';
import { deleteAccountModels, deleteTunnelGrants } from '../oauth-revocation/store.js';
import { mcpUrlsOf } from '../tunnels/names.js';
import { tombstone } from '../sessions/session.js';
import { requireRecentAuth } from '../sessions/recent-auth.js';
import { inTransaction } from '../store.js';
import { orgAccess, type Actor, type OrgScope } from '../membership/access.js';
import { recordAudit } from '../membership/audit.js';
import type { OrgRole } from '../membership/roles.js';
import { deleteOrgRow, insertOrg, lockAndCountOwned, selectOrgsOf, selectOrgTokenHashes, selectOrgTunnels, setOrgName, type OrgRow } from '../membership/store.js';

type FlowDeps = Pick<DomainDeps, 'cache' | 'clock' | 'db' | 'events' | 'outbox' | 'mailNotify' | 'webhookNotify' | 'policy'> & { config: { zone: string } };

/** Organizations one account may own. */
export const MAX_OWNED_ORGS = 10;
const NAME_MAX = 100;

export interface OrgView extends OrgRow {
  /** The caller's role; null for the organization's own token. */
  role: OrgRole | null;
}

const viewOf = (scope: OrgScope): OrgView => ({ ...scope.org, role: scope.role });

function orgName(raw: unknown): string {
  const name = typeof raw === 'string' ? raw.trim() : '';
  const length = [...name].length;
  if (length < 1 || length > NAME_MAX) throw invalidInput(PROBLEMS.invalidOrg, 'name', `Give the organization a name of 1 to ${NAME_MAX} characters.`);
  return name;
}

const slugConflict = (err: unknown): never => {
  if (violates(err, 'slug')) throw conflict(PROBLEMS.slugTaken, 'That slug is already taken.', 'slug');
  throw err;
};

/** Creates an organization owned by the actor (a verified address needed; at most MAX_OWNED_ORGS owned). */
export async function createOrg(deps: FlowDeps, actor: Actor, input: { slug: unknown; name: unknown }): Promise<OrgView> {
  assertValidSlug(input.slug);
  const slug = input.slug;
  const name = orgName(input.name);
  const now = deps.clock();
  try {
    const org = await inTransaction(deps.db, async (tx) => {
      const person = await lockAndCountOwned(tx, actor.viewer.accountId);
      if (!person) throw notSignedIn();
      if (!person.emailVerified) throw verifyAddressFirst();
      if (person.owned >= MAX_OWNED_ORGS) throw conflict(PROBLEMS.orgLimit, `An account can own at most ${MAX_OWNED_ORGS} organizations.`);
      await claimName(tx, 'slug', slug, actor.viewer.accountId, now);
      const org = await insertOrg(tx, { slug, name, ownerId: actor.viewer.accountId, now });
      await recordAudit(tx, org.id, actor, 'org_created', { slug, name }, now);
      return org;
    });
    await deps.events.emit('account.changed', { accountId: actor.viewer.accountId });
    return { ...org, role: 'owner' };
  } catch (err) {
    return slugConflict(err);
  }
}

/** The account's organizations, with its role in each. */
export const listOrgs = (deps: Pick<DomainDeps, 'db'>, accountId: string): Promise<OrgView[]> => selectOrgsOf(deps.db, accountId);

export async function getOrg(deps: Pick<DomainDeps, 'db'>, actor: Actor, slug: string): Promise<OrgView> {
  return viewOf(await orgAccess(deps, actor, slug, 'org.read'));
}

/** Changes the name (admins and owners) and/or the slug (owners; every tunnel host moves). */
export async function updateOrg(deps: FlowDeps, actor: Actor, slug: string, input: { name?: unknown; slug?: unknown }): Promise<OrgView> {
  const renamesSlug = input.slug !== undefined && input.slug !== null && input.slug !== slug;
  const scope = await orgAccess(deps, actor, slug, renamesSlug ? 'org.slug' : 'org.rename');
  const name = input.name === undefined || input.name === null ? null : orgName(input.name);
  const now = deps.clock();
  let newSlug = scope.org.slug;
  if (renamesSlug) {
    assertValidSlug(input.slug);
    newSlug = (await renameSlug(deps, scope.org.id, input.slug, null)).slug;
  }
  // Recorded only when something changed (a PATCH with the same name is a no-op).
  if ((name !== null && name !== scope.org.name) || renamesSlug) {
    await changeAccount(deps, scope.org.id, async (tx) => {
      if (name !== null && name !== scope.org.name) await setOrgName(tx, scope.org.id, name);
      await recordAudit(tx, scope.org.id, actor, 'org_renamed', { ...(name !== null ? { name } : {}), ...(renamesSlug ? { from: slug, to: newSlug } : {}) }, now);
    });
  }
  return { ...scope.org, slug: newSlug, name: name ?? scope.org.name, role: scope.role };
}

/**
 * Deletes the organization (owners, recently authenticated, the slug typed again): its tunnels,
 * tokens, webhooks, invitations and memberships go with its row; its slug and custom domains
 * are held 30 days; its tokens stop on their next request and its hosts answer 404 at once.
 */
export async function deleteOrg(deps: FlowDeps, actor: Actor, slug: string, confirm: unknown): Promise<void> {
  const scope = await orgAccess(deps, actor, slug, 'org.delete');
  if (confirm !== scope.org.slug) throw invalidInput(PROBLEMS.invalidOrg, 'slug', 'Type the organization’s slug to confirm its deletion.');
  await requireRecentAuth(deps, actor.viewer);
  await removeOrg(deps, scope.org);
}

/** Removes an organization and everything it owns (its deletion, or its sole owner's account deletion). */
export async function removeOrg(deps: FlowDeps, org: OrgRow): Promise<void> {
  const [tunnels, tokens] = await Promise.all([selectOrgTunnels(deps.db, org.id), selectOrgTokenHashes(deps.db, org.id)]);
  const now = deps.clock();
  await inTransaction(deps.db, async (tx) => {
    await releaseNames(tx, 'slug', [org.slug], org.id, now);
    await releaseNames(tx, 'domain', tunnels.flatMap((t) => (t.customDomain ? [t.customDomain] : [])), org.id, now);
    await deleteOrgRow(tx, org.id);
    await deleteAccountModels(tx, org.id);
    for (const t of tunnels) await deleteTunnelGrants(tx, t.id, mcpUrlsOf(t, org.slug, deps.config.zone));
  });
  await tombstone(deps, tokens);
  await deps.events.emit('account.deleted', { accountId: org.id, slug: org.slug, tunnelIds: tunnels.map((t) => t.id) });
}
