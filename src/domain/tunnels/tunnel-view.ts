// A tunnel as the surfaces show it (API.md section 4): its host and MCP URL worked out from the
// row. GraphQL (and through it REST) shows this view; the webhook events carry it in snake_case.
import type { TunnelAccess } from './access.js';
import { tunnelHost } from './names.js';
import type { OwnedTunnel } from './store.js';

export interface TunnelView {
  id: string;
  subdomain: string;
  host: string;
  url: string;
  customDomain: string | null;
  discoverable: boolean;
  pinnedTools: string[];
  access: TunnelAccess;
  allowedEmails: string[];
  createdAt: Date;
  /** Who owns it (API.md section 18): an account or an organization, by slug. */
  owner: { type: 'account' | 'org'; slug: string };
}

export function viewOf(t: OwnedTunnel, zone: string): TunnelView {
  const host = tunnelHost(t.subdomain, t.account.slug, zone);
  return {
    id: t.id,
    subdomain: t.subdomain,
    host,
    url: `https://${host}/mcp`,
    customDomain: t.customDomain,
    discoverable: t.discoverable,
    pinnedTools: t.pinnedTools,
    access: t.access === 'oauth' ? 'oauth' : 'public',
    allowedEmails: t.allowedEmails,
    createdAt: t.createdAt,
    owner: { type: t.account.kind === 'org' ? 'org' : 'account', slug: t.account.slug },
  };
}

/** The view with the REST API's field names (section 4), as webhook payloads carry it. */
export function viewJson(v: TunnelView): Record<string, unknown> {
  return {
    id: v.id,
    subdomain: v.subdomain,
    host: v.host,
    url: v.url,
    custom_domain: v.customDomain,
    discoverable: v.discoverable,
    pinned_tools: v.pinnedTools,
    access: v.access,
    allowed_emails: v.allowedEmails,
    created_at: v.createdAt.toISOString(),
    owner: v.owner,
  };
}
