// Client ID metadata documents (API.md section 13): a client_id that is an https URL whose JSON
// names the same client_id, its name and redirect URIs. Fetched within 5 s and 5 KiB, never from
// private, loopback or link-local addresses unless OAUTH_ALLOW_PRIVATE_CLIENT_URLS=true (the
// document server here is on loopback, with the test CA).
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createServer, type Server as HttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { after, before, test } from 'node:test';
import { fromIp, randomIp, signedIn } from '../../support/accounts.js';
import { startTestServer, useServer } from '../../support/server.js';
import { createTunnel } from '../../support/tunnels.js';
import { api, authorize, form, pkce, REDIRECT } from '../../support/oauth.js';

const TLS = new URL('../../fixtures/tls/', import.meta.url);
const CA_FILE = fileURLToPath(new URL('localhost-cert.pem', TLS));
const ZONE = 'tunnels.example.test';
const s = useServer(() => ({ env: { ZONE, TRUST_PROXY: 'true', OAUTH_ALLOW_PRIVATE_CLIENT_URLS: 'true', OAUTH_CLIENT_URLS_CA_FILE: CA_FILE } }));

let docs: HttpsServer;
let port = 0;
const fetched: string[] = [];
const documents = new Map<string, unknown>();

before(async () => {
  docs = createServer({ cert: readFileSync(CA_FILE), key: readFileSync(new URL('localhost-key.pem', TLS)) }, (req, res) => {
    fetched.push(req.url ?? '');
    const doc = documents.get(req.url ?? '');
    if (doc === undefined) return res.writeHead(404).end();
    res.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'max-age=60' });
    res.end(typeof doc === 'string' ? doc : JSON.stringify(doc));
  });
  await new Promise<void>((r) => docs.listen(0, '127.0.0.1', r));
  port = (docs.address() as AddressInfo).port;
});
after(() => new Promise((r) => docs.close(r)));

const clientUrl = (path: string) => `https://localhost:${port}${path}`;

test('a metadata-document client runs the whole flow: its name on the consent page, a token at the end', async () => {
  const headers = fromIp(randomIp());
  const owner = { ...(await signedIn(s, { headers, verified: true })), headers };
  const tunnel = await createTunnel(s, owner, { access: 'oauth' });
  const resource = `https://${tunnel.host}/mcp`;
  const clientId = clientUrl('/apps/assistant.json');
  documents.set('/apps/assistant.json', { client_id: clientId, client_name: 'Assistant by URL', redirect_uris: [REDIRECT], token_endpoint_auth_method: 'none', grant_types: ['authorization_code', 'refresh_token'], response_types: ['code'] });
  const { verifier, challenge } = pkce();
  const r = await authorize(s, clientId, resource, challenge);
  assert.ok(r.status === 302 || r.status === 303, `${r.status} ${r.text}`);
  const id = new URL(String(r.headers.location)).searchParams.get('request')!;
  assert.ok(id, String(r.headers.location));
  assert.ok(fetched.includes('/apps/assistant.json'), 'the document was fetched');
  const seen = await api(owner, `/api/oauth/requests/${id}`, 'GET', s);
  assert.equal(seen.status, 200, seen.text);
  assert.equal(seen.json.client_id, clientId);
  assert.equal(seen.json.client_name, 'Assistant by URL');
  const approved = await api(owner, `/api/oauth/requests/${id}/approve`, 'POST', s);
  assert.equal(approved.status, 200, approved.text);
  const code = new URL(approved.json.redirect_to).searchParams.get('code')!;
  const tokens = await form(s, '/oauth/token', { grant_type: 'authorization_code', code, code_verifier: verifier, redirect_uri: REDIRECT, client_id: clientId, resource });
  assert.equal(tokens.status, 200, tokens.text);
});

test('a document that names another client_id, or is over 5 KiB, is refused without a redirect', async () => {
  const headers = fromIp(randomIp());
  const owner = { ...(await signedIn(s, { headers, verified: true })), headers };
  const tunnel = await createTunnel(s, owner, { access: 'oauth' });
  const resource = `https://${tunnel.host}/mcp`;
  const { challenge } = pkce();
  documents.set('/liar.json', { client_id: clientUrl('/someone-else.json'), client_name: 'Liar', redirect_uris: [REDIRECT], token_endpoint_auth_method: 'none' });
  const liar = await authorize(s, clientUrl('/liar.json'), resource, challenge);
  assert.equal(liar.status, 400, liar.text);
  assert.equal(liar.headers.location, undefined);
  documents.set('/big.json', JSON.stringify({ client_id: clientUrl('/big.json'), client_name: 'x'.repeat(6000), redirect_uris: [REDIRECT], token_endpoint_auth_method: 'none' }));
  const big = await authorize(s, clientUrl('/big.json'), resource, challenge);
  assert.equal(big.status, 400, big.text);
});

test('without OAUTH_ALLOW_PRIVATE_CLIENT_URLS a loopback document is never fetched', async () => {
  const strict = await startTestServer({ smtp: s.smtp, env: { ZONE, OAUTH_CLIENT_URLS_CA_FILE: CA_FILE } });
  try {
    const headers = fromIp(randomIp());
    const owner = { ...(await signedIn(strict, { headers, verified: true })), headers };
    const tunnel = await createTunnel(strict, owner, { access: 'oauth' });
    documents.set('/private.json', { client_id: clientUrl('/private.json'), client_name: 'Private', redirect_uris: [REDIRECT], token_endpoint_auth_method: 'none' });
    const before = fetched.length;
    const r = await authorize(strict, clientUrl('/private.json'), `https://${tunnel.host}/mcp`, pkce().challenge);
    assert.equal(r.status, 400, r.text);
    assert.equal(fetched.length, before, 'no request reached the document server');
  } finally {
    await strict.close();
  }
});
