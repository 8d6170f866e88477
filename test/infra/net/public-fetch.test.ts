// The fetch of user-supplied URLs (webhooks, client ID metadata documents): only public
// addresses, in every form they can be written or resolved to; the connection goes to the
// address that was checked (no second resolution: DNS rebinding cannot slip in); redirects are
// not followed; time and size are bounded. Servers here are https on loopback with the test CA,
// so the tests that connect allow private addresses explicitly; the refusals never connect.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { after, before, test } from 'node:test';
import { classifyAddress, isPublicAddress } from '../../../src/infra/net/public-address.js';
import { checkedTarget, FetchFailed, publicFetch, RefusedUrl } from '../../../src/infra/net/public-fetch.js';

const TLS = new URL('../../fixtures/tls/', import.meta.url);
const cert = readFileSync(new URL('localhost-cert.pem', TLS));
const key = readFileSync(new URL('localhost-key.pem', TLS));

let server: Server;
let port = 0;
const seen: string[] = [];

before(async () => {
  server = createServer({ cert, key }, (req, res) => {
    seen.push(`${req.method} ${req.url} host=${req.headers.host}`);
    if (req.url === '/big') {
      res.writeHead(200, { 'content-type': 'application/octet-stream' });
      const chunk = Buffer.alloc(16 * 1024, 120);
      for (let i = 0; i < 64; i++) res.write(chunk); // 1 MiB
      return res.end();
    }
    if (req.url === '/hang') return; // never answers
    if (req.url === '/redirect') {
      res.writeHead(302, { location: `https://localhost:${port}/secret` });
      return res.end();
    }
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ path: req.url, method: req.method, body }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});

after(async () => {
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
});

const local = { timeoutMs: 2000, maxBytes: 64 * 1024, allowPrivate: true, ca: cert };

test('public addresses pass; private, loopback, link-local, CGNAT, metadata, multicast, documentation and every IPv6 form of them do not', () => {
  for (const ip of ['8.8.8.8', '1.1.1.1', '93.184.216.34', '2606:4700:4700::1111', '2a00:1450:4001:82b::200e', '::ffff:8.8.8.8']) {
    assert.equal(isPublicAddress(ip), true, ip);
  }
  const refused: [string, string][] = [
    ['10.0.0.1', 'private'],
    ['172.16.5.4', 'private'],
    ['172.31.255.255', 'private'],
    ['192.168.1.1', 'private'],
    ['127.0.0.1', 'loopback'],
    ['127.255.0.9', 'loopback'],
    ['0.0.0.0', 'unspecified'],
    ['169.254.169.254', 'linkLocal'], // cloud metadata
    ['169.254.0.1', 'linkLocal'],
    ['100.64.0.1', 'carrierGradeNat'],
    ['100.127.255.254', 'carrierGradeNat'],
    ['224.0.0.1', 'multicast'],
    ['255.255.255.255', 'broadcast'],
    ['192.0.2.10', 'reserved'],
    ['198.51.100.7', 'reserved'],
    ['203.0.113.5', 'reserved'],
    ['::1', 'loopback'],
    ['::', 'unspecified'],
    ['fe80::1', 'linkLocal'],
    ['fc00::1', 'uniqueLocal'],
    ['fd12:3456::1', 'uniqueLocal'],
    ['ff02::1', 'multicast'],
    ['::ffff:127.0.0.1', 'loopback'], // IPv4-mapped
    ['::ffff:10.1.2.3', 'private'],
    ['::ffff:169.254.169.254', 'linkLocal'],
    ['64:ff9b::a00:1', 'rfc6052'], // NAT64 of 10.0.0.1
    ['2002:a00:1::1', '6to4'], // 6to4 of 10.0.0.1
    ['2001:db8::1', 'reserved'],
    ['::7f00:1', 'notGlobalUnicast'], // IPv4-compatible ::127.0.0.1
    ['fd00:ec2::254', 'uniqueLocal'], // AWS metadata over IPv6
    ['not-an-ip', 'invalid'],
  ];
  for (const [ip, range] of refused) assert.deepEqual(classifyAddress(ip), { public: false, range }, ip);
});

test('URLs: https only, no credentials, and no non-public host in any spelling, before any connection', async () => {
  const cases: [string, string][] = [
    ['http://example.com/hook', 'scheme'],
    ['ftp://example.com/', 'scheme'],
    ['not a url', 'scheme'],
    ['https://user:pw@example.com/', 'credentials'],
    ['https://127.0.0.1/', 'address'],
    ['https://[::1]/', 'address'],
    ['https://[::ffff:7f00:1]/', 'address'],
    ['https://169.254.169.254/latest/meta-data/', 'address'],
    ['https://100.100.100.200/', 'address'],
    ['https://2130706433/', 'address'], // 127.0.0.1 as one number (the URL parser normalises it)
    ['https://0x7f.1/', 'address'],
    ['https://localhost/', 'address'], // resolves to loopback
  ];
  for (const [url, reason] of cases) {
    await assert.rejects(publicFetch(url, { timeoutMs: 2000, maxBytes: 1024 }), (err: unknown) => err instanceof RefusedUrl && err.reason === reason, url);
  }
  assert.equal(seen.length, 0, 'nothing was fetched');
});

test('a name is refused when any of its addresses is not public; an unresolvable one too', async () => {
  const resolve = async (name: string) =>
    name === 'mixed.example'
      ? [
          { address: '93.184.216.34', family: 4 },
          { address: '10.0.0.7', family: 4 },
        ]
      : name === 'inside.example'
        ? [{ address: 'fd00::5', family: 6 }]
        : [{ address: '93.184.216.34', family: 4 }];
  await assert.rejects(checkedTarget('https://mixed.example/x', { resolve }), (e: unknown) => e instanceof RefusedUrl && e.reason === 'address' && /10\.0\.0\.7|private/.test(e.message));
  await assert.rejects(checkedTarget('https://inside.example/x', { resolve }), (e: unknown) => e instanceof RefusedUrl && e.reason === 'address');
  assert.equal((await checkedTarget('https://public.example/x', { resolve })).address, '93.184.216.34');
  await assert.rejects(checkedTarget('https://nowhere.invalid/'), (e: unknown) => e instanceof RefusedUrl && e.reason === 'resolution');
});

test('the connection goes to the address that was checked: a rebinding answer is never asked for', async () => {
  let calls = 0;
  // First answer: loopback (allowed here); a second resolution would get a different address.
  const resolve = async () => (++calls === 1 ? [{ address: '127.0.0.1', family: 4 }] : [{ address: '10.9.9.9', family: 4 }]);
  const r = await publicFetch(`https://hooks.example.test:${port}/hello?x=1`, { ...local, resolve });
  assert.equal(r.status, 200);
  assert.equal(r.address, '127.0.0.1');
  assert.equal(calls, 1, 'resolved once');
  assert.deepEqual(JSON.parse(r.body.toString()), { path: '/hello?x=1', method: 'GET', body: '' });
  assert.ok(seen.includes(`GET /hello?x=1 host=hooks.example.test:${port}`), 'the Host header and SNI name the URL’s host');
});

test('POST with a body; redirects are answered, not followed', async () => {
  const posted = await publicFetch(`https://localhost:${port}/in`, { ...local, method: 'POST', body: '{"a":1}', headers: { 'content-type': 'application/json' } });
  assert.deepEqual(JSON.parse(posted.body.toString()), { path: '/in', method: 'POST', body: '{"a":1}' });
  const before = seen.length;
  const redirected = await publicFetch(`https://localhost:${port}/redirect`, local);
  assert.equal(redirected.status, 302);
  assert.equal(seen.length, before + 1, 'the Location was not fetched');
  assert.ok(!seen.some((s) => s.includes('/secret')));
});

test('bounds: the body is cut at maxBytes; a server that never answers is given up at the deadline', async () => {
  const big = await publicFetch(`https://localhost:${port}/big`, { ...local, maxBytes: 64 * 1024 });
  assert.equal(big.status, 200);
  assert.equal(big.body.length, 64 * 1024);
  assert.equal(big.truncated, true);
  const started = Date.now();
  await assert.rejects(publicFetch(`https://localhost:${port}/hang`, { ...local, timeoutMs: 300 }), (e: unknown) => e instanceof FetchFailed && /300 ms/.test(e.message));
  const took = Date.now() - started;
  assert.ok(took >= 290 && took < 2000, `gave up after ${took} ms`);
});

test('TLS is verified: a certificate the fetch does not trust fails', async () => {
  await assert.rejects(publicFetch(`https://localhost:${port}/`, { timeoutMs: 2000, maxBytes: 1024, allowPrivate: true }), (e: unknown) => e instanceof FetchFailed);
});
