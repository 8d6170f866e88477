// The README's MCP-client walk (curl, sed and openssl only) runs as written against a server:
// metadata on the tunnel host, registration, authorize with PKCE, consent, code exchange and the
// edge's introspection answering active.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { test } from 'node:test';
import { signedIn } from '../../support/accounts.js';
import { useServer } from '../../support/server.js';
import { readmeBlock } from '../../support/readme.js';
import { createTunnel } from '../../support/tunnels.js';

const INTERNAL = 'internal-test-token-0123456789abcdef';
const s = useServer(() => ({ env: { INTERNAL_API_TOKEN: INTERNAL } }));

test('the README walk runs the whole client side against an oauth tunnel, ending in an active introspection', async () => {
  const person = await signedIn(s, { verified: true });
  const tunnel = await createTunnel(s, person, { access: 'oauth' });
  const env = { ...process.env, API: s.url, TUNNEL_HOST: tunnel.host, SESSION: person.token, INTERNAL_API_TOKEN: INTERNAL };
  const child = spawn('sh', ['-c', readmeBlock('/oauth/register')], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout.on('data', (c: Buffer) => (out += c.toString()));
  child.stderr.on('data', (c: Buffer) => (err += c.toString()));
  const code = await new Promise<number>((resolve) => child.on('close', (c) => resolve(c ?? -1)));
  assert.equal(code, 0, `${out}\n${err}`);
  assert.match(out, new RegExp(`resource https://${tunnel.host}/mcp, authorization server ${s.deps.config.baseUrl}`));
  assert.match(out, new RegExp(`consent page: ${s.deps.config.appUrl}/oauth/consent\\?request=`));
  const introspection = JSON.parse(out.slice(out.lastIndexOf('{'))) as Record<string, unknown>;
  assert.equal(introspection.active, true, out);
  assert.equal(introspection.sub, person.id);
  assert.equal(introspection.aud, `https://${tunnel.host}/mcp`);
});
