// The README's webhook receiver, run as written: it verifies a real delivery with the
// standardwebhooks package and prints the event, and refuses a forged one.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { rmSync, writeFileSync } from 'node:fs';
import { test } from 'node:test';
import { fromIp, randomIp, signedIn } from '../../support/accounts.js';
import { freePort } from '../../support/programs.js';
import { useServer } from '../../support/server.js';
import { createTunnel } from '../../support/tunnels.js';
import { request } from '../../support/http.js';
import { readmeBlock } from '../../support/readme.js';

const s = useServer({ env: { WEBHOOK_ALLOW_PRIVATE: 'true', TRUST_PROXY: 'true' } });

const readmeJs = (containing: string) => readmeBlock(containing, 'js');

test("the README's receiver verifies a delivery and refuses a forged one", async () => {
  const a = await signedIn(s, { headers: fromIp(randomIp()), verified: true });
  const port = await freePort();
  const created = await s.request('/api/webhooks', { method: 'POST', bearer: a.token, body: { url: `http://127.0.0.1:${port}/`, events: ['tunnel.created'] } });
  assert.equal(created.status, 201, created.text);
  // Beside package.json, so `standardwebhooks` resolves from this project's node_modules.
  const file = new URL(`../../../.readme-receiver-${process.pid}.mjs`, import.meta.url);
  writeFileSync(file, readmeJs('receiver.mjs'));
  const child = spawn(process.execPath, [file.pathname], { env: { ...process.env, WEBHOOK_SECRET: created.json.secret, PORT: String(port) }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.on('data', (c: Buffer) => (out += c.toString()));
  child.stderr.on('data', (c: Buffer) => (out += c.toString()));
  try {
    const up = Date.now() + 10_000;
    for (;;) {
      const probe = await request(`http://127.0.0.1:${port}`, '/', { method: 'POST', body: '{}' }).catch(() => null);
      if (probe) {
        assert.equal(probe.status, 400, 'an unsigned request is refused');
        break;
      }
      assert.ok(Date.now() < up, `receiver did not start:\n${out}`);
      await new Promise((r) => setTimeout(r, 50));
    }
    const t = await createTunnel(s, a);
    const deadline = Date.now() + 10_000;
    while (!out.includes('tunnel.created')) {
      assert.ok(Date.now() < deadline, `nothing printed:\n${out}`);
      await new Promise((r) => setTimeout(r, 50));
    }
    assert.match(out, /^msg_[0-9a-f]{32} tunnel\.created /m);
    assert.ok(out.includes(t.id));
    // The receiver prints before the worker records the attempt: wait for the record.
    let entry: { status_code?: number } | undefined;
    while (!entry) {
      const log = await s.request(`/api/webhooks/${created.json.id}/deliveries`, { bearer: a.token });
      entry = log.json.deliveries[0];
      if (!entry) {
        assert.ok(Date.now() < deadline, 'the attempt was never recorded');
        await new Promise((r) => setTimeout(r, 50));
      }
    }
    assert.equal(entry.status_code, 204);
  } finally {
    child.kill();
    rmSync(file, { force: true });
  }
});
