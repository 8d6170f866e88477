// The keys the authorization server signs access tokens with (API.md section 13: "kept across
// restarts and instances, rotated without breaking live tokens"). Keys are ES256, made by jose,
// stored in the database with the private half sealed under ENCRYPTION_KEY, so every instance
// signs with the same key and verifies what any other signed.
//
// Rotation: a key signs for KEY_ROTATION_MS. Its successor is made and published at jwks_uri
// KEY_PUBLISH_AHEAD_MS before it starts signing, so a verifier that cached the JWKS knows it by
// then; the predecessor stays published for KEY_RETAIN_MS after it stopped signing (far beyond the
// one hour an access token lives), then is deleted. Every instance runs ensureSigningKeys (at
// start and periodically); the advisory lock makes one of them do each step.
import { calculateJwkThumbprint, exportJWK, generateKeyPair, type JWK } from 'jose';
import type { DomainDeps } from '../context.js';
import { deleteSigningKeys, insertSigningKey, selectSigningKeys, withKeysLocked, type SigningKeyRow } from './store.js';

const DAY_MS = 24 * 3600_000;
export const SIGNING_ALG = 'ES256';
export const KEY_ROTATION_MS = 30 * DAY_MS;
export const KEY_PUBLISH_AHEAD_MS = DAY_MS;
export const KEY_RETAIN_MS = 2 * DAY_MS;

export interface SigningKey {
  kid: string;
  alg: string;
  activeFrom: Date;
  /** With kid, alg and use: ready for a JWKS. */
  publicJwk: JWK;
  privateJwk: JWK;
}

export interface KeySet {
  /** The key that signs now. */
  signing: SigningKey;
  /** Every published key: the signing one first, then the next (if made) and the retained ones. */
  published: SigningKey[];
}

type KeyDeps = Pick<DomainDeps, 'db' | 'clock' | 'cipher'>;

async function newKey(deps: KeyDeps, activeFrom: Date): Promise<SigningKeyRow> {
  const { publicKey, privateKey } = await generateKeyPair(SIGNING_ALG, { extractable: true });
  const pub = await exportJWK(publicKey);
  const kid = await calculateJwkThumbprint(pub);
  const meta = { kid, alg: SIGNING_ALG, use: 'sig' };
  return {
    kid,
    alg: SIGNING_ALG,
    publicJwk: JSON.stringify({ ...pub, ...meta }),
    privateJwk: deps.cipher.seal(JSON.stringify({ ...(await exportJWK(privateKey)), ...meta })),
    activeFrom,
  };
}

function keyOf(deps: KeyDeps, row: SigningKeyRow): SigningKey {
  return {
    kid: row.kid,
    alg: row.alg,
    activeFrom: row.activeFrom,
    publicJwk: JSON.parse(row.publicJwk) as JWK,
    privateJwk: JSON.parse(deps.cipher.open(row.privateJwk)) as JWK,
  };
}

/** The rows that sign now, and which to keep: (rows newest first). */
function plan(rows: readonly SigningKeyRow[], now: number): { current: SigningKeyRow | undefined; next: SigningKeyRow | undefined; expired: string[] } {
  const currentIndex = rows.findIndex((r) => r.activeFrom.getTime() <= now);
  const current = currentIndex === -1 ? undefined : rows[currentIndex];
  const next = currentIndex > 0 ? rows[currentIndex - 1] : currentIndex === -1 ? rows[rows.length - 1] : undefined;
  const expired: string[] = [];
  // An older key is kept while its successor has signed for less than KEY_RETAIN_MS.
  for (let i = currentIndex + 1; i > 0 && i < rows.length; i++) {
    const successorFrom = rows[i - 1]!.activeFrom.getTime();
    if (now - successorFrom >= KEY_RETAIN_MS) expired.push(rows[i]!.kid);
  }
  return { current, next, expired };
}

/** Makes the signing key and its successor when due, drops retired keys; answers the set. */
export async function ensureSigningKeys(deps: KeyDeps): Promise<KeySet> {
  const { rows, now } = await withKeysLocked(deps.db, async (tx) => {
    // The clock is read once the lock is held: a key another instance made while this one waited
    // is active by then, and no second one is made beside it.
    const now = deps.clock().getTime();
    const all = await selectSigningKeys(tx);
    const planned = plan(all, now);
    const expired = planned.expired;
    let { current, next } = planned;
    const added: SigningKeyRow[] = [];
    if (!current) {
      current = await newKey(deps, new Date(now));
      added.push(current);
    }
    const successorDue = current.activeFrom.getTime() + KEY_ROTATION_MS;
    if (!next && now >= successorDue - KEY_PUBLISH_AHEAD_MS) {
      next = await newKey(deps, new Date(Math.max(successorDue, now + KEY_PUBLISH_AHEAD_MS)));
      added.push(next);
    }
    for (const row of added) await insertSigningKey(tx, row);
    await deleteSigningKeys(tx, expired);
    if (added.length === 0 && expired.length === 0) return { rows: all, now };
    return { rows: await selectSigningKeys(tx), now };
  });
  return keySetOf(deps, rows, now);
}

/** The set as the rows say at `now` (rows newest first). */
function keySetOf(deps: KeyDeps, rows: readonly SigningKeyRow[], now: number): KeySet {
  const { current } = plan(rows, now);
  if (!current) throw new Error('no signing key is active');
  const signing = keyOf(deps, current);
  return { signing, published: [signing, ...rows.filter((r) => r.kid !== current.kid).map((r) => keyOf(deps, r))] };
}

/** The public JWKS document of a key set (jwks_uri). */
export const jwksOf = (set: KeySet): { keys: JWK[] } => ({ keys: set.published.map((k) => k.publicJwk) });
