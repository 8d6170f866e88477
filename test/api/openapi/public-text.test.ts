// The public API reference as a reader gets it from a running server: /openapi.json, the /docs
// page and its start-up script speak of the product, never of documents a reader cannot open
// (the contract's files or "section N" of them; a section of an RFC is fine).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { useServer } from '../../support/server.js';

const s = useServer();

const OUTSIDE = [/\b(API|SPEC|DESIGN|STYLE)\.md\b/, /\b(SPEC|API) \d+(\.\d+)?[a-z]?\b/, /(?<!\bRFC \d{3,5},? )\bsections? \d+[a-z]?\b(?!\.\d)/i];

function references(text: string): string[] {
  return OUTSIDE.flatMap((re) => [...text.matchAll(new RegExp(re, `${re.flags}g`))].map((m) => m[0]));
}

test('the served OpenAPI document and the /docs page name no outside document or section', async () => {
  const doc = await s.request('/openapi.json');
  assert.equal(doc.status, 200);
  assert.ok(doc.text.length > 10_000, 'the whole document');
  assert.deepEqual(references(doc.text), []);
  for (const path of ['/docs', '/assets/api-docs/boot.js']) {
    const r = await s.request(path);
    assert.equal(r.status, 200, path);
    assert.deepEqual(references(r.text), [], path);
  }
  // The check finds what it is for.
  assert.deepEqual(references('Security activity (API.md section 10); the card (SPEC 4.3).'), ['API.md', 'SPEC 4.3', 'section 10']);
  assert.deepEqual(references('RFC 8628 section 3.5'), []);
});
