// The README's CLI sign-in (curl and sed only) runs as written against a server: it prints the
// link and the code, polls at the server's interval while the person has not decided, and once
// the code is approved through the console's API it lists the tunnels with the token it got.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { test } from 'node:test';
import { signedIn } from '../../support/accounts.js';
import { useServer } from '../../support/server.js';
import { readmeBlock } from '../../support/readme.js';
import { createTunnel } from '../../support/tunnels.js';

const s = useServer();

test('the README script signs the CLI in with the device grant and lists the tunnels', async () => {
  const person = await signedIn(s, { verified: true });
  const tunnel = await createTunnel(s, person);
  const child = spawn('sh', ['-c', readmeBlock('/oauth/device_authorization')], { env: { ...process.env, API: s.url }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout.on('data', (c: Buffer) => (out += c.toString()));
  child.stderr.on('data', (c: Buffer) => (err += c.toString()));
  const exited = new Promise<number>((resolve) => child.on('close', (code) => resolve(code ?? -1)));
  try {
    // The script shows where to go and which code to check.
    const deadline = Date.now() + 10_000;
    let code: string | undefined;
    while (!(code = /shows the code ([A-Z]{4}-[A-Z]{4})\./.exec(out)?.[1])) {
      assert.ok(Date.now() < deadline, `no code printed: ${out} ${err}`);
      await new Promise((r) => setTimeout(r, 50));
    }
    assert.match(out, new RegExp(`Open ${s.deps.config.appUrl}/device\\?user_code=${code}`));
    // Let it poll once while pending, then approve as the console does.
    await new Promise((r) => setTimeout(r, 5_500));
    const approved = await s.request('/api/device/approve', { method: 'POST', bearer: person.token, body: { user_code: code } });
    assert.equal(approved.status, 204, approved.text);
    assert.equal(await exited, 0, err);
    assert.match(out, /Signed in\. Your tunnels:/);
    assert.ok(out.includes(tunnel.id), out);
    const tokens = await s.request('/api/tokens', { bearer: person.token });
    assert.deepEqual(tokens.json.tokens.map((t: { name: string }) => t.name), [`Tunnel CLI (curl/${/curl (\S+)/.exec(await curlVersion())?.[1]})`]);
  } finally {
    child.kill();
  }
});

async function curlVersion(): Promise<string> {
  const child = spawn('curl', ['--version']);
  let out = '';
  child.stdout.on('data', (c: Buffer) => (out += c.toString()));
  await new Promise((r) => child.on('close', r));
  return out;
}
