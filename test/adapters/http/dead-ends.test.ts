// What a person's browser meets off the known paths: a mistyped console address is a small HTML
// "page not found" with a way home (API clients keep the problem+json 404), /status on the API
// host leads to the zone's status page, and /favicon.ico is an icon on the API and zone hosts.
import assert from 'node:assert/strict';
import { request as httpRequest } from 'node:http';
import { test } from 'node:test';
import { zoneOrigin } from '../../../src/adapters/edge/status/zone-url.js';
import { assertProblem } from '../../support/problem.js';
import { useServer } from '../../support/server.js';

const s = useServer();
/** What Chromium sends when it navigates. */
const BROWSER = { accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8' };

test('a mistyped console address in a browser: a 404 page in the console look with a way home', async () => {
  const r = await s.request('/tunnel', { headers: BROWSER });
  assert.equal(r.status, 404);
  assert.match(String(r.headers['content-type']), /^text\/html/);
  assert.equal(r.headers.vary, 'Accept');
  assert.equal(r.headers['cache-control'], 'no-store');
  assert.match(String(r.headers['content-security-policy']), /default-src 'none'/);
  assert.match(r.text, /<link rel="stylesheet" href="\/assets\/console\.css">/, 'the console stylesheet');
  assert.match(r.text, /<h1>Page not found<\/h1>/);
  assert.match(r.text, /There is no page at <code>\/tunnel<\/code>/);
  assert.ok(r.text.includes(`<a class="button" href="${s.deps.config.appUrl}/">Go to your account</a>`), r.text);
  assert.doesNotMatch(r.text, /<script/);
  // The path is shown as text, never as markup.
  const hostile = await s.request('/%3Cimg%20src=x%20onerror=alert(1)%3E', { headers: BROWSER });
  assert.equal(hostile.status, 404);
  assert.ok(hostile.text.includes('<code>/&lt;img src=x onerror=alert(1)&gt;</code>'), hostile.text);
  assert.doesNotMatch(hostile.text, /<img/);
  // HEAD answers the same status without a body.
  const head = await s.request('/tunnel', { method: 'HEAD', headers: BROWSER });
  assert.equal(head.status, 404);
  assert.equal(head.text, '');
});

test('API clients, API paths and writes keep the problem+json 404', async () => {
  assertProblem(await s.request('/tunnel'), 404, 'NOT_FOUND');
  assertProblem(await s.request('/tunnel', { headers: { accept: 'application/json' } }), 404, 'NOT_FOUND');
  assertProblem(await s.request('/tunnel', { headers: { accept: '*/*' } }), 404, 'NOT_FOUND');
  for (const path of ['/api/tunnel', '/auth/sign-in', '/internal/nope', '/oauth/nope', '/.well-known/nope']) {
    assertProblem(await s.request(path, { headers: BROWSER }), 404, 'NOT_FOUND', path);
  }
  assertProblem(await s.request('/tunnel', { method: 'POST', body: {}, headers: BROWSER }), 404, 'NOT_FOUND');
});

test('/status on the API host: a browser is sent to the zone status page; a JSON client gets the 404', async () => {
  const origin = zoneOrigin(s.deps.config);
  const page = await s.request('/status', { headers: BROWSER });
  assert.equal(page.status, 302);
  assert.equal(page.headers.location, `${origin}/status`);
  assert.equal(page.headers.vary, 'Accept');
  assert.equal(page.headers['cache-control'], 'no-store');
  const incidents = await s.request('/status/incidents?x=1', { headers: BROWSER });
  assert.equal(incidents.headers.location, `${origin}/status/incidents?x=1`);
  assertProblem(await s.request('/status', { headers: { accept: 'application/json' } }), 404, 'NOT_FOUND');
  assertProblem(await s.request('/status'), 404, 'NOT_FOUND');
});

/** A raw GET with a Host header of our choosing, the body as bytes. */
function fetchBytes(path: string, host: string, method = 'GET'): Promise<{ status: number; headers: Record<string, unknown>; body: Buffer }> {
  const url = new URL(s.url);
  return new Promise((resolve, reject) => {
    const req = httpRequest({ hostname: url.hostname, port: url.port, path, method, headers: { host, accept: 'image/avif,image/webp,image/*,*/*;q=0.8' } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
    });
    req.on('error', reject);
    req.end();
  });
}

test('/favicon.ico is the service icon on the API and zone hosts, cached; tunnel hosts keep their 404', async () => {
  const zone = s.deps.config.zone;
  for (const host of [new URL(s.url).host, zone]) {
    const r = await fetchBytes('/favicon.ico', host);
    assert.equal(r.status, 200, host);
    assert.equal(r.headers['content-type'], 'image/x-icon');
    assert.equal(r.headers['cache-control'], 'public, max-age=86400');
    assert.equal(Number(r.headers['content-length']), r.body.length);
    // An ICO directory (reserved 0, type 1) of two images, 16 and 32 px, each a PNG.
    assert.deepEqual([r.body.readUInt16LE(0), r.body.readUInt16LE(2), r.body.readUInt16LE(4)], [0, 1, 2]);
    assert.deepEqual([r.body[6], r.body[22]], [16, 32]);
    for (const entry of [6, 22]) {
      const offset = r.body.readUInt32LE(entry + 12);
      assert.equal(r.body.subarray(offset, offset + 8).toString('latin1'), '\x89PNG\r\n\x1a\n');
    }
    const head = await fetchBytes('/favicon.ico', host, 'HEAD');
    assert.equal(head.status, 200);
    assert.equal(head.body.length, 0);
  }
  assert.equal((await fetchBytes('/favicon.ico', `weather--ada.${zone}`)).status, 404);
});
