// Tunnel naming (API.md section 4): the subdomain rules, the custom-domain rules and the public
// host `<subdomain>--<slug>.ZONE` they form.
import { invalidInput, PROBLEMS } from '../errors.js';

/** 33 + "--" + 28 (the longest slug) = 63, one DNS label. */
export const SUBDOMAIN_MAX = 33;

const LABEL = /^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/;

/** The slug character and hyphen rules with 1 to 33 characters; reserved labels do not apply. */
export function assertValidSubdomain(subdomain: unknown): asserts subdomain is string {
  if (typeof subdomain !== 'string' || subdomain.length < 1 || subdomain.length > SUBDOMAIN_MAX) {
    throw invalidInput(PROBLEMS.invalidSubdomain, 'subdomain', `The subdomain must be 1 to ${SUBDOMAIN_MAX} characters long.`);
  }
  if (!/^[a-z0-9-]+$/.test(subdomain)) {
    throw invalidInput(PROBLEMS.invalidSubdomain, 'subdomain', 'The subdomain may contain only lowercase letters, digits and hyphens.');
  }
  if (subdomain.startsWith('-') || subdomain.endsWith('-') || subdomain.includes('--')) {
    throw invalidInput(PROBLEMS.invalidSubdomain, 'subdomain', 'The subdomain cannot start or end with a hyphen or contain "--".');
  }
}

/** True for a syntactically valid DNS host name of two labels or more (no IP address). */
export function isHostname(name: string): boolean {
  if (name.length < 3 || name.length > 253) return false;
  const labels = name.split('.');
  if (labels.length < 2) return false;
  if (/^[0-9]+$/.test(labels[labels.length - 1]!)) return false;
  return labels.every((l) => LABEL.test(l));
}

export interface Zones {
  zone: string;
  apiHostname: string;
}

/**
 * Lowercased, without a trailing dot. A custom domain lives outside ZONE (those hosts are the
 * service's own) and is not the API's host, which would never route to the card.
 */
export function normalizeCustomDomain(value: unknown, zones: Zones): string {
  if (typeof value !== 'string') throw invalidInput(PROBLEMS.invalidCustomDomain, 'customDomain', 'The custom domain must be a host name.');
  const name = value.trim().toLowerCase().replace(/\.$/, '');
  if (!isHostname(name)) throw invalidInput(PROBLEMS.invalidCustomDomain, 'customDomain', 'The custom domain must be a valid host name such as mcp.example.com.');
  if (name === zones.zone || name.endsWith(`.${zones.zone}`)) {
    throw invalidInput(PROBLEMS.invalidCustomDomain, 'customDomain', `The custom domain cannot be inside ${zones.zone}.`);
  }
  if (name === zones.apiHostname) throw invalidInput(PROBLEMS.invalidCustomDomain, 'customDomain', 'The custom domain cannot be the service’s own host.');
  return name;
}

/** The first DNS label of the default tunnel host: `<subdomain>--<slug>`. */
export const tunnelLabel = (subdomain: string, slug: string): string => `${subdomain}--${slug}`;

export const tunnelHost = (subdomain: string, slug: string, zone: string): string =>
  `${tunnelLabel(subdomain, slug)}.${zone}`;

/** What follows the subdomain in every host of the account's tunnels: `--<slug>.ZONE`. */
export const tunnelHostSuffix = (slug: string, zone: string): string => tunnelHost('', slug, zone);

/** Every host a tunnel's card can be asked on. */
export function cardHostsOf(t: { subdomain: string; customDomain: string | null }, slug: string, zone: string): string[] {
  const hosts = [tunnelHost(t.subdomain, slug, zone)];
  if (t.customDomain) hosts.push(t.customDomain);
  return hosts;
}

/** The /mcp URLs a tunnel answers on: the resources its OAuth grants name (API.md section 13). */
export const mcpUrlsOf = (t: { subdomain: string; customDomain: string | null }, slug: string, zone: string): string[] =>
  cardHostsOf(t, slug, zone).map((h) => `https://${h}/mcp`);
