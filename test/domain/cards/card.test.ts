// The card documents as pure functions of the tunnel and the host (API.md sections 4 and 14).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { cardFor, type CardConfig, type CardTunnel } from '../../../src/domain/cards/card.js';

const tunnel: CardTunnel = { id: 't1', subdomain: 'files', slug: 'ada', customDomain: 'mcp.ada.example', discoverable: true, pinnedTools: ['read'], access: 'public' };
const config = (serviceName: string): CardConfig => ({ serviceName, zone: 'tunnels.example', cardSchemaUrl: 'https://schemas.example/card.json', baseUrl: 'https://api.tunnels.example' });

test('a long service name is cut to the v1 schema bound of 100 characters, in the v1 card only', () => {
  const long = `Ünïcode ${'L'.repeat(120)}`;
  const v1 = JSON.parse(cardFor(config(long), tunnel, 'files--ada.tunnels.example').v1) as { description: string };
  assert.equal([...v1.description].length, 100);
  assert.ok(v1.description.startsWith('An MCP server exposed via Ünïcode L'));
  assert.ok(v1.description.endsWith('…'));
  const seed = JSON.parse(cardFor(config(long), tunnel, 'files--ada.tunnels.example').json) as { description: string };
  assert.equal(seed.description, `An MCP server exposed via ${long}.`);
  const short = JSON.parse(cardFor(config('Acme'), tunnel, 'files--ada.tunnels.example').v1) as { description: string };
  assert.equal(short.description, 'An MCP server exposed via Acme.');
});

test('the catalog identifier keeps the tunnel label on a custom domain; the url follows the host', () => {
  const onDomain = JSON.parse(cardFor(config('Acme'), tunnel, 'mcp.ada.example').catalog) as { entries: { identifier: string; url: string }[] };
  assert.deepEqual(onDomain.entries, [
    { identifier: 'urn:air:tunnels.example:mcp:files--ada', type: 'application/mcp-server-card+json', url: 'https://mcp.ada.example/mcp/server-card' },
  ]);
});
