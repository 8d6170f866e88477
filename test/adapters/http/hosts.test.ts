// Host routing (API.md section 2) as pure functions: which kind of host a request is for, the
// host name as the router compares it, and the path without its query.
import assert from 'node:assert/strict';
import { IncomingMessage } from 'node:http';
import { Socket } from 'node:net';
import { test } from 'node:test';
import { classifyHost, hostnameOf, isValidHostValue, pathOf, rawHeader, singleHostOf } from '../../../src/adapters/edge/hosts.js';

const ZONE = 'tunnels.example.test';

/** A request as node's parser leaves it: header names in their original case, in rawHeaders. */
function requestWith(rawHeaders: string[]): IncomingMessage {
  const req = new IncomingMessage(new Socket());
  req.rawHeaders = rawHeaders;
  return req;
}

test('the zone itself is the zone host', () => {
  assert.equal(classifyHost(ZONE, ZONE), 'zone');
});

test('one label under the zone is a tunnel host', () => {
  assert.equal(classifyHost(`tool--alice.${ZONE}`, ZONE), 'tunnel');
  assert.equal(classifyHost(`x.${ZONE}`, ZONE), 'tunnel');
});

test('everything else is the API host: deeper names, look-alikes, custom domains, the bare name', () => {
  for (const host of [
    `a.b.${ZONE}`,
    `.${ZONE}`,
    `x${ZONE}`,
    `${ZONE}.evil.example`,
    'example.test',
    'localhost',
    'mcp.example.org',
    '127.0.0.1',
    '[::1]',
    '',
  ]) {
    assert.equal(classifyHost(host, ZONE), 'api', host);
  }
});

test('hostnameOf drops the port and a trailing dot and lowercases', () => {
  assert.equal(hostnameOf(requestWith(['Host', `TOOL--Alice.${ZONE}.:8443`])), `tool--alice.${ZONE}`);
  assert.equal(hostnameOf(requestWith(['Host', 'localhost:4000'])), 'localhost');
  assert.equal(hostnameOf(requestWith(['Host', 'Example.ORG'])), 'example.org');
  assert.equal(hostnameOf(requestWith(['Host', '127.0.0.1:80'])), '127.0.0.1');
});

test('hostnameOf keeps an IPv6 literal whole, brackets included, without its port', () => {
  assert.equal(hostnameOf(requestWith(['Host', '[::1]:4000'])), '[::1]');
  assert.equal(hostnameOf(requestWith(['Host', '[2001:DB8::1]'])), '[2001:db8::1]');
});

test('hostnameOf is empty without a Host header, and finds the header whatever its case', () => {
  assert.equal(hostnameOf(requestWith([])), '');
  assert.equal(hostnameOf(requestWith(['Accept', '*/*'])), '');
  assert.equal(hostnameOf(requestWith(['HOST', 'a.example'])), 'a.example');
  assert.equal(hostnameOf(requestWith(['host', 'b.example'])), 'b.example');
});

test('rawHeader reads the first value of a header by its lower-case name, never a value as a name', () => {
  const req = requestWith(['X-Forwarded-For', '198.51.100.1', 'Host', 'h.example', 'x-forwarded-for', '203.0.113.9', 'host', 'x']);
  assert.equal(rawHeader(req, 'x-forwarded-for'), '198.51.100.1');
  assert.equal(rawHeader(req, 'host'), 'h.example');
  assert.equal(rawHeader(req, 'h.example'), undefined);
  assert.equal(rawHeader(req, 'accept'), undefined);
});

test('pathOf is the path before the first "?", and "/" for no URL', () => {
  assert.equal(pathOf('/status'), '/status');
  assert.equal(pathOf('/status?x=1'), '/status');
  assert.equal(pathOf('/.well-known/mcp/server-card.json?a?b'), '/.well-known/mcp/server-card.json');
  assert.equal(pathOf(undefined), '/');
});

test('singleHostOf takes exactly one Host line, in any case of its name; isValidHostValue takes host[:port] only', () => {
  const valid = ['example.com', 'Example.COM:8080', 'a_b-c.d', '[::1]', '[::1]:443', '[2001:db8::7]', '127.0.0.1:80', 'host:', ''];
  for (const value of valid) {
    assert.equal(singleHostOf(requestWith(['Host', value])), value, value);
    assert.equal(isValidHostValue(value), true, value);
  }
  for (const name of ['host', 'HOST', 'hOsT']) assert.equal(singleHostOf(requestWith([name, 'a.test'])), 'a.test', name);
  const invalid = [
    'a.test:99999x',
    'a.test:123456',
    'a:1:2',
    'user@a.test',
    'a.test/path',
    'a test',
    'a.test\t',
    '[::1',
    '::1]',
    '[::1]x',
    '[[::1]]',
    '[::1]:80:1',
    'é.test',
    'a'.repeat(263),
  ];
  for (const value of invalid) assert.equal(isValidHostValue(value), false, value);
  assert.equal(singleHostOf(requestWith(['Host', 'a.test', 'host', 'a.test'])), null, 'two Host lines');
  assert.equal(singleHostOf(requestWith(['Hosts', 'a.test'])), null, 'no Host line in HTTP/1.1');
  const http10 = requestWith([]);
  http10.httpVersionMajor = 1;
  http10.httpVersionMinor = 0;
  assert.equal(singleHostOf(http10), '', 'HTTP/1.0 without Host');
});
