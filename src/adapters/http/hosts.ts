// Host routing (API.md section 2): the zone host serves /status, `<label>.ZONE` hosts and custom
// domains serve the card paths, every other host is the API.
import type { IncomingMessage } from 'node:http';

export type HostKind = 'zone' | 'tunnel' | 'api';

/**
 * One request header read from rawHeaders: node builds `req.headers` lazily, and on the raw hot
 * paths (cards, status) that object is never needed otherwise.
 */
export function rawHeader(req: IncomingMessage, lowerName: string): string | undefined {
  const raw = req.rawHeaders;
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i]!;
    if (name.length === lowerName.length && name.toLowerCase() === lowerName) return raw[i + 1];
  }
  return undefined;
}

export function hostnameOf(req: IncomingMessage): string {
  const raw = rawHeader(req, 'host') ?? '';
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
