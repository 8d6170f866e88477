// Accounts as tests make them, over HTTP like a client: sign up, verify, sign in. signedIn() is
// the one signed-in-user helper; useSignedIn() makes one per file.
import assert from 'node:assert/strict';
import { randomInt } from 'node:crypto';
import { lazyFixture, useFixture } from './fixture.js';
import { sessionCookie } from './http.js';
import { uniqueEmail, type Server } from './server.js';

export const PASSWORD = 'correct horse battery';
/** A session token: its creation second (8 base32hex characters), then 20 random bytes in base32. */
export const SESSION_TOKEN = /^[0-9a-v]{8}[a-z2-7]{32}$/;

export interface Account {
  id: string;
  email: string;
  password: string;
  slug: string;
}

export interface Session {
  token: string;
  cookie: string;
}

/** A random client address for TRUST_PROXY servers: keeps per-IP limits of tests apart. */
export function randomIp(): string {
  return `10.${randomInt(1, 255)}.${randomInt(0, 255)}.${randomInt(1, 255)}`;
}

export const fromIp = (ip: string): Record<string, string> => ({ 'x-forwarded-for': ip });

export interface SignupOptions {
  /** Default: a unique address. */
  email?: string;
  /** Default: PASSWORD. */
  password?: string;
  headers?: Record<string, string>;
  /** signedIn(): follow the verification link before signing in (factors need a verified address). */
  verified?: boolean;
}

export async function signup(s: Server, opts: SignupOptions = {}): Promise<Account> {
  const email = opts.email ?? uniqueEmail();
  const password = opts.password ?? PASSWORD;
  const r = await s.request('/auth/signup', { method: 'POST', body: { email, password }, headers: opts.headers ?? {} });
  assert.equal(r.status, 201, r.text);
  return { id: r.json.id, email, password, slug: r.json.slug };
}

/** Follows the verification link of the account's latest verify-email mail. */
export async function verify(s: Server, account: Account, count = 1): Promise<void> {
  const mail = await s.smtp.waitFor(account.email, 'verify-email', count);
  const r = await s.request('/auth/verify-email', { method: 'POST', body: { token: mail.token } });
  assert.equal(r.status, 200, r.text);
}

export async function login(
  s: Server,
  account: Pick<Account, 'email' | 'password'>,
  headers: Record<string, string> = {},
): Promise<Session> {
  const r = await s.request('/auth/login', { method: 'POST', body: { email: account.email, password: account.password }, headers });
  assert.equal(r.status, 200, r.text);
  const cookie = sessionCookie(r);
  assert.ok(cookie);
  return { token: r.json.token, cookie };
}

export type SignedIn = Account & Session;

/** A new account with one session (verified first with `verified: true`). */
export async function signedIn(s: Server, opts: SignupOptions = {}): Promise<SignedIn> {
  const account = await signup(s, opts);
  if (opts.verified) await verify(s, account);
  return { ...account, ...(await login(s, account, opts.headers)) };
}

/** A signed-in account for the tests of the file, made once the server has started. */
export function useSignedIn(s: Server, opts: SignupOptions = {}): SignedIn {
  return lazyFixture(useFixture(() => signedIn(s, opts), async () => {}));
}
