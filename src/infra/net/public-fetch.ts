// Fetching a URL a user or client supplied (webhook endpoints, client ID metadata documents)
// without server-side request forgery: https only; the host is resolved once and every address
// it resolves to must be public (public-address.ts); the connection goes to the address that was
// checked (node's `lookup` hook answers it, and no agent pools the socket), so a DNS answer that
// changes between the check and the connection (rebinding) cannot take it elsewhere; redirects
// are answered, never followed; one deadline bounds resolution, connection, headers and body; the
// body is read up to a byte limit, then the connection is dropped.
import { lookup as dnsLookup } from 'node:dns/promises';
import { request as httpsRequest, type RequestOptions } from 'node:https';
import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { isIP } from 'node:net';
import { classifyAddress } from './public-address.js';

export interface PublicFetchOptions {
  method?: 'GET' | 'POST';
  headers?: Record<string, string>;
  body?: string | Buffer;
  /** Resolution, connection, headers and body together. */
  timeoutMs: number;
  /** Bytes of body read at most; the rest is not read (`truncated`). */
  maxBytes: number;
  /** Operators only (e.g. OAUTH_ALLOW_PRIVATE_CLIENT_URLS): skip the public-address rule. */
  allowPrivate?: boolean;
  /** Development and tests (e.g. WEBHOOK_ALLOW_PRIVATE): plain http too. */
  allowHttp?: boolean;
  /** Tests: another resolver (answers every address of the name). */
  resolve?: (hostname: string) => Promise<{ address: string; family: number }[]>;
  /** Trust these CAs (replacing the system's: pass tls.rootCertificates too to add to them). */
  ca?: string | Buffer | (string | Buffer)[];
}

export interface PublicResponse {
  status: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
  /** The body was longer than maxBytes. */
  truncated: boolean;
  /** The address connected to. */
  address: string;
  /** Milliseconds from the start to the end of the body. */
  durationMs: number;
}

export type RefusalReason = 'scheme' | 'credentials' | 'address' | 'resolution';

/** The URL may not be fetched; `message` says why in words a user can act on. */
export class RefusedUrl extends Error {
  constructor(
    readonly reason: RefusalReason,
    message: string,
  ) {
    super(message);
    this.name = 'RefusedUrl';
  }
}

/** The fetch started but did not finish: timeout (`timedOut`), connection or TLS failure (node's error as `cause`). */
export class FetchFailed extends Error {
  readonly timedOut: boolean;
  constructor(message: string, options?: { cause?: unknown; timedOut?: boolean }) {
    super(message, options);
    this.name = 'FetchFailed';
    this.timedOut = options?.timedOut ?? false;
  }
}

const systemResolve = (hostname: string) => dnsLookup(hostname, { all: true, verbatim: true });

/** Checks the URL and resolves its host: the address to connect to, or RefusedUrl. */
export async function checkedTarget(raw: string | URL, opts: Pick<PublicFetchOptions, 'allowPrivate' | 'allowHttp' | 'resolve'> = {}): Promise<{ url: URL; address: string; family: number }> {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new RefusedUrl('scheme', 'Not a URL.');
  }
  if (url.protocol !== 'https:' && !(opts.allowHttp && url.protocol === 'http:')) throw new RefusedUrl('scheme', 'Only https URLs are allowed.');
  if (url.username || url.password) throw new RefusedUrl('credentials', 'The URL may not carry a user name or password.');
  const hostname = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
  let answers: { address: string; family: number }[];
  if (isIP(hostname)) {
    answers = [{ address: hostname, family: isIP(hostname) }];
  } else {
    try {
      answers = await (opts.resolve ?? systemResolve)(hostname);
    } catch {
      throw new RefusedUrl('resolution', `The host ${hostname} could not be resolved.`);
    }
    if (answers.length === 0) throw new RefusedUrl('resolution', `The host ${hostname} has no address.`);
  }
  if (!opts.allowPrivate) {
    for (const { address } of answers) {
      const verdict = classifyAddress(address);
      if (!verdict.public) throw new RefusedUrl('address', `The host ${hostname} resolves to a non-public address (${verdict.range}); only public addresses are allowed.`);
    }
  }
  const first = answers[0]!;
  return { url, address: first.address, family: first.family };
}

export async function publicFetch(raw: string | URL, opts: PublicFetchOptions): Promise<PublicResponse> {
  const started = performance.now();
  const deadline = AbortSignal.timeout(opts.timeoutMs);
  const target = await Promise.race([
    checkedTarget(raw, opts),
    new Promise<never>((_, reject) => deadline.addEventListener('abort', () => reject(new FetchFailed(`No answer within ${opts.timeoutMs} ms.`, { timedOut: true })), { once: true })),
  ]);
  const { url, address, family } = target;
  const options: RequestOptions = {
    method: opts.method ?? 'GET',
    hostname: url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname,
    port: url.port || (url.protocol === 'http:' ? 80 : 443),
    path: `${url.pathname}${url.search}`,
    headers: { 'user-agent': 'tunnel-service', ...opts.headers },
    // The checked address, whatever the name resolves to now: no second resolution.
    lookup: (_name, lookupOpts, callback) => {
      if (lookupOpts.all) callback(null, [{ address, family }]);
      else callback(null, address, family);
    },
    agent: false,
    signal: deadline,
    ...(opts.ca ? { ca: opts.ca } : {}),
  };
  return new Promise<PublicResponse>((resolve, reject) => {
    const fail = (err: unknown) =>
      reject(deadline.aborted ? new FetchFailed(`No answer within ${opts.timeoutMs} ms.`, { timedOut: true }) : err instanceof FetchFailed ? err : new FetchFailed((err as Error).message, { cause: err }));
    const request = url.protocol === 'http:' ? httpRequest : httpsRequest;
    const req = request(options, (res) => {
      const chunks: Buffer[] = [];
      let received = 0;
      let truncated = false;
      const finish = () =>
        resolve({
          status: res.statusCode ?? 0,
          headers: res.headers,
          body: Buffer.concat(chunks),
          truncated,
          address,
          durationMs: performance.now() - started,
        });
      res.on('data', (chunk: Buffer) => {
        if (truncated) return;
        const room = opts.maxBytes - received;
        if (chunk.length > room) {
          chunks.push(chunk.subarray(0, room));
          received = opts.maxBytes;
          truncated = true;
          // Enough read: the rest is not wanted; the socket goes with the request.
          req.destroy();
          finish();
          return;
        }
        chunks.push(chunk);
        received += chunk.length;
      });
      res.on('end', () => {
        if (!truncated) finish();
      });
      res.on('error', (err) => {
        if (!truncated) fail(err);
      });
      res.on('aborted', () => {
        if (!truncated) fail(new FetchFailed('The connection closed before the answer ended.'));
      });
    });
    req.on('error', (err) => {
      fail(err);
    });
    if (opts.body !== undefined) req.write(opts.body);
    req.end();
  });
}
