// IP masking and networks (API.md section 3): IPv4 keeps three octets, IPv6 keeps the /48.
import { isIPv4, isIPv6 } from 'node:net';

function expandIPv6(ip: string): string[] | null {
  const zoneless = ip.split('%')[0] ?? '';
  const [head = '', tail] = zoneless.split('::') as [string, string | undefined];
  const h = head ? head.split(':') : [];
  const t = tail ? tail.split(':') : [];
  if (zoneless.includes('::')) {
    const fill = 8 - h.length - t.length;
    if (fill < 0) return null;
    return [...h, ...Array<string>(fill).fill('0'), ...t];
  }
  return h.length === 8 ? h : null;
}

function normalise(ip: string): string {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(ip);
  return mapped?.[1] ?? ip;
}

/** The network an address belongs to: "203.0.113.0/24" or "2001:db8:1::/48"; null if not an IP. */
export function networkOf(rawIp: string): string | null {
  const ip = normalise(rawIp);
  if (isIPv4(ip)) return `${ip.split('.').slice(0, 3).join('.')}.0/24`;
  if (isIPv6(ip)) {
    const parts = expandIPv6(ip);
    if (!parts) return null;
    return `${parts
      .slice(0, 3)
      .map((p) => parseInt(p, 16).toString(16))
      .join(':')}::/48`;
  }
  return null;
}

/** "203.0.113.x" or "2001:db8:1::x"; "unknown" when there is no usable address. */
export function maskIp(rawIp: string): string {
  const ip = normalise(rawIp);
  if (isIPv4(ip)) return `${ip.split('.').slice(0, 3).join('.')}.x`;
  const net = networkOf(ip);
  return net ? net.replace('::/48', '::x') : 'unknown';
}
