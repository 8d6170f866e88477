// Organizations as tests make them (API.md section 18): created over HTTP by a verified account,
// members added by the database (invitations have their own tests).
import assert from 'node:assert/strict';
import type { SignedIn } from './accounts.js';
import type { Server } from './server.js';

export interface Org {
  id: string;
  slug: string;
  name: string;
}

let n = 0;
/** A slug no other test takes (tests share one database on the real backend). */
export const uniqueOrgSlug = (prefix = 'org'): string => `${prefix}-${Date.now().toString(36)}${process.pid.toString(36)}${++n}`;

export async function createOrg(s: Server, owner: SignedIn, prefix?: string): Promise<Org> {
  const r = await s.request('/api/orgs', { method: 'POST', bearer: owner.token, body: { slug: uniqueOrgSlug(prefix), name: 'Acme Tools' } });
  assert.equal(r.status, 201, r.text);
  return { id: r.json.id, slug: r.json.slug, name: r.json.name };
}

export async function addMember(s: Server, org: Org, who: { id: string }, role: 'owner' | 'admin' | 'member'): Promise<void> {
  await s.deps.db.orgMember.create({ data: { orgId: org.id, accountId: who.id, role } });
}

/** The organization's audit log's types, newest first. */
export async function auditTypes(s: Server, org: Org, by: SignedIn): Promise<string[]> {
  const r = await s.request(`/api/orgs/${org.slug}/audit`, { bearer: by.token });
  assert.equal(r.status, 200, r.text);
  return r.json.events.map((e: { type: string }) => e.type);
}
