// The README's browser walk, steps 2 and 3, as a newcomer follows them on a fresh clone: no
// SMTP_URL, so emails land in the outbox folder; sign up, run the README's command on the newest
// .txt there, open the link it prints as written in a browser, and the address is verified. The
// log names the .txt and never carries the token.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { test } from 'node:test';
import { useFixture } from '../../support/fixture.js';
import { freePort } from '../../support/programs.js';
import { readmeBlock } from '../../support/readme.js';
import { needsChromium, useBrowser } from '../../support/browser.js';
import { uniqueEmail, useServer } from '../../support/server.js';

const logLines: string[] = [];
const logStream = new PassThrough();
logStream.on('data', (chunk: Buffer) => logLines.push(...chunk.toString().split('\n').filter(Boolean)));

const port = useFixture(() => freePort(), async () => {}, needsChromium());
// As `npm start` runs with no variables but the port: no SMTP_URL, BASE_URL and APP_URL from PORT.
const s = useServer(() => ({ port: port(), logLevel: 'info', logStream, env: { SMTP_URL: undefined, PORT: String(port()) } }), needsChromium());
const browser = useBrowser();

async function waitFor<T>(what: string, probe: () => T | undefined): Promise<T> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const value = probe();
    if (value !== undefined) return value;
    assert.ok(Date.now() < deadline, `timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

test('README step 3: the link in the newest .txt of the outbox, opened as copied, verifies the address', needsChromium(), async () => {
  const email = uniqueEmail('readme');
  const signup = await s.request('/auth/signup', { method: 'POST', body: { email, password: 'correct horse battery' } });
  assert.equal(signup.status, 201, signup.text);

  // The clone's working directory, where `npm start` keeps `.data`.
  const clone = mkdtempSync(join(tmpdir(), 'readme-walk-'));
  try {
    symlinkSync(s.deps.config.dataDir, join(clone, '.data'));
    const outbox = join(clone, '.data', 'outbox');
    const txt = await waitFor('the .txt in the outbox', () => readdirSync(outbox).find((f) => f.includes('-verify-email-') && f.endsWith('.txt')));
    assert.ok(existsSync(join(outbox, txt.replace(/\.txt$/, '.eml'))), 'the raw .eml sits beside it');
    assert.match(readFileSync(join(outbox, txt), 'utf8'), new RegExp(`^Subject: Verify your email for .+\\nTo: ${email.replace(/[.]/g, '\\.')}\\n\\n`));

    const run = spawnSync('sh', ['-c', readmeBlock('.data/outbox/*.txt')], { cwd: clone, encoding: 'utf8' });
    assert.equal(run.status, 0, run.stderr);
    const links = run.stdout.trim().split('\n');
    assert.equal(links.length, 1, run.stdout);
    const link = links[0]!;
    assert.match(link, new RegExp(`^http://localhost:${port()}/verify-email\\?token=[A-Za-z0-9]+$`), 'the link as written, nothing to decode');

    const page = await browser().newPage();
    try {
      await page.goto(link);
      await page.locator('#result.ok').getByText('Your email is verified').waitFor();
    } finally {
      await page.close();
    }
    const row = await s.deps.db.account.findFirstOrThrow({ where: { email } });
    assert.equal(row.emailVerified, true);

    // The log line names the readable copy; the token is in no log line.
    const token = new URL(link).searchParams.get('token')!;
    const written = logLines.map((l) => JSON.parse(l) as { msg: string; file?: string; kind?: string }).find((l) => l.kind === 'verify-email' && l.file);
    assert.equal(written?.file, join(s.deps.config.dataDir, 'outbox', txt));
    assert.ok(!logLines.some((l) => l.includes(token)), 'no log line carries the token');
  } finally {
    rmSync(clone, { recursive: true, force: true });
  }
});
