// /favicon.ico, which browsers ask of every origin they show: the service's icon (a blue rounded
// square with a white tunnel arch, the console's accent colour) as a 16 and a 32 px PNG in one ICO,
// instead of a 404 in every browser's console. Served on the API host (Fastify) and on the zone
// host (the raw handler); tunnel hosts keep answering 404 to every path but the card paths.
import type { ServerResponse } from 'node:http';
import type { FastifyInstance } from 'fastify';

export const FAVICON_PATH = '/favicon.ico';

export const FAVICON = Buffer.from(
  [
    'AAABAAIAEBAAAAEAIAC1AAAAJgAAACAgAAABACAAIAEAANsAAACJUE5HDQoaCgAAAA1JSERSAAAAEAAAABAIBgAAAB/z/2EA',
    'AAB8SURBVHjaY2AAAq6IDf1A/B6I/xOJQWr7GZA0/ycT9zOQaDOGSxgo0AzGtDHAonz//02nn/2HARAbJEaUASCFH77++o8O',
    'QGLYDMEwANlmdACSI2gAIUCSAVO23QFjsgwoXXgZLgZik2yAe9MRuBiITVMDKE7KlGUmSrMzAJz5Xc2wr1aBAAAAAElFTkSu',
    'QmCCiVBORw0KGgoAAAANSUhEUgAAACAAAAAgCAYAAABzenr0AAAA50lEQVR42mNgQAJcERsKgPg8EP+nEQaZXcCADoCCAjS2',
    'GJtDBJAdQE/L4Y5ADvb/A4QLBsr3iFAYQMvBeNQBow4g2QEW5fv/Lz7w8P+DV1//wwCIDRIDydHMAZJJW/9P2XbnPyEAUgNS',
    'S1UHgAy8+ODDf2IBSC2xjiDKAcT4HFtIUMUBoHglFxCTJgg6AJS4yAUgvRQ7ADm1kwpAeil2AKVgeDrgw9df/9Omn4OrAbFB',
    'YnRzALbUjSu3UN0B+FI2thxDdQe0rLmBUy1IbtQBw88B9GiQDHizfGA7JgPeNRsUndOB7J4DADHKcwyEJs7sAAAAAElFTkSu',
    'QmCC',
  ].join(''),
  'base64',
);

/** A day in every cache: the icon changes with a release at most. */
export const FAVICON_HEADERS = {
  'content-type': 'image/x-icon',
  'content-length': String(FAVICON.length),
  'cache-control': 'public, max-age=86400',
  'x-content-type-options': 'nosniff',
} as const;

/** The raw handlers' answer (node leaves the body out for HEAD). */
export function writeFavicon(res: ServerResponse): number {
  res.writeHead(200, FAVICON_HEADERS);
  res.end(FAVICON);
  return 200;
}

/** GET (and HEAD) /favicon.ico on the API host. */
export function registerFavicon(app: FastifyInstance): void {
  app.get(FAVICON_PATH, async (_req, reply) => reply.headers(FAVICON_HEADERS).send(FAVICON));
}
