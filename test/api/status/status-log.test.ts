// The log of the status roll-up: one line when what is wrong changes, one when it clears, none
// per refresh (an unconfigured broker used to warn every 10 s for as long as the server ran).
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { test } from 'node:test';
import { ROLLUP_TTL_MS } from '../../../src/domain/status/service.js';
import { useStatusFixture } from '../../support/status.js';

const lines: { level: number; msg: string; was?: string; components?: { name: string; detail: string }[] }[] = [];
const logStream = new Writable({
  write(chunk: Buffer, _enc, done) {
    for (const line of chunk.toString('utf8').split('\n')) if (line) lines.push(JSON.parse(line));
    done();
  },
});
const f = useStatusFixture({ logLevel: 'info', logStream });
const said = (msg: string) => lines.filter((l) => l.msg === msg);

/** A refresh in a new window, with the upstreams as they are set. */
async function refreshed(expected: number): Promise<void> {
  f.s.clock.advance(ROLLUP_TTL_MS + 1);
  assert.equal((await f.status()).status, expected);
}

test('a degraded component is logged once when it starts, again only when what is wrong changes, and once when it clears', async () => {
  await f.reset();
  await refreshed(200);
  assert.equal(said('status roll-up degraded').length, 0);

  await f.broker.set(503);
  for (let i = 0; i < 3; i++) await refreshed(503);
  const degraded = said('status roll-up degraded');
  assert.equal(degraded.length, 1, 'three refreshes with the same fault, one line');
  assert.equal(degraded[0]!.level, 40);
  assert.deepEqual(degraded[0]!.components?.map((c) => [c.name, c.detail]), [['broker', 'status 503']]);

  await f.api.set(503);
  await refreshed(503);
  await refreshed(503);
  assert.equal(said('status roll-up degraded').length, 2, 'a second fault is news, once');

  await f.broker.set(200);
  await f.api.set(200);
  await refreshed(200);
  await refreshed(200);
  const recovered = said('status roll-up ok again');
  assert.equal(recovered.length, 1);
  assert.equal(recovered[0]!.level, 30);
  assert.equal(recovered[0]!.was, 'broker: status 503; api: status 503');
  assert.equal(said('status roll-up degraded').length, 2);
});
