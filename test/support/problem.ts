// The one check of an error answer over HTTP: an RFC 9457 problem (API.md section 3) carrying the
// catalog code, with Retry-After on 429.
import assert from 'node:assert/strict';
import type { Reply } from './http.js';

/** `what` names the request in the failure message when a test sends many. */
export function assertProblem(r: Reply, status: number, code: string, what?: string): void {
  assert.equal(r.status, status, `${what ? `${what}: ` : ''}expected ${status} ${code}, got ${r.status}: ${r.text}`);
  assert.match(String(r.headers['content-type']), /^application\/problem\+json/);
  assert.equal(r.json.status, status);
  assert.equal(r.json.code, code);
  assert.equal(typeof r.json.title, 'string');
  assert.equal(typeof r.json.detail, 'string');
  assert.equal(typeof r.json.type, 'string');
  if (status === 429) assert.match(String(r.headers['retry-after']), /^[1-9]\d*$/);
}
