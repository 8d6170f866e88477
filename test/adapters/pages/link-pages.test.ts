// The pages behind the email links (API.md section 2): 200 HTML, no third-party scripts (only
// the same-origin /assets/link-pages.js), no Referer, and the token never echoed into the page.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { useServer } from '../../support/server.js';

const s = useServer();

const TOKEN = 'abcdefghijklmnopqrstuvwxyz234567';

for (const path of ['/verify-email', '/reset-password', '/confirm-email-change']) {
  test(`GET ${path} answers 200 HTML with only the same-origin script and a no-referrer policy`, async () => {
    const r = await s.request(`${path}?token=${TOKEN}`);
    assert.equal(r.status, 200);
    assert.match(String(r.headers['content-type']), /^text\/html/);
    assert.equal(r.headers['referrer-policy'], 'no-referrer');
    assert.match(r.text, /^<!doctype html>/i);
    const scripts = [...r.text.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/gi)];
    assert.equal(scripts.length, 1, 'exactly one script tag');
    assert.match(scripts[0]![1]!, /\bsrc="\/assets\/link-pages\.js"/);
    assert.equal(scripts[0]![2]!.trim(), '', 'no inline script');
    assert.doesNotMatch(r.text, /(src|href)="(https?:)?\/\//i, 'no third-party resource');
    assert.ok(!r.text.includes(TOKEN), 'the token is not written into the page');
    const csp = String(r.headers['content-security-policy'] ?? '');
    assert.match(csp, /script-src 'self'/);
    assert.doesNotMatch(csp, /script-src[^;]*(https?:|\*|'unsafe-inline')/);
  });
}

test('GET /assets/link-pages.js is served as JavaScript from the same origin', async () => {
  const r = await s.request('/assets/link-pages.js');
  assert.equal(r.status, 200);
  assert.match(String(r.headers['content-type']), /javascript/);
  assert.match(r.text, /\/auth\/verify-email/);
  assert.doesNotMatch(r.text, /https?:\/\//, 'no third-party address in the script');
});

test('opening a verification page changes nothing by itself (link scanners fetch URLs)', async () => {
  const email = `page-${Date.now()}@example.com`;
  assert.equal((await s.request('/auth/signup', { method: 'POST', body: { email, password: 'correct horse' } })).status, 201);
  const mail = await s.smtp.waitFor(email, 'verify-email');
  assert.equal((await s.request(`/verify-email?token=${mail.token}`)).status, 200);
  const row = await s.deps.db.account.findFirstOrThrow({ where: { email } });
  assert.equal(row.emailVerified, false);
});
