// Why a delivery attempt failed, in words the endpoint's owner can act on: the delivery log (the
// `error` of each attempt, REST and GraphQL) shows "Could not connect to the endpoint (connection
// refused)." rather than node's `connect ECONNREFUSED 127.0.0.1:1`. The machine-readable part
// stays where it was: `status_code` holds the endpoint's HTTP status, null when none came. Attempts
// recorded before these words existed kept node's message; they are translated when read.
import { STATUS_CODES } from 'node:http';

const ERROR_MAX = 300;

/** Node's error codes for a connection that did not happen or did not last, and what they mean. */
const CONNECTION: Readonly<Record<string, string>> = {
  ECONNREFUSED: 'Could not connect to the endpoint (connection refused).',
  ECONNRESET: 'The endpoint closed the connection before answering (connection reset).',
  EPIPE: 'The endpoint closed the connection while the event was being sent.',
  EHOSTUNREACH: 'Could not reach the endpoint’s host (no route to it).',
  ENETUNREACH: 'Could not reach the endpoint’s network (no route to it).',
  ETIMEDOUT: 'Could not connect to the endpoint (the connection timed out).',
  ENOTFOUND: 'Could not find the endpoint’s host (DNS lookup failed).',
  EAI_AGAIN: 'Could not find the endpoint’s host (DNS lookup failed; it may work again later).',
};

/** TLS: why the endpoint's certificate or handshake was not accepted. */
const TLS: Readonly<Record<string, string>> = {
  CERT_HAS_EXPIRED: 'its certificate has expired',
  CERT_NOT_YET_VALID: 'its certificate is not valid yet',
  DEPTH_ZERO_SELF_SIGNED_CERT: 'its certificate is self-signed',
  SELF_SIGNED_CERT_IN_CHAIN: 'its certificate chain ends in a self-signed certificate',
  UNABLE_TO_VERIFY_LEAF_SIGNATURE: 'its certificate is not signed by a trusted authority',
  UNABLE_TO_GET_ISSUER_CERT_LOCALLY: 'its certificate is not signed by a trusted authority',
  UNABLE_TO_GET_ISSUER_CERT: 'its certificate is not signed by a trusted authority',
  ERR_TLS_CERT_ALTNAME_INVALID: 'its certificate does not name this host',
  CERT_REVOKED: 'its certificate was revoked',
};

const secure = (why: string): string => `Could not make a secure connection to the endpoint (${why}).`;

/** Node's messages that carry no code of their own. */
const BY_MESSAGE: readonly [RegExp, string][] = [
  [/socket hang up/i, 'The endpoint closed the connection without answering.'],
  [/certificate has expired/i, secure(TLS.CERT_HAS_EXPIRED!)],
  [/self[- ]signed certificate in certificate chain/i, secure(TLS.SELF_SIGNED_CERT_IN_CHAIN!)],
  [/self[- ]signed certificate/i, secure(TLS.DEPTH_ZERO_SELF_SIGNED_CERT!)],
  [/unable to (verify the first certificate|get local issuer certificate)/i, secure(TLS.UNABLE_TO_VERIFY_LEAF_SIGNATURE!)],
  [/does not match certificate's altnames/i, secure(TLS.ERR_TLS_CERT_ALTNAME_INVALID!)],
  [/SSL routines|secure TLS connection|wrong version number|handshake failure/i, secure('the TLS handshake failed')],
];

/** The endpoint answered, but not with a 2xx. */
export function statusAnswerText(status: number): string {
  const reason = STATUS_CODES[status];
  return `The endpoint answered with status ${status}${reason ? ` (${reason})` : ''}; only a 2xx counts as delivered.`;
}

/** No answer within the attempt's bound. */
export function timeoutText(timeoutMs: number): string {
  return `The endpoint did not answer within ${Math.round(timeoutMs / 1000)} seconds (timed out).`;
}

function wordsFor(code: string | undefined, message: string): string | null {
  if (code !== undefined) {
    if (CONNECTION[code]) return CONNECTION[code];
    if (TLS[code]) return secure(TLS[code]);
    if (code.startsWith('ERR_SSL_') || code === 'EPROTO') return secure('the TLS handshake failed');
  }
  for (const [pattern, words] of BY_MESSAGE) if (pattern.test(message)) return words;
  return null;
}

/** A failure of the connection or of TLS (node's error, possibly as the cause of a wrapper). */
export function connectionFailureText(err: unknown): string {
  const inner = (err as { cause?: unknown } | null)?.cause ?? err;
  const { code, message } = (inner ?? {}) as { code?: unknown; message?: unknown };
  const text = typeof message === 'string' ? message : String(inner);
  return (wordsFor(typeof code === 'string' ? code : undefined, text) ?? `The delivery failed: ${text}`).slice(0, ERROR_MAX);
}

/** Node's messages as attempts recorded them before: `connect ECONNREFUSED 127.0.0.1:1`, `No answer within 15000 ms.`, `The endpoint answered 503.` */
const LEGACY_TIMEOUT = /^No answer within (\d+) ms\.$/;
const LEGACY_STATUS = /^The endpoint answered (\d{3})\.$/;
const NODE_CODE = /\b(E[A-Z_]{3,}|ERR_[A-Z_]+|CERT_[A-Z_]+|DEPTH_ZERO_SELF_SIGNED_CERT|UNABLE_TO_[A-Z_]+|SELF_SIGNED_CERT_IN_CHAIN)\b/;

/** A recorded attempt's error as the log shows it: words, whatever the version that recorded it. */
export function readableDeliveryError(stored: string | null): string | null {
  if (stored === null) return null;
  const timeout = LEGACY_TIMEOUT.exec(stored);
  if (timeout) return timeoutText(Number(timeout[1]));
  const status = LEGACY_STATUS.exec(stored);
  if (status) return statusAnswerText(Number(status[1]));
  const raw = stored.replace(/^Delivery failed: /, '');
  return wordsFor(NODE_CODE.exec(raw)?.[1], raw) ?? stored;
}
