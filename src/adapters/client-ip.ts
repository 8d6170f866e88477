// Who the client is behind proxies (TRUST_PROXY, API.md section 1). Fastify walks
// X-Forwarded-For from the right, trusting only as many hops (or only the listed proxies) as
// configured, so a client prepending entries cannot choose its address. An entry that is not an
// IP address is never used as one: the connection's own address stands instead.
import type { IncomingMessage } from 'node:http';
import { isIP } from 'node:net';
import proxyAddr from '@fastify/proxy-addr';
import type { FastifyRequest } from 'fastify';
import type { TrustProxy } from '../infra/config.js';

type TrustFunction = (address: string, hop: number) => boolean;

export function trustProxyOption(trust: TrustProxy): false | string[] | TrustFunction {
  if (trust === false || Array.isArray(trust)) return trust;
  const hops = trust;
  return (_address, hop) => hop < hops;
}

export function clientIp(req: FastifyRequest): string {
  const ip = req.ip;
  if (isIP(ip) !== 0) return ip;
  return req.socket.remoteAddress ?? 'unknown';
}

/** The same rule for the raw handlers (the zone host's subscription form), with Fastify's own walker. */
export function rawClientIp(trust: TrustProxy): (req: IncomingMessage) => string {
  const option = trustProxyOption(trust);
  const trusted = option === false ? () => false : Array.isArray(option) ? proxyAddr.compile(option) : option;
  return (req) => {
    const ip = proxyAddr(req, trusted);
    return isIP(ip) !== 0 ? ip : (req.socket.remoteAddress ?? 'unknown');
  };
}
