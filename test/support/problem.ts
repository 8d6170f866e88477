// The one check of an error answer over HTTP: an RFC 9457 problem (API.md section 3) carrying the
// catalog code, titled with the reason phrase of its status (RFC 9110), with Retry-After on 429,
// and typed with its entry of the problem catalog (src/domain/problems.ts): never about:blank.
import assert from 'node:assert/strict';
import { problemBySlug, PROBLEMS_PATH, type ProblemType } from '../../src/domain/problems.js';
import type { Reply } from './http.js';

/** The title of every status the server answers problems with: RFC 9110's reason phrase. */
export const PROBLEM_TITLE: Readonly<Record<number, string>> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Method Not Allowed',
  409: 'Conflict',
  413: 'Content Too Large',
  414: 'URI Too Long',
  415: 'Unsupported Media Type',
  429: 'Too Many Requests',
  500: 'Internal Server Error',
  502: 'Bad Gateway',
  503: 'Service Unavailable',
};

/** `what` names the request in the failure message when a test sends many. */
export function assertProblem(r: Reply, status: number, code: string, what?: string): void {
  assert.equal(r.status, status, `${what ? `${what}: ` : ''}expected ${status} ${code}, got ${r.status}: ${r.text}`);
  assert.match(String(r.headers['content-type']), /^application\/problem\+json/);
  assert.equal(r.json.status, status);
  assert.equal(r.json.code, code);
  assert.equal(r.json.title, PROBLEM_TITLE[status], `the title of a ${status} is its reason phrase`);
  assert.equal(typeof r.json.detail, 'string');
  assertProblemType(r.json.type, status, code, what);
  if (status === 429) assert.match(String(r.headers['retry-after']), /^[1-9]\d*$/);
}

/**
 * A problem's `type` is BASE_URL/problems/<slug> of a catalog entry whose code is the answer's
 * (and whose status is too, but for a router refusal the framework gave another status; a
 * GraphQL error has none: null).
 */
export function assertProblemType(type: unknown, status: number | null, code: string, what?: string): ProblemType {
  const at = what ? `${what}: ` : '';
  assert.equal(typeof type, 'string', `${at}a problem has a type`);
  const match = new RegExp(`^https?://[^/]+(?:/[^\\s]*)?${PROBLEMS_PATH}/([a-z0-9-]+)$`).exec(type as string);
  assert.ok(match, `${at}the type ${String(type)} is a problem type URI of the catalog, not about:blank`);
  const entry = problemBySlug(match[1]!);
  assert.ok(entry, `${at}the type ${String(type)} names an entry of the catalog`);
  assert.equal(entry.code, code, `${at}the entry ${entry.slug} has the answer's code`);
  if (status !== null && entry.slug !== 'malformed-url') assert.equal(entry.status, status, `${at}the entry ${entry.slug} has the answer's status`);
  return entry;
}
