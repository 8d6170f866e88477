// Headless Chromium for the browser tests (Debian's /usr/bin/chromium through playwright-core,
// never a downloaded browser): one browser per file, launched with the flags this machine needs
// (no background networking: its closed network would refuse those connections), and a loopback
// forwarder for pages whose origin must be known before the test server picks its port.
import { existsSync, mkdirSync } from 'node:fs';
import { connect, createServer, type AddressInfo, type Server as NetServer, type Socket } from 'node:net';
import { chromium, type Browser, type Page } from 'playwright-core';
import { useFixture } from './fixture.js';
import { useServer, type Server } from './server.js';

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** Screenshots and other artifacts of the browser tests (gitignored). */
export const ARTIFACTS = new URL('../../test-artifacts/', import.meta.url);

const FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];

/** node:test options: skip with the reason when there is no Chromium to drive. */
export function needsChromium(): { skip?: string } {
  return existsSync(CHROMIUM) ? {} : { skip: `needs Chromium at ${CHROMIUM} (apt-get install chromium, or set CHROMIUM_PATH)` };
}

/** One browser for the tests of the file; `hostMap` resolves those names to loopback (zone hosts). */
export function useBrowser(opts: { hostMap?: string[] } = {}): () => Browser {
  return useFixture(
    () => {
      mkdirSync(ARTIFACTS, { recursive: true });
      const rules = (opts.hostMap ?? []).map((h) => `MAP ${h} 127.0.0.1`).join(',');
      return chromium.launch({ executablePath: CHROMIUM, args: [...FLAGS, ...(rules ? [`--host-resolver-rules=${rules}`] : [])] });
    },
    (b) => b.close(),
    needsChromium(),
  );
}

/**
 * Collects the page's script errors and console errors (CSP violations among them) as they come.
 * Failed loads are not counted: a signed-out page's GET /api/account is 401 by design.
 */
export function pageProblems(page: Page): string[] {
  const problems: string[] = [];
  page.on('console', (m) => {
    if (m.type() === 'error' && !m.text().startsWith('Failed to load resource')) problems.push(m.text());
  });
  page.on('pageerror', (e) => problems.push(e.message));
  return problems;
}

export interface Forwarder {
  /** The port the browser uses, known before the server starts. */
  readonly port: number;
  /** Where the bytes go: set once the test server listens. */
  target: number;
}

/**
 * A loopback port chosen first that passes bytes to a server started later: for pages whose origin
 * (APP_URL, the WebAuthn origin) is configuration read at start-up, before the port is known.
 */
export function useForwarder(): () => Forwarder {
  return useFixture(
    async () => {
      const sockets = new Set<Socket>();
      const f = { port: 0, target: 0, server: createServer() as NetServer, sockets };
      f.server.on('connection', (client) => {
        const upstream = connect(f.target, '127.0.0.1');
        for (const sock of [client, upstream]) {
          sockets.add(sock);
          sock.on('close', () => sockets.delete(sock));
          sock.on('error', () => {
            client.destroy();
            upstream.destroy();
          });
        }
        client.pipe(upstream);
        upstream.pipe(client);
      });
      await new Promise<void>((resolve) => f.server.listen(0, '127.0.0.1', resolve));
      f.port = (f.server.address() as AddressInfo).port;
      return f;
    },
    async (f) => {
      for (const sock of f.sockets) sock.destroy();
      await new Promise<void>((resolve) => f.server.close(() => resolve()));
    },
  );
}

/**
 * A test server whose APP_URL is the origin the browser uses (http://localhost:<forwarder port>):
 * pages that check their origin (cookie writes, WebAuthn) see their own. Call at file level.
 */
export function useServerAtOrigin(opts: { env?: Record<string, string> } = {}): { server: Server; origin: () => string } {
  const forwarder = useForwarder();
  const origin = () => `http://localhost:${forwarder().port}`;
  const server = useServer(() => ({ env: { APP_URL: origin(), ...opts.env } }));
  useFixture(
    async () => {
      forwarder().target = Number(new URL(server.url).port);
    },
    async () => {},
  );
  return { server, origin };
}
