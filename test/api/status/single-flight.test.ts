// Single flight: a cold cache under concurrent requests probes each upstream once, on one
// instance and, through the shared cache (Redis), across instances.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { needs } from '../../support/backends.js';
import { startTestServer, type TestServer } from '../../support/server.js';
import { statusCount, ZONE, useStatusFixture } from '../../support/status.js';

const f = useStatusFixture();

test('concurrent requests on a cold cache: one probe per component, one counted refresh', async () => {
  await f.reset();
  const replies = await Promise.all(Array.from({ length: 25 }, () => f.status()));
  assert.ok(replies.every((r) => r.status === 200));
  assert.equal(new Set(replies.map((r) => r.json.checked_at)).size, 1, 'all got the same roll-up');
  assert.equal(f.broker.hits, 1);
  assert.equal(f.api.hits, 1);
  assert.equal(await statusCount(f.s, 'edge', true), 1);
});

test('concurrent requests while a slow probe is in flight still share that one probe', async () => {
  await f.reset();
  await f.broker.set('hang');
  const replies = await Promise.all(Array.from({ length: 10 }, () => f.status()));
  assert.ok(replies.every((r) => r.status === 503 && r.json.components[0].detail === 'timeout after 2000 ms'));
  assert.equal(f.broker.hits, 1);
  assert.equal(f.api.hits, 1);
});

test(
  'two instances sharing Redis: concurrent cold requests to both probe once',
  needs(['REDIS_URL'], 'two instances sharing the roll-up through Redis'),
  async () => {
    await f.reset();
    let second: TestServer | null = null;
    try {
      second = await startTestServer({
        env: { ZONE, BROKER_HEALTH_URL: f.broker.url, API_HEALTH_URL: f.api.url },
      });
      second.clock.advance(f.s.clock.now().getTime() - second.clock.now().getTime());
      const other = second;
      const countedBefore = await statusCount(f.s, 'edge', true);
      const replies = await Promise.all(
        Array.from({ length: 10 }, (_, i) =>
          i % 2 === 0 ? f.status() : other.request('/status', { host: ZONE }),
        ),
      );
      assert.ok(replies.every((r) => r.status === 200));
      assert.equal(new Set(replies.map((r) => r.json.checked_at)).size, 1, 'both instances answer the same roll-up');
      assert.equal(f.broker.hits, 1, 'one broker probe across both instances');
      assert.equal(f.api.hits, 1, 'one api probe across both instances');
      const counted = (await statusCount(f.s, 'edge', true)) - countedBefore + (await statusCount(other, 'edge', true));
      assert.equal(counted, 1, 'only the instance that probed counted the refresh');
    } finally {
      await second?.close();
    }
  },
);
