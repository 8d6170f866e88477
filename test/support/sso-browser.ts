// Drives a browser through an SSO round trip over real HTTP: the service's start endpoint, the
// fake provider's authorize endpoint, and back to the service's callback, with a cookie jar.
import assert from 'node:assert/strict';
import { request, type Reply } from './http.js';
import type { Server } from './server.js';
import type { FakeUser, Providers } from './fake-providers.js';

export const APP_URL = 'http://app.example.test';

/** The cookies one browser holds (name → value). */
export class Browser {
  readonly cookies = new Map<string, string>();
  constructor(readonly headers: Record<string, string> = {}) {}

  header(): string | undefined {
    return this.cookies.size ? [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ') : undefined;
  }

  absorb(reply: Reply): void {
    for (const c of reply.headers['set-cookie'] ?? []) {
      const m = /^([^=]+)=([^;]*)/.exec(c);
      if (!m) continue;
      const expired = /max-age=0/i.test(c) || /expires=Thu, 01 Jan 1970/i.test(c) || m[2] === '';
      if (expired) this.cookies.delete(m[1]!);
      else this.cookies.set(m[1]!, m[2]!);
    }
  }

  get session(): string | undefined {
    return this.cookies.get('session');
  }

  async get(s: Server, path: string): Promise<Reply> {
    const cookie = this.header();
    const reply = await s.request(path, { headers: this.headers, ...(cookie ? { cookie } : {}) });
    this.absorb(reply);
    return reply;
  }
}

export interface RoundTrip {
  start: Reply;
  authorizeUrl: URL;
  /** The service path the provider sent the browser back to (with code and state). */
  callbackPath: string;
  callback: Reply;
}

/** start → provider (as `user`, or denied when null) → callback. */
export async function roundTrip(
  s: Server,
  fake: Providers,
  provider: 'google' | 'github',
  user: FakeUser | null,
  opts: { browser?: Browser; intent?: 'link' | 'reauth' } = {},
): Promise<RoundTrip & { browser: Browser }> {
  const browser = opts.browser ?? new Browser();
  const start = await browser.get(s, `/auth/oauth/${provider}/start${opts.intent ? `?intent=${opts.intent}` : ''}`);
  assert.equal(start.status, 302, `start answered ${start.status}: ${start.text}`);
  const authorizeUrl = new URL(String(start.headers.location));
  fake[provider].user = user;
  fake[provider].deny = user === null;
  const consent = await request(fake.url, authorizeUrl.pathname + authorizeUrl.search);
  assert.equal(consent.status, 302);
  const back = new URL(String(consent.headers.location));
  const callbackPath = back.pathname + back.search;
  const callback = await browser.get(s, callbackPath);
  return { start, authorizeUrl, callbackPath, callback, browser };
}

let n = 0;
/** A provider identity with a fresh id (numeric, as GitHub's are) and the given email. */
export function fakeUser(email: string, emailVerified = true): FakeUser {
  n++;
  return { id: String(Date.now() * 1000 + (process.pid % 1000) * 10 + n), email, emailVerified };
}

export async function accountOf(s: Server, auth: { bearer?: string; cookie?: string }): Promise<Reply> {
  return s.request('/api/account', auth.bearer ? { bearer: auth.bearer } : { cookie: `session=${auth.cookie}` });
}

/** The redirect target, checked to be an APP_URL address; returns path and query. */
export function appRedirect(reply: Reply): { path: string; query: URLSearchParams } {
  assert.equal(reply.status, 302, `expected a redirect, got ${reply.status}: ${reply.text}`);
  const location = String(reply.headers.location);
  assert.ok(location.startsWith(`${APP_URL}/`), `redirect leaves APP_URL: ${location}`);
  const url = new URL(location);
  return { path: url.pathname, query: url.searchParams };
}
