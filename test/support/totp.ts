// A TOTP generator for tests, written from RFC 6238 / RFC 4226 with node:crypto only (not the
// library the server uses), so that the server is checked against an independent implementation.
// Its correctness is pinned by the RFC's own test vectors (test/domain/two-step/totp.test.ts).
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import type { Server } from './server.js';

const BASE32 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';

export function base32Decode(text: string): Buffer {
  const clean = text.replace(/=+$/, '').toUpperCase();
  let bits = 0;
  let value = 0;
  const out: number[] = [];
  for (const ch of clean) {
    const v = BASE32.indexOf(ch);
    if (v < 0) throw new Error(`not base32: ${ch}`);
    value = (value << 5) | v;
    bits += 5;
    if (bits >= 8) {
      out.push((value >>> (bits - 8)) & 0xff);
      bits -= 8;
    }
  }
  return Buffer.from(out);
}

/** HOTP (RFC 4226) with HMAC-SHA-1: dynamic truncation, then `digits` decimal digits. */
export function hotp(key: Buffer, counter: bigint, digits = 6): string {
  const msg = Buffer.alloc(8);
  msg.writeBigUInt64BE(counter);
  const mac = createHmac('sha1', key).update(msg).digest();
  const offset = mac[mac.length - 1]! & 0x0f;
  const bin = ((mac[offset]! & 0x7f) << 24) | (mac[offset + 1]! << 16) | (mac[offset + 2]! << 8) | mac[offset + 3]!;
  return String(bin % 10 ** digits).padStart(digits, '0');
}

/** TOTP (RFC 6238): the HOTP of floor(unix seconds / period). */
export function totp(key: Buffer, at: Date, opts: { digits?: number; period?: number } = {}): string {
  const period = opts.period ?? 30;
  return hotp(key, BigInt(Math.floor(at.getTime() / 1000 / period)), opts.digits ?? 6);
}

/** The code an authenticator app shows for the base32 secret at `at` (6 digits, 30 s). */
export const codeAt = (secret: string, at: Date) => totp(base32Decode(secret), at);

// Two-step sign-in over HTTP, as a client turns it on.

export interface TwoStep {
  secret: string;
  recoveryCodes: string[];
}

/** Setup and confirm for a signed-in account (bearer token); returns the secret and recovery codes. */
export async function enableTwoStep(s: Server, auth: { token: string; password: string }): Promise<TwoStep> {
  const setup = await s.request('/api/account/mfa/totp/setup', { method: 'POST', bearer: auth.token, body: { current_password: auth.password } });
  assert.equal(setup.status, 200, setup.text);
  const code = codeAt(setup.json.secret, s.clock.now());
  const confirm = await s.request('/api/account/mfa/totp/confirm', { method: 'POST', bearer: auth.token, body: { code } });
  assert.equal(confirm.status, 200, confirm.text);
  return { secret: setup.json.secret, recoveryCodes: confirm.json.recovery_codes };
}

/** A code no earlier request used: the server's clock moves on one step first (each step's code works once). */
export function freshCode(s: Server, secret: string): string {
  s.clock.advance(30_000);
  return codeAt(secret, s.clock.now());
}
