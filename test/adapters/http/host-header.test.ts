// RFC 9112 §3.2: a request with more than one Host header, or an invalid one, answers 400 and
// is never routed by the first of them (a card host must not be reachable by smuggling a second
// Host past a proxy that looked at the other).
import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { test } from 'node:test';
import { useServer } from '../../support/server.js';

const s = useServer();

/** Sends raw request bytes and resolves the status line's code. */
function rawStatus(head: string): Promise<number> {
  const { port } = new URL(s.url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), '127.0.0.1', () => socket.write(head));
    let data = '';
    socket.on('data', (d: Buffer) => {
      data += d.toString('latin1');
      const m = /^HTTP\/1\.1 (\d{3})/.exec(data);
      if (m) {
        resolve(Number(m[1]));
        socket.destroy();
      }
    });
    socket.on('error', reject);
    socket.setTimeout(5000, () => reject(new Error(`no answer: ${JSON.stringify(data)}`)));
  });
}

const get = (...headers: string[]) => `GET /status HTTP/1.1\r\n${headers.map((h) => `${h}\r\n`).join('')}Connection: close\r\n\r\n`;

test('two Host headers answer 400, whichever comes first', async () => {
  assert.equal(await rawStatus(get('Host: tunnels.localhost', 'Host: localhost')), 400);
  assert.equal(await rawStatus(get('Host: localhost', 'host: tunnels.localhost')), 400);
});

test('an invalid Host value answers 400; valid ones are routed', async () => {
  for (const bad of ['Host: tunnels.localhost/x', 'Host: user@tunnels.localhost', 'Host: tunnels.localhost:80a', 'Host: [::1', 'Host: a b']) {
    assert.equal(await rawStatus(get(bad)), 400, bad);
  }
  assert.equal(await rawStatus(`GET /status HTTP/1.1\r\nConnection: close\r\n\r\n`), 400, 'HTTP/1.1 without Host');
  for (const good of ['Host: tunnels.localhost', 'Host: TUNNELS.localhost.:4000', 'Host: tunnels.localhost:4000']) {
    assert.notEqual(await rawStatus(get(good)), 400, good);
  }
  const r = await s.request('/healthz', { host: '[::1]:4000' });
  assert.equal(r.status, 200);
  const problem = await s.request('/healthz', { headers: { host: 'bad host' } });
  assert.equal(problem.status, 400);
  assert.match(String(problem.headers['content-type']), /^application\/problem\+json/);
  assert.equal(problem.json.code, 'BAD_REQUEST');
});

test('the router remembers only a Host value that passed: a repeat routes the same, a duplicate or a bad one never rides on it', async () => {
  const zone = 'Host: tunnels.localhost';
  const statusOnZone = await rawStatus(get(zone));
  assert.notEqual(statusOnZone, 400);
  // The same value again (remembered), then twice in one request: still 400.
  assert.equal(await rawStatus(get(zone)), statusOnZone);
  assert.equal(await rawStatus(get(zone, zone)), 400, 'the remembered value twice');
  assert.equal(await rawStatus(get('Host: tunnels.localhost/x')), 400);
  assert.equal(await rawStatus(get(zone)), statusOnZone, 'a refused value is not remembered');
  // HTTP/1.0 without Host is the API ('' is where the router starts), and a missing Host in
  // HTTP/1.1 right after it is still refused.
  assert.equal(await rawStatus('GET /status HTTP/1.0\r\n\r\n'), 404, 'HTTP/1.0 without Host: the API has no /status');
  assert.equal(await rawStatus('GET /status HTTP/1.1\r\nConnection: close\r\n\r\n'), 400);
  // Another spelling of the same host routes to the same place (remembered values are exact strings).
  assert.equal(await rawStatus(get('Host: TUNNELS.LOCALHOST')), statusOnZone);
});
