// Host routing (API.md section 2): the zone host serves /status, `<label>.ZONE` hosts and custom
// domains serve the card paths, every other host is the API.
import type { IncomingMessage } from 'node:http';

export type HostKind = 'zone' | 'tunnel' | 'api';

export function hostnameOf(req: IncomingMessage): string {
  const raw = req.headers.host ?? '';
  // Strip the port (and IPv6 brackets), lowercase, drop a trailing dot.
  const host = raw.startsWith('[') ? raw.slice(0, raw.indexOf(']') + 1) : raw.split(':')[0]!;
  return host.toLowerCase().replace(/\.$/, '');
}

export function classifyHost(hostname: string, zone: string): HostKind {
  if (hostname === zone) return 'zone';
  if (hostname.endsWith(`.${zone}`)) {
    const label = hostname.slice(0, -zone.length - 1);
    if (label.length > 0 && !label.includes('.')) return 'tunnel';
  }
  return 'api';
}

export const CARD_PATHS: ReadonlySet<string> = new Set([
  '/.well-known/mcp/server-card.json',
  '/.well-known/mcp-server-card.json',
]);

/** The path without the query string. */
export function pathOf(url: string | undefined): string {
  const u = url ?? '/';
  const q = u.indexOf('?');
  return q === -1 ? u : u.slice(0, q);
}
