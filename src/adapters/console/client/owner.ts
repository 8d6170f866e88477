/// <reference lib="dom" />
// Whose pages are on screen (API.md section 18): the signed-in person's own, or one of their
// organizations'. The Tunnels, Access tokens and Webhooks pages take an Owner and do the same
// for both; an organization's pages show only the actions the caller's role allows (the role ×
// action table is the domain's, membership/roles.ts), though the server decides anyway.
import { isOrgRole, roleAllows, type OrgAction, type OrgRole } from '../../../domain/membership/roles.js';
import type { Me } from './app.js';
import { h } from './dom.js';

export type Owner = { kind: 'account'; me: Me } | { kind: 'org'; me: Me; slug: string; name: string; role: OrgRole };

/** The organization of `slug` among the signed-in person's, as an owner (null for a stranger's). */
export function orgOwner(me: Me, slug: string): Owner | null {
  const org = me.organizations.find((o) => o.slug === slug);
  return org && isOrgRole(org.role) ? { kind: 'org', me, slug: org.slug, name: org.name, role: org.role } : null;
}

/** Whether the page offers `action`: always on one's own account, by role in an organization. */
export const can = (owner: Owner, action: OrgAction): boolean => owner.kind === 'account' || roleAllows(owner.role, action);

/** What follows a new tunnel's subdomain in its host: `--<slug>.ZONE`. */
export function hostSuffix(owner: Owner): string {
  if (owner.kind === 'account') return owner.me.tunnelHostSuffix;
  // The person's suffix is `--<their slug>.ZONE`: the zone is what follows their slug.
  return `--${owner.slug}${owner.me.tunnelHostSuffix.slice(`--${owner.me.slug}`.length)}`;
}

/** The console path of an organization's page (`tunnels`, `members`, …). */
export const orgPath = (slug: string, page: string): string => `/orgs/${encodeURIComponent(slug)}/${page}`;

/** A page's heading: the title, and for an organization whose page it is and the caller's role. */
export function pageHeading(owner: Owner, title: string): HTMLElement[] {
  const heading = h('h1', { tabindex: -1 }, title);
  if (owner.kind === 'account') return [heading];
  return [heading, h('p', { class: 'muted org-line' }, h('strong', {}, owner.name), ` · your role: ${owner.role}`)];
}
