// Secrets that must be read back (email bodies carrying live links, later TOTP secrets) are
// stored sealed: AES-256-GCM under ENCRYPTION_KEY, a fresh 12-byte nonce per value, the tag
// checked on open. The stored form is `enc:v1:` + base64(nonce | tag | ciphertext).
import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const PREFIX = 'enc:v1:';

export interface Cipher {
  seal(plain: string): string;
  /** Throws when the value was sealed under another key or altered. */
  open(sealed: string): string;
  /** A 32-byte key for one purpose (HKDF-SHA256 of ENCRYPTION_KEY): the same on every instance. */
  derive(purpose: string): Buffer;
}

export const isSealed = (value: string) => value.startsWith(PREFIX);

export function createCipher(key: Buffer): Cipher {
  if (key.length !== 32) throw new Error('the encryption key must be 32 bytes');
  return {
    seal(plain) {
      const nonce = randomBytes(12);
      const c = createCipheriv('aes-256-gcm', key, nonce);
      const body = Buffer.concat([c.update(plain, 'utf8'), c.final()]);
      return PREFIX + Buffer.concat([nonce, c.getAuthTag(), body]).toString('base64');
    },
    open(sealed) {
      if (!isSealed(sealed)) throw new Error('not a sealed value');
      const raw = Buffer.from(sealed.slice(PREFIX.length), 'base64');
      const d = createDecipheriv('aes-256-gcm', key, raw.subarray(0, 12));
      d.setAuthTag(raw.subarray(12, 28));
      return Buffer.concat([d.update(raw.subarray(28)), d.final()]).toString('utf8');
    },
    derive(purpose) {
      return Buffer.from(hkdfSync('sha256', key, Buffer.alloc(0), `tunnel-service:${purpose}`, 32));
    },
  };
}

/**
 * The embedded default when ENCRYPTION_KEY is unset (never in production, where config refuses
 * to start): a random key kept in DATA_DIR/encryption.key (mode 0600), made on first start.
 * Several instances must share one ENCRYPTION_KEY instead.
 */
export function loadOrCreateKeyFile(dataDir: string): Buffer {
  const file = join(dataDir, 'encryption.key');
  if (existsSync(file)) {
    const key = Buffer.from(readFileSync(file, 'utf8').trim(), 'base64');
    if (key.length !== 32) throw new Error(`${file} does not hold a 32-byte base64 key`);
    return key;
  }
  mkdirSync(dataDir, { recursive: true });
  const key = randomBytes(32);
  writeFileSync(file, `${key.toString('base64')}\n`, { mode: 0o600, flag: 'wx' });
  chmodSync(file, 0o600);
  return key;
}
