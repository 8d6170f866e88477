// TOTP as RFC 6238 fixes it for authenticator apps: HMAC-SHA-1, 6 digits, 30-second steps, one
// step of clock skew either way. The steps come from the injected clock (the library's own TOTP
// helpers read Date.now()), and the matching step is returned so that the caller can make each
// code work once (a code is refused unless its step is later than the last one used).
import { createTOTPKeyURI, verifyHOTP } from '@oslojs/otp';
import { encodeBase32NoPadding } from '@oslojs/encoding';
import { randomBytes } from 'node:crypto';

export const TOTP_PERIOD_S = 30;
export const TOTP_DIGITS = 6;
/** Steps accepted on either side of the current one. */
export const TOTP_SKEW_STEPS = 1;

/** 160 random bits, the key length RFC 4226 recommends for HMAC-SHA-1. */
export function newTotpKey(): Uint8Array {
  return new Uint8Array(randomBytes(20));
}

/** The secret as authenticator apps take it when typed: base32, upper case, no padding. */
export const totpSecretText = (key: Uint8Array) => encodeBase32NoPadding(key);

export function totpStep(now: Date): bigint {
  return BigInt(Math.floor(now.getTime() / (TOTP_PERIOD_S * 1000)));
}

/** The step (within the skew) whose code `code` is, or null. */
export function matchTotpStep(key: Uint8Array, code: string, now: Date): bigint | null {
  if (!/^\d{6}$/.test(code)) return null;
  const current = totpStep(now);
  let found: bigint | null = null;
  // Every candidate is checked (constant work whichever matches).
  for (let d = -TOTP_SKEW_STEPS; d <= TOTP_SKEW_STEPS; d++) {
    const step = current + BigInt(d);
    if (verifyHOTP(key, step, TOTP_DIGITS, code) && found === null) found = step;
  }
  return found;
}

export interface TotpEnrolment {
  secret: string;
  otpauthUrl: string;
  qrSvg: string;
}

/** What the setup answers: the secret, its otpauth:// URL, and that URL as an inline SVG QR code. */
export async function describeTotpKey(key: Uint8Array, issuer: string, accountName: string): Promise<TotpEnrolment> {
  const otpauthUrl = createTOTPKeyURI(issuer, accountName, key, TOTP_PERIOD_S, TOTP_DIGITS);
  // Loaded at the first setup, not at start-up: its memory is only worth holding once used.
  const { default: QRCode } = await import('qrcode');
  const qrSvg = await QRCode.toString(otpauthUrl, { type: 'svg', errorCorrectionLevel: 'M', margin: 2 });
  return { secret: totpSecretText(key), otpauthUrl, qrSvg };
}
