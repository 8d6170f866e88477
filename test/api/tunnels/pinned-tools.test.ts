import assert from 'node:assert/strict';
import { test } from 'node:test';
import { useSignedIn } from '../../support/accounts.js';
import { useServer } from '../../support/server.js';
import { INTERNAL_TOKEN, card, createTunnel, discoverableTunnel, pinTools } from '../../support/tunnels.js';

const s = useServer({ env: { INTERNAL_API_TOKEN: INTERNAL_TOKEN } });
const owner = useSignedIn(s);

const toolsList = {
  tools: [
    { name: 'search', description: 'Searches things', inputSchema: { type: 'object', properties: { q: { type: 'string' } } } },
    { name: 'fetch', description: 'Fetches', inputSchema: { type: 'object' } },
    { name: 'search', description: 'a duplicate' },
    { name: 'summarize', inputSchema: { type: 'object' }, annotations: { readOnlyHint: true } },
  ],
};

test('PUT /internal/tunnels/<id>/tools pins the names in order, duplicates dropped, nothing else kept', async () => {
  const t = await createTunnel(s, owner);
  const r = await pinTools(s, t.id, toolsList);
  assert.equal(r.status, 204);
  assert.equal(r.text, '');
  const got = await s.request(`/api/tunnels/${t.id}`, { bearer: owner.token });
  assert.deepEqual(got.json.pinned_tools, ['search', 'fetch', 'summarize']);
  const row = await s.deps.db.tunnel.findUniqueOrThrow({ where: { id: t.id } });
  assert.deepEqual(row.pinnedTools, ['search', 'fetch', 'summarize']);
});

test('a new tools/list replaces the pinned names; an empty one empties them', async () => {
  const t = await createTunnel(s, owner);
  await pinTools(s, t.id, toolsList);
  assert.equal((await pinTools(s, t.id, { tools: [{ name: 'only' }] })).status, 204);
  assert.deepEqual((await s.request(`/api/tunnels/${t.id}`, { bearer: owner.token })).json.pinned_tools, ['only']);
  assert.equal((await pinTools(s, t.id, { tools: [] })).status, 204);
  assert.deepEqual((await s.request(`/api/tunnels/${t.id}`, { bearer: owner.token })).json.pinned_tools, []);
});

test('the card lists the pinned names only: no description, no schema, no annotations', async () => {
  const t = await discoverableTunnel(s, owner);
  await pinTools(s, t.id, toolsList);
  const r = await card(s, t.host);
  assert.equal(r.status, 200);
  assert.deepEqual(r.json.tools, [{ name: 'search' }, { name: 'fetch' }, { name: 'summarize' }]);
  assert.doesNotMatch(r.text, /Searches things|inputSchema|readOnlyHint/);
});

test('the internal route needs the INTERNAL_API_TOKEN bearer: none or a wrong one is 401, and nothing is pinned', async () => {
  const t = await createTunnel(s, owner);
  const none = await s.request(`/internal/tunnels/${t.id}/tools`, { method: 'PUT', body: toolsList });
  assert.equal(none.status, 401);
  const wrong = await pinTools(s, t.id, toolsList, 'not-the-token');
  assert.equal(wrong.status, 401);
  const session = await pinTools(s, t.id, toolsList, owner.token);
  assert.equal(session.status, 401, 'a user session is not the internal token');
  const row = await s.deps.db.tunnel.findUniqueOrThrow({ where: { id: t.id } });
  assert.deepEqual(row.pinnedTools, []);
});

test('an unknown tunnel is 404; a body that is not a tools/list result is 400', async () => {
  const unknown = await pinTools(s, '00000000-0000-0000-0000-000000000000', toolsList);
  assert.equal(unknown.status, 404);
  const t = await createTunnel(s, owner);
  for (const bad of [{}, { tools: 'x' }, { tools: [{ description: 'no name' }] }, { tools: [{ name: 42 }] }, { tools: [{ name: '' }] }, [1, 2]]) {
    const r = await pinTools(s, t.id, bad);
    assert.equal(r.status, 400, `${JSON.stringify(bad)}: ${r.text}`);
  }
  const notJson = await pinTools(s, t.id, '{not json');
  assert.equal(notJson.status, 400);
});
