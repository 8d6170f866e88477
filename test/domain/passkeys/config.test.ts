// WEBAUTHN_RP_ID and WEBAUTHN_ORIGINS (API.md section 1): defaults from APP_URL (so the default
// `npm start` works on http://localhost), overrides, and values that would make every ceremony
// fail stop start-up with one line naming the variable.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ConfigError, loadConfig } from '../../../src/infra/config.js';

test('defaults: rp id is the host name of APP_URL, the origin is its origin (APP_URL defaults to BASE_URL)', () => {
  assert.deepEqual(loadConfig({}).webauthn, { rpId: 'localhost', origins: ['http://localhost:4000'] });
  assert.deepEqual(loadConfig({ PORT: '8080' }).webauthn, { rpId: 'localhost', origins: ['http://localhost:8080'] });
  assert.deepEqual(loadConfig({ APP_URL: 'https://App.Example.com/dashboard/' }).webauthn, {
    rpId: 'app.example.com',
    origins: ['https://app.example.com'],
  });
});

test('overrides: a parent domain as rp id and several origins under it', () => {
  const c = loadConfig({
    APP_URL: 'https://app.example.com',
    WEBAUTHN_RP_ID: 'example.com',
    WEBAUTHN_ORIGINS: 'https://app.example.com, https://example.com,https://admin.example.com:8443',
  });
  assert.deepEqual(c.webauthn, { rpId: 'example.com', origins: ['https://app.example.com', 'https://example.com', 'https://admin.example.com:8443'] });
});

test('bad values stop start-up naming the variable', () => {
  const bad: [Record<string, string>, RegExp][] = [
    [{ WEBAUTHN_RP_ID: 'https://example.com' }, /^WEBAUTHN_RP_ID must be a host name/],
    [{ WEBAUTHN_RP_ID: 'example.com:443' }, /^WEBAUTHN_RP_ID must be a host name/],
    [{ WEBAUTHN_ORIGINS: 'not a url' }, /^WEBAUTHN_ORIGINS: not a url is not an origin/],
    [{ WEBAUTHN_ORIGINS: 'https://app.example.com/path' }, /^WEBAUTHN_ORIGINS: .* is not an origin/],
    [{ WEBAUTHN_ORIGINS: 'ftp://app.example.com' }, /^WEBAUTHN_ORIGINS: .* is not an origin/],
    [{ APP_URL: 'https://app.example.com', WEBAUTHN_RP_ID: 'other.com' }, /^WEBAUTHN_RP_ID other\.com must be the host of https:\/\/app\.example\.com or a parent domain/],
    [{ WEBAUTHN_RP_ID: 'example.com', WEBAUTHN_ORIGINS: 'https://badexample.com' }, /^WEBAUTHN_RP_ID example\.com must be the host of https:\/\/badexample\.com/],
  ];
  for (const [env, message] of bad) {
    assert.throws(() => loadConfig(env), (err: unknown) => err instanceof ConfigError && message.test(err.message), JSON.stringify(env));
  }
});
