// Which addresses a server-side fetch of a user-supplied URL may connect to (no server-side
// request forgery): only globally routable unicast. Ranges come from ipaddr.js (IANA's special
// purpose registries); this file only decides. IPv4-mapped IPv6 is judged as the IPv4 address it
// carries; any other IPv6 must be global unicast (2000::/3) outside the special ranges, so NAT64,
// 6to4 and Teredo forms, which embed an IPv4 address that may be private, are refused too.
import ipaddr from 'ipaddr.js';

/** Why an address is refused: ipaddr.js's range name (`private`, `loopback`, `linkLocal`, …), or `invalid`. */
export type AddressVerdict = { public: true } | { public: false; range: string };

const GLOBAL_UNICAST_V6 = ipaddr.IPv6.parse('2000::');

export function classifyAddress(address: string): AddressVerdict {
  if (!ipaddr.isValid(address)) return { public: false, range: 'invalid' };
  let ip = ipaddr.parse(address);
  if (ip.kind() === 'ipv6' && (ip as ipaddr.IPv6).isIPv4MappedAddress()) ip = (ip as ipaddr.IPv6).toIPv4Address();
  const range = ip.range();
  if (range !== 'unicast') return { public: false, range };
  if (ip.kind() === 'ipv6' && !(ip as ipaddr.IPv6).match(GLOBAL_UNICAST_V6, 3)) return { public: false, range: 'notGlobalUnicast' };
  return { public: true };
}

export const isPublicAddress = (address: string): boolean => classifyAddress(address).public;
