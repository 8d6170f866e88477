// Networks and masked addresses (API.md section 3), as pure functions: the /24 or /48 a login
// alert compares, and the address shown in the sessions list and on the account.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { maskIp, networkOf } from '../../src/domain/network.js';

test('an IPv4 address belongs to its /24 and is shown with the last octet hidden', () => {
  assert.equal(networkOf('203.0.113.77'), '203.0.113.0/24');
  assert.equal(maskIp('203.0.113.77'), '203.0.113.x');
  assert.equal(networkOf('10.0.0.1'), '10.0.0.0/24');
  assert.equal(maskIp('255.255.255.255'), '255.255.255.x');
});

test('two IPv4 addresses share a network exactly when their first three octets match', () => {
  assert.equal(networkOf('203.0.113.5'), networkOf('203.0.113.200'));
  assert.notEqual(networkOf('203.0.113.5'), networkOf('203.0.114.5'));
  assert.notEqual(networkOf('203.0.113.5'), networkOf('204.0.113.5'));
});

test('an IPv6 address belongs to its /48, written without leading zeros and in lower case', () => {
  assert.equal(networkOf('2001:db8:1:2::1'), '2001:db8:1::/48');
  assert.equal(maskIp('2001:db8:1:2::1'), '2001:db8:1::x');
  assert.equal(networkOf('2001:0db8:0001:0002:0000:0000:0000:0001'), '2001:db8:1::/48');
  assert.equal(networkOf('2001:DB8:A:B:C:D:E:F'), '2001:db8:a::/48');
  assert.equal(maskIp('2001:DB8:A:B:C:D:E:F'), '2001:db8:a::x');
});

test('IPv6 addresses of one /48 share a network; the next /48 is another', () => {
  assert.equal(networkOf('2001:db8:1:2::1'), networkOf('2001:db8:1:ffff::5'));
  assert.equal(networkOf('2001:db8:1::'), networkOf('2001:db8:1:2:3:4:5:6'));
  assert.notEqual(networkOf('2001:db8:1::1'), networkOf('2001:db8:2::1'));
});

test('"::" is expanded wherever it stands, including at either end', () => {
  assert.equal(networkOf('2001:db8::'), '2001:db8:0::/48');
  assert.equal(networkOf('2001::1'), '2001:0:0::/48');
  assert.equal(networkOf('::1'), '0:0:0::/48');
  assert.equal(maskIp('::1'), '0:0:0::x');
});

test('a zone index does not change the network', () => {
  assert.equal(networkOf('fe80::1%eth0'), networkOf('fe80::1'));
  assert.equal(networkOf('fe80::1%eth0'), 'fe80:0:0::/48');
});

test('an IPv4-mapped IPv6 address is treated as the IPv4 address it carries', () => {
  assert.equal(networkOf('::ffff:198.51.100.7'), '198.51.100.0/24');
  assert.equal(maskIp('::ffff:198.51.100.7'), '198.51.100.x');
  assert.equal(networkOf('::FFFF:198.51.100.7'), '198.51.100.0/24');
  assert.equal(networkOf('::ffff:198.51.100.7'), networkOf('198.51.100.250'), 'the same network as the plain IPv4 form');
});

test('anything that is not an IP address has no network and is masked as "unknown"', () => {
  for (const garbage of ['', 'unknown', 'not an ip', '999.1.1.1', '1.2.3', '1.2.3.4.5', '203.0.113.5:443', '2001:db8::1::2', '1:2:3:4:5:6:7:8:9', 'gggg::1', '::ffff:999.1.1.1', ' 203.0.113.5']) {
    assert.equal(networkOf(garbage), null, JSON.stringify(garbage));
    assert.equal(maskIp(garbage), 'unknown', JSON.stringify(garbage));
  }
});
